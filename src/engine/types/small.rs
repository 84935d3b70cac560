//! Member bytes stored inline when short, shared when long.
//!
//! # Why
//! A sorted-set member lives in two places, the dict (member → score) and the ordered
//! tree, and both must compare it: the dict when it finds a member (after the hash
//! matches, the bytes are compared), the tree when two scores tie. As an `Rc<[u8]>` every
//! such comparison first reads a separate heap block; at a million members that block is
//! not in cache, so it costs a main-memory read on each `ZSCORE`, `ZRANK` or `ZADD`.
//! Most members are short (ids, names, geohash members), so [`SmallBytes`] keeps up to
//! [`INLINE`] bytes inside itself, in the same 24 bytes a `Vec<u8>` header takes, and
//! only longer members go to a shared `Rc<[u8]>` (cloned by reference count, so the dict
//! and the tree still share one copy). Short members also save the block itself: no
//! allocation header, no rounding up.
//!
//! Crates were considered: `smallvec` and `compact_bytes`-style types store short bytes
//! inline but deep-copy long ones on clone, which would store a long member twice; string
//! types (`compact_str`, `smol_str`) require UTF-8, and members are arbitrary bytes.
//!
//! # Invariants
//! * `Inline(len, buf)`: `len <= INLINE`; the bytes are `buf[..len]`.
//! * A value is `Inline` exactly when its bytes fit, so equal bytes have equal variants
//!   (not needed for correctness, since equality and hashing look at the bytes only).
//!
//! # Changing it
//! A performance change to this structure lands only with the scale tests passing in
//! release mode: `cargo test --release --test scale --test scale_diff` (here `zset_*`,
//! `sets_against_a_model` and its redis-server twin), which take it to a million live
//! elements against a plain model and against a real Redis (issue 18). A fast path that
//! trusts a hash, a tag, a probed slot or a cached position confirms the bytes before it
//! changes data or a reply.

use std::borrow::Borrow;
use std::fmt;
use std::hash::{Hash, Hasher};
use std::ops::Deref;
use std::rc::Rc;

/// Longest member kept inline ([`SmallBytes`]).
pub const INLINE: usize = 22;

/// Longest key kept inline ([`KeyBytes`]).
pub const KEY_INLINE: usize = 14;

/// An immutable byte string: inline up to `N` bytes, else in a heap block `L`.
#[derive(Clone)]
pub enum Small<L, const N: usize> {
    /// Length and bytes (the first `len` of the buffer).
    Inline(u8, [u8; N]),
    /// A longer string.
    Shared(L),
}

/// A member of a set or sorted set, in 24 bytes: long ones shared by reference count, so
/// that a sorted set's dict and tree hold one copy.
pub type SmallBytes = Small<Rc<[u8]>, INLINE>;

/// A key of the keyspace, in 16 bytes: up to [`KEY_INLINE`] bytes inline, longer ones
/// behind a thin pointer. Most keys are short (`key:123456`, `user:1000`, `h:42`); such
/// a key costs no allocation, is compared without reading another cache line, and takes 8
/// bytes less of every map slot than a 24-byte form would. A long key pays a 16-byte block
/// more (the slice's pointer and length) and one more pointer to follow when it is compared.
/// Measured with `python3 bench/memory.py --only strings`.
pub type KeyBytes = Small<LongKey, KEY_INLINE>;

/// The bytes of a long key, behind one thin pointer.
#[derive(Clone)]
pub struct LongKey(Box<Box<[u8]>>);

impl Deref for LongKey {
    type Target = [u8];

    #[inline]
    fn deref(&self) -> &[u8] {
        &self.0
    }
}

impl<L: Deref<Target = [u8]>, const N: usize> Small<L, N> {
    /// The bytes.
    #[inline]
    pub fn as_bytes(&self) -> &[u8] {
        match self {
            Small::Inline(len, buf) => buf.get(..usize::from(*len)).unwrap_or(&[]),
            Small::Shared(long) => long,
        }
    }
}

/// The inline form of `b`, if it fits.
#[inline]
fn inline<L, const N: usize>(b: &[u8]) -> Option<Small<L, N>> {
    let mut buf = [0u8; N];
    buf.get_mut(..b.len())?.copy_from_slice(b);
    Some(Small::Inline(b.len() as u8, buf))
}

impl SmallBytes {
    /// True when both are the same shared block, or both inline (for invariant checks:
    /// the dict and the tree must share long members rather than copy them).
    pub fn shares_with(&self, other: &SmallBytes) -> bool {
        match (self, other) {
            (SmallBytes::Shared(a), SmallBytes::Shared(b)) => Rc::ptr_eq(a, b),
            (SmallBytes::Inline(..), SmallBytes::Inline(..)) => self.as_bytes() == other.as_bytes(),
            _ => false,
        }
    }
}

impl From<&[u8]> for SmallBytes {
    fn from(b: &[u8]) -> SmallBytes {
        inline(b).unwrap_or_else(|| Small::Shared(Rc::from(b)))
    }
}

impl From<&[u8]> for KeyBytes {
    fn from(b: &[u8]) -> KeyBytes {
        inline(b).unwrap_or_else(|| Small::Shared(LongKey(Box::new(Box::from(b)))))
    }
}

impl From<Vec<u8>> for KeyBytes {
    /// Keeps a long key's own block (shrunk to its length) rather than copying it.
    fn from(b: Vec<u8>) -> KeyBytes {
        inline(&b).unwrap_or_else(|| Small::Shared(LongKey(Box::new(b.into_boxed_slice()))))
    }
}

impl<L: Deref<Target = [u8]>, const N: usize> Deref for Small<L, N> {
    type Target = [u8];

    #[inline]
    fn deref(&self) -> &[u8] {
        self.as_bytes()
    }
}

impl<L: Deref<Target = [u8]>, const N: usize> Borrow<[u8]> for Small<L, N> {
    fn borrow(&self) -> &[u8] {
        self.as_bytes()
    }
}

impl<L: Deref<Target = [u8]>, const N: usize> Hash for Small<L, N> {
    /// Hashes as the byte slice does, so maps keyed by `Small` can be searched with a
    /// `&[u8]`.
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.as_bytes().hash(state);
    }
}

impl<L: Deref<Target = [u8]>, const N: usize> PartialEq for Small<L, N> {
    fn eq(&self, other: &Small<L, N>) -> bool {
        self.as_bytes() == other.as_bytes()
    }
}

impl<L: Deref<Target = [u8]>, const N: usize> Eq for Small<L, N> {}

impl<L: Deref<Target = [u8]>, const N: usize> fmt::Debug for Small<L, N> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:?}", String::from_utf8_lossy(self.as_bytes()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    #[test]
    fn short_inline_long_shared_and_both_look_like_slices() {
        assert_eq!(std::mem::size_of::<SmallBytes>(), 24);
        for len in [0, 1, KEY_INLINE, KEY_INLINE + 1, INLINE, INLINE + 1, 100] {
            let bytes: Vec<u8> = (0..len as u8).collect();
            let s = SmallBytes::from(&bytes[..]);
            assert_eq!(&*s, &bytes[..]);
            assert_eq!(matches!(s, SmallBytes::Inline(..)), len <= INLINE);
            let t = s.clone();
            assert!(s.shares_with(&t));
            let mut m = HashMap::new();
            m.insert(s, len);
            assert_eq!(m.get(&bytes[..]), Some(&len));
            let k = KeyBytes::from(bytes.clone());
            assert_eq!(&*k, &bytes[..]);
            assert_eq!(matches!(k, Small::Inline(..)), len <= KEY_INLINE);
            assert_eq!(KeyBytes::from(&bytes[..]), k);
        }
        assert_eq!(std::mem::size_of::<KeyBytes>(), 16);
    }
}
