//! The set algebra over borrowed sets (`None` = a missing key = the empty set), and the
//! multi-set commands built on it: SINTER, SINTERSTORE, SINTERCARD, SUNION, SUNIONSTORE, SDIFF
//! and SDIFFSTORE.

use super::access::{gather, set_reply, store};
use crate::engine::args::{parse_i64, Args};
use crate::engine::error::{CmdResult, Error};
use crate::engine::types::SetValue;
use crate::engine::{Ctx, Reply};

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
fn union(sets: &[Option<&SetValue>], max_intset: usize) -> SetValue {
    let mut out = SetValue::new();
    for s in sets.iter().flatten() {
        for m in s.iter() {
            if !out.contains(m) {
                out.insert_within(m, max_intset);
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
fn difference(sets: &[Option<&SetValue>], max_intset: usize) -> SetValue {
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
        let kept = first
            .iter()
            .filter(|m| !others.iter().any(|s| s.contains(m)));
        SetValue::collect_within(kept, max_intset)
    } else {
        let mut out = SetValue::collect_within(first.iter(), max_intset);
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
// Multi-set commands
// ---------------------------------------------------------------------------------------

/// `SINTER key [key ...]`: the members in every set; empty if any key is missing (after
/// all keys are type-checked). O(N·M).
pub(super) fn sinter(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    let keys = rest_keys(args);
    let proto = ctx.client.proto;
    let sets = gather(ctx, &keys, false)?;
    Ok(set_reply(proto, intersection(&sets, 0)))
}

/// `SINTERSTORE destination key [key ...]`: stores the intersection at `destination`
/// (deleting it when empty); replies with its size. O(N·M).
pub(super) fn sinterstore(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    let dst = args.next_bytes()?.to_vec();
    let keys = rest_keys(args);
    let max = ctx.srv.config.set_max_intset_entries();
    let result = {
        let sets = gather(ctx, &keys, true)?;
        SetValue::collect_within(intersection(&sets, 0), max)
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
pub(super) fn sintercard(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
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
pub(super) fn sunion(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    let keys = rest_keys(args);
    let proto = ctx.client.proto;
    let max = ctx.srv.config.set_max_intset_entries();
    let sets = gather(ctx, &keys, false)?;
    Ok(set_reply(proto, union(&sets, max)))
}

/// `SUNIONSTORE destination key [key ...]`: stores the union at `destination` (deleting
/// it when empty); replies with its size. O(total members).
pub(super) fn sunionstore(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    let dst = args.next_bytes()?.to_vec();
    let keys = rest_keys(args);
    let max = ctx.srv.config.set_max_intset_entries();
    let result = union(&gather(ctx, &keys, true)?, max);
    store(ctx, dst, result, "sunionstore")
}

/// `SDIFF key [key ...]`: the members of the first set that are in none of the others.
/// O(total members).
pub(super) fn sdiff(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    let keys = rest_keys(args);
    let proto = ctx.client.proto;
    let max = ctx.srv.config.set_max_intset_entries();
    let sets = gather(ctx, &keys, false)?;
    Ok(set_reply(proto, difference(&sets, max)))
}

/// `SDIFFSTORE destination key [key ...]`: stores the difference at `destination`
/// (deleting it when empty); replies with its size. O(total members).
pub(super) fn sdiffstore(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    let dst = args.next_bytes()?.to_vec();
    let keys = rest_keys(args);
    let max = ctx.srv.config.set_max_intset_entries();
    let result = difference(&gather(ctx, &keys, true)?, max);
    store(ctx, dst, result, "sdiffstore")
}
