//! Everything but the clients: databases, configuration, clock, randomness, statistics,
//! the effects not yet taken, and the server-wide state other clients' commands act on
//! (watches, subscriptions, blocked clients, monitors, the slow log, `CLIENT PAUSE`).

use crate::engine::blocking::{self, BlockOp, Blocked};
use crate::engine::clock::Clock;
use crate::engine::evict;
use crate::engine::keyspace::{Db, Key};
use crate::engine::outbox::Outboxes;
use crate::engine::pubsub::PubSub;
use crate::engine::slowlog;
use crate::engine::tracking::Tracking;
use crate::engine::watch::Watches;

use super::client::ClientId;
use super::state::{Config, Stats};

/// Number of logical databases, as Redis's default `databases 16`.
pub const NUM_DBS: usize = 16;

/// One replayable change, in the form Redis writes to its append-only file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Effect {
    /// The database the command applies to.
    pub db: usize,
    /// The command and its arguments.
    pub argv: Vec<Vec<u8>>,
}

/// Everything but the clients: databases, configuration, clock, randomness, statistics.
pub struct Server {
    /// The databases.
    pub dbs: Vec<Db>,
    /// The clock.
    pub clock: Box<dyn Clock>,
    /// Seeded randomness (RANDOMKEY, HRANDFIELD, the expiry sampler).
    pub rng: fastrand::Rng,
    /// Configuration.
    pub config: Config,
    /// Statistics.
    pub stats: Stats,
    /// Writes since start (Redis's `server.dirty`).
    pub dirty: u64,
    /// Effects not yet taken by the host.
    pub effects: Vec<Effect>,
    /// Whether effects (and [`Server::dropped`]) are recorded at all: a host with no use
    /// for them turns this off ([`Engine::set_record_effects`](crate::engine::Engine::set_record_effects)).
    pub record_effects: bool,
    /// Keys the server removed on its own since the effects were last taken: database,
    /// key and keyspace event (`expired`, `evicted`). Their effect is a plain `DEL`, so a
    /// host that tells the learner what changed a key reads the reason here
    /// ([`Engine::take_dropped`](crate::engine::Engine::take_dropped)).
    pub dropped: Vec<(usize, Vec<u8>, &'static str)>,
    /// Identifier of this run (`run_id` in INFO).
    pub run_id: String,
    /// Keys, per database, that some client is blocked on (`BLPOP` & co.; filled by the
    /// blocking commands). Redis's `db->blocking_keys`.
    pub blocking_keys: foldhash::HashSet<(usize, Key)>,
    /// Keys that received elements while a client was blocked on them, in the order they
    /// became ready, for the engine to serve waiters after the command (Redis's
    /// `server.ready_keys`). See [`Ctx::signal_ready`](crate::engine::Ctx::signal_ready).
    pub ready_keys: Vec<(usize, Key)>,
    /// Pub/sub subscriptions of every client.
    pub pubsub: PubSub,
    /// `WATCH`ed keys of every client.
    pub watches: Watches,
    /// Client-side caching: who tracks which keys ([`crate::engine::tracking`]).
    pub tracking: Tracking,
    /// What each client is owed beyond the reply in hand (see [`Engine::take_pushes`](crate::engine::Engine::take_pushes)).
    pub outboxes: Outboxes,
    /// Blocked clients, the waiters of each key, deadlines ([`blocking`]).
    pub blocking: blocking::Blocking,
    /// Clients in `MONITOR` mode, in the order they entered it.
    pub monitors: indexmap::IndexSet<ClientId>,
    /// The slow log (`SLOWLOG`).
    pub slowlog: slowlog::SlowLog,
    /// The latency monitor's events and the command histograms (`LATENCY`).
    pub latency: crate::engine::latency::Latency,
    /// `CLIENT PAUSE` in force, if any.
    pub pause: Option<Pause>,
    /// Clients whose command waits for the pause to end, in the order they arrived.
    pub postponed: std::collections::VecDeque<ClientId>,
    /// Eviction's candidate pool and turn ([`evict`]).
    pub evictor: evict::Evictor,
    /// The script cache and the Lua interpreter (EVAL).
    pub scripts: crate::engine::scripting::Scripts,
    /// The script that paused in its run, if one did ([`crate::engine::busy`]).
    pub running: Option<Box<crate::engine::busy::Running>>,
    /// The client whose next `EVAL` runs under the debugger (`Engine::debug_eval`).
    pub debug_next: Option<crate::engine::core::client::ClientId>,
    /// The function libraries and their Lua engine (FUNCTION, FCALL).
    pub functions: crate::engine::functions::Functions,
    /// What the server logged (a script's `redis.log`, warnings), oldest first, for the
    /// host to print or show; the latest [`LOG_KEEP`] lines are kept.
    pub log: std::collections::VecDeque<(i32, Vec<u8>)>,
    /// The allocator and resident size of the process (`INFO memory`).
    pub host: crate::engine::alloc::HostFacts,
    /// The largest `used_memory` INFO has seen (`used_memory_peak`).
    pub peak_memory: std::cell::Cell<u64>,
    /// The host's listening sockets, for `CONFIG SET port` and `bind` (see [`Relisten`]);
    /// `None` where nothing listens (the browser), and the values are only stored.
    pub relisten: Option<Relisten>,
    /// Saving as RDB files: the host's storage, the last save, a background save.
    pub persist: super::persist::Persist,
    /// The ACL users (`default` and those `ACL SETUSER` made).
    pub acl: crate::engine::acl::Users,
    /// The switches `DEBUG` turns for tests.
    pub debug: DebugSwitches,
}

/// The switches `DEBUG` turns (Redis keeps them in `server` too), each at Redis's start-up
/// value by default.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DebugSwitches {
    /// Keys expire in the background (`DEBUG SET-ACTIVE-EXPIRE`); off, a key goes only
    /// when something touches it.
    pub active_expire: bool,
    /// The periodic cron runs (`DEBUG PAUSE-CRON`): active expiry, save points.
    pub cron: bool,
    /// `RESTORE` and RDB loading check the CRC-64 (`DEBUG SET-SKIP-CHECKSUM-VALIDATION`).
    pub checksums: bool,
    /// Scripts may call `noscript` commands (`DEBUG SET-DISABLE-DENY-SCRIPTS`).
    pub scripts_may_call_noscript: bool,
    /// Elements of this many bytes or more get a quicklist node of their own, a *plain*
    /// node (`DEBUG QUICKLIST-PACKED-THRESHOLD`): how DUMP, RDB files and MEMORY USAGE cut
    /// a list.
    pub packed_threshold: usize,
    /// Milliseconds between resets of each client's reply-buffer peak (`DEBUG REPLYBUFFER
    /// PEAK-RESET-TIME`; negative: never).
    pub reply_peak_reset_ms: i64,
    /// The cron resizes reply buffers (`DEBUG REPLYBUFFER RESIZING`).
    pub reply_resizing: bool,
}

/// Redis's `REPLY_BUFFER_DEFAULT_PEAK_RESET_TIME`, in milliseconds.
pub const REPLY_PEAK_RESET_MS: i64 = 5000;

impl Default for DebugSwitches {
    fn default() -> DebugSwitches {
        DebugSwitches {
            active_expire: true,
            cron: true,
            checksums: true,
            scripts_may_call_noscript: false,
            packed_threshold: crate::engine::rdb::write::PACKED_THRESHOLD,
            reply_peak_reset_ms: REPLY_PEAK_RESET_MS,
            reply_resizing: true,
        }
    }
}

/// Moves the host's listening sockets to the bind addresses and port the configuration
/// now names (`CONFIG SET bind`/`port`; port 0 listens nowhere), as Redis's
/// `changeListenPort` and `changeBindAddr` do, or reports that it could not, leaving the
/// old sockets listening. Called with the engine borrowed: it must not reach the engine.
pub type Relisten = Box<dyn FnMut(&[String], u16) -> Result<(), String>>;

/// How many log lines [`Server::log`] keeps for the host.
pub const LOG_KEEP: usize = 1000;

/// A `CLIENT PAUSE`: commands of every client (`all`) or those that write (`WRITE`) wait
/// until `end_ms`. Active expiry waits too.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Pause {
    /// Unix milliseconds when it ends.
    pub end_ms: i64,
    /// Every command waits, not only writes.
    pub all: bool,
}

impl Server {
    /// Logs a line at `level` (0 debug, 1 verbose, 2 notice, 3 warning) if the
    /// `loglevel` lets it through.
    pub fn log(&mut self, level: i32, line: &[u8]) {
        if level < self.verbosity() {
            return;
        }
        if self.log.len() == LOG_KEEP {
            self.log.pop_front();
        }
        self.log.push_back((level, line.to_vec()));
    }

    /// `loglevel` as a number: 0 debug, 1 verbose, 2 notice, 3 warning (Redis's
    /// `server.verbosity`).
    pub fn verbosity(&self) -> i32 {
        match self.config.get("loglevel").unwrap_or("notice") {
            "debug" => 0,
            "verbose" => 1,
            "notice" => 2,
            _ => 3,
        }
    }

    /// Removes `key` from database `db` on the server's own initiative (it expired, or
    /// `maxmemory` evicted it) as Redis's `deleteExpiredKeyAndPropagate` and eviction do:
    /// the keyspace event `event` of class `class`, WATCH and blocked clients signalled,
    /// and a `DEL` effect recorded for persistence and the other tabs. The caller counts
    /// it in its own statistic. **O(1).**
    pub fn drop_key(&mut self, db: usize, key: &[u8], class: u32, event: &'static str) {
        self.dbs[db].remove(key);
        self.notify_keyspace_event(class, event, key, db);
        self.signal_ready_in(db, key);
        // No client modified it (Redis passes no client): NOLOOP listeners are told too.
        self.touch_key(db, key, 0);
        if self.record_effects {
            self.effects.push(Effect {
                db,
                argv: vec![b"DEL".to_vec(), key.to_vec()],
            });
            self.dropped.push((db, key.to_vec(), event));
        }
    }

    /// Redis's `signalModifiedKey`: `key` in database `db` changed, so transactions watching
    /// it will fail and clients that cached it are told. **O(1)** when no one watches the
    /// database and no client tracks keys.
    pub fn signal_modified(&mut self, db: usize, key: &[u8]) {
        self.signal_ready_in(db, key);
        self.touch_watchers(db, key);
    }

    /// [`Server::signal_modified`] without its blocked-clients half: transactions watching
    /// `key` fail and clients that cached it are told, but blocked clients are not looked
    /// at. For writes that Redis does not signal as making a key ready (`XSETID`, `XGROUP
    /// SETID`: they add no entries, so a blocked `XREAD` keeps waiting for the next
    /// `XADD`). **O(1)** when no one watches and no client tracks.
    pub fn touch_watchers(&mut self, db: usize, key: &[u8]) {
        let writer = self.tracking.current();
        self.touch_key(db, key, writer);
    }

    /// WATCH and client-side caching told that `key` changed, by client `writer` (0: the
    /// server).
    fn touch_key(&mut self, db: usize, key: &[u8], writer: ClientId) {
        if self.tracking.active() {
            self.invalidate_key(key, writer, true);
        }
        if self.watches.db_unwatched(db) {
            return;
        }
        let exists = self.dbs.get(db).is_some_and(|d| d.get_raw(key).is_some());
        self.watches.touch(db, key, exists);
    }

    /// Pauses clients until `end_ms`, all commands or only writes (Redis's `pauseClients`):
    /// a pause already in force keeps the later end and the stronger mode. A pause whose
    /// end has passed already changes nothing.
    pub fn pause_clients(&mut self, end_ms: i64, all: bool, now_ms: i64) {
        let merged = match self.pause {
            Some(p) => Pause {
                end_ms: p.end_ms.max(end_ms),
                all: p.all || all,
            },
            None => Pause { end_ms, all },
        };
        if merged.end_ms > now_ms {
            self.pause = Some(merged);
        }
    }

    /// Ends the pause: the postponed clients are unblocked, in the order they arrived, and
    /// run their commands after the current one (`Engine::after_command`).
    pub fn unpause_clients(&mut self) {
        self.pause = None;
        while let Some(id) = self.postponed.pop_front() {
            if matches!(
                self.blocking.get(id).map(|b| &b.op),
                Some(blocking::BlockOp::Postpone)
            ) {
                self.unblock(id);
                self.note_unblocked(id);
            }
        }
    }

    /// The pause in force at `now_ms`, ending an expired one first.
    pub fn pause_at(&mut self, now_ms: i64) -> Option<Pause> {
        if self.pause.is_some() && !self.paused(now_ms) {
            self.unpause_clients();
        }
        self.pause
    }

    /// True while a `CLIENT PAUSE` is in force at `now_ms` (one that ran out may not have
    /// been ended yet: see [`Server::pause_at`]).
    pub fn paused(&self, now_ms: i64) -> bool {
        self.pause.is_some_and(|p| p.end_ms > now_ms)
    }

    /// Keeps the databases' keys by hash slot exactly while cluster mode is on (see
    /// [`Db::index_slots`]); called when the configuration or the databases are replaced.
    pub fn index_slots(&mut self) {
        let on = self.config.cluster_enabled();
        for db in &mut self.dbs {
            db.index_slots(on);
        }
    }
}

/// Blocking bookkeeping (see [`crate::engine::blocking`]): the waiters of each key, the
/// deadlines, and the keys that became ready.
impl Server {
    /// Blocks client `id` on `keys` of `db` (repeats ignored) until `deadline_ms`.
    /// **O(keys + log n).**
    pub fn block(
        &mut self,
        id: ClientId,
        db: usize,
        keys: Vec<Key>,
        deadline_ms: Option<i64>,
        op: BlockOp,
    ) {
        self.unblock(id);
        let mut unique: Vec<Key> = Vec::with_capacity(keys.len());
        for k in keys {
            if !unique.contains(&k) {
                unique.push(k);
            }
        }
        let b = &mut self.blocking;
        for k in &unique {
            b.waiters.entry((db, k.clone())).or_default().push_back(id);
            self.blocking_keys.insert((db, k.clone()));
        }
        if let Some(at) = deadline_ms {
            b.deadlines.insert((at, id));
        }
        b.clients.insert(
            id,
            Blocked {
                db,
                keys: unique,
                deadline_ms,
                op,
                argv: Vec::new(),
            },
        );
    }

    /// Removes client `id` from every index of blocked clients and returns what it waited
    /// for, or `None` if it was not blocked. The caller replies to it (or not) and queues
    /// it for its deferred commands with [`Server::note_unblocked`]. **O(keys × waiters of
    /// each key).**
    pub fn unblock(&mut self, id: ClientId) -> Option<Blocked> {
        let b = &mut self.blocking;
        let blocked = b.clients.remove(&id)?;
        for k in &blocked.keys {
            let entry = (blocked.db, k.clone());
            if let Some(q) = b.waiters.get_mut(&entry) {
                q.retain(|&c| c != id);
                if q.is_empty() {
                    b.waiters.remove(&entry);
                    self.blocking_keys.remove(&entry);
                    self.ready_keys.retain(|r| *r != entry);
                }
            }
        }
        if let Some(at) = blocked.deadline_ms {
            b.deadlines.remove(&(at, id));
        }
        Some(blocked)
    }

    /// Records that `id` was unblocked: the engine runs what it sent meanwhile.
    pub fn note_unblocked(&mut self, id: ClientId) {
        self.blocking.unblocked.push_back(id);
    }

    /// Records `key` of `db` as ready if a client blocks on it (Redis's
    /// `signalKeyAsReady`); called for every modified key. **O(1)** when no one blocks.
    pub fn signal_ready_in(&mut self, db: usize, key: &[u8]) {
        if self.blocking_keys.is_empty() {
            return;
        }
        let entry = (db, key.to_vec());
        if self.blocking_keys.contains(&entry) && !self.ready_keys.contains(&entry) {
            self.ready_keys.push(entry);
        }
    }
}
