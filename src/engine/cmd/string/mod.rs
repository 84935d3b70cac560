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
use crate::engine::pubsub::class;
use crate::engine::table::{Command, Flags, GetKeys, Group, KeySpec};
use crate::engine::types::{StrValue, Value};
use crate::engine::{Ctx, Reply};

mod counter;
mod getset;
mod lcs;
mod range;
#[cfg(test)]
mod tests;

use counter::{decr, decrby, incr, incrby, incrbyfloat};
use getset::{get, getdel, getex, getset, mget, mset, msetnx, psetex, set, setex, setnx};
use lcs::lcs;
use range::{append, getrange, setrange, strlen};

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
