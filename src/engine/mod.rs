//! The engine: Redis 7.0 semantics over in-memory data, with no I/O of its own.
//!
//! A host (the native server, the browser app, a test) creates an [`Engine`] with a
//! [`Clock`], connects clients, and feeds them argument vectors:
//!
//! ```
//! use kvlab::engine::{Engine, ManualClock, Reply};
//!
//! let mut engine = Engine::new(Box::new(ManualClock::at_ms(1_700_000_000_000)), 42);
//! let client = engine.connect();
//! assert_eq!(engine.execute(client, vec![b"SET".to_vec(), b"k".to_vec(), b"v".to_vec()]), Reply::ok());
//! assert_eq!(engine.execute(client, vec![b"GET".to_vec(), b"k".to_vec()]), Reply::bulk(b"v"));
//! // Every write also yields its replayable effect, for persistence and live views.
//! let effects = engine.take_effects();
//! assert_eq!(effects[0].argv[0], b"SET");
//! ```
//!
//! # Flow of one command
//! [`Engine::execute`] looks the name up in the [command table](table), resolves a
//! subcommand for container commands, checks arity **once, here**, then calls the handler
//! with a [`Ctx`] (the server state plus the calling client) and an [`args::Args`] cursor.
//! After a write that changed something (`dirty` went up) the effect is recorded.
//!
//! # Effects
//! Each write reports what it changed as commands that replay deterministically, the way
//! Redis propagates to its append-only file: a handler may replace its own argv with
//! something else (`EXPIRE` → `PEXPIREAT`, `SET … EX` → `SET … PXAT`, `INCRBYFLOAT` →
//! `SET … KEEPTTL`) through [`Ctx::propagate`]. Keys removed by expiry produce `DEL`.
//! `EXEC` wraps the effects of its commands in `MULTI` … `EXEC` when there are several.
//!
//! # Hosts: replies, pushes, closing
//! A client can be sent things it did not ask for at that moment: messages published by
//! others, keyspace events, the second and later replies of `SUBSCRIBE a b`, and (once
//! blocking commands exist) the late reply of a blocked command. The engine keeps, for each
//! client, a queue of such output ([`outbox`]) and a host drains it:
//!
//! * [`Engine::execute`]`(id, argv) -> Reply` runs a command and returns its (first) reply;
//!   everything else for `id` waits in the queue. Simple hosts (the console, tests) use it.
//! * [`Engine::submit`]`(id, argv)` runs a command and queues *everything* `id` must be
//!   sent, replies included, in exactly the order Redis writes it (a RESP3 client that
//!   publishes to itself gets the message before the reply). A pipelining server uses
//!   this and writes nothing but the queue; `CLIENT REPLY` is honoured inside.
//! * [`Engine::take_pushes`]`(id) -> Vec<Reply>` drains the queue of `id`, oldest first.
//!   Pushes are [`Reply::Push`], which RESP3 encodes as `>` and RESP2 as an array.
//! * [`Engine::clients_with_pushes`]`() -> Vec<ClientId>` lists the clients whose queue is not
//!   empty (or that were closed): after each command and each [`Engine::tick`], a server
//!   wakes those connections.
//! * Blocked clients ([`blocking`]): a command that blocks queues nothing; the late reply is
//!   queued when another client's write serves it, when [`Engine::expire_blocked`] (also
//!   run by [`Engine::tick`]) finds its deadline passed — [`Engine::next_timeout_ms`] says
//!   when — or on `CLIENT UNBLOCK`. Commands submitted for a blocked client are kept and run
//!   after it is unblocked. `MONITOR` lines are queued for monitors the same way.
//!
//! Two client flags ask the host to close a connection: [`Client::close_after_reply`]
//! (`QUIT`: send what is pending, then close) and [`Client::close_asap`] (its queue
//! exceeded `client-output-buffer-limit`, Redis's `pubsub 32mb 8mb 60` by default: close
//! now, send nothing more; the engine has dropped its queue and ignores its commands).
//! [`Engine::disconnect`] must be called when a connection goes; it removes the client's
//! transaction, watches, subscriptions and queue.
//!
//! # Transactions, WATCH and pub/sub
//! `MULTI` state is per client ([`Client::multi`], queued and checked in
//! [`Engine::execute`] as Redis's `processCommand` does). Watches and subscriptions belong
//! to the server ([`watch`], [`pubsub`]) because other clients' commands act on them: every
//! write signals the keys it changed ([`Ctx::signal_modified`], found centrally from the
//! command table's key positions), and [`Ctx::notify`] publishes keyspace events.

pub mod args;
pub mod blocking;
pub mod cli;
pub mod clock;
pub mod cluster;
pub mod cmd;
pub mod config;
pub mod error;
pub mod evict;
pub mod export;
pub mod glob;
pub mod inspect;
pub mod json;
pub mod keyspace;
pub mod longdouble;
pub mod outbox;
pub mod pubsub;
pub mod reply;
pub mod scan;
pub mod slowlog;
pub mod snapshot;
pub mod table;
pub mod types;
pub mod watch;

use std::collections::BTreeMap;

use foldhash::{HashMap, HashMapExt};

#[cfg(not(target_arch = "wasm32"))]
pub use clock::SystemClock;
pub use clock::{Clock, FnClock, ManualClock};
pub use error::{CmdResult, Error};
pub use reply::Reply;

use args::Args;
use cmd::multi::{MultiState, Queued};
use keyspace::{Db, Entry, Key};
use outbox::Outboxes;
use pubsub::{class, PubSub};
use table::{Command, Flags};
use types::Value;
use watch::Watches;

/// Number of logical databases, as Redis's default `databases 16`.
pub const NUM_DBS: usize = 16;

/// Identifies a connected client. Ids start at 1 and are never reused.
pub type ClientId = u64;

/// One replayable change, in the form Redis writes to its append-only file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Effect {
    /// The database the command applies to.
    pub db: usize,
    /// The command and its arguments.
    pub argv: Vec<Vec<u8>>,
}

/// Per-client state.
#[derive(Debug, Clone)]
pub struct Client {
    /// Unique id (`CLIENT ID`).
    pub id: ClientId,
    /// Selected database.
    pub db: usize,
    /// Protocol version, 2 or 3 (`HELLO`).
    pub proto: u8,
    /// Name set by `CLIENT SETNAME` or `HELLO … SETNAME`.
    pub name: Option<Vec<u8>>,
    /// Peer address, as shown by `CLIENT LIST` (`addr=`).
    pub addr: String,
    /// Local address (`laddr=`).
    pub laddr: String,
    /// Connection time, Unix milliseconds.
    pub created_ms: i64,
    /// Time of the last command, Unix milliseconds.
    pub last_cmd_ms: i64,
    /// Lowercase full name of the last command (`cmd=` in `CLIENT LIST`).
    pub last_cmd: String,
    /// Set by `QUIT`: the host closes the connection after sending the reply.
    pub close_after_reply: bool,
    /// What `CLIENT REPLY` asked for; the host honours it (see [`ReplyMode`]).
    pub reply_mode: ReplyMode,
    /// `CLIENT NO-EVICT ON`: excluded from client eviction.
    pub no_evict: bool,
    /// The open transaction, between `MULTI` and `EXEC`/`DISCARD`.
    pub multi: Option<MultiState>,
    /// Closed by the engine (its output exceeded `client-output-buffer-limit`): the host
    /// closes the connection at once, without sending anything more (Redis's
    /// `CLIENT_CLOSE_ASAP`). Such a client is listed by [`Engine::clients_with_pushes`].
    pub close_asap: bool,
    /// Authenticated as the `default` user. A client starts authenticated while
    /// `requirepass` is empty (Redis's `nopass` default user), and keeps that when a
    /// password is set later; otherwise only `AUTH`/`HELLO … AUTH` authenticate it, and
    /// commands other than those Redis flags `no_auth` answer `NOAUTH`.
    pub authenticated: bool,
    /// `READONLY` (cluster mode): shown as flag `r` by `CLIENT LIST`.
    pub readonly: bool,
}

/// What [`Engine::interrupt`] stopped for a client.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Interrupted {
    /// A blocked command was dropped.
    pub blocked: bool,
    /// Its subscriptions ended (it had left pub/sub mode).
    pub subscribed: bool,
    /// It was a `MONITOR`.
    pub monitor: bool,
}

impl Interrupted {
    /// True if the client was waiting in anything.
    pub fn any(self) -> bool {
        self.blocked || self.subscribed || self.monitor
    }
}

/// Whether the host sends replies to a client, as set by `CLIENT REPLY` (Redis's
/// `CLIENT_REPLY_OFF` and `CLIENT_REPLY_SKIP*` flags). The host asks
/// [`Engine::reply_wanted`] after each command, which also advances the skip state.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ReplyMode {
    /// Every reply is sent (the default, and what `CLIENT REPLY ON` restores, with `OK`).
    #[default]
    On,
    /// No reply is sent, not even to `CLIENT REPLY OFF` itself, until `CLIENT REPLY ON`.
    Off,
    /// `CLIENT REPLY SKIP` just ran (it is ignored while `Off`): neither its reply nor the
    /// next command's is sent.
    Skip,
    /// The command after `CLIENT REPLY SKIP`: its reply is not sent, then back to `On`.
    SkipThis,
}

/// Configuration parameters the engine understands (`CONFIG GET/SET`); the parameter
/// table, checks and typed accessors are in [`config`].
#[derive(Debug, Clone)]
pub struct Config {
    /// Canonical parameter name → its normalised value, as `CONFIG GET` shows it. Change
    /// it through [`Config::set_normalized`], which keeps the parsed forms below current.
    pub values: std::collections::BTreeMap<String, String>,
    /// `client-output-buffer-limit`, parsed: read on every queued reply, so parsed once.
    obuf_limits: [(u64, u64, i64); 3],
    /// `notify-keyspace-events` as class bits: read on every write, so parsed once.
    keyspace_events: u32,
    /// `cluster-enabled`: read on every command, so parsed once.
    cluster_enabled: bool,
    /// `slowlog-log-slower-than` and `slowlog-max-len`: read after every command, so
    /// parsed once.
    slowlog: (i64, usize),
    /// `maxmemory`, its policy and the LFU parameters: read before every command, so
    /// parsed once.
    eviction: evict::Settings,
}

/// Counters reported by `INFO`.
#[derive(Debug, Clone, Default)]
pub struct Stats {
    /// Commands executed.
    pub commands: u64,
    /// Connections accepted.
    pub connections: u64,
    /// Keys removed because they expired.
    pub expired_keys: u64,
    /// Keys removed to stay within `maxmemory`.
    pub evicted_keys: u64,
    /// Lookups that found a key.
    pub keyspace_hits: u64,
    /// Lookups that found nothing.
    pub keyspace_misses: u64,
    /// Unix milliseconds when the engine started.
    pub start_ms: i64,
    /// Per-command counts for `INFO commandstats`, keyed by (command, subcommand) names,
    /// the subcommand `""` for a plain command.
    pub per_command: BTreeMap<(&'static str, &'static str), CommandStats>,
}

/// One command's line in `INFO commandstats`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CommandStats {
    /// Times it ran (each command of an EXEC counts).
    pub calls: u64,
    /// Runs that replied with an error.
    pub failed: u64,
    /// Microseconds spent running it, in all.
    pub usec: u64,
    /// Times it was refused before running (arity, inside MULTI, in subscriber context).
    pub rejected: u64,
}

impl Stats {
    /// The counters of `cmd`, run as the `pos - 1`th word of `argv` (a subcommand when
    /// `pos` is 2), created at zero.
    fn command(
        &mut self,
        cmd: &'static Command,
        argv: &[Vec<u8>],
        pos: usize,
    ) -> &mut CommandStats {
        let key = match argv.first().and_then(|a| table::lookup(a)) {
            Some(top) if pos == 2 => (top.name, cmd.name),
            _ => (cmd.name, ""),
        };
        self.per_command.entry(key).or_default()
    }

    /// Counts a refused command line (if it names a known command).
    fn reject(&mut self, argv: &[Vec<u8>]) {
        let Some(top) = argv.first().and_then(|a| table::lookup(a)) else {
            return;
        };
        let sub = if top.subcommands.is_empty() {
            None
        } else {
            match argv.get(1) {
                Some(s) => match top.subcommand(s) {
                    Some(sub) => Some(sub),
                    // Redis finds no command for an unknown subcommand: nothing to count.
                    None => return,
                },
                None => None,
            }
        };
        let key = match sub {
            Some(sub) => (top.name, sub.name),
            None => (top.name, ""),
        };
        self.per_command.entry(key).or_default().rejected += 1;
    }
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
    /// Keys the server removed on its own since the effects were last taken: database,
    /// key and keyspace event (`expired`, `evicted`). Their effect is a plain `DEL`, so a
    /// host that tells the learner what changed a key reads the reason here
    /// ([`Engine::take_dropped`]).
    pub dropped: Vec<(usize, Vec<u8>, &'static str)>,
    /// Identifier of this run (`run_id` in INFO).
    pub run_id: String,
    /// Keys, per database, that some client is blocked on (`BLPOP` & co.; filled by the
    /// blocking commands). Redis's `db->blocking_keys`.
    pub blocking_keys: foldhash::HashSet<(usize, Key)>,
    /// Keys that received elements while a client was blocked on them, in the order they
    /// became ready, for the engine to serve waiters after the command (Redis's
    /// `server.ready_keys`). See [`Ctx::signal_ready`].
    pub ready_keys: Vec<(usize, Key)>,
    /// Pub/sub subscriptions of every client.
    pub pubsub: PubSub,
    /// `WATCH`ed keys of every client.
    pub watches: Watches,
    /// What each client is owed beyond the reply in hand (see [`Engine::take_pushes`]).
    pub outboxes: Outboxes,
    /// Blocked clients, the waiters of each key, deadlines ([`blocking`]).
    pub blocking: blocking::Blocking,
    /// Clients in `MONITOR` mode, in the order they entered it.
    pub monitors: indexmap::IndexSet<ClientId>,
    /// The slow log (`SLOWLOG`).
    pub slowlog: slowlog::SlowLog,
    /// `CLIENT PAUSE` in force, if any.
    pub pause: Option<Pause>,
    /// Clients whose command waits for the pause to end, in the order they arrived.
    pub postponed: std::collections::VecDeque<ClientId>,
    /// Eviction's candidate pool and turn ([`evict`]).
    pub evictor: evict::Evictor,
}

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
    /// Removes `key` from database `db` on the server's own initiative (it expired, or
    /// `maxmemory` evicted it) as Redis's `deleteExpiredKeyAndPropagate` and eviction do:
    /// the keyspace event `event` of class `class`, WATCH and blocked clients signalled,
    /// and a `DEL` effect recorded for persistence and the other tabs. The caller counts
    /// it in its own statistic. **O(1).**
    pub fn drop_key(&mut self, db: usize, key: &[u8], class: u32, event: &'static str) {
        self.dbs[db].remove(key);
        self.notify_keyspace_event(class, event, key, db);
        self.signal_modified(db, key);
        self.effects.push(Effect {
            db,
            argv: vec![b"DEL".to_vec(), key.to_vec()],
        });
        self.dropped.push((db, key.to_vec(), event));
    }

    /// Redis's `signalModifiedKey`: `key` in database `db` changed, so transactions watching
    /// it will fail. **O(1)** when no one watches the database.
    pub fn signal_modified(&mut self, db: usize, key: &[u8]) {
        self.signal_ready_in(db, key);
        self.touch_watchers(db, key);
    }

    /// The WATCH half of [`Server::signal_modified`] alone: transactions watching `key`
    /// fail, but blocked clients are not looked at. For writes that Redis does not signal
    /// as making a key ready (`XSETID`, `XGROUP SETID`: they add no entries, so a blocked
    /// `XREAD` keeps waiting for the next `XADD`). **O(1)** when no one watches.
    pub fn touch_watchers(&mut self, db: usize, key: &[u8]) {
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
    /// run their commands after the current one ([`Engine::after_command`]).
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

/// What a handler sees: the server and the calling client.
pub struct Ctx<'a> {
    /// Server state.
    pub srv: &'a mut Server,
    /// The calling client.
    pub client: &'a mut Client,
    /// Every other connected client (the caller is in [`Ctx::client`] only).
    pub others: &'a mut HashMap<ClientId, Client>,
    /// Time of this command, Unix milliseconds: one command sees one instant, as in Redis.
    pub now_ms: i64,
    /// Changes made by this command (Redis's `dirty` delta).
    pub dirty: u64,
    /// A replacement for the command's own effect (see [`Ctx::propagate`]).
    propagate: Option<Vec<Effect>>,
    /// Replies after the handler's own, for commands that reply more than once.
    replies: Vec<Reply>,
    /// The handler reported its modified keys itself (see [`Ctx::signal_modified`]).
    signalled: bool,
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
}

impl Ctx<'_> {
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
        if expired || self.srv.dbs[idx].get_raw(key).is_none() {
            self.miss(key);
            return None;
        }
        let srv = &mut *self.srv;
        let e = srv.dbs[idx].get_raw_mut(key)?;
        srv.stats.keyspace_hits += 1;
        evict::touch(e, now, srv.config.eviction(), &mut srv.rng);
        Some(&e.value)
    }

    /// A read found no key: counts the miss and sends the `keymiss` event.
    fn miss(&mut self, key: &[u8]) {
        self.srv.stats.keyspace_misses += 1;
        self.notify(class::KEY_MISS, "keymiss", key);
    }

    /// Looks up `key` for reading without touching its access time, as Redis's
    /// `LOOKUP_NOTOUCH` lookups (`TTL`, `EXISTS`, `TYPE`, `OBJECT`): lazily expires it and
    /// counts a hit or miss. **O(1).**
    pub fn lookup_read_notouch(&mut self, key: &[u8]) -> Option<&Entry> {
        let expired = self.expired_for_read(key);
        let idx = self.client.db;
        if expired || self.srv.dbs[idx].get_raw(key).is_none() {
            self.miss(key);
            return None;
        }
        let srv = &mut *self.srv;
        srv.stats.keyspace_hits += 1;
        srv.dbs[idx].get_raw(key)
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
    pub fn set_value(&mut self, key: Key, value: Value, keep_ttl: bool) {
        self.expire_if_needed(&key);
        let now = self.now_ms;
        let created = self.db().get_raw(&key).is_none();
        if created {
            self.notify(class::NEW, "new", &key);
        }
        self.signalled = true;
        let db = self.client.db;
        self.srv.dbs[db].set(key.clone(), value, keep_ttl, now);
        self.srv.signal_modified(db, &key);
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
    /// emptied: watched keys that exist there are touched. **O(keys watched there).**
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
    /// if its class (a [`pubsub::class`] bit) is enabled by `notify-keyspace-events`.
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

    /// Ends the caller's transaction, watches and subscriptions without replying (Redis's
    /// `clearClientConnectionState`, for `RESET`).
    pub fn clear_transaction_and_subscriptions(&mut self) {
        let id = self.client.id;
        self.client.multi = None;
        self.srv.watches.reset(id);
        self.srv.pubsub.remove_client(id);
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

/// Removes `key` from database `db` if expired at `now_ms`, recording a `DEL` effect,
/// sending the `expired` event and touching watchers (Redis's
/// `deleteExpiredKeyAndPropagate`).
fn expire_if_needed(srv: &mut Server, db: usize, key: &[u8], now_ms: i64) -> bool {
    if !srv.dbs[db].is_expired(key, now_ms) {
        return false;
    }
    srv.drop_key(db, key, class::EXPIRED, "expired");
    srv.stats.expired_keys += 1;
    true
}

/// The engine: server state plus connected clients.
pub struct Engine {
    srv: Server,
    clients: HashMap<ClientId, Client>,
    next_client_id: ClientId,
}

impl Engine {
    /// A fresh engine with 16 empty databases, reading time from `clock` and drawing random
    /// numbers from a generator seeded with `seed`.
    pub fn new(clock: Box<dyn Clock>, seed: u64) -> Engine {
        let start_ms = clock.now_ms();
        let mut rng = fastrand::Rng::with_seed(seed);
        let run_id: String = (0..40)
            .map(|_| {
                rng.choice(b"0123456789abcdef".iter())
                    .map(|&b| b as char)
                    .unwrap_or('0')
            })
            .collect();
        Engine {
            srv: Server {
                dbs: (0..NUM_DBS).map(|_| Db::default()).collect(),
                clock,
                rng,
                config: Config::with_defaults(),
                stats: Stats {
                    start_ms,
                    ..Stats::default()
                },
                dirty: 0,
                effects: Vec::new(),
                dropped: Vec::new(),
                run_id,
                blocking_keys: Default::default(),
                ready_keys: Vec::new(),
                pubsub: PubSub::default(),
                watches: Watches::new(NUM_DBS),
                outboxes: Outboxes::default(),
                blocking: blocking::Blocking::default(),
                monitors: indexmap::IndexSet::new(),
                slowlog: slowlog::SlowLog::default(),
                pause: None,
                postponed: Default::default(),
                evictor: evict::Evictor::default(),
            },
            clients: HashMap::new(),
            next_client_id: 1,
        }
    }

    /// Sets a configuration parameter the way `redis-server --name value` does at start-up:
    /// like `CONFIG SET`, but parameters Redis marks immutable (`cluster-enabled`,
    /// `databases`) may be set too. Call it before any client connects.
    ///
    /// # Errors
    /// An unknown parameter or a value it refuses, in `CONFIG SET`'s words.
    pub fn configure(&mut self, name: &str, value: &str) -> Result<(), String> {
        let Some((canonical, param)) = config::lookup_named(name.as_bytes()) else {
            return Err(format!(
                "Unknown option or number of arguments for CONFIG SET - '{name}'"
            ));
        };
        let current = self.srv.config.get(canonical).unwrap_or("").to_string();
        let value = Config::normalize(param, value.as_bytes(), &current)?;
        self.srv.config.set_normalized(canonical, value);
        self.srv.index_slots();
        Ok(())
    }

    /// True when the engine runs as a one-node Redis Cluster (`cluster-enabled yes`): see
    /// [`cluster`].
    pub fn cluster_enabled(&self) -> bool {
        self.srv.config.cluster_enabled()
    }

    /// Connects a new client (RESP2, database 0) and returns its id.
    pub fn connect(&mut self) -> ClientId {
        self.connect_from("127.0.0.1:0", "127.0.0.1:6379")
    }

    /// Connects a new client with the given peer and local addresses (for `CLIENT LIST`).
    pub fn connect_from(&mut self, addr: &str, laddr: &str) -> ClientId {
        let id = self.next_client_id;
        self.next_client_id += 1;
        let now = self.srv.clock.now_ms();
        self.srv.stats.connections += 1;
        self.clients.insert(
            id,
            Client {
                id,
                db: 0,
                proto: 2,
                name: None,
                addr: addr.to_string(),
                laddr: laddr.to_string(),
                created_ms: now,
                last_cmd_ms: now,
                last_cmd: "NULL".to_string(),
                close_after_reply: false,
                reply_mode: ReplyMode::On,
                no_evict: false,
                multi: None,
                close_asap: false,
                authenticated: !self.srv.config.password_required(),
                readonly: false,
            },
        );
        id
    }

    /// Forgets a client: its transaction, watches, subscriptions and queued output go with
    /// it.
    pub fn disconnect(&mut self, id: ClientId) {
        self.clients.remove(&id);
        self.srv.unblock(id);
        self.srv.blocking.forget(id);
        self.srv.monitors.shift_remove(&id);
        self.srv.watches.reset(id);
        self.srv.pubsub.remove_client(id);
        self.srv.outboxes.remove(id);
    }

    /// Stops whatever `id` is waiting in, as redis-cli's Ctrl+C does by closing the
    /// connection, but keeps the client (its id, name and database): a blocked command
    /// (`BLPOP`, `XREAD BLOCK`, `WAIT`, a command held by `CLIENT PAUSE`) is dropped with no
    /// reply — it will never take data pushed later — together with what the client sent
    /// while blocked; subscriptions end without unsubscribe notices; `MONITOR` stops; output
    /// not yet taken is discarded. Returns what was stopped. **O(keys waited on +
    /// subscriptions).**
    pub fn interrupt(&mut self, id: ClientId) -> Interrupted {
        let blocked = self.srv.unblock(id).is_some();
        self.srv.blocking.forget(id);
        let subscribed = self.srv.pubsub.total(id) > 0;
        self.srv.pubsub.remove_client(id);
        let monitor = self.srv.monitors.shift_remove(&id);
        self.srv.outboxes.take(id);
        Interrupted {
            blocked,
            subscribed,
            monitor,
        }
    }

    /// The state of a connected client.
    pub fn client(&self, id: ClientId) -> Option<&Client> {
        self.clients.get(&id)
    }

    /// Whether the host should send the reply of the command it just ran for `id`, as
    /// `CLIENT REPLY` decided; call it once after each [`Engine::execute`]. It moves the
    /// skip state on: a `CLIENT REPLY SKIP` silences itself and the next command.
    pub fn reply_wanted(&mut self, id: ClientId) -> bool {
        let Some(c) = self.clients.get_mut(&id) else {
            return true;
        };
        match c.reply_mode {
            ReplyMode::On => true,
            ReplyMode::Off => false,
            ReplyMode::Skip => {
                c.reply_mode = ReplyMode::SkipThis;
                false
            }
            ReplyMode::SkipThis => {
                c.reply_mode = ReplyMode::On;
                false
            }
        }
    }

    /// Number of connected clients.
    pub fn client_count(&self) -> usize {
        self.clients.len()
    }

    /// Read access to the server state (databases, config, stats).
    pub fn server(&self) -> &Server {
        &self.srv
    }

    /// Takes the effects recorded since the last call, in order. The list of keys the
    /// server dropped among them is cleared too: take it first with [`Engine::take_dropped`].
    pub fn take_effects(&mut self) -> Vec<Effect> {
        self.srv.dropped.clear();
        std::mem::take(&mut self.srv.effects)
    }

    /// Takes the keys the server removed on its own (expired or evicted) since the effects
    /// were last taken, in order: database, key, keyspace event. Each has a `DEL` among the
    /// effects.
    pub fn take_dropped(&mut self) -> Vec<(usize, Vec<u8>, &'static str)> {
        std::mem::take(&mut self.srv.dropped)
    }

    /// Runs one command for `client` and returns its reply. Never panics on any input.
    ///
    /// Whatever else the client must receive is queued for [`Engine::take_pushes`]: the
    /// further replies of a command that replies more than once (`SUBSCRIBE a b` confirms
    /// each channel), and messages published to it. A host that sends the returned reply
    /// and then the queue sends every byte Redis would, in Redis's order — except for a
    /// RESP3 client that receives a message *during* its own command (it publishes to a
    /// channel it listens to, or writes a key it watches through keyspace events): Redis
    /// sends that message just before the reply. [`Engine::submit`] keeps that order too.
    ///
    /// A command that blocks (`BLPOP` with no data) has no reply yet: `execute` returns
    /// [`Reply::NilArray`] as a placeholder and the real reply is queued later (see
    /// [`Engine::is_blocked`]). A command for a blocked client is kept and run once it is
    /// unblocked, its replies queued; the placeholder is returned meanwhile.
    ///
    /// An unknown client id is treated as a fresh connection that is dropped afterwards.
    pub fn execute(&mut self, client: ClientId, argv: Vec<Vec<u8>>) -> Reply {
        if argv.is_empty() {
            // redis-server ignores empty multibulk requests; the hosts never send them.
            return Reply::NilArray;
        }
        if !self.clients.contains_key(&client) {
            let id = self.connect();
            let reply = self.execute(id, argv);
            self.disconnect(id);
            return reply;
        }
        if self.srv.blocking.is_blocked(client) {
            // Redis reads nothing from a blocked client: the command runs once it is
            // unblocked, and its reply is queued then.
            self.srv.blocking.defer(client, argv);
            return Reply::NilArray;
        }
        let mut replies = self.run(client, argv).into_iter();
        let first = replies.next().unwrap_or(Reply::NilArray);
        for r in replies {
            self.srv.send(client, r);
        }
        self.after_command();
        first
    }

    /// Runs one command for `client` and queues everything it must be sent, in the exact
    /// order Redis writes it: messages delivered to it while the command ran, then the
    /// command's replies (none when `CLIENT REPLY` silences them, pushes excepted). The host then sends
    /// [`Engine::take_pushes`]. This is the interface for a pipelining server: everything a
    /// connection receives, replies and pushes alike, comes out of one queue, so nothing
    /// can be reordered; a command that will reply later (a blocked `BLPOP`) simply queues
    /// nothing now. Empty commands and unknown clients are ignored.
    pub fn submit(&mut self, client: ClientId, argv: Vec<Vec<u8>>) {
        if argv.is_empty() || !self.clients.contains_key(&client) {
            return;
        }
        if self.srv.blocking.is_blocked(client) {
            self.srv.blocking.defer(client, argv);
            return;
        }
        self.submit_now(client, argv);
        self.after_command();
    }

    /// [`Engine::submit`] for a client that is not blocked, without the work that follows
    /// every command ([`Engine::after_command`]).
    fn submit_now(&mut self, client: ClientId, argv: Vec<Vec<u8>>) {
        let replies = self.run(client, argv);
        let wanted = self.reply_wanted(client);
        for r in replies {
            // Like Redis's CLIENT_PUSHING, pushes (subscription notices) are sent even when
            // CLIENT REPLY silences the replies.
            if wanted || matches!(r, Reply::Push(_)) {
                self.srv.send(client, r);
            }
        }
    }

    /// What follows every command: clients blocked on keys that received data are served
    /// (Redis's `handleClientsBlockedOnKeys`), clients unblocked meanwhile run what they
    /// sent while blocked (`processUnblockedClients`), and clients over their output limit
    /// are flagged.
    fn after_command(&mut self) {
        self.handle_ready_keys();
        while let Some(id) = self.srv.blocking.next_unblocked() {
            loop {
                let stop = self
                    .clients
                    .get(&id)
                    .is_none_or(|c| c.close_after_reply || c.close_asap)
                    || self.srv.blocking.is_blocked(id);
                if stop {
                    break;
                }
                let Some(argv) = self.srv.blocking.next_deferred(id) else {
                    break;
                };
                self.submit_now(id, argv);
                self.handle_ready_keys();
            }
        }
        self.sync_killed();
    }

    /// Serves the clients blocked on the keys that became ready, key by key in the order
    /// they became ready, each key's waiters first come first served while it has data of
    /// the kind they wait for. Serving may make more keys ready (`BLMOVE` pushes): the loop
    /// runs until none is. **O(waiters examined)** plus the cost of the pops.
    fn handle_ready_keys(&mut self) {
        while !self.srv.ready_keys.is_empty() {
            let ready = std::mem::take(&mut self.srv.ready_keys);
            for (db, key) in ready {
                for id in self.srv.blocking.waiters_of(db, &key) {
                    let now = self.srv.clock.now_ms();
                    let Some(op) = self.srv.blocking.get(id).map(|b| b.op.clone()) else {
                        continue;
                    };
                    if let blocking::BlockOp::XRead(w) = &op {
                        expire_if_needed(&mut self.srv, db, &key, now);
                        self.serve_stream_waiter(id, db, &key, w, now);
                        continue;
                    }
                    let wants_zset = op.wants_zset();
                    expire_if_needed(&mut self.srv, db, &key, now);
                    let fits = match self.srv.dbs.get(db).and_then(|d| d.get_raw(&key)) {
                        None => break,
                        Some(e) => matches!(
                            (&e.value, wants_zset),
                            (Value::List(_), false) | (Value::ZSet(_), true)
                        ),
                    };
                    if !fits {
                        continue;
                    }
                    self.serve_blocked_client(id, |srv, c, clients| {
                        cmd::blocking::serve(srv, c, clients, &op, &key, now)
                    });
                }
            }
        }
    }

    /// Serves (or fails, or leaves waiting) a client blocked reading stream `key`; see
    /// [`cmd::stream::blocked_action`].
    fn serve_stream_waiter(
        &mut self,
        id: ClientId,
        db: usize,
        key: &[u8],
        w: &blocking::XReadWait,
        now: i64,
    ) {
        match cmd::stream::blocked_action(&self.srv, db, key, w) {
            cmd::stream::BlockedAction::Wait => {}
            cmd::stream::BlockedAction::Fail(e) => {
                self.end_block(id, e.to_reply());
            }
            cmd::stream::BlockedAction::Serve(after) => {
                self.serve_blocked_client(id, |srv, c, clients| {
                    cmd::stream::serve_blocked(srv, c, clients, key, w, after, now)
                });
            }
        }
    }

    /// Unblocks `id` and runs `serve` for it as if it had just sent its command again, in
    /// the database it blocked in; sends the reply (unless `CLIENT REPLY OFF`). The one
    /// place a woken client is served, for lists, sorted sets and streams alike.
    fn serve_blocked_client(
        &mut self,
        id: ClientId,
        serve: impl FnOnce(&mut Server, &mut Client, &mut HashMap<ClientId, Client>) -> Reply,
    ) {
        let Some(blocked) = self.srv.unblock(id) else {
            return;
        };
        let Some(mut c) = self.clients.remove(&id) else {
            return;
        };
        let saved_db = std::mem::replace(&mut c.db, blocked.db);
        let started = self.srv.clock.monotonic_us();
        let reply = serve(&mut self.srv, &mut c, &mut self.clients);
        let duration = self.srv.clock.monotonic_us().saturating_sub(started).max(0);
        c.db = saved_db;
        if !blocked.argv.is_empty() {
            offer_to_slowlog(&mut self.srv, &c, &blocked.argv, duration);
        }
        let silent = c.reply_mode == ReplyMode::Off;
        self.clients.insert(id, c);
        if !silent {
            self.srv.send(id, reply);
        }
        self.srv.note_unblocked(id);
    }

    /// True if `id` is blocked (`BLPOP` & co. waiting for data).
    pub fn is_blocked(&self, id: ClientId) -> bool {
        self.srv.blocking.is_blocked(id)
    }

    /// Times out the blocked clients whose deadline has passed, replying to each what its
    /// command replies on a timeout ([`blocking::BlockOp::timeout_reply`]), ends a
    /// `CLIENT PAUSE` that ran out, then runs what those clients sent meanwhile. Returns
    /// how many timed out. Hosts call it on each tick ([`Engine::tick`] does) or when
    /// [`Engine::next_timeout_ms`] says.
    /// **O(k log n)** for k clients timed out.
    pub fn expire_blocked(&mut self) -> usize {
        let now = self.srv.clock.now_ms();
        // A CLIENT PAUSE that ran out releases the commands it held back.
        self.srv.pause_at(now);
        let ids = self.srv.blocking.timed_out(now);
        for &id in &ids {
            let reply = self
                .srv
                .blocking
                .get(id)
                .map_or(Reply::NilArray, |b| b.op.timeout_reply());
            self.end_block(id, reply);
        }
        self.after_command();
        ids.len()
    }

    /// Unblocks `id` with `reply` (a timeout or `CLIENT UNBLOCK`). False if not blocked.
    fn end_block(&mut self, id: ClientId, reply: Reply) -> bool {
        if self.srv.unblock(id).is_none() {
            return false;
        }
        if self
            .clients
            .get(&id)
            .is_some_and(|c| c.reply_mode != ReplyMode::Off)
        {
            self.srv.send(id, reply);
        }
        self.srv.note_unblocked(id);
        true
    }

    /// When the next blocked client times out or a `CLIENT PAUSE` ends: the Unix
    /// millisecond at which [`Engine::expire_blocked`] will find a deadline passed (Redis
    /// times out a client once its deadline is strictly in the past), or `None` when no
    /// client waits with a timeout and no pause is in force. A host sleeps until then at
    /// most. **O(log n).**
    pub fn next_timeout_ms(&self) -> Option<i64> {
        let pause_end = self.srv.pause.map(|p| p.end_ms);
        let blocked = self
            .srv
            .blocking
            .next_deadline()
            .map(|at| at.saturating_add(1));
        match (blocked, pause_end) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    /// True when something is queued for `client` (see [`Engine::take_pushes`]). **O(1).**
    pub fn has_pushes(&self, client: ClientId) -> bool {
        !self.srv.outboxes.is_empty(client)
    }

    /// Takes what is queued for `client`, oldest first: pub/sub messages and subscription
    /// notices ([`Reply::Push`], which RESP2 encodes as an array), the further replies of
    /// multi-reply commands, and — with [`Engine::submit`] — every reply. **O(n)** in what
    /// is returned.
    pub fn take_pushes(&mut self, client: ClientId) -> Vec<Reply> {
        self.srv.outboxes.take(client)
    }

    /// The clients with something queued for [`Engine::take_pushes`], or closed by the engine
    /// ([`Client::close_asap`]), in the order they got it. A host checks this after every
    /// command and [`Engine::tick`] (any of them may publish) to wake the right connections.
    /// **O(n)** in the clients listed.
    pub fn clients_with_pushes(&self) -> Vec<ClientId> {
        self.srv.outboxes.ready()
    }

    /// Flags the clients whose output limit was exceeded since the last call.
    fn sync_killed(&mut self) {
        for id in self.srv.outboxes.take_newly_killed() {
            if let Some(c) = self.clients.get_mut(&id) {
                c.close_asap = true;
            }
        }
    }

    /// Checks one command the way Redis's `processCommand` does, then queues it (inside
    /// MULTI) or runs it. Returns the replies in order (one for most commands).
    ///
    /// Order of checks: unknown command or subcommand, arity; then, for a client in a
    /// transaction, `NO_MULTI` commands; then, for a RESP2 client with subscriptions, the
    /// pub/sub context. A refused command inside MULTI marks the transaction
    /// ([`MultiState::dirty_exec`]); a refused `EXEC` aborts it at once.
    fn run(&mut self, id: ClientId, argv: Vec<Vec<u8>>) -> Vec<Reply> {
        let (top, cmd, fullname, pos) = match resolve(&argv) {
            Ok(r) => r,
            Err(e) => {
                let is_exec = argv
                    .first()
                    .is_some_and(|a| a.eq_ignore_ascii_case(b"exec"));
                if matches!(e, Error::WrongArity(_)) {
                    self.srv.stats.reject(&argv);
                }
                return vec![self.reject(id, e, is_exec)];
            }
        };
        let Some(c) = self.clients.get(&id) else {
            return Vec::new();
        };
        if c.close_asap {
            // Redis stops reading from a client it is about to close.
            return Vec::new();
        }
        if !c.authenticated
            && self.srv.config.password_required()
            && !cmd.flags.contains(Flags::NO_AUTH)
        {
            return vec![self.reject(id, Error::NoAuth, top.name == "exec")];
        }
        if self.srv.config.cluster_enabled() {
            if let Err(e) = self.check_slots(id, top, cmd, &argv) {
                return vec![e];
            }
        }
        let Some(c) = self.clients.get(&id) else {
            return Vec::new();
        };
        let in_multi = c.multi.is_some();
        if in_multi && cmd.flags.contains(Flags::NO_MULTI) {
            let e = Error::Err("Command not allowed inside a transaction".into());
            self.srv.stats.command(cmd, &argv, pos).rejected += 1;
            return vec![self.reject(id, e, false)];
        }
        if self.srv.config.maxmemory() > 0 {
            // Redis's processCommand: free memory first; if that fails, refuse what may
            // use more (inside MULTI, anything that would be queued; EXEC if its queue
            // holds such a command).
            let now_ms = self.srv.clock.now_ms();
            if evict::perform_evictions(&mut self.srv, now_ms) == evict::Outcome::Fail {
                const NEVER_REFUSED: &[&str] = &["exec", "discard", "quit", "reset"];
                let denyoom = cmd.flags.contains(Flags::DENYOOM)
                    || (top.name == "exec"
                        && c.multi.as_ref().is_some_and(|m| {
                            m.queue.iter().any(|q| q.cmd.flags.contains(Flags::DENYOOM))
                        }))
                    || (in_multi && !NEVER_REFUSED.contains(&top.name));
                if denyoom {
                    self.srv.stats.command(cmd, &argv, pos).rejected += 1;
                    return vec![self.reject(id, Error::OutOfMemory, top.name == "exec")];
                }
            }
        }
        const PUBSUB_ALLOWED: &[&str] = &[
            "ping",
            "subscribe",
            "ssubscribe",
            "unsubscribe",
            "sunsubscribe",
            "psubscribe",
            "punsubscribe",
            "quit",
            "reset",
        ];
        if c.proto == 2 && self.srv.pubsub.total(id) > 0 && !PUBSUB_ALLOWED.contains(&top.name) {
            let e = Error::Err(format!(
                "Can't execute '{fullname}': only (P|S)SUBSCRIBE / (P|S)UNSUBSCRIBE / PING / QUIT / RESET are allowed in this context"
            ));
            self.srv.stats.command(cmd, &argv, pos).rejected += 1;
            return vec![self.reject(id, e, top.name == "exec")];
        }
        const NOT_QUEUED: &[&str] = &["exec", "discard", "multi", "watch", "quit", "reset"];
        let now_ms = self.srv.clock.now_ms();
        if let Some(pause) = self.srv.pause_at(now_ms) {
            // Redis's processCommand: under CLIENT PAUSE the command waits (queued ones
            // too), all of them or those that may write (EXEC: if its queue writes).
            const WRITES: Flags = Flags::WRITE.union(Flags::MAY_REPLICATE);
            let writes = cmd.flags.intersects(WRITES)
                || (top.name == "exec"
                    && c.multi
                        .as_ref()
                        .is_some_and(|m| m.queue.iter().any(|q| q.cmd.flags.intersects(WRITES))));
            if pause.all || writes {
                let db = c.db;
                self.srv
                    .block(id, db, Vec::new(), None, blocking::BlockOp::Postpone);
                self.srv.blocking.defer(id, argv);
                self.srv.postponed.push_back(id);
                return Vec::new();
            }
        }
        if in_multi && !NOT_QUEUED.contains(&top.name) {
            let doomed = self.srv.watches.is_dirty(id);
            if let Some(c) = self.clients.get_mut(&id) {
                c.last_cmd_ms = now_ms;
                c.last_cmd = fullname;
                if let Some(m) = c.multi.as_mut() {
                    // Like Redis, a transaction that will fail anyway keeps nothing.
                    if !doomed && !m.dirty_exec {
                        m.queue.push(Queued { cmd, pos, argv });
                    }
                }
            }
            return vec![Reply::status("QUEUED")];
        }
        // The caller is taken out of the map for the command, so that a handler can see it
        // mutably and every other client too (`CLIENT LIST`).
        let Some(mut caller) = self.clients.remove(&id) else {
            return Vec::new();
        };
        caller.last_cmd_ms = now_ms;
        caller.last_cmd = fullname;
        let out = call_with(
            &mut self.srv,
            &mut caller,
            &mut self.clients,
            cmd,
            pos,
            argv,
            now_ms,
            false,
        );
        self.clients.insert(id, caller);
        out
    }

    /// Cluster mode's check before a command runs (Redis's `getNodeByQuery`): the keys of
    /// the command — for `EXEC`, of every queued command — must hash to one slot, or the
    /// reply is `CROSSSLOT` (inside `MULTI` the transaction is then marked to fail; at
    /// `EXEC` it is discarded). O(number of keys).
    fn check_slots(
        &mut self,
        id: ClientId,
        top: &'static Command,
        cmd: &'static Command,
        argv: &[Vec<u8>],
    ) -> Result<(), Reply> {
        let is_exec = top.name == "exec";
        let mut slot = None;
        let mut same = |key: &[u8]| {
            let s = cluster::key_slot(key);
            *slot.get_or_insert(s) == s
        };
        let ok = if is_exec {
            let queued = self.clients.get(&id).and_then(|c| c.multi.as_ref());
            queued.is_none_or(|m| {
                m.queue.iter().all(|q| {
                    q.cmd
                        .key_indexes(&q.argv)
                        .unwrap_or_default()
                        .iter()
                        .all(|&i| same(&q.argv[i]))
                })
            })
        } else {
            cmd.key_indexes(argv)
                .unwrap_or_default()
                .iter()
                .all(|&i| same(&argv[i]))
        };
        if ok {
            return Ok(());
        }
        if is_exec {
            if let Some(c) = self.clients.get_mut(&id) {
                if c.multi.take().is_some() {
                    self.srv.watches.reset(id);
                }
            }
            return Err(Error::CrossSlot.to_reply());
        }
        Err(self.reject(id, Error::CrossSlot, false))
    }

    /// Redis's `rejectCommand`: the error reply, and inside MULTI the transaction is marked
    /// to fail; a refused `EXEC` itself ends the transaction with `EXECABORT … because of:`.
    fn reject(&mut self, id: ClientId, e: Error, is_exec: bool) -> Reply {
        let Some(c) = self.clients.get_mut(&id) else {
            return e.to_reply();
        };
        let Some(m) = c.multi.as_mut() else {
            return e.to_reply();
        };
        if is_exec {
            // Redis's `execCommandAbort` quotes the reason without its `ERR ` code.
            c.multi = None;
            self.srv.watches.reset(id);
            let text = e.to_string();
            let reason = text.strip_prefix("ERR ").unwrap_or(&text);
            return Error::Coded(format!(
                "EXECABORT Transaction discarded because of: {reason}"
            ))
            .to_reply();
        }
        m.dirty_exec = true;
        e.to_reply()
    }

    /// Runs one active-expiry cycle, modelled on Redis 7.0's `activeExpireCycle` (the slow
    /// cycle, at the default `active-expire-effort 1`), and returns the number of keys it
    /// removed. The host calls this every 100 ms (`hz 10`).
    ///
    /// For each database with volatile keys, one *round* examines up to 20 of them,
    /// walking the volatile set from where the previous round stopped (Redis walks its
    /// `expires` table with `expires_cursor`; it does not pick at random), and removes those
    /// whose deadline has passed. Rounds repeat while more than 10% of the keys examined
    /// were expired. Redis stops a cycle after 25% of the tick's time; to stay
    /// deterministic we bound the work instead: at most 16 rounds (320 keys) per database
    /// per call. A database with at most 20 volatile keys is therefore swept completely by
    /// one call. Every removal records a `DEL` effect and counts in `expired_keys`, exactly
    /// as a lazy expiry does.
    pub fn tick(&mut self) -> usize {
        const MAX_ROUNDS: usize = 16;
        const ACCEPTABLE_STALE_PERCENT: usize = 10;
        let now = self.srv.clock.now_ms();
        let mut removed = 0;
        if self.srv.pause_at(now).is_some() {
            // Keys do not expire actively during CLIENT PAUSE, as in Redis.
            self.expire_blocked();
            return 0;
        }
        for db in 0..self.srv.dbs.len() {
            if self.srv.dbs[db].volatile_len() == 0 {
                self.srv.dbs[db].avg_ttl = 0;
                continue;
            }
            for _ in 0..MAX_ROUNDS {
                let (sampled, expired, ttl) = active_expire_round(&mut self.srv, db, now);
                removed += expired;
                if let Some(avg) = ttl {
                    // Redis's running estimate for INFO keyspace's avg_ttl: 2% of this
                    // round's average, 98% of the previous estimate.
                    let d = &mut self.srv.dbs[db];
                    if d.avg_ttl == 0 {
                        d.avg_ttl = avg;
                    }
                    d.avg_ttl = (d.avg_ttl / 50) * 49 + avg / 50;
                }
                if sampled == 0 || expired * 100 / sampled <= ACCEPTABLE_STALE_PERCENT {
                    break;
                }
            }
        }
        self.expire_blocked();
        removed
    }
}

/// Looks a command up as Redis's `lookupCommand` + `commandCheckArity` do: returns the
/// top-level row, the row that runs (a subcommand's for containers), its full name
/// (`config|get`) and where its arguments start; or the error reply's error.
fn resolve(argv: &[Vec<u8>]) -> Result<(&'static Command, &'static Command, String, usize), Error> {
    let Some(name) = argv.first() else {
        return Err(Error::Syntax);
    };
    let Some(top) = table::lookup(name) else {
        // Redis formats these with `%s`, so each stops at its first NUL byte.
        return Err(Error::UnknownCommand {
            name: error::c_str(name),
            args: argv[1..].iter().map(|a| error::c_str(a)).collect(),
        });
    };
    let (cmd, fullname, pos) = if top.subcommands.is_empty() {
        (top, top.name.to_string(), 1)
    } else if argv.len() < 2 && top.handler.is_some() {
        // A container that also works alone (`COMMAND`).
        (top, top.name.to_string(), 1)
    } else if argv.len() < 2 {
        return Err(Error::WrongArity(top.name.to_string()));
    } else {
        match top.subcommand(&argv[1]) {
            Some(sub) => (sub, format!("{}|{}", top.name, sub.name), 2),
            None => {
                return Err(Error::UnknownSubcommand {
                    command: error::c_str(name),
                    sub: error::c_str(&argv[1]),
                })
            }
        }
    };
    if !cmd.arity_ok(argv.len()) || cmd.handler.is_none() {
        return Err(Error::WrongArity(fullname));
    }
    Ok((top, cmd, fullname, pos))
}

/// Runs one resolved command (Redis's `call`): the handler, then the bookkeeping every
/// command gets — statistics, modified keys signalled to WATCH (see
/// [`Ctx::signal_modified`]), the effect recorded. Returns the replies in order: the
/// handler's, then those it queued with [`Ctx::also_reply`]. `EXEC` calls this for each
/// queued command with `deny_blocking`.
#[allow(clippy::too_many_arguments)]
pub(crate) fn call_with(
    srv: &mut Server,
    client: &mut Client,
    others: &mut HashMap<ClientId, Client>,
    cmd: &'static Command,
    pos: usize,
    argv: Vec<Vec<u8>>,
    now_ms: i64,
    deny_blocking: bool,
) -> Vec<Reply> {
    call_inner(
        srv,
        client,
        others,
        cmd,
        pos,
        argv,
        now_ms,
        deny_blocking,
        true,
    )
}

/// [`call_with`], choosing whether `MONITOR` clients see the command and `INFO
/// commandstats` counts it: a blocked client's late service runs its non-blocking
/// equivalent unseen and uncounted, as in Redis, which showed the blocking command when it
/// was called. A handler that blocks (or replies nothing) returns
/// no reply.
#[allow(clippy::too_many_arguments)]
pub(crate) fn call_inner(
    srv: &mut Server,
    client: &mut Client,
    others: &mut HashMap<ClientId, Client>,
    cmd: &'static Command,
    pos: usize,
    argv: Vec<Vec<u8>>,
    now_ms: i64,
    deny_blocking: bool,
    monitored: bool,
) -> Vec<Reply> {
    let Some(handler) = cmd.handler else {
        return vec![Error::WrongArity(cmd.name.to_string()).to_reply()];
    };
    srv.stats.commands += 1;
    let mut ctx = Ctx {
        srv,
        client,
        others,
        now_ms,
        dirty: 0,
        propagate: None,
        replies: Vec::new(),
        signalled: false,
        wakes_blocked: true,
        deny_blocking,
        no_reply: false,
    };
    let mut args = Args::new(argv, pos);
    let started = ctx.srv.clock.monotonic_us();
    let reply = match handler(&mut ctx, &mut args) {
        Ok(r) => r,
        Err(e) => e.to_reply(),
    };
    if monitored {
        let duration = ctx.srv.clock.monotonic_us().saturating_sub(started).max(0);
        // A blocked client's late service is not a call of the equivalent command: BRPOP
        // was counted when it was called (Redis counts it when it is unblocked).
        let stat = ctx.srv.stats.command(cmd, args.argv(), pos);
        stat.calls += 1;
        stat.failed += u64::from(reply.is_error());
        stat.usec = stat.usec.saturating_add(duration as u64);
        let (slower_than, _) = ctx.srv.config.slowlog();
        if ctx.srv.blocking.is_blocked(ctx.client.id) {
            // Logged when it is served (see Engine::serve_blocked_client).
            if slower_than >= 0 {
                ctx.srv.blocking.keep_argv(ctx.client.id, args.argv());
            }
        } else if !cmd.flags.contains(Flags::SKIP_SLOWLOG) {
            offer_to_slowlog(ctx.srv, ctx.client, args.argv(), duration);
        }
    }
    let Ctx {
        srv,
        dirty,
        propagate,
        client: c,
        replies,
        signalled,
        wakes_blocked,
        no_reply,
        ..
    } = ctx;
    let db = c.db;
    if monitored
        && !srv.monitors.is_empty()
        && !cmd
            .flags
            .intersects(Flags::ADMIN.union(Flags::SKIP_MONITOR))
    {
        cmd::connection::feed_monitors(srv, c, args.argv());
    }
    if dirty > 0 && !signalled {
        let argv = args.argv();
        for p in cmd.key_positions(argv.len()) {
            if let Some(key) = argv.get(p) {
                if wakes_blocked {
                    srv.signal_modified(db, key);
                } else {
                    srv.touch_watchers(db, key);
                }
            }
        }
    }
    srv.dirty += dirty;
    if dirty > 0 || propagate.as_ref().is_some_and(|p| !p.is_empty()) {
        match propagate {
            Some(effects) => srv.effects.extend(effects),
            None if cmd.flags.contains(Flags::WRITE) => srv.effects.push(Effect {
                db,
                argv: args.into_argv(),
            }),
            None => {}
        }
    }
    let mut out = Vec::with_capacity(1 + replies.len());
    if !no_reply {
        out.push(reply);
    }
    out.extend(replies);
    out
}

/// Offers a command that ran for `duration_us` to the slow log, which keeps it if it
/// reached `slowlog-log-slower-than` (see [`slowlog`]). The arguments are copied and
/// redacted only then.
fn offer_to_slowlog(srv: &mut Server, client: &Client, argv: &[Vec<u8>], duration_us: i64) {
    let (slower_than, max_len) = srv.config.slowlog();
    if slower_than < 0 || duration_us < slower_than {
        return;
    }
    let redacted = cmd::connection::redacted(argv);
    let entry = slowlog::Command {
        argv,
        redacted: &redacted,
        duration_us,
        time_s: srv.clock.now_ms().div_euclid(1000),
        peer: &client.addr,
        name: client.name.as_deref(),
    };
    srv.slowlog.offer(&entry, slower_than, max_len);
}

/// One round of active expiry in database `db`: examines up to 20 distinct volatile keys,
/// starting at the database's `expire_cursor` and wrapping around once, removing the
/// expired ones. Returns `(examined, removed, the average TTL in ms of the keys examined
/// that had not expired)`, the last `None` when there were none.
///
/// Removal is a `swap_remove`: the last volatile key moves into the hole. Before the walk
/// wraps, that key lies ahead of the cursor and has not been examined, so the same position
/// is looked at again; after the wrap it was examined already, so the walk moves on. Each
/// key is thus examined at most once per round.
fn active_expire_round(srv: &mut Server, db: usize, now: i64) -> (usize, usize, Option<i64>) {
    const KEYS_PER_ROUND: usize = 20;
    let len = srv.dbs[db].volatile_len();
    let want = len.min(KEYS_PER_ROUND);
    let mut pos = srv.dbs[db].expire_cursor;
    if pos >= len {
        pos = 0;
    }
    let start = pos;
    let mut wrapped = false;
    let (mut sampled, mut expired) = (0, 0);
    let (mut ttl_sum, mut ttl_samples) = (0i64, 0i64);
    while sampled < want {
        if pos >= srv.dbs[db].volatile_len() {
            if wrapped || start == 0 {
                break;
            }
            pos = 0;
            wrapped = true;
        }
        let Some(key) = srv.dbs[db].volatile_key_at(pos).cloned() else {
            break;
        };
        sampled += 1;
        let ttl = srv.dbs[db]
            .get_raw(&key)
            .and_then(|e| e.expire_at)
            .map_or(0, |t| t.saturating_sub(now));
        if ttl > 0 {
            ttl_sum = ttl_sum.saturating_add(ttl);
            ttl_samples += 1;
        }
        if expire_if_needed(srv, db, &key, now) {
            expired += 1;
            if wrapped {
                pos += 1;
            }
        } else {
            pos += 1;
        }
    }
    srv.dbs[db].expire_cursor = pos;
    let avg = (ttl_samples > 0).then(|| ttl_sum / ttl_samples);
    (sampled, expired, avg)
}
