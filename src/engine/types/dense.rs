//! A hash map from member bytes to a value, whose entries sit in a dense vector.
//!
//! # Why
//! Sets and sorted sets need what `IndexMap` gives: O(1) lookup, insert and delete, and a
//! dense vector of entries, so that a uniformly random member is one random position
//! (`SRANDMEMBER`, `SPOP`, `ZRANDMEMBER`) and `SSCAN`/`ZSCAN` have stable positions. But an
//! `IndexMap` probe at a million members makes three dependent reads from main memory:
//! the table's control bytes, then the slot holding the entry's position (elsewhere in
//! the same allocation), then the entry. [`DenseMap`] keeps the hash and the position in
//! one 8-byte slot, so a probe reads the slot array once and then the entry: two misses.
//! Members are [`SmallBytes`], so a short member's bytes are in the entry itself. The
//! entries do not store the hash (the slot has it), which saves 8 bytes per member.
//!
//! # Representation
//! * `entries`: the `(member, value)` pairs, positions `0..len`.
//! * `slots`: an open-addressing table of `2^k` slots with linear probing. A slot is `0`
//!   (empty) or `tag << 32 | (position + 1)`, where `tag` is the high 32 bits of the
//!   member's 64-bit hash. A member's *home* slot is `tag & (slots.len() - 1)`, so the
//!   table grows without rehashing a member (up to 2^32 slots, far beyond any memory).
//!   Deletion shifts later slots of the run back (no tombstones).
//!
//! # Invariants
//! 1. `slots.len()` is 0 or a power of two, and at most three quarters of it are used
//!    (so every probe meets an empty slot); `slots` is empty only when `entries` is.
//! 2. Each entry has exactly one slot, holding its tag and position; no other slot is used.
//! 3. A used slot is reachable from its home without crossing an empty slot.
//! 4. Members are unique.
//!
//! [`DenseMap::check`] verifies them; the property tests of sets and sorted sets call it
//! through their own checks.
//!
//! # Costs
//! Lookup, insert, `swap_remove`: expected O(1) (the probe sequence is short at three
//! quarters full or less; growth doubles, amortized O(1)). `shift_insert`/`shift_remove`
//! renumber every slot after the position, O(n): only for intsets (n ≤ 512, as Redis's
//! intset `memmove`).

use std::fmt;
use std::hash::BuildHasher;

use super::small::SmallBytes;

type Hasher = foldhash::fast::RandomState;

/// A map from member bytes to `V`, with entries in a dense vector. See the module
/// documentation.
#[derive(Clone)]
pub struct DenseMap<V> {
    entries: Vec<(SmallBytes, V)>,
    slots: Vec<u64>,
    hasher: Hasher,
}

impl<V> Default for DenseMap<V> {
    fn default() -> Self {
        DenseMap {
            entries: Vec::new(),
            slots: Vec::new(),
            hasher: Hasher::default(),
        }
    }
}

impl<V: fmt::Debug> fmt::Debug for DenseMap<V> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_map()
            .entries(self.entries.iter().map(|(m, v)| (m, v)))
            .finish()
    }
}

impl<V: PartialEq> PartialEq for DenseMap<V> {
    /// Equal when they map the same members to equal values, in any order.
    fn eq(&self, other: &DenseMap<V>) -> bool {
        self.len() == other.len()
            && self
                .entries
                .iter()
                .all(|(m, v)| other.get(m).is_some_and(|w| w == v))
    }
}

fn slot(tag: u32, pos: usize) -> u64 {
    u64::from(tag) << 32 | (pos as u64 + 1)
}

fn slot_tag(s: u64) -> u32 {
    (s >> 32) as u32
}

/// The position a used slot points at.
fn slot_pos(s: u64) -> usize {
    ((s & 0xffff_ffff) as usize).wrapping_sub(1)
}

impl<V> DenseMap<V> {
    /// An empty map. **O(1).**
    pub fn new() -> DenseMap<V> {
        DenseMap::default()
    }

    /// Number of entries. **O(1).**
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// True when empty.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Entries the vector holds room for (the table grows with it).
    pub fn capacity(&self) -> usize {
        self.entries.capacity()
    }

    fn tag(&self, member: &[u8]) -> u32 {
        (self.hasher.hash_one(member) >> 32) as u32
    }

    fn mask(&self) -> usize {
        self.slots.len().wrapping_sub(1)
    }

    /// The slot index and entry position of `member`, if present.
    fn find(&self, member: &[u8]) -> Option<(usize, usize)> {
        if self.slots.is_empty() {
            return None;
        }
        let tag = self.tag(member);
        let mask = self.mask();
        let mut i = tag as usize & mask;
        loop {
            let s = *self.slots.get(i)?;
            if s == 0 {
                return None;
            }
            if slot_tag(s) == tag {
                let pos = slot_pos(s);
                if self.entries.get(pos).is_some_and(|(m, _)| **m == *member) {
                    return Some((i, pos));
                }
            }
            i = (i + 1) & mask;
        }
    }

    /// The slot index holding entry position `pos`, whose member has tag `tag`.
    fn slot_of(&self, tag: u32, pos: usize) -> Option<usize> {
        let mask = self.mask();
        let mut i = tag as usize & mask;
        let want = slot(tag, pos);
        loop {
            match *self.slots.get(i)? {
                0 => return None,
                s if s == want => return Some(i),
                _ => i = (i + 1) & mask,
            }
        }
    }

    /// Empties slot `i`, moving later slots of its run back so every slot stays reachable.
    fn clear_slot(&mut self, mut i: usize) {
        let mask = self.mask();
        let mut j = i;
        loop {
            j = (j + 1) & mask;
            let s = self.slots.get(j).copied().unwrap_or(0);
            if s == 0 {
                break;
            }
            let home = slot_tag(s) as usize & mask;
            // The slot at j may move to i when i lies on its probe path (home..=j).
            if (j.wrapping_sub(home) & mask) >= (j.wrapping_sub(i) & mask) {
                if let Some(hole) = self.slots.get_mut(i) {
                    *hole = s;
                }
                i = j;
            }
        }
        if let Some(hole) = self.slots.get_mut(i) {
            *hole = 0;
        }
    }

    /// Puts a slot at the first empty place from its home (the table has room).
    fn place(slots: &mut [u64], s: u64) {
        let mask = slots.len().wrapping_sub(1);
        let mut i = slot_tag(s) as usize & mask;
        while let Some(cur) = slots.get_mut(i) {
            if *cur == 0 {
                *cur = s;
                return;
            }
            i = (i + 1) & mask;
        }
    }

    /// Rebuilds the table with `n` slots (a power of two, room for every entry), from the
    /// tags the slots hold: no member is rehashed.
    fn resize(&mut self, n: usize) {
        let mut slots = vec![0u64; n];
        for &s in self.slots.iter().filter(|&&s| s != 0) {
            Self::place(&mut slots, s);
        }
        self.slots = slots;
    }

    /// Slots needed for `len` entries at most three quarters full.
    fn slots_for(len: usize) -> usize {
        if len == 0 {
            0
        } else {
            (len.saturating_mul(4) / 3 + 1).next_power_of_two().max(8)
        }
    }

    /// The value of `member`. **O(1).**
    pub fn get(&self, member: &[u8]) -> Option<&V> {
        self.find(member)
            .and_then(|(_, pos)| self.entries.get(pos))
            .map(|(_, v)| v)
    }

    /// The stored member and its value. **O(1).**
    pub fn get_key_value(&self, member: &[u8]) -> Option<(&SmallBytes, &V)> {
        self.find(member)
            .and_then(|(_, pos)| self.entries.get(pos))
            .map(|(m, v)| (m, v))
    }

    /// The value of `member`, to change. **O(1).**
    pub fn get_mut(&mut self, member: &[u8]) -> Option<&mut V> {
        let (_, pos) = self.find(member)?;
        self.entries.get_mut(pos).map(|(_, v)| v)
    }

    /// True if `member` is present. **O(1).**
    pub fn contains(&self, member: &[u8]) -> bool {
        self.find(member).is_some()
    }

    /// Adds `member` with `value` at the end; if present, leaves it and returns false.
    /// **O(1)** amortized.
    pub fn insert(&mut self, member: SmallBytes, value: V) -> bool {
        if self.contains(&member) {
            return false;
        }
        let len = self.entries.len();
        self.insert_at(len, member, value);
        true
    }

    /// Inserts an absent member at position `at`, renumbering the later ones (O(n) unless
    /// `at` is the end).
    fn insert_at(&mut self, at: usize, member: SmallBytes, value: V) {
        let len = self.entries.len();
        if (len + 1).saturating_mul(4) > self.slots.len().saturating_mul(3) {
            self.resize(Self::slots_for(len + 1).max(self.slots.len() * 2));
        }
        if at < len {
            for s in self.slots.iter_mut().filter(|s| **s != 0) {
                if slot_pos(*s) >= at {
                    *s += 1;
                }
            }
        }
        let tag = self.tag(&member);
        Self::place(&mut self.slots, slot(tag, at));
        self.entries.insert(at, (member, value));
    }

    /// Inserts an absent `member` at position `at` (clamped), moving later entries up.
    /// **O(n)**: for intsets only.
    pub fn shift_insert(&mut self, at: usize, member: SmallBytes, value: V) {
        if self.contains(&member) {
            return;
        }
        let at = at.min(self.entries.len());
        self.insert_at(at, member, value);
    }

    /// Removes the entry at `pos`, moving the last entry into its place. **O(1).**
    pub fn swap_remove_index(&mut self, pos: usize) -> Option<(SmallBytes, V)> {
        let tag = self.tag(&self.entries.get(pos)?.0);
        let i = self.slot_of(tag, pos)?;
        self.clear_slot(i);
        let last = self.entries.len() - 1;
        if pos != last {
            let moved = self.entries.get(last).map(|(m, _)| self.tag(m));
            if let Some(j) = moved.and_then(|t| self.slot_of(t, last)) {
                if let (Some(s), Some(t)) = (self.slots.get_mut(j), moved) {
                    *s = slot(t, pos);
                }
            }
        }
        Some(self.entries.swap_remove(pos))
    }

    /// Removes `member`, moving the last entry into its place. **O(1).**
    pub fn swap_remove(&mut self, member: &[u8]) -> Option<V> {
        let (_, pos) = self.find(member)?;
        self.swap_remove_index(pos).map(|(_, v)| v)
    }

    /// Removes the entry at `pos`, moving later entries down. **O(n)**: for intsets only.
    pub fn shift_remove_index(&mut self, pos: usize) -> Option<(SmallBytes, V)> {
        let tag = self.tag(&self.entries.get(pos)?.0);
        let i = self.slot_of(tag, pos)?;
        self.clear_slot(i);
        for s in self.slots.iter_mut().filter(|s| **s != 0) {
            if slot_pos(*s) > pos {
                *s -= 1;
            }
        }
        Some(self.entries.remove(pos))
    }

    /// Removes `member`, moving later entries down. **O(n)**: for intsets only.
    pub fn shift_remove(&mut self, member: &[u8]) -> Option<V> {
        let (_, pos) = self.find(member)?;
        self.shift_remove_index(pos).map(|(_, v)| v)
    }

    /// The entry at position `pos`. **O(1).**
    pub fn get_index(&self, pos: usize) -> Option<(&SmallBytes, &V)> {
        self.entries.get(pos).map(|(m, v)| (m, v))
    }

    /// Entries in position order.
    pub fn iter(&self) -> std::slice::Iter<'_, (SmallBytes, V)> {
        self.entries.iter()
    }

    /// Members in position order.
    pub fn keys(&self) -> impl ExactSizeIterator<Item = &SmallBytes> + Clone {
        self.entries.iter().map(|(m, _)| m)
    }

    /// Values in position order, to change.
    pub fn values_mut(&mut self) -> impl Iterator<Item = &mut V> {
        self.entries.iter_mut().map(|(_, v)| v)
    }

    /// The first position whose entry fails `pred`, which holds for a prefix. **O(log n).**
    pub fn partition_point(&self, mut pred: impl FnMut(&SmallBytes) -> bool) -> usize {
        self.entries.partition_point(|(m, _)| pred(m))
    }

    /// Gives back the memory not needed for the current entries. **O(n).**
    pub fn shrink_to_fit(&mut self) {
        self.entries.shrink_to_fit();
        let n = Self::slots_for(self.entries.len());
        if n < self.slots.len() {
            self.resize(n);
        }
    }

    /// Checks the invariants in the module documentation. **O(n).** For tests.
    pub fn check(&self) -> Result<(), String> {
        let n = self.slots.len();
        if n != 0 && !n.is_power_of_two() || (n == 0 && !self.entries.is_empty()) {
            return Err(format!("{n} slots"));
        }
        if self.entries.len().saturating_mul(4) > n.saturating_mul(3) {
            return Err("table over three quarters full".into());
        }
        let used = self.slots.iter().filter(|&&s| s != 0).count();
        if used != self.entries.len() {
            return Err(format!("{used} slots for {} entries", self.entries.len()));
        }
        for (pos, (m, _)) in self.entries.iter().enumerate() {
            let tag = self.tag(m);
            if self.slot_of(tag, pos).is_none() {
                return Err(format!("entry {pos} unreachable"));
            }
            if self.find(m).map(|(_, p)| p) != Some(pos) {
                return Err(format!("entry {pos} found elsewhere (duplicate member)"));
            }
        }
        Ok(())
    }
}

impl<V> IntoIterator for DenseMap<V> {
    type Item = (SmallBytes, V);
    type IntoIter = std::vec::IntoIter<(SmallBytes, V)>;

    /// The entries in position order, by value.
    fn into_iter(self) -> Self::IntoIter {
        self.entries.into_iter()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matches_a_model_through_growth_and_removal() {
        let mut rng = fastrand::Rng::with_seed(11);
        let mut m: DenseMap<u32> = DenseMap::new();
        let mut model: Vec<(Vec<u8>, u32)> = Vec::new();
        for step in 0..20_000u32 {
            let key = format!("k{}", rng.u32(..3000)).into_bytes();
            let at = model.iter().position(|(k, _)| *k == key);
            match rng.u8(..10) {
                0..=5 => {
                    let added = m.insert(SmallBytes::from(&key[..]), step);
                    assert_eq!(added, at.is_none());
                    if at.is_none() {
                        model.push((key, step));
                    }
                }
                6..=8 => {
                    let got = m.swap_remove(&key);
                    assert_eq!(got, at.map(|i| model.swap_remove(i).1));
                }
                _ => {
                    if !model.is_empty() {
                        let i = rng.usize(..model.len());
                        let got = m.swap_remove_index(i).map(|(k, v)| (k.to_vec(), v));
                        assert_eq!(got, Some(model.swap_remove(i)));
                    }
                }
            }
            if step % 500 == 0 {
                m.check().unwrap();
                m.shrink_to_fit();
                m.check().unwrap();
            }
            let got: Vec<(Vec<u8>, u32)> = m.iter().map(|(k, v)| (k.to_vec(), *v)).collect();
            if step % 97 == 0 {
                assert_eq!(got, model);
            }
        }
        m.check().unwrap();
    }

    #[test]
    fn shifting_keeps_positions() {
        let mut m: DenseMap<()> = DenseMap::new();
        for i in [5u8, 1, 9, 3] {
            let at = m.partition_point(|k| k[0] < i);
            m.shift_insert(at, SmallBytes::from(&[i][..]), ());
            m.check().unwrap();
        }
        let order: Vec<u8> = m.keys().map(|k| k[0]).collect();
        assert_eq!(order, [1, 3, 5, 9]);
        assert_eq!(m.shift_remove(&[3]), Some(()));
        m.check().unwrap();
        assert_eq!(m.shift_remove_index(0).map(|(k, _)| k[0]), Some(1));
        m.check().unwrap();
        let order: Vec<u8> = m.keys().map(|k| k[0]).collect();
        assert_eq!(order, [5, 9]);
        assert!(m.contains(&[9]) && !m.contains(&[1]));
    }
}
