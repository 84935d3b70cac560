//! The engine: server state plus connected clients, and the host interface — connect,
//! run commands, drain what each client is owed, tick. Dispatch of one command is in
//! [`super::dispatch`], the service of blocked clients in [`super::blocked`].

use foldhash::{HashMap, HashMapExt};

use crate::engine::blocking;
use crate::engine::clock::Clock;
use crate::engine::config;
use crate::engine::evict;
use crate::engine::keyspace::Db;
use crate::engine::latency::Latency;
use crate::engine::outbox::Outboxes;
use crate::engine::pubsub::PubSub;
use crate::engine::reply::Reply;
use crate::engine::slowlog;
use crate::engine::watch::Watches;

use super::client::{Client, ClientId, Interrupted, ReplyMode};
use super::ctx::Table;
use super::expire::active_expire_round;
use super::server::{Effect, Server, NUM_DBS};
use super::state::{Config, Stats};
use super::waiters::Waiters;

/// The engine: server state plus connected clients.
pub struct Engine {
    pub(crate) srv: Server,
    pub(crate) clients: HashMap<ClientId, Box<Client>>,
    /// The box a client's entry holds while its command runs (see [`super::others`]);
    /// `None` while in use.
    pub(super) spare: Option<Box<Client>>,
    pub(super) next_client_id: ClientId,
    /// The command table dispatch reads (injected by [`Engine::new`]).
    pub(super) table: &'static Table,
    /// The blocking families that serve clients blocked on keys (see [`super::blocked`]).
    pub(super) waiters: &'static [&'static dyn Waiters],
}

impl Engine {
    /// The command table this engine dispatches through.
    pub fn table(&self) -> &'static Table {
        self.table
    }

    /// A fresh engine with 16 empty databases, reading time from `clock`, drawing random
    /// numbers from a generator seeded with `seed`, dispatching through `table` and serving
    /// blocked clients through `waiters`. [`Engine::new`] passes the engine's own table.
    pub fn with_table(
        clock: Box<dyn Clock>,
        seed: u64,
        table: &'static Table,
        waiters: &'static [&'static dyn Waiters],
    ) -> Engine {
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
                record_effects: true,
                dropped: Vec::new(),
                run_id,
                blocking_keys: Default::default(),
                ready_keys: Vec::new(),
                pubsub: PubSub::default(),
                watches: Watches::new(NUM_DBS),
                tracking: Default::default(),
                outboxes: Outboxes::default(),
                blocking: blocking::Blocking::default(),
                monitors: indexmap::IndexSet::new(),
                slowlog: slowlog::SlowLog::default(),
                latency: Default::default(),
                pause: None,
                postponed: Default::default(),
                evictor: evict::Evictor::default(),
                scripts: Default::default(),
                running: None,
                debug_next: None,
                functions: Default::default(),
                log: Default::default(),
                host: Default::default(),
                peak_memory: Default::default(),
                relisten: None,
                persist: super::persist::Persist::new(start_ms),
                acl: crate::engine::acl::Users::new(table),
                debug: Default::default(),
            },
            clients: HashMap::new(),
            spare: Some(Box::new(Client::new(0, "", "", start_ms, false))),
            next_client_id: 1,
            table,
            waiters,
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
        if canonical == "requirepass" {
            let pass = self.srv.config.get("requirepass").unwrap_or("").to_string();
            self.srv.acl.set_requirepass(&pass);
        }
        self.srv.index_slots();
        Ok(())
    }

    /// Records the host's query buffer of client `id`: `len` bytes in it, `free` more it has
    /// room for (`qbuf` and `qbuf-free` in `CLIENT LIST`; see
    /// [`Client::qbuf`](crate::engine::Client)).
    pub fn note_query_buffer(&mut self, id: ClientId, len: usize, free: usize) {
        if let Some(c) = self.clients.get_mut(&id) {
            c.qbuf = (len, free);
        }
    }

    /// Lets `CONFIG SET port` and `bind` move the host's listening sockets (see
    /// [`Relisten`](crate::engine::core::server::Relisten)); without it they only store the
    /// value.
    pub fn set_relisten(&mut self, relisten: super::server::Relisten) {
        self.srv.relisten = Some(relisten);
    }

    /// True when the engine runs as a one-node Redis Cluster (`cluster-enabled yes`): see
    /// [`cluster`](crate::engine::cluster).
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
        let authenticated = !self.srv.acl.auth_required();
        self.clients.insert(
            id,
            Box::new(Client::new(id, addr, laddr, now, authenticated)),
        );
        self.srv.tracking.set_proto(id, 2);
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
        self.srv.tracking.forget(id);
        self.srv.outboxes.remove(id);
    }

    /// Stops whatever `id` is waiting in, as redis-cli's Ctrl+C does by closing the
    /// connection, but keeps the client (its id, name and database): a blocked command
    /// (`BLPOP`, `XREAD BLOCK`, `WAIT`, a command held by `CLIENT PAUSE`) is dropped with no
    /// reply — it will never take data pushed later — together with what the client sent
    /// while blocked; subscriptions end without unsubscribe notices; `MONITOR` stops; output
    /// not yet taken is discarded. Returns what was stopped. **O(keys waited on +
    /// subscriptions).**
    ///
    /// A client waiting for its own script asks the script to stop, as `SCRIPT KILL`
    /// (or `FUNCTION KILL`) would, and keeps waiting for the reply, which comes with the
    /// script's next slice ([`Engine::resume_script`]); `script` tells, and a script that
    /// wrote cannot be stopped.
    pub fn interrupt(&mut self, id: ClientId) -> Interrupted {
        if let Some(r) = self.srv.running.as_mut().filter(|r| r.caller == id) {
            let eval = r.eval;
            return Interrupted {
                script: Some(r.kill(eval).is_ok()),
                ..Interrupted::default()
            };
        }
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
            script: None,
        }
    }

    /// The state of a connected client.
    pub fn client(&self, id: ClientId) -> Option<&Client> {
        self.clients.get(&id).map(|c| &**c)
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

    /// Tells the engine what it cannot see of its process: the allocator the binary links
    /// and how to read the resident size (`INFO memory`'s `mem_allocator`,
    /// `used_memory_rss`). kvlab-server calls it; the browser build's defaults are its own.
    pub fn set_host_facts(&mut self, facts: crate::engine::core::memory::HostFacts) {
        self.srv.host = facts;
    }

    /// Read access to the server state (databases, config, stats).
    pub fn server(&self) -> &Server {
        &self.srv
    }

    /// Takes the effects recorded since the last call, in order. The list of keys the
    /// server dropped among them is cleared too: take it first with [`Engine::take_dropped`].
    ///
    /// A script that paused keeps its effects until it ends: they come out together, as
    /// one transaction, never half of them.
    pub fn take_effects(&mut self) -> Vec<Effect> {
        self.srv.dropped.clear();
        match self.srv.running.as_mut() {
            Some(r) => {
                let first = r.first_effect.min(self.srv.effects.len());
                let kept = self.srv.effects.split_off(first);
                r.first_effect = 0;
                std::mem::replace(&mut self.srv.effects, kept)
            }
            None => std::mem::take(&mut self.srv.effects),
        }
    }

    /// Turns the recording of effects on (the default) or off. A host that neither
    /// persists nor replicates them (the native server, which saves snapshots) turns it
    /// off: every write's arguments are then freed as the command ends, not kept until the
    /// host takes them — which, at 160,000 writes a second, is a working set of several
    /// megabytes cycling through the allocator. Turning it off drops what was recorded.
    pub fn set_record_effects(&mut self, on: bool) {
        self.srv.record_effects = on;
        if !on {
            self.srv.effects = Vec::new();
            self.srv.dropped = Vec::new();
            if let Some(r) = self.srv.running.as_mut() {
                r.first_effect = 0;
            }
        }
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
        let Some(argv) = self.hold_for_script(client, argv) else {
            return Reply::NilArray;
        };
        let outside = self.begin_tracked_command(client, &argv);
        let mut replies = self.run(client, argv, &mut None).into_iter();
        let first = replies.next().unwrap_or(Reply::NilArray);
        for r in replies {
            self.srv.send(client, r);
        }
        self.end_tracked_command(client, outside);
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
        let Some(argv) = self.hold_for_script(client, argv) else {
            return;
        };
        self.submit_now(client, argv);
        self.after_command();
    }

    /// While a script that paused has not reached `busy-reply-threshold`, another client's
    /// command waits, as Redis leaves it unread ([`crate::engine::busy`]): the client is
    /// blocked with it deferred, and `None` returned. Otherwise the command is handed back.
    #[inline]
    fn hold_for_script(&mut self, client: ClientId, argv: Vec<Vec<u8>>) -> Option<Vec<Vec<u8>>> {
        if self.srv.running.is_none() {
            // No script: every command's path, kept inline.
            return Some(argv);
        }
        self.hold_for_running_script(client, argv)
    }

    /// [`Engine::hold_for_script`] while a script runs.
    fn hold_for_running_script(
        &mut self,
        client: ClientId,
        argv: Vec<Vec<u8>>,
    ) -> Option<Vec<Vec<u8>>> {
        let Some(r) = self.srv.running.as_mut() else {
            return Some(argv);
        };
        if r.timed_out || r.caller == client {
            return Some(argv);
        }
        r.waiters.push(client);
        let db = self.clients.get(&client).map_or(0, |c| c.db);
        self.srv
            .block(client, db, Vec::new(), None, blocking::BlockOp::Script);
        self.srv.blocking.defer(client, argv);
        None
    }

    /// [`Engine::submit`] for a host that encodes replies itself: when nothing else waits in
    /// `client`'s queue once the command has run, and its output class has no
    /// `client-output-buffer-limit` to enforce, the command's replies are encoded straight
    /// into `out` in the client's protocol instead of being queued and drained one by one.
    /// Otherwise they are queued exactly as by [`Engine::submit`]. Either way the host then
    /// drains the queue into `out` ([`Engine::drain_pushes`]): the bytes and their order
    /// are those of `submit` followed by a drain. `CLIENT LIST`'s reply buffer peak counts
    /// the bytes written here (as encoded; queued replies count their RESP2 length).
    pub fn submit_into(&mut self, client: ClientId, argv: Vec<Vec<u8>>, out: &mut Vec<u8>) {
        if argv.is_empty() || !self.clients.contains_key(&client) {
            return;
        }
        if self.srv.blocking.is_blocked(client) {
            self.srv.blocking.defer(client, argv);
            return;
        }
        let Some(argv) = self.hold_for_script(client, argv) else {
            return;
        };
        self.submit_now_into(client, argv, Some(out));
        self.after_command();
    }

    /// [`Engine::submit`] for a client that is not blocked, without the work that follows
    /// every command ([`Engine::after_command`]).
    pub(super) fn submit_now(&mut self, client: ClientId, argv: Vec<Vec<u8>>) {
        self.submit_now_into(client, argv, None);
    }

    /// [`Engine::submit_now`], writing the replies into `out` where
    /// [`Engine::submit_into`] may.
    fn submit_now_into(&mut self, client: ClientId, argv: Vec<Vec<u8>>, out: Option<&mut Vec<u8>>) {
        let outside = self.begin_tracked_command(client, &argv);
        let mut out = out;
        let asked = out.is_some();
        let replies = self.run(client, argv, &mut out);
        if asked && out.is_none() {
            // Written already (see Engine::run).
            self.end_tracked_command(client, outside);
            return;
        }
        let wanted = self.reply_wanted(client);
        // Checked after the command: a message it delivered to its own client is queued
        // and goes first, so then the replies queue behind it.
        let direct = out.filter(|_| self.srv.may_write_direct(client));
        if let Some((out, proto)) = direct.zip(self.clients.get(&client).map(|c| c.proto)) {
            let sent = replies
                .iter()
                .filter(|r| wanted || matches!(r, Reply::Push(_)));
            self.srv.write_direct(client, proto, sent, out);
            self.end_tracked_command(client, outside);
            return;
        }
        for r in replies {
            // Like Redis's CLIENT_PUSHING, pushes (subscription notices) are sent even when
            // CLIENT REPLY silences the replies.
            if wanted || matches!(r, Reply::Push(_)) {
                self.srv.send(client, r);
            }
        }
        self.end_tracked_command(client, outside);
    }

    /// Client-side caching's part of the start of `client`'s command `argv`: it becomes
    /// the current client (Redis's `current_client`, for `NOLOOP` and the invalidations
    /// held for its reply). `None`, at the cost of one test, when nobody tracks; otherwise
    /// what to restore, and whether `argv` is a `CLIENT` command (after which `CLIENT
    /// CACHING` still holds).
    #[inline]
    fn begin_tracked_command(
        &mut self,
        client: ClientId,
        argv: &[Vec<u8>],
    ) -> Option<((ClientId, bool), bool)> {
        if !self.srv.tracking.active() {
            return None;
        }
        let from_client = argv
            .first()
            .is_some_and(|a| a.eq_ignore_ascii_case(b"client"));
        Some((self.srv.tracking.enter(client, false), from_client))
    }

    /// Client-side caching's part of the end of `client`'s command (Redis's
    /// `afterCommand` and `resetClient`): the invalidations held for it go out after its
    /// reply, and `CLIENT CACHING` has served its command (or transaction) unless that was
    /// a `CLIENT` command itself. `outside` is what [`Engine::begin_tracked_command`]
    /// returned. Tracking may have been turned on during the command (in `EXEC`): what it
    /// held is sent all the same.
    #[inline]
    pub(super) fn end_tracked_command(
        &mut self,
        client: ClientId,
        outside: Option<((ClientId, bool), bool)>,
    ) {
        if outside.is_some() || self.srv.tracking.active() {
            self.finish_tracked_command(client, outside);
        }
    }

    /// [`Engine::end_tracked_command`] when someone tracks (kept out of line: the common
    /// case is the test alone).
    #[inline(never)]
    fn finish_tracked_command(
        &mut self,
        client: ClientId,
        outside: Option<((ClientId, bool), bool)>,
    ) {
        // A script that paused is still its caller's command: they wait for its end.
        let paused = self
            .srv
            .running
            .as_ref()
            .is_some_and(|r| r.caller == client);
        if !paused {
            for msg in self.srv.take_held_invalidations(client) {
                self.srv.send(client, msg);
            }
        }
        let in_multi = self.clients.get(&client).is_some_and(|c| c.multi.is_some());
        // Turned on by this very command, it has no CLIENT CACHING to clear.
        let from_client = outside.is_none_or(|(_, c)| c);
        if let Some(t) = self.srv.tracking.get_mut(client) {
            if !in_multi && !from_client {
                t.caching = false;
            }
        }
        if let Some((prev, _)) = outside {
            self.srv.tracking.leave(prev);
        }
    }

    /// What follows every command: clients blocked on keys that received data are served
    /// (Redis's `handleClientsBlockedOnKeys`), clients unblocked meanwhile run what they
    /// sent while blocked (`processUnblockedClients`), and clients over their output limit
    /// are flagged.
    ///
    /// While a script is paused nothing of this happens, as in Redis, where the script is
    /// still inside its command — except, once it passed `busy-reply-threshold`, that
    /// clients unblocked meanwhile have what they sent answered (`BUSY`, mostly).
    pub(crate) fn after_command(&mut self) {
        let running = self.srv.running.as_ref().map(|r| r.timed_out);
        if running == Some(false) {
            self.sync_killed();
            return;
        }
        if running.is_none() {
            self.handle_ready_keys();
        }
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
                if self.srv.running.is_none() {
                    self.handle_ready_keys();
                }
            }
        }
        if self.srv.tracking.active() {
            self.srv.broadcast_invalidations();
        }
        self.sync_killed();
    }

    /// Counts an error reply the host sent itself (a protocol error, before the
    /// connection closes) in `INFO errorstats` and `total_error_replies`, as Redis counts
    /// every error reply. `text` is the error without its `-`.
    pub fn note_error_reply(&mut self, text: &str) {
        self.srv.stats.count_error(text);
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

    /// [`Engine::take_pushes`] handing each reply to `each` instead, without giving the
    /// client's queue away (a host that drains after every command allocates nothing).
    pub fn drain_pushes(&mut self, client: ClientId, each: impl FnMut(Reply)) {
        self.srv.outboxes.drain_each(client, each);
    }

    /// Takes what the server logged since the last call (a script's `redis.log`, its
    /// warnings), oldest first: `(level, line)` with levels 0 debug to 3 warning. The host
    /// prints it (kvlab-server to stderr) or shows it.
    pub fn take_log(&mut self) -> Vec<(i32, Vec<u8>)> {
        if self.srv.log.is_empty() {
            // The host asks after every batch: mostly nothing to hand over.
            return Vec::new();
        }
        self.srv.log.drain(..).collect()
    }

    /// The clients with something queued for [`Engine::take_pushes`], or closed by the engine
    /// ([`Client::close_asap`]), in the order they got it. A host checks this after every
    /// command and [`Engine::tick`] (any of them may publish) to wake the right connections.
    /// **O(n)** in the clients listed.
    pub fn clients_with_pushes(&self) -> Vec<ClientId> {
        self.srv.outboxes.ready()
    }

    /// Flags the clients whose output limit was exceeded since the last call.
    pub(super) fn sync_killed(&mut self) {
        for id in self.srv.outboxes.take_newly_killed() {
            if let Some(c) = self.clients.get_mut(&id) {
                c.close_asap = true;
            }
        }
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
        if self.srv.running.is_some() {
            // Redis's cron does not run while a script does: no key expires, no blocked
            // client times out.
            return 0;
        }
        if self.srv.tracking.active() {
            self.srv.limit_tracking_table();
        }
        let now = self.srv.clock.now_ms();
        let mut removed = 0;
        if self.srv.debug.cron {
            // Redis's clientsCron: the reply buffers' sizes (every client on each call, as
            // Redis with few clients).
            let d = self.srv.debug;
            let (shrinks, expands) = self.srv.outboxes.resize_reply_buffers(
                self.clients.keys().copied(),
                now,
                d.reply_peak_reset_ms,
                d.reply_resizing,
            );
            let r = &mut self.srv.stats.reply_buffer_resizes;
            *r = (r.0 + shrinks, r.1 + expands);
        }
        if self.srv.pause_at(now).is_some() || !self.srv.debug.cron || !self.srv.debug.active_expire
        {
            // Keys do not expire actively during CLIENT PAUSE, as in Redis, nor while
            // `DEBUG PAUSE-CRON 1` stops the cron or `DEBUG SET-ACTIVE-EXPIRE 0` the
            // expiry in it. Blocked clients still time out (Redis does that before each
            // sleep of its event loop, not in the cron).
            self.expire_blocked();
            return 0;
        }
        let threshold_ms = self.srv.config.latency().0;
        let started = Latency::start(&*self.srv.clock, threshold_ms);
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
        let srv = &mut self.srv;
        srv.latency
            .end(&*srv.clock, threshold_ms, "expire-cycle", started);
        self.expire_blocked();
        removed
    }
}

impl Engine {
    /// Takes client `id` out for its command (see [`super::others`]), leaving the spare box in its place (or,
    /// with the spare in use, removing its entry). Give it back with
    /// [`Engine::check_in`]. `None` if it is not connected.
    #[inline]
    pub(crate) fn check_out(&mut self, id: ClientId) -> Option<Box<Client>> {
        let Some(spare) = self.spare.take() else {
            return self.clients.remove(&id);
        };
        match self.clients.get_mut(&id) {
            Some(slot) => Some(std::mem::replace(slot, spare)),
            None => {
                self.spare = Some(spare);
                None
            }
        }
    }

    /// Puts back a client [`Engine::check_out`] took: into its entry, whose spare box is
    /// kept for the next command, or as a new entry if it was removed.
    #[inline]
    pub(crate) fn check_in(&mut self, client: Box<Client>) {
        let id = client.id;
        match self.clients.get_mut(&id) {
            Some(slot) => {
                let spare = std::mem::replace(slot, client);
                if self.spare.is_none() {
                    self.spare = Some(spare);
                }
            }
            None => {
                self.clients.insert(id, client);
            }
        }
    }
}
