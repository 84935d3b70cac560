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

pub mod args;
pub mod cli;
pub mod clock;
pub mod cmd;
pub mod config;
pub mod error;
pub mod glob;
pub mod keyspace;
pub mod longdouble;
pub mod reply;
pub mod scan;
pub mod table;
pub mod types;

use std::collections::HashMap;

#[cfg(not(target_arch = "wasm32"))]
pub use clock::SystemClock;
pub use clock::{Clock, FnClock, ManualClock};
pub use error::{CmdResult, Error};
pub use reply::Reply;

use args::Args;
use keyspace::{Db, Entry, Key};
use table::Flags;
use types::Value;

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
    /// Canonical parameter name → its normalised value, as `CONFIG GET` shows it.
    pub values: std::collections::BTreeMap<String, String>,
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
    /// Lookups that found a key.
    pub keyspace_hits: u64,
    /// Lookups that found nothing.
    pub keyspace_misses: u64,
    /// Unix milliseconds when the engine started.
    pub start_ms: i64,
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
    /// Identifier of this run (`run_id` in INFO).
    pub run_id: String,
    /// Keys, per database, that some client is blocked on (`BLPOP` & co.; filled by the
    /// blocking commands). Redis's `db->blocking_keys`.
    pub blocking_keys: std::collections::HashSet<(usize, Key)>,
    /// Keys that received elements while a client was blocked on them, in the order they
    /// became ready, for the engine to serve waiters after the command (Redis's
    /// `server.ready_keys`). See [`Ctx::signal_ready`].
    pub ready_keys: Vec<(usize, Key)>,
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

    /// Looks up `key` for reading: lazily expires it, counts a hit or miss, touches its
    /// access time. **O(1).**
    pub fn lookup_read(&mut self, key: &[u8]) -> Option<&Value> {
        self.expire_if_needed(key);
        let now = self.now_ms;
        let idx = self.client.db;
        let srv = &mut *self.srv;
        match srv.dbs[idx].get_raw_mut(key) {
            Some(e) => {
                srv.stats.keyspace_hits += 1;
                e.accessed_ms = now;
                Some(&e.value)
            }
            None => {
                srv.stats.keyspace_misses += 1;
                None
            }
        }
    }

    /// Looks up `key` for reading without touching its access time, as Redis's
    /// `LOOKUP_NOTOUCH` lookups (`TTL`, `EXISTS`, `TYPE`, `OBJECT`): lazily expires it and
    /// counts a hit or miss. **O(1).**
    pub fn lookup_read_notouch(&mut self, key: &[u8]) -> Option<&Entry> {
        self.expire_if_needed(key);
        let idx = self.client.db;
        let srv = &mut *self.srv;
        match srv.dbs[idx].get_raw(key) {
            Some(e) => {
                srv.stats.keyspace_hits += 1;
                Some(e)
            }
            None => {
                srv.stats.keyspace_misses += 1;
                None
            }
        }
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
        let e = self.db().get_raw_mut(key)?;
        e.accessed_ms = now;
        Some(e)
    }

    /// True if `key` exists (after lazy expiry), without counting a hit or miss.
    pub fn exists(&mut self, key: &[u8]) -> bool {
        self.expire_if_needed(key);
        self.db().get_raw(key).is_some()
    }

    /// Stores `value` at `key`, replacing what was there; the deadline is cleared unless
    /// `keep_ttl`. Counts one change.
    pub fn set_value(&mut self, key: Key, value: Value, keep_ttl: bool) {
        self.expire_if_needed(&key);
        let now = self.now_ms;
        self.db().set(key, value, keep_ttl, now);
        self.dirty += 1;
    }

    /// Deletes `key` (after lazy expiry). Returns true if it existed. Counts one change.
    pub fn delete(&mut self, key: &[u8]) -> bool {
        self.expire_if_needed(key);
        let removed = self.db().remove(key).is_some();
        if removed {
            self.dirty += 1;
        }
        removed
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
        if self.srv.blocking_keys.is_empty() {
            return;
        }
        let entry = (self.client.db, key.to_vec());
        if self.srv.blocking_keys.contains(&entry) && !self.srv.ready_keys.contains(&entry) {
            self.srv.ready_keys.push(entry);
        }
    }

    /// Random integer in `0..n` from the engine's seeded generator (`n` > 0).
    pub fn random_below(&mut self, n: usize) -> usize {
        self.srv.rng.usize(0..n.max(1))
    }
}

/// Removes `key` from database `db` if expired at `now_ms`, recording a `DEL` effect.
fn expire_if_needed(srv: &mut Server, db: usize, key: &[u8], now_ms: i64) -> bool {
    if !srv.dbs[db].is_expired(key, now_ms) {
        return false;
    }
    srv.dbs[db].remove(key);
    srv.stats.expired_keys += 1;
    srv.effects.push(Effect {
        db,
        argv: vec![b"DEL".to_vec(), key.to_vec()],
    });
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
                run_id,
                blocking_keys: Default::default(),
                ready_keys: Vec::new(),
            },
            clients: HashMap::new(),
            next_client_id: 1,
        }
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
            },
        );
        id
    }

    /// Forgets a client.
    pub fn disconnect(&mut self, id: ClientId) {
        self.clients.remove(&id);
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

    /// Takes the effects recorded since the last call, in order.
    pub fn take_effects(&mut self) -> Vec<Effect> {
        std::mem::take(&mut self.srv.effects)
    }

    /// Runs one command for `client` and returns its reply. Never panics on any input.
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
        let Some(cmd) = table::lookup(&argv[0]) else {
            // Redis formats these with `%s`, so each stops at its first NUL byte.
            let c_str = |a: &[u8]| {
                let end = a.iter().position(|&b| b == 0).unwrap_or(a.len());
                String::from_utf8_lossy(&a[..end]).into_owned()
            };
            return Error::UnknownCommand {
                name: c_str(&argv[0]),
                args: argv[1..].iter().map(|a| c_str(a)).collect(),
            }
            .to_reply();
        };
        let (cmd, fullname, pos) = if cmd.subcommands.is_empty() {
            (cmd, cmd.name.to_string(), 1)
        } else if argv.len() < 2 && cmd.handler.is_some() {
            // A container that also works alone (`COMMAND`).
            (cmd, cmd.name.to_string(), 1)
        } else if argv.len() < 2 {
            return Error::WrongArity(cmd.name.to_string()).to_reply();
        } else {
            match cmd.subcommand(&argv[1]) {
                Some(sub) => (sub, format!("{}|{}", cmd.name, sub.name), 2),
                None => {
                    return Error::UnknownSubcommand {
                        command: String::from_utf8_lossy(&argv[0]).into_owned(),
                        sub: String::from_utf8_lossy(&argv[1]).into_owned(),
                    }
                    .to_reply()
                }
            }
        };
        if !cmd.arity_ok(argv.len()) {
            return Error::WrongArity(fullname).to_reply();
        }
        let Some(handler) = cmd.handler else {
            return Error::WrongArity(fullname).to_reply();
        };

        let now_ms = self.srv.clock.now_ms();
        // The caller is taken out of the map for the command, so that a handler can see it
        // mutably and every other client too (`CLIENT LIST`).
        let Some(mut caller) = self.clients.remove(&client) else {
            return Reply::NilArray;
        };
        let c = &mut caller;
        c.last_cmd_ms = now_ms;
        c.last_cmd = fullname;
        self.srv.stats.commands += 1;
        let mut ctx = Ctx {
            srv: &mut self.srv,
            client: c,
            others: &mut self.clients,
            now_ms,
            dirty: 0,
            propagate: None,
        };
        let mut args = Args::new(argv, pos);
        let reply = match handler(&mut ctx, &mut args) {
            Ok(r) => r,
            Err(e) => e.to_reply(),
        };
        let Ctx {
            dirty,
            propagate,
            client: c,
            ..
        } = ctx;
        let db = c.db;
        self.srv.dirty += dirty;
        if dirty > 0 || propagate.as_ref().is_some_and(|p| !p.is_empty()) {
            match propagate {
                Some(effects) => self.srv.effects.extend(effects),
                None if cmd.flags.contains(Flags::WRITE) => self.srv.effects.push(Effect {
                    db,
                    argv: args.into_argv(),
                }),
                None => {}
            }
        }
        self.clients.insert(client, caller);
        reply
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
        for db in 0..self.srv.dbs.len() {
            for _ in 0..MAX_ROUNDS {
                let (sampled, expired) = active_expire_round(&mut self.srv, db, now);
                removed += expired;
                if sampled == 0 || expired * 100 / sampled <= ACCEPTABLE_STALE_PERCENT {
                    break;
                }
            }
        }
        removed
    }
}

/// One round of active expiry in database `db`: examines up to 20 distinct volatile keys,
/// starting at the database's `expire_cursor` and wrapping around once, removing the
/// expired ones. Returns `(examined, removed)`.
///
/// Removal is a `swap_remove`: the last volatile key moves into the hole. Before the walk
/// wraps, that key lies ahead of the cursor and has not been examined, so the same position
/// is looked at again; after the wrap it was examined already, so the walk moves on. Each
/// key is thus examined at most once per round.
fn active_expire_round(srv: &mut Server, db: usize, now: i64) -> (usize, usize) {
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
    (sampled, expired)
}
