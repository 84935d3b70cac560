//! Databases, keys and expiry.
//!
//! Each of the 16 databases is a [`KeyTable`] from key to [`Entry`]: an insertion-ordered
//! hash map like `IndexMap`, its entries in fixed-size segments so that growing never
//! copies them (see `table.rs` for why). It gives the three things the key commands need
//! at Redis's cost: O(1) lookup, O(1) uniform random choice (RANDOMKEY, the active expiry
//! sampler) and a stable position for SCAN.
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
//! **Memory.** A key costs one entry of the table's segments — the key ([`KeyBytes`]: 16,
//! inline up to 14 bytes) and the [`Entry`] (40: a 24-byte value, short strings inline,
//! and 16 of deadline, access time, save mark and LFU counter) — plus its position in the
//! hash index (a `usize` and a control byte, at up to 7/8 load). A million `key:N` →
//! 10-byte strings take about 75 bytes each of resident memory against Redis's 99
//! (`python3 bench/memory.py`), and grow a browser tab's wasm memory by about 68
//! (`node bench/memory.mjs`; 235 while the entries were one doubling array).
//!
//! **Hash slots.** In cluster mode a database also keeps its keys by hash slot
//! (`SlotIndex`), as Redis keeps `slots_to_keys`, so that `CLUSTER COUNTKEYSINSLOT` is
//! O(1) and `CLUSTER GETKEYSINSLOT` O(log N) plus the keys returned. Outside cluster mode
//! the index does not exist and costs nothing.
//!
//! **Background saves.** A `BGSAVE` must write the dataset as it was when it started, while
//! commands go on changing it. Redis forks for that; here each entry carries the number of
//! the last save that has it (`save_epoch`), and a database being saved holds a `DbSave`:
//! a cursor walking its positions upwards and the [`EntrySink`] that encodes entries. An
//! entry is *pending* while its number is below the running save's. Before any change to a
//! pending entry — a write, a deadline, a removal, a read that moves its access time — the
//! database hands its current bytes to the sink and marks it, the copy-on-write a fork gives,
//! paid as the encoding the save does anyway; entries added meanwhile take the save's number
//! and are left out. Invariant: no entry below the cursor is pending (a removal that moves
//! the last entry below it writes that entry first). `FLUSHDB` detaches the map instead of
//! dropping it, for the save to finish. Starting a save is O(1) per database.
//!
//! # Changing it
//! A performance change to this structure lands only with the scale tests passing in
//! release mode: `cargo test --release --test scale --test scale_diff` (here
//! `keyspace_against_a_model` and its redis-server twin), which take it to a million live
//! elements against a plain model and against a real Redis (issue 18). A fast path that
//! trusts a hash, a tag, a probed slot or a cached position confirms the bytes before it
//! changes data or a reply.

use std::any::Any;
use std::collections::BTreeMap;
use std::fmt;

use foldhash::HashMap;

use super::cluster;

mod table;

pub use table::KeyTable;

use super::types::small::KeyBytes;
use super::types::Value;

/// A key: arbitrary bytes.
pub type Key = Vec<u8>;

/// The key slot of the map and the volatile index: short keys inline.
type Stored = KeyBytes;

/// What a key maps to: 40 bytes beside its key (a test holds it there), since a
/// database of small strings is mostly entries.
#[derive(Debug, Clone)]
pub struct Entry {
    /// The value.
    pub value: Value,
    /// Absolute deadline in Unix milliseconds, or [`NO_DEADLINE`] (an `Option<i64>`
    /// would take 16 bytes).
    deadline: i64,
    /// Last access time in Unix seconds (for `OBJECT IDLETIME`, and under an LFU policy
    /// the time the LFU counter was last updated). Redis keeps the same in its object's
    /// 24-bit `lru` field, in seconds (minutes for LFU); 32 bits last until 2106.
    accessed_s: u32,
    /// The number of the last background save that has this entry (see the module docs):
    /// set when the entry enters a database and when a save writes it.
    save_epoch: u16,
    /// Redis's logarithmic access counter (`OBJECT FREQ`, the LFU eviction policies):
    /// [`crate::engine::evict::LFU_INIT_VAL`] for a new key, and like Redis kept up to date
    /// only while an LFU `maxmemory-policy` is set (see [`crate::engine::evict`]).
    pub lfu: u8,
}

/// The `deadline` of a key without one. No deadline is ever this early: any time before
/// now is expired, and [`Entry::set_expire_at`] moves this one up by a millisecond.
const NO_DEADLINE: i64 = i64::MIN;

impl Entry {
    /// A new entry written at `now_ms`, its LFU counter at Redis's initial value.
    pub fn new(value: Value, expire_at: Option<i64>, now_ms: i64) -> Entry {
        let mut e = Entry {
            value,
            deadline: NO_DEADLINE,
            accessed_s: 0,
            save_epoch: 0,
            lfu: crate::engine::evict::LFU_INIT_VAL,
        };
        e.set_expire_at(expire_at);
        e.set_accessed_ms(now_ms);
        e
    }

    /// Absolute deadline in Unix milliseconds, if the key is volatile.
    #[inline]
    pub fn expire_at(&self) -> Option<i64> {
        (self.deadline != NO_DEADLINE).then_some(self.deadline)
    }

    /// Sets the deadline. Private: a database keeps its volatile index in step
    /// ([`Db::set_expire`]); an entry not yet in a database takes one through
    /// [`Entry::new`].
    fn set_expire_at(&mut self, at_ms: Option<i64>) {
        self.deadline = at_ms.map_or(NO_DEADLINE, |t| t.max(NO_DEADLINE + 1));
    }

    /// Last access time in Unix milliseconds, to the second.
    #[inline]
    pub fn accessed_ms(&self) -> i64 {
        i64::from(self.accessed_s) * 1000
    }

    /// Records an access at `ms` (Unix milliseconds), kept to the second.
    #[inline]
    pub fn set_accessed_ms(&mut self, ms: i64) {
        self.accessed_s = u32::try_from(ms.div_euclid(1000).max(0)).unwrap_or(u32::MAX);
    }

    /// True if the key is logically gone at `now_ms`. As in Redis (`keyIsExpired`), a key
    /// is expired only once the clock has passed its deadline: at `now_ms == deadline` it
    /// still exists, with a TTL of 0.
    #[inline]
    pub fn is_expired_at(&self, now_ms: i64) -> bool {
        self.deadline != NO_DEADLINE && self.deadline < now_ms
    }
}

/// Where a background save puts the entries of one database: it encodes each entry it is
/// given as the entry is at that moment. Defined here, implemented by the RDB writer.
pub trait EntrySink: Any {
    /// Encodes `key` and its `entry`.
    fn put(&mut self, key: &[u8], entry: &Entry);
}

/// A background save of one database under way (see the module docs).
struct DbSave {
    /// The save's number: entries marked below it are pending.
    epoch: u16,
    /// Positions of the map below this hold no pending entry.
    cursor: usize,
    /// The map has held no pending entry since a flush.
    flushed: bool,
    /// The map a flush detached while entries of it were pending, and where the walk over
    /// it is.
    detached: Option<(KeyTable<Entry>, usize)>,
    sink: Box<dyn EntrySink>,
    /// Entries handed to the sink.
    written: u64,
}

impl DbSave {
    /// Hands `entry` to the sink and marks it, if it is pending.
    fn keep(&mut self, key: &[u8], entry: &mut Entry) {
        if entry.save_epoch < self.epoch {
            self.sink.put(key, entry);
            self.written += 1;
            entry.save_epoch = self.epoch;
        }
    }

    fn keep_at(&mut self, map: &mut KeyTable<Entry>, i: usize) {
        if let Some((k, e)) = map.get_index_mut(i) {
            self.keep(k, e);
        }
    }
}

/// The save slot of a database: a copy of a database is never part of its save.
#[derive(Default)]
struct SaveSlot(Option<Box<DbSave>>);

impl Clone for SaveSlot {
    fn clone(&self) -> SaveSlot {
        SaveSlot(None)
    }
}

impl fmt::Debug for SaveSlot {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.0 {
            Some(s) => write!(f, "saving(epoch {}, cursor {})", s.epoch, s.cursor),
            None => f.write_str("idle"),
        }
    }
}

/// One logical database.
#[derive(Debug, Default, Clone)]
pub struct Db {
    map: KeyTable<Entry>,
    volatile: KeyTable<()>,
    /// Where the active expiry cycle resumes its walk over `volatile` (Redis's
    /// `expires_cursor`).
    pub expire_cursor: usize,
    /// Redis's `avg_ttl` estimate (INFO keyspace), in milliseconds: a running average of
    /// the TTLs the active expiry cycle samples; 0 until it has sampled one, and again
    /// once no key has a TTL.
    pub avg_ttl: i64,
    /// Keys by hash slot, only in cluster mode (see [`Db::index_slots`]).
    slots: Option<Box<SlotIndex>>,
    /// The background save of this database under way, if any.
    save: SaveSlot,
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
        let (k, e) = self.map.get_key_mut(key)?;
        if let Some(s) = self.save.0.as_deref_mut() {
            s.keep(k, e);
        }
        Some(e)
    }

    /// The position of `key` (see [`Db::key_at`]). **O(1).**
    #[inline]
    pub fn position(&self, key: &[u8]) -> Option<usize> {
        self.map.get_index_of(key)
    }

    /// The entry at position `i`, mutably (as [`Db::get_raw_mut`], without a second
    /// lookup after [`Db::position`]). **O(1).**
    pub fn get_at_mut(&mut self, i: usize) -> Option<&mut Entry> {
        let (k, e) = self.map.get_index_mut(i)?;
        if let Some(s) = self.save.0.as_deref_mut() {
            s.keep(k, e);
        }
        Some(e)
    }

    /// True if `key` has an entry that is expired at `now_ms` (see [`Entry::is_expired_at`]).
    /// **O(1)**, and no lookup at all while no key has a deadline (as Redis's `getExpire`
    /// looks at the size of its `expires` dict first).
    pub fn is_expired(&self, key: &[u8], now_ms: i64) -> bool {
        !self.volatile.is_empty() && self.map.get(key).is_some_and(|e| e.is_expired_at(now_ms))
    }

    /// Inserts or replaces the value of `key`. With `keep_ttl` an existing deadline stays;
    /// otherwise the key becomes persistent. Returns true if the key is new. **O(1).**
    pub fn set(&mut self, key: &[u8], value: Value, keep_ttl: bool, now_ms: i64) -> bool {
        match self.map.get_key_mut(key) {
            Some((k, e)) => {
                if let Some(s) = self.save.0.as_deref_mut() {
                    s.keep(k, e);
                }
                e.value = value;
                e.set_accessed_ms(now_ms);
                if !keep_ttl && e.expire_at().is_some() {
                    e.set_expire_at(None);
                    self.volatile.swap_remove(key);
                }
                false
            }
            None => {
                if let Some(ix) = &mut self.slots {
                    ix.add(key);
                }
                let mut e = Entry::new(value, None, now_ms);
                e.save_epoch = self.stamp();
                self.map.insert(Stored::from(key), e);
                true
            }
        }
    }

    /// The mark of an entry entering the database: the running save's number, which
    /// leaves it out of that save.
    fn stamp(&self) -> u16 {
        self.save.0.as_ref().map_or(0, |s| s.epoch)
    }

    /// Inserts a whole entry (with its deadline), replacing any previous one. **O(1).**
    pub fn insert_entry(&mut self, key: Key, mut entry: Entry) {
        if let Some(s) = self.save.0.as_deref_mut() {
            if let Some((k, e)) = self.map.get_key_mut(key.as_slice()) {
                s.keep(k, e);
            }
        }
        entry.save_epoch = self.stamp();
        if entry.expire_at().is_some() {
            self.volatile.insert(Stored::from(key.as_slice()), ());
        } else {
            self.volatile.swap_remove(key.as_slice());
        }
        if let Some(ix) = &mut self.slots {
            ix.add(&key);
        }
        self.map.insert(Stored::from(key), entry);
    }

    /// Removes `key`, returning its entry. **O(1).**
    pub fn remove(&mut self, key: &[u8]) -> Option<Entry> {
        let i = self.map.get_index_of(key)?;
        if let Some(s) = self.save.0.as_deref_mut() {
            s.keep_at(&mut self.map, i);
            // The last entry moves into the hole: below the cursor it must not be pending.
            let last = self.map.len() - 1;
            if i < s.cursor && last >= s.cursor {
                s.keep_at(&mut self.map, last);
            }
        }
        let (_, e) = self.map.swap_remove_index(i)?;
        if let Some(s) = self.save.0.as_deref_mut() {
            s.cursor = s.cursor.min(self.map.len());
        }
        if e.expire_at().is_some() {
            self.volatile.swap_remove(key);
        }
        if let Some(ix) = &mut self.slots {
            ix.remove(key);
        }
        Some(e)
    }

    /// Sets or clears the deadline of an existing key. Returns false if the key is absent.
    pub fn set_expire(&mut self, key: &[u8], at_ms: Option<i64>) -> bool {
        let Some((k, e)) = self.map.get_key_mut(key) else {
            return false;
        };
        if let Some(s) = self.save.0.as_deref_mut() {
            s.keep(k, e);
        }
        match (e.expire_at().is_some(), at_ms.is_some()) {
            (false, true) => {
                self.volatile.insert(Stored::from(key), ());
            }
            (true, false) => {
                self.volatile.swap_remove(key);
            }
            _ => {}
        }
        e.set_expire_at(at_ms);
        true
    }

    /// Removes every key. During a background save the keys it has not written yet stay
    /// aside for it.
    pub fn clear(&mut self) {
        match self.save.0.as_deref_mut() {
            Some(s) if !s.flushed && s.detached.is_none() && s.cursor < self.map.len() => {
                s.detached = Some((std::mem::take(&mut self.map), s.cursor));
                s.flushed = true;
                s.cursor = 0;
            }
            Some(s) => {
                s.flushed = true;
                s.cursor = 0;
                self.map.clear();
            }
            None => self.map.clear(),
        }
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
    pub fn keys_in_slot(&self, slot: u16, count: usize) -> Option<Vec<&[u8]>> {
        let ix = self.slots.as_ref()?;
        Some(
            ix.by_slot
                .get(&slot)
                .map(|keys| keys.values().rev().take(count).map(Vec::as_slice).collect())
                .unwrap_or_default(),
        )
    }

    /// Starts a background save of this database (see the module docs): from now on its
    /// entries marked below `epoch` go to `sink` — each before it changes or goes, and the
    /// rest as [`Db::save_step`] walks to them. **O(1).**
    pub fn start_save(&mut self, epoch: u16, sink: Box<dyn EntrySink>) {
        self.save.0 = Some(Box::new(DbSave {
            epoch,
            cursor: 0,
            flushed: false,
            detached: None,
            sink,
            written: 0,
        }));
    }

    /// Clears every entry's save mark, so that any save numbered from 1 finds all of them
    /// pending; for when the numbers run out ([`next_save_epoch`]). **O(N).**
    fn restart_save_marks(&mut self) {
        for e in self.map.values_mut() {
            e.save_epoch = 0;
        }
    }

    /// Walks up to `max` positions of the save under way, handing the pending entries
    /// there to the sink. Returns the positions walked (0 when there is nothing left).
    /// **O(max).**
    pub fn save_step(&mut self, max: usize) -> usize {
        let Some(s) = self.save.0.as_deref_mut() else {
            return 0;
        };
        let mut n = 0;
        if let Some((map, at)) = s.detached.as_mut() {
            while n < max && *at < map.len() {
                if let Some((k, e)) = map.get_index(*at) {
                    if e.save_epoch < s.epoch {
                        s.sink.put(k, e);
                        s.written += 1;
                    }
                }
                *at += 1;
                n += 1;
            }
            if *at >= map.len() {
                s.detached = None;
            }
        }
        if !s.flushed {
            while n < max && s.cursor < self.map.len() {
                s.keep_at(&mut self.map, s.cursor);
                s.cursor += 1;
                n += 1;
            }
        }
        n
    }

    /// True while the save under way has entries of this database left to write.
    pub fn save_pending(&self) -> bool {
        self.save
            .0
            .as_ref()
            .is_some_and(|s| s.detached.is_some() || (!s.flushed && s.cursor < self.map.len()))
    }

    /// Entries the save under way has written so far.
    pub fn saved_entries(&self) -> u64 {
        self.save.0.as_ref().map_or(0, |s| s.written)
    }

    /// Ends the save of this database (finished or dropped), giving back its sink and the
    /// entries written.
    pub fn end_save(&mut self) -> Option<(Box<dyn EntrySink>, u64)> {
        self.save.0.take().map(|s| (s.sink, s.written))
    }

    /// The key at position `i` (for random choice and SCAN).
    pub fn key_at(&self, i: usize) -> Option<(&[u8], &Entry)> {
        self.map.get_index(i).map(|(k, e)| (k.as_bytes(), e))
    }

    /// The volatile key at position `i` (for the expiry sampler).
    pub fn volatile_key_at(&self, i: usize) -> Option<&[u8]> {
        self.volatile.get_index(i).map(|(k, _)| k.as_bytes())
    }

    /// Iterates over all entries in storage order.
    pub fn iter(&self) -> impl Iterator<Item = (&[u8], &Entry)> {
        self.map.iter().map(|(k, e)| (k.as_bytes(), e))
    }

    /// One SCAN step: visits positions below `cursor` (0 = start from the end) going down,
    /// calling `visit` on each, until `count` positions were visited. Returns the next
    /// cursor (0 when the scan is complete). **O(count).** See the module docs for the
    /// guarantee.
    pub fn scan(&self, cursor: u64, count: usize, mut visit: impl FnMut(&[u8], &Entry)) -> u64 {
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

/// The number of the save to start after the one numbered `last`, with no save under way
/// in `dbs`. Numbers are 16 bits, to keep an entry at 40 bytes: after 65,535 saves every
/// mark goes back to 0 (one O(N) pass, less than any one save costs) and numbering starts
/// again at 1.
pub fn next_save_epoch(last: u16, dbs: &mut [Db]) -> u16 {
    last.checked_add(1).unwrap_or_else(|| {
        for db in dbs {
            db.restart_save_marks();
        }
        1
    })
}

impl Db {
    /// Checks that every key is found by its own bytes at its own position, that the keys
    /// with a deadline are exactly those in `volatile` (each found at its position too),
    /// and, in cluster mode, that the slot index holds exactly the keys, each under its
    /// slot. **O(N).** For tests.
    pub fn check_invariants(&self) -> Result<(), String> {
        // Each table checks that every key is found at its own position.
        self.map.check()?;
        self.volatile
            .check()
            .map_err(|e| format!("volatile: {e}"))?;
        let mut with_deadline = 0;
        for (i, (k, e)) in self.map.iter().enumerate() {
            if e.expire_at().is_some() {
                with_deadline += 1;
                if !self.volatile.contains_key(k.as_bytes()) {
                    return Err(format!("key at {i} has a deadline but is not volatile"));
                }
            }
        }
        same_count(
            with_deadline,
            "keys with a deadline",
            self.volatile.len(),
            "volatile",
        )?;
        let Some(ix) = &self.slots else {
            return Ok(());
        };
        same_count(
            ix.seq.len(),
            "keys in the slot index",
            self.map.len(),
            "in the database",
        )?;
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
        same_count(indexed, "keys by slot", ix.seq.len(), "by sequence")
    }
}

/// `Ok` if two counts that [`Db::check_invariants`] compares agree; otherwise an error
/// that gives both, each with what it counts.
fn same_count(a: usize, what_a: &str, b: usize, what_b: &str) -> Result<(), String> {
    if a == b {
        Ok(())
    } else {
        Err(format!("{a} {what_a}, {b} {what_b}"))
    }
}

#[cfg(test)]
mod tests;
