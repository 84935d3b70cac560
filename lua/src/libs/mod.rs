//! The libraries Redis 7.0 adds to its scripting Lua, in Rust behind Lua's C API:
//! `cjson` (JSON), `struct` (binary packing), `cmsgpack` (MessagePack) and `bit`
//! (32-bit operations). Each behaves as the C library Redis 7.0.15 builds (its
//! `deps/lua/src/lua_*.c`), checked against a real redis-server by `tests/libs.rs`.
//!
//! Every function here is a [`crate::ffi::RustFn`]: it never raises, it returns an error
//! code with the message pushed (see [`args`]).
mod bit;
mod cjson;
mod cmsgpack;
mod structlib;

use crate::ffi::lua_State;

/// Opens the four libraries as globals, in the order Redis opens them (its
/// `luaLoadLibraries`: cjson, struct, cmsgpack, bit).
///
/// # Safety
/// `l` is a state being set up, inside a protected call.
pub(crate) unsafe fn open_all(l: *mut lua_State) {
    // SAFETY: as the caller promises.
    unsafe {
        cjson::open(l);
        structlib::open(l);
        cmsgpack::open(l);
        bit::open(l);
    }
}
