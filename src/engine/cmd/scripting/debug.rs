//! The workbench's script debugger, kvlab's counterpart of Redis's `SCRIPT DEBUG` (LDB):
//! an `EVAL` run under [`Engine::debug_eval`] stops before each line of the script, tells
//! where it stands ([`Engine::debugger`]: the line, its locals, the `redis.call`s so far
//! with their replies), and goes on with [`Engine::debug_step`] (to the next line),
//! [`Engine::debug_continue`] (to the end, in slices, as any script) or stops with
//! [`Engine::debug_abort`].
//!
//! It is built on the pause of long scripts ([`crate::engine::busy`]): kvlab-lua's debug
//! run asks [`Host::on_line`] at each line and pauses there, and [`DebugHost`] wraps the
//! run's [`ScriptHost`] to answer it and to record each call. A stopped script is a
//! paused one that [`Engine::resume_script`] leaves alone (it only passes
//! `busy-reply-threshold` on time); to everyone else it is a script that runs long.
//!
//! Stop ends the script where it is (its run is abandoned) with LDB's error, even after
//! it wrote, as LDB's `abort` does in its synchronous mode: what it wrote until then stays
//! (it is in the dataset already) and is handed out as any script's writes are (several as
//! one `MULTI`/`EXEC`), so persistence and other tabs lose nothing of what the learner's
//! pane shows. A caller that goes away (its pane closed) lets its script run on to its end.

use kvlab_lua::redis::{Host, Interrupt, ScriptError, Value};

use super::host::{to_reply, ScriptHost};
use crate::engine::busy::{DebugCall, Debugger, RunEnv};
use crate::engine::cli::format_reply_for;
use crate::engine::{ClientId, Engine};

/// A debugged run's host: the run's own [`ScriptHost`], which answers everything as in
/// any run, and the [`Debugger`], which decides at each line and records the calls.
pub(super) struct DebugHost<'h, 'c, 'a> {
    pub inner: &'h mut ScriptHost<'c, 'a>,
    pub dbg: &'h mut Debugger,
}

impl Host for DebugHost<'_, '_, '_> {
    fn call(&mut self, argv: Vec<Vec<u8>>, resp: u8) -> Value {
        let reply = self.inner.call(argv.clone(), resp);
        let text = format_reply_for(&to_reply(reply.clone()), resp);
        self.dbg.calls.push(DebugCall {
            line: self.dbg.line,
            argv,
            reply: text,
        });
        reply
    }

    fn interrupt(&mut self) -> Interrupt {
        self.inner.interrupt()
    }

    fn on_line(&mut self, line: i32) -> Interrupt {
        if self.inner.kill {
            return Interrupt::Kill;
        }
        self.dbg.line = line;
        if self.dbg.stepping {
            self.dbg.stopped = true;
            Interrupt::Pause
        } else {
            Interrupt::Continue
        }
    }

    fn log(&mut self, level: i32, message: &[u8]) {
        self.inner.log(level, message);
    }

    fn verbosity(&self) -> i32 {
        self.inner.verbosity()
    }

    fn set_repl(&mut self, flags: i32) {
        self.inner.set_repl(flags);
    }

    fn acl_check(&mut self, argv: &[Vec<u8>]) -> Option<bool> {
        self.inner.acl_check(argv)
    }
}

impl Engine {
    /// Runs `argv` (an `EVAL`, `EVAL_RO`, `EVALSHA` or `EVALSHA_RO`) for `client` as
    /// [`Engine::submit`] does, under the debugger: every check and reply is the command's
    /// own, and the script stops before its first line ([`Engine::debugger`]). Its reply
    /// comes, as a paused script's, when it ends. Any other command runs as it would.
    pub fn debug_eval(&mut self, client: ClientId, argv: Vec<Vec<u8>>) {
        self.srv.debug_next = Some(client);
        self.submit(client, argv);
        self.srv.debug_next = None;
    }

    /// The script running under the debugger, and its caller.
    pub fn debugger(&self) -> Option<(ClientId, &Debugger)> {
        let r = self.srv.running.as_ref()?;
        Some((r.caller, r.debug.as_deref()?))
    }

    /// True while a debugged script is stopped before a line, waiting for the learner.
    pub fn debug_stopped(&self) -> bool {
        self.debugger().is_some_and(|(_, d)| d.stopped)
    }

    /// Step: runs the stopped script to its next line (in slices, if that takes long:
    /// [`Engine::resume_script`] goes on). Returns whether it is still running.
    pub fn debug_step(&mut self) -> bool {
        self.debug_go(true)
    }

    /// Continue: runs the stopped script on to its end, in slices, as any script.
    pub fn debug_continue(&mut self) -> bool {
        self.debug_go(false)
    }

    /// Stop: ends the debugged script where it is, stopped or between two slices (see the
    /// module's docs): its caller gets `ERR script aborted for user request`, with the
    /// script and line as Redis names them in a script's errors. Returns whether a script
    /// is still running (one that is not debugged is left alone).
    pub fn debug_abort(&mut self) -> bool {
        let Some(mut r) = self.srv.running.take() else {
            return false;
        };
        let (Some(d), RunEnv::Eval(env)) = (r.debug.as_deref(), &mut r.env) else {
            self.srv.running = Some(r);
            return true;
        };
        env.abandon();
        let sha = r.name.strip_prefix("f_").unwrap_or(&r.name);
        let msg = format!(
            "ERR script aborted for user request script: {sha}, on @user_script:{}.",
            d.line
        );
        self.srv.log(
            3,
            format!("Script {} aborted in the debugger.", r.name).as_bytes(),
        );
        self.end_script(*r, Err(ScriptError(msg.into_bytes())));
        false
    }

    fn debug_go(&mut self, stepping: bool) -> bool {
        let Some(d) = self.srv.running.as_mut().and_then(|r| r.debug.as_mut()) else {
            return self.script_running();
        };
        d.stopped = false;
        d.stepping = stepping;
        d.position = None;
        self.resume_script()
    }
}

#[cfg(test)]
mod tests {
    use crate::engine::splitargs::split_args;
    use crate::engine::testing::{connected_at, effects, run, T0};
    use crate::engine::{Engine, Reply};

    /// The script of the workbench's e2e test; its reply recorded from redis-server
    /// 7.0.15 (`redis-cli EVAL "…" 1 dbg:counter 5`: `1) (integer) 5`, `2) (integer) 10`).
    const SCRIPT: &str = "local n = redis.call('INCRBY', KEYS[1], ARGV[1])\nlocal doubled = n * 2\nredis.call('SET', 'last', doubled)\nreturn {n, doubled}";

    fn debug(e: &mut Engine, c: crate::engine::ClientId) {
        let mut argv = split_args("EVAL x 1 dbg:counter 5").unwrap();
        argv[1] = SCRIPT.as_bytes().to_vec();
        e.debug_eval(c, argv);
    }

    fn at(e: &Engine) -> (i32, Vec<String>, Vec<String>) {
        let (_, d) = e.debugger().expect("a debugged script");
        assert!(d.stopped);
        let p = d.position.as_ref().unwrap();
        (
            p.line,
            p.locals.iter().map(|(n, v)| format!("{n}={v}")).collect(),
            d.calls
                .iter()
                .map(|c| {
                    let argv: Vec<String> = c
                        .argv
                        .iter()
                        .map(|a| String::from_utf8_lossy(a).into_owned())
                        .collect();
                    format!("{}: {} -> {}", c.line, argv.join(" "), c.reply)
                })
                .collect(),
        )
    }

    fn strings(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn stepping_stops_before_each_line_with_locals_and_calls() {
        let (mut e, a) = connected_at(T0);
        debug(&mut e, a);
        assert!(e.script_running() && e.debug_stopped());
        assert!(e.take_pushes(a).is_empty());
        // Stopped, the script does not run on its own.
        assert!(e.resume_script());
        assert_eq!(at(&e), (1, vec![], vec![]));
        assert!(e.debug_step());
        let incr = "1: INCRBY dbg:counter 5 -> (integer) 5";
        assert_eq!(at(&e), (2, strings(&["n=5"]), strings(&[incr])));
        assert!(e.debug_step());
        assert_eq!(
            at(&e),
            (3, strings(&["n=5", "doubled=10"]), strings(&[incr]))
        );
        assert!(e.debug_step());
        let (line, _, calls) = at(&e);
        assert_eq!(line, 4);
        assert_eq!(calls, strings(&[incr, "3: SET last 10 -> OK"]));
        // Nothing of it is handed out before it ends.
        assert!(effects(&mut e).is_empty());
        assert!(!e.debug_step());
        assert!(e.debugger().is_none());
        assert_eq!(
            e.take_pushes(a),
            vec![Reply::Array(vec![Reply::Integer(5), Reply::Integer(10)])]
        );
        assert_eq!(
            effects(&mut e),
            strings(&["MULTI", "INCRBY dbg:counter 5", "SET last 10", "EXEC"])
        );
        // The next EVAL of the same script is a normal run.
        let mut argv = split_args("EVAL x 1 dbg:counter 5").unwrap();
        argv[1] = SCRIPT.as_bytes().to_vec();
        assert_eq!(
            e.execute(a, argv),
            Reply::Array(vec![Reply::Integer(10), Reply::Integer(20)])
        );
    }

    #[test]
    fn continue_runs_to_the_end_and_stop_ends_it_keeping_its_writes() {
        let (mut e, a) = connected_at(T0);
        debug(&mut e, a);
        assert!(!e.debug_continue());
        assert_eq!(
            e.take_pushes(a),
            vec![Reply::Array(vec![Reply::Integer(5), Reply::Integer(10)])]
        );
        effects(&mut e);
        debug(&mut e, a);
        e.debug_step();
        e.debug_step();
        // It wrote (INCRBY): Stop still ends it, and its write stays, handed out as any
        // script's writes are (one alone is not wrapped in MULTI/EXEC).
        assert!(!e.debug_abort());
        let out = e.take_pushes(a);
        let sha = crate::engine::scripting::sha1hex(SCRIPT.as_bytes());
        assert_eq!(
            out,
            vec![Reply::Error(format!(
                "ERR script aborted for user request script: {sha}, on @user_script:3."
            ))]
        );
        assert_eq!(effects(&mut e), strings(&["INCRBY dbg:counter 5"]));
        assert_eq!(
            run(&mut e, a, "GET dbg:counter"),
            Reply::Bulk(b"10".to_vec())
        );
        assert_eq!(run(&mut e, a, "GET last"), Reply::Bulk(b"10".to_vec()));
        // The interpreter is whole again: the same script runs, debugged or not.
        debug(&mut e, a);
        assert!(!e.debug_continue());
        assert_eq!(
            e.take_pushes(a),
            vec![Reply::Array(vec![Reply::Integer(15), Reply::Integer(30)])]
        );
    }

    #[test]
    fn others_see_a_long_script_and_a_gone_caller_lets_it_run_on() {
        let (mut e, a) = connected_at(T0);
        let b = e.connect();
        assert_eq!(
            run(&mut e, a, "CONFIG SET busy-reply-threshold 0"),
            Reply::ok()
        );
        debug(&mut e, a);
        e.submit(b, split_args("GET last").unwrap());
        // A tick while it is stopped passes the threshold: others get BUSY.
        e.resume_script();
        let busy = e.take_pushes(b);
        assert!(
            matches!(&busy[..], [Reply::Error(m)] if m.starts_with("BUSY")),
            "{busy:?}"
        );
        assert!(e.debug_stopped());
        e.disconnect(a);
        while e.resume_script() {}
        assert!(!e.script_running());
        assert_eq!(run(&mut e, b, "GET last"), Reply::Bulk(b"10".to_vec()));
    }

    #[test]
    fn other_commands_and_functions_run_as_ever() {
        let (mut e, a) = connected_at(T0);
        e.debug_eval(a, split_args("PING").unwrap());
        assert_eq!(e.take_pushes(a), vec![Reply::status("PONG")]);
        assert!(e.debugger().is_none());
        e.debug_eval(a, split_args("EVAL \"return 1\" 0").unwrap());
        assert!(e.debug_stopped());
        assert!(!e.debug_continue());
        assert_eq!(e.take_pushes(a), vec![Reply::Integer(1)]);
    }
}
