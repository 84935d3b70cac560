//! The hash group.

use crate::engine::table::Command;

/// The hash commands.
pub const COMMANDS: &[Command] = &[];
