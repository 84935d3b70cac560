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

/// A host that pauses the script at every check (as the web app's does every 20 ms).
struct Pauser;

impl kvlab_lua::redis::Host for Pauser {
    fn call(&mut self, argv: Vec<Vec<u8>>, _resp: u8) -> kvlab_lua::redis::Value {
        kvlab_lua::redis::Value::Array(
            argv.into_iter()
                .map(kvlab_lua::redis::Value::Bulk)
                .collect(),
        )
    }
    fn interrupt(&mut self) -> kvlab_lua::redis::Interrupt {
        kvlab_lua::redis::Interrupt::Pause
    }
    fn log(&mut self, _level: i32, _message: &[u8]) {}
    fn acl_check(&mut self, _argv: &[Vec<u8>]) -> Option<bool> {
        Some(true)
    }
}

/// Scripts that pause (a coroutine yielded by the count hook, pcall in a thread of its
/// own) end in the browser exactly as they end in one go: the yields are plain returns
/// through lua_resume, and errors still unwind through the host.
#[wasm_bindgen_test]
fn paused_scripts_end_as_they_would_in_one_go() {
    use kvlab_lua::redis::{Env, Step};
    let cases = [
        "local n = 0 for i = 1, 500000 do n = n + i end return n",
        "local n = 0 local f = function(k) for i = 1, 300000 do n = n + 1 end return k, n end \
         local a, b, c = pcall(f, 'x') local d, e = pcall(function() f() error('boom') end) \
         return {tostring(a), b, c, tostring(d), e}",
        "for i = 1, 300000 do end\nlocal t = nil\nreturn t.x",
        "for i = 1, 300000 do end return redis.call('echo', 'hi')",
    ];
    for body in cases {
        let sha = kvlab_lua::sha1hex(body.as_bytes());
        let mut one_go = Env::new();
        one_go.create_script(&sha, body.as_bytes()).unwrap();
        let expected = one_go.run_script(&sha, &[], &[], &mut Pauser2);
        let mut env = Env::new();
        env.create_script(&sha, body.as_bytes()).unwrap();
        let mut pauses = 0;
        let mut step = env.start_script(&sha, &[], &[], &mut Pauser);
        let got = loop {
            match step {
                Step::Done(out) => break out,
                Step::Paused => {
                    pauses += 1;
                    step = env.resume(&mut Pauser);
                }
            }
        };
        assert_eq!(got, expected, "{body}");
        assert!(pauses >= 2, "{body}: paused {pauses} times");
    }
}

/// The same host without pauses.
struct Pauser2;

impl kvlab_lua::redis::Host for Pauser2 {
    fn call(&mut self, argv: Vec<Vec<u8>>, resp: u8) -> kvlab_lua::redis::Value {
        Pauser.call(argv, resp)
    }
    fn log(&mut self, _level: i32, _message: &[u8]) {}
    fn acl_check(&mut self, _argv: &[Vec<u8>]) -> Option<bool> {
        Some(true)
    }
}
