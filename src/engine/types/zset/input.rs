//! Read-only views the multi-key commands take as input: [`ZInput`] (a sorted set or a plain
//! set with score 1) for ZUNION/ZINTER/ZDIFF, and [`SortSource`] for SORT.

use super::repr::ZSet;
use crate::engine::types::{ListValue, SetValue};

/// A source of `(member, score)` pairs for `ZUNION`/`ZINTER`/`ZDIFF` and their `STORE`
/// forms, which accept sorted sets and plain sets (every member scoring 1).
///
/// An input of `ZUNION`/`ZINTER`/`ZDIFF`: a sorted set, or a plain set whose members all
/// score 1 (see [`crate::engine::types::Value::zset_input`]).
#[derive(Debug, Clone, Copy)]
pub enum ZInput<'a> {
    /// A sorted set.
    ZSet(&'a ZSet),
    /// A plain set.
    Set(&'a SetValue),
}

impl<'a> ZInput<'a> {
    /// Number of members. **O(1).**
    pub fn len(&self) -> usize {
        match self {
            ZInput::ZSet(z) => z.len(),
            ZInput::Set(s) => s.len(),
        }
    }

    /// True when empty.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The score of `member`, if present. **O(1).**
    pub fn score(&self, member: &[u8]) -> Option<f64> {
        match self {
            ZInput::ZSet(z) => z.score(member),
            ZInput::Set(s) => s.contains(member).then_some(1.0),
        }
    }

    /// Every `(member, score)` pair, in the input's own order (highest score first for a
    /// sorted set, as Redis's `zuiNext` walks them).
    pub fn iter(&self) -> Box<dyn Iterator<Item = (&'a [u8], f64)> + 'a> {
        match *self {
            ZInput::ZSet(z) => Box::new(z.iter_from_rank(z.len().saturating_sub(1), true, z.len())),
            ZInput::Set(s) => Box::new(s.iter().map(|m| (m, 1.0))),
        }
    }
}

/// What `SORT` reads from a value: lists and sorted sets have a native order that
/// `SORT … BY nosort` keeps; sets do not.
#[derive(Debug, Clone, Copy)]
pub enum SortSource<'a> {
    /// A sorted set: its native order is by score.
    ZSet(&'a ZSet),
    /// A list: its native order is head to tail.
    List(&'a ListValue),
    /// A set: no native order.
    Set(&'a SetValue),
}

impl SortSource<'_> {
    /// Number of elements.
    pub fn len(&self) -> usize {
        match self {
            SortSource::ZSet(z) => z.len(),
            SortSource::List(l) => l.len(),
            SortSource::Set(s) => s.len(),
        }
    }

    /// True when empty.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// True for a plain set (no native order: `SORT … STORE` without sorting sorts it
    /// alphabetically, as Redis does for replication safety).
    pub fn is_unordered_set(&self) -> bool {
        match self {
            SortSource::ZSet(_) | SortSource::List(_) => false,
            SortSource::Set(_) => true,
        }
    }

    /// `count` elements in native order starting at position `start` from the front, or
    /// from the back when `desc`. **O(log N + count)** for sorted sets.
    pub fn native_range(&self, start: usize, count: usize, desc: bool) -> Vec<Vec<u8>> {
        match self {
            SortSource::ZSet(z) => {
                if start >= z.len() {
                    return Vec::new();
                }
                let rank = if desc { z.len() - 1 - start } else { start };
                z.iter_from_rank(rank, desc, count)
                    .map(|(m, _)| m.to_vec())
                    .collect()
            }
            SortSource::List(l) => {
                let n = l.len() as i64;
                let (start, count) = (start as i64, count.min(l.len()) as i64);
                let idx: Vec<i64> = if desc {
                    (0..count)
                        .map(|i| n - 1 - start - i)
                        .take_while(|&i| i >= 0)
                        .collect()
                } else {
                    (0..count)
                        .map(|i| start + i)
                        .take_while(|&i| i < n)
                        .collect()
                };
                idx.into_iter()
                    .filter_map(|i| l.get(i).map(<[u8]>::to_vec))
                    .collect()
            }
            SortSource::Set(s) => s
                .iter()
                .skip(start)
                .take(count)
                .map(<[u8]>::to_vec)
                .collect(),
        }
    }

    /// Every element, in iteration order. **O(N).**
    pub fn all(&self) -> Vec<Vec<u8>> {
        match self {
            SortSource::ZSet(z) => z.iter().map(|(m, _)| m.to_vec()).collect(),
            SortSource::List(l) => l.iter().map(<[u8]>::to_vec).collect(),
            SortSource::Set(s) => s.iter().map(<[u8]>::to_vec).collect(),
        }
    }
}
