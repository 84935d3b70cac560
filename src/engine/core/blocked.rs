//! Serving blocked clients: the one path by which a client blocked on keys is served
//! when a key becomes ready, whatever its family, plus timeouts and `CLIENT UNBLOCK`.
//!
//! A family of blocking commands (lists and sorted sets in `cmd/blocking.rs`, stream
//! readers in `cmd/stream`) plugs in through [`Waiters`](super::waiters::Waiters): it says whether a ready key can
//! serve a waiter now ([`Waiters::readiness`](super::waiters::Waiters::readiness)) and serves it ([`Waiters::serve`](super::waiters::Waiters::serve)). The
//! engine does the rest the same way for every family: lazy expiry of the key first, the
//! order of service, unblocking, the database the client blocked in, the slow log, the
//! reply. The families are handed to the engine by [`crate::engine::Engine::new`], like the
//! command table, so this file names no command group.

use crate::engine::reply::Reply;

use super::client::{ClientId, ReplyMode};
use super::ctx::Site;
use super::dispatch::offer_to_slowlog;
use super::engine::Engine;
use super::expire::expire_if_needed;
use super::others::Others;
use super::waiters::Readiness;

impl Engine {
    /// Serves the clients blocked on the keys that became ready, key by key in the order
    /// they became ready, each key's waiters first come first served while it has data of
    /// the kind they wait for. Serving may make more keys ready (`BLMOVE` pushes): the loop
    /// runs until none is. **O(waiters examined)** plus the cost of the pops.
    pub(super) fn handle_ready_keys(&mut self) {
        while !self.srv.ready_keys.is_empty() {
            let ready = std::mem::take(&mut self.srv.ready_keys);
            for (db, key) in ready {
                for id in self.srv.blocking.waiters_of(db, &key) {
                    let now = self.srv.clock.now_ms();
                    let Some(op) = self.srv.blocking.get(id).map(|b| b.op.clone()) else {
                        continue;
                    };
                    let Some(family) = self.waiters.iter().find(|w| w.serves(&op)) else {
                        continue;
                    };
                    expire_if_needed(&mut self.srv, db, &key, now);
                    match family.readiness(&self.srv, db, &key, &op) {
                        Readiness::Wait => {}
                        Readiness::Gone => break,
                        Readiness::Fail(e) => {
                            self.end_block(id, e.to_reply());
                        }
                        Readiness::Serve => {
                            self.serve_blocked_client(id, now, |site| {
                                family.serve(site, &key, &op)
                            });
                        }
                    }
                }
            }
        }
    }

    /// Unblocks `id` and runs `serve` for it as if it had just sent its command again, in
    /// the database it blocked in; sends the reply (unless `CLIENT REPLY OFF`). The one
    /// place a woken client is served, for lists, sorted sets and streams alike.
    pub(super) fn serve_blocked_client(
        &mut self,
        id: ClientId,
        now_ms: i64,
        serve: impl FnOnce(Site<'_>) -> Reply,
    ) {
        let Some(blocked) = self.srv.unblock(id) else {
            return;
        };
        let Some(mut c) = self.check_out(id) else {
            return;
        };
        let saved_db = std::mem::replace(&mut c.db, blocked.db);
        let outside = self.srv.tracking.enter(id, true);
        let started = self.srv.clock.monotonic_us();
        let reply = serve(Site {
            srv: &mut self.srv,
            client: &mut c,
            others: Others::new(&mut self.clients, id),
            table: self.table,
            now_ms,
            started_us: Some(started),
        });
        let duration = self.srv.clock.monotonic_us().saturating_sub(started).max(0);
        c.db = saved_db;
        if !blocked.argv.is_empty() {
            offer_to_slowlog(&mut self.srv, &c, &blocked.argv, duration);
        }
        let silent = c.reply_mode == ReplyMode::Off;
        super::dispatch::late_call_latency(&mut self.srv, self.table, &c.last_cmd, duration, false);
        self.srv.stats.late_reply(self.table, &c.last_cmd, &reply);
        self.check_in(c);
        if !silent {
            self.srv.send(id, reply);
        }
        // What it invalidated of its own cache comes after its reply.
        for msg in self.srv.take_held_invalidations(id) {
            self.srv.send(id, msg);
        }
        self.srv.tracking.leave(outside);
        self.srv.note_unblocked(id);
    }

    /// True if `id` is blocked (`BLPOP` & co. waiting for data).
    pub fn is_blocked(&self, id: ClientId) -> bool {
        self.srv.blocking.is_blocked(id)
    }

    /// Times out the blocked clients whose deadline has passed, replying to each what its
    /// command replies on a timeout ([`blocking::BlockOp::timeout_reply`](crate::engine::blocking::BlockOp::timeout_reply)), ends a
    /// `CLIENT PAUSE` that ran out, then runs what those clients sent meanwhile. Returns
    /// how many timed out. Hosts call it on each tick ([`Engine::tick`] does) or when
    /// [`Engine::next_timeout_ms`] says.
    /// **O(k log n)** for k clients timed out.
    pub fn expire_blocked(&mut self) -> usize {
        if self.srv.running.is_some() {
            // Not while a script runs (see Engine::tick).
            return 0;
        }
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
    pub(super) fn end_block(&mut self, id: ClientId, reply: Reply) -> bool {
        if self.srv.unblock(id).is_none() {
            return false;
        }
        if let Some(c) = self.clients.get(&id) {
            self.srv.stats.late_reply(self.table, &c.last_cmd, &reply);
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
}
