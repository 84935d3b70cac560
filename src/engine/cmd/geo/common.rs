//! What the geo commands share: arguments parsed as Redis's `geo.c` parses them
//! (coordinates, units, radius and box shapes) and replies shaped as it shapes them
//! (coordinates as human long doubles, distances with four decimals).

use crate::engine::cmd::zset::parse_score;
use crate::engine::error::{CmdResult, Error};
use crate::engine::types::geohash;
use crate::engine::Reply;

/// A double as `getDoubleFromObjectOrReply` reads it; `msg` replaces the default text.
pub(super) fn double_arg(arg: &[u8], msg: Option<&str>) -> CmdResult<f64> {
    parse_score(arg).ok_or_else(|| match msg {
        Some(m) => Error::Err(m.to_string()),
        None => Error::NotFloat,
    })
}

/// `longitude latitude`, checked against the limits (`extractLongLatOrReply`).
pub(super) fn lon_lat(lon: &[u8], lat: &[u8]) -> CmdResult<(f64, f64)> {
    let x = double_arg(lon, None)?;
    let y = double_arg(lat, None)?;
    if !(geohash::LONG_MIN..=geohash::LONG_MAX).contains(&x)
        || !(geohash::LAT_MIN..=geohash::LAT_MAX).contains(&y)
    {
        return Err(Error::Err(format!(
            "invalid longitude,latitude pair {x:.6},{y:.6}"
        )));
    }
    Ok((x, y))
}

/// Metres per unit (`extractUnitOrReply`).
pub(super) fn unit(arg: &[u8]) -> CmdResult<f64> {
    let u = arg.to_ascii_lowercase();
    match u.as_slice() {
        b"m" => Ok(1.0),
        b"km" => Ok(1000.0),
        b"ft" => Ok(0.3048),
        b"mi" => Ok(1609.34),
        _ => Err(Error::Err(
            "unsupported unit provided. please use M, KM, FT, MI".to_string(),
        )),
    }
}

/// `radius unit` → (radius in units, metres per unit).
pub(super) fn radius_args(r: &[u8], u: &[u8]) -> CmdResult<(f64, f64)> {
    let radius = double_arg(r, Some("need numeric radius"))?;
    if radius < 0.0 {
        return Err(Error::Err("radius cannot be negative".to_string()));
    }
    Ok((radius, unit(u)?))
}

/// `width height unit` → (width, height, metres per unit).
pub(super) fn box_args(w: &[u8], h: &[u8], u: &[u8]) -> CmdResult<(f64, f64, f64)> {
    let width = double_arg(w, Some("need numeric width"))?;
    let height = double_arg(h, Some("need numeric height"))?;
    if height < 0.0 || width < 0.0 {
        return Err(Error::Err("height or width cannot be negative".to_string()));
    }
    Ok((width, height, unit(u)?))
}

/// A coordinate as `addReplyHumanLongDouble` sends it: `%.17Lf` of the value, trailing
/// zeros (and a bare point) trimmed, `-0` as `0`; a bulk string in RESP2, a double with
/// that same text in RESP3 (so `13.36138933897018433`, not `%.17g`'s `13.361389338970184`).
/// Rust's `{:.17}` rounds the exact binary value as glibc does.
pub(super) fn coord_reply(proto: u8, d: f64) -> Reply {
    let mut s = format!("{d:.17}");
    if s.contains('.') {
        while s.ends_with('0') {
            s.pop();
        }
        if s.ends_with('.') {
            s.pop();
        }
    }
    if s == "-0" {
        s = "0".to_string();
    }
    if proto >= 3 {
        Reply::DoubleText(s)
    } else {
        Reply::Bulk(s.into_bytes())
    }
}

/// A distance as `addReplyDoubleDistance` sends it: `%.4f`, a bulk string.
pub(super) fn dist_reply(d: f64) -> Reply {
    Reply::Bulk(format!("{d:.4}").into_bytes())
}
