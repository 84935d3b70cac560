//! `cjson`: Lua CJSON 2.1.0 as Redis builds it (numbers printed with `%.14g`).
//!
//! * `encode(v)`: JSON text. A table whose keys are all positive integers is an array
//!   (holes are `null`), unless it is "excessively sparse" (see `encode_sparse_array`);
//!   any other table an object, with number keys written as strings. `/` is escaped as
//!   `\/`; bytes from 0x80 pass through. `cjson.null` (a NULL light userdata) and nil
//!   are `null`. Functions, userdata and threads cannot be encoded.
//! * `decode(s)`: the value; `null` becomes `cjson.null`. Errors name the offending
//!   token and its position ("Expected value but found invalid token at character 1").
//! * The settings, each returning its value(s) after applying its arguments:
//!   `encode_sparse_array([convert [, ratio [, safe]]])` (off, 2, 10),
//!   `encode_max_depth([n])` and `decode_max_depth([n])` (1000), `encode_number_precision
//!   ([1..14])` (14), `encode_keep_buffer([bool])` (on), `encode_invalid_numbers([bool or
//!   "null"])` (off) and `decode_invalid_numbers([bool])` (on: accept `inf`, `nan`, hex,
//!   leading `+`/zeros).
//! * `new()`: another module table with its own settings.
use crate::args::*;
use crate::ffi::*;
use std::ffi::c_int;

mod decode;
mod encode;

/// The settings one module table's functions share (a userdata, their upvalue 2).
#[repr(C)]
pub(super) struct Config {
    pub(super) encode_sparse_convert: i32,
    pub(super) encode_sparse_ratio: i32,
    pub(super) encode_sparse_safe: i32,
    pub(super) encode_max_depth: i32,
    /// 0: error, 1: write `inf`/`nan`, 2: write `null`.
    pub(super) encode_invalid_numbers: i32,
    pub(super) encode_number_precision: i32,
    pub(super) encode_keep_buffer: i32,
    pub(super) decode_invalid_numbers: i32,
    pub(super) decode_max_depth: i32,
}

impl Config {
    const DEFAULT: Config = Config {
        encode_sparse_convert: 0,
        encode_sparse_ratio: 2,
        encode_sparse_safe: 10,
        encode_max_depth: 1000,
        encode_invalid_numbers: 0,
        encode_number_precision: 14,
        encode_keep_buffer: 1,
        decode_invalid_numbers: 1,
        decode_max_depth: 1000,
    };
}

/// The calling function's settings.
unsafe fn config<'a>(l: *mut lua_State) -> &'a mut Config {
    // SAFETY: every cjson function is created with the Config userdata as upvalue 2,
    // and Lua keeps it alive (and unmoved) while the function exists.
    unsafe { &mut *(lua_touserdata(l, lua_upvalueindex(2)) as *mut Config) }
}

/// At most `n` arguments; absent ones become nil.
unsafe fn args_upto<'a>(l: *mut lua_State, n: c_int) -> Result<&'a mut Config, c_int> {
    // SAFETY: the state Lua called us with.
    unsafe {
        if lua_gettop(l) > n {
            return Err(arg_error(l, n + 1, b"found too many arguments"));
        }
        if lua_gettop(l) < n {
            lua_settop(l, n);
        }
        Ok(config(l))
    }
}

/// An integer setting from argument `idx` (if not nil) within min..=max; pushes it.
unsafe fn int_option(
    l: *mut lua_State,
    idx: c_int,
    setting: &mut i32,
    min: i32,
    max: i32,
) -> Result<(), c_int> {
    // SAFETY: the state Lua called us with.
    unsafe {
        if !lua_isnil(l, idx) {
            let value = check_integer(l, idx)? as i32;
            if !(min <= value && value <= max) {
                // The C library names argument 1 whichever it checks.
                let msg = format!("expected integer between {min} and {max}");
                return Err(arg_error(l, 1, msg.as_bytes()));
            }
            *setting = value;
        }
        lua_pushnumber(l, *setting as f64);
    }
    Ok(())
}

/// A setting from argument `idx` (if not nil): a boolean, or one of `options` by name;
/// pushes it (a boolean for off/on, else its name).
unsafe fn enum_option(
    l: *mut lua_State,
    idx: c_int,
    setting: &mut i32,
    options: &[&str],
) -> Result<(), c_int> {
    // SAFETY: the state Lua called us with.
    unsafe {
        if !lua_isnil(l, idx) {
            if lua_type(l, idx) == LUA_TBOOLEAN {
                *setting = lua_toboolean(l, idx);
            } else {
                let name = check_cstring(l, idx)?;
                match options.iter().position(|o| o.as_bytes() == name) {
                    Some(i) => *setting = i as i32,
                    None => {
                        let mut msg = b"invalid option '".to_vec();
                        msg.extend_from_slice(name);
                        msg.push(b'\'');
                        return Err(arg_error(l, idx, &msg));
                    }
                }
            }
        }
        if *setting == 0 || *setting == 1 {
            lua_pushboolean(l, *setting);
        } else {
            push_bytes(l, options[*setting as usize].as_bytes());
        }
    }
    Ok(())
}

const OFF_ON: &[&str] = &["off", "on"];

unsafe extern "C" fn encode_sparse_array(l: *mut lua_State) -> c_int {
    // SAFETY: called by Lua with its state.
    entry(unsafe {
        (|| {
            let cfg = args_upto(l, 3)?;
            enum_option(l, 1, &mut cfg.encode_sparse_convert, OFF_ON)?;
            int_option(l, 2, &mut cfg.encode_sparse_ratio, 0, i32::MAX)?;
            int_option(l, 3, &mut cfg.encode_sparse_safe, 0, i32::MAX)?;
            Ok(3)
        })()
    })
}

unsafe extern "C" fn encode_max_depth(l: *mut lua_State) -> c_int {
    // SAFETY: as above.
    entry(unsafe {
        args_upto(l, 1)
            .and_then(|cfg| int_option(l, 1, &mut cfg.encode_max_depth, 1, i32::MAX))
            .map(|()| 1)
    })
}

unsafe extern "C" fn decode_max_depth(l: *mut lua_State) -> c_int {
    // SAFETY: as above.
    entry(unsafe {
        args_upto(l, 1)
            .and_then(|cfg| int_option(l, 1, &mut cfg.decode_max_depth, 1, i32::MAX))
            .map(|()| 1)
    })
}

unsafe extern "C" fn encode_number_precision(l: *mut lua_State) -> c_int {
    // SAFETY: as above.
    entry(unsafe {
        args_upto(l, 1)
            .and_then(|cfg| int_option(l, 1, &mut cfg.encode_number_precision, 1, 14))
            .map(|()| 1)
    })
}

unsafe extern "C" fn encode_keep_buffer(l: *mut lua_State) -> c_int {
    // SAFETY: as above. (The encoder needs no buffer kept between calls; the setting is
    // kept and reported all the same.)
    entry(unsafe {
        args_upto(l, 1)
            .and_then(|cfg| enum_option(l, 1, &mut cfg.encode_keep_buffer, OFF_ON))
            .map(|()| 1)
    })
}

unsafe extern "C" fn encode_invalid_numbers(l: *mut lua_State) -> c_int {
    // SAFETY: as above.
    entry(unsafe {
        args_upto(l, 1)
            .and_then(|cfg| {
                enum_option(
                    l,
                    1,
                    &mut cfg.encode_invalid_numbers,
                    &["off", "on", "null"],
                )
            })
            .map(|()| 1)
    })
}

unsafe extern "C" fn decode_invalid_numbers(l: *mut lua_State) -> c_int {
    // SAFETY: as above.
    entry(unsafe {
        args_upto(l, 1)
            .and_then(|cfg| enum_option(l, 1, &mut cfg.decode_invalid_numbers, OFF_ON))
            .map(|()| 1)
    })
}

unsafe extern "C" fn new(l: *mut lua_State) -> c_int {
    // SAFETY: as above.
    unsafe { push_module(l) };
    1
}

/// Pushes a new cjson module table, with its own settings.
unsafe fn push_module(l: *mut lua_State) {
    let funcs: [(&str, RustFn); 10] = [
        ("encode", encode::encode),
        ("decode", decode::decode),
        ("encode_sparse_array", encode_sparse_array),
        ("encode_max_depth", encode_max_depth),
        ("decode_max_depth", decode_max_depth),
        ("encode_number_precision", encode_number_precision),
        ("encode_keep_buffer", encode_keep_buffer),
        ("encode_invalid_numbers", encode_invalid_numbers),
        ("decode_invalid_numbers", decode_invalid_numbers),
        ("new", new),
    ];
    // SAFETY: pushes a table and a userdata; lua_newuserdata's block is aligned for
    // any C type and sized for Config, which is plain data.
    unsafe {
        lua_createtable(l, 0, 0);
        let cfg = lua_newuserdata(l, std::mem::size_of::<Config>()) as *mut Config;
        cfg.write(Config::DEFAULT);
        for (name, f) in funcs {
            lua_pushvalue(l, -1);
            push_fn(l, f, 1);
            set_field(l, -3, name);
        }
        lua_pop(l, 1);
        lua_pushlightuserdata(l, std::ptr::null_mut());
        set_field(l, -2, "null");
        push_bytes(l, b"cjson");
        set_field(l, -2, "_NAME");
        push_bytes(l, b"2.1.0");
        set_field(l, -2, "_VERSION");
    }
}

/// Opens `cjson` (a global table, as Redis builds it).
pub(crate) unsafe fn open(l: *mut lua_State) {
    // SAFETY: called while the state is being set up, with room on the stack.
    unsafe {
        push_module(l);
        set_field(l, LUA_GLOBALSINDEX, "cjson");
    }
}
