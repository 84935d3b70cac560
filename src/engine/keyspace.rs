//! Databases, keys and expiry.
//!
//! Each of the 16 databases is an [`IndexMap`] from key to [`Entry`]. An index map gives the
//! three things the key commands need at Redis's cost: O(1) lookup, O(1) uniform random
//! choice (RANDOMKEY, the active expiry sampler) and a stable position for SCAN.
//!
//! **SCAN.** Deleting with `swap_remove` moves the *last* entry into the hole. SCAN therefore
//! walks positions from the end towards the start: the cursor is the number of positions
//! not yet visited below, so an entry that is moved lands either in the visited tail (it was
//! the last one, already seen) or stays unvisited. Every key present for the whole scan is
//! returned; a key may be returned twice (as Redis allows), and keys added during the scan may
//! or may not be seen. Cursor 0 starts and ends a scan.
//!
//! **Expiry.** A key's deadline (Unix milliseconds) is in its entry; the keys that have one
//! are also in `volatile`, an index set the active expiry cycle samples from, as Redis samples
//! its `expires` dict. Expired keys are removed lazily when a command touches them and
//! actively by [`crate::engine::Engine::tick`]. Both paths go through
//! [`crate::engine::Ctx::expire_if_needed`] or the cycle in `mod.rs`, which record a `DEL`
//! effect, as Redis propagates one.

use indexmap::{IndexMap, IndexSet};

use super::types::Value;

/// A key: arbitrary bytes.
pub type Key = Vec<u8>;

type Hasher = foldhash::fast::RandomState;

/// What a key maps to.
#[derive(Debug, Clone)]
pub struct Entry {
    /// The value.
    pub value: Value,
    /// Absolute deadline in Unix milliseconds, if the key is volatile.
    pub expire_at: Option<i64>,
    /// Last access time in Unix milliseconds (for `OBJECT IDLETIME`).
    pub accessed_ms: i64,
}

impl Entry {
    /// True if the key is logically gone at `now_ms`. As in Redis (`keyIsExpired`), a key
    /// is expired only once the clock has passed its deadline: at `now_ms == deadline` it
    /// still exists, with a TTL of 0.
    pub fn is_expired_at(&self, now_ms: i64) -> bool {
        self.expire_at.is_some_and(|t| t < now_ms)
    }
}

/// One logical database.
#[derive(Debug, Default, Clone)]
pub struct Db {
    map: IndexMap<Key, Entry, Hasher>,
    volatile: IndexSet<Key, Hasher>,
    /// Where the active expiry cycle resumes its walk over `volatile` (Redis's
    /// `expires_cursor`).
    pub expire_cursor: usize,
}

impl Db {
    /// Number of keys, including expired keys not yet removed (as Redis's DBSIZE).
    pub fn len(&self) -> usize {
        self.map.len()
    }

    /// True when the database holds no keys.
    pub fn is_empty(&self) -> bool {
        self.map.is_empty()
    }

    /// Number of keys with a deadline.
    pub fn volatile_len(&self) -> usize {
        self.volatile.len()
    }

    /// The entry for `key`, without any expiry check. **O(1).**
    pub fn get_raw(&self, key: &[u8]) -> Option<&Entry> {
        self.map.get(key)
    }

    /// The entry for `key`, mutably, without any expiry check. **O(1).**
    pub fn get_raw_mut(&mut self, key: &[u8]) -> Option<&mut Entry> {
        self.map.get_mut(key)
    }

    /// True if `key` has an entry that is expired at `now_ms` (see [`Entry::is_expired_at`]).
    pub fn is_expired(&self, key: &[u8], now_ms: i64) -> bool {
        self.map.get(key).is_some_and(|e| e.is_expired_at(now_ms))
    }

    /// Inserts or replaces the value of `key`. With `keep_ttl` an existing deadline stays;
    /// otherwise the key becomes persistent. **O(1).**
    pub fn set(&mut self, key: Key, value: Value, keep_ttl: bool, now_ms: i64) {
        match self.map.get_mut(&key) {
            Some(e) => {
                e.value = value;
                e.accessed_ms = now_ms;
                if !keep_ttl && e.expire_at.take().is_some() {
                    self.volatile.swap_remove(&key);
                }
            }
            None => {
                self.map.insert(
                    key,
                    Entry {
                        value,
                        expire_at: None,
                        accessed_ms: now_ms,
                    },
                );
            }
        }
    }

    /// Inserts a whole entry (with its deadline), replacing any previous one. **O(1).**
    pub fn insert_entry(&mut self, key: Key, entry: Entry) {
        if entry.expire_at.is_some() {
            self.volatile.insert(key.clone());
        } else {
            self.volatile.swap_remove(&key);
        }
        self.map.insert(key, entry);
    }

    /// Removes `key`, returning its entry. **O(1).**
    pub fn remove(&mut self, key: &[u8]) -> Option<Entry> {
        let e = self.map.swap_remove(key)?;
        if e.expire_at.is_some() {
            self.volatile.swap_remove(key);
        }
        Some(e)
    }

    /// Sets or clears the deadline of an existing key. Returns false if the key is absent.
    pub fn set_expire(&mut self, key: &[u8], at_ms: Option<i64>) -> bool {
        let Some(e) = self.map.get_mut(key) else {
            return false;
        };
        match (e.expire_at.is_some(), at_ms.is_some()) {
            (false, true) => {
                self.volatile.insert(key.to_vec());
            }
            (true, false) => {
                self.volatile.swap_remove(key);
            }
            _ => {}
        }
        e.expire_at = at_ms;
        true
    }

    /// Removes every key.
    pub fn clear(&mut self) {
        self.map.clear();
        self.volatile.clear();
    }

    /// The key at position `i` (for random choice and SCAN).
    pub fn key_at(&self, i: usize) -> Option<(&Key, &Entry)> {
        self.map.get_index(i)
    }

    /// The volatile key at position `i` (for the expiry sampler).
    pub fn volatile_key_at(&self, i: usize) -> Option<&Key> {
        self.volatile.get_index(i)
    }

    /// Iterates over all entries in storage order.
    pub fn iter(&self) -> impl Iterator<Item = (&Key, &Entry)> {
        self.map.iter()
    }

    /// One SCAN step: visits positions below `cursor` (0 = start from the end) going down,
    /// calling `visit` on each, until `count` positions were visited. Returns the next
    /// cursor (0 when the scan is complete). **O(count).** See the module docs for the
    /// guarantee.
    pub fn scan(&self, cursor: u64, count: usize, mut visit: impl FnMut(&Key, &Entry)) -> u64 {
        let len = self.map.len() as u64;
        let mut pos = if cursor == 0 || cursor > len {
            len
        } else {
            cursor
        };
        let mut visited = 0;
        while pos > 0 && visited < count.max(1) {
            pos -= 1;
            if let Some((k, e)) = self.map.get_index(pos as usize) {
                visit(k, e);
            }
            visited += 1;
        }
        pos
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::types::StrValue;

    fn s(v: &str) -> Value {
        Value::Str(StrValue::new(v.as_bytes().to_vec()))
    }

    #[test]
    fn scan_returns_every_key_present_throughout_despite_deletes() {
        let mut db = Db::default();
        for i in 0..1000 {
            db.set(format!("k{i}").into_bytes(), s("v"), false, 0);
        }
        let mut seen = std::collections::HashSet::new();
        let mut cursor = 0;
        let mut step = 0;
        loop {
            cursor = db.scan(cursor, 10, |k, _| {
                seen.insert(k.clone());
            });
            // Delete and add keys while scanning: k{odd < 500} go away, new keys come in.
            if step < 250 {
                db.remove(format!("k{}", 2 * step + 1).as_bytes());
                db.set(format!("new{step}").into_bytes(), s("v"), false, 0);
            }
            step += 1;
            if cursor == 0 {
                break;
            }
        }
        for i in 0..1000 {
            if i % 2 == 0 || i >= 500 {
                assert!(seen.contains(format!("k{i}").as_bytes()), "missed k{i}");
            }
        }
    }

    #[test]
    fn set_without_keep_ttl_persists_the_key() {
        let mut db = Db::default();
        db.set(b"a".to_vec(), s("1"), false, 0);
        db.set_expire(b"a", Some(100));
        assert_eq!(db.volatile_len(), 1);
        db.set(b"a".to_vec(), s("2"), true, 0);
        assert_eq!(db.volatile_len(), 1);
        db.set(b"a".to_vec(), s("3"), false, 0);
        assert_eq!(db.volatile_len(), 0);
        assert_eq!(db.get_raw(b"a").unwrap().expire_at, None);
    }
}
