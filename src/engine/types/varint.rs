//! Lengths as LEB128 varints, shared by the packed encodings (a small hash's
//! [`Pack`](super::hash), a list's nodes ([`super::list`])).
//!
//! Seven bits a byte, low bits first, the top bit set on every byte but the last, and
//! always the shortest form (so equal contents are equal bytes). A length below 128 takes
//! one byte; any `usize` fits in at most [`MAX_LEN_BYTES`]. A varint that does not decode
//! (which our own writes never produce) reads as `None`, never as a panic.

/// The most bytes a varint length takes (a 64-bit `usize`, seven bits a byte).
pub const MAX_LEN_BYTES: usize = 10;

/// Bytes of the varint that encodes `n`.
pub fn len_size(mut n: usize) -> usize {
    let mut size = 1;
    while n >= 0x80 {
        n >>= 7;
        size += 1;
    }
    size
}

/// The varint of `n`, in a fixed array, with its used length.
pub fn put_len(mut n: usize) -> ([u8; MAX_LEN_BYTES], usize) {
    let mut out = [0u8; MAX_LEN_BYTES];
    let mut i = 0;
    while n >= 0x80 && i + 1 < MAX_LEN_BYTES {
        out[i] = (n as u8 & 0x7f) | 0x80;
        n >>= 7;
        i += 1;
    }
    out[i] = n as u8;
    (out, i + 1)
}

/// The varint at the start of `b`: the length and the bytes it took, or `None` if `b`
/// does not start with a complete one.
#[inline]
pub fn read_len(b: &[u8]) -> Option<(usize, usize)> {
    match b.first() {
        // One byte: every length below 128, most of them.
        Some(&byte) if byte < 0x80 => return Some((usize::from(byte), 1)),
        _ => {}
    }
    let mut n = 0usize;
    for (i, &byte) in b.iter().take(MAX_LEN_BYTES).enumerate() {
        n |= usize::from(byte & 0x7f).checked_shl(7 * i as u32)?;
        if byte & 0x80 == 0 {
            return Some((n, i + 1));
        }
    }
    None
}

/// The varint that ends `b`, written backwards (its bytes in reverse order, as
/// [`put_len_back`] writes it): the length and the bytes it took.
#[inline]
pub fn read_len_back(b: &[u8]) -> Option<(usize, usize)> {
    match b.last() {
        Some(&byte) if byte < 0x80 => return Some((usize::from(byte), 1)),
        _ => {}
    }
    let mut n = 0usize;
    for (i, &byte) in b.iter().rev().take(MAX_LEN_BYTES).enumerate() {
        n |= usize::from(byte & 0x7f).checked_shl(7 * i as u32)?;
        if byte & 0x80 == 0 {
            return Some((n, i + 1));
        }
    }
    None
}

/// The varint of `n` with its bytes reversed, so that it reads from its last byte back
/// ([`read_len_back`]), as a listpack entry's back-length does.
pub fn put_len_back(n: usize) -> ([u8; MAX_LEN_BYTES], usize) {
    let (mut out, k) = put_len(n);
    out[..k].reverse();
    (out, k)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn varints_round_trip_at_every_width_both_ways() {
        let mut n = 1usize;
        let mut cases = vec![0, 1, 127, 128, 255, 16_383, 16_384, usize::MAX];
        while let Some(m) = n.checked_mul(3) {
            cases.push(m);
            n = m;
        }
        for n in cases {
            let (b, k) = put_len(n);
            assert_eq!(k, len_size(n), "{n}");
            assert_eq!(read_len(&b[..k]), Some((n, k)), "{n}");
            assert_eq!(read_len(&b[..k - 1]), None, "{n} cut short");
            let (b, k) = put_len_back(n);
            // Behind other bytes, as at the end of an entry.
            let mut entry = vec![0xffu8, 0x00];
            entry.extend_from_slice(&b[..k]);
            assert_eq!(read_len_back(&entry), Some((n, k)), "{n} backwards");
            assert_eq!(read_len_back(&b[1..k]), None, "{n} backwards cut short");
        }
        assert_eq!(len_size(usize::MAX), MAX_LEN_BYTES);
        // Eleven continuation bytes, a shift past 64 bits, an empty input: no panic.
        assert_eq!(read_len(&[0xff; 11]), None);
        assert_eq!(read_len(&[]), None);
        assert_eq!(read_len_back(&[0xff; 11]), None);
        assert_eq!(read_len_back(&[]), None);
    }
}
