//! Reading single members and counts: ZCARD, ZSCORE, ZMSCORE, ZRANK, ZREVRANK, ZCOUNT,
//! ZLEXCOUNT.

use crate::engine::args::Args;
use crate::engine::error::CmdResult;
use crate::engine::{Ctx, Reply};

use super::parse::{parse_lex_range, parse_score_range};
use super::reply::{read_zset, score_reply};

/// `ZCARD key`: the number of members (0 for a missing key).
pub(super) fn zcard(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    let key = args.next_owned()?;
    Ok(Reply::Integer(
        read_zset(ctx, &key)?.map_or(0, |z| z.len()) as i64
    ))
}

/// `ZSCORE key member`: the member's score, or nil.
pub(super) fn zscore(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
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
pub(super) fn zmscore(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
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
pub(super) fn zrank(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    rank_generic(ctx, args, false)
}

/// `ZREVRANK key member`: the member's 0-based rank by descending score, or nil.
pub(super) fn zrevrank(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
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
pub(super) fn zcount(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    let key = args.next_owned()?;
    let range = parse_score_range(&args.next_owned()?, &args.next_owned()?)?;
    Ok(Reply::Integer(
        read_zset(ctx, &key)?.map_or(0, |z| z.count_in_score_range(&range)) as i64,
    ))
}

/// `ZLEXCOUNT key min max`: how many members lie in a lexicographic range (`[a`, `(a`, `-`,
/// `+`). O(log N).
pub(super) fn zlexcount(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    let key = args.next_owned()?;
    let range = parse_lex_range(&args.next_owned()?, &args.next_owned()?)?;
    Ok(Reply::Integer(
        read_zset(ctx, &key)?.map_or(0, |z| z.count_in_lex_range(&range)) as i64,
    ))
}
