//! The generic (keyspace) group — DEL, EXISTS, the EXPIRE family, TTL, KEYS, SCAN, RENAME,
//! COPY, MOVE, OBJECT, … — and the database commands SWAPDB, DBSIZE, FLUSHDB and FLUSHALL.
//!
//! These commands never look inside a value: they move, copy, time out and describe whole
//! [`Value`]s, so a new data type works with all of them as soon as it has a `Value`
//! variant with a type name and an encoding.
//!
//! # Lookups
//! Redis reads keys in three ways, and each command here uses the one Redis uses, because
//! the difference shows in `OBJECT IDLETIME` and in the `INFO` hit/miss counters:
//! * a *read* ([`Ctx::lookup_read`]: TOUCH, COPY's source) expires the key lazily, counts a
//!   hit or miss and refreshes the access time;
//! * a *no-touch read* ([`Ctx::lookup_read_notouch`]: EXISTS, TTL, TYPE, OBJECT, SCAN's
//!   TYPE filter) does the same without refreshing the access time;
//! * a *write lookup* ([`Ctx::lookup_write`]: EXPIRE, PERSIST, RENAME, MOVE) refreshes the
//!   access time but counts nothing.
//!
//! KEYS alone only *filters* expired keys without removing them, as Redis's `keysCommand`
//! does; every other command removes an expired key it meets, which records a `DEL` effect.
//!
//! # Effects
//! The EXPIRE family replays as `PEXPIREAT key <absolute ms>` (the condition flags are
//! dropped: they held when the command ran, so the effect applies unconditionally), or as
//! `DEL key` when the deadline is already past. A command that changed nothing records
//! nothing. FLUSHDB and FLUSHALL are always recorded, even on empty databases, as Redis
//! forces their propagation. Everything else replays as itself in the client's database.
//!
//! # WATCH and keyspace events
//! Changes are signalled to `WATCH` as Redis's `signalModifiedKey` calls do: by the engine
//! from the key positions for most commands, explicitly where the keys are elsewhere
//! (MOVE's and COPY's target database; COPY's source is not touched) or are whole
//! databases (FLUSHDB, FLUSHALL, SWAPDB: [`Ctx::signal_flushed`], [`Ctx::signal_swapped`]).
//! Keyspace events carry Redis's names: `del`, `expire`, `persist`, `rename_from` and
//! `rename_to`, `move_from` and `move_to`, `copy_to`, and `new` for a created key.

use crate::engine::args::{eq_kw, parse_i64, Args};
use crate::engine::error::{c_str, CmdResult, Error};
use crate::engine::keyspace::Entry;
use crate::engine::pubsub::class;
use crate::engine::scan::{parse_cursor, parse_opts};
use crate::engine::table::{Command, Flags, Group, KeySpec};
use crate::engine::types::Value;
use crate::engine::{glob, Ctx, Reply, NUM_DBS};

const RW_FAST: Flags = Flags::WRITE.union(Flags::FAST);
const RO_FAST: Flags = Flags::READONLY.union(Flags::FAST);

/// The generic and database commands.
pub const COMMANDS: &[Command] = &[
    Command::new("copy", -3, Group::Generic, copy)
        .key_specs(&[KeySpec::index(1, "RO access"), KeySpec::index(2, "OW update")])
        .flags(Flags::WRITE.union(Flags::DENYOOM))
        .doc(
            "source destination [DB destination-db] [REPLACE]",
            "Copies the value (and deadline) of a key to another key, possibly in another database.",
            "O(N) worst case for collections, where N is the number of nested items. O(1) for string values.",
            "6.2.0",
        ),
    Command::new("del", -2, Group::Generic, del)
        .key_specs(&[KeySpec::index(1, "RM delete").range(-1, 1, 0)])
        .tips(&["request_policy:multi_shard", "response_policy:agg_sum"])
        .flags(Flags::WRITE)
        .doc(
            "key [key ...]",
            "Deletes keys and replies with how many existed.",
            "O(N) where N is the number of keys that will be removed. When a key to remove holds a value other than a string, the individual complexity for this key is O(M) where M is the number of elements in the list, set, sorted set or hash. Removing a single key that holds a string value is O(1).",
            "1.0.0",
        ),
    Command::new("exists", -2, Group::Generic, exists)
        .key_specs(&[KeySpec::index(1, "RO").range(-1, 1, 0)])
        .tips(&["request_policy:multi_shard", "response_policy:agg_sum"])
        .flags(RO_FAST)
        .doc(
            "key [key ...]",
            "Counts how many of the given keys exist; a key named twice counts twice.",
            "O(N) where N is the number of keys to check.",
            "1.0.0",
        ),
    Command::new("expire", -3, Group::Generic, expire)
        .key_specs(&[KeySpec::index(1, "RW update")])
        .flags(RW_FAST)
        .doc(
            "key seconds [NX | XX | GT | LT]",
            "Gives a key a time to live in seconds, optionally only under a condition.",
            "O(1)",
            "1.0.0",
        ),
    Command::new("expireat", -3, Group::Generic, expireat)
        .key_specs(&[KeySpec::index(1, "RW update")])
        .flags(RW_FAST)
        .doc(
            "key unix-time-seconds [NX | XX | GT | LT]",
            "Makes a key expire at a Unix time in seconds, optionally only under a condition.",
            "O(1)",
            "1.2.0",
        ),
    Command::new("expiretime", 2, Group::Generic, expiretime)
        .key_specs(&[KeySpec::index(1, "RO access")])
        .flags(RO_FAST)
        .doc(
            "key",
            "Replies with the Unix time in seconds at which a key expires (-1 none, -2 no key).",
            "O(1)",
            "7.0.0",
        ),
    Command::new("keys", 2, Group::Generic, keys)
        .acl(&["dangerous"])
        .tips(&["request_policy:all_shards", "nondeterministic_output_order"])
        .flags(Flags::READONLY)
        .doc(
            "pattern",
            "Lists every key matching a glob pattern, in one blocking pass.",
            "O(N) with N being the number of keys in the database, under the assumption that the key names in the database and the given pattern have limited length.",
            "1.0.0",
        ),
    Command::new("move", 3, Group::Generic, move_)
        .key_specs(&[KeySpec::index(1, "RW access update")])
        .flags(RW_FAST)
        .doc(
            "key db",
            "Moves a key to another database, unless a key of that name is already there.",
            "O(1)",
            "1.0.0",
        ),
    Command::container("object", Group::Generic, OBJECT_SUBCOMMANDS).doc(
        "subcommand [arguments]",
        "Inspects how a key's value is stored.",
        "Depends on subcommand.",
        "2.2.3",
    ),
    Command::new("persist", 2, Group::Generic, persist)
        .key_specs(&[KeySpec::index(1, "RW update")])
        .flags(RW_FAST)
        .doc(
            "key",
            "Removes a key's deadline, making it persistent.",
            "O(1)",
            "2.2.0",
        ),
    Command::new("pexpire", -3, Group::Generic, pexpire)
        .key_specs(&[KeySpec::index(1, "RW update")])
        .flags(RW_FAST)
        .doc(
            "key milliseconds [NX | XX | GT | LT]",
            "Gives a key a time to live in milliseconds, optionally only under a condition.",
            "O(1)",
            "2.6.0",
        ),
    Command::new("pexpireat", -3, Group::Generic, pexpireat)
        .key_specs(&[KeySpec::index(1, "RW update")])
        .flags(RW_FAST)
        .doc(
            "key unix-time-milliseconds [NX | XX | GT | LT]",
            "Makes a key expire at a Unix time in milliseconds, optionally only under a condition.",
            "O(1)",
            "2.6.0",
        ),
    Command::new("pexpiretime", 2, Group::Generic, pexpiretime)
        .key_specs(&[KeySpec::index(1, "RO access")])
        .flags(RO_FAST)
        .doc(
            "key",
            "Replies with the Unix time in milliseconds at which a key expires (-1 none, -2 no key).",
            "O(1)",
            "7.0.0",
        ),
    Command::new("pttl", 2, Group::Generic, pttl)
        .key_specs(&[KeySpec::index(1, "RO access")])
        .tips(&["nondeterministic_output"])
        .flags(RO_FAST)
        .doc(
            "key",
            "Replies with a key's remaining time to live in milliseconds (-1 none, -2 no key).",
            "O(1)",
            "2.6.0",
        ),
    Command::new("randomkey", 1, Group::Generic, randomkey)
        .tips(&["request_policy:all_shards", "nondeterministic_output"])
        .flags(Flags::READONLY)
        .doc(
            "",
            "Replies with a key chosen uniformly at random, or nil for an empty database.",
            "O(1)",
            "1.0.0",
        ),
    Command::new("rename", 3, Group::Generic, rename)
        .key_specs(&[KeySpec::index(1, "RW access delete"), KeySpec::index(2, "OW update")])
        .flags(Flags::WRITE)
        .doc(
            "key newkey",
            "Renames a key, keeping its deadline and replacing any key of the new name.",
            "O(1)",
            "1.0.0",
        ),
    Command::new("renamenx", 3, Group::Generic, renamenx)
        .key_specs(&[KeySpec::index(1, "RW access delete"), KeySpec::index(2, "OW insert")])
        .flags(RW_FAST)
        .doc(
            "key newkey",
            "Renames a key only if the new name is free.",
            "O(1)",
            "1.0.0",
        ),
    Command::new("scan", -2, Group::Generic, scan)
        .tips(&["nondeterministic_output", "request_policy:special"])
        .flags(Flags::READONLY)
        .doc(
            "cursor [MATCH pattern] [COUNT count] [TYPE type]",
            "Iterates over the keys a few at a time with a cursor; every key present throughout is returned.",
            "O(1) for every call. O(N) for a complete iteration, including enough command calls for the cursor to return back to 0. N is the number of elements inside the collection.",
            "2.8.0",
        ),
    Command::new("touch", -2, Group::Generic, touch)
        .key_specs(&[KeySpec::index(1, "RO").range(-1, 1, 0)])
        .tips(&["request_policy:multi_shard", "response_policy:agg_sum"])
        .flags(RO_FAST)
        .doc(
            "key [key ...]",
            "Refreshes the access time of keys and counts how many exist.",
            "O(N) where N is the number of keys that will be touched.",
            "3.2.1",
        ),
    Command::new("ttl", 2, Group::Generic, ttl)
        .key_specs(&[KeySpec::index(1, "RO access")])
        .tips(&["nondeterministic_output"])
        .flags(RO_FAST)
        .doc(
            "key",
            "Replies with a key's remaining time to live in seconds (-1 none, -2 no key).",
            "O(1)",
            "1.0.0",
        ),
    Command::new("type", 2, Group::Generic, type_)
        .key_specs(&[KeySpec::index(1, "RO")])
        .flags(RO_FAST)
        .doc(
            "key",
            "Names the type of the value at a key, or none.",
            "O(1)",
            "1.0.0",
        ),
    Command::new("unlink", -2, Group::Generic, unlink)
        .key_specs(&[KeySpec::index(1, "RM delete").range(-1, 1, 0)])
        .tips(&["request_policy:multi_shard", "response_policy:agg_sum"])
        .flags(RW_FAST)
        .doc(
            "key [key ...]",
            "Deletes keys like DEL (Redis frees big values in the background).",
            "O(1) for each key removed regardless of its size. Then the command does O(N) work in a different thread in order to reclaim memory, where N is the number of allocations the deleted objects where composed of.",
            "4.0.0",
        ),
    Command::new("swapdb", 3, Group::Server, swapdb)
        .acl(&["keyspace", "dangerous"])
        .flags(RW_FAST)
        .doc(
            "index1 index2",
            "Exchanges the contents of two databases; clients stay on their index.",
            "O(N) where N is the count of clients watching or blocking on keys from both databases.",
            "4.0.0",
        ),
    Command::new("dbsize", 1, Group::Server, dbsize)
        .acl(&["keyspace"])
        .tips(&["request_policy:all_shards", "response_policy:agg_sum"])
        .flags(RO_FAST)
        .doc(
            "",
            "Counts the keys in the selected database (expired keys not yet removed included).",
            "O(1)",
            "1.0.0",
        ),
    Command::new("flushdb", -1, Group::Server, flushdb)
        .acl(&["keyspace", "dangerous"])
        .tips(&["request_policy:all_shards", "response_policy:all_succeeded"])
        .flags(Flags::WRITE)
        .doc(
            "[ASYNC | SYNC]",
            "Deletes every key of the selected database.",
            "O(N) where N is the number of keys in the selected database",
            "1.0.0",
        ),
    Command::new("flushall", -1, Group::Server, flushall)
        .acl(&["keyspace", "dangerous"])
        .tips(&["request_policy:all_shards", "response_policy:all_succeeded"])
        .flags(Flags::WRITE)
        .doc(
            "[ASYNC | SYNC]",
            "Deletes every key of every database.",
            "O(N) where N is the total number of keys in all databases",
            "1.0.0",
        ),
];

/// `OBJECT` subcommands.
const OBJECT_SUBCOMMANDS: &[Command] = &[
    Command::new("encoding", 3, Group::Generic, object_encoding)
        .key_specs(&[KeySpec::index(2, "RO")])
        .tips(&["nondeterministic_output"])
        .flags(Flags::READONLY)
        .doc(
            "key",
            "Names the internal representation of the value at a key.",
            "O(1)",
            "2.2.3",
        ),
    Command::new("freq", 3, Group::Generic, object_freq)
        .key_specs(&[KeySpec::index(2, "RO")])
        .tips(&["nondeterministic_output"])
        .flags(Flags::READONLY)
        .doc(
            "key",
            "Replies with the logarithmic access frequency counter of a key (LFU policies only).",
            "O(1)",
            "4.0.0",
        ),
    Command::new("help", 2, Group::Generic, object_help)
        .flags(Flags::LOADING.union(Flags::STALE))
        .doc("", "Lists the OBJECT subcommands.", "O(1)", "6.2.0"),
    Command::new("idletime", 3, Group::Generic, object_idletime)
        .key_specs(&[KeySpec::index(2, "RO")])
        .tips(&["nondeterministic_output"])
        .flags(Flags::READONLY)
        .doc(
            "key",
            "Replies with the seconds since a key was last read or written.",
            "O(1)",
            "2.2.3",
        ),
    Command::new("refcount", 3, Group::Generic, object_refcount)
        .key_specs(&[KeySpec::index(2, "RO")])
        .tips(&["nondeterministic_output"])
        .flags(Flags::READONLY)
        .doc(
            "key",
            "Replies with the reference count of the value at a key.",
            "O(1)",
            "2.2.3",
        ),
];

/// The argument at index `i` of the full argument vector. Arity is checked before a
/// handler runs, so this only fails if a table row is wrong; it fails softly.
fn arg(args: &Args, i: usize) -> CmdResult<&[u8]> {
    args.argv().get(i).map(Vec::as_slice).ok_or(Error::Syntax)
}

/// Parses a C `int` as Redis's `getIntFromObjectOrReply` does: not an integer →
/// `ERR value is not an integer or out of range`; outside `int` → `ERR value is out of
/// range, value must between -2147483648 and 2147483647`.
fn parse_int(a: &[u8]) -> CmdResult<i64> {
    let v = parse_i64(a).ok_or(Error::NotInteger)?;
    if v < i64::from(i32::MIN) || v > i64::from(i32::MAX) {
        return Err(Error::OutOfRangeBetween(
            i64::from(i32::MIN),
            i64::from(i32::MAX),
        ));
    }
    Ok(v)
}

/// A database index that `SELECT` would accept, else `ERR DB index is out of range`.
fn db_index(v: i64) -> CmdResult<usize> {
    usize::try_from(v)
        .ok()
        .filter(|&i| i < NUM_DBS)
        .ok_or(Error::DbIndexOutOfRange)
}

// ---------------------------------------------------------------------------------------
// Existence and deletion
// ---------------------------------------------------------------------------------------

/// `DEL key [key ...]`: removes the keys (an expired key counts as absent) and replies with
/// the number removed. Replays as itself when it removed anything. O(N) in keys, plus the
/// size of each removed value.
fn del(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
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
fn unlink(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    del(ctx, args)
}

/// `EXISTS key [key ...]`: how many of the keys exist; a key named twice counts twice.
/// Does not refresh access times. O(N).
fn exists(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
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
fn touch(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
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
fn type_(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    let key = args.next_bytes()?;
    let name = ctx
        .lookup_read_notouch(key)
        .map_or("none", |e| e.value.type_name());
    Ok(Reply::status(name))
}

// ---------------------------------------------------------------------------------------
// Expiry
// ---------------------------------------------------------------------------------------

/// The unit of an EXPIRE-family argument.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Unit {
    Seconds,
    Millis,
}

/// Whether an EXPIRE-family argument is relative to now or an absolute Unix time.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Base {
    Now,
    Epoch,
}

/// The condition of `EXPIRE … [NX | XX | GT | LT]`.
#[derive(Clone, Copy, Default)]
struct ExpireCond {
    /// Only if the key has no deadline.
    nx: bool,
    /// Only if the key has a deadline.
    xx: bool,
    /// Only if the new deadline is later (no deadline counts as infinitely late).
    gt: bool,
    /// Only if the new deadline is earlier (no deadline counts as infinitely late).
    lt: bool,
}

impl ExpireCond {
    /// Parses the options after the time, as Redis's `parseExtendedExpireArgumentsOrReply`:
    /// any repetition is allowed, NX excludes the others, GT excludes LT.
    fn parse(options: &[Vec<u8>]) -> CmdResult<ExpireCond> {
        let mut c = ExpireCond::default();
        for opt in options {
            if eq_kw(opt, "nx") {
                c.nx = true;
            } else if eq_kw(opt, "xx") {
                c.xx = true;
            } else if eq_kw(opt, "gt") {
                c.gt = true;
            } else if eq_kw(opt, "lt") {
                c.lt = true;
            } else {
                return Err(Error::Err(format!("Unsupported option {}", c_str(opt))));
            }
        }
        if c.nx && (c.xx || c.gt || c.lt) {
            return Err(Error::Err(
                "NX and XX, GT or LT options at the same time are not compatible".into(),
            ));
        }
        if c.gt && c.lt {
            return Err(Error::Err(
                "GT and LT options at the same time are not compatible".into(),
            ));
        }
        Ok(c)
    }

    /// True if setting deadline `when` is allowed given the current one.
    fn allows(self, current: Option<i64>, when: i64) -> bool {
        if self.nx && current.is_some() {
            return false;
        }
        if self.xx && current.is_none() {
            return false;
        }
        if self.gt && current.is_none_or(|cur| when <= cur) {
            return false;
        }
        if self.lt && current.is_some_and(|cur| when >= cur) {
            return false;
        }
        true
    }
}

/// The shared body of EXPIRE, PEXPIRE, EXPIREAT and PEXPIREAT (Redis's
/// `expireGenericCommand`).
///
/// Order of checks, as in Redis: the options (`ERR Unsupported option …`, the two
/// incompatibility errors), then the number (`ERR value is not an integer or out of
/// range`), then overflow of the unit conversion or of adding the current time (`ERR
/// invalid expire time in '<name>' command`), then the key (missing → 0), then the
/// condition (not met → 0). A deadline at or before now deletes the key and replies 1
/// (effect `DEL key`); otherwise the deadline is set and the reply is 1 (effect `PEXPIREAT
/// key <ms>`). O(1).
fn expire_generic(ctx: &mut Ctx<'_>, args: &Args, name: &str, base: Base, unit: Unit) -> CmdResult {
    let key = arg(args, 1)?;
    let cond = ExpireCond::parse(args.argv().get(3..).unwrap_or_default())?;
    let mut when = parse_i64(arg(args, 2)?).ok_or(Error::NotInteger)?;
    let invalid = || Error::InvalidExpireTime(name.to_string());
    if unit == Unit::Seconds {
        when = when.checked_mul(1000).ok_or_else(invalid)?;
    }
    if base == Base::Now {
        when = when.checked_add(ctx.now_ms).ok_or_else(invalid)?;
    }
    let Some(entry) = ctx.lookup_write(key) else {
        return Ok(Reply::Integer(0));
    };
    if !cond.allows(entry.expire_at, when) {
        return Ok(Reply::Integer(0));
    }
    if when <= ctx.now_ms {
        ctx.delete(key);
        ctx.notify(class::GENERIC, "del", key);
        ctx.propagate(vec![b"DEL".to_vec(), key.to_vec()]);
    } else {
        ctx.set_expire(key, Some(when));
        ctx.notify(class::GENERIC, "expire", key);
        ctx.dirty += 1;
        ctx.propagate(vec![
            b"PEXPIREAT".to_vec(),
            key.to_vec(),
            when.to_string().into_bytes(),
        ]);
    }
    Ok(Reply::Integer(1))
}

/// `EXPIRE key seconds [NX | XX | GT | LT]`: sets a time to live in seconds; see
/// [`expire_generic`]. Negative or zero times delete the key.
fn expire(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    expire_generic(ctx, args, "expire", Base::Now, Unit::Seconds)
}

/// `PEXPIRE key milliseconds [NX | XX | GT | LT]`: sets a time to live in milliseconds;
/// see [`expire_generic`].
fn pexpire(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    expire_generic(ctx, args, "pexpire", Base::Now, Unit::Millis)
}

/// `EXPIREAT key unix-time-seconds [NX | XX | GT | LT]`: sets an absolute deadline in
/// seconds; see [`expire_generic`]. A time in the past deletes the key.
fn expireat(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    expire_generic(ctx, args, "expireat", Base::Epoch, Unit::Seconds)
}

/// `PEXPIREAT key unix-time-milliseconds [NX | XX | GT | LT]`: sets an absolute deadline
/// in milliseconds; see [`expire_generic`].
fn pexpireat(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    expire_generic(ctx, args, "pexpireat", Base::Epoch, Unit::Millis)
}

/// The shared body of TTL, PTTL, EXPIRETIME and PEXPIRETIME (Redis's `ttlGenericCommand`):
/// -2 if the key does not exist, -1 if it has no deadline, else the remaining time
/// (`relative`) or the deadline, never below 0. Seconds are rounded to the nearest
/// (`(ms + 500) / 1000`). Does not refresh the access time. O(1).
fn ttl_generic(ctx: &mut Ctx<'_>, args: &mut Args, unit: Unit, relative: bool) -> CmdResult {
    let key = args.next_bytes()?;
    let now = ctx.now_ms;
    let Some(entry) = ctx.lookup_read_notouch(key) else {
        return Ok(Reply::Integer(-2));
    };
    let Some(at) = entry.expire_at else {
        return Ok(Reply::Integer(-1));
    };
    let ms = if relative { at.saturating_sub(now) } else { at }.max(0);
    Ok(Reply::Integer(match unit {
        Unit::Millis => ms,
        // Widened so that a deadline near i64::MAX rounds instead of overflowing.
        Unit::Seconds => ((i128::from(ms) + 500) / 1000) as i64,
    }))
}

/// `TTL key`: remaining time to live in seconds, -1 without deadline, -2 without key.
fn ttl(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    ttl_generic(ctx, args, Unit::Seconds, true)
}

/// `PTTL key`: remaining time to live in milliseconds, -1 without deadline, -2 without key.
fn pttl(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    ttl_generic(ctx, args, Unit::Millis, true)
}

/// `EXPIRETIME key`: the deadline as a Unix time in seconds, -1 / -2 as TTL.
fn expiretime(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    ttl_generic(ctx, args, Unit::Seconds, false)
}

/// `PEXPIRETIME key`: the deadline as a Unix time in milliseconds, -1 / -2 as TTL.
fn pexpiretime(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    ttl_generic(ctx, args, Unit::Millis, false)
}

/// `PERSIST key`: removes the deadline; 1 if there was one, 0 if none or no key. O(1).
fn persist(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    let key = args.next_bytes()?;
    let had_deadline = ctx.lookup_write(key).is_some_and(|e| e.expire_at.is_some());
    if !had_deadline {
        return Ok(Reply::Integer(0));
    }
    ctx.set_expire(key, None);
    ctx.notify(class::GENERIC, "persist", key);
    ctx.dirty += 1;
    Ok(Reply::Integer(1))
}

// ---------------------------------------------------------------------------------------
// Enumeration
// ---------------------------------------------------------------------------------------

/// `KEYS pattern`: every key matching the glob, in storage order. Expired keys are left
/// out but not removed (as Redis). A pattern of exactly `*` takes every key, the empty
/// name included. O(N) in the number of keys.
fn keys(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    let pattern = args.next_bytes()?;
    let all = pattern == b"*";
    let now = ctx.now_ms;
    let found = ctx
        .db()
        .iter()
        .filter(|(k, e)| (all || glob::matches(pattern, k, false)) && !e.is_expired_at(now))
        .map(|(k, _)| Reply::bulk(k))
        .collect();
    Ok(Reply::Array(found))
}

/// `SCAN cursor [MATCH pattern] [COUNT count] [TYPE type]`: one step of a cursor walk over
/// the keys (see [`crate::engine::keyspace`] for the guarantee: every key present for the
/// whole walk is returned at least once). `COUNT` (default 10) is the number of positions
/// examined. The examined keys are then filtered as Redis does, in its order: by pattern,
/// by type (a no-touch lookup, which removes an expired key, so an expired key shows as
/// type `none`), and finally expired keys are removed and left out. Replies with the next
/// cursor (0 when done) and the keys. O(COUNT) per call.
fn scan(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    let cursor = parse_cursor(args.next_bytes()?)?;
    let opts = parse_opts(args, true)?;
    let mut candidates = Vec::new();
    let next = ctx.db().scan(cursor, opts.count, |k, _| {
        candidates.push(k.clone());
    });
    let pattern = opts.pattern.as_deref().filter(|p| *p != b"*");
    let mut found = Vec::new();
    for key in candidates {
        if pattern.is_some_and(|p| !glob::matches(p, &key, false)) {
            continue;
        }
        if let Some(want) = &opts.type_filter {
            let ty = ctx
                .lookup_read_notouch(&key)
                .map_or("none", |e| e.value.type_name());
            if !ty.eq_ignore_ascii_case(want) {
                continue;
            }
        }
        if ctx.expired_for_read(&key) {
            continue;
        }
        found.push(Reply::Bulk(key));
    }
    Ok(Reply::Array(vec![
        Reply::Bulk(next.to_string().into_bytes()),
        Reply::Array(found),
    ]))
}

/// `RANDOMKEY`: a key chosen uniformly at random, or nil when the database is empty. A
/// chosen key that has expired is removed and another is drawn, so the reply is never an
/// expired key. O(1) expected (each retry removes a key).
fn randomkey(ctx: &mut Ctx<'_>, _args: &mut Args) -> CmdResult {
    loop {
        let len = ctx.db().len();
        if len == 0 {
            return Ok(Reply::Nil);
        }
        let i = ctx.random_below(len);
        let Some(key) = ctx.db().key_at(i).map(|(k, _)| k.clone()) else {
            return Ok(Reply::Nil);
        };
        if !ctx.expire_if_needed(&key) {
            return Ok(Reply::Bulk(key));
        }
    }
}

/// `DBSIZE`: the number of keys in the selected database, counting expired keys that have
/// not been removed yet (as Redis). O(1).
fn dbsize(ctx: &mut Ctx<'_>, _args: &mut Args) -> CmdResult {
    Ok(Reply::Integer(ctx.db().len() as i64))
}

// ---------------------------------------------------------------------------------------
// Renaming, copying, moving
// ---------------------------------------------------------------------------------------

/// The shared body of RENAME and RENAMENX (Redis's `renameGenericCommand`): `ERR no such
/// key` if the source is missing; renaming a key to itself changes nothing (OK, or 0 for
/// RENAMENX); an existing destination is replaced (RENAME) or makes RENAMENX reply 0. The
/// value keeps its deadline. O(1), plus freeing a replaced value.
fn rename_generic(ctx: &mut Ctx<'_>, args: &Args, nx: bool) -> CmdResult {
    let (src, dst) = (arg(args, 1)?, arg(args, 2)?);
    if ctx.lookup_write(src).is_none() {
        return Err(Error::NoSuchKey);
    }
    let done = |moved: bool| {
        Ok(if nx {
            Reply::Integer(i64::from(moved))
        } else {
            Reply::ok()
        })
    };
    if src == dst {
        return done(false);
    }
    if ctx.lookup_write(dst).is_some() {
        if nx {
            return done(false);
        }
        ctx.db().remove(dst);
    }
    let db = ctx.db();
    if let Some(entry) = db.remove(src) {
        db.insert_entry(dst.to_vec(), entry);
    }
    ctx.signal_modified(src);
    ctx.signal_modified(dst);
    ctx.notify(class::NEW, "new", dst);
    ctx.notify(class::GENERIC, "rename_from", src);
    ctx.notify(class::GENERIC, "rename_to", dst);
    ctx.dirty += 1;
    done(true)
}

/// `RENAME key newkey`: see [`rename_generic`].
fn rename(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    rename_generic(ctx, args, false)
}

/// `RENAMENX key newkey`: see [`rename_generic`]; 1 if renamed, 0 if `newkey` exists.
fn renamenx(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    rename_generic(ctx, args, true)
}

/// `MOVE key db`: moves a key with its deadline to database `db`. Errors, in Redis's order:
/// a bad index (`ERR value is not an integer or out of range`, or the C-int range error),
/// an index beyond the databases (`ERR DB index is out of range`), the same database
/// (`ERR source and destination objects are the same`). Replies 0 if the key is missing or
/// already present in the target, else 1. Replays as itself in the source database. O(1).
fn move_(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    if ctx.srv.config.cluster_enabled() {
        return Err(Error::NotInCluster("MOVE"));
    }
    let key = arg(args, 1)?;
    let dst = db_index(parse_int(arg(args, 2)?)?)?;
    let src = ctx.client.db;
    if dst == src {
        return Err(Error::SameObject);
    }
    if ctx.lookup_write(key).is_none() {
        return Ok(Reply::Integer(0));
    }
    ctx.expire_if_needed_in(dst, key);
    if ctx.srv.dbs[dst].get_raw(key).is_some() {
        return Ok(Reply::Integer(0));
    }
    if let Some(entry) = ctx.db().remove(key) {
        ctx.srv.dbs[dst].insert_entry(key.to_vec(), entry);
    }
    ctx.notify_in(dst, class::NEW, "new", key);
    ctx.signal_modified(key);
    ctx.signal_modified_in(dst, key);
    ctx.notify(class::GENERIC, "move_from", key);
    ctx.notify_in(dst, class::GENERIC, "move_to", key);
    ctx.dirty += 1;
    Ok(Reply::Integer(1))
}

/// `COPY source destination [DB destination-db] [REPLACE]`: copies the value and its
/// deadline to `destination` (in `destination-db`, by default the selected one). Errors, in
/// Redis's order: options (`ERR syntax error`, the index errors of MOVE), then copying a key
/// onto itself in the same database (`ERR source and destination objects are the same`).
/// Replies 0 if the source is missing or the destination exists without REPLACE, else 1.
/// The copy is a new value: its access time is now. O(N) in the size of the value.
fn copy(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    let (src_key, dst_key) = (arg(args, 1)?, arg(args, 2)?);
    let src = ctx.client.db;
    let mut dst = src;
    let mut replace = false;
    let options = args.argv().get(3..).unwrap_or_default();
    let mut i = 0;
    while let Some(opt) = options.get(i) {
        if eq_kw(opt, "replace") {
            replace = true;
        } else if eq_kw(opt, "db") && i + 1 < options.len() {
            i += 1;
            dst = db_index(parse_int(&options[i])?)?;
        } else {
            return Err(Error::Syntax);
        }
        i += 1;
    }
    if ctx.srv.config.cluster_enabled() && (src != 0 || dst != 0) {
        return Err(Error::Err(
            "Copying to another database is not allowed in cluster mode".into(),
        ));
    }
    if src == dst && src_key == dst_key {
        return Err(Error::SameObject);
    }
    let Some(value) = ctx.lookup_read(src_key).cloned() else {
        return Ok(Reply::Integer(0));
    };
    let expire_at = ctx.db().get_raw(src_key).and_then(|e| e.expire_at);
    ctx.expire_if_needed_in(dst, dst_key);
    if ctx.srv.dbs[dst].get_raw(dst_key).is_some() {
        if !replace {
            return Ok(Reply::Integer(0));
        }
        ctx.srv.dbs[dst].remove(dst_key);
    }
    let entry = Entry::new(value, expire_at, ctx.now_ms);
    ctx.srv.dbs[dst].insert_entry(dst_key.to_vec(), entry);
    ctx.notify_in(dst, class::NEW, "new", dst_key);
    ctx.signal_modified_in(dst, dst_key);
    ctx.notify_in(dst, class::GENERIC, "copy_to", dst_key);
    ctx.dirty += 1;
    Ok(Reply::Integer(1))
}

// ---------------------------------------------------------------------------------------
// Databases
// ---------------------------------------------------------------------------------------

/// `SWAPDB index1 index2`: exchanges the contents (keys, deadlines) of two databases.
/// Connections keep their selected index, so they now see the other data. A bad index is
/// `ERR invalid first DB index` / `ERR invalid second DB index`; one beyond the databases is
/// `ERR DB index is out of range`. Swapping a database with itself is a successful no-op
/// that Redis still counts as a change. O(1).
fn swapdb(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
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
fn flushdb(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
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
fn flushall(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    parse_flush_mode(args)?;
    ctx.signal_flushed(None);
    for db in ctx.srv.dbs.iter_mut() {
        ctx.dirty += db.len() as u64;
        db.clear();
    }
    ctx.propagate(args.argv().to_vec());
    Ok(Reply::ok())
}

// ---------------------------------------------------------------------------------------
// OBJECT
// ---------------------------------------------------------------------------------------

/// The configured `maxmemory-policy` (Redis's default when unset).
fn maxmemory_policy<'a>(ctx: &'a Ctx<'_>) -> &'a str {
    ctx.srv
        .config
        .values
        .get("maxmemory-policy")
        .map_or("noeviction", String::as_str)
}

/// True under `allkeys-lfu` or `volatile-lfu`.
fn lfu_policy(ctx: &Ctx<'_>) -> bool {
    maxmemory_policy(ctx).to_ascii_lowercase().ends_with("-lfu")
}

/// `OBJECT ENCODING key`: the representation Redis 7.0 would use for the value (`int`,
/// `embstr`, `raw`, `listpack`, `hashtable`, `quicklist`, `intset`, `skiplist`, …), or
/// nil. O(1).
fn object_encoding(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    let key = args.next_bytes()?;
    Ok(match ctx.lookup_read_notouch(key) {
        Some(e) => Reply::bulk(e.value.encoding().as_bytes()),
        None => Reply::Nil,
    })
}

/// `OBJECT IDLETIME key`: whole seconds since the key was last read or written, on Redis's
/// one-second LRU clock (both instants truncated to the second), or nil. Under an LFU
/// policy Redis tracks frequency instead and replies with an error. O(1).
fn object_idletime(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    let key = args.next_bytes()?;
    let now = ctx.now_ms;
    let Some(accessed) = ctx.lookup_read_notouch(key).map(|e| e.accessed_ms) else {
        return Ok(Reply::Nil);
    };
    if lfu_policy(ctx) {
        return Err(Error::Err(
            "An LFU maxmemory policy is selected, idle time not tracked. Please note that when switching between policies at runtime LRU and LFU data will take some time to adjust.".into(),
        ));
    }
    let idle = now
        .div_euclid(1000)
        .saturating_sub(accessed.div_euclid(1000));
    Ok(Reply::Integer(idle.max(0)))
}

/// `OBJECT FREQ key`: the logarithmic access counter of the key under an LFU policy
/// (see [`crate::engine::evict`]), decayed to now as Redis's `LFUDecrAndReturn` does, or
/// nil; any other policy is an error (Redis's text). O(1).
fn object_freq(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    let key = args.next_bytes()?;
    let now = ctx.now_ms;
    let Some((counter, since)) = ctx.lookup_read_notouch(key).map(|e| (e.lfu, e.accessed_ms))
    else {
        return Ok(Reply::Nil);
    };
    if !lfu_policy(ctx) {
        return Err(Error::Err(
            "An LFU maxmemory policy is not selected, access frequency not tracked. Please note that when switching between policies at runtime LRU and LFU data will take some time to adjust.".into(),
        ));
    }
    let decay = ctx.srv.config.eviction().lfu_decay_time;
    Ok(Reply::Integer(i64::from(
        crate::engine::evict::lfu_decayed(counter, since, now, decay),
    )))
}

/// `OBJECT REFCOUNT key`: the reference count of the value, or nil. Redis shares the
/// integer objects 0..9999 (refcount 2147483647) unless `maxmemory` is set with an LRU or
/// LFU policy; every other value has refcount 1 here. (Redis also gives refcount 1 to an
/// integer made by COPY, which the engine cannot tell apart from the original.) O(1).
fn object_refcount(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    const OBJ_SHARED_INTEGERS: i64 = 10_000;
    let key = args.next_bytes()?;
    let small_int = match ctx.lookup_read_notouch(key).map(|e| &e.value) {
        None => return Ok(Reply::Nil),
        Some(Value::Str(s)) if s.encoding() == "int" => {
            parse_i64(&s.bytes).is_some_and(|v| (0..OBJ_SHARED_INTEGERS).contains(&v))
        }
        Some(_) => false,
    };
    let maxmemory_set = ctx.srv.config.values.get("maxmemory").is_some_and(|v| {
        v.trim_start_matches('0')
            .starts_with(|c: char| c.is_ascii_digit())
    });
    let policy = maxmemory_policy(ctx).to_ascii_lowercase();
    let sharing = !maxmemory_set || !(policy.ends_with("-lru") || policy.ends_with("-lfu"));
    Ok(Reply::Integer(if small_int && sharing {
        i64::from(i32::MAX)
    } else {
        1
    }))
}

/// `OBJECT HELP`: the subcommand list, as Redis words it.
fn object_help(_ctx: &mut Ctx<'_>, _args: &mut Args) -> CmdResult {
    Ok(help_reply(
        "OBJECT",
        &[
            "ENCODING <key>",
            "    Return the kind of internal representation used in order to store the value",
            "    associated with a <key>.",
            "FREQ <key>",
            "    Return the access frequency index of the <key>. The returned integer is",
            "    proportional to the logarithm of the recent access frequency of the key.",
            "IDLETIME <key>",
            "    Return the idle time of the <key>, that is the approximated number of",
            "    seconds elapsed since the last access to the key.",
            "REFCOUNT <key>",
            "    Return the number of references of the value associated with the specified",
            "    <key>.",
        ],
    ))
}

/// A `<COMMAND> HELP` reply framed as Redis's `addReplyHelp` frames it: a header line, the
/// given lines, and the closing `HELP` entry, each a status reply.
pub(crate) fn help_reply(command: &str, lines: &[&str]) -> Reply {
    let mut out = vec![Reply::Status(format!(
        "{command} <subcommand> [<arg> [value] [opt] ...]. Subcommands are:"
    ))];
    out.extend(lines.iter().map(|l| Reply::status(l)));
    out.push(Reply::status("HELP"));
    out.push(Reply::status("    Prints this help."));
    Reply::Array(out)
}

#[cfg(test)]
mod tests {
    use std::collections::{BTreeMap, HashSet};

    use crate::engine::types::Value;
    use crate::engine::{ClientId, Clock, Effect, Engine, ManualClock, Reply};

    const START_MS: i64 = 1_704_067_200_000;

    fn engine() -> (Engine, ManualClock, ClientId) {
        let clock = ManualClock::at_ms(START_MS);
        let mut e = Engine::new(Box::new(clock.clone()), 7);
        let c = e.connect();
        (e, clock, c)
    }

    fn argv(cmd: &[&str]) -> Vec<Vec<u8>> {
        cmd.iter().map(|a| a.as_bytes().to_vec()).collect()
    }

    fn run(e: &mut Engine, c: ClientId, cmd: &[&str]) -> Reply {
        e.execute(c, argv(cmd))
    }

    fn effect(db: usize, cmd: &[&str]) -> Effect {
        Effect {
            db,
            argv: argv(cmd),
        }
    }

    /// One database's keys with their value and deadline.
    type DbDump = BTreeMap<Vec<u8>, (Value, Option<i64>)>;

    /// Every key of every database with its value and deadline, expired or not.
    fn dump(e: &Engine) -> Vec<DbDump> {
        e.server()
            .dbs
            .iter()
            .map(|db| {
                db.iter()
                    .map(|(k, en)| (k.clone(), (en.value.clone(), en.expire_at)))
                    .collect()
            })
            .collect()
    }

    #[test]
    fn expire_family_propagates_as_pexpireat_with_the_absolute_time() {
        let (mut e, _clock, c) = engine();
        run(&mut e, c, &["SELECT", "2"]);
        run(&mut e, c, &["SET", "k", "v"]);
        e.take_effects();
        let at = (START_MS + 100_000).to_string();
        for cmd in [
            &["EXPIRE", "k", "100"][..],
            &["PEXPIRE", "k", "100000"],
            &["EXPIREAT", "k", &(START_MS / 1000 + 100).to_string()],
            &["PEXPIREAT", "k", &at, "XX"],
        ] {
            assert_eq!(run(&mut e, c, cmd), Reply::Integer(1));
            assert_eq!(
                e.take_effects(),
                vec![effect(2, &["PEXPIREAT", "k", &at])],
                "{cmd:?}"
            );
        }
    }

    #[test]
    fn an_expire_in_the_past_propagates_as_del() {
        let (mut e, _clock, c) = engine();
        for cmd in [
            &["EXPIRE", "k", "-1"][..],
            &["PEXPIRE", "k", "0"],
            &["EXPIREAT", "k", "1"],
        ] {
            run(&mut e, c, &["SET", "k", "v"]);
            e.take_effects();
            assert_eq!(run(&mut e, c, cmd), Reply::Integer(1));
            assert_eq!(e.take_effects(), vec![effect(0, &["DEL", "k"])]);
            assert_eq!(run(&mut e, c, &["EXISTS", "k"]), Reply::Integer(0));
        }
    }

    #[test]
    fn commands_that_change_nothing_record_no_effect() {
        let (mut e, _clock, c) = engine();
        run(&mut e, c, &["SET", "k", "v"]);
        run(&mut e, c, &["SET", "vol", "v"]);
        run(&mut e, c, &["EXPIRE", "vol", "100"]);
        e.take_effects();
        let dirty = e.server().dirty;
        for cmd in [
            &["DEL", "nokey"][..],
            &["UNLINK", "nokey", "nokey2"],
            &["EXPIRE", "nokey", "10"],
            &["EXPIRE", "k", "10", "XX"],
            &["EXPIRE", "vol", "10", "NX"],
            &["EXPIRE", "vol", "10", "GT"],
            &["EXPIRE", "k", "-1", "XX"],
            &["PERSIST", "k"],
            &["PERSIST", "nokey"],
            &["RENAME", "k", "k"],
            &["RENAMENX", "k", "vol"],
            &["RENAME", "nokey", "x"],
            &["MOVE", "nokey", "1"],
            &["COPY", "nokey", "x"],
            &["COPY", "k", "vol"],
            &["EXPIRE", "k", "abc"],
            &["TOUCH", "k"],
            &["EXISTS", "k"],
        ] {
            run(&mut e, c, cmd);
            assert_eq!(e.take_effects(), vec![], "{cmd:?}");
        }
        assert_eq!(e.server().dirty, dirty);
    }

    #[test]
    fn writes_replay_as_themselves_in_the_clients_database() {
        let (mut e, _clock, c) = engine();
        run(&mut e, c, &["SELECT", "3"]);
        run(&mut e, c, &["SET", "k", "v"]);
        e.take_effects();
        for (cmd, reply) in [
            (&["COPY", "k", "k2", "DB", "4"][..], Reply::Integer(1)),
            (&["RENAME", "k", "r"], Reply::ok()),
            (&["RENAMENX", "r", "k"], Reply::Integer(1)),
            (&["MOVE", "k", "5"], Reply::Integer(1)),
            (&["SWAPDB", "0", "0"], Reply::ok()),
            (&["FLUSHDB"], Reply::ok()),
            (&["FLUSHDB", "ASYNC"], Reply::ok()),
            (&["FLUSHALL", "sync"], Reply::ok()),
        ] {
            assert_eq!(run(&mut e, c, cmd), reply, "{cmd:?}");
            assert_eq!(e.take_effects(), vec![effect(3, cmd)], "{cmd:?}");
        }
        run(&mut e, c, &["SET", "a", "1"]);
        run(&mut e, c, &["SET", "b", "1"]);
        run(&mut e, c, &["EXPIRE", "b", "100"]);
        e.take_effects();
        for cmd in [&["PERSIST", "b"][..], &["DEL", "a", "nokey", "b"]] {
            run(&mut e, c, cmd);
            assert_eq!(e.take_effects(), vec![effect(3, cmd)], "{cmd:?}");
        }
    }

    #[test]
    fn a_key_lives_until_the_clock_passes_its_deadline() {
        let (mut e, clock, c) = engine();
        run(&mut e, c, &["SET", "k", "v"]);
        run(&mut e, c, &["PEXPIRE", "k", "100"]);
        e.take_effects();
        clock.advance_ms(100);
        assert_eq!(run(&mut e, c, &["PTTL", "k"]), Reply::Integer(0));
        assert_eq!(run(&mut e, c, &["GET", "k"]), Reply::bulk(b"v"));
        assert_eq!(e.tick(), 0);
        clock.advance_ms(1);
        assert_eq!(e.take_effects(), vec![]);
        assert_eq!(run(&mut e, c, &["GET", "k"]), Reply::Nil);
        assert_eq!(e.take_effects(), vec![effect(0, &["DEL", "k"])]);
        assert_eq!(e.server().stats.expired_keys, 1);
    }

    #[test]
    fn lazy_expiry_removes_a_key_when_a_command_touches_it() {
        let (mut e, clock, c) = engine();
        run(&mut e, c, &["SELECT", "6"]);
        run(&mut e, c, &["SET", "k", "v"]);
        run(&mut e, c, &["SET", "other", "v"]);
        run(&mut e, c, &["PEXPIRE", "k", "50"]);
        run(&mut e, c, &["PEXPIRE", "other", "50"]);
        e.take_effects();
        clock.advance_ms(60);
        // Nothing happens until something looks: DBSIZE still counts both.
        assert_eq!(run(&mut e, c, &["DBSIZE"]), Reply::Integer(2));
        assert_eq!(e.take_effects(), vec![]);
        assert_eq!(run(&mut e, c, &["EXISTS", "k"]), Reply::Integer(0));
        assert_eq!(e.take_effects(), vec![effect(6, &["DEL", "k"])]);
        assert_eq!(run(&mut e, c, &["DBSIZE"]), Reply::Integer(1));
        // A write to an expired key sees it gone first: DEL then SET.
        run(&mut e, c, &["SET", "other", "new"]);
        assert_eq!(
            e.take_effects(),
            vec![
                effect(6, &["DEL", "other"]),
                effect(6, &["SET", "other", "new"])
            ]
        );
        assert_eq!(run(&mut e, c, &["TTL", "other"]), Reply::Integer(-1));
    }

    #[test]
    fn active_expiry_removes_expired_keys_without_access_and_records_a_del_for_each() {
        let (mut e, clock, c) = engine();
        let mut expected = HashSet::new();
        for db in [0usize, 9] {
            run(&mut e, c, &["SELECT", &db.to_string()]);
            for i in 0..50 {
                let k = format!("gone{i}");
                run(&mut e, c, &["SET", &k, "v"]);
                run(&mut e, c, &["PEXPIRE", &k, "1000"]);
                expected.insert((db, k));
            }
            for i in 0..10 {
                run(&mut e, c, &["SET", &format!("stay{i}"), "v"]);
                run(&mut e, c, &["EXPIRE", &format!("later{i}"), "100"]);
            }
        }
        e.take_effects();
        assert_eq!(e.tick(), 0, "nothing has expired yet");
        clock.advance_ms(1001);
        assert_eq!(e.tick(), 100);
        let effects = e.take_effects();
        let got: HashSet<(usize, String)> = effects
            .iter()
            .map(|ef| {
                assert_eq!(ef.argv.len(), 2);
                assert_eq!(ef.argv[0], b"DEL");
                (ef.db, String::from_utf8(ef.argv[1].clone()).unwrap())
            })
            .collect();
        assert_eq!(effects.len(), 100);
        assert_eq!(got, expected);
        assert_eq!(e.server().dbs[0].len(), 10);
        assert_eq!(e.server().dbs[9].len(), 10);
        assert_eq!(e.server().stats.expired_keys, 100);
        assert_eq!(e.tick(), 0);
    }

    #[test]
    fn active_expiry_walks_the_whole_volatile_set_over_successive_ticks() {
        // 5 expired keys among 200 volatile ones: each tick examines 20 keys, finds at most
        // a few expired (not above 10%, so it stops), and resumes where it stopped; ten
        // ticks cover every key, which random sampling would not guarantee.
        let (mut e, clock, c) = engine();
        for i in 0..200 {
            let k = format!("k{i}");
            run(&mut e, c, &["SET", &k, "v"]);
            let ttl = if i % 40 == 7 { "10" } else { "100000" };
            run(&mut e, c, &["PEXPIRE", &k, ttl]);
        }
        e.take_effects();
        clock.advance_ms(11);
        let removed: usize = (0..10).map(|_| e.tick()).sum();
        assert_eq!(removed, 5);
        assert_eq!(e.server().dbs[0].len(), 195);
    }

    #[test]
    fn one_tick_does_bounded_work() {
        let (mut e, clock, c) = engine();
        for i in 0..1000 {
            let k = format!("k{i}");
            run(&mut e, c, &["SET", &k, "v"]);
            run(&mut e, c, &["PEXPIRE", &k, "10"]);
        }
        clock.advance_ms(11);
        assert_eq!(e.tick(), 320);
        assert_eq!(e.tick(), 320);
        assert_eq!(e.tick(), 320);
        assert_eq!(e.tick(), 40);
        assert_eq!(e.server().dbs[0].len(), 0);
    }

    /// Runs `SCAN` to completion with `COUNT count`, calling `between` after each step.
    fn full_scan(
        e: &mut Engine,
        c: ClientId,
        count: usize,
        mut between: impl FnMut(&mut Engine, usize),
    ) -> HashSet<Vec<u8>> {
        let mut seen = HashSet::new();
        let mut cursor = b"0".to_vec();
        for step in 0.. {
            let reply = e.execute(
                c,
                vec![
                    b"SCAN".to_vec(),
                    cursor.clone(),
                    b"COUNT".to_vec(),
                    count.to_string().into_bytes(),
                ],
            );
            let Reply::Array(parts) = reply else {
                panic!("{reply:?}")
            };
            let [Reply::Bulk(next), Reply::Array(keys)] = parts.as_slice() else {
                panic!("{parts:?}")
            };
            for k in keys {
                let Reply::Bulk(k) = k else { panic!() };
                seen.insert(k.clone());
            }
            cursor = next.clone();
            if cursor == b"0" {
                break;
            }
            between(e, step);
        }
        seen
    }

    #[test]
    fn a_full_scan_returns_every_key_present_throughout_and_no_expired_key() {
        let (mut e, clock, c) = engine();
        for i in 0..500 {
            run(&mut e, c, &["SET", &format!("k{i}"), "v"]);
        }
        for i in 0..50 {
            let k = format!("dead{i}");
            run(&mut e, c, &["SET", &k, "v"]);
            run(&mut e, c, &["PEXPIRE", &k, "10"]);
        }
        clock.advance_ms(11);
        // While scanning, delete k0, k2, k4, … and add new keys.
        let mut deleted = HashSet::new();
        let seen = full_scan(&mut e, c, 7, |e, step| {
            let c = e.connect();
            let k = format!("k{}", 2 * step);
            e.execute(c, argv(&["DEL", &k]));
            e.execute(c, argv(&["SET", &format!("new{step}"), "v"]));
            e.disconnect(c);
            deleted.insert(k);
        });
        assert!(deleted.len() > 50);
        for i in 0..500 {
            let k = format!("k{i}");
            if !deleted.contains(&k) {
                assert!(seen.contains(k.as_bytes()), "missed {k}");
            }
        }
        assert!(!seen.iter().any(|k| k.starts_with(b"dead")));
        // Every expired key the walk met was removed.
        assert_eq!(run(&mut e, c, &["KEYS", "dead*"]), Reply::Array(vec![]));
        assert_eq!(e.server().stats.expired_keys, 50);
    }

    #[test]
    fn scan_counts_that_are_huge_are_just_large() {
        let (mut e, _clock, c) = engine();
        run(&mut e, c, &["SET", "k", "v"]);
        assert_eq!(
            run(&mut e, c, &["SCAN", "0", "COUNT", "9223372036854775807"]),
            Reply::Array(vec![
                Reply::bulk(b"0"),
                Reply::Array(vec![Reply::bulk(b"k")])
            ])
        );
        // A cursor beyond the database restarts from its end, it does not fail.
        assert_eq!(
            run(&mut e, c, &["SCAN", "18446744073709551615"]),
            Reply::Array(vec![
                Reply::bulk(b"0"),
                Reply::Array(vec![Reply::bulk(b"k")])
            ])
        );
    }

    #[test]
    fn randomkey_picks_every_key_eventually() {
        let (mut e, _clock, c) = engine();
        for k in ["a", "b", "c"] {
            run(&mut e, c, &["SET", k, "v"]);
        }
        let mut seen = HashSet::new();
        for _ in 0..200 {
            if let Reply::Bulk(k) = run(&mut e, c, &["RANDOMKEY"]) {
                seen.insert(k);
            }
        }
        assert_eq!(seen.len(), 3);
    }

    #[test]
    fn swapdb_and_move_carry_deadlines_and_volatile_tracking() {
        let (mut e, clock, c) = engine();
        run(&mut e, c, &["SET", "k", "v"]);
        run(&mut e, c, &["PEXPIRE", "k", "100"]);
        assert_eq!(run(&mut e, c, &["MOVE", "k", "4"]), Reply::Integer(1));
        assert_eq!(run(&mut e, c, &["SWAPDB", "4", "5"]), Reply::ok());
        assert_eq!(e.server().dbs[5].volatile_len(), 1);
        assert_eq!(e.server().dbs[0].volatile_len(), 0);
        clock.advance_ms(101);
        e.take_effects();
        assert_eq!(e.tick(), 1);
        assert_eq!(e.take_effects(), vec![effect(5, &["DEL", "k"])]);
    }

    /// Drives engine A with a random sequence of keyspace commands, clock moves and ticks,
    /// recording the effects with the time they were produced; replays them on a fresh
    /// engine B at the same times; and checks both hold exactly the same data.
    #[test]
    fn replaying_the_effects_of_a_random_sequence_rebuilds_the_same_data() {
        let mut kinds = HashSet::new();
        for seed in 0..40u64 {
            let mut rng = fastrand::Rng::with_seed(seed);
            let (mut a, clock, c) = engine();
            let mut log: Vec<(i64, Vec<Effect>)> = Vec::new();
            let keys = ["k0", "k1", "k2", "k3", "k4"];
            for step in 0..400 {
                let k = keys[rng.usize(..keys.len())].to_string();
                let k2 = keys[rng.usize(..keys.len())].to_string();
                let db = rng.usize(..4).to_string();
                let now_s = clock.now_ms() / 1000;
                let now_ms = clock.now_ms();
                let cond = ["", "NX", "XX", "GT", "LT"][rng.usize(..5)].to_string();
                let mut cmd: Vec<String> = match rng.usize(..24) {
                    0..=4 => vec!["SET".into(), k, format!("v{step}")],
                    5 => vec!["DEL".into(), k, k2],
                    6 => vec!["UNLINK".into(), k],
                    7 => vec!["EXPIRE".into(), k, rng.i64(-2..20).to_string()],
                    8 => vec!["PEXPIRE".into(), k, rng.i64(-100..3000).to_string()],
                    9 => vec!["EXPIREAT".into(), k, (now_s + rng.i64(-2..10)).to_string()],
                    10 => vec![
                        "PEXPIREAT".into(),
                        k,
                        (now_ms + rng.i64(-100..3000)).to_string(),
                    ],
                    11 => vec!["PERSIST".into(), k],
                    12 => vec!["RENAME".into(), k, k2],
                    13 => vec!["RENAMENX".into(), k, k2],
                    14 => vec!["COPY".into(), k, k2, "DB".into(), db, "REPLACE".into()],
                    15 => vec!["COPY".into(), k, k2],
                    16 => vec!["MOVE".into(), k, db],
                    17 => vec!["SWAPDB".into(), db, rng.usize(..4).to_string()],
                    18 if rng.usize(..10) == 0 => vec!["FLUSHDB".into()],
                    19 => vec!["SELECT".into(), db],
                    20 => vec!["GET".into(), k],
                    21 => vec!["SCAN".into(), "0".into(), "COUNT".into(), "3".into()],
                    22 => vec!["RANDOMKEY".into()],
                    _ => vec!["TTL".into(), k],
                };
                if (cmd[0].ends_with("EXPIRE") || cmd[0].ends_with("EXPIREAT")) && !cond.is_empty()
                {
                    cmd.push(cond);
                }
                let refs: Vec<&str> = cmd.iter().map(String::as_str).collect();
                run(&mut a, c, &refs);
                log.push((clock.now_ms(), a.take_effects()));
                match rng.usize(..6) {
                    0 => clock.advance_ms(rng.i64(0..1500)),
                    1 => {
                        a.tick();
                        log.push((clock.now_ms(), a.take_effects()));
                    }
                    _ => {}
                }
            }

            let (mut b, clock_b, cb) = engine();
            for (at, effects) in log {
                clock_b.set_ms(at);
                for ef in effects {
                    kinds.insert(String::from_utf8_lossy(&ef.argv[0]).into_owned());
                    b.execute(cb, argv(&["SELECT", &ef.db.to_string()]));
                    let reply = b.execute(cb, ef.argv.clone());
                    assert!(!reply.is_error(), "seed {seed}: {ef:?} -> {reply:?}");
                }
            }
            assert_eq!(dump(&a), dump(&b), "seed {seed}");
        }
        for kind in [
            "SET",
            "DEL",
            "UNLINK",
            "PEXPIREAT",
            "PERSIST",
            "RENAME",
            "RENAMENX",
            "COPY",
            "MOVE",
            "SWAPDB",
            "FLUSHDB",
        ] {
            assert!(kinds.contains(kind), "no {kind} effect was exercised");
        }
    }
}
