//! The string group: GET/SET and their variants, counters, ranges, LCS.
//!
//! Every handler follows Redis 7.0's `t_string.c` in the order it checks things, because
//! the order decides which error a client sees when several things are wrong: option syntax
//! first, then the expire value, then the key's type, then the value's content.
//!
//! **Effects.** Writes that depend on the clock or on float formatting are recorded in a
//! form that replays to the same data (see [`Ctx::propagate`]): SET/SETEX/PSETEX with an
//! expiry become `SET key value PXAT <ms>`, SET's `GET` flag is dropped, GETSET becomes SET,
//! GETEX becomes `PEXPIREAT`, `PERSIST` or `DEL`, GETDEL becomes `DEL`, and INCRBYFLOAT
//! becomes `SET key <result> KEEPTTL`. A write that changed nothing records nothing.

use crate::engine::args::{c_bytes, parse_i64, Args};
use crate::engine::error::{CmdResult, Error};
use crate::engine::longdouble::LongDouble;
use crate::engine::pubsub::class;
use crate::engine::table::{Command, Flags, GetKeys, Group, KeySpec};
use crate::engine::types::{StrValue, Value};
use crate::engine::{Ctx, Reply};

use super::hash::map_reply;

/// Default `proto-max-bulk-len`: 512 MB.
pub const DEFAULT_PROTO_MAX_BULK_LEN: u64 = 512 * 1024 * 1024;

const W: Flags = Flags::WRITE;
const R: Flags = Flags::READONLY;
const DENYOOM: Flags = Flags::DENYOOM;
const FAST: Flags = Flags::FAST;

/// The string commands.
pub const COMMANDS: &[Command] = &[
    Command::new("append", 3, Group::String, append)
        .key_specs(&[KeySpec::index(1, "RW insert")])
        .flags(W.union(DENYOOM).union(FAST))
        .doc(
            "key value",
            "Adds bytes to the end of a string, creating it if missing; replies with the new length.",
            "O(1). The amortized time complexity is O(1) assuming the appended value is small and the already present value is of any size, since the dynamic string library used by Redis will double the free space available on every reallocation.",
            "2.0.0",
        ),
    Command::new("decr", 2, Group::String, decr)
        .key_specs(&[KeySpec::index(1, "RW access update")])
        .flags(W.union(DENYOOM).union(FAST))
        .doc(
            "key",
            "Subtracts one from the integer in a string (a missing key counts as 0).",
            "O(1)",
            "1.0.0",
        ),
    Command::new("decrby", 3, Group::String, decrby)
        .key_specs(&[KeySpec::index(1, "RW access update")])
        .flags(W.union(DENYOOM).union(FAST))
        .doc(
            "key decrement",
            "Subtracts a number from the integer in a string (a missing key counts as 0).",
            "O(1)",
            "1.0.0",
        ),
    Command::new("get", 2, Group::String, get)
        .key_specs(&[KeySpec::index(1, "RO access")])
        .flags(R.union(FAST))
        .doc("key", "Returns the string stored at a key, or nil.", "O(1)", "1.0.0"),
    Command::new("getdel", 2, Group::String, getdel)
        .key_specs(&[KeySpec::index(1, "RW access delete")])
        .flags(W.union(FAST))
        .doc(
            "key",
            "Returns the string stored at a key and deletes the key.",
            "O(1)",
            "6.2.0",
        ),
    Command::new("getex", -2, Group::String, getex)
        .key_specs(&[
            KeySpec::index(1, "RW access update").notes("RW and UPDATE because it changes the TTL"),
        ])
        .flags(W.union(FAST))
        .doc(
            "key [EX seconds | PX milliseconds | EXAT unix-time-seconds | PXAT unix-time-milliseconds | PERSIST]",
            "Returns the string stored at a key and optionally changes or removes its expiry.",
            "O(1)",
            "6.2.0",
        ),
    Command::new("getrange", 4, Group::String, getrange)
        .key_specs(&[KeySpec::index(1, "RO access")])
        .flags(R)
        .doc(
            "key start end",
            "Returns the bytes between two offsets of a string (negative offsets count from the end).",
            "O(N) where N is the length of the returned string. The complexity is ultimately determined by the returned length, but because creating a substring from an existing string is very cheap, it can be considered O(1) for small strings.",
            "2.4.0",
        ),
    Command::new("getset", 3, Group::String, getset)
        .key_specs(&[KeySpec::index(1, "RW access update")])
        .flags(W.union(DENYOOM).union(FAST))
        .doc(
            "key value",
            "Stores a new string at a key and returns the old one (deprecated: SET … GET).",
            "O(1)",
            "1.0.0",
        ),
    Command::new("incr", 2, Group::String, incr)
        .key_specs(&[KeySpec::index(1, "RW access update")])
        .flags(W.union(DENYOOM).union(FAST))
        .doc(
            "key",
            "Adds one to the integer in a string (a missing key counts as 0).",
            "O(1)",
            "1.0.0",
        ),
    Command::new("incrby", 3, Group::String, incrby)
        .key_specs(&[KeySpec::index(1, "RW access update")])
        .flags(W.union(DENYOOM).union(FAST))
        .doc(
            "key increment",
            "Adds a number to the integer in a string (a missing key counts as 0).",
            "O(1)",
            "1.0.0",
        ),
    Command::new("incrbyfloat", 3, Group::String, incrbyfloat)
        .key_specs(&[KeySpec::index(1, "RW access update")])
        .flags(W.union(DENYOOM).union(FAST))
        .doc(
            "key increment",
            "Adds a decimal number to the number in a string, computing in extended precision.",
            "O(1)",
            "2.6.0",
        ),
    Command::new("lcs", -3, Group::String, lcs)
        .key_specs(&[KeySpec::index(1, "RO access").range(1, 1, 0)])
        .flags(R)
        .doc(
            "key1 key2 [LEN] [IDX] [MINMATCHLEN min-match-len] [WITHMATCHLEN]",
            "Finds the longest common subsequence of two strings, its length, or where it matches.",
            "O(N*M) where N and M are the lengths of s1 and s2, respectively",
            "7.0.0",
        ),
    Command::new("mget", -2, Group::String, mget)
        .key_specs(&[KeySpec::index(1, "RO access").range(-1, 1, 0)])
        .tips(&["request_policy:multi_shard"])
        .flags(R.union(FAST))
        .doc(
            "key [key ...]",
            "Returns the strings stored at several keys (nil for missing keys and other types).",
            "O(N) where N is the number of keys to retrieve.",
            "1.0.0",
        ),
    Command::new("mset", -3, Group::String, mset)
        .key_specs(&[KeySpec::index(1, "OW update").range(-1, 2, 0)])
        .tips(&["request_policy:multi_shard", "response_policy:all_succeeded"])
        .flags(W.union(DENYOOM))
        .doc(
            "key value [key value ...]",
            "Stores several strings at once, replacing what was there.",
            "O(N) where N is the number of keys to set.",
            "1.0.1",
        ),
    Command::new("msetnx", -3, Group::String, msetnx)
        .key_specs(&[KeySpec::index(1, "OW insert").range(-1, 2, 0)])
        .tips(&["request_policy:multi_shard", "response_policy:agg_min"])
        .flags(W.union(DENYOOM))
        .doc(
            "key value [key value ...]",
            "Stores several strings only if none of the keys exists; replies 1 if it did.",
            "O(N) where N is the number of keys to set.",
            "1.0.1",
        ),
    Command::new("psetex", 4, Group::String, psetex)
        .key_specs(&[KeySpec::index(1, "OW update")])
        .flags(W.union(DENYOOM))
        .doc(
            "key milliseconds value",
            "Stores a string that expires after a number of milliseconds.",
            "O(1)",
            "2.6.0",
        ),
    Command::new("set", -3, Group::String, set)
        .key_specs(&[
            KeySpec::index(1, "RW access update variable_flags")
                .notes("RW and ACCESS due to the optional `GET` argument"),
        ])
        .getkeys(GetKeys::Set)
        .flags(W.union(DENYOOM))
        .doc(
            "key value [NX | XX] [GET] [EX seconds | PX milliseconds | EXAT unix-time-seconds | PXAT unix-time-milliseconds | KEEPTTL]",
            "Stores a string under a key, optionally with an expiry, a condition, or returning the old value.",
            "O(1)",
            "1.0.0",
        ),
    Command::new("setex", 4, Group::String, setex)
        .key_specs(&[KeySpec::index(1, "OW update")])
        .flags(W.union(DENYOOM))
        .doc(
            "key seconds value",
            "Stores a string that expires after a number of seconds.",
            "O(1)",
            "2.0.0",
        ),
    Command::new("setnx", 3, Group::String, setnx)
        .key_specs(&[KeySpec::index(1, "OW insert")])
        .flags(W.union(DENYOOM).union(FAST))
        .doc(
            "key value",
            "Stores a string only if the key does not exist; replies 1 if it did.",
            "O(1)",
            "1.0.0",
        ),
    Command::new("setrange", 4, Group::String, setrange)
        .key_specs(&[KeySpec::index(1, "RW update")])
        .flags(W.union(DENYOOM))
        .doc(
            "key offset value",
            "Overwrites part of a string from an offset, padding with zero bytes; replies with the new length.",
            "O(1), not counting the time taken to copy the new string in place. Usually, this string is very small so the amortized complexity is O(1). Otherwise, complexity is O(M) with M being the length of the value argument.",
            "2.2.0",
        ),
    Command::new("strlen", 2, Group::String, strlen)
        .key_specs(&[KeySpec::index(1, "RO")])
        .flags(R.union(FAST))
        .doc(
            "key",
            "Returns the length in bytes of the string stored at a key (0 if missing).",
            "O(1)",
            "2.2.0",
        ),
    Command::new("substr", 4, Group::String, getrange)
        .key_specs(&[KeySpec::index(1, "RO access")])
        .flags(R)
        .doc(
            "key start end",
            "Returns the bytes between two offsets of a string (old name of GETRANGE).",
            "O(N) where N is the length of the returned string. The complexity is ultimately determined by the returned length, but because creating a substring from an existing string is very cheap, it can be considered O(1) for small strings.",
            "1.0.0",
        ),
];

// ---------------------------------------------------------------------------------------
// Shared helpers
// ---------------------------------------------------------------------------------------

/// The longest string a command may create (`proto-max-bulk-len`).
pub fn max_bulk_len(ctx: &Ctx<'_>) -> u64 {
    ctx.srv
        .config
        .values
        .get("proto-max-bulk-len")
        .and_then(|v| v.parse::<u64>().ok())
        .unwrap_or(DEFAULT_PROTO_MAX_BULK_LEN)
}

/// Redis's `checkStringLength`: fails if `size + append` bytes would exceed
/// `proto-max-bulk-len` (or overflow).
fn check_string_length(max: u64, size: u64, append: u64) -> CmdResult<()> {
    match size.checked_add(append) {
        Some(total) if total <= max => Ok(()),
        _ => Err(Error::StringTooLong),
    }
}

/// Case-insensitive comparison of an option argument with a keyword, as `strcasecmp` does.
fn is_opt(arg: &[u8], word: &str) -> bool {
    c_bytes(arg).eq_ignore_ascii_case(word.as_bytes())
}

/// The string at `key` for reading (Redis's `getGenericCommand` lookup): `Ok(None)` if
/// missing, WRONGTYPE if not a string. Counts a keyspace hit or miss.
fn read_string(ctx: &mut Ctx<'_>, key: &[u8]) -> CmdResult<Option<Vec<u8>>> {
    match ctx.lookup_read(key) {
        Some(v) => Ok(Some(v.as_str()?.bytes.clone())),
        None => Ok(None),
    }
}

/// Option flags of SET and GETEX (`OBJ_SET_NX`, … in Redis's `t_string.c`).
mod opt {
    pub const NX: u16 = 1 << 0;
    pub const XX: u16 = 1 << 1;
    pub const EX: u16 = 1 << 2;
    pub const PX: u16 = 1 << 3;
    pub const KEEPTTL: u16 = 1 << 4;
    pub const GET: u16 = 1 << 5;
    pub const EXAT: u16 = 1 << 6;
    pub const PXAT: u16 = 1 << 7;
    pub const PERSIST: u16 = 1 << 8;
    /// Any expire option.
    pub const ANY_EXPIRE: u16 = EX | PX | EXAT | PXAT;
}

/// Which command's options are parsed: SET takes NX/XX/GET/KEEPTTL, GETEX takes PERSIST.
#[derive(Clone, Copy, PartialEq, Eq)]
enum OptsFor {
    Set,
    Get,
}

/// Parsed SET/GETEX options: the flag bits and the raw expire argument.
struct ExtOpts {
    flags: u16,
    expire: Option<Vec<u8>>,
}

impl ExtOpts {
    fn has(&self, f: u16) -> bool {
        self.flags & f != 0
    }
}

/// Redis's `parseExtendedStringArgumentsOrReply`. Each option is accepted only if no
/// conflicting option came before it (repeating the same option is allowed, the last
/// expire value wins); anything else is a syntax error.
fn parse_ext_opts(args: &mut Args, kind: OptsFor) -> CmdResult<ExtOpts> {
    use opt::*;
    let mut flags = 0u16;
    let mut expire = None;
    let set = kind == OptsFor::Set;
    while let Some(arg) = args.peek() {
        let a = c_bytes(arg).to_ascii_uppercase();
        let has_next = args.remaining() > 1;
        let ok_expire = |excl: u16| flags & (KEEPTTL | PERSIST | excl) == 0 && has_next;
        let flag = match a.as_slice() {
            b"NX" if set && flags & XX == 0 => NX,
            b"XX" if set && flags & NX == 0 => XX,
            b"GET" if set => GET,
            b"KEEPTTL" if set && flags & (PERSIST | ANY_EXPIRE) == 0 => KEEPTTL,
            b"PERSIST" if !set && flags & (ANY_EXPIRE | KEEPTTL) == 0 => PERSIST,
            b"EX" if ok_expire(EXAT | PX | PXAT) => EX,
            b"PX" if ok_expire(EX | EXAT | PXAT) => PX,
            b"EXAT" if ok_expire(EX | PX | PXAT) => EXAT,
            b"PXAT" if ok_expire(EX | EXAT | PX) => PXAT,
            _ => return Err(Error::Syntax),
        };
        args.next_bytes()?;
        if flag & ANY_EXPIRE != 0 {
            expire = Some(args.next_bytes()?.to_vec());
        }
        flags |= flag;
    }
    Ok(ExtOpts { flags, expire })
}

/// Redis's `getExpireMillisecondsOrReply`: the absolute deadline in Unix milliseconds for
/// an expire argument given with `flags` (EX/PX are relative to now, EXAT/PXAT absolute).
/// `cmd` names the command in `ERR invalid expire time in '<cmd>' command`.
fn expire_at_ms(arg: &[u8], flags: u16, now_ms: i64, cmd: &str) -> CmdResult<i64> {
    let mut ms = parse_i64(arg).ok_or(Error::NotInteger)?;
    let seconds = flags & (opt::EX | opt::EXAT) != 0;
    if ms <= 0 || (seconds && ms > i64::MAX / 1000) {
        return Err(Error::InvalidExpireTime(cmd.to_string()));
    }
    if seconds {
        ms *= 1000;
    }
    if flags & (opt::EX | opt::PX) != 0 {
        // Redis adds in C and checks for a wrapped (non-positive) result.
        ms = ms.wrapping_add(now_ms);
    }
    if ms <= 0 {
        return Err(Error::InvalidExpireTime(cmd.to_string()));
    }
    Ok(ms)
}

/// What `setGenericCommand` replies when it sets (`ok`) and when NX/XX stops it (`abort`).
struct SetReplies {
    ok: Reply,
    abort: Reply,
}

/// Redis's `setGenericCommand`, shared by SET, SETNX, SETEX and PSETEX.
fn set_generic(
    ctx: &mut Ctx<'_>,
    key: Vec<u8>,
    value: Vec<u8>,
    opts: &ExtOpts,
    cmd: &str,
    replies: SetReplies,
    argv: &[Vec<u8>],
) -> CmdResult {
    let deadline = match &opts.expire {
        Some(arg) => Some(expire_at_ms(arg, opts.flags, ctx.now_ms, cmd)?),
        None => None,
    };
    let old = if opts.has(opt::GET) {
        Some(read_string(ctx, &key)?)
    } else {
        None
    };
    let found = ctx.exists(&key);
    if (opts.has(opt::NX) && found) || (opts.has(opt::XX) && !found) {
        return Ok(match old {
            Some(old) => Reply::bulk_or_nil(old.as_deref()),
            None => replies.abort,
        });
    }
    let keep_ttl = opts.has(opt::KEEPTTL);
    match deadline {
        Some(at) => {
            ctx.set_value(
                key.clone(),
                Value::Str(StrValue::new(value.clone())),
                keep_ttl,
            );
            ctx.notify(class::STRING, "set", &key);
            ctx.set_expire(&key, Some(at));
            ctx.notify(class::GENERIC, "expire", &key);
            ctx.propagate(vec![
                b"SET".to_vec(),
                key,
                value,
                b"PXAT".to_vec(),
                at.to_string().into_bytes(),
            ]);
        }
        None => {
            ctx.set_value(key.clone(), Value::Str(StrValue::new(value)), keep_ttl);
            ctx.notify(class::STRING, "set", &key);
            if opts.has(opt::GET) {
                // Replayed without GET, which may appear several times among the options.
                let without_get = argv
                    .iter()
                    .enumerate()
                    .filter(|(i, a)| *i < 3 || !is_opt(a, "GET"))
                    .map(|(_, a)| a.clone())
                    .collect();
                ctx.propagate(without_get);
            }
        }
    }
    Ok(match old {
        Some(old) => Reply::bulk_or_nil(old.as_deref()),
        None => replies.ok,
    })
}

/// Default replies of SET: `OK`, or nil when NX/XX stops it.
fn set_replies() -> SetReplies {
    SetReplies {
        ok: Reply::ok(),
        abort: Reply::Nil,
    }
}

/// Grows `bytes` to `len` with zero bytes, failing instead of aborting when memory is
/// short (a huge SETRANGE offset in a browser tab).
fn grow_zeroed(bytes: &mut Vec<u8>, len: usize) -> CmdResult<()> {
    if len > bytes.len() {
        bytes
            .try_reserve_exact(len - bytes.len())
            .map_err(|_| Error::OutOfMemory)?;
        bytes.resize(len, 0);
    }
    Ok(())
}

/// `offset..offset + len` as memory indices; a span this machine cannot address (a
/// configured limit beyond a 32-bit address space) is out of memory.
fn byte_span(offset: u64, len: usize) -> CmdResult<(usize, usize)> {
    let start = usize::try_from(offset).map_err(|_| Error::OutOfMemory)?;
    let end = start.checked_add(len).ok_or(Error::OutOfMemory)?;
    Ok((start, end))
}

// ---------------------------------------------------------------------------------------
// GET and SET families
// ---------------------------------------------------------------------------------------

/// `GET key`: the string at `key`, nil if missing, WRONGTYPE for other types.
fn get(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    let key = args.next_bytes()?.to_vec();
    Ok(Reply::bulk_or_nil(read_string(ctx, &key)?.as_deref()))
}

/// `SET key value [NX | XX] [GET] [EX s | PX ms | EXAT unix-s | PXAT unix-ms | KEEPTTL]`.
///
/// Stores `value`, removing any expiry unless KEEPTTL. NX/XX make it conditional (then it
/// replies nil when it did nothing); GET replies with the old string instead of OK (and
/// fails with WRONGTYPE, setting nothing, if the key holds another type). Expire values
/// must be positive and not overflow (`ERR invalid expire time in 'set' command`); a
/// deadline in the past is stored as given and the key then expires on next access, as in
/// Redis 7.0. Option conflicts (NX with XX, two different expire options, KEEPTTL with an
/// expire) are syntax errors.
fn set(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    let key = args.next_bytes()?.to_vec();
    let value = args.next_bytes()?.to_vec();
    let opts = parse_ext_opts(args, OptsFor::Set)?;
    set_generic(ctx, key, value, &opts, "set", set_replies(), args.argv())
}

/// `SETNX key value`: sets only if `key` does not exist; replies 1 if set, else 0.
fn setnx(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    let key = args.next_bytes()?.to_vec();
    let value = args.next_bytes()?.to_vec();
    let opts = ExtOpts {
        flags: opt::NX,
        expire: None,
    };
    let replies = SetReplies {
        ok: Reply::Integer(1),
        abort: Reply::Integer(0),
    };
    set_generic(ctx, key, value, &opts, "setnx", replies, &[])
}

/// `SETEX key seconds value`: SET with `EX seconds`.
fn setex(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    set_with_ttl(ctx, args, opt::EX, "setex")
}

/// `PSETEX key milliseconds value`: SET with `PX milliseconds`.
fn psetex(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    set_with_ttl(ctx, args, opt::PX, "psetex")
}

/// SETEX and PSETEX.
fn set_with_ttl(ctx: &mut Ctx<'_>, args: &mut Args, flag: u16, cmd: &str) -> CmdResult {
    let key = args.next_owned()?;
    let ttl = args.next_owned()?;
    let value = args.next_owned()?;
    let opts = ExtOpts {
        flags: flag,
        expire: Some(ttl),
    };
    set_generic(ctx, key, value, &opts, cmd, set_replies(), &[])
}

/// `GETSET key value`: sets `value` (removing any expiry) and replies with the old string
/// or nil; WRONGTYPE (and no change) if the key holds another type. Replayed as SET.
fn getset(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    let key = args.next_owned()?;
    let value = args.next_owned()?;
    let old = read_string(ctx, &key)?;
    ctx.set_value(key.clone(), Value::Str(StrValue::new(value.clone())), false);
    ctx.notify(class::STRING, "set", &key);
    ctx.propagate(vec![b"SET".to_vec(), key, value]);
    Ok(Reply::bulk_or_nil(old.as_deref()))
}

/// `GETDEL key`: replies with the string and deletes the key; nil if missing, WRONGTYPE
/// (and no change) for other types. Replayed as DEL.
fn getdel(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    let key = args.next_owned()?;
    let old = read_string(ctx, &key)?;
    if old.is_some() && ctx.delete(&key) {
        ctx.notify(class::GENERIC, "del", &key);
        ctx.propagate(vec![b"DEL".to_vec(), key]);
    }
    Ok(Reply::bulk_or_nil(old.as_deref()))
}

/// `GETEX key [EX s | PX ms | EXAT unix-s | PXAT unix-ms | PERSIST]`.
///
/// Like GET, and also sets (or with PERSIST removes) the key's expiry. Options are checked
/// first (syntax), then the key (nil if missing, WRONGTYPE), then the expire value. An
/// EXAT/PXAT deadline already past deletes the key (replayed as DEL); other deadlines are
/// replayed as `PEXPIREAT key ms`, a PERSIST that removed an expiry as `PERSIST key`.
fn getex(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    let key = args.next_owned()?;
    let opts = parse_ext_opts(args, OptsFor::Get)?;
    let Some(value) = read_string(ctx, &key)? else {
        return Ok(Reply::Nil);
    };
    let deadline = match &opts.expire {
        Some(arg) => Some(expire_at_ms(arg, opts.flags, ctx.now_ms, "getex")?),
        None => None,
    };
    let absolute = opts.has(opt::EXAT | opt::PXAT);
    match deadline {
        Some(at) if absolute && at <= ctx.now_ms => {
            ctx.delete(&key);
            ctx.notify(class::GENERIC, "del", &key);
            ctx.propagate(vec![b"DEL".to_vec(), key]);
        }
        Some(at) => {
            ctx.set_expire(&key, Some(at));
            ctx.notify(class::GENERIC, "expire", &key);
            ctx.dirty += 1;
            ctx.propagate(vec![
                b"PEXPIREAT".to_vec(),
                key,
                at.to_string().into_bytes(),
            ]);
        }
        None if opts.has(opt::PERSIST) => {
            let had_ttl = ctx
                .db()
                .get_raw(&key)
                .is_some_and(|e| e.expire_at.is_some());
            if had_ttl {
                ctx.set_expire(&key, None);
                ctx.notify(class::GENERIC, "persist", &key);
                ctx.dirty += 1;
                ctx.propagate(vec![b"PERSIST".to_vec(), key]);
            }
        }
        None => {}
    }
    Ok(Reply::Bulk(value))
}

/// `MGET key [key ...]`: the string at each key, nil for missing keys and keys of other
/// types (never WRONGTYPE).
fn mget(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    let keys = args.rest();
    let mut out = Vec::with_capacity(keys.len());
    for key in &keys {
        out.push(match ctx.lookup_read(key) {
            Some(Value::Str(s)) => Reply::bulk(&s.bytes),
            _ => Reply::Nil,
        });
    }
    Ok(Reply::Array(out))
}

/// `MSET key value [key value ...]`: sets every pair, removing expiries; an odd number of
/// arguments is an arity error.
fn mset(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    mset_generic(ctx, args, false)
}

/// `MSETNX key value [key value ...]`: sets every pair only if none of the keys exists;
/// replies 1 if it set them, 0 otherwise.
fn msetnx(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    mset_generic(ctx, args, true)
}

/// MSET and MSETNX.
fn mset_generic(ctx: &mut Ctx<'_>, args: &mut Args, nx: bool) -> CmdResult {
    if args.remaining() % 2 != 0 {
        return Err(Error::WrongArity(args.name()));
    }
    let pairs = args.rest();
    if nx {
        for key in pairs.iter().step_by(2) {
            if ctx.exists(key) {
                return Ok(Reply::Integer(0));
            }
        }
    }
    let mut it = pairs.into_iter();
    while let (Some(key), Some(value)) = (it.next(), it.next()) {
        ctx.set_value(key.clone(), Value::Str(StrValue::new(value)), false);
        ctx.notify(class::STRING, "set", &key);
    }
    Ok(if nx { Reply::Integer(1) } else { Reply::ok() })
}

// ---------------------------------------------------------------------------------------
// Counters
// ---------------------------------------------------------------------------------------

/// `INCR key`: adds 1 (see [`incr_by`]).
fn incr(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    let key = args.next_bytes()?.to_vec();
    incr_by(ctx, key, 1)
}

/// `DECR key`: subtracts 1 (see [`incr_by`]).
fn decr(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    let key = args.next_bytes()?.to_vec();
    incr_by(ctx, key, -1)
}

/// `INCRBY key increment` (see [`incr_by`]).
fn incrby(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    let key = args.next_bytes()?.to_vec();
    let by = args.next_i64()?;
    incr_by(ctx, key, by)
}

/// `DECRBY key decrement`: `ERR decrement would overflow` for the one decrement whose
/// negation does not fit (−2^63), otherwise INCRBY by the negation.
fn decrby(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    let key = args.next_bytes()?.to_vec();
    let by = args.next_i64()?;
    let neg = by
        .checked_neg()
        .ok_or_else(|| Error::Err("decrement would overflow".into()))?;
    incr_by(ctx, key, neg)
}

/// Redis's `incrDecrCommand`: the key must hold a canonical decimal `i64` (a missing key
/// counts as 0; otherwise `ERR value is not an integer or out of range`), the sum must
/// fit (`ERR increment or decrement would overflow`). The result is stored in the `int`
/// encoding and the key keeps its expiry.
fn incr_by(ctx: &mut Ctx<'_>, key: Vec<u8>, by: i64) -> CmdResult {
    let current = match ctx.lookup_write(&key) {
        Some(e) => e.value.as_str()?.as_i64().ok_or(Error::NotInteger)?,
        None => 0,
    };
    let new = current.checked_add(by).ok_or(Error::Overflow)?;
    ctx.set_value(
        key.clone(),
        Value::Str(StrValue::new(new.to_string().into_bytes())),
        true,
    );
    ctx.notify(class::STRING, "incrby", &key);
    Ok(Reply::Integer(new))
}

/// `INCRBYFLOAT key increment`.
///
/// Adds as C `long double` (x87 extended precision) and stores the sum printed as Redis
/// prints it (see [`crate::engine::longdouble`]). The key's value and the increment must be
/// valid floats (`ERR value is not a valid float`, checked in that order); an infinite sum
/// is `ERR increment would produce NaN or Infinity`. The key keeps its expiry; the result
/// never uses the `int` encoding. Replayed as `SET key <result> KEEPTTL`.
fn incrbyfloat(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    let key = args.next_owned()?;
    let incr_arg = args.next_bytes()?.to_vec();
    let current = match ctx.lookup_write(&key) {
        Some(e) => LongDouble::parse(&e.value.as_str()?.bytes).ok_or(Error::NotFloat)?,
        None => LongDouble::zero(),
    };
    let by = LongDouble::parse(&incr_arg).ok_or(Error::NotFloat)?;
    let sum = current + by;
    if !sum.is_finite() {
        return Err(Error::NanOrInfinity);
    }
    let text = sum.to_human().into_bytes();
    ctx.set_value(key.clone(), Value::Str(StrValue::plain(text.clone())), true);
    ctx.notify(class::STRING, "incrbyfloat", &key);
    ctx.propagate(vec![
        b"SET".to_vec(),
        key,
        text.clone(),
        b"KEEPTTL".to_vec(),
    ]);
    Ok(Reply::Bulk(text))
}

// ---------------------------------------------------------------------------------------
// Lengths and ranges
// ---------------------------------------------------------------------------------------

/// `APPEND key value`: appends to the string (creating it if missing) and replies with the
/// new length. Fails with `ERR string exceeds maximum allowed size (proto-max-bulk-len)`
/// before growing past the limit. The value becomes `raw` and keeps its expiry.
fn append(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    let key = args.next_bytes()?.to_vec();
    let tail = args.next_bytes()?.to_vec();
    let max = max_bulk_len(ctx);
    let Some(entry) = ctx.lookup_write(&key) else {
        let len = tail.len();
        ctx.set_value(key.clone(), Value::Str(StrValue::new(tail)), false);
        ctx.notify(class::STRING, "append", &key);
        return Ok(Reply::Integer(len as i64));
    };
    let s = entry.value.as_str_mut()?;
    check_string_length(max, s.len() as u64, tail.len() as u64)?;
    s.bytes
        .try_reserve(tail.len())
        .map_err(|_| Error::OutOfMemory)?;
    s.bytes.extend_from_slice(&tail);
    s.raw = true;
    let len = s.len();
    ctx.dirty += 1;
    ctx.notify(class::STRING, "append", &key);
    Ok(Reply::Integer(len as i64))
}

/// `STRLEN key`: the length of the string, 0 if missing, WRONGTYPE for other types.
fn strlen(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    let key = args.next_bytes()?.to_vec();
    match ctx.lookup_read(&key) {
        Some(v) => Ok(Reply::Integer(v.as_str()?.len() as i64)),
        None => Ok(Reply::Integer(0)),
    }
}

/// `GETRANGE key start end` (and its old name `SUBSTR`): the bytes from `start` to `end`
/// inclusive; negative offsets count from the end, out-of-range offsets are clamped, an
/// empty range (or missing key) gives `""`.
fn getrange(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    let key = args.next_bytes()?.to_vec();
    let mut start = args.next_i64()?;
    let mut end = args.next_i64()?;
    let Some(bytes) = read_string(ctx, &key)? else {
        return Ok(Reply::Bulk(Vec::new()));
    };
    let len = bytes.len() as i64;
    if start < 0 && end < 0 && start > end {
        return Ok(Reply::Bulk(Vec::new()));
    }
    if start < 0 {
        start = len.saturating_add(start);
    }
    if end < 0 {
        end = len.saturating_add(end);
    }
    start = start.max(0);
    end = end.max(0);
    if end >= len {
        end = len - 1;
    }
    if start > end || len == 0 {
        return Ok(Reply::Bulk(Vec::new()));
    }
    Ok(Reply::bulk(&bytes[start as usize..=end as usize]))
}

/// `SETRANGE key offset value`: overwrites from `offset`, padding with zero bytes, and
/// replies with the new length. `ERR offset is out of range` for a negative offset (checked
/// before the key's type); an empty value changes nothing and replies the current length
/// (0 for a missing key, which is not created); a result longer than `proto-max-bulk-len`
/// is refused before anything grows. The value becomes `raw` and keeps its expiry.
fn setrange(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    let key = args.next_bytes()?.to_vec();
    let offset = args.next_i64()?;
    let value = args.next_bytes()?.to_vec();
    if offset < 0 {
        return Err(Error::OffsetOutOfRange);
    }
    let max = max_bulk_len(ctx);
    let offset = offset as u64;
    match ctx.lookup_write(&key) {
        None => {
            if value.is_empty() {
                return Ok(Reply::Integer(0));
            }
            check_string_length(max, offset, value.len() as u64)?;
            let (start, end) = byte_span(offset, value.len())?;
            let mut bytes = Vec::new();
            grow_zeroed(&mut bytes, end)?;
            bytes[start..end].copy_from_slice(&value);
            let len = bytes.len();
            ctx.set_value(key.clone(), Value::Str(StrValue::raw(bytes)), false);
            ctx.notify(class::STRING, "setrange", &key);
            Ok(Reply::Integer(len as i64))
        }
        Some(entry) => {
            let s = entry.value.as_str_mut()?;
            if value.is_empty() {
                return Ok(Reply::Integer(s.len() as i64));
            }
            check_string_length(max, offset, value.len() as u64)?;
            let (start, end) = byte_span(offset, value.len())?;
            grow_zeroed(&mut s.bytes, end)?;
            s.bytes[start..end].copy_from_slice(&value);
            s.raw = true;
            let len = s.len();
            ctx.dirty += 1;
            ctx.notify(class::STRING, "setrange", &key);
            Ok(Reply::Integer(len as i64))
        }
    }
}

// ---------------------------------------------------------------------------------------
// LCS
// ---------------------------------------------------------------------------------------

/// `LCS key1 key2 [LEN] [IDX] [MINMATCHLEN len] [WITHMATCHLEN]`.
///
/// The longest common subsequence of two strings (missing keys are empty strings; other
/// types give `ERR The specified keys must contain string values`), computed with the
/// classic O(N·M) table as Redis does, so the same subsequence is chosen when there are
/// several. LEN replies with its length; IDX with the matching ranges, last first
/// (`[[a_start, a_end], [b_start, b_end], (len)]`), keeping ranges at least MINMATCHLEN long
/// and adding their length with WITHMATCHLEN. LEN with IDX is an error. The table must fit
/// in `proto-max-bulk-len` bytes (4 bytes per cell).
fn lcs(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    let key_a = args.next_bytes()?.to_vec();
    let key_b = args.next_bytes()?.to_vec();
    let not_strings = || Error::Err("The specified keys must contain string values".into());
    let a = match ctx.lookup_read(&key_a) {
        Some(Value::Str(s)) => Some(s.bytes.clone()),
        Some(_) => None,
        None => Some(Vec::new()),
    };
    let b = match ctx.lookup_read(&key_b) {
        Some(Value::Str(s)) => Some(s.bytes.clone()),
        Some(_) => None,
        None => Some(Vec::new()),
    };
    let (Some(a), Some(b)) = (a, b) else {
        return Err(not_strings());
    };

    let (mut get_len, mut get_idx, mut with_match_len) = (false, false, false);
    let mut min_match_len: u64 = 0;
    while let Some(arg) = args.peek() {
        if is_opt(arg, "IDX") {
            get_idx = true;
        } else if is_opt(arg, "LEN") {
            get_len = true;
        } else if is_opt(arg, "WITHMATCHLEN") {
            with_match_len = true;
        } else if is_opt(arg, "MINMATCHLEN") && args.remaining() > 1 {
            args.next_bytes()?;
            min_match_len = args.next_i64()?.max(0) as u64;
            continue;
        } else {
            return Err(Error::Syntax);
        }
        args.next_bytes()?;
    }
    if get_len && get_idx {
        return Err(Error::Err(
            "If you want both the length and indexes, please just use IDX.".into(),
        ));
    }
    if a.len() as u64 >= u64::from(u32::MAX) - 1 || b.len() as u64 >= u64::from(u32::MAX) - 1 {
        return Err(Error::Err("String too long for LCS".into()));
    }
    let (alen, blen) = (a.len(), b.len());
    let cells = (alen as u64 + 1) * (blen as u64 + 1);
    if cells.saturating_mul(4) > max_bulk_len(ctx) {
        return Err(Error::Err(
            "Insufficient memory, transient memory for LCS exceeds proto-max-bulk-len".into(),
        ));
    }
    let mut table: Vec<u32> = Vec::new();
    let alloc_failed =
        || Error::Err("Insufficient memory, failed allocating transient memory for LCS".into());
    let cells = usize::try_from(cells).map_err(|_| alloc_failed())?;
    table.try_reserve_exact(cells).map_err(|_| alloc_failed())?;
    table.resize(cells, 0);
    let w = blen + 1;
    for i in 1..=alen {
        for j in 1..=blen {
            table[i * w + j] = if a[i - 1] == b[j - 1] {
                table[(i - 1) * w + (j - 1)] + 1
            } else {
                table[(i - 1) * w + j].max(table[i * w + (j - 1)])
            };
        }
    }
    let total = table[alen * w + blen];

    // Walk back from the end, collecting the subsequence and the matching ranges exactly
    // as Redis's loop does (ranges are emitted from the end of the strings backwards).
    let compute = get_idx || !get_len;
    let mut result = vec![0u8; if compute { total as usize } else { 0 }];
    let mut idx = total as usize;
    let mut matches = Vec::new();
    let (mut i, mut j) = (alen, blen);
    // `arange_start == alen` means "no range open", as in Redis.
    let (mut a_start, mut a_end, mut b_start, mut b_end) = (alen, 0usize, 0usize, 0usize);
    while compute && i > 0 && j > 0 {
        let mut emit = false;
        if a[i - 1] == b[j - 1] {
            result[idx - 1] = a[i - 1];
            if a_start == alen {
                a_start = i - 1;
                a_end = i - 1;
                b_start = j - 1;
                b_end = j - 1;
            } else if a_start == i && b_start == j {
                a_start -= 1;
                b_start -= 1;
            } else {
                emit = true;
            }
            if a_start == 0 || b_start == 0 {
                emit = true;
            }
            idx -= 1;
            i -= 1;
            j -= 1;
        } else {
            if table[(i - 1) * w + j] > table[i * w + (j - 1)] {
                i -= 1;
            } else {
                j -= 1;
            }
            if a_start != alen {
                emit = true;
            }
        }
        if emit {
            let match_len = (a_end - a_start + 1) as u64;
            if get_idx && (min_match_len == 0 || match_len >= min_match_len) {
                let mut range = vec![
                    Reply::Array(vec![
                        Reply::Integer(a_start as i64),
                        Reply::Integer(a_end as i64),
                    ]),
                    Reply::Array(vec![
                        Reply::Integer(b_start as i64),
                        Reply::Integer(b_end as i64),
                    ]),
                ];
                if with_match_len {
                    range.push(Reply::Integer(match_len as i64));
                }
                matches.push(Reply::Array(range));
            }
            a_start = alen;
        }
    }

    Ok(if get_idx {
        map_reply(
            ctx.client.proto,
            vec![
                (Reply::bulk(b"matches"), Reply::Array(matches)),
                (Reply::bulk(b"len"), Reply::Integer(i64::from(total))),
            ],
        )
    } else if get_len {
        Reply::Integer(i64::from(total))
    } else {
        Reply::Bulk(result)
    })
}

#[cfg(test)]
mod tests {
    use crate::engine::cli::split_args;
    use crate::engine::keyspace::Entry;
    use crate::engine::types::Value;
    use crate::engine::{Clock, Effect, Engine, ManualClock, Reply, NUM_DBS};

    const T0: i64 = 1_704_067_200_000;

    fn engine() -> (Engine, ManualClock, u64) {
        let clock = ManualClock::at_ms(T0);
        let mut e = Engine::new(Box::new(clock.clone()), 7);
        let c = e.connect();
        (e, clock, c)
    }

    fn run(e: &mut Engine, c: u64, line: &str) -> Reply {
        let argv = split_args(line).expect("balanced quotes");
        e.execute(c, argv)
    }

    fn encoding(e: &Engine, key: &str) -> &'static str {
        e.server().dbs[0]
            .get_raw(key.as_bytes())
            .map_or("none", |en| en.value.encoding())
    }

    fn effects(e: &mut Engine) -> Vec<String> {
        e.take_effects()
            .into_iter()
            .map(|ef| {
                ef.argv
                    .iter()
                    .map(|a| String::from_utf8_lossy(a).into_owned())
                    .collect::<Vec<_>>()
                    .join(" ")
            })
            .collect()
    }

    /// `OBJECT ENCODING` after each command, as redis-server 7.0.15 answered.
    #[test]
    fn encodings_match_redis() {
        let (mut e, _, c) = engine();
        let long45 = "x".repeat(45);
        let long44 = "x".repeat(44);
        for (cmd, key, want) in [
            ("SET a 12".to_string(), "a", "int"),
            ("SET b -9223372036854775808".into(), "b", "int"),
            ("SET c 012".into(), "c", "embstr"),
            (format!("SET d {long44}"), "d", "embstr"),
            (format!("SET e {long45}"), "e", "raw"),
            ("INCRBYFLOAT f 11".into(), "f", "embstr"),
            ("INCRBYFLOAT g 1.5".into(), "g", "embstr"),
            ("INCR i".into(), "i", "int"),
            ("SET j abc".into(), "j", "embstr"),
            ("APPEND j d".into(), "j", "raw"),
            ("APPEND k 12".into(), "k", "int"),
            ("SETRANGE l 0 12".into(), "l", "raw"),
            ("SET m 12".into(), "m", "int"),
            ("SETRANGE m 0 3".into(), "m", "raw"),
            ("SET n 1.5".into(), "n", "embstr"),
            ("INCRBY o 100000".into(), "o", "int"),
            ("GETSET p 7".into(), "p", "int"),
            ("MSET q 8 r hello".into(), "q", "int"),
            ("SETNX s 9".into(), "s", "int"),
            ("SETEX t 100 10".into(), "t", "int"),
            ("PSETEX u 100000 x".into(), "u", "embstr"),
            ("SET v abc".into(), "v", "embstr"),
            ("SETRANGE v 0 \"\"".into(), "v", "embstr"),
            ("APPEND w \"\"".into(), "w", "embstr"),
            (format!("INCRBYFLOAT y {}", "1".repeat(50)), "y", "raw"),
        ] {
            assert!(!run(&mut e, c, &cmd).is_error(), "{cmd}");
            assert_eq!(encoding(&e, key), want, "{cmd}");
        }
    }

    #[test]
    fn effects_are_replayable_forms() {
        let (mut e, _, c) = engine();
        let at = T0 + 10_000;
        for (cmd, want) in [
            ("SET k v", vec!["SET k v".to_string()]),
            ("SET k v NX", vec![]),
            ("SET k w XX GET get", vec!["SET k w XX".into()]),
            ("SET k v EX 10 GET", vec![format!("SET k v PXAT {at}")]),
            ("SET k v PX 10000 XX", vec![format!("SET k v PXAT {at}")]),
            ("SETEX k 10 v", vec![format!("SET k v PXAT {at}")]),
            ("PSETEX k 10000 v", vec![format!("SET k v PXAT {at}")]),
            ("SET k v KEEPTTL", vec!["SET k v KEEPTTL".into()]),
            ("SETNX k v", vec![]),
            ("GETSET k x", vec!["SET k x".into()]),
            ("GETEX k", vec![]),
            ("GETEX k PERSIST", vec![]),
            ("GETEX k EX 10", vec![format!("PEXPIREAT k {at}")]),
            ("GETEX k PERSIST", vec!["PERSIST k".into()]),
            ("GETEX k PXAT 1", vec!["DEL k".into()]),
            ("GETDEL k", vec![]),
            ("SET k 10.5", vec!["SET k 10.5".into()]),
            ("INCRBYFLOAT k 0.1", vec!["SET k 10.6 KEEPTTL".into()]),
            ("INCRBYFLOAT k abc", vec![]),
            ("GETDEL k", vec!["DEL k".into()]),
            ("INCR n", vec!["INCR n".into()]),
            ("INCRBY n 9223372036854775807", vec![]),
            ("APPEND n x", vec!["APPEND n x".into()]),
            ("SETRANGE n 0 \"\"", vec![]),
            ("SETRANGE n 1 y", vec!["SETRANGE n 1 y".into()]),
            ("MSETNX n 1 m 2", vec![]),
            ("MSET n 1 m 2", vec!["MSET n 1 m 2".into()]),
            ("HSET h a 1", vec!["HSET h a 1".into()]),
            ("HDEL h nope", vec![]),
            ("HSETNX h a 2", vec![]),
            ("HINCRBYFLOAT h a 1.5", vec!["HSET h a 2.5".into()]),
            ("HINCRBY h a 1", vec![]),
            ("HDEL h a", vec!["HDEL h a".into()]),
        ] {
            run(&mut e, c, cmd);
            assert_eq!(effects(&mut e), want, "{cmd}");
        }
        assert_eq!(e.server().dirty, 22);
    }

    /// One key of a dump: name, value as text, deadline.
    type Row = (Vec<u8>, String, Option<i64>);

    /// Everything a database holds, in a comparable form (bytes and deadlines; encodings
    /// are not part of the data and legitimately change on replay, as after an AOF load).
    fn dump(e: &Engine) -> Vec<Vec<Row>> {
        (0..NUM_DBS)
            .map(|db| {
                let mut rows: Vec<_> = e.server().dbs[db]
                    .iter()
                    .map(
                        |(
                            k,
                            Entry {
                                value, expire_at, ..
                            },
                        )| {
                            let v = match value {
                                Value::Str(s) => format!("str {:?}", s.bytes),
                                Value::Hash(h) => format!("hash big={} {:?}", h.big, h.map),
                                other => format!("{other:?}"),
                            };
                            (k.clone(), v, *expire_at)
                        },
                    )
                    .collect();
                rows.sort();
                rows
            })
            .collect()
    }

    /// Applies DEL, PEXPIREAT and PERSIST directly when the command table lacks them (they
    /// belong to the keyspace group); returns false when the table should run the effect.
    fn replay_keyspace_effect(e: &mut Engine, ef: &Effect) -> bool {
        let name = String::from_utf8_lossy(&ef.argv[0]).to_ascii_uppercase();
        if crate::engine::table::lookup(name.as_bytes()).is_some() {
            return false;
        }
        let db = &mut e.srv.dbs[ef.db];
        let key = &ef.argv[1];
        match name.as_str() {
            "DEL" => {
                db.remove(key);
            }
            "PEXPIREAT" => {
                let at = crate::engine::args::parse_i64(&ef.argv[2]);
                db.set_expire(key, at);
            }
            "PERSIST" => {
                db.set_expire(key, None);
            }
            _ => return false,
        }
        true
    }

    #[test]
    fn replaying_effects_rebuilds_the_same_data() {
        let script = [
            "SET a 1",
            "SET b hello EX 5",
            "SET c v PX 100",
            "SET d v PXAT 1",
            "INCR a",
            "INCRBYFLOAT f 0.1",
            "INCRBYFLOAT f 1e300",
            "APPEND b \" world\"",
            "SETRANGE s 3 abc",
            "GETEX b PX 50",
            "@200",
            "GET c",
            "INCR c",
            "SET e v EX 100",
            "GETEX e PERSIST",
            "SET g v KEEPTTL GET",
            "MSET m1 x m2 y",
            "MSETNX m3 z m1 no",
            "GETSET m1 z",
            "GETDEL m2",
            "SELECT 3",
            "SETEX x 1 v",
            "SET y v NX",
            "SET y w NX",
            "HSET h a 1 b 2 c 3",
            "HINCRBY h a 5",
            "HINCRBYFLOAT h b 0.25",
            "HINCRBYFLOAT h long 1111111111111111111111111111111111111111111111111111111111111111111111",
            "HDEL h c",
            "HSETNX h c 4",
            "HMSET h2 x 1",
            "HDEL h2 x",
            "@2000",
            "INCRBYFLOAT x 1",
            "SELECT 0",
            "GETEX a EXAT 1",
        ];
        let (mut a, clock, c) = engine();
        let mut log: Vec<(i64, Vec<Effect>)> = Vec::new();
        for line in script {
            if let Some(ms) = line.strip_prefix('@') {
                clock.advance_ms(ms.parse().unwrap_or(0));
                continue;
            }
            let reply = run(&mut a, c, line);
            assert!(!reply.is_error(), "{line}: {reply:?}");
            log.push((clock.now_ms(), a.take_effects()));
        }
        let (mut b, clock_b, cb) = engine();
        for (at, effects) in log {
            clock_b.set_ms(at);
            for ef in effects {
                if replay_keyspace_effect(&mut b, &ef) {
                    continue;
                }
                run(&mut b, cb, &format!("SELECT {}", ef.db));
                let reply = b.execute(cb, ef.argv.clone());
                assert!(!reply.is_error(), "{:?}: {reply:?}", ef.argv);
            }
        }
        assert_eq!(dump(&a), dump(&b));
        assert!(!dump(&a)[0].is_empty() && !dump(&a)[3].is_empty());
    }

    /// With `proto-max-bulk-len` at its minimum (1 MB), as checked against redis-server.
    #[test]
    fn proto_max_bulk_len_limits_growth_and_lcs() {
        let (mut e, _, c) = engine();
        e.srv
            .config
            .values
            .insert("proto-max-bulk-len".into(), "1048576".into());
        let err =
            Reply::Error("ERR string exceeds maximum allowed size (proto-max-bulk-len)".into());
        run(&mut e, c, &format!("SET k {}", "x".repeat(1048575)));
        assert_eq!(run(&mut e, c, "APPEND k x"), Reply::Integer(1048576));
        assert_eq!(run(&mut e, c, "APPEND k x"), err);
        assert_eq!(
            run(&mut e, c, "SETRANGE k 1048575 y"),
            Reply::Integer(1048576)
        );
        assert_eq!(run(&mut e, c, "SETRANGE k 1048576 y"), err);
        assert_eq!(
            run(&mut e, c, "SETRANGE k2 1048575 y"),
            Reply::Integer(1048576)
        );
        assert_eq!(run(&mut e, c, "SETRANGE k3 1048576 y"), err);
        assert_eq!(e.server().dbs[0].get_raw(b"k3").map(|_| ()), None);

        let lcs_err = Reply::Error(
            "ERR Insufficient memory, transient memory for LCS exceeds proto-max-bulk-len".into(),
        );
        run(
            &mut e,
            c,
            &format!("MSET a {} b {}", "a".repeat(511), "b".repeat(511)),
        );
        assert_eq!(run(&mut e, c, "LCS a b LEN"), Reply::Integer(0));
        run(&mut e, c, &format!("SET a {}", "a".repeat(512)));
        assert_eq!(run(&mut e, c, "LCS a b LEN"), lcs_err);
    }

    #[test]
    fn resp3_shapes() {
        let (mut e, _, c) = engine();
        if let Some(cl) = e.clients.get_mut(&c) {
            cl.proto = 3;
        }
        run(&mut e, c, "MSET a ab b xb");
        run(&mut e, c, "HSET h f v");
        let pair = Reply::Array(vec![Reply::bulk(b"f"), Reply::bulk(b"v")]);
        assert_eq!(
            run(&mut e, c, "HRANDFIELD h -2 WITHVALUES"),
            Reply::Array(vec![pair.clone(), pair])
        );
        assert_eq!(
            run(&mut e, c, "HGETALL h"),
            Reply::Map(vec![(Reply::bulk(b"f"), Reply::bulk(b"v"))])
        );
        assert_eq!(run(&mut e, c, "HGETALL nokey"), Reply::Map(vec![]));
        let range = |s: i64, t: i64| Reply::Array(vec![Reply::Integer(s), Reply::Integer(t)]);
        assert_eq!(
            run(&mut e, c, "LCS a b IDX"),
            Reply::Map(vec![
                (
                    Reply::bulk(b"matches"),
                    Reply::Array(vec![Reply::Array(vec![range(1, 1), range(1, 1)])])
                ),
                (Reply::bulk(b"len"), Reply::Integer(1)),
            ])
        );
    }
}
