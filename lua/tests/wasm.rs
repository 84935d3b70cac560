//! kvlab-lua in a real browser: `cargo test -p kvlab-lua --target wasm32-unknown-unknown
//! --test wasm` (headless Chromium through wasm-bindgen-test-runner, see .cargo/config.toml).
//!
//! The conformance cases (tests/cases, the answers recorded from redis-server) must come
//! out as on the host: number formatting and parsing through c/libc, errors unwinding
//! through the host (src/unwind.rs) in nested calls and coroutines, stack overflows.
#![cfg(target_arch = "wasm32")]

mod cases;

use wasm_bindgen_test::{wasm_bindgen_test, wasm_bindgen_test_configure};

wasm_bindgen_test_configure!(run_in_browser);

#[wasm_bindgen_test]
fn lua_answers_as_redis_does() {
    cases::assert_all_match();
}

/// Many errors in a row: each protected call puts the C stack pointer back, so the
/// shadow stack neither leaks nor is corrupted (a leak of even 16 bytes per error would
/// exhaust its 1 MiB long before the end).
#[wasm_bindgen_test]
fn errors_do_not_leak_the_c_stack() {
    let mut lua = kvlab_lua::Lua::new();
    let r = lua.run(
        "@t",
        b"local n = 0 for i = 1, 200000 do if not pcall(error, 'x') then n = n + 1 end end \
          local ok = pcall(function() local function f() return 1 + f() end return f() end) \
          return n, tostring(ok), string.format('%5.2f', 3.14159)",
    );
    assert_eq!(
        r.unwrap(),
        [b"200000".to_vec(), b"false".to_vec(), b" 3.14".to_vec()]
    );
    // Errors outside any pcall come back to Rust as a RunError.
    let e = lua.run("@t", b"local t = nil; return t.x").unwrap_err();
    assert_eq!(
        String::from_utf8(e.0).unwrap(),
        "t:1: attempt to index local 't' (a nil value)"
    );
    assert_eq!(
        lua.run("@t", b"return (").unwrap_err().0,
        b"t:1: unexpected symbol near '<eof>'"
    );
    // And the state is still fine after them.
    assert_eq!(lua.run("@t", b"return 1 + 1").unwrap(), [b"2".to_vec()]);
}

/// Many states, each with its own errors, created and closed.
#[wasm_bindgen_test]
fn states_come_and_go() {
    for i in 0..200 {
        let mut lua = kvlab_lua::Lua::new();
        let r = lua
            .run(
                "@t",
                format!("local ok, e = pcall(error, {i}) return e").as_bytes(),
            )
            .unwrap();
        assert_eq!(r, [i.to_string().into_bytes()]);
    }
}
