//! Functions (Redis 7.0): `FUNCTION` manages libraries of named Lua functions, `FCALL` and
//! `FCALL_RO` call them. The libraries are server data ([`crate::engine::functions`]): in
//! snapshots, and `FUNCTION LOAD`, `DELETE`, `FLUSH` and `RESTORE` are write effects.
//!
//! # Layout
//! - `library`: `FUNCTION`'s subcommands.
//! - [`payload`]: the payload of `FUNCTION DUMP` and `FUNCTION RESTORE` (Redis's RDB
//!   function records, RDB version and CRC-64 footer, built on [`crate::engine::rdb`]).
//! - `fcall`: `FCALL` and `FCALL_RO`, run as the script client.

mod fcall;
mod library;

pub mod payload;

use crate::engine::core::ctx::Command;
use crate::engine::table::{DispatchFlags, Flags, Group, KeySpec};

use fcall::{fcall, fcall_ro};
use library::{
    function_delete, function_dump, function_flush, function_help, function_kill, function_list,
    function_load, function_restore, function_stats,
};

/// Redis's flags for FCALL (MAY_REPLICATE is internal: COMMAND INFO does not show it); the
/// function's own replace some before the command runs
/// ([`crate::engine::scripting::script_command_flags`]).
const FCALL_FLAGS: Flags = Flags::NOSCRIPT
    .union(Flags::STALE)
    .union(Flags::SKIP_MONITOR)
    .union(Flags::NO_MANDATORY_KEYS)
    .union(Flags::MAY_REPLICATE);
const RW_KEYS: &[KeySpec] = &[KeySpec::index(2, "RW access update")
    .keynum(0, 1, 1)
    .notes("We cannot tell how the keys will be used so we assume the worst, RW and UPDATE")];
const RO_KEYS: &[KeySpec] = &[KeySpec::index(2, "RO access")
    .keynum(0, 1, 1)
    .notes("We cannot tell how the keys will be used so we assume the worst, RO and ACCESS")];
const FCALL_ARGS: &str = "function numkeys [key [key ...]] [arg [arg ...]]";
const ALL_SHARDS: &[&str] = &["request_policy:all_shards", "response_policy:all_succeeded"];
const WRITE: Flags = Flags::WRITE.union(Flags::NOSCRIPT);
const WRITE_DENYOOM: Flags = WRITE.union(Flags::DENYOOM);

/// The function commands.
pub const COMMANDS: &[Command] = &[
    Command::new("fcall", -3, Group::Scripting, fcall)
        .key_specs(RW_KEYS)
        .flags(FCALL_FLAGS)
        .dispatch(DispatchFlags::FUNCTION_FLAGS)
        .doc(
            FCALL_ARGS,
            "Calls a function that FUNCTION LOAD registered: KEYS holds the key names, ARGV the other arguments.",
            "Depends on the function that is executed.",
            "7.0.0",
        ),
    Command::new("fcall_ro", -3, Group::Scripting, fcall_ro)
        .key_specs(RO_KEYS)
        .flags(
            FCALL_FLAGS
                .difference(Flags::MAY_REPLICATE)
                .union(Flags::READONLY),
        )
        .dispatch(DispatchFlags::FUNCTION_FLAGS)
        .doc(
            FCALL_ARGS,
            "Calls a function flagged no-writes: any write command it calls fails.",
            "Depends on the function that is executed.",
            "7.0.0",
        ),
    Command::container("function", Group::Scripting, FUNCTION_SUBCOMMANDS).doc(
        "subcommand [arguments]",
        "Manages function libraries: load, list, delete, dump and restore them.",
        "Depends on subcommand.",
        "7.0.0",
    ),
];

const FUNCTION_SUBCOMMANDS: &[Command] = &[
    Command::new("delete", 3, Group::Scripting, function_delete)
        .tips(ALL_SHARDS)
        .flags(WRITE)
        .doc(
            "library-name",
            "Deletes a library and its functions.",
            "O(1)",
            "7.0.0",
        ),
    Command::new("dump", 2, Group::Scripting, function_dump)
        .flags(Flags::NOSCRIPT)
        .doc(
            "",
            "Serializes every library into a payload that FUNCTION RESTORE reads (Redis's format).",
            "O(N) where N is the number of functions",
            "7.0.0",
        ),
    Command::new("flush", -2, Group::Scripting, function_flush)
        .tips(ALL_SHARDS)
        .flags(WRITE)
        .doc(
            "[ASYNC | SYNC]",
            "Deletes every library.",
            "O(N) where N is the number of functions deleted",
            "7.0.0",
        ),
    Command::new("help", 2, Group::Scripting, function_help)
        .flags(Flags::LOADING.union(Flags::STALE))
        .doc("", "Shows what FUNCTION can do.", "O(1)", "7.0.0"),
    Command::new("kill", 2, Group::Scripting, function_kill)
        .tips(&["request_policy:all_shards", "response_policy:one_succeeded"])
        .flags(Flags::NOSCRIPT.union(Flags::ALLOW_BUSY))
        .doc(
            "",
            "Stops the function that is running now, if it wrote nothing yet.",
            "O(1)",
            "7.0.0",
        ),
    Command::new("list", -2, Group::Scripting, function_list)
        .tips(&["nondeterministic_output_order"])
        .flags(Flags::NOSCRIPT)
        .doc(
            "[LIBRARYNAME library-name-pattern] [WITHCODE]",
            "Lists the libraries (those whose name matches the pattern), their functions and, with WITHCODE, their code.",
            "O(N) where N is the number of functions",
            "7.0.0",
        ),
    Command::new("load", -3, Group::Scripting, function_load)
        .tips(ALL_SHARDS)
        .flags(WRITE_DENYOOM)
        .doc(
            "[REPLACE] function-code",
            "Loads a library: its code starts with #!lua name=<library> and registers functions with redis.register_function.",
            "O(1) (considering compilation time is redundant)",
            "7.0.0",
        ),
    Command::new("restore", -3, Group::Scripting, function_restore)
        .tips(ALL_SHARDS)
        .flags(WRITE_DENYOOM)
        .doc(
            "serialized-value [FLUSH | APPEND | REPLACE]",
            "Loads the libraries of a FUNCTION DUMP payload: next to the existing ones (APPEND, the default), replacing those of the same name (REPLACE), or instead of all of them (FLUSH).",
            "O(N) where N is the number of functions on the payload",
            "7.0.0",
        ),
    Command::new("stats", 2, Group::Scripting, function_stats)
        .tips(&[
            "nondeterministic_output",
            "request_policy:all_shards",
            "response_policy:special",
        ])
        .flags(Flags::NOSCRIPT.union(Flags::ALLOW_BUSY))
        .doc(
            "",
            "Tells which function is running (none: a function runs to its end before another command is read) and how many libraries and functions each engine holds.",
            "O(1)",
            "7.0.0",
        ),
];
