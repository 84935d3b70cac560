//! Ranges: ZRANGE and its older forms (ZREVRANGE, ZRANGEBYSCORE, ZRANGEBYLEX and their
//! REV forms), and ZRANGESTORE.

use crate::engine::args::Args;
use crate::engine::error::{CmdResult, Error};
use crate::engine::types::zset::{LexRange, ScoreRange};
use crate::engine::types::ZSet;
use crate::engine::{Ctx, Reply};

use super::parse::{long_arg, parse_lex_range, parse_score_range};
use super::remove::clamp_ranks;
use super::reply::{push_member, read_zset, store_result};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum RangeType {
    Auto,
    Rank,
    Score,
    Lex,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Direction {
    Auto,
    Forward,
    Reverse,
}

/// `ZRANGE key start stop [BYSCORE | BYLEX] [REV] [LIMIT offset count] [WITHSCORES]`
///
/// By rank (default): `start`/`stop` are 0-based ranks, negative from the end. `BYSCORE`:
/// a score range (`(` exclusive, `±inf`). `BYLEX`: a lexicographic range (`[a`, `(a`, `-`,
/// `+`). `REV` reverses the order, and for `BYSCORE`/`BYLEX` the range is given as
/// `max min`. `LIMIT offset count` (score and lex only; negative count = all, negative
/// offset = nothing) pages through the range.
pub(super) fn zrange(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    range_generic(ctx, args, None, RangeType::Auto, Direction::Auto)
}

/// `ZRANGESTORE dst src min max [BYSCORE | BYLEX] [REV] [LIMIT offset count]`: like
/// `ZRANGE`, storing the result in `dst` (deleting `dst` if empty) and replying its size.
pub(super) fn zrangestore(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    let dst = args.next_owned()?;
    range_generic(ctx, args, Some(dst), RangeType::Auto, Direction::Auto)
}

/// `ZREVRANGE key start stop [WITHSCORES]`: ranks counted from the highest score.
pub(super) fn zrevrange(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    range_generic(ctx, args, None, RangeType::Rank, Direction::Reverse)
}

/// `ZRANGEBYSCORE key min max [WITHSCORES] [LIMIT offset count]`
pub(super) fn zrangebyscore(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    range_generic(ctx, args, None, RangeType::Score, Direction::Forward)
}

/// `ZREVRANGEBYSCORE key max min [WITHSCORES] [LIMIT offset count]`
pub(super) fn zrevrangebyscore(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    range_generic(ctx, args, None, RangeType::Score, Direction::Reverse)
}

/// `ZRANGEBYLEX key min max [LIMIT offset count]`
pub(super) fn zrangebylex(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    range_generic(ctx, args, None, RangeType::Lex, Direction::Forward)
}

/// `ZREVRANGEBYLEX key max min [LIMIT offset count]`
pub(super) fn zrevrangebylex(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    range_generic(ctx, args, None, RangeType::Lex, Direction::Reverse)
}

/// Redis's `zrangeGenericCommand`: the cursor is at the source key.
fn range_generic(
    ctx: &mut Ctx<'_>,
    args: &mut Args,
    store: Option<Vec<u8>>,
    mut rtype: RangeType,
    mut dir: Direction,
) -> CmdResult {
    let key = args.next_owned()?;
    let mut min_arg = args.next_owned()?;
    let mut max_arg = args.next_owned()?;
    let mut withscores = false;
    let (mut offset, mut limit) = (0i64, -1i64);
    while !args.is_empty() {
        if store.is_none() && args.eat("WITHSCORES") {
            withscores = true;
        } else if args.remaining() >= 3 && args.eat("LIMIT") {
            offset = long_arg(args.next_bytes()?)?;
            limit = long_arg(args.next_bytes()?)?;
        } else if dir == Direction::Auto && args.eat("REV") {
            dir = Direction::Reverse;
        } else if rtype == RangeType::Auto && args.eat("BYLEX") {
            rtype = RangeType::Lex;
        } else if rtype == RangeType::Auto && args.eat("BYSCORE") {
            rtype = RangeType::Score;
        } else {
            return Err(Error::Syntax);
        }
    }
    if dir == Direction::Auto {
        dir = Direction::Forward;
    }
    if rtype == RangeType::Auto {
        rtype = RangeType::Rank;
    }
    if limit != -1 && rtype == RangeType::Rank {
        return Err(Error::LimitNeedsByScoreOrLex);
    }
    if withscores && rtype == RangeType::Lex {
        return Err(Error::WithScoresByLex);
    }
    let rev = dir == Direction::Reverse;
    if rev && rtype != RangeType::Rank {
        std::mem::swap(&mut min_arg, &mut max_arg);
    }
    enum Spec {
        Rank(i64, i64),
        Score(ScoreRange),
        Lex(LexRange),
    }
    let spec = match rtype {
        RangeType::Score => Spec::Score(parse_score_range(&min_arg, &max_arg)?),
        RangeType::Lex => Spec::Lex(parse_lex_range(&min_arg, &max_arg)?),
        _ => Spec::Rank(long_arg(&min_arg)?, long_arg(&max_arg)?),
    };
    let withscores = withscores || store.is_some();
    let proto = ctx.client.proto;
    let limits = ctx.srv.config.zset_limits();
    let Some(z) = read_zset(ctx, &key)? else {
        return Ok(match store {
            Some(dst) => store_result(ctx, dst, ZSet::new(), "zrangestore"),
            None => Reply::Array(Vec::new()),
        });
    };
    // Select the slice of ranks: (first rank, step direction, at most n, range predicate).
    let items: Vec<(&[u8], f64)> = match &spec {
        Spec::Rank(start, end) => match clamp_ranks(*start, *end, z.len()) {
            None => Vec::new(),
            Some((a, b)) => {
                let first = if rev { z.len() - 1 - a } else { a };
                z.iter_from_rank(first, rev, b - a + 1).collect()
            }
        },
        Spec::Score(r) => {
            let first = if rev {
                z.last_in_score_range(r)
            } else {
                z.first_in_score_range(r)
            };
            page(z, first, rev, offset, limit)
                .take_while(|(_, s)| if rev { r.gte_min(*s) } else { r.lte_max(*s) })
                .collect()
        }
        Spec::Lex(r) => {
            let first = if rev {
                z.last_in_lex_range(r)
            } else {
                z.first_in_lex_range(r)
            };
            page(z, first, rev, offset, limit)
                .take_while(|(m, _)| if rev { r.gte_min(m) } else { r.lte_max(m) })
                .collect()
        }
    };
    match store {
        Some(dst) => {
            // ZRANGESTORE starts a listpack unless the rank range is known to be large, then
            // adds member by member, as Redis's zrangeResultBeginStore does.
            let mut out = if matches!(spec, Spec::Rank(..)) && items.len() > limits.entries {
                ZSet::new_skiplist()
            } else {
                ZSet::new()
            };
            for (m, s) in &items {
                out.add_in(m, *s, limits);
            }
            Ok(store_result(ctx, dst, out, "zrangestore"))
        }
        None => {
            let mut out = Vec::with_capacity(items.len() * if withscores { 2 } else { 1 });
            for (m, s) in items {
                push_member(&mut out, proto, withscores, m, s);
            }
            Ok(Reply::Array(out))
        }
    }
}

/// Iterates from the rank `first` (if any), skipping `offset` members and yielding at most
/// `limit` (negative = no limit). A negative offset yields nothing, as in Redis (its skip
/// loop runs off the end).
fn page(
    z: &ZSet,
    first: Option<usize>,
    rev: bool,
    offset: i64,
    limit: i64,
) -> crate::engine::types::zset::Iter<'_> {
    let limit = if limit < 0 {
        usize::MAX
    } else {
        limit as usize
    };
    let start = match first {
        Some(f) if offset >= 0 && (offset as u64) < z.len() as u64 => {
            let off = offset as usize;
            if rev {
                f.checked_sub(off)
            } else {
                f.checked_add(off).filter(|&r| r < z.len())
            }
        }
        _ => None,
    };
    match start {
        Some(r) => z.iter_from_rank(r, rev, limit),
        None => z.iter_from_rank(z.len(), rev, 0),
    }
}
