//! ZUNION, ZINTER, ZDIFF, ZINTERCARD and the STORE forms.

use crate::engine::args::Args;
use crate::engine::error::{CmdResult, Error};
use crate::engine::num::parse_score;
use crate::engine::types::zset::ZInput;
use crate::engine::types::ZSet;
use crate::engine::{Ctx, Reply};
use std::collections::HashMap;

use super::parse::{long_arg, ranged_arg};
use super::reply::{push_member, store_result};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum SetOp {
    Union,
    Inter,
    Diff,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Aggregate {
    Sum,
    Min,
    Max,
}

/// Redis's `zunionInterAggregate`: SUM turns NaN (`inf + -inf`) into 0; MIN/MAX keep the
/// current value when the comparison fails (so NaN never wins).
fn aggregate(target: &mut f64, val: f64, agg: Aggregate) {
    match agg {
        Aggregate::Sum => {
            *target += val;
            if target.is_nan() {
                *target = 0.0;
            }
        }
        Aggregate::Min => {
            if val < *target {
                *target = val;
            }
        }
        Aggregate::Max => {
            if val > *target {
                *target = val;
            }
        }
    }
}

/// `ZUNION numkeys key [key ...] [WEIGHTS w ...] [AGGREGATE SUM | MIN | MAX] [WITHSCORES]`:
/// every member of any input, its score the weighted scores combined by the aggregate
/// (default SUM). Plain sets count as sorted sets with every score 1.
pub(super) fn zunion(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    setop_generic(ctx, args, None, SetOp::Union, false)
}

/// `ZINTER numkeys key [key ...] [WEIGHTS w ...] [AGGREGATE SUM | MIN | MAX] [WITHSCORES]`:
/// the members present in every input.
pub(super) fn zinter(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    setop_generic(ctx, args, None, SetOp::Inter, false)
}

/// `ZDIFF numkeys key [key ...] [WITHSCORES]`: the members of the first input in no other,
/// with their scores from the first.
pub(super) fn zdiff(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    setop_generic(ctx, args, None, SetOp::Diff, false)
}

/// `ZINTERCARD numkeys key [key ...] [LIMIT limit]`: the size of the intersection,
/// counting no further than `limit` when it is not 0.
pub(super) fn zintercard(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    setop_generic(ctx, args, None, SetOp::Inter, true)
}

/// `ZUNIONSTORE destination numkeys key [key ...] [WEIGHTS …] [AGGREGATE …]`: stores the
/// union (deleting the destination if it is empty) and replies its size.
pub(super) fn zunionstore(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    let dst = args.next_owned()?;
    setop_generic(ctx, args, Some(dst), SetOp::Union, false)
}

/// `ZINTERSTORE destination numkeys key [key ...] [WEIGHTS …] [AGGREGATE …]`
pub(super) fn zinterstore(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    let dst = args.next_owned()?;
    setop_generic(ctx, args, Some(dst), SetOp::Inter, false)
}

/// `ZDIFFSTORE destination numkeys key [key ...]`
pub(super) fn zdiffstore(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    let dst = args.next_owned()?;
    setop_generic(ctx, args, Some(dst), SetOp::Diff, false)
}

/// Redis's `zunionInterDiffGenericCommand`; the cursor is at `numkeys`.
fn setop_generic(
    ctx: &mut Ctx<'_>,
    args: &mut Args,
    dst: Option<Vec<u8>>,
    op: SetOp,
    card_only: bool,
) -> CmdResult {
    let setnum = long_arg(args.next_bytes()?)?;
    if setnum < 1 {
        return Err(Error::AtLeastOneKey(args.name()));
    }
    if setnum as u64 > args.remaining() as u64 {
        return Err(Error::Syntax);
    }
    let setnum = setnum as usize;
    let mut keys = Vec::with_capacity(setnum);
    for _ in 0..setnum {
        keys.push(args.next_owned()?);
    }
    // Type-check every input first: WRONGTYPE wins over option errors.
    for k in &keys {
        if let Some(v) = ctx.lookup_read(k) {
            v.zset_input()?;
        }
    }
    let mut weights = vec![1.0f64; setnum];
    let mut agg = Aggregate::Sum;
    let mut withscores = false;
    let mut limit = 0u64;
    while !args.is_empty() {
        let remaining = args.remaining();
        if op != SetOp::Diff && !card_only && remaining > setnum && args.eat("WEIGHTS") {
            for w in weights.iter_mut() {
                *w = parse_score(args.next_bytes()?).ok_or(Error::WeightNotFloat)?;
            }
        } else if op != SetOp::Diff && !card_only && remaining >= 2 && args.eat("AGGREGATE") {
            agg = if args.eat("SUM") {
                Aggregate::Sum
            } else if args.eat("MIN") {
                Aggregate::Min
            } else if args.eat("MAX") {
                Aggregate::Max
            } else {
                return Err(Error::Syntax);
            };
        } else if dst.is_none() && !card_only && args.eat("WITHSCORES") {
            withscores = true;
        } else if card_only && remaining >= 2 && args.eat("LIMIT") {
            limit = ranged_arg(args.next_bytes()?, 0, i64::MAX, "LIMIT can't be negative")? as u64;
        } else {
            return Err(Error::Syntax);
        }
    }

    let db = &ctx.srv.dbs[ctx.client.db];
    // Inputs with their weights; a missing key is an empty input.
    let mut src: Vec<(Option<ZInput<'_>>, f64)> = keys
        .iter()
        .zip(&weights)
        .map(|(k, &w)| (db.get_raw(k).and_then(|e| e.value.zset_input().ok()), w))
        .collect();
    let len_of = |s: &(Option<ZInput<'_>>, f64)| s.0.map_or(0, |z| z.len());
    let mut result: Vec<(&[u8], f64)> = Vec::new();
    let mut cardinality = 0u64;
    match op {
        SetOp::Inter => {
            crate::sorting::sort_by_key(&mut src, len_of);
            if let Some((Some(first), w0)) = src.first().copied() {
                'members: for (m, s) in first.iter() {
                    let mut score = w0 * s;
                    if score.is_nan() {
                        score = 0.0;
                    }
                    for (other, w) in &src[1..] {
                        match other.and_then(|o| o.score(m)) {
                            Some(v) => aggregate(&mut score, v * w, agg),
                            None => continue 'members,
                        }
                    }
                    if card_only {
                        cardinality += 1;
                        if limit != 0 && cardinality >= limit {
                            break;
                        }
                    } else {
                        result.push((m, score));
                    }
                }
            }
        }
        SetOp::Union => {
            crate::sorting::sort_by_key(&mut src, len_of);
            let mut acc: HashMap<&[u8], f64> = HashMap::new();
            for (input, w) in &src {
                let Some(input) = input else { continue };
                for (m, s) in input.iter() {
                    let mut score = w * s;
                    if score.is_nan() {
                        score = 0.0;
                    }
                    match acc.get_mut(m) {
                        Some(t) => aggregate(t, score, agg),
                        None => {
                            acc.insert(m, score);
                        }
                    }
                }
            }
            result = acc.into_iter().collect();
        }
        SetOp::Diff => {
            if let Some((Some(first), _)) = src.first().copied() {
                for (m, s) in first.iter() {
                    if !src[1..]
                        .iter()
                        .any(|(o, _)| o.is_some_and(|o| o.score(m).is_some()))
                    {
                        result.push((m, s));
                    }
                }
            }
        }
    }
    if card_only {
        return Ok(Reply::Integer(cardinality as i64));
    }
    result.sort_by(|a, b| {
        a.1.partial_cmp(&b.1)
            .unwrap_or(std::cmp::Ordering::Equal)
            .then_with(|| a.0.cmp(b.0))
    });
    match dst {
        Some(dst) => {
            let limits = ctx.srv.config.zset_limits();
            let z = ZSet::collect_in(result.iter().map(|(m, s)| (m.to_vec(), *s)), limits);
            let event = match op {
                SetOp::Union => "zunionstore",
                SetOp::Inter => "zinterstore",
                SetOp::Diff => "zdiffstore",
            };
            Ok(store_result(ctx, dst, z, event))
        }
        None => {
            let proto = ctx.client.proto;
            let mut out = Vec::with_capacity(result.len() * if withscores { 2 } else { 1 });
            for (m, s) in result {
                push_member(&mut out, proto, withscores, m, s);
            }
            Ok(Reply::Array(out))
        }
    }
}
