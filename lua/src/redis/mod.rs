//! The scripting environment Redis 7.0 gives EVAL scripts: its globals (an allow list
//! while the libraries load, then read-only, with an error on reading a missing global),
//! the `redis` table, `math.random` on Redis's own generator, the error handler that adds
//! the script's line to an error, and the conversions between Lua values and replies.
//!
//! The engine drives it through [`Env`] and answers its commands through [`Host`].
mod api;
mod convert;
mod function;
mod protect;

use crate::cstr;
use crate::ffi::*;
use crate::state::{self, Lua};
use std::ffi::{c_int, c_void, CString};

pub use convert::Value;
pub use function::{valid_name as function_name_ok, FunctionEnv, Registered};

/// What a script asks of the server while it runs.
pub trait Host {
    /// Runs one command for `redis.call`/`redis.pcall` and returns its reply as the
    /// protocol `resp` (2 or 3, `redis.setresp`) would carry it. A command refused before
    /// it ran (unknown, not allowed from scripts, a write in a read-only script) answers
    /// its error as [`Value::Error`] too.
    fn call(&mut self, argv: Vec<Vec<u8>>, resp: u8) -> Value;
    /// Called every 100,000 instructions (Redis's `scriptInterrupt`): `true` kills the
    /// script (SCRIPT KILL, FUNCTION KILL).
    fn interrupt(&mut self) -> bool {
        false
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
    /// Scripts run so far (the collector steps every [`GC_PERIOD`]).
    runs: u32,
    /// The library being loaded (FUNCTION LOAD), for `redis.register_function`.
    loading: Option<*mut function::LoadCtx>,
}

/// A script's failure, as the reply Redis sends for it.
#[derive(Debug, Clone, PartialEq)]
pub struct ScriptError(pub Vec<u8>);

/// A Lua state set up as Redis 7.0's EVAL environment.
pub struct Env {
    lua: Lua,
    shared: Box<Shared>,
}

impl Env {
    /// A fresh environment (Redis's `scriptingInit`).
    pub fn new() -> Env {
        Env::with_deprecated_api(false)
    }

    /// A fresh environment; `deprecated_api` (`lua-enable-deprecated-api`) keeps
    /// `setfenv`, `getfenv` and `newproxy`.
    pub fn with_deprecated_api(deprecated_api: bool) -> Env {
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
        });
        let ptr = &mut *shared as *mut Shared as *mut c_void;
        // SAFETY: setup runs protected; `shared` outlives the state (dropped after it).
        let status = unsafe { lua_cpcall(lua.raw(), setup_eval, ptr) };
        if status != 0 {
            // SAFETY: the error message is on top.
            let msg = unsafe { state::to_bytes(lua.raw(), -1) }.unwrap_or_default();
            panic!(
                "setting up the scripting environment failed: {}",
                String::from_utf8_lossy(&msg)
            );
        }
        Env { lua, shared }
    }

    /// Bytes the interpreter holds (INFO's `used_memory_lua`, Redis's `lua_gc(COUNT)`).
    pub fn memory(&self) -> usize {
        // SAFETY: a query on our own state.
        unsafe {
            lua_gc(self.lua.raw(), LUA_GCCOUNT, 0) as usize * 1024
                + lua_gc(self.lua.raw(), LUA_GCCOUNTB, 0) as usize
        }
    }

    /// What `redis.log` wrote while no script ran (while a library loaded, say).
    pub fn take_log(&mut self) -> Vec<(i32, Vec<u8>)> {
        std::mem::take(&mut self.shared.pending_log)
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
    /// (Redis's `luaCallFunction` in EVAL mode). `resp3_caller` is the caller's protocol,
    /// which decides how `false` and `nil` come out. `Err` is the error reply's text.
    pub fn run_script(
        &mut self,
        sha: &str,
        keys: &[&[u8]],
        argv: &[&[u8]],
        host: &mut dyn Host,
    ) -> Result<Value, ScriptError> {
        let l = self.lua.raw();
        let name = script_key(sha);
        // SAFETY: the host pointer is only used during this call and cleared before it
        // returns; every Lua call below is protected.
        unsafe {
            lua_getglobal(l, cstr!("__redis__err__handler"));
            lua_getfield(l, LUA_REGISTRYINDEX, name.as_ptr());
            if lua_isnil(l, -1) {
                lua_pop(l, 2);
                return Err(ScriptError(
                    b"NOSCRIPT No matching script. Please use EVAL.".to_vec(),
                ));
            }
            begin(l, &mut self.shared, host);
            set_global_array(l, cstr!("KEYS"), keys);
            set_global_array(l, cstr!("ARGV"), argv);
            let status = lua_pcall(l, 0, 1, -2);
            let out = finish(l, &mut self.shared, status, sha);
            lua_pop(l, 1); // the error handler
            out
        }
    }
}

/// Arms the run: the host, RESP2, and the count hook (Redis installs it when
/// `busy-reply-threshold` is set, which it always is here).
pub(crate) unsafe fn begin(l: *mut lua_State, shared: &mut Shared, host: &mut dyn Host) {
    // SAFETY: erasing the lifetime: the pointer is cleared in `finish`, before the
    // borrow ends.
    let host: *mut (dyn Host + 'static) = unsafe { std::mem::transmute(host as *mut dyn Host) };
    shared.host = Some(host);
    shared.resp = 2;
    shared.killing = false;
    // SAFETY: the hook finds Shared through the registry (set up with the state).
    unsafe { kvlab_sethook(l, Some(api::count_hook), LUA_MASKCOUNT, 100_000) };
}

/// Ends the run: converts the result or the error (on top) and disarms.
pub(crate) unsafe fn finish(
    l: *mut lua_State,
    shared: &mut Shared,
    status: c_int,
    name: &str,
) -> Result<Value, ScriptError> {
    // SAFETY: the result or error value is on top; conversion uses raw access only.
    let out = unsafe {
        if status == 0 {
            Ok(convert::lua_to_value(l, shared.resp))
        } else {
            Err(ScriptError(convert::script_error(l, name)))
        }
    };
    // SAFETY: as above.
    unsafe {
        lua_pop(l, 1);
        kvlab_sethook(l, None, 0, 0);
        shared.runs = shared.runs.wrapping_add(1);
        if shared.runs % GC_PERIOD == 0 {
            lua_gc(l, LUA_GCSTEP, GC_PERIOD as c_int);
        }
    }
    shared.host = None;
    out
}

impl Default for Env {
    fn default() -> Self {
        Env::new()
    }
}

/// Redis's `LUA_GC_CYCLE_PERIOD`: every 50 runs, 50 steps of the collector, so that no
/// full cycle lands on one script.
const GC_PERIOD: u32 = 50;

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
        protect::lock_globals(l);
    }
    0
}

#[cfg(test)]
mod tests;
