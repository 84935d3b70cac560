//! Lua's errors in wasm32: unwinding through the host, with no wasm exception instruction.
//!
//! # How
//! Natively Lua raises an error with `longjmp` back to the `setjmp` of its innermost
//! protected call. wasm32-unknown-unknown has neither, and wasm's exception handling
//! (clang's `-wasm-enable-sjlj`) is refused by wasm-bindgen 0.2's parser. So `build.rs`
//! defines `KVLAB_LUA_HOST_UNWIND`, and luaconf.h's `LUAI_TRY`/`LUAI_THROW` become calls:
//!
//! - `kvlab_lua_try(f, L, ud)` (C, `c/libc/libc.c`) saves the C shadow stack pointer
//!   (`__stack_pointer`, read with wasm inline asm), calls [`kvlab_rs_try`] here, and if
//!   that reports a throw, puts the saved stack pointer back: the frames the exception
//!   popped never ran their epilogues.
//! - [`kvlab_rs_try`] calls `f(L, ud)` through the module's function table
//!   (`wasm_bindgen::function_table()`, read with js-sys's `WebAssembly.Table.get` and
//!   called with `Function.call2`): a JS exception thrown anywhere below comes back as
//!   `Err`.
//!   It returns 0, or 1 when the exception is ours; any other exception (a trap, a
//!   panic) is thrown on with `wasm_bindgen::throw_val`.
//! - `kvlab_lua_throw()` ([`kvlab_lua_throw`]) throws our sentinel (a JS symbol) with
//!   `wasm_bindgen::throw_val`, which pops the wasm frames up to the innermost JS catch:
//!   the innermost `kvlab_lua_try`, which is the protected call Lua meant (as with Lua
//!   built as C++, whose `catch (...)` is also the innermost one).
//!
//! Lua's `luaD_throw` records the error status in the `lua_longjmp` before it throws, and
//! `LUAI_TRY` leaves it there, so `luaD_rawrunprotected` returns it as with `longjmp`.
//!
//! Between a try and a throw there are only C frames and wasm-bindgen's throw frame: a Rust
//! function behind Lua never raises (see `c/glue.c`), and [`kvlab_rs_try`]'s own frame is
//! outside its catch. So no Rust frame is ever popped by a Lua error, and nothing of
//! Rust's (a destructor, a `RefCell` borrow) is skipped.
//!
//! # Checked (see docs/scripting-wasm.md for the commands)
//! The module has no exception instruction; wasm-bindgen 0.2.130's CLI, wasm-opt 132 and
//! tools/wasm-split accept it; `tests/wasm.rs` runs the conformance cases (recorded from
//! redis-server 7.0.15) in headless Chromium, including errors in coroutines, nested pcall
//! and the "stack overflow" and "C stack overflow" errors.
use std::ffi::{c_int, c_void};
use wasm_bindgen::{JsCast, JsValue};

thread_local! {
    static TABLE: js_sys::WebAssembly::Table = wasm_bindgen::function_table().unchecked_into();
    static SENTINEL: JsValue = JsValue::symbol(Some("kvlab-lua-error"));
}

/// The protected call under `kvlab_lua_try` (c/libc/libc.c): runs `f(l, ud)`, returns 0 if
/// it returned, 1 if a Lua error was thrown.
///
/// # Safety
/// `f` is a function of the module (Lua's `Pfunc`); `l` and `ud` are what it expects.
#[no_mangle]
pub unsafe extern "C" fn kvlab_rs_try(
    f: unsafe extern "C" fn(*mut c_void, *mut c_void),
    l: *mut c_void,
    ud: *mut c_void,
) -> c_int {
    // Straight through js-sys (no JS snippet, no eval): every wasm-bindgen target takes
    // it (the SQL worker's `no-modules` takes no snippets) and the page's CSP allows it.
    let result = TABLE.with(|table| {
        let func = table.get(f as usize as u32)?;
        func.call2(
            &JsValue::UNDEFINED,
            &JsValue::from(l as usize as u32),
            &JsValue::from(ud as usize as u32),
        )
    });
    match result {
        Ok(_) => 0,
        Err(e) if SENTINEL.with(|s| *s == e) => 1,
        Err(e) => wasm_bindgen::throw_val(e),
    }
}

/// Lua's `LUAI_THROW`: back to the innermost [`kvlab_rs_try`].
#[no_mangle]
pub extern "C" fn kvlab_lua_throw() -> ! {
    let sentinel = SENTINEL.with(JsValue::clone);
    wasm_bindgen::throw_val(sentinel)
}
