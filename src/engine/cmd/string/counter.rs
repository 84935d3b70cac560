//! Counters: INCR, DECR, INCRBY, DECRBY and INCRBYFLOAT.

use crate::engine::args::Args;
use crate::engine::error::{CmdResult, Error};
use crate::engine::longdouble::LongDouble;
use crate::engine::pubsub::class;
use crate::engine::types::{StrValue, Value};
use crate::engine::{Ctx, Reply};

/// `INCR key`: adds 1 (see [`incr_by`]).
pub(super) fn incr(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    incr_by(ctx, args.next_bytes()?, 1)
}

/// `DECR key`: subtracts 1 (see [`incr_by`]).
pub(super) fn decr(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    incr_by(ctx, args.next_bytes()?, -1)
}

/// `INCRBY key increment` (see [`incr_by`]).
pub(super) fn incrby(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    let key = args.next_bytes()?.to_vec();
    let by = args.next_i64()?;
    incr_by(ctx, &key, by)
}

/// `DECRBY key decrement`: `ERR decrement would overflow` for the one decrement whose
/// negation does not fit (−2^63), otherwise INCRBY by the negation.
pub(super) fn decrby(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    let key = args.next_bytes()?.to_vec();
    let by = args.next_i64()?;
    let neg = by
        .checked_neg()
        .ok_or_else(|| Error::Err("decrement would overflow".into()))?;
    incr_by(ctx, &key, neg)
}

/// Redis's `incrDecrCommand`: the key must hold a canonical decimal `i64` (a missing key
/// counts as 0; otherwise `ERR value is not an integer or out of range`), the sum must
/// fit (`ERR increment or decrement would overflow`). The result is stored in the `int`
/// encoding and the key keeps its expiry.
///
/// An existing key's value is replaced in place, as Redis does (`dbOverwrite`, or the
/// object itself): no copy of the key, one lookup.
fn incr_by(ctx: &mut Ctx<'_>, key: &[u8], by: i64) -> CmdResult {
    let new = match ctx.lookup_write(key) {
        Some(e) => {
            let current = e.value.as_str()?.as_i64().ok_or(Error::NotInteger)?;
            let new = current.checked_add(by).ok_or(Error::Overflow)?;
            e.value = Value::Str(StrValue::from_i64(new));
            // A change: dispatch signals the key (WATCH, blocked clients, tracking).
            ctx.dirty += 1;
            new
        }
        None => {
            // A missing counter counts as 0.
            ctx.set_value(key, Value::Str(StrValue::from_i64(by)), true);
            by
        }
    };
    ctx.notify(class::STRING, "incrby", key);
    Ok(Reply::Integer(new))
}

/// `INCRBYFLOAT key increment`.
///
/// Adds as C `long double` (x87 extended precision) and stores the sum printed as Redis
/// prints it (see [`crate::engine::longdouble`]). The key's value and the increment must be
/// valid floats (`ERR value is not a valid float`, checked in that order); an infinite sum
/// is `ERR increment would produce NaN or Infinity`. The key keeps its expiry; the result
/// never uses the `int` encoding. Replayed as `SET key <result> KEEPTTL`.
pub(super) fn incrbyfloat(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    let key = args.next_owned()?;
    let incr_arg = args.next_bytes()?.to_vec();
    let current = match ctx.lookup_write(&key) {
        Some(e) => LongDouble::parse(e.value.as_str()?.as_bytes()).ok_or(Error::NotFloat)?,
        None => LongDouble::zero(),
    };
    let by = LongDouble::parse(&incr_arg).ok_or(Error::NotFloat)?;
    let sum = current + by;
    if !sum.is_finite() {
        return Err(Error::NanOrInfinity);
    }
    let text = sum.to_human().into_bytes();
    ctx.set_value(&key, Value::Str(StrValue::plain(text.clone())), true);
    ctx.notify(class::STRING, "incrbyfloat", &key);
    ctx.propagate(vec![
        b"SET".to_vec(),
        key,
        text.clone(),
        b"KEEPTTL".to_vec(),
    ]);
    Ok(Reply::Bulk(text))
}
