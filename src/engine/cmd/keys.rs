//! The generic (keyspace) group.

use crate::engine::table::Command;

/// The generic commands.
pub const COMMANDS: &[Command] = &[];
