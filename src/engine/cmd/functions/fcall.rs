//! `FCALL` and `FCALL_RO` (Redis's `fcallCommandGeneric`, `scriptPrepareForRun` and
//! `luaEngineCall`): the function is found, its flags are checked, then it runs as the
//! script client, its writes replicated as one unit.

use crate::engine::args::Args;
use crate::engine::cmd::scripting::{oom_at_start, prepare_run, start_run, Start};
use crate::engine::core::ctx::Ctx;
use crate::engine::core::monitor;
use crate::engine::error::{CmdResult, Error};
use crate::engine::num::parse_i64;
use crate::engine::scripting::ScriptFlags;

/// `FCALL function numkeys [key ...] [arg ...]`. O(1) to find the function, plus what
/// it does.
pub(super) fn fcall(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    generic(ctx, args, false)
}

/// `FCALL_RO`: as FCALL, for functions flagged `no-writes` only.
pub(super) fn fcall_ro(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    generic(ctx, args, true)
}

fn generic(ctx: &mut Ctx<'_>, args: &mut Args, ro: bool) -> CmdResult {
    // Redis feeds monitors the call before the commands the function runs.
    monitor::feed_monitors(ctx.srv, ctx.client, args.argv());
    // The call as sent, for FUNCTION STATS while it runs.
    let command = args.argv().to_vec();
    let name = args.next_owned()?;
    let Some(f) = ctx.srv.functions.find(&name) else {
        return Err(Error::Err("Function not found".into()));
    };
    let (id, flags, fname) = (f.id, f.flags, f.name.clone());
    let numkeys =
        parse_i64(args.next_bytes()?).ok_or(Error::Err("Bad number of keys provided".into()))?;
    let rest = args.rest();
    if numkeys > rest.len() as i64 {
        return Err(Error::KeysOverArgs);
    }
    if numkeys < 0 {
        return Err(Error::KeysNegative);
    }
    run(ctx, id, &fname, flags, ro, numkeys as usize, command)
}

/// The checks of `scriptPrepareForRun` on the function's flags, then the run.
fn run(
    ctx: &mut Ctx<'_>,
    id: i32,
    name: &str,
    flags: ScriptFlags,
    ro: bool,
    numkeys: usize,
    command: Vec<Vec<u8>>,
) -> CmdResult {
    let oom_at_start = oom_at_start(ctx);
    // A function without allow-oom or no-writes is DENYOOM to processCommand (Redis's
    // scriptFlagsToCmdFlags), which refuses it before it runs, unless it was queued.
    let may_oom = !flags.intersects(ScriptFlags::ALLOW_OOM | ScriptFlags::NO_WRITES);
    if oom_at_start && may_oom && !ctx.deny_blocking {
        return Err(Error::OutOfMemory);
    }
    let checks = prepare_run(ctx, flags, ro, oom_at_start)?;
    // FCALL name numkeys key... arg...
    let (keys, argv) = command[3..].split_at(numkeys);
    let (keys, argv) = (keys.to_vec(), argv.to_vec());
    start_run(
        ctx,
        Start::Function { id },
        name.to_string(),
        checks,
        &keys,
        &argv,
        command,
    )
}
