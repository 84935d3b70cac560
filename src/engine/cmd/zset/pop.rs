//! Popping and random members: ZPOPMIN, ZPOPMAX, ZMPOP, ZRANDMEMBER.

use crate::engine::args::{parse_i64, Args};
use crate::engine::error::{CmdResult, Error};
use crate::engine::pubsub::class;
use crate::engine::{Ctx, Reply};
use std::collections::HashSet;

use super::parse::ranged_arg;
use super::reply::{push_member, read_zset, score_reply, write_zset};

/// Largest reply `ZRANDMEMBER` with a negative count (picks may repeat) will build. Redis
/// streams any count to the socket; we build replies in memory (and may run in a browser),
/// so a larger count is refused instead of exhausting memory.
pub const MAX_REPEATED_PICKS: u64 = 1 << 20;

/// `ZPOPMIN key [count]`: removes and returns up to `count` (default 1) lowest members with
/// their scores; the key is deleted when it empties.
pub(super) fn zpopmin(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    zpop_command(ctx, args, false)
}

/// `ZPOPMAX key [count]`: like `ZPOPMIN`, from the highest scores.
pub(super) fn zpopmax(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    zpop_command(ctx, args, true)
}

fn zpop_command(ctx: &mut Ctx<'_>, args: &mut Args, max: bool) -> CmdResult {
    if args.remaining() > 2 {
        return Err(Error::Syntax);
    }
    let (key, rest) = args.split_next()?;
    let count = match rest.first() {
        Some(c) => match parse_i64(c) {
            Some(n) if n >= 0 => Some(n as u64),
            _ => return Err(Error::MustBePositive),
        },
        None => None,
    };
    let proto = ctx.client.proto;
    let Some(popped) = pop(ctx, key, max, count.unwrap_or(1))? else {
        return Ok(Reply::Array(Vec::new()));
    };
    let nested = proto >= 3 && count.is_some();
    let mut out = Vec::new();
    for (m, s) in popped {
        if nested {
            out.push(Reply::Array(vec![Reply::Bulk(m), score_reply(proto, s)]));
        } else {
            out.push(Reply::Bulk(m));
            out.push(score_reply(proto, s));
        }
    }
    Ok(Reply::Array(out))
}

/// An owned member with its score.
type Scored = (Vec<u8>, f64);

/// Pops up to `count` members from one end of `key`. `None` when the key is missing.
fn pop(ctx: &mut Ctx<'_>, key: &[u8], max: bool, count: u64) -> CmdResult<Option<Vec<Scored>>> {
    let Some(z) = write_zset(ctx, key)? else {
        return Ok(None);
    };
    let n = count.min(z.len() as u64) as usize;
    if n == 0 {
        return Ok(Some(Vec::new()));
    }
    let (first, taken): (usize, Vec<Scored>) = if max {
        let first = z.len() - n;
        (
            first,
            z.iter_from_rank(z.len() - 1, true, n)
                .map(|(m, s)| (m.to_vec(), s))
                .collect(),
        )
    } else {
        (
            0,
            z.iter_from_rank(0, false, n)
                .map(|(m, s)| (m.to_vec(), s))
                .collect(),
        )
    };
    z.remove_rank_range(first, first + n - 1);
    ctx.dirty += n as u64;
    ctx.notify(class::ZSET, if max { "zpopmax" } else { "zpopmin" }, key);
    ctx.delete_if_emptied(key);
    // ZMPOP's keys are not in the table's key positions: signal the one popped.
    ctx.signal_modified(key);
    Ok(Some(taken))
}

/// `ZMPOP numkeys key [key ...] MIN | MAX [COUNT count]`: pops up to `count` members from
/// the first of the keys that exists, replying `[key, [[member, score], ...]]`, or nil when
/// none exists. Recorded as `ZPOPMIN`/`ZPOPMAX key n`.
pub(super) fn zmpop(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    let numkeys = ranged_arg(
        args.next_bytes()?,
        1,
        i64::MAX,
        "numkeys should be greater than 0",
    )? as u64;
    if numkeys >= args.remaining() as u64 {
        return Err(Error::Syntax);
    }
    let mut keys = Vec::with_capacity(numkeys as usize);
    for _ in 0..numkeys {
        keys.push(args.next_owned()?);
    }
    let max = if args.eat("MIN") {
        false
    } else if args.eat("MAX") {
        true
    } else {
        return Err(Error::Syntax);
    };
    let mut count: Option<u64> = None;
    while !args.is_empty() {
        if count.is_none() && args.remaining() >= 2 && args.eat("COUNT") {
            count = Some(ranged_arg(
                args.next_bytes()?,
                1,
                i64::MAX,
                "count should be greater than 0",
            )? as u64);
        } else {
            return Err(Error::Syntax);
        }
    }
    let count = count.unwrap_or(1);
    let proto = ctx.client.proto;
    for key in keys {
        let Some(popped) = pop(ctx, &key, max, count)? else {
            continue;
        };
        let n = popped.len();
        ctx.propagate(vec![
            if max {
                b"ZPOPMAX".to_vec()
            } else {
                b"ZPOPMIN".to_vec()
            },
            key.clone(),
            n.to_string().into_bytes(),
        ]);
        let items = popped
            .into_iter()
            .map(|(m, s)| Reply::Array(vec![Reply::Bulk(m), score_reply(proto, s)]))
            .collect();
        return Ok(Reply::Array(vec![Reply::Bulk(key), Reply::Array(items)]));
    }
    Ok(Reply::NilArray)
}

/// `ZRANDMEMBER key [count [WITHSCORES]]`
///
/// Without a count: one random member (nil for a missing key). With a positive count: up
/// to that many *distinct* members (the whole set, in order, when the count covers it).
/// With a negative count: exactly `-count` members, possibly repeated. `WITHSCORES` adds
/// scores. A negative count beyond [`MAX_REPEATED_PICKS`] is refused (see there).
pub(super) fn zrandmember(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    let key = args.next_owned()?;
    if args.is_empty() {
        let Some(z) = read_zset(ctx, &key)? else {
            return Ok(Reply::Nil);
        };
        let n = z.len();
        let i = ctx.random_below(n);
        let Some(z) = read_zset(ctx, &key)? else {
            return Ok(Reply::Nil);
        };
        return Ok(Reply::bulk_or_nil(z.get_index(i).map(|(m, _)| m)));
    }
    let l = parse_i64(args.next_bytes()?).ok_or(Error::NotInteger)?;
    if l == i64::MIN {
        return Err(Error::OutOfRangeBetween(-i64::MAX, i64::MAX));
    }
    let withscores = match args.remaining() {
        0 => false,
        1 if args.eat("WITHSCORES") => true,
        _ => return Err(Error::Syntax),
    };
    if withscores && !(-(i64::MAX / 2)..=i64::MAX / 2).contains(&l) {
        return Err(Error::OutOfRange);
    }
    let proto = ctx.client.proto;
    let Some(size) = read_zset(ctx, &key)?.map(|z| z.len()) else {
        return Ok(Reply::Array(Vec::new()));
    };
    let count = l.unsigned_abs();
    if count == 0 {
        return Ok(Reply::Array(Vec::new()));
    }
    // Choose positions in the dict, then read them.
    let positions: Vec<usize> = if l < 0 || count == 1 {
        if count > MAX_REPEATED_PICKS {
            return Err(Error::ReplyTooLarge(MAX_REPEATED_PICKS));
        }
        (0..count).map(|_| ctx.random_below(size)).collect()
    } else if count >= size as u64 {
        // The whole set, highest first: Redis walks sorted sets from the tail here.
        let Some(z) = read_zset(ctx, &key)? else {
            return Ok(Reply::Array(Vec::new()));
        };
        let mut out = Vec::new();
        for (m, s) in z.iter_from_rank(size - 1, true, size) {
            push_member(&mut out, proto, withscores, m, s);
        }
        return Ok(Reply::Array(out));
    } else if count * 3 > size as u64 {
        // Few to drop: start from everything and remove random positions.
        let mut all: Vec<usize> = (0..size).collect();
        while all.len() as u64 > count {
            let i = ctx.random_below(all.len());
            all.swap_remove(i);
        }
        all
    } else {
        // Few to pick: draw until enough distinct ones.
        let mut seen = HashSet::new();
        let mut picks = Vec::with_capacity(count as usize);
        while (picks.len() as u64) < count {
            let i = ctx.random_below(size);
            if seen.insert(i) {
                picks.push(i);
            }
        }
        picks
    };
    let Some(z) = read_zset(ctx, &key)? else {
        return Ok(Reply::Array(Vec::new()));
    };
    let mut out = Vec::with_capacity(positions.len() * if withscores { 2 } else { 1 });
    for p in positions {
        if let Some((m, s)) = z.get_index(p) {
            push_member(&mut out, proto, withscores, m, s);
        }
    }
    Ok(Reply::Array(out))
}
