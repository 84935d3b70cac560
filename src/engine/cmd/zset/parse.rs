//! Number and range parsing of the sorted-set commands: scores (C's `strtod`, in
//! [`crate::engine::num`]), score ranges and lexicographic ranges.

use crate::engine::args::parse_i64;
use crate::engine::error::{CmdResult, Error};
use crate::engine::num::strtod;
use crate::engine::reply::format_double;
use crate::engine::types::zset::{LexBound, LexRange, ScoreRange};

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
pub(super) fn long_arg(arg: &[u8]) -> CmdResult<i64> {
    parse_i64(arg).ok_or(Error::NotInteger)
}

/// An integer that must lie in `min..=max`, as `getRangeLongFromObjectOrReply` with a
/// custom message (`ERR <msg>` both for a bad integer and an out-of-range one).
pub(super) fn ranged_arg(arg: &[u8], min: i64, max: i64, msg: &str) -> CmdResult<i64> {
    match parse_i64(arg) {
        Some(v) if (min..=max).contains(&v) => Ok(v),
        _ => Err(Error::Err(msg.to_string())),
    }
}
