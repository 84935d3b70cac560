//! Helpers shared by the host-only integration tests that talk to real servers.
//!
//! - [`resp`]: a small blocking RESP client whose replies parse into
//!   [`kvlab::engine::Reply`], so a reply from `redis-server`, from `kvlab-server` and from
//!   the in-process engine (encoded and parsed back) can be compared as values.
//! - [`process`]: a guard that starts `redis-server` or `kvlab-server` on a free loopback
//!   port and kills it when dropped.
//! - [`scale`]: the size and seed of the scale tests.
//! - [`sides`]: a real `redis-server` and an in-process engine side by side, for the
//!   differential tests.
//!
//! Each test crate that needs them says `mod support;`; not every crate uses every helper.
#![allow(dead_code)]

pub mod process;
pub mod resp;
pub mod scale;
pub mod sides;
