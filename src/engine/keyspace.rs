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
//!
//! **Hash slots.** In cluster mode a database also keeps its keys by hash slot
//! (`SlotIndex`), as Redis keeps `slots_to_keys`, so that `CLUSTER COUNTKEYSINSLOT` is
//! O(1) and `CLUSTER GETKEYSINSLOT` O(log N) plus the keys returned. Outside cluster mode
//! the index does not exist and costs nothing.
//!
//! # Changing it
//! A performance change to this structure lands only with the scale tests passing in
//! release mode: `cargo test --release --test scale --test scale_diff` (here
//! `keyspace_against_a_model` and its redis-server twin), which take it to a million live
//! elements against a plain model and against a real Redis (issue 18). A fast path that
//! trusts a hash, a tag, a probed slot or a cached position confirms the bytes before it
//! changes data or a reply.

use std::collections::BTreeMap;

use foldhash::HashMap;

use indexmap::{IndexMap, IndexSet};

use super::cluster;

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
    /// Last access time in Unix milliseconds (for `OBJECT IDLETIME`, and under an LFU
    /// policy the time the LFU counter was last updated).
    pub accessed_ms: i64,
    /// Redis's logarithmic access counter (`OBJECT FREQ`, the LFU eviction policies):
    /// [`crate::engine::evict::LFU_INIT_VAL`] for a new key, and like Redis kept up to date
    /// only while an LFU `maxmemory-policy` is set (see [`crate::engine::evict`]).
    pub lfu: u8,
}

impl Entry {
    /// A new entry written at `now_ms`, its LFU counter at Redis's initial value.
    pub fn new(value: Value, expire_at: Option<i64>, now_ms: i64) -> Entry {
        Entry {
            value,
            expire_at,
            accessed_ms: now_ms,
            lfu: crate::engine::evict::LFU_INIT_VAL,
        }
    }

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
    /// Redis's `avg_ttl` estimate (INFO keyspace), in milliseconds: a running average of
    /// the TTLs the active expiry cycle samples; 0 until it has sampled one, and again
    /// once no key has a TTL.
    pub avg_ttl: i64,
    /// Keys by hash slot, only in cluster mode (see [`Db::index_slots`]).
    slots: Option<Box<SlotIndex>>,
}

/// The keys of a database by hash slot, for `CLUSTER COUNTKEYSINSLOT` and
/// `CLUSTER GETKEYSINSLOT`.
///
/// Invariants: a key is in `seq` exactly when it is in the database, and then it is in
/// `by_slot[key_slot(key)]` under that sequence number. Sequence numbers grow with each key
/// added, so a slot's map lists its keys oldest first; Redis links a new key at the head of
/// its slot's list, so `GETKEYSINSLOT` walks the map newest first. A key that is overwritten
/// keeps its place (Redis's `dbOverwrite`); one that is removed and added again (RENAME,
/// MOVE, expiry then SET) goes to the front.
#[derive(Debug, Clone, Default)]
struct SlotIndex {
    by_slot: HashMap<u16, BTreeMap<u64, Key>>,
    seq: HashMap<Key, u64>,
    next: u64,
}

impl SlotIndex {
    fn add(&mut self, key: &[u8]) {
        if self.seq.contains_key(key) {
            return;
        }
        let n = self.next;
        self.next += 1;
        self.seq.insert(key.to_vec(), n);
        self.by_slot
            .entry(cluster::key_slot(key))
            .or_default()
            .insert(n, key.to_vec());
    }

    fn remove(&mut self, key: &[u8]) {
        let Some(n) = self.seq.remove(key) else {
            return;
        };
        let slot = cluster::key_slot(key);
        if let Some(keys) = self.by_slot.get_mut(&slot) {
            keys.remove(&n);
            if keys.is_empty() {
                self.by_slot.remove(&slot);
            }
        }
    }
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
                if let Some(ix) = &mut self.slots {
                    ix.add(&key);
                }
                self.map.insert(key, Entry::new(value, None, now_ms));
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
        if let Some(ix) = &mut self.slots {
            ix.add(&key);
        }
        self.map.insert(key, entry);
    }

    /// Removes `key`, returning its entry. **O(1).**
    pub fn remove(&mut self, key: &[u8]) -> Option<Entry> {
        let e = self.map.swap_remove(key)?;
        if e.expire_at.is_some() {
            self.volatile.swap_remove(key);
        }
        if let Some(ix) = &mut self.slots {
            ix.remove(key);
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
        self.avg_ttl = 0;
        if let Some(ix) = &mut self.slots {
            **ix = SlotIndex::default();
        }
    }

    /// Starts (`on`) or stops keeping the keys by hash slot. Starting indexes the keys
    /// present, in storage order. **O(N)** to start, O(1) to stop.
    pub fn index_slots(&mut self, on: bool) {
        if !on {
            self.slots = None;
        } else if self.slots.is_none() {
            let mut ix = SlotIndex::default();
            for k in self.map.keys() {
                ix.add(k);
            }
            self.slots = Some(Box::new(ix));
        }
    }

    /// How many keys hash to `slot`; `None` unless the slots are indexed
    /// ([`Db::index_slots`]). **O(1).**
    pub fn count_keys_in_slot(&self, slot: u16) -> Option<usize> {
        let ix = self.slots.as_ref()?;
        Some(ix.by_slot.get(&slot).map_or(0, BTreeMap::len))
    }

    /// Up to `count` keys of `slot`, most recently added first; `None` unless the slots are
    /// indexed. **O(log N + count).**
    pub fn keys_in_slot(&self, slot: u16, count: usize) -> Option<Vec<&Key>> {
        let ix = self.slots.as_ref()?;
        Some(
            ix.by_slot
                .get(&slot)
                .map(|keys| keys.values().rev().take(count).collect())
                .unwrap_or_default(),
        )
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

impl Db {
    /// Checks that every key is found by its own bytes at its own position, that the keys
    /// with a deadline are exactly those in `volatile` (each found at its position too),
    /// and, in cluster mode, that the slot index holds exactly the keys, each under its
    /// slot. **O(N).** For tests.
    pub fn check_invariants(&self) -> Result<(), String> {
        let mut with_deadline = 0;
        for (i, (k, e)) in self.map.iter().enumerate() {
            if self.map.get_index_of(k.as_slice()) != Some(i) {
                return Err(format!("key at {i} is not found at its position"));
            }
            if e.expire_at.is_some() {
                with_deadline += 1;
                if !self.volatile.contains(k.as_slice()) {
                    return Err(format!("key at {i} has a deadline but is not volatile"));
                }
            }
        }
        if with_deadline != self.volatile.len() {
            return Err(format!(
                "{with_deadline} keys with a deadline, {} volatile",
                self.volatile.len()
            ));
        }
        for (i, k) in self.volatile.iter().enumerate() {
            if self.volatile.get_index_of(k.as_slice()) != Some(i) {
                return Err(format!("volatile key at {i} is not found at its position"));
            }
        }
        let Some(ix) = &self.slots else {
            return Ok(());
        };
        if ix.seq.len() != self.map.len() {
            return Err(format!(
                "{} keys in the slot index, {} in the database",
                ix.seq.len(),
                self.map.len()
            ));
        }
        let mut indexed = 0;
        for (slot, keys) in &ix.by_slot {
            for (n, k) in keys {
                indexed += 1;
                if cluster::key_slot(k) != *slot || ix.seq.get(k.as_slice()) != Some(n) {
                    return Err(format!("slot {slot} lists a key out of place"));
                }
                if !self.map.contains_key(k.as_slice()) {
                    return Err(format!("slot {slot} lists a key not in the database"));
                }
            }
        }
        if indexed != ix.seq.len() {
            return Err(format!(
                "{indexed} keys by slot, {} by sequence",
                ix.seq.len()
            ));
        }
        Ok(())
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
