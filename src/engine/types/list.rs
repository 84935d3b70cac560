//! Lists.
//!
//! # Representation
//! A list is a [`VecDeque`] of byte strings: a ring buffer that pushes and pops at both ends
//! in amortised O(1) and reaches any index in O(1). That meets or beats every cost Redis
//! documents for its list commands: `LPUSH`/`RPUSH`/`LPOP`/`RPOP` are O(1) per element as in
//! Redis; `LINDEX` and `LSET` are O(N) in Redis (its quicklist walks nodes) and O(1) here;
//! `LRANGE` is O(S+N) in Redis and O(N) here; `LINSERT`, `LREM` and `LPOS` scan, O(N), as in
//! Redis; `LTRIM` is O(removed elements), as in Redis.
//!
//! Redis 7.0 stores every list as a *quicklist* (a linked list of listpack nodes, each at most
//! `list-max-listpack-size` = -2, i.e. 8 KB). There is no separate small-list encoding in 7.0
//! (the `listpack` list encoding arrived in 7.2), so `OBJECT ENCODING` of a list is always
//! `quicklist`; we measured this against Redis 7.0.15.
//!
//! # Invariants
//! * A list stored in the keyspace is never empty: every command that removes elements
//!   deletes the key when the last one goes (see [`crate::engine::Ctx::delete_if_empty`]).
//! * Indexes given by users are `i64`; negative ones count from the tail (-1 is the last
//!   element). Every conversion to `usize` goes through [`ListValue::resolve`] or the range
//!   clamps below, so no user input can make an index panic or overflow.
//!
//! # Changing it
//! A performance change to this structure lands only with the scale tests passing in
//! release mode: `cargo test --release --test scale --test scale_diff` (here
//! `list_against_a_model` and its redis-server twin), which take it to a million live
//! elements against a plain model and against a real Redis (issue 18). A fast path that
//! trusts a hash, a tag, a probed slot or a cached position confirms the bytes before it
//! changes data or a reply.

use std::collections::VecDeque;

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

/// A list value.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ListValue {
    /// The elements, head first. Boxed, so that a list takes 8 bytes of a `Value`.
    pub items: Box<VecDeque<Vec<u8>>>,
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
        self.items.len()
    }

    /// True when there are no elements.
    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    /// Pushes one element at `end`. **O(1)** amortised.
    pub fn push(&mut self, end: End, value: Vec<u8>) {
        match end {
            End::Left => self.items.push_front(value),
            End::Right => self.items.push_back(value),
        }
    }

    /// Pops one element from `end`. **O(1).**
    pub fn pop(&mut self, end: End) -> Option<Vec<u8>> {
        match end {
            End::Left => self.items.pop_front(),
            End::Right => self.items.pop_back(),
        }
    }

    /// Pops up to `count` elements from `end`, in pop order. **O(count).**
    pub fn pop_many(&mut self, end: End, count: u64) -> Vec<Vec<u8>> {
        let n = usize::try_from(count).unwrap_or(usize::MAX).min(self.len());
        match end {
            End::Left => self.items.drain(..n).collect(),
            End::Right => {
                let start = self.len() - n;
                self.items.drain(start..).rev().collect()
            }
        }
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

    /// The element at a user index (`LINDEX`). **O(1).**
    pub fn get(&self, index: i64) -> Option<&[u8]> {
        self.resolve(index)
            .and_then(|i| self.items.get(i))
            .map(Vec::as_slice)
    }

    /// Replaces the element at a user index (`LSET`); false if out of range. **O(1).**
    pub fn set(&mut self, index: i64, value: Vec<u8>) -> bool {
        match self.resolve(index).and_then(|i| self.items.get_mut(i)) {
            Some(slot) => {
                *slot = value;
                true
            }
            None => false,
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

    /// The elements `LRANGE start end` returns. **O(N)** in the number returned.
    pub fn range(&self, start: i64, end: i64) -> impl Iterator<Item = &Vec<u8>> {
        let (from, to) = match self.range_bounds(start, end) {
            Some((s, e)) => (s, e + 1),
            None => (0, 0),
        };
        self.items.range(from..to)
    }

    /// Keeps only the elements `LTRIM start end` selects; returns how many were removed.
    /// **O(removed).**
    pub fn trim(&mut self, start: i64, end: i64) -> usize {
        let len = self.len();
        match self.range_bounds(start, end) {
            Some((s, e)) => {
                self.items.truncate(e + 1);
                self.items.drain(..s);
                len - (e + 1 - s)
            }
            None => {
                self.items.clear();
                len
            }
        }
    }

    /// Inserts `value` just before (or after) the first element equal to `pivot`
    /// (`LINSERT`). Returns false if the pivot is absent. **O(N).**
    pub fn insert_at_pivot(&mut self, after: bool, pivot: &[u8], value: Vec<u8>) -> bool {
        match self.items.iter().position(|e| e.as_slice() == pivot) {
            Some(i) => {
                self.items.insert(if after { i + 1 } else { i }, value);
                true
            }
            None => false,
        }
    }

    /// Removes elements equal to `value` (`LREM`): the first `count` from the head when
    /// `count > 0`, the last `|count|` from the tail when `count < 0`, all when 0. Returns
    /// how many were removed. **O(N)**, in place.
    pub fn remove(&mut self, count: i64, value: &[u8]) -> usize {
        let before = self.len();
        let limit = usize::try_from(count.unsigned_abs()).unwrap_or(usize::MAX);
        if count == 0 {
            self.items.retain(|e| e.as_slice() != value);
        } else if count > 0 {
            let mut removed = 0;
            self.items.retain(|e| {
                if removed < limit && e.as_slice() == value {
                    removed += 1;
                    false
                } else {
                    true
                }
            });
        } else {
            // From the tail: of the `m` matches, drop those numbered `m - limit` and up.
            let matches = self.items.iter().filter(|e| e.as_slice() == value).count();
            let keep = matches.saturating_sub(limit);
            let mut seen = 0;
            self.items.retain(|e| {
                if e.as_slice() == value {
                    seen += 1;
                    seen <= keep
                } else {
                    true
                }
            });
        }
        before - self.len()
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
        let mut out = Vec::new();
        let mut matches: i64 = 0;
        for step in 0..limit {
            let pos = if from_tail { len - 1 - step } else { step };
            if self.items.get(pos).is_some_and(|e| e.as_slice() == element) {
                matches += 1;
                if matches >= rank {
                    out.push(pos);
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
        ListValue {
            items: Box::new(iter.into_iter().collect()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn list(items: &[&str]) -> ListValue {
        items.iter().map(|s| s.as_bytes().to_vec()).collect()
    }

    fn strs(l: &ListValue) -> Vec<String> {
        l.items
            .iter()
            .map(|e| String::from_utf8_lossy(e).into_owned())
            .collect()
    }

    #[test]
    fn range_clamps_like_redis_even_at_the_i64_limits() {
        let l = list(&["a", "b", "c"]);
        assert_eq!(l.range_bounds(0, -1), Some((0, 2)));
        assert_eq!(l.range_bounds(-100, 1), Some((0, 1)));
        assert_eq!(l.range_bounds(0, i64::MAX), Some((0, 2)));
        assert_eq!(l.range_bounds(i64::MIN, i64::MIN), None);
        assert_eq!(l.range_bounds(i64::MIN, i64::MAX), Some((0, 2)));
        assert_eq!(l.range_bounds(2, 1), None);
        assert_eq!(l.range_bounds(3, 5), None);
    }

    #[test]
    fn trim_keeps_the_selected_range() {
        let mut l = list(&["a", "b", "c", "d", "e"]);
        assert_eq!(l.trim(1, -2), 2);
        assert_eq!(strs(&l), ["b", "c", "d"]);
        assert_eq!(l.trim(5, 1), 3);
        assert!(l.is_empty());
    }

    #[test]
    fn remove_counts_from_either_end() {
        let mut l = list(&["a", "b", "a", "c", "a"]);
        assert_eq!(l.remove(-2, b"a"), 2);
        assert_eq!(strs(&l), ["a", "b", "c"]);
        let mut l = list(&["a", "b", "a", "c", "a"]);
        assert_eq!(l.remove(1, b"a"), 1);
        assert_eq!(strs(&l), ["b", "a", "c", "a"]);
        assert_eq!(l.remove(i64::MIN, b"a"), 2);
        assert_eq!(strs(&l), ["b", "c"]);
    }

    #[test]
    fn positions_follow_rank_count_and_maxlen() {
        let l = list(&["a", "b", "c", "a", "b", "c", "a"]);
        assert_eq!(l.positions(b"a", 1, 1, 0), [0]);
        assert_eq!(l.positions(b"a", -1, 0, 0), [6, 3, 0]);
        assert_eq!(l.positions(b"a", 2, 0, 0), [3, 6]);
        assert_eq!(l.positions(b"a", 1, 0, 2), [0]);
        assert_eq!(l.positions(b"a", -2, 1, 3), Vec::<usize>::new());
        assert_eq!(l.positions(b"a", i64::MAX, 0, 0), Vec::<usize>::new());
        // Redis 7.0.15: RANK i64::MIN overflows, so every match is reported despite COUNT 1.
        assert_eq!(l.positions(b"a", i64::MIN, 1, 0), [6, 3, 0]);
    }

    #[test]
    fn pop_many_never_exceeds_the_length() {
        let mut l = list(&["a", "b", "c"]);
        assert_eq!(l.pop_many(End::Right, u64::MAX), [b"c", b"b", b"a"]);
        assert!(l.is_empty());
    }
}
