//! The byte codec that kvlab's two binary formats share: snapshots and log records
//! ([`crate::engine::snapshot`]) and the messages between tabs ([`crate::tabs`]).
//!
//! Unsigned integers are LEB128 varints (seven bits a byte, low bits first, the high bit set
//! on every byte but the last); signed ones are zigzag-mapped first, so small negative
//! numbers stay short. A byte string is its length as a varint, then the bytes. Both formats
//! are stored (snapshots in IndexedDB) or exchanged between builds (tabs), so these
//! encodings never change.
//!
//! [`Reader`] is a cursor whose every read fails cleanly at the end of the input with a
//! [`CodecError`]; each format maps that to its own error type with its context.

/// Why a read failed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CodecError {
    /// The input ends in the middle of a value, or a length or count exceeds what remains.
    Truncated,
    /// A varint runs past ten bytes (more than 64 bits).
    VarintTooLong,
}

/// Appends `v` as a LEB128 varint.
pub fn put_varint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

/// Appends `v` zigzag-mapped, as a varint.
pub fn put_zigzag(out: &mut Vec<u8>, v: i64) {
    put_varint(out, zigzag(v));
}

/// Appends `b` as its length (a varint), then its bytes.
pub fn put_bytes(out: &mut Vec<u8>, b: &[u8]) {
    put_varint(out, b.len() as u64);
    out.extend_from_slice(b);
}

/// Maps a signed integer to an unsigned one so that small magnitudes stay small:
/// 0 → 0, -1 → 1, 1 → 2, -2 → 3, ….
pub fn zigzag(v: i64) -> u64 {
    ((v << 1) ^ (v >> 63)) as u64
}

/// The inverse of [`zigzag`].
pub fn unzigzag(v: u64) -> i64 {
    ((v >> 1) as i64) ^ -((v & 1) as i64)
}

/// A cursor over bytes whose every read fails cleanly at the end.
#[derive(Debug, Clone)]
pub struct Reader<'a> {
    buf: &'a [u8],
    pos: usize,
}

impl<'a> Reader<'a> {
    /// A reader at the start of `buf`.
    pub fn new(buf: &'a [u8]) -> Reader<'a> {
        Reader { buf, pos: 0 }
    }

    /// A reader of `buf` from offset `pos` (clamped to its end).
    pub fn at(buf: &'a [u8], pos: usize) -> Reader<'a> {
        Reader {
            buf,
            pos: pos.min(buf.len()),
        }
    }

    /// How many bytes have been read.
    pub fn position(&self) -> usize {
        self.pos
    }

    /// How many bytes are left.
    pub fn remaining(&self) -> usize {
        self.buf.len() - self.pos
    }

    /// The next `n` bytes.
    pub fn take(&mut self, n: usize) -> Result<&'a [u8], CodecError> {
        if n > self.remaining() {
            return Err(CodecError::Truncated);
        }
        let s = &self.buf[self.pos..self.pos + n];
        self.pos += n;
        Ok(s)
    }

    /// The next byte.
    pub fn u8(&mut self) -> Result<u8, CodecError> {
        Ok(self.take(1)?[0])
    }

    /// The next `N` bytes as an array (for fixed-width little-endian numbers).
    pub fn array<const N: usize>(&mut self) -> Result<[u8; N], CodecError> {
        let mut a = [0u8; N];
        a.copy_from_slice(self.take(N)?);
        Ok(a)
    }

    /// A LEB128 varint.
    pub fn varint(&mut self) -> Result<u64, CodecError> {
        let mut v = 0u64;
        for shift in (0..64).step_by(7) {
            let b = self.u8()?;
            v |= u64::from(b & 0x7f) << shift;
            if b & 0x80 == 0 {
                return Ok(v);
            }
        }
        Err(CodecError::VarintTooLong)
    }

    /// A zigzag-mapped varint.
    pub fn zigzag(&mut self) -> Result<i64, CodecError> {
        Ok(unzigzag(self.varint()?))
    }

    /// A count of items each at least `min_size` bytes long: refused if the rest of the
    /// input could not hold them, so a damaged count cannot make us reserve gigabytes.
    pub fn count(&mut self, min_size: usize) -> Result<usize, CodecError> {
        let n = self.varint()?;
        if n > (self.remaining() / min_size.max(1)) as u64 {
            return Err(CodecError::Truncated);
        }
        Ok(n as usize)
    }

    /// A length-prefixed byte string.
    pub fn bytes(&mut self) -> Result<Vec<u8>, CodecError> {
        let n = self.varint()?;
        if n > self.remaining() as u64 {
            return Err(CodecError::Truncated);
        }
        Ok(self.take(n as usize)?.to_vec())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn varints_round_trip_and_keep_their_bytes() {
        let mut out = Vec::new();
        put_varint(&mut out, 300);
        assert_eq!(out, [0xac, 0x02]);
        for v in [0, 1, 127, 128, 300, u64::from(u32::MAX), u64::MAX] {
            let mut out = Vec::new();
            put_varint(&mut out, v);
            assert_eq!(Reader::new(&out).varint(), Ok(v));
        }
        for v in [0, -1, 1, i64::MIN, i64::MAX] {
            let mut out = Vec::new();
            put_zigzag(&mut out, v);
            assert_eq!(Reader::new(&out).zigzag(), Ok(v));
        }
        assert_eq!(zigzag(-1), 1);
        assert_eq!(zigzag(1), 2);
    }

    #[test]
    fn reads_past_the_end_fail_cleanly() {
        assert_eq!(Reader::new(&[]).u8(), Err(CodecError::Truncated));
        assert_eq!(Reader::new(&[0x80]).varint(), Err(CodecError::Truncated));
        assert_eq!(
            Reader::new(&[0xff; 11]).varint(),
            Err(CodecError::VarintTooLong)
        );
        assert_eq!(Reader::new(&[5, 1, 2]).bytes(), Err(CodecError::Truncated));
        assert_eq!(Reader::new(&[9, 1, 2]).count(1), Err(CodecError::Truncated));
        let mut r = Reader::new(&[2, b'h', b'i', 7]);
        assert_eq!(r.bytes(), Ok(b"hi".to_vec()));
        assert_eq!(r.remaining(), 1);
    }
}
