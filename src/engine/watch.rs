//! `WATCH` bookkeeping: which clients watch which keys, and which of them have seen a
//! watched key change (Redis's `CLIENT_DIRTY_CAS`), so that their next `EXEC` fails.
//!
//! # Representation
//! Two indexes over the same pairs, as in Redis's `multi.c`:
//!
//! * per database, key → the clients watching it (`by_key`), so that a write touches its
//!   key in **O(1)** plus the number of watchers;
//! * per client, its watched `(db, key)` pairs with an `expired` mark, and its dirty flag
//!   (`by_client`), so that `UNWATCH`, `EXEC` and disconnecting release a client's watches
//!   in O(its watches).
//!
//! # What touches a watched key
//! [`Watches::touch`] is Redis's `signalModifiedKey`: every write that changes a key calls it
//! (centrally from [`crate::engine::Ctx`], see `Ctx::signal_modified`), and so does the
//! removal of an expired key. [`Watches::touch_all_in_db`] is Redis's
//! `touchAllWatchedKeysInDb`, for `FLUSHDB`, `FLUSHALL` and `SWAPDB`: a watched key counts as
//! touched when it existed in the emptied database or exists in the one replacing it.
//!
//! **Expired keys (Redis 7.0).** A key that was already logically expired when it was
//! watched is marked `expired`: its removal is not a change (the mark is cleared instead).
//! Any other watched key whose deadline has passed by `EXEC` time makes the `EXEC` fail,
//! even if nothing removed it yet ([`Watches::any_expired`]).
//!
//! A client that becomes dirty stops watching at once (nothing more can happen to its
//! transaction), as Redis's `touchWatchedKey` does; the flag stays until `EXEC`, `DISCARD`,
//! `UNWATCH` or `RESET`.

use std::collections::HashMap;

use indexmap::IndexMap;

use super::keyspace::{Db, Key};
use super::ClientId;

/// One client's watches.
#[derive(Debug, Default)]
struct ClientWatches {
    /// `(db, key)` → whether the key was already expired when watched.
    keys: IndexMap<(usize, Key), bool>,
    /// A watched key changed: the next `EXEC` fails.
    dirty: bool,
}

/// Every watch of every client.
#[derive(Debug)]
pub struct Watches {
    by_key: Vec<HashMap<Key, Vec<ClientId>>>,
    by_client: HashMap<ClientId, ClientWatches>,
}

impl Watches {
    /// No watches, for `dbs` databases.
    pub fn new(dbs: usize) -> Watches {
        Watches {
            by_key: (0..dbs).map(|_| HashMap::new()).collect(),
            by_client: HashMap::new(),
        }
    }

    /// `WATCH`: client `id` watches `key` in database `db`; `expired` says the key is
    /// logically expired right now. Does nothing if the client is already dirty or already
    /// watches the key. **O(1).**
    pub fn watch(&mut self, id: ClientId, db: usize, key: &[u8], expired: bool) {
        let Some(index) = self.by_key.get_mut(db) else {
            return;
        };
        let c = self.by_client.entry(id).or_default();
        if c.dirty || c.keys.contains_key(&(db, key.to_vec())) {
            return;
        }
        c.keys.insert((db, key.to_vec()), expired);
        index.entry(key.to_vec()).or_default().push(id);
    }

    /// Stops every watch of client `id` (its dirty flag stays). **O(its watches × watchers
    /// per key).**
    pub fn unwatch_all(&mut self, id: ClientId) {
        let Some(c) = self.by_client.get_mut(&id) else {
            return;
        };
        let keys = std::mem::take(&mut c.keys);
        for ((db, key), _) in keys {
            if let Some(index) = self.by_key.get_mut(db) {
                if let Some(list) = index.get_mut(&key) {
                    list.retain(|&w| w != id);
                    if list.is_empty() {
                        index.remove(&key);
                    }
                }
            }
        }
    }

    /// Stops every watch of `id` and clears its dirty flag (`UNWATCH`, `EXEC`, `DISCARD`,
    /// `RESET`, disconnect).
    pub fn reset(&mut self, id: ClientId) {
        self.unwatch_all(id);
        self.by_client.remove(&id);
    }

    /// True if a watched key of `id` changed since it was watched.
    pub fn is_dirty(&self, id: ClientId) -> bool {
        self.by_client.get(&id).is_some_and(|c| c.dirty)
    }

    /// Marks `id` dirty (and stops its watches).
    pub fn mark_dirty(&mut self, id: ClientId) {
        self.unwatch_all(id);
        self.by_client.entry(id).or_default().dirty = true;
    }

    /// Number of keys `id` watches.
    pub fn watched_count(&self, id: ClientId) -> usize {
        self.by_client.get(&id).map_or(0, |c| c.keys.len())
    }

    /// True if no client watches anything in database `db` (the common case, checked
    /// first so that writes cost nothing when no one watches).
    pub fn db_unwatched(&self, db: usize) -> bool {
        self.by_key.get(db).is_none_or(HashMap::is_empty)
    }

    /// Redis's `touchWatchedKey`: `key` in database `db` was modified; `exists` says
    /// whether it exists afterwards. Every client watching it becomes dirty, except one
    /// that watched it already expired and now sees it removed (no logical change: its
    /// mark is cleared). **O(1)** plus the number of watchers.
    pub fn touch(&mut self, db: usize, key: &[u8], exists: bool) {
        let Some(watchers) = self.by_key.get(db).and_then(|m| m.get(key)).cloned() else {
            return;
        };
        for id in watchers {
            let Some(c) = self.by_client.get_mut(&id) else {
                continue;
            };
            if let Some(expired) = c.keys.get_mut(&(db, key.to_vec())) {
                if *expired && !exists {
                    *expired = false;
                    continue;
                }
            }
            self.mark_dirty(id);
        }
    }

    /// Redis's `touchAllWatchedKeysInDb`, called before database `emptied` is flushed
    /// (`replaced_with` = None) or swapped with `replaced_with`. A watched key of `emptied`
    /// counts as touched when it exists there now or in the replacement, with Redis 7.0's
    /// handling of keys watched while expired. **O(keys watched in `emptied`).**
    pub fn touch_all_in_db(
        &mut self,
        dbs: &[Db],
        emptied: usize,
        replaced_with: Option<usize>,
        now_ms: i64,
    ) {
        let Some(index) = self.by_key.get(emptied) else {
            return;
        };
        if index.is_empty() {
            return;
        }
        let entries: Vec<(Key, Vec<ClientId>)> =
            index.iter().map(|(k, v)| (k.clone(), v.clone())).collect();
        let exists = |db: usize, key: &[u8]| dbs.get(db).is_some_and(|d| d.get_raw(key).is_some());
        let expired =
            |db: usize, key: &[u8]| dbs.get(db).is_some_and(|d| d.is_expired(key, now_ms));
        for (key, watchers) in entries {
            let in_emptied = exists(emptied, &key);
            let in_replacement = replaced_with.is_some_and(|r| exists(r, &key));
            if !in_emptied && !in_replacement {
                continue;
            }
            let replacement_expired = replaced_with.is_some_and(|r| expired(r, &key));
            for id in watchers {
                let Some(c) = self.by_client.get_mut(&id) else {
                    continue;
                };
                let Some(mark) = c.keys.get_mut(&(emptied, key.clone())) else {
                    continue;
                };
                if *mark {
                    if !in_replacement {
                        // The expired key is now deleted: no logical change.
                        *mark = false;
                        continue;
                    } else if replacement_expired {
                        continue;
                    }
                } else if !in_emptied && replacement_expired {
                    // A missing key replaced by an expired one: still logically missing.
                    *mark = true;
                    continue;
                }
                c.dirty = true;
            }
        }
    }

    /// Redis 7.0's `isWatchedKeyExpired`: true if a key `id` watches (and that was not
    /// already expired when watched) is logically expired now. **O(its watches).**
    pub fn any_expired(&self, id: ClientId, dbs: &[Db], now_ms: i64) -> bool {
        self.by_client.get(&id).is_some_and(|c| {
            c.keys.iter().any(|((db, key), &was_expired)| {
                !was_expired && dbs.get(*db).is_some_and(|d| d.is_expired(key, now_ms))
            })
        })
    }

    /// Number of clients with watches or a dirty flag (for tests: nothing is left behind).
    pub fn client_count(&self) -> usize {
        self.by_client.len()
    }

    /// Number of watched keys over all databases (for tests: nothing is left behind).
    pub fn key_count(&self) -> usize {
        self.by_key.iter().map(HashMap::len).sum()
    }
}
