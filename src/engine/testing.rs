//! What the engine's unit tests share: an engine on a manual clock, a connected client, and
//! a command line run the way `redis-cli` splits it. (Integration tests under `tests/` have
//! their own in `tests/support`.)

use super::cli::{format_reply, split_args};
use super::{ClientId, Engine, ManualClock, Reply};

/// The instant most tests start at: 2023-11-14T22:13:20Z.
pub const T0: i64 = 1_700_000_000_000;

/// A fresh engine at `ms` (randomness seeded with 7), and the clock that moves it.
pub fn engine_at(ms: i64) -> (Engine, ManualClock) {
    let clock = ManualClock::at_ms(ms);
    (Engine::new(Box::new(clock.clone()), 7), clock)
}

/// A fresh engine at [`T0`], and its clock.
pub fn engine() -> (Engine, ManualClock) {
    engine_at(T0)
}

/// A fresh engine at `ms` with one client connected.
pub fn connected_at(ms: i64) -> (Engine, ClientId) {
    seeded(ms, 7)
}

/// A fresh engine at `ms` whose randomness is seeded with `seed`, with one client connected
/// (for tests whose expected replies depend on the random draws).
pub fn seeded(ms: i64, seed: u64) -> (Engine, ClientId) {
    let mut e = Engine::new(Box::new(ManualClock::at_ms(ms)), seed);
    let c = e.connect();
    (e, c)
}

/// Runs one command line (split with redis-cli's rules) as client `c`.
pub fn run(e: &mut Engine, c: ClientId, line: &str) -> Reply {
    e.execute(c, split_args(line).expect("a valid command line"))
}

/// The text of a verbatim reply (`INFO`, `CLIENT LIST`, `CLIENT INFO`); panics on any
/// other reply.
pub fn text(reply: Reply) -> String {
    match reply {
        Reply::Verbatim([b't', b'x', b't'], t) => String::from_utf8(t).expect("UTF-8 text"),
        other => panic!("not verbatim text: {other:?}"),
    }
}

/// Runs one command line as client `c` and returns the text of its verbatim reply
/// ([`text`]).
pub fn verbatim(e: &mut Engine, c: ClientId, line: &str) -> String {
    text(run(e, c, line))
}

/// The effects recorded since they were last taken, each as a command line.
pub fn effects(e: &mut Engine) -> Vec<String> {
    e.take_effects()
        .into_iter()
        .map(|fx| {
            fx.argv
                .iter()
                .map(|a| String::from_utf8_lossy(a).into_owned())
                .collect::<Vec<_>>()
                .join(" ")
        })
        .collect()
}

/// Runs `write` on a second client between `WATCH key` and `EXEC` on `watcher`; true if
/// the transaction still ran (the write did not touch `key`).
pub fn exec_survives(e: &mut Engine, watcher: ClientId, key: &str, write: &str) -> bool {
    let other = e.connect();
    run(e, watcher, &format!("WATCH {key}"));
    run(e, other, write);
    run(e, watcher, "MULTI");
    run(e, watcher, "PING");
    let survived = run(e, watcher, "EXEC") != Reply::NilArray;
    e.disconnect(other);
    survived
}

/// Runs one command line as client `c` and renders the reply as redis-cli prints it.
pub fn cli(e: &mut Engine, c: ClientId, line: &str) -> String {
    format_reply(&run(e, c, line))
}
