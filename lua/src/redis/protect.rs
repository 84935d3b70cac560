//! Redis 7.0's protection of the globals: while the libraries load, only names on its
//! allow lists become globals (`luaNewIndexAllowList`); afterwards every table reachable
//! from the globals is read-only and reading a missing global is an error
//! (`luaSetErrorMetatable`, `luaSetTableProtectionRecursively`).
use crate::cstr;
use crate::ffi::*;
use crate::state::to_bytes;
use std::ffi::c_int;

/// The globals Redis's libraries may create (its allow lists, all five together).
const ALLOWED: &[&str] = &[
    // libraries
    "string",
    "cjson",
    "bit",
    "cmsgpack",
    "math",
    "table",
    "struct",
    // the Redis API
    "redis",
    "__redis__err__handler",
    // Lua's builtins
    "xpcall",
    "tostring",
    "setmetatable",
    "next",
    "assert",
    "tonumber",
    "rawequal",
    "collectgarbage",
    "getmetatable",
    "rawset",
    "pcall",
    "coroutine",
    "type",
    "_G",
    "select",
    "unpack",
    "gcinfo",
    "pairs",
    "rawget",
    "loadstring",
    "ipairs",
    "_VERSION",
    "load",
    "error",
    // allowed while setting up, removed right after
    "debug",
];

/// Left out on purpose, without a warning.
const DENIED: &[&str] = &["dofile", "loadfile", "print"];

/// Left out for sandboxing since the security fixes the reference Redis 7.0.15 carries
/// (Debian's CVE-2025-46818 patch), unless `lua-enable-deprecated-api` is set; no warning.
const DEPRECATED: &[&str] = &["setfenv", "getfenv", "newproxy"];

/// Puts the allow-list metatable on the globals; `deprecated_api` lets `setfenv`,
/// `getfenv` and `newproxy` in.
pub(crate) unsafe fn allow_list_globals(l: *mut lua_State, deprecated_api: bool) {
    // SAFETY: setup, protected.
    unsafe {
        lua_pushvalue(l, LUA_GLOBALSINDEX);
        lua_newtable(l);
        lua_pushboolean(l, deprecated_api as c_int);
        kvlab_push_rust_fn(l, new_index_allow_list, 1);
        lua_setfield(l, -2, cstr!("__newindex"));
        lua_setmetatable(l, -2);
        lua_pop(l, 1);
    }
}

unsafe fn raise(l: *mut lua_State, msg: &str) -> c_int {
    // SAFETY: one push.
    unsafe { crate::args::error(l, msg.as_bytes()) }
}

unsafe extern "C" fn new_index_allow_list(l: *mut lua_State) -> c_int {
    // SAFETY: the __newindex call's (table, key, value).
    unsafe {
        if lua_gettop(l) != 3 {
            return raise(l, "Wrong number of arguments to luaNewIndexAllowList");
        }
        if !lua_istable(l, -3) {
            return raise(l, "first argument to luaNewIndexAllowList must be a table");
        }
        if lua_type(l, -2) != LUA_TSTRING && lua_type(l, -2) != LUA_TNUMBER {
            return raise(
                l,
                "Second argument to luaNewIndexAllowList must be a string or number",
            );
        }
        let name = to_bytes(l, -2).unwrap_or_default();
        let deprecated = DEPRECATED.iter().any(|d| d.as_bytes() == name);
        let allow_deprecated = lua_toboolean(l, lua_upvalueindex(2)) != 0;
        if ALLOWED.iter().any(|a| a.as_bytes() == name) || (deprecated && allow_deprecated) {
            lua_rawset(l, -3);
        } else if !deprecated && !DENIED.iter().any(|d| d.as_bytes() == name) {
            let msg = format!(
                "A key '{}' was added to Lua globals which is not on the globals allow list nor listed on the deny list.",
                String::from_utf8_lossy(&name)
            );
            super::log_without_host(l, 3, msg.into_bytes());
        }
        0
    }
}

unsafe extern "C" fn protected_table_error(l: *mut lua_State) -> c_int {
    // SAFETY: the __index call's (table, key).
    unsafe {
        if lua_gettop(l) != 2 {
            return raise(l, "Wrong number of arguments to luaProtectedTableError");
        }
        if lua_type(l, -1) != LUA_TSTRING && lua_type(l, -1) != LUA_TNUMBER {
            return raise(
                l,
                "Second argument to luaProtectedTableError must be a string or number",
            );
        }
        let name = to_bytes(l, -1).unwrap_or_default();
        let name = name.split(|&b| b == 0).next().unwrap_or_default();
        raise(
            l,
            &format!(
                "Script attempted to access nonexistent global variable '{}'",
                String::from_utf8_lossy(name)
            ),
        )
    }
}

/// `luaSetErrorMetatable` on the table on top: reading a missing key is an error.
pub(crate) unsafe fn set_error_metatable(l: *mut lua_State) {
    // SAFETY: the table is on top; two pushes.
    unsafe {
        lua_newtable(l);
        kvlab_push_rust_fn(l, protected_table_error, 0);
        lua_setfield(l, -2, cstr!("__index"));
        lua_setmetatable(l, -2);
    }
}

/// Locks the globals: the error metatable, then read-only recursively; and the
/// metatables of the basic types (the string library's, shared by every string), as the
/// reference's security fix does.
pub(crate) unsafe fn lock_globals(l: *mut lua_State) {
    // SAFETY: setup, protected.
    unsafe {
        lua_pushvalue(l, LUA_GLOBALSINDEX);
        set_error_metatable(l);
        protect_recursively(l);
        lua_pop(l, 1);
        for push in [
            (|l| lua_pushstring(l, cstr!(""))) as unsafe fn(*mut lua_State),
            |l| lua_pushnumber(l, 0.0),
            |l| lua_pushboolean(l, 0),
            |l| lua_pushnil(l),
            |l| kvlab_push_rust_fn(l, noop, 0),
            |l| {
                lua_newthread(l);
            },
            |l| lua_pushlightuserdata(l, l as *mut std::ffi::c_void),
        ] {
            push(l);
            if lua_getmetatable(l, -1) != 0 {
                protect_recursively(l);
                lua_pop(l, 1);
            }
            lua_pop(l, 1);
        }
    }
}

unsafe extern "C" fn noop(_l: *mut lua_State) -> c_int {
    0
}

/// `luaSetTableProtectionRecursively` on the table on top (and its metatable).
pub(crate) unsafe fn protect_recursively(l: *mut lua_State) {
    // SAFETY: raw traversal; each level pops what it pushed.
    unsafe {
        if lua_isreadonlytable(l, -1) != 0 {
            return;
        }
        lua_enablereadonlytable(l, -1, 1);
        lua_checkstack(l, 2);
        lua_pushnil(l);
        while lua_next(l, -2) != 0 {
            if lua_istable(l, -1) {
                protect_recursively(l);
            }
            lua_pop(l, 1);
        }
        if lua_getmetatable(l, -1) != 0 {
            protect_recursively(l);
            lua_pop(l, 1);
        }
    }
}
