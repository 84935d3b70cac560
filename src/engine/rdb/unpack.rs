//! The compact blobs Redis stores inside RDB objects, parsed and checked whole: listpacks
//! (Redis 7.0's small hashes, sorted sets, list nodes and stream nodes), ziplists (their
//! predecessor, RDB 2–9), zipmaps (hashes of Redis 2.4 and older) and intsets (sets of
//! integers).
//!
//! Redis keeps these blobs as they are and checks them when it loads them, either only
//! their header or, with `sanitize-dump-payload yes`, every entry
//! (`lpValidateIntegrity`, `ziplistValidateIntegrity`, `zipmapValidateIntegrity`,
//! `intsetValidateIntegrity`). We never keep a blob: each is turned into our own
//! structures, so each is always read entry by entry with every check of Redis's deep
//! validation — the header's byte count equals the blob's length, every entry lies inside
//! the blob and ends where the next begins, the back-lengths (listpack) and previous-entry
//! lengths (ziplist) agree with the entries, the element count in the header (when it is
//! not the "unknown" marker) equals the entries found, and the terminator is last.
//!
//! Every parser returns `None` for a damaged blob and never panics; it reserves nothing
//! up front (an entry takes at least one byte, so a vector never outgrows the blob).

/// One element of a listpack or ziplist: Redis stores a string that is a canonical
/// integer as that integer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Elem<'a> {
    /// Bytes as they were written.
    Str(&'a [u8]),
    /// An integer element.
    Int(i64),
}

impl Elem<'_> {
    /// The element as the string a command would see (an integer in decimal).
    pub fn to_vec(self) -> Vec<u8> {
        match self {
            Elem::Str(s) => s.to_vec(),
            Elem::Int(v) => v.to_string().into_bytes(),
        }
    }

    /// The integer a stream listpack's bookkeeping entry holds (Redis's
    /// `lpGetIntegerIfValid`: an integer element, or a string that is a canonical one).
    pub fn integer(self) -> Option<i64> {
        match self {
            Elem::Int(v) => Some(v),
            Elem::Str(s) => crate::engine::args::parse_i64(s),
        }
    }
}

/// A listpack's header: total bytes (u32) and element count (u16, 65535 = unknown).
const LP_HEADER: usize = 6;
/// The terminator of listpacks, ziplists and zipmaps.
const END: u8 = 0xff;
/// The element count a listpack or ziplist header holds when it does not know.
const COUNT_UNKNOWN: u16 = u16::MAX;

fn le_u32(b: &[u8]) -> Option<u32> {
    Some(u32::from_le_bytes(b.get(..4)?.try_into().ok()?))
}

fn le_u16(b: &[u8]) -> Option<u16> {
    Some(u16::from_le_bytes(b.get(..2)?.try_into().ok()?))
}

/// Sign-extends the low `bits` bits of `v`.
fn signed(v: u64, bits: u32) -> i64 {
    let shift = 64 - bits;
    ((v << shift) as i64) >> shift
}

/// The little-endian unsigned integer of `b` (at most 8 bytes).
fn le_uint(b: &[u8]) -> u64 {
    b.iter()
        .rev()
        .fold(0u64, |acc, &x| (acc << 8) | u64::from(x))
}

/// A listpack entry's back-length: the size of its encoding and data, written so that it
/// can be read from its last byte backwards (7 bits a byte, the high bit set on every
/// byte but the first one written), in the number of bytes Redis's `lpEncodeBacklen`
/// chooses (one up to 127, two below 16383, three below 2097151, four below 268435455,
/// else five: a size right at a boundary takes one byte more than it needs). We require
/// exactly those bytes.
fn lp_backlen(l: usize) -> Vec<u8> {
    let n = match l {
        0..=127 => 1,
        128..=16382 => 2,
        16383..=2097150 => 3,
        2097151..=268435454 => 4,
        _ => 5,
    };
    (0..n)
        .map(|i| {
            let group = (l >> (7 * (n - 1 - i))) as u8;
            if i == 0 {
                group
            } else {
                (group & 127) | 128
            }
        })
        .collect()
}

/// Reads one listpack element at the start of `b`: the element and the size of its
/// encoding plus data (without the back-length).
fn lp_entry(b: &[u8]) -> Option<(Elem<'_>, usize)> {
    let first = *b.first()?;
    let str_at = |head: usize, len: usize| -> Option<(Elem<'_>, usize)> {
        let end = head.checked_add(len)?;
        Some((Elem::Str(b.get(head..end)?), end))
    };
    let int_of = |n: usize, bits: u32| -> Option<(Elem<'_>, usize)> {
        let raw = le_uint(b.get(1..1 + n)?);
        Some((Elem::Int(signed(raw, bits)), 1 + n))
    };
    match first {
        0x00..=0x7f => Some((Elem::Int(i64::from(first)), 1)),
        0x80..=0xbf => str_at(1, usize::from(first & 0x3f)),
        0xc0..=0xdf => {
            let raw = (u64::from(first & 0x1f) << 8) | u64::from(*b.get(1)?);
            Some((Elem::Int(signed(raw, 13)), 2))
        }
        0xe0..=0xef => {
            let len = (usize::from(first & 0x0f) << 8) | usize::from(*b.get(1)?);
            str_at(2, len)
        }
        0xf0 => str_at(5, le_u32(b.get(1..)?)? as usize),
        0xf1 => int_of(2, 16),
        0xf2 => int_of(3, 24),
        0xf3 => int_of(4, 32),
        0xf4 => int_of(8, 64),
        _ => None,
    }
}

/// The elements of a listpack, every entry checked (see the module documentation).
pub fn listpack(blob: &[u8]) -> Option<Vec<Elem<'_>>> {
    Some(listpack_sized(blob)?.into_iter().map(|(e, _)| e).collect())
}

/// [`listpack`], each element with the bytes its entry takes (back-length included).
pub fn listpack_sized(blob: &[u8]) -> Option<Vec<(Elem<'_>, usize)>> {
    if blob.len() < LP_HEADER + 1 || le_u32(blob)? as usize != blob.len() {
        return None;
    }
    if blob.last() != Some(&END) {
        return None;
    }
    let count = le_u16(&blob[4..])?;
    let body = &blob[LP_HEADER..blob.len() - 1];
    let mut out = Vec::new();
    let mut at = 0;
    while at < body.len() {
        let rest = &body[at..];
        let (elem, size) = lp_entry(rest)?;
        let back = lp_backlen(size);
        if rest.get(size..size + back.len())? != back.as_slice() {
            return None;
        }
        out.push((elem, size + back.len()));
        at += size + back.len();
    }
    (count == COUNT_UNKNOWN || usize::from(count) == out.len()).then_some(out)
}

/// The elements of a ziplist, every entry checked (see the module documentation).
pub fn ziplist(blob: &[u8]) -> Option<Vec<Elem<'_>>> {
    const HEADER: usize = 10;
    if blob.len() < HEADER + 1 || le_u32(blob)? as usize != blob.len() {
        return None;
    }
    if blob.last() != Some(&END) {
        return None;
    }
    let tail = le_u32(&blob[4..])? as usize;
    let count = le_u16(&blob[8..])?;
    let end = blob.len() - 1;
    let mut out = Vec::new();
    let (mut at, mut prev_size, mut last_start) = (HEADER, 0usize, None);
    while at < end {
        let start = at;
        // The previous entry's length: one byte, or 254 and four little-endian bytes.
        let prev = match blob[at] {
            0xfe => {
                let v = le_u32(blob.get(at + 1..end)?)? as usize;
                at += 5;
                v
            }
            0xff => return None,
            b => {
                at += 1;
                usize::from(b)
            }
        };
        if prev != prev_size {
            return None;
        }
        let enc = *blob.get(at..end)?.first()?;
        let (elem, head) = match enc >> 6 {
            0 => (None, 1 + usize::from(enc & 0x3f)),
            1 => {
                let len = (usize::from(enc & 0x3f) << 8) | usize::from(*blob.get(at + 1)?);
                (None, 2 + len)
            }
            2 if enc == 0x80 => {
                let b = blob.get(at + 1..at + 5)?;
                let len = u32::from_be_bytes(b.try_into().ok()?) as usize;
                (None, 5usize.checked_add(len)?)
            }
            2 => return None,
            _ => {
                let int = |n: usize, bits: u32| -> Option<i64> {
                    Some(signed(le_uint(blob.get(at + 1..at + 1 + n)?), bits))
                };
                match enc {
                    0xc0 => (Some(int(2, 16)?), 3),
                    0xd0 => (Some(int(4, 32)?), 5),
                    0xe0 => (Some(int(8, 64)?), 9),
                    0xf0 => (Some(int(3, 24)?), 4),
                    0xfe => (Some(int(1, 8)?), 2),
                    0xf1..=0xfd => (Some(i64::from(enc & 0x0f) - 1), 1),
                    _ => return None,
                }
            }
        };
        let next = at.checked_add(head)?;
        if next > end {
            return None;
        }
        out.push(match elem {
            Some(v) => Elem::Int(v),
            None => Elem::Str(blob.get(at + header_len(enc)..next)?),
        });
        prev_size = next - start;
        last_start = Some(start);
        at = next;
    }
    // The tail offset names the last entry (of an empty ziplist, it only has to lie
    // inside the blob).
    if last_start.map_or(tail > end, |s| s != tail) {
        return None;
    }
    (count == COUNT_UNKNOWN || usize::from(count) == out.len()).then_some(out)
}

/// Bytes of a ziplist string entry's encoding header, from its first byte.
fn header_len(enc: u8) -> usize {
    match enc >> 6 {
        0 => 1,
        1 => 2,
        _ => 5,
    }
}

/// The field-value pairs of a zipmap (Redis 2.4's small hash): a count byte (254 =
/// unknown), then per pair a length and the field, a length, a free-space byte, the value
/// and that much unused space; lengths are one byte under 254, else 254 and four
/// little-endian bytes. Checked as Redis's deep `zipmapValidateIntegrity`: nothing outside
/// the blob, at least one pair, the count right unless unknown.
pub fn zipmap(blob: &[u8]) -> Option<Vec<(&[u8], &[u8])>> {
    if blob.len() < 2 || blob.last() != Some(&END) {
        return None;
    }
    let end = blob.len() - 1;
    let len_at = |at: usize| -> Option<(usize, usize)> {
        match *blob.get(at..end)?.first()? {
            b @ 0..=253 => Some((usize::from(b), 1)),
            254 => Some((le_u32(blob.get(at + 1..end)?)? as usize, 5)),
            _ => None,
        }
    };
    let mut out = Vec::new();
    let mut at = 1;
    while at < end {
        let (flen, s) = len_at(at)?;
        let field_at = at + s;
        let field = blob.get(field_at..field_at.checked_add(flen)?)?;
        at = field_at + flen;
        let (vlen, s) = len_at(at)?;
        let free = usize::from(*blob.get(at + s..end)?.first()?);
        let value_at = at + s + 1;
        let value = blob.get(value_at..value_at.checked_add(vlen)?)?;
        at = value_at + vlen + free;
        if at > end {
            return None;
        }
        out.push((field, value));
    }
    let count_ok = blob[0] == 254 || usize::from(blob[0]) == out.len();
    (!out.is_empty() && count_ok).then_some(out)
}

/// The integers of an intset: encoding (2, 4 or 8 bytes each) and count as little-endian
/// `u32`s, then the integers, little-endian. Checked as Redis's deep
/// `intsetValidateIntegrity`: a known encoding, a length that fits the count exactly, at
/// least one integer, strictly ascending.
pub fn intset(blob: &[u8]) -> Option<Vec<i64>> {
    let width = le_u32(blob)? as usize;
    if !matches!(width, 2 | 4 | 8) {
        return None;
    }
    let count = le_u32(blob.get(4..)?)? as usize;
    if count == 0 || count.checked_mul(width)?.checked_add(8)? != blob.len() {
        return None;
    }
    let out: Vec<i64> = blob[8..]
        .chunks_exact(width)
        .map(|c| signed(le_uint(c), 8 * width as u32))
        .collect();
    out.windows(2).all(|w| w[0] < w[1]).then_some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A listpack of `elems` as Redis's `lpAppend` writes them (strings only, short).
    fn lp(elems: &[&[u8]]) -> Vec<u8> {
        let mut body = Vec::new();
        for e in elems {
            let mut entry = vec![0x80 | e.len() as u8];
            entry.extend_from_slice(e);
            let back = lp_backlen(entry.len());
            body.extend(entry);
            body.extend(back);
        }
        let mut out = ((LP_HEADER + body.len() + 1) as u32).to_le_bytes().to_vec();
        out.extend_from_slice(&(elems.len() as u16).to_le_bytes());
        out.extend(body);
        out.push(END);
        out
    }

    #[test]
    fn backlens_are_redis_encoding() {
        assert_eq!(lp_backlen(5), [5]);
        assert_eq!(lp_backlen(127), [127]);
        assert_eq!(lp_backlen(128), [1, 128]);
        assert_eq!(lp_backlen(16382), [127, 254]);
        assert_eq!(lp_backlen(16383), [0, 255, 255]);
    }

    #[test]
    fn listpacks_read_and_damage_is_refused() {
        let b = lp(&[b"ab", b"", b"xyz"]);
        let got = listpack(&b).unwrap();
        assert_eq!(got, [Elem::Str(b"ab"), Elem::Str(b""), Elem::Str(b"xyz")]);
        for cut in 0..b.len() {
            assert_eq!(listpack(&b[..cut]), None, "cut at {cut}");
        }
        let mut wrong_count = b.clone();
        wrong_count[4] = 2;
        assert_eq!(listpack(&wrong_count), None);
        wrong_count[4] = 0xff;
        wrong_count[5] = 0xff;
        assert_eq!(listpack(&wrong_count).map(|v| v.len()), Some(3));
    }

    #[test]
    fn listpack_integers_of_every_width() {
        // Recorded from Redis 7.0.15: DUMP of a hash with fields 1, -1, 1000, 100000,
        // 10000000000 (values a), inside its listpack.
        let cases: &[(&[u8], i64)] = &[
            (b"\x01\x01", 1),
            (b"\xdf\xff\x02", -1),
            (b"\xc3\xe8\x02", 1000),
            (b"\xf2\xa0\x86\x01\x04", 100000),
            (b"\xf4\x00\xe4\x0b\x54\x02\x00\x00\x00\x09", 10_000_000_000),
            (b"\xf1\x00\x80\x03", -32768),
        ];
        for (entry, v) in cases {
            let mut blob = ((LP_HEADER + entry.len() + 1) as u32)
                .to_le_bytes()
                .to_vec();
            blob.extend_from_slice(&1u16.to_le_bytes());
            blob.extend_from_slice(entry);
            blob.push(END);
            assert_eq!(listpack(&blob), Some(vec![Elem::Int(*v)]), "{v}");
        }
    }

    #[test]
    fn intsets_must_ascend() {
        let mut b = 2u32.to_le_bytes().to_vec();
        b.extend_from_slice(&2u32.to_le_bytes());
        b.extend_from_slice(&(-3i16).to_le_bytes());
        b.extend_from_slice(&7i16.to_le_bytes());
        assert_eq!(intset(&b), Some(vec![-3, 7]));
        let mut swapped = b.clone();
        swapped[8..12].rotate_left(2);
        assert_eq!(intset(&swapped), None);
        assert_eq!(intset(&b[..11]), None);
    }
}
