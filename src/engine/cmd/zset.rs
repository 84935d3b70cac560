//! The sorted-set group: every non-blocking `Z*` command of Redis 7.0.
//!
//! The data structure and its costs are in [`crate::engine::types::zset`]; this file parses
//! arguments exactly as Redis's `t_zset.c` does (including the order in which errors win:
//! ranges are parsed before the key is looked up, `ZUNION`'s keys are type-checked before
//! its options are parsed) and shapes the replies:
//!
//! * scores are doubles: a bulk string formatted with `%.17g` in RESP2, a RESP3 double in
//!   RESP3 (see [`score_reply`]);
//! * `WITHSCORES` gives a flat `member, score, …` array in RESP2 and an array of
//!   `[member, score]` pairs in RESP3, as Redis does.
//!
//! # Numbers
//! Redis reads scores with C's `strtod`, in two flavours that accept different inputs:
//! [`parse_score`] (`string2d`: the whole string, no leading space, no overflow, no NaN — used
//! for `ZADD`, `ZINCRBY`, `WEIGHTS`) and the range parser [`parse_score_range`]
//! (`zslParseRange`: leading spaces and even an empty string are fine). Both accept
//! hexadecimal floats and `inf`. [`strtod`] implements C's grammar once for both and for
//! `SORT`.
//!
//! # Effects
//! Every write here replays deterministically as itself (`ZADD … INCR`, `ZPOPMIN k 3`,
//! `ZUNIONSTORE …`), except `ZMPOP`, which is recorded as `ZPOPMIN`/`ZPOPMAX key count` as
//! Redis propagates it. A command that changes nothing records nothing.

use std::collections::{HashMap, HashSet};

use crate::engine::args::{parse_i64, Args};
use crate::engine::error::{CmdResult, Error};
pub use crate::engine::num::parse_score;
use crate::engine::num::strtod;
use crate::engine::pubsub::class;
use crate::engine::reply::format_double;
use crate::engine::scan;
use crate::engine::table::{Command, Flags, Group, KeySpec};
use crate::engine::types::zset::{AddOutcome, LexBound, LexRange, ScoreRange, ZInput};
use crate::engine::types::{Value, ZSet};
use crate::engine::{Ctx, Reply};

const R: Flags = Flags::READONLY;
const W: Flags = Flags::WRITE;
const RF: Flags = Flags::READONLY.union(Flags::FAST);
const WF: Flags = Flags::WRITE.union(Flags::FAST);
const WDF: Flags = Flags::WRITE.union(Flags::DENYOOM).union(Flags::FAST);
const WD: Flags = Flags::WRITE.union(Flags::DENYOOM);

/// Largest reply `ZRANDMEMBER` with a negative count (picks may repeat) will build. Redis
/// streams any count to the socket; we build replies in memory (and may run in a browser),
/// so a larger count is refused instead of exhausting memory.
pub const MAX_REPEATED_PICKS: u64 = 1 << 20;

/// The sorted-set commands.
pub const COMMANDS: &[Command] = &[
    Command::new("zadd", -4, Group::SortedSet, zadd)
        .key_specs(&[KeySpec::index(1, "RW update")])
        .flags(WDF)
        .doc(
            "key [NX | XX] [GT | LT] [CH] [INCR] score member [score member ...]",
            "Adds members with scores, or updates the scores of existing members.",
            "O(log N) for each member added or updated",
            "1.2.0",
        ),
    Command::new("zcard", 2, Group::SortedSet, zcard)
        .key_specs(&[KeySpec::index(1, "RO")])
        .flags(RF)
        .doc("key", "Counts the members of a sorted set.", "O(1)", "1.2.0"),
    Command::new("zcount", 4, Group::SortedSet, zcount)
        .key_specs(&[KeySpec::index(1, "RO access")])
        .flags(RF)
        .doc(
            "key min max",
            "Counts the members whose score lies in a range.",
            "O(log N)",
            "2.0.0",
        ),
    Command::new("zdiff", -3, Group::SortedSet, zdiff)
        .key_specs(&[KeySpec::index(1, "RO access").keynum(0, 1, 1)])
        .flags(R)
        .doc(
            "numkeys key [key ...] [WITHSCORES]",
            "Returns the members of the first sorted set that are in none of the others.",
            "O(L + (N-K) log N): L elements in all inputs, N in the first, K in the result",
            "6.2.0",
        ),
    Command::new("zdiffstore", -4, Group::SortedSet, zdiffstore)
        .key_specs(&[
            KeySpec::index(1, "OW update"),
            KeySpec::index(2, "RO access").keynum(0, 1, 1),
        ])
        .flags(WD)
        .doc(
            "destination numkeys key [key ...]",
            "Stores the difference of sorted sets in a key.",
            "O(L + (N-K) log N): L elements in all inputs, N in the first, K in the result",
            "6.2.0",
        ),
    Command::new("zincrby", 4, Group::SortedSet, zincrby)
        .key_specs(&[KeySpec::index(1, "RW access update")])
        .flags(WDF)
        .doc(
            "key increment member",
            "Adds to the score of a member (creating it at 0 first if needed).",
            "O(log N)",
            "1.2.0",
        ),
    Command::new("zinter", -3, Group::SortedSet, zinter)
        .key_specs(&[KeySpec::index(1, "RO access").keynum(0, 1, 1)])
        .flags(R)
        .doc(
            "numkeys key [key ...] [WEIGHTS weight [weight ...]] [AGGREGATE SUM | MIN | MAX] [WITHSCORES]",
            "Returns the members present in every input, with combined scores.",
            "O(N*K) + O(M log M): N the smallest input, K inputs, M results",
            "6.2.0",
        ),
    Command::new("zintercard", -3, Group::SortedSet, zintercard)
        .key_specs(&[KeySpec::index(1, "RO access").keynum(0, 1, 1)])
        .flags(R)
        .doc(
            "numkeys key [key ...] [LIMIT limit]",
            "Counts the members present in every input, optionally stopping at a limit.",
            "O(N*K): N the smallest input, K inputs",
            "7.0.0",
        ),
    Command::new("zinterstore", -4, Group::SortedSet, zinterstore)
        .key_specs(&[
            KeySpec::index(1, "OW update"),
            KeySpec::index(2, "RO access").keynum(0, 1, 1),
        ])
        .flags(WD)
        .doc(
            "destination numkeys key [key ...] [WEIGHTS weight [weight ...]] [AGGREGATE SUM | MIN | MAX]",
            "Stores the intersection of sorted sets in a key.",
            "O(N*K) + O(M log M): N the smallest input, K inputs, M results",
            "2.0.0",
        ),
    Command::new("zlexcount", 4, Group::SortedSet, zlexcount)
        .key_specs(&[KeySpec::index(1, "RO access")])
        .flags(RF)
        .doc(
            "key min max",
            "Counts the members in a lexicographic range (for sets with equal scores).",
            "O(log N)",
            "2.8.9",
        ),
    Command::new("zmpop", -4, Group::SortedSet, zmpop)
        .key_specs(&[KeySpec::index(1, "RW access delete").keynum(0, 1, 1)])
        .flags(Flags::WRITE)
        .doc(
            "numkeys key [key ...] MIN | MAX [COUNT count]",
            "Pops the lowest or highest members from the first non-empty sorted set.",
            "O(K) + O(M log N): K keys, M members popped",
            "7.0.0",
        ),
    Command::new("zmscore", -3, Group::SortedSet, zmscore)
        .key_specs(&[KeySpec::index(1, "RO access")])
        .flags(RF)
        .doc(
            "key member [member ...]",
            "Returns the scores of several members.",
            "O(N) for N members asked",
            "6.2.0",
        ),
    Command::new("zpopmax", -2, Group::SortedSet, zpopmax)
        .key_specs(&[KeySpec::index(1, "RW access delete")])
        .flags(WF)
        .doc(
            "key [count]",
            "Removes and returns the members with the highest scores.",
            "O(log N + M) for M members popped",
            "5.0.0",
        ),
    Command::new("zpopmin", -2, Group::SortedSet, zpopmin)
        .key_specs(&[KeySpec::index(1, "RW access delete")])
        .flags(WF)
        .doc(
            "key [count]",
            "Removes and returns the members with the lowest scores.",
            "O(log N + M) for M members popped",
            "5.0.0",
        ),
    Command::new("zrandmember", -2, Group::SortedSet, zrandmember)
        .key_specs(&[KeySpec::index(1, "RO access")])
        .tips(&["nondeterministic_output"])
        .flags(R)
        .doc(
            "key [count [WITHSCORES]]",
            "Returns random members: distinct ones for a positive count, possibly repeated for a negative one.",
            "O(N) for N members returned",
            "6.2.0",
        ),
    Command::new("zrange", -4, Group::SortedSet, zrange)
        .key_specs(&[KeySpec::index(1, "RO access")])
        .flags(R)
        .doc(
            "key start stop [BYSCORE | BYLEX] [REV] [LIMIT offset count] [WITHSCORES]",
            "Returns members in a range of ranks, scores or lexicographic values.",
            "O(log N + M) for M members returned",
            "1.2.0",
        ),
    Command::new("zrangebylex", -4, Group::SortedSet, zrangebylex)
        .key_specs(&[KeySpec::index(1, "RO access")])
        .flags(R)
        .doc(
            "key min max [LIMIT offset count]",
            "Returns members in a lexicographic range (superseded by ZRANGE … BYLEX).",
            "O(log N + M) for M members returned",
            "2.8.9",
        ),
    Command::new("zrangebyscore", -4, Group::SortedSet, zrangebyscore)
        .key_specs(&[KeySpec::index(1, "RO access")])
        .flags(R)
        .doc(
            "key min max [WITHSCORES] [LIMIT offset count]",
            "Returns members in a score range (superseded by ZRANGE … BYSCORE).",
            "O(log N + M) for M members returned",
            "1.0.5",
        ),
    Command::new("zrangestore", -5, Group::SortedSet, zrangestore)
        .key_specs(&[KeySpec::index(1, "OW update"), KeySpec::index(2, "RO access")])
        .flags(Flags::WRITE.union(Flags::DENYOOM))
        .doc(
            "dst src min max [BYSCORE | BYLEX] [REV] [LIMIT offset count]",
            "Stores a range of a sorted set in another key.",
            "O(log N + M) for M members stored",
            "6.2.0",
        ),
    Command::new("zrank", 3, Group::SortedSet, zrank)
        .key_specs(&[KeySpec::index(1, "RO access")])
        .flags(RF)
        .doc(
            "key member",
            "Returns the 0-based position of a member, lowest score first.",
            "O(log N)",
            "2.0.0",
        ),
    Command::new("zrem", -3, Group::SortedSet, zrem)
        .key_specs(&[KeySpec::index(1, "RW delete")])
        .flags(WF)
        .doc(
            "key member [member ...]",
            "Removes members.",
            "O(M log N) for M members removed",
            "1.2.0",
        ),
    Command::new("zremrangebylex", 4, Group::SortedSet, zremrangebylex)
        .key_specs(&[KeySpec::index(1, "RW delete")])
        .flags(W)
        .doc(
            "key min max",
            "Removes the members in a lexicographic range.",
            "O(log N + M) for M members removed",
            "2.8.9",
        ),
    Command::new("zremrangebyrank", 4, Group::SortedSet, zremrangebyrank)
        .key_specs(&[KeySpec::index(1, "RW delete")])
        .flags(W)
        .doc(
            "key start stop",
            "Removes the members in a range of ranks.",
            "O(log N + M) for M members removed",
            "2.0.0",
        ),
    Command::new("zremrangebyscore", 4, Group::SortedSet, zremrangebyscore)
        .key_specs(&[KeySpec::index(1, "RW delete")])
        .flags(W)
        .doc(
            "key min max",
            "Removes the members in a score range.",
            "O(log N + M) for M members removed",
            "1.2.0",
        ),
    Command::new("zrevrange", -4, Group::SortedSet, zrevrange)
        .key_specs(&[KeySpec::index(1, "RO access")])
        .flags(R)
        .doc(
            "key start stop [WITHSCORES]",
            "Returns members in a range of ranks, highest score first (superseded by ZRANGE … REV).",
            "O(log N + M) for M members returned",
            "1.2.0",
        ),
    Command::new("zrevrangebylex", -4, Group::SortedSet, zrevrangebylex)
        .key_specs(&[KeySpec::index(1, "RO access")])
        .flags(R)
        .doc(
            "key max min [LIMIT offset count]",
            "Returns members in a lexicographic range, highest first (superseded by ZRANGE … BYLEX REV).",
            "O(log N + M) for M members returned",
            "2.8.9",
        ),
    Command::new("zrevrangebyscore", -4, Group::SortedSet, zrevrangebyscore)
        .key_specs(&[KeySpec::index(1, "RO access")])
        .flags(R)
        .doc(
            "key max min [WITHSCORES] [LIMIT offset count]",
            "Returns members in a score range, highest first (superseded by ZRANGE … BYSCORE REV).",
            "O(log N + M) for M members returned",
            "2.2.0",
        ),
    Command::new("zrevrank", 3, Group::SortedSet, zrevrank)
        .key_specs(&[KeySpec::index(1, "RO access")])
        .flags(RF)
        .doc(
            "key member",
            "Returns the 0-based position of a member, highest score first.",
            "O(log N)",
            "2.0.0",
        ),
    Command::new("zscan", -3, Group::SortedSet, zscan)
        .key_specs(&[KeySpec::index(1, "RO access")])
        .tips(&["nondeterministic_output"])
        .flags(R)
        .doc(
            "key cursor [MATCH pattern] [COUNT count]",
            "Iterates over members and scores with a cursor.",
            "O(1) per call, O(N) for a whole iteration",
            "2.8.0",
        ),
    Command::new("zscore", 3, Group::SortedSet, zscore)
        .key_specs(&[KeySpec::index(1, "RO access")])
        .flags(RF)
        .doc("key member", "Returns the score of a member.", "O(1)", "1.2.0"),
    Command::new("zunion", -3, Group::SortedSet, zunion)
        .key_specs(&[KeySpec::index(1, "RO access").keynum(0, 1, 1)])
        .flags(R)
        .doc(
            "numkeys key [key ...] [WEIGHTS weight [weight ...]] [AGGREGATE SUM | MIN | MAX] [WITHSCORES]",
            "Returns the members of any input, with combined scores.",
            "O(N) + O(M log M): N elements in all inputs, M results",
            "6.2.0",
        ),
    Command::new("zunionstore", -4, Group::SortedSet, zunionstore)
        .key_specs(&[
            KeySpec::index(1, "OW update"),
            KeySpec::index(2, "RO access").keynum(0, 1, 1),
        ])
        .flags(WD)
        .doc(
            "destination numkeys key [key ...] [WEIGHTS weight [weight ...]] [AGGREGATE SUM | MIN | MAX]",
            "Stores the union of sorted sets in a key.",
            "O(N) + O(M log M): N elements in all inputs, M results",
            "2.0.0",
        ),
];

// ---------------------------------------------------------------------------------------
// Number and range parsing
// ---------------------------------------------------------------------------------------

/// One end of a score range as `zslParseRange` reads it: `(` makes it exclusive, the rest
/// goes to `strtod`, which must stop at the end (or at a NUL byte) and not give NaN.
fn parse_score_bound(arg: &[u8]) -> Option<(f64, bool)> {
    let (body, ex) = match arg.first() {
        Some(b'(') => (&arg[1..], true),
        _ => (arg, false),
    };
    let r = strtod(body);
    let stop_ok = r.consumed == body.len() || body[r.consumed] == 0;
    (stop_ok && !r.value.is_nan()).then_some((r.value, ex))
}

/// Parses `min max` of a score range (`ERR min or max is not a float`).
pub fn parse_score_range(min: &[u8], max: &[u8]) -> CmdResult<ScoreRange> {
    let (Some((min, minex)), Some((max, maxex))) = (parse_score_bound(min), parse_score_bound(max))
    else {
        return Err(Error::MinMaxNotFloat);
    };
    Ok(ScoreRange {
        min,
        max,
        minex,
        maxex,
    })
}

fn parse_lex_bound(arg: &[u8]) -> Option<LexBound> {
    match arg {
        [b'+'] => Some(LexBound::PosInf),
        [b'-'] => Some(LexBound::NegInf),
        [b'(', rest @ ..] => Some(LexBound::Excl(rest.to_vec())),
        [b'[', rest @ ..] => Some(LexBound::Incl(rest.to_vec())),
        _ => None,
    }
}

/// Parses `min max` of a lexicographic range (`ERR min or max not valid string range
/// item`).
pub fn parse_lex_range(min: &[u8], max: &[u8]) -> CmdResult<LexRange> {
    match (parse_lex_bound(min), parse_lex_bound(max)) {
        (Some(min), Some(max)) => Ok(LexRange { min, max }),
        _ => Err(Error::MinMaxNotLex),
    }
}

/// Redis's `d2string`: integral values within ±2^62 as integers, `-0` for negative zero,
/// otherwise `%.17g`. This is how a listpack stores (and `ZSCAN` shows) a score.
pub fn d2string(d: f64) -> String {
    const LIMIT: f64 = 4_611_686_018_427_387_904.0; // (double)(LLONG_MAX / 2) = 2^62
    if d.is_finite() && d != 0.0 && d.fract() == 0.0 && (-LIMIT..=LIMIT).contains(&d) {
        return format!("{}", d as i64);
    }
    format_double(d)
}

/// An integer argument as `getLongFromObjectOrReply` reads it, with Redis's message.
fn long_arg(arg: &[u8]) -> CmdResult<i64> {
    parse_i64(arg).ok_or(Error::NotInteger)
}

/// An integer that must lie in `min..=max`, as `getRangeLongFromObjectOrReply` with a
/// custom message (`ERR <msg>` both for a bad integer and an out-of-range one).
fn ranged_arg(arg: &[u8], min: i64, max: i64, msg: &str) -> CmdResult<i64> {
    match parse_i64(arg) {
        Some(v) if (min..=max).contains(&v) => Ok(v),
        _ => Err(Error::Err(msg.to_string())),
    }
}

// ---------------------------------------------------------------------------------------
// Replies and key access
// ---------------------------------------------------------------------------------------

/// A score as Redis's `addReplyDouble` sends it: a RESP3 double, or in RESP2 a bulk string
/// with `%.17g` (and `inf`/`-inf`).
pub fn score_reply(proto: u8, d: f64) -> Reply {
    if proto >= 3 {
        Reply::Double(d)
    } else {
        Reply::Bulk(format_double(d).into_bytes())
    }
}

/// Appends a member (and its score, `WITHSCORES`) to a range reply: flat in RESP2, as a
/// `[member, score]` pair in RESP3.
fn push_member(out: &mut Vec<Reply>, proto: u8, withscores: bool, member: &[u8], score: f64) {
    if !withscores {
        out.push(Reply::bulk(member));
    } else if proto >= 3 {
        out.push(Reply::Array(vec![
            Reply::bulk(member),
            score_reply(proto, score),
        ]));
    } else {
        out.push(Reply::bulk(member));
        out.push(score_reply(proto, score));
    }
}

/// Looks `key` up for reading: `None` if absent, `WRONGTYPE` if not a sorted set.
pub(super) fn read_zset<'a>(ctx: &'a mut Ctx<'_>, key: &[u8]) -> CmdResult<Option<&'a ZSet>> {
    ctx.read_as(key, Value::as_zset)
}

/// Looks `key` up for writing: `None` if absent, `WRONGTYPE` if not a sorted set.
fn write_zset<'a>(ctx: &'a mut Ctx<'_>, key: &[u8]) -> CmdResult<Option<&'a mut ZSet>> {
    ctx.write_as(key, Value::as_zset_mut)
}

/// Stores a `*STORE` result: the set if non-empty (counting one change), otherwise deletes
/// the destination (one change if it existed). Sends `event` (`zunionstore`, …) on a
/// store, `del` when an existing destination is deleted; only the destination counts as
/// modified (WATCH). Replies with the set's size.
fn store_result(ctx: &mut Ctx<'_>, dst: Vec<u8>, z: ZSet, event: &str) -> Reply {
    let n = z.len();
    if n > 0 {
        ctx.set_value(dst.clone(), Value::ZSet(z), false);
        ctx.notify(class::ZSET, event, &dst);
    } else if ctx.delete(&dst) {
        ctx.notify(class::GENERIC, "del", &dst);
    }
    Reply::Integer(n as i64)
}

// ---------------------------------------------------------------------------------------
// ZADD, ZINCRBY
// ---------------------------------------------------------------------------------------

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
fn zset_add(z: &mut ZSet, member: &[u8], score: f64, opts: AddOpts) -> CmdResult<AddResult> {
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
    Ok(match z.update(member, decide)? {
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
fn zadd(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    zadd_generic(ctx, args, false)
}

/// `ZINCRBY key increment member`: adds `increment` to the member's score (a missing
/// member starts at 0) and replies with the new score. NaN results are refused.
fn zincrby(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
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
        ctx.db()
            .set(key.clone(), Value::ZSet(ZSet::new()), false, now);
        ctx.notify(class::NEW, "new", &key);
    }
    let Some(z) = write_zset(ctx, &key)? else {
        return Ok(Reply::Integer(0));
    };
    let (mut added, mut updated, mut processed) = (0u64, 0u64, 0u64);
    let mut last_score = 0.0;
    let mut failure = None;
    for (score, member) in pairs {
        match zset_add(z, member, score, opts) {
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

// ---------------------------------------------------------------------------------------
// Reading single members and counts
// ---------------------------------------------------------------------------------------

/// `ZCARD key`: the number of members (0 for a missing key).
fn zcard(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    let key = args.next_owned()?;
    Ok(Reply::Integer(
        read_zset(ctx, &key)?.map_or(0, |z| z.len()) as i64
    ))
}

/// `ZSCORE key member`: the member's score, or nil.
fn zscore(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    let key = args.next_owned()?;
    let member = args.next_owned()?;
    let proto = ctx.client.proto;
    Ok(match read_zset(ctx, &key)?.and_then(|z| z.score(&member)) {
        Some(s) => score_reply(proto, s),
        None => Reply::Nil,
    })
}

/// `ZMSCORE key member [member ...]`: the score of each member, nil for missing ones (a
/// missing key counts as empty).
fn zmscore(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    let key = args.next_owned()?;
    let members = args.rest();
    let proto = ctx.client.proto;
    let z = read_zset(ctx, &key)?;
    Ok(Reply::Array(
        members
            .iter()
            .map(|m| match z.and_then(|z| z.score(m)) {
                Some(s) => score_reply(proto, s),
                None => Reply::Nil,
            })
            .collect(),
    ))
}

/// `ZRANK key member`: the member's 0-based rank by ascending score, or nil. O(log N).
fn zrank(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    rank_generic(ctx, args, false)
}

/// `ZREVRANK key member`: the member's 0-based rank by descending score, or nil.
fn zrevrank(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    rank_generic(ctx, args, true)
}

fn rank_generic(ctx: &mut Ctx<'_>, args: &mut Args, rev: bool) -> CmdResult {
    let key = args.next_owned()?;
    let member = args.next_owned()?;
    let Some(z) = read_zset(ctx, &key)? else {
        return Ok(Reply::Nil);
    };
    Ok(match z.rank(&member) {
        Some(r) if rev => Reply::Integer((z.len() - 1 - r) as i64),
        Some(r) => Reply::Integer(r as i64),
        None => Reply::Nil,
    })
}

/// `ZCOUNT key min max`: how many members score within `min..max` (`(` excludes an end,
/// `-inf`/`+inf` are allowed). O(log N).
fn zcount(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    let key = args.next_owned()?;
    let range = parse_score_range(&args.next_owned()?, &args.next_owned()?)?;
    Ok(Reply::Integer(
        read_zset(ctx, &key)?.map_or(0, |z| z.count_in_score_range(&range)) as i64,
    ))
}

/// `ZLEXCOUNT key min max`: how many members lie in a lexicographic range (`[a`, `(a`, `-`,
/// `+`). O(log N).
fn zlexcount(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    let key = args.next_owned()?;
    let range = parse_lex_range(&args.next_owned()?, &args.next_owned()?)?;
    Ok(Reply::Integer(
        read_zset(ctx, &key)?.map_or(0, |z| z.count_in_lex_range(&range)) as i64,
    ))
}

// ---------------------------------------------------------------------------------------
// Removal
// ---------------------------------------------------------------------------------------

/// `ZREM key member [member ...]`: removes members, replying how many existed. The key is
/// deleted when it empties.
fn zrem(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    let key = args.next_owned()?;
    let members = args.rest();
    let Some(z) = write_zset(ctx, &key)? else {
        return Ok(Reply::Integer(0));
    };
    let mut deleted = 0u64;
    for m in &members {
        if z.remove(m).is_some() {
            deleted += 1;
        }
        if z.is_empty() {
            break;
        }
    }
    ctx.dirty += deleted;
    if deleted > 0 {
        ctx.notify(class::ZSET, "zrem", &key);
        ctx.delete_if_emptied(&key);
    }
    Ok(Reply::Integer(deleted as i64))
}

/// Clamps Redis-style `start stop` ranks (negative counts from the end) to `0..len`,
/// returning `None` for an empty range.
fn clamp_ranks(start: i64, end: i64, len: usize) -> Option<(usize, usize)> {
    let llen = len as i64;
    let mut start = if start < 0 {
        llen.saturating_add(start)
    } else {
        start
    };
    let mut end = if end < 0 {
        llen.saturating_add(end)
    } else {
        end
    };
    if start < 0 {
        start = 0;
    }
    if start > end || start >= llen {
        return None;
    }
    if end >= llen {
        end = llen - 1;
    }
    Some((start as usize, end as usize))
}

/// `ZREMRANGEBYRANK key start stop`: removes members by rank (negative ranks count from
/// the end), replying how many went.
fn zremrangebyrank(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    let key = args.next_owned()?;
    let start = long_arg(args.next_bytes()?)?;
    let end = long_arg(args.next_bytes()?)?;
    remrange(ctx, &key, "zremrangebyrank", |z| {
        match clamp_ranks(start, end, z.len()) {
            Some((a, b)) => z.remove_rank_range(a, b),
            None => 0,
        }
    })
}

/// `ZREMRANGEBYSCORE key min max`: removes the members whose score is in the range.
fn zremrangebyscore(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    let key = args.next_owned()?;
    let range = parse_score_range(&args.next_owned()?, &args.next_owned()?)?;
    remrange(ctx, &key, "zremrangebyscore", |z| {
        z.remove_score_range(&range)
    })
}

/// `ZREMRANGEBYLEX key min max`: removes the members in a lexicographic range.
fn zremrangebylex(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    let key = args.next_owned()?;
    let range = parse_lex_range(&args.next_owned()?, &args.next_owned()?)?;
    remrange(ctx, &key, "zremrangebylex", |z| z.remove_lex_range(&range))
}

/// Shared body of the ZREMRANGEBY* commands: `f` removes the range from the set at `key`
/// and returns how many went; `event` is sent when any did (then `del` if it emptied).
fn remrange(
    ctx: &mut Ctx<'_>,
    key: &[u8],
    event: &str,
    f: impl FnOnce(&mut ZSet) -> usize,
) -> CmdResult {
    let Some(z) = write_zset(ctx, key)? else {
        return Ok(Reply::Integer(0));
    };
    let n = f(z);
    ctx.dirty += n as u64;
    if n > 0 {
        ctx.notify(class::ZSET, event, key);
        ctx.delete_if_emptied(key);
    }
    Ok(Reply::Integer(n as i64))
}

// ---------------------------------------------------------------------------------------
// Ranges: ZRANGE and its older forms, ZRANGESTORE
// ---------------------------------------------------------------------------------------

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
fn zrange(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    range_generic(ctx, args, None, RangeType::Auto, Direction::Auto)
}

/// `ZRANGESTORE dst src min max [BYSCORE | BYLEX] [REV] [LIMIT offset count]`: like
/// `ZRANGE`, storing the result in `dst` (deleting `dst` if empty) and replying its size.
fn zrangestore(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    let dst = args.next_owned()?;
    range_generic(ctx, args, Some(dst), RangeType::Auto, Direction::Auto)
}

/// `ZREVRANGE key start stop [WITHSCORES]`: ranks counted from the highest score.
fn zrevrange(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    range_generic(ctx, args, None, RangeType::Rank, Direction::Reverse)
}

/// `ZRANGEBYSCORE key min max [WITHSCORES] [LIMIT offset count]`
fn zrangebyscore(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    range_generic(ctx, args, None, RangeType::Score, Direction::Forward)
}

/// `ZREVRANGEBYSCORE key max min [WITHSCORES] [LIMIT offset count]`
fn zrevrangebyscore(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    range_generic(ctx, args, None, RangeType::Score, Direction::Reverse)
}

/// `ZRANGEBYLEX key min max [LIMIT offset count]`
fn zrangebylex(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    range_generic(ctx, args, None, RangeType::Lex, Direction::Forward)
}

/// `ZREVRANGEBYLEX key max min [LIMIT offset count]`
fn zrevrangebylex(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
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
            let mut out = if matches!(spec, Spec::Rank(..))
                && items.len() > crate::engine::types::zset::MAX_LISTPACK_ENTRIES
            {
                ZSet::new_skiplist()
            } else {
                ZSet::new()
            };
            for (m, s) in &items {
                out.add(m, *s);
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

// ---------------------------------------------------------------------------------------
// Popping and random members
// ---------------------------------------------------------------------------------------

/// `ZPOPMIN key [count]`: removes and returns up to `count` (default 1) lowest members with
/// their scores; the key is deleted when it empties.
fn zpopmin(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    zpop_command(ctx, args, false)
}

/// `ZPOPMAX key [count]`: like `ZPOPMIN`, from the highest scores.
fn zpopmax(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    zpop_command(ctx, args, true)
}

fn zpop_command(ctx: &mut Ctx<'_>, args: &mut Args, max: bool) -> CmdResult {
    if args.remaining() > 2 {
        return Err(Error::Syntax);
    }
    let key = args.next_owned()?;
    let count = match args.peek() {
        Some(c) => match parse_i64(c) {
            Some(n) if n >= 0 => Some(n as u64),
            _ => return Err(Error::MustBePositive),
        },
        None => None,
    };
    let proto = ctx.client.proto;
    let Some(popped) = pop(ctx, &key, max, count.unwrap_or(1))? else {
        return Ok(Reply::Array(Vec::new()));
    };
    let nested = proto >= 3 && count.is_some();
    let mut out = Vec::new();
    for (m, s) in popped {
        if nested {
            out.push(Reply::Array(vec![Reply::Bulk(m), score_reply(proto, s)]));
        } else {
            out.push(Reply::Bulk(m));
            out.push(score_reply(proto, s));
        }
    }
    Ok(Reply::Array(out))
}

/// An owned member with its score.
type Scored = (Vec<u8>, f64);

/// Pops up to `count` members from one end of `key`. `None` when the key is missing.
fn pop(ctx: &mut Ctx<'_>, key: &[u8], max: bool, count: u64) -> CmdResult<Option<Vec<Scored>>> {
    let Some(z) = write_zset(ctx, key)? else {
        return Ok(None);
    };
    let n = count.min(z.len() as u64) as usize;
    if n == 0 {
        return Ok(Some(Vec::new()));
    }
    let (first, taken): (usize, Vec<Scored>) = if max {
        let first = z.len() - n;
        (
            first,
            z.iter_from_rank(z.len() - 1, true, n)
                .map(|(m, s)| (m.to_vec(), s))
                .collect(),
        )
    } else {
        (
            0,
            z.iter_from_rank(0, false, n)
                .map(|(m, s)| (m.to_vec(), s))
                .collect(),
        )
    };
    z.remove_rank_range(first, first + n - 1);
    ctx.dirty += n as u64;
    ctx.notify(class::ZSET, if max { "zpopmax" } else { "zpopmin" }, key);
    ctx.delete_if_emptied(key);
    // ZMPOP's keys are not in the table's key positions: signal the one popped.
    ctx.signal_modified(key);
    Ok(Some(taken))
}

/// `ZMPOP numkeys key [key ...] MIN | MAX [COUNT count]`: pops up to `count` members from
/// the first of the keys that exists, replying `[key, [[member, score], ...]]`, or nil when
/// none exists. Recorded as `ZPOPMIN`/`ZPOPMAX key n`.
fn zmpop(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    let numkeys = ranged_arg(
        args.next_bytes()?,
        1,
        i64::MAX,
        "numkeys should be greater than 0",
    )? as u64;
    if numkeys >= args.remaining() as u64 {
        return Err(Error::Syntax);
    }
    let mut keys = Vec::with_capacity(numkeys as usize);
    for _ in 0..numkeys {
        keys.push(args.next_owned()?);
    }
    let max = if args.eat("MIN") {
        false
    } else if args.eat("MAX") {
        true
    } else {
        return Err(Error::Syntax);
    };
    let mut count: Option<u64> = None;
    while !args.is_empty() {
        if count.is_none() && args.remaining() >= 2 && args.eat("COUNT") {
            count = Some(ranged_arg(
                args.next_bytes()?,
                1,
                i64::MAX,
                "count should be greater than 0",
            )? as u64);
        } else {
            return Err(Error::Syntax);
        }
    }
    let count = count.unwrap_or(1);
    let proto = ctx.client.proto;
    for key in keys {
        let Some(popped) = pop(ctx, &key, max, count)? else {
            continue;
        };
        let n = popped.len();
        ctx.propagate(vec![
            if max {
                b"ZPOPMAX".to_vec()
            } else {
                b"ZPOPMIN".to_vec()
            },
            key.clone(),
            n.to_string().into_bytes(),
        ]);
        let items = popped
            .into_iter()
            .map(|(m, s)| Reply::Array(vec![Reply::Bulk(m), score_reply(proto, s)]))
            .collect();
        return Ok(Reply::Array(vec![Reply::Bulk(key), Reply::Array(items)]));
    }
    Ok(Reply::NilArray)
}

/// `ZRANDMEMBER key [count [WITHSCORES]]`
///
/// Without a count: one random member (nil for a missing key). With a positive count: up
/// to that many *distinct* members (the whole set, in order, when the count covers it).
/// With a negative count: exactly `-count` members, possibly repeated. `WITHSCORES` adds
/// scores. A negative count beyond [`MAX_REPEATED_PICKS`] is refused (see there).
fn zrandmember(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    let key = args.next_owned()?;
    if args.is_empty() {
        let Some(z) = read_zset(ctx, &key)? else {
            return Ok(Reply::Nil);
        };
        let n = z.len();
        let i = ctx.random_below(n);
        let Some(z) = read_zset(ctx, &key)? else {
            return Ok(Reply::Nil);
        };
        return Ok(Reply::bulk_or_nil(z.get_index(i).map(|(m, _)| m)));
    }
    let l = parse_i64(args.next_bytes()?).ok_or(Error::NotInteger)?;
    if l == i64::MIN {
        return Err(Error::OutOfRangeBetween(-i64::MAX, i64::MAX));
    }
    let withscores = match args.remaining() {
        0 => false,
        1 if args.eat("WITHSCORES") => true,
        _ => return Err(Error::Syntax),
    };
    if withscores && !(-(i64::MAX / 2)..=i64::MAX / 2).contains(&l) {
        return Err(Error::OutOfRange);
    }
    let proto = ctx.client.proto;
    let Some(size) = read_zset(ctx, &key)?.map(|z| z.len()) else {
        return Ok(Reply::Array(Vec::new()));
    };
    let count = l.unsigned_abs();
    if count == 0 {
        return Ok(Reply::Array(Vec::new()));
    }
    // Choose positions in the dict, then read them.
    let positions: Vec<usize> = if l < 0 || count == 1 {
        if count > MAX_REPEATED_PICKS {
            return Err(Error::ReplyTooLarge(MAX_REPEATED_PICKS));
        }
        (0..count).map(|_| ctx.random_below(size)).collect()
    } else if count >= size as u64 {
        // The whole set, highest first: Redis walks sorted sets from the tail here.
        let Some(z) = read_zset(ctx, &key)? else {
            return Ok(Reply::Array(Vec::new()));
        };
        let mut out = Vec::new();
        for (m, s) in z.iter_from_rank(size - 1, true, size) {
            push_member(&mut out, proto, withscores, m, s);
        }
        return Ok(Reply::Array(out));
    } else if count * 3 > size as u64 {
        // Few to drop: start from everything and remove random positions.
        let mut all: Vec<usize> = (0..size).collect();
        while all.len() as u64 > count {
            let i = ctx.random_below(all.len());
            all.swap_remove(i);
        }
        all
    } else {
        // Few to pick: draw until enough distinct ones.
        let mut seen = HashSet::new();
        let mut picks = Vec::with_capacity(count as usize);
        while (picks.len() as u64) < count {
            let i = ctx.random_below(size);
            if seen.insert(i) {
                picks.push(i);
            }
        }
        picks
    };
    let Some(z) = read_zset(ctx, &key)? else {
        return Ok(Reply::Array(Vec::new()));
    };
    let mut out = Vec::with_capacity(positions.len() * if withscores { 2 } else { 1 });
    for p in positions {
        if let Some((m, s)) = z.get_index(p) {
            push_member(&mut out, proto, withscores, m, s);
        }
    }
    Ok(Reply::Array(out))
}

// ---------------------------------------------------------------------------------------
// ZSCAN
// ---------------------------------------------------------------------------------------

/// `ZSCAN key cursor [MATCH pattern] [COUNT count]`: iterates members and scores. A small
/// (listpack) set comes back whole, in order, with cursor 0 and scores as the listpack
/// stores them (`d2string`); a large one is walked by dict position with `COUNT` as the
/// work hint (see [`crate::engine::scan`]).
fn zscan(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    let key = args.next_owned()?;
    let cursor = scan::parse_cursor(args.next_bytes()?)?;
    let empty = || Reply::Array(vec![Reply::bulk(b"0"), Reply::Array(Vec::new())]);
    let Some(z) = read_zset(ctx, &key)? else {
        return Ok(empty());
    };
    let opts = scan::parse_opts(args, false)?;
    let mut out = Vec::new();
    let next = if z.is_listpack() {
        for (m, s) in z.iter() {
            if scan::pattern_ok(&opts, m) {
                out.push(Reply::bulk(m));
                out.push(Reply::Bulk(d2string(s).into_bytes()));
            }
        }
        0
    } else {
        let (positions, next) = scan::step(z.len(), cursor, opts.count);
        for p in positions {
            if let Some((m, s)) = z.get_index(p) {
                if scan::pattern_ok(&opts, m) {
                    out.push(Reply::bulk(m));
                    out.push(Reply::Bulk(format_double(s).into_bytes()));
                }
            }
        }
        next
    };
    Ok(Reply::Array(vec![
        Reply::Bulk(next.to_string().into_bytes()),
        Reply::Array(out),
    ]))
}

// ---------------------------------------------------------------------------------------
// ZUNION, ZINTER, ZDIFF, ZINTERCARD and the STORE forms
// ---------------------------------------------------------------------------------------

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
fn zunion(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    setop_generic(ctx, args, None, SetOp::Union, false)
}

/// `ZINTER numkeys key [key ...] [WEIGHTS w ...] [AGGREGATE SUM | MIN | MAX] [WITHSCORES]`:
/// the members present in every input.
fn zinter(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    setop_generic(ctx, args, None, SetOp::Inter, false)
}

/// `ZDIFF numkeys key [key ...] [WITHSCORES]`: the members of the first input in no other,
/// with their scores from the first.
fn zdiff(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    setop_generic(ctx, args, None, SetOp::Diff, false)
}

/// `ZINTERCARD numkeys key [key ...] [LIMIT limit]`: the size of the intersection,
/// counting no further than `limit` when it is not 0.
fn zintercard(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    setop_generic(ctx, args, None, SetOp::Inter, true)
}

/// `ZUNIONSTORE destination numkeys key [key ...] [WEIGHTS …] [AGGREGATE …]`: stores the
/// union (deleting the destination if it is empty) and replies its size.
fn zunionstore(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    let dst = args.next_owned()?;
    setop_generic(ctx, args, Some(dst), SetOp::Union, false)
}

/// `ZINTERSTORE destination numkeys key [key ...] [WEIGHTS …] [AGGREGATE …]`
fn zinterstore(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    let dst = args.next_owned()?;
    setop_generic(ctx, args, Some(dst), SetOp::Inter, false)
}

/// `ZDIFFSTORE destination numkeys key [key ...]`
fn zdiffstore(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
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
            let z: ZSet = result.iter().map(|(m, s)| (m.to_vec(), *s)).collect();
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::cli::{format_reply, split_args};
    use crate::engine::{ClientId, Engine, ManualClock};

    fn engine() -> (Engine, ClientId) {
        let mut e = Engine::new(Box::new(ManualClock::at_ms(1_704_067_200_000)), 7);
        let c = e.connect();
        (e, c)
    }

    fn run(e: &mut Engine, c: ClientId, line: &str) -> String {
        let argv = split_args(line).expect("valid line");
        format_reply(&e.execute(c, argv))
    }

    fn encoding(e: &Engine, key: &str) -> &'static str {
        e.server().dbs[0]
            .get_raw(key.as_bytes())
            .map(|en| en.value.encoding())
            .unwrap_or("none")
    }

    /// RESP3 replies, as `redis-cli -3` prints them against Redis 7.0.15.
    #[test]
    fn resp3_scores_are_doubles_and_pairs_nest() {
        let (mut e, c) = engine();
        e.clients.get_mut(&c).expect("client").proto = 3;
        let cases: &[(&str, &str)] = &[
            ("ZADD z 1 a 2.5 b inf c", "(integer) 3"),
            ("ZSCORE z b", "(double) 2.5"),
            ("ZSCORE z c", "(double) inf"),
            ("ZMSCORE z a nosuch", "1) (double) 1\n2) (nil)"),
            (
                "ZRANGE z 0 -1 WITHSCORES",
                "1) 1) \"a\"\n   2) (double) 1\n2) 1) \"b\"\n   2) (double) 2.5\n3) 1) \"c\"\n   2) (double) inf",
            ),
            ("ZRANGE z 0 -1", "1) \"a\"\n2) \"b\"\n3) \"c\""),
            ("ZPOPMIN z", "1) \"a\"\n2) (double) 1"),
            ("ZADD z 1 a", "(integer) 1"),
            ("ZPOPMIN z 1", "1) 1) \"a\"\n   2) (double) 1"),
            ("ZADD z 1 a", "(integer) 1"),
            (
                "ZMPOP 1 z MAX COUNT 2",
                "1) \"z\"\n2) 1) 1) \"c\"\n      2) (double) inf\n   2) 1) \"b\"\n      2) (double) 2.5",
            ),
            ("ZADD z 1 a 2 b", "(integer) 1"),
            (
                "ZUNION 1 z WITHSCORES",
                "1) 1) \"a\"\n   2) (double) 1\n2) 1) \"b\"\n   2) (double) 2",
            ),
            (
                "ZRANDMEMBER z 5 WITHSCORES",
                "1) 1) \"b\"\n   2) (double) 2\n2) 1) \"a\"\n   2) (double) 1",
            ),
            ("ZINCRBY z 1 a", "(double) 2"),
            ("ZADD z INCR 1 a", "(double) 3"),
            ("ZMPOP 1 nokey MIN", "(nil)"),
            ("ZRANDMEMBER nokey", "(nil)"),
            ("ZSCORE z nosuch", "(nil)"),
            ("ZSCAN z 0", "1) \"0\"\n2) 1) \"b\"\n   2) \"2\"\n   3) \"a\"\n   4) \"3\""),
            ("ZADD z -0 m", "(integer) 1"),
            (
                "ZRANGEBYSCORE z -inf +inf WITHSCORES",
                "1) 1) \"m\"\n   2) (double) 0\n2) 1) \"b\"\n   2) (double) 2\n3) 1) \"a\"\n   2) (double) 3",
            ),
        ];
        for (cmd, want) in cases {
            assert_eq!(run(&mut e, c, cmd), *want, "{cmd}");
        }
    }

    #[test]
    fn encoding_switches_like_redis_and_never_back() {
        let (mut e, c) = engine();
        let members: Vec<String> = (0..128).map(|i| format!("{i} m{i}")).collect();
        run(&mut e, c, &format!("ZADD z {}", members.join(" ")));
        assert_eq!(encoding(&e, "z"), "listpack");
        run(&mut e, c, "ZADD z 1 m0");
        assert_eq!(encoding(&e, "z"), "listpack");
        run(&mut e, c, "ZADD z 1 extra");
        assert_eq!(encoding(&e, "z"), "skiplist");
        run(&mut e, c, "ZREMRANGEBYRANK z 0 100");
        assert_eq!(encoding(&e, "z"), "skiplist");
        // A STORE result is re-evaluated: small and short members make a listpack.
        run(&mut e, c, "ZUNIONSTORE u 1 z");
        assert_eq!(encoding(&e, "u"), "listpack");
        run(&mut e, c, "ZRANGESTORE r z 0 -1");
        assert_eq!(encoding(&e, "r"), "listpack");
        let long = "x".repeat(65);
        run(&mut e, c, &format!("ZADD big 1 {long}"));
        assert_eq!(encoding(&e, "big"), "skiplist");
        run(&mut e, c, "ZADD small 1 a");
        run(&mut e, c, "SORT small");
        assert_eq!(encoding(&e, "small"), "skiplist");
        // The skiplist keeps -0; a listpack stores it as the integer 0.
        run(&mut e, c, "ZADD big -0 z");
        assert_eq!(run(&mut e, c, "ZSCORE big z"), "\"-0\"");
        run(&mut e, c, "ZADD lp -0 z");
        assert_eq!(run(&mut e, c, "ZSCORE lp z"), "\"0\"");
        run(&mut e, c, "ZUNIONSTORE lp2 1 big");
        assert_eq!(run(&mut e, c, "ZSCORE lp2 z"), "\"-0\"");
        run(&mut e, c, "ZREM big x");
        run(&mut e, c, &format!("ZREM big {long}"));
        run(&mut e, c, "ZUNIONSTORE lp3 1 big");
        assert_eq!(encoding(&e, "lp3"), "listpack");
        assert_eq!(run(&mut e, c, "ZSCORE lp3 z"), "\"0\"");
    }

    #[test]
    fn large_sets_scan_every_member_exactly_as_present() {
        let (mut e, c) = engine();
        let members: Vec<String> = (0..1000).map(|i| format!("{i} m{i}")).collect();
        run(&mut e, c, &format!("ZADD z {}", members.join(" ")));
        let mut seen = HashSet::new();
        let mut cursor = "0".to_string();
        loop {
            let r = e.execute(
                c,
                vec![
                    b"ZSCAN".to_vec(),
                    b"z".to_vec(),
                    cursor.clone().into_bytes(),
                    b"COUNT".to_vec(),
                    b"37".to_vec(),
                ],
            );
            let Reply::Array(parts) = r else {
                panic!("not an array")
            };
            let (Reply::Bulk(next), Reply::Array(items)) = (&parts[0], &parts[1]) else {
                panic!("bad shape")
            };
            for pair in items.chunks(2) {
                let (Reply::Bulk(m), Reply::Bulk(s)) = (&pair[0], &pair[1]) else {
                    panic!("bad pair")
                };
                let m = String::from_utf8(m.clone()).expect("utf8");
                assert_eq!(format!("m{}", String::from_utf8_lossy(s)), m);
                seen.insert(m);
            }
            cursor = String::from_utf8(next.clone()).expect("utf8");
            if cursor == "0" {
                break;
            }
        }
        assert_eq!(seen.len(), 1000);
    }

    #[test]
    fn effects_replay_and_no_ops_record_nothing() {
        let (mut e, c) = engine();
        run(&mut e, c, "ZADD z 1 a 2 b 3 c");
        let fx = e.take_effects();
        assert_eq!(fx.len(), 1);
        assert_eq!(fx[0].argv[0], b"ZADD");
        for noop in [
            "ZADD z 1 a",
            "ZADD z NX 5 a",
            "ZADD z GT 0 a",
            "ZINCRBY z 0 a",
            "ZREM z nosuch",
            "ZREM nokey a",
            "ZREMRANGEBYSCORE z 10 20",
            "ZPOPMIN nokey",
            "ZMPOP 1 nokey MIN",
            "ZUNIONSTORE dst 1 nokey",
            "ZRANGESTORE dst z 5 10",
            "SORT z",
            "SORT nokey STORE dst",
            "ZSCORE z a",
        ] {
            run(&mut e, c, noop);
            assert!(e.take_effects().is_empty(), "{noop} recorded an effect");
        }
        run(&mut e, c, "ZMPOP 2 nokey z MAX COUNT 5");
        let fx = e.take_effects();
        assert_eq!(fx.len(), 1);
        assert_eq!(
            fx[0].argv,
            vec![b"ZPOPMAX".to_vec(), b"z".to_vec(), b"3".to_vec()]
        );
        run(&mut e, c, "ZADD z 1 a");
        run(&mut e, c, "ZPOPMIN z 2");
        let fx = e.take_effects();
        assert_eq!(fx.len(), 2);
        assert_eq!(fx[1].argv[0], b"ZPOPMIN");
        run(&mut e, c, "ZADD src 1 a");
        run(&mut e, c, "ZUNIONSTORE dst 1 src");
        run(&mut e, c, "ZINTERSTORE dst 2 src nokey");
        let fx = e.take_effects();
        assert_eq!(fx.len(), 3, "store, then delete of the destination");
        assert_eq!(run(&mut e, c, "GET dst"), "(nil)");
    }

    #[test]
    fn huge_counts_give_errors_or_bounded_answers() {
        let (mut e, c) = engine();
        run(&mut e, c, "ZADD z 1 a 2 b 3 c");
        assert_eq!(
            run(&mut e, c, "ZRANDMEMBER z -9223372036854775807"),
            "(error) ERR value is out of range, the reply would exceed 1048576 elements"
        );
        let r = e.execute(
            c,
            vec![b"ZRANDMEMBER".to_vec(), b"z".to_vec(), b"-1048576".to_vec()],
        );
        assert!(matches!(r, Reply::Array(v) if v.len() == 1 << 20));
        assert_eq!(
            run(&mut e, c, "ZRANDMEMBER z 9223372036854775807")
                .lines()
                .count(),
            3
        );
        assert_eq!(
            run(&mut e, c, "ZPOPMIN z 9223372036854775807")
                .lines()
                .count(),
            6
        );
        run(&mut e, c, "ZADD z 1 a 2 b 3 c");
        assert_eq!(
            run(
                &mut e,
                c,
                "ZRANGE z -inf +inf BYSCORE LIMIT 9223372036854775807 -1"
            ),
            "(empty array)"
        );
        assert_eq!(
            run(
                &mut e,
                c,
                "ZRANGE z +inf -inf BYSCORE REV LIMIT 2 9223372036854775807"
            ),
            "1) \"a\""
        );
        assert_eq!(
            run(&mut e, c, "ZMPOP 9223372036854775807 z MIN"),
            "(error) ERR syntax error"
        );
        assert_eq!(
            run(&mut e, c, "ZUNIONSTORE d 9223372036854775807 z"),
            "(error) ERR syntax error"
        );
        assert_eq!(
            run(
                &mut e,
                c,
                "ZREMRANGEBYRANK z -9223372036854775808 9223372036854775807"
            ),
            "(integer) 3"
        );
    }

    #[test]
    fn random_members_are_distinct_or_repeated_as_asked() {
        let (mut e, c) = engine();
        let members: Vec<String> = (0..50).map(|i| format!("{i} m{i}")).collect();
        run(&mut e, c, &format!("ZADD z {}", members.join(" ")));
        for count in [1, 5, 20, 40, 49] {
            let r = e.execute(
                c,
                vec![
                    b"ZRANDMEMBER".to_vec(),
                    b"z".to_vec(),
                    count.to_string().into_bytes(),
                ],
            );
            let Reply::Array(items) = r else { panic!() };
            assert_eq!(items.len(), count);
            let distinct: HashSet<_> = items.iter().map(|i| format!("{i:?}")).collect();
            assert_eq!(distinct.len(), count, "count {count} repeated a member");
        }
        let r = e.execute(
            c,
            vec![b"ZRANDMEMBER".to_vec(), b"z".to_vec(), b"-200".to_vec()],
        );
        let Reply::Array(items) = r else { panic!() };
        assert_eq!(items.len(), 200);
        let one = run(&mut e, c, "ZRANDMEMBER z");
        assert!(one.starts_with("\"m"), "{one}");
    }

    #[test]
    fn strtod_follows_c() {
        let v = |s: &str| strtod(s.as_bytes());
        assert_eq!(v("1.5").value, 1.5);
        assert_eq!(v("1.5").consumed, 3);
        assert_eq!(v("  -2e3x").value, -2000.0);
        assert_eq!(v("  -2e3x").consumed, 6);
        assert_eq!(v("1e").consumed, 1);
        assert_eq!(v("5.").value, 5.0);
        assert_eq!(v("5.").consumed, 2);
        assert_eq!(v("1.e3").value, 1000.0);
        assert_eq!(v(".5e-1").value, 0.05);
        assert_eq!(v("0x10").value, 16.0);
        assert_eq!(v("0x1.8p1").value, 3.0);
        assert_eq!(v("0x").consumed, 1);
        assert_eq!(v("-InFinity").value, f64::NEG_INFINITY);
        assert!(v("nan").value.is_nan());
        assert_eq!(v("").consumed, 0);
        assert_eq!(v(".").consumed, 0);
        assert!(v("1e400").range_error);
        assert!(v("1e-400").range_error);
        assert!(v("1e-310").range_error);
        assert!(!v("0.0").range_error);
    }

    #[test]
    fn score_parsing_matches_string2d() {
        assert_eq!(parse_score(b"0x10"), Some(16.0));
        assert_eq!(parse_score(b"1e-310"), Some(1e-310));
        for bad in [&b"1e400"[..], b"1e-400", b" 1", b"1 ", b"", b"nan", b"abc"] {
            assert_eq!(parse_score(bad), None, "{:?}", String::from_utf8_lossy(bad));
        }
    }

    #[test]
    fn range_bounds_match_zslparserange() {
        assert!(parse_score_range(b"", b"(").is_ok());
        assert!(parse_score_range(b" 1", b"(2").is_ok());
        assert!(parse_score_range(b"1 ", b"2").is_err());
        assert!(parse_score_range(b"nan", b"2").is_err());
        assert!(parse_lex_range(b"a", b"+").is_err());
        assert!(parse_lex_range(b"-", b"+").is_ok());
        assert!(parse_lex_range(b"-x", b"+").is_err());
    }

    #[test]
    fn d2string_uses_integers_up_to_2_pow_62() {
        assert_eq!(d2string(1e17), "100000000000000000");
        assert_eq!(d2string(4_611_686_018_427_387_904.0), "4611686018427387904");
        assert_eq!(
            d2string(9_223_372_036_854_775_808.0),
            "9.2233720368547758e+18"
        );
        assert_eq!(d2string(0.1), "0.10000000000000001");
        assert_eq!(d2string(-0.0), "-0");
    }

    /// Runs `write` on a second client between `WATCH key` and `EXEC` on the first; true if
    /// the transaction still ran.
    fn exec_survives(e: &mut Engine, watcher: ClientId, key: &str, write: &str) -> bool {
        let other = e.connect();
        run(e, watcher, &format!("WATCH {key}"));
        run(e, other, write);
        run(e, watcher, "MULTI");
        run(e, watcher, "PING");
        let survived = run(e, watcher, "EXEC") != "(nil)";
        e.disconnect(other);
        survived
    }

    #[test]
    fn store_commands_touch_the_destination_not_the_sources() {
        let (mut e, c) = engine();
        run(&mut e, c, "ZADD z1 1 a 2 b");
        run(&mut e, c, "ZADD z2 2 b 3 c");
        for write in [
            "ZUNIONSTORE dst 2 z1 z2",
            "ZINTERSTORE dst 2 z1 z2",
            "ZDIFFSTORE dst 2 z1 z2",
            "ZRANGESTORE dst z1 0 -1",
            "SORT z1 BY nosort STORE dst",
        ] {
            assert!(exec_survives(&mut e, c, "z1", write), "{write}");
            assert!(exec_survives(&mut e, c, "z2", write), "{write}");
            assert!(!exec_survives(&mut e, c, "dst", write), "{write}");
        }
    }

    #[test]
    fn zmpop_touches_the_key_it_popped_and_no_other() {
        let (mut e, c) = engine();
        run(&mut e, c, "ZADD z 1 a 2 b 3 c");
        assert!(exec_survives(&mut e, c, "nokey", "ZMPOP 2 nokey z MIN"));
        assert!(!exec_survives(&mut e, c, "z", "ZMPOP 2 nokey z MAX"));
    }
}
