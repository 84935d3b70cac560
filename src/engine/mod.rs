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
//! command table's key positions), and [`Ctx::notify`] publishes keyspace events. The same
//! signal tells clients that cached a key (`CLIENT TRACKING`, [`tracking`]).

//!
//! # Layout, bottom-up
//! Nothing below calls above. Types ([`types`]) and the keyspace ([`keyspace`]) at the
//! bottom, with the small pieces they use ([`num`], [`glob`], [`clock`], [`reply`],
//! [`error`], [`args`]); then the table's row type ([`table::row`], [`table::keyspec`]); then
//! the core ([`core`]: client, server state, context, dispatch, expiry, memory accounting,
//! eviction's run, monitor, blocked service) with the server-wide pieces it holds
//! ([`watch`], [`pubsub`], [`tracking`], [`outbox`], [`blocking`], [`slowlog`], [`evict`], [`config`]);
//! then the command groups ([`cmd`]); then the rows ([`table::TABLE`]); and this file, the
//! facade, whose [`Engine::new`] builds an engine over that table. [`inspect`], [`export`]
//! and [`snapshot`] read the engine from beside the facade.

pub mod acl;
pub mod alloc;
pub mod args;
pub mod blocking;
pub mod busy;
pub mod cli;
pub mod clock;
pub mod cluster;
pub mod cmd;
pub mod codec;
pub mod config;
pub mod core;
pub mod error;
pub mod evict;
pub mod export;
pub mod functions;
pub mod glob;
pub mod inspect;
pub mod json;
pub mod keyspace;
pub mod latency;
pub mod longdouble;
pub mod num;
pub mod outbox;
pub mod pubsub;
pub mod rdb;
pub mod reply;
pub mod scan;
pub mod scripting;
pub mod slowlog;
pub mod snapshot;
pub mod splitargs;
pub mod table;
#[cfg(test)]
pub mod testing;
pub mod tracking;
pub mod types;
pub mod watch;

#[cfg(not(target_arch = "wasm32"))]
pub use clock::SystemClock;
pub use clock::{Clock, FnClock, ManualClock, SteadyClock};
pub use error::{CmdResult, Error};
pub use reply::Reply;

pub use self::core::client::{Client, ClientId, Interrupted, MultiState, Queued, ReplyMode};
pub use self::core::ctx::Ctx;
pub use self::core::engine::Engine;
pub use self::core::server::{Effect, Pause, Server, NUM_DBS};
pub use self::core::state::{CommandStats, Config, Stats};

impl Engine {
    /// A fresh engine with 16 empty databases, reading time from `clock` and drawing random
    /// numbers from a generator seeded with `seed`, over the engine's command table
    /// ([`table::TABLE`]) and blocking families ([`table::WAITERS`]).
    pub fn new(clock: Box<dyn Clock>, seed: u64) -> Engine {
        Engine::with_table(clock, seed, &table::TABLE, table::WAITERS)
    }
}
