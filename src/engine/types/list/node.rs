//! A list's node: up to [`NODE_BYTES`] of packed elements in one heap block, as a Redis
//! quicklist node holds a listpack.
//!
//! Each element is written as its length (a varint, [`crate::engine::types::varint`]), its
//! bytes, and its length again with the varint's bytes reversed, so that the node reads
//! from either end: an element under 128 bytes costs two bytes more than its contents, as
//! a listpack string entry's header and back-length do. The elements occupy
//! `buf[start..]`; the room before `start` takes pushes at the head without moving the
//! rest, so both ends push and pop in **O(1)** amortised.
//!
//! Invariants: `buf[start..]` decodes into exactly `count` (at least one, while the node
//! is in a list) elements with nothing left over. Only this file writes a node's bytes.

use std::ops::Range;

use crate::engine::types::varint::{len_size, put_len, put_len_back, read_len, read_len_back};

/// The bytes a node fills before the list starts another: Redis's default
/// `list-max-listpack-size` of -2 (8 KB). An element larger than that has a node of its
/// own; an element replaced or inserted in the middle may take a node past it, which is
/// then split ([`Node::oversized`]).
pub const NODE_BYTES: usize = 8 * 1024;

/// The smallest buffer a node allocates.
const MIN_CAPACITY: usize = 32;

/// Packed elements; see the module's notes.
#[derive(Clone, Default)]
pub struct Node {
    buf: Vec<u8>,
    /// Below 2^32: only a node within [`NODE_BYTES`] has room before its elements.
    start: u32,
    /// Below 2^32: a node of more than one element holds at most about twice
    /// [`NODE_BYTES`] of them before it is split. (Two `u32`s make a node 32 bytes.)
    count: u32,
}

/// A node's offset or count, which its invariants keep below 2^32.
fn narrow(n: usize) -> u32 {
    u32::try_from(n).expect("a node's offsets and counts stay below 2^32")
}

/// Bytes an element of `len` bytes takes in a node.
pub fn entry_size(len: usize) -> usize {
    2 * len_size(len) + len
}

/// Appends `value` as an element to `out`.
fn encode(out: &mut Vec<u8>, value: &[u8]) {
    let (front, k) = put_len(value.len());
    out.extend_from_slice(&front[..k]);
    out.extend_from_slice(value);
    let (back, k) = put_len_back(value.len());
    out.extend_from_slice(&back[..k]);
}

/// Writes `value` as an element over `out`, exactly [`entry_size`] bytes long.
fn encode_into(out: &mut [u8], value: &[u8]) {
    let (front, k) = put_len(value.len());
    let (back, _) = put_len_back(value.len());
    out[..k].copy_from_slice(&front[..k]);
    out[k..k + value.len()].copy_from_slice(value);
    out[k + value.len()..].copy_from_slice(&back[..k]);
}

/// The element that starts at `pos` of `b`: where its bytes are, and where the next
/// element starts.
#[inline]
fn read_at(b: &[u8], pos: usize) -> (Range<usize>, usize) {
    let (len, k) = read_len(&b[pos..]).expect("a node's element decodes");
    let data = pos + k..pos + k + len;
    let next = data.end + k;
    (data, next)
}

/// The element that ends at `end` of `b`: where its bytes are, and where it starts.
#[inline]
fn read_before(b: &[u8], end: usize) -> (Range<usize>, usize) {
    let (len, k) = read_len_back(&b[..end]).expect("a node's element decodes");
    let data = end - k - len..end - k;
    let start = data.start - k;
    (data, start)
}

/// The first element of `b` and the rest, for iterators over a node's bytes: the one
/// loop of `LRANGE` and every full scan, so the one-byte length is read in line.
#[inline]
pub fn split_first(b: &[u8]) -> (&[u8], &[u8]) {
    let (len, k) = match b.first() {
        Some(&byte) if byte < 0x80 => (usize::from(byte), 1),
        _ => read_len(b).expect("a node's element decodes"),
    };
    let (e, rest) = b[k..].split_at(len);
    (e, &rest[k..])
}

/// The last element of `b` and what is before it.
pub fn split_last(b: &[u8]) -> (&[u8], &[u8]) {
    let (data, start) = read_before(b, b.len());
    (&b[data], &b[..start])
}

/// The capacity to allocate for `needed` bytes: a power of two up to [`NODE_BYTES`], so
/// that a node that fills up wastes nothing, and exactly `needed` beyond it.
fn capacity_for(needed: usize) -> usize {
    if needed > NODE_BYTES {
        needed
    } else {
        needed.next_power_of_two().clamp(MIN_CAPACITY, NODE_BYTES)
    }
}

impl Node {
    /// A node holding the elements of `bytes` (whole encoded elements), `count` of them.
    fn from_bytes(bytes: &[u8], count: usize) -> Node {
        let mut buf = Vec::with_capacity(capacity_for(bytes.len()));
        buf.extend_from_slice(bytes);
        Node {
            buf,
            start: 0,
            count: narrow(count),
        }
    }

    /// The packed elements.
    pub fn bytes(&self) -> &[u8] {
        &self.buf[self.start()..]
    }

    /// Where the elements start in the node's buffer (the room before them), the origin
    /// of the offsets [`Node::offset_of`] and [`Node::find`] give.
    pub fn start(&self) -> usize {
        self.start as usize
    }

    /// Number of elements.
    pub fn count(&self) -> usize {
        self.count as usize
    }

    /// Bytes the elements take.
    pub fn used(&self) -> usize {
        self.buf.len() - self.start()
    }

    /// Bytes of heap the node holds.
    #[cfg(test)]
    pub fn capacity(&self) -> usize {
        self.buf.capacity()
    }

    /// Whether an element of `len` bytes still belongs in this node at an end. An empty
    /// node takes anything.
    pub fn has_room(&self, len: usize) -> bool {
        self.count() == 0 || self.used() + entry_size(len) <= NODE_BYTES
    }

    /// Whether the node grew past [`NODE_BYTES`] with more than one element in it.
    pub fn oversized(&self) -> bool {
        self.count() > 1 && self.used() > NODE_BYTES
    }

    /// Appends an element. **O(1)** amortised.
    pub fn push_back(&mut self, value: &[u8]) {
        let size = entry_size(value.len());
        if self.buf.capacity() - self.buf.len() < size {
            let want = capacity_for(self.buf.len() + size);
            self.buf.reserve_exact(want - self.buf.len());
        }
        encode(&mut self.buf, value);
        self.count += 1;
    }

    /// Prepends an element. **O(1)** amortised: the room before the elements doubles when
    /// it runs out.
    pub fn push_front(&mut self, value: &[u8]) {
        let size = entry_size(value.len());
        if self.start() < size {
            let used = self.used();
            let capacity = capacity_for(used + size);
            let mut buf = Vec::with_capacity(capacity);
            buf.resize(capacity - used - size, 0);
            encode(&mut buf, value);
            buf.extend_from_slice(self.bytes());
            self.start = narrow(capacity - used - size);
            self.buf = buf;
        } else {
            let start = self.start() - size;
            self.start = narrow(start);
            encode_into(&mut self.buf[start..start + size], value);
        }
        self.count += 1;
    }

    /// Removes the first element and returns it.
    pub fn pop_front(&mut self) -> Vec<u8> {
        let (data, next) = read_at(&self.buf, self.start());
        let value = self.buf[data].to_vec();
        self.start = narrow(next);
        self.count -= 1;
        self.give_back();
        value
    }

    /// Removes the last element and returns it.
    pub fn pop_back(&mut self) -> Vec<u8> {
        let (data, start) = read_before(&self.buf, self.buf.len());
        let value = self.buf[data].to_vec();
        self.buf.truncate(start);
        self.count -= 1;
        self.give_back();
        value
    }

    /// Removes the first `n` (at most the count) elements. **O(n).**
    pub fn drop_front(&mut self, n: usize) {
        for _ in 0..n.min(self.count()) {
            self.start = narrow(read_at(&self.buf, self.start()).1);
            self.count -= 1;
        }
        self.give_back();
    }

    /// Removes the last `n` (at most the count) elements. **O(n).**
    pub fn drop_back(&mut self, n: usize) {
        for _ in 0..n.min(self.count()) {
            let start = read_before(&self.buf, self.buf.len()).1;
            self.buf.truncate(start);
            self.count -= 1;
        }
        self.give_back();
    }

    /// After removals: a node whose elements take a quarter of its block or less moves
    /// into a block its size (amortised **O(1)** per removal), as a listpack shrinks.
    fn give_back(&mut self) {
        let used = self.used();
        if self.count() == 0 {
            self.buf = Vec::new();
            self.start = 0;
        } else if self.buf.capacity() > MIN_CAPACITY && used * 4 <= self.buf.capacity() {
            let mut buf = Vec::with_capacity(capacity_for(used));
            buf.extend_from_slice(self.bytes());
            self.buf = buf;
            self.start = 0;
        }
    }

    /// Where the `i`-th element (`i < count`) starts in `buf`, scanning from the nearer
    /// end. **O(count).**
    pub fn offset_of(&self, i: usize) -> usize {
        if i <= self.count() / 2 {
            let mut pos = self.start();
            for _ in 0..i {
                pos = read_at(&self.buf, pos).1;
            }
            pos
        } else {
            let mut end = self.buf.len();
            for _ in 0..self.count() - 1 - i {
                end = read_before(&self.buf, end).1;
            }
            read_before(&self.buf, end).1
        }
    }

    /// The element that starts at `pos` (an offset from [`Node::offset_of`] or
    /// [`Node::find`]).
    pub fn element_at(&self, pos: usize) -> &[u8] {
        &self.buf[read_at(&self.buf, pos).0]
    }

    /// Where the first element equal to `value` starts, and where it ends.
    pub fn find(&self, value: &[u8]) -> Option<(usize, usize)> {
        let mut pos = self.start();
        while pos < self.buf.len() {
            let (data, next) = read_at(&self.buf, pos);
            if &self.buf[data] == value {
                return Some((pos, next));
            }
            pos = next;
        }
        None
    }

    /// Replaces the element that starts at `pos` with `value`. **O(used)**, in place when
    /// the sizes match.
    pub fn replace(&mut self, pos: usize, value: &[u8]) {
        let (_, next) = read_at(&self.buf, pos);
        if next - pos == entry_size(value.len()) {
            encode_into(&mut self.buf[pos..next], value);
        } else {
            self.splice(pos..next, value, 0);
        }
    }

    /// Inserts `value` as an element starting at `pos` (an element's start, or the end of
    /// the buffer). **O(used).**
    pub fn insert(&mut self, pos: usize, value: &[u8]) {
        self.splice(pos..pos, value, 1);
    }

    /// Writes `value` over `buf[range]` (whole elements), the count changing by `added`.
    fn splice(&mut self, range: Range<usize>, value: &[u8], added: usize) {
        let tail = self.buf.split_off(range.end);
        self.buf.truncate(range.start);
        self.buf.reserve_exact(entry_size(value.len()) + tail.len());
        encode(&mut self.buf, value);
        self.buf.extend_from_slice(&tail);
        self.count += narrow(added);
    }

    /// Splits the node in two halves by count, returning the second. **O(used).**
    pub fn split(&mut self) -> Node {
        let keep = self.count() / 2;
        let at = self.offset_of(keep);
        let back = Node::from_bytes(&self.buf[at..], self.count() - keep);
        *self = Node::from_bytes(&self.buf[self.start()..at], keep);
        back
    }

    /// Keeps the elements `keep` accepts, in order; returns how many went. **O(used)**,
    /// and the node is rewritten only if one went.
    pub fn retain(&mut self, keep: &mut impl FnMut(&[u8]) -> bool) -> usize {
        let mut kept: Option<Vec<u8>> = None;
        let mut pos = self.start();
        let mut removed = 0;
        while pos < self.buf.len() {
            let (data, next) = read_at(&self.buf, pos);
            let stays = keep(&self.buf[data]);
            match (&mut kept, stays) {
                (Some(out), true) => out.extend_from_slice(&self.buf[pos..next]),
                (Some(_), false) => removed += 1,
                (None, true) => {}
                (None, false) => {
                    kept = Some(self.buf[self.start()..pos].to_vec());
                    removed += 1;
                }
            }
            pos = next;
        }
        if let Some(bytes) = kept {
            *self = match self.count() - removed {
                0 => Node::default(),
                count => Node::from_bytes(&bytes, count),
            };
        }
        removed
    }
}
