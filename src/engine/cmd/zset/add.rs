//! ZADD and ZINCRBY, with their NX/XX/GT/LT/CH/INCR options.

use crate::engine::args::Args;
use crate::engine::error::{CmdResult, Error};
use crate::engine::num::parse_score;
use crate::engine::pubsub::class;
use crate::engine::types::zset::{AddOutcome, ZLimits};
use crate::engine::types::{Value, ZSet};
use crate::engine::{Ctx, Reply};

use super::reply::{score_reply, write_zset};

/// The conditions of `ZADD`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
struct AddOpts {
    /// `NX`: only add new members. `XX`: only update existing ones.
    cond: Option<Cond>,
    /// `GT`/`LT`: only update when the new score is greater / less.
    cmp: Option<Cmp>,
    /// `INCR`: add to the score instead of setting it.
    incr: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Cond {
    Nx,
    Xx,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Cmp {
    Gt,
    Lt,
}

/// What one `zsetAdd` did.
#[derive(Debug, Clone, Copy, PartialEq)]
enum AddResult {
    Added(f64),
    Updated(f64),
    /// Present with the same score: counts as processed (INCR replies the score).
    Same(f64),
    /// Skipped by NX/XX/GT/LT.
    Nop,
}

/// Redis's `zsetAdd`: applies one `score member` under `opts`. `Err` when the increment
/// makes NaN (`ERR resulting score is not a number (NaN)`).
fn zset_add(
    z: &mut ZSet,
    member: &[u8],
    score: f64,
    opts: AddOpts,
    limits: ZLimits,
) -> CmdResult<AddResult> {
    let decide = |cur: Option<f64>| -> CmdResult<Option<f64>> {
        let Some(cur) = cur else {
            return Ok((opts.cond != Some(Cond::Xx)).then_some(score));
        };
        if opts.cond == Some(Cond::Nx) {
            return Ok(None);
        }
        let mut score = score;
        if opts.incr {
            score += cur;
            if score.is_nan() {
                return Err(Error::ScoreNan);
            }
        }
        Ok(match opts.cmp {
            Some(Cmp::Lt) if score >= cur => None,
            Some(Cmp::Gt) if score <= cur => None,
            _ => Some(score),
        })
    };
    Ok(match z.update_in(member, decide, limits)? {
        None => AddResult::Nop,
        Some((AddOutcome::Added, s)) => AddResult::Added(s),
        Some((AddOutcome::Updated, s)) => AddResult::Updated(s),
        Some((AddOutcome::Unchanged, s)) => AddResult::Same(s),
    })
}

/// `ZADD key [NX | XX] [GT | LT] [CH] [INCR] score member [score member ...]`
///
/// Sets the score of each member, creating the key if needed. `NX` only adds, `XX` only
/// updates, `GT`/`LT` only update when the score grows/shrinks (new members are still
/// added), `CH` counts updated members in the reply too, and `INCR` (one pair only) behaves
/// like `ZINCRBY`, replying with the new score or nil when a condition skipped it. Every
/// score is parsed before anything changes; option conflicts are errors with Redis's texts.
pub(super) fn zadd(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    zadd_generic(ctx, args, false)
}

/// `ZINCRBY key increment member`: adds `increment` to the member's score (a missing
/// member starts at 0) and replies with the new score. NaN results are refused.
pub(super) fn zincrby(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    zadd_generic(ctx, args, true)
}

fn zadd_generic(ctx: &mut Ctx<'_>, args: &mut Args, incrby: bool) -> CmdResult {
    let key = args.next_owned()?;
    let mut opts = AddOpts {
        incr: incrby,
        ..AddOpts::default()
    };
    let (mut nx, mut xx, mut gt, mut lt, mut ch) = (false, false, false, false, false);
    if !incrby {
        loop {
            if args.eat("NX") {
                nx = true;
            } else if args.eat("XX") {
                xx = true;
            } else if args.eat("CH") {
                ch = true;
            } else if args.eat("INCR") {
                opts.incr = true;
            } else if args.eat("GT") {
                gt = true;
            } else if args.eat("LT") {
                lt = true;
            } else {
                break;
            }
        }
    }
    let rest = args.rest();
    if rest.is_empty() || rest.len() % 2 != 0 {
        return Err(Error::Syntax);
    }
    if nx && xx {
        return Err(Error::ZAddXxNx);
    }
    if (nx && (gt || lt)) || (gt && lt) {
        return Err(Error::ZAddGtLtNx);
    }
    if opts.incr && rest.len() > 2 {
        return Err(Error::ZAddIncrPair);
    }
    opts.cond = if nx {
        Some(Cond::Nx)
    } else if xx {
        Some(Cond::Xx)
    } else {
        None
    };
    opts.cmp = if gt {
        Some(Cmp::Gt)
    } else if lt {
        Some(Cmp::Lt)
    } else {
        None
    };
    let mut pairs = Vec::with_capacity(rest.len() / 2);
    for pair in rest.chunks_exact(2) {
        let score = parse_score(&pair[0]).ok_or(Error::NotFloat)?;
        pairs.push((score, &pair[1]));
    }

    if write_zset(ctx, &key)?.is_none() {
        if xx {
            return Ok(if opts.incr {
                Reply::Nil
            } else {
                Reply::Integer(0)
            });
        }
        let now = ctx.now_ms;
        let first_len = pairs.first().map_or(0, |(_, m)| m.len());
        let z = ctx.srv.config.zset_limits().new_set(first_len);
        ctx.db().set(&key, Value::ZSet(z), false, now);
        ctx.notify(class::NEW, "new", &key);
    }
    let limits = ctx.srv.config.zset_limits();
    let Some(z) = write_zset(ctx, &key)? else {
        return Ok(Reply::Integer(0));
    };
    let (mut added, mut updated, mut processed) = (0u64, 0u64, 0u64);
    let mut last_score = 0.0;
    let mut failure = None;
    for (score, member) in pairs {
        match zset_add(z, member, score, opts, limits) {
            Ok(AddResult::Added(s)) => {
                added += 1;
                processed += 1;
                last_score = s;
            }
            Ok(AddResult::Updated(s)) => {
                updated += 1;
                processed += 1;
                last_score = s;
            }
            Ok(AddResult::Same(s)) => {
                processed += 1;
                last_score = s;
            }
            Ok(AddResult::Nop) => {}
            Err(e) => {
                failure = Some(e);
                break;
            }
        }
    }
    ctx.dirty += added + updated;
    if added + updated > 0 {
        let event = if opts.incr { "zincr" } else { "zadd" };
        ctx.notify(class::ZSET, event, &key);
    }
    ctx.delete_if_empty(&key);
    if let Some(e) = failure {
        return Err(e);
    }
    Ok(if opts.incr {
        if processed > 0 {
            score_reply(ctx.client.proto, last_score)
        } else {
            Reply::Nil
        }
    } else if ch {
        Reply::Integer((added + updated) as i64)
    } else {
        Reply::Integer(added as i64)
    })
}
