//! Iteration over a tree's elements from some rank, in either direction.

use super::node::{Inner, Node};

/// Iterator over a tree's elements from some rank, in either direction.
pub struct Iter<'a, K, V> {
    /// The inner nodes above the current leaf, with the index of the child taken.
    pub(super) stack: Vec<(&'a Inner<K, V>, usize)>,
    pub(super) keys: &'a [K],
    pub(super) vals: &'a [V],
    /// Forward: index of the next element. Backward: one past it.
    pub(super) pos: usize,
    pub(super) rev: bool,
}

impl<'a, K: Copy, V> Iter<'a, K, V> {
    /// Moves to the next leaf in the iteration direction; false at the end.
    fn step_leaf(&mut self) -> bool {
        // Climb to the lowest ancestor with a sibling on the wanted side.
        loop {
            let Some((n, i)) = self.stack.pop() else {
                self.keys = &[];
                self.vals = &[];
                return false;
            };
            let next = if self.rev {
                i.checked_sub(1)
            } else {
                Some(i + 1).filter(|&j| j < n.kids.len())
            };
            let Some(j) = next else { continue };
            self.stack.push((n, j));
            let mut node = &n.kids[j];
            loop {
                match node {
                    Node::Leaf(l) => {
                        self.keys = &l.keys;
                        self.vals = &l.vals;
                        self.pos = if self.rev { l.keys.len() } else { 0 };
                        return true;
                    }
                    Node::Inner(m) => {
                        let k = if self.rev { m.kids.len() - 1 } else { 0 };
                        self.stack.push((&**m, k));
                        node = &m.kids[k];
                    }
                }
            }
        }
    }

    fn at(&self, i: usize) -> Option<(K, &'a V)> {
        self.keys.get(i).copied().zip(self.vals.get(i))
    }
}

impl<'a, K: Copy, V> Iterator for Iter<'a, K, V> {
    type Item = (K, &'a V);

    fn next(&mut self) -> Option<(K, &'a V)> {
        loop {
            if self.rev {
                if self.pos > 0 {
                    self.pos -= 1;
                    return self.at(self.pos);
                }
            } else if self.pos < self.keys.len() {
                self.pos += 1;
                return self.at(self.pos - 1);
            }
            if self.keys.is_empty() && self.stack.is_empty() {
                return None;
            }
            if !self.step_leaf() {
                return None;
            }
        }
    }
}
