//! Lists.
//!
//! # Representation
//! A list is a sequence of *nodes*, each one heap block of up to 8 KB of packed elements
//! ([`node`]), in a [`VecDeque`]: Redis 7.0's quicklist (a linked list of listpacks), with
//! the nodes in a ring buffer instead of a linked list. An element costs its bytes and two
//! bytes of length (one more each per 128× of size), where a `VecDeque<Vec<u8>>` paid a
//! 24-byte `Vec` and a heap block of its own.
//!
//! **The measurement** (issue 20, `python3 bench/memory.py --only lists,smalllists`, against
//! redis-server 7.0.15): with a `VecDeque<Vec<u8>>`, one list of a million `item:N`
//! elements grew kvlab-server's resident memory by 39.8 bytes per element against Redis's
//! 13.3, and 100,000 lists of ten 2-byte elements by 57.5 per element against 22.2.
//!
//! Costs, against Redis's documented ones: `LPUSH`/`RPUSH`/`LPOP`/`RPOP` are **O(1)** per
//! element amortised (a node keeps room before its elements for pushes at the head);
//! `LINDEX` and `LSET` are **O(N)** as in Redis — they walk the nodes' counts from the
//! nearer end, then one node's elements (at most 8 KB of them); `LRANGE` is **O(S+N)**;
//! `LINSERT`, `LREM` and `LPOS` scan, **O(N)**; `LTRIM` is **O(removed)** (whole nodes
//! dropped at once). The length is kept, **O(1)**.
//!
//! Redis 7.0 stores every list as a quicklist, with no separate small-list encoding (the
//! `listpack` list encoding arrived in 7.2), so `OBJECT ENCODING` of a list is always
//! `quicklist`; we measured this against Redis 7.0.15. The node size is Redis's default
//! `list-max-listpack-size` (-2, 8 KB) whatever that parameter says: it changes how Redis
//! lays a list out in memory, which `MEMORY USAGE` models separately
//! ([`crate::engine::core::objsize`]), not what any command replies.
//!
//! # Invariants
//! * A list stored in the keyspace is never empty: every command that removes elements
//!   deletes the key when the last one goes (see [`crate::engine::Ctx::delete_if_empty`]).
//! * No node is empty; the nodes' counts add up to the kept length.
//! * Indexes given by users are `i64`; negative ones count from the tail (-1 is the last
//!   element). Every conversion to `usize` goes through [`ListValue::resolve`] or the range
//!   clamps below, so no user input can make an index panic or overflow.
//!
//! # Changing it
//! A performance change to this structure lands only with the scale tests passing in
//! release mode: `cargo test --release --test scale --test scale_diff` (here
//! `list_against_a_model` and its redis-server twin), which take it to a million live
//! elements against a plain model and against a real Redis (issue 18); and with
//! `cargo test --lib types::list`, whose property test puts elements of up to 3 KB (a few
//! to a node, so every operation meets node boundaries) against a `VecDeque` model. A fast
//! path that trusts a hash, a tag, a probed slot or a cached position confirms the bytes
//! before it changes data or a reply.

mod iter;
mod node;
#[cfg(test)]
mod tests;

use std::collections::VecDeque;
use std::fmt;

pub use iter::Iter;
use node::Node;

/// One end of a list: `LEFT` is the head (index 0), `RIGHT` the tail.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum End {
    /// The head (`LPUSH`, `LPOP`, `LEFT`).
    Left,
    /// The tail (`RPUSH`, `RPOP`, `RIGHT`).
    Right,
}

impl End {
    /// Parses `LEFT` or `RIGHT`, ignoring ASCII case.
    pub fn parse(arg: &[u8]) -> Option<End> {
        if arg.eq_ignore_ascii_case(b"left") {
            Some(End::Left)
        } else if arg.eq_ignore_ascii_case(b"right") {
            Some(End::Right)
        } else {
            None
        }
    }
}

/// A list value: see the module's notes. Boxed, so that a list takes 8 bytes of a `Value`.
#[derive(Clone, Default)]
pub struct ListValue {
    inner: Box<Nodes>,
}

/// The nodes, head first, and the number of elements in them.
#[derive(Clone, Default)]
struct Nodes {
    nodes: VecDeque<Node>,
    len: usize,
}

impl PartialEq for ListValue {
    /// Lists are equal when their elements are, however they are split into nodes.
    fn eq(&self, other: &ListValue) -> bool {
        self.len() == other.len() && self.iter().eq(other.iter())
    }
}

impl Eq for ListValue {}

impl fmt::Debug for ListValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list()
            .entries(self.iter().map(String::from_utf8_lossy))
            .finish()
    }
}

impl ListValue {
    /// An empty list (only ever stored once something is pushed).
    pub fn new() -> ListValue {
        ListValue::default()
    }

    /// The `OBJECT ENCODING` name: always `quicklist` in Redis 7.0.
    pub fn encoding(&self) -> &'static str {
        "quicklist"
    }

    /// Number of elements. **O(1).**
    pub fn len(&self) -> usize {
        self.inner.len
    }

    /// True when there are no elements.
    pub fn is_empty(&self) -> bool {
        self.inner.len == 0
    }

    /// The elements, head first (and from the tail with `.rev()`).
    pub fn iter(&self) -> Iter<'_> {
        Iter::new(&self.inner.nodes, self.inner.len)
    }

    /// Number of nodes and the bytes of heap they hold. **O(nodes).**
    #[cfg(test)]
    fn nodes(&self) -> (usize, usize) {
        let n = &self.inner.nodes;
        (n.len(), n.iter().map(Node::capacity).sum())
    }

    /// Pushes one element at `end`. **O(1)** amortised.
    pub fn push(&mut self, end: End, value: Vec<u8>) {
        self.push_slice(end, &value);
    }

    /// Pushes a copy of `value` at `end`. **O(1)** amortised.
    pub fn push_slice(&mut self, end: End, value: &[u8]) {
        let inner = &mut *self.inner;
        let nodes = &mut inner.nodes;
        let node = match end {
            End::Left => nodes.front_mut(),
            End::Right => nodes.back_mut(),
        };
        match (node, end) {
            (Some(node), End::Left) if node.has_room(value.len()) => node.push_front(value),
            (Some(node), End::Right) if node.has_room(value.len()) => node.push_back(value),
            _ => {
                let mut node = Node::default();
                node.push_back(value);
                if nodes.capacity() == 0 {
                    // A small list has one node: no room for more until it needs them.
                    nodes.reserve_exact(1);
                }
                match end {
                    End::Left => nodes.push_front(node),
                    End::Right => nodes.push_back(node),
                }
            }
        }
        inner.len += 1;
    }

    /// Pops one element from `end`. **O(1)** amortised.
    pub fn pop(&mut self, end: End) -> Option<Vec<u8>> {
        let inner = &mut *self.inner;
        let node = match end {
            End::Left => inner.nodes.front_mut()?,
            End::Right => inner.nodes.back_mut()?,
        };
        let value = match end {
            End::Left => node.pop_front(),
            End::Right => node.pop_back(),
        };
        if node.count() == 0 {
            match end {
                End::Left => inner.nodes.pop_front(),
                End::Right => inner.nodes.pop_back(),
            };
            inner.nodes.shrink_to_fit();
        }
        inner.len -= 1;
        Some(value)
    }

    /// Pops up to `count` elements from `end`, in pop order. **O(count).**
    pub fn pop_many(&mut self, end: End, count: u64) -> Vec<Vec<u8>> {
        let n = usize::try_from(count).unwrap_or(usize::MAX).min(self.len());
        (0..n).filter_map(|_| self.pop(end)).collect()
    }

    /// The position a user index names (negative counts from the tail), if it is inside
    /// the list. **O(1).**
    pub fn resolve(&self, index: i64) -> Option<usize> {
        let len = self.len() as i64;
        let i = if index < 0 { index + len } else { index };
        if (0..len).contains(&i) {
            Some(i as usize)
        } else {
            None
        }
    }

    /// The node and the offset in it of the element at position `i` (below the length),
    /// walking the nodes from the nearer end. **O(N)**: the nodes, then one node's elements.
    fn locate(&self, i: usize) -> (usize, usize) {
        let nodes = &self.inner.nodes;
        if i < self.len() / 2 {
            let mut i = i;
            for (n, node) in nodes.iter().enumerate() {
                if i < node.count() {
                    return (n, node.offset_of(i));
                }
                i -= node.count();
            }
        } else {
            let mut from_tail = self.len() - 1 - i;
            for (n, node) in nodes.iter().enumerate().rev() {
                if from_tail < node.count() {
                    return (n, node.offset_of(node.count() - 1 - from_tail));
                }
                from_tail -= node.count();
            }
        }
        unreachable!("position {i} of a list of {}", self.len())
    }

    /// The element at a user index (`LINDEX`). **O(N)**, as in Redis.
    pub fn get(&self, index: i64) -> Option<&[u8]> {
        let (n, pos) = self.locate(self.resolve(index)?);
        Some(self.inner.nodes[n].element_at(pos))
    }

    /// Replaces the element at a user index (`LSET`); false if out of range. **O(N)**, as
    /// in Redis.
    pub fn set(&mut self, index: i64, value: Vec<u8>) -> bool {
        let Some(i) = self.resolve(index) else {
            return false;
        };
        let (n, pos) = self.locate(i);
        self.inner.nodes[n].replace(pos, &value);
        self.split_if_oversized(n);
        true
    }

    /// Splits node `n`, and the halves again, while a replacement or an insertion has
    /// them past the node size with more than one element.
    fn split_if_oversized(&mut self, n: usize) {
        let nodes = &mut self.inner.nodes;
        if nodes[n].oversized() {
            let back = nodes[n].split();
            nodes.insert(n + 1, back);
            self.split_if_oversized(n + 1);
            self.split_if_oversized(n);
        }
    }

    /// The inclusive position range `LRANGE start end` selects, or `None` when it is
    /// empty. Follows Redis: negative indexes count from the tail, a start before the head
    /// is clamped to 0, an end past the tail to the last element. **O(1).**
    pub fn range_bounds(&self, start: i64, end: i64) -> Option<(usize, usize)> {
        let len = self.len() as i64;
        let mut start = if start < 0 { start + len } else { start };
        let mut end = if end < 0 { end + len } else { end };
        if start < 0 {
            start = 0;
        }
        if start > end || start >= len {
            return None;
        }
        if end >= len {
            end = len - 1;
        }
        Some((start as usize, end as usize))
    }

    /// The elements `LRANGE start end` returns. **O(S+N)**: finding the start, then the
    /// elements returned.
    pub fn range(&self, start: i64, end: i64) -> impl Iterator<Item = &[u8]> {
        match self.range_bounds(start, end) {
            Some((s, e)) => {
                let (n, pos) = self.locate(s);
                Iter::from(&self.inner.nodes, n, pos, e + 1 - s)
            }
            None => Iter::new(&self.inner.nodes, 0),
        }
    }

    /// Keeps only the elements `LTRIM start end` selects; returns how many were removed.
    /// **O(removed)**: whole nodes go at once.
    pub fn trim(&mut self, start: i64, end: i64) -> usize {
        let len = self.len();
        let (front, back) = match self.range_bounds(start, end) {
            Some((s, e)) => (s, len - 1 - e),
            None => (len, 0),
        };
        self.drop_end(End::Left, front);
        self.drop_end(End::Right, back);
        len - self.len()
    }

    /// Removes `n` (at most the length) elements from `end`.
    fn drop_end(&mut self, end: End, mut n: usize) {
        let inner = &mut *self.inner;
        n = n.min(inner.len);
        inner.len -= n;
        while n > 0 {
            let node = match end {
                End::Left => inner.nodes.front_mut(),
                End::Right => inner.nodes.back_mut(),
            };
            let Some(node) = node else { break };
            if node.count() <= n {
                n -= node.count();
                match end {
                    End::Left => inner.nodes.pop_front(),
                    End::Right => inner.nodes.pop_back(),
                };
            } else {
                match end {
                    End::Left => node.drop_front(n),
                    End::Right => node.drop_back(n),
                }
                n = 0;
            }
        }
        inner.nodes.shrink_to_fit();
    }

    /// Inserts `value` just before (or after) the first element equal to `pivot`
    /// (`LINSERT`). Returns false if the pivot is absent. **O(N).**
    pub fn insert_at_pivot(&mut self, after: bool, pivot: &[u8], value: Vec<u8>) -> bool {
        let found = self
            .inner
            .nodes
            .iter()
            .enumerate()
            .find_map(|(n, node)| node.find(pivot).map(|at| (n, at)));
        let Some((n, (start, end))) = found else {
            return false;
        };
        self.inner.nodes[n].insert(if after { end } else { start }, &value);
        self.inner.len += 1;
        self.split_if_oversized(n);
        true
    }

    /// Keeps the elements `keep` accepts, head first; returns how many went. **O(N)**; only
    /// the nodes that lose an element are rewritten.
    fn retain(&mut self, mut keep: impl FnMut(&[u8]) -> bool) -> usize {
        let inner = &mut *self.inner;
        let removed: usize = inner.nodes.iter_mut().map(|n| n.retain(&mut keep)).sum();
        if removed > 0 {
            inner.nodes.retain(|n| n.count() > 0);
            inner.nodes.shrink_to_fit();
            inner.len -= removed;
        }
        removed
    }

    /// Removes elements equal to `value` (`LREM`): the first `count` from the head when
    /// `count > 0`, the last `|count|` from the tail when `count < 0`, all when 0. Returns
    /// how many were removed. **O(N)**, in place.
    pub fn remove(&mut self, count: i64, value: &[u8]) -> usize {
        let limit = usize::try_from(count.unsigned_abs()).unwrap_or(usize::MAX);
        if count == 0 {
            self.retain(|e| e != value)
        } else if count > 0 {
            let mut removed = 0;
            self.retain(|e| {
                if removed < limit && e == value {
                    removed += 1;
                    false
                } else {
                    true
                }
            })
        } else {
            // From the tail: of the `m` matches, drop those numbered `m - limit` and up.
            let matches = self.iter().filter(|e| *e == value).count();
            let keep = matches.saturating_sub(limit);
            let mut seen = 0;
            self.retain(|e| {
                if e == value {
                    seen += 1;
                    seen <= keep
                } else {
                    true
                }
            })
        }
    }

    /// The positions `LPOS element RANK rank COUNT count MAXLEN maxlen` reports, with
    /// Redis 7.0.15's arithmetic: a negative `rank` scans from the tail; the `rank`-th match
    /// is the first reported; `count` 0 means all; `maxlen` 0 means no limit on elements
    /// compared. `rank` must not be 0 (the caller rejects it).
    ///
    /// Redis negates `rank` in C `long` arithmetic, so `RANK -9223372036854775808` stays
    /// negative: every match then qualifies and the `COUNT` test never stops the scan. We
    /// reproduce that with wrapping operations (Redis 7.0.15 replies exactly so; later
    /// versions reject that rank). **O(N)**, at most `maxlen` comparisons.
    pub fn positions(&self, element: &[u8], rank: i64, count: i64, maxlen: i64) -> Vec<usize> {
        let from_tail = rank < 0;
        let rank = if from_tail { rank.wrapping_neg() } else { rank };
        let len = self.len();
        let limit = if maxlen == 0 {
            len
        } else {
            usize::try_from(maxlen).unwrap_or(usize::MAX).min(len)
        };
        let scanned: Box<dyn Iterator<Item = &[u8]>> = if from_tail {
            Box::new(self.iter().rev())
        } else {
            Box::new(self.iter())
        };
        let mut out = Vec::new();
        let mut matches: i64 = 0;
        for (step, e) in scanned.take(limit).enumerate() {
            if e == element {
                matches += 1;
                if matches >= rank {
                    out.push(if from_tail { len - 1 - step } else { step });
                    let reported = matches.wrapping_sub(rank).wrapping_add(1);
                    if count != 0 && reported >= count {
                        break;
                    }
                }
            }
        }
        out
    }
}

impl FromIterator<Vec<u8>> for ListValue {
    fn from_iter<I: IntoIterator<Item = Vec<u8>>>(iter: I) -> ListValue {
        let mut list = ListValue::new();
        list.extend(iter);
        list
    }
}

impl Extend<Vec<u8>> for ListValue {
    /// Pushes each at the tail.
    fn extend<I: IntoIterator<Item = Vec<u8>>>(&mut self, iter: I) {
        for value in iter {
            self.push_slice(End::Right, &value);
        }
    }
}
