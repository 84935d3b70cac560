//! The scripting environment Redis 7.0 gives EVAL scripts: its globals (an allow list
//! while the libraries load, then read-only, with an error on reading a missing global),
//! the `redis` table, `math.random` on Redis's own generator, the error handler that adds
//! the script's line to an error, and the conversions between Lua values and replies.
//!
//! The engine drives it through [`Env`] and answers its commands through [`Host`].
mod api;
mod convert;
mod debug;
mod function;
mod protect;
mod run;

use crate::cstr;
use crate::ffi::*;
use crate::state::{self, Lua};
use std::ffi::{c_int, c_void, CString};

pub use convert::Value;
pub use debug::Position;
pub use function::{valid_name as function_name_ok, FunctionEnv, Registered};
pub use run::{Interrupt, Step};

/// What a script asks of the server while it runs.
pub trait Host {
    /// Runs one command for `redis.call`/`redis.pcall` and returns its reply as the
    /// protocol `resp` (2 or 3, `redis.setresp`) would carry it. A command refused before
    /// it ran (unknown, not allowed from scripts, a write in a read-only script) answers
    /// its error as [`Value::Error`] too.
    fn call(&mut self, argv: Vec<Vec<u8>>, resp: u8) -> Value;
    /// Called every 100,000 instructions (Redis's `scriptInterrupt`): go on, pause (see
    /// [`Step::Paused`]), or kill the script (SCRIPT KILL, FUNCTION KILL).
    fn interrupt(&mut self) -> Interrupt {
        Interrupt::Continue
    }
    /// In a debug run ([`Env::start_debug`]): the script is about to run `line` (of its
    /// own chunk; see debug.rs for which lines are seen). [`Interrupt::Pause`] stops it
    /// before that line ([`Interp::position`] then tells where it stands), `Kill` stops it
    /// as SCRIPT KILL does. Not called in other runs.
    fn on_line(&mut self, _line: i32) -> Interrupt {
        Interrupt::Continue
    }
    /// `redis.log(level, ...)`, for levels at or above [`Host::verbosity`].
    fn log(&mut self, level: i32, message: &[u8]);
    /// The server's log level (0 debug, 1 verbose, 2 notice, 3 warning).
    fn verbosity(&self) -> i32 {
        2
    }
    /// `redis.set_repl(flags)` (already checked to be a combination of `REPL_*`).
    fn set_repl(&mut self, _flags: i32) {}
    /// `redis.acl_check_cmd(...)`: `None` when there is no such command.
    fn acl_check(&mut self, argv: &[Vec<u8>]) -> Option<bool>;
}

/// The state a running script's Rust functions share (upvalue 2 of each, as a light
/// userdata). Boxed, so its address is stable.
pub(crate) struct Shared {
    /// The host of the script running now; `None` outside a run.
    host: Option<*mut (dyn Host + 'static)>,
    /// `redis.setresp`: the protocol replies come to the script in (2 at each run's start).
    resp: u8,
    /// Redis's `redisLrand48` state (48 bits), which `math.random` draws from. Like Redis's,
    /// it lives as long as the environment and is not reseeded per script.
    rand48: u64,
    /// Inside `redis.call`: a hook calling it again is refused, as Redis does.
    in_call: bool,
    /// What `redis.log` said with no script running (it goes to the host otherwise).
    pending_log: Vec<(i32, Vec<u8>)>,
    /// A kill was asked: the hook now fires on every line, so `pcall` cannot swallow it.
    killing: bool,
    /// `lua-enable-deprecated-api`, read while the environment is set up.
    deprecated_api: bool,
    /// Scripts run so far (the collector steps every 50, run.rs).
    runs: u32,
    /// The library being loaded (FUNCTION LOAD), for `redis.register_function`.
    loading: Option<*mut function::LoadCtx>,
    /// The threads of the run in progress: the script's, then one per `pcall` running
    /// in a thread of its own (run.rs); empty between runs.
    threads: Vec<*mut lua_State>,
    /// The name errors of the run in progress are reported under.
    name: String,
    /// The errors of the last run's reply, counted already or not (see
    /// [`Env::counted_errors`]).
    counted_errors: Vec<bool>,
    /// The run in progress is a debug run: line events reach [`Host::on_line`].
    debug: bool,
    /// Where a paused debug run stands (debug.rs), captured as it paused.
    position: Option<debug::Position>,
}

/// A script's failure, as the reply Redis sends for it.
#[derive(Debug, Clone, PartialEq)]
pub struct ScriptError(pub Vec<u8>);

/// A Lua state and what its Rust functions share: the part every scripting environment
/// has (EVAL's [`Env`], the functions' [`FunctionEnv`], which deref to it): its memory,
/// its log, and a run that paused.
pub struct Interp {
    pub(crate) lua: Lua,
    pub(crate) shared: Box<Shared>,
}

impl Interp {
    /// A bare state set up by `setup`, which runs protected with the new Shared as its
    /// light userdata argument; `what` names it if that fails (it cannot, short of a bug).
    fn new(setup: lua_CFunction, deprecated_api: bool, what: &str) -> Interp {
        let lua = Lua::bare();
        let mut shared = Box::new(Shared {
            host: None,
            resp: 2,
            rand48: api::RAND48_INITIAL,
            in_call: false,
            pending_log: Vec::new(),
            killing: false,
            deprecated_api,
            runs: 0,
            loading: None,
            threads: Vec::new(),
            name: String::new(),
            counted_errors: Vec::new(),
            debug: false,
            position: None,
        });
        let ptr = &mut *shared as *mut Shared as *mut c_void;
        // SAFETY: setup runs protected; `shared` outlives the state (dropped after it).
        let status = unsafe { lua_cpcall(lua.raw(), setup, ptr) };
        if status != 0 {
            // SAFETY: the error message is on top.
            let msg = unsafe { state::to_bytes(lua.raw(), -1) }.unwrap_or_default();
            panic!(
                "setting up {what} failed: {}",
                String::from_utf8_lossy(&msg)
            );
        }
        Interp { lua, shared }
    }

    /// Bytes the interpreter holds (INFO's `used_memory_lua`, `used_memory_vm_functions`),
    /// in whole kilobytes as Redis's `luaMemory` reports them.
    pub fn memory(&self) -> usize {
        // SAFETY: a query on our own state.
        unsafe { lua_gc(self.lua.raw(), LUA_GCCOUNT, 0) as usize * 1024 }
    }

    /// What `redis.log` wrote while no script ran (while a library loaded, say).
    pub fn take_log(&mut self) -> Vec<(i32, Vec<u8>)> {
        std::mem::take(&mut self.shared.pending_log)
    }

    /// For each error in the reply of the last run that ended, in order (depth first):
    /// true if a `redis.call` or `redis.pcall` got it from a command, whose error the
    /// server counted then (Redis's `ignore_error_stats_update` field); false for the
    /// script's own errors (`redis.error_reply`, `error()`).
    pub fn counted_errors(&self) -> &[bool] {
        &self.shared.counted_errors
    }

    /// Where the paused debug run stands: the line about to run and the locals of the
    /// script's innermost frame. `None` outside a debug run, or when it paused where no
    /// frame of the script is (it never does).
    pub fn position(&self) -> Option<&Position> {
        self.shared.position.as_ref()
    }

    /// Goes on with the paused run, with `host` for what it asks from now on.
    pub fn resume(&mut self, host: &mut dyn Host) -> Step {
        // SAFETY: the run's threads are anchored and suspended.
        unsafe { run::resume(self.lua.raw(), &mut self.shared, host) }
    }

    /// True while a run is paused here.
    pub fn is_paused(&self) -> bool {
        !self.shared.threads.is_empty()
    }

    /// Drops the paused run without running the rest of it.
    pub fn abandon(&mut self) {
        // SAFETY: un-anchoring only.
        unsafe { run::abandon(self.lua.raw(), &mut self.shared) }
    }
}

/// A Lua state set up as Redis 7.0's EVAL environment.
pub struct Env(Interp);

impl std::ops::Deref for Env {
    type Target = Interp;
    fn deref(&self) -> &Interp {
        &self.0
    }
}

impl std::ops::DerefMut for Env {
    fn deref_mut(&mut self) -> &mut Interp {
        &mut self.0
    }
}

impl Env {
    /// A fresh environment (Redis's `scriptingInit`).
    pub fn new() -> Env {
        Env::with_deprecated_api(false)
    }

    /// A fresh environment; `deprecated_api` (`lua-enable-deprecated-api`) keeps
    /// `setfenv`, `getfenv` and `newproxy`.
    pub fn with_deprecated_api(deprecated_api: bool) -> Env {
        Env(Interp::new(
            setup_eval,
            deprecated_api,
            "the scripting environment",
        ))
    }

    /// Whether the script named `f_<sha>` is compiled in this environment.
    pub fn has_script(&self, sha: &str) -> bool {
        let name = script_key(sha);
        // SAFETY: a raw registry read on our own state.
        unsafe {
            lua_getfield(self.lua.raw(), LUA_REGISTRYINDEX, name.as_ptr());
            let found = !lua_isnil(self.lua.raw(), -1);
            lua_pop(self.lua.raw(), 1);
            found
        }
    }

    /// Compiles a script body (its shebang line already blanked out by the caller, the
    /// line feed kept) and keeps it under `f_<sha>`; Redis's `luaCreateFunction`. The
    /// error is Lua's message ("user_script:1: ...").
    pub fn create_script(&mut self, sha: &str, body: &[u8]) -> Result<(), Vec<u8>> {
        let l = self.lua.raw();
        let name = script_key(sha);
        // SAFETY: loading returns a status; the stack is balanced on both paths.
        unsafe {
            if luaL_loadbuffer(
                l,
                body.as_ptr() as *const _,
                body.len(),
                cstr!("@user_script"),
            ) != 0
            {
                let msg = state::to_bytes(l, -1).unwrap_or_default();
                lua_pop(l, 1);
                return Err(msg);
            }
            lua_setfield(l, LUA_REGISTRYINDEX, name.as_ptr());
        }
        Ok(())
    }

    /// Runs the script `f_<sha>` (compiled by [`Env::create_script`]) with KEYS and ARGV
    /// (Redis's `luaCallFunction` in EVAL mode) to its end: [`Env::start_script`], resumed
    /// as long as it pauses. `Err` is the error reply's text.
    pub fn run_script(
        &mut self,
        sha: &str,
        keys: &[&[u8]],
        argv: &[&[u8]],
        host: &mut dyn Host,
    ) -> Result<Value, ScriptError> {
        let mut step = self.start_script(sha, keys, argv, host);
        loop {
            match step {
                Step::Done(out) => return out,
                Step::Paused => step = self.resume(host),
            }
        }
    }

    /// Starts the script `f_<sha>` with KEYS and ARGV. It runs until it ends or until
    /// the host's [`Host::interrupt`] pauses it ([`Step::Paused`]); then nothing else may
    /// run in this environment until [`Interp::resume`] has run it to its end (or
    /// [`Interp::abandon`] dropped it).
    pub fn start_script(
        &mut self,
        sha: &str,
        keys: &[&[u8]],
        argv: &[&[u8]],
        host: &mut dyn Host,
    ) -> Step {
        let l = self.lua.raw();
        let name = script_key(sha);
        // SAFETY: the host pointer is only used during the step and cleared before it
        // returns; every Lua call runs protected (in lua_resume).
        unsafe {
            lua_getfield(l, LUA_REGISTRYINDEX, name.as_ptr());
            if lua_isnil(l, -1) {
                lua_pop(l, 1);
                return Step::Done(Err(ScriptError(
                    b"NOSCRIPT No matching script. Please use EVAL.".to_vec(),
                )));
            }
            set_global_array(l, cstr!("KEYS"), keys);
            set_global_array(l, cstr!("ARGV"), argv);
            run::start(l, &mut self.shared, host, 0, sha)
        }
    }

    /// [`Env::start_script`] in debug mode: the host's [`Host::on_line`] is asked at each
    /// new line of the script, and can pause it there (see debug.rs).
    pub fn start_debug(
        &mut self,
        sha: &str,
        keys: &[&[u8]],
        argv: &[&[u8]],
        host: &mut dyn Host,
    ) -> Step {
        self.shared.debug = true;
        let step = self.start_script(sha, keys, argv, host);
        if matches!(step, Step::Done(_)) {
            self.shared.debug = false;
        }
        step
    }
}

impl Default for Env {
    fn default() -> Self {
        Env::new()
    }
}

/// A log line from code with no host to hand (the allow list, during setup): kept for
/// [`Env::take_log`].
pub(crate) unsafe fn log_without_host(l: *mut lua_State, level: i32, msg: Vec<u8>) {
    // SAFETY: setup stores the Shared pointer under this registry key first.
    unsafe {
        lua_getfield(l, LUA_REGISTRYINDEX, cstr!("kvlab_shared"));
        let s = lua_touserdata(l, -1) as *mut Shared;
        lua_pop(l, 1);
        if let Some(s) = s.as_mut() {
            match s.host {
                Some(h) => (*h).log(level, &msg),
                None => s.pending_log.push((level, msg)),
            }
        }
    }
}

fn script_key(sha: &str) -> CString {
    CString::new(format!("f_{}", sha.to_ascii_lowercase())).unwrap()
}

/// KEYS / ARGV: a fresh array in the (read-only) globals, opened for the store.
unsafe fn set_global_array(l: *mut lua_State, name: *const std::ffi::c_char, items: &[&[u8]]) {
    // SAFETY: raw stores into a new table and into the globals with protection lifted.
    unsafe {
        lua_createtable(l, items.len() as c_int, 0);
        for (i, item) in items.iter().enumerate() {
            lua_pushlstring(l, item.as_ptr() as *const _, item.len());
            lua_rawseti(l, -2, i as c_int + 1);
        }
        lua_enablereadonlytable(l, LUA_GLOBALSINDEX, 0);
        lua_pushstring(l, name);
        lua_insert(l, -2);
        lua_rawset(l, LUA_GLOBALSINDEX);
        lua_enablereadonlytable(l, LUA_GLOBALSINDEX, 1);
    }
}

/// Redis's pcall error handler, kept as a global: turns any error into a table
/// `{err=..., source=..., line=...}` naming the caller of a C function that failed.
const ERROR_HANDLER: &str = concat!(
    "local dbg = debug\n",
    "debug = nil\n",
    "function __redis__err__handler(err)\n",
    "  local i = dbg.getinfo(2,'nSl')\n",
    "  if i and i.what == 'C' then\n",
    "    i = dbg.getinfo(3,'nSl')\n",
    "  end\n",
    "  if type(err) ~= 'table' then\n",
    "    err = {err='ERR ' .. tostring(err)}",
    "  end",
    "  if i then\n",
    "    err['source'] = i.source\n",
    "    err['line'] = i.currentline\n",
    "  end",
    "  return err\n",
    "end\n",
);

/// `scriptingInit`: runs inside `lua_cpcall`, so Lua errors here are caught.
unsafe extern "C" fn setup_eval(l: *mut lua_State) -> c_int {
    // SAFETY: protected; `ud` is the Box<Shared> of the Env being built.
    unsafe {
        let shared = lua_touserdata(l, 1);
        lua_pop(l, 1);
        lua_pushlightuserdata(l, shared);
        lua_setfield(l, LUA_REGISTRYINDEX, cstr!("kvlab_shared"));
        protect::allow_list_globals(l, (*(shared as *mut Shared)).deprecated_api);
        state::open_standard_libs(l);
        crate::libs_open(l);
        api::register(l, shared);
        api::register_debugger_stubs(l, shared);
        run::setup(l);
        // Setup runs no user code: nothing here can fail short of memory running out,
        // which aborts (state.rs), so no error ever unwinds through this Rust frame.
        let status = luaL_loadbuffer(
            l,
            ERROR_HANDLER.as_ptr() as *const _,
            ERROR_HANDLER.len(),
            cstr!("@err_handler_def"),
        );
        debug_assert_eq!(status, 0);
        lua_call(l, 0, 0);
        lua_getglobal(l, cstr!("__redis__err__handler"));
        lua_setfield(l, LUA_REGISTRYINDEX, run::ERROR_HANDLER);
        protect::lock_globals(l);
    }
    0
}

#[cfg(test)]
mod debug_tests;
#[cfg(test)]
mod tests;
