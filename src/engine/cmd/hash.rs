//! The hash group: HSET and friends, counters, whole-hash reads, HRANDFIELD and HSCAN.
//!
//! Handlers follow Redis 7.0's `t_hash.c` in the order they check things. Writers that may
//! create the key (HSET, HMSET, HSETNX, HINCRBY, HINCRBYFLOAT) create it only once nothing
//! can fail any more, so an error never leaves an empty hash behind. The representation
//! and the listpack/hashtable switch are described in [`crate::engine::types::hash`].
//!
//! **Effects.** Writes replay as sent, except HINCRBYFLOAT, which is recorded as
//! `HSET key field <result>` so that replay does not depend on float arithmetic; HDEL of
//! fields that do not exist records nothing.

use std::collections::HashSet;

use crate::engine::args::{c_bytes, parse_i64, Args};
use crate::engine::error::{CmdResult, Error};
use crate::engine::longdouble::LongDouble;
use crate::engine::pubsub::class;
use crate::engine::scan;
use crate::engine::table::{Command, Flags, Group, KeySpec};
use crate::engine::types::hash::HashLimits;
use crate::engine::types::{HashValue, Value};
use crate::engine::{Ctx, Reply};

const W: Flags = Flags::WRITE;
const R: Flags = Flags::READONLY;
const DENYOOM: Flags = Flags::DENYOOM;
const FAST: Flags = Flags::FAST;

/// Most elements HRANDFIELD with a negative count may return. Redis has no limit and would
/// stream them until the client disconnects; a browser tab would run out of memory first,
/// so larger requests get `ERR value is out of range` (the text Redis uses for counts too
/// large with WITHVALUES).
pub const MAX_RANDOM_REPLY: u64 = 1_000_000;

/// The hash commands.
pub const COMMANDS: &[Command] = &[
    Command::new("hdel", -3, Group::Hash, hdel)
        .key_specs(&[KeySpec::index(1, "RW delete")])
        .flags(W.union(FAST))
        .doc(
            "key field [field ...]",
            "Removes fields from a hash (the key goes with its last field); replies with how many existed.",
            "O(N) where N is the number of fields to be removed.",
            "2.0.0",
        ),
    Command::new("hexists", 3, Group::Hash, hexists)
        .key_specs(&[KeySpec::index(1, "RO")])
        .flags(R.union(FAST))
        .doc(
            "key field",
            "Replies 1 if the hash has the field, else 0.",
            "O(1)",
            "2.0.0",
        ),
    Command::new("hget", 3, Group::Hash, hget)
        .key_specs(&[KeySpec::index(1, "RO access")])
        .flags(R.union(FAST))
        .doc(
            "key field",
            "Returns the value of one field of a hash, or nil.",
            "O(1)",
            "2.0.0",
        ),
    Command::new("hgetall", 2, Group::Hash, hgetall)
        .key_specs(&[KeySpec::index(1, "RO access")])
        .tips(&["nondeterministic_output_order"])
        .flags(R)
        .doc(
            "key",
            "Returns every field and value of a hash.",
            "O(N) where N is the size of the hash.",
            "2.0.0",
        ),
    Command::new("hincrby", 4, Group::Hash, hincrby)
        .key_specs(&[KeySpec::index(1, "RW access update")])
        .flags(W.union(DENYOOM).union(FAST))
        .doc(
            "key field increment",
            "Adds an integer to the integer in a hash field (a missing field counts as 0).",
            "O(1)",
            "2.0.0",
        ),
    Command::new("hincrbyfloat", 4, Group::Hash, hincrbyfloat)
        .key_specs(&[KeySpec::index(1, "RW access update")])
        .flags(W.union(DENYOOM).union(FAST))
        .doc(
            "key field increment",
            "Adds a decimal number to the number in a hash field, in extended precision.",
            "O(1)",
            "2.6.0",
        ),
    Command::new("hkeys", 2, Group::Hash, hkeys)
        .key_specs(&[KeySpec::index(1, "RO access")])
        .tips(&["nondeterministic_output_order"])
        .flags(R)
        .doc(
            "key",
            "Returns every field name of a hash.",
            "O(N) where N is the size of the hash.",
            "2.0.0",
        ),
    Command::new("hlen", 2, Group::Hash, hlen)
        .key_specs(&[KeySpec::index(1, "RO")])
        .flags(R.union(FAST))
        .doc(
            "key",
            "Returns the number of fields in a hash (0 if missing).",
            "O(1)",
            "2.0.0",
        ),
    Command::new("hmget", -3, Group::Hash, hmget)
        .key_specs(&[KeySpec::index(1, "RO access")])
        .flags(R.union(FAST))
        .doc(
            "key field [field ...]",
            "Returns the values of several fields of a hash (nil for missing ones).",
            "O(N) where N is the number of fields being requested.",
            "2.0.0",
        ),
    Command::new("hmset", -4, Group::Hash, hmset)
        .key_specs(&[KeySpec::index(1, "RW update")])
        .flags(W.union(DENYOOM).union(FAST))
        .doc(
            "key field value [field value ...]",
            "Sets several fields of a hash and replies OK (deprecated: HSET does the same).",
            "O(N) where N is the number of fields being set.",
            "2.0.0",
        ),
    Command::new("hrandfield", -2, Group::Hash, hrandfield)
        .key_specs(&[KeySpec::index(1, "RO access")])
        .tips(&["nondeterministic_output"])
        .flags(R)
        .doc(
            "key [count [WITHVALUES]]",
            "Returns random fields of a hash: distinct ones for a positive count, possibly repeated for a negative one.",
            "O(N) where N is the number of fields returned",
            "6.2.0",
        ),
    Command::new("hscan", -3, Group::Hash, hscan)
        .key_specs(&[KeySpec::index(1, "RO access")])
        .tips(&["nondeterministic_output"])
        .flags(R)
        .doc(
            "key cursor [MATCH pattern] [COUNT count]",
            "Iterates over the fields and values of a hash a few at a time.",
            "O(1) for every call. O(N) for a complete iteration, including enough command calls for the cursor to return back to 0. N is the number of elements inside the collection..",
            "2.8.0",
        ),
    Command::new("hset", -4, Group::Hash, hset)
        .key_specs(&[KeySpec::index(1, "RW update")])
        .flags(W.union(DENYOOM).union(FAST))
        .doc(
            "key field value [field value ...]",
            "Sets fields of a hash, creating it if missing; replies with how many fields are new.",
            "O(1) for each field/value pair added, so O(N) to add N field/value pairs when the command is called with multiple field/value pairs.",
            "2.0.0",
        ),
    Command::new("hsetnx", 4, Group::Hash, hsetnx)
        .key_specs(&[KeySpec::index(1, "RW insert")])
        .flags(W.union(DENYOOM).union(FAST))
        .doc(
            "key field value",
            "Sets a hash field only if it does not exist; replies 1 if it did.",
            "O(1)",
            "2.0.0",
        ),
    Command::new("hstrlen", 3, Group::Hash, hstrlen)
        .key_specs(&[KeySpec::index(1, "RO")])
        .flags(R.union(FAST))
        .doc(
            "key field",
            "Returns the length of a hash field's value (0 if missing).",
            "O(1)",
            "3.2.0",
        ),
    Command::new("hvals", 2, Group::Hash, hvals)
        .key_specs(&[KeySpec::index(1, "RO access")])
        .tips(&["nondeterministic_output_order"])
        .flags(R)
        .doc(
            "key",
            "Returns every value of a hash.",
            "O(N) where N is the size of the hash.",
            "2.0.0",
        ),
];

// ---------------------------------------------------------------------------------------
// Shared helpers
// ---------------------------------------------------------------------------------------

/// A map reply for protocol `proto`: a RESP3 map, or the flat `[k1, v1, k2, v2, …]` array
/// that a RESP2 client receives (and redis-cli prints as such).
pub fn map_reply(proto: u8, pairs: Vec<(Reply, Reply)>) -> Reply {
    if proto >= 3 {
        Reply::Map(pairs)
    } else {
        Reply::Array(pairs.into_iter().flat_map(|(k, v)| [k, v]).collect())
    }
}

/// The conversion thresholds from the configuration.
fn limits(ctx: &Ctx<'_>) -> HashLimits {
    HashLimits::from_config(&ctx.srv.config.values)
}

/// The hash at `key` for reading: `Ok(None)` if missing, WRONGTYPE for other types.
/// Counts a keyspace hit or miss.
fn read_hash<'c>(ctx: &'c mut Ctx<'_>, key: &[u8]) -> CmdResult<Option<&'c HashValue>> {
    ctx.read_as(key, Value::as_hash)
}

/// The hash at `key` for writing: `Ok(None)` if missing, WRONGTYPE for other types.
fn write_hash<'c>(ctx: &'c mut Ctx<'_>, key: &[u8]) -> CmdResult<Option<&'c mut HashValue>> {
    ctx.write_as(key, Value::as_hash_mut)
}

/// The hash at `key`, created empty if missing (Redis's `hashTypeLookupWriteOrCreate`).
/// Call only when the write will happen, so no empty hash is left behind.
fn hash_or_create<'c>(ctx: &'c mut Ctx<'_>, key: &[u8]) -> CmdResult<&'c mut HashValue> {
    ctx.expire_if_needed(key);
    let now = ctx.now_ms;
    let db = ctx.db();
    if db.get_raw(key).is_none() {
        db.set(key.to_vec(), Value::Hash(HashValue::default()), false, now);
        ctx.notify(class::NEW, "new", key);
    }
    let idx = ctx.client.db;
    let srv = &mut *ctx.srv;
    match srv.dbs[idx].get_raw_mut(key) {
        Some(e) => {
            crate::engine::evict::touch(e, now, srv.config.eviction(), &mut srv.rng);
            e.value.as_hash_mut()
        }
        None => Err(Error::NoSuchKey),
    }
}

// ---------------------------------------------------------------------------------------
// Writes
// ---------------------------------------------------------------------------------------

/// `HSET key field value [field value ...]`: sets each field (creating the hash if
/// missing) and replies with the number of fields that were new. An odd number of
/// field/value arguments is an arity error. Any field or value longer than
/// `hash-max-listpack-value` converts the hash first, even for fields that exist.
fn hset(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    let created = hset_generic(ctx, args)?;
    Ok(Reply::Integer(created))
}

/// `HMSET key field value [field value ...]`: HSET that replies OK.
fn hmset(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    hset_generic(ctx, args)?;
    Ok(Reply::ok())
}

/// HSET and HMSET: returns the number of new fields.
fn hset_generic(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult<i64> {
    if args.remaining() % 2 == 0 {
        return Err(Error::WrongArity(args.name()));
    }
    let key = args.next_bytes()?.to_vec();
    let pairs = args.rest();
    let limits = limits(ctx);
    let h = hash_or_create(ctx, &key)?;
    h.convert_for_args(pairs.iter().map(Vec::len), limits);
    let mut created = 0;
    let mut it = pairs.into_iter();
    while let (Some(field), Some(value)) = (it.next(), it.next()) {
        if h.insert(field, value, limits) {
            created += 1;
        }
    }
    ctx.dirty += (args.argv().len() as u64 - 2) / 2;
    ctx.notify(class::HASH, "hset", &key);
    Ok(created)
}

/// `HSETNX key field value`: sets the field only if it does not exist (creating the hash if
/// missing); replies 1 if it set it, else 0.
fn hsetnx(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    let key = args.next_bytes()?.to_vec();
    let field = args.next_bytes()?.to_vec();
    let value = args.next_bytes()?.to_vec();
    let exists = write_hash(ctx, &key)?.is_some_and(|h| h.contains(&field));
    if exists {
        return Ok(Reply::Integer(0));
    }
    let limits = limits(ctx);
    let h = hash_or_create(ctx, &key)?;
    h.convert_for_args([field.len(), value.len()], limits);
    h.insert(field, value, limits);
    ctx.dirty += 1;
    ctx.notify(class::HASH, "hset", &key);
    Ok(Reply::Integer(1))
}

/// `HDEL key field [field ...]`: removes the fields and replies with how many existed; the
/// key is deleted with its last field. Nothing is recorded when no field existed.
fn hdel(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    let key = args.next_bytes()?.to_vec();
    let fields = args.rest();
    let Some(h) = write_hash(ctx, &key)? else {
        return Ok(Reply::Integer(0));
    };
    let mut deleted = 0;
    for field in &fields {
        if h.remove(field) {
            deleted += 1;
            if h.is_empty() {
                break;
            }
        }
    }
    let emptied = ctx
        .db()
        .get_raw(&key)
        .is_some_and(|e| e.value.is_empty_collection());
    ctx.delete_if_empty(&key);
    ctx.dirty += deleted;
    if deleted > 0 {
        ctx.notify(class::HASH, "hdel", &key);
        if emptied {
            ctx.notify(class::GENERIC, "del", &key);
        }
    }
    Ok(Reply::Integer(deleted as i64))
}

/// `HINCRBY key field increment`: adds `increment` to the field's integer (a missing field
/// or key counts as 0). Errors, in Redis's order: the increment is not an integer; the key
/// holds another type; the field's value is not an integer (`ERR hash value is not an
/// integer`); the sum overflows.
fn hincrby(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    let key = args.next_bytes()?.to_vec();
    let field = args.next_bytes()?.to_vec();
    let by = args.next_i64()?;
    let current = match write_hash(ctx, &key)?.and_then(|h| h.get(&field)) {
        Some(v) => parse_i64(v).ok_or(Error::HashNotInteger)?,
        None => 0,
    };
    let new = current.checked_add(by).ok_or(Error::Overflow)?;
    let limits = limits(ctx);
    hash_or_create(ctx, &key)?.insert(field, new.to_string().into_bytes(), limits);
    ctx.dirty += 1;
    ctx.notify(class::HASH, "hincrby", &key);
    Ok(Reply::Integer(new))
}

/// `HINCRBYFLOAT key field increment`: adds as C `long double`, like INCRBYFLOAT (see
/// [`crate::engine::longdouble`]). Errors, in Redis's order: the increment is not a valid
/// float; it is infinite (`ERR value is NaN or Infinity`); the key holds another type; the
/// field's value is not a float (`ERR hash value is not a float`); the sum is infinite.
/// Replayed as `HSET key field <result>`.
fn hincrbyfloat(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    let key = args.next_bytes()?.to_vec();
    let field = args.next_bytes()?.to_vec();
    let by = LongDouble::parse(args.next_bytes()?).ok_or(Error::NotFloat)?;
    if !by.is_finite() {
        return Err(Error::Err("value is NaN or Infinity".into()));
    }
    let current = match write_hash(ctx, &key)?.and_then(|h| h.get(&field)) {
        Some(v) => LongDouble::parse(v).ok_or(Error::HashNotFloat)?,
        None => LongDouble::zero(),
    };
    let sum = current + by;
    if !sum.is_finite() {
        return Err(Error::NanOrInfinity);
    }
    let text = sum.to_human().into_bytes();
    let limits = limits(ctx);
    hash_or_create(ctx, &key)?.insert(field.clone(), text.clone(), limits);
    ctx.dirty += 1;
    ctx.notify(class::HASH, "hincrbyfloat", &key);
    ctx.propagate(vec![b"HSET".to_vec(), key, field, text.clone()]);
    Ok(Reply::Bulk(text))
}

// ---------------------------------------------------------------------------------------
// Reads
// ---------------------------------------------------------------------------------------

/// `HGET key field`: the field's value, nil if the field or key is missing.
fn hget(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    let key = args.next_bytes()?.to_vec();
    let field = args.next_bytes()?;
    let h = read_hash(ctx, &key)?;
    Ok(Reply::bulk_or_nil(h.and_then(|h| h.get(field))))
}

/// `HMGET key field [field ...]`: each field's value or nil; a missing key is an empty
/// hash, another type is WRONGTYPE.
fn hmget(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    let key = args.next_bytes()?.to_vec();
    let fields = args.rest();
    let h = read_hash(ctx, &key)?;
    Ok(Reply::Array(
        fields
            .iter()
            .map(|f| Reply::bulk_or_nil(h.and_then(|h| h.get(f))))
            .collect(),
    ))
}

/// `HEXISTS key field`: 1 if the field exists, else 0.
fn hexists(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    let key = args.next_bytes()?.to_vec();
    let field = args.next_bytes()?;
    let h = read_hash(ctx, &key)?;
    Ok(Reply::Integer(i64::from(
        h.is_some_and(|h| h.contains(field)),
    )))
}

/// `HLEN key`: the number of fields, 0 if missing.
fn hlen(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    let key = args.next_bytes()?.to_vec();
    let h = read_hash(ctx, &key)?;
    Ok(Reply::Integer(h.map_or(0, |h| h.len() as i64)))
}

/// `HSTRLEN key field`: the length of the field's value, 0 if missing.
fn hstrlen(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    let key = args.next_bytes()?.to_vec();
    let field = args.next_bytes()?;
    let h = read_hash(ctx, &key)?;
    Ok(Reply::Integer(
        h.and_then(|h| h.get(field)).map_or(0, |v| v.len() as i64),
    ))
}

/// `HGETALL key`: every field and value (a map in RESP3, a flat array in RESP2), in listpack
/// order while the hash is small.
fn hgetall(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    let key = args.next_bytes()?.to_vec();
    let proto = ctx.client.proto;
    let pairs = match read_hash(ctx, &key)? {
        Some(h) => h
            .iter()
            .map(|(f, v)| (Reply::bulk(f), Reply::bulk(v)))
            .collect(),
        None => Vec::new(),
    };
    Ok(map_reply(proto, pairs))
}

/// `HKEYS key`: every field name.
fn hkeys(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    let key = args.next_bytes()?.to_vec();
    let h = read_hash(ctx, &key)?;
    Ok(Reply::Array(
        h.map(|h| h.iter().map(|(f, _)| Reply::bulk(f)).collect())
            .unwrap_or_default(),
    ))
}

/// `HVALS key`: every value.
fn hvals(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    let key = args.next_bytes()?.to_vec();
    let h = read_hash(ctx, &key)?;
    Ok(Reply::Array(
        h.map(|h| h.iter().map(|(_, v)| Reply::bulk(v)).collect())
            .unwrap_or_default(),
    ))
}

// ---------------------------------------------------------------------------------------
// HRANDFIELD and HSCAN
// ---------------------------------------------------------------------------------------

/// `HRANDFIELD key [count [WITHVALUES]]`.
///
/// Without a count: one random field, nil if the key is missing. With a count ≥ 0: that
/// many distinct fields (all of them, in order, when the count reaches the size; otherwise
/// in listpack order for a small hash, random order for a big one). With a negative count:
/// `|count|` fields picked independently, so repeats are possible. WITHVALUES adds each
/// value (pairs as nested arrays in RESP3). The count must lie in ±(2^63 − 1), and within
/// ±2^62 with WITHVALUES (`ERR value is out of range`); arguments are checked before the
/// key. See [`MAX_RANDOM_REPLY`] for our one limit beyond Redis's.
fn hrandfield(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
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
        if !read_hash_again(ctx, &key)?.big {
            picked.sort_unstable();
        }
        picked
    };
    let h = read_hash_again(ctx, &key)?;
    let mut out = Vec::with_capacity(positions.len() * if with_values { 2 } else { 1 });
    for i in positions {
        let Some((f, v)) = h.get_index(i) else {
            continue;
        };
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
fn hscan(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
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
    let next = if h.big {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::cli::split_args;
    use crate::engine::{Engine, ManualClock};

    fn engine() -> (Engine, u64) {
        let mut e = Engine::new(Box::new(ManualClock::at_ms(1_704_067_200_000)), 3);
        let c = e.connect();
        (e, c)
    }

    fn run(e: &mut Engine, c: u64, line: &str) -> Reply {
        e.execute(c, split_args(line).expect("balanced quotes"))
    }

    fn hash<'e>(e: &'e Engine, key: &str) -> &'e HashValue {
        match e.server().dbs[0]
            .get_raw(key.as_bytes())
            .map(|en| &en.value)
        {
            Some(Value::Hash(h)) => h,
            other => panic!("{key} is {other:?}"),
        }
    }

    fn bulks(r: &Reply) -> Vec<Vec<u8>> {
        match r {
            Reply::Array(items) => items
                .iter()
                .map(|i| match i {
                    Reply::Bulk(b) => b.clone(),
                    other => panic!("not a bulk: {other:?}"),
                })
                .collect(),
            other => panic!("not an array: {other:?}"),
        }
    }

    /// `OBJECT ENCODING` after each step, as redis-server 7.0.15 answered.
    #[test]
    fn conversions_match_redis() {
        let (mut e, c) = engine();
        let v65 = "x".repeat(65);
        let f65 = "b".repeat(65);
        let steps: Vec<(Vec<String>, &str, &str)> = vec![
            (vec!["HSET h1 a 1".into()], "h1", "listpack"),
            (vec![format!("HSET h2 a {v65}")], "h2", "hashtable"),
            // HSETNX on an existing field looks at nothing, even a long value.
            (
                vec!["HSET h3 a 1".into(), format!("HSETNX h3 a {v65}")],
                "h3",
                "listpack",
            ),
            (vec![format!("HSETNX h3 {f65} x")], "h3", "hashtable"),
            (
                vec![
                    "HSET h4 a 1".into(),
                    format!("HINCRBYFLOAT h4 a {}", "1".repeat(70)),
                ],
                "h4",
                "hashtable",
            ),
            (
                vec!["HSET h5 a 1".into(), format!("HINCRBY h5 {f65} 1")],
                "h5",
                "hashtable",
            ),
            // Never back to listpack.
            (
                vec![
                    "HSET h6 a 1".into(),
                    format!("HSET h6 a {v65}"),
                    "HSET h6 a 1".into(),
                ],
                "h6",
                "hashtable",
            ),
            (
                vec![format!(
                    "HSET h7 {}",
                    (0..512)
                        .map(|i| format!("f{i} v"))
                        .collect::<Vec<_>>()
                        .join(" ")
                )],
                "h7",
                "listpack",
            ),
            (vec!["HSET h7 f512 v".into()], "h7", "hashtable"),
            // An arity error converts nothing.
            (
                vec!["HSET h9 a 1".into(), format!("HSET h9 a 1 {f65}")],
                "h9",
                "listpack",
            ),
        ];
        for (cmds, key, want) in steps {
            for cmd in &cmds {
                run(&mut e, c, cmd);
            }
            assert_eq!(hash(&e, key).encoding(), want, "{cmds:?}");
        }
    }

    #[test]
    fn limits_follow_the_configuration() {
        let (mut e, c) = engine();
        e.srv
            .config
            .values
            .insert("hash-max-listpack-entries".into(), "2".into());
        run(&mut e, c, "HSET h a 1 b 2");
        assert_eq!(hash(&e, "h").encoding(), "listpack");
        run(&mut e, c, "HSET h c 3");
        assert_eq!(hash(&e, "h").encoding(), "hashtable");
    }

    #[test]
    fn map_reply_is_flat_in_resp2() {
        let pairs = vec![(Reply::bulk(b"a"), Reply::Integer(1))];
        assert_eq!(
            map_reply(2, pairs.clone()),
            Reply::Array(vec![Reply::bulk(b"a"), Reply::Integer(1)])
        );
        assert_eq!(map_reply(3, pairs.clone()), Reply::Map(pairs));
        assert_eq!(map_reply(2, Vec::new()), Reply::Array(Vec::new()));
    }

    #[test]
    fn hrandfield_counts() {
        let (mut e, c) = engine();
        let fields: Vec<String> = (0..20).map(|i| format!("f{i}")).collect();
        let args: Vec<String> = fields.iter().map(|f| format!("{f} v{f}")).collect();
        run(&mut e, c, &format!("HSET h {}", args.join(" ")));
        for n in 1..20usize {
            // Distinct fields, in listpack order for a small hash.
            let got = bulks(&run(&mut e, c, &format!("HRANDFIELD h {n}")));
            assert_eq!(got.len(), n);
            let pos: Vec<usize> = got
                .iter()
                .map(|f| {
                    fields
                        .iter()
                        .position(|x| x.as_bytes() == f.as_slice())
                        .unwrap()
                })
                .collect();
            assert!(pos.windows(2).all(|w| w[0] < w[1]), "{pos:?}");
            // Repeats allowed, any order.
            let got = bulks(&run(&mut e, c, &format!("HRANDFIELD h -{n} WITHVALUES")));
            assert_eq!(got.len(), 2 * n);
            for pair in got.chunks(2) {
                assert_eq!(pair[1], [b"v".as_slice(), &pair[0]].concat());
            }
        }
        let all = bulks(&run(&mut e, c, "HRANDFIELD h -1000"));
        let distinct: HashSet<_> = all.iter().collect();
        assert_eq!(distinct.len(), 20, "1000 draws should hit every field");
        assert_eq!(
            run(
                &mut e,
                c,
                &format!("HRANDFIELD h -{}", MAX_RANDOM_REPLY + 1)
            ),
            Reply::Error("ERR value is out of range".into())
        );
        assert_eq!(
            run(
                &mut e,
                c,
                &format!("HRANDFIELD h -{} WITHVALUES", MAX_RANDOM_REPLY / 2 + 1)
            ),
            Reply::Error("ERR value is out of range".into())
        );
        // A big hash samples distinct positions too.
        e.srv
            .config
            .values
            .insert("hash-max-listpack-entries".into(), "4".into());
        run(&mut e, c, "HSET big a 1 b 2 c 3 d 4 e 5 f 6");
        for _ in 0..50 {
            let got = bulks(&run(&mut e, c, "HRANDFIELD big 5"));
            let distinct: HashSet<_> = got.iter().collect();
            assert_eq!(distinct.len(), 5);
        }
    }

    #[test]
    fn hscan_pages_through_a_big_hash_despite_deletes() {
        let (mut e, c) = engine();
        let args: Vec<String> = (0..1000).map(|i| format!("f{i} {i}")).collect();
        run(&mut e, c, &format!("HSET h {}", args.join(" ")));
        assert_eq!(hash(&e, "h").encoding(), "hashtable");
        let mut seen = HashSet::new();
        let mut cursor = "0".to_string();
        let mut round = 0;
        loop {
            let reply = run(&mut e, c, &format!("HSCAN h {cursor} COUNT 7"));
            let Reply::Array(parts) = reply else {
                panic!("{reply:?}")
            };
            let Reply::Bulk(next) = &parts[0] else {
                panic!()
            };
            let items = bulks(&parts[1]);
            assert!(items.len() <= 14);
            for pair in items.chunks(2) {
                seen.insert(pair[0].clone());
            }
            // Delete odd fields as we go; even ones must all be seen.
            run(&mut e, c, &format!("HDEL h f{}", 2 * round + 1));
            round += 1;
            cursor = String::from_utf8(next.clone()).unwrap();
            if cursor == "0" {
                break;
            }
        }
        for i in (0..1000).step_by(2) {
            assert!(seen.contains(format!("f{i}").as_bytes()), "missed f{i}");
        }
        let page = run(&mut e, c, "HSCAN h 0 MATCH f99* COUNT 100000");
        let Reply::Array(parts) = page else { panic!() };
        assert_eq!(parts[0], Reply::bulk(b"0"));
        // f990..f999 remain (f99 itself was deleted as an odd field during the scan).
        assert_eq!(bulks(&parts[1]).len(), 2 * 10);
    }

    /// Random commands of both groups with awkward arguments: no panic, and the invariants
    /// hold (no empty hash is stored, no string exceeds the limit).
    #[test]
    fn random_commands_never_panic() {
        const TOKENS: &[&str] = &[
            "a",
            "b",
            "h",
            "s",
            "f",
            "g",
            "0",
            "1",
            "-1",
            "2",
            "-3",
            "10",
            "1.5",
            "-0",
            "9223372036854775807",
            "-9223372036854775808",
            "4611686018427387904",
            "1e300",
            "inf",
            "nan",
            "",
            " 1",
            "\\x00",
            "\\xff",
            "EX",
            "PX",
            "EXAT",
            "PXAT",
            "KEEPTTL",
            "PERSIST",
            "NX",
            "XX",
            "GET",
            "IDX",
            "LEN",
            "MINMATCHLEN",
            "WITHMATCHLEN",
            "WITHVALUES",
            "MATCH",
            "COUNT",
            "*",
            "f*",
            "536870911",
            "0x10",
            "1e4932",
        ];
        let mut names: Vec<&str> = super::COMMANDS.iter().map(|c| c.name).collect();
        names.extend(crate::engine::cmd::string::COMMANDS.iter().map(|c| c.name));
        let mut rng = fastrand::Rng::with_seed(11);
        let (mut e, c) = engine();
        for _ in 0..20_000 {
            let name = names[rng.usize(0..names.len())];
            let n = rng.usize(0..7);
            let args: Vec<String> = (0..n)
                .map(|_| format!("\"{}\"", TOKENS[rng.usize(0..TOKENS.len())]))
                .collect();
            let line = format!("{name} {}", args.join(" "));
            run(&mut e, c, &line);
            for (k, en) in e.server().dbs[0].iter() {
                match &en.value {
                    Value::Hash(h) => assert!(!h.is_empty(), "{line}: empty hash {k:?}"),
                    Value::Str(s) => assert!(s.len() <= 536_870_912, "{line}"),
                    _ => {}
                }
            }
            if rng.usize(0..50) == 0 {
                e.srv.dbs[0].clear();
            }
        }
    }
}
