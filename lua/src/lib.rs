//! Lua 5.1.5 as Redis 7.0 runs it, for kvlab's EVAL and FUNCTION: the PUC-Rio interpreter
//! (from the `lua-src` crate's sources, with Redis's patches applied by `build.rs`), the
//! libraries Redis opens, and a safe interface for the engine ([`Lua`]).
//!
//! The unsafe code of kvlab lives here, behind that interface: the kvlab crate itself
//! forbids `unsafe`.
//!
//! Errors: Lua raises an error by unwinding to its protected call (`longjmp` natively; a
//! host exception in wasm32, see `unwind`). No Rust frame is ever unwound: functions
//! written in Rust return a code and `c/glue.c` raises the error after they returned.
#![allow(unsafe_code)]

pub mod ffi;
mod libs;
mod state;
#[cfg(target_arch = "wasm32")]
mod unwind;

pub use state::{Lua, RunError};
