//! The slices after a script's first: [`Engine::resume_script`] runs the next one, passes
//! `busy-reply-threshold`, and ends the run (see [`crate::engine::busy`]).

use super::eval::script_reply;
use super::host::ScriptHost;
use crate::engine::blocking::BlockOp;
use crate::engine::busy::{RunEnv, Running};
use crate::engine::cmd::multi::wrap_effects;
use crate::engine::core::client::Client;
use crate::engine::core::ctx::Ctx;
use crate::engine::core::dispatch::offer_to_slowlog;
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
        let caller_id = r.caller;
        let connected = self.clients.contains_key(&caller_id);
        let mut caller = self
            .clients
            .remove(&caller_id)
            .unwrap_or_else(|| Client::new(caller_id, "", "", r.now_ms, true));
        let Running {
            caller: _,
            client,
            checks,
            first_effect,
            now_ms,
            started_us,
            eval,
            name,
            argv,
            kill,
            timed_out,
            waiters,
            env,
        } = *r;
        let RunEnv::Eval(mut env) = env;
        let table = self.table();
        let mut ctx = Ctx {
            srv: &mut self.srv,
            client: &mut caller,
            others: &mut self.clients,
            table,
            now_ms,
            dirty: 0,
            propagate: None,
            replies: Vec::new(),
            signalled: false,
            wakes_blocked: true,
            deny_blocking: false,
            no_reply: false,
        };
        let mut host = ScriptHost {
            ctx: &mut ctx,
            client,
            checks,
            can_pause: true,
            slice_us: now_us,
            kill,
            name,
        };
        let step = env.resume(&mut host);
        let ScriptHost {
            client,
            checks,
            kill,
            name,
            ..
        } = host;
        for (level, line) in env.take_log() {
            self.srv.log(level, &line);
        }
        if connected {
            self.clients.insert(caller_id, caller);
        }
        let r = Box::new(Running {
            caller: caller_id,
            client,
            checks,
            first_effect,
            now_ms,
            started_us,
            eval,
            name,
            argv,
            kill,
            timed_out,
            waiters,
            env: RunEnv::Eval(env),
        });
        match step {
            Step::Paused => {
                self.srv.running = Some(r);
                // Clients released at the threshold have what they sent answered now.
                self.after_command();
                true
            }
            Step::Done(out) => {
                self.end_script(r, out);
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
    fn end_script(&mut self, r: Box<Running>, out: Result<Value, ScriptError>) {
        let Running {
            caller,
            first_effect,
            started_us,
            waiters,
            env,
            ..
        } = *r;
        let RunEnv::Eval(env) = env;
        self.srv.scripts.put_env(env);
        wrap_effects(&mut self.srv.effects, first_effect);
        let blocked = self.srv.unblock(caller);
        if self.clients.contains_key(&caller) {
            let duration = self.srv.clock.monotonic_us() - started_us;
            if let (Some(b), Some(c)) = (&blocked, self.clients.get(&caller)) {
                if !b.argv.is_empty() {
                    offer_to_slowlog(&mut self.srv, c, &b.argv, duration);
                }
            }
            if self.reply_wanted(caller) {
                self.srv.send(caller, script_reply(out));
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
