//! What the string handlers share: the `proto-max-bulk-len` limit, option parsing for SET
//! and GETEX, the common SET path, and byte-range helpers for APPEND/SETRANGE/GETRANGE.

use crate::engine::args::{c_bytes, parse_i64, Args};
use crate::engine::error::{CmdResult, Error};
use crate::engine::pubsub::class;
use crate::engine::types::{StrValue, Value};
use crate::engine::{Ctx, Reply};

/// Default `proto-max-bulk-len`: 512 MB.
pub const DEFAULT_PROTO_MAX_BULK_LEN: u64 = 512 * 1024 * 1024;

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
pub(super) fn check_string_length(max: u64, size: u64, append: u64) -> CmdResult<()> {
    match size.checked_add(append) {
        Some(total) if total <= max => Ok(()),
        _ => Err(Error::StringTooLong),
    }
}

/// Case-insensitive comparison of an option argument with a keyword, as `strcasecmp` does.
pub(super) fn is_opt(arg: &[u8], word: &str) -> bool {
    c_bytes(arg).eq_ignore_ascii_case(word.as_bytes())
}

/// The string at `key` for reading (Redis's `getGenericCommand` lookup): `Ok(None)` if
/// missing, WRONGTYPE if not a string. Counts a keyspace hit or miss.
pub(super) fn read_string(ctx: &mut Ctx<'_>, key: &[u8]) -> CmdResult<Option<Vec<u8>>> {
    match ctx.lookup_read(key) {
        Some(v) => Ok(Some(v.as_str()?.as_bytes().to_vec())),
        None => Ok(None),
    }
}

/// Option flags of SET and GETEX (`OBJ_SET_NX`, … in Redis's `t_string.c`).
pub(super) mod opt {
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
pub(super) enum OptsFor {
    Set,
    Get,
}

/// Parsed SET/GETEX options: the flag bits and the raw expire argument.
pub(super) struct ExtOpts {
    pub(super) flags: u16,
    pub(super) expire: Option<Vec<u8>>,
}

impl ExtOpts {
    pub(super) fn has(&self, f: u16) -> bool {
        self.flags & f != 0
    }
}

/// Redis's `parseExtendedStringArgumentsOrReply`. Each option is accepted only if no
/// conflicting option came before it (repeating the same option is allowed, the last
/// expire value wins); anything else is a syntax error.
pub(super) fn parse_ext_opts(args: &mut Args, kind: OptsFor) -> CmdResult<ExtOpts> {
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
pub(super) fn expire_at_ms(arg: &[u8], flags: u16, now_ms: i64, cmd: &str) -> CmdResult<i64> {
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
pub(super) struct SetReplies {
    pub(super) ok: Reply,
    pub(super) abort: Reply,
}

/// Redis's `setGenericCommand`, shared by SET, SETNX, SETEX and PSETEX.
pub(super) fn set_generic(
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
            ctx.set_value(&key, Value::Str(StrValue::from_slice(&value)), keep_ttl);
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
            ctx.set_value(&key, Value::Str(StrValue::new(value)), keep_ttl);
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
pub(super) fn set_replies() -> SetReplies {
    SetReplies {
        ok: Reply::ok(),
        abort: Reply::Nil,
    }
}

/// Grows `bytes` to `len` with zero bytes, failing instead of aborting when memory is
/// short (a huge SETRANGE offset in a browser tab).
pub(super) fn grow_zeroed(bytes: &mut Vec<u8>, len: usize) -> CmdResult<()> {
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
pub(super) fn byte_span(offset: u64, len: usize) -> CmdResult<(usize, usize)> {
    let start = usize::try_from(offset).map_err(|_| Error::OutOfMemory)?;
    let end = start.checked_add(len).ok_or(Error::OutOfMemory)?;
    Ok((start, end))
}
