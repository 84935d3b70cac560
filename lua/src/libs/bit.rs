//! `bit`: Lua BitOp 1.0.2 as Redis loads it. Every argument is taken as a number and
//! normalised to 32 bits (modulo 2^32, non-integers rounded to nearest even, as adding
//! 2^52+2^51 to the double and keeping its low word does); every result is a signed
//! 32-bit integer, returned as a Lua number.
//!
//! `tobit(x)`, `bnot(x)`, `band/bor/bxor(x, ...)`, `lshift/rshift/arshift/rol/ror(x, n)`
//! (n taken modulo 32), `bswap(x)`, `tohex(x [, n])` (n digits, 8 by default, upper case
//! for negative n, at most 8).
use crate::args::{entry, push_bytes, push_fn, set_field, type_error, Ret};
use crate::ffi::*;
use std::ffi::c_int;

/// Argument `idx` as 32 bits; a non-number is an error ("number expected").
unsafe fn barg(l: *mut lua_State, idx: c_int) -> Result<u32, c_int> {
    // SAFETY: lua_tonumber/lua_isnumber accept any index and never raise.
    unsafe {
        let n = lua_tonumber(l, idx) + 6755399441055744.0;
        let b = n.to_bits() as u32;
        if b == 0 && lua_isnumber(l, idx) == 0 {
            return Err(type_error(l, idx, "number"));
        }
        Ok(b)
    }
}

unsafe fn ret(l: *mut lua_State, b: u32) -> Ret {
    // SAFETY: pushes one number.
    unsafe { lua_pushnumber(l, b as i32 as f64) };
    Ok(1)
}

/// One argument in, one out.
unsafe fn unary(l: *mut lua_State, f: fn(u32) -> u32) -> c_int {
    // SAFETY: the caller's state.
    entry(unsafe { barg(l, 1).and_then(|b| ret(l, f(b))) })
}

/// `x op y op ...`: the first argument, then the others from the last to the second.
unsafe fn fold(l: *mut lua_State, f: fn(u32, u32) -> u32) -> c_int {
    // SAFETY: the caller's state.
    entry(unsafe {
        (|| {
            let mut b = barg(l, 1)?;
            let mut i = lua_gettop(l);
            while i > 1 {
                b = f(b, barg(l, i)?);
                i -= 1;
            }
            ret(l, b)
        })()
    })
}

/// `x` shifted or rotated by `n & 31`.
unsafe fn shift(l: *mut lua_State, f: fn(u32, u32) -> u32) -> c_int {
    // SAFETY: the caller's state.
    entry(unsafe {
        (|| {
            let b = barg(l, 1)?;
            let n = barg(l, 2)? & 31;
            ret(l, f(b, n))
        })()
    })
}

unsafe extern "C" fn tobit(l: *mut lua_State) -> c_int {
    // SAFETY: called by Lua with its state.
    unsafe { unary(l, |b| b) }
}
unsafe extern "C" fn bnot(l: *mut lua_State) -> c_int {
    // SAFETY: as above.
    unsafe { unary(l, |b| !b) }
}
unsafe extern "C" fn bswap(l: *mut lua_State) -> c_int {
    // SAFETY: as above.
    unsafe { unary(l, u32::swap_bytes) }
}
unsafe extern "C" fn band(l: *mut lua_State) -> c_int {
    // SAFETY: as above.
    unsafe { fold(l, |a, b| a & b) }
}
unsafe extern "C" fn bor(l: *mut lua_State) -> c_int {
    // SAFETY: as above.
    unsafe { fold(l, |a, b| a | b) }
}
unsafe extern "C" fn bxor(l: *mut lua_State) -> c_int {
    // SAFETY: as above.
    unsafe { fold(l, |a, b| a ^ b) }
}
unsafe extern "C" fn lshift(l: *mut lua_State) -> c_int {
    // SAFETY: as above.
    unsafe { shift(l, |b, n| b << n) }
}
unsafe extern "C" fn rshift(l: *mut lua_State) -> c_int {
    // SAFETY: as above.
    unsafe { shift(l, |b, n| b >> n) }
}
unsafe extern "C" fn arshift(l: *mut lua_State) -> c_int {
    // SAFETY: as above.
    unsafe { shift(l, |b, n| ((b as i32) >> n) as u32) }
}
unsafe extern "C" fn rol(l: *mut lua_State) -> c_int {
    // SAFETY: as above.
    unsafe { shift(l, u32::rotate_left) }
}
unsafe extern "C" fn ror(l: *mut lua_State) -> c_int {
    // SAFETY: as above.
    unsafe { shift(l, u32::rotate_right) }
}

unsafe extern "C" fn tohex(l: *mut lua_State) -> c_int {
    // SAFETY: called by Lua with its state.
    entry(unsafe {
        (|| {
            let mut b = barg(l, 1)?;
            let mut n: i32 = if lua_type(l, 2) == LUA_TNONE {
                8
            } else {
                barg(l, 2)? as i32
            };
            let digits: &[u8; 16] = if n < 0 {
                n = n.wrapping_neg();
                b"0123456789ABCDEF"
            } else {
                b"0123456789abcdef"
            };
            // n is now at least 0, except for -2^31, which stays -2^31 and, compared as
            // the compiler under Redis compares it, is more than 8 too.
            let n = (n as u32).min(8) as usize;
            let mut buf = [0u8; 8];
            for i in (0..n).rev() {
                buf[i] = digits[(b & 15) as usize];
                b >>= 4;
            }
            push_bytes(l, &buf[..n]);
            Ok(1)
        })()
    })
}

/// Opens `bit` (a global table, as `luaL_register` makes it).
pub(crate) unsafe fn open(l: *mut lua_State) {
    let funcs: [(&str, RustFn); 12] = [
        ("tobit", tobit),
        ("bnot", bnot),
        ("band", band),
        ("bor", bor),
        ("bxor", bxor),
        ("lshift", lshift),
        ("rshift", rshift),
        ("arshift", arshift),
        ("rol", rol),
        ("ror", ror),
        ("bswap", bswap),
        ("tohex", tohex),
    ];
    // SAFETY: called while the state is being set up, with room on the stack.
    unsafe {
        lua_createtable(l, 0, funcs.len() as c_int);
        for (name, f) in funcs {
            push_fn(l, f, 0);
            set_field(l, -2, name);
        }
        set_field(l, LUA_GLOBALSINDEX, "bit");
    }
}
