//! Whole databases: SWAPDB, FLUSHDB and FLUSHALL.

use super::parse::{arg, db_index, parse_int};
use crate::engine::args::{eq_kw, Args};
use crate::engine::error::{CmdResult, Error};
use crate::engine::{Ctx, Reply};

/// `SWAPDB index1 index2`: exchanges the contents (keys, deadlines) of two databases.
/// Connections keep their selected index, so they now see the other data. A bad index is
/// `ERR invalid first DB index` / `ERR invalid second DB index`; one beyond the databases is
/// `ERR DB index is out of range`. Swapping a database with itself is a successful no-op
/// that Redis still counts as a change. O(1).
pub(super) fn swapdb(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    if ctx.srv.config.cluster_enabled() {
        return Err(Error::NotInCluster("SWAPDB"));
    }
    let a = parse_int(arg(args, 1)?).map_err(|_| Error::Err("invalid first DB index".into()))?;
    let b = parse_int(arg(args, 2)?).map_err(|_| Error::Err("invalid second DB index".into()))?;
    let (a, b) = (db_index(a)?, db_index(b)?);
    if a != b {
        ctx.signal_swapped(a, b);
    }
    ctx.srv.dbs.swap(a, b);
    ctx.dirty += 1;
    Ok(Reply::ok())
}

/// Parses the optional `ASYNC | SYNC` of FLUSHDB and FLUSHALL; anything else, or more than
/// one argument, is `ERR syntax error`. Both modes flush at once here.
fn parse_flush_mode(args: &Args) -> CmdResult<()> {
    match args.argv() {
        [_] => Ok(()),
        [_, mode] if eq_kw(mode, "sync") || eq_kw(mode, "async") => Ok(()),
        _ => Err(Error::Syntax),
    }
}

/// `FLUSHDB [ASYNC | SYNC]`: deletes every key of the selected database. Always replays
/// as itself, even when the database was empty. O(N).
pub(super) fn flushdb(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    parse_flush_mode(args)?;
    let idx = ctx.client.db;
    ctx.signal_flushed(Some(idx));
    let db = ctx.db();
    let n = db.len() as u64;
    db.clear();
    ctx.dirty += n;
    ctx.propagate(args.argv().to_vec());
    Ok(Reply::ok())
}

/// `FLUSHALL [ASYNC | SYNC]`: deletes every key of every database. Always replays as
/// itself. O(N) in all keys.
pub(super) fn flushall(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    parse_flush_mode(args)?;
    ctx.signal_flushed(None);
    for db in ctx.srv.dbs.iter_mut() {
        ctx.dirty += db.len() as u64;
        db.clear();
    }
    ctx.propagate(args.argv().to_vec());
    Ok(Reply::ok())
}
