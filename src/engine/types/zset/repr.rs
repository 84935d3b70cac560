//! The [`ZSet`] type itself: its two encodings (listpack and skiplist), their invariants and
//! every operation on them; the module documentation in `mod.rs` describes the design.

use std::fmt;

use super::iter::{Iter, IterInner};
use super::range::{LexRange, ScoreRange};
use crate::engine::types::ostree::OsTree;
use crate::engine::types::small::SmallBytes;
use crate::engine::types::zdict::ZDict;

/// Redis's `zset-max-listpack-entries` default.
pub const MAX_LISTPACK_ENTRIES: usize = 128;
/// Redis's `zset-max-listpack-value` default.
pub const MAX_LISTPACK_VALUE: usize = 64;

/// The conversion thresholds in force (Redis's `zset-max-listpack-entries` and
/// `zset-max-listpack-value`), read at each change as Redis reads them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ZLimits {
    /// Most members a listpack holds.
    pub entries: usize,
    /// Longest member a listpack holds.
    pub value: usize,
}

impl ZLimits {
    /// Redis's defaults (128 members, 64 bytes).
    pub const DEFAULT: ZLimits = ZLimits {
        entries: MAX_LISTPACK_ENTRIES,
        value: MAX_LISTPACK_VALUE,
    };

    /// The encoding a new set whose first member is `first_len` bytes long starts in, as
    /// `ZADD` picks it: a skiplist when no listpack may hold that member.
    pub fn new_set(self, first_len: usize) -> ZSet {
        if self.entries == 0 || first_len > self.value {
            ZSet::new_skiplist()
        } else {
            ZSet::new()
        }
    }
}

/// A sorted set: members with scores, ordered by `(score, member)`. See the module
/// documentation for the two encodings and their invariants.
#[derive(Clone)]
pub struct ZSet {
    pub(super) repr: Repr,
}

#[derive(Clone)]
pub(super) enum Repr {
    /// Redis's listpack: the entries in order in one array. Finding a member is a scan
    /// of at most `zset-max-listpack-entries` entries, as in Redis.
    /// Boxed, so that a sorted set takes 16 bytes of a `Value`: the extra block is paid
    /// by each sorted set, the bytes saved by every key.
    #[allow(clippy::box_collection)]
    Listpack(Box<Vec<(f64, SmallBytes)>>),
    /// Redis's skiplist encoding: a dict for members and an ordered tree for ranks.
    Skiplist(Box<Large>),
}

/// The large encoding: two structures over the same members (see the module docs).
#[derive(Clone)]
pub(super) struct Large {
    pub(super) dict: ZDict,
    pub(super) tree: OsTree<f64, SmallBytes>,
}

impl Large {
    fn new() -> Large {
        Large {
            dict: ZDict::new(),
            tree: OsTree::new(),
        }
    }

    /// The tree rank of the entry `(score, member)`, which must be present.
    fn rank_of(&self, score: f64, member: &[u8]) -> usize {
        self.tree.rank_of(score, |m| **m < *member)
    }

    /// Moves `member` from score `cur` to `new` in the tree and the dict; false, changing
    /// nothing, when the tree holds no `(cur, member)`. The tree compares the member's
    /// bytes with the element it finds before it moves anything, so `cur` may come from a
    /// dict slot that has not been confirmed to be `member`'s (see [`ZSet::update`]).
    fn move_member(&mut self, member: &[u8], cur: f64, new: f64) -> bool {
        let moved = self
            .tree
            .rekey(cur, |m| m.as_bytes().cmp(member), new, |m| **m <= *member)
            .is_some();
        if moved {
            self.dict.set_score(member, new);
        }
        moved
    }

    /// Gives memory back after many removals: the dict's table shrinks when under an
    /// eighth full (amortized O(1) per removal; the tree keeps its leaves at least a
    /// quarter full).
    fn shrink_dict_if_sparse(&mut self) {
        self.dict.shrink_if_sparse();
    }
}

/// True when `(score, member)` sorts before `(s, m)`.
fn entry_before(s: f64, m: &[u8], score: f64, member: &[u8]) -> bool {
    s < score || (s == score && m < member)
}

/// A listpack stores an integral score as an integer, which has no negative zero.
fn listpack_score(score: f64) -> f64 {
    if score == 0.0 {
        0.0
    } else {
        score
    }
}

impl Default for ZSet {
    fn default() -> ZSet {
        ZSet::new()
    }
}

impl fmt::Debug for ZSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_map()
            .entries(self.iter().map(|(m, s)| (String::from_utf8_lossy(m), s)))
            .finish()
    }
}

impl PartialEq for ZSet {
    /// Equal when they hold the same members with the same scores (encoding ignored).
    fn eq(&self, other: &ZSet) -> bool {
        self.len() == other.len()
            && self
                .iter()
                .zip(other.iter())
                .all(|((m1, s1), (m2, s2))| m1 == m2 && s1.to_bits() == s2.to_bits())
    }
}

/// What [`ZSet::add`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AddOutcome {
    /// The member was new.
    Added,
    /// The member existed and its score changed.
    Updated,
    /// The member existed with this very score.
    Unchanged,
}

impl ZSet {
    /// An empty sorted set (listpack-encoded, as Redis creates small ones). **O(1).**
    pub fn new() -> ZSet {
        ZSet {
            repr: Repr::Listpack(Box::default()),
        }
    }

    /// An empty sorted set already in the skiplist encoding (what Redis creates for a
    /// `*STORE` result before deciding whether to shrink it). **O(1).**
    pub fn new_skiplist() -> ZSet {
        ZSet {
            repr: Repr::Skiplist(Box::new(Large::new())),
        }
    }

    /// Number of members. **O(1).**
    pub fn len(&self) -> usize {
        match &self.repr {
            Repr::Listpack(v) => v.len(),
            Repr::Skiplist(l) => l.dict.len(),
        }
    }

    /// True when there are no members. **O(1).**
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// True while the set is in the listpack encoding.
    pub fn is_listpack(&self) -> bool {
        matches!(self.repr, Repr::Listpack(_))
    }

    /// The `OBJECT ENCODING` name: `listpack` or `skiplist`.
    pub fn encoding(&self) -> &'static str {
        if self.is_listpack() {
            "listpack"
        } else {
            "skiplist"
        }
    }

    /// Converts to the skiplist encoding for good (what `SORT` does to a small sorted
    /// set, and what adding a 129th member or a long one does). **O(N log N)** with N at
    /// most [`MAX_LISTPACK_ENTRIES`].
    pub fn force_skiplist(&mut self) {
        let Repr::Listpack(v) = &mut self.repr else {
            return;
        };
        let mut large = Large::new();
        large.dict.reserve(v.len());
        for (score, m) in v.drain(..) {
            // Entries arrive in order, so each goes after everything already there.
            large.tree.insert(score, m.clone(), |_| true);
            large.dict.insert_new(m, score);
        }
        self.repr = Repr::Skiplist(Box::new(large));
    }

    /// Re-evaluates the encoding of a freshly built set, as Redis's
    /// `zsetConvertToListpackIfNeeded` does after `ZUNIONSTORE` and friends. **O(N).**
    pub fn shrink_encoding_if_small(&mut self) {
        self.shrink_encoding_if_small_in(ZLimits::DEFAULT);
    }

    /// [`ZSet::shrink_encoding_if_small`] under `limits`. **O(N).**
    pub fn shrink_encoding_if_small_in(&mut self, limits: ZLimits) {
        let Repr::Skiplist(l) = &self.repr else {
            return;
        };
        if l.dict.len() > limits.entries || l.dict.keys().any(|m| m.len() > limits.value) {
            return;
        }
        let v = l
            .tree
            .iter_from(0, false)
            .map(|(score, m)| (listpack_score(score), m.clone()))
            .collect::<Vec<_>>();
        self.repr = Repr::Listpack(Box::new(v));
    }

    /// The score of `member`. **O(1)** (a listpack is scanned, as Redis scans it: at most
    /// 128 entries).
    pub fn score(&self, member: &[u8]) -> Option<f64> {
        match &self.repr {
            Repr::Listpack(v) => v.iter().find(|(_, m)| **m == *member).map(|e| e.0),
            Repr::Skiplist(l) => l.dict.get(member),
        }
    }

    /// True if `member` is present. **O(1).**
    pub fn contains(&self, member: &[u8]) -> bool {
        self.score(member).is_some()
    }

    /// How many entries sort before the probe: those with a score below `key`, then,
    /// among those scoring exactly `key`, the prefix for which `tie` holds. **O(log N).**
    fn rank_by_score(&self, key: f64, tie: impl Fn(&[u8]) -> bool) -> usize {
        match &self.repr {
            Repr::Listpack(v) => v.partition_point(|(s, m)| *s < key || (*s == key && tie(m))),
            Repr::Skiplist(l) => l.tree.rank_of(key, |m| tie(&m[..])),
        }
    }

    /// How many entries satisfy `before`, which must hold for a prefix. **O(log N).**
    fn rank_where(&self, before: impl Fn(&[u8]) -> bool) -> usize {
        match &self.repr {
            Repr::Listpack(v) => v.partition_point(|(_, m)| before(m)),
            Repr::Skiplist(l) => l.tree.rank_where(|_, m| before(&m[..])),
        }
    }

    /// Sets the score of `member`, adding it if absent. **O(log N).**
    ///
    /// # Panics
    /// Never for valid input; `score` must not be NaN (callers check — Redis rejects NaN
    /// before it reaches the set), which is asserted in debug builds only.
    ///
    /// While the set is a listpack, a score of `-0` is stored as `0`: Redis's listpack
    /// keeps integral scores as integers, which have no negative zero.
    pub fn add(&mut self, member: &[u8], score: f64) -> AddOutcome {
        self.add_in(member, score, ZLimits::DEFAULT)
    }

    /// [`ZSet::add`] under `limits`: a listpack that would pass them becomes a skiplist.
    pub fn add_in(&mut self, member: &[u8], score: f64, limits: ZLimits) -> AddOutcome {
        debug_assert!(!score.is_nan());
        if let Repr::Listpack(v) = &mut self.repr {
            let score = listpack_score(score);
            if let Some(at) = v.iter().position(|(_, m)| **m == *member) {
                if v[at].0 == score {
                    return AddOutcome::Unchanged;
                }
                let (_, m) = v.remove(at);
                let to = v.partition_point(|(s, m)| entry_before(*s, m, score, member));
                v.insert(to, (score, m));
                return AddOutcome::Updated;
            }
            if v.len() < limits.entries && member.len() <= limits.value {
                let to = v.partition_point(|(s, m)| entry_before(*s, m, score, member));
                v.insert(to, (score, SmallBytes::from(member)));
                return AddOutcome::Added;
            }
            self.force_skiplist();
        }
        let Repr::Skiplist(l) = &mut self.repr else {
            unreachable!("converted above");
        };
        if let Some(cur) = l.dict.get(member) {
            if cur == score {
                return AddOutcome::Unchanged;
            }
            let moved = l.move_member(member, cur, score);
            debug_assert!(moved, "dict and tree disagree");
            return AddOutcome::Updated;
        }
        let rc = SmallBytes::from(member);
        l.tree.insert(score, rc.clone(), |m| **m <= *member);
        l.dict.insert_new(rc, score);
        AddOutcome::Added
    }

    /// Sets `member`'s score to what `decide` makes of its current one (`None` when the
    /// member is absent): `Ok(None)` leaves the set as it is, and an `Err` is passed on.
    /// Returns what changed and the score set, `None` when `decide` skipped. This is
    /// `ZADD`'s and `ZINCRBY`'s step, whose options (`NX`, `XX`, `GT`, `LT`, `INCR`) all
    /// decide from the current score. **O(log N).**
    ///
    /// In the large encoding the tree descent starts from the score in the member's dict
    /// slot before the member's bytes are confirmed (see `ZDict::probe`), which takes one
    /// read from main memory off a large set's update. Nothing is decided on that score
    /// alone: a move happens only once the tree has compared `member`'s bytes with the
    /// element it found at `(score, member)`'s place, and the tree holds that element
    /// only if the slot was the member's (invariant 1); a decision that keeps the set as
    /// it is (a skip, the same score, an error) stands only once the dict has compared the
    /// bytes at the slot's position ([`ZDict::holds_at`]). Anything else (an absent
    /// member, a slot that was another member's with the same 32 hash bits) goes the
    /// confirmed way, now in cache.
    pub fn update<E>(
        &mut self,
        member: &[u8],
        decide: impl Fn(Option<f64>) -> Result<Option<f64>, E>,
    ) -> Result<Option<(AddOutcome, f64)>, E> {
        self.update_in(member, decide, ZLimits::DEFAULT)
    }

    /// [`ZSet::update`] under `limits` (see [`ZSet::add_in`]).
    pub fn update_in<E>(
        &mut self,
        member: &[u8],
        decide: impl Fn(Option<f64>) -> Result<Option<f64>, E>,
        limits: ZLimits,
    ) -> Result<Option<(AddOutcome, f64)>, E> {
        if let Repr::Skiplist(l) = &mut self.repr {
            if let Some((cur, pos)) = l.dict.probe(member) {
                let decision = decide(Some(cur));
                match decision {
                    Ok(Some(new)) if new != cur => {
                        // Not a guard: a move that fails must not fall to the next arm.
                        let moved = !new.is_nan() && l.move_member(member, cur, new);
                        if moved {
                            return Ok(Some((AddOutcome::Updated, new)));
                        }
                    }
                    _ if l.dict.holds_at(pos, member) => {
                        return decision.map(|d| d.map(|new| (AddOutcome::Unchanged, new)));
                    }
                    _ => {}
                }
            }
        }
        let Some(new) = decide(self.score(member))? else {
            return Ok(None);
        };
        Ok(Some((self.add_in(member, new, limits), new)))
    }

    /// Removes `member`, returning its score. **O(log N).**
    pub fn remove(&mut self, member: &[u8]) -> Option<f64> {
        match &mut self.repr {
            Repr::Listpack(v) => {
                let at = v.iter().position(|(_, m)| **m == *member)?;
                Some(v.remove(at).0)
            }
            Repr::Skiplist(l) => {
                let score = l.dict.swap_remove(member)?;
                let at = l.rank_of(score, member);
                let removed = l.tree.remove_at(at);
                debug_assert!(removed.is_some_and(|(_, m)| *m == *member));
                l.shrink_dict_if_sparse();
                Some(score)
            }
        }
    }

    /// The 0-based rank of `member` in ascending order. **O(log N).**
    pub fn rank(&self, member: &[u8]) -> Option<usize> {
        match &self.repr {
            Repr::Listpack(v) => v.iter().position(|(_, m)| **m == *member),
            Repr::Skiplist(l) => {
                // The descent needs only the score, so it starts before the member's bytes
                // are confirmed (see `ZDict::probe`); in the rare case that the slot was
                // another member's with the same hash bits, it is redone.
                let (score, pos) = l.dict.probe(member)?;
                let rank = l.rank_of(score, member);
                if l.dict.holds_at(pos, member) {
                    return Some(rank);
                }
                let score = l.dict.get(member)?;
                Some(l.rank_of(score, member))
            }
        }
    }

    /// The member and score at 0-based ascending `rank`. **O(log N).**
    pub fn get_by_rank(&self, rank: usize) -> Option<(&[u8], f64)> {
        match &self.repr {
            Repr::Listpack(v) => v.get(rank).map(|(s, m)| (&m[..], *s)),
            Repr::Skiplist(l) => l.tree.get(rank).map(|(score, m)| (&m[..], score)),
        }
    }

    /// Iterates in ascending order. **O(1)** per step (amortized).
    pub fn iter(&self) -> Iter<'_> {
        self.iter_from_rank(0, false, usize::MAX)
    }

    /// Iterates from 0-based ascending `rank`, ascending or (with `rev`) descending, with
    /// at most `limit` steps. **O(log N)** to start, amortized O(1) per step.
    pub fn iter_from_rank(&self, rank: usize, rev: bool, limit: usize) -> Iter<'_> {
        let inner = match &self.repr {
            Repr::Listpack(v) => {
                // Ascending: `rank..`; descending: `..=rank`, read from its end; nothing
                // from a rank past the end (as the tree does).
                let part = match v.get(rank..) {
                    Some([_, ..]) if rev => &v[..=rank],
                    Some(rest) => rest,
                    None => &[],
                };
                IterInner::Listpack(part.iter(), rev)
            }
            Repr::Skiplist(l) => IterInner::Tree(l.tree.iter_from(rank, rev)),
        };
        Iter { inner, left: limit }
    }

    /// The first (lowest) member and its score. **O(log N)** (the tree's depth).
    pub fn first(&self) -> Option<(&[u8], f64)> {
        self.get_by_rank(0)
    }

    /// The last (highest) member and its score. **O(log N)** (the tree's depth).
    pub fn last(&self) -> Option<(&[u8], f64)> {
        self.get_by_rank(self.len().checked_sub(1)?)
    }

    /// Rank (0-based) of the first member inside `range`. **O(log N).**
    pub fn first_in_score_range(&self, range: &ScoreRange) -> Option<usize> {
        if range.is_empty() || self.is_empty() {
            return None;
        }
        let rank = self.rank_by_score(range.min, |_| range.minex);
        let (_, score) = self.get_by_rank(rank)?;
        range.lte_max(score).then_some(rank)
    }

    /// Rank (0-based) of the last member inside `range`. **O(log N).**
    pub fn last_in_score_range(&self, range: &ScoreRange) -> Option<usize> {
        if range.is_empty() || self.is_empty() {
            return None;
        }
        let rank = self.rank_by_score(range.max, |_| !range.maxex);
        let (_, score) = self.get_by_rank(rank.checked_sub(1)?)?;
        range.gte_min(score).then(|| rank - 1)
    }

    /// Number of members inside `range`: the members from the first at or above `min` up
    /// to (not including) the first above `max`, two descents. **O(log N).**
    pub fn count_in_score_range(&self, range: &ScoreRange) -> usize {
        if range.is_empty() {
            return 0;
        }
        let lo = self.rank_by_score(range.min, |_| range.minex);
        let hi = self.rank_by_score(range.max, |_| !range.maxex);
        hi.saturating_sub(lo)
    }

    /// Rank (0-based) of the first member inside the lexicographic `range`.
    ///
    /// Lexicographic ranges are meaningful when all scores are equal, as Redis documents.
    /// When they are not, members are not in lexicographic order and the answer depends on
    /// how the search runs; we follow Redis for a listpack, which is scanned from the head
    /// for the first member at or above `min` (which must then be at or below `max`); a
    /// larger set is searched by descending the tree (Redis descends its skiplist, whose
    /// random shape makes its answer for such sets unpredictable too). **O(log N)** (a
    /// listpack has at most 128 members).
    pub fn first_in_lex_range(&self, range: &LexRange) -> Option<usize> {
        if range.is_empty() || !self.lex_overlaps(range) {
            return None;
        }
        if let Repr::Listpack(v) = &self.repr {
            let i = v.iter().position(|(_, m)| range.gte_min(m))?;
            return range.lte_max(&v[i].1).then_some(i);
        }
        let rank = self.rank_where(|m| !range.gte_min(m));
        let (m, _) = self.get_by_rank(rank)?;
        range.lte_max(m).then_some(rank)
    }

    /// Rank (0-based) of the last member inside the lexicographic `range` (a listpack is
    /// scanned from the tail; see [`ZSet::first_in_lex_range`]). **O(log N).**
    pub fn last_in_lex_range(&self, range: &LexRange) -> Option<usize> {
        if range.is_empty() || !self.lex_overlaps(range) {
            return None;
        }
        if let Repr::Listpack(v) = &self.repr {
            let i = v.iter().rposition(|(_, m)| range.lte_max(m))?;
            return range.gte_min(&v[i].1).then_some(i);
        }
        let rank = self.rank_where(|m| range.lte_max(m));
        let (m, _) = self.get_by_rank(rank.checked_sub(1)?)?;
        range.gte_min(m).then(|| rank - 1)
    }

    /// Number of members inside the lexicographic `range`, as `ZLEXCOUNT` counts them: a
    /// listpack walks on from the first member while members stay at or below `max`, a
    /// larger set subtracts the ranks of the first and last members. **O(log N).**
    pub fn count_in_lex_range(&self, range: &LexRange) -> usize {
        let Some(first) = self.first_in_lex_range(range) else {
            return 0;
        };
        if self.is_listpack() {
            return self.lex_run(first, range);
        }
        match self.last_in_lex_range(range) {
            Some(last) => (last + 1).saturating_sub(first),
            None => self.len() - first,
        }
    }

    /// How many members from rank `first` on stay at or below the range's `max`.
    fn lex_run(&self, first: usize, range: &LexRange) -> usize {
        self.iter_from_rank(first, false, usize::MAX)
            .take_while(|(m, _)| range.lte_max(m))
            .count()
    }

    /// Redis's `zslIsInLexRange` tail/head test.
    fn lex_overlaps(&self, range: &LexRange) -> bool {
        match (self.last(), self.first()) {
            (Some((hi, _)), Some((lo, _))) => range.gte_min(hi) && range.lte_max(lo),
            _ => false,
        }
    }

    /// Removes the members with 0-based ranks `start..=end` (clamped), returning how many
    /// went. **O(log N + M).**
    pub fn remove_rank_range(&mut self, start: usize, end: usize) -> usize {
        if start > end || start >= self.len() {
            return 0;
        }
        let count = (end - start).saturating_add(1);
        match &mut self.repr {
            Repr::Listpack(v) => {
                let end = start.saturating_add(count).min(v.len());
                v.drain(start..end).count()
            }
            Repr::Skiplist(l) => {
                let dict = &mut l.dict;
                let n = l.tree.remove_range(start, count, |_, m| {
                    dict.swap_remove(&m[..]);
                });
                l.shrink_dict_if_sparse();
                n
            }
        }
    }

    /// Removes the members inside `range`. **O(log N + M).**
    pub fn remove_score_range(&mut self, range: &ScoreRange) -> usize {
        match (
            self.first_in_score_range(range),
            self.last_in_score_range(range),
        ) {
            (Some(a), Some(b)) if b >= a => self.remove_rank_range(a, b),
            _ => 0,
        }
    }

    /// Removes the members inside the lexicographic `range`. **O(log N + M).**
    ///
    /// Like Redis (both encodings), it removes from the first member in range onwards while
    /// members stay at or below `max`.
    pub fn remove_lex_range(&mut self, range: &LexRange) -> usize {
        let Some(first) = self.first_in_lex_range(range) else {
            return 0;
        };
        let n = self.lex_run(first, range);
        if n == 0 {
            return 0;
        }
        self.remove_rank_range(first, first + n - 1)
    }

    /// The member at storage position `pos` (for random picks and `ZSCAN`): the rank in a
    /// listpack, as Redis picks from a listpack; the dict's position in the large
    /// encoding, where removing a member moves the last one into its slot. Positions are
    /// `0..len`. **O(1).**
    pub fn get_index(&self, pos: usize) -> Option<(&[u8], f64)> {
        match &self.repr {
            Repr::Listpack(v) => v.get(pos).map(|(s, m)| (&m[..], *s)),
            Repr::Skiplist(l) => l.dict.get_index(pos).map(|(m, score)| (&m[..], score)),
        }
    }

    /// Checks every invariant listed in the module documentation. **O(N log N).** For
    /// tests and debugging.
    pub fn check_invariants(&self) -> Result<(), String> {
        let l = match &self.repr {
            Repr::Listpack(v) => return check_listpack(v),
            Repr::Skiplist(l) => l,
        };
        l.dict.check()?;
        if l.tree.len() != l.dict.len() {
            return Err(format!(
                "tree len {} != dict {}",
                l.tree.len(),
                l.dict.len()
            ));
        }
        l.tree
            .check(|(sa, ma), (sb, mb)| sa < sb || (sa == sb && **ma < **mb))?;
        for (rank, (score, m)) in l.tree.iter_from(0, false).enumerate() {
            if score.is_nan() {
                return Err("NaN score".into());
            }
            match l.dict.get_key_value(&m[..]) {
                Some((k, s)) if s.to_bits() == score.to_bits() && k.shares_with(m) => {}
                _ => return Err(format!("dict disagrees at rank {rank}")),
            }
        }
        Ok(())
    }
}

/// The listpack invariants: strictly increasing entries, no NaN and no `-0` score. (Its
/// size depends on the limits in force when it grew, so it is not checked here.)
fn check_listpack(v: &[(f64, SmallBytes)]) -> Result<(), String> {
    if let Some((s, _)) = v
        .iter()
        .find(|(s, _)| s.is_nan() || (*s == 0.0 && s.is_sign_negative()))
    {
        return Err(format!("score {s} in a listpack"));
    }
    match v
        .windows(2)
        .position(|w| !entry_before(w[0].0, &w[0].1, w[1].0, &w[1].1))
    {
        Some(i) => Err(format!("listpack out of order at {i}")),
        None => Ok(()),
    }
}

impl FromIterator<(Vec<u8>, f64)> for ZSet {
    /// Builds a set from `(member, score)` pairs (later pairs win), with the encoding a
    /// `*STORE` command would give it.
    fn from_iter<I: IntoIterator<Item = (Vec<u8>, f64)>>(iter: I) -> ZSet {
        ZSet::collect_in(iter, ZLimits::DEFAULT)
    }
}

impl ZSet {
    /// Builds a set from `(member, score)` pairs (later pairs win), with the encoding a
    /// `*STORE` command gives it under `limits` (Redis's `zsetConvertToListpackIfNeeded`).
    pub fn collect_in<I: IntoIterator<Item = (Vec<u8>, f64)>>(iter: I, limits: ZLimits) -> ZSet {
        let mut z = ZSet::new_skiplist();
        for (m, s) in iter {
            z.add(&m, s);
        }
        z.shrink_encoding_if_small_in(limits);
        z
    }
}
