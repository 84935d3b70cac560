//! Hashes.
//!
//! A hash is an insertion-ordered map from field to value ([`indexmap::IndexMap`]). Redis 7.0
//! keeps small hashes (at most `hash-max-listpack-entries` = 128 fields, every field and
//! value at most `hash-max-listpack-value` = 64 bytes) in a listpack, which preserves
//! insertion order and closes gaps on delete; larger ones in a hash table. We mirror the
//! listpack's order exactly while the hash is small (delete with `shift_remove`) so HGETALL
//! of a small hash lists fields in the same order as Redis, and switch to O(1)
//! `swap_remove` once the hash would be a hash table in Redis, where order is unspecified
//! anyway. Once converted, a hash never goes back to listpack (as in Redis).

use indexmap::IndexMap;

/// A hash value.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct HashValue {
    /// Field → value, in listpack order while `!big`.
    pub map: IndexMap<Vec<u8>, Vec<u8>, foldhash::fast::RandomState>,
    /// True once Redis would have converted this hash to a hash table.
    pub big: bool,
}

impl HashValue {
    /// The `OBJECT ENCODING` name.
    pub fn encoding(&self) -> &'static str {
        if self.big {
            "hashtable"
        } else {
            "listpack"
        }
    }

    /// Number of fields.
    pub fn len(&self) -> usize {
        self.map.len()
    }

    /// True when there are no fields.
    pub fn is_empty(&self) -> bool {
        self.map.is_empty()
    }
}
