//! Geohash arithmetic as Redis 7.0 does it for the `GEO*` commands.
//!
//! # Representation
//! A geo set is an ordinary sorted set whose scores are 52-bit integers: the position of a
//! point in a grid of 2^26 × 2^26 cells covering longitudes −180…180 and latitudes
//! −85.05112878…85.05112878 (the square of the Web-Mercator projection). The cell indices
//! are interleaved: bit `2i+1` of the score is bit `i` of the longitude index and bit `2i`
//! is bit `i` of the latitude index, so the most significant bits alternate longitude,
//! latitude, longitude… exactly as a standard geohash does. A score is exactly
//! representable in an `f64` (52 bits < 2^53), which is why 26 steps is the maximum.
//!
//! A cell at a coarser *step* `s` (1…26) has `2s` bits; all points inside it have scores in
//! `[bits << (52 − 2s), (bits + 1) << (52 − 2s))`, a contiguous score range. That is what makes
//! searches cheap: a search estimates a step from the radius, takes the cell containing the
//! centre plus its 8 neighbours, scans those 9 score ranges and filters the candidates with
//! the exact great-circle distance.
//!
//! # Invariants and quirks kept from Redis
//! * Decoding a score gives the centre of its cell, clamped to the coordinate limits; it is
//!   never the exact longitude/latitude that was added.
//! * A score that was not written by `GEOADD` (any `ZADD` score) is still decoded: it is
//!   converted to `u64` as C's cast does on x86-64 ([`score_to_bits`]), and the indices
//!   beyond the grid are clamped by decoding.
//! * Neighbours wrap around both axes (the cell north of the top row is in the bottom row).
//! * Distances use the haversine formula on a sphere of radius [`EARTH_RADIUS_M`].

/// Redis's earth radius in metres (`EARTH_RADIUS_IN_METERS`).
pub const EARTH_RADIUS_M: f64 = 6_372_797.560856;
/// The finest step: 26 bits per axis, 52 bits in all.
pub const STEP_MAX: u32 = 26;
/// Smallest accepted longitude.
pub const LONG_MIN: f64 = -180.0;
/// Largest accepted longitude.
pub const LONG_MAX: f64 = 180.0;
/// Smallest accepted latitude (Web-Mercator limit).
pub const LAT_MIN: f64 = -85.05112878;
/// Largest accepted latitude (Web-Mercator limit).
pub const LAT_MAX: f64 = 85.05112878;
/// Half the Mercator world width in metres, used to estimate a search step.
const MERCATOR_MAX: f64 = 20_037_726.37;

/// A cell: `2 × step` interleaved bits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Cell {
    /// The interleaved indices (longitude in odd bits, latitude in even bits).
    pub bits: u64,
    /// Bits per axis (0 marks an excluded cell in a [`Neighbourhood`]).
    pub step: u32,
}

impl Cell {
    /// The scores of the points in this cell: `[min, max)`.
    pub fn score_range(self) -> (f64, f64) {
        let shift = 52 - 2 * self.step.min(STEP_MAX);
        let min = self.bits << shift;
        let max = (self.bits + 1) << shift;
        (min as f64, max as f64)
    }

    fn is_zero(self) -> bool {
        self.bits == 0 && self.step == 0
    }
}

/// A rectangle in degrees.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Area {
    /// Western edge.
    pub lon_min: f64,
    /// Eastern edge.
    pub lon_max: f64,
    /// Southern edge.
    pub lat_min: f64,
    /// Northern edge.
    pub lat_max: f64,
}

/// Spreads the 32 bits of `v` to the even bits of a `u64`.
fn spread(v: u32) -> u64 {
    let mut x = u64::from(v);
    x = (x | (x << 16)) & 0x0000_FFFF_0000_FFFF;
    x = (x | (x << 8)) & 0x00FF_00FF_00FF_00FF;
    x = (x | (x << 4)) & 0x0F0F_0F0F_0F0F_0F0F;
    x = (x | (x << 2)) & 0x3333_3333_3333_3333;
    (x | (x << 1)) & 0x5555_5555_5555_5555
}

/// Gathers the even bits of `x` into a `u32`.
fn squash(x: u64) -> u32 {
    let mut x = x & 0x5555_5555_5555_5555;
    x = (x | (x >> 1)) & 0x3333_3333_3333_3333;
    x = (x | (x >> 2)) & 0x0F0F_0F0F_0F0F_0F0F;
    x = (x | (x >> 4)) & 0x00FF_00FF_00FF_00FF;
    x = (x | (x >> 8)) & 0x0000_FFFF_0000_FFFF;
    x = (x | (x >> 16)) & 0x0000_0000_FFFF_FFFF;
    x as u32
}

/// Interleaves a latitude index (even bits) and a longitude index (odd bits).
fn interleave(lat: u32, lon: u32) -> u64 {
    spread(lat) | (spread(lon) << 1)
}

/// Splits interleaved bits into `(lat, lon)` indices.
fn deinterleave(bits: u64) -> (u32, u32) {
    (squash(bits), squash(bits >> 1))
}

/// Encodes a point at `step` within the given latitude range (longitude is always
/// −180…180). `None` outside the Web-Mercator limits or the range, as Redis refuses.
pub fn encode_in(lon: f64, lat: f64, step: u32, lat_range: (f64, f64)) -> Option<Cell> {
    if !(LONG_MIN..=LONG_MAX).contains(&lon) || !(LAT_MIN..=LAT_MAX).contains(&lat) {
        return None;
    }
    if lat < lat_range.0 || lat > lat_range.1 {
        return None;
    }
    let scale = (1u64 << step) as f64;
    let lat_off = (lat - lat_range.0) / (lat_range.1 - lat_range.0) * scale;
    let lon_off = (lon - LONG_MIN) / (LONG_MAX - LONG_MIN) * scale;
    Some(Cell {
        bits: interleave(lat_off as u32, lon_off as u32),
        step,
    })
}

/// Encodes a point in the Mercator grid at `step`.
pub fn encode(lon: f64, lat: f64, step: u32) -> Option<Cell> {
    encode_in(lon, lat, step, (LAT_MIN, LAT_MAX))
}

/// The 52-bit score `GEOADD` stores for a point (`None` outside the limits).
pub fn score_of(lon: f64, lat: f64) -> Option<u64> {
    encode(lon, lat, STEP_MAX).map(|c| c.bits)
}

/// The area a cell covers in the Mercator grid.
pub fn area(cell: Cell) -> Area {
    let (ilat, ilon) = deinterleave(cell.bits);
    let scale = (1u64 << cell.step) as f64;
    let lat_span = LAT_MAX - LAT_MIN;
    let lon_span = LONG_MAX - LONG_MIN;
    Area {
        lat_min: LAT_MIN + (f64::from(ilat) / scale) * lat_span,
        lat_max: LAT_MIN + ((f64::from(ilat) + 1.0) / scale) * lat_span,
        lon_min: LONG_MIN + (f64::from(ilon) / scale) * lon_span,
        lon_max: LONG_MIN + ((f64::from(ilon) + 1.0) / scale) * lon_span,
    }
}

/// C's `(uint64_t)score` on x86-64: truncation, negative values wrap through `i64`,
/// values of 2^64 and more (and infinities) give 0, −∞ and values below −2^63 give 2^63.
pub fn score_to_bits(score: f64) -> u64 {
    const TWO63: f64 = 9_223_372_036_854_775_808.0;
    if score.is_nan() {
        return 1 << 63;
    }
    if score < TWO63 {
        if score < -TWO63 {
            1 << 63
        } else {
            (score as i64) as u64
        }
    } else if score < 2.0 * TWO63 {
        score as u64
    } else {
        0
    }
}

/// Decodes a stored score to `(longitude, latitude)`: the centre of its cell at step 26,
/// clamped to the limits.
pub fn decode_score(score: f64) -> (f64, f64) {
    let a = area(Cell {
        bits: score_to_bits(score),
        step: STEP_MAX,
    });
    let lon = ((a.lon_min + a.lon_max) / 2.0).clamp(LONG_MIN, LONG_MAX);
    let lat = ((a.lat_min + a.lat_max) / 2.0).clamp(LAT_MIN, LAT_MAX);
    (lon, lat)
}

/// The 11-character standard geohash `GEOHASH` replies with for a stored score: the decoded
/// point re-encoded with latitudes −90…90; the 11th character is always `0` (52 bits give
/// only 10 full characters). `None` if the point cannot be encoded.
pub fn geohash_string(score: f64) -> Option<String> {
    const ALPHABET: &[u8; 32] = b"0123456789bcdefghjkmnpqrstuvwxyz";
    let (lon, lat) = decode_score(score);
    let cell = encode_in(lon, lat, STEP_MAX, (-90.0, 90.0))?;
    let mut out = String::with_capacity(11);
    for i in 0..11u32 {
        let idx = if i == 10 {
            0
        } else {
            ((cell.bits >> (52 - (i + 1) * 5)) & 0x1f) as usize
        };
        out.push(char::from(ALPHABET[idx]));
    }
    Some(out)
}

fn deg_rad(d: f64) -> f64 {
    d * (std::f64::consts::PI / 180.0)
}

fn rad_deg(r: f64) -> f64 {
    r / (std::f64::consts::PI / 180.0)
}

/// Distance in metres along a meridian between two latitudes.
pub fn lat_distance(lat1: f64, lat2: f64) -> f64 {
    EARTH_RADIUS_M * (deg_rad(lat2) - deg_rad(lat1)).abs()
}

/// Haversine distance in metres between two points.
pub fn distance(lon1: f64, lat1: f64, lon2: f64, lat2: f64) -> f64 {
    let v = ((deg_rad(lon2) - deg_rad(lon1)) / 2.0).sin();
    if v == 0.0 {
        return lat_distance(lat1, lat2);
    }
    let lat1r = deg_rad(lat1);
    let lat2r = deg_rad(lat2);
    let u = ((lat2r - lat1r) / 2.0).sin();
    let a = u * u + lat1r.cos() * lat2r.cos() * v * v;
    2.0 * EARTH_RADIUS_M * a.sqrt().asin()
}

/// The shape of a search, in metres.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Shape {
    /// A circle of this radius.
    Radius(f64),
    /// A box of this width and height, centred on the search point.
    Box(f64, f64),
}

impl Shape {
    /// The distance from `(lon, lat)` (the centre) to `(x, y)` if the point is inside.
    pub fn contains(self, lon: f64, lat: f64, x: f64, y: f64) -> Option<f64> {
        match self {
            Shape::Radius(r) => {
                let d = distance(lon, lat, x, y);
                (d <= r).then_some(d)
            }
            Shape::Box(w, h) => {
                if lat_distance(y, lat) > h / 2.0 {
                    return None;
                }
                if distance(x, y, lon, y) > w / 2.0 {
                    return None;
                }
                Some(distance(lon, lat, x, y))
            }
        }
    }

    /// Half the extent north-south and east-west, in metres.
    fn half_extents(self) -> (f64, f64) {
        match self {
            Shape::Radius(r) => (r, r),
            Shape::Box(w, h) => (h / 2.0, w / 2.0),
        }
    }

    /// The radius that bounds the shape (half the diagonal for a box).
    fn bounding_radius(self) -> f64 {
        match self {
            Shape::Radius(r) => r,
            Shape::Box(w, h) => ((w / 2.0) * (w / 2.0) + (h / 2.0) * (h / 2.0)).sqrt(),
        }
    }
}

/// The step whose cells are about as large as `radius` metres at latitude `lat`.
pub fn estimate_step(radius: f64, lat: f64) -> u32 {
    if radius == 0.0 {
        return STEP_MAX;
    }
    let mut r = radius;
    let mut step: i32 = 1;
    while r < MERCATOR_MAX {
        r *= 2.0;
        step += 1;
    }
    step -= 2;
    if !(-66.0..=66.0).contains(&lat) {
        step -= 1;
        if !(-80.0..=80.0).contains(&lat) {
            step -= 1;
        }
    }
    step.clamp(1, STEP_MAX as i32) as u32
}

/// Moves a cell by `dx` (±1 or 0) cells east and `dy` cells north. The arithmetic is done on
/// the interleaved bits as Redis does it: the moved axis is incremented or decremented with
/// the other axis's bit positions acting as carry/borrow paths, then masked to `step` bits
/// (so it wraps around); the other axis is kept as is. A centre encoded on the east or north
/// limit has an index of 2^step, one bit too many: Redis keeps that bit on the axis that does
/// not move, and this reproduces which cells it then scans.
fn shift(cell: Cell, dx: i64, dy: i64) -> Cell {
    const ODD: u64 = 0xAAAA_AAAA_AAAA_AAAA;
    const EVEN: u64 = 0x5555_5555_5555_5555;
    let width = 64 - 2 * cell.step.clamp(1, 32);
    let mut bits = cell.bits;
    // (mask of the moving axis, mask of the other axis' positions used as carry paths)
    for (d, axis, other) in [(dx, ODD, EVEN), (dy, EVEN, ODD)] {
        if d == 0 {
            continue;
        }
        let mut v = bits & axis;
        let kept = bits & other;
        let fill = other >> width;
        if d > 0 {
            v = v.wrapping_add(fill.wrapping_add(1));
        } else {
            v = (v | fill).wrapping_sub(fill.wrapping_add(1));
        }
        v &= axis >> width;
        bits = v | kept;
    }
    Cell {
        bits,
        step: cell.step,
    }
}

/// The cells a search scans, in Redis's order: centre, N, S, E, W, NE, NW, SE, SW. Cells the
/// search cannot touch are excluded (step 0).
#[derive(Debug, Clone, PartialEq)]
pub struct Neighbourhood {
    /// The nine cells.
    pub cells: [Cell; 9],
}

/// The nine cells to scan for a search of `shape` around `(lon, lat)`, as Redis's
/// `geohashCalculateAreasByShapeWGS84` chooses them.
pub fn neighbourhood(lon: f64, lat: f64, shape: Shape) -> Neighbourhood {
    let (half_h, half_w) = shape.half_extents();
    let lat_delta = rad_deg(half_h / EARTH_RADIUS_M);
    let lon_delta_top = rad_deg(half_w / EARTH_RADIUS_M / deg_rad(lat + lat_delta).cos());
    let lon_delta_bottom = rad_deg(half_w / EARTH_RADIUS_M / deg_rad(lat - lat_delta).cos());
    let lon_delta = if lat < 0.0 {
        lon_delta_bottom
    } else {
        lon_delta_top
    };
    let (min_lon, max_lon) = (lon - lon_delta, lon + lon_delta);
    let (min_lat, max_lat) = (lat - lat_delta, lat + lat_delta);

    let mut step = estimate_step(shape.bounding_radius(), lat);
    let centre = |step| encode(lon, lat, step).unwrap_or(Cell { bits: 0, step });
    let mut hash = centre(step);
    let n = area(shift(hash, 0, 1));
    let s = area(shift(hash, 0, -1));
    let e = area(shift(hash, 1, 0));
    let w = area(shift(hash, -1, 0));
    let decrease =
        n.lat_max < max_lat || s.lat_min > min_lat || e.lon_max < max_lon || w.lon_min > min_lon;
    if step > 1 && decrease {
        step -= 1;
        hash = centre(step);
    }
    let a = area(hash);
    // Centre, N, S, E, W, NE, NW, SE, SW.
    const MOVES: [(i64, i64); 9] = [
        (0, 0),
        (0, 1),
        (0, -1),
        (1, 0),
        (-1, 0),
        (1, 1),
        (-1, 1),
        (1, -1),
        (-1, -1),
    ];
    let mut cells = MOVES.map(|(dx, dy)| shift(hash, dx, dy));
    if step >= 2 {
        let zero = Cell { bits: 0, step: 0 };
        for (i, (dx, dy)) in MOVES.iter().enumerate() {
            let useless = (*dy < 0 && a.lat_min < min_lat)
                || (*dy > 0 && a.lat_max > max_lat)
                || (*dx < 0 && a.lon_min < min_lon)
                || (*dx > 0 && a.lon_max > max_lon);
            if useless {
                if let Some(c) = cells.get_mut(i) {
                    *c = zero;
                }
            }
        }
    }
    Neighbourhood { cells }
}

impl Neighbourhood {
    /// The score ranges to scan, in order, skipping excluded cells and a cell equal to the
    /// last neighbour scanned (at coarse steps neighbours coincide).
    pub fn ranges(&self) -> Vec<(f64, f64)> {
        let mut out = Vec::with_capacity(9);
        // Like Redis, the comparison is skipped while the last cell scanned is the centre.
        let mut last = 0usize;
        for (i, c) in self.cells.iter().enumerate() {
            if c.is_zero() {
                continue;
            }
            if last != 0 && self.cells.get(last) == Some(c) {
                continue;
            }
            out.push(c.score_range());
            last = i;
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn palermo_round_trip() {
        let s = score_of(13.361389, 38.115556).unwrap();
        assert_eq!(s, 3_479_099_956_230_698);
        let (lon, lat) = decode_score(s as f64);
        assert_eq!(format!("{lon:.17}"), "13.36138933897018433");
        assert_eq!(format!("{lat:.17}"), "38.11555639549629859");
        assert_eq!(geohash_string(s as f64).unwrap(), "sqc8b49rny0");
    }

    #[test]
    fn odd_scores_decode_like_redis() {
        assert_eq!(score_to_bits(1e30), 0);
        assert_eq!(score_to_bits(-1.0), u64::MAX);
        assert_eq!(decode_score(-1.0), (180.0, LAT_MAX));
    }

    #[test]
    fn neighbours_wrap() {
        let c = Cell { bits: 0, step: 2 };
        let w = shift(c, -1, 0);
        assert_eq!(deinterleave(w.bits), (0, 3));
    }
}
