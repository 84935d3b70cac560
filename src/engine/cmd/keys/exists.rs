//! Existence and deletion: DEL, UNLINK, EXISTS, TOUCH and TYPE.

use crate::engine::args::Args;
use crate::engine::error::CmdResult;
use crate::engine::pubsub::class;
use crate::engine::{Ctx, Reply};

/// `DEL key [key ...]`: removes the keys (an expired key counts as absent) and replies with
/// the number removed. Replays as itself when it removed anything. O(N) in keys, plus the
/// size of each removed value.
pub(super) fn del(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    let mut removed = 0;
    for key in args.argv().iter().skip(1) {
        if ctx.delete(key) {
            ctx.notify(class::GENERIC, "del", key);
            removed += 1;
        }
    }
    Ok(Reply::Integer(removed))
}

/// `UNLINK key [key ...]`: DEL; Redis frees large values in a background thread, which a
/// single-threaded engine has no use for.
pub(super) fn unlink(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    del(ctx, args)
}

/// `EXISTS key [key ...]`: how many of the keys exist; a key named twice counts twice.
/// Does not refresh access times. O(N).
pub(super) fn exists(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    let mut n = 0;
    for key in args.argv().iter().skip(1) {
        if ctx.lookup_read_notouch(key).is_some() {
            n += 1;
        }
    }
    Ok(Reply::Integer(n))
}

/// `TOUCH key [key ...]`: refreshes the access time of the keys that exist and counts them
/// (repeats count). O(N).
pub(super) fn touch(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    let mut n = 0;
    for key in args.argv().iter().skip(1) {
        if ctx.lookup_read(key).is_some() {
            n += 1;
        }
    }
    Ok(Reply::Integer(n))
}

/// `TYPE key`: the status reply `string`, `list`, `set`, `zset`, `hash`, `stream`, or
/// `none` for a missing key. O(1).
pub(super) fn type_(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    let key = args.next_bytes()?;
    let name = ctx
        .lookup_read_notouch(key)
        .map_or("none", |e| e.value.type_name());
    Ok(Reply::status(name))
}
