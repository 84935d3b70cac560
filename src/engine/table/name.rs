//! Command names as the table's by-name index keys them ([`NameKey`]).

/// A command name as the by-name index keys it: its bytes with ASCII letters lowercased,
/// zero-padded to 32 and read as four words, and its length. Made from the client's bytes
/// with one copy and a few word operations, then hashed and compared a word at a time.
/// Against lowercasing a copy and hashing it with a general-purpose hasher, or hashing and
/// comparing it byte by byte, this saved 45-90 instructions per request under
/// redis-benchmark (`bench/instructions.py`).
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) struct NameKey {
    words: [u64; 4],
    len: u8,
}

impl NameKey {
    /// The longest name a key holds; no command's is longer.
    const MAX: usize = 32;

    /// The key of `name`, `None` if it is longer than any command's.
    #[inline]
    pub(super) fn of(name: &[u8]) -> Option<NameKey> {
        if name.len() > Self::MAX {
            return None;
        }
        let mut buf = [0u8; Self::MAX];
        buf[..name.len()].copy_from_slice(name);
        let mut words = [0u64; 4];
        for (w, chunk) in words.iter_mut().zip(buf.chunks_exact(8)) {
            *w = ascii_lowercase(u64::from_le_bytes(chunk.try_into().unwrap_or_default()));
        }
        Some(NameKey {
            words,
            len: name.len() as u8,
        })
    }

    /// A multiplicative hash of the words: hashbrown takes its tag from the top bits,
    /// which the product mixes well, and its bucket from the low bits, into which the
    /// high half is folded.
    #[inline]
    pub(super) fn hash(&self) -> u64 {
        let [a, b, c, d] = self.words;
        let x = a ^ b.rotate_left(17) ^ c.rotate_left(31) ^ d.rotate_left(47) ^ u64::from(self.len);
        let h = x.wrapping_mul(0x9e37_79b9_7f4a_7c15);
        h ^ (h >> 32)
    }
}

/// `w` with each byte that is an ASCII capital letter lowercased, the others as they are
/// (bytes of 0x80 and above too), eight bytes at once.
#[inline]
fn ascii_lowercase(w: u64) -> u64 {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = ONES * 0x80;
    // Each byte's low seven bits plus a constant, with no carry into the next byte: the
    // byte's top bit then says whether those bits reach 'A', and whether they pass 'Z'.
    let low = w & !HIGH;
    let from_a = low + ONES * (0x80 - u64::from(b'A'));
    let past_z = low + ONES * (0x80 - u64::from(b'Z') - 1);
    let capital = from_a & !past_z & !w & HIGH;
    w | (capital >> 2)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every byte value, at every position of a word among other bytes, is lowercased
    /// exactly as `u8::to_ascii_lowercase` does, and its neighbours are left as they were.
    #[test]
    fn words_are_lowercased_as_bytes_are() {
        let around = [0u8, b'A', b'Z', b'@', b'[', b'a', 0x7f, 0x80, 0xc1, 0xff];
        for b in 0..=255u8 {
            for pos in 0..8 {
                for &n in &around {
                    let mut bytes = [n; 8];
                    bytes[pos] = b;
                    let want = bytes.map(|x| x.to_ascii_lowercase());
                    let got = ascii_lowercase(u64::from_le_bytes(bytes)).to_le_bytes();
                    assert_eq!(got, want, "{bytes:?}");
                }
            }
        }
    }

    /// A key is its name's lowercase bytes and length: names that differ only in case
    /// share it, a trailing NUL or a longer name does not.
    #[test]
    fn keys_ignore_case_and_keep_the_length() {
        let key = |n: &[u8]| NameKey::of(n).expect("short");
        assert!(key(b"ZPopMin") == key(b"zpopmin"));
        assert!(key(b"get") != key(b"get\0"));
        assert!(key(b"get") != key(b"ge"));
        assert!(key(&[b'a'; 32]) != key(&[b'a'; 31]));
        assert!(NameKey::of(&[b'a'; 33]).is_none());
        assert_eq!(key(b"GET").hash(), key(b"get").hash());
    }
}
