//! `cmsgpack`: lua-cmsgpack 0.4.0 as Redis loads it (MessagePack).
//!
//! * `pack(v1, ...)`: the values' encodings, concatenated. Integers (numbers a 64-bit
//!   integer holds exactly) take the smallest of fixint, (u)int8/16/32/64; other numbers
//!   a float32 when it holds them exactly, else a float64; strings fixstr, str8/16/32;
//!   booleans; a table whose keys are exactly 1..n is an array (fix, 16, 32), any other
//!   a map; tables nested 16 deep, and functions, nil and the rest, are nil.
//! * `unpack(s)`: every value in `s`. `unpack_one(s [, offset])` and
//!   `unpack_limit(s, limit [, offset])`: the offset after the values read (-1 at the
//!   end of `s`), then up to 1 or `limit` values from byte `offset` (0-based). bin and ext
//!   types are not understood ("Bad data format in input.").
use crate::args::*;
use crate::ffi::*;
use std::ffi::c_int;

/// Tables nested this deep are encoded as nil (so cycles end).
const MAX_NESTING: u32 = 16;

/// Appends the encoding of the value on top of the stack, and pops it.
unsafe fn encode(l: *mut lua_State, out: &mut Vec<u8>, level: u32) -> Result<(), c_int> {
    // SAFETY: the value is on top of the caller's stack; only raw access is used.
    unsafe {
        let mut t = lua_type(l, -1);
        if t == LUA_TTABLE && level == MAX_NESTING {
            t = LUA_TNIL;
        }
        match t {
            LUA_TSTRING => encode_bytes(out, to_lstring(l, -1).unwrap_or_default()),
            LUA_TBOOLEAN => out.push(if lua_toboolean(l, -1) != 0 {
                0xc3
            } else {
                0xc2
            }),
            LUA_TNUMBER => {
                let n = lua_tonumber(l, -1);
                if !n.is_infinite() && f64_to_i64(n) as f64 == n {
                    encode_int(out, f64_to_i64(n));
                } else {
                    encode_double(out, n);
                }
            }
            LUA_TTABLE => encode_table(l, out, level)?,
            _ => out.push(0xc0),
        }
        lua_pop(l, 1);
    }
    Ok(())
}

fn encode_bytes(out: &mut Vec<u8>, s: &[u8]) {
    let len = s.len();
    if len < 32 {
        out.push(0xa0 | len as u8);
    } else if len <= 0xff {
        out.extend([0xd9, len as u8]);
    } else if len <= 0xffff {
        out.push(0xda);
        out.extend((len as u16).to_be_bytes());
    } else {
        out.push(0xdb);
        out.extend((len as u32).to_be_bytes());
    }
    out.extend_from_slice(s);
}

fn encode_double(out: &mut Vec<u8>, d: f64) {
    let f = d as f32;
    if f as f64 == d {
        out.push(0xca);
        out.extend(f.to_be_bytes());
    } else {
        out.push(0xcb);
        out.extend(d.to_be_bytes());
    }
}

fn encode_int(out: &mut Vec<u8>, n: i64) {
    if n >= 0 {
        if n <= 127 {
            out.push(n as u8);
        } else if n <= 0xff {
            out.extend([0xcc, n as u8]);
        } else if n <= 0xffff {
            out.push(0xcd);
            out.extend((n as u16).to_be_bytes());
        } else if n <= 0xffff_ffff {
            out.push(0xce);
            out.extend((n as u32).to_be_bytes());
        } else {
            out.push(0xcf);
            out.extend((n as u64).to_be_bytes());
        }
    } else if n >= -32 {
        out.push(n as i8 as u8);
    } else if n >= -128 {
        out.extend([0xd0, n as i8 as u8]);
    } else if n >= -32768 {
        out.push(0xd1);
        out.extend((n as i16).to_be_bytes());
    } else if n >= -2147483648 {
        out.push(0xd2);
        out.extend((n as i32).to_be_bytes());
    } else {
        out.push(0xd3);
        out.extend(n.to_be_bytes());
    }
}

fn encode_len(out: &mut Vec<u8>, n: u64, fix: u8, tag16: u8) {
    if n <= 15 {
        out.push(fix | n as u8);
    } else if n <= 65535 {
        out.push(tag16);
        out.extend((n as u16).to_be_bytes());
    } else {
        out.push(tag16 + 1);
        out.extend((n as u32).to_be_bytes());
    }
}

/// Whether the table on top has exactly the keys 1..n (n = its number of keys).
unsafe fn is_array(l: *mut lua_State) -> Result<bool, c_int> {
    // SAFETY: the table is on top; lua_next walks it with the keys it returns.
    unsafe {
        check_stack(l, 2, "in function table_is_an_array")?;
        let top = lua_gettop(l);
        let (mut count, mut max) = (0i32, 0i32);
        lua_pushnil(l);
        while lua_next(l, -2) != 0 {
            lua_pop(l, 1);
            let n = lua_tonumber(l, -1);
            if lua_type(l, -1) != LUA_TNUMBER
                || n <= 0.0
                || n.is_infinite()
                || f64_to_i32(n) as f64 != n
            {
                lua_settop(l, top);
                return Ok(false);
            }
            max = max.max(n as i32);
            count = count.wrapping_add(1);
        }
        lua_settop(l, top);
        Ok(max == count)
    }
}

unsafe fn encode_table(l: *mut lua_State, out: &mut Vec<u8>, level: u32) -> Result<(), c_int> {
    // SAFETY: the table is on top; raw access only (an array's keys all exist, so a
    // raw get reads what an indexed one would).
    unsafe {
        if is_array(l)? {
            let len = lua_objlen(l, -1);
            encode_len(out, len as u64, 0x90, 0xdc);
            check_stack(l, 1, "in function mp_encode_lua_table_as_array")?;
            for j in 1..=len {
                lua_rawgeti(l, -1, j as c_int);
                encode(l, out, level + 1)?;
            }
        } else {
            check_stack(l, 3, "in function mp_encode_lua_table_as_map")?;
            let mut len: u64 = 0;
            lua_pushnil(l);
            while lua_next(l, -2) != 0 {
                lua_pop(l, 1);
                len += 1;
            }
            encode_len(out, len, 0x80, 0xde);
            lua_pushnil(l);
            while lua_next(l, -2) != 0 {
                lua_pushvalue(l, -2);
                encode(l, out, level + 1)?; // the key
                encode(l, out, level + 1)?; // the value
            }
        }
    }
    Ok(())
}

unsafe fn pack(l: *mut lua_State) -> Ret {
    // SAFETY: the state Lua called us with.
    unsafe {
        let nargs = lua_gettop(l);
        if nargs == 0 {
            return Err(arg_error(l, 0, b"MessagePack pack needs input."));
        }
        if lua_checkstack(l, nargs) == 0 {
            return Err(arg_error(l, 0, b"Too many arguments for MessagePack pack."));
        }
        let mut out = Vec::new();
        for i in 1..=nargs {
            check_stack(l, 1, "in function mp_check")?;
            lua_pushvalue(l, i);
            encode(l, &mut out, 0)?;
            push_bytes(l, &out);
            out.clear();
        }
        lua_concat(l, nargs);
        Ok(1)
    }
}

/// Why decoding stopped.
enum Stop {
    /// The input ended inside a value.
    Eof,
    /// A byte that starts no value this library knows.
    BadFormat,
    /// An error to return as is (its message pushed).
    Raise(c_int),
}

/// The input and how far it has been read.
struct Cursor<'a> {
    s: &'a [u8],
    p: usize,
}

impl Cursor<'_> {
    fn left(&self) -> usize {
        self.s.len() - self.p
    }
    fn need(&self, n: usize) -> Result<(), Stop> {
        if self.left() < n {
            Err(Stop::Eof)
        } else {
            Ok(())
        }
    }
    /// `n` bytes after the first one, as a big-endian number.
    fn be(&self, n: usize) -> u64 {
        self.s[self.p + 1..self.p + 1 + n]
            .iter()
            .fold(0u64, |a, &b| a << 8 | b as u64)
    }
}

/// An open array or map being filled: what is left of it.
enum Open {
    Array { next: u64, left: u64 },
    Map { left: u64, key_done: bool },
}

/// Decodes one value at the cursor and pushes it. Nested arrays and maps are kept on an
/// explicit stack (each open table and its pending key on Lua's), so depth costs no Rust
/// stack.
unsafe fn decode(l: *mut lua_State, c: &mut Cursor) -> Result<(), Stop> {
    let mut open: Vec<Open> = Vec::new();
    // SAFETY: pushes onto the caller's stack; tables are fresh and set raw.
    unsafe {
        loop {
            // Push the next value, or open a table.
            c.need(1)?;
            if lua_checkstack(l, 1) == 0 {
                let msg = "too many return values at once; use unpack_one or unpack_limit instead.";
                return Err(Stop::Raise(check_stack(l, 1, msg).unwrap_err()));
            }
            let b = c.s[c.p];
            let mut table: Option<Open> = None;
            let scalar = |need: usize, v: f64, c: &mut Cursor| -> Result<(), Stop> {
                c.need(need)?;
                lua_pushnumber(l, v);
                c.p += need;
                Ok(())
            };
            match b {
                0xcc => {
                    c.need(2)?;
                    scalar(2, c.be(1) as f64, c)?
                }
                0xd0 => {
                    c.need(2)?;
                    scalar(2, c.be(1) as u8 as i8 as f64, c)?
                }
                0xcd => {
                    c.need(3)?;
                    scalar(3, c.be(2) as f64, c)?
                }
                0xd1 => {
                    c.need(3)?;
                    scalar(3, c.be(2) as u16 as i16 as f64, c)?
                }
                0xce => {
                    c.need(5)?;
                    scalar(5, c.be(4) as f64, c)?
                }
                0xd2 => {
                    c.need(5)?;
                    scalar(5, c.be(4) as u32 as i32 as f64, c)?
                }
                0xcf | 0xd3 => {
                    c.need(9)?;
                    scalar(9, c.be(8) as i64 as f64, c)?
                }
                0xc0 => {
                    lua_pushnil(l);
                    c.p += 1;
                }
                0xc2 | 0xc3 => {
                    lua_pushboolean(l, (b == 0xc3) as c_int);
                    c.p += 1;
                }
                0xca => {
                    c.need(5)?;
                    scalar(5, f32::from_bits(c.be(4) as u32) as f64, c)?
                }
                0xcb => {
                    c.need(9)?;
                    scalar(9, f64::from_bits(c.be(8)), c)?
                }
                0xd9..=0xdb => {
                    let w = [1, 2, 4][(b - 0xd9) as usize];
                    c.need(1 + w)?;
                    let len = c.be(w) as usize;
                    c.p += 1 + w;
                    c.need(len)?;
                    push_bytes(l, &c.s[c.p..c.p + len]);
                    c.p += len;
                }
                0xdc..=0xdf => {
                    let w = if b & 1 == 0 { 2 } else { 4 };
                    c.need(1 + w)?;
                    let len = c.be(w);
                    c.p += 1 + w;
                    table = Some(if b < 0xde {
                        Open::Array { next: 1, left: len }
                    } else {
                        Open::Map {
                            left: len,
                            key_done: false,
                        }
                    });
                }
                _ if b & 0x80 == 0 => {
                    lua_pushnumber(l, b as f64);
                    c.p += 1;
                }
                _ if b & 0xe0 == 0xe0 => {
                    lua_pushnumber(l, b as i8 as f64);
                    c.p += 1;
                }
                _ if b & 0xe0 == 0xa0 => {
                    let len = (b & 0x1f) as usize;
                    c.need(1 + len)?;
                    push_bytes(l, &c.s[c.p + 1..c.p + 1 + len]);
                    c.p += 1 + len;
                }
                _ if b & 0xf0 == 0x90 => {
                    c.p += 1;
                    table = Some(Open::Array {
                        next: 1,
                        left: (b & 0xf) as u64,
                    });
                }
                _ if b & 0xf0 == 0x80 => {
                    c.p += 1;
                    table = Some(Open::Map {
                        left: (b & 0xf) as u64,
                        key_done: false,
                    });
                }
                _ => return Err(Stop::BadFormat),
            }
            if let Some(t) = table {
                lua_createtable(l, 0, 0);
                if let Open::Array { .. } = t {
                    if lua_checkstack(l, 1) == 0 {
                        return Err(Stop::Raise(
                            check_stack(l, 1, "in function mp_decode_to_lua_array").unwrap_err(),
                        ));
                    }
                }
                match t {
                    Open::Array { left: 0, .. } | Open::Map { left: 0, .. } => {}
                    Open::Array { .. } => {
                        lua_pushnumber(l, 1.0);
                        open.push(t);
                        continue;
                    }
                    Open::Map { .. } => {
                        open.push(t);
                        continue;
                    }
                }
            }
            // A value is complete: store it in the table it belongs to, if any.
            loop {
                match open.last_mut() {
                    None => return Ok(()),
                    Some(Open::Array { next, left }) => {
                        lua_rawset(l, -3);
                        *left -= 1;
                        if *left > 0 {
                            *next += 1;
                            lua_pushnumber(l, *next as f64);
                            break;
                        }
                    }
                    Some(Open::Map { left, key_done }) => {
                        if !*key_done {
                            *key_done = true;
                            break;
                        }
                        match lua_type(l, -2) {
                            LUA_TNIL => return Err(Stop::Raise(raise(l, b"table index is nil"))),
                            LUA_TNUMBER if lua_tonumber(l, -2).is_nan() => {
                                return Err(Stop::Raise(raise(l, b"table index is NaN")))
                            }
                            _ => {}
                        }
                        lua_rawset(l, -3);
                        *left -= 1;
                        *key_done = false;
                        if *left > 0 {
                            break;
                        }
                    }
                }
                open.pop();
            }
        }
    }
}

/// Decodes from `offset`: every value if `limit` and `offset` are both 0, else up to
/// `limit` values preceded by the offset after them.
unsafe fn unpack_full(l: *mut lua_State, limit: i64, offset: i64) -> Ret {
    // SAFETY: the state Lua called us with; the input string stays at index 1.
    unsafe {
        let s = check_lstring(l, 1)?;
        let len = s.len();
        let decode_all = limit == 0 && offset == 0;
        if offset < 0 || limit < 0 {
            let msg = format!(
                "Invalid request to unpack with offset of {} and limit of {}.",
                offset as i32, len as i32
            );
            return Err(error(l, msg.as_bytes()));
        } else if offset as u64 > len as u64 {
            let msg = format!(
                "Start offset {} greater than input length {}.",
                offset as i32, len as i32
            );
            return Err(error(l, msg.as_bytes()));
        }
        let limit = if decode_all { i32::MAX as i64 } else { limit };
        let mut c = Cursor {
            s,
            p: offset as usize,
        };
        let mut count: c_int = 0;
        while c.left() > 0 && (count as i64) < limit {
            match decode(l, &mut c) {
                Ok(()) => {}
                Err(Stop::Eof) => return Err(error(l, b"Missing bytes in input.")),
                Err(Stop::BadFormat) => return Err(error(l, b"Bad data format in input.")),
                Err(Stop::Raise(code)) => return Err(code),
            }
            count += 1;
        }
        if !decode_all {
            check_stack(l, 1, "in function mp_unpack_full")?;
            let next = if c.left() == 0 { -1.0 } else { c.p as f64 };
            lua_pushnumber(l, next);
            lua_insert(l, 2);
            count += 1;
        }
        Ok(count)
    }
}

unsafe extern "C" fn mp_pack(l: *mut lua_State) -> c_int {
    // SAFETY: called by Lua with its state.
    entry(unsafe { pack(l) })
}

unsafe extern "C" fn mp_unpack(l: *mut lua_State) -> c_int {
    // SAFETY: as above.
    entry(unsafe { unpack_full(l, 0, 0) })
}

unsafe extern "C" fn mp_unpack_one(l: *mut lua_State) -> c_int {
    // SAFETY: as above.
    entry(unsafe {
        opt_integer(l, 2, 0).and_then(|offset| {
            lua_settop(l, 1.min(lua_gettop(l)));
            unpack_full(l, 1, offset)
        })
    })
}

unsafe extern "C" fn mp_unpack_limit(l: *mut lua_State) -> c_int {
    // SAFETY: as above.
    entry(unsafe {
        (|| {
            let limit = check_integer(l, 2)?;
            let offset = opt_integer(l, 3, 0)?;
            lua_settop(l, 1.min(lua_gettop(l)));
            unpack_full(l, limit, offset)
        })()
    })
}

/// Opens `cmsgpack` (a global table).
pub(crate) unsafe fn open(l: *mut lua_State) {
    let funcs: [(&str, RustFn); 4] = [
        ("pack", mp_pack),
        ("unpack", mp_unpack),
        ("unpack_one", mp_unpack_one),
        ("unpack_limit", mp_unpack_limit),
    ];
    let meta = [
        ("_NAME", "cmsgpack"),
        ("_VERSION", "lua-cmsgpack 0.4.0"),
        ("_COPYRIGHT", "Copyright (C) 2012, Salvatore Sanfilippo"),
        ("_DESCRIPTION", "MessagePack C implementation for Lua"),
    ];
    // SAFETY: called while the state is being set up, with room on the stack.
    unsafe {
        lua_createtable(l, 0, 0);
        for (name, f) in funcs {
            push_fn(l, f, 0);
            set_field(l, -2, name);
        }
        for (name, value) in meta {
            push_bytes(l, value.as_bytes());
            set_field(l, -2, name);
        }
        set_field(l, LUA_GLOBALSINDEX, "cmsgpack");
    }
}
