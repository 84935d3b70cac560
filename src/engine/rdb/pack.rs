//! The flat blobs Redis keeps small values in, built byte for byte as Redis 7.0 builds
//! them, for the RDB writer: listpacks (`listpack.c`) and intsets (`intset.c`).
//!
//! # Listpack
//! A listpack is a 6-byte header (total bytes as a little-endian `u32`, then the element
//! count as a little-endian `u16`, which sticks at 65535, "unknown", once it gets there),
//! the elements, and an end byte `0xff`. Each element is its encoding, its data, and a
//! *back-length*: the size of encoding plus data, written backwards in 7-bit groups so the
//! list can be walked from the end.
//!
//! An element appended as a string is stored as an integer when `lpStringToInt64` reads it
//! as one (the canonical decimal text of an `i64`: no sign but `-`, no leading zero, no
//! `-0`, at most 20 bytes), in the smallest of Redis's forms: 7-bit unsigned, 13-, 16-,
//! 24-, 32- or 64-bit signed. Other strings take a 6-bit, 12-bit or 32-bit length.
//!
//! # Intset
//! An intset is its encoding (the width of every member: 2, 4 or 8 bytes, little-endian
//! `u32`), its length (little-endian `u32`) and the members in ascending order, each
//! little-endian at that width. Redis widens an intset when a member needs it and never
//! narrows it again; [`intset`] writes the width the members need now (see
//! [`super::write`] for what that means for a set that lost its widest member).

use crate::engine::num::parse_i64;

/// The header: total bytes (`u32`) and element count (`u16`).
const HEADER: usize = 6;
/// The end byte.
const EOF: u8 = 0xff;
/// The element count a listpack header shows once it has that many or more.
const COUNT_UNKNOWN: usize = u16::MAX as usize;

/// A listpack being built by appending, as `lpAppend` / `lpAppendInteger` do.
#[derive(Debug, Clone)]
pub struct Listpack {
    buf: Vec<u8>,
    count: usize,
}

impl Default for Listpack {
    fn default() -> Listpack {
        Listpack::new()
    }
}

impl Listpack {
    /// An empty listpack (`lpNew`).
    pub fn new() -> Listpack {
        Listpack {
            buf: vec![0; HEADER],
            count: 0,
        }
    }

    /// The bytes of a listpack with no elements: its header and end byte.
    pub const EMPTY_BYTES: usize = HEADER + 1;

    /// The bytes the finished listpack takes (`lpBytes`), end byte included. **O(1).**
    pub fn bytes(&self) -> usize {
        self.buf.len() + 1
    }

    /// Elements appended so far.
    pub fn count(&self) -> usize {
        self.count
    }

    /// Appends `s`, as an integer when it is the canonical text of one (`lpAppend`).
    pub fn push(&mut self, s: &[u8]) {
        match parse_i64(s) {
            Some(v) => self.push_int(v),
            None => {
                let start = self.buf.len();
                let len = s.len();
                if len < 64 {
                    self.buf.push(0x80 | len as u8);
                } else if len < 4096 {
                    self.buf.push(0xe0 | (len >> 8) as u8);
                    self.buf.push(len as u8);
                } else {
                    self.buf.push(0xf0);
                    self.buf.extend_from_slice(&(len as u32).to_le_bytes());
                }
                self.buf.extend_from_slice(s);
                self.end_element(start);
            }
        }
    }

    /// Appends the integer `v` (`lpAppendInteger`).
    pub fn push_int(&mut self, v: i64) {
        let start = self.buf.len();
        if (0..=127).contains(&v) {
            self.buf.push(v as u8);
        } else if (-4096..=4095).contains(&v) {
            let u = (v as u16) & 0x1fff;
            self.buf.push(0xc0 | (u >> 8) as u8);
            self.buf.push(u as u8);
        } else if let Ok(h) = i16::try_from(v) {
            self.buf.push(0xf1);
            self.buf.extend_from_slice(&h.to_le_bytes());
        } else if (-(1 << 23)..(1 << 23)).contains(&v) {
            self.buf.push(0xf2);
            self.buf.extend_from_slice(&(v as i32).to_le_bytes()[..3]);
        } else if let Ok(w) = i32::try_from(v) {
            self.buf.push(0xf3);
            self.buf.extend_from_slice(&w.to_le_bytes());
        } else {
            self.buf.push(0xf4);
            self.buf.extend_from_slice(&v.to_le_bytes());
        }
        self.end_element(start);
    }

    /// Writes the back-length of the element that starts at `start` and counts it.
    fn end_element(&mut self, start: usize) {
        let l = (self.buf.len() - start) as u64;
        put_backlen(&mut self.buf, l);
        self.count += 1;
    }

    /// The finished listpack: header filled in, end byte appended.
    pub fn finish(mut self) -> Vec<u8> {
        self.buf.push(EOF);
        let total = self.buf.len() as u32;
        let count = self.count.min(COUNT_UNKNOWN) as u16;
        self.buf[..4].copy_from_slice(&total.to_le_bytes());
        self.buf[4..6].copy_from_slice(&count.to_le_bytes());
        self.buf
    }
}

/// Appends the back-length of an element whose encoding and data take `l` bytes
/// (`lpEncodeBacklen`): the most significant 7-bit group first, every group but the
/// first with its top bit set (read from the end, the set bit says "more to the left").
fn put_backlen(out: &mut Vec<u8>, l: u64) {
    let groups = if l <= 127 {
        1
    } else if l < 16383 {
        2
    } else if l < 2097151 {
        3
    } else if l < 268435455 {
        4
    } else {
        5
    };
    for g in (0..groups).rev() {
        let bits = ((l >> (7 * g)) & 127) as u8;
        out.push(if g == groups - 1 { bits } else { bits | 128 });
    }
}

/// The bytes `s` takes as a listpack element, back-length included (what `lpAppend`
/// adds to `lpBytes`). **O(1)** but for the integer check.
pub fn element_size(s: &[u8]) -> usize {
    let enc = match parse_i64(s) {
        Some(v) => int_size(v),
        None if s.len() < 64 => 1 + s.len(),
        None if s.len() < 4096 => 2 + s.len(),
        None => 5 + s.len(),
    };
    enc + backlen_size(enc as u64)
}

fn int_size(v: i64) -> usize {
    if (0..=127).contains(&v) {
        1
    } else if (-4096..=4095).contains(&v) {
        2
    } else if i16::try_from(v).is_ok() {
        3
    } else if (-(1 << 23)..(1 << 23)).contains(&v) {
        4
    } else if i32::try_from(v).is_ok() {
        5
    } else {
        9
    }
}

fn backlen_size(l: u64) -> usize {
    if l <= 127 {
        1
    } else if l < 16383 {
        2
    } else if l < 2097151 {
        3
    } else if l < 268435455 {
        4
    } else {
        5
    }
}

/// The intset of `members` (ascending, distinct), at the narrowest width that holds them
/// all. **O(N).**
pub fn intset(members: &[i64]) -> Vec<u8> {
    let width: usize = if members.iter().all(|&v| i16::try_from(v).is_ok()) {
        2
    } else if members.iter().all(|&v| i32::try_from(v).is_ok()) {
        4
    } else {
        8
    };
    let mut out = Vec::with_capacity(8 + width * members.len());
    out.extend_from_slice(&(width as u32).to_le_bytes());
    out.extend_from_slice(&(members.len() as u32).to_le_bytes());
    for &v in members {
        out.extend_from_slice(&v.to_le_bytes()[..width]);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn unhex(s: &str) -> Vec<u8> {
        (0..s.len())
            .step_by(2)
            .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
            .collect()
    }

    fn lp(items: &[&[u8]]) -> Vec<u8> {
        let mut l = Listpack::new();
        for i in items {
            l.push(i);
        }
        let n = l.bytes();
        let out = l.finish();
        assert_eq!(out.len(), n);
        out
    }

    // Blobs cut from payloads of real Redis 7.0.15 (`DUMP` of the commands named).

    #[test]
    fn integers_of_every_width_as_rpush_stores_them() {
        // RPUSH l a 1 -1 200 -5000 40000 -40000 9000000 -9000000 3000000000 -3000000000
        //   9223372036854775807 -9223372036854775808 -0 01
        let items: &[&[u8]] = &[
            b"a",
            b"1",
            b"-1",
            b"200",
            b"-5000",
            b"40000",
            b"-40000",
            b"9000000",
            b"-9000000",
            b"3000000000",
            b"-3000000000",
            b"9223372036854775807",
            b"-9223372036854775808",
            b"-0",
            b"01",
        ];
        let want = unhex(concat!(
            "5c0000000f008161020101dfff02c0c802f178ec03f2409c0004f2c063ff04f3405489",
            "0005f3c0ab76ff05f4005ed0b20000000009f400a22f4dffffffff09f4ffffffffffff",
            "ff7f09f4000000000000008009822d300382303103ff"
        ));
        assert_eq!(lp(items), want);
        let sizes: usize = items.iter().map(|i| element_size(i)).sum();
        assert_eq!(sizes + HEADER + 1, want.len());
    }

    #[test]
    fn hash_pairs() {
        // HSET h f v n 12 neg -1
        let want = unhex("1a0000000600816602817602816e020c01836e656704dfff02ff");
        assert_eq!(lp(&[b"f", b"v", b"n", b"12", b"neg", b"-1"]), want);
    }

    #[test]
    fn long_strings_take_longer_lengths_and_backlengths() {
        let s64 = vec![b'x'; 64];
        let out = lp(&[&s64]);
        assert_eq!(&out[6..8], &[0xe0, 64]);
        assert_eq!(&out[out.len() - 2..], &[66, EOF]);
        let s5000 = vec![b'y'; 5000];
        let out = lp(&[&s5000]);
        assert_eq!(&out[6..11], &[0xf0, 0x88, 0x13, 0, 0]);
        // 5005 = 39 * 128 + 13
        assert_eq!(&out[out.len() - 3..], &[39, 0x80 | 13, EOF]);
        assert_eq!(element_size(&s5000), 5007);
        let mut big = Vec::new();
        put_backlen(&mut big, 300_000);
        assert_eq!(big, [18, 0x80 | 39, 0x80 | 96]);
    }

    #[test]
    fn the_count_sticks_at_65535() {
        let mut l = Listpack::new();
        for _ in 0..70_000 {
            l.push_int(1);
        }
        let out = l.finish();
        assert_eq!(&out[4..6], &[0xff, 0xff]);
        assert_eq!(out.len(), 6 + 2 * 70_000 + 1);
    }

    #[test]
    fn intsets_at_each_width() {
        // SADD s 1 2 3; SADD s2 1 70000
        assert_eq!(intset(&[1, 2, 3]), unhex("0200000003000000010002000300"));
        assert_eq!(
            intset(&[1, 70000]),
            unhex("04000000020000000100000070110100")
        );
        let wide = intset(&[-1, i64::MAX]);
        assert_eq!(&wide[..8], &[8, 0, 0, 0, 2, 0, 0, 0]);
        assert_eq!(wide.len(), 8 + 16);
    }
}
