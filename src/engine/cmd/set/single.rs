//! Commands on one set: SADD, SREM, SCARD, SISMEMBER, SMISMEMBER, SMEMBERS, SMOVE (from one
//! set to another), SPOP, SRANDMEMBER and SSCAN.

use super::access::{peek_set, read_set, set_reply, write_set};
use crate::engine::args::{parse_i64, Args};
use crate::engine::error::{CmdResult, Error};
use crate::engine::pubsub::class;
use crate::engine::scan;
use crate::engine::types::{SetValue, Value};
use crate::engine::{Ctx, Reply};
use std::collections::HashSet;

/// The most members `SRANDMEMBER key -count` returns; larger negative counts are refused.
pub const MAX_REPEATED_PICKS: u64 = 1 << 20;

/// How many members one `SREM` effect of `SPOP` carries at most.
const SPOP_EFFECT_BATCH: usize = 1024;
/// Redis's `SPOP_MOVE_STRATEGY_MUL`: when the members that stay, times this, are at most
/// the count, SPOP builds a new set from them instead of removing the count one by one.
const SPOP_MOVE_STRATEGY_MUL: u64 = 5;

/// `SADD key member [member ...]`: adds the members, creating the set if needed; replies
/// with how many were not there before. WRONGTYPE for another type. O(1) per member.
pub(super) fn sadd(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    // The members are read where they are: a set copies those it adds.
    let (key, members) = args.split_next()?;
    let max = ctx.srv.config.set_max_intset_entries();
    let added = match write_set(ctx, key)? {
        Some(set) => members.iter().filter(|m| set.insert_within(m, max)).count(),
        None => {
            let set = SetValue::collect_within(members, max);
            let added = set.len();
            let now = ctx.now_ms;
            ctx.db().set(key, Value::Set(set), false, now);
            ctx.notify(class::NEW, "new", key);
            added
        }
    };
    ctx.dirty += added as u64;
    if added > 0 {
        ctx.notify(class::SET, "sadd", key);
    }
    Ok(Reply::Integer(added as i64))
}

/// `SREM key member [member ...]`: removes the members; replies with how many were there.
/// Deletes the key when it empties. O(1) per member.
pub(super) fn srem(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    let key = args.next_bytes()?.to_vec();
    let Some(set) = write_set(ctx, &key)? else {
        return Ok(Reply::Integer(0));
    };
    let mut removed = 0;
    for m in &args.argv()[args.pos()..] {
        if set.remove(m) {
            removed += 1;
            if set.is_empty() {
                break;
            }
        }
    }
    if removed > 0 {
        ctx.dirty += removed;
        ctx.notify(class::SET, "srem", &key);
        ctx.delete_if_emptied(&key);
    }
    Ok(Reply::Integer(removed as i64))
}

/// `SCARD key`: the number of members, 0 for a missing key. O(1).
pub(super) fn scard(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    let key = args.next_bytes()?.to_vec();
    let len = read_set(ctx, &key)?.map_or(0, SetValue::len);
    Ok(Reply::Integer(len as i64))
}

/// `SISMEMBER key member`: 1 if `member` is in the set, else 0. O(1).
pub(super) fn sismember(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    let key = args.next_bytes()?.to_vec();
    let member = args.next_bytes()?.to_vec();
    let found = read_set(ctx, &key)?.is_some_and(|s| s.contains(&member));
    Ok(Reply::Integer(i64::from(found)))
}

/// `SMISMEMBER key member [member ...]`: for each member, 1 if it is in the set, else 0
/// (all 0 for a missing key). O(1) per member.
pub(super) fn smismember(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    let key = args.next_bytes()?.to_vec();
    let set = read_set(ctx, &key)?;
    let flags = args.argv()[args.pos()..]
        .iter()
        .map(|m| Reply::Integer(i64::from(set.is_some_and(|s| s.contains(m)))))
        .collect();
    Ok(Reply::Array(flags))
}

/// `SMEMBERS key`: every member (ascending while intset-encoded). O(N).
pub(super) fn smembers(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    let key = args.next_bytes()?.to_vec();
    let proto = ctx.client.proto;
    let set = read_set(ctx, &key)?;
    Ok(set_reply(proto, set.into_iter().flat_map(SetValue::iter)))
}

/// `SMOVE source destination member`: moves `member` from `source` to `destination`
/// (creating it if needed); 1 if it moved, 0 if `source` lacks it or does not exist.
/// A missing source replies 0 before any type check; otherwise both keys are
/// type-checked. With `source == destination` nothing changes and the reply says whether
/// the member is there. O(1).
pub(super) fn smove(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    let src = args.next_bytes()?.to_vec();
    let dst = args.next_bytes()?.to_vec();
    let member = args.next_bytes()?.to_vec();
    let Some(present) = write_set(ctx, &src)?.map(|s| s.contains(&member)) else {
        return Ok(Reply::Integer(0));
    };
    if src == dst {
        return Ok(Reply::Integer(i64::from(present)));
    }
    write_set(ctx, &dst)?;
    if !present {
        return Ok(Reply::Integer(0));
    }
    if let Some(s) = write_set(ctx, &src)? {
        s.remove(&member);
    }
    ctx.notify(class::SET, "srem", &src);
    ctx.delete_if_emptied(&src);
    let max = ctx.srv.config.set_max_intset_entries();
    let added = match write_set(ctx, &dst)? {
        Some(d) => d.insert_within(&member, max),
        None => {
            let set = SetValue::collect_within([member], max);
            let now = ctx.now_ms;
            ctx.db().set(&dst, Value::Set(set), false, now);
            ctx.notify(class::NEW, "new", &dst);
            true
        }
    };
    // Signalled explicitly: the destination only counts as modified (for WATCH) when the
    // member was not there yet, as in Redis.
    ctx.signal_modified(&src);
    if added {
        ctx.notify(class::SET, "sadd", &dst);
        ctx.signal_modified(&dst);
    }
    ctx.dirty += 1;
    Ok(Reply::Integer(1))
}

/// `SPOP key [count]`: removes and returns a random member, or up to `count` distinct
/// random members.
///
/// The count is parsed first (`ERR value is out of range, must be positive` for anything
/// but a non-negative integer); a third argument is a syntax error. A missing key gives nil,
/// or an empty set with a count. Recorded as `SREM` of the popped members, or `DEL` when
/// the count took the whole set. When few members stay (five times them at most the
/// count), Redis builds a new set from them, so a hash table of integers becomes an intset
/// again; that is recorded as `DEL` + `SADD` of the rest (+ `PEXPIREAT`), which replays to
/// the same encoding. O(1) without count, O(count) with.
pub(super) fn spop(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    if args.remaining() > 2 {
        return Err(Error::Syntax);
    }
    let key = args.next_bytes()?.to_vec();
    let count = if args.is_empty() {
        None
    } else {
        let n = parse_i64(args.next_bytes()?)
            .filter(|n| *n >= 0)
            .ok_or(Error::MustBePositive)?;
        Some(n as u64)
    };
    let proto = ctx.client.proto;
    let Some(set) = write_set(ctx, &key)? else {
        return Ok(match count {
            None => Reply::Nil,
            Some(_) => set_reply(proto, std::iter::empty::<&[u8]>()),
        });
    };
    let size = set.len();
    let popped: Vec<Vec<u8>> = match count {
        None => {
            let i = ctx_rng_below(&mut ctx.srv.rng, size);
            let Some(member) = write_set(ctx, &key)?.and_then(|s| s.remove_index(i)) else {
                return Ok(Reply::Nil);
            };
            ctx.dirty += 1;
            ctx.notify(class::SET, "spop", &key);
            ctx.delete_if_emptied(&key);
            ctx.propagate(vec![b"SREM".to_vec(), key, member.clone()]);
            return Ok(Reply::Bulk(member));
        }
        Some(0) => return Ok(set_reply(proto, std::iter::empty::<&[u8]>())),
        Some(n) if n >= size as u64 => {
            let all: Vec<Vec<u8>> = match ctx.db().remove(&key) {
                Some(e) => match e.value {
                    Value::Set(s) => s.into_iter().collect(),
                    _ => Vec::new(),
                },
                None => Vec::new(),
            };
            ctx.dirty += 1;
            ctx.notify(class::SET, "spop", &key);
            ctx.notify(class::GENERIC, "del", &key);
            ctx.propagate(vec![b"DEL".to_vec(), key]);
            return Ok(set_reply(proto, all));
        }
        Some(n) => {
            let mut out = Vec::with_capacity(n as usize);
            let mut rebuilt = None;
            let rng = &mut ctx.srv.rng;
            let idx = ctx.client.db;
            if let Some(s) = ctx.srv.dbs[idx]
                .get_raw_mut(&key)
                .and_then(|e| e.value.as_set_mut().ok())
            {
                for _ in 0..n {
                    let i = ctx_rng_below(rng, s.len());
                    if let Some(m) = s.remove_index(i) {
                        out.push(m);
                    }
                }
                // Redis's third case (few members stay: remaining × 5 ≤ count): it builds a
                // new set from the members that stay, so a hash-table set whose remaining
                // members are all integers becomes an intset again.
                let remaining = size as u64 - n;
                if remaining.saturating_mul(SPOP_MOVE_STRATEGY_MUL) <= n && !s.is_intset() {
                    let fresh: SetValue = s.iter().collect();
                    if fresh.is_intset() {
                        *s = fresh;
                        rebuilt = Some(s.iter().map(<[u8]>::to_vec).collect::<Vec<_>>());
                    }
                }
            }
            if let Some(members) = rebuilt {
                // SREMs would replay into a hash table: record the rebuilt set itself.
                ctx.dirty += out.len() as u64;
                ctx.notify(class::SET, "spop", &key);
                let deadline = ctx.db().get_raw(&key).and_then(|e| e.expire_at());
                let mut sadd = vec![b"SADD".to_vec(), key.clone()];
                sadd.extend(members);
                ctx.propagate(vec![b"DEL".to_vec(), key.clone()]);
                ctx.propagate(sadd);
                if let Some(at) = deadline {
                    ctx.propagate(vec![
                        b"PEXPIREAT".to_vec(),
                        key.clone(),
                        at.to_string().into_bytes(),
                    ]);
                }
                return Ok(set_reply(proto, out));
            }
            out
        }
    };
    ctx.dirty += popped.len() as u64;
    ctx.notify(class::SET, "spop", &key);
    for batch in popped.chunks(SPOP_EFFECT_BATCH) {
        let mut argv = Vec::with_capacity(batch.len() + 2);
        argv.push(b"SREM".to_vec());
        argv.push(key.clone());
        argv.extend(batch.iter().cloned());
        ctx.propagate(argv);
    }
    Ok(set_reply(proto, popped))
}

/// A random integer in `0..n` (`n` > 0).
fn ctx_rng_below(rng: &mut fastrand::Rng, n: usize) -> usize {
    rng.usize(0..n.max(1))
}

/// `count` distinct positions drawn uniformly from `0..size` (`count < size`), O(count):
/// a partial shuffle when `count` is a sizeable share of `size` (so the index vector costs
/// O(size) = O(count)), rejection sampling otherwise (each draw succeeds with probability
/// above 2/3).
fn distinct_positions(rng: &mut fastrand::Rng, size: usize, count: usize) -> Vec<usize> {
    if count.saturating_mul(3) > size {
        let mut idx: Vec<usize> = (0..size).collect();
        for i in 0..count {
            let j = rng.usize(i..size);
            idx.swap(i, j);
        }
        idx.truncate(count);
        idx
    } else {
        let mut seen: HashSet<usize, foldhash::fast::RandomState> =
            HashSet::with_capacity_and_hasher(count, Default::default());
        let mut out = Vec::with_capacity(count);
        while out.len() < count {
            let i = rng.usize(0..size);
            if seen.insert(i) {
                out.push(i);
            }
        }
        out
    }
}

/// `SRANDMEMBER key [count]`: a random member (nil for a missing key); with a positive
/// count, up to `count` distinct members (the whole set, in its order, when `count` reaches
/// its size); with a negative count, exactly `-count` members drawn independently, so they
/// may repeat.
///
/// The count is parsed first; `-9223372036854775808` is out of Redis's range (-2^63+1 ..
/// 2^63-1). A negative count beyond [`MAX_REPEATED_PICKS`] on an existing set is refused
/// with [`Error::ReplyTooLarge`]. O(|count|), O(1) per member.
pub(super) fn srandmember(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    if args.remaining() > 2 {
        return Err(Error::Syntax);
    }
    let key = args.next_bytes()?.to_vec();
    if args.is_empty() {
        let Some(size) = read_set(ctx, &key)?.map(SetValue::len) else {
            return Ok(Reply::Nil);
        };
        let i = ctx_rng_below(&mut ctx.srv.rng, size);
        let set = peek_set(ctx, &key);
        return Ok(Reply::bulk_or_nil(set.and_then(|s| s.get_index(i))));
    }
    let count = parse_i64(args.next_bytes()?).ok_or(Error::NotInteger)?;
    if count == i64::MIN {
        return Err(Error::OutOfRangeBetween(-i64::MAX, i64::MAX));
    }
    let Some(size) = read_set(ctx, &key)?.map(SetValue::len) else {
        return Ok(Reply::Array(Vec::new()));
    };
    if count == 0 {
        return Ok(Reply::Array(Vec::new()));
    }
    let picks = count.unsigned_abs();
    if count < 0 && picks > MAX_REPEATED_PICKS {
        return Err(Error::ReplyTooLarge(MAX_REPEATED_PICKS));
    }
    let positions: Option<Vec<usize>> = if count < 0 {
        let rng = &mut ctx.srv.rng;
        Some((0..picks).map(|_| ctx_rng_below(rng, size)).collect())
    } else if picks >= size as u64 {
        None
    } else {
        Some(distinct_positions(&mut ctx.srv.rng, size, picks as usize))
    };
    let Some(set) = peek_set(ctx, &key) else {
        return Ok(Reply::Array(Vec::new()));
    };
    Ok(match positions {
        None => Reply::bulk_array(set.iter()),
        Some(p) => Reply::bulk_array(p.into_iter().filter_map(|i| set.get_index(i))),
    })
}

/// `SSCAN key cursor [MATCH pattern] [COUNT count]`: one step of an iteration over the
/// members. The cursor is parsed before the lookup; a missing key ends the scan at once
/// (without looking at the options). An intset-encoded set is returned whole with cursor
/// 0, as Redis does for its compact encodings; a hash-table set is walked by position
/// (see [`crate::engine::scan`]), `count` positions per call. O(count) per call.
pub(super) fn sscan(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    let key = args.next_bytes()?.to_vec();
    let cursor = scan::parse_cursor(args.next_bytes()?)?;
    let empty = || {
        Ok(Reply::Array(vec![
            Reply::bulk(b"0"),
            Reply::Array(Vec::new()),
        ]))
    };
    if read_set(ctx, &key)?.is_none() {
        return empty();
    }
    let opts = scan::parse_opts(args, false)?;
    let Some(set) = peek_set(ctx, &key) else {
        return empty();
    };
    let (members, next): (Vec<&[u8]>, u64) = if set.is_intset() {
        (set.iter().collect(), 0)
    } else {
        let (positions, next) = scan::step(set.len(), cursor, opts.count);
        (positions.filter_map(|p| set.get_index(p)).collect(), next)
    };
    let items = members
        .into_iter()
        .filter(|m| scan::pattern_ok(&opts, m))
        .map(Reply::bulk)
        .collect();
    Ok(Reply::Array(vec![
        Reply::Bulk(next.to_string().into_bytes()),
        Reply::Array(items),
    ]))
}
