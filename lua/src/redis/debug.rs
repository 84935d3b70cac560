//! Stepping through a script, line by line: kvlab's counterpart of Redis's Lua debugger
//! (LDB), for the workbench.
//!
//! A run started with [`Env::start_debug`](super::Env::start_debug) has its hook fire on
//! line events too (`LUA_MASKLINE`, with the count events as ever). At each new line of
//! the script's own chunk (source `@user_script`: its main body and the functions it
//! defines), in the run's innermost thread at its own level (where a pause can happen,
//! run.rs), the hook asks the host's [`Host::on_line`](super::Host::on_line); a pause there
//! stops the script *before* that line runs. While it is paused,
//! [`Env::position`](super::Env::position) tells the line and the locals of the script's
//! innermost frame, captured by the hook when it paused (the hook sees the frame exactly;
//! a suspended thread's saved position points one instruction back).
//!
//! Lines are not stepped where no pause is possible: inside a C function that calls back
//! into Lua (a `table.sort` comparator, `string.gsub`'s callback, a metamethod). `pcall`'d
//! functions run in a thread of their own (run.rs), so their lines are stepped. Lua sends
//! a line event when a new line starts, when a function starts, and when a loop jumps
//! back, so a loop revisits its lines; build.rs's `PAUSE_PATCHES` make sure an event is
//! sent once, even though a yielding hook makes Lua run its instruction again.
use crate::cstr;
use crate::ffi::*;
use crate::numfmt;
use std::ffi::{c_int, CStr};

/// Where a paused debug run stands.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Position {
    /// The line about to run (1-based, in the script as given to `EVAL`).
    pub line: i32,
    /// The locals of that frame, in declaration order: name and value, rendered as
    /// `render` does. Lua's internal ones (`(for index)`, …) are left out.
    pub locals: Vec<(String, String)>,
}

/// The chunk name scripts are compiled under (`Env::create_script`).
const SCRIPT_SOURCE: &[u8] = b"@user_script";
/// Entries of a table shown before `...`.
const TABLE_ENTRIES: usize = 8;
/// Nesting shown before a table is only `{...}`.
const TABLE_DEPTH: usize = 2;

/// Whether the function of `ar` (filled by the hook or `lua_getstack`) is the script's.
pub(crate) unsafe fn is_script_frame(l: *mut lua_State, ar: *mut lua_Debug) -> bool {
    // SAFETY: `ar` names a live frame of `l`; lua_getinfo("S") never raises.
    unsafe {
        if lua_getinfo(l, cstr!("S"), ar) == 0 || (*ar).source.is_null() {
            return false;
        }
        CStr::from_ptr((*ar).source).to_bytes() == SCRIPT_SOURCE
    }
}

/// The position in thread `l`, called from its hook: the innermost frame of the script,
/// its current line, and its locals. `None` when no frame of `l` is the script's.
pub(crate) unsafe fn capture(l: *mut lua_State) -> Option<Position> {
    // SAFETY: inside the hook, `l` is running and the hook has LUA_MINSTACK free slots;
    // every call here is a raw read that cannot raise (lua_getlocal pushes a copy).
    unsafe {
        let mut ar = lua_Debug::default();
        let mut level = 0;
        loop {
            if lua_getstack(l, level, &mut ar) == 0 {
                return None;
            }
            if is_script_frame(l, &mut ar) {
                break;
            }
            level += 1;
        }
        lua_getinfo(l, cstr!("l"), &mut ar);
        let mut locals = Vec::new();
        if lua_checkstack(l, 4 + 2 * TABLE_DEPTH as c_int) == 0 {
            return Some(Position {
                line: ar.currentline,
                locals,
            });
        }
        let mut n = 1;
        loop {
            let name = lua_getlocal(l, &ar, n);
            if name.is_null() {
                break;
            }
            let name = CStr::from_ptr(name).to_string_lossy().into_owned();
            if !name.starts_with('(') {
                let mut out = String::new();
                render(l, -1, 0, &mut out);
                locals.push((name, out));
            }
            lua_pop(l, 1);
            n += 1;
        }
        Some(Position {
            line: ar.currentline,
            locals,
        })
    }
}

/// A short rendering of the value at `idx`, as Redis's debugger prints values: strings
/// quoted (with `\n`, `\"` and `\xHH` escapes), numbers as Lua's `tostring` writes them,
/// `true`/`false`/`nil`, tables as `{1; 2; 3}` or `{["k"]=v; ...}` (at most
/// [`TABLE_ENTRIES`] entries and [`TABLE_DEPTH`] levels, then `...`), other values by their
/// type. Reads raw: no metamethod runs.
pub(crate) unsafe fn render(l: *mut lua_State, idx: c_int, depth: usize, out: &mut String) {
    // SAFETY: `idx` is a valid index; the caller left room for 2 slots per level.
    unsafe {
        let idx = if idx < 0 {
            lua_gettop(l) + idx + 1
        } else {
            idx
        };
        match lua_type(l, idx) {
            LUA_TNIL => out.push_str("nil"),
            LUA_TBOOLEAN => out.push_str(if lua_toboolean(l, idx) != 0 {
                "true"
            } else {
                "false"
            }),
            LUA_TNUMBER => out.push_str(&numfmt::format_g(lua_tonumber(l, idx), 14)),
            LUA_TSTRING => {
                let mut len = 0usize;
                let p = lua_tolstring(l, idx, &mut len);
                repr(std::slice::from_raw_parts(p as *const u8, len), out);
            }
            LUA_TTABLE if depth >= TABLE_DEPTH => out.push_str("{...}"),
            LUA_TTABLE => table(l, idx, depth, out),
            LUA_TFUNCTION => out.push_str("function"),
            LUA_TTHREAD => out.push_str("thread"),
            _ => out.push_str("userdata"),
        }
    }
}

unsafe fn table(l: *mut lua_State, idx: c_int, depth: usize, out: &mut String) {
    // SAFETY: raw traversal with lua_next on keys it gave; two slots used.
    unsafe {
        let mut array = true;
        let mut as_array = String::new();
        let mut as_map = String::new();
        let mut n = 0usize;
        lua_pushnil(l);
        while lua_next(l, idx) != 0 {
            n += 1;
            if n > TABLE_ENTRIES {
                lua_pop(l, 2);
                as_array.push_str("; ...");
                as_map.push_str("; ...");
                break;
            }
            if n > 1 {
                as_array.push_str("; ");
                as_map.push_str("; ");
            }
            if array && (lua_type(l, -2) != LUA_TNUMBER || lua_tonumber(l, -2) != n as f64) {
                array = false;
            }
            let mut v = String::new();
            render(l, -1, depth + 1, &mut v);
            as_array.push_str(&v);
            as_map.push('[');
            render(l, -2, depth + 1, &mut as_map);
            as_map.push_str("]=");
            as_map.push_str(&v);
            lua_pop(l, 1);
        }
        out.push('{');
        out.push_str(if array { &as_array } else { &as_map });
        out.push('}');
    }
}

/// `s` in double quotes, escaped as Redis's `sdscatrepr` does.
fn repr(s: &[u8], out: &mut String) {
    out.push('"');
    for &b in s {
        match b {
            b'\\' => out.push_str("\\\\"),
            b'"' => out.push_str("\\\""),
            b'\n' => out.push_str("\\n"),
            b'\r' => out.push_str("\\r"),
            b'\t' => out.push_str("\\t"),
            0x07 => out.push_str("\\a"),
            0x08 => out.push_str("\\b"),
            0x20..=0x7e => out.push(b as char),
            _ => out.push_str(&format!("\\x{b:02x}")),
        }
    }
    out.push('"');
}
