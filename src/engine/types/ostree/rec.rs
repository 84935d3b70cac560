//! The recursive node operations behind [`OsTree`]'s methods: the invariant check, first and
//! last, insertion with splits, removal, and rebalancing of an inner node's children.

use super::node::{child_at_rank, Inner, Leaf, Node, INNER_CAP, INNER_MAX, LEAF_MAX};
use arrayvec::ArrayVec;

/// Returns the number of elements under `node`, checking invariants 1–4 below it.
pub(super) fn check_rec<K: Copy, V>(
    node: &Node<K, V>,
    depth: usize,
    root: bool,
    lt: &impl Fn((K, &V), (K, &V)) -> bool,
    leaf_depth: &mut Option<usize>,
) -> Result<usize, String> {
    if !root && node.underfull() {
        return Err(format!("underfull node at depth {depth}"));
    }
    match node {
        Node::Leaf(l) => {
            if l.keys.len() > LEAF_MAX || l.keys.len() != l.vals.len() {
                return Err("leaf over its maximum or with unpaired keys".into());
            }
            match *leaf_depth {
                None => *leaf_depth = Some(depth),
                Some(d) if d != depth => return Err("leaves at different depths".into()),
                Some(_) => {}
            }
            Ok(l.keys.len())
        }
        Node::Inner(n) => {
            let k = n.kids.len();
            if !(2..=INNER_MAX).contains(&k)
                || n.keys.len() + 1 != k
                || n.seps.len() + 1 != k
                || n.counts.len() != k
            {
                return Err(format!("inner node shape: {k} kids, {} seps", n.seps.len()));
            }
            let mut total = 0;
            for (i, kid) in n.kids.iter().enumerate() {
                let c = check_rec(kid, depth + 1, false, lt, leaf_depth)?;
                if c != n.counts[i] {
                    return Err(format!("count {} but {c} elements", n.counts[i]));
                }
                total += c;
            }
            for (i, (&key, sep)) in n.keys.iter().zip(&n.seps).enumerate() {
                let below = last(&n.kids[i]);
                let above = first(&n.kids[i + 1]);
                if below.is_some_and(|b| !lt(b, (key, sep)))
                    || above.is_some_and(|a| lt(a, (key, sep)))
                {
                    return Err(format!("separator {i} at depth {depth} does not separate"));
                }
            }
            Ok(total)
        }
    }
}

fn first<K: Copy, V>(node: &Node<K, V>) -> Option<(K, &V)> {
    match node {
        Node::Leaf(l) => l.keys.first().copied().zip(l.vals.first()),
        Node::Inner(n) => n.kids.first().and_then(first),
    }
}

pub(super) fn last<K: Copy, V>(node: &Node<K, V>) -> Option<(K, &V)> {
    match node {
        Node::Leaf(l) => l.keys.last().copied().zip(l.vals.last()),
        Node::Inner(n) => n.kids.last().and_then(last),
    }
}

/// Where a leaf of `len` elements (one over its maximum) splits, the new element being at
/// `at`: in half, unless the new element went to an end of the leaf. A run of insertions
/// at one end (ascending scores, as a timeline or a counter makes, or descending ones)
/// would leave every leaf behind it half full, where the first removal from it already
/// has it merge or borrow (and a set built in order would take twice the leaves it
/// needs). There the leaf left behind keeps three quarters, and the new one starts with
/// the rest, at least [`LEAF_MIN`].
fn split_point(at: usize, len: usize) -> usize {
    if at + 1 == len {
        len * 3 / 4
    } else if at == 0 {
        len - len * 3 / 4
    } else {
        len / 2
    }
}

/// A separator going up from a split, with the new right half.
type Split<K, V> = (K, V, Node<K, V>);

/// Inserts into the subtree at the place `pos` finds in each node; when `node` overflows
/// it splits, keeping the left half, and returns the separator and the right half for the
/// parent to link.
pub(super) fn insert_rec<K: Copy, V: Clone>(
    node: &mut Node<K, V>,
    key: K,
    val: V,
    pos: &mut impl FnMut(&[K], &[V]) -> usize,
) -> Option<Split<K, V>> {
    match node {
        Node::Leaf(l) => {
            let i = pos(&l.keys, &l.vals);
            // A leaf holds at most LEAF_MAX before this, so there is room for one more.
            l.keys.insert(i, key);
            l.vals.insert(i, val);
            if l.keys.len() <= LEAF_MAX {
                return None;
            }
            let mid = split_point(i, l.keys.len());
            let mut right = Leaf::boxed();
            right.keys.extend(l.keys.drain(mid..));
            right.vals.extend(l.vals.drain(mid..));
            let k = *right.keys.first()?;
            let sep = right.vals.first()?.clone();
            Some((k, sep, Node::Leaf(right)))
        }
        Node::Inner(n) => {
            n.warm();
            let j = pos(&n.keys, &n.seps);
            n.counts[j] += 1;
            let (k, sep, right) = insert_rec(&mut n.kids[j], key, val, pos)?;
            let moved = right.count();
            n.counts[j] -= moved;
            n.kids.insert(j + 1, right);
            n.counts.insert(j + 1, moved);
            n.keys.insert(j, k);
            n.seps.insert(j, sep);
            if n.kids.len() <= INNER_MAX {
                return None;
            }
            let mid = n.kids.len() / 2;
            let mut right = Inner::boxed();
            right.kids.extend(n.kids.drain(mid..));
            right.counts.extend(n.counts.drain(mid..));
            right.keys.extend(n.keys.drain(mid..));
            right.seps.extend(n.seps.drain(mid..));
            let up_key = n.keys.pop()?;
            let up = n.seps.pop()?;
            Some((up_key, up, Node::Inner(right)))
        }
    }
}

/// Removes up to `max` consecutive elements from `rank` on, all from one leaf, passing
/// them to `gone`; returns how many. Children left underfull are merged or refilled.
pub(super) fn remove_rec<K: Copy, V: Clone>(
    node: &mut Node<K, V>,
    rank: usize,
    max: usize,
    gone: &mut impl FnMut(K, V),
) -> usize {
    match node {
        Node::Leaf(l) => {
            let end = l.keys.len().min(rank.saturating_add(max));
            if rank >= end {
                return 0;
            }
            let l = &mut **l;
            l.keys
                .drain(rank..end)
                .zip(l.vals.drain(rank..end))
                .for_each(|(k, v)| gone(k, v));
            end - rank
        }
        Node::Inner(n) => {
            n.warm();
            let (i, r) = child_at_rank(n, rank);
            let removed = remove_rec(&mut n.kids[i], r, max, gone);
            n.counts[i] -= removed;
            if n.kids[i].underfull() {
                rebalance(n, i);
            }
            removed
        }
    }
}

/// Removes the element at index `at` of the leaf reached by taking child `path[0]`, then
/// `path[1]` and so on, lowering the counts on the way; the leaf must stay at or above
/// its minimum (or be the root), so that no node changes shape.
pub(super) fn remove_on_path<K, V>(
    node: &mut Node<K, V>,
    path: &[usize],
    at: usize,
) -> Option<(K, V)> {
    match node {
        Node::Leaf(l) => {
            if at >= l.keys.len() {
                return None;
            }
            Some((l.keys.remove(at), l.vals.remove(at)))
        }
        Node::Inner(n) => {
            let (&i, rest) = path.split_first()?;
            let out = remove_on_path(n.kids.get_mut(i)?, rest, at)?;
            n.counts[i] -= 1;
            Some(out)
        }
    }
}

/// `front` followed by `back`'s elements, as the new `back` (an array has no splice).
fn prepend<T, const CAP: usize>(back: &mut ArrayVec<T, CAP>, front: impl Iterator<Item = T>) {
    let mut both: ArrayVec<T, CAP> = front.collect();
    both.extend(back.drain(..));
    *back = both;
}

/// Child `i` of `n` is underfull: merge it with a sibling, or move entries over from one.
fn rebalance<K: Copy, V: Clone>(n: &mut Inner<K, V>, i: usize) {
    if n.kids.len() < 2 {
        return;
    }
    // The pair (a, a + 1) to fix.
    let a = if i + 1 < n.kids.len() { i } else { i - 1 };
    let (lo, hi) = n.kids.split_at_mut(a + 1);
    let (left, right) = (&mut lo[a], &mut hi[0]);
    let max = match left {
        Node::Leaf(_) => LEAF_MAX,
        Node::Inner(_) => INNER_MAX,
    };
    let total = left.width() + right.width();
    if total <= max {
        // Merge right into left.
        let right = n.kids.remove(a + 1);
        let sep_key = n.keys.remove(a);
        let sep = n.seps.remove(a);
        let moved = n.counts.remove(a + 1);
        n.counts[a] += moved;
        match (&mut n.kids[a], right) {
            (Node::Leaf(l), Node::Leaf(r)) => {
                let r = *r;
                l.keys.extend(r.keys);
                l.vals.extend(r.vals);
            }
            (Node::Inner(l), Node::Inner(r)) => {
                let r = *r;
                l.keys.push(sep_key);
                l.keys.extend(r.keys);
                l.seps.push(sep);
                l.seps.extend(r.seps);
                l.kids.extend(r.kids);
                l.counts.extend(r.counts);
            }
            _ => {}
        }
        return;
    }
    // Redistribute so that the left node gets half (rounded down).
    let want = total / 2;
    let sep_key = &mut n.keys[a];
    let sep = &mut n.seps[a];
    let moved: isize = match (left, right) {
        (Node::Leaf(l), Node::Leaf(r)) => {
            if l.keys.len() < want {
                let k = want - l.keys.len();
                l.keys.extend(r.keys.drain(..k));
                l.vals.extend(r.vals.drain(..k));
                *sep_key = r.keys[0];
                *sep = r.vals[0].clone();
                k as isize
            } else {
                let k = l.keys.len() - want;
                let from = l.keys.len() - k;
                prepend(&mut r.keys, l.keys.drain(from..));
                prepend(&mut r.vals, l.vals.drain(from..));
                *sep_key = r.keys[0];
                *sep = r.vals[0].clone();
                -(k as isize)
            }
        }
        (Node::Inner(l), Node::Inner(r)) => {
            if l.kids.len() < want {
                let k = want - l.kids.len();
                let moved: usize = r.counts[..k].iter().sum();
                l.keys.push(*sep_key);
                l.keys.extend(r.keys.drain(..k - 1));
                *sep_key = r.keys.remove(0);
                l.seps.push(sep.clone());
                l.seps.extend(r.seps.drain(..k - 1));
                *sep = r.seps.remove(0);
                l.kids.extend(r.kids.drain(..k));
                l.counts.extend(r.counts.drain(..k));
                moved as isize
            } else {
                let k = l.kids.len() - want;
                let from = l.kids.len() - k;
                let moved: usize = l.counts[from..].iter().sum();
                // The separators before each moved kid; the first goes up.
                let mut keys: ArrayVec<K, INNER_CAP> = l.keys.drain(from - 1..).collect();
                let up_key = keys.remove(0);
                keys.push(std::mem::replace(sep_key, up_key));
                prepend(&mut r.keys, keys.into_iter());
                let mut seps: ArrayVec<V, INNER_CAP> = l.seps.drain(from - 1..).collect();
                let up = seps.remove(0);
                seps.push(std::mem::replace(sep, up));
                prepend(&mut r.seps, seps.into_iter());
                prepend(&mut r.kids, l.kids.drain(from..));
                prepend(&mut r.counts, l.counts.drain(from..));
                -(moved as isize)
            }
        }
        _ => 0,
    };
    n.counts[a] = n.counts[a].wrapping_add_signed(moved);
    n.counts[a + 1] = n.counts[a + 1].wrapping_add_signed(-moved);
}
