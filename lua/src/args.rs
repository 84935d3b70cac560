//! Argument checks for the Rust functions behind Lua (the libraries, the `redis` table),
//! with the messages of Lua's
//! `luaL_check*` family, and the ways such a function reports an error.
//!
//! A Rust function behind Lua never raises (see `c/glue.c`): each check here returns
//! `Err(code)` with the message already pushed, and the function returns that code, so
//! the trampoline raises it once the Rust frame is gone. [`Ret`] is the shape every
//! library function has inside; [`entry`] turns it into what the trampoline expects.
//!
//! Numbers are converted as Redis's x86-64 build converts them (`lua_tointeger` is a
//! plain C cast there), not with this target's `lua_Integer`, so that a script sees the
//! same values natively and in wasm32.
use crate::ffi::*;
use std::ffi::{c_int, CStr};

/// A library function's result: the number of results it pushed, or the code of the
/// error whose message it pushed.
pub(crate) type Ret = Result<c_int, c_int>;

/// The value a [`crate::ffi::RustFn`] returns for `r`.
pub(crate) fn entry(r: Ret) -> c_int {
    r.unwrap_or_else(|code| code)
}

/// Pushes `bytes` as a Lua string.
pub(crate) unsafe fn push_bytes(l: *mut lua_State, bytes: &[u8]) {
    // SAFETY: the pointer and length describe `bytes`.
    unsafe { lua_pushlstring(l, bytes.as_ptr() as *const _, bytes.len()) }
}

/// `luaL_error(L, msg)`: the message, prefixed with the caller's position.
pub(crate) unsafe fn error(l: *mut lua_State, msg: &[u8]) -> c_int {
    // SAFETY: pushes onto the caller's state.
    unsafe { push_bytes(l, msg) };
    RAISE_WHERE
}

/// `lua_error` with a message as is (no position), as Lua's own runtime errors raised
/// inside a C function read (`table index is nil`).
pub(crate) unsafe fn raise(l: *mut lua_State, msg: &[u8]) -> c_int {
    // SAFETY: pushes onto the caller's state.
    unsafe { push_bytes(l, msg) };
    RAISE
}

/// `luaL_argerror(L, narg, msg)`: "bad argument #narg to 'f' (msg)".
pub(crate) unsafe fn arg_error(l: *mut lua_State, narg: c_int, msg: &[u8]) -> c_int {
    // SAFETY: pushes onto the caller's state.
    unsafe { push_bytes(l, msg) };
    ARGERROR - narg
}

/// `luaL_checkstack(L, n, what)`: "stack overflow (what)" when the stack cannot grow.
pub(crate) unsafe fn check_stack(l: *mut lua_State, n: c_int, what: &str) -> Result<(), c_int> {
    // SAFETY: lua_checkstack never raises.
    if unsafe { lua_checkstack(l, n) } != 0 {
        Ok(())
    } else {
        // SAFETY: as above.
        Err(unsafe { error(l, format!("stack overflow ({what})").as_bytes()) })
    }
}

/// The name of the type at `idx` ("no value" for an absent argument).
pub(crate) unsafe fn type_name(l: *mut lua_State, idx: c_int) -> String {
    // SAFETY: lua_typename returns a static C string for any type code.
    unsafe {
        CStr::from_ptr(lua_typename(l, lua_type(l, idx)))
            .to_string_lossy()
            .into_owned()
    }
}

/// `luaL_typerror`: "<expected> expected, got <type>".
pub(crate) unsafe fn type_error(l: *mut lua_State, narg: c_int, expected: &str) -> c_int {
    // SAFETY: the caller's argument index.
    unsafe {
        let msg = format!("{expected} expected, got {}", type_name(l, narg));
        arg_error(l, narg, msg.as_bytes())
    }
}

/// `luaL_checknumber`.
pub(crate) unsafe fn check_number(l: *mut lua_State, narg: c_int) -> Result<f64, c_int> {
    // SAFETY: lua_tonumber and lua_isnumber accept any index and never raise.
    unsafe {
        let n = lua_tonumber(l, narg);
        if n == 0.0 && lua_isnumber(l, narg) == 0 {
            return Err(type_error(l, narg, "number"));
        }
        Ok(n)
    }
}

/// `luaL_checkinteger`, converting as a 64-bit C cast does.
pub(crate) unsafe fn check_integer(l: *mut lua_State, narg: c_int) -> Result<i64, c_int> {
    // SAFETY: as check_number.
    unsafe {
        let n = lua_tonumber(l, narg);
        if n == 0.0 && lua_isnumber(l, narg) == 0 {
            return Err(type_error(l, narg, "number"));
        }
        Ok(f64_to_i64(n))
    }
}

/// `luaL_optinteger`: `default` for an absent or nil argument.
pub(crate) unsafe fn opt_integer(
    l: *mut lua_State,
    narg: c_int,
    default: i64,
) -> Result<i64, c_int> {
    // SAFETY: lua_type accepts any index.
    if unsafe { lua_type(l, narg) } <= LUA_TNIL {
        Ok(default)
    } else {
        // SAFETY: as above.
        unsafe { check_integer(l, narg) }
    }
}

pub(crate) use crate::state::to_lstring;

/// `luaL_checklstring`.
pub(crate) unsafe fn check_lstring<'a>(l: *mut lua_State, narg: c_int) -> Result<&'a [u8], c_int> {
    // SAFETY: the caller's argument index.
    unsafe { to_lstring(l, narg).ok_or_else(|| type_error(l, narg, "string")) }
}

/// `luaL_checkstring` as C code sees it: up to the first NUL byte.
pub(crate) unsafe fn check_cstring<'a>(l: *mut lua_State, narg: c_int) -> Result<&'a [u8], c_int> {
    // SAFETY: as check_lstring.
    let s = unsafe { check_lstring(l, narg)? };
    Ok(until_nul(s))
}

/// `s` up to its first NUL byte, as a C string reads it.
pub(crate) fn until_nul(s: &[u8]) -> &[u8] {
    s.iter().position(|&b| b == 0).map_or(s, |i| &s[..i])
}

/// Pushes `f` as a Lua function (a Rust function behind `c/glue.c`'s trampoline) with the
/// `nup` values on top of the stack as its upvalues 2..nup+1.
pub(crate) unsafe fn push_fn(l: *mut lua_State, f: RustFn, nup: c_int) {
    // SAFETY: the caller pushed `nup` values.
    unsafe { kvlab_push_rust_fn(l, f, nup) }
}

/// `t[name] = <value on top>` for the table at `t` (negative indices counted before the
/// push), without metamethods; pops the value.
pub(crate) unsafe fn set_field(l: *mut lua_State, t: c_int, name: &str) {
    // SAFETY: `t` is a table that is not read-only (a library table being built).
    unsafe {
        push_bytes(l, name.as_bytes());
        lua_insert(l, -2);
        let t = if t < 0 && t > LUA_REGISTRYINDEX {
            t - 1
        } else {
            t
        };
        lua_rawset(l, t);
    }
}

/// A C cast of a double to a 64-bit integer on x86-64 (`cvttsd2si`): truncation, and
/// the "integer indefinite" `i64::MIN` for NaN and out-of-range values.
pub(crate) fn f64_to_i64(x: f64) -> i64 {
    if x > -9223372036854777856.0 && x < 9223372036854775808.0 {
        x as i64
    } else {
        i64::MIN
    }
}

/// A C cast of a double to a 32-bit `int` on x86-64 (`cvttsd2si`, 32-bit form).
pub(crate) fn f64_to_i32(x: f64) -> i32 {
    if x > -2147483649.0 && x < 2147483648.0 {
        x as i32
    } else {
        i32::MIN
    }
}

/// A C cast of a double to an unsigned 64-bit integer as gcc compiles it for x86-64:
/// below 2^63 the signed conversion, from 2^63 the signed conversion of `x - 2^63` with
/// the top bit flipped (so 2^64 and more give 0); NaN gives 2^63.
pub(crate) fn f64_to_u64(x: f64) -> u64 {
    const TWO63: f64 = 9223372036854775808.0;
    if x.is_nan() || x < TWO63 {
        f64_to_i64(x) as u64
    } else {
        (f64_to_i64(x - TWO63) as u64) ^ (1 << 63)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn casts_are_x86_64_casts() {
        assert_eq!(f64_to_i64(1.9), 1);
        assert_eq!(f64_to_i64(-1.9), -1);
        assert_eq!(f64_to_i64(2f64.powi(63)), i64::MIN);
        assert_eq!(f64_to_i64(-(2f64.powi(63))), i64::MIN);
        assert_eq!(f64_to_i64(f64::NAN), i64::MIN);
        assert_eq!(f64_to_i32(2147483647.9), i32::MAX);
        assert_eq!(f64_to_i32(2147483648.0), i32::MIN);
        assert_eq!(f64_to_i32(-2147483648.9), i32::MIN);
        assert_eq!(f64_to_u64(2f64.powi(63) + 2048.0), 0x8000_0000_0000_0800);
        assert_eq!(f64_to_u64(2f64.powi(64)), 0);
        assert_eq!(f64_to_u64(f64::INFINITY), 0);
        assert_eq!(f64_to_u64(f64::NAN), 1 << 63);
        assert_eq!(f64_to_u64(-1.0), u64::MAX);
    }
}
