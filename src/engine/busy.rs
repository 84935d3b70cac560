//! A script that outlives one slice of the host's time: the state kept between its slices,
//! and Redis's texts for the server while it runs.
//!
//! # What happens, and how it maps to Redis
//! Redis runs a script to its end, but its count hook, once the script has run for
//! `busy-reply-threshold` milliseconds (5000, alias `lua-time-limit`), logs "Slow script
//! detected" and re-enters the event loop every 100,000 instructions: other clients then
//! get `BUSY` for every command but a few (`SCRIPT KILL`, `FUNCTION KILL`, `FUNCTION STATS`,
//! `SHUTDOWN NOSAVE`, the transaction and connection commands — Redis's `allow-busy`
//! flag), and `SCRIPT KILL` stops a script that has not written yet.
//!
//! kvlab cannot re-enter its host's loop (a browser page has one thread; the native server
//! one cooperative task per connection), so a script that runs longer than [`SLICE_MS`]
//! *pauses* (kvlab-lua's `run.rs`): the command that ran it returns with the caller
//! blocked, the host does its other work, and calls [`Engine::resume_script`] to run the
//! next slice, until the script ends and the caller gets its reply. Until the threshold,
//! what other clients send is held, unread as far as they can tell, as Redis leaves it in
//! their sockets; after it, each command is answered at once, `BUSY` or run, exactly as
//! Redis answers it. Nothing else happens meanwhile: no key expires (the script sees its
//! start's instant, as in Redis), no blocked client is served, no effect of the script is
//! handed to persistence before its end (they come out as one `MULTI`/`EXEC`).
//!
//! A script can pause only where its run can: not inside `MULTI`/`EXEC` (the transaction
//! runs in one go), and not while it is inside a C function that calls back into Lua (a
//! metamethod, a `table.sort` comparator, a coroutine of its own; `pcall` is handled). If
//! it runs `busy-reply-threshold` milliseconds where it cannot pause, nothing could reach
//! it with `SCRIPT KILL`, so kvlab kills it itself, as `SCRIPT KILL` would (with the same
//! error, and a warning in the log) — unless it has written, which Redis never lets a
//! kill undo: then it runs on.
//!
//! [`Engine::resume_script`]: crate::engine::Engine::resume_script

use kvlab_lua::redis::{Env, FunctionEnv, Interp, Position};

use crate::engine::core::client::{Client, ClientId};

/// How long a script runs before it pauses to let the host do other work, milliseconds.
pub const SLICE_MS: i64 = 20;

/// `BUSY` while an `EVAL` runs (Redis's `slowevalerr`).
pub const BUSY_EVAL: &str =
    "BUSY Redis is busy running a script. You can only call SCRIPT KILL or SHUTDOWN NOSAVE.";
/// `BUSY` while a function runs (Redis's `slowscripterr`).
pub const BUSY_FUNCTION: &str =
    "BUSY Redis is busy running a script. You can only call FUNCTION KILL or SHUTDOWN NOSAVE.";
/// `SCRIPT KILL` / `FUNCTION KILL` of a script that wrote.
pub const UNKILLABLE: &str = "UNKILLABLE Sorry the script already executed write commands against the dataset. You can either wait the script termination or kill the server in a hard way using the SHUTDOWN NOSAVE command.";

/// What `redis.call` checks for a run, kept between its slices (Redis's `scriptRunCtx`
/// flags).
#[derive(Debug, Clone, Copy, Default)]
pub struct Checks {
    /// `EVAL_RO`, or a `no-writes` script: write commands are refused.
    pub read_only: bool,
    /// `allow-oom`: memory over `maxmemory` does not refuse commands.
    pub allow_oom: bool,
    /// `maxmemory` is set and memory was over it when the script started (Redis's
    /// `pre_command_oom_state`).
    pub oom_at_start: bool,
    /// Keys of several slots are allowed (no shebang, or `allow-cross-slot-keys`).
    pub allow_cross_slot: bool,
    /// The slot of the keys touched so far (cluster mode).
    pub slot: Option<u16>,
    /// A write command ran: later checks on the server's state no longer stop it, and
    /// it can no longer be killed.
    pub write_dirty: bool,
}

/// The interpreter a paused run holds (taken out of the server's while it runs).
pub enum RunEnv {
    /// An `EVAL` script's.
    Eval(Env),
    /// A function's (`FCALL`).
    Function(FunctionEnv),
}

impl std::ops::Deref for RunEnv {
    type Target = Interp;
    /// What either interpreter does alike: its log, the paused run, its position.
    fn deref(&self) -> &Interp {
        match self {
            RunEnv::Eval(e) => e,
            RunEnv::Function(f) => f,
        }
    }
}

impl std::ops::DerefMut for RunEnv {
    fn deref_mut(&mut self) -> &mut Interp {
        match self {
            RunEnv::Eval(e) => e,
            RunEnv::Function(f) => f,
        }
    }
}

/// A script that paused (see the module's docs).
pub struct Running {
    /// The client that ran it; blocked until it ends.
    pub caller: ClientId,
    /// The client its commands run as (Redis's `lua_client`).
    pub client: Client,
    /// What `redis.call` checks.
    pub checks: Checks,
    /// The first of its effects (wrapped into one transaction when it ends).
    pub first_effect: usize,
    /// The instant its commands see (Redis's script time snapshot).
    pub now_ms: i64,
    /// When it started, on the monotonic clock, microseconds.
    pub started_us: i64,
    /// `EVAL`-family (else a function): decides the `BUSY` text and which `KILL` applies.
    pub eval: bool,
    /// Its name in the log (`f_<sha>`, or the function's name).
    pub name: String,
    /// The command that runs it (`FUNCTION STATS`).
    pub argv: Vec<Vec<u8>>,
    /// `SCRIPT KILL` (or `FUNCTION KILL`) asked it to stop.
    pub kill: bool,
    /// It passed `busy-reply-threshold`: others now get `BUSY`.
    pub timed_out: bool,
    /// The clients whose commands are held until the threshold or its end, oldest first.
    pub waiters: Vec<ClientId>,
    /// Its interpreter.
    pub env: RunEnv,
    /// The workbench's debugger, when it runs under one ([`Debugger`]).
    pub debug: Option<Box<Debugger>>,
}

/// A script run under the workbench's debugger (`Engine::debug_eval`): it stops before
/// each line while stepping, and records its `redis.call`s. Between its stops it runs as
/// any script does, in slices; while it is stopped it does not run at all, and to other
/// clients it is a script that runs long: held, then `BUSY` past `busy-reply-threshold`.
#[derive(Debug, Clone, Default)]
pub struct Debugger {
    /// The script's text, as `EVAL` gave it.
    pub body: Vec<u8>,
    /// Its KEYS.
    pub keys: Vec<Vec<u8>>,
    /// Its ARGV.
    pub argv: Vec<Vec<u8>>,
    /// Stop at the next line (Step); else run on to the end (Continue).
    pub stepping: bool,
    /// Stopped before a line, waiting for Step, Continue or Stop.
    pub stopped: bool,
    /// Where it stopped: the line about to run, and the locals of its frame.
    pub position: Option<Position>,
    /// The line it last started (what its calls are shown against).
    pub line: i32,
    /// Its `redis.call`s and `redis.pcall`s so far, oldest first.
    pub calls: Vec<DebugCall>,
}

/// One `redis.call` of a debugged script.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DebugCall {
    /// The script's line it ran on.
    pub line: i32,
    /// The command and its arguments.
    pub argv: Vec<Vec<u8>>,
    /// The reply, as redis-cli prints it (in the script's protocol, `redis.setresp`).
    pub reply: String,
}

impl std::fmt::Debug for Running {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Running")
            .field("caller", &self.caller)
            .field("name", &self.name)
            .field("kill", &self.kill)
            .field("timed_out", &self.timed_out)
            .finish()
    }
}

impl Running {
    /// The `BUSY` error other clients get.
    pub fn busy_error(&self) -> &'static str {
        if self.eval {
            BUSY_EVAL
        } else {
            BUSY_FUNCTION
        }
    }

    /// `SCRIPT KILL` (`eval`) or `FUNCTION KILL`: `Ok` once the kill is asked, else the
    /// error Redis answers (Redis's `scriptKill`).
    pub fn kill(&mut self, eval: bool) -> Result<(), &'static str> {
        if self.checks.write_dirty {
            return Err(UNKILLABLE);
        }
        if eval && !self.eval {
            return Err(BUSY_FUNCTION);
        }
        if !eval && self.eval {
            return Err(BUSY_EVAL);
        }
        self.kill = true;
        Ok(())
    }
}
