//! Client-side caching (`CLIENT TRACKING`): which clients may hold which keys, and what
//! each of them must be told when a key changes — the state of Redis 7.0's `tracking.c`.
//! The server acting on it (sending the messages, finding the keys a command read) is
//! [`crate::engine::core::invalidate`].
//!
//! # Two modes
//! * **Default mode.** After a read-only command of a tracking client, the keys it read
//!   (its key specs) are remembered in one table, key → the clients that read it
//!   ([`Tracking::remember`]). The table is keyed by the key's name alone, not its
//!   database, as Redis's is. When a key is modified, every client in its entry is sent an
//!   invalidation and the entry goes ([`Tracking::take_readers`]): the client reads the key
//!   again before it is told again. `OPTIN` remembers only after `CLIENT CACHING YES`,
//!   `OPTOUT` always but after `CLIENT CACHING NO`.
//! * **Broadcasting (`BCAST`).** Nothing is remembered per client. Each prefix (the empty
//!   one when none is given) collects the modified keys that start with it, with the client
//!   that modified each last; after the command they are sent, one message per prefix, to
//!   every client listening to the prefix ([`Tracking::take_broadcasts`]).
//!
//! Entries are left behind when a client stops tracking or disconnects, as in Redis: they
//! cost a check at the next invalidation of the key, and `tracking_total_items` counts
//! them. `tracking-table-max-keys` bounds the table: over it, random keys are invalidated
//! ([`Tracking::random_key`]).
//!
//! # Who is told, and when
//! An invalidation for the client running the command is held until its reply is out
//! ([`Tracking::hold`], Redis's `tracking_pending_keys`): after `EXEC`, after a script,
//! after the reply to a blocked command that was served. Every other client is sent it at
//! once. A `NOLOOP` client is not told about its own writes.
//!
//! # Cost when nobody tracks
//! [`Tracking::active`] is false (no client tracks, the table is empty): every hook in the
//! core tests it first and does nothing else.

use std::collections::{BTreeMap, BTreeSet};

use foldhash::HashMap;
use indexmap::IndexMap;

use super::keyspace::Key;
use super::ClientId;

/// The channel RESP2 clients receive invalidations on, through the client they redirect
/// to (which must be subscribed).
pub const CHANNEL: &[u8] = b"__redis__:invalidate";

/// One client's tracking options (Redis's `CLIENT_TRACKING_*` flags).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Options {
    /// The client invalidations go to instead (`REDIRECT id`); 0 for none.
    pub redirect: ClientId,
    /// Broadcasting mode (`BCAST`).
    pub bcast: bool,
    /// Remember keys only after `CLIENT CACHING YES` (`OPTIN`).
    pub optin: bool,
    /// Remember keys except after `CLIENT CACHING NO` (`OPTOUT`).
    pub optout: bool,
    /// Not told about keys it modified itself (`NOLOOP`).
    pub noloop: bool,
}

/// What a tracking client has: its options, its prefixes, and the state its commands move.
#[derive(Debug, Clone, Default)]
pub struct ClientTracking {
    /// The options it enabled tracking with.
    pub options: Options,
    /// `CLIENT CACHING` was given for the next command (or transaction).
    pub caching: bool,
    /// Its redirection client went away (`broken_redirect`, flag `R`).
    pub broken_redirect: bool,
    /// Its `BCAST` prefixes, in byte order.
    pub prefixes: BTreeSet<Vec<u8>>,
}

/// One `BCAST` prefix: who listens to it and the keys modified since the last broadcast,
/// each with the client that modified it last (0: the server, an expiry or eviction).
#[derive(Debug, Default)]
struct Prefix {
    clients: BTreeSet<ClientId>,
    keys: BTreeMap<Key, ClientId>,
}

/// Every client's tracking, the table of remembered keys and the prefixes.
#[derive(Debug, Default)]
pub struct Tracking {
    /// Clients with tracking on.
    clients: HashMap<ClientId, ClientTracking>,
    /// Key → the clients that may have cached it (Redis's `TrackingTable`).
    table: IndexMap<Key, BTreeSet<ClientId>, foldhash::fast::RandomState>,
    /// Entries over the whole table (`tracking_total_items`).
    items: u64,
    /// Prefix → its listeners and pending keys (Redis's `PrefixTable`), in byte order.
    prefixes: BTreeMap<Vec<u8>, Prefix>,
    /// Protocol of every connected client (2 or 3): whom a message can reach, and how.
    protos: HashMap<ClientId, u8>,
    /// The client whose command is running (0: none), and whether the command itself is
    /// running (not the checks before it).
    current: ClientId,
    in_call: bool,
    /// Invalidations held for a client until its reply is out: a key, or `None` for a
    /// flush. (Only the current client's are held; a script that paused keeps its caller's
    /// until it ends, while others run.)
    pending: Vec<(ClientId, Option<Key>)>,
    /// Consecutive times the table stayed over `tracking-table-max-keys` (Redis's
    /// `timeout_counter`: the effort grows with it).
    over_limit_runs: u32,
    /// The running script's caller and the keys its command declares: a read inside the
    /// script remembers them for the caller.
    script: Option<(ClientId, Vec<Key>)>,
}

impl Tracking {
    /// True if some client has tracking on, or the table still holds keys of clients that
    /// turned it off (a write still takes its key's entry, as in Redis): the one test
    /// every hook makes first. **O(1).**
    #[inline]
    pub fn active(&self) -> bool {
        !self.clients.is_empty() || !self.table.is_empty()
    }

    /// Number of clients with tracking on (`tracking_clients`).
    pub fn client_count(&self) -> usize {
        self.clients.len()
    }

    /// Keys in the table (`tracking_total_keys`).
    pub fn key_count(&self) -> usize {
        self.table.len()
    }

    /// Entries in the table, stale ones included (`tracking_total_items`).
    pub fn item_count(&self) -> u64 {
        self.items
    }

    /// Prefixes someone listens to (`tracking_total_prefixes`).
    pub fn prefix_count(&self) -> usize {
        self.prefixes.len()
    }

    /// A client connected, or changed protocol (`HELLO`, `RESET`).
    pub fn set_proto(&mut self, id: ClientId, proto: u8) {
        self.protos.insert(id, proto);
    }

    /// The protocol of a connected client; `None` once it is gone.
    pub fn proto(&self, id: ClientId) -> Option<u8> {
        self.protos.get(&id).copied()
    }

    /// A client disconnected: its tracking stops and it can no longer be written to.
    pub fn forget(&mut self, id: ClientId) {
        self.disable(id);
        self.protos.remove(&id);
    }

    /// The tracking of `id`, if it has tracking on.
    pub fn get(&self, id: ClientId) -> Option<&ClientTracking> {
        self.clients.get(&id)
    }

    /// Mutable [`Tracking::get`].
    pub fn get_mut(&mut self, id: ClientId) -> Option<&mut ClientTracking> {
        self.clients.get_mut(&id)
    }

    /// Redis's `enableTracking`: turns tracking on for `id` with `options` (replacing the
    /// previous ones; `CLIENT CACHING` and a broken redirection are cleared), and in `BCAST`
    /// mode adds `prefixes` (the empty prefix when none) to those it listens to. The caller
    /// has checked the options. **O(prefixes × log prefixes).**
    pub fn enable(&mut self, id: ClientId, options: Options, prefixes: &[Vec<u8>]) {
        let t = self.clients.entry(id).or_default();
        let bcast = options.bcast;
        t.options = options;
        t.broken_redirect = false;
        if !bcast {
            return;
        }
        let empty = [Vec::new()];
        let list = if prefixes.is_empty() {
            &empty[..]
        } else {
            prefixes
        };
        for p in list {
            t.prefixes.insert(p.clone());
            self.prefixes
                .entry(p.clone())
                .or_default()
                .clients
                .insert(id);
        }
    }

    /// Redis's `disableTracking`: `id` stops tracking and listening to its prefixes (a
    /// prefix nobody listens to goes, with its pending keys). Its table entries stay.
    pub fn disable(&mut self, id: ClientId) {
        let Some(t) = self.clients.remove(&id) else {
            return;
        };
        for p in t.prefixes {
            if let Some(bs) = self.prefixes.get_mut(&p) {
                bs.clients.remove(&id);
                if bs.clients.is_empty() {
                    self.prefixes.remove(&p);
                }
            }
        }
    }

    /// The first prefix of `id`'s or of `new` that overlaps `new[i]` (one is a prefix of
    /// the other), for `CLIENT TRACKING … PREFIX`'s check: `Err((new, existing, true))` for
    /// one of the client's, `Err((new, other, false))` for another of `new`. Redis checks
    /// each new prefix against the client's, then against the new ones after it.
    pub fn check_prefixes(
        &self,
        id: ClientId,
        new: &[Vec<u8>],
    ) -> Result<(), (Vec<u8>, Vec<u8>, bool)> {
        let overlap = |a: &[u8], b: &[u8]| {
            let n = a.len().min(b.len());
            a[..n] == b[..n]
        };
        let mine = self.clients.get(&id).map(|t| &t.prefixes);
        for (i, p) in new.iter().enumerate() {
            if let Some(old) = mine.and_then(|m| m.iter().find(|o| overlap(o, p))) {
                return Err((p.clone(), old.clone(), true));
            }
            if let Some(other) = new[i + 1..].iter().find(|o| overlap(p, o)) {
                return Err((p.clone(), other.clone(), false));
            }
        }
        Ok(())
    }

    /// Redis's `trackingRememberKeys`: after a read-only command of `id`, its `keys` are
    /// remembered, unless its `OPTIN`/`OPTOUT` mode and `CLIENT CACHING` say not to or it
    /// broadcasts. **O(keys × log readers).**
    pub fn remember<'k>(&mut self, id: ClientId, keys: impl IntoIterator<Item = &'k [u8]>) {
        let Some(t) = self.clients.get(&id) else {
            return;
        };
        let o = &t.options;
        if o.bcast || (o.optin && !t.caching) || (o.optout && t.caching) {
            return;
        }
        for key in keys {
            let readers = match self.table.get_mut(key) {
                Some(r) => r,
                None => self.table.entry(key.to_vec()).or_default(),
            };
            if readers.insert(id) {
                self.items += 1;
            }
        }
    }

    /// Takes the entry of `key`: the clients that may have cached it, who are to be told.
    /// **O(1)** when the key is not in the table.
    pub fn take_readers(&mut self, key: &[u8]) -> Option<BTreeSet<ClientId>> {
        let readers = self.table.swap_remove(key)?;
        self.items -= readers.len() as u64;
        Some(readers)
    }

    /// Redis's `trackingRememberKeyToBroadcast`: `key`, modified by `writer` (0: the
    /// server), is added to every prefix it starts with. **O(prefixes).**
    pub fn note_for_broadcast(&mut self, key: &[u8], writer: ClientId) {
        for (p, bs) in self.prefixes.iter_mut() {
            if key.starts_with(p) {
                bs.keys.insert(key.to_vec(), writer);
            }
        }
    }

    /// True if some prefix has keys to broadcast.
    pub fn has_broadcasts(&self) -> bool {
        self.prefixes.values().any(|bs| !bs.keys.is_empty())
    }

    /// Redis's `trackingBroadcastInvalidationMessages`, the state half: for each prefix in
    /// byte order with modified keys, one message per listener — every key, but for a
    /// `NOLOOP` listener those it modified itself (none at all if that leaves none). The
    /// prefixes start afresh. **O(prefixes × listeners × keys).**
    pub fn take_broadcasts(&mut self) -> Vec<(ClientId, Vec<Key>)> {
        let mut out = Vec::new();
        for bs in self.prefixes.values_mut() {
            if bs.keys.is_empty() {
                continue;
            }
            let keys = std::mem::take(&mut bs.keys);
            for &id in &bs.clients {
                let noloop = self.clients.get(&id).is_some_and(|t| t.options.noloop);
                let mine: Vec<Key> = keys
                    .iter()
                    .filter(|(_, &w)| !(noloop && w == id))
                    .map(|(k, _)| k.clone())
                    .collect();
                if !mine.is_empty() {
                    out.push((id, mine));
                }
            }
        }
        out
    }

    /// Empties the table (`FLUSHALL`, `FLUSHDB`: every tracking client is told to drop
    /// everything instead).
    pub fn clear_table(&mut self) {
        self.table = IndexMap::default();
        self.items = 0;
    }

    /// The tracking clients in id (connection) order, who a flush is told to.
    pub fn tracking_clients(&self) -> Vec<ClientId> {
        let mut ids: Vec<ClientId> = self.clients.keys().copied().collect();
        ids.sort_unstable();
        ids
    }

    /// A key of the table chosen with `pick(len)` (a random index), for
    /// `tracking-table-max-keys`; `None` when the table is empty.
    pub fn random_key(&self, pick: impl FnOnce(usize) -> usize) -> Option<Key> {
        if self.table.is_empty() {
            return None;
        }
        let i = pick(self.table.len()).min(self.table.len() - 1);
        self.table.get_index(i).map(|(k, _)| k.clone())
    }

    /// How many times in a row the table was found over its limit; [`Tracking::note_limit`]
    /// moves it.
    pub fn over_limit_runs(&self) -> u32 {
        self.over_limit_runs
    }

    /// Records whether the last check left the table under its limit.
    pub fn note_limit(&mut self, under: bool) {
        self.over_limit_runs = if under {
            0
        } else {
            self.over_limit_runs.saturating_add(1)
        };
    }

    /// Enters a client's command: `id` runs it (`in_call`: the command itself, not the
    /// checks before it). Returns what was current before, for [`Tracking::leave`].
    pub fn enter(&mut self, id: ClientId, in_call: bool) -> (ClientId, bool) {
        let prev = (self.current, self.in_call);
        self.current = id;
        self.in_call = in_call;
        prev
    }

    /// Restores what [`Tracking::enter`] returned.
    pub fn leave(&mut self, prev: (ClientId, bool)) {
        (self.current, self.in_call) = prev;
    }

    /// The client whose command is running (0: none).
    pub fn current(&self) -> ClientId {
        self.current
    }

    /// True while the current client's command itself runs.
    pub fn in_call(&self) -> bool {
        self.in_call
    }

    /// Holds an invalidation (`None`: a flush) for the current client until its reply is
    /// out.
    pub fn hold(&mut self, key: Option<Key>) {
        self.pending.push((self.current, key));
    }

    /// Takes the invalidations held for `id`, in order.
    pub fn take_held(&mut self, id: ClientId) -> Vec<Option<Key>> {
        if self.pending.is_empty() {
            return Vec::new();
        }
        let (mine, others) = std::mem::take(&mut self.pending)
            .into_iter()
            .partition(|(c, _)| *c == id);
        self.pending = others;
        mine.into_iter().map(|(_, k)| k).collect()
    }

    /// A script starts for `caller`, whose command declares `keys`; `None` when it ends.
    pub fn set_script(&mut self, script: Option<(ClientId, Vec<Key>)>) {
        self.script = script;
    }

    /// The running script's caller and declared keys.
    pub fn script(&self) -> Option<&(ClientId, Vec<Key>)> {
        self.script.as_ref()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn on(t: &mut Tracking, id: ClientId, options: Options) {
        t.set_proto(id, 3);
        t.enable(id, options, &[]);
    }

    #[test]
    fn a_read_is_remembered_once_and_taken_once() {
        let mut t = Tracking::default();
        on(&mut t, 1, Options::default());
        on(&mut t, 2, Options::default());
        t.remember(1, [&b"a"[..], b"b", b"a"]);
        t.remember(2, [&b"a"[..]]);
        assert_eq!((t.key_count(), t.item_count()), (2, 3));
        assert_eq!(t.take_readers(b"a"), Some(BTreeSet::from([1, 2])));
        assert_eq!(t.take_readers(b"a"), None);
        assert_eq!((t.key_count(), t.item_count()), (1, 1));
        t.clear_table();
        assert_eq!((t.key_count(), t.item_count()), (0, 0));
    }

    #[test]
    fn optin_and_optout_follow_caching() {
        let mut t = Tracking::default();
        let optin = Options {
            optin: true,
            ..Options::default()
        };
        on(&mut t, 1, optin);
        t.remember(1, [&b"a"[..]]);
        assert_eq!(t.key_count(), 0);
        t.get_mut(1).unwrap().caching = true;
        t.remember(1, [&b"a"[..]]);
        assert_eq!(t.key_count(), 1);
        let optout = Options {
            optout: true,
            ..Options::default()
        };
        on(&mut t, 2, optout);
        t.get_mut(2).unwrap().caching = true;
        t.remember(2, [&b"b"[..]]);
        assert_eq!(t.key_count(), 1);
    }

    #[test]
    fn broadcasts_group_by_prefix_and_skip_noloop_writers() {
        let mut t = Tracking::default();
        let bcast = Options {
            bcast: true,
            noloop: true,
            ..Options::default()
        };
        t.set_proto(1, 3);
        t.enable(1, bcast, &[b"a:".to_vec(), b"b:".to_vec()]);
        assert_eq!(t.prefix_count(), 2);
        t.note_for_broadcast(b"a:2", 7);
        t.note_for_broadcast(b"a:1", 1);
        t.note_for_broadcast(b"b:1", 1);
        t.note_for_broadcast(b"c:1", 7);
        assert_eq!(t.take_broadcasts(), vec![(1, vec![b"a:2".to_vec()])]);
        assert!(!t.has_broadcasts());
        t.disable(1);
        assert_eq!(t.prefix_count(), 0);
        assert!(!t.active());
        // Entries of a client that stopped keep the hooks on until they go.
        on(&mut t, 2, Options::default());
        t.remember(2, [&b"k"[..]]);
        t.disable(2);
        assert!(t.active());
        t.take_readers(b"k");
        assert!(!t.active());
    }

    #[test]
    fn overlapping_prefixes_are_found_in_redis_order() {
        let mut t = Tracking::default();
        let bcast = Options {
            bcast: true,
            ..Options::default()
        };
        t.enable(1, bcast, &[b"FOO".to_vec(), b"BAR".to_vec()]);
        assert_eq!(
            t.check_prefixes(1, &[b"FO".to_vec()]),
            Err((b"FO".to_vec(), b"FOO".to_vec(), true))
        );
        assert_eq!(
            t.check_prefixes(2, &[b"FOOBAR".to_vec(), b"FOO".to_vec()]),
            Err((b"FOOBAR".to_vec(), b"FOO".to_vec(), false))
        );
        assert_eq!(t.check_prefixes(1, &[b"BAZ".to_vec()]), Ok(()));
    }
}
