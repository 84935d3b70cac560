//! Searches: GEOSEARCH, GEOSEARCHSTORE, GEORADIUS and GEORADIUSBYMEMBER, with their `_RO` forms.

use super::common::{box_args, coord_reply, dist_reply, lon_lat, radius_args};
use crate::engine::args::{parse_i64, Args};
use crate::engine::cmd::zset::read_zset;
use crate::engine::error::{CmdResult, Error};
use crate::engine::pubsub::class;
use crate::engine::types::geohash::{self, Shape};
use crate::engine::types::zset::ScoreRange;
use crate::engine::types::{Value, ZSet};
use crate::engine::{Ctx, Reply};

/// Which command is searching.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// `GEORADIUS` (`ro`: the `_RO` form, no `STORE`).
    RadiusCoords { ro: bool },
    /// `GEORADIUSBYMEMBER` (`ro`: the `_RO` form).
    RadiusMember { ro: bool },
    /// `GEOSEARCH`.
    Search,
    /// `GEOSEARCHSTORE`.
    SearchStore,
}

/// Sort order of results.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Sort {
    None,
    Asc,
    Desc,
}

/// One search hit.
struct Hit {
    member: Vec<u8>,
    score: f64,
    lon: f64,
    lat: f64,
    dist: f64,
}

/// `GEORADIUS key longitude latitude radius unit [options]`: members within `radius` of the
/// point. Options: `WITHCOORD`, `WITHDIST`, `WITHHASH`, `COUNT n [ANY]`, `ASC`/`DESC`,
/// `STORE key` (scores are hashes) or `STOREDIST key` (scores are distances in the unit).
pub(super) fn georadius(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    search(ctx, args, Kind::RadiusCoords { ro: false })
}

/// `GEORADIUS_RO`: `GEORADIUS` without `STORE`/`STOREDIST`.
pub(super) fn georadius_ro(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    search(ctx, args, Kind::RadiusCoords { ro: true })
}

/// `GEORADIUSBYMEMBER key member radius unit [options]`: as `GEORADIUS` around a member
/// (`ERR could not decode requested zset member` if it is missing).
pub(super) fn georadiusbymember(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    search(ctx, args, Kind::RadiusMember { ro: false })
}

/// `GEORADIUSBYMEMBER_RO`: `GEORADIUSBYMEMBER` without `STORE`/`STOREDIST`.
pub(super) fn georadiusbymember_ro(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    search(ctx, args, Kind::RadiusMember { ro: true })
}

/// `GEOSEARCH key FROMMEMBER member | FROMLONLAT lon lat BYRADIUS r unit | BYBOX w h unit
/// [ASC | DESC] [COUNT n [ANY]] [WITHCOORD] [WITHDIST] [WITHHASH]`: members inside a circle
/// or an axis-aligned box centred on a member or a point. `COUNT` without an order sorts
/// ascending (unless `ANY`, which stops at the first `n` found).
pub(super) fn geosearch(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    search(ctx, args, Kind::Search)
}

/// `GEOSEARCHSTORE destination source … [STOREDIST]`: stores what `GEOSEARCH` would find as
/// a sorted set (scores are hashes, or distances with `STOREDIST`) and replies with its size;
/// an empty result deletes the destination.
pub(super) fn geosearchstore(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    search(ctx, args, Kind::SearchStore)
}

/// The sorted set at `key` once [`read_zset`] has looked it up (no second hit counted).
fn peek_zset<'a>(ctx: &'a mut Ctx<'_>, key: &[u8]) -> Option<&'a ZSet> {
    ctx.db().get_raw(key).and_then(|e| e.value.as_zset().ok())
}

/// The member's decoded position, or Redis's error when it is missing.
fn member_pos(ctx: &mut Ctx<'_>, key: &[u8], member: &[u8]) -> CmdResult<(f64, f64)> {
    peek_zset(ctx, key)
        .and_then(|z| z.score(member))
        .map(geohash::decode_score)
        .ok_or_else(|| Error::Err("could not decode requested zset member".to_string()))
}

/// Redis's `georadiusGeneric`, for every search command.
fn search(ctx: &mut Ctx<'_>, args: &mut Args, kind: Kind) -> CmdResult {
    let argv = args.argv().to_vec();
    let name = String::from_utf8_lossy(argv.first().map_or(&[][..], |v| v)).into_owned();
    let arg = |i: usize| argv.get(i).map_or(&[][..], |v| v.as_slice());
    let src = if kind == Kind::SearchStore { 2 } else { 1 };
    let src_key = arg(src).to_vec();
    let mut store: Option<Vec<u8>> = None;
    let mut storedist = false;

    // The source is type-checked first; a missing one still has its arguments parsed.
    let exists = read_zset(ctx, &src_key)?.is_some();

    let mut center: Option<(f64, f64)> = None;
    let mut shape: Option<(Shape, f64, f64)> = None; // (shape in units, metres per unit)
    let base = match kind {
        Kind::RadiusCoords { .. } => {
            center = Some(lon_lat(arg(2), arg(3))?);
            let (r, conv) = radius_args(arg(4), arg(5))?;
            shape = Some((Shape::Radius(r), conv, r));
            6
        }
        Kind::RadiusMember { .. } => {
            if exists {
                center = Some(member_pos(ctx, &src_key, arg(2))?);
                let (r, conv) = radius_args(arg(3), arg(4))?;
                shape = Some((Shape::Radius(r), conv, r));
            }
            5
        }
        Kind::Search => 2,
        Kind::SearchStore => {
            store = Some(arg(1).to_vec());
            3
        }
    };
    let is_search = matches!(kind, Kind::Search | Kind::SearchStore);
    let nostore = matches!(
        kind,
        Kind::RadiusCoords { ro: true } | Kind::RadiusMember { ro: true }
    );

    let (mut withdist, mut withhash, mut withcoord, mut any) = (false, false, false, false);
    let (mut frommember, mut fromloc, mut byradius, mut bybox) = (false, false, false, false);
    let mut sort = Sort::None;
    let mut count: i64 = 0;
    let mut i = base;
    while i < argv.len() {
        let a = arg(i);
        let left = argv.len() - i - 1; // arguments after this one
        let is = |w: &str| a.eq_ignore_ascii_case(w.as_bytes());
        if is("withdist") {
            withdist = true;
        } else if is("withhash") {
            withhash = true;
        } else if is("withcoord") {
            withcoord = true;
        } else if is("any") {
            any = true;
        } else if is("asc") {
            sort = Sort::Asc;
        } else if is("desc") {
            sort = Sort::Desc;
        } else if is("count") && left >= 1 {
            count = parse_i64(arg(i + 1)).ok_or(Error::NotInteger)?;
            if count <= 0 {
                return Err(Error::Err("COUNT must be > 0".to_string()));
            }
            i += 1;
        } else if (is("store") || is("storedist")) && left >= 1 && !nostore && !is_search {
            store = Some(arg(i + 1).to_vec());
            storedist = is("storedist");
            i += 1;
        } else if is("storedist") && kind == Kind::SearchStore {
            storedist = true;
        } else if is("frommember") && left >= 1 && is_search && !fromloc {
            if exists {
                center = Some(member_pos(ctx, &src_key, arg(i + 1))?);
            }
            frommember = true;
            i += 1;
        } else if is("fromlonlat") && left >= 2 && is_search && !frommember {
            center = Some(lon_lat(arg(i + 1), arg(i + 2))?);
            fromloc = true;
            i += 2;
        } else if is("byradius") && left >= 2 && is_search && !bybox {
            let (r, conv) = radius_args(arg(i + 1), arg(i + 2))?;
            shape = Some((Shape::Radius(r), conv, r));
            byradius = true;
            i += 2;
        } else if is("bybox") && left >= 3 && is_search && !byradius {
            let (w, h, conv) = box_args(arg(i + 1), arg(i + 2), arg(i + 3))?;
            shape = Some((Shape::Box(w, h), conv, 0.0));
            bybox = true;
            i += 3;
        } else {
            return Err(Error::Syntax);
        }
        i += 1;
    }

    if store.is_some() && (withdist || withhash || withcoord) {
        return Err(Error::Err(format!(
            "{} is not compatible with WITHDIST, WITHHASH and WITHCOORD options",
            if kind == Kind::SearchStore {
                "GEOSEARCHSTORE"
            } else {
                "STORE option in GEORADIUS"
            }
        )));
    }
    if is_search && !(frommember || fromloc) {
        return Err(Error::Err(format!(
            "exactly one of FROMMEMBER or FROMLONLAT can be specified for {name}"
        )));
    }
    if is_search && !(byradius || bybox) {
        return Err(Error::Err(format!(
            "exactly one of BYRADIUS and BYBOX can be specified for {name}"
        )));
    }
    if any && count == 0 {
        return Err(Error::Err(
            "the ANY argument requires COUNT argument".to_string(),
        ));
    }

    let (true, Some((lon, lat)), Some((shape_units, conv, _))) = (exists, center, shape) else {
        return Ok(match store {
            Some(dst) => {
                if ctx.delete(&dst) {
                    ctx.notify(class::GENERIC, "del", &dst);
                }
                Reply::Integer(0)
            }
            None => Reply::Array(Vec::new()),
        });
    };
    if count != 0 && sort == Sort::None && !any {
        sort = Sort::Asc;
    }
    let shape_m = match shape_units {
        Shape::Radius(r) => Shape::Radius(r * conv),
        Shape::Box(w, h) => Shape::Box(w * conv, h * conv),
    };
    let limit = if any { count as u64 } else { 0 };
    let mut hits = match peek_zset(ctx, &src_key) {
        Some(z) => collect(z, lon, lat, shape_m, limit),
        None => Vec::new(),
    };

    let returned = if count == 0 {
        hits.len()
    } else {
        hits.len().min(usize::try_from(count).unwrap_or(usize::MAX))
    };
    if sort != Sort::None {
        let desc = sort == Sort::Desc;
        if returned == hits.len() {
            merge_sort(&mut hits, desc);
        } else if returned > 0 {
            partial_sort(&mut hits, returned - 1, desc);
        }
    }
    hits.truncate(returned);

    let Some(dst) = store else {
        let proto = ctx.client.proto;
        let with = withdist || withhash || withcoord;
        let out = hits
            .into_iter()
            .map(|h| {
                if !with {
                    return Reply::Bulk(h.member);
                }
                let mut item = vec![Reply::Bulk(h.member)];
                if withdist {
                    item.push(dist_reply(h.dist / conv));
                }
                if withhash {
                    item.push(Reply::Integer(h.score as i64));
                }
                if withcoord {
                    item.push(Reply::Array(vec![
                        coord_reply(proto, h.lon),
                        coord_reply(proto, h.lat),
                    ]));
                }
                Reply::Array(item)
            })
            .collect();
        return Ok(Reply::Array(out));
    };

    let n = hits.len();
    if n > 0 {
        let pairs = hits.into_iter().map(|h| {
            let score = if storedist { h.dist / conv } else { h.score };
            (h.member, score)
        });
        let set = ZSet::collect_in(pairs, ctx.srv.config.zset_limits());
        ctx.set_value(&dst, Value::ZSet(set), false);
        let event = if is_search {
            "geosearchstore"
        } else {
            "georadiusstore"
        };
        ctx.notify(class::ZSET, event, &dst);
        // `set_value` counted one change; Redis counts one per stored member.
        ctx.dirty += n as u64 - 1;
    } else if ctx.delete(&dst) {
        ctx.notify(class::GENERIC, "del", &dst);
    }
    Ok(Reply::Integer(n as i64))
}

/// Scans the nine cells around the centre and keeps the members inside the shape, in scan
/// order; with `limit` > 0 stops once that many were found (`ANY`).
fn collect(z: &ZSet, lon: f64, lat: f64, shape: Shape, limit: u64) -> Vec<Hit> {
    let mut hits = Vec::new();
    let full = |hits: &Vec<Hit>| limit > 0 && hits.len() as u64 >= limit;
    for (min, max) in geohash::neighbourhood(lon, lat, shape).ranges() {
        if full(&hits) {
            break;
        }
        let range = ScoreRange {
            min,
            max,
            minex: false,
            maxex: true,
        };
        let Some(rank) = z.first_in_score_range(&range) else {
            continue;
        };
        for (member, score) in z.iter_from_rank(rank, false, z.len()) {
            if !range.lte_max(score) {
                break;
            }
            let (x, y) = geohash::decode_score(score);
            if let Some(dist) = shape.contains(lon, lat, x, y) {
                hits.push(Hit {
                    member: member.to_vec(),
                    score,
                    lon: x,
                    lat: y,
                    dist,
                });
            }
            if full(&hits) {
                break;
            }
        }
    }
    hits
}

/// Redis's `sort_gp_asc`/`sort_gp_desc`: by distance, equal distances comparing equal (a
/// NaN distance, possible for a box search across the globe, compares as less).
fn by_dist(a: &Hit, b: &Hit, desc: bool) -> std::cmp::Ordering {
    let o = if a.dist > b.dist {
        std::cmp::Ordering::Greater
    } else if a.dist == b.dist {
        std::cmp::Ordering::Equal
    } else {
        std::cmp::Ordering::Less
    };
    if desc {
        o.reverse()
    } else {
        o
    }
}

/// Orders `hits` so that positions `0..=last` hold the smallest elements in order, the way
/// Redis's `pqsort` does it (a Bentley–McIlroy quicksort that skips partitions lying outside
/// the wanted range). The algorithm is reproduced step for step because it is not stable:
/// which of several hits at the same distance make the cut depends on its exact swaps.
fn partial_sort(hits: &mut [Hit], last: usize, desc: bool) {
    use std::cmp::Ordering::{Greater, Less};
    let cmp = |v: &[Hit], i: usize, j: usize| match (v.get(i), v.get(j)) {
        (Some(a), Some(b)) => by_dist(a, b, desc),
        _ => std::cmp::Ordering::Equal,
    };
    let med3 = |v: &[Hit], a: usize, b: usize, c: usize| {
        if cmp(v, a, b) == Less {
            if cmp(v, b, c) == Less {
                b
            } else if cmp(v, a, c) == Less {
                c
            } else {
                a
            }
        } else if cmp(v, b, c) == Greater {
            b
        } else if cmp(v, a, c) == Less {
            a
        } else {
            c
        }
    };
    let vecswap = |v: &mut [Hit], a: usize, b: usize, n: usize| {
        for k in 0..n {
            v.swap(a + k, b + k);
        }
    };
    // The wanted range, and a stack of partitions still to sort (Redis recurses on the left
    // part and loops on the right one; the order of work is the same).
    let (lr, rr) = (0usize, last);
    let touches = |a: usize, n: usize| !((lr < a && rr < a) || (lr >= a + n && rr >= a + n));
    let mut stack = vec![(0usize, hits.len())];
    while let Some((mut a, mut n)) = stack.pop() {
        loop {
            if n < 7 {
                for m in a + 1..a + n {
                    let mut l = m;
                    while l > a && cmp(hits, l - 1, l) == Greater {
                        hits.swap(l, l - 1);
                        l -= 1;
                    }
                }
                break;
            }
            let mut pm = a + n / 2;
            if n > 7 {
                let mut pl = a;
                let mut pn = a + n - 1;
                if n > 40 {
                    let d = n / 8;
                    pl = med3(hits, pl, pl + d, pl + 2 * d);
                    pm = med3(hits, pm - d, pm, pm + d);
                    pn = med3(hits, pn - 2 * d, pn - d, pn);
                }
                pm = med3(hits, pl, pm, pn);
            }
            hits.swap(a, pm);
            let (mut pa, mut pb) = (a + 1, a + 1);
            let (mut pc, mut pd) = (a + n - 1, a + n - 1);
            loop {
                while pb <= pc {
                    let c = cmp(hits, pb, a);
                    if c == Greater {
                        break;
                    }
                    if c.is_eq() {
                        hits.swap(pa, pb);
                        pa += 1;
                    }
                    pb += 1;
                }
                while pb <= pc {
                    let c = cmp(hits, pc, a);
                    if c == Less {
                        break;
                    }
                    if c.is_eq() {
                        hits.swap(pc, pd);
                        pd -= 1;
                    }
                    pc -= 1;
                }
                if pb > pc {
                    break;
                }
                hits.swap(pb, pc);
                pb += 1;
                pc -= 1;
            }
            let pn = a + n;
            let r = (pa - a).min(pb - pa);
            vecswap(hits, a, pb - r, r);
            let r = (pd - pc).min(pn - pd - 1);
            vecswap(hits, pb, pn - r, r);
            let left = pb - pa;
            let right = pd - pc;
            let right_start = pn - right;
            // Redis recurses into the left part first, then continues with the right one.
            let go_right = right > 1 && touches(right_start, right);
            if left > 1 && touches(a, left) {
                if go_right {
                    stack.push((right_start, right));
                }
                n = left;
                continue;
            }
            if go_right {
                a = right_start;
                n = right;
                continue;
            }
            break;
        }
    }
}

/// Sorts every hit as glibc's `qsort` does for Redis: a top-down merge sort (stable), taking
/// from the left run while it is not greater. Written out rather than `sort_by` so that a
/// comparison that is not a total order (NaN distances) gives Redis's order and never panics.
fn merge_sort(hits: &mut Vec<Hit>, desc: bool) {
    fn sort(v: Vec<Hit>, desc: bool) -> Vec<Hit> {
        if v.len() <= 1 {
            return v;
        }
        let mut left = v;
        let right = left.split_off(left.len() / 2);
        let (left, right) = (sort(left, desc), sort(right, desc));
        let mut out = Vec::with_capacity(left.len() + right.len());
        let mut l = left.into_iter().peekable();
        let mut r = right.into_iter().peekable();
        loop {
            let take_left = match (l.peek(), r.peek()) {
                (Some(a), Some(b)) => by_dist(a, b, desc) != std::cmp::Ordering::Greater,
                (Some(_), None) => true,
                (None, Some(_)) => false,
                (None, None) => break,
            };
            let next = if take_left { l.next() } else { r.next() };
            out.extend(next);
        }
        out
    }
    let v = std::mem::take(hits);
    *hits = sort(v, desc);
}
