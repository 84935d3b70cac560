//! Walking a hash: HRANDFIELD samples it, HSCAN pages through it.

use super::common::{read_hash, MAX_RANDOM_REPLY};
use crate::engine::args::{c_bytes, Args};
use crate::engine::error::{CmdResult, Error};
use crate::engine::scan;
use crate::engine::types::HashValue;
use crate::engine::{Ctx, Reply};
use std::collections::HashSet;

/// `HRANDFIELD key [count [WITHVALUES]]`.
///
/// Without a count: one random field, nil if the key is missing. With a count ≥ 0: that
/// many distinct fields (all of them, in order, when the count reaches the size; otherwise
/// in listpack order for a small hash, random order for a big one). With a negative count:
/// `|count|` fields picked independently, so repeats are possible. WITHVALUES adds each
/// value (pairs as nested arrays in RESP3). The count must lie in ±(2^63 − 1), and within
/// ±2^62 with WITHVALUES (`ERR value is out of range`); arguments are checked before the
/// key. See [`MAX_RANDOM_REPLY`] for our one limit beyond Redis's.
pub(super) fn hrandfield(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    let key = args.next_bytes()?.to_vec();
    if args.is_empty() {
        let Some(len) = read_hash(ctx, &key)?.map(HashValue::len) else {
            return Ok(Reply::Nil);
        };
        let i = random_below(ctx, len);
        let h = read_hash_again(ctx, &key)?;
        return Ok(Reply::bulk_or_nil(h.get_index(i).map(|(f, _)| f)));
    }
    let count = args.next_i64()?;
    if count == i64::MIN {
        return Err(Error::Err(format!(
            "value is out of range, value must between {} and {}",
            -i64::MAX,
            i64::MAX
        )));
    }
    let with_values = match args.remaining() {
        0 => false,
        1 if args.peek().is_some_and(is_withvalues) => true,
        _ => return Err(Error::Syntax),
    };
    if with_values && !(-(i64::MAX / 2)..=i64::MAX / 2).contains(&count) {
        return Err(Error::Err("value is out of range".into()));
    }
    let proto = ctx.client.proto;
    let Some(size) = read_hash(ctx, &key)?.map(HashValue::len) else {
        return Ok(Reply::Array(Vec::new()));
    };
    let n = count.unsigned_abs();
    if n == 0 {
        return Ok(Reply::Array(Vec::new()));
    }
    let positions: Vec<usize> = if count < 0 || n == 1 {
        let elements = if with_values { n.saturating_mul(2) } else { n };
        if elements > MAX_RANDOM_REPLY {
            return Err(Error::Err("value is out of range".into()));
        }
        (0..n).map(|_| random_below(ctx, size)).collect()
    } else if n >= size as u64 {
        (0..size).collect()
    } else {
        let mut picked = sample_distinct(ctx, size, n as usize);
        if !read_hash_again(ctx, &key)?.is_big() {
            picked.sort_unstable();
        }
        picked
    };
    let h = read_hash_again(ctx, &key)?;
    let mut out = Vec::with_capacity(positions.len() * if with_values { 2 } else { 1 });
    for (f, v) in h.at_positions(&positions) {
        match (with_values, proto >= 3) {
            (false, _) => out.push(Reply::bulk(f)),
            (true, true) => out.push(Reply::Array(vec![Reply::bulk(f), Reply::bulk(v)])),
            (true, false) => {
                out.push(Reply::bulk(f));
                out.push(Reply::bulk(v));
            }
        }
    }
    Ok(Reply::Array(out))
}

/// `WITHVALUES`, compared as Redis's `strcasecmp` does (up to a NUL byte).
fn is_withvalues(arg: &[u8]) -> bool {
    c_bytes(arg).eq_ignore_ascii_case(b"WITHVALUES")
}

/// The hash at `key` after an earlier lookup in the same command found it (no second hit
/// is counted).
fn read_hash_again<'c>(ctx: &'c mut Ctx<'_>, key: &[u8]) -> CmdResult<&'c HashValue> {
    match ctx.db().get_raw(key) {
        Some(e) => e.value.as_hash(),
        None => Err(Error::NoSuchKey),
    }
}

/// A random position in `0..n`.
fn random_below(ctx: &mut Ctx<'_>, n: usize) -> usize {
    ctx.random_below(n)
}

/// `k` distinct random positions in `0..n` (`k < n`), by Floyd's algorithm: **O(k)**.
fn sample_distinct(ctx: &mut Ctx<'_>, n: usize, k: usize) -> Vec<usize> {
    let mut chosen = HashSet::with_capacity(k);
    let mut out = Vec::with_capacity(k);
    for j in n - k..n {
        let t = random_below(ctx, j + 1);
        let pick = if chosen.insert(t) { t } else { j };
        if pick == j {
            chosen.insert(j);
        }
        out.push(pick);
    }
    out
}

/// `HSCAN key cursor [MATCH pattern] [COUNT count]`.
///
/// A small (listpack) hash is returned whole in one call with cursor 0, whatever the
/// cursor and COUNT, as Redis does; a big one is walked `COUNT` fields at a time with the
/// shared cursor scheme of [`crate::engine::scan`]. MATCH filters on field names. The
/// cursor is checked first, then the key (a missing key gives an empty page), then the
/// options.
pub(super) fn hscan(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    let key = args.next_bytes()?.to_vec();
    let cursor = scan::parse_cursor(args.next_bytes()?)?;
    let empty = || Reply::Array(vec![Reply::bulk(b"0"), Reply::Array(Vec::new())]);
    if read_hash(ctx, &key)?.is_none() {
        return Ok(empty());
    }
    let opts = scan::parse_opts(args, false)?;
    let h = read_hash_again(ctx, &key)?;
    let mut items = Vec::new();
    let mut push = |f: &[u8], v: &[u8]| {
        if scan::pattern_ok(&opts, f) {
            items.push(Reply::bulk(f));
            items.push(Reply::bulk(v));
        }
    };
    let next = if h.is_big() {
        let (positions, next) = scan::step(h.len(), cursor, opts.count);
        for i in positions {
            if let Some((f, v)) = h.get_index(i) {
                push(f, v);
            }
        }
        next
    } else {
        for (f, v) in h.iter() {
            push(f, v);
        }
        0
    };
    Ok(Reply::Array(vec![
        Reply::bulk(next.to_string().as_bytes()),
        Reply::Array(items),
    ]))
}
