//! The `redis` table (Redis's `luaRegisterRedisAPI`), the `pcall` Redis puts in place of
//! Lua's, `math.random`/`math.randomseed` on Redis's generator, and the count hook.
//!
//! Each function is a [`RustFn`]: it never raises, it returns a code (see `c/glue.c`).
use super::convert::{push_error_buff, push_value, Value};
use super::{debug, run, Host, Interrupt, Shared};
use crate::args;
use crate::cstr;
use crate::ffi::*;
use crate::state::to_bytes;
use std::ffi::{c_char, c_int, c_void};

/// `redisLrand48`'s state before any `math.randomseed` (its X2:X1:X0).
pub(crate) const RAND48_INITIAL: u64 = 0x1234_ABCD_330E;
const REDIS_VERSION: &str = "7.0.15";
const REDIS_VERSION_NUM: f64 = 0x0007_000f as f64;

/// The shared state, from upvalue 2 of a function registered by [`push_fn`].
pub(super) unsafe fn shared<'a>(l: *mut lua_State) -> &'a mut Shared {
    // SAFETY: every function registered here has the Shared pointer as upvalue 2, and
    // the Box it points into outlives the state.
    unsafe { &mut *(lua_touserdata(l, lua_upvalueindex(2)) as *mut Shared) }
}

/// The host of the running script, if one runs.
unsafe fn host<'a>(s: &Shared) -> Option<&'a mut dyn Host> {
    // SAFETY: set by Env::begin for the length of a run, cleared by Env::finish.
    s.host.map(|h| unsafe { &mut *h })
}

/// Pushes `f` with the Shared pointer as its upvalue 2.
pub(super) unsafe fn push_fn(l: *mut lua_State, f: RustFn, shared: *mut c_void) {
    // SAFETY: two pushes and a closure.
    unsafe {
        lua_pushlightuserdata(l, shared);
        kvlab_push_rust_fn(l, f, 1);
    }
}

pub(super) unsafe fn set_fn(
    l: *mut lua_State,
    name: *const c_char,
    f: RustFn,
    shared: *mut c_void,
) {
    // SAFETY: the table to set into is on top.
    unsafe {
        push_fn(l, f, shared);
        lua_setfield(l, -2, name);
    }
}

pub(super) unsafe fn set_num(l: *mut lua_State, name: *const c_char, n: f64) {
    // SAFETY: the table to set into is on top.
    unsafe {
        lua_pushnumber(l, n);
        lua_setfield(l, -2, name);
    }
}

/// Raises `msg` as an error table (`{err="ERR msg"}`), as Redis's luaPushError + luaError.
pub(super) unsafe fn raise_error_table(l: *mut lua_State, msg: &[u8]) -> c_int {
    // SAFETY: one table pushed.
    unsafe { push_error_buff(l, msg) };
    RAISE
}

/// Raises `msg` with the position prefixed (luaL_error).
unsafe fn raise_where(l: *mut lua_State, msg: &str) -> c_int {
    // SAFETY: one string pushed.
    unsafe { args::error(l, msg.as_bytes()) }
}

/// `luaL_checkint`: C's `(int)` of `luaL_checkinteger`.
unsafe fn check_int(l: *mut lua_State, n: c_int) -> Result<i32, c_int> {
    // SAFETY: reads of argument n.
    unsafe { args::check_integer(l, n) }.map(|d| d as i32)
}

unsafe fn arg_error(l: *mut lua_State, n: c_int, msg: &str) -> c_int {
    // SAFETY: one string pushed.
    unsafe { args::arg_error(l, n, msg.as_bytes()) }
}

/// Registers the `redis` table, the new `pcall` and the new `math.random(seed)`.
pub(crate) unsafe fn register(l: *mut lua_State, shared: *mut c_void) {
    // SAFETY: runs protected during setup; plain stores into fresh tables.
    unsafe {
        push_fn(l, redis_pcall_global, shared);
        lua_setglobal(l, cstr!("pcall"));

        lua_newtable(l);
        set_fn(l, cstr!("call"), call, shared);
        set_fn(l, cstr!("pcall"), pcall, shared);
        set_fn(l, cstr!("log"), log, shared);
        set_num(l, cstr!("LOG_DEBUG"), 0.0);
        set_num(l, cstr!("LOG_VERBOSE"), 1.0);
        set_num(l, cstr!("LOG_NOTICE"), 2.0);
        set_num(l, cstr!("LOG_WARNING"), 3.0);
        set_num(l, cstr!("REDIS_VERSION_NUM"), REDIS_VERSION_NUM);
        lua_pushlstring(
            l,
            REDIS_VERSION.as_ptr() as *const c_char,
            REDIS_VERSION.len(),
        );
        lua_setfield(l, -2, cstr!("REDIS_VERSION"));
        set_fn(l, cstr!("setresp"), setresp, shared);
        set_fn(l, cstr!("sha1hex"), sha1hex, shared);
        set_fn(l, cstr!("error_reply"), error_reply, shared);
        set_fn(l, cstr!("status_reply"), status_reply, shared);
        set_fn(l, cstr!("set_repl"), set_repl, shared);
        set_num(l, cstr!("REPL_NONE"), 0.0);
        set_num(l, cstr!("REPL_AOF"), 1.0);
        set_num(l, cstr!("REPL_SLAVE"), 2.0);
        set_num(l, cstr!("REPL_REPLICA"), 2.0);
        set_num(l, cstr!("REPL_ALL"), 3.0);
        set_fn(l, cstr!("acl_check_cmd"), acl_check_cmd, shared);
        lua_setglobal(l, cstr!("redis"));

        lua_getglobal(l, cstr!("math"));
        set_fn(l, cstr!("random"), math_random, shared);
        set_fn(l, cstr!("randomseed"), math_randomseed, shared);
        lua_pop(l, 1);
    }
}

/// `redis.breakpoint`, `redis.debug` (no-ops with no debugger attached, as in Redis)
/// and `redis.replicate_commands` (always true in Redis 7).
pub(crate) unsafe fn register_debugger_stubs(l: *mut lua_State, shared: *mut c_void) {
    // SAFETY: as in register.
    unsafe {
        lua_getglobal(l, cstr!("redis"));
        set_fn(l, cstr!("breakpoint"), breakpoint, shared);
        set_fn(l, cstr!("debug"), debug, shared);
        set_fn(l, cstr!("replicate_commands"), replicate_commands, shared);
        lua_pop(l, 1);
    }
}

/// Redis's `luaArgsToRedisArgv`: every argument must be a string or a number (numbers as
/// `%.17g`). On failure the error table is on the stack and the arguments are gone.
unsafe fn args_to_argv(l: *mut lua_State) -> Result<Vec<Vec<u8>>, ()> {
    // SAFETY: reads of the arguments, then pops them.
    unsafe {
        let argc = lua_gettop(l);
        if argc == 0 {
            push_error_buff(
                l,
                b"Please specify at least one argument for this redis lib call",
            );
            return Err(());
        }
        let mut argv = Vec::with_capacity(argc as usize);
        let mut ok = true;
        for i in 1..=argc {
            if lua_type(l, i) == LUA_TNUMBER {
                argv.push(crate::numfmt::g17(lua_tonumber(l, i)).into_bytes());
            } else if let Some(s) = to_bytes(l, i) {
                argv.push(s);
            } else {
                ok = false;
                break;
            }
        }
        lua_pop(l, argc);
        if !ok {
            push_error_buff(
                l,
                b"Lua redis lib command arguments must be strings or integers",
            );
            return Err(());
        }
        Ok(argv)
    }
}

/// `redis.call` and `redis.pcall` (Redis's `luaRedisGenericCommand`).
unsafe fn generic_call(l: *mut lua_State, raise: bool) -> c_int {
    // SAFETY: the shared state outlives the call; stack use as documented.
    unsafe {
        let s = shared(l);
        let Some(host) = host(s) else {
            return raise_error_table(
                l,
                b"redis.call/pcall can only be called inside a script invocation",
            );
        };
        let argv = match args_to_argv(l) {
            Ok(argv) => argv,
            Err(()) => return if raise { RAISE } else { 1 },
        };
        if s.in_call {
            let msg: &[u8] = b"luaRedisGenericCommand() recursive call detected. Are you doing funny stuff with Lua debug hooks?";
            host.log(3, msg);
            push_error_buff(l, msg);
            return 1;
        }
        s.in_call = true;
        let reply = host.call(argv, s.resp);
        s.in_call = false;
        let is_error = matches!(reply, Value::Error(_));
        if lua_checkstack(l, 4) == 0 {
            return raise_where(l, "reached lua stack limit");
        }
        push_value(l, &reply);
        if is_error {
            // Already counted in the error stats when the command failed.
            lua_pushboolean(l, 1);
            lua_setfield(l, -2, cstr!("ignore_error_stats_update"));
            if raise {
                return RAISE;
            }
        }
        1
    }
}

unsafe extern "C" fn call(l: *mut lua_State) -> c_int {
    // SAFETY: called by Lua through the trampoline.
    unsafe { generic_call(l, true) }
}

unsafe extern "C" fn pcall(l: *mut lua_State) -> c_int {
    // SAFETY: called by Lua through the trampoline.
    unsafe { generic_call(l, false) }
}

/// The global `pcall` of Redis 7: errors raised as tables (by `redis.call`) come back
/// as their `err` string, as older versions returned them. Called from the run's
/// innermost thread where that thread may pause, it runs the function in a thread of its
/// own so that a pause inside reaches the script (run.rs); elsewhere, and where a further
/// C call would pass Lua's limit of 200 (so that the error is Lua's own), it is a plain
/// `lua_pcall`.
unsafe extern "C" fn redis_pcall_global(l: *mut lua_State) -> c_int {
    // SAFETY: protected calls from a Rust frame: errors stop at the call, below us.
    unsafe {
        let argc = lua_gettop(l);
        let s = shared(l);
        let threaded = argc >= 1
            && s.threads.last() == Some(&l)
            && kvlab_canyield(l) != 0
            && kvlab_nccalls(l) + 1 < LUAI_MAXCCALLS;
        if threaded {
            let co = lua_newthread(l);
            kvlab_setscript(co, l);
            run::push_thread(l, s);
            lua_xmove(l, co, argc);
            let status = lua_resume(co, argc - 1);
            if status == LUA_YIELD {
                // Paused inside: the run resumes `co` first, then this pcall's caller
                // with what `co` ended with (run.rs's drive).
                return YIELD;
            }
            let n = run::pcall_results(co, status, l);
            run::pop_thread(l, s);
            return n;
        }
        lua_pushboolean(l, 1);
        lua_insert(l, 1);
        if lua_pcall(l, argc - 1, LUA_MULTRET, 0) != 0 {
            lua_remove(l, 1);
            run::err_field_as_string(l);
            lua_pushboolean(l, 0);
            lua_insert(l, 1);
        }
        lua_gettop(l)
    }
}

unsafe extern "C" fn sha1hex(l: *mut lua_State) -> c_int {
    // SAFETY: reads argument 1.
    unsafe {
        if lua_gettop(l) != 1 {
            return raise_error_table(l, b"wrong number of arguments");
        }
        let data = to_bytes(l, 1).unwrap_or_default();
        let hex = crate::sha1hex(&data);
        lua_pushlstring(l, hex.as_ptr() as *const c_char, hex.len());
        1
    }
}

unsafe extern "C" fn error_reply(l: *mut lua_State) -> c_int {
    // SAFETY: reads argument 1, pushes one table.
    unsafe {
        if lua_gettop(l) != 1 || lua_type(l, -1) != LUA_TSTRING {
            push_error_buff(l, b"wrong number or type of arguments");
            return 1;
        }
        let mut err = to_bytes(l, -1).unwrap_or_default();
        // Up to a NUL, as Redis reads it (a C string).
        if let Some(nul) = err.iter().position(|&b| b == 0) {
            err.truncate(nul);
        }
        if err.first() != Some(&b'-') {
            err.insert(0, b'-');
        }
        super::convert::push_error_buff(l, &err);
        1
    }
}

unsafe extern "C" fn status_reply(l: *mut lua_State) -> c_int {
    // SAFETY: reads argument 1, pushes one table.
    unsafe {
        if lua_gettop(l) != 1 || lua_type(l, -1) != LUA_TSTRING {
            push_error_buff(l, b"wrong number or type of arguments");
            return 1;
        }
        lua_newtable(l);
        lua_pushstring(l, cstr!("ok"));
        lua_pushvalue(l, -3);
        lua_rawset(l, -3);
        1
    }
}

pub(super) unsafe extern "C" fn log(l: *mut lua_State) -> c_int {
    // SAFETY: reads the arguments.
    unsafe {
        let argc = lua_gettop(l);
        if argc < 2 {
            return raise_error_table(l, b"redis.log() requires two arguments or more.");
        }
        if lua_isnumber(l, 1) == 0 {
            return raise_error_table(l, b"First argument must be a number (log level).");
        }
        let level = lua_tonumber(l, 1) as i32;
        if !(0..=3).contains(&level) {
            return raise_error_table(l, b"Invalid debug level.");
        }
        let s = shared(l);
        let host = host(s);
        if level < host.as_ref().map_or(2, |h| h.verbosity()) {
            return 0;
        }
        let mut msg = Vec::new();
        for j in 2..=argc {
            if let Some(part) = to_bytes(l, j) {
                if j != 2 {
                    msg.push(b' ');
                }
                msg.extend_from_slice(&part);
            }
        }
        match host {
            Some(h) => h.log(level, &msg),
            None => s.pending_log.push((level, msg)),
        }
        0
    }
}

unsafe extern "C" fn setresp(l: *mut lua_State) -> c_int {
    // SAFETY: reads argument 1.
    unsafe {
        let s = shared(l);
        if s.host.is_none() {
            return raise_error_table(
                l,
                b"redis.setresp can only be called inside a script invocation",
            );
        }
        if lua_gettop(l) != 1 {
            return raise_error_table(l, b"redis.setresp() requires one argument.");
        }
        let resp = lua_tonumber(l, 1) as i32;
        if resp != 2 && resp != 3 {
            return raise_error_table(l, b"RESP version must be 2 or 3.");
        }
        s.resp = resp as u8;
        0
    }
}

unsafe extern "C" fn set_repl(l: *mut lua_State) -> c_int {
    // SAFETY: reads argument 1.
    unsafe {
        let s = shared(l);
        let Some(host) = host(s) else {
            return raise_error_table(
                l,
                b"redis.set_repl can only be called inside a script invocation",
            );
        };
        if lua_gettop(l) != 1 {
            return raise_error_table(l, b"redis.set_repl() requires two arguments.");
        }
        let flags = lua_tonumber(l, -1) as i32;
        if flags & !3 != 0 {
            return raise_error_table(
                l,
                b"Invalid replication flags. Use REPL_AOF, REPL_REPLICA, REPL_ALL or REPL_NONE.",
            );
        }
        host.set_repl(flags);
        0
    }
}

unsafe extern "C" fn acl_check_cmd(l: *mut lua_State) -> c_int {
    // SAFETY: reads the arguments.
    unsafe {
        let s = shared(l);
        let Some(host) = host(s) else {
            return raise_error_table(
                l,
                b"redis.acl_check_cmd can only be called inside a script invocation",
            );
        };
        let Ok(argv) = args_to_argv(l) else {
            return RAISE;
        };
        match host.acl_check(&argv) {
            None => raise_error_table(l, b"Invalid command passed to redis.acl_check_cmd()"),
            Some(allowed) => {
                lua_pushboolean(l, allowed as c_int);
                1
            }
        }
    }
}

unsafe extern "C" fn breakpoint(l: *mut lua_State) -> c_int {
    // SAFETY: one push.
    unsafe { lua_pushboolean(l, 0) };
    1
}

unsafe extern "C" fn debug(_l: *mut lua_State) -> c_int {
    0
}

unsafe extern "C" fn replicate_commands(l: *mut lua_State) -> c_int {
    // SAFETY: one push.
    unsafe { lua_pushboolean(l, 1) };
    1
}

/// The next `redisLrand48()`: a 48-bit linear congruential step, its top 31 bits.
fn lrand48(state: &mut u64) -> i32 {
    *state = (state.wrapping_mul(0x5_DEEC_E66D).wrapping_add(0xB)) & ((1 << 48) - 1);
    (*state >> 17) as i32
}

unsafe extern "C" fn math_random(l: *mut lua_State) -> c_int {
    // SAFETY: reads the arguments, pushes one number.
    unsafe {
        let s = shared(l);
        if s.host.is_none() {
            return raise_where(
                l,
                "math.random can only be called inside a script invocation",
            );
        }
        const MAX: i32 = i32::MAX;
        let r = (lrand48(&mut s.rand48) % MAX) as f64 / MAX as f64;
        match lua_gettop(l) {
            0 => lua_pushnumber(l, r),
            1 => {
                let u = match check_int(l, 1) {
                    Ok(u) => u,
                    Err(code) => return code,
                };
                if u < 1 {
                    return arg_error(l, 1, "interval is empty");
                }
                lua_pushnumber(l, (r * u as f64).floor() + 1.0);
            }
            2 => {
                let lo = match check_int(l, 1) {
                    Ok(v) => v,
                    Err(code) => return code,
                };
                let u = match check_int(l, 2) {
                    Ok(v) => v,
                    Err(code) => return code,
                };
                if lo > u {
                    return arg_error(l, 2, "interval is empty");
                }
                lua_pushnumber(l, (r * (u as f64 - lo as f64 + 1.0)).floor() + lo as f64);
            }
            _ => return raise_where(l, "wrong number of arguments"),
        }
        1
    }
}

unsafe extern "C" fn math_randomseed(l: *mut lua_State) -> c_int {
    // SAFETY: reads argument 1.
    unsafe {
        let s = shared(l);
        if s.host.is_none() {
            return raise_where(
                l,
                "math.randomseed can only be called inside a script invocation",
            );
        }
        let seed = match check_int(l, 1) {
            Ok(v) => v,
            Err(code) => return code,
        };
        s.rand48 = ((seed as u32 as u64) << 16) | 0x330E;
        0
    }
}

/// The count hook (Redis's `luaMaskCountHook`): asks the host whether to go on, pause
/// (run.rs) or stop; once a kill is asked it fires on every line of every thread of the
/// run, so a `pcall` cannot swallow the error for long. In a debug run it also gets the
/// script's line events and asks [`Host::on_line`] (debug.rs).
pub(crate) unsafe extern "C" fn count_hook(l: *mut lua_State, ar: *mut lua_Debug) -> c_int {
    // SAFETY: the registry holds the running environment's Shared (set up with it).
    unsafe {
        lua_getfield(l, LUA_REGISTRYINDEX, cstr!("kvlab_shared"));
        let s = lua_touserdata(l, -1) as *mut Shared;
        lua_pop(l, 1);
        if s.is_null() {
            return 0;
        }
        let s = &mut *s;
        // Only the run's innermost thread, at its own level (no C call in between), can
        // pause.
        let can_pause = s.threads.last() == Some(&l) && kvlab_canyield(l) != 0;
        let asked = if s.killing {
            Interrupt::Kill
        } else if (*ar).event == LUA_HOOKLINE {
            if !s.debug || !can_pause || !debug::is_script_frame(l, ar) {
                return 0;
            }
            let line = (*ar).currentline;
            host(s).map_or(Interrupt::Continue, |h| h.on_line(line))
        } else {
            host(s).map_or(Interrupt::Continue, |h| h.interrupt())
        };
        match asked {
            Interrupt::Kill => {
                if !s.killing {
                    if let Some(h) = host(s) {
                        h.log(3, b"Lua script killed by user with SCRIPT KILL.");
                    }
                    s.killing = true;
                    kvlab_sethook(l, Some(count_hook), LUA_MASKLINE, 0);
                    for &t in &s.threads {
                        kvlab_sethook(t, Some(count_hook), LUA_MASKLINE, 0);
                    }
                }
                push_error_buff(l, b"Script killed by user with SCRIPT KILL...");
                HOOK_RAISE
            }
            Interrupt::Pause if can_pause => {
                if s.debug {
                    s.position = debug::capture(l);
                }
                HOOK_YIELD
            }
            _ => 0,
        }
    }
}
