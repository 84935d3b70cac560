//! The conformance cases (tests/cases) on the host: every answer must be redis-server's.
//! tests/wasm.rs runs the same cases in headless Chromium.
#![cfg(not(target_arch = "wasm32"))]

mod cases;

#[test]
fn lua_answers_as_redis_does() {
    cases::assert_all_match();
}
