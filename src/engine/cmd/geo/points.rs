//! Points: GEOADD, GEOPOS, GEOHASH and GEODIST.

use super::common::{coord_reply, dist_reply, lon_lat, unit};
use crate::engine::args::Args;
use crate::engine::cmd::zset::read_zset;
use crate::engine::error::{CmdResult, Error};
use crate::engine::types::geohash::{self};
use crate::engine::{Ctx, Reply};

/// `GEOADD key [NX | XX] [CH] longitude latitude member [longitude latitude member ...]`
///
/// Adds each member with the 52-bit geohash of its position as score, by rewriting itself
/// into `ZADD key [options] score member …` (so `NX`, `XX` and `CH` mean what they mean
/// there). Every pair is checked first: a non-number is `ERR value is not a valid float`,
/// a point outside ±180 / ±85.05112878 is `ERR invalid longitude,latitude pair x,y`. A
/// triple count that does not divide, or `NX` with `XX`, is a syntax error.
pub(super) fn geoadd(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    let argv = args.argv().to_vec();
    let mut first = 2;
    let (mut nx, mut xx) = (false, false);
    while let Some(opt) = argv.get(first) {
        if opt.eq_ignore_ascii_case(b"nx") {
            nx = true;
        } else if opt.eq_ignore_ascii_case(b"xx") {
            xx = true;
        } else if !opt.eq_ignore_ascii_case(b"ch") {
            break;
        }
        first += 1;
    }
    let triples = argv.get(first..).unwrap_or_default();
    if triples.len() % 3 != 0 || (nx && xx) {
        return Err(Error::Syntax);
    }
    let mut zargv: Vec<Vec<u8>> = Vec::with_capacity(first + triples.len() / 3 * 2);
    zargv.push(b"ZADD".to_vec());
    zargv.extend(argv.iter().take(first).skip(1).cloned());
    for t in triples.chunks_exact(3) {
        let (lon, lat) = lon_lat(&t[0], &t[1])?;
        let score = geohash::score_of(lon, lat).unwrap_or(0);
        zargv.push(score.to_string().into_bytes());
        zargv.push(t[2].clone());
    }
    let zadd = ctx
        .table
        .lookup(b"zadd")
        .and_then(|c| c.handler)
        .ok_or_else(|| Error::Err("ZADD is not available".to_string()))?;
    let before = ctx.dirty;
    let reply = zadd(ctx, &mut Args::new(zargv.clone(), 1))?;
    if ctx.dirty > before {
        ctx.propagate(zargv);
    }
    Ok(reply)
}

/// `GEOPOS key [member ...]`: for each member, `[longitude, latitude]` (the centre of its
/// 52-bit cell, not the exact input), or a nil array when it is missing. A missing key
/// answers nil for every member.
pub(super) fn geopos(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    let key = args.next_owned()?;
    let members = args.rest();
    let proto = ctx.client.proto;
    let z = read_zset(ctx, &key)?;
    Ok(Reply::Array(
        members
            .iter()
            .map(|m| match z.and_then(|z| z.score(m)) {
                None => Reply::NilArray,
                Some(s) => {
                    let (lon, lat) = geohash::decode_score(s);
                    Reply::Array(vec![coord_reply(proto, lon), coord_reply(proto, lat)])
                }
            })
            .collect(),
    ))
}

/// `GEOHASH key [member ...]`: for each member its position as an 11-character standard
/// geohash (latitudes −90…90, last character always `0`), or nil when it is missing.
pub(super) fn geohash_cmd(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    let key = args.next_owned()?;
    let members = args.rest();
    let z = read_zset(ctx, &key)?;
    Ok(Reply::Array(
        members
            .iter()
            .map(
                |m| match z.and_then(|z| z.score(m)).and_then(geohash::geohash_string) {
                    None => Reply::Nil,
                    Some(h) => Reply::Bulk(h.into_bytes()),
                },
            )
            .collect(),
    ))
}

/// `GEODIST key member1 member2 [M | KM | FT | MI]`: the haversine distance between two
/// members in the unit (metres by default), with four decimals; nil if the key or either
/// member is missing. The unit is checked before the key.
pub(super) fn geodist(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    let key = args.next_owned()?;
    let m1 = args.next_owned()?;
    let m2 = args.next_owned()?;
    let to_meter = match args.remaining() {
        0 => 1.0,
        1 => unit(args.next_bytes()?)?,
        _ => return Err(Error::Syntax),
    };
    let Some(z) = read_zset(ctx, &key)? else {
        return Ok(Reply::Nil);
    };
    let (Some(s1), Some(s2)) = (z.score(&m1), z.score(&m2)) else {
        return Ok(Reply::Nil);
    };
    let (x1, y1) = geohash::decode_score(s1);
    let (x2, y2) = geohash::decode_score(s2);
    Ok(dist_reply(geohash::distance(x1, y1, x2, y2) / to_meter))
}
