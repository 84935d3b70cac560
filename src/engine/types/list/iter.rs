//! Iterating a list's elements across its nodes.

use std::collections::vec_deque;
use std::collections::VecDeque;
use std::iter::FusedIterator;

use super::node::{split_first, split_last, Node};

/// A list's elements as byte slices, head first, or from the tail with `.rev()`.
///
/// The front and the back each hold the unread bytes of the node they are in; the nodes
/// between them come from the deque's own iterator. When one end runs out of nodes, what
/// is left is in the other end's node, so it reads from that one's unread bytes; the count
/// of elements left keeps the two ends from reading the same element twice.
#[derive(Clone)]
pub struct Iter<'a> {
    nodes: vec_deque::Iter<'a, Node>,
    front: &'a [u8],
    back: &'a [u8],
    left: usize,
}

impl<'a> Iter<'a> {
    /// All `len` elements of `nodes`.
    pub(super) fn new(nodes: &'a VecDeque<Node>, len: usize) -> Iter<'a> {
        Iter {
            nodes: nodes.iter(),
            front: &[],
            back: &[],
            left: len,
        }
    }

    /// `count` elements from the one at offset `pos` of node `n` on, forwards only: its
    /// back end would start at the list's tail.
    pub(super) fn from(nodes: &'a VecDeque<Node>, n: usize, pos: usize, count: usize) -> Iter<'a> {
        let node = &nodes[n];
        let offset = pos - node.start();
        Iter {
            nodes: nodes.range(n + 1..),
            front: &node.bytes()[offset..],
            back: &[],
            left: count,
        }
    }
}

impl<'a> Iterator for Iter<'a> {
    type Item = &'a [u8];

    fn next(&mut self) -> Option<&'a [u8]> {
        if self.left == 0 {
            return None;
        }
        if self.front.is_empty() {
            self.front = self.nodes.next().map_or(self.back, Node::bytes);
        }
        let (e, rest) = split_first(self.front);
        self.front = rest;
        self.left -= 1;
        Some(e)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.left, Some(self.left))
    }
}

impl<'a> DoubleEndedIterator for Iter<'a> {
    fn next_back(&mut self) -> Option<&'a [u8]> {
        if self.left == 0 {
            return None;
        }
        if self.back.is_empty() {
            self.back = self.nodes.next_back().map_or(self.front, Node::bytes);
        }
        let (e, rest) = split_last(self.back);
        self.back = rest;
        self.left -= 1;
        Some(e)
    }
}

impl ExactSizeIterator for Iter<'_> {}

impl FusedIterator for Iter<'_> {}
