//! The slices after a script's first: [`Engine::resume_script`] runs the next one, passes
//! `busy-reply-threshold`, and ends the run (see [`crate::engine::busy`]).

use super::debug::DebugHost;
use super::eval::{put_back, script_reply};
use super::host::ScriptHost;
use crate::engine::blocking::BlockOp;
use crate::engine::busy::Running;
use crate::engine::cmd::multi::wrap_effects;
use crate::engine::core::client::Client;
use crate::engine::core::ctx::Ctx;
use crate::engine::core::dispatch::{late_call_latency, offer_to_slowlog};
use crate::engine::core::others::Others;
use crate::engine::Engine;
use kvlab_lua::redis::{ScriptError, Step, Value};

impl Engine {
    /// True while a script that paused has yet to end: the host should call
    /// [`Engine::resume_script`] soon (and keep serving its clients meanwhile).
    pub fn script_running(&self) -> bool {
        self.srv.running.is_some()
    }

    /// Runs the next slice of the script that paused (about 20 ms), and returns whether it
    /// is still running. When it ends, its caller gets the reply (queued for
    /// [`Engine::take_pushes`]), its effects come out as one transaction, and what every
    /// client sent meanwhile runs. Past `busy-reply-threshold` the clients held so far get
    /// their answers (Redis's "Slow script detected"). Does nothing with no script running.
    pub fn resume_script(&mut self) -> bool {
        let Some(mut r) = self.srv.running.take() else {
            return false;
        };
        let now_us = self.srv.clock.monotonic_us();
        let elapsed_ms = (now_us - r.started_us) / 1000;
        if !r.timed_out && elapsed_ms >= self.srv.config.busy_reply_threshold() {
            self.time_out(&mut r, elapsed_ms);
        }
        let caller_gone = !self.clients.contains_key(&r.caller);
        if let Some(d) = r.debug.as_mut().filter(|d| d.stopped) {
            if !caller_gone {
                // Stopped under the debugger: it waits for the learner, not for time.
                self.srv.running = Some(r);
                self.after_command();
                return true;
            }
            // Nobody is left to step it: it runs on to its end.
            d.stopped = false;
            d.stepping = false;
        }
        let caller_id = r.caller;
        let mut caller = self
            .clients
            .remove(&caller_id)
            .unwrap_or_else(|| Box::new(Client::new(caller_id, "", "", r.now_ms, true)));
        let table = self.table();
        // Still the caller's command: what it invalidates of its own cache waits for its
        // reply, as in one piece.
        let outside = self.srv.tracking.enter(caller_id, true);
        let mut ctx = Ctx {
            srv: &mut self.srv,
            client: &mut caller,
            others: Others::new(&mut self.clients, caller_id),
            table,
            now_ms: r.now_ms,
            dirty: 0,
            propagate: None,
            replies: Vec::new(),
            signalled: false,
            wakes_blocked: true,
            deny_blocking: false,
            no_reply: false,
            errors_counted: None,
        };
        if ctx.srv.tracking.active() {
            // As when it started (see `start_run`): EVAL and FCALL alike are `name
            // script-or-function numkeys key …`.
            let n = r
                .argv
                .get(2)
                .and_then(|a| crate::engine::args::parse_i64(a))
                .and_then(|n| usize::try_from(n).ok())
                .unwrap_or(0);
            let keys = r.argv.iter().skip(3).take(n).cloned().collect();
            ctx.srv.tracking.set_script(Some((caller_id, keys)));
        }
        // The host owns what redis.call changes for the slice; it goes back into the run.
        let stand_in = Client::new(0, "lua", "", r.now_ms, true);
        let mut host = ScriptHost {
            ctx: &mut ctx,
            client: std::mem::replace(&mut r.client, stand_in),
            checks: r.checks,
            can_pause: true,
            slice_us: now_us,
            pause_asked_us: None,
            kill: r.kill,
            name: std::mem::take(&mut r.name),
        };
        let step = match r.debug.as_deref_mut() {
            Some(dbg) => {
                let step = r.env.resume(&mut DebugHost {
                    inner: &mut host,
                    dbg,
                });
                dbg.position = r.env.position().cloned();
                step
            }
            None => r.env.resume(&mut host),
        };
        r.client = host.client;
        r.checks = host.checks;
        r.kill = host.kill;
        r.name = host.name;
        self.srv.tracking.set_script(None);
        self.srv.tracking.leave(outside);
        for (level, line) in r.env.take_log() {
            self.srv.log(level, &line);
        }
        if !caller_gone {
            self.clients.insert(caller_id, caller);
        }
        match step {
            Step::Paused => {
                self.srv.running = Some(r);
                // Clients released at the threshold have what they sent answered now.
                self.after_command();
                true
            }
            Step::Done(out) => {
                self.end_script(*r, out);
                false
            }
        }
    }

    /// Passes `busy-reply-threshold`: logs it as Redis does, and releases the clients
    /// held so far, whose commands are now answered (`BUSY`, or run if allowed).
    fn time_out(&mut self, r: &mut Running, elapsed_ms: i64) {
        r.timed_out = true;
        let line = format!(
            "Slow script detected: still in execution after {elapsed_ms} milliseconds. You can try killing the script using the {} command. Script name is: {}.",
            if r.eval { "SCRIPT KILL" } else { "FUNCTION KILL" },
            r.name
        );
        self.srv.log(3, line.as_bytes());
        for id in r.waiters.drain(..) {
            if matches!(
                self.srv.blocking.get(id).map(|b| &b.op),
                Some(BlockOp::Script)
            ) {
                self.srv.unblock(id);
                self.srv.note_unblocked(id);
            }
        }
    }

    /// The script ended: its interpreter goes back, its effects become one transaction,
    /// its caller gets the reply (and the slow log the command), and everyone held runs
    /// what they sent.
    pub(super) fn end_script(&mut self, r: Running, out: Result<Value, ScriptError>) {
        let Running {
            caller,
            first_effect,
            started_us,
            waiters,
            env,
            ..
        } = r;
        let reply = script_reply(out);
        let (before, now) = self
            .srv
            .stats
            .count_script_errors(&reply, env.counted_errors());
        put_back(env, &mut self.srv);
        wrap_effects(&mut self.srv.effects, first_effect);
        let blocked = self.srv.unblock(caller);
        let table = self.table();
        if let Some(c) = self.clients.get(&caller) {
            // The script's command fails as it would have in one piece (see call()).
            let failures = before + u64::from(now);
            self.srv.stats.fail_command(table, &c.last_cmd, failures);
            let duration = self.srv.clock.monotonic_us() - started_us;
            let name = c.last_cmd.clone();
            late_call_latency(&mut self.srv, table, &name, duration, true);
            if let (Some(b), Some(c)) = (&blocked, self.clients.get(&caller)) {
                if !b.argv.is_empty() {
                    offer_to_slowlog(&mut self.srv, c, &b.argv, duration);
                }
            }
            if self.reply_wanted(caller) {
                self.srv.send(caller, reply);
            }
            for msg in self.srv.take_held_invalidations(caller) {
                self.srv.send(caller, msg);
            }
            self.srv.note_unblocked(caller);
        }
        for id in waiters {
            if matches!(
                self.srv.blocking.get(id).map(|b| &b.op),
                Some(BlockOp::Script)
            ) {
                self.srv.unblock(id);
                self.srv.note_unblocked(id);
            }
        }
        self.after_command();
    }
}

#[cfg(test)]
mod tests {
    use crate::engine::clock::FnClock;
    use crate::engine::testing::{run, T0};
    use crate::engine::{ClientId, Engine, Reply};
    use std::cell::Cell;
    use std::rc::Rc;

    /// An engine whose monotonic clock moves 1 ms at each reading, so that a script's
    /// slices (20 ms) and the threshold are counts of the hook's checks, not of real time.
    fn engine() -> (Engine, ClientId, ClientId) {
        let mono = Rc::new(Cell::new(0.0));
        let m = Rc::clone(&mono);
        let clock = FnClock(
            || T0 as f64,
            Some(move || {
                m.set(m.get() + 1.0);
                m.get()
            }),
        );
        let mut e = Engine::new(Box::new(clock), 7);
        let (a, b) = (e.connect(), e.connect());
        assert_eq!(
            run(&mut e, a, "CONFIG SET busy-reply-threshold 100"),
            Reply::ok()
        );
        (e, a, b)
    }

    fn error(text: &str) -> Reply {
        Reply::Error(text.to_string())
    }

    const BUSY: &str =
        "BUSY Redis is busy running a script. You can only call SCRIPT KILL or SHUTDOWN NOSAVE.";

    #[test]
    fn others_wait_then_get_busy_and_script_kill_ends_the_script() {
        let (mut e, a, b) = engine();
        run(&mut e, a, "EVAL \"while true do end\" 0");
        assert!(e.script_running());
        assert!(e.take_pushes(a).is_empty());
        // Before the threshold, what others send waits, unanswered.
        run(&mut e, b, "PING");
        e.resume_script();
        assert!(e.take_pushes(b).is_empty());
        while !e.server().running.as_ref().is_some_and(|r| r.timed_out) {
            assert!(e.resume_script());
        }
        // Past it, the held PING is answered BUSY, and so is the next command.
        assert_eq!(e.take_pushes(b), vec![error(BUSY)]);
        e.submit(b, vec![b"GET".to_vec(), b"k".to_vec()]);
        assert_eq!(e.take_pushes(b), vec![error(BUSY)]);
        e.submit(b, vec![b"SCRIPT".to_vec(), b"KILL".to_vec()]);
        assert_eq!(e.take_pushes(b), vec![Reply::ok()]);
        assert!(!e.resume_script());
        let killed = e.take_pushes(a);
        assert!(
            matches!(&killed[..], [Reply::Error(m)] if m.starts_with("ERR Script killed by user with SCRIPT KILL...")),
            "{killed:?}"
        );
        assert_eq!(run(&mut e, b, "PING"), Reply::status("PONG"));
        assert_eq!(
            run(&mut e, b, "SCRIPT KILL"),
            error("NOTBUSY No scripts in execution right now.")
        );
    }

    #[test]
    fn a_paused_script_tracks_and_invalidates_for_its_caller_after_its_reply() {
        let (mut e, a, _) = engine();
        run(&mut e, a, "HELLO 3");
        run(&mut e, a, "CLIENT TRACKING on");
        run(&mut e, a, "SET k 1");
        // Reads its declared key, pauses, then writes it: the invalidation follows the reply.
        run(
            &mut e,
            a,
            "EVAL \"redis.call('get', KEYS[1]) for i = 1, 30000000 do end return redis.call('incr', KEYS[1])\" 1 k",
        );
        assert!(e.script_running());
        assert!(e.take_pushes(a).is_empty());
        while e.resume_script() {}
        let sent = e.take_pushes(a);
        assert_eq!(
            sent,
            vec![
                Reply::Integer(2),
                Reply::Push(vec![
                    Reply::bulk(b"invalidate"),
                    Reply::Array(vec![Reply::bulk(b"k")])
                ])
            ]
        );
    }

    #[test]
    fn a_script_that_wrote_cannot_be_killed_and_its_writes_come_out_as_one() {
        let (mut e, a, b) = engine();
        run(
            &mut e,
            a,
            "EVAL \"redis.call('incr', 'n') for i = 1, 30000000 do end redis.call('incr', 'n') return redis.call('get', 'n')\" 0",
        );
        assert!(e.script_running());
        // Nothing of the script is handed out while it runs.
        assert!(e.take_effects().is_empty());
        while !e.server().running.as_ref().is_some_and(|r| r.timed_out) {
            assert!(e.resume_script());
        }
        let unkillable = run(&mut e, b, "SCRIPT KILL");
        assert!(
            matches!(&unkillable, Reply::Error(m) if m.starts_with("UNKILLABLE")),
            "{unkillable:?}"
        );
        while e.resume_script() {}
        assert_eq!(e.take_pushes(a), vec![Reply::Bulk(b"2".to_vec())]);
        let effects: Vec<Vec<Vec<u8>>> = e.take_effects().into_iter().map(|x| x.argv).collect();
        let names: Vec<String> = effects
            .iter()
            .map(|a| String::from_utf8_lossy(&a[0]).to_uppercase())
            .collect();
        assert_eq!(names, ["MULTI", "INCR", "INCR", "EXEC"]);
    }

    #[test]
    fn what_others_sent_before_the_threshold_runs_after_the_script_in_order() {
        let (mut e, a, b) = engine();
        run(
            &mut e,
            a,
            "EVAL \"for i = 1, 3000000 do end return redis.call('set', 'k', 'script')\" 0",
        );
        assert!(e.script_running());
        e.submit(b, vec![b"SET".to_vec(), b"k".to_vec(), b"b".to_vec()]);
        e.submit(b, vec![b"GET".to_vec(), b"k".to_vec()]);
        // The caller's own next command waits for its script too.
        e.submit(a, vec![b"GET".to_vec(), b"k".to_vec()]);
        while e.resume_script() {}
        assert_eq!(
            e.take_pushes(a),
            vec![Reply::ok(), Reply::Bulk(b"script".to_vec())]
        );
        assert_eq!(
            e.take_pushes(b),
            vec![Reply::ok(), Reply::Bulk(b"b".to_vec())]
        );
    }

    #[test]
    fn a_script_that_cannot_pause_is_killed_past_the_threshold_unless_it_wrote() {
        let (mut e, a, _) = engine();
        // Inside a sort comparator no pause is possible.
        let r = run(
            &mut e,
            a,
            "EVAL \"table.sort({3, 2, 1}, function(x, y) while true do end end)\" 0",
        );
        assert!(
            matches!(&r, Reply::Error(m) if m.starts_with("ERR Script killed by user with SCRIPT KILL...")),
            "{r:?}"
        );
        assert!(!e.script_running());
        assert!(e
            .take_log()
            .iter()
            .any(|(_, l)| String::from_utf8_lossy(l).contains("could not pause")));
        // Inside MULTI/EXEC neither.
        run(&mut e, a, "MULTI");
        run(&mut e, a, "EVAL \"while true do end\" 0");
        let r = run(&mut e, a, "EXEC");
        assert!(
            matches!(&r, Reply::Array(v) if matches!(&v[..], [Reply::Error(m)] if m.contains("SCRIPT KILL"))),
            "{r:?}"
        );
    }

    #[test]
    fn ctrl_c_on_the_caller_asks_its_script_to_stop() {
        let (mut e, a, _) = engine();
        run(&mut e, a, "EVAL \"while true do end\" 0");
        assert!(e.script_running());
        assert_eq!(e.interrupt(a).script, Some(true));
        assert!(!e.resume_script());
        let killed = e.take_pushes(a);
        assert!(
            matches!(&killed[..], [Reply::Error(m)] if m.contains("SCRIPT KILL")),
            "{killed:?}"
        );
    }
}
