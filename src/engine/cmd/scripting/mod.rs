//! Scripting: `EVAL`, `EVALSHA` and their read-only forms, and `SCRIPT`. Scripts run on
//! Lua 5.1 as Redis 7.0 runs them ([`kvlab_lua`]); the cache and the interpreter are the
//! server's ([`crate::engine::scripting`]); a script's commands reach the engine through
//! `host`.

mod debug;
mod eval;
pub(crate) mod host;
mod resume;

use crate::engine::core::ctx::Command;
use crate::engine::table::{DispatchFlags, Flags, Group, KeySpec};

use eval::{
    eval, eval_ro, evalsha, evalsha_ro, script_debug, script_exists, script_flush, script_help,
    script_kill, script_load,
};
pub(crate) use eval::{kill, oom_at_start, prepare_run, start_run, Start};

/// What EVAL_RO and EVAL share; EVAL "may replicate" (it may write), which CLIENT PAUSE
/// WRITE holds back unless the script's shebang says it does not write.
const EVAL_RO_FLAGS: Flags = Flags::NOSCRIPT
    .union(Flags::STALE)
    .union(Flags::SKIP_MONITOR)
    .union(Flags::NO_MANDATORY_KEYS)
    .union(Flags::READONLY);
const EVAL_FLAGS: Flags = EVAL_RO_FLAGS
    .difference(Flags::READONLY)
    .union(Flags::MAY_REPLICATE);
const RW_KEYS: &[KeySpec] = &[KeySpec::index(2, "RW access update")
    .keynum(0, 1, 1)
    .notes("We cannot tell how the keys will be used so we assume the worst, RW and UPDATE")];
const RW_KEYS_SHA: &[KeySpec] = &[KeySpec::index(2, "RW access update").keynum(0, 1, 1)];
const RO_KEYS: &[KeySpec] = &[KeySpec::index(2, "RO access")
    .keynum(0, 1, 1)
    .notes("We cannot tell how the keys will be used so we assume the worst, RO and ACCESS")];
const RO_KEYS_SHA: &[KeySpec] = &[KeySpec::index(2, "RO access").keynum(0, 1, 1)];
const EVAL_ARGS: &str = "script numkeys [key [key ...]] [arg [arg ...]]";
const EVALSHA_ARGS: &str = "sha1 numkeys [key [key ...]] [arg [arg ...]]";

/// The scripting commands.
pub const COMMANDS: &[Command] = &[
    Command::new("eval", -3, Group::Scripting, eval)
        .key_specs(RW_KEYS)
        .flags(EVAL_FLAGS)
        .dispatch(DispatchFlags::SCRIPT_FLAGS)
        .doc(
            EVAL_ARGS,
            "Runs a Lua script on the server, atomically: KEYS holds the key names, ARGV the other arguments.",
            "Depends on the script that is executed.",
            "2.6.0",
        ),
    Command::new("evalsha", -3, Group::Scripting, evalsha)
        .key_specs(RW_KEYS_SHA)
        .flags(EVAL_FLAGS)
        .dispatch(DispatchFlags::SCRIPT_FLAGS)
        .doc(
            EVALSHA_ARGS,
            "Runs a cached script by its SHA-1 digest (SCRIPT LOAD or an earlier EVAL cached it).",
            "Depends on the script that is executed.",
            "2.6.0",
        ),
    Command::new("eval_ro", -3, Group::Scripting, eval_ro)
        .key_specs(RO_KEYS)
        .flags(EVAL_RO_FLAGS)
        .dispatch(DispatchFlags::SCRIPT_FLAGS)
        .doc(
            EVAL_ARGS,
            "Runs a read-only Lua script: any write command it calls fails.",
            "Depends on the script that is executed.",
            "7.0.0",
        ),
    Command::new("evalsha_ro", -3, Group::Scripting, evalsha_ro)
        .key_specs(RO_KEYS_SHA)
        .flags(EVAL_RO_FLAGS)
        .dispatch(DispatchFlags::SCRIPT_FLAGS)
        .doc(
            EVALSHA_ARGS,
            "Runs a cached read-only script by its SHA-1 digest.",
            "Depends on the script that is executed.",
            "7.0.0",
        ),
    Command::container("script", Group::Scripting, SCRIPT_SUBCOMMANDS).doc(
        "subcommand [arguments]",
        "Manages the script cache: load, check, flush, kill.",
        "Depends on subcommand.",
        "2.6.0",
    ),
];

const SCRIPT_SUBCOMMANDS: &[Command] = &[
    Command::new("debug", 3, Group::Scripting, script_debug)
        .flags(Flags::NOSCRIPT)
        .doc(
            "YES | SYNC | NO",
            "Sets the debug mode of the scripts this client runs next (the workbench's debugger does that here).",
            "O(1)",
            "3.2.0",
        ),
    Command::new("exists", -3, Group::Scripting, script_exists)
        .tips(&["request_policy:all_shards", "response_policy:agg_logical_and"])
        .flags(Flags::NOSCRIPT)
        .doc(
            "sha1 [sha1 ...]",
            "Tells, for each digest, whether the script is in the cache (1) or not (0).",
            "O(N) with N being the number of scripts to check (so checking a single script is an O(1) operation).",
            "2.6.0",
        ),
    Command::new("flush", -2, Group::Scripting, script_flush)
        .tips(&["request_policy:all_nodes", "response_policy:all_succeeded"])
        .flags(Flags::NOSCRIPT)
        .doc(
            "[ASYNC | SYNC]",
            "Empties the script cache and starts a fresh interpreter.",
            "O(N) with N being the number of scripts in cache",
            "2.6.0",
        ),
    Command::new("help", 2, Group::Scripting, script_help)
        .flags(Flags::LOADING.union(Flags::STALE))
        .doc("", "Shows what SCRIPT can do.", "O(1)", "5.0.0"),
    Command::new("kill", 2, Group::Scripting, script_kill)
        .tips(&["request_policy:all_shards", "response_policy:one_succeeded"])
        .flags(Flags::NOSCRIPT.union(Flags::ALLOW_BUSY))
        .doc(
            "",
            "Stops the script that is running now, if it wrote nothing yet.",
            "O(1)",
            "2.6.0",
        ),
    Command::new("load", 3, Group::Scripting, script_load)
        .tips(&["request_policy:all_nodes", "response_policy:all_succeeded"])
        .flags(Flags::NOSCRIPT.union(Flags::STALE))
        .doc(
            "script",
            "Compiles a script and caches it without running it; replies with its SHA-1 digest.",
            "O(N) with N being the length in bytes of the script body.",
            "2.6.0",
        ),
];
