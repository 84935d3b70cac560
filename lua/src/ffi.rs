//! Lua 5.1's C API (`lua.h`, `lauxlib.h`, `lualib.h`), Redis's two additions, and the
//! seams of `c/glue.c`; with the macros of `lua.h` that the rest of the crate uses.
//!
//! # Safety
//! Every function here has the contract of the C API entry it mirrors (a valid state, a
//! valid stack index, room on the stack).
#![allow(non_camel_case_types, missing_docs, clippy::missing_safety_doc)]

use std::ffi::{c_char, c_int, c_void};

/// A Lua state (opaque).
#[repr(C)]
pub struct lua_State {
    _private: [u8; 0],
}

pub type lua_Number = f64;
/// `ptrdiff_t`: 64 bits on both targets (the wasm32 libc makes it so, matching x86_64).
pub type lua_Integer = i64;
pub type lua_CFunction = unsafe extern "C" fn(*mut lua_State) -> c_int;
pub type lua_Alloc = unsafe extern "C" fn(*mut c_void, *mut c_void, usize, usize) -> *mut c_void;
pub type lua_Reader =
    unsafe extern "C" fn(*mut lua_State, *mut c_void, *mut usize) -> *const c_char;

/// A Rust function behind Lua (see `c/glue.c`): returns its result count, or one of the
/// `RAISE` codes with the error on the stack top.
pub type RustFn = unsafe extern "C" fn(*mut lua_State) -> c_int;
/// The hook's Rust side: 0 goes on, [`HOOK_RAISE`] raises the value on top, [`HOOK_YIELD`]
/// yields.
pub type RustHook = unsafe extern "C" fn(*mut lua_State, *mut lua_Debug) -> c_int;

/// Raise the value on top as is (`lua_error`).
pub const RAISE: c_int = -1;
/// Raise the message on top, prefixed with the position (`luaL_error`).
pub const RAISE_WHERE: c_int = -2;
/// `ARGERROR - n`: raise "bad argument #n to 'f' (`<message on top>`)" (`luaL_argerror`).
pub const ARGERROR: c_int = -1000;
/// Yield the running script's thread, as the hook does (`src/redis/run.rs`): `pcall`
/// passes a pause of the function it runs on to its caller.
pub const YIELD: c_int = -3;
/// Lua's `LUAI_MAXCCALLS` (luaconf.h): the deepest nesting of C calls.
pub const LUAI_MAXCCALLS: c_int = 200;
pub const HOOK_RAISE: c_int = 1;
pub const HOOK_YIELD: c_int = 2;

pub const LUA_REGISTRYINDEX: c_int = -10000;
pub const LUA_ENVIRONINDEX: c_int = -10001;
pub const LUA_GLOBALSINDEX: c_int = -10002;
pub const LUA_MULTRET: c_int = -1;

pub const LUA_YIELD: c_int = 1;
pub const LUA_ERRRUN: c_int = 2;
pub const LUA_ERRSYNTAX: c_int = 3;
pub const LUA_ERRMEM: c_int = 4;
pub const LUA_ERRERR: c_int = 5;

pub const LUA_TNONE: c_int = -1;
pub const LUA_TNIL: c_int = 0;
pub const LUA_TBOOLEAN: c_int = 1;
pub const LUA_TLIGHTUSERDATA: c_int = 2;
pub const LUA_TNUMBER: c_int = 3;
pub const LUA_TSTRING: c_int = 4;
pub const LUA_TTABLE: c_int = 5;
pub const LUA_TFUNCTION: c_int = 6;
pub const LUA_TUSERDATA: c_int = 7;
pub const LUA_TTHREAD: c_int = 8;

pub const LUA_GCSTOP: c_int = 0;
pub const LUA_GCRESTART: c_int = 1;
pub const LUA_GCCOLLECT: c_int = 2;
pub const LUA_GCCOUNT: c_int = 3;
pub const LUA_GCCOUNTB: c_int = 4;
pub const LUA_GCSTEP: c_int = 5;

pub const LUA_HOOKCALL: c_int = 0;
pub const LUA_HOOKRET: c_int = 1;
pub const LUA_HOOKLINE: c_int = 2;
pub const LUA_HOOKCOUNT: c_int = 3;
pub const LUA_MASKCALL: c_int = 1;
pub const LUA_MASKRET: c_int = 2;
pub const LUA_MASKLINE: c_int = 4;
pub const LUA_MASKCOUNT: c_int = 8;

pub const LUA_IDSIZE: usize = 60;

/// `lua_Debug` (lua.h).
#[repr(C)]
pub struct lua_Debug {
    pub event: c_int,
    pub name: *const c_char,
    pub namewhat: *const c_char,
    pub what: *const c_char,
    pub source: *const c_char,
    pub currentline: c_int,
    pub nups: c_int,
    pub linedefined: c_int,
    pub lastlinedefined: c_int,
    pub short_src: [c_char; LUA_IDSIZE],
    i_ci: c_int,
}

impl Default for lua_Debug {
    fn default() -> Self {
        lua_Debug {
            event: 0,
            name: std::ptr::null(),
            namewhat: std::ptr::null(),
            what: std::ptr::null(),
            source: std::ptr::null(),
            currentline: 0,
            nups: 0,
            linedefined: 0,
            lastlinedefined: 0,
            short_src: [0; LUA_IDSIZE],
            i_ci: 0,
        }
    }
}

/// `luaL_Reg`.
#[repr(C)]
pub struct luaL_Reg {
    pub name: *const c_char,
    pub func: Option<lua_CFunction>,
}

extern "C" {
    pub fn lua_newstate(f: lua_Alloc, ud: *mut c_void) -> *mut lua_State;
    pub fn lua_close(l: *mut lua_State);
    pub fn lua_newthread(l: *mut lua_State) -> *mut lua_State;
    pub fn lua_atpanic(l: *mut lua_State, panicf: lua_CFunction) -> lua_CFunction;

    pub fn lua_gettop(l: *mut lua_State) -> c_int;
    pub fn lua_settop(l: *mut lua_State, idx: c_int);
    pub fn lua_pushvalue(l: *mut lua_State, idx: c_int);
    pub fn lua_remove(l: *mut lua_State, idx: c_int);
    pub fn lua_insert(l: *mut lua_State, idx: c_int);
    pub fn lua_replace(l: *mut lua_State, idx: c_int);
    pub fn lua_checkstack(l: *mut lua_State, sz: c_int) -> c_int;
    pub fn lua_xmove(from: *mut lua_State, to: *mut lua_State, n: c_int);

    pub fn lua_isnumber(l: *mut lua_State, idx: c_int) -> c_int;
    pub fn lua_isstring(l: *mut lua_State, idx: c_int) -> c_int;
    pub fn lua_iscfunction(l: *mut lua_State, idx: c_int) -> c_int;
    pub fn lua_type(l: *mut lua_State, idx: c_int) -> c_int;
    pub fn lua_typename(l: *mut lua_State, tp: c_int) -> *const c_char;
    pub fn lua_rawequal(l: *mut lua_State, a: c_int, b: c_int) -> c_int;

    pub fn lua_tonumber(l: *mut lua_State, idx: c_int) -> lua_Number;
    pub fn lua_tointeger(l: *mut lua_State, idx: c_int) -> lua_Integer;
    pub fn lua_toboolean(l: *mut lua_State, idx: c_int) -> c_int;
    pub fn lua_tolstring(l: *mut lua_State, idx: c_int, len: *mut usize) -> *const c_char;
    pub fn lua_objlen(l: *mut lua_State, idx: c_int) -> usize;
    pub fn lua_touserdata(l: *mut lua_State, idx: c_int) -> *mut c_void;
    pub fn lua_tothread(l: *mut lua_State, idx: c_int) -> *mut lua_State;
    pub fn lua_topointer(l: *mut lua_State, idx: c_int) -> *const c_void;

    pub fn lua_pushnil(l: *mut lua_State);
    pub fn lua_pushnumber(l: *mut lua_State, n: lua_Number);
    pub fn lua_pushinteger(l: *mut lua_State, n: lua_Integer);
    pub fn lua_pushlstring(l: *mut lua_State, s: *const c_char, len: usize);
    pub fn lua_pushstring(l: *mut lua_State, s: *const c_char);
    pub fn lua_pushfstring(l: *mut lua_State, fmt: *const c_char, ...) -> *const c_char;
    pub fn lua_pushcclosure(l: *mut lua_State, f: lua_CFunction, n: c_int);
    pub fn lua_pushboolean(l: *mut lua_State, b: c_int);
    pub fn lua_pushlightuserdata(l: *mut lua_State, p: *mut c_void);
    pub fn lua_pushthread(l: *mut lua_State) -> c_int;

    pub fn lua_gettable(l: *mut lua_State, idx: c_int);
    pub fn lua_getfield(l: *mut lua_State, idx: c_int, k: *const c_char);
    pub fn lua_rawget(l: *mut lua_State, idx: c_int);
    pub fn lua_rawgeti(l: *mut lua_State, idx: c_int, n: c_int);
    pub fn lua_createtable(l: *mut lua_State, narr: c_int, nrec: c_int);
    pub fn lua_newuserdata(l: *mut lua_State, sz: usize) -> *mut c_void;
    pub fn lua_getmetatable(l: *mut lua_State, objindex: c_int) -> c_int;
    pub fn lua_getfenv(l: *mut lua_State, idx: c_int);

    pub fn lua_settable(l: *mut lua_State, idx: c_int);
    pub fn lua_setfield(l: *mut lua_State, idx: c_int, k: *const c_char);
    pub fn lua_rawset(l: *mut lua_State, idx: c_int);
    pub fn lua_rawseti(l: *mut lua_State, idx: c_int, n: c_int);
    pub fn lua_setmetatable(l: *mut lua_State, objindex: c_int) -> c_int;
    pub fn lua_setfenv(l: *mut lua_State, idx: c_int) -> c_int;

    pub fn lua_call(l: *mut lua_State, nargs: c_int, nresults: c_int);
    pub fn lua_pcall(l: *mut lua_State, nargs: c_int, nresults: c_int, errfunc: c_int) -> c_int;
    pub fn lua_cpcall(l: *mut lua_State, func: lua_CFunction, ud: *mut c_void) -> c_int;
    pub fn lua_load(
        l: *mut lua_State,
        reader: lua_Reader,
        dt: *mut c_void,
        chunkname: *const c_char,
    ) -> c_int;

    pub fn lua_yield(l: *mut lua_State, nresults: c_int) -> c_int;
    pub fn lua_resume(l: *mut lua_State, narg: c_int) -> c_int;
    pub fn lua_status(l: *mut lua_State) -> c_int;

    pub fn lua_gc(l: *mut lua_State, what: c_int, data: c_int) -> c_int;
    pub fn lua_error(l: *mut lua_State) -> c_int;
    pub fn lua_next(l: *mut lua_State, idx: c_int) -> c_int;
    pub fn lua_concat(l: *mut lua_State, n: c_int);

    pub fn lua_getstack(l: *mut lua_State, level: c_int, ar: *mut lua_Debug) -> c_int;
    pub fn lua_getinfo(l: *mut lua_State, what: *const c_char, ar: *mut lua_Debug) -> c_int;
    pub fn lua_getlocal(l: *mut lua_State, ar: *const lua_Debug, n: c_int) -> *const c_char;
    pub fn lua_getupvalue(l: *mut lua_State, funcindex: c_int, n: c_int) -> *const c_char;

    // Redis's additions (its `deps/lua`, restated in build.rs).
    pub fn lua_enablereadonlytable(l: *mut lua_State, idx: c_int, enabled: c_int);
    pub fn lua_isreadonlytable(l: *mut lua_State, idx: c_int) -> c_int;

    pub fn luaL_loadbuffer(
        l: *mut lua_State,
        buff: *const c_char,
        sz: usize,
        name: *const c_char,
    ) -> c_int;
    pub fn luaL_ref(l: *mut lua_State, t: c_int) -> c_int;
    pub fn luaL_unref(l: *mut lua_State, t: c_int, r: c_int);
    pub fn luaL_where(l: *mut lua_State, lvl: c_int);
    pub fn luaL_newmetatable(l: *mut lua_State, tname: *const c_char) -> c_int;

    pub fn luaopen_base(l: *mut lua_State) -> c_int;
    pub fn luaopen_table(l: *mut lua_State) -> c_int;
    pub fn luaopen_string(l: *mut lua_State) -> c_int;
    pub fn luaopen_math(l: *mut lua_State) -> c_int;
    pub fn luaopen_debug(l: *mut lua_State) -> c_int;

    // c/glue.c
    pub fn kvlab_push_rust_fn(l: *mut lua_State, f: RustFn, nup: c_int);
    pub fn kvlab_sethook(l: *mut lua_State, f: Option<RustHook>, mask: c_int, count: c_int);

    // build.rs's PAUSE_PATCHES
    /// Marks `l` a script's thread (only the hook may yield it) and gives it the C-call
    /// depth of `from`, as `lua_pcall` would count a call from there.
    pub fn kvlab_setscript(l: *mut lua_State, from: *mut lua_State);
    pub fn kvlab_canyield(l: *mut lua_State) -> c_int;
    pub fn kvlab_nccalls(l: *mut lua_State) -> c_int;
    pub fn kvlab_isscript(l: *mut lua_State) -> c_int;
}

// The macros of lua.h.

pub unsafe fn lua_pop(l: *mut lua_State, n: c_int) {
    unsafe { lua_settop(l, -n - 1) }
}
pub unsafe fn lua_newtable(l: *mut lua_State) {
    unsafe { lua_createtable(l, 0, 0) }
}
pub unsafe fn lua_isnil(l: *mut lua_State, idx: c_int) -> bool {
    unsafe { lua_type(l, idx) == LUA_TNIL }
}
pub unsafe fn lua_istable(l: *mut lua_State, idx: c_int) -> bool {
    unsafe { lua_type(l, idx) == LUA_TTABLE }
}
pub unsafe fn lua_isfunction(l: *mut lua_State, idx: c_int) -> bool {
    unsafe { lua_type(l, idx) == LUA_TFUNCTION }
}
pub unsafe fn lua_setglobal(l: *mut lua_State, name: *const c_char) {
    unsafe { lua_setfield(l, LUA_GLOBALSINDEX, name) }
}
pub unsafe fn lua_getglobal(l: *mut lua_State, name: *const c_char) {
    unsafe { lua_getfield(l, LUA_GLOBALSINDEX, name) }
}
pub const fn lua_upvalueindex(i: c_int) -> c_int {
    LUA_GLOBALSINDEX - i
}

/// A NUL-terminated C string literal.
#[macro_export]
macro_rules! cstr {
    ($s:expr) => {
        concat!($s, "\0").as_ptr() as *const std::ffi::c_char
    };
}
