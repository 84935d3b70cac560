//! A Lua state with its memory accounted, and the basic operations the rest of the crate
//! builds on.
use crate::cstr;
use crate::ffi::*;
use std::alloc::{alloc, dealloc, realloc, Layout};
use std::ffi::{c_int, c_void, CStr};

/// Every block Lua gets is aligned for its largest scalar (`double`, a pointer).
const ALIGN: usize = 8;

/// How much memory a state holds, for INFO's `used_memory_lua`.
#[derive(Default)]
struct Accounting {
    bytes: usize,
}

/// Lua's allocator (`lua_Alloc`), backed by Rust's. `ud` is the state's [`Accounting`].
unsafe extern "C" fn allocate(
    ud: *mut c_void,
    ptr: *mut c_void,
    osize: usize,
    nsize: usize,
) -> *mut c_void {
    // SAFETY: ud is the Box<Accounting> the Lua owns, alive as long as the state.
    let acct = unsafe { &mut *(ud as *mut Accounting) };
    if nsize == 0 {
        if !ptr.is_null() {
            // SAFETY: ptr was allocated below with this size and alignment.
            unsafe {
                dealloc(
                    ptr as *mut u8,
                    Layout::from_size_align_unchecked(osize, ALIGN),
                )
            };
            acct.bytes -= osize;
        }
        return std::ptr::null_mut();
    }
    let p = if ptr.is_null() {
        // SAFETY: nsize > 0.
        unsafe { alloc(Layout::from_size_align_unchecked(nsize, ALIGN)) }
    } else {
        // SAFETY: ptr came from here with osize (> 0: Lua passes the old size of a live block).
        unsafe {
            realloc(
                ptr as *mut u8,
                Layout::from_size_align_unchecked(osize, ALIGN),
                nsize,
            )
        }
    };
    if p.is_null() {
        std::alloc::handle_alloc_error(Layout::from_size_align(nsize, ALIGN).unwrap());
    }
    acct.bytes = acct.bytes + nsize - if ptr.is_null() { 0 } else { osize };
    p as *mut c_void
}

/// An error from running Lua code: the error value, as Lua's `tostring` shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunError(pub Vec<u8>);

/// A Lua 5.1 state with the libraries Redis opens.
pub struct Lua {
    pub(crate) l: *mut lua_State,
    acct: Box<Accounting>,
}

unsafe extern "C" fn open_libs(l: *mut lua_State) -> c_int {
    // SAFETY: protected (lua_cpcall).
    unsafe {
        open_standard_libs(l);
        // Then Redis's own additions: cjson, struct, cmsgpack, bit.
        crate::libs_open(l);
    }
    0
}

/// Opens Lua's base, table, string, math and debug libraries (Redis's
/// luaLoadLibraries, first half). No user code runs: nothing can fail short of memory
/// running out, which aborts.
pub(crate) unsafe fn open_standard_libs(l: *mut lua_State) {
    // Redis's luaLoadLibraries: each library through a call, with its name as argument.
    let libs: [(lua_CFunction, *const std::ffi::c_char); 5] = [
        (luaopen_base, cstr!("")),
        (luaopen_table, cstr!("table")),
        (luaopen_string, cstr!("string")),
        (luaopen_math, cstr!("math")),
        (luaopen_debug, cstr!("debug")),
    ];
    for (f, name) in libs {
        // SAFETY: inside lua_cpcall: errors are caught there.
        unsafe {
            lua_pushcclosure(l, f, 0);
            lua_pushstring(l, name);
            lua_call(l, 1, 0);
        }
    }
}

impl Lua {
    /// A new state with Lua's base, table, string, math and debug libraries, and
    /// Redis's cjson, struct, cmsgpack and bit.
    pub fn new() -> Lua {
        let lua = Lua::bare();
        // SAFETY: a fresh state; open_libs runs protected.
        let status = unsafe { lua_cpcall(lua.l, open_libs, std::ptr::null_mut()) };
        assert_eq!(status, 0, "opening Lua's libraries failed");
        lua
    }

    /// A new state with no library open.
    pub(crate) fn bare() -> Lua {
        let mut acct = Box::new(Accounting::default());
        // SAFETY: the allocator and its accounting outlive the state (dropped after close).
        let l = unsafe { lua_newstate(allocate, &mut *acct as *mut Accounting as *mut c_void) };
        assert!(!l.is_null(), "lua_newstate");
        Lua { l, acct }
    }

    /// The raw state, for the crate's own modules.
    pub fn raw(&self) -> *mut lua_State {
        self.l
    }

    /// Bytes the state holds now.
    pub fn memory(&self) -> usize {
        self.acct.bytes
    }

    /// Compiles and runs `chunk` (named `name`, as in `luaL_loadbuffer`); returns its
    /// results as `tostring` shows them. For tests and tools; the engine's scripts run
    /// through the Redis environment instead.
    pub fn run(&mut self, name: &str, chunk: &[u8]) -> Result<Vec<Vec<u8>>, RunError> {
        let l = self.l;
        let name = std::ffi::CString::new(name).unwrap();
        // SAFETY: plain stack use on our own state; errors come back as status codes.
        unsafe {
            let top = lua_gettop(l);
            let mut status =
                luaL_loadbuffer(l, chunk.as_ptr() as *const _, chunk.len(), name.as_ptr());
            if status == 0 {
                status = lua_pcall(l, 0, LUA_MULTRET, 0);
            }
            if status != 0 {
                let msg = to_display(l, -1);
                lua_settop(l, top);
                return Err(RunError(msg));
            }
            let n = lua_gettop(l) - top;
            let out = (1..=n).map(|i| to_display(l, top + i)).collect();
            lua_settop(l, top);
            Ok(out)
        }
    }
}

impl Default for Lua {
    fn default() -> Self {
        Lua::new()
    }
}

impl Drop for Lua {
    fn drop(&mut self) {
        // SAFETY: the state is ours and not used after this.
        unsafe { lua_close(self.l) };
    }
}

/// The bytes of the string (or number, converted in place) at `idx`, if it is one.
/// They stay valid while the value stays on the stack.
pub(crate) unsafe fn to_lstring<'a>(l: *mut lua_State, idx: c_int) -> Option<&'a [u8]> {
    let mut len = 0usize;
    // SAFETY: lua_tolstring never raises; the bytes live as long as the value.
    unsafe {
        let p = lua_tolstring(l, idx, &mut len);
        if p.is_null() {
            None
        } else {
            Some(std::slice::from_raw_parts(p as *const u8, len))
        }
    }
}

/// [`to_lstring`], copied out (the value may leave the stack).
pub(crate) unsafe fn to_bytes(l: *mut lua_State, idx: c_int) -> Option<Vec<u8>> {
    // SAFETY: as to_lstring.
    unsafe { to_lstring(l, idx) }.map(<[u8]>::to_vec)
}

/// What `tostring` would show for the value at `idx`, without calling metamethods.
unsafe fn to_display(l: *mut lua_State, idx: c_int) -> Vec<u8> {
    // SAFETY: caller's index.
    unsafe {
        match lua_type(l, idx) {
            LUA_TSTRING | LUA_TNUMBER => {
                lua_pushvalue(l, idx);
                let s = to_bytes(l, -1).unwrap_or_default();
                lua_pop(l, 1);
                s
            }
            LUA_TNIL => b"nil".to_vec(),
            LUA_TBOOLEAN => {
                if lua_toboolean(l, idx) != 0 {
                    b"true".to_vec()
                } else {
                    b"false".to_vec()
                }
            }
            t => {
                let name = CStr::from_ptr(lua_typename(l, t)).to_bytes().to_vec();
                let mut s = name;
                s.extend_from_slice(format!(": {:p}", lua_topointer(l, idx)).as_bytes());
                s
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(src: &str) -> Result<Vec<String>, String> {
        let mut lua = Lua::new();
        lua.run("@test", src.as_bytes())
            .map(|v| {
                v.into_iter()
                    .map(|b| String::from_utf8(b).unwrap())
                    .collect()
            })
            .map_err(|e| String::from_utf8(e.0).unwrap())
    }

    #[test]
    fn it_is_lua_5_1() {
        assert_eq!(
            run("return _VERSION, 10/3, #{1,2,3}, tostring(0.1), 2^53").unwrap(),
            [
                "Lua 5.1",
                "3.3333333333333",
                "3",
                "0.1",
                "9.007199254741e+15"
            ]
        );
        assert_eq!(
            run("return string.format('%.14g|%5.2f|%d|%x|%q', 1/3, 3.14159, 42, 255, 'a\\n')")
                .unwrap(),
            ["0.33333333333333| 3.14|42|ff|\"a\\\n\""]
        );
    }

    #[test]
    fn errors_unwind_to_the_protected_call() {
        assert_eq!(run("error('boom')").unwrap_err(), "test:1: boom");
        assert_eq!(
            run("local ok, e = pcall(error, 'x') return tostring(ok), e").unwrap(),
            ["false", "x"]
        );
        assert_eq!(
            run("return (").unwrap_err(),
            "test:1: unexpected symbol near '<eof>'"
        );
    }

    #[test]
    fn redis_patches_apply() {
        // Precompiled chunks are refused: loadstring of bytecode fails to parse.
        let r = run("local f = string.dump(function() return 1 end) return loadstring(f)").unwrap();
        assert_eq!(r[0], "nil");
    }

    #[test]
    fn memory_is_accounted() {
        let mut lua = Lua::new();
        let before = lua.memory();
        lua.run("@t", b"big = {} for i = 1, 10000 do big[i] = i end")
            .unwrap();
        assert!(lua.memory() > before + 10000 * 8);
    }
}
