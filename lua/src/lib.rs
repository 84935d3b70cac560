//! Lua 5.1.5 as Redis 7.0 runs it, for kvlab's EVAL and FUNCTION: the PUC-Rio interpreter
//! (from the `lua-src` crate's sources, with Redis's patches applied by `build.rs`), the
//! libraries Redis opens, and a safe interface for the engine ([`Lua`]).
//!
//! The unsafe code of kvlab lives here, behind that interface: the kvlab crate itself
//! forbids `unsafe`.
//!
//! Errors: Lua raises an error by unwinding to its protected call (`longjmp` natively; a
//! host exception in wasm32, see `unwind`). No Rust frame is ever unwound: functions
//! written in Rust return a code and `c/glue.c` raises the error after they returned.
#![allow(unsafe_code)]

mod args;
pub mod ffi;
#[cfg(target_arch = "wasm32")]
mod libc;
mod libs;
pub mod numfmt;
pub mod redis;
mod state;
#[cfg(target_arch = "wasm32")]
mod unwind;

pub use state::{Lua, RunError};

/// The SHA-1 of `data` in lowercase hex: script names (EVAL's cache) and `redis.sha1hex`.
pub fn sha1hex(data: &[u8]) -> String {
    sha1_smol::Sha1::from(data).digest().to_string()
}

/// Opens the libraries Redis adds to Lua's (cjson, struct, cmsgpack, bit), in its order.
pub(crate) unsafe fn libs_open(l: *mut ffi::lua_State) {
    // SAFETY: called during setup, protected, like the standard libraries.
    unsafe { libs::open_all(l) }
}
