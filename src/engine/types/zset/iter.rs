//! Iteration over a sorted set's `(member, score)` pairs in either direction.

use crate::engine::types::ostree::{self};
use crate::engine::types::small::SmallBytes;

/// Iterator over `(member, score)` in ascending or descending order.
pub struct Iter<'a> {
    pub(super) inner: IterInner<'a>,
    pub(super) left: usize,
}

pub(super) enum IterInner<'a> {
    /// A listpack's entries, read from the back when the flag is set.
    Listpack(std::slice::Iter<'a, (f64, SmallBytes)>, bool),
    Tree(ostree::Iter<'a, f64, SmallBytes>),
}

impl<'a> Iterator for Iter<'a> {
    type Item = (&'a [u8], f64);

    fn next(&mut self) -> Option<Self::Item> {
        if self.left == 0 {
            return None;
        }
        self.left -= 1;
        match &mut self.inner {
            IterInner::Listpack(it, rev) => {
                let e = if *rev { it.next_back() } else { it.next() };
                e.map(|(score, m)| (&m[..], *score))
            }
            IterInner::Tree(it) => it.next().map(|(score, m)| (&m[..], score)),
        }
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (0, Some(self.left))
    }
}
