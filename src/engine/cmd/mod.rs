//! Command handlers, one file per command group. Each file declares the group's rows of the
//! [command table](super::table) in a `COMMANDS` slice next to the handlers they name.

pub mod bitmap;
pub mod blocking;
pub mod cluster;
pub mod command;
pub mod connection;
pub mod functions;
pub mod geo;
pub mod hash;
pub mod hyperloglog;
pub mod keys;
pub mod list;
pub mod multi;
pub mod pubsub;
pub mod scripting;
pub mod server;
pub mod set;
pub mod sort;
pub mod stream;
pub mod string;
pub mod zset;
