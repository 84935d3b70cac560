//! Dispatch of one command, as Redis's `processCommand` and `call`: the lookup and arity
//! check (`resolve`), the checks before running (authentication, cluster slots, MULTI,
//! memory, pub/sub context, `CLIENT PAUSE`), queueing inside MULTI, and the run itself with
//! the bookkeeping every command gets ([`call`]).

use std::borrow::Cow;

use smallvec::{smallvec, SmallVec};

use super::evict;
use crate::engine::args::Args;
use crate::engine::blocking;
use crate::engine::cluster;
use crate::engine::error::{self, Error};
use crate::engine::reply::Reply;
use crate::engine::slowlog;
use crate::engine::table::{DispatchFlags, Flags};

use super::client::{Client, ClientId, Queued, ReplyMode};
use super::ctx::{Command, Ctx, Site, Table};
use super::engine::Engine;
use super::monitor;
use super::others::Others;
use super::server::{Effect, Server};
use super::state::{CommandStats, Stats};
use crate::engine::latency::StatKey;

/// The (command, subcommand) names `cmd`'s statistics are kept under, run as the
/// `pos - 1`th word of `argv` (the subcommand `""` for a plain command).
fn stat_key(table: &'static Table, cmd: &'static Command, argv: &[Vec<u8>], pos: usize) -> StatKey {
    if pos != 2 {
        return StatKey(cmd.name, "");
    }
    match argv.first().and_then(|a| table.lookup(a)) {
        Some(top) => StatKey(top.name, cmd.name),
        None => StatKey(cmd.name, ""),
    }
}

/// The row of a command's full name (`blpop`, `xgroup|createconsumer`) and its
/// statistics key.
fn fullname_row(table: &'static Table, fullname: &str) -> Option<(&'static Command, StatKey)> {
    let (name, sub) = fullname.split_once('|').unwrap_or((fullname, ""));
    let top = table.lookup(name.as_bytes())?;
    if sub.is_empty() {
        Some((top, StatKey(top.name, "")))
    } else {
        let s = top.subcommand(sub.as_bytes())?;
        Some((s, StatKey(top.name, s.name)))
    }
}

impl Stats {
    /// The counters of `cmd`, run as the `pos - 1`th word of `argv` (a subcommand when
    /// `pos` is 2), created at zero.
    fn command(
        &mut self,
        table: &'static Table,
        cmd: &'static Command,
        argv: &[Vec<u8>],
        pos: usize,
    ) -> &mut CommandStats {
        self.per_command
            .entry(stat_key(table, cmd, argv, pos))
            .or_default()
    }

    /// Counts a command refused after its lookup (a script's command that failed its
    /// checks: Redis's `ERROR_COMMAND_REJECTED`).
    pub(crate) fn reject_command(
        &mut self,
        table: &'static Table,
        cmd: &'static Command,
        argv: &[Vec<u8>],
        pos: usize,
    ) {
        self.command(table, cmd, argv, pos).rejected += 1;
    }

    /// A late reply to a command that waited (a blocked client's): an error counts and,
    /// as Redis's `updateStatsOnUnblock` does, fails the command that waited, by its full
    /// name (`blpop`, `xgroup|createconsumer`; its call was counted when it started).
    pub(crate) fn late_reply(&mut self, table: &'static Table, fullname: &str, reply: &Reply) {
        if let Reply::Error(text) = reply {
            self.count_error(text);
            self.fail_command(table, fullname, 1);
        }
    }

    /// Adds `n` failures to the command `fullname` (see [`Stats::late_reply`]).
    pub(crate) fn fail_command(&mut self, table: &'static Table, fullname: &str, n: u64) {
        if n == 0 {
            return;
        }
        if let Some((_, key)) = fullname_row(table, fullname) {
            self.per_command.entry(key).or_default().failed += n;
        }
    }

    /// Counts a refused command line (if it names a known command).
    pub(crate) fn reject(&mut self, table: &'static Table, argv: &[Vec<u8>]) {
        let Some(top) = argv.first().and_then(|a| table.lookup(a)) else {
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
            Some(sub) => StatKey(top.name, sub.name),
            None => StatKey(top.name, ""),
        };
        self.per_command.entry(key).or_default().rejected += 1;
    }
}

impl Engine {
    /// Checks one command the way Redis's `processCommand` does, then queues it (inside
    /// MULTI) or runs it. Returns the replies in order (one for most commands).
    ///
    /// Order of checks: unknown command or subcommand, arity; then, for a client in a
    /// transaction, `NO_MULTI` commands; then, for a RESP2 client with subscriptions, the
    /// pub/sub context. A refused command inside MULTI marks the transaction
    /// ([`MultiState::dirty_exec`]); a refused `EXEC` aborts it at once.
    ///
    /// `direct`: where [`Engine::submit_into`] would have the replies encoded. When the
    /// command ran, its client replies as usual (`CLIENT REPLY ON`) and may bypass its
    /// queue (see [`Engine::submit_into`]), they are written there while the client is
    /// still at hand, `direct` is taken (left `None`) and no replies are returned; else the
    /// caller handles the replies.
    pub(super) fn run(
        &mut self,
        id: ClientId,
        argv: Vec<Vec<u8>>,
        direct: &mut Option<&mut Vec<u8>>,
    ) -> Replies {
        // Errors sent since the last command (blocked clients' late replies) are no
        // command's failure.
        self.srv.stats.settle_errors();
        let (top, cmd, fullname, pos) = match resolve(self.table, &argv) {
            Ok(r) => r,
            Err(e) => {
                let is_exec = argv
                    .first()
                    .and_then(|a| self.table.lookup(a))
                    .is_some_and(runs_queue);
                if matches!(e, Error::WrongArity(_)) {
                    self.srv.stats.reject(self.table, &argv);
                }
                return smallvec![self.reject(id, e, is_exec)];
            }
        };
        let is_exec = runs_queue(top);
        let Some(c) = self.clients.get(&id) else {
            return Replies::new();
        };
        if top.flags.contains(Flags::PROTECTED) && !protected_allowed(&self.srv, top, &c.addr) {
            let name = top.name;
            let e = Error::Err(format!(
                "{} command not allowed. If the enable-{name}-command option is set to \"local\", you can run it from a local connection, otherwise you need to set this option in the configuration file, and then restart the server.",
                name.to_ascii_uppercase()
            ));
            self.srv.stats.command(self.table, cmd, &argv, pos).rejected += 1;
            return smallvec![self.reject(id, e, is_exec)];
        }
        if c.close_asap {
            // Redis stops reading from a client it is about to close.
            return Replies::new();
        }
        if !c.authenticated && self.srv.acl.auth_required() && !cmd.flags.contains(Flags::NO_AUTH) {
            return smallvec![self.reject(id, Error::NoAuth, is_exec)];
        }
        // ACL: nothing to check while every user may run everything.
        if !self.srv.acl.all_open() {
            if let Err(e) = self.srv.acl.permit(&c.user, cmd, &fullname, &argv) {
                self.srv.stats.command(self.table, cmd, &argv, pos).rejected += 1;
                return smallvec![self.reject(id, e, is_exec)];
            }
        }
        let c = if self.srv.config.cluster_enabled() {
            if let Err(e) = self.check_slots(id, top, cmd, &argv) {
                return smallvec![e];
            }
            let Some(c) = self.clients.get(&id) else {
                return Replies::new();
            };
            c
        } else {
            c
        };
        let in_multi = c.multi.is_some();
        if in_multi && cmd.flags.contains(Flags::NO_MULTI) {
            let e = Error::Err("Command not allowed inside a transaction".into());
            self.srv.stats.command(self.table, cmd, &argv, pos).rejected += 1;
            return smallvec![self.reject(id, e, false)];
        }
        if self.srv.config.maxmemory() > 0 {
            // Redis's processCommand: free memory first; if that fails, refuse what may
            // use more (inside MULTI, anything that would be queued; EXEC if its queue
            // holds such a command).
            let now_ms = self.srv.clock.now_ms();
            if evict::perform_evictions(&mut self.srv, now_ms) == evict::Outcome::Fail {
                let srv = &self.srv;
                let denyoom = command_flags(srv, cmd, &argv).contains(Flags::DENYOOM)
                    || (is_exec
                        && c.multi.as_ref().is_some_and(|m| {
                            m.queue
                                .iter()
                                .any(|q| queued_flags(srv, self.table, q).contains(Flags::DENYOOM))
                        }))
                    || (in_multi && !top.dispatch.contains(DispatchFlags::ENDS_MULTI));
                if denyoom {
                    self.srv.stats.command(self.table, cmd, &argv, pos).rejected += 1;
                    return smallvec![self.reject(id, Error::OutOfMemory, is_exec)];
                }
            }
        }
        if self.srv.tracking.active() {
            // Redis's processCommand keeps the tracking table under its limit.
            self.srv.limit_tracking_table();
        }
        if !self.srv.config.good_replicas() {
            // Redis's processCommand refuses writes (EXEC: if its queue writes).
            let srv = &self.srv;
            let writes = command_flags(srv, cmd, &argv).contains(Flags::WRITE)
                || (is_exec
                    && c.multi.as_ref().is_some_and(|m| {
                        m.queue
                            .iter()
                            .any(|q| queued_flags(srv, self.table, q).contains(Flags::WRITE))
                    }));
            if writes {
                self.srv.stats.command(self.table, cmd, &argv, pos).rejected += 1;
                return smallvec![self.reject(id, Error::NoReplicas, is_exec)];
            }
        }
        if c.proto == 2
            && self.srv.pubsub.total(id) > 0
            && !top.dispatch.contains(DispatchFlags::SUBSCRIBER_CONTEXT)
        {
            let e = Error::Err(format!(
                "Can't execute '{fullname}': only (P|S)SUBSCRIBE / (P|S)UNSUBSCRIBE / PING / QUIT / RESET are allowed in this context"
            ));
            self.srv.stats.command(self.table, cmd, &argv, pos).rejected += 1;
            return smallvec![self.reject(id, e, is_exec)];
        }
        if let Some(busy) = self.srv.running.as_ref().filter(|r| r.timed_out) {
            // Redis's processCommand while a script runs past busy-reply-threshold.
            if !cmd.flags.contains(Flags::ALLOW_BUSY) {
                let e = Error::Coded(busy.busy_error().into());
                self.srv.stats.command(self.table, cmd, &argv, pos).rejected += 1;
                return smallvec![self.reject(id, e, is_exec)];
            }
        }
        let (now_us, started_us) = self.srv.clock.now_and_monotonic_us();
        let now_ms = now_us.div_euclid(1000);
        if let Some(pause) = self.srv.pause_at(now_ms) {
            // Redis's processCommand: under CLIENT PAUSE the command waits (queued ones
            // too), all of them or those that may write (EXEC: if its queue writes).
            const WRITES: Flags = Flags::WRITE.union(Flags::MAY_REPLICATE);
            let srv = &self.srv;
            let writes = command_flags(srv, cmd, &argv).intersects(WRITES)
                || (is_exec
                    && c.multi.as_ref().is_some_and(|m| {
                        m.queue
                            .iter()
                            .any(|q| queued_flags(srv, self.table, q).intersects(WRITES))
                    }));
            if pause.all || writes {
                let db = c.db;
                self.srv
                    .block(id, db, Vec::new(), None, blocking::BlockOp::Postpone);
                self.srv.blocking.defer(id, argv);
                self.srv.postponed.push_back(id);
                return Replies::new();
            }
        }
        if in_multi && !top.dispatch.contains(DispatchFlags::NOT_QUEUED) {
            let doomed = self.srv.watches.is_dirty(id);
            if let Some(c) = self.clients.get_mut(&id) {
                c.last_cmd_ms = now_ms;
                c.last_cmd = fullname;
                if let Some(m) = c.multi.as_mut() {
                    // Like Redis, a transaction that will fail anyway keeps nothing.
                    if !doomed && !m.dirty_exec {
                        m.queue.push(Queued { pos, argv });
                    }
                }
            }
            return smallvec![Reply::status("QUEUED")];
        }
        // The caller is taken out for the command, so that a handler can see it mutably
        // and every other client too (`CLIENT LIST`).
        let Some(mut caller) = self.check_out(id) else {
            return Replies::new();
        };
        caller.last_cmd_ms = now_ms;
        caller.last_cmd = fullname;
        let outside = self.srv.tracking.enter(id, true);
        let site = Site {
            srv: &mut self.srv,
            client: &mut caller,
            others: Others::new(&mut self.clients, id),
            table: self.table,
            now_ms,
            started_us: Some(started_us),
        };
        let out = call(site, cmd, pos, argv, Mode::DIRECT);
        self.srv.tracking.leave(outside);
        let written =
            caller.reply_mode == ReplyMode::On && direct.is_some() && self.srv.may_write_direct(id);
        if let Some(buf) = direct.take_if(|_| written) {
            self.srv.write_direct(id, caller.proto, &out, buf);
        }
        self.check_in(caller);
        if written {
            Replies::new()
        } else {
            out
        }
    }

    /// Cluster mode's check before a command runs (Redis's `getNodeByQuery`): the keys of
    /// the command — for `EXEC`, of every queued command — must hash to one slot, or the
    /// reply is `CROSSSLOT` (inside `MULTI` the transaction is then marked to fail; at
    /// `EXEC` it is discarded). O(number of keys).
    pub(super) fn check_slots(
        &mut self,
        id: ClientId,
        top: &'static Command,
        cmd: &'static Command,
        argv: &[Vec<u8>],
    ) -> Result<(), Reply> {
        let is_exec = runs_queue(top);
        let table = self.table;
        let mut slot = None;
        let mut same = |key: &[u8]| {
            let s = cluster::key_slot(key);
            *slot.get_or_insert(s) == s
        };
        let ok = if is_exec {
            let queued = self.clients.get(&id).and_then(|c| c.multi.as_ref());
            queued.is_none_or(|m| {
                m.queue.iter().all(|q| {
                    table
                        .resolved(&q.argv, q.pos)
                        .and_then(|c| c.key_indexes(&q.argv))
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
            let reply = Error::CrossSlot.to_reply();
            if let Reply::Error(text) = &reply {
                self.srv.stats.count_error(text);
            }
            return Err(reply);
        }
        Err(self.reject(id, Error::CrossSlot, false))
    }

    /// Redis's `rejectCommand`: the error reply, and inside MULTI the transaction is marked
    /// to fail; a refused `EXEC` itself ends the transaction with `EXECABORT … because of:`.
    /// The reply is counted in the error statistics.
    pub(super) fn reject(&mut self, id: ClientId, e: Error, is_exec: bool) -> Reply {
        let reply = self.rejection(id, e, is_exec);
        if let Reply::Error(text) = &reply {
            self.srv.stats.count_error(text);
        }
        reply
    }

    /// [`Engine::reject`]'s reply, not yet counted.
    fn rejection(&mut self, id: ClientId, e: Error, is_exec: bool) -> Reply {
        let Some(c) = self.clients.get_mut(&id) else {
            return e.to_reply();
        };
        if is_exec {
            // Even outside MULTI, as Redis's `rejectCommand` calls `execCommandAbort`.
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
        if let Some(m) = c.multi.as_mut() {
            m.dirty_exec = true;
        }
        e.to_reply()
    }
}

/// Looks a command up as Redis's `lookupCommand` + `commandCheckArity` do: returns the
/// top-level row, the row that runs (a subcommand's for containers), its full name
/// (`config|get`) and where its arguments start; or the error reply's error.
pub(crate) fn resolve(
    table: &'static Table,
    argv: &[Vec<u8>],
) -> Result<(&'static Command, &'static Command, Cow<'static, str>, usize), Error> {
    let Some(name) = argv.first() else {
        return Err(Error::Syntax);
    };
    let Some(top) = table.lookup(name) else {
        // Redis formats these with `%s`, so each stops at its first NUL byte.
        return Err(Error::UnknownCommand {
            name: error::c_str(name),
            args: argv[1..].iter().map(|a| error::c_str(a)).collect(),
        });
    };
    let (cmd, fullname, pos) = if top.subcommands.is_empty() {
        (top, Cow::Borrowed(top.name), 1)
    } else if argv.len() < 2 && top.handler.is_some() {
        // A container that also works alone (`COMMAND`).
        (top, Cow::Borrowed(top.name), 1)
    } else if argv.len() < 2 {
        return Err(Error::WrongArity(top.name.to_string()));
    } else {
        match top.subcommand(&argv[1]) {
            Some(sub) => (sub, Cow::Owned(format!("{}|{}", top.name, sub.name)), 2),
            None => {
                return Err(Error::UnknownSubcommand {
                    command: error::c_str(name),
                    sub: error::c_str(&argv[1]),
                })
            }
        }
    };
    if !cmd.arity_ok(argv.len()) || cmd.handler.is_none() {
        return Err(Error::WrongArity(fullname.into_owned()));
    }
    Ok((top, cmd, fullname, pos))
}

/// Redis's `allowProtectedAction`: whether `enable-<name>-command` lets a client at `addr`
/// run the protected command `top` (`yes`, or `local` and the peer is 127.0.0.1 or ::1).
fn protected_allowed(srv: &Server, top: &Command, addr: &str) -> bool {
    let option = format!("enable-{}-command", top.name);
    match srv.config.get(&option) {
        Some("yes") => true,
        Some("local") => {
            let ip = addr.rsplit_once(':').map_or(addr, |(ip, _)| ip);
            matches!(ip, "127.0.0.1" | "[::1]" | "::1")
        }
        _ => false,
    }
}

/// What one command replies, in order: almost always a single reply, kept inline so that
/// a command's run allocates nothing for it.
pub type Replies = SmallVec<[Reply; 1]>;

/// How [`call`] runs a command.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Mode {
    /// Blocking is not allowed (Redis's `CLIENT_DENY_BLOCKING`): the command runs inside
    /// `EXEC`, or serves a blocked client. A blocking command then acts as if its timeout
    /// expired.
    pub deny_blocking: bool,
    /// `MONITOR` clients see the command, `INFO commandstats` and the slow log count it. A
    /// blocked client's late service runs its non-blocking equivalent unseen and uncounted,
    /// as in Redis, which showed the blocking command when it was called.
    pub monitored: bool,
}

impl Mode {
    /// A command a client sent.
    pub const DIRECT: Mode = Mode {
        deny_blocking: false,
        monitored: true,
    };
    /// A command queued in a transaction, run by `EXEC`.
    pub const IN_EXEC: Mode = Mode {
        deny_blocking: true,
        monitored: true,
    };
    /// A command a script called (`redis.call`): like one in `EXEC`.
    pub const IN_SCRIPT: Mode = Mode {
        deny_blocking: true,
        monitored: true,
    };
    /// The non-blocking equivalent that serves a blocked client.
    pub const SERVE_BLOCKED: Mode = Mode {
        deny_blocking: true,
        monitored: false,
    };
}

/// Runs one resolved command at `site` (Redis's `call`): the handler, then the bookkeeping
/// every command gets — statistics, modified keys signalled to WATCH and client-side
/// caching (see [`Ctx::signal_modified`]), the keys a read-only command read remembered for
/// a tracking client, the effect recorded. Returns the replies in order: the
/// handler's, then those it queued with [`Ctx::also_reply`]. A handler that blocks (or
/// replies nothing) returns no reply.
pub fn call(
    site: Site<'_>,
    cmd: &'static Command,
    pos: usize,
    argv: Vec<Vec<u8>>,
    mode: Mode,
) -> Replies {
    let Site {
        srv,
        client,
        others,
        table,
        now_ms,
        started_us,
    } = site;
    let Mode {
        deny_blocking,
        monitored,
    } = mode;
    let Some(handler) = cmd.handler else {
        return smallvec![Error::WrongArity(cmd.name.to_string()).to_reply()];
    };
    srv.stats.commands += 1;
    let mut ctx = Ctx {
        srv,
        client,
        others,
        table,
        now_ms,
        dirty: 0,
        propagate: None,
        replies: Vec::new(),
        signalled: false,
        wakes_blocked: true,
        deny_blocking,
        no_reply: false,
        errors_counted: None,
    };
    let mut args = Args::new(argv, pos);
    let started = started_us.unwrap_or_else(|| ctx.srv.clock.monotonic_us());
    let reply = match handler(&mut ctx, &mut args) {
        Ok(r) => r,
        Err(e) => e.to_reply(),
    };
    if monitored {
        let duration = ctx.srv.clock.monotonic_us().saturating_sub(started).max(0);
        // A blocked client's late service is not a call of the equivalent command: BRPOP
        // was counted when it was called (Redis counts it when it is unblocked).
        // Redis's afterErrorReply, then incrCommandStatsOnError: an error counted already
        // (a script's from redis.call) fails the command without counting again.
        let mut failed = 0;
        match (ctx.errors_counted, &reply) {
            (Some(n), _) => failed += n,
            (None, Reply::Error(text)) => ctx.srv.stats.count_error(text),
            (None, _) => {}
        }
        failed += u64::from(ctx.srv.stats.settle_errors());
        let blocked = ctx.srv.blocking.is_blocked(ctx.client.id);
        // A script that paused is timed when it ends (see late_call_latency).
        let timed = !(blocked
            && ctx
                .srv
                .running
                .as_ref()
                .is_some_and(|r| r.caller == ctx.client.id));
        // A blocked command is not timed as a call (its histogram takes the wait's end).
        let tracked = timed && !blocked && ctx.srv.config.latency().1;
        let key = stat_key(table, cmd, args.argv(), pos);
        let stat = ctx.srv.stats.per_command.entry(key).or_default();
        stat.calls += 1;
        stat.failed += failed;
        stat.usec = stat.usec.saturating_add(duration as u64);
        if tracked {
            stat.record_latency(duration);
        }
        if timed {
            sample_call_latency(ctx.srv, cmd, duration);
        }
        let (slower_than, _) = ctx.srv.config.slowlog();
        if blocked {
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
        monitor::feed_monitors(srv, c, args.argv());
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
    if srv.tracking.active() && cmd.flags.contains(Flags::READONLY) {
        srv.remember_read(c, cmd, args.argv());
    }
    srv.dirty += dirty;
    if srv.record_effects && (dirty > 0 || propagate.as_ref().is_some_and(|p| !p.is_empty())) {
        match propagate {
            Some(effects) => srv.effects.extend(effects),
            None if cmd.flags.contains(Flags::WRITE) => srv.effects.push(Effect {
                db,
                argv: args.into_argv(),
            }),
            None => {}
        }
    }
    let mut out = Replies::new();
    if !no_reply {
        out.push(reply);
    }
    if !replies.is_empty() {
        // Most commands reply once: no empty iterator to drive and drop.
        out.extend(replies);
    }
    out
}

/// The latency monitor's event for a call (Redis's `call`): `command` or `fast-command`
/// when it reached `latency-monitor-threshold`. (With `latency-tracking`, the command's
/// histogram takes the call too: see [`CommandStats::record_latency`].)
fn sample_call_latency(srv: &mut Server, cmd: &'static Command, duration_us: i64) {
    let threshold_ms = srv.config.latency().0;
    if threshold_ms > 0 && duration_us / 1000 >= threshold_ms {
        let event = if cmd.flags.contains(Flags::FAST) {
            "fast-command"
        } else {
            "command"
        };
        let now_s = srv.clock.now_ms().div_euclid(1000);
        srv.latency
            .add_sample(event, (duration_us / 1000) as u64, now_s);
    }
}

/// The latency monitor's share of a command that finished late, named by its full name:
/// a blocked command served (Redis's `updateStatsOnUnblock`: its histogram takes the whole
/// time) or a script that paused and ended (`event`: also sampled as a `command` event, as
/// the one call it is in Redis; [`call`] did not sample its first slice).
pub(crate) fn late_call_latency(
    srv: &mut Server,
    table: &'static Table,
    fullname: &str,
    duration_us: i64,
    event: bool,
) {
    let Some((cmd, key)) = fullname_row(table, fullname) else {
        return;
    };
    if event {
        sample_call_latency(srv, cmd, duration_us);
    }
    if srv.config.latency().1 {
        srv.stats
            .per_command
            .entry(key)
            .or_default()
            .record_latency(duration_us);
    }
}

/// Offers a command that ran for `duration_us` to the slow log, which keeps it if it
/// reached `slowlog-log-slower-than` (see [`slowlog`]). The arguments are copied and
/// redacted only then.
pub(crate) fn offer_to_slowlog(
    srv: &mut Server,
    client: &Client,
    argv: &[Vec<u8>],
    duration_us: i64,
) {
    let (slower_than, max_len) = srv.config.slowlog();
    if slower_than < 0 || duration_us < slower_than {
        return;
    }
    let redacted = monitor::redacted(argv);
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

/// The flags of a queued command (see [`command_flags`]; empty if its row is no longer
/// found, which cannot happen: the table is static).
fn queued_flags(srv: &Server, table: &'static Table, q: &Queued) -> Flags {
    table
        .resolved(&q.argv, q.pos)
        .map_or(Flags::empty(), |c| command_flags(srv, c, &q.argv))
}

/// A command's flags for the checks before it runs (Redis's `getCommandFlags`): those of
/// its row, or for `FCALL` those its function implies, for `EVAL` its script's.
fn command_flags(srv: &Server, cmd: &Command, argv: &[Vec<u8>]) -> Flags {
    if cmd.dispatch.contains(DispatchFlags::FUNCTION_FLAGS) {
        srv.functions.fcall_flags(cmd.flags, argv)
    } else if cmd.dispatch.contains(DispatchFlags::SCRIPT_FLAGS) {
        srv.scripts
            .eval_flags(cmd.flags, argv, cmd.name.starts_with("evalsha"))
    } else {
        cmd.flags
    }
}

/// True for `EXEC`: the command that runs the queue ([`DispatchFlags::RUNS_QUEUE`]).
fn runs_queue(cmd: &Command) -> bool {
    cmd.dispatch.contains(DispatchFlags::RUNS_QUEUE)
}
