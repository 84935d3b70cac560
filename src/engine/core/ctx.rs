//! What a handler sees: [`Ctx`], the server state plus the calling client, with the
//! lookups, writes and signals every command uses; and the handler type of the command
//! table's rows, which names it.

use crate::engine::args::Args;
use crate::engine::blocking;
use crate::engine::error::CmdResult;
use crate::engine::evict;
use crate::engine::keyspace::{Db, Entry, Key};
use crate::engine::pubsub::class;
use crate::engine::reply::Reply;
use crate::engine::table::row::{self, CommandRow};
use crate::engine::types::Value;

use super::client::Client;
use super::expire::expire_if_needed;
use super::others::Others;
use super::server::{Effect, Server};

/// A command handler: reads its arguments from the cursor (positioned after the name, or
/// after the subcommand), acts on the context and returns the reply.
pub type Handler = fn(&mut Ctx<'_>, &mut Args) -> CmdResult;

/// One entry of the engine's command table.
pub type Command = CommandRow<Handler>;

/// The engine's command table type (see [`crate::engine::table::TABLE`]).
pub type Table = row::Table<Handler>;

/// Where a command runs (see [`crate::engine::core::dispatch::call`]): the server, the
/// calling client, every other client, the command table and the command's instant.
pub struct Site<'a> {
    /// Server state.
    pub srv: &'a mut Server,
    /// The calling client.
    pub client: &'a mut Client,
    /// Every other connected client.
    pub others: Others<'a>,
    /// The command table.
    pub table: &'static Table,
    /// Time of the command, Unix milliseconds.
    pub now_ms: i64,
    /// The [`Clock::monotonic_us`](crate::engine::Clock::monotonic_us) reading its
    /// duration starts from, when the caller took one with `now_ms`
    /// ([`Clock::now_and_monotonic_us`](crate::engine::Clock::now_and_monotonic_us));
    /// `None`: [`call`](crate::engine::core::dispatch::call) reads the clock.
    pub started_us: Option<i64>,
}

/// What a handler sees: the server and the calling client.
pub struct Ctx<'a> {
    /// Server state.
    pub srv: &'a mut Server,
    /// The calling client.
    pub client: &'a mut Client,
    /// Every other connected client (the caller is in [`Ctx::client`] only).
    pub others: Others<'a>,
    /// The command table the engine was built with (`EXEC` finds queued commands in it).
    pub table: &'static Table,
    /// Time of this command, Unix milliseconds: one command sees one instant, as in Redis.
    pub now_ms: i64,
    /// Changes made by this command (Redis's `dirty` delta).
    pub dirty: u64,
    /// A replacement for the command's own effect (see [`Ctx::propagate`]).
    pub(crate) propagate: Option<Vec<Effect>>,
    /// Replies after the handler's own, for commands that reply more than once.
    pub(crate) replies: Vec<Reply>,
    /// The handler reported its modified keys itself (see [`Ctx::signal_modified`]).
    pub(crate) signalled: bool,
    /// The command's writes may serve blocked clients (Redis's `signalKeyAsReady`). Stream
    /// writes other than `XADD` and `XGROUP DESTROY` clear it: they add no entries, and a
    /// blocked `XREAD`/`XREADGROUP` keeps waiting through them, as in Redis.
    pub wakes_blocked: bool,
    /// Blocking is not allowed: the command runs inside `EXEC` (Redis's
    /// `CLIENT_DENY_BLOCKING`). A blocking command must then act as if its timeout expired.
    pub deny_blocking: bool,
    /// The handler's reply is not sent: the client blocked ([`Ctx::block`]) or the command
    /// replies nothing at all (`MONITOR` from a monitor).
    pub no_reply: bool,
    /// The handler counted the errors of its reply itself (`INFO errorstats`), `Some(n)`
    /// of them having been counted already: a script's result, whose errors that a
    /// `redis.call` got were counted at the command that produced them (Redis's
    /// `ERR_REPLY_FLAG_NO_STATS_UPDATE`); each of those fails the command once.
    pub errors_counted: Option<u64>,
}

impl Ctx<'_> {
    /// The site of a command run from inside this one (`EXEC`'s queued commands, a
    /// blocking command served at once), at this command's instant.
    pub fn site(&mut self) -> Site<'_> {
        Site {
            srv: &mut *self.srv,
            client: &mut *self.client,
            others: self.others.reborrow(),
            table: self.table,
            now_ms: self.now_ms,
            started_us: None,
        }
    }

    /// The selected database.
    pub fn db(&mut self) -> &mut Db {
        let i = self.client.db;
        &mut self.srv.dbs[i]
    }

    /// Removes `key` if it has expired, recording a `DEL` effect. Returns true if removed.
    pub fn expire_if_needed(&mut self, key: &[u8]) -> bool {
        let db = self.client.db;
        expire_if_needed(self.srv, db, key, self.now_ms)
    }

    /// True if `key` has expired, for a read: the key is then to be treated as missing.
    /// It is removed as [`Ctx::expire_if_needed`] removes it, except during `CLIENT
    /// PAUSE`, when Redis keeps the dataset as it is and only answers as if the key were
    /// gone (it goes once the pause ends).
    pub fn expired_for_read(&mut self, key: &[u8]) -> bool {
        let db = self.client.db;
        if self.srv.paused(self.now_ms) {
            return self.srv.dbs[db].is_expired(key, self.now_ms);
        }
        expire_if_needed(self.srv, db, key, self.now_ms)
    }

    /// Looks up `key` for reading: lazily expires it, counts a hit or miss, touches its
    /// access time. **O(1).**
    pub fn lookup_read(&mut self, key: &[u8]) -> Option<&Value> {
        let expired = self.expired_for_read(key);
        let now = self.now_ms;
        let idx = self.client.db;
        // One lookup: the position found is used to reach the entry.
        let Some(at) = (!expired)
            .then(|| self.srv.dbs[idx].position(key))
            .flatten()
        else {
            self.miss(key);
            return None;
        };
        let srv = &mut *self.srv;
        let e = srv.dbs[idx].get_at_mut(at)?;
        srv.stats.keyspace_hits += 1;
        evict::touch(e, now, srv.config.eviction(), &mut srv.rng);
        Some(&e.value)
    }

    /// A read found no key: counts the miss and sends the `keymiss` event.
    pub(crate) fn miss(&mut self, key: &[u8]) {
        self.srv.stats.keyspace_misses += 1;
        self.notify(class::KEY_MISS, "keymiss", key);
    }

    /// Looks up `key` for reading without touching its access time, as Redis's
    /// `LOOKUP_NOTOUCH` lookups (`TTL`, `EXISTS`, `TYPE`, `OBJECT`): lazily expires it and
    /// counts a hit or miss. **O(1).**
    pub fn lookup_read_notouch(&mut self, key: &[u8]) -> Option<&Entry> {
        let expired = self.expired_for_read(key);
        let idx = self.client.db;
        let Some(at) = (!expired)
            .then(|| self.srv.dbs[idx].position(key))
            .flatten()
        else {
            self.miss(key);
            return None;
        };
        let srv = &mut *self.srv;
        srv.stats.keyspace_hits += 1;
        srv.dbs[idx].key_at(at).map(|(_, e)| e)
    }

    /// Removes `key` from database `db` (not necessarily the selected one) if it has
    /// expired, recording a `DEL` effect in that database. Returns true if removed.
    pub fn expire_if_needed_in(&mut self, db: usize, key: &[u8]) -> bool {
        expire_if_needed(self.srv, db, key, self.now_ms)
    }

    /// Looks up `key` for writing (lazily expiring it first). **O(1).**
    pub fn lookup_write(&mut self, key: &[u8]) -> Option<&mut Entry> {
        self.expire_if_needed(key);
        let now = self.now_ms;
        let idx = self.client.db;
        let srv = &mut *self.srv;
        let e = srv.dbs[idx].get_raw_mut(key)?;
        evict::touch(e, now, srv.config.eviction(), &mut srv.rng);
        Some(e)
    }

    /// The value at `key` for reading, as the type `as_t` selects (`Value::as_hash`,
    /// `Value::as_list`, …): `None` if absent, `WRONGTYPE` if the key holds another type.
    /// Counts a hit or miss like [`Ctx::lookup_read`]. **O(1).**
    pub fn read_as<'c, T>(
        &'c mut self,
        key: &[u8],
        as_t: fn(&Value) -> CmdResult<&T>,
    ) -> CmdResult<Option<&'c T>> {
        self.lookup_read(key).map(as_t).transpose()
    }

    /// The value at `key` for writing, as the type `as_t` selects (`Value::as_hash_mut`,
    /// …): `None` if absent, `WRONGTYPE` if the key holds another type. **O(1).**
    pub fn write_as<'c, T>(
        &'c mut self,
        key: &[u8],
        as_t: fn(&mut Value) -> CmdResult<&mut T>,
    ) -> CmdResult<Option<&'c mut T>> {
        self.lookup_write(key)
            .map(|e| as_t(&mut e.value))
            .transpose()
    }

    /// True if `key` exists (after lazy expiry), without counting a hit or miss.
    pub fn exists(&mut self, key: &[u8]) -> bool {
        !self.expired_for_read(key) && self.db().get_raw(key).is_some()
    }

    /// Stores `value` at `key`, replacing what was there; the deadline is cleared unless
    /// `keep_ttl`. Counts one change, signals the key as modified (WATCH) and sends the
    /// `new` event if the key did not exist. The caller sends the command's own event.
    pub fn set_value(&mut self, key: &[u8], value: Value, keep_ttl: bool) {
        self.expire_if_needed(key);
        let now = self.now_ms;
        let db = self.client.db;
        if self.srv.dbs[db].set(key, value, keep_ttl, now) {
            // Redis sends it from dbAdd, once the key is in (and before the command's own).
            self.notify(class::NEW, "new", key);
        }
        self.signalled = true;
        self.srv.signal_modified(db, key);
        self.dirty += 1;
    }

    /// Deletes `key` (after lazy expiry). Returns true if it existed. Counts one change and
    /// signals the key as modified (WATCH); the caller sends the event (`del`, …).
    pub fn delete(&mut self, key: &[u8]) -> bool {
        self.expire_if_needed(key);
        let removed = self.db().remove(key).is_some();
        if removed {
            self.signalled = true;
            self.dirty += 1;
            let db = self.client.db;
            self.srv.signal_modified(db, key);
        }
        removed
    }

    /// Redis's `signalModifiedKey` for `key` in the selected database: transactions watching
    /// it will fail. **O(1).**
    ///
    /// Modified keys are found centrally: after a command that changed something (`dirty`
    /// went up) the engine signals every key position of its table row — unless the handler
    /// signalled keys itself through this method, [`Ctx::set_value`], [`Ctx::delete`] or
    /// [`Ctx::signal_modified_in`]. A handler that signals one key must therefore signal
    /// every key it changes; one that changes no key but its key arguments needs to do
    /// nothing.
    pub fn signal_modified(&mut self, key: &[u8]) {
        let db = self.client.db;
        self.signal_modified_in(db, key);
    }

    /// [`Ctx::signal_modified`] for database `db` (MOVE, COPY … DB).
    pub fn signal_modified_in(&mut self, db: usize, key: &[u8]) {
        self.signalled = true;
        if self.wakes_blocked {
            self.srv.signal_modified(db, key);
        } else {
            self.srv.touch_watchers(db, key);
        }
    }

    /// Redis's `signalFlushedDb`, before database `db` (every database when `None`) is
    /// emptied: watched keys that exist there are touched, and every tracking client is
    /// told to drop its cache. **O(keys watched there).**
    pub fn signal_flushed(&mut self, db: Option<usize>) {
        self.signalled = true;
        let now = self.now_ms;
        let dbs = match db {
            Some(d) => d..d + 1,
            None => 0..self.srv.dbs.len(),
        };
        let srv = &mut *self.srv;
        for d in dbs.clone() {
            srv.watches.touch_all_in_db(&srv.dbs, d, None, now);
        }
        if srv.tracking.active() {
            srv.invalidate_on_flush();
        }
        // Readers blocked on streams of a flushed database learn that their key is gone
        // (Redis's `scanDatabaseForDeletedStreams`): their keys become ready.
        let waited: Vec<(usize, Key)> = srv
            .blocking_keys
            .iter()
            .filter(|(d, _)| dbs.contains(d))
            .cloned()
            .collect();
        for (d, k) in waited {
            srv.signal_ready_in(d, &k);
        }
    }

    /// Before `SWAPDB a b`: watched keys of either database that exist in either are
    /// touched. **O(keys watched in both).**
    pub fn signal_swapped(&mut self, a: usize, b: usize) {
        self.signalled = true;
        let now = self.now_ms;
        let srv = &mut *self.srv;
        srv.watches.touch_all_in_db(&srv.dbs, a, Some(b), now);
        srv.watches.touch_all_in_db(&srv.dbs, b, Some(a), now);
        // Clients blocked in either database may find data after the swap (Redis's
        // `scanDatabaseForReadyKeys`).
        let waited: Vec<(usize, Key)> = srv
            .blocking_keys
            .iter()
            .filter(|(d, _)| *d == a || *d == b)
            .cloned()
            .collect();
        for (d, k) in waited {
            srv.signal_ready_in(d, &k);
        }
    }

    /// Redis's `notifyKeyspaceEvent` for `key` in the selected database: publishes `event`
    /// if its class (a [`pubsub::class`](crate::engine::pubsub::class) bit) is enabled by `notify-keyspace-events`.
    /// Handlers call it after each change with Redis's event name (`set`, `del`, `expire`,
    /// `hset`, `lpush`, …). Costs a configuration read when notifications are off.
    pub fn notify(&mut self, class: u32, event: &str, key: &[u8]) {
        let db = self.client.db;
        self.notify_in(db, class, event, key);
    }

    /// [`Ctx::notify`] for database `db` (`move_to`, `copy_to`).
    pub fn notify_in(&mut self, db: usize, class: u32, event: &str, key: &[u8]) {
        self.srv.notify_keyspace_event(class, event, key, db);
    }

    /// Adds a reply after the handler's own, for commands that reply several times
    /// (`SUBSCRIBE a b` replies once per channel): the handler returns the first reply and
    /// queues the following ones here, in order.
    pub fn also_reply(&mut self, reply: Reply) {
        self.replies.push(reply);
    }

    /// [`Ctx::also_reply`] for several replies.
    pub fn also_reply_all(&mut self, replies: impl IntoIterator<Item = Reply>) {
        self.replies.extend(replies);
    }

    /// True if the caller has subscriptions (Redis's `CLIENT_PUBSUB`).
    pub fn in_pubsub_mode(&self) -> bool {
        self.srv.pubsub.total(self.client.id) > 0
    }

    /// Ends the caller's transaction, watches, subscriptions and tracking without replying
    /// (Redis's `clearClientConnectionState`, for `RESET`).
    pub fn clear_transaction_and_subscriptions(&mut self) {
        let id = self.client.id;
        self.client.multi = None;
        self.srv.watches.reset(id);
        self.srv.pubsub.remove_client(id);
        self.srv.tracking.disable(id);
    }

    /// Deletes `key` if it holds an empty collection (Redis never keeps empty ones).
    pub fn delete_if_empty(&mut self, key: &[u8]) {
        let empty = self
            .db()
            .get_raw(key)
            .is_some_and(|e| e.value.is_empty_collection());
        if empty {
            self.db().remove(key);
        }
    }

    /// Deletes `key` if it holds an empty collection and sends the `del` event, as Redis's
    /// collection commands do right after their own event when they removed the last
    /// element. Returns true if the key was deleted. Signals nothing by itself: the command's
    /// key positions (or its own [`Ctx::signal_modified`]) cover the key. **O(1).**
    pub fn delete_if_emptied(&mut self, key: &[u8]) -> bool {
        let empty = self
            .db()
            .get_raw(key)
            .is_some_and(|e| e.value.is_empty_collection());
        if empty {
            self.db().remove(key);
            self.notify(class::GENERIC, "del", key);
        }
        empty
    }

    /// Sets (`Some`) or clears (`None`) the deadline of an existing key.
    pub fn set_expire(&mut self, key: &[u8], at_ms: Option<i64>) -> bool {
        self.db().set_expire(key, at_ms)
    }

    /// Replaces this command's effect with `argv` (in the client's current database).
    /// Call it several times to record several commands; call with nothing to record
    /// none (see [`Ctx::propagate_none`]).
    pub fn propagate(&mut self, argv: Vec<Vec<u8>>) {
        let db = self.client.db;
        self.propagate
            .get_or_insert_with(Vec::new)
            .push(Effect { db, argv });
    }

    /// Records that this command, although it changed something, has no effect to replay.
    pub fn propagate_none(&mut self) {
        self.propagate.get_or_insert_with(Vec::new);
    }

    /// Records that `key` (in the selected database) may now serve a blocked client: a push
    /// created or grew it. Only keys someone is blocked on are recorded, once each, as
    /// Redis's `signalKeyAsReady`. **O(1).**
    pub fn signal_ready(&mut self, key: &[u8]) {
        let db = self.client.db;
        self.srv.signal_ready_in(db, key);
    }

    /// Blocks the caller on `keys` (of its database) until `deadline_ms` (`None`: forever):
    /// the handler's reply is dropped and the engine replies later, when a key can serve
    /// `op`, the deadline passes, or `CLIENT UNBLOCK` says so (see [`blocking`]).
    pub fn block(&mut self, keys: Vec<Key>, deadline_ms: Option<i64>, op: blocking::BlockOp) {
        self.no_reply = true;
        let (id, db) = (self.client.id, self.client.db);
        self.srv.block(id, db, keys, deadline_ms, op);
    }

    /// Random integer in `0..n` from the engine's seeded generator (`n` > 0).
    pub fn random_below(&mut self, n: usize) -> usize {
        self.srv.rng.usize(0..n.max(1))
    }
}
