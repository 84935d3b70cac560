//! Hash writes: HSET, HMSET, HSETNX, HDEL, HINCRBY and HINCRBYFLOAT.

use super::common::{hash_or_create, limits, write_hash};
use crate::engine::args::{parse_i64, Args};
use crate::engine::error::{CmdResult, Error};
use crate::engine::longdouble::LongDouble;
use crate::engine::pubsub::class;
use crate::engine::{Ctx, Reply};

/// `HSET key field value [field value ...]`: sets each field (creating the hash if
/// missing) and replies with the number of fields that were new. An odd number of
/// field/value arguments is an arity error. Any field or value longer than
/// `hash-max-listpack-value` converts the hash first, even for fields that exist.
pub(super) fn hset(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    let created = hset_generic(ctx, args)?;
    Ok(Reply::Integer(created))
}

/// `HMSET key field value [field value ...]`: HSET that replies OK.
pub(super) fn hmset(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    hset_generic(ctx, args)?;
    Ok(Reply::ok())
}

/// HSET and HMSET: returns the number of new fields.
fn hset_generic(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult<i64> {
    if args.remaining() % 2 == 0 {
        return Err(Error::WrongArity(args.name()));
    }
    let (key, rest) = args.split_next()?;
    // Copied, not taken: the command's own argv is its effect.
    let pairs = rest.to_vec();
    let limits = limits(ctx);
    let h = hash_or_create(ctx, key)?;
    h.convert_for_args(pairs.iter().map(Vec::len), limits);
    let mut created = 0;
    let mut it = pairs.into_iter();
    while let (Some(field), Some(value)) = (it.next(), it.next()) {
        if h.insert(field, value, limits) {
            created += 1;
        }
    }
    ctx.dirty += rest.len() as u64 / 2;
    ctx.notify(class::HASH, "hset", key);
    Ok(created)
}

/// `HSETNX key field value`: sets the field only if it does not exist (creating the hash if
/// missing); replies 1 if it set it, else 0.
pub(super) fn hsetnx(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
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
pub(super) fn hdel(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
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
pub(super) fn hincrby(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
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
pub(super) fn hincrbyfloat(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
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
