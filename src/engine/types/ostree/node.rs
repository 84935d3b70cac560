//! The tree's nodes: [`Leaf`] and [`Inner`] blocks behind a [`Node`] pointer, their size
//! limits, and the searches within one node that the tree and its recursive edits share.

use arrayvec::ArrayVec;

/// Most elements in a leaf: 62, so that a sorted set's leaf (`f64` scores, 24-byte
/// members, room for 63 of each) is 2,032 bytes and fits the allocator's 2 KB size class.
/// With 64 it was 2,096 bytes in a 2,304-byte block; at 500,000 members that was 4 bytes
/// a member (`python3 bench/memory.py --only zset`). A test holds the size.
pub const LEAF_MAX: usize = 62;
/// Most children of an inner node.
pub const INNER_MAX: usize = 64;
/// Fewest elements in a leaf other than the root: a quarter, so that a leaf can split
/// unevenly (see [`split_point`]).
pub(super) const LEAF_MIN: usize = LEAF_MAX / 4;
pub(super) const INNER_MIN: usize = INNER_MAX / 2;
/// Room in a leaf's arrays: one more than the maximum, for the element that overflows it
/// just before it splits.
pub(super) const LEAF_CAP: usize = LEAF_MAX + 1;
/// Room in an inner node's arrays, likewise.
pub(super) const INNER_CAP: usize = INNER_MAX + 1;

/// A leaf: its elements in order, `keys[i]` with `vals[i]`, both arrays inside the node.
#[derive(Debug, Clone)]
#[repr(C)]
pub(super) struct Leaf<K, V> {
    pub(super) keys: ArrayVec<K, LEAF_CAP>,
    pub(super) vals: ArrayVec<V, LEAF_CAP>,
}

impl<K, V> Leaf<K, V> {
    pub(super) fn boxed() -> Box<Leaf<K, V>> {
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
pub(super) struct Inner<K, V> {
    /// Separator keys.
    pub(super) keys: ArrayVec<K, INNER_CAP>,
    pub(super) kids: ArrayVec<Node<K, V>, INNER_CAP>,
    pub(super) counts: ArrayVec<usize, INNER_CAP>,
    /// Separator values.
    pub(super) seps: ArrayVec<V, INNER_CAP>,
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
    pub(super) fn warm(&self) {
        let counts: usize = self.counts.iter().step_by(8).sum();
        std::hint::black_box(self.warm_links() ^ counts);
    }

    /// Reads one word from each cache line of the child pointers only, for a descent that
    /// does not add up counts ([`OsTree::rekey`]).
    #[inline(always)]
    pub(super) fn warm_links(&self) -> usize {
        let kids = self
            .kids
            .iter()
            .step_by((64 / std::mem::size_of::<Node<K, V>>()).max(1))
            .filter(|k| matches!(k, Node::Leaf(_)))
            .count();
        std::hint::black_box(kids)
    }

    pub(super) fn boxed() -> Box<Inner<K, V>> {
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
pub(super) enum Node<K, V> {
    Leaf(Box<Leaf<K, V>>),
    Inner(Box<Inner<K, V>>),
}

impl<K, V> Node<K, V> {
    pub(super) fn count(&self) -> usize {
        match self {
            Node::Leaf(l) => l.keys.len(),
            Node::Inner(n) => n.counts.iter().sum(),
        }
    }

    /// True when this (non-root) node is below its minimum.
    pub(super) fn underfull(&self) -> bool {
        match self {
            Node::Leaf(l) => l.keys.len() < LEAF_MIN,
            Node::Inner(n) => n.kids.len() < INNER_MIN,
        }
    }

    /// Number of slots it uses: elements for a leaf, children for an inner node.
    pub(super) fn width(&self) -> usize {
        match self {
            Node::Leaf(l) => l.keys.len(),
            Node::Inner(n) => n.kids.len(),
        }
    }
}

/// Index of the child of `n` holding rank `r`, and the rank left inside it.
pub(super) fn child_at_rank<K, V>(n: &Inner<K, V>, mut r: usize) -> (usize, usize) {
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
pub(super) fn split_by_key<K: Copy + PartialOrd, V>(
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
pub(super) fn split_where<K, V>(
    keys: &[K],
    vals: &[V],
    before: &mut impl FnMut(&K, &V) -> bool,
) -> usize {
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
