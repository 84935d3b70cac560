//! The set group: every set command of Redis 7.0.
//!
//! The representation, its encodings and their costs are described in
//! [`crate::engine::types::set`]. What the handlers share:
//!
//! * **Replies.** Commands that return a whole set (`SMEMBERS`, `SINTER`, `SUNION`,
//!   `SDIFF`, `SPOP key count`) reply with a RESP3 set to RESP3 clients and an array to
//!   RESP2 ones, as Redis; `SRANDMEMBER key count` always replies with an array (it may
//!   repeat members). Intset-encoded results come out in ascending order, like Redis's.
//! * **Multi-key commands** type-check every key before computing anything, and treat a
//!   missing key as an empty set. `SINTER` walks the smallest set and probes the others
//!   (O(N·M) worst case), `SUNION` and `SDIFF` build their result as a fresh set, which
//!   starts as an intset and converts as Redis's does. The `…STORE` forms overwrite a
//!   destination of any type (dropping its TTL) and delete it when the result is empty.
//! * **Effects.** `SPOP` is not deterministic, so it is recorded as the `SREM` of the
//!   members it popped (in batches of up to 1024), or as `DEL` when it took the whole set.
//!   Everything else replays as itself; a command that changed nothing records nothing.
//! * **Huge counts.** `SPOP`/`SRANDMEMBER` with a positive count never return more than the
//!   set holds. A negative `SRANDMEMBER` count asks for that many picks *with* repetition;
//!   beyond [`MAX_REPEATED_PICKS`] it is refused with [`Error::ReplyTooLarge`] rather than
//!   building a reply that cannot fit in memory (Redis would try to stream it).

use std::collections::HashSet;

use crate::engine::args::{parse_i64, Args};
use crate::engine::error::{CmdResult, Error};
use crate::engine::pubsub::class;
use crate::engine::scan;
use crate::engine::table::{Command, Flags, Group, KeySpec};
use crate::engine::types::{SetValue, Value};
use crate::engine::{Ctx, Reply};

/// The most members `SRANDMEMBER key -count` returns; larger negative counts are refused.
pub const MAX_REPEATED_PICKS: u64 = 1 << 20;

/// How many members one `SREM` effect of `SPOP` carries at most.
const SPOP_EFFECT_BATCH: usize = 1024;
/// Redis's `SPOP_MOVE_STRATEGY_MUL`: when the members that stay, times this, are at most
/// the count, SPOP builds a new set from them instead of removing the count one by one.
const SPOP_MOVE_STRATEGY_MUL: u64 = 5;

const R: Flags = Flags::READONLY;
const RF: Flags = Flags::READONLY.union(Flags::FAST);
const WD: Flags = Flags::WRITE.union(Flags::DENYOOM);
const WF: Flags = Flags::WRITE.union(Flags::FAST);
const WDF: Flags = Flags::WRITE.union(Flags::DENYOOM).union(Flags::FAST);

/// The set commands.
pub const COMMANDS: &[Command] = &[
    Command::new("sadd", -3, Group::Set, sadd)
        .key_specs(&[KeySpec::index(1, "RW insert")])
        .flags(WDF)
        .doc(
            "key member [member ...]",
            "Adds members to a set, creating it if needed; replies with how many were new.",
            "O(1) per member",
            "1.0.0",
        ),
    Command::new("scard", 2, Group::Set, scard)
        .key_specs(&[KeySpec::index(1, "RO")])
        .flags(RF)
        .doc("key", "Returns the number of members of a set.", "O(1)", "1.0.0"),
    Command::new("sdiff", -2, Group::Set, sdiff)
        .key_specs(&[KeySpec::index(1, "RO access").range(-1, 1, 0)])
        .tips(&["nondeterministic_output_order"])
        .flags(R)
        .doc(
            "key [key ...]",
            "Returns the members of the first set that are in none of the others.",
            "O(N) in the total number of members of all the sets",
            "1.0.0",
        ),
    Command::new("sdiffstore", -3, Group::Set, sdiffstore)
        .key_specs(&[
            KeySpec::index(1, "OW update"),
            KeySpec::index(2, "RO access").range(-1, 1, 0),
        ])
        .flags(WD)
        .doc(
            "destination key [key ...]",
            "Stores the difference of sets in a key, replacing what was there.",
            "O(N) in the total number of members of all the sets",
            "1.0.0",
        ),
    Command::new("sinter", -2, Group::Set, sinter)
        .key_specs(&[KeySpec::index(1, "RO access").range(-1, 1, 0)])
        .tips(&["nondeterministic_output_order"])
        .flags(R)
        .doc(
            "key [key ...]",
            "Returns the members common to all the given sets.",
            "O(N*M): N the smallest set's size, M the number of sets",
            "1.0.0",
        ),
    Command::new("sintercard", -3, Group::Set, sintercard)
        .key_specs(&[KeySpec::index(1, "RO access").keynum(0, 1, 1)])
        .flags(R)
        .doc(
            "numkeys key [key ...] [LIMIT limit]",
            "Counts the members common to all the given sets, stopping early at LIMIT.",
            "O(N*M): N the smallest set's size, M the number of sets",
            "7.0.0",
        ),
    Command::new("sinterstore", -3, Group::Set, sinterstore)
        .key_specs(&[
            KeySpec::index(1, "RW update"),
            KeySpec::index(2, "RO access").range(-1, 1, 0),
        ])
        .flags(WD)
        .doc(
            "destination key [key ...]",
            "Stores the intersection of sets in a key, replacing what was there.",
            "O(N*M): N the smallest set's size, M the number of sets",
            "1.0.0",
        ),
    Command::new("sismember", 3, Group::Set, sismember)
        .key_specs(&[KeySpec::index(1, "RO")])
        .flags(RF)
        .doc(
            "key member",
            "Tells whether a member belongs to a set (1) or not (0).",
            "O(1)",
            "1.0.0",
        ),
    Command::new("smembers", 2, Group::Set, smembers)
        .key_specs(&[KeySpec::index(1, "RO access")])
        .tips(&["nondeterministic_output_order"])
        .flags(R)
        .doc(
            "key",
            "Returns all the members of a set.",
            "O(N) in the size of the set",
            "1.0.0",
        ),
    Command::new("smismember", -3, Group::Set, smismember)
        .key_specs(&[KeySpec::index(1, "RO access")])
        .flags(RF)
        .doc(
            "key member [member ...]",
            "Tells for each of several members whether it belongs to a set.",
            "O(1) per member",
            "6.2.0",
        ),
    Command::new("smove", 4, Group::Set, smove)
        .key_specs(&[KeySpec::index(1, "RW access delete"), KeySpec::index(2, "RW insert")])
        .flags(WF)
        .doc(
            "source destination member",
            "Moves a member from one set to another.",
            "O(1)",
            "1.0.0",
        ),
    Command::new("spop", -2, Group::Set, spop)
        .key_specs(&[KeySpec::index(1, "RW access delete")])
        .tips(&["nondeterministic_output"])
        .flags(WF)
        .doc(
            "key [count]",
            "Removes and returns one or more random members of a set.",
            "O(1) without count; O(N) in the count",
            "1.0.0",
        ),
    Command::new("srandmember", -2, Group::Set, srandmember)
        .key_specs(&[KeySpec::index(1, "RO access")])
        .tips(&["nondeterministic_output"])
        .flags(R)
        .doc(
            "key [count]",
            "Returns random members of a set: distinct ones for a positive count, possibly repeated for a negative one.",
            "O(1) without count; O(N) in the absolute count",
            "1.0.0",
        ),
    Command::new("srem", -3, Group::Set, srem)
        .key_specs(&[KeySpec::index(1, "RW delete")])
        .flags(WF)
        .doc(
            "key member [member ...]",
            "Removes members from a set; replies with how many were there.",
            "O(1) per member",
            "1.0.0",
        ),
    Command::new("sscan", -3, Group::Set, sscan)
        .key_specs(&[KeySpec::index(1, "RO access")])
        .tips(&["nondeterministic_output"])
        .flags(R)
        .doc(
            "key cursor [MATCH pattern] [COUNT count]",
            "Iterates over the members of a set a few at a time.",
            "O(1) per call, O(N) for a complete iteration",
            "2.8.0",
        ),
    Command::new("sunion", -2, Group::Set, sunion)
        .key_specs(&[KeySpec::index(1, "RO access").range(-1, 1, 0)])
        .tips(&["nondeterministic_output_order"])
        .flags(R)
        .doc(
            "key [key ...]",
            "Returns the members of all the given sets together.",
            "O(N) in the total number of members of all the sets",
            "1.0.0",
        ),
    Command::new("sunionstore", -3, Group::Set, sunionstore)
        .key_specs(&[
            KeySpec::index(1, "OW update"),
            KeySpec::index(2, "RO access").range(-1, 1, 0),
        ])
        .flags(WD)
        .doc(
            "destination key [key ...]",
            "Stores the union of sets in a key, replacing what was there.",
            "O(N) in the total number of members of all the sets",
            "1.0.0",
        ),
];

// ---------------------------------------------------------------------------------------
// Key access and replies
// ---------------------------------------------------------------------------------------

/// The set at `key` for reading: `None` if absent, `WRONGTYPE` if not a set.
fn read_set<'c>(ctx: &'c mut Ctx<'_>, key: &[u8]) -> CmdResult<Option<&'c SetValue>> {
    ctx.read_as(key, Value::as_set)
}

/// The set at `key` for writing: `None` if absent, `WRONGTYPE` if not a set.
fn write_set<'c>(ctx: &'c mut Ctx<'_>, key: &[u8]) -> CmdResult<Option<&'c mut SetValue>> {
    ctx.write_as(key, Value::as_set_mut)
}

/// The set at `key` once a `read_set` of this command has looked it up (and counted the
/// hit): no expiry check, no statistics.
fn peek_set<'c>(ctx: &'c mut Ctx<'_>, key: &[u8]) -> Option<&'c SetValue> {
    ctx.db().get_raw(key).and_then(|e| e.value.as_set().ok())
}

/// Looks up every key (lazily expiring, and for reads counting hits and misses), fails
/// with WRONGTYPE if any holds another type, then returns them all at once, `None` for a
/// missing key. O(number of keys).
fn gather<'c>(
    ctx: &'c mut Ctx<'_>,
    keys: &[Vec<u8>],
    write: bool,
) -> CmdResult<Vec<Option<&'c SetValue>>> {
    for key in keys {
        let value = if write {
            ctx.lookup_write(key).map(|e| &e.value)
        } else {
            ctx.lookup_read(key)
        };
        if let Some(v) = value {
            v.as_set()?;
        }
    }
    let ctx: &'c Ctx<'_> = ctx;
    let db = &ctx.srv.dbs[ctx.client.db];
    Ok(keys
        .iter()
        .map(|k| db.get_raw(k).and_then(|e| e.value.as_set().ok()))
        .collect())
}

/// A whole-set reply: a RESP3 set, or an array for RESP2 clients.
fn set_reply<I, B>(proto: u8, members: I) -> Reply
where
    I: IntoIterator<Item = B>,
    B: AsRef<[u8]>,
{
    let items = members
        .into_iter()
        .map(|m| Reply::bulk(m.as_ref()))
        .collect();
    if proto >= 3 {
        Reply::Set(items)
    } else {
        Reply::Array(items)
    }
}

/// Stores `result` at `dst` for the `…STORE` commands, replacing any value (and its TTL),
/// or deletes `dst` when the result is empty. Sends `event` (`sinterstore`, …) on a store,
/// `del` when an existing `dst` is deleted. Only `dst` counts as modified (WATCH), never
/// the source keys. Replies with the result's size.
fn store(ctx: &mut Ctx<'_>, dst: Vec<u8>, result: SetValue, event: &str) -> CmdResult {
    let len = result.len();
    if len == 0 {
        if ctx.delete(&dst) {
            ctx.notify(class::GENERIC, "del", &dst);
        }
    } else {
        ctx.set_value(dst.clone(), Value::Set(result), false);
        ctx.notify(class::SET, event, &dst);
    }
    Ok(Reply::Integer(len as i64))
}

// ---------------------------------------------------------------------------------------
// The set algebra, over borrowed sets (`None` = a missing key = the empty set)
// ---------------------------------------------------------------------------------------

/// The members common to all `sets`, in the order of the smallest set, stopping after
/// `limit` (0 = no limit). Walks the smallest set and probes the others, smallest first:
/// O(N·M) for N the smallest size and M the number of sets.
fn intersection<'s>(sets: &[Option<&'s SetValue>], limit: usize) -> Vec<&'s [u8]> {
    let Some(mut sets) = sets.iter().copied().collect::<Option<Vec<&SetValue>>>() else {
        return Vec::new();
    };
    crate::sorting::sort_by_key(&mut sets, |s| s.len());
    let Some((first, rest)) = sets.split_first() else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for m in first.iter() {
        if rest.iter().all(|s| s.contains(m)) {
            out.push(m);
            if out.len() == limit {
                break;
            }
        }
    }
    out
}

/// The union of `sets` as a new set. O(total members).
fn union(sets: &[Option<&SetValue>]) -> SetValue {
    let mut out = SetValue::new();
    for s in sets.iter().flatten() {
        for m in s.iter() {
            if !out.contains(m) {
                out.insert_bytes(m);
            }
        }
    }
    out
}

/// The members of the first set in none of the others, as a new set.
///
/// As Redis, picks between two algorithms by estimated work: probing each member of the
/// first set in the other sets (the larger first; O(N·M), favoured by half because it stops
/// early on common members) or copying the first set and deleting the others' members
/// (O(total members)).
fn difference(sets: &[Option<&SetValue>]) -> SetValue {
    let Some(Some(first)) = sets.first() else {
        return SetValue::new();
    };
    let mut others: Vec<&SetValue> = sets.iter().skip(1).flatten().copied().collect();
    let probe_work = first.len().saturating_mul(others.len() + 1) / 2;
    let copy_work = others
        .iter()
        .fold(first.len(), |acc, s| acc.saturating_add(s.len()));
    if probe_work <= copy_work {
        crate::sorting::sort_by_key(&mut others, |s| std::cmp::Reverse(s.len()));
        first
            .iter()
            .filter(|m| !others.iter().any(|s| s.contains(m)))
            .collect()
    } else {
        let mut out: SetValue = first.iter().collect();
        for s in others {
            for m in s.iter() {
                out.remove(m);
            }
            if out.is_empty() {
                break;
            }
        }
        out
    }
}

/// Reads the keys of SINTER/SUNION/SDIFF (all remaining arguments).
fn rest_keys(args: &mut Args) -> Vec<Vec<u8>> {
    args.rest()
}

// ---------------------------------------------------------------------------------------
// Single-set commands
// ---------------------------------------------------------------------------------------

/// `SADD key member [member ...]`: adds the members, creating the set if needed; replies
/// with how many were not there before. WRONGTYPE for another type. O(1) per member.
fn sadd(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    let key = args.next_bytes()?.to_vec();
    let members = args.argv()[args.pos()..].to_vec();
    let added = match write_set(ctx, &key)? {
        Some(set) => members
            .into_iter()
            .filter(|m| set.insert(m.clone()))
            .count(),
        None => {
            let set: SetValue = members.into_iter().collect();
            let added = set.len();
            let now = ctx.now_ms;
            ctx.db().set(key.clone(), Value::Set(set), false, now);
            ctx.notify(class::NEW, "new", &key);
            added
        }
    };
    ctx.dirty += added as u64;
    if added > 0 {
        ctx.notify(class::SET, "sadd", &key);
    }
    Ok(Reply::Integer(added as i64))
}

/// `SREM key member [member ...]`: removes the members; replies with how many were there.
/// Deletes the key when it empties. O(1) per member.
fn srem(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
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
fn scard(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    let key = args.next_bytes()?.to_vec();
    let len = read_set(ctx, &key)?.map_or(0, SetValue::len);
    Ok(Reply::Integer(len as i64))
}

/// `SISMEMBER key member`: 1 if `member` is in the set, else 0. O(1).
fn sismember(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    let key = args.next_bytes()?.to_vec();
    let member = args.next_bytes()?.to_vec();
    let found = read_set(ctx, &key)?.is_some_and(|s| s.contains(&member));
    Ok(Reply::Integer(i64::from(found)))
}

/// `SMISMEMBER key member [member ...]`: for each member, 1 if it is in the set, else 0
/// (all 0 for a missing key). O(1) per member.
fn smismember(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    let key = args.next_bytes()?.to_vec();
    let set = read_set(ctx, &key)?;
    let flags = args.argv()[args.pos()..]
        .iter()
        .map(|m| Reply::Integer(i64::from(set.is_some_and(|s| s.contains(m)))))
        .collect();
    Ok(Reply::Array(flags))
}

/// `SMEMBERS key`: every member (ascending while intset-encoded). O(N).
fn smembers(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
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
fn smove(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
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
    let added = match write_set(ctx, &dst)? {
        Some(d) => d.insert(member),
        None => {
            let set: SetValue = std::iter::once(member).collect();
            let now = ctx.now_ms;
            ctx.db().set(dst.clone(), Value::Set(set), false, now);
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
fn spop(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
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
                let deadline = ctx.db().get_raw(&key).and_then(|e| e.expire_at);
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
fn srandmember(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
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
fn sscan(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
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

// ---------------------------------------------------------------------------------------
// Multi-set commands
// ---------------------------------------------------------------------------------------

/// `SINTER key [key ...]`: the members in every set; empty if any key is missing (after
/// all keys are type-checked). O(N·M).
fn sinter(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    let keys = rest_keys(args);
    let proto = ctx.client.proto;
    let sets = gather(ctx, &keys, false)?;
    Ok(set_reply(proto, intersection(&sets, 0)))
}

/// `SINTERSTORE destination key [key ...]`: stores the intersection at `destination`
/// (deleting it when empty); replies with its size. O(N·M).
fn sinterstore(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    let dst = args.next_bytes()?.to_vec();
    let keys = rest_keys(args);
    let result: SetValue = {
        let sets = gather(ctx, &keys, true)?;
        intersection(&sets, 0).into_iter().collect()
    };
    store(ctx, dst, result, "sinterstore")
}

/// `SINTERCARD numkeys key [key ...] [LIMIT limit]`: the size of the intersection,
/// counting at most `limit` members (0 = no limit).
///
/// Errors, in Redis's order: `numkeys should be greater than 0` (also for a
/// non-integer), `Number of keys can't be greater than number of args`, `LIMIT can't be
/// negative` (also for a non-integer), a syntax error for anything else; then WRONGTYPE.
/// A repeated LIMIT takes the last value. O(N·M), stopping at the limit.
fn sintercard(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    let numkeys = parse_i64(args.next_bytes()?)
        .filter(|n| *n >= 1)
        .ok_or(Error::NumkeysNotPositive)?;
    if numkeys > args.remaining() as i64 {
        return Err(Error::NumkeysTooLarge);
    }
    let mut keys = Vec::new();
    for _ in 0..numkeys {
        keys.push(args.next_bytes()?.to_vec());
    }
    let mut limit = 0u64;
    while !args.is_empty() {
        let more = args.remaining() > 1;
        if more && args.eat("LIMIT") {
            limit = parse_i64(args.next_bytes()?)
                .filter(|n| *n >= 0)
                .ok_or(Error::LimitNegative)? as u64;
        } else {
            return Err(Error::Syntax);
        }
    }
    let sets = gather(ctx, &keys, false)?;
    let limit = usize::try_from(limit).unwrap_or(usize::MAX);
    Ok(Reply::Integer(intersection(&sets, limit).len() as i64))
}

/// `SUNION key [key ...]`: the members of all the sets together. O(total members).
fn sunion(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    let keys = rest_keys(args);
    let proto = ctx.client.proto;
    let sets = gather(ctx, &keys, false)?;
    Ok(set_reply(proto, union(&sets)))
}

/// `SUNIONSTORE destination key [key ...]`: stores the union at `destination` (deleting
/// it when empty); replies with its size. O(total members).
fn sunionstore(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    let dst = args.next_bytes()?.to_vec();
    let keys = rest_keys(args);
    let result = union(&gather(ctx, &keys, true)?);
    store(ctx, dst, result, "sunionstore")
}

/// `SDIFF key [key ...]`: the members of the first set that are in none of the others.
/// O(total members).
fn sdiff(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    let keys = rest_keys(args);
    let proto = ctx.client.proto;
    let sets = gather(ctx, &keys, false)?;
    Ok(set_reply(proto, difference(&sets)))
}

/// `SDIFFSTORE destination key [key ...]`: stores the difference at `destination`
/// (deleting it when empty); replies with its size. O(total members).
fn sdiffstore(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    let dst = args.next_bytes()?.to_vec();
    let keys = rest_keys(args);
    let result = difference(&gather(ctx, &keys, true)?);
    store(ctx, dst, result, "sdiffstore")
}

#[cfg(test)]
mod tests {
    use crate::engine::cli::split_args;
    use crate::engine::{ClientId, Engine, ManualClock, Reply};

    fn engine(seed: u64) -> (Engine, ClientId) {
        let mut e = Engine::new(Box::new(ManualClock::at_ms(1_700_000_000_000)), seed);
        let c = e.connect();
        (e, c)
    }

    fn run(e: &mut Engine, c: ClientId, line: &str) -> Reply {
        e.execute(c, split_args(line).unwrap_or_default())
    }

    fn effects_of(e: &mut Engine, c: ClientId, line: &str) -> Vec<Vec<Vec<u8>>> {
        e.take_effects();
        run(e, c, line);
        e.take_effects().into_iter().map(|fx| fx.argv).collect()
    }

    #[test]
    fn spop_leaving_few_integers_rebuilds_an_intset_and_records_it() {
        // Recorded from redis-server 7.0.15: 11 integers in a hash table, SPOP 9 keeps the
        // encoding (two stay), SPOP 10 rebuilds the one that stays as an intset.
        for seed in 1..20 {
            let (mut e, c) = engine(seed);
            run(&mut e, c, "SADD h 1 2 3 4 5 6 7 8 9 10 11 a");
            run(&mut e, c, "SREM h a");
            run(&mut e, c, "SPOP h 9");
            assert_eq!(
                run(&mut e, c, "OBJECT ENCODING h"),
                Reply::bulk(b"hashtable")
            );
            run(&mut e, c, "SADD s 1 2 3 4 5 6 7 8 9 10 11 a");
            run(&mut e, c, "SREM s a");
            run(&mut e, c, "PEXPIRE s 100000");
            let fx = effects_of(&mut e, c, "SPOP s 10");
            assert_eq!(run(&mut e, c, "OBJECT ENCODING s"), Reply::bulk(b"intset"));
            assert_eq!(run(&mut e, c, "SCARD s"), Reply::Integer(1));
            // The effects rebuild the same set, as an intset, with its deadline.
            let left = members(&mut e, c, "s");
            let (mut r, rc) = engine(seed);
            for argv in fx {
                r.execute(rc, argv);
            }
            assert_eq!(members(&mut r, rc, "s"), left);
            assert_eq!(run(&mut r, rc, "OBJECT ENCODING s"), Reply::bulk(b"intset"));
            assert_eq!(run(&mut r, rc, "PTTL s"), Reply::Integer(100_000));
        }
    }

    /// The members of `key`, sorted, whatever the encoding.
    fn members(e: &mut Engine, c: ClientId, key: &str) -> Vec<Vec<u8>> {
        let mut out = match run(e, c, &format!("SMEMBERS {key}")) {
            Reply::Array(items) | Reply::Set(items) => items
                .into_iter()
                .filter_map(|r| match r {
                    Reply::Bulk(b) => Some(b),
                    _ => None,
                })
                .collect(),
            _ => Vec::new(),
        };
        out.sort();
        out
    }

    #[test]
    fn spop_replays_as_srem_of_what_it_popped() {
        for seed in 1..20 {
            let (mut a, ca) = engine(seed);
            let (mut b, cb) = engine(seed + 100);
            let fill: String = (0..3000).map(|i| format!(" m{i}")).collect();
            run(&mut a, ca, &format!("SADD s{fill}"));
            run(&mut b, cb, &format!("SADD s{fill}"));
            let mut effects = effects_of(&mut a, ca, "SPOP s");
            effects.extend(effects_of(&mut a, ca, "SPOP s 2500"));
            assert!(effects.iter().all(|fx| fx[0] == b"SREM"));
            assert!(effects.iter().all(|fx| fx.len() <= 1026));
            for fx in effects {
                b.execute(cb, fx);
            }
            assert_eq!(members(&mut a, ca, "s"), members(&mut b, cb, "s"));
            assert_eq!(run(&mut a, ca, "SCARD s"), Reply::Integer(499));
        }
    }

    #[test]
    fn spop_of_the_whole_set_replays_as_del() {
        let (mut e, c) = engine(1);
        run(&mut e, c, "SADD s 1 2 3");
        assert_eq!(
            effects_of(&mut e, c, "SPOP s 3"),
            [vec![b"DEL".to_vec(), b"s".to_vec()]]
        );
        assert_eq!(
            effects_of(&mut e, c, "SPOP s 3"),
            Vec::<Vec<Vec<u8>>>::new()
        );
    }

    #[test]
    fn writes_that_change_nothing_record_nothing() {
        let (mut e, c) = engine(1);
        run(&mut e, c, "SADD s 1 2 3");
        for line in [
            "SADD s 1 2",
            "SREM s 9",
            "SREM nokey 1",
            "SMOVE s s 1",
            "SMOVE s t 9",
            "SMOVE nokey t 1",
            "SPOP nokey",
            "SPOP s 0",
            "SINTERSTORE d s nokey",
            "SDIFFSTORE d s s",
            "SUNIONSTORE d nokey",
        ] {
            assert!(effects_of(&mut e, c, line).is_empty(), "{line}");
        }
        // Deleting an existing destination is a change.
        run(&mut e, c, "SADD d x");
        assert_eq!(effects_of(&mut e, c, "SINTERSTORE d s nokey").len(), 1);
    }

    #[test]
    fn whole_set_replies_are_resp3_sets_for_resp3_clients() {
        let (mut e, c) = engine(1);
        run(&mut e, c, "SADD s 1 2");
        assert!(matches!(run(&mut e, c, "SMEMBERS s"), Reply::Array(_)));
        if let Some(client) = e.clients.get_mut(&c) {
            client.proto = 3;
        }
        for line in [
            "SMEMBERS s",
            "SINTER s",
            "SUNION s",
            "SDIFF s",
            "SPOP nokey 1",
        ] {
            assert!(matches!(run(&mut e, c, line), Reply::Set(_)), "{line}");
        }
        assert!(matches!(run(&mut e, c, "SRANDMEMBER s 5"), Reply::Array(_)));
    }

    #[test]
    fn srandmember_counts_are_honoured_without_huge_allocations() {
        let (mut e, c) = engine(1);
        run(&mut e, c, "SADD s a b c d e f g h i j");
        for n in 1..=10 {
            let Reply::Array(items) = run(&mut e, c, &format!("SRANDMEMBER s {n}")) else {
                panic!("array expected");
            };
            let distinct: std::collections::HashSet<String> =
                items.iter().map(|r| format!("{r:?}")).collect();
            assert_eq!((items.len(), distinct.len()), (n, n));
            let Reply::Array(items) = run(&mut e, c, &format!("SRANDMEMBER s -{}", n * 3)) else {
                panic!("array expected");
            };
            assert_eq!(items.len(), n * 3);
        }
        assert!(run(&mut e, c, "SRANDMEMBER s -9223372036854775807").is_error());
        assert_eq!(
            run(&mut e, c, "SRANDMEMBER nokey -9223372036854775807"),
            Reply::Array(vec![])
        );
    }

    #[test]
    fn sscan_of_a_hash_table_set_visits_every_member() {
        let (mut e, c) = engine(1);
        let fill: String = (0..1000).map(|i| format!(" m{i}")).collect();
        run(&mut e, c, &format!("SADD s{fill}"));
        let mut seen = std::collections::HashSet::new();
        let mut cursor = b"0".to_vec();
        loop {
            let reply = e.execute(
                c,
                vec![
                    b"SSCAN".to_vec(),
                    b"s".to_vec(),
                    cursor.clone(),
                    b"COUNT".to_vec(),
                    b"7".to_vec(),
                ],
            );
            let Reply::Array(parts) = reply else {
                panic!("array expected")
            };
            let [Reply::Bulk(next), Reply::Array(items)] = parts.as_slice() else {
                panic!("cursor and items expected")
            };
            assert!(items.len() <= 7);
            for item in items {
                if let Reply::Bulk(b) = item {
                    seen.insert(b.clone());
                }
            }
            cursor = next.clone();
            if cursor == b"0" {
                break;
            }
        }
        assert_eq!(seen.len(), 1000);
    }

    /// Runs `write` on a second client between `WATCH key` and `EXEC` on the first; true if
    /// the transaction still ran.
    fn exec_survives(e: &mut Engine, watcher: ClientId, key: &str, write: &str) -> bool {
        let other = e.connect();
        run(e, watcher, &format!("WATCH {key}"));
        run(e, other, write);
        run(e, watcher, "MULTI");
        run(e, watcher, "PING");
        let survived = run(e, watcher, "EXEC") != Reply::NilArray;
        e.disconnect(other);
        survived
    }

    #[test]
    fn store_commands_touch_the_destination_not_the_sources() {
        let (mut e, c) = engine(1);
        run(&mut e, c, "SADD s1 a b");
        run(&mut e, c, "SADD s2 b c");
        for cmd in ["SINTERSTORE", "SUNIONSTORE", "SDIFFSTORE"] {
            let write = format!("{cmd} dst s1 s2");
            assert!(exec_survives(&mut e, c, "s1", &write), "{cmd} source");
            assert!(exec_survives(&mut e, c, "s2", &write), "{cmd} source");
            assert!(
                !exec_survives(&mut e, c, "dst", &write),
                "{cmd} destination"
            );
        }
        // An empty result deletes an existing destination (a change) …
        assert!(!exec_survives(&mut e, c, "dst", "SINTERSTORE dst s1 nokey"));
        // … and leaves a missing one alone (no change).
        assert!(exec_survives(&mut e, c, "dst", "SINTERSTORE dst s1 nokey"));
    }

    #[test]
    fn smove_touches_both_keys_only_when_a_member_moves() {
        let (mut e, c) = engine(1);
        run(&mut e, c, "SADD src a");
        assert!(exec_survives(&mut e, c, "src", "SMOVE src dst nosuch"));
        assert!(exec_survives(&mut e, c, "src", "SMOVE src src a"));
        assert!(!exec_survives(&mut e, c, "dst", "SMOVE src dst a"));
        assert!(!exec_survives(&mut e, c, "dst", "SMOVE dst src a"));
    }
}
