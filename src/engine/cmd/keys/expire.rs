//! Expiry: the EXPIRE family with its NX/XX/GT/LT conditions, TTL and its siblings, and PERSIST.

use super::parse::arg;
use crate::engine::args::{eq_kw, parse_i64, Args};
use crate::engine::error::{c_str, CmdResult, Error};
use crate::engine::pubsub::class;
use crate::engine::{Ctx, Reply};

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
    if !cond.allows(entry.expire_at(), when) {
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
pub(super) fn expire(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    expire_generic(ctx, args, "expire", Base::Now, Unit::Seconds)
}

/// `PEXPIRE key milliseconds [NX | XX | GT | LT]`: sets a time to live in milliseconds;
/// see [`expire_generic`].
pub(super) fn pexpire(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    expire_generic(ctx, args, "pexpire", Base::Now, Unit::Millis)
}

/// `EXPIREAT key unix-time-seconds [NX | XX | GT | LT]`: sets an absolute deadline in
/// seconds; see [`expire_generic`]. A time in the past deletes the key.
pub(super) fn expireat(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    expire_generic(ctx, args, "expireat", Base::Epoch, Unit::Seconds)
}

/// `PEXPIREAT key unix-time-milliseconds [NX | XX | GT | LT]`: sets an absolute deadline
/// in milliseconds; see [`expire_generic`].
pub(super) fn pexpireat(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
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
    let Some(at) = entry.expire_at() else {
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
pub(super) fn ttl(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    ttl_generic(ctx, args, Unit::Seconds, true)
}

/// `PTTL key`: remaining time to live in milliseconds, -1 without deadline, -2 without key.
pub(super) fn pttl(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    ttl_generic(ctx, args, Unit::Millis, true)
}

/// `EXPIRETIME key`: the deadline as a Unix time in seconds, -1 / -2 as TTL.
pub(super) fn expiretime(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    ttl_generic(ctx, args, Unit::Seconds, false)
}

/// `PEXPIRETIME key`: the deadline as a Unix time in milliseconds, -1 / -2 as TTL.
pub(super) fn pexpiretime(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    ttl_generic(ctx, args, Unit::Millis, false)
}

/// `PERSIST key`: removes the deadline; 1 if there was one, 0 if none or no key. O(1).
pub(super) fn persist(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    let key = args.next_bytes()?;
    let had_deadline = ctx
        .lookup_write(key)
        .is_some_and(|e| e.expire_at().is_some());
    if !had_deadline {
        return Ok(Reply::Integer(0));
    }
    ctx.set_expire(key, None);
    ctx.notify(class::GENERIC, "persist", key);
    ctx.dirty += 1;
    Ok(Reply::Integer(1))
}
