//! A script run that can pause, so that a long script never holds its host for good.
//!
//! Redis keeps serving other clients while a script runs past `busy-reply-threshold`: its
//! count hook re-enters the event loop (`processEventsWhileBlocked`), other clients get
//! `BUSY`, and `SCRIPT KILL` can reach the script. kvlab cannot re-enter its host's loop (a
//! browser page has one thread and no nested event loop; the native server is one
//! cooperative task per connection), so the script pauses instead: it runs in a coroutine,
//! and when the host's [`Host::interrupt`] answers [`Interrupt::Pause`], the count hook
//! yields it. The host gets [`Step::Paused`], serves others, and calls
//! [`resume`] when it is ready to go on.
//!
//! To the script that coroutine is the main thread Redis runs it on: `coroutine.running()`
//! answers nil and `coroutine.yield` fails with Redis's error, since only the hook may
//! yield a thread marked as a script's (build.rs's `PAUSE_PATCHES`). Redis's error
//! handler (which names the line that failed) cannot be given to a coroutine's resume, so
//! [`finish`] calls it on the dead coroutine, whose frames Lua leaves as they were at the
//! error: it sees what it would have seen.
//!
//! A pause must reach the script's thread through every frame between: a C function (a
//! metamethod, a `table.sort` comparator, `string.gsub`'s callback) cannot be yielded
//! across, so the hook only yields when it runs at the thread's own level. `pcall`, the
//! commonest such frame (`while 1 do pcall(f) end`), runs its function in a thread of its
//! own instead and passes the pause on (`api::redis_pcall_global`): the run keeps a stack
//! of threads, resumes the innermost first and, when it ends, hands its results to the
//! `pcall` waiting one level down, exactly what `lua_pcall` would have returned. Where a
//! pause cannot happen the script simply goes on, and the hook asks again 100,000
//! instructions later.
use super::convert;
use super::{Host, ScriptError, Shared, Value};
use crate::cstr;
use crate::ffi::*;
use std::ffi::{c_char, c_int};

/// What the host wants of a running script, each time the count hook asks
/// ([`Host::interrupt`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Interrupt {
    /// Go on.
    Continue,
    /// Pause where it is, if it can (see the module's docs); the host resumes it later.
    Pause,
    /// Stop with Redis's `SCRIPT KILL` error.
    Kill,
}

/// Where a run stands after [`Env::start_script`](super::Env::start_script) or a resume.
#[derive(Debug, Clone, PartialEq)]
pub enum Step {
    /// The script ended: its reply, or its error.
    Done(Result<Value, ScriptError>),
    /// The script paused; resume it to go on.
    Paused,
}

impl Step {
    /// The result, when the script ended.
    pub fn done(self) -> Option<Result<Value, ScriptError>> {
        match self {
            Step::Done(r) => Some(r),
            Step::Paused => None,
        }
    }
}

/// The registry table anchoring the run's threads (by depth, from 1) against the
/// collector.
const THREADS: *const c_char = cstr!("kvlab_threads");
/// The registry key of the environment's error handler (Redis's `__redis__err__handler`
/// for EVAL, the functions' own for FCALL).
pub(crate) const ERROR_HANDLER: *const c_char = cstr!("kvlab_error_handler");

/// Sets up the registry entries a run uses; called once per state, protected.
pub(crate) unsafe fn setup(l: *mut lua_State) {
    // SAFETY: called inside lua_cpcall during the state's setup; no user code runs.
    unsafe {
        lua_newtable(l);
        lua_setfield(l, LUA_REGISTRYINDEX, THREADS);
    }
}

/// Arms a run: the host, RESP2, the count hook (Redis installs it when
/// `busy-reply-threshold` is set, which it always is here).
unsafe fn arm(l: *mut lua_State, shared: &mut Shared, host: &mut dyn Host) {
    set_host(shared, host);
    shared.resp = 2;
    shared.killing = false;
    // A debug run (debug.rs) gets the script's line events too.
    let mask = LUA_MASKCOUNT | if shared.debug { LUA_MASKLINE } else { 0 };
    shared.position = None;
    // SAFETY: the hook finds Shared through the registry (set up with the state).
    unsafe { kvlab_sethook(l, Some(super::api::count_hook), mask, 100_000) };
}

fn set_host(shared: &mut Shared, host: &mut dyn Host) {
    // SAFETY: erasing the lifetime: the pointer is cleared before the run step returns.
    let host: *mut (dyn Host + 'static) = unsafe { std::mem::transmute(host as *mut dyn Host) };
    shared.host = Some(host);
}

/// Starts a run of the function under the `nargs` arguments on top of `l`, which are
/// taken off it. `name` names the script in errors (`f_<sha>`, or the function's name).
pub(crate) unsafe fn start(
    l: *mut lua_State,
    shared: &mut Shared,
    host: &mut dyn Host,
    nargs: c_int,
    name: &str,
) -> Step {
    // SAFETY: the function and its arguments are on top of `l`.
    unsafe {
        debug_assert!(shared.threads.is_empty(), "a run is already in progress");
        arm(l, shared, host);
        let co = lua_newthread(l);
        kvlab_setscript(co, l);
        push_thread(l, shared);
        lua_xmove(l, co, nargs + 1);
        shared.name = name.to_string();
        drive(l, shared, nargs)
    }
}

/// Goes on with a paused run.
pub(crate) unsafe fn resume(l: *mut lua_State, shared: &mut Shared, host: &mut dyn Host) -> Step {
    if shared.threads.is_empty() {
        return Step::Done(Err(ScriptError(b"ERR no script is paused".to_vec())));
    }
    set_host(shared, host);
    shared.position = None;
    // SAFETY: the threads are anchored and suspended by their last yield.
    unsafe { drive(l, shared, 0) }
}

/// Drops a paused run without going on (the host is shutting down, or flushing the
/// scripts).
pub(crate) unsafe fn abandon(l: *mut lua_State, shared: &mut Shared) {
    // SAFETY: un-anchoring only; the collector frees the threads.
    unsafe {
        while !shared.threads.is_empty() {
            pop_thread(l, shared);
        }
        kvlab_sethook(l, None, 0, 0);
    }
    shared.host = None;
    shared.killing = false;
    shared.debug = false;
    shared.position = None;
}

/// Anchors the thread on top of `l` (and pops it) as the run's innermost.
pub(crate) unsafe fn push_thread(l: *mut lua_State, shared: &mut Shared) {
    // SAFETY: the thread is on top; raw stores into the registry table.
    unsafe {
        let co = lua_tothread(l, -1);
        lua_getfield(l, LUA_REGISTRYINDEX, THREADS);
        lua_insert(l, -2);
        lua_rawseti(l, -2, shared.threads.len() as c_int + 1);
        lua_pop(l, 1);
        shared.threads.push(co);
    }
}

/// Un-anchors the run's innermost thread.
pub(crate) unsafe fn pop_thread(l: *mut lua_State, shared: &mut Shared) {
    // SAFETY: raw store into the registry table.
    unsafe {
        let depth = shared.threads.len() as c_int;
        lua_getfield(l, LUA_REGISTRYINDEX, THREADS);
        lua_pushnil(l);
        lua_rawseti(l, -2, depth);
        lua_pop(l, 1);
        shared.threads.pop();
    }
}

/// Resumes the innermost thread until the run pauses or the script's thread ends.
unsafe fn drive(l: *mut lua_State, shared: &mut Shared, mut nargs: c_int) -> Step {
    // SAFETY: every thread on the stack is anchored and suspended (or new).
    unsafe {
        loop {
            let depth = shared.threads.len();
            let co = shared.threads[depth - 1];
            let status = lua_resume(co, nargs);
            if status == LUA_YIELD {
                // Only the hook yields a script's threads (build.rs's PAUSE_PATCHES).
                shared.host = None;
                return Step::Paused;
            }
            if depth > 1 {
                // A pcall's thread ended: its results go to the pcall waiting below.
                let parent = shared.threads[depth - 2];
                nargs = pcall_results(co, status, parent);
                pop_thread(l, shared);
                continue;
            }
            let name = std::mem::take(&mut shared.name);
            let out = finish(l, shared, co, status, &name);
            pop_thread(l, shared);
            disarm(l, shared);
            return Step::Done(out);
        }
    }
}

/// Pushes on `to` what `pcall` returns for a function that ended with `status` in
/// thread `co`: `true` and its results, or `false` and the error — an error table from
/// `redis.call` as its `err` string, as Redis 7's `pcall` does. Returns the count.
pub(crate) unsafe fn pcall_results(co: *mut lua_State, status: c_int, to: *mut lua_State) -> c_int {
    // SAFETY: `co` has ended; values move between threads of one state.
    unsafe {
        if status == 0 {
            let n = lua_gettop(co);
            lua_checkstack(to, n + 1);
            lua_pushboolean(to, 1);
            lua_xmove(co, to, n);
            n + 1
        } else {
            lua_checkstack(to, 3);
            lua_pushboolean(to, 0);
            lua_xmove(co, to, 1);
            err_field_as_string(to);
            2
        }
    }
}

/// Replaces an error table on top by its `err` string, if it has one.
pub(crate) unsafe fn err_field_as_string(l: *mut lua_State) {
    // SAFETY: raw reads of the value on top.
    unsafe {
        if lua_istable(l, -1) {
            lua_pushstring(l, cstr!("err"));
            lua_rawget(l, -2);
            if lua_isstring(l, -1) != 0 {
                lua_replace(l, -2);
            } else {
                lua_pop(l, 1);
            }
        }
    }
}

/// The script's thread `co` ended with `status`: its reply (its first result), or its
/// error as Redis's handler would have left it, turned into the error reply.
unsafe fn finish(
    l: *mut lua_State,
    shared: &mut Shared,
    co: *mut lua_State,
    status: c_int,
    name: &str,
) -> Result<Value, ScriptError> {
    // SAFETY: `co` has ended; its stack (and, after an error, its call frames) is intact.
    unsafe {
        if status == 0 {
            if lua_gettop(co) == 0 {
                lua_pushnil(co);
            }
            lua_settop(co, 1);
            shared.counted_errors.clear();
            let v = convert::lua_to_value(co, shared.resp, &mut shared.counted_errors);
            lua_settop(co, 0);
            return Ok(v);
        }
        // Redis runs its handler where the error was raised, before Lua unwinds; a dead
        // thread keeps its frames as they were then, so the handler, called on top of
        // them, sees exactly what it would have seen (its `debug.getinfo(2)` is the
        // function that raised). Memory errors skip the handler, as in lua_pcall.
        lua_checkstack(co, 3);
        if status != LUA_ERRMEM {
            lua_getfield(co, LUA_REGISTRYINDEX, ERROR_HANDLER);
            lua_insert(co, -2);
            if lua_pcall(co, 1, 1, 0) != 0 {
                // What lua_pcall reports when the handler itself fails.
                lua_pop(co, 1);
                lua_pushstring(co, cstr!("error in error handling"));
            }
        }
        lua_checkstack(l, 2);
        lua_xmove(co, l, 1);
        shared.counted_errors = vec![convert::is_counted_error(l)];
        let e = convert::script_error(l, name);
        lua_pop(l, 1);
        Err(ScriptError(e))
    }
}

/// Ends a run: no hook, a collector step every 50 runs (Redis's `LUA_GC_CYCLE_PERIOD`),
/// no host.
unsafe fn disarm(l: *mut lua_State, shared: &mut Shared) {
    // SAFETY: nothing runs on the state now.
    unsafe {
        kvlab_sethook(l, None, 0, 0);
        shared.runs = shared.runs.wrapping_add(1);
        if shared.runs % GC_PERIOD == 0 {
            lua_gc(l, LUA_GCSTEP, GC_PERIOD as c_int);
        }
    }
    shared.host = None;
    shared.killing = false;
    shared.debug = false;
    shared.position = None;
}

/// Redis's `LUA_GC_CYCLE_PERIOD`: every 50 runs, 50 steps of the collector, so that no
/// full cycle lands on one script.
const GC_PERIOD: u32 = 50;
