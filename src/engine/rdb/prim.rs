//! The primitives every RDB record is made of: lengths (Redis's `rdbSaveLen` /
//! `rdbLoadLenByRef`) and strings (`rdbSaveRawString` / `rdbGenericLoadStringObject`),
//! with the integer encodings and LZF compression Redis chooses.

use super::{enc, lzf};

/// Appends `len` as Redis's `rdbSaveLen` does: 6, 14, 32 or 64 bits.
pub fn put_len(out: &mut Vec<u8>, len: u64) {
    if len < 1 << 6 {
        out.push(len as u8);
    } else if len < 1 << 14 {
        out.push(0x40 | (len >> 8) as u8);
        out.push(len as u8);
    } else if len <= u32::MAX as u64 {
        out.push(0x80);
        out.extend_from_slice(&(len as u32).to_be_bytes());
    } else {
        out.push(0x81);
        out.extend_from_slice(&len.to_be_bytes());
    }
}

/// The integer a string of at most 11 bytes is, when it is one in canonical form (Redis's
/// `string2ll`: no sign but `-`, no leading zero, no `-0`), and that fits 32 bits.
fn as_small_int(s: &[u8]) -> Option<i64> {
    if s.is_empty() || s.len() > 11 {
        return None;
    }
    let v: i64 = std::str::from_utf8(s).ok()?.parse().ok()?;
    (itoa_bytes(v) == s && i32::try_from(v).is_ok()).then_some(v)
}

/// Appends an integer as Redis's `rdbEncodeInteger` does, if it fits 32 bits; false if not.
pub fn put_int(out: &mut Vec<u8>, v: i64) -> bool {
    if let Ok(b) = i8::try_from(v) {
        out.push(0xc0 | enc::INT8);
        out.push(b as u8);
    } else if let Ok(h) = i16::try_from(v) {
        out.push(0xc0 | enc::INT16);
        out.extend_from_slice(&h.to_le_bytes());
    } else if let Ok(w) = i32::try_from(v) {
        out.push(0xc0 | enc::INT32);
        out.extend_from_slice(&w.to_le_bytes());
    } else {
        return false;
    }
    true
}

/// Appends `s` as Redis's `rdbSaveRawString` does: a canonical integer of up to 11 bytes
/// that fits 32 bits as an integer; with `compress` (`rdbcompression yes`), a string of
/// more than 20 bytes LZF-compressed when that saves at least 4 bytes; else length and
/// bytes.
pub fn put_string(out: &mut Vec<u8>, s: &[u8], compress: bool) {
    if let Some(v) = as_small_int(s) {
        if put_int(out, v) {
            return;
        }
    }
    if compress && s.len() > 20 {
        if let Some(packed) = lzf::compress(s, s.len() - 4) {
            out.push(0xc0 | enc::LZF);
            put_len(out, packed.len() as u64);
            put_len(out, s.len() as u64);
            out.extend_from_slice(&packed);
            return;
        }
    }
    put_len(out, s.len() as u64);
    out.extend_from_slice(s);
}

/// Appends an integer as a string, as Redis's `rdbSaveLongLongAsStringObject` does: the
/// integer encoding when it fits 32 bits, else its decimal digits.
pub fn put_integer_string(out: &mut Vec<u8>, v: i64) {
    if !put_int(out, v) {
        let digits = itoa_bytes(v);
        put_len(out, digits.len() as u64);
        out.extend_from_slice(&digits);
    }
}

/// What an RDB length field holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Len {
    /// A length.
    Plain(u64),
    /// A special string encoding ([`enc`]).
    Encoded(u8),
}

/// Reads RDB primitives from a byte slice. Every read that runs past the end, or meets an
/// encoding that cannot be there, gives `None` and leaves nothing half-built.
#[derive(Debug, Clone)]
pub struct Reader<'a> {
    bytes: &'a [u8],
    pos: usize,
}

impl<'a> Reader<'a> {
    /// A reader at the start of `bytes`.
    pub fn new(bytes: &'a [u8]) -> Reader<'a> {
        Reader { bytes, pos: 0 }
    }

    /// How many bytes have been read.
    pub fn pos(&self) -> usize {
        self.pos
    }

    /// How many bytes are left.
    pub fn remaining(&self) -> usize {
        self.bytes.len() - self.pos
    }

    /// True when everything has been read.
    pub fn at_end(&self) -> bool {
        self.pos == self.bytes.len()
    }

    /// The next byte.
    pub fn byte(&mut self) -> Option<u8> {
        let b = *self.bytes.get(self.pos)?;
        self.pos += 1;
        Some(b)
    }

    /// The next `n` bytes.
    pub fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        let end = self.pos.checked_add(n)?;
        let s = self.bytes.get(self.pos..end)?;
        self.pos = end;
        Some(s)
    }

    /// The next `N` bytes as an array.
    pub fn array<const N: usize>(&mut self) -> Option<[u8; N]> {
        self.take(N)?.try_into().ok()
    }

    /// Redis's `rdbLoadLenByRef`.
    pub fn len_or_encoding(&mut self) -> Option<Len> {
        let b = self.byte()?;
        Some(match b >> 6 {
            0 => Len::Plain((b & 0x3f) as u64),
            1 => Len::Plain((((b & 0x3f) as u64) << 8) | self.byte()? as u64),
            3 => Len::Encoded(b & 0x3f),
            _ if b == 0x80 => Len::Plain(u32::from_be_bytes(self.array()?) as u64),
            _ if b == 0x81 => Len::Plain(u64::from_be_bytes(self.array()?)),
            _ => return None,
        })
    }

    /// A length (an encoded string marker here is an error).
    pub fn length(&mut self) -> Option<u64> {
        match self.len_or_encoding()? {
            Len::Plain(n) => Some(n),
            Len::Encoded(_) => None,
        }
    }

    /// A length that must also fit the bytes left (each counted thing takes at least
    /// `min_each` bytes), so a damaged count cannot make a reader reserve memory it
    /// will never fill.
    pub fn count(&mut self, min_each: usize) -> Option<usize> {
        let n = usize::try_from(self.length()?).ok()?;
        (n.checked_mul(min_each.max(1))? <= self.remaining()).then_some(n)
    }

    /// Redis's `rdbGenericLoadStringObject`: plain, integer-encoded or LZF-compressed.
    pub fn string(&mut self) -> Option<Vec<u8>> {
        match self.len_or_encoding()? {
            Len::Plain(n) => Some(self.take(usize::try_from(n).ok()?)?.to_vec()),
            Len::Encoded(enc::INT8) => Some(itoa_bytes(self.byte()? as i8 as i64)),
            Len::Encoded(enc::INT16) => Some(itoa_bytes(i16::from_le_bytes(self.array()?) as i64)),
            Len::Encoded(enc::INT32) => Some(itoa_bytes(i32::from_le_bytes(self.array()?) as i64)),
            Len::Encoded(enc::LZF) => {
                let clen = usize::try_from(self.length()?).ok()?;
                let len = usize::try_from(self.length()?).ok()?;
                let packed = self.take(clen)?;
                // Never trust a length more than LZF can expand the input to.
                if len == 0 || len > packed.len().saturating_mul(256) {
                    return None;
                }
                lzf::decompress(packed, len)
            }
            Len::Encoded(_) => None,
        }
    }
}

fn itoa_bytes(v: i64) -> Vec<u8> {
    v.to_string().into_bytes()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lengths_round_trip() {
        for n in [
            0u64,
            63,
            64,
            16383,
            16384,
            u32::MAX as u64,
            u32::MAX as u64 + 1,
        ] {
            let mut out = Vec::new();
            put_len(&mut out, n);
            let mut r = Reader::new(&out);
            assert_eq!(r.length(), Some(n));
            assert!(r.at_end());
        }
    }

    #[test]
    fn strings_take_redis_encodings() {
        let cases: &[(&[u8], &[u8])] = &[
            (b"12", b"\xc0\x0c"),
            (b"-128", b"\xc0\x80"),
            (b"300", b"\xc1\x2c\x01"),
            (b"2147483647", b"\xc2\xff\xff\xff\x7f"),
            (b"2147483648", b"\x0a2147483648"),
            (b"012", b"\x03012"),
            (b"-0", b"\x02-0"),
            (b"+1", b"\x02+1"),
            (b"", b"\x00"),
        ];
        for (s, want) in cases {
            let mut out = Vec::new();
            put_string(&mut out, s, true);
            assert_eq!(&out[..], *want, "{:?}", String::from_utf8_lossy(s));
            assert_eq!(Reader::new(&out).string().as_deref(), Some(*s));
        }
        let long = vec![b'a'; 100];
        let mut out = Vec::new();
        put_string(&mut out, &long, true);
        assert_eq!(out[0], 0xc3);
        assert_eq!(Reader::new(&out).string(), Some(long.clone()));
        let mut plain = Vec::new();
        put_string(&mut plain, &long, false);
        assert_eq!(plain.len(), 102);
    }

    #[test]
    fn damaged_counts_are_refused() {
        let mut out = Vec::new();
        put_len(&mut out, 1 << 40);
        assert_eq!(Reader::new(&out).count(1), None);
        assert_eq!(Reader::new(b"\xc3\x05\x7f").string(), None);
    }
}
