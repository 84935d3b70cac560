//! Removal: ZREM, ZREMRANGEBYRANK, ZREMRANGEBYSCORE, ZREMRANGEBYLEX.

use crate::engine::args::Args;
use crate::engine::error::CmdResult;
use crate::engine::pubsub::class;
use crate::engine::types::ZSet;
use crate::engine::{Ctx, Reply};

use super::parse::{long_arg, parse_lex_range, parse_score_range};
use super::reply::write_zset;

/// `ZREM key member [member ...]`: removes members, replying how many existed. The key is
/// deleted when it empties.
pub(super) fn zrem(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    let key = args.next_owned()?;
    let members = args.rest();
    let Some(z) = write_zset(ctx, &key)? else {
        return Ok(Reply::Integer(0));
    };
    let mut deleted = 0u64;
    for m in &members {
        if z.remove(m).is_some() {
            deleted += 1;
        }
        if z.is_empty() {
            break;
        }
    }
    ctx.dirty += deleted;
    if deleted > 0 {
        ctx.notify(class::ZSET, "zrem", &key);
        ctx.delete_if_emptied(&key);
    }
    Ok(Reply::Integer(deleted as i64))
}

/// Clamps Redis-style `start stop` ranks (negative counts from the end) to `0..len`,
/// returning `None` for an empty range.
pub(super) fn clamp_ranks(start: i64, end: i64, len: usize) -> Option<(usize, usize)> {
    let llen = len as i64;
    let mut start = if start < 0 {
        llen.saturating_add(start)
    } else {
        start
    };
    let mut end = if end < 0 {
        llen.saturating_add(end)
    } else {
        end
    };
    if start < 0 {
        start = 0;
    }
    if start > end || start >= llen {
        return None;
    }
    if end >= llen {
        end = llen - 1;
    }
    Some((start as usize, end as usize))
}

/// `ZREMRANGEBYRANK key start stop`: removes members by rank (negative ranks count from
/// the end), replying how many went.
pub(super) fn zremrangebyrank(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    let key = args.next_owned()?;
    let start = long_arg(args.next_bytes()?)?;
    let end = long_arg(args.next_bytes()?)?;
    remrange(ctx, &key, "zremrangebyrank", |z| {
        match clamp_ranks(start, end, z.len()) {
            Some((a, b)) => z.remove_rank_range(a, b),
            None => 0,
        }
    })
}

/// `ZREMRANGEBYSCORE key min max`: removes the members whose score is in the range.
pub(super) fn zremrangebyscore(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    let key = args.next_owned()?;
    let range = parse_score_range(&args.next_owned()?, &args.next_owned()?)?;
    remrange(ctx, &key, "zremrangebyscore", |z| {
        z.remove_score_range(&range)
    })
}

/// `ZREMRANGEBYLEX key min max`: removes the members in a lexicographic range.
pub(super) fn zremrangebylex(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    let key = args.next_owned()?;
    let range = parse_lex_range(&args.next_owned()?, &args.next_owned()?)?;
    remrange(ctx, &key, "zremrangebylex", |z| z.remove_lex_range(&range))
}

/// Shared body of the ZREMRANGEBY* commands: `f` removes the range from the set at `key`
/// and returns how many went; `event` is sent when any did (then `del` if it emptied).
fn remrange(
    ctx: &mut Ctx<'_>,
    key: &[u8],
    event: &str,
    f: impl FnOnce(&mut ZSet) -> usize,
) -> CmdResult {
    let Some(z) = write_zset(ctx, key)? else {
        return Ok(Reply::Integer(0));
    };
    let n = f(z);
    ctx.dirty += n as u64;
    if n > 0 {
        ctx.notify(class::ZSET, event, key);
        ctx.delete_if_emptied(key);
    }
    Ok(Reply::Integer(n as i64))
}
