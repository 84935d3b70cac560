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
pub mod error;
pub mod glob;
pub mod keyspace;
pub mod reply;
pub mod scan;
pub mod table;
pub mod types;

use foldhash::{HashMap, HashMapExt};

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
}

/// Configuration parameters the engine understands (`CONFIG GET/SET`).
#[derive(Debug, Clone)]
pub struct Config {
    /// Parameter → value text, for parameters that are only stored and reported.
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
}

/// What a handler sees: the server and the calling client.
pub struct Ctx<'a> {
    /// Server state.
    pub srv: &'a mut Server,
    /// The calling client.
    pub client: &'a mut Client,
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
                config: Config {
                    values: cmd::server::default_config(),
                },
                stats: Stats {
                    start_ms,
                    ..Stats::default()
                },
                dirty: 0,
                effects: Vec::new(),
                run_id,
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
            return Error::UnknownCommand {
                name: String::from_utf8_lossy(&argv[0]).into_owned(),
                args: argv[1..]
                    .iter()
                    .map(|a| String::from_utf8_lossy(a).into_owned())
                    .collect(),
            }
            .to_reply();
        };
        let (cmd, fullname, pos) = if cmd.subcommands.is_empty() {
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
        let Some(c) = self.clients.get_mut(&client) else {
            return Reply::NilArray;
        };
        c.last_cmd_ms = now_ms;
        c.last_cmd = fullname;
        self.srv.stats.commands += 1;
        let mut ctx = Ctx {
            srv: &mut self.srv,
            client: c,
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
        reply
    }

    /// Runs one active-expiry cycle, as Redis's `activeExpireCycle` does on each tick: for
    /// each database, sample up to 20 volatile keys, remove the expired ones, and repeat
    /// while more than a quarter of a sample was expired, up to a bounded amount of work.
    /// Returns the number of keys removed. The host calls this every 100 ms (`hz 10`).
    pub fn tick(&mut self) -> usize {
        const SAMPLE: usize = 20;
        const MAX_ROUNDS: usize = 16;
        let now = self.srv.clock.now_ms();
        let mut removed = 0;
        for db in 0..self.srv.dbs.len() {
            for _ in 0..MAX_ROUNDS {
                let n = self.srv.dbs[db].volatile_len();
                if n == 0 {
                    break;
                }
                let mut expired = 0;
                let samples = SAMPLE.min(n);
                for _ in 0..samples {
                    let n = self.srv.dbs[db].volatile_len();
                    if n == 0 {
                        break;
                    }
                    let i = self.srv.rng.usize(0..n);
                    let Some(key) = self.srv.dbs[db].volatile_key_at(i).cloned() else {
                        break;
                    };
                    if expire_if_needed(&mut self.srv, db, &key, now) {
                        expired += 1;
                    }
                }
                removed += expired;
                if expired * 4 <= samples {
                    break;
                }
            }
        }
        removed
    }
}
