//! The listpack encoding of a small hash: one flat buffer.
//!
//! A [`Pack`] holds field, value, field, value… in insertion order in a single heap block,
//! each string written as its length then its bytes. The length is a LEB128 varint
//! ([`crate::engine::types::varint`]): a string shorter than 128 bytes pays one byte of
//! length, and any `usize` fits in at most ten, so a configuration that raises
//! `hash-max-listpack-value` to any size is still encoded; a length that does not decode
//! (which our own writes never produce) reads as the end of the buffer, never as a panic.
//!
//! The buffer is a `Box<[u8]>`, exactly as long as its contents: 16 bytes of header where a
//! `Vec` has 24 and no spare capacity. Each write reallocates it to its new size (an
//! in-place `realloc` when the allocator's size class still fits, as it mostly does for a
//! few bytes more); an update whose new value encodes to the same length is written in
//! place with no allocation. The number of pairs is kept in the buffer's last four bytes
//! (little-endian; an empty pack has no bytes at all) so that HLEN is **O(1)** and the pack
//! is one 16-byte pointer, as Redis's listpack keeps its count in its header: the hash then
//! fits a 24-byte `Value` beside the other types.
//!
//! Lookups scan from the front, comparing lengths before bytes: **O(N)**, as in Redis's
//! listpack, with N bounded by `hash-max-listpack-entries` (the caller converts past it).
//! Deleting a pair moves the rest of the buffer down over it, so the order is kept.
//!
//! Invariants: the buffer is empty, or its body (all but the last four bytes) decodes into
//! exactly the counted number (at least one) of field/value pairs with nothing left over;
//! no field appears twice.
//!
//! # Changing it
//! Another length code (a fixed-width header, say) changes only the varint module's
//! `put_len`, `len_size` and `read_len` (which a list's nodes share); whatever it is, it must stay canonical (the derived
//! equality compares bytes) and decode any length without panicking. Measure with
//! `python3 bench/memory.py --only hashes`, and run the hash tests listed in the parent
//! module's "# Changing it".

use std::mem;
use std::ops::Range;

use crate::engine::types::varint::{len_size, put_len, read_len};

/// Bytes of the pair count at the end of a non-empty buffer.
const COUNT: usize = 4;

/// Field, value, field, value… each as a varint length and its bytes, then the count.
#[derive(Clone, Default, PartialEq, Eq, Debug)]
pub(super) struct Pack {
    buf: Box<[u8]>,
}

/// The string at the start of `b` and what follows it.
fn read_str(b: &[u8]) -> Option<(&[u8], &[u8])> {
    let (n, k) = read_len(b)?;
    let rest = b.get(k..)?;
    (n <= rest.len()).then(|| rest.split_at(n))
}

/// Appends `s` with its length.
fn push_str(out: &mut Vec<u8>, s: &[u8]) {
    let (len, k) = put_len(s.len());
    out.extend_from_slice(&len[..k]);
    out.extend_from_slice(s);
}

/// Where a pair lies in the buffer: its field starts at `start`, its value (length
/// included) spans `value`, and the pair ends where `value` ends.
struct Found {
    start: usize,
    value: Range<usize>,
}

impl Pack {
    /// A pack of `pairs`, in order, in one allocation of the exact size. The caller makes
    /// sure no field repeats.
    pub(super) fn of_distinct<'a, I>(pairs: I) -> Pack
    where
        I: Iterator<Item = (&'a [u8], &'a [u8])> + Clone,
    {
        let size: usize = pairs
            .clone()
            .map(|(f, v)| len_size(f.len()) + f.len() + len_size(v.len()) + v.len())
            .sum();
        let mut buf = Vec::with_capacity(size + COUNT);
        let mut count = 0;
        for (f, v) in pairs {
            push_str(&mut buf, f);
            push_str(&mut buf, v);
            count += 1;
        }
        Pack::sealed(buf, count)
    }

    /// The pack of `body` holding `count` pairs: the count appended, or no bytes at all
    /// when there is none.
    fn sealed(mut body: Vec<u8>, count: usize) -> Pack {
        if count == 0 {
            return Pack::default();
        }
        let n = u32::try_from(count).unwrap_or(u32::MAX);
        body.extend_from_slice(&n.to_le_bytes());
        Pack {
            buf: body.into_boxed_slice(),
        }
    }

    /// The pairs' bytes, without the count.
    fn body(&self) -> &[u8] {
        let end = self.buf.len().saturating_sub(COUNT);
        self.buf.get(..end).unwrap_or(&[])
    }

    /// The buffer as a vector of the body alone, for a write that changes the count.
    fn take_body(&mut self) -> Vec<u8> {
        let mut buf = mem::take(&mut self.buf).into_vec();
        buf.truncate(buf.len().saturating_sub(COUNT));
        buf
    }

    /// Number of pairs. **O(1).**
    pub(super) fn len(&self) -> usize {
        let mut n = [0u8; COUNT];
        if let Some(tail) = self
            .buf
            .len()
            .checked_sub(COUNT)
            .and_then(|i| self.buf.get(i..))
        {
            n.copy_from_slice(tail);
        }
        u32::from_le_bytes(n) as usize
    }

    /// Bytes of the pairs (for tests and measurements).
    pub(super) fn bytes(&self) -> usize {
        self.body().len()
    }

    /// The pairs in order.
    pub(super) fn iter(&self) -> Iter<'_> {
        Iter {
            rest: self.body(),
            left: self.len(),
        }
    }

    /// The pair holding `field`. **O(N).**
    fn find(&self, field: &[u8]) -> Option<Found> {
        let body = self.body();
        let total = body.len();
        let mut rest: &[u8] = body;
        while !rest.is_empty() {
            let start = total - rest.len();
            let (f, after_field) = read_str(rest)?;
            let value_at = total - after_field.len();
            let (_, after_value) = read_str(after_field)?;
            if f == field {
                return Some(Found {
                    start,
                    value: value_at..total - after_value.len(),
                });
            }
            rest = after_value;
        }
        None
    }

    /// The value of `field`. **O(N).**
    pub(super) fn get(&self, field: &[u8]) -> Option<&[u8]> {
        let found = self.find(field)?;
        let (v, _) = read_str(self.buf.get(found.value)?)?;
        Some(v)
    }

    /// The pair at position `i`. **O(N).**
    pub(super) fn get_index(&self, i: usize) -> Option<(&[u8], &[u8])> {
        self.iter().nth(i)
    }

    /// Sets `field` to `value`: an existing field keeps its place (its value rewritten in
    /// place when the new one encodes to the same length), a new pair goes last. Returns
    /// true if the field is new. **O(N).**
    pub(super) fn insert(&mut self, field: &[u8], value: &[u8]) -> bool {
        let (len, k) = put_len(value.len());
        if let Some(found) = self.find(field) {
            let old = found.value;
            if old.len() == k + value.len() {
                if let Some(slot) = self.buf.get_mut(old) {
                    let (head, tail) = slot.split_at_mut(k);
                    head.copy_from_slice(&len[..k]);
                    tail.copy_from_slice(value);
                }
            } else {
                let mut buf = mem::take(&mut self.buf).into_vec();
                let grow = (k + value.len()).saturating_sub(old.len());
                buf.reserve_exact(grow);
                buf.splice(old, len[..k].iter().chain(value).copied());
                self.buf = buf.into_boxed_slice();
            }
            return false;
        }
        let count = self.len() + 1;
        let mut buf = self.take_body();
        buf.reserve_exact(len_size(field.len()) + field.len() + k + value.len() + COUNT);
        push_str(&mut buf, field);
        buf.extend_from_slice(&len[..k]);
        buf.extend_from_slice(value);
        *self = Pack::sealed(buf, count);
        true
    }

    /// Removes `field`, moving what follows down over it; returns true if it existed.
    /// **O(N).**
    pub(super) fn remove(&mut self, field: &[u8]) -> bool {
        let Some(found) = self.find(field) else {
            return false;
        };
        let count = self.len() - 1;
        let mut buf = self.take_body();
        buf.drain(found.start..found.value.end);
        *self = Pack::sealed(buf, count);
        true
    }

    /// Checks the invariants: the body decodes into exactly the counted pairs, nothing
    /// left over, no field twice, no count without pairs. **O(N²)** (for tests).
    pub(super) fn check(&self) -> Result<(), String> {
        if !self.buf.is_empty() && (self.buf.len() < COUNT || self.len() == 0) {
            return Err(format!("{} bytes hold no pair", self.buf.len()));
        }
        let mut rest: &[u8] = self.body();
        let mut fields: Vec<&[u8]> = Vec::new();
        while !rest.is_empty() {
            let Some((f, after)) = read_str(rest) else {
                return Err(format!("field {} does not decode", fields.len()));
            };
            let Some((_, after)) = read_str(after) else {
                return Err(format!("value {} does not decode", fields.len()));
            };
            if fields.contains(&f) {
                return Err(format!("field {f:?} appears twice"));
            }
            fields.push(f);
            rest = after;
        }
        if fields.len() != self.len() {
            return Err(format!("{} pairs, counted {}", fields.len(), self.len()));
        }
        Ok(())
    }
}

/// The pairs of a [`Pack`] in order.
#[derive(Clone)]
pub(super) struct Iter<'a> {
    rest: &'a [u8],
    left: usize,
}

impl<'a> Iterator for Iter<'a> {
    type Item = (&'a [u8], &'a [u8]);

    fn next(&mut self) -> Option<Self::Item> {
        let (f, after) = read_str(self.rest)?;
        let (v, after) = read_str(after)?;
        self.rest = after;
        self.left = self.left.saturating_sub(1);
        Some((f, v))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (0, Some(self.left))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_string_longer_than_the_buffer_ends_it() {
        assert_eq!(read_str(&[5, b'a']), None);
        assert_eq!(read_str(&[1, b'a', b'b']), Some((&b"a"[..], &b"b"[..])));
    }

    #[test]
    fn writes_keep_the_layout_exact() {
        let mut p = Pack::default();
        assert!(p.insert(b"f0", b"v0"));
        assert!(p.insert(b"f1", b"v1"));
        assert_eq!(p.body(), b"\x02f0\x02v0\x02f1\x02v1");
        // Same encoded length: rewritten in place.
        assert!(!p.insert(b"f0", b"zz"));
        assert_eq!(p.body(), b"\x02f0\x02zz\x02f1\x02v1");
        // Longer and shorter values move the tail.
        let long = vec![b'x'; 200];
        assert!(!p.insert(b"f0", &long));
        assert_eq!(p.bytes(), 3 + 2 + 200 + 6);
        assert_eq!(p.get(b"f0"), Some(&long[..]));
        assert_eq!(p.get(b"f1"), Some(&b"v1"[..]));
        assert!(!p.insert(b"f0", b""));
        assert_eq!(p.body(), b"\x02f0\x00\x02f1\x02v1");
        assert!(p.remove(b"f0"));
        assert!(!p.remove(b"f0"));
        assert_eq!(p.body(), b"\x02f1\x02v1");
        assert_eq!(p.len(), 1);
        p.check().unwrap();
        assert!(p.remove(b"f1"));
        assert_eq!(p, Pack::default());
    }

    #[test]
    fn empty_strings_and_lookalike_fields_are_told_apart() {
        let mut p = Pack::default();
        assert!(p.insert(b"", b""));
        assert!(p.insert(b"a", b""));
        assert!(p.insert(b"ab", b"a"));
        assert!(!p.insert(b"", b"x"));
        assert_eq!(p.get(b""), Some(&b"x"[..]));
        assert_eq!(p.get(b"a"), Some(&b""[..]));
        assert_eq!(p.get(b"b"), None);
        assert_eq!(p.get_index(2), Some((&b"ab"[..], &b"a"[..])));
        assert_eq!(p.get_index(3), None);
        p.check().unwrap();
    }

    #[test]
    fn of_distinct_builds_what_inserts_build() {
        let pairs: Vec<(&[u8], &[u8])> = vec![(b"a", b"1"), (b"bb", b""), (b"c", &[7; 300])];
        let built = Pack::of_distinct(pairs.iter().copied());
        let mut inserted = Pack::default();
        for (f, v) in &pairs {
            inserted.insert(f, v);
        }
        assert_eq!(built, inserted);
        assert_eq!(built.iter().collect::<Vec<_>>(), pairs);
        built.check().unwrap();
    }
}
