//! The small server commands: TIME, SLOWLOG, ROLE and WAIT.

use super::super::connection::help_reply;
use crate::engine::args::Args;
use crate::engine::blocking::BlockOp;
use crate::engine::error::{CmdResult, Error};
use crate::engine::{Ctx, Reply};

/// TIME: the injected clock as two bulk strings, Unix seconds and microseconds (as fine as
/// the clock: the browser's `Date.now()` counts milliseconds).
pub(super) fn time(ctx: &mut Ctx<'_>, _args: &mut Args) -> CmdResult {
    // The clock itself, in microseconds, not the command's instant: a script that calls
    // TIME twice sees time pass, as in Redis (whose TIME reads gettimeofday).
    let us = ctx.srv.clock.now_us();
    Ok(Reply::Array(vec![
        Reply::bulk_int(us.div_euclid(1_000_000)),
        Reply::bulk_int(us.rem_euclid(1_000_000)),
    ]))
}

/// SLOWLOG GET [count]: the newest `count` entries (10 without it, all with -1), newest
/// first. A count that is not an integer of at least -1, or a further argument, is refused
/// with Redis's messages.
pub(super) fn slowlog_get(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    let count = match args.remaining() {
        0 => 10,
        1 => match crate::engine::args::parse_i64(args.next_bytes()?) {
            Some(-1) => usize::MAX,
            Some(n) if n >= 0 => usize::try_from(n).unwrap_or(usize::MAX),
            _ => {
                return Err(Error::Err(
                    "count should be greater than or equal to -1".into(),
                ))
            }
        },
        _ => return Err(Error::subcommand_syntax(args.argv())),
    };
    Ok(Reply::Array(
        ctx.srv
            .slowlog
            .newest(count)
            .map(|e| e.to_reply())
            .collect(),
    ))
}

/// SLOWLOG LEN
pub(super) fn slowlog_len(ctx: &mut Ctx<'_>, _args: &mut Args) -> CmdResult {
    Ok(Reply::Integer(ctx.srv.slowlog.len() as i64))
}

/// SLOWLOG RESET
pub(super) fn slowlog_reset(ctx: &mut Ctx<'_>, _args: &mut Args) -> CmdResult {
    ctx.srv.slowlog.reset();
    Ok(Reply::ok())
}

/// SLOWLOG HELP
pub(super) fn slowlog_help(_ctx: &mut Ctx<'_>, _args: &mut Args) -> CmdResult {
    Ok(help_reply(
        "SLOWLOG",
        crate::help_lines![
            "GET [<count>]",
            "    Return top <count> entries from the slowlog (default: 10, -1 mean all).",
            "    Entries are made of:",
            "    id, timestamp, time in microseconds, arguments array, client IP and port,",
            "    client name",
            "LEN",
            "    Return the length of the slowlog.",
            "RESET",
            "    Reset the slowlog.",
        ],
    ))
}

/// ROLE: `master`, the replication offset (0: nothing is replicated) and the replicas (none).
pub(super) fn role(_ctx: &mut Ctx<'_>, _args: &mut Args) -> CmdResult {
    Ok(Reply::Array(vec![
        Reply::bulk(b"master"),
        Reply::Integer(0),
        Reply::Array(Vec::new()),
    ]))
}

/// WAIT numreplicas timeout
///
/// Redis's `waitCommand` with no replicas: the count acknowledged is always 0. When that
/// already satisfies `numreplicas`, or the client may not block (inside `MULTI`), it is
/// the reply now; otherwise the client blocks until its timeout in milliseconds (0:
/// forever) or `CLIENT UNBLOCK`, and then gets 0 ([`BlockOp::Wait`]).
pub(super) fn wait(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    let numreplicas = args.next_i64()?;
    let deadline = super::super::blocking::parse_timeout_ms(args.next_bytes()?, ctx.now_ms)?;
    let acked = 0;
    if acked >= numreplicas || ctx.deny_blocking {
        return Ok(Reply::Integer(acked));
    }
    ctx.block(Vec::new(), deadline, BlockOp::Wait);
    Ok(Reply::NilArray)
}
