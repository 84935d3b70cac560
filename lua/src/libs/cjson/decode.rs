//! `cjson.decode`. The input reads as a C string does: a NUL byte ends it. Nested
//! arrays and objects are kept on an explicit stack (each open table, and an object's
//! pending key, on Lua's stack as the C library keeps them), not with Rust recursion.
use super::config;
use crate::args::*;
use crate::ffi::*;
use crate::numfmt::strtod;
use std::ffi::c_int;

#[derive(Clone, Copy, PartialEq)]
enum Kind {
    ObjBegin,
    ObjEnd,
    ArrBegin,
    ArrEnd,
    Str,
    Number(f64),
    Boolean(bool),
    Null,
    Colon,
    Comma,
    End,
    /// What is wrong, for the message.
    Error(&'static str),
}

impl Kind {
    /// How an error message names a token found where another was expected.
    fn name(self) -> &'static str {
        match self {
            Kind::ObjBegin => "T_OBJ_BEGIN",
            Kind::ObjEnd => "T_OBJ_END",
            Kind::ArrBegin => "T_ARR_BEGIN",
            Kind::ArrEnd => "T_ARR_END",
            Kind::Str => "T_STRING",
            Kind::Number(_) => "T_NUMBER",
            Kind::Boolean(_) => "T_BOOLEAN",
            Kind::Null => "T_NULL",
            Kind::Colon => "T_COLON",
            Kind::Comma => "T_COMMA",
            Kind::End => "T_END",
            Kind::Error(what) => what,
        }
    }
}

#[derive(Clone, Copy)]
struct Token {
    kind: Kind,
    /// 0-based offset of the token (of the fault, for an error).
    index: usize,
}

struct Parser<'a> {
    data: &'a [u8],
    p: usize,
    /// A string token's bytes.
    text: Vec<u8>,
    invalid_numbers: bool,
}

impl Parser<'_> {
    /// The byte at `i`; 0 past the end, as after a C string.
    fn at(&self, i: usize) -> u8 {
        self.data.get(i).copied().unwrap_or(0)
    }

    fn error(&self, what: &'static str) -> Token {
        Token {
            kind: Kind::Error(what),
            index: self.p,
        }
    }

    fn next(&mut self) -> Token {
        while matches!(self.at(self.p), b' ' | b'\t' | b'\n' | b'\r') {
            self.p += 1;
        }
        let index = self.p;
        let ch = self.at(self.p);
        let single = match ch {
            b'{' => Some(Kind::ObjBegin),
            b'}' => Some(Kind::ObjEnd),
            b'[' => Some(Kind::ArrBegin),
            b']' => Some(Kind::ArrEnd),
            b',' => Some(Kind::Comma),
            b':' => Some(Kind::Colon),
            0 => {
                return Token {
                    kind: Kind::End,
                    index,
                }
            }
            b'f' | b'i' | b'I' | b'n' | b'N' | b't' | b'"' | b'+' | b'-' | b'0'..=b'9' => None,
            _ => return self.error("invalid token"),
        };
        if let Some(kind) = single {
            self.p += 1;
            return Token { kind, index };
        }
        let rest = &self.data[self.p..];
        if ch == b'"' {
            self.string()
        } else if ch == b'-' || ch.is_ascii_digit() {
            if !self.invalid_numbers && self.is_invalid_number() {
                return self.error("invalid number");
            }
            self.number()
        } else if rest.starts_with(b"true") {
            self.p += 4;
            Token {
                kind: Kind::Boolean(true),
                index,
            }
        } else if rest.starts_with(b"false") {
            self.p += 5;
            Token {
                kind: Kind::Boolean(false),
                index,
            }
        } else if rest.starts_with(b"null") {
            self.p += 4;
            Token {
                kind: Kind::Null,
                index,
            }
        } else if self.invalid_numbers && self.is_invalid_number() {
            self.number()
        } else {
            self.error("invalid token")
        }
    }

    /// Whether the number at the cursor is one strict JSON forbids, though `strtod`
    /// reads it: a leading `+` or zero, hexadecimal, `inf`, `nan`.
    fn is_invalid_number(&self) -> bool {
        let mut i = self.p;
        if self.at(i) == b'+' {
            return true;
        }
        if self.at(i) == b'-' {
            i += 1;
        }
        let c = self.at(i);
        if c == b'0' {
            let c2 = self.at(i + 1);
            return c2 | 0x20 == b'x' || c2.is_ascii_digit();
        } else if c <= b'9' {
            return false;
        }
        let word = |w: &[u8]| (0..3).all(|k| self.at(i + k).to_ascii_lowercase() == w[k]);
        word(b"inf") || word(b"nan")
    }

    fn number(&mut self) -> Token {
        let index = self.p;
        let end = self.data[self.p..]
            .iter()
            .position(|&b| b == 0)
            .map_or(self.data.len(), |i| self.p + i);
        match strtod(&self.data[self.p..end]) {
            Some((v, n)) => {
                self.p += n;
                Token {
                    kind: Kind::Number(v),
                    index,
                }
            }
            None => self.error("invalid number"),
        }
    }

    /// Four hex digits at `i`, if they are.
    fn hex4(&self, i: usize) -> Option<u32> {
        (0..4).try_fold(0u32, |acc, k| {
            Some(acc << 4 | (self.at(i + k) as char).to_digit(16)?)
        })
    }

    /// `\uXXXX` (or a surrogate pair of them) at the cursor, appended as UTF-8.
    fn unicode_escape(&mut self) -> bool {
        let Some(mut cp) = self.hex4(self.p + 2) else {
            return false;
        };
        let mut len = 6;
        if cp & 0xf800 == 0xd800 {
            if cp & 0x400 != 0 || self.at(self.p + 6) != b'\\' || self.at(self.p + 7) != b'u' {
                return false;
            }
            let Some(low) = self.hex4(self.p + 8) else {
                return false;
            };
            if low & 0xfc00 != 0xdc00 {
                return false;
            }
            cp = (((cp & 0x3ff) << 10) | (low & 0x3ff)) + 0x10000;
            len = 12;
        }
        let mut buf = [0u8; 4];
        let n = if cp <= 0x7f {
            buf[0] = cp as u8;
            1
        } else if cp <= 0x7ff {
            buf[0] = (cp >> 6) as u8 | 0xc0;
            buf[1] = (cp & 0x3f) as u8 | 0x80;
            2
        } else if cp <= 0xffff {
            buf[0] = (cp >> 12) as u8 | 0xe0;
            buf[1] = ((cp >> 6) & 0x3f) as u8 | 0x80;
            buf[2] = (cp & 0x3f) as u8 | 0x80;
            3
        } else {
            buf[0] = (cp >> 18) as u8 | 0xf0;
            buf[1] = ((cp >> 12) & 0x3f) as u8 | 0x80;
            buf[2] = ((cp >> 6) & 0x3f) as u8 | 0x80;
            buf[3] = (cp & 0x3f) as u8 | 0x80;
            4
        };
        self.text.extend_from_slice(&buf[..n]);
        self.p += len;
        true
    }

    fn string(&mut self) -> Token {
        let index = self.p;
        self.p += 1;
        self.text.clear();
        loop {
            let mut ch = self.at(self.p);
            match ch {
                b'"' => break,
                0 => return self.error("unexpected end of string"),
                b'\\' => {
                    ch = match self.at(self.p + 1) {
                        b'"' => b'"',
                        b'\\' => b'\\',
                        b'/' => b'/',
                        b'b' => 8,
                        b't' => b'\t',
                        b'n' => b'\n',
                        b'f' => 12,
                        b'r' => b'\r',
                        b'u' => {
                            if self.unicode_escape() {
                                continue;
                            }
                            return self.error("invalid unicode escape code");
                        }
                        _ => return self.error("invalid escape code"),
                    };
                    self.p += 1;
                }
                _ => {}
            }
            self.text.push(ch);
            self.p += 1;
        }
        self.p += 1;
        Token {
            kind: Kind::Str,
            index,
        }
    }
}

/// "Expected <what> but found <token> at character <n>".
unsafe fn expected(l: *mut lua_State, what: &str, t: Token) -> c_int {
    let msg = format!(
        "Expected {what} but found {} at character {}",
        t.kind.name(),
        (t.index as u64 + 1) as i32
    );
    // SAFETY: the caller's state.
    unsafe { error(l, msg.as_bytes()) }
}

/// An open table: an array and the index of its next element, or an object.
enum Open {
    Array(c_int),
    Object,
}

unsafe fn decode_value(l: *mut lua_State, ps: &mut Parser, max_depth: i32) -> Ret {
    let mut open: Vec<Open> = Vec::new();
    let mut depth: i64 = 0;
    // SAFETY: pushes onto the caller's stack; tables are fresh and set raw.
    unsafe {
        let descend = |depth: &mut i64, slots: c_int, ps: &Parser| {
            *depth += 1;
            if *depth <= max_depth as i64 && lua_checkstack(l, slots) != 0 {
                return Ok(());
            }
            let msg = format!(
                "Found too many nested data structures ({depth}) at character {}",
                ps.p as u64 as i32
            );
            Err(error(l, msg.as_bytes()))
        };
        let mut tok = ps.next();
        'value: loop {
            // `tok` starts a value: push it, or open a table.
            match tok.kind {
                Kind::Str => push_bytes(l, &ps.text),
                Kind::Number(v) => lua_pushnumber(l, v),
                Kind::Boolean(b) => lua_pushboolean(l, b as c_int),
                Kind::Null => lua_pushlightuserdata(l, std::ptr::null_mut()),
                Kind::ObjBegin => {
                    descend(&mut depth, 3, ps)?;
                    lua_createtable(l, 0, 0);
                    tok = ps.next();
                    if tok.kind == Kind::ObjEnd {
                        depth -= 1;
                    } else {
                        open.push(Open::Object);
                        key(l, ps, &mut tok)?;
                        continue 'value;
                    }
                }
                Kind::ArrBegin => {
                    descend(&mut depth, 2, ps)?;
                    lua_createtable(l, 0, 0);
                    tok = ps.next();
                    if tok.kind == Kind::ArrEnd {
                        depth -= 1;
                    } else {
                        open.push(Open::Array(1));
                        continue 'value;
                    }
                }
                _ => return Err(expected(l, "value", tok)),
            }
            // A value is complete: store it, then find the next one or close tables.
            loop {
                match open.last_mut() {
                    None => return Ok(1),
                    Some(Open::Array(i)) => {
                        lua_rawseti(l, -2, *i);
                        tok = ps.next();
                        if tok.kind != Kind::ArrEnd {
                            if tok.kind != Kind::Comma {
                                return Err(expected(l, "comma or array end", tok));
                            }
                            tok = ps.next();
                            *i += 1;
                            continue 'value;
                        }
                    }
                    Some(Open::Object) => {
                        lua_rawset(l, -3);
                        tok = ps.next();
                        if tok.kind != Kind::ObjEnd {
                            if tok.kind != Kind::Comma {
                                return Err(expected(l, "comma or object end", tok));
                            }
                            tok = ps.next();
                            key(l, ps, &mut tok)?;
                            continue 'value;
                        }
                    }
                }
                depth -= 1;
                open.pop();
            }
        }
    }
}

/// An object's key (`tok`) and colon: pushes the key; leaves the value's first token.
unsafe fn key(l: *mut lua_State, ps: &mut Parser, tok: &mut Token) -> Result<(), c_int> {
    // SAFETY: the caller's state.
    unsafe {
        if tok.kind != Kind::Str {
            return Err(expected(l, "object key string", *tok));
        }
        push_bytes(l, &ps.text);
        *tok = ps.next();
        if tok.kind != Kind::Colon {
            return Err(expected(l, "colon", *tok));
        }
        *tok = ps.next();
    }
    Ok(())
}

/// `cjson.decode(text)`.
pub(super) unsafe extern "C" fn decode(l: *mut lua_State) -> c_int {
    // SAFETY: called by Lua with its state; the text stays at index 1.
    entry(unsafe {
        (|| {
            if lua_gettop(l) != 1 {
                return Err(arg_error(l, 1, b"expected 1 argument"));
            }
            let cfg = config(l);
            let data = check_lstring(l, 1)?;
            if data.len() >= 2 && (data[0] == 0 || data[1] == 0) {
                return Err(error(l, b"JSON parser does not support UTF-16 or UTF-32"));
            }
            let mut ps = Parser {
                data,
                p: 0,
                text: Vec::new(),
                invalid_numbers: cfg.decode_invalid_numbers != 0,
            };
            decode_value(l, &mut ps, cfg.decode_max_depth)?;
            let tok = ps.next();
            if tok.kind != Kind::End {
                return Err(expected(l, "the end", tok));
            }
            Ok(1)
        })()
    })
}
