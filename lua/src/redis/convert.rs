//! Replies to Lua values (Redis's `redisProtocolToLuaType`) and Lua values to replies
//! (`luaReplyToRedisReply`), and the error tables scripts see.
use crate::cstr;
use crate::ffi::*;
use crate::state::to_bytes;
use std::ffi::{c_char, c_int};

/// A reply as the protocol carries it: what a command answers a script, and what a
/// script answers its caller.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    /// `+OK`.
    Status(Vec<u8>),
    /// `-ERR ...`, without the dash.
    Error(Vec<u8>),
    /// `:1`.
    Int(i64),
    /// `$3\r\nfoo`.
    Bulk(Vec<u8>),
    /// RESP3's null `_`, which Lua sees as `nil`; as a script's result, the null reply
    /// in the caller's protocol (`$-1` in RESP2, `_` in RESP3).
    Null,
    /// RESP2's null bulk string `$-1`, which Lua sees as `false`.
    NullBulk,
    /// RESP2's null array `*-1`, which Lua sees as `false`.
    NullArray,
    /// `*N`.
    Array(Vec<Value>),
    /// RESP3 `%N`.
    Map(Vec<(Value, Value)>),
    /// RESP3 `~N`.
    Set(Vec<Value>),
    /// RESP3 `,1.5`.
    Double(f64),
    /// RESP3 `#t`.
    Bool(bool),
    /// RESP3 `(123`.
    BigNumber(Vec<u8>),
    /// RESP3 `=`: format (three bytes) and text.
    Verbatim(Vec<u8>, Vec<u8>),
}

unsafe fn push_bytes(l: *mut lua_State, b: &[u8]) {
    // SAFETY: one push.
    unsafe { lua_pushlstring(l, b.as_ptr() as *const c_char, b.len()) }
}

unsafe fn set_field(l: *mut lua_State, name: *const c_char) {
    // SAFETY: value on top, table below it.
    unsafe { lua_setfield(l, -2, name) }
}

/// Pushes a reply as Lua sees it: integers as numbers, bulk strings as strings, nulls as
/// `false` (RESP2) or `nil` (RESP3 `_`), statuses as `{ok=}`, errors as `{err=}`, arrays
/// as tables, and RESP3's types as `{map=}`, `{set=}`, `{double=}`, `{big_number=}`,
/// `{verbatim_string={format=, string=}}` and booleans.
pub(crate) unsafe fn push_value(l: *mut lua_State, v: &Value) {
    // SAFETY: the caller checked the stack for 4 slots; each level checks its own.
    unsafe {
        lua_checkstack(l, 5);
        match v {
            Value::Int(n) => lua_pushnumber(l, *n as f64),
            Value::Bulk(b) => push_bytes(l, b),
            Value::Null => lua_pushnil(l),
            Value::NullBulk | Value::NullArray => lua_pushboolean(l, 0),
            Value::Status(s) => {
                lua_newtable(l);
                push_bytes(l, s);
                set_field(l, cstr!("ok"));
            }
            Value::Error(e) => {
                let mut buf = Vec::with_capacity(e.len() + 1);
                buf.push(b'-');
                buf.extend_from_slice(e);
                push_error_buff(l, &buf);
            }
            Value::Array(items) => {
                lua_createtable(l, items.len() as c_int, 0);
                for (i, item) in items.iter().enumerate() {
                    push_value(l, item);
                    lua_rawseti(l, -2, i as c_int + 1);
                }
            }
            Value::Map(pairs) => {
                lua_newtable(l);
                lua_newtable(l);
                for (k, v) in pairs {
                    push_value(l, k);
                    push_value(l, v);
                    if lua_isnil(l, -2) {
                        lua_pop(l, 2); // a nil key cannot be stored
                    } else {
                        lua_rawset(l, -3);
                    }
                }
                set_field(l, cstr!("map"));
            }
            Value::Set(items) => {
                lua_newtable(l);
                lua_newtable(l);
                for item in items {
                    push_value(l, item);
                    if lua_isnil(l, -1) {
                        lua_pop(l, 1);
                    } else {
                        lua_pushboolean(l, 1);
                        lua_rawset(l, -3);
                    }
                }
                set_field(l, cstr!("set"));
            }
            Value::Double(d) => {
                lua_newtable(l);
                lua_pushnumber(l, *d);
                set_field(l, cstr!("double"));
            }
            Value::Bool(b) => lua_pushboolean(l, *b as c_int),
            Value::BigNumber(s) => {
                lua_newtable(l);
                push_bytes(l, s);
                set_field(l, cstr!("big_number"));
            }
            Value::Verbatim(format, s) => {
                lua_newtable(l);
                lua_newtable(l);
                push_bytes(l, s);
                set_field(l, cstr!("string"));
                push_bytes(l, format);
                set_field(l, cstr!("format"));
                set_field(l, cstr!("verbatim_string"));
            }
        }
    }
}

/// Redis's `luaPushErrorBuff` (and `luaPushError`, `{err="ERR <msg>"}`): a message starting with `-` carries its own code up to the
/// first space (`-WRONGTYPE Operation...`), any other gets `ERR`; trailing CR/LF trimmed.
pub(crate) unsafe fn push_error_buff(l: *mut lua_State, err: &[u8]) {
    let (code, msg): (&[u8], &[u8]) = match err.strip_prefix(b"-") {
        Some(rest) => match rest.iter().position(|&b| b == b' ') {
            Some(sp) => (&rest[..sp], &rest[sp + 1..]),
            None => (b"ERR", rest),
        },
        None => (b"ERR", err),
    };
    let msg = trim_crlf(msg);
    let mut text = Vec::with_capacity(code.len() + 1 + msg.len());
    text.extend_from_slice(code);
    text.push(b' ');
    text.extend_from_slice(msg);
    // Redis builds it as a C string: it ends at a NUL.
    if let Some(nul) = text.iter().position(|&b| b == 0) {
        text.truncate(nul);
    }
    // SAFETY: pushes one table.
    unsafe {
        lua_newtable(l);
        push_bytes(l, &text);
        set_field(l, cstr!("err"));
    }
}

fn trim_crlf(mut s: &[u8]) -> &[u8] {
    while let [b'\r' | b'\n', rest @ ..] = s {
        s = rest;
    }
    while let [rest @ .., b'\r' | b'\n'] = s {
        s = rest;
    }
    s
}

/// An error or status text as a reply line carries it: CR and LF become spaces.
fn one_line(s: &[u8]) -> Vec<u8> {
    s.iter()
        .map(|&b| if b == b'\r' || b == b'\n' { b' ' } else { b })
        .collect()
}

/// `(long long)` of a double as x86-64 computes it: out of range and NaN give i64::MIN.
fn c_long_long(n: f64) -> i64 {
    if !(-9_223_372_036_854_775_808.0..9_223_372_036_854_775_808.0).contains(&n) {
        i64::MIN
    } else {
        n as i64
    }
}

unsafe fn raw_field(l: *mut lua_State, idx: c_int, name: *const c_char) -> c_int {
    // SAFETY: raw read of a field of the table at idx (< 0, adjusted for the push).
    unsafe {
        lua_pushstring(l, name);
        lua_rawget(l, idx - 1);
        lua_type(l, -1)
    }
}

/// Converts the value on top (and pops nothing) to a reply, as `luaReplyToRedisReply`:
/// `resp` is the script's protocol (`redis.setresp`), which decides booleans. `counted`
/// gets, for each error in the reply in order (depth first), whether `redis.call` made it
/// from a command's error, counted then (`ignore_error_stats_update`).
pub(crate) unsafe fn lua_to_value(l: *mut lua_State, resp: u8, counted: &mut Vec<bool>) -> Value {
    // SAFETY: raw reads only; each push is popped before returning.
    unsafe {
        if lua_checkstack(l, 4) == 0 {
            return Value::Error(b"ERR reached lua stack limit".to_vec());
        }
        match lua_type(l, -1) {
            LUA_TSTRING => Value::Bulk(to_bytes(l, -1).unwrap_or_default()),
            LUA_TBOOLEAN => {
                let b = lua_toboolean(l, -1) != 0;
                if resp == 2 {
                    if b {
                        Value::Int(1)
                    } else {
                        Value::Null
                    }
                } else {
                    Value::Bool(b)
                }
            }
            LUA_TNUMBER => Value::Int(c_long_long(lua_tonumber(l, -1))),
            LUA_TTABLE => table_to_value(l, resp, counted),
            _ => Value::Null,
        }
    }
}

unsafe fn table_to_value(l: *mut lua_State, resp: u8, counted: &mut Vec<bool>) -> Value {
    // SAFETY: the table is on top; every push is popped.
    unsafe {
        if raw_field(l, -1, cstr!("err")) == LUA_TSTRING {
            let e = to_bytes(l, -1).unwrap_or_default();
            lua_pop(l, 1);
            counted.push(is_counted_error(l));
            return Value::Error(one_line(trim_crlf(&e)));
        }
        lua_pop(l, 1);
        if raw_field(l, -1, cstr!("ok")) == LUA_TSTRING {
            let s = to_bytes(l, -1).unwrap_or_default();
            lua_pop(l, 1);
            return Value::Status(one_line(c_str(&s)));
        }
        lua_pop(l, 1);
        if raw_field(l, -1, cstr!("double")) == LUA_TNUMBER {
            let d = lua_tonumber(l, -1);
            lua_pop(l, 1);
            return Value::Double(d);
        }
        lua_pop(l, 1);
        if raw_field(l, -1, cstr!("big_number")) == LUA_TSTRING {
            let s = to_bytes(l, -1).unwrap_or_default();
            lua_pop(l, 1);
            return Value::BigNumber(one_line(&s));
        }
        lua_pop(l, 1);
        if raw_field(l, -1, cstr!("verbatim_string")) == LUA_TTABLE {
            if raw_field(l, -1, cstr!("format")) == LUA_TSTRING {
                let format = to_bytes(l, -1).unwrap_or_default();
                if raw_field(l, -2, cstr!("string")) == LUA_TSTRING {
                    let s = to_bytes(l, -1).unwrap_or_default();
                    lua_pop(l, 3);
                    let mut f = c_str(&format).to_vec();
                    f.resize(3, b' ');
                    return Value::Verbatim(f, s);
                }
                lua_pop(l, 1);
            }
            lua_pop(l, 1);
        }
        lua_pop(l, 1);
        if raw_field(l, -1, cstr!("map")) == LUA_TTABLE {
            let mut pairs = Vec::new();
            lua_pushnil(l);
            while lua_next(l, -2) != 0 {
                lua_pushvalue(l, -2);
                let k = lua_to_value(l, resp, counted);
                lua_pop(l, 1);
                let v = lua_to_value(l, resp, counted);
                lua_pop(l, 1);
                pairs.push((k, v));
            }
            lua_pop(l, 1);
            return Value::Map(pairs);
        }
        lua_pop(l, 1);
        if raw_field(l, -1, cstr!("set")) == LUA_TTABLE {
            let mut items = Vec::new();
            lua_pushnil(l);
            while lua_next(l, -2) != 0 {
                lua_pop(l, 1);
                lua_pushvalue(l, -1);
                items.push(lua_to_value(l, resp, counted));
                lua_pop(l, 1);
            }
            lua_pop(l, 1);
            return Value::Set(items);
        }
        lua_pop(l, 1);
        let mut items = Vec::new();
        let mut j = 1;
        loop {
            lua_rawgeti(l, -1, j);
            if lua_isnil(l, -1) {
                lua_pop(l, 1);
                break;
            }
            items.push(lua_to_value(l, resp, counted));
            lua_pop(l, 1);
            j += 1;
        }
        Value::Array(items)
    }
}

/// True if the value on top is an error table (`err` a string) that `redis.call` or
/// `redis.pcall` made from a command's error, marked `ignore_error_stats_update`.
pub(crate) unsafe fn is_counted_error(l: *mut lua_State) -> bool {
    // SAFETY: raw reads of the value on top, popped.
    unsafe {
        if !lua_istable(l, -1) || lua_checkstack(l, 2) == 0 {
            return false;
        }
        let is_err = raw_field(l, -1, cstr!("err")) == LUA_TSTRING;
        lua_pop(l, 1);
        let flagged = raw_field(l, -1, cstr!("ignore_error_stats_update")) == LUA_TBOOLEAN
            && lua_toboolean(l, -1) != 0;
        lua_pop(l, 1);
        is_err && flagged
    }
}

/// Up to the first NUL: where Redis reads the text as a C string.
fn c_str(s: &[u8]) -> &[u8] {
    s.iter().position(|&b| b == 0).map_or(s, |n| &s[..n])
}

/// The reply text for a failed run (the error object on top), as `luaCallFunction`
/// writes it: `<err> script: <name>, on <source>:<line>.`, or for an error that is not a
/// table `Error running script <name>, <message>`.
pub(crate) unsafe fn script_error(l: *mut lua_State, name: &str) -> Vec<u8> {
    // SAFETY: raw reads of the error value on top.
    unsafe {
        if !lua_istable(l, -1) {
            let msg = to_bytes(l, -1).unwrap_or_else(|| b"execution failure".to_vec());
            let mut out = format!("ERR Error running script {name}, ").into_bytes();
            out.extend_from_slice(&msg[..msg.len().min(100)]);
            return one_line(trim_crlf(&out));
        }
        let err = field_string(l, cstr!("err"));
        let source = field_string(l, cstr!("source"));
        let line = field_string(l, cstr!("line"));
        // Redis 7.0.15 crashes on an error table without `err` (error({})); kvlab answers
        // the generic message instead.
        let mut out = err
            .map(|e| c_str(&e).to_vec())
            .unwrap_or_else(|| b"ERR unknown error".to_vec());
        if let (Some(source), Some(line)) = (source, line) {
            out.extend_from_slice(format!(" script: {name}, on ").as_bytes());
            out.extend_from_slice(c_str(&source));
            out.push(b':');
            out.extend_from_slice(c_str(&line));
            out.push(b'.');
        }
        one_line(trim_crlf(&out))
    }
}

unsafe fn field_string(l: *mut lua_State, name: *const c_char) -> Option<Vec<u8>> {
    // SAFETY: raw read, popped.
    unsafe {
        raw_field(l, -1, name);
        let s = if lua_isstring(l, -1) != 0 {
            to_bytes(l, -1)
        } else {
            None
        };
        lua_pop(l, 1);
        s
    }
}
