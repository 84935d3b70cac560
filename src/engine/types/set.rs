//! Sets.
//!
//! # Representation
//! A set is an [`IndexSet`] of byte strings: a hash table for O(1) membership, insert and
//! delete, whose entries also sit in a dense vector. The vector gives the two things Redis
//! gets from its dict's random-bucket sampling, at a cost Redis documents: a uniformly random
//! member in O(1) (`SRANDMEMBER`, `SPOP`: pick a position), and stable positions for `SSCAN`
//! (see [`crate::engine::scan`]).
//!
//! Members are [`SmallBytes`]: up to 22 bytes inside the entry itself, longer ones in a
//! heap block. A probe compares the member bytes once the hash matches; inline, they are
//! in the entry the probe already read, which saves a main-memory read per `SISMEMBER` on
//! a set too large for the cache, and the per-member heap block with its header (a
//! million short members: 83 bytes each with `Vec<u8>` members, see `benches/list_set.rs`).
//!
//! # Encodings
//! Redis 7.0 has two set encodings, and learners see which through `OBJECT ENCODING` and
//! through the order of `SMEMBERS`:
//!
//! * `intset` — every member is the canonical decimal text of an `i64` (no `+`, no leading
//!   zero, no `-0`) and there are at most `set-max-intset-entries` = 512 members. An intset
//!   is a sorted array, so Redis lists such a set in ascending numeric order.
//! * `hashtable` — anything else. Once a set is a hash table it stays one, even if it
//!   shrinks or loses its non-integer members.
//!
//! (The `listpack` set encoding is Redis 7.2's; 7.0.15 reports only these two, which we
//! checked against a real server.)
//!
//! We keep the same rule (see [`SetValue::is_intset`]) and, while it holds, keep the
//! members in ascending numeric order: insertion finds its place by binary search and
//! shifts, deletion shifts (`shift_remove`). Both are O(n) for n ≤ 512, as Redis's intset
//! `memmove`. Once the set is a hash table, deletion is `swap_remove`, O(1), and order is
//! unspecified as in Redis.
//! A set built by a command (`SINTERSTORE`, `SUNION`, …) starts as an empty intset and
//! converts as members arrive, exactly as Redis builds its result sets.
//!
//! # Invariants
//! * A set stored in the keyspace is never empty (commands delete emptied keys).
//! * `intset` implies: `len() <= 512`, every member parses as an `i64`, ascending order.
//!
//! # Changing it
//! A performance change to this structure lands only with the scale tests passing in
//! release mode: `cargo test --release --test scale --test scale_diff` (here
//! `sets_against_a_model` and its redis-server twin), which take it to a million live
//! elements against a plain model and against a real Redis (issue 18). A fast path that
//! trusts a hash, a tag, a probed slot or a cached position confirms the bytes before it
//! changes data or a reply.

use indexmap::IndexSet;

use super::small::SmallBytes;
use crate::engine::args::parse_i64;

/// Redis's default `set-max-intset-entries`.
pub const MAX_INTSET_ENTRIES: usize = 512;

type Hasher = foldhash::fast::RandomState;

/// A set value.
#[derive(Debug, Clone, PartialEq)]
pub struct SetValue {
    /// Boxed, so that a set takes 16 bytes of a `Value`.
    members: Box<IndexSet<SmallBytes, Hasher>>,
    intset: bool,
}

impl Default for SetValue {
    fn default() -> SetValue {
        SetValue::new()
    }
}

impl SetValue {
    /// An empty set, intset-encoded until a member says otherwise.
    pub fn new() -> SetValue {
        SetValue {
            members: Box::default(),
            intset: true,
        }
    }

    /// A set already in the `hashtable` encoding holding `members` in this storage order
    /// (duplicates collapse). Used to restore a snapshot exactly. **O(N).**
    pub fn hashtable(members: impl IntoIterator<Item = Vec<u8>>) -> SetValue {
        SetValue {
            members: members
                .into_iter()
                .map(|m| SmallBytes::from(&m[..]))
                .collect::<IndexSet<_, _>>()
                .into(),
            intset: false,
        }
    }

    /// The `OBJECT ENCODING` name: `intset` or `hashtable`.
    pub fn encoding(&self) -> &'static str {
        if self.intset {
            "intset"
        } else {
            "hashtable"
        }
    }

    /// True while Redis would keep this set as an intset (members in ascending order).
    pub fn is_intset(&self) -> bool {
        self.intset
    }

    /// Number of members. **O(1).**
    pub fn len(&self) -> usize {
        self.members.len()
    }

    /// True when there are no members.
    pub fn is_empty(&self) -> bool {
        self.members.is_empty()
    }

    /// True if `member` is in the set. **O(1).**
    pub fn contains(&self, member: &[u8]) -> bool {
        self.members.contains(member)
    }

    /// Adds `member`; returns false if it was already there. **O(1)** for a hash table;
    /// O(n), n ≤ 512, for an intset (as Redis).
    pub fn insert(&mut self, member: Vec<u8>) -> bool {
        self.insert_bytes(&member)
    }

    /// [`SetValue::insert`] from a borrowed slice.
    pub fn insert_bytes(&mut self, member: &[u8]) -> bool {
        self.insert_within(member, MAX_INTSET_ENTRIES)
    }

    /// [`SetValue::insert_bytes`] under `set-max-intset-entries` = `max_intset`: an intset
    /// that would hold more becomes a hash table, as Redis's `setTypeAdd` converts it.
    pub fn insert_within(&mut self, member: &[u8], max_intset: usize) -> bool {
        if !self.intset {
            return self.members.insert(SmallBytes::from(member));
        }
        if self.members.contains(member) {
            return false;
        }
        match parse_i64(member) {
            Some(v) if self.members.len() < max_intset => {
                let at = self.members.partition_point(|m| int_of(m) < v);
                self.members.shift_insert(at, SmallBytes::from(member));
            }
            _ => {
                self.intset = false;
                self.members.insert(SmallBytes::from(member));
            }
        }
        true
    }

    /// Removes `member`; returns false if it was absent. **O(1)** for a hash table.
    pub fn remove(&mut self, member: &[u8]) -> bool {
        if self.intset {
            self.members.shift_remove(member)
        } else {
            self.members.swap_remove(member)
        }
    }

    /// The member at position `i` (for random choice and SSCAN). **O(1).**
    pub fn get_index(&self, i: usize) -> Option<&[u8]> {
        self.members.get_index(i).map(SmallBytes::as_bytes)
    }

    /// Removes and returns the member at position `i`. **O(1)** for a hash table.
    pub fn remove_index(&mut self, i: usize) -> Option<Vec<u8>> {
        let m = if self.intset {
            self.members.shift_remove_index(i)
        } else {
            self.members.swap_remove_index(i)
        };
        m.map(|m| m.to_vec())
    }

    /// A set of `members` added in order under `set-max-intset-entries` = `max_intset`.
    pub fn collect_within<M: AsRef<[u8]>>(
        members: impl IntoIterator<Item = M>,
        max_intset: usize,
    ) -> SetValue {
        let mut s = SetValue::new();
        for m in members {
            s.insert_within(m.as_ref(), max_intset);
        }
        s
    }

    /// The members in storage order (ascending while an intset).
    pub fn iter(&self) -> impl ExactSizeIterator<Item = &[u8]> + Clone {
        self.members.iter().map(SmallBytes::as_bytes)
    }
}

impl SetValue {
    /// Checks the invariants of the module documentation, and that every member is found
    /// by its own bytes at its own position (the hash table and the entries agree).
    /// **O(N).** For tests.
    pub fn check_invariants(&self) -> Result<(), String> {
        for (i, m) in self.members.iter().enumerate() {
            if self.members.get_index_of(m.as_bytes()) != Some(i) {
                return Err(format!("member at {i} is not found at its position"));
            }
        }
        if !self.intset {
            return Ok(());
        }
        let mut prev = None;
        for m in self.members.iter() {
            let Some(v) = parse_i64(m) else {
                return Err(format!("{:?} in an intset", String::from_utf8_lossy(m)));
            };
            if prev.is_some_and(|p| p >= v) {
                return Err(format!("intset out of order at {v}"));
            }
            prev = Some(v);
        }
        Ok(())
    }
}

impl IntoIterator for SetValue {
    type Item = Vec<u8>;
    type IntoIter = std::iter::Map<indexmap::set::IntoIter<SmallBytes>, fn(SmallBytes) -> Vec<u8>>;

    /// The members in storage order, by value.
    fn into_iter(self) -> Self::IntoIter {
        self.members.into_iter().map(|m| m.to_vec())
    }
}

impl FromIterator<Vec<u8>> for SetValue {
    fn from_iter<I: IntoIterator<Item = Vec<u8>>>(iter: I) -> SetValue {
        let mut s = SetValue::new();
        for m in iter {
            s.insert(m);
        }
        s
    }
}

impl<'a> FromIterator<&'a [u8]> for SetValue {
    fn from_iter<I: IntoIterator<Item = &'a [u8]>>(iter: I) -> SetValue {
        let mut s = SetValue::new();
        for m in iter {
            s.insert_bytes(m);
        }
        s
    }
}

/// The integer value of an intset member (the invariant guarantees it parses).
fn int_of(member: &[u8]) -> i64 {
    parse_i64(member).unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn set(items: &[&str]) -> SetValue {
        items.iter().map(|s| s.as_bytes().to_vec()).collect()
    }

    fn strs(s: &SetValue) -> Vec<String> {
        s.iter()
            .map(|e| String::from_utf8_lossy(e).into_owned())
            .collect()
    }

    #[test]
    fn intsets_stay_sorted_numerically() {
        let mut s = set(&["3", "1", "2", "-5", "10"]);
        assert_eq!(s.encoding(), "intset");
        assert_eq!(strs(&s), ["-5", "1", "2", "3", "10"]);
        s.remove(b"2");
        assert_eq!(strs(&s), ["-5", "1", "3", "10"]);
        let s = set(&["9223372036854775807", "-9223372036854775808"]);
        assert_eq!(strs(&s), ["-9223372036854775808", "9223372036854775807"]);
        assert_eq!(s.encoding(), "intset");
    }

    #[test]
    fn non_canonical_integers_make_a_hashtable() {
        for odd in ["-0", "01", "+1", " 1", "9223372036854775808", "a"] {
            let s = set(&["1", odd]);
            assert_eq!(s.encoding(), "hashtable", "{odd}");
        }
    }

    #[test]
    fn the_513th_integer_converts_and_conversion_sticks() {
        let mut s: SetValue = (1..=512).map(|i| i.to_string().into_bytes()).collect();
        assert_eq!(s.encoding(), "intset");
        assert!(!s.insert(b"512".to_vec()));
        assert_eq!(s.encoding(), "intset");
        assert!(s.insert(b"513".to_vec()));
        assert_eq!(s.encoding(), "hashtable");
        s.remove(b"513");
        assert_eq!(s.encoding(), "hashtable");
    }
}
