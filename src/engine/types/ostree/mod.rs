//! An order-statistics B+ tree: a sequence kept in order, with rank queries.
//!
//! # Why it exists
//! A sorted set must answer "how many members precede this one?" (`ZRANK`, `ZCOUNT`) and
//! "which member is at rank r?" (`ZRANGE`) in O(log N). Redis uses a skiplist whose links
//! record how many elements they jump. We used one too, and measured it: at a million
//! members every step of a skiplist descent is a dependent read from main memory, about
//! twenty of them per `ZRANK`, so `ZRANK` cost 15× more at N = 1,000,000 than at N = 1,000
//! although log N only doubles. A B+ tree with 32–64 entries per node is three or four
//! levels deep at a million entries, and each level is one contiguous array, so a descent
//! costs a handful of cache misses (see `benches/zset.rs`, which times both sizes).
//!
//! Crates were checked first: `wabi_tree` (an order-statistic B-tree map) ranks only keys
//! that are present and orders by `Ord` on whole keys, but a sorted set must also descend
//! by partial keys ("first member whose score is ≥ min", "first member ≥ `[abc` by bytes",
//! including Redis's defined-by-the-search answers when scores differ), so we need a
//! descent driven by a caller's predicate; `indexset` rebuilds a flat index on splits (O(N)
//! inserts). So the tree is written here, generic over its elements and knowing nothing of
//! scores.
//!
//! # Keys apart from values
//! An element is a pair: a small `Copy` *key* (a sorted set's score) and a *value* (the
//! member), ordered by key first and by value only among equal keys. Each node keeps its
//! keys in one array and its values in another. A search by key ([`OsTree::rank_of`])
//! counts the keys below the probe with a branch-free pass over that array (64 scores are
//! 512 bytes, eight cache lines whose loads the CPU issues together instead of one after
//! another as a binary search must), and reads a value only where keys tie. With keys and
//! values interleaved, a binary search over a leaf of 32-byte entries made five dependent
//! reads from main memory at a million members, per level. A search by any other order
//! (lexicographic ranges) is a predicate `before(key, value)` that holds for a prefix of
//! the sequence ([`OsTree::rank_where`]), answered by binary search. Every answer is a rank.
//!
//! # Representation
//! A node is a leaf (up to [`LEAF_MAX`] elements, in order: `keys[i]` with `vals[i]`) or
//! an inner node holding up to [`INNER_MAX`] children, the number of elements under each
//! child (`counts`), and between consecutive children a *separator*: a copy of an element
//! (`keys[i]`, `seps[i]`) that sorts after everything in the left child and at or before
//! everything in the right one. A descent by key or predicate compares against separators
//! only, so it reads one node per level; a descent by rank reads the counts only.
//!
//! Each node is one heap block with its arrays inside it: fixed-capacity arrays
//! (`arrayvec::ArrayVec`, one slot over the maximum for the element that overflows a node
//! just before it splits), so a node is reached by one pointer and its keys are at a fixed
//! offset in it. A child link (`Node`) is a tag and a `Box`, 16 bytes, stored in the
//! parent's `kids` array. An inner node lays out, in this order, its separator keys, its
//! child links, its counts and its separator values; a leaf its keys, then its values.
//!
//! Why: the ratio of a lookup's cost at a million members to its cost at a thousand is
//! set by how many *dependent* main-memory reads a descent makes. When nodes held `Vec`s
//! (and children in a `Vec<Node>`), a level cost a read of the node's header (in the
//! parent's child buffer) to learn where its keys were, then a read of the keys, then the
//! child's header again: two misses in a row per level, and the counts a third buffer.
//! Now a descent asks for the keys, the child links and the counts of a node at once
//! (`Inner::warm` touches one word per cache line of the links and counts before the
//! keys are compared; those reads do not depend on the comparison, so the CPU overlaps
//! them with the key reads), and the link it then follows is already in cache: about one
//! round trip to memory per level. Measured with `cargo bench --bench zset`, alternating
//! runs of both versions on the same loaded machine (best of three runs each, with a
//! dependent random read costing 360–950 ns there), at N = 1,000,000: `ZRANK` went from
//! 3.98 to 2.67 µs (1M / 1k from 4.7 to 2.6), `ZCOUNT` from 4.34 to 2.52 µs, `ZRANGE` by
//! rank from 3.24 to 2.58 µs (`ZSCORE`, which reads no tree, moved only by noise). `ZADD`
//! moving a member to a random score did not get measurably cheaper from that alone: it
//! made two descents to unrelated leaves, one after the other (the next paragraph says
//! what changed that). Memory per member went from 134 to 129 bytes (the `Vec` headers are
//! gone; a node's unused slots cost what the `Vec`s' spare capacity did). The price: even
//! an empty tree holds one leaf block of about 2 KiB.
//!
//! A change of key ([`OsTree::rekey`]: `ZADD` or `ZINCRBY` on a present member) finds the
//! old place and the new one in a single descent that follows both paths side by side,
//! so that their cache misses overlap, then removes and inserts along those paths without
//! searching again; an element that stays inside its leaf (`ZINCRBY` by a small amount,
//! usually) moves within the leaf. Measured with `cargo bench --bench zset` against the
//! two descents and two searches before it: `ZADD` to a random score at N = 1,000,000
//! went from about 1.9 to 1.65 µs, and `cachegrind` counted 6,320 instructions per
//! update at 1M before and 5,030 after.
//!
//! # Filling
//! A leaf splits in half, except when the element that overflows it went to one of its
//! ends (`split_point`): then the leaf left behind keeps three quarters. Members added
//! in score order (timestamps, counters, or a set loaded in order) used to leave every
//! leaf behind the growing end half full, at its minimum, so that the first removal from
//! it (a `ZADD` moving a member away) merged or refilled it: in the benchmark's set,
//! built in order, one update in five did. For the uneven split, leaves may go down to a
//! quarter full (inner nodes keep half). Measured with `cargo bench --bench zset`: a set
//! of 1,000,000 members loaded in order went from 127.4 to 104.0 bytes per member, and
//! `ZADD` to a random score on it from 1.74/1.62 to 1.60/1.56 µs (two runs each).
//!
//! # Invariants
//! 1. All leaves are at the same depth. `len` is the number of elements.
//! 2. A leaf's `keys` and `vals` have the same length. An inner node with `k` children has
//!    `k - 1` separators (`keys` and `seps`) and `k` counts; `counts[i]` is the number of
//!    elements under child `i`.
//! 3. Every node other than the root has at least its minimum: a quarter of its maximum
//!    for a leaf (`LEAF_MAX / 4` elements), half for an inner node (`INNER_MAX / 2`
//!    children); an inner root has at least two children. No node exceeds its maximum.
//! 4. With `max(c)`/`min(c)` the last/first element under child `c`:
//!    `max(kid i) < sep[i] ≤ min(kid i+1)` in the caller's order. A separator may be a copy
//!    of an element since removed (it still separates); it is dropped when its children
//!    merge.
//! 5. The elements, read leaf by leaf from the left, are the sequence, in order; keys are
//!    never unordered with each other (no NaN score), so counting keys below a probe gives
//!    a prefix.
//!
//! [`OsTree::check`] verifies them all; the property tests call it after every step.
//!
//! # Costs
//! With d the depth (⌈log₃₂ N⌉ at worst: 4 levels hold over a million elements), a search
//! by key, predicate or rank reads d nodes, O(log N) (the key pass over a node is at most
//! 64 comparisons, a constant); insert and remove at a position are O(log N) (a split or
//! merge touches one node per level); iteration is amortized O(1) per element. Removing M
//! consecutive elements drains a run of one leaf per descent, at least a quarter of a leaf
//! after the first, so it costs O(log N + M·d/16): O(log N + M) for any depth a real set
//! reaches (d ≤ 5 up to a billion elements).
//!
//! # Changing it
//! A performance change to this structure lands only with the scale tests passing in
//! release mode: `cargo test --release --test scale --test scale_diff` (here
//! `zset_large_against_a_model` and its redis-server twin), which take it to a million live
//! elements against a plain model and against a real Redis (issue 18). A fast path that
//! trusts a hash, a tag, a probed slot or a cached position confirms the bytes before it
//! changes data or a reply.

use std::cmp::Ordering;

use arrayvec::ArrayVec;

mod iter;
mod rec;
#[cfg(test)]
mod tests;
pub use iter::Iter;
use rec::{check_rec, insert_rec, remove_on_path, remove_rec};

/// Most elements in a leaf.
pub const LEAF_MAX: usize = 64;
/// Most children of an inner node.
pub const INNER_MAX: usize = 64;
/// Fewest elements in a leaf other than the root: a quarter, so that a leaf can split
/// unevenly (see [`split_point`]).
const LEAF_MIN: usize = LEAF_MAX / 4;
const INNER_MIN: usize = INNER_MAX / 2;
/// Room in a leaf's arrays: one more than the maximum, for the element that overflows it
/// just before it splits.
const LEAF_CAP: usize = LEAF_MAX + 1;
/// Room in an inner node's arrays, likewise.
const INNER_CAP: usize = INNER_MAX + 1;

/// A leaf: its elements in order, `keys[i]` with `vals[i]`, both arrays inside the node.
#[derive(Debug, Clone)]
#[repr(C)]
struct Leaf<K, V> {
    keys: ArrayVec<K, LEAF_CAP>,
    vals: ArrayVec<V, LEAF_CAP>,
}

impl<K, V> Leaf<K, V> {
    fn boxed() -> Box<Leaf<K, V>> {
        Box::new(Leaf {
            keys: ArrayVec::new(),
            vals: ArrayVec::new(),
        })
    }
}

/// An inner node. The fields are laid out in the order a descent reads them (`repr(C)`):
/// separator keys, then child pointers, then counts; separator values last, read only
/// where keys tie.
#[derive(Debug, Clone)]
#[repr(C)]
struct Inner<K, V> {
    /// Separator keys.
    keys: ArrayVec<K, INNER_CAP>,
    kids: ArrayVec<Node<K, V>, INNER_CAP>,
    counts: ArrayVec<usize, INNER_CAP>,
    /// Separator values.
    seps: ArrayVec<V, INNER_CAP>,
}

impl<K, V> Inner<K, V> {
    /// Reads one word from each cache line of the child pointers and of the counts, and
    /// throws the result away. A descent calls this before it compares the keys: the
    /// loads do not depend on the comparison, so the CPU requests those lines while the
    /// key lines are still on their way, and the pointer to follow (and the counts to
    /// add) are in cache when the comparison ends. Without it, reading `kids[j]` is one
    /// more dependent miss per level. (Safe code: plain reads and [`std::hint::black_box`],
    /// no prefetch intrinsic.)
    #[inline(always)]
    fn warm(&self) {
        let counts: usize = self.counts.iter().step_by(8).sum();
        std::hint::black_box(self.warm_links() ^ counts);
    }

    /// Reads one word from each cache line of the child pointers only, for a descent that
    /// does not add up counts ([`OsTree::rekey`]).
    #[inline(always)]
    fn warm_links(&self) -> usize {
        let kids = self
            .kids
            .iter()
            .step_by((64 / std::mem::size_of::<Node<K, V>>()).max(1))
            .filter(|k| matches!(k, Node::Leaf(_)))
            .count();
        std::hint::black_box(kids)
    }

    fn boxed() -> Box<Inner<K, V>> {
        Box::new(Inner {
            keys: ArrayVec::new(),
            kids: ArrayVec::new(),
            counts: ArrayVec::new(),
            seps: ArrayVec::new(),
        })
    }
}

/// A node: a pointer to its block (16 bytes with the tag).
#[derive(Debug, Clone)]
enum Node<K, V> {
    Leaf(Box<Leaf<K, V>>),
    Inner(Box<Inner<K, V>>),
}

impl<K, V> Node<K, V> {
    fn count(&self) -> usize {
        match self {
            Node::Leaf(l) => l.keys.len(),
            Node::Inner(n) => n.counts.iter().sum(),
        }
    }

    /// True when this (non-root) node is below its minimum.
    fn underfull(&self) -> bool {
        match self {
            Node::Leaf(l) => l.keys.len() < LEAF_MIN,
            Node::Inner(n) => n.kids.len() < INNER_MIN,
        }
    }

    /// Number of slots it uses: elements for a leaf, children for an inner node.
    fn width(&self) -> usize {
        match self {
            Node::Leaf(l) => l.keys.len(),
            Node::Inner(n) => n.kids.len(),
        }
    }
}

/// How [`OsTree::rekey`] moved an element.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Moved {
    /// Within its leaf, in place.
    WithinLeaf,
    /// Removed and inserted again.
    Reinserted,
}

/// A sequence of `(key, value)` pairs in order with O(log N) rank queries. See the module
/// documentation.
#[derive(Debug, Clone)]
pub struct OsTree<K, V> {
    root: Node<K, V>,
    len: usize,
}

impl<K: Copy + PartialOrd, V: Clone> Default for OsTree<K, V> {
    fn default() -> Self {
        OsTree::new()
    }
}

/// Index of the child of `n` holding rank `r`, and the rank left inside it.
fn child_at_rank<K, V>(n: &Inner<K, V>, mut r: usize) -> (usize, usize) {
    let last = n.counts.len().saturating_sub(1);
    for (i, &c) in n.counts.iter().enumerate() {
        if r < c || i == last {
            return (i, r);
        }
        r -= c;
    }
    (0, r)
}

/// How many of the pairs `(keys[i], vals[i])` sort before the probe: those whose key is
/// below `key`, then, among those whose key equals it, those for which `tie` holds (a
/// prefix of that run). The keys are counted in one branch-free pass, so all of the
/// array's cache lines are requested at once; values are read only in the tied run.
#[inline]
fn split_by_key<K: Copy + PartialOrd, V>(
    keys: &[K],
    vals: &[V],
    key: K,
    tie: &mut impl FnMut(&V) -> bool,
) -> usize {
    let below = keys.iter().filter(|k| **k < key).count();
    let equal = keys
        .get(below..)
        .map_or(0, |rest| rest.iter().take_while(|k| **k == key).count());
    below
        + vals
            .get(below..below + equal)
            .map_or(0, |run| run.partition_point(|v| tie(v)))
}

/// How many of the pairs `(keys[i], vals[i])` satisfy `before`, which holds for a prefix
/// (binary search).
#[inline]
fn split_where<K, V>(keys: &[K], vals: &[V], before: &mut impl FnMut(&K, &V) -> bool) -> usize {
    let (mut lo, mut hi) = (0, keys.len().min(vals.len()));
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        match (keys.get(mid), vals.get(mid)) {
            (Some(k), Some(v)) if before(k, v) => lo = mid + 1,
            _ => hi = mid,
        }
    }
    lo
}

impl<K: Copy + PartialOrd, V: Clone> OsTree<K, V> {
    /// An empty tree. **O(1).**
    pub fn new() -> OsTree<K, V> {
        OsTree {
            root: Node::Leaf(Leaf::boxed()),
            len: 0,
        }
    }

    /// Number of elements. **O(1).**
    pub fn len(&self) -> usize {
        self.len
    }

    /// True when empty.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The number of elements that sort before the probe `(key, …)`: every element with a
    /// smaller key, and those with an equal key for which `tie(value)` holds (which must
    /// hold for a prefix of them). **O(log N).**
    pub fn rank_of(&self, key: K, mut tie: impl FnMut(&V) -> bool) -> usize {
        self.rank_by(|keys, vals| split_by_key(keys, vals, key, &mut tie))
    }

    /// The number of elements for which `before` holds; `before` must hold for a prefix of
    /// the sequence (then this is the rank of the first element where it fails).
    /// **O(log N).**
    pub fn rank_where(&self, mut before: impl FnMut(&K, &V) -> bool) -> usize {
        self.rank_by(|keys, vals| split_where(keys, vals, &mut before))
    }

    /// Descends with `pos`, which says how many pairs of a node sort before the probe.
    fn rank_by(&self, mut pos: impl FnMut(&[K], &[V]) -> usize) -> usize {
        let mut node = &self.root;
        let mut rank = 0;
        loop {
            match node {
                Node::Leaf(l) => return rank + pos(&l.keys, &l.vals),
                Node::Inner(n) => {
                    n.warm();
                    let j = pos(&n.keys, &n.seps);
                    rank += n.counts[..j].iter().sum::<usize>();
                    node = &n.kids[j];
                }
            }
        }
    }

    /// Gives the element `(key, v)` with `find(v) == Equal` the key `new_key`, moving it to
    /// the place `(new_key, not_after)` finds (as [`OsTree::insert`] finds it), and says
    /// how it moved; `None`, changing nothing, when the tree holds no such element.
    /// `find(v)` says how `v` compares with the value sought: `Less` for the values that
    /// sort before it among equal keys (as `tie` does for [`OsTree::rank_of`]), `Equal`
    /// for the value itself. **O(log N).**
    ///
    /// The element at the place the descent finds is confirmed with `find` before anything
    /// changes: a caller may name a key it has not verified (a sorted set's `ZADD` starts
    /// from the score in a dict slot whose member bytes it has not compared yet), and the
    /// element there may be another one with the same key. Trusting the place alone once
    /// moved that other element and lost the caller's (issue 18).
    ///
    /// The old place and the new one are found in one descent that follows both paths
    /// side by side, a level at a time: the two paths' nodes do not depend on each other,
    /// so the CPU fetches them together, and in a large tree (where each level is a read
    /// from main memory) the move costs about one descent's latency instead of two. The
    /// element then leaves its leaf and enters the new one along the paths found, without
    /// searching again: within the leaf when both are the same, and otherwise by a
    /// removal and an insertion, unless the removal would leave its leaf underfull (the
    /// merge could move the new place), when the insertion searches anew.
    pub fn rekey(
        &mut self,
        key: K,
        mut find: impl FnMut(&V) -> Ordering,
        new_key: K,
        mut not_after: impl FnMut(&V) -> bool,
    ) -> Option<Moved> {
        let mut tie = |v: &V| find(v) == Ordering::Less;
        let mut old = &self.root;
        let mut new = &self.root;
        // The children taken on each path (the depth is at most ⌈log₃₂ N⌉ + 1, so 16
        // levels are more than any tree has), the new path ending with the index in its
        // leaf.
        let mut old_path = ArrayVec::<usize, 16>::new();
        let mut new_path = ArrayVec::<usize, 17>::new();
        let found = loop {
            match (old, new) {
                (Node::Inner(a), Node::Inner(b)) => {
                    a.warm_links();
                    b.warm_links();
                    let i = split_by_key(&a.keys, &a.seps, key, &mut tie);
                    let j = split_by_key(&b.keys, &b.seps, new_key, &mut not_after);
                    old_path.try_push(i).ok()?;
                    new_path.try_push(j).ok()?;
                    old = &a.kids[i];
                    new = &b.kids[j];
                }
                (Node::Leaf(a), Node::Leaf(b)) => {
                    let i = split_by_key(&a.keys, &a.vals, key, &mut tie);
                    let (Some(&k), Some(v)) = (a.keys.get(i), a.vals.get(i)) else {
                        // Past the leaf's end: a separator equal to the element led here,
                        // and the element (if present) opens the next leaf.
                        break Err(i);
                    };
                    if k < key || key < k || find(v) != Ordering::Equal {
                        // The tree does not hold the element: change nothing.
                        return None;
                    }
                    let p = split_by_key(&b.keys, &b.vals, new_key, &mut not_after);
                    break Ok((i, p, std::ptr::eq(&**a, &**b), a.keys.len()));
                }
                // All leaves are at one depth (invariant 1).
                _ => return None,
            }
        };
        let (i, p, same, len) = match found {
            Ok(found) => found,
            Err(end) => {
                // Check the element by rank, then move it the long way.
                let rank = self.rank_on_path(&old_path) + end;
                let (k, v) = self.get(rank)?;
                if k < key || key < k || find(v) != Ordering::Equal {
                    return None;
                }
                return self.reinsert(rank, new_key, not_after);
            }
        };
        // The new place among the other elements: in its own leaf, the element itself was
        // counted before it exactly when it sat before it.
        let q = if same && i < p { p - 1 } else { p };
        if same {
            let leaf = self.leaf_on_path(&old_path)?;
            if q > i {
                leaf.keys[i..=q].rotate_left(1);
                leaf.vals[i..=q].rotate_left(1);
            } else if q < i {
                leaf.keys[q..=i].rotate_right(1);
                leaf.vals[q..=i].rotate_right(1);
            }
            leaf.keys[q] = new_key;
            return Some(Moved::WithinLeaf);
        }
        if len <= LEAF_MIN || new_path.is_full() {
            return self.reinsert(self.rank_on_path(&old_path) + i, new_key, not_after);
        }
        // No node changes shape with the removal, so the new path still holds.
        let (_, val) = remove_on_path(&mut self.root, &old_path, i)?;
        self.len -= 1;
        new_path.push(q);
        let mut steps = new_path.into_iter();
        self.insert_by(new_key, val, &mut |_: &[K], _: &[V]| {
            steps.next().unwrap_or(0)
        });
        Some(Moved::Reinserted)
    }

    /// Removes the element at `rank` and inserts it again with `new_key`, each by its own
    /// search (the way [`OsTree::rekey`] takes when its paths may not hold).
    fn reinsert(
        &mut self,
        rank: usize,
        new_key: K,
        not_after: impl FnMut(&V) -> bool,
    ) -> Option<Moved> {
        let (_, val) = self.remove_at(rank)?;
        self.insert(new_key, val, not_after);
        Some(Moved::Reinserted)
    }

    /// The number of elements before the leaf reached by taking child `path[0]` of the
    /// root, then `path[1]`, and so on.
    fn rank_on_path(&self, path: &[usize]) -> usize {
        let mut node = &self.root;
        let mut rank = 0;
        for &i in path {
            let Node::Inner(n) = node else { break };
            rank += n.counts.iter().take(i).sum::<usize>();
            let Some(kid) = n.kids.get(i) else { break };
            node = kid;
        }
        rank
    }

    /// The leaf reached by taking child `path[0]` of the root, then `path[1]`, and so on.
    fn leaf_on_path(&mut self, path: &[usize]) -> Option<&mut Leaf<K, V>> {
        let mut node = &mut self.root;
        for &i in path {
            match node {
                Node::Inner(n) => node = n.kids.get_mut(i)?,
                Node::Leaf(_) => return None,
            }
        }
        match node {
            Node::Leaf(l) => Some(l),
            Node::Inner(_) => None,
        }
    }

    /// The element at 0-based `rank`. **O(log N).**
    pub fn get(&self, rank: usize) -> Option<(K, &V)> {
        if rank >= self.len {
            return None;
        }
        let mut node = &self.root;
        let mut r = rank;
        loop {
            match node {
                Node::Leaf(l) => return l.keys.get(r).copied().zip(l.vals.get(r)),
                Node::Inner(n) => {
                    n.warm();
                    let (i, rest) = child_at_rank(n, r);
                    r = rest;
                    node = &n.kids[i];
                }
            }
        }
    }

    /// Inserts `(key, val)` after every element with a smaller key and after those with an
    /// equal key for which `not_after` holds: it must hold for a prefix of them, the values
    /// at or before `val` (`v <= val`, not `v < val`: an element equal to the new one may
    /// survive as a separator after its removal, and the new one must go to the right of
    /// it). **O(log N).**
    pub fn insert(&mut self, key: K, val: V, mut not_after: impl FnMut(&V) -> bool) {
        let mut pos = |keys: &[K], vals: &[V]| split_by_key(keys, vals, key, &mut not_after);
        self.insert_by(key, val, &mut pos);
    }

    /// Inserts `(key, val)` where `pos` says, in each node from the root down.
    fn insert_by(&mut self, key: K, val: V, pos: &mut impl FnMut(&[K], &[V]) -> usize) {
        self.len += 1;
        if let Some((k, sep, right)) = insert_rec(&mut self.root, key, val, pos) {
            let left = std::mem::replace(&mut self.root, Node::Leaf(Leaf::boxed()));
            let mut root = Inner::boxed();
            root.counts.push(left.count());
            root.counts.push(right.count());
            root.kids.push(left);
            root.kids.push(right);
            root.keys.push(k);
            root.seps.push(sep);
            self.root = Node::Inner(root);
        }
    }

    /// Removes and returns the element at 0-based `rank`. **O(log N).**
    pub fn remove_at(&mut self, rank: usize) -> Option<(K, V)> {
        if rank >= self.len {
            return None;
        }
        let mut out = None;
        remove_rec(&mut self.root, rank, 1, &mut |k, v| out = Some((k, v)));
        self.len -= 1;
        self.collapse_root();
        out
    }

    /// Removes the `count` elements from 0-based rank `start` on (clamped to the end),
    /// passing each to `gone` in order; returns how many went. Each round drains a run of
    /// one leaf. **O(log N + M)** for M removed.
    pub fn remove_range(
        &mut self,
        start: usize,
        count: usize,
        mut gone: impl FnMut(K, V),
    ) -> usize {
        let count = count.min(self.len.saturating_sub(start));
        let mut left = count;
        while left > 0 {
            let n = remove_rec(&mut self.root, start, left, &mut gone);
            self.len -= n;
            left -= n;
            self.collapse_root();
            if n == 0 {
                break;
            }
        }
        count - left
    }

    fn collapse_root(&mut self) {
        while let Node::Inner(n) = &mut self.root {
            if n.kids.len() != 1 {
                break;
            }
            let Some(kid) = n.kids.pop() else { break };
            self.root = kid;
        }
    }

    /// Calls `f` on every element in order, allowing changes that keep the order (and
    /// keep every separator valid). **O(N).**
    pub fn for_each_mut(&mut self, mut f: impl FnMut(&mut K, &mut V)) {
        fn walk<K, V>(node: &mut Node<K, V>, f: &mut impl FnMut(&mut K, &mut V)) {
            match node {
                Node::Leaf(l) => {
                    let l = &mut **l;
                    l.keys
                        .iter_mut()
                        .zip(l.vals.iter_mut())
                        .for_each(|(k, v)| f(k, v))
                }
                Node::Inner(n) => n.kids.iter_mut().for_each(|k| walk(k, f)),
            }
        }
        walk(&mut self.root, &mut f);
    }

    /// Iterates from 0-based `rank`, ascending, or descending with `rev`. Empty when
    /// `rank >= len`. **O(log N)** to start, amortized O(1) per step.
    pub fn iter_from(&self, rank: usize, rev: bool) -> Iter<'_, K, V> {
        let mut it = Iter {
            stack: Vec::new(),
            keys: &[],
            vals: &[],
            pos: 0,
            rev,
        };
        if rank >= self.len {
            return it;
        }
        let mut node = &self.root;
        let mut r = rank;
        loop {
            match node {
                Node::Leaf(l) => {
                    it.keys = &l.keys;
                    it.vals = &l.vals;
                    it.pos = if rev { r + 1 } else { r };
                    return it;
                }
                Node::Inner(n) => {
                    n.warm();
                    let (i, rest) = child_at_rank(n, r);
                    it.stack.push((&**n, i));
                    r = rest;
                    node = &n.kids[i];
                }
            }
        }
    }

    /// Checks every invariant in the module documentation, with `lt` the strict order.
    /// **O(N).** For tests.
    pub fn check(&self, lt: impl Fn((K, &V), (K, &V)) -> bool) -> Result<(), String> {
        let mut leaf_depth = None;
        let n = check_rec(&self.root, 0, true, &lt, &mut leaf_depth)?;
        if n != self.len {
            return Err(format!("len {} but {n} elements", self.len));
        }
        let all: Vec<(K, &V)> = self.iter_from(0, false).collect();
        if all.len() != self.len {
            return Err("iteration length differs".into());
        }
        if all.windows(2).any(|w| !lt(w[0], w[1])) {
            return Err("elements out of order".into());
        }
        let back: Vec<(K, &V)> = match self.len {
            0 => Vec::new(),
            n => self.iter_from(n - 1, true).collect(),
        };
        if back.len() != self.len
            || back
                .iter()
                .rev()
                .zip(&all)
                .any(|(a, b)| lt(*a, *b) || lt(*b, *a))
        {
            return Err("reverse iteration differs".into());
        }
        Ok(())
    }
}
