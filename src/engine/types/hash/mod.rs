//! Hashes.
//!
//! A hash is an insertion-ordered map from field to value, in one of two representations
//! that match Redis's two encodings.
//!
//! **Two encodings, as Redis 7.0.** Redis keeps a small hash in a *listpack*: one flat buffer
//! of field, value, field, value… A new field is appended at the end, an updated field keeps
//! its place, and a deleted pair closes its gap, so HGETALL, HKEYS, HVALS, HSCAN and
//! HRANDFIELD with a count at least the size list fields in insertion order. Redis converts
//! the hash to a hash table, for good, when it would hold more than
//! `hash-max-listpack-entries` fields (512 when redis-server starts without a configuration
//! file; the sample `redis.conf` sets 128) or when a field or value longer than
//! `hash-max-listpack-value` (64) bytes is written. Its order is then the hash table's and
//! unspecified.
//!
//! **Ours.** A small hash is a `pack::Pack` too: one exact-size `Box<[u8]>` of
//! varint-length-prefixed field, value, field, value… in listpack order, plus its pair
//! count. Lookups scan it (**O(N)**, N bounded by the threshold, as Redis's listpack);
//! an update rewrites the value where it is, a delete moves the tail down. At conversion
//! the pairs move, in order, into a boxed [`indexmap::IndexMap`], which deletes with
//! `swap_remove` (**O(1)**; the order is then merely some order). Which one a hash holds
//! is what `OBJECT ENCODING` reports, what the RDB writer and snapshot image record, and
//! what makes HSCAN page through the hash instead of returning it whole.
//!
//! **The measurement** (issue 20, `python3 bench/memory.py --only hashes`: 100,000 hashes
//! of 10 two-byte fields and values): with an `IndexMap` for every hash, kvlab-server grew
//! by 159.6 bytes of resident memory per field against redis-server 7.0.15's 17.3 (an
//! index table, two `Vec` headers and two heap blocks per field); with the flat buffer,
//! 33.3 against 17.4. The ten pairs take 60 bytes in one block; what remains is mostly the
//! per-key overhead outside this file (the keyspace entry, the key's own heap block and
//! the table slot). `HashValue` is 24 bytes (the table boxed), no longer the largest
//! [`super::Value`] variant.
//!
//! **When the check happens** matters for `OBJECT ENCODING` and follows Redis exactly:
//! HSET/HMSET/HSETNX look at the lengths of *all* their field and value arguments before
//! writing ([`HashValue::convert_for_args`], Redis's `hashTypeTryConversion`), so an HSET
//! that only updates an existing field with a long value converts too; every write then
//! checks its own field and value and the new field count ([`HashValue::insert`],
//! `hashTypeSet`), which is what HINCRBY and HINCRBYFLOAT rely on.
//!
//! Invariants: a stored hash is never empty (commands delete the key with its last field);
//! a hash never goes back from the table to the pack (loaders build either directly,
//! [`HashValue::from_pairs`]); a pack decodes into exactly its count of distinct pairs and,
//! under the limits it was built with, is within them ([`HashValue::check_invariants`]).
//! Equality is the one the former `IndexMap`-and-flag gave: same encoding, same pairs, in
//! any order.
//!
//! # Changing it
//! The representation is private: callers use `get`, `insert`, `remove`, `iter`,
//! `get_index`, `at_positions`, `len` and `is_big`, so another encoding changes this file
//! and `pack.rs` only. Memory is measured with `python3 bench/memory.py --only hashes`
//! (report redis and kvlab from one run), CPU with `TESTS=hset bench/redis-benchmark.sh`.
//! The pack's own tests, `tests.rs` here, `cargo test --test props_hash` (a model of
//! pairs) and `cargo test --test differential hash` cover order and conversions.
//! A performance change to this structure lands only with the scale tests passing in
//! release mode: `cargo test --release --test scale --test scale_diff` (here
//! `hashes_against_a_model` and its redis-server twin), which take it to a million live
//! elements against a plain model and against a real Redis (issue 18). A fast path that
//! trusts a hash, a tag, a probed slot or a cached position confirms the bytes before it
//! changes data or a reply.

mod pack;
#[cfg(test)]
mod tests;

use std::collections::BTreeMap;
use std::fmt;

use indexmap::IndexMap;

use pack::Pack;

/// The conversion thresholds in force (Redis's `hash-max-listpack-*` parameters).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HashLimits {
    /// `hash-max-listpack-entries`: most fields a listpack hash holds.
    pub max_listpack_entries: usize,
    /// `hash-max-listpack-value`: longest field or value a listpack hash holds.
    pub max_listpack_value: usize,
}

/// Default `hash-max-listpack-entries` of redis-server 7.0 started without a config file.
pub const DEFAULT_MAX_LISTPACK_ENTRIES: usize = 512;
/// Default `hash-max-listpack-value`.
pub const DEFAULT_MAX_LISTPACK_VALUE: usize = 64;

impl Default for HashLimits {
    fn default() -> HashLimits {
        HashLimits {
            max_listpack_entries: DEFAULT_MAX_LISTPACK_ENTRIES,
            max_listpack_value: DEFAULT_MAX_LISTPACK_VALUE,
        }
    }
}

impl HashLimits {
    /// The thresholds from the configuration's parameter texts, falling back to the
    /// defaults for a parameter that is missing or not a number.
    pub fn from_config(values: &BTreeMap<String, String>) -> HashLimits {
        let read = |name: &str, default: usize| {
            values
                .get(name)
                .and_then(|v| v.parse::<usize>().ok())
                .unwrap_or(default)
        };
        HashLimits {
            max_listpack_entries: read("hash-max-listpack-entries", DEFAULT_MAX_LISTPACK_ENTRIES),
            max_listpack_value: read("hash-max-listpack-value", DEFAULT_MAX_LISTPACK_VALUE),
        }
    }
}

/// The hash-table encoding: field → value, in some order.
type Table = IndexMap<Vec<u8>, Vec<u8>, foldhash::fast::RandomState>;

/// A hash value.
#[derive(Clone)]
pub struct HashValue {
    repr: Repr,
}

/// The two encodings. The table is boxed so that a hash is 24 bytes, not 64.
#[derive(Clone)]
enum Repr {
    /// `listpack`: the pairs in insertion order in one flat buffer.
    Pack(Pack),
    /// `hashtable`: for good, once Redis would have converted.
    Table(Box<Table>),
}

impl Default for HashValue {
    fn default() -> HashValue {
        HashValue {
            repr: Repr::Pack(Pack::default()),
        }
    }
}

/// Equal when both are in the same encoding and hold the same fields with the same values,
/// in whatever order (what the derived equality of the former `IndexMap` and flag said).
impl PartialEq for HashValue {
    fn eq(&self, other: &HashValue) -> bool {
        match (&self.repr, &other.repr) {
            (Repr::Pack(a), Repr::Pack(b)) => {
                a == b || (a.len() == b.len() && a.iter().all(|(f, v)| b.get(f) == Some(v)))
            }
            (Repr::Table(a), Repr::Table(b)) => a == b,
            _ => false,
        }
    }
}

impl fmt::Debug for HashValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("HashValue")
            .field("encoding", &self.encoding())
            .field("pairs", &Pairs(self))
            .finish()
    }
}

/// The pairs of a hash in order, for [`fmt::Debug`].
struct Pairs<'a>(&'a HashValue);

impl fmt::Debug for Pairs<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_map().entries(self.0.iter()).finish()
    }
}

/// The pairs of either encoding, in its order.
enum Iter<'a> {
    Pack(pack::Iter<'a>),
    Table(indexmap::map::Iter<'a, Vec<u8>, Vec<u8>>),
}

impl<'a> Iterator for Iter<'a> {
    type Item = (&'a [u8], &'a [u8]);

    fn next(&mut self) -> Option<Self::Item> {
        match self {
            Iter::Pack(it) => it.next(),
            Iter::Table(it) => it.next().map(|(f, v)| (f.as_slice(), v.as_slice())),
        }
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        match self {
            Iter::Pack(it) => it.size_hint(),
            Iter::Table(it) => it.size_hint(),
        }
    }
}

impl HashValue {
    /// A hash of `pairs` in their order, in the hash-table encoding if `big`, else in the
    /// listpack one whatever the lengths (loaders: the encoding is the one recorded, or
    /// the one the loader decided). A repeated field overwrites the earlier value in its
    /// place; the flag says whether that happened. **O(N).**
    pub fn from_pairs(
        pairs: impl IntoIterator<Item = (Vec<u8>, Vec<u8>)>,
        big: bool,
    ) -> (HashValue, bool) {
        let mut table = Table::default();
        let mut repeated = false;
        for (f, v) in pairs {
            repeated |= table.insert(f, v).is_some();
        }
        let repr = if big {
            Repr::Table(Box::new(table))
        } else {
            let pairs = table.iter().map(|(f, v)| (f.as_slice(), v.as_slice()));
            Repr::Pack(Pack::of_distinct(pairs))
        };
        (HashValue { repr }, repeated)
    }

    /// True once the hash is in the hash-table encoding (for good).
    pub fn is_big(&self) -> bool {
        matches!(self.repr, Repr::Table(_))
    }

    /// The `OBJECT ENCODING` name.
    pub fn encoding(&self) -> &'static str {
        if self.is_big() {
            "hashtable"
        } else {
            "listpack"
        }
    }

    /// Number of fields. **O(1).**
    pub fn len(&self) -> usize {
        match &self.repr {
            Repr::Pack(p) => p.len(),
            Repr::Table(t) => t.len(),
        }
    }

    /// True when there are no fields.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The value of `field`. **O(1)** big, **O(N)** small.
    pub fn get(&self, field: &[u8]) -> Option<&[u8]> {
        match &self.repr {
            Repr::Pack(p) => p.get(field),
            Repr::Table(t) => t.get(field).map(Vec::as_slice),
        }
    }

    /// True if `field` exists. **O(1)** big, **O(N)** small.
    pub fn contains(&self, field: &[u8]) -> bool {
        self.get(field).is_some()
    }

    /// Moves a small hash into the hash table, keeping the order it had. **O(N).**
    fn convert(&mut self) {
        if let Repr::Pack(p) = &self.repr {
            let mut table = Table::with_capacity_and_hasher(p.len(), Default::default());
            for (f, v) in p.iter() {
                table.insert(f.to_vec(), v.to_vec());
            }
            self.repr = Repr::Table(Box::new(table));
        }
    }

    /// Redis's `hashTypeTryConversion`: converts to a hash table if any of the given
    /// argument lengths exceeds `hash-max-listpack-value`. **O(arguments)**, plus **O(N)**
    /// when it converts.
    pub fn convert_for_args(&mut self, lens: impl IntoIterator<Item = usize>, limits: HashLimits) {
        if !self.is_big() && lens.into_iter().any(|l| l > limits.max_listpack_value) {
            self.convert();
        }
    }

    /// Sets `field` to `value` (Redis's `hashTypeSet`): an existing field keeps its place, a
    /// new one goes last. Converts first if the field or value is too long for a listpack,
    /// and after if there are now too many fields. Returns true if the field is new.
    /// **O(1)** (amortised) big, **O(N)** small.
    pub fn insert(&mut self, field: Vec<u8>, value: Vec<u8>, limits: HashLimits) -> bool {
        self.convert_for_args([field.len(), value.len()], limits);
        match &mut self.repr {
            Repr::Table(t) => t.insert(field, value).is_none(),
            Repr::Pack(p) => {
                let new = p.insert(&field, &value);
                if p.len() > limits.max_listpack_entries {
                    self.convert();
                }
                new
            }
        }
    }

    /// Removes `field`; returns true if it existed. A small hash closes the gap, keeping
    /// the listpack order (**O(N)** with N bounded by the listpack threshold); a big one
    /// moves its last field into the hole (**O(1)**).
    pub fn remove(&mut self, field: &[u8]) -> bool {
        match &mut self.repr {
            Repr::Pack(p) => p.remove(field),
            Repr::Table(t) => t.swap_remove(field).is_some(),
        }
    }

    /// The field and value at position `i` (for random picks and HSCAN). **O(1)** big,
    /// **O(N)** small; see [`HashValue::at_positions`] for many.
    pub fn get_index(&self, i: usize) -> Option<(&[u8], &[u8])> {
        match &self.repr {
            Repr::Pack(p) => p.get_index(i),
            Repr::Table(t) => t.get_index(i).map(|(f, v)| (f.as_slice(), v.as_slice())),
        }
    }

    /// The pairs at each of `positions` in turn (repeats allowed), skipping a position
    /// past the end: **O(N + positions)**, a small hash being listed once.
    pub fn at_positions(&self, positions: &[usize]) -> Vec<(&[u8], &[u8])> {
        match &self.repr {
            Repr::Pack(p) if positions.len() > 1 => {
                let all: Vec<(&[u8], &[u8])> = p.iter().collect();
                positions
                    .iter()
                    .filter_map(|&i| all.get(i).copied())
                    .collect()
            }
            _ => positions
                .iter()
                .filter_map(|&i| self.get_index(i))
                .collect(),
        }
    }

    /// Iterates over fields and values in order (listpack order while small).
    pub fn iter(&self) -> impl Iterator<Item = (&[u8], &[u8])> + '_ {
        match &self.repr {
            Repr::Pack(p) => Iter::Pack(p.iter()),
            Repr::Table(t) => Iter::Table(t.iter()),
        }
    }

    /// Bytes of a small hash's buffer, `None` for a big one (tests and measurements).
    pub fn packed_bytes(&self) -> Option<usize> {
        match &self.repr {
            Repr::Pack(p) => Some(p.bytes()),
            Repr::Table(_) => None,
        }
    }

    /// Checks that every field is found by its own bytes at its own position, that a small
    /// hash's buffer decodes exactly into its count of distinct pairs, and that a hash
    /// still in the listpack encoding is within `limits` (the limits it was built under:
    /// lowering them with `CONFIG SET` converts a hash only at its next write, as in
    /// Redis). **O(N)** big, **O(N²)** small. For tests.
    pub fn check_invariants(&self, limits: HashLimits) -> Result<(), String> {
        match &self.repr {
            Repr::Table(t) => {
                for (i, f) in t.keys().enumerate() {
                    if t.get_index_of(f.as_slice()) != Some(i) {
                        return Err(format!("field at {i} is not found at its position"));
                    }
                }
            }
            Repr::Pack(p) => {
                p.check()?;
                for (i, (f, _)) in p.iter().enumerate() {
                    if p.get(f).is_none() || p.get_index(i).map(|(g, _)| g) != Some(f) {
                        return Err(format!("field at {i} is not found at its position"));
                    }
                }
                let too_long = |b: &[u8]| b.len() > limits.max_listpack_value;
                if p.len() > limits.max_listpack_entries
                    || p.iter().any(|(f, v)| too_long(f) || too_long(v))
                {
                    return Err("a listpack hash beyond its limits".into());
                }
            }
        }
        Ok(())
    }
}
