//! Hashes.
//!
//! A hash is an insertion-ordered map from field to value ([`indexmap::IndexMap`]).
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
//! We mirror this with one structure and a flag: while `big` is false we delete with
//! `shift_remove` (O(N), like the listpack's own memmove, and N is bounded by the threshold)
//! so the order is exactly the listpack's; once `big` is set we delete with `swap_remove`,
//! O(1), and the order is merely some order. `big` is what `OBJECT ENCODING` reports and
//! what makes HSCAN page through the hash instead of returning it whole.
//!
//! **When the check happens** matters for `OBJECT ENCODING` and follows Redis exactly:
//! HSET/HMSET/HSETNX look at the lengths of *all* their field and value arguments before
//! writing ([`HashValue::convert_for_args`], Redis's `hashTypeTryConversion`), so an HSET
//! that only updates an existing field with a long value converts too; every write then
//! checks its own field and value and the new field count ([`HashValue::insert`],
//! `hashTypeSet`), which is what HINCRBY and HINCRBYFLOAT rely on.
//!
//! Invariants: a stored hash is never empty (commands delete the key with its last field);
//! `big` never goes back to false.
//!
//! # Changing it
//! A performance change to this structure lands only with the scale tests passing in
//! release mode: `cargo test --release --test scale --test scale_diff` (here
//! `hashes_against_a_model` and its redis-server twin), which take it to a million live
//! elements against a plain model and against a real Redis (issue 18). A fast path that
//! trusts a hash, a tag, a probed slot or a cached position confirms the bytes before it
//! changes data or a reply.

use std::collections::BTreeMap;

use indexmap::IndexMap;

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

/// A hash value.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct HashValue {
    /// Field → value, in listpack order while `!big`.
    map: IndexMap<Vec<u8>, Vec<u8>, foldhash::fast::RandomState>,
    /// True once Redis would have converted this hash to a hash table.
    big: bool,
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
        let mut h = HashValue {
            big,
            ..HashValue::default()
        };
        let mut repeated = false;
        for (f, v) in pairs {
            repeated |= h.map.insert(f, v).is_some();
        }
        (h, repeated)
    }

    /// True once the hash is in the hash-table encoding (for good).
    pub fn is_big(&self) -> bool {
        self.big
    }

    /// The `OBJECT ENCODING` name.
    pub fn encoding(&self) -> &'static str {
        if self.big {
            "hashtable"
        } else {
            "listpack"
        }
    }

    /// Number of fields. **O(1).**
    pub fn len(&self) -> usize {
        self.map.len()
    }

    /// True when there are no fields.
    pub fn is_empty(&self) -> bool {
        self.map.is_empty()
    }

    /// The value of `field`. **O(1).**
    pub fn get(&self, field: &[u8]) -> Option<&[u8]> {
        self.map.get(field).map(|v| v.as_slice())
    }

    /// True if `field` exists. **O(1).**
    pub fn contains(&self, field: &[u8]) -> bool {
        self.map.contains_key(field)
    }

    /// Redis's `hashTypeTryConversion`: converts to a hash table if any of the given
    /// argument lengths exceeds `hash-max-listpack-value`. **O(arguments).**
    pub fn convert_for_args(&mut self, lens: impl IntoIterator<Item = usize>, limits: HashLimits) {
        if !self.big && lens.into_iter().any(|l| l > limits.max_listpack_value) {
            self.big = true;
        }
    }

    /// Sets `field` to `value` (Redis's `hashTypeSet`): an existing field keeps its place, a
    /// new one goes last. Converts first if the field or value is too long for a listpack,
    /// and after if there are now too many fields. Returns true if the field is new.
    /// **O(1)** (amortised).
    pub fn insert(&mut self, field: Vec<u8>, value: Vec<u8>, limits: HashLimits) -> bool {
        self.convert_for_args([field.len(), value.len()], limits);
        let new = self.map.insert(field, value).is_none();
        if self.map.len() > limits.max_listpack_entries {
            self.big = true;
        }
        new
    }

    /// Removes `field`; returns true if it existed. A small hash closes the gap, keeping
    /// the listpack order (**O(N)** with N bounded by the listpack threshold); a big one
    /// moves its last field into the hole (**O(1)**).
    pub fn remove(&mut self, field: &[u8]) -> bool {
        if self.big {
            self.map.swap_remove(field).is_some()
        } else {
            self.map.shift_remove(field).is_some()
        }
    }

    /// The field and value at position `i` (for random picks and HSCAN). **O(1).**
    pub fn get_index(&self, i: usize) -> Option<(&[u8], &[u8])> {
        self.map
            .get_index(i)
            .map(|(f, v)| (f.as_slice(), v.as_slice()))
    }

    /// Iterates over fields and values in order (listpack order while small).
    pub fn iter(&self) -> impl Iterator<Item = (&[u8], &[u8])> {
        self.map.iter().map(|(f, v)| (f.as_slice(), v.as_slice()))
    }

    /// Checks that every field is found by its own bytes at its own position, and that a
    /// hash still in the listpack encoding is within `limits` (the limits it was built
    /// under: lowering them with `CONFIG SET` converts a hash only at its next write, as
    /// in Redis). **O(N).** For tests.
    pub fn check_invariants(&self, limits: HashLimits) -> Result<(), String> {
        for (i, f) in self.map.keys().enumerate() {
            if self.map.get_index_of(f.as_slice()) != Some(i) {
                return Err(format!("field at {i} is not found at its position"));
            }
        }
        let too_long = |b: &[u8]| b.len() > limits.max_listpack_value;
        if !self.big
            && (self.map.len() > limits.max_listpack_entries
                || self.iter().any(|(f, v)| too_long(f) || too_long(v)))
        {
            return Err("a listpack hash beyond its limits".into());
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn limits(entries: usize, value: usize) -> HashLimits {
        HashLimits {
            max_listpack_entries: entries,
            max_listpack_value: value,
        }
    }

    #[test]
    fn small_hash_keeps_listpack_order() {
        let mut h = HashValue::default();
        let l = HashLimits::default();
        for f in ["a", "b", "c", "d"] {
            assert!(h.insert(f.into(), b"1".to_vec(), l));
        }
        assert!(!h.insert(b"b".to_vec(), b"2".to_vec(), l));
        assert!(h.remove(b"a"));
        assert!(!h.remove(b"zz"));
        let fields: Vec<&[u8]> = h.iter().map(|(f, _)| f).collect();
        assert_eq!(fields, [&b"b"[..], b"c", b"d"]);
        assert_eq!(h.get(b"b"), Some(&b"2"[..]));
        assert_eq!(h.encoding(), "listpack");
    }

    #[test]
    fn converts_on_too_many_fields_or_long_strings_and_never_back() {
        let mut h = HashValue::default();
        let l = limits(3, 8);
        for f in ["a", "b", "c"] {
            h.insert(f.into(), b"v".to_vec(), l);
        }
        assert!(!h.big);
        h.insert(b"d".to_vec(), b"v".to_vec(), l);
        assert!(h.big);
        h.remove(b"d");
        h.remove(b"c");
        assert_eq!(h.encoding(), "hashtable");

        let mut h = HashValue::default();
        h.insert(b"f".to_vec(), vec![b'x'; 9], l);
        assert!(h.big);

        let mut h = HashValue::default();
        h.insert(b"f".to_vec(), b"v".to_vec(), l);
        h.convert_for_args([1, 8], l);
        assert!(!h.big);
        h.convert_for_args([1, 9], l);
        assert!(h.big);
    }

    #[test]
    fn limits_come_from_config_text() {
        let mut values = BTreeMap::new();
        assert_eq!(HashLimits::from_config(&values), HashLimits::default());
        values.insert("hash-max-listpack-entries".to_string(), "128".to_string());
        values.insert("hash-max-listpack-value".to_string(), "bad".to_string());
        assert_eq!(HashLimits::from_config(&values), limits(128, 64));
    }
}
