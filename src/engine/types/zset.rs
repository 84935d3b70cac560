//! Sorted sets.
//!
//! # What a sorted set must do, and at what cost
//! A sorted set maps unique members (byte strings) to scores (doubles, never NaN) and keeps
//! them ordered by `(score, member)`: by score, ties broken by the member bytes compared as
//! `memcmp` does (a shorter string that is a prefix of a longer one sorts first). Redis
//! promises, and our command table repeats, these costs:
//!
//! * `ZSCORE`, `ZMSCORE` per member, membership tests in `ZINTER`/`ZDIFF`: **O(1)**;
//! * `ZADD`, `ZREM`, `ZINCRBY`: **O(log N)** per member;
//! * `ZRANK`/`ZREVRANK`, `ZCOUNT`, `ZLEXCOUNT`: **O(log N)**;
//! * `ZRANGE` by rank, score or lex, `ZREMRANGEBY*`: **O(log N + M)** for M elements
//!   returned or removed.
//!
//! Rank queries are what rule out a plain ordered map: `BTreeMap` finds a key in O(log N)
//! but cannot say how many keys precede it without walking them. We need an
//! *order-statistics* structure, one that counts as it descends.
//!
//! # Why our own skiplist
//! Crates were considered first. `indexset` gives rank queries over a two-level B-tree, but
//! its top level is a flat vector of nodes with a prefix-sum index that is rebuilt on node
//! splits: inserts cost O(N/B) in the worst case, not O(log N). The `skiplist` crate's
//! ordered list tracks link lengths, but it is built on raw pointers (`unsafe`, which this
//! crate forbids), orders by `Ord` on whole elements and has no search by a partial key such
//! as "first element with score ≥ min". So, like Redis's `t_zset.c`, we keep two structures
//! over the same members:
//!
//! * `dict`: an [`IndexMap`] member → (node id, score), for O(1) lookups, O(1) uniform random picks
//!   (`ZRANDMEMBER`) and stable positions for `ZSCAN` (see [`crate::engine::scan`]);
//! * `list`: a skiplist of `(score, member)` in order, in which every forward link also
//!   records its *span*, the number of level-0 steps it jumps. Summing spans along a search
//!   path gives the rank of where the search stops, and descending by spans finds the node
//!   at a given rank, both in expected O(log N).
//!
//! The skiplist lives in an arena (`Vec<Node>` indexed by `u32`, with a free list) instead of
//! pointers, so the whole thing is safe Rust and clones with one `Vec` copy. When removals
//! leave more than half of the arena free, it is rebuilt with the live nodes only, so a set
//! that shrinks gives its memory back (amortized O(1) per removal). A member's
//! bytes are shared by the dict and its node through an `Rc<[u8]>`, as Redis shares one sds
//! string between its dict and skiplist.
//!
//! # Invariants
//! 1. `dict` and `list` hold the same members: `dict[m] = (id, s)` iff node `id` is live and
//!    holds `m` with score `s` (bit for bit); `list.len == dict.len()`.
//! 2. Level-0 links visit every live node exactly once, in strictly increasing
//!    `(score, member)` order (scores compared with `<`, so `-0.0 == 0.0`; members by bytes).
//!    `back` is the level-0 predecessor (`NIL` for the first node); `tail` is the last node.
//! 3. A node with `k` levels is linked at levels `0..k`; at level `i` the links visit, in
//!    order, exactly the nodes with more than `i` levels. `list.level` is 1 + the highest
//!    level in use (at least 1).
//! 4. For every link at level `i < list.level`, `span` = (rank of target) − (rank of source)
//!    where the header has rank 0 and a `NIL` target counts as rank `len` (so the last
//!    link of each level spans the members after its source).
//! 5. No score is NaN.
//! 6. `listpack` is true only while Redis 7.0 would still keep this set as a listpack: every
//!    member ever added was at most `zset-max-listpack-value` (64) bytes and the set never
//!    held more than `zset-max-listpack-entries` (128) members. It never becomes true again
//!    (Redis does not convert back), except when a `*STORE` command builds a new set.
//!
//! [`ZSet::check_invariants`] verifies all of them; the property tests call it after every
//! step.
//!
//! # The listpack encoding
//! Redis stores small sorted sets as a listpack (a flat sorted array) and large ones as
//! dict + skiplist. The two behave the same except in what `OBJECT ENCODING` reports, in
//! `ZSCAN` (a listpack is returned whole, with cursor 0, scores printed by `d2string`) and
//! in how random members are drawn. We always use the skiplist and only track the flag.

use std::fmt;
use std::rc::Rc;

use indexmap::IndexMap;

use super::{ListValue, SetValue};

/// Redis's `zset-max-listpack-entries` default.
pub const MAX_LISTPACK_ENTRIES: usize = 128;
/// Redis's `zset-max-listpack-value` default.
pub const MAX_LISTPACK_VALUE: usize = 64;

/// Highest number of levels a node can have (Redis's `ZSKIPLIST_MAXLEVEL`).
const MAX_LEVEL: usize = 32;
/// "No node": the end of a level, or no predecessor.
const NIL: u32 = u32::MAX;
/// The header node's id; it holds no member.
const HEAD: u32 = 0;

type Hasher = foldhash::fast::RandomState;

/// One forward link: target node and the number of level-0 steps it jumps.
#[derive(Debug, Clone, Copy)]
struct Link {
    next: u32,
    span: u32,
}

/// Links kept inside the node itself; higher levels (one node in 256) spill to `extra`.
/// Three quarters of the nodes have one level, and a search touches the low levels of
/// many nodes, so keeping them in the node saves a cache miss per step.
const INLINE: usize = 4;

/// A skiplist node. The header (id 0) has `MAX_LEVEL` links and an empty member.
#[derive(Debug, Clone)]
struct Node {
    member: Rc<[u8]>,
    score: f64,
    back: u32,
    level: u8,
    inline: [Link; INLINE],
    extra: Box<[Link]>,
}

impl Node {
    fn new(member: Rc<[u8]>, score: f64, level: usize) -> Node {
        let empty = Link { next: NIL, span: 0 };
        Node {
            member,
            score,
            back: NIL,
            level: level as u8,
            inline: [empty; INLINE],
            extra: vec![empty; level.saturating_sub(INLINE)].into_boxed_slice(),
        }
    }

    #[inline]
    fn link(&self, i: usize) -> Link {
        if i < INLINE {
            self.inline[i]
        } else {
            self.extra[i - INLINE]
        }
    }

    #[inline]
    fn link_mut(&mut self, i: usize) -> &mut Link {
        if i < INLINE {
            &mut self.inline[i]
        } else {
            &mut self.extra[i - INLINE]
        }
    }

    /// True if this node sorts before `(score, member)`.
    #[inline]
    fn lt(&self, score: f64, member: &[u8]) -> bool {
        self.score < score || (self.score == score && *self.member < *member)
    }
}

/// A bound of a score interval: `min`/`max` with an exclusive flag, as parsed from `(1.5`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ScoreRange {
    /// Lower bound.
    pub min: f64,
    /// Upper bound.
    pub max: f64,
    /// True when `min` itself is excluded.
    pub minex: bool,
    /// True when `max` itself is excluded.
    pub maxex: bool,
}

impl ScoreRange {
    /// True if `s` is at or above the lower bound.
    pub fn gte_min(&self, s: f64) -> bool {
        if self.minex {
            s > self.min
        } else {
            s >= self.min
        }
    }

    /// True if `s` is at or below the upper bound.
    pub fn lte_max(&self, s: f64) -> bool {
        if self.maxex {
            s < self.max
        } else {
            s <= self.max
        }
    }

    /// True when no score can be inside (Redis's `zslIsInRange` first test).
    pub fn is_empty(&self) -> bool {
        self.min > self.max || (self.min == self.max && (self.minex || self.maxex))
    }
}

/// One end of a lexicographic interval (`-`, `+`, `[member`, `(member`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LexBound {
    /// `-`: below every string.
    NegInf,
    /// `+`: above every string.
    PosInf,
    /// `[m`: `m` included.
    Incl(Vec<u8>),
    /// `(m`: `m` excluded.
    Excl(Vec<u8>),
}

impl LexBound {
    /// Compares a member with this bound as Redis's `sdscmplex` does.
    fn cmp_member(&self, m: &[u8]) -> std::cmp::Ordering {
        use std::cmp::Ordering::*;
        match self {
            LexBound::NegInf => Greater,
            LexBound::PosInf => Less,
            LexBound::Incl(b) | LexBound::Excl(b) => m.cmp(b),
        }
    }

    fn exclusive(&self) -> bool {
        !matches!(self, LexBound::Incl(_))
    }
}

/// A lexicographic interval, as `ZRANGEBYLEX` parses it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LexRange {
    /// Lower end.
    pub min: LexBound,
    /// Upper end.
    pub max: LexBound,
}

impl LexRange {
    /// True if `m` is at or above the lower end.
    pub fn gte_min(&self, m: &[u8]) -> bool {
        let c = self.min.cmp_member(m);
        if self.min.exclusive() {
            c.is_gt()
        } else {
            c.is_ge()
        }
    }

    /// True if `m` is at or below the upper end.
    pub fn lte_max(&self, m: &[u8]) -> bool {
        let c = self.max.cmp_member(m);
        if self.max.exclusive() {
            c.is_lt()
        } else {
            c.is_le()
        }
    }

    /// True when no member can be inside (Redis's `zslIsInLexRange` first test).
    pub fn is_empty(&self) -> bool {
        use std::cmp::Ordering::*;
        let cmp = match (&self.min, &self.max) {
            (LexBound::NegInf, LexBound::NegInf) | (LexBound::PosInf, LexBound::PosInf) => Equal,
            (LexBound::NegInf, _) | (_, LexBound::PosInf) => Less,
            (LexBound::PosInf, _) | (_, LexBound::NegInf) => Greater,
            (LexBound::Incl(a) | LexBound::Excl(a), LexBound::Incl(b) | LexBound::Excl(b)) => {
                a.cmp(b)
            }
        };
        cmp.is_gt() || (cmp.is_eq() && (self.min.exclusive() || self.max.exclusive()))
    }
}

/// The ordered half: a skiplist with spans in an arena.
#[derive(Clone)]
struct SkipList {
    nodes: Vec<Node>,
    free: Vec<u32>,
    tail: u32,
    len: usize,
    level: usize,
    rng: u64,
}

impl SkipList {
    fn new() -> SkipList {
        SkipList {
            nodes: vec![Node::new(Rc::from(&[][..]), 0.0, MAX_LEVEL)],
            free: Vec::new(),
            tail: NIL,
            len: 0,
            level: 1,
            rng: 0x9E37_79B9_7F4A_7C15,
        }
    }

    #[inline]
    fn node(&self, id: u32) -> &Node {
        &self.nodes[id as usize]
    }

    #[inline]
    fn link(&self, id: u32, lvl: usize) -> Link {
        self.nodes[id as usize].link(lvl)
    }

    #[inline]
    fn link_mut(&mut self, id: u32, lvl: usize) -> &mut Link {
        self.nodes[id as usize].link_mut(lvl)
    }

    /// A level in `1..=MAX_LEVEL`, each further level with probability 1/4 (Redis's
    /// `ZSKIPLIST_P`), from a private xorshift generator: the shape never shows in replies.
    fn random_level(&mut self) -> usize {
        let mut x = self.rng;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.rng = x;
        // Two random bits per extra level: both zero with probability 1/4.
        (1 + (x.trailing_zeros() / 2) as usize).min(MAX_LEVEL)
    }

    fn alloc(&mut self, member: Rc<[u8]>, score: f64, level: usize) -> u32 {
        let node = Node::new(member, score, level);
        match self.free.pop() {
            Some(id) => {
                self.nodes[id as usize] = node;
                id
            }
            None => {
                self.nodes.push(node);
                (self.nodes.len() - 1) as u32
            }
        }
    }

    fn release(&mut self, id: u32) {
        let n = &mut self.nodes[id as usize];
        n.member = Rc::from(&[][..]);
        n.extra = Box::new([]);
        self.free.push(id);
    }

    /// True when more than half of a sizeable arena is free slots.
    fn sparse(&self) -> bool {
        self.nodes.len() > 64 && self.free.len() * 2 > self.nodes.len()
    }

    /// Rebuilds the arena with the live nodes only, in order, and returns the map from old
    /// ids to new ones. **O(N)**; called only after at least N removals since the last
    /// rebuild, so it costs O(1) amortized per removal.
    fn compact(&mut self) -> Vec<u32> {
        let mut map = vec![NIL; self.nodes.len()];
        map[HEAD as usize] = HEAD;
        let mut next_id = 1u32;
        let mut x = self.link(HEAD, 0).next;
        while x != NIL {
            map[x as usize] = next_id;
            next_id += 1;
            x = self.link(x, 0).next;
        }
        let old = std::mem::take(&mut self.nodes);
        let mut fresh: Vec<Option<Node>> = (0..next_id).map(|_| None).collect();
        for (old_id, mut node) in old.into_iter().enumerate() {
            let new_id = map[old_id];
            if new_id == NIL {
                continue;
            }
            let remap = |id: u32| if id == NIL { NIL } else { map[id as usize] };
            node.back = remap(node.back);
            for i in 0..usize::from(node.level) {
                let l = node.link_mut(i);
                l.next = remap(l.next);
            }
            fresh[new_id as usize] = Some(node);
        }
        self.nodes = fresh.into_iter().flatten().collect();
        self.free.clear();
        self.tail = if self.tail == NIL {
            NIL
        } else {
            map[self.tail as usize]
        };
        map
    }

    /// Descends while `before(node)` holds for the next node, recording in `update[i]` the
    /// last node visited at level `i` and in `rank[i]` its rank. `before` must hold for a
    /// prefix of the order. Returns the last node for which it holds (or `HEAD`) and its rank.
    fn descend(
        &self,
        mut before: impl FnMut(&Node) -> bool,
        update: &mut [u32; MAX_LEVEL],
        rank: &mut [usize; MAX_LEVEL],
    ) -> (u32, usize) {
        let mut x = HEAD;
        let mut r = 0usize;
        for i in (0..self.level).rev() {
            loop {
                let l = self.link(x, i);
                if l.next != NIL && before(self.node(l.next)) {
                    r += l.span as usize;
                    x = l.next;
                } else {
                    break;
                }
            }
            update[i] = x;
            rank[i] = r;
        }
        (x, r)
    }

    /// The last node for which `before` holds, and its rank (0 for `HEAD`).
    fn last_where(&self, before: impl FnMut(&Node) -> bool) -> (u32, usize) {
        let mut u = [HEAD; MAX_LEVEL];
        let mut r = [0; MAX_LEVEL];
        self.descend(before, &mut u, &mut r)
    }

    /// Inserts a new node; `(score, member)` must not be present.
    fn insert(&mut self, member: Rc<[u8]>, score: f64) -> u32 {
        let mut update = [HEAD; MAX_LEVEL];
        let mut rank = [0usize; MAX_LEVEL];
        self.descend(|n| n.lt(score, &member), &mut update, &mut rank);
        let lvl = self.random_level();
        if lvl > self.level {
            for i in self.level..lvl {
                rank[i] = 0;
                update[i] = HEAD;
                self.link_mut(HEAD, i).span = self.len as u32;
                self.link_mut(HEAD, i).next = NIL;
            }
            self.level = lvl;
        }
        let id = self.alloc(member, score, lvl);
        for i in 0..lvl {
            let prev = self.link(update[i], i);
            let jumped = (rank[0] - rank[i]) as u32;
            *self.link_mut(id, i) = Link {
                next: prev.next,
                span: prev.span - jumped,
            };
            *self.link_mut(update[i], i) = Link {
                next: id,
                span: jumped + 1,
            };
        }
        for (i, &u) in update.iter().enumerate().take(self.level).skip(lvl) {
            self.link_mut(u, i).span += 1;
        }
        self.nodes[id as usize].back = if update[0] == HEAD { NIL } else { update[0] };
        let next = self.link(id, 0).next;
        if next != NIL {
            self.nodes[next as usize].back = id;
        } else {
            self.tail = id;
        }
        self.len += 1;
        id
    }

    /// Unlinks node `x`, given the `update` path that leads to it, and frees it.
    fn unlink(&mut self, x: u32, update: &[u32; MAX_LEVEL]) {
        for (i, &u) in update.iter().enumerate().take(self.level) {
            let l = self.link(u, i);
            if l.next == x {
                let xl = self.link(x, i);
                *self.link_mut(u, i) = Link {
                    next: xl.next,
                    span: l.span + xl.span - 1,
                };
            } else {
                self.link_mut(u, i).span -= 1;
            }
        }
        let next = self.link(x, 0).next;
        let back = self.node(x).back;
        if next != NIL {
            self.nodes[next as usize].back = back;
        } else {
            self.tail = back;
        }
        while self.level > 1 && self.link(HEAD, self.level - 1).next == NIL {
            self.level -= 1;
        }
        self.len -= 1;
        self.release(x);
    }

    /// Removes the node holding `(score, member)`; returns false if there is none.
    fn remove(&mut self, score: f64, member: &[u8]) -> bool {
        let mut update = [HEAD; MAX_LEVEL];
        let mut rank = [0usize; MAX_LEVEL];
        self.descend(|n| n.lt(score, member), &mut update, &mut rank);
        let x = self.link(update[0], 0).next;
        if x != NIL && self.node(x).score == score && *self.node(x).member == *member {
            self.unlink(x, &update);
            true
        } else {
            false
        }
    }

    /// The node at 1-based `rank`, or `NIL`.
    fn at_rank(&self, rank: usize) -> u32 {
        if rank == 0 || rank > self.len {
            return NIL;
        }
        let mut x = HEAD;
        let mut traversed = 0usize;
        for i in (0..self.level).rev() {
            loop {
                let l = self.link(x, i);
                if l.next != NIL && traversed + l.span as usize <= rank {
                    traversed += l.span as usize;
                    x = l.next;
                } else {
                    break;
                }
            }
            if traversed == rank {
                return x;
            }
        }
        NIL
    }

    /// Removes the nodes with 1-based ranks `start..=end` (clamped to the list), calling
    /// `gone` with each removed member. O(log N + M).
    fn remove_rank_range(&mut self, start: usize, end: usize, mut gone: impl FnMut(&[u8])) {
        if start == 0 || start > end || start > self.len {
            return;
        }
        let mut update = [HEAD; MAX_LEVEL];
        let mut traversed = 0usize;
        let mut x = HEAD;
        for i in (0..self.level).rev() {
            loop {
                let l = self.link(x, i);
                if l.next != NIL && traversed + (l.span as usize) < start {
                    traversed += l.span as usize;
                    x = l.next;
                } else {
                    break;
                }
            }
            update[i] = x;
        }
        let mut rank = traversed + 1;
        let mut x = self.link(x, 0).next;
        while x != NIL && rank <= end {
            let next = self.link(x, 0).next;
            gone(&self.node(x).member);
            self.unlink(x, &update);
            x = next;
            rank += 1;
        }
    }
}

/// A sorted set: members with scores, ordered by `(score, member)`. See the module
/// documentation for the representation and its invariants.
#[derive(Clone)]
pub struct ZSet {
    dict: IndexMap<Rc<[u8]>, Slot, Hasher>,
    list: SkipList,
    listpack: bool,
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

/// The dict's value for a member: its node and, copied there so that `ZSCORE` needs no
/// trip to the node, its score.
#[derive(Debug, Clone, Copy)]
struct Slot {
    id: u32,
    score: f64,
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
            dict: IndexMap::with_hasher(Hasher::default()),
            list: SkipList::new(),
            listpack: true,
        }
    }

    /// An empty sorted set already in the skiplist encoding (what Redis creates for a
    /// `*STORE` result before deciding whether to shrink it). **O(1).**
    pub fn new_skiplist() -> ZSet {
        ZSet {
            listpack: false,
            ..ZSet::new()
        }
    }

    /// Number of members. **O(1).**
    pub fn len(&self) -> usize {
        self.dict.len()
    }

    /// True when there are no members. **O(1).**
    pub fn is_empty(&self) -> bool {
        self.dict.is_empty()
    }

    /// True while Redis would still use the listpack encoding.
    pub fn is_listpack(&self) -> bool {
        self.listpack
    }

    /// The `OBJECT ENCODING` name: `listpack` or `skiplist`.
    pub fn encoding(&self) -> &'static str {
        if self.listpack {
            "listpack"
        } else {
            "skiplist"
        }
    }

    /// Converts to the skiplist encoding for good (what `SORT` does to a small sorted set).
    pub fn force_skiplist(&mut self) {
        self.listpack = false;
    }

    /// Re-evaluates the encoding of a freshly built set, as Redis's
    /// `zsetConvertToListpackIfNeeded` does after `ZUNIONSTORE` and friends. **O(N).**
    pub fn shrink_encoding_if_small(&mut self) {
        if self.listpack {
            return;
        }
        self.listpack = self.len() <= MAX_LISTPACK_ENTRIES
            && self.dict.keys().all(|m| m.len() <= MAX_LISTPACK_VALUE);
        if self.listpack {
            // A listpack stores an integral score as an integer, so -0 becomes 0.
            for slot in self.dict.values_mut() {
                if slot.score == 0.0 {
                    slot.score = 0.0;
                    self.list.nodes[slot.id as usize].score = 0.0;
                }
            }
        }
    }

    /// The score of `member`. **O(1).**
    pub fn score(&self, member: &[u8]) -> Option<f64> {
        self.dict.get(member).map(|slot| slot.score)
    }

    /// True if `member` is present. **O(1).**
    pub fn contains(&self, member: &[u8]) -> bool {
        self.dict.contains_key(member)
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
        debug_assert!(!score.is_nan());
        let len = self.dict.len();
        if let Some(slot) = self.dict.get_mut(member) {
            let score = if self.listpack && score == 0.0 {
                0.0
            } else {
                score
            };
            let (id, cur) = (slot.id, slot.score);
            if cur == score {
                return AddOutcome::Unchanged;
            }
            slot.score = score;
            let rc = Rc::clone(&self.list.node(id).member);
            // Update in place when the node keeps its position (Redis's zslUpdateScore).
            let back = self.list.node(id).back;
            let next = self.list.link(id, 0).next;
            let after_back = back == NIL || self.list.node(back).lt(score, &rc);
            let before_next = next == NIL || !self.list.node(next).lt(score, &rc);
            if after_back && before_next {
                self.list.nodes[id as usize].score = score;
            } else {
                self.list.remove(cur, &rc);
                slot.id = self.list.insert(Rc::clone(&rc), score);
            }
            return AddOutcome::Updated;
        }
        if len + 1 > MAX_LISTPACK_ENTRIES || member.len() > MAX_LISTPACK_VALUE {
            self.listpack = false;
        }
        let score = if self.listpack && score == 0.0 {
            0.0
        } else {
            score
        };
        let rc: Rc<[u8]> = Rc::from(member);
        let id = self.list.insert(Rc::clone(&rc), score);
        self.dict.insert(rc, Slot { id, score });
        AddOutcome::Added
    }

    /// Removes `member`, returning its score. **O(log N).**
    pub fn remove(&mut self, member: &[u8]) -> Option<f64> {
        let Slot { score, .. } = self.dict.swap_remove(member)?;
        let removed = self.list.remove(score, member);
        debug_assert!(removed);
        self.compact_if_sparse();
        Some(score)
    }

    /// Gives memory back after many removals: rebuilds the node arena when more than half
    /// of it is free (amortized O(1) per removal).
    fn compact_if_sparse(&mut self) {
        if self.list.sparse() {
            let map = self.list.compact();
            for slot in self.dict.values_mut() {
                slot.id = map[slot.id as usize];
            }
            self.dict.shrink_to_fit();
        }
    }

    /// The 0-based rank of `member` in ascending order. **O(log N).**
    pub fn rank(&self, member: &[u8]) -> Option<usize> {
        let score = self.score(member)?;
        let (id, rank) = self
            .list
            .last_where(|n| n.score < score || (n.score == score && *n.member <= *member));
        debug_assert!(id != HEAD && *self.list.node(id).member == *member);
        Some(rank - 1)
    }

    /// The member and score at 0-based ascending `rank`. **O(log N).**
    pub fn get_by_rank(&self, rank: usize) -> Option<(&[u8], f64)> {
        let id = self.list.at_rank(rank.checked_add(1)?);
        (id != NIL).then(|| {
            let n = self.list.node(id);
            (&n.member[..], n.score)
        })
    }

    /// Iterates in ascending order. **O(1)** per step.
    pub fn iter(&self) -> Iter<'_> {
        Iter {
            list: &self.list,
            at: self.list.link(HEAD, 0).next,
            rev: false,
            left: self.len(),
        }
    }

    /// Iterates from 0-based ascending `rank`, ascending or (with `rev`) descending, with
    /// at most `limit` steps. **O(log N)** to start, O(1) per step.
    pub fn iter_from_rank(&self, rank: usize, rev: bool, limit: usize) -> Iter<'_> {
        let at = if rank == 0 && !rev {
            self.list.link(HEAD, 0).next
        } else if rev && rank + 1 == self.len() {
            self.list.tail
        } else {
            self.list.at_rank(rank.saturating_add(1))
        };
        Iter {
            list: &self.list,
            at,
            rev,
            left: limit,
        }
    }

    /// The first (lowest) member and its score. **O(1).**
    pub fn first(&self) -> Option<(&[u8], f64)> {
        let id = self.list.link(HEAD, 0).next;
        (id != NIL).then(|| (&self.list.node(id).member[..], self.list.node(id).score))
    }

    /// The last (highest) member and its score. **O(1).**
    pub fn last(&self) -> Option<(&[u8], f64)> {
        let id = self.list.tail;
        (id != NIL).then(|| (&self.list.node(id).member[..], self.list.node(id).score))
    }

    /// Rank (0-based) of the first member inside `range`. **O(log N).**
    pub fn first_in_score_range(&self, range: &ScoreRange) -> Option<usize> {
        if range.is_empty() || self.is_empty() {
            return None;
        }
        let (id, rank) = self.list.last_where(|n| !range.gte_min(n.score));
        let next = self.list.link(id, 0).next;
        (next != NIL && range.lte_max(self.list.node(next).score)).then_some(rank)
    }

    /// Rank (0-based) of the last member inside `range`. **O(log N).**
    pub fn last_in_score_range(&self, range: &ScoreRange) -> Option<usize> {
        if range.is_empty() || self.is_empty() {
            return None;
        }
        let (id, rank) = self.list.last_where(|n| range.lte_max(n.score));
        (id != HEAD && range.gte_min(self.list.node(id).score)).then(|| rank - 1)
    }

    /// Number of members inside `range`. **O(log N).**
    pub fn count_in_score_range(&self, range: &ScoreRange) -> usize {
        match (
            self.first_in_score_range(range),
            self.last_in_score_range(range),
        ) {
            (Some(a), Some(b)) if b >= a => b - a + 1,
            _ => 0,
        }
    }

    /// Rank (0-based) of the first member inside the lexicographic `range`.
    ///
    /// Lexicographic ranges are meaningful when all scores are equal, as Redis documents.
    /// When they are not, members are not in lexicographic order and the answer depends on
    /// how the search runs; we follow Redis for each encoding: a listpack is scanned from
    /// the head for the first member at or above `min` (which must then be at or below
    /// `max`), a skiplist is descended. **O(log N)** (a listpack has at most 128 members).
    pub fn first_in_lex_range(&self, range: &LexRange) -> Option<usize> {
        if range.is_empty() || !self.lex_overlaps(range) {
            return None;
        }
        if self.listpack {
            let (i, (m, _)) = self
                .iter()
                .enumerate()
                .find(|(_, (m, _))| range.gte_min(m))?;
            return range.lte_max(m).then_some(i);
        }
        let (id, rank) = self.list.last_where(|n| !range.gte_min(&n.member));
        let next = self.list.link(id, 0).next;
        (next != NIL && range.lte_max(&self.list.node(next).member)).then_some(rank)
    }

    /// Rank (0-based) of the last member inside the lexicographic `range` (a listpack is
    /// scanned from the tail; see [`ZSet::first_in_lex_range`]). **O(log N).**
    pub fn last_in_lex_range(&self, range: &LexRange) -> Option<usize> {
        if range.is_empty() || !self.lex_overlaps(range) {
            return None;
        }
        if self.listpack {
            let n = self.len();
            let (i, (m, _)) = self
                .iter_from_rank(n - 1, true, n)
                .enumerate()
                .find(|(_, (m, _))| range.lte_max(m))?;
            return range.gte_min(m).then_some(n - 1 - i);
        }
        let (id, rank) = self.list.last_where(|n| range.lte_max(&n.member));
        (id != HEAD && range.gte_min(&self.list.node(id).member)).then(|| rank - 1)
    }

    /// Number of members inside the lexicographic `range`, as `ZLEXCOUNT` counts them: a
    /// listpack walks on from the first member while members stay at or below `max`, a
    /// skiplist subtracts the ranks of the first and last members. **O(log N).**
    pub fn count_in_lex_range(&self, range: &LexRange) -> usize {
        let Some(first) = self.first_in_lex_range(range) else {
            return 0;
        };
        if self.listpack {
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
        let before = self.len();
        let dict = &mut self.dict;
        self.list.remove_rank_range(
            start.saturating_add(1),
            end.saturating_add(1),
            |m: &[u8]| {
                dict.swap_remove(m);
            },
        );
        self.compact_if_sparse();
        before - self.len()
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

    /// The member at storage position `pos` of the dict (for random picks and `ZSCAN`).
    /// Positions are `0..len`; removing a member moves the last one into its slot.
    /// **O(1).**
    pub fn get_index(&self, pos: usize) -> Option<(&[u8], f64)> {
        self.dict
            .get_index(pos)
            .map(|(m, slot)| (&m[..], slot.score))
    }

    /// Checks every invariant listed in the module documentation. **O(N log N).** For
    /// tests and debugging.
    pub fn check_invariants(&self) -> Result<(), String> {
        let l = &self.list;
        if l.len != self.dict.len() {
            return Err(format!("len {} != dict {}", l.len, self.dict.len()));
        }
        // Level 0: order, back links, tail, dict agreement.
        let mut seen = 0usize;
        let mut prev = NIL;
        let mut x = l.link(HEAD, 0).next;
        let mut ranks = std::collections::HashMap::new();
        while x != NIL {
            seen += 1;
            if seen > l.len {
                return Err("level 0 longer than len (cycle?)".into());
            }
            let n = l.node(x);
            if n.score.is_nan() {
                return Err("NaN score".into());
            }
            if n.back != prev {
                return Err(format!("bad back link at rank {seen}"));
            }
            if prev != NIL {
                let p = l.node(prev);
                if !p.lt(n.score, &n.member) {
                    return Err(format!("order broken at rank {seen}"));
                }
            }
            match self.dict.get(&n.member[..]) {
                Some(slot) if slot.id == x && slot.score.to_bits() == n.score.to_bits() => {}
                _ => return Err(format!("dict disagrees at rank {seen}")),
            }
            ranks.insert(x, seen);
            prev = x;
            x = l.link(x, 0).next;
        }
        if seen != l.len {
            return Err(format!("level 0 has {seen} nodes, len {}", l.len));
        }
        if l.tail != prev {
            return Err("bad tail".into());
        }
        // Higher levels: order and spans.
        let rank_of = |id: u32| -> usize {
            if id == HEAD {
                0
            } else if id == NIL {
                l.len
            } else {
                ranks.get(&id).copied().unwrap_or(usize::MAX)
            }
        };
        for i in 0..l.level {
            let mut x = HEAD;
            loop {
                let link = l.link(x, i);
                let (a, b) = (rank_of(x), rank_of(link.next));
                if b == usize::MAX || (b <= a && link.next != NIL) || b < a {
                    return Err(format!("level {i}: link goes backwards or to a dead node"));
                }
                if link.span as usize != b - a {
                    return Err(format!("level {i}: span {} != {}", link.span, b - a));
                }
                if link.next == NIL {
                    break;
                }
                if usize::from(l.node(link.next).level) <= i {
                    return Err(format!("level {i}: links a node without that level"));
                }
                x = link.next;
            }
        }
        if l.level > 1 && l.link(HEAD, l.level - 1).next == NIL {
            return Err("top level is empty".into());
        }
        if self.listpack && self.iter().any(|(_, s)| s == 0.0 && s.is_sign_negative()) {
            return Err("-0 score in a listpack".into());
        }
        if self.listpack
            && (self.len() > MAX_LISTPACK_ENTRIES
                || self.dict.keys().any(|m| m.len() > MAX_LISTPACK_VALUE))
        {
            return Err("listpack flag on a set Redis would not keep as listpack".into());
        }
        Ok(())
    }
}

impl FromIterator<(Vec<u8>, f64)> for ZSet {
    /// Builds a set from `(member, score)` pairs (later pairs win), with the encoding a
    /// `*STORE` command would give it.
    fn from_iter<I: IntoIterator<Item = (Vec<u8>, f64)>>(iter: I) -> ZSet {
        let mut z = ZSet::new_skiplist();
        for (m, s) in iter {
            z.add(&m, s);
        }
        z.shrink_encoding_if_small();
        z
    }
}

/// Iterator over `(member, score)` in ascending or descending order.
pub struct Iter<'a> {
    list: &'a SkipList,
    at: u32,
    rev: bool,
    left: usize,
}

impl<'a> Iterator for Iter<'a> {
    type Item = (&'a [u8], f64);

    fn next(&mut self) -> Option<Self::Item> {
        if self.at == NIL || self.left == 0 {
            return None;
        }
        self.left -= 1;
        let n = self.list.node(self.at);
        self.at = if self.rev { n.back } else { n.link(0).next };
        Some((&n.member[..], n.score))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (0, Some(self.left))
    }
}

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
            ZInput::Set(s) => Box::new(s.iter().map(|m| (m.as_slice(), 1.0))),
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
            SortSource::Set(s) => s.iter().skip(start).take(count).cloned().collect(),
        }
    }

    /// Every element, in iteration order. **O(N).**
    pub fn all(&self) -> Vec<Vec<u8>> {
        match self {
            SortSource::ZSet(z) => z.iter().map(|(m, _)| m.to_vec()).collect(),
            SortSource::List(l) => l.range(0, -1).cloned().collect(),
            SortSource::Set(s) => s.iter().cloned().collect(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn z(pairs: &[(&str, f64)]) -> ZSet {
        let mut z = ZSet::new();
        for (m, s) in pairs {
            z.add(m.as_bytes(), *s);
        }
        z.check_invariants().unwrap();
        z
    }

    #[test]
    fn orders_by_score_then_member_bytes() {
        let s = z(&[("b", 1.0), ("a", 1.0), ("c", 0.5), ("ab", 1.0)]);
        let order: Vec<_> = s.iter().map(|(m, _)| m.to_vec()).collect();
        assert_eq!(order, [&b"c"[..], b"a", b"ab", b"b"]);
        assert_eq!(s.rank(b"ab"), Some(2));
        assert_eq!(s.get_by_rank(3), Some((&b"b"[..], 1.0)));
        assert_eq!(s.get_by_rank(4), None);
    }

    #[test]
    fn updates_move_members_and_keep_invariants() {
        let mut s = z(&[("a", 1.0), ("b", 2.0), ("c", 3.0)]);
        assert_eq!(s.add(b"a", 10.0), AddOutcome::Updated);
        assert_eq!(s.add(b"b", 2.5), AddOutcome::Updated);
        assert_eq!(s.add(b"c", 3.0), AddOutcome::Unchanged);
        s.check_invariants().unwrap();
        assert_eq!(s.rank(b"a"), Some(2));
        assert_eq!(s.remove(b"b"), Some(2.5));
        assert_eq!(s.remove(b"b"), None);
        s.check_invariants().unwrap();
    }

    #[test]
    fn ranges_and_counts() {
        let mut s = ZSet::new();
        for i in 0..1000 {
            s.add(format!("m{i:04}").as_bytes(), f64::from(i / 10));
        }
        s.check_invariants().unwrap();
        let r = ScoreRange {
            min: 5.0,
            max: 7.0,
            minex: false,
            maxex: true,
        };
        assert_eq!(s.first_in_score_range(&r), Some(50));
        assert_eq!(s.last_in_score_range(&r), Some(69));
        assert_eq!(s.count_in_score_range(&r), 20);
        assert_eq!(s.remove_score_range(&r), 20);
        s.check_invariants().unwrap();
        assert_eq!(s.remove_rank_range(0, 9), 10);
        s.check_invariants().unwrap();
        assert_eq!(s.len(), 970);
        assert!(!s.is_listpack());
    }

    #[test]
    fn lex_ranges() {
        let s = z(&[("a", 0.0), ("b", 0.0), ("c", 0.0), ("d", 0.0)]);
        let r = LexRange {
            min: LexBound::Excl(b"a".to_vec()),
            max: LexBound::Incl(b"c".to_vec()),
        };
        assert_eq!(s.count_in_lex_range(&r), 2);
        let all = LexRange {
            min: LexBound::NegInf,
            max: LexBound::PosInf,
        };
        assert_eq!(s.count_in_lex_range(&all), 4);
        let none = LexRange {
            min: LexBound::PosInf,
            max: LexBound::NegInf,
        };
        assert_eq!(s.count_in_lex_range(&none), 0);
    }

    #[test]
    fn removals_compact_the_arena() {
        let mut s = ZSet::new();
        for i in 0..1000 {
            s.add(format!("m{i}").as_bytes(), f64::from(i % 7));
        }
        for i in (0..1000).step_by(2) {
            s.remove(format!("m{i}").as_bytes());
            if i % 50 == 0 {
                s.check_invariants().unwrap();
            }
        }
        s.remove_rank_range(10, 400);
        s.check_invariants().unwrap();
        assert_eq!(s.len(), 109);
        assert!(
            s.list.nodes.len() < 2 * 109 + 64,
            "arena kept {}",
            s.list.nodes.len()
        );
        for i in 0..50 {
            s.add(format!("new{i}").as_bytes(), -1.0);
        }
        s.check_invariants().unwrap();
        assert_eq!(s.rank(b"new0"), Some(0));
    }

    #[test]
    fn encoding_follows_redis_thresholds() {
        let mut s = ZSet::new();
        for i in 0..128 {
            s.add(format!("{i}").as_bytes(), 0.0);
        }
        assert_eq!(s.encoding(), "listpack");
        s.add(b"one more", 0.0);
        assert_eq!(s.encoding(), "skiplist");
        s.remove_rank_range(0, 200);
        assert!(s.is_empty());
        assert_eq!(s.encoding(), "skiplist");
        let mut t = ZSet::new();
        t.add(&[b'x'; 65], 1.0);
        assert_eq!(t.encoding(), "skiplist");
    }
}
