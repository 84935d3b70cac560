//! `struct`: Roberto Ierusalimschy's struct library (2018) as Redis loads it:
//! `struct.pack(fmt, ...)`, `struct.unpack(fmt, data [, pos])` (the values, then the
//! position after them) and `struct.size(fmt)`.
//!
//! A format is a C string (it ends at a NUL byte) of options: `>` big and `<` little
//! endian (little by default, as on x86-64), `![n]` maximum alignment (8 by default; a
//! power of 2), `x` a zero byte, `b/B` `h/H` `l/L` signed/unsigned 1, 2, 8 bytes, `T` 8
//! bytes, `i[n]/I[n]` n bytes (4 by default, at most 32), `f` float, `d` double,
//! `c[n]` n characters (packing `c0` takes the whole string; unpacking `c0` takes the
//! length from the value read before), `s` a zero-terminated string, and spaces.
//! The sizes are those of Redis's x86-64 build, on every target.
use crate::args::*;
use crate::ffi::*;
use std::ffi::c_int;

const MAXINTSIZE: usize = 32;
const MAXALIGN: i64 = 8;
const SIZEOF_INT: i64 = 4;

#[derive(Clone, Copy, PartialEq)]
enum Endian {
    Big,
    Little,
}

struct Header {
    endian: Endian,
    align: u64,
}

impl Header {
    fn new() -> Header {
        Header {
            endian: Endian::Little,
            align: 1,
        }
    }
}

/// A cursor over the format.
struct Fmt<'a> {
    s: &'a [u8],
    i: usize,
}

impl Fmt<'_> {
    fn next(&mut self) -> Option<u8> {
        let c = self.s.get(self.i).copied();
        self.i += 1;
        c
    }

    /// A decimal number at the cursor, or `default` if there is none.
    unsafe fn num(&mut self, l: *mut lua_State, default: i64) -> Result<i64, c_int> {
        let digit = |f: &Self| {
            f.s.get(f.i)
                .filter(|c| c.is_ascii_digit())
                .map(|c| (c - b'0') as i64)
        };
        if digit(self).is_none() {
            return Ok(default);
        }
        let mut a: i64 = 0;
        while let Some(d) = digit(self) {
            if a > i32::MAX as i64 / 10 || a * 10 > i32::MAX as i64 - d {
                // SAFETY: the caller's state.
                return Err(unsafe { error(l, b"integral size overflow") });
            }
            a = a * 10 + d;
            self.i += 1;
        }
        Ok(a)
    }
}

/// The size of option `opt` (reading its count), 0 for options without one.
unsafe fn opt_size(l: *mut lua_State, opt: u8, f: &mut Fmt) -> Result<u64, c_int> {
    Ok(match opt {
        b'B' | b'b' | b'x' => 1,
        b'H' | b'h' => 2,
        b'L' | b'l' | b'T' | b'd' => 8,
        b'f' => 4,
        // SAFETY: the caller's state.
        b'c' => unsafe { f.num(l, 1)? as u64 },
        b'i' | b'I' => {
            // SAFETY: as above.
            let sz = unsafe { f.num(l, SIZEOF_INT)? };
            if sz > MAXINTSIZE as i64 {
                let msg = format!("integral size {sz} is larger than limit of {MAXINTSIZE}");
                // SAFETY: as above.
                return Err(unsafe { error(l, msg.as_bytes()) });
            }
            sz as u64
        }
        _ => 0,
    })
}

/// Padding bytes before an item of `size` at offset `len` (64-bit `size_t` arithmetic).
fn to_align(len: u64, h: &Header, opt: u8, size: u64) -> u64 {
    if size == 0 || opt == b'c' {
        return 0;
    }
    let size = size.min(h.align);
    size.wrapping_sub(len & size.wrapping_sub(1)) & size.wrapping_sub(1)
}

/// The options that only change the header (and white space); anything else is an error.
unsafe fn control(l: *mut lua_State, opt: u8, f: &mut Fmt, h: &mut Header) -> Result<(), c_int> {
    match opt {
        b' ' => {}
        b'>' => h.endian = Endian::Big,
        b'<' => h.endian = Endian::Little,
        b'!' => {
            // SAFETY: the caller's state.
            let a = unsafe { f.num(l, MAXALIGN)? };
            if a <= 0 || a & (a - 1) != 0 {
                // SAFETY: as above.
                return Err(unsafe {
                    error(l, format!("alignment {a} is not a power of 2").as_bytes())
                });
            }
            h.align = a as u64;
        }
        _ => {
            let mut msg = b"invalid format option '".to_vec();
            msg.push(opt);
            msg.push(b'\'');
            // SAFETY: as above.
            return Err(unsafe { arg_error(l, 1, &msg) });
        }
    }
    Ok(())
}

/// `value` as `size` bytes in the given order (sizes above 8 get zeros beyond).
fn put_int(out: &mut Vec<u8>, mut value: u64, endian: Endian, size: usize) {
    let mut buf = [0u8; MAXINTSIZE];
    for k in 0..size {
        let i = if endian == Endian::Little {
            k
        } else {
            size - 1 - k
        };
        buf[i] = value as u8;
        value = value.checked_shr(8).unwrap_or(0);
    }
    out.extend_from_slice(&buf[..size]);
}

/// Native (little-endian) bytes put in the header's order.
fn ordered(mut bytes: Vec<u8>, endian: Endian) -> Vec<u8> {
    if endian == Endian::Big {
        bytes.reverse();
    }
    bytes
}

unsafe fn pack(l: *mut lua_State) -> Ret {
    // SAFETY: the state Lua called us with; arguments are read in place.
    unsafe {
        let fmt = check_cstring(l, 1)?;
        let mut f = Fmt { s: fmt, i: 0 };
        let mut h = Header::new();
        let mut arg: c_int = 2;
        let mut out = Vec::new();
        // As in the C library, a nil after the arguments: a missing argument reads as
        // "got nil". (Its string buffer, pushed there too past 8 KiB, is not mirrored.)
        lua_pushnil(l);
        while let Some(opt) = f.next() {
            let mut size = opt_size(l, opt, &mut f)?;
            let pad = to_align(out.len() as u64, &h, opt, size);
            out.resize(out.len() + pad as usize, 0);
            match opt {
                b'b' | b'B' | b'h' | b'H' | b'l' | b'L' | b'T' | b'i' | b'I' => {
                    let n = check_number(l, arg)?;
                    arg += 1;
                    let value = if n < 0.0 {
                        f64_to_i64(n) as u64
                    } else {
                        f64_to_u64(n)
                    };
                    put_int(&mut out, value, h.endian, size as usize);
                }
                b'x' => out.push(0),
                b'f' => {
                    let n = check_number(l, arg)?;
                    arg += 1;
                    out.extend(ordered((n as f32).to_le_bytes().to_vec(), h.endian));
                }
                b'd' => {
                    let n = check_number(l, arg)?;
                    arg += 1;
                    out.extend(ordered(n.to_le_bytes().to_vec(), h.endian));
                }
                b'c' | b's' => {
                    let s = check_lstring(l, arg)?;
                    arg += 1;
                    if size == 0 {
                        size = s.len() as u64;
                    }
                    // Redis names the argument after the string here.
                    if (s.len() as u64) < size {
                        return Err(arg_error(l, arg, b"string too short"));
                    }
                    out.extend_from_slice(&s[..size as usize]);
                    if opt == b's' {
                        out.push(0);
                    }
                }
                _ => control(l, opt, &mut f, &mut h)?,
            }
        }
        push_bytes(l, &out);
        Ok(1)
    }
}

/// `size` bytes as an integer in the given order, sign-extended from its top bit if
/// `signed` (with 64-bit arithmetic throughout, as the C library has it).
fn get_int(b: &[u8], endian: Endian, signed: bool, size: usize) -> f64 {
    let mut v: u64 = 0;
    for k in 0..size {
        let i = if endian == Endian::Big {
            k
        } else {
            size - 1 - k
        };
        v = v << 8 | b[i] as u64;
    }
    if !signed {
        return v as f64;
    }
    let mask = (!0u64).wrapping_shl((size as u32).wrapping_mul(8).wrapping_sub(1));
    if v & mask != 0 {
        v |= mask;
    }
    v as i64 as f64
}

unsafe fn unpack(l: *mut lua_State) -> Ret {
    // SAFETY: the state Lua called us with; `data` stays on the stack throughout.
    unsafe {
        let fmt = check_cstring(l, 1)?;
        let data = check_lstring(l, 2)?;
        let ld = data.len() as u64;
        let mut pos = opt_integer(l, 3, 1)? as u64;
        if pos == 0 {
            return Err(arg_error(l, 3, b"offset must be 1 or greater"));
        }
        pos -= 1;
        let mut n: c_int = 0;
        let mut f = Fmt { s: fmt, i: 0 };
        let mut h = Header::new();
        let too_short = |pos: u64, size: u64| size > ld || pos > ld - size;
        let bytes = |pos: u64, size: u64| &data[pos as usize..(pos + size) as usize];
        while let Some(opt) = f.next() {
            let mut size = opt_size(l, opt, &mut f)?;
            pos = pos.wrapping_add(to_align(pos, &h, opt, size));
            if too_short(pos, size) {
                return Err(arg_error(l, 2, b"data string too short"));
            }
            check_stack(l, 2, "too many results")?;
            match opt {
                b'b' | b'B' | b'h' | b'H' | b'l' | b'L' | b'T' | b'i' | b'I' => {
                    let signed = opt.is_ascii_lowercase();
                    lua_pushnumber(
                        l,
                        get_int(bytes(pos, size), h.endian, signed, size as usize),
                    );
                    n += 1;
                }
                b'x' => {}
                b'f' => {
                    let mut b = [0u8; 4];
                    b.copy_from_slice(bytes(pos, 4));
                    let v = if h.endian == Endian::Big {
                        f32::from_be_bytes(b)
                    } else {
                        f32::from_le_bytes(b)
                    };
                    lua_pushnumber(l, v as f64);
                    n += 1;
                }
                b'd' => {
                    let mut b = [0u8; 8];
                    b.copy_from_slice(bytes(pos, 8));
                    let v = if h.endian == Endian::Big {
                        f64::from_be_bytes(b)
                    } else {
                        f64::from_le_bytes(b)
                    };
                    lua_pushnumber(l, v);
                    n += 1;
                }
                b'c' => {
                    if size == 0 {
                        if n == 0 || lua_isnumber(l, -1) == 0 {
                            return Err(error(l, b"format 'c0' needs a previous size"));
                        }
                        size = f64_to_u64(lua_tonumber(l, -1));
                        lua_pop(l, 1);
                        n -= 1;
                        if too_short(pos, size) {
                            return Err(arg_error(l, 2, b"data string too short"));
                        }
                    }
                    push_bytes(l, bytes(pos, size));
                    n += 1;
                }
                b's' => {
                    let Some(len) = data[pos as usize..].iter().position(|&b| b == 0) else {
                        return Err(error(l, b"unfinished string in data"));
                    };
                    size = len as u64 + 1;
                    push_bytes(l, bytes(pos, len as u64));
                    n += 1;
                }
                _ => control(l, opt, &mut f, &mut h)?,
            }
            pos = pos.wrapping_add(size);
        }
        lua_pushnumber(l, pos.wrapping_add(1) as i64 as f64);
        Ok(n + 1)
    }
}

unsafe fn size(l: *mut lua_State) -> Ret {
    // SAFETY: the state Lua called us with.
    unsafe {
        let fmt = check_cstring(l, 1)?;
        let mut f = Fmt { s: fmt, i: 0 };
        let mut h = Header::new();
        let mut pos: u64 = 0;
        while let Some(opt) = f.next() {
            let size = opt_size(l, opt, &mut f)?;
            pos = pos.wrapping_add(to_align(pos, &h, opt, size));
            if opt == b's' {
                return Err(arg_error(l, 1, b"option 's' has no fixed size"));
            } else if opt == b'c' && size == 0 {
                return Err(arg_error(l, 1, b"option 'c0' has no fixed size"));
            }
            if !opt.is_ascii_alphanumeric() {
                control(l, opt, &mut f, &mut h)?;
            }
            pos = pos.wrapping_add(size);
        }
        lua_pushnumber(l, pos as i64 as f64);
        Ok(1)
    }
}

unsafe extern "C" fn b_pack(l: *mut lua_State) -> c_int {
    // SAFETY: called by Lua with its state.
    entry(unsafe { pack(l) })
}
unsafe extern "C" fn b_unpack(l: *mut lua_State) -> c_int {
    // SAFETY: as above.
    entry(unsafe { unpack(l) })
}
unsafe extern "C" fn b_size(l: *mut lua_State) -> c_int {
    // SAFETY: as above.
    entry(unsafe { size(l) })
}

/// Opens `struct` (a global table, as `luaL_register` makes it).
pub(crate) unsafe fn open(l: *mut lua_State) {
    let funcs: [(&str, RustFn); 3] = [("pack", b_pack), ("unpack", b_unpack), ("size", b_size)];
    // SAFETY: called while the state is being set up, with room on the stack.
    unsafe {
        lua_createtable(l, 0, funcs.len() as c_int);
        for (name, f) in funcs {
            push_fn(l, f, 0);
            set_field(l, -2, name);
        }
        set_field(l, LUA_GLOBALSINDEX, "struct");
    }
}
