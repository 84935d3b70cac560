//! The [`OsTree`] type: its rank and key queries, edits and checks, built on the nodes in
//! `node.rs` and the recursive edits in `rec.rs`.

use std::cmp::Ordering;

use arrayvec::ArrayVec;

use super::iter::Iter;
use super::node::*;
use super::rec::{check_rec, insert_rec, remove_on_path, remove_rec};

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
    pub(super) root: Node<K, V>,
    pub(super) len: usize,
}

impl<K: Copy + PartialOrd, V: Clone> Default for OsTree<K, V> {
    fn default() -> Self {
        OsTree::new()
    }
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
