//! The GET and SET families: GET, SET with its options, SETNX, SETEX, PSETEX, GETSET, GETDEL,
//! GETEX, MGET, MSET and MSETNX.

use super::common::opt;
use super::common::{
    expire_at_ms, parse_ext_opts, read_string, set_generic, set_replies, ExtOpts, OptsFor,
    SetReplies,
};
use crate::engine::args::Args;
use crate::engine::error::{CmdResult, Error};
use crate::engine::pubsub::class;
use crate::engine::types::{StrValue, Value};
use crate::engine::{Ctx, Reply};

/// `GET key`: the string at `key`, nil if missing, WRONGTYPE for other types.
pub(super) fn get(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    let key = args.next_bytes()?;
    // read_string copied the value: it becomes the reply as it is.
    Ok(read_string(ctx, key)?.map_or(Reply::Nil, Reply::Bulk))
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
pub(super) fn set(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    let key = args.next_bytes()?.to_vec();
    let value = args.next_bytes()?.to_vec();
    let opts = parse_ext_opts(args, OptsFor::Set)?;
    set_generic(ctx, key, value, &opts, "set", set_replies(), args.argv())
}

/// `SETNX key value`: sets only if `key` does not exist; replies 1 if set, else 0.
pub(super) fn setnx(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
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
pub(super) fn setex(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    set_with_ttl(ctx, args, opt::EX, "setex")
}

/// `PSETEX key milliseconds value`: SET with `PX milliseconds`.
pub(super) fn psetex(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
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
pub(super) fn getset(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    let key = args.next_owned()?;
    let value = args.next_owned()?;
    let old = read_string(ctx, &key)?;
    ctx.set_value(&key, Value::Str(StrValue::from_slice(&value)), false);
    ctx.notify(class::STRING, "set", &key);
    ctx.propagate(vec![b"SET".to_vec(), key, value]);
    Ok(Reply::bulk_or_nil(old.as_deref()))
}

/// `GETDEL key`: replies with the string and deletes the key; nil if missing, WRONGTYPE
/// (and no change) for other types. Replayed as DEL.
pub(super) fn getdel(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
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
pub(super) fn getex(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
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
                .is_some_and(|e| e.expire_at().is_some());
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
pub(super) fn mget(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    let keys = args.rest();
    let mut out = Vec::with_capacity(keys.len());
    for key in &keys {
        out.push(match ctx.lookup_read(key) {
            Some(Value::Str(s)) => Reply::bulk(s.as_bytes()),
            _ => Reply::Nil,
        });
    }
    Ok(Reply::Array(out))
}

/// `MSET key value [key value ...]`: sets every pair, removing expiries; an odd number of
/// arguments is an arity error.
pub(super) fn mset(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    mset_generic(ctx, args, false)
}

/// `MSETNX key value [key value ...]`: sets every pair only if none of the keys exists;
/// replies 1 if it set them, 0 otherwise.
pub(super) fn msetnx(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
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
        ctx.set_value(&key, Value::Str(StrValue::new(value)), false);
        ctx.notify(class::STRING, "set", &key);
    }
    Ok(if nx { Reply::Integer(1) } else { Reply::ok() })
}
