//! A sorted set's member → score dictionary, built for one cache miss per lookup.
//!
//! # Why not `IndexMap`
//! A large sorted set needs, besides its ordered tree, a dictionary that finds a member's
//! score in O(1), picks a uniformly random member in O(1) (`ZRANDMEMBER`) and gives its
//! members stable positions `0..len` for `ZSCAN` (see [`crate::engine::scan`]).
//! `indexmap::IndexMap` does all three and was used here first. At a million members,
//! though, a lookup in it is three dependent reads from main memory: the hash table's
//! control bytes, then the index slot they point to, then the entry holding the member and
//! its score. `perf` put a quarter of a million-member `ZADD` in that lookup, and `ZRANK`,
//! `ZSCORE` and `ZINCRBY` each start with it (`cargo bench --bench zset` times them at
//! 1k and 1M members).
//!
//! # Representation
//! * `entries`: the members in position order. Removing a member moves the last one into
//!   its place (as `IndexMap::swap_remove` does), so positions stay `0..len`. A member's
//!   hash is not stored beside it: the two places that need it for an entry (finding the
//!   slot of the entry that moved, and of a random or scanned position) hash the member
//!   again, which costs less than 8 more bytes a member.
//! * `slots`: an open-addressing table (linear probing, power-of-two size) of 16-byte
//!   slots `(hash bits, position, score)`. A member's *home* slot is its hash bits masked
//!   by the table size; it sits in the first free slot from there on.
//!
//! The score lives in the slot, not in the entry, so a lookup reads one slot (usually in
//! the line where the probe starts), takes the score from it, and confirms the member by
//! comparing the entry's bytes. That comparison does not feed the score, so the CPU goes
//! on with the caller's next step (the tree descent of `ZRANK`, `ZADD`) while the entry is
//! on its way: about one round trip to memory on the critical path instead of three.
//!
//! Measured with `cargo bench --bench zset`, two runs of each build alternating on the
//! same machine (a dependent random read costing 151–159 ns), at N = 1,000,000, IndexMap
//! → this table: `ZSCORE` 936/929 → 787/778 ns, `ZRANK` 1286/1393 → 1202/1164 ns,
//! `ZINCRBY` 1480/1550 → 1319/1284 ns, `ZADD` moving a member to a random score
//! 2115/2122 → 1978/1964 ns; at N = 1,000 all within noise. Memory per member went from
//! 128.9 to 135.5 bytes with a hash stored in each entry, and to 127.7 once the entries
//! held the member alone (16-byte slots at most 3/4 full, against `IndexMap`'s 8-byte
//! indices, control bytes and 40-byte entries).
//!
//! # Invariants
//! 1. `slots` is empty or has a power-of-two length; fewer than 3/4 of its slots are used,
//!    so every probe meets a free slot.
//! 2. Used slots and entries correspond one to one: a used slot `(h, p, s)` has
//!    `p < entries.len()` and `h` is the low 32 bits of `entries[p]`'s hash, and no two
//!    used slots share a `p`.
//! 3. A used slot is reachable from its home: no free slot lies between its home and it
//!    (cyclically). Removal keeps this by shifting later slots back, so there are no
//!    tombstones.
//! 4. No two entries hold the same member bytes.
//!
//! [`ZDict::check`] verifies them. The sorted-set property tests call it after every step
//! (through `ZSet::check_invariants`), and a model test here checks it along the way.
//!
//! Positions are `u32`: a set holds fewer than 2^32 − 1 members (at about 130 bytes a
//! member, that is over half a terabyte).
//!
//! # Changing it
//! A performance change to this structure lands only with the scale tests passing in
//! release mode: `cargo test --release --test scale --test scale_diff` (here
//! `zset_large_against_a_model` and its redis-server twin), which take it to a million live
//! elements against a plain model and against a real Redis (issue 18). A fast path that
//! trusts a hash, a tag, a probed slot or a cached position confirms the bytes before it
//! changes data or a reply.

use std::hash::BuildHasher;

use super::small::SmallBytes;

type Hasher = foldhash::fast::RandomState;

/// A free slot's position.
const FREE: u32 = u32::MAX;
/// Smallest table.
const MIN_SLOTS: usize = 16;

#[derive(Debug, Clone, Copy)]
struct Slot {
    hash: u32,
    pos: u32,
    score: f64,
}

impl Slot {
    const EMPTY: Slot = Slot {
        hash: 0,
        pos: FREE,
        score: 0.0,
    };

    fn is_free(&self) -> bool {
        self.pos == FREE
    }
}

/// Member → score with O(1) lookups, O(1) access by position and removal that moves the
/// last member into the hole. See the module documentation.
#[derive(Clone, Default)]
pub struct ZDict {
    slots: Vec<Slot>,
    entries: Vec<SmallBytes>,
    hasher: Hasher,
}

impl ZDict {
    /// An empty dictionary (allocates nothing).
    pub fn new() -> ZDict {
        ZDict::default()
    }

    /// Number of members.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// True when there are no members.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Number of slots in the table (for memory accounting and tests).
    pub fn capacity(&self) -> usize {
        self.slots.len()
    }

    fn hash(&self, member: &[u8]) -> u32 {
        // The low bits choose the home slot; all 32 are compared before the bytes are.
        self.hasher.hash_one(member) as u32
    }

    /// The hash bits a slot keeps for `member` (for tests that need two members whose
    /// slots cannot tell them apart).
    #[cfg(test)]
    pub(crate) fn hash_bits(&self, member: &[u8]) -> u32 {
        self.hash(member)
    }

    fn mask(&self) -> usize {
        self.slots.len().wrapping_sub(1)
    }

    /// The slot holding `member`, if present.
    fn find(&self, member: &[u8], hash: u32) -> Option<usize> {
        if self.slots.is_empty() {
            return None;
        }
        let mask = self.mask();
        let mut i = hash as usize & mask;
        loop {
            let s = self.slots[i];
            if s.is_free() {
                return None;
            }
            if s.hash == hash && self.entries[s.pos as usize].as_bytes() == member {
                return Some(i);
            }
            i = (i + 1) & mask;
        }
    }

    /// The slot whose position is `pos`, which must be used by an entry hashed `hash`.
    fn find_pos(&self, hash: u32, pos: u32) -> usize {
        let mask = self.mask();
        let mut i = hash as usize & mask;
        // Invariant 3: the slot is between its home and the next free slot.
        while self.slots[i].pos != pos && !self.slots[i].is_free() {
            i = (i + 1) & mask;
        }
        i
    }

    /// The score and position in the first slot, from `member`'s home on, whose hash bits
    /// are `member`'s, *before* that entry's bytes are compared; `None` when a free slot
    /// comes first (then `member` is absent). The entry is asked for but not waited for,
    /// so that a caller can start work that needs only the score (a tree descent) while
    /// that read comes from memory, and confirm the member afterwards, with
    /// [`ZDict::holds_at`] or by comparing the bytes of the element the descent reaches:
    /// in a large set, that takes the second of a lookup's two reads from main memory off
    /// the caller's path. Nothing may be decided on the score alone: two members share all
    /// 32 hash bits about a hundred times in a million, and the slot found first may be the
    /// other one's (issue 18). **O(1)** expected.
    pub fn probe(&self, member: &[u8]) -> Option<(f64, u32)> {
        if self.slots.is_empty() {
            return None;
        }
        let hash = self.hash(member);
        let mask = self.mask();
        let mut i = hash as usize & mask;
        loop {
            let s = *self.slots.get(i)?;
            if s.is_free() {
                return None;
            }
            if s.hash == hash {
                let entry = self.entries.get(s.pos as usize);
                std::hint::black_box(entry.map(|e| matches!(e, SmallBytes::Inline(..))));
                return Some((s.score, s.pos));
            }
            i = (i + 1) & mask;
        }
    }

    /// True when the entry at position `pos` is `member` (see [`ZDict::probe`]).
    pub fn holds_at(&self, pos: u32, member: &[u8]) -> bool {
        self.entries
            .get(pos as usize)
            .is_some_and(|e| e.as_bytes() == member)
    }

    /// The score of `member`. **O(1)** expected.
    pub fn get(&self, member: &[u8]) -> Option<f64> {
        let hash = self.hash(member);
        self.find(member, hash).map(|i| self.slots[i].score)
    }

    /// Sets the score of `member`, which must be present; returns false (changing nothing)
    /// if it is not. **O(1)** expected.
    pub fn set_score(&mut self, member: &[u8], score: f64) -> bool {
        let hash = self.hash(member);
        match self.find(member, hash) {
            Some(i) => {
                self.slots[i].score = score;
                true
            }
            None => false,
        }
    }

    /// Adds `member`, which the caller knows is absent, with `score`. **O(1)** amortized.
    pub fn insert_new(&mut self, member: SmallBytes, score: f64) {
        debug_assert!(self.get(member.as_bytes()).is_none());
        self.reserve(1);
        let hash = self.hash(member.as_bytes());
        // Positions fit in u32 (see the module documentation: 2^32 members would need over
        // half a terabyte); the guard keeps a position from ever reading as `FREE`.
        let pos = u32::try_from(self.entries.len()).map_or(FREE - 1, |p| p.min(FREE - 1));
        self.entries.push(member);
        self.place(Slot { hash, pos, score });
    }

    /// Puts a slot into the first free place from its home. The table has room.
    fn place(&mut self, slot: Slot) {
        let mask = self.mask();
        let mut i = slot.hash as usize & mask;
        while !self.slots[i].is_free() {
            i = (i + 1) & mask;
        }
        self.slots[i] = slot;
    }

    /// Makes room for `more` members without another resize.
    pub fn reserve(&mut self, more: usize) {
        let need = self.entries.len().saturating_add(more);
        if need.saturating_mul(4) >= self.slots.len().saturating_mul(3) {
            let mut size = self.slots.len().max(MIN_SLOTS);
            while need.saturating_mul(4) >= size.saturating_mul(3) {
                size = size.saturating_mul(2);
            }
            self.rebuild(size);
            self.entries.reserve(more);
        }
    }

    /// Moves every used slot into a fresh table of `size` slots (a power of two).
    fn rebuild(&mut self, size: usize) {
        let old = std::mem::replace(&mut self.slots, vec![Slot::EMPTY; size]);
        for s in old.into_iter().filter(|s| !s.is_free()) {
            self.place(s);
        }
    }

    /// Removes `member`, moving the last member into its position; returns its score.
    /// **O(1)** expected.
    pub fn swap_remove(&mut self, member: &[u8]) -> Option<f64> {
        let hash = self.hash(member);
        let i = self.find(member, hash)?;
        let Slot { pos, score, .. } = self.slots[i];
        self.free_slot(i);
        let last = self.entries.len() - 1;
        self.entries.swap_remove(pos as usize);
        if (pos as usize) != last {
            // The former last entry now sits at `pos`: its slot must say so.
            let moved = self.hash(self.entries[pos as usize].as_bytes());
            let j = self.find_pos(moved, last as u32);
            self.slots[j].pos = pos;
        }
        Some(score)
    }

    /// Frees slot `i`, shifting back the slots after it that would otherwise be cut off
    /// from their homes (invariant 3).
    fn free_slot(&mut self, mut i: usize) {
        let mask = self.mask();
        let mut j = i;
        loop {
            j = (j + 1) & mask;
            let s = self.slots[j];
            if s.is_free() {
                break;
            }
            let home = s.hash as usize & mask;
            // Slot j may move to i when its home is not cyclically within (i, j].
            let stays = if i <= j {
                i < home && home <= j
            } else {
                i < home || home <= j
            };
            if !stays {
                self.slots[i] = s;
                i = j;
            }
        }
        self.slots[i] = Slot::EMPTY;
    }

    /// Gives memory back when under an eighth full: amortized O(1) per removal.
    pub fn shrink_if_sparse(&mut self) {
        if self.slots.len() > 64 && self.entries.len().saturating_mul(8) < self.slots.len() {
            let mut size = MIN_SLOTS;
            while self.entries.len().saturating_mul(4) >= size.saturating_mul(3) {
                size *= 2;
            }
            self.rebuild(size);
            self.entries.shrink_to_fit();
        }
        if self.entries.is_empty() {
            self.slots = Vec::new();
        }
    }

    /// The member and score at position `pos` (`0..len`). **O(1)** expected.
    pub fn get_index(&self, pos: usize) -> Option<(&SmallBytes, f64)> {
        let m = self.entries.get(pos)?;
        let i = self.find_pos(self.hash(m.as_bytes()), pos as u32);
        Some((m, self.slots[i].score))
    }

    /// The stored member equal to `member` and its score.
    pub fn get_key_value(&self, member: &[u8]) -> Option<(&SmallBytes, f64)> {
        let hash = self.hash(member);
        let i = self.find(member, hash)?;
        let s = self.slots[i];
        Some((&self.entries[s.pos as usize], s.score))
    }

    /// The members in position order.
    pub fn keys(&self) -> impl Iterator<Item = &SmallBytes> {
        self.entries.iter()
    }

    /// Checks the invariants of the module documentation. **O(N).** For tests.
    pub fn check(&self) -> Result<(), String> {
        let n = self.slots.len();
        if n != 0 && !n.is_power_of_two() {
            return Err(format!("{n} slots"));
        }
        let used = self.slots.iter().filter(|s| !s.is_free()).count();
        if used != self.entries.len() || (n != 0 && used * 4 >= n * 3) || (n == 0 && used != 0) {
            return Err(format!(
                "{used} slots used of {n} for {} entries",
                self.len()
            ));
        }
        let mut seen = vec![false; self.entries.len()];
        for (i, s) in self.slots.iter().enumerate().filter(|(_, s)| !s.is_free()) {
            let p = s.pos as usize;
            let Some(e) = self.entries.get(p) else {
                return Err(format!("slot {i} points past the entries"));
            };
            if std::mem::replace(&mut seen[p], true) {
                return Err(format!("two slots point at {p}"));
            }
            let hash = self.hash(e.as_bytes());
            if hash != s.hash {
                return Err(format!("slot {i}: hash disagrees with entry {p}"));
            }
            let mut k = s.hash as usize & self.mask();
            while k != i {
                if self.slots[k].is_free() {
                    return Err(format!("slot {i} cut off from its home"));
                }
                k = (k + 1) & self.mask();
            }
            if self.find(e.as_bytes(), hash) != Some(i) {
                return Err(format!("entry {p} is stored twice"));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    /// Random operations against a `HashMap` and a `Vec` of positions as the model.
    #[test]
    fn agrees_with_a_model() {
        let mut rng = fastrand::Rng::with_seed(7);
        let (mut present, mut probed) = (0, 0);
        for round in 0..20 {
            let mut d = ZDict::new();
            let mut model: HashMap<Vec<u8>, f64> = HashMap::new();
            let mut order: Vec<Vec<u8>> = Vec::new();
            let universe = [10, 100, 3000][round % 3];
            for step in 0..4000 {
                let k = rng.usize(0..universe);
                let m = if k % 5 == 0 {
                    format!("a long member name that is stored out of line {k}")
                } else {
                    format!("m{k}")
                }
                .into_bytes();
                match rng.u8(0..10) {
                    0..=3 => {
                        let s = rng.f64();
                        if model.contains_key(&m) {
                            assert!(d.set_score(&m, s));
                        } else {
                            assert!(!d.set_score(&m, s));
                            d.insert_new(SmallBytes::from(&m[..]), s);
                            order.push(m.clone());
                        }
                        model.insert(m, s);
                    }
                    4..=6 => {
                        let got = d.swap_remove(&m);
                        assert_eq!(got, model.remove(&m));
                        if let Some(p) = order.iter().position(|o| *o == m) {
                            order.swap_remove(p);
                        }
                        d.shrink_if_sparse();
                    }
                    7 => {
                        let want = model.get(&m).copied();
                        assert_eq!(d.get(&m), want);
                        match d.probe(&m) {
                            // The slot is the member's own: its score.
                            Some((s, pos)) if d.holds_at(pos, &m) => {
                                assert_eq!(Some(s), want);
                                probed += 1;
                            }
                            // Another member's with the same hash bits: the member is
                            // absent, or its own slot comes later.
                            Some(_) => {}
                            None => assert_eq!(want, None),
                        }
                        present += usize::from(want.is_some());
                    }
                    _ => {
                        if !order.is_empty() {
                            let p = rng.usize(0..order.len());
                            let (got, s) = d.get_index(p).unwrap();
                            assert_eq!(got.as_bytes(), &order[p][..]);
                            assert_eq!(Some(s), model.get(&order[p]).copied());
                        }
                        assert!(d.get_index(order.len()).is_none());
                    }
                }
                assert_eq!(d.len(), model.len());
                if step % 97 == 0 {
                    d.check().unwrap();
                }
            }
            d.check().unwrap();
            for (m, s) in &model {
                assert_eq!(
                    d.get_key_value(m).map(|(k, s)| (k.as_bytes(), s)),
                    Some((&m[..], *s))
                );
            }
        }
        // A probe for a present member finds its own slot but for a 32-bit hash twin.
        assert!(
            present > 1000 && probed + 2 >= present,
            "{probed} of {present}"
        );
    }

    #[test]
    fn empties_and_shrinks() {
        let mut d = ZDict::new();
        for i in 0..1000 {
            d.insert_new(SmallBytes::from(format!("m{i}").as_bytes()), f64::from(i));
        }
        d.check().unwrap();
        let big = d.capacity();
        for i in 0..990 {
            assert_eq!(
                d.swap_remove(format!("m{i}").as_bytes()),
                Some(f64::from(i))
            );
            d.shrink_if_sparse();
        }
        d.check().unwrap();
        assert!(
            d.capacity() < big / 8,
            "{} slots left of {big}",
            d.capacity()
        );
        for i in 990..1000 {
            assert_eq!(
                d.swap_remove(format!("m{i}").as_bytes()),
                Some(f64::from(i))
            );
            d.shrink_if_sparse();
        }
        assert_eq!((d.len(), d.capacity()), (0, 0));
        assert_eq!(d.get(b"m1"), None);
        assert_eq!(d.swap_remove(b"m1"), None);
        d.check().unwrap();
    }
}
