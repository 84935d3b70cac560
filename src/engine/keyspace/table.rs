//! The table a database keeps its keys in: an insertion-ordered hash map whose entries
//! live in fixed-size segments.
//!
//! # Why not `IndexMap`
//! An [`indexmap::IndexMap`] keeps its entries in one `Vec` that it grows to the capacity of
//! its hash index, doubling. In the browser that is what a tab pays for: a wasm memory only
//! grows, dlmalloc keeps what it frees, and a doubling `Vec` is copied to a new block while
//! the old one still exists. A million `key:N` strings made the tab's memory grow by 235
//! bytes a key (`node bench/memory.mjs`) — the entry array at twice the keys, plus the
//! array it was copied from — while the entries themselves take 56. Natively only touched
//! pages are resident, so the slack hardly shows there.
//!
//! Here the entries are in segments of [`SEGMENT`] (the first grows as a `Vec` does, up to
//! that size; the others are allocated whole), so growing never copies an entry and never
//! holds more than one segment of room. Only the hash index — one `usize` and a control
//! byte per bucket, hashbrown's [`HashTable`] — doubles. The hash of an entry is not
//! stored (indexmap stores it): it is computed again from the key when the index grows
//! and when an entry moves, which keeps an entry at 56 bytes instead of 64.
//!
//! # Invariants
//! * Positions `0..len` are the entries in order: position `i` is element `i % SEGMENT` of
//!   segment `i / SEGMENT`; every segment before the last holding entries is full.
//! * At most one segment past the entries is kept, empty, so that a database going back
//!   and forth across a segment's edge does not allocate each time.
//! * The index holds exactly the positions `0..len`, each under the hash of its key.
//! * No two entries have equal keys. Lookups confirm the key's bytes, never the hash alone.
//!
//! Removal is `swap_remove`, as `IndexMap`'s: the last entry moves into the hole, which is
//! what the database's SCAN guarantee is built on (see the module docs of the keyspace).

use std::fmt;
use std::hash::BuildHasher;

use hashbrown::hash_table::Entry as Slot;
use hashbrown::HashTable;

use crate::engine::types::small::KeyBytes;

/// log2 of [`SEGMENT`]. Smaller in unit tests, so that small tables cross many edges.
const SHIFT: u32 = if cfg!(test) { 3 } else { 10 };

/// Entries per segment: 1,024 (56 KB of `(KeyBytes, Entry)`).
pub const SEGMENT: usize = 1 << SHIFT;

const MASK: usize = SEGMENT - 1;

type Hasher = foldhash::fast::RandomState;

/// An insertion-ordered map from keys to `V` (see the module docs).
pub struct KeyTable<V> {
    index: HashTable<usize>,
    segments: Vec<Vec<(KeyBytes, V)>>,
    len: usize,
    hasher: Hasher,
}

impl<V> Default for KeyTable<V> {
    fn default() -> Self {
        KeyTable {
            index: HashTable::new(),
            segments: Vec::new(),
            len: 0,
            hasher: Hasher::default(),
        }
    }
}

impl<V: Clone> Clone for KeyTable<V> {
    fn clone(&self) -> Self {
        KeyTable {
            index: self.index.clone(),
            segments: self
                .segments
                .iter()
                .enumerate()
                .map(|(i, s)| {
                    // Room for a whole segment past the first, as `push` expects.
                    let mut c = Vec::with_capacity(if i == 0 { s.len() } else { SEGMENT });
                    c.extend(s.iter().cloned());
                    c
                })
                .collect(),
            len: self.len,
            hasher: self.hasher.clone(),
        }
    }
}

impl<V: fmt::Debug> fmt::Debug for KeyTable<V> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_map().entries(self.iter()).finish()
    }
}

impl<V> KeyTable<V> {
    /// Number of entries.
    #[inline]
    pub fn len(&self) -> usize {
        self.len
    }

    /// True when there are no entries.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    #[inline]
    fn hash(&self, key: &[u8]) -> u64 {
        self.hasher.hash_one(key)
    }

    /// The position of `key`. **O(1).**
    #[inline]
    pub fn get_index_of(&self, key: &[u8]) -> Option<usize> {
        self.find(self.hash(key), key)
    }

    #[inline]
    fn find(&self, hash: u64, key: &[u8]) -> Option<usize> {
        let segments = &self.segments;
        self.index
            .find(hash, |&i| {
                segments[i >> SHIFT][i & MASK].0.as_bytes() == key
            })
            .copied()
    }

    /// True if `key` has an entry. **O(1).**
    #[inline]
    pub fn contains_key(&self, key: &[u8]) -> bool {
        self.get_index_of(key).is_some()
    }

    /// The value of `key`. **O(1).**
    #[inline]
    pub fn get(&self, key: &[u8]) -> Option<&V> {
        let i = self.get_index_of(key)?;
        self.get_index(i).map(|(_, v)| v)
    }

    /// The stored key and the value of `key`, mutably. **O(1).**
    #[inline]
    pub fn get_key_mut(&mut self, key: &[u8]) -> Option<(&KeyBytes, &mut V)> {
        let i = self.get_index_of(key)?;
        self.get_index_mut(i)
    }

    /// The entry at position `i`. **O(1).**
    #[inline]
    pub fn get_index(&self, i: usize) -> Option<(&KeyBytes, &V)> {
        let (k, v) = self.segments.get(i >> SHIFT)?.get(i & MASK)?;
        Some((k, v))
    }

    /// The entry at position `i`, its value mutably. **O(1).**
    #[inline]
    pub fn get_index_mut(&mut self, i: usize) -> Option<(&KeyBytes, &mut V)> {
        let (k, v) = self.segments.get_mut(i >> SHIFT)?.get_mut(i & MASK)?;
        Some((&*k, v))
    }

    /// Inserts `key` → `value`: a new key goes last, an existing one keeps its position
    /// and gets the new value (the old one is returned). **O(1)** amortized: the index
    /// doubles now and then, the entries never move.
    pub fn insert(&mut self, key: KeyBytes, value: V) -> Option<V> {
        let hash = self.hash(key.as_bytes());
        let (segments, hasher) = (&self.segments, &self.hasher);
        let slot = self.index.entry(
            hash,
            |&i| segments[i >> SHIFT][i & MASK].0.as_bytes() == key.as_bytes(),
            |&i| hasher.hash_one(segments[i >> SHIFT][i & MASK].0.as_bytes()),
        );
        match slot {
            Slot::Occupied(o) => {
                let i = *o.get();
                let (_, old) = &mut self.segments[i >> SHIFT][i & MASK];
                Some(std::mem::replace(old, value))
            }
            Slot::Vacant(v) => {
                let i = self.len;
                v.insert(i);
                let s = i >> SHIFT;
                if s == self.segments.len() {
                    // The first segment grows as a Vec does (a small database stays small);
                    // the rest are allocated whole and never reallocated.
                    let room = if s == 0 { 0 } else { SEGMENT };
                    self.segments.push(Vec::with_capacity(room));
                }
                self.segments[s].push((key, value));
                self.len += 1;
                None
            }
        }
    }

    /// Removes `key`, moving the last entry into its position. **O(1).**
    pub fn swap_remove(&mut self, key: &[u8]) -> Option<V> {
        let i = self.get_index_of(key)?;
        self.swap_remove_index(i).map(|(_, v)| v)
    }

    /// Removes the entry at position `i`, moving the last entry into its position.
    /// **O(1).**
    pub fn swap_remove_index(&mut self, i: usize) -> Option<(KeyBytes, V)> {
        if i >= self.len {
            return None;
        }
        let (key, _) = &self.segments[i >> SHIFT][i & MASK];
        let hash = self.hash(key.as_bytes());
        // Positions are unique in the index: the slot holding `i` is the entry's own.
        if let Ok(slot) = self.index.find_entry(hash, |&j| j == i) {
            slot.remove();
        }
        let last = self.len - 1;
        if i != last {
            let (moved, _) = &self.segments[last >> SHIFT][last & MASK];
            let hash = self.hash(moved.as_bytes());
            if let Some(slot) = self.index.find_mut(hash, |&j| j == last) {
                *slot = i;
            }
        }
        let s = last >> SHIFT;
        let tail = self.segments[s].pop()?;
        let removed = if i == last {
            tail
        } else {
            std::mem::replace(&mut self.segments[i >> SHIFT][i & MASK], tail)
        };
        self.len = last;
        if self.segments[s].is_empty() {
            // This one is now the spare past the entries; the spare after it goes.
            self.segments.truncate(s + 1);
        }
        Some(removed)
    }

    /// Removes every entry and gives back the memory.
    pub fn clear(&mut self) {
        self.index = HashTable::new();
        self.segments = Vec::new();
        self.len = 0;
    }

    /// The entries in position order.
    pub fn iter(&self) -> impl DoubleEndedIterator<Item = (&KeyBytes, &V)> + '_ {
        self.segments.iter().flatten().map(|(k, v)| (k, v))
    }

    /// The keys in position order.
    pub fn keys(&self) -> impl Iterator<Item = &KeyBytes> + '_ {
        self.segments.iter().flatten().map(|(k, _)| k)
    }

    /// The values in position order, mutably.
    pub fn values_mut(&mut self) -> impl Iterator<Item = &mut V> + '_ {
        self.segments.iter_mut().flatten().map(|(_, v)| v)
    }

    /// Bytes this table has taken from the allocator for itself (the entries' own heap
    /// blocks aside): the index and the segments' room.
    pub fn allocation_size(&self) -> usize {
        let entry = std::mem::size_of::<(KeyBytes, V)>();
        self.index.allocation_size()
            + self.segments.capacity() * std::mem::size_of::<Vec<(KeyBytes, V)>>()
            + self
                .segments
                .iter()
                .map(|s| s.capacity() * entry)
                .sum::<usize>()
    }

    /// Checks the invariants of the module docs. **O(N).** For tests.
    pub fn check(&self) -> Result<(), String> {
        let full = self.len.div_ceil(SEGMENT);
        if self.segments.len() < full || self.segments.len() > full + 1 {
            return Err(format!(
                "{} segments for {} entries",
                self.segments.len(),
                self.len
            ));
        }
        for (s, seg) in self.segments.iter().enumerate() {
            let want = self.len.saturating_sub(s * SEGMENT).min(SEGMENT);
            if seg.len() != want {
                return Err(format!("segment {s} holds {}, not {want}", seg.len()));
            }
            if s > 0 && seg.capacity() < SEGMENT {
                return Err(format!("segment {s} has room for only {}", seg.capacity()));
            }
        }
        if self.index.len() != self.len {
            return Err(format!(
                "{} indexed, {} entries",
                self.index.len(),
                self.len
            ));
        }
        for (i, (k, _)) in self.iter().enumerate() {
            if self.get_index_of(k.as_bytes()) != Some(i) {
                return Err(format!("the key at {i} is not found at its position"));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(n: u32) -> KeyBytes {
        // Both forms: inline and, past 14 bytes, behind a pointer.
        if n % 3 == 0 {
            KeyBytes::from(format!("a-rather-long-key:{n}").as_bytes())
        } else {
            KeyBytes::from(format!("k:{n}").as_bytes())
        }
    }

    #[test]
    fn segments_are_small_in_unit_tests() {
        // The tests below cross many segment edges only because of this.
        assert_eq!(SEGMENT, 8);
    }

    #[test]
    fn growing_allocates_only_segments_and_keeps_one_spare() {
        let mut t = KeyTable::default();
        for n in 0..100 {
            t.insert(key(n), n);
            t.check().unwrap();
        }
        assert_eq!(t.segments.len(), 13); // 12 full and one of 4
        for n in (0..100).rev() {
            assert_eq!(t.swap_remove(key(n).as_bytes()), Some(n));
            t.check().unwrap();
        }
        // The first segment stays, empty, as the spare (a Vec keeps its room too).
        assert_eq!(t.segments.len(), 1);
        t.clear();
        assert_eq!(t.allocation_size(), 0);
    }

    #[test]
    fn a_replaced_value_keeps_its_position() {
        let mut t = KeyTable::default();
        for n in 0..20 {
            assert_eq!(t.insert(key(n), n), None);
        }
        assert_eq!(t.insert(key(5), 500), Some(5));
        assert_eq!(t.get_index(5), Some((&key(5), &500)));
        assert_eq!(t.len(), 20);
    }

    #[cfg(not(target_arch = "wasm32"))]
    mod model {
        use super::*;
        use indexmap::IndexMap;
        use proptest::prelude::*;

        #[derive(Debug, Clone)]
        enum Op {
            Insert(u32, u32),
            Remove(u32),
            RemoveAt(usize),
            /// Removes the first entry this many times: a table shrinking by whole segments.
            Drain(usize),
            Clear,
        }

        fn op() -> impl Strategy<Value = Op> {
            prop_oneof![
                // Clearing rarely, so that the table grows to many segments and shrinks back.
                30 => (0..200u32, any::<u32>()).prop_map(|(k, v)| Op::Insert(k, v)),
                15 => (0..200u32).prop_map(Op::Remove),
                10 => (0..300usize).prop_map(Op::RemoveAt),
                1 => (0..60usize).prop_map(Op::Drain),
                1 => Just(Op::Clear),
            ]
        }

        proptest! {
            #![proptest_config(ProptestConfig { cases: 200, failure_persistence: None, ..ProptestConfig::default() })]

            /// Every operation gives what `IndexMap` gives, position for position.
            #[test]
            fn the_table_agrees_with_an_index_map(ops in proptest::collection::vec(op(), 1..600)) {
                let mut t = KeyTable::default();
                let mut m: IndexMap<Vec<u8>, u32> = IndexMap::new();
                for op in ops {
                    match op {
                        Op::Insert(k, v) => {
                            let kb = key(k);
                            prop_assert_eq!(t.insert(kb.clone(), v), m.insert(kb.to_vec(), v));
                        }
                        Op::Remove(k) => {
                            let kb = key(k);
                            prop_assert_eq!(t.swap_remove(kb.as_bytes()), m.swap_remove(kb.as_bytes()));
                        }
                        Op::RemoveAt(i) => {
                            let got = t.swap_remove_index(i).map(|(k, v)| (k.to_vec(), v));
                            prop_assert_eq!(got, m.swap_remove_index(i));
                        }
                        Op::Drain(n) => {
                            for _ in 0..n {
                                let got = t.swap_remove_index(0).map(|(k, v)| (k.to_vec(), v));
                                prop_assert_eq!(got, m.swap_remove_index(0));
                            }
                        }
                        Op::Clear => {
                            t.clear();
                            m.clear();
                        }
                    }
                    prop_assert_eq!(t.check(), Ok(()));
                    prop_assert_eq!(t.len(), m.len());
                    let got: Vec<(Vec<u8>, u32)> = t.iter().map(|(k, v)| (k.to_vec(), *v)).collect();
                    let want: Vec<(Vec<u8>, u32)> = m.iter().map(|(k, v)| (k.clone(), *v)).collect();
                    prop_assert_eq!(got, want);
                }
                for k in 0..200 {
                    let kb = key(k);
                    prop_assert_eq!(t.get(kb.as_bytes()), m.get(kb.as_bytes()));
                    prop_assert_eq!(t.get_index_of(kb.as_bytes()), m.get_index_of(kb.as_bytes()));
                }
            }
        }
    }
}
