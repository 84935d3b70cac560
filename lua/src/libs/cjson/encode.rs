//! `cjson.encode`. Nested tables are walked with an explicit stack (each open table, and
//! an object's current key and value, stay on Lua's stack as the C library keeps them,
//! so its depth limits fall at the same places), not with Rust recursion.
use super::{config, Config};
use crate::args::*;
use crate::ffi::*;
use crate::numfmt::format_g as fmt_g;
use std::ffi::c_int;

/// An open table: an array with `len` elements and the next index, or an object.
enum Open {
    Array { len: i32, next: i32 },
    Object { comma: bool },
}

/// "Cannot serialise <type of the value at idx>: <reason>".
unsafe fn exception(l: *mut lua_State, idx: c_int, reason: &str) -> c_int {
    // SAFETY: the caller's index.
    unsafe {
        let msg = format!("Cannot serialise {}: {reason}", type_name(l, idx));
        error(l, msg.as_bytes())
    }
}

/// Escapes for the bytes JSON text cannot hold as they are (and `/`, `\x7f`).
fn escape(b: u8) -> Option<&'static str> {
    const CTRL: [&str; 32] = [
        "\\u0000", "\\u0001", "\\u0002", "\\u0003", "\\u0004", "\\u0005", "\\u0006", "\\u0007",
        "\\b", "\\t", "\\n", "\\u000b", "\\f", "\\r", "\\u000e", "\\u000f", "\\u0010", "\\u0011",
        "\\u0012", "\\u0013", "\\u0014", "\\u0015", "\\u0016", "\\u0017", "\\u0018", "\\u0019",
        "\\u001a", "\\u001b", "\\u001c", "\\u001d", "\\u001e", "\\u001f",
    ];
    match b {
        0..=31 => Some(CTRL[b as usize]),
        b'"' => Some("\\\""),
        b'/' => Some("\\/"),
        b'\\' => Some("\\\\"),
        0x7f => Some("\\u007f"),
        _ => None,
    }
}

fn append_string(out: &mut Vec<u8>, s: &[u8]) {
    out.reserve(s.len() + 2);
    out.push(b'"');
    for &b in s {
        match escape(b) {
            Some(e) => out.extend_from_slice(e.as_bytes()),
            None => out.push(b),
        }
    }
    out.push(b'"');
}

unsafe fn append_number(
    l: *mut lua_State,
    cfg: &Config,
    out: &mut Vec<u8>,
    idx: c_int,
) -> Result<(), c_int> {
    // SAFETY: the caller's index holds a number.
    let num = unsafe { lua_tonumber(l, idx) };
    let invalid = num.is_nan() || num.is_infinite();
    match cfg.encode_invalid_numbers {
        // SAFETY: as above.
        0 if invalid => return Err(unsafe { exception(l, idx, "must not be NaN or Inf") }),
        1 if num.is_nan() => {
            out.extend_from_slice(b"nan");
            return Ok(());
        }
        2 if invalid => {
            out.extend_from_slice(b"null");
            return Ok(());
        }
        _ => {}
    }
    out.extend_from_slice(fmt_g(num, cfg.encode_number_precision as usize).as_bytes());
    Ok(())
}

/// The array length of the table on top (its largest key, as a C `int`), or -1 if it
/// is to be an object: a non-positive-integer key, or (with conversion on) too sparse.
unsafe fn array_length(l: *mut lua_State, cfg: &Config) -> Result<i32, c_int> {
    // SAFETY: the table is on top; lua_next walks it with the keys it returns.
    unsafe {
        let (mut max, mut items) = (0i32, 0i32);
        lua_pushnil(l);
        while lua_next(l, -2) != 0 {
            let k = lua_tonumber(l, -2);
            if lua_type(l, -2) == LUA_TNUMBER && k != 0.0 && k.floor() == k && k >= 1.0 {
                if k > max as f64 {
                    max = f64_to_i32(k);
                }
                items = items.wrapping_add(1);
                lua_pop(l, 1);
                continue;
            }
            lua_pop(l, 2);
            return Ok(-1);
        }
        if cfg.encode_sparse_ratio > 0
            && max > items.wrapping_mul(cfg.encode_sparse_ratio)
            && max > cfg.encode_sparse_safe
        {
            if cfg.encode_sparse_convert == 0 {
                return Err(exception(l, -1, "excessively sparse array"));
            }
            return Ok(-1);
        }
        Ok(max)
    }
}

/// Appends the JSON text of the value on top of the stack (left there).
unsafe fn append_value(l: *mut lua_State, cfg: &Config, out: &mut Vec<u8>) -> Result<(), c_int> {
    let mut open: Vec<Open> = Vec::new();
    // SAFETY: values are read from the caller's stack with raw access only.
    unsafe {
        loop {
            // The value on top: write it (then it is complete), or open it.
            let mut complete = true;
            match lua_type(l, -1) {
                LUA_TSTRING => append_string(out, to_lstring(l, -1).unwrap_or_default()),
                LUA_TNUMBER => append_number(l, cfg, out, -1)?,
                LUA_TBOOLEAN => out.extend_from_slice(if lua_toboolean(l, -1) != 0 {
                    b"true"
                } else {
                    b"false"
                }),
                LUA_TNIL => out.extend_from_slice(b"null"),
                LUA_TLIGHTUSERDATA if lua_touserdata(l, -1).is_null() => {
                    out.extend_from_slice(b"null")
                }
                LUA_TTABLE => {
                    let depth = open.len() as i64 + 1;
                    if depth > cfg.encode_max_depth as i64 || lua_checkstack(l, 3) == 0 {
                        return Err(error(
                            l,
                            format!("Cannot serialise, excessive nesting ({depth})").as_bytes(),
                        ));
                    }
                    let len = array_length(l, cfg)?;
                    if len > 0 {
                        out.push(b'[');
                        open.push(Open::Array { len, next: 1 });
                    } else {
                        out.push(b'{');
                        lua_pushnil(l);
                        open.push(Open::Object { comma: false });
                    }
                    complete = false;
                }
                _ => return Err(exception(l, -1, "type not supported")),
            }
            // Move to the next value to write, closing the tables that are complete. A
            // complete value is on top: an array drops it, an object drops it and keeps
            // its key for lua_next.
            loop {
                match open.last_mut() {
                    None => return Ok(()),
                    Some(Open::Array { len, next }) => {
                        if complete {
                            lua_pop(l, 1);
                        }
                        if *next <= *len {
                            if *next > 1 {
                                out.push(b',');
                            }
                            lua_rawgeti(l, -1, *next);
                            *next += 1;
                            break;
                        }
                        out.push(b']');
                    }
                    Some(Open::Object { comma }) => {
                        if complete {
                            lua_pop(l, 1);
                        }
                        if lua_next(l, -2) != 0 {
                            if *comma {
                                out.push(b',');
                            }
                            *comma = true;
                            match lua_type(l, -2) {
                                LUA_TNUMBER => {
                                    out.push(b'"');
                                    append_number(l, cfg, out, -2)?;
                                    out.extend_from_slice(b"\":");
                                }
                                LUA_TSTRING => {
                                    append_string(out, to_lstring(l, -2).unwrap_or_default());
                                    out.push(b':');
                                }
                                _ => {
                                    return Err(exception(
                                        l,
                                        -2,
                                        "table key must be a number or string",
                                    ))
                                }
                            }
                            break;
                        }
                        out.push(b'}');
                    }
                }
                // The table on top is complete: a value of its parent.
                open.pop();
                complete = true;
            }
        }
    }
}

/// `cjson.encode(value)`.
pub(super) unsafe extern "C" fn encode(l: *mut lua_State) -> c_int {
    // SAFETY: called by Lua with its state.
    entry(unsafe {
        (|| {
            let cfg = config(l);
            if lua_gettop(l) != 1 {
                return Err(arg_error(l, 1, b"expected 1 argument"));
            }
            let mut out = Vec::new();
            append_value(l, cfg, &mut out)?;
            push_bytes(l, &out);
            Ok(1)
        })()
    })
}
