//! The conformance cases (tests/cases) on the host: every answer must be redis-server's.
//! tests/wasm.rs runs the same cases in headless Chromium.
#![cfg(not(target_arch = "wasm32"))]

mod cases;

#[test]
fn lua_answers_as_redis_does() {
    let (n, failures) = cases::run_all();
    assert!(n >= 30, "only {n} cases");
    assert!(
        failures.is_empty(),
        "{} of {n} cases differ from redis-server:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
