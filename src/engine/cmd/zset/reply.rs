//! Replies and key access shared by the sorted-set commands.

use crate::engine::error::CmdResult;
use crate::engine::pubsub::class;
use crate::engine::reply::format_double;
use crate::engine::types::{Value, ZSet};
use crate::engine::{Ctx, Reply};

/// A score as Redis's `addReplyDouble` sends it: a RESP3 double, or in RESP2 a bulk string
/// with `%.17g` (and `inf`/`-inf`).
pub fn score_reply(proto: u8, d: f64) -> Reply {
    if proto >= 3 {
        Reply::Double(d)
    } else {
        Reply::Bulk(format_double(d).into_bytes())
    }
}

/// Appends a member (and its score, `WITHSCORES`) to a range reply: flat in RESP2, as a
/// `[member, score]` pair in RESP3.
pub(super) fn push_member(
    out: &mut Vec<Reply>,
    proto: u8,
    withscores: bool,
    member: &[u8],
    score: f64,
) {
    if !withscores {
        out.push(Reply::bulk(member));
    } else if proto >= 3 {
        out.push(Reply::Array(vec![
            Reply::bulk(member),
            score_reply(proto, score),
        ]));
    } else {
        out.push(Reply::bulk(member));
        out.push(score_reply(proto, score));
    }
}

/// Looks `key` up for reading: `None` if absent, `WRONGTYPE` if not a sorted set.
pub(crate) fn read_zset<'a>(ctx: &'a mut Ctx<'_>, key: &[u8]) -> CmdResult<Option<&'a ZSet>> {
    ctx.read_as(key, Value::as_zset)
}

/// Looks `key` up for writing: `None` if absent, `WRONGTYPE` if not a sorted set.
pub(super) fn write_zset<'a>(ctx: &'a mut Ctx<'_>, key: &[u8]) -> CmdResult<Option<&'a mut ZSet>> {
    ctx.write_as(key, Value::as_zset_mut)
}

/// Stores a `*STORE` result: the set if non-empty (counting one change), otherwise deletes
/// the destination (one change if it existed). Sends `event` (`zunionstore`, …) on a
/// store, `del` when an existing destination is deleted; only the destination counts as
/// modified (WATCH). Replies with the set's size.
pub(super) fn store_result(ctx: &mut Ctx<'_>, dst: Vec<u8>, z: ZSet, event: &str) -> Reply {
    let n = z.len();
    if n > 0 {
        ctx.set_value(&dst, Value::ZSet(z), false);
        ctx.notify(class::ZSET, event, &dst);
    } else if ctx.delete(&dst) {
        ctx.notify(class::GENERIC, "del", &dst);
    }
    Reply::Integer(n as i64)
}
