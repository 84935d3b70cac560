//! The KV side of a walkthrough: a fresh engine on a fixed clock, and one command line run on
//! it with its reply rendered as `redis-cli` prints it. Shared by the host check and the app,
//! so both show exactly the same text.

use crate::engine::cli::{render_sent, split_args, INVALID_ARGUMENTS};
use crate::engine::{ClientId, Engine, ManualClock};

/// The engine's clock in every walkthrough, which never moves: 2024-01-01T00:00:00Z.
pub const START_MS: i64 = 1_704_067_200_000;

/// A fresh engine for a walkthrough (its own workspace: nothing shared with the console) and
/// its one client.
pub fn new_engine() -> (Engine, ClientId) {
    let mut engine = Engine::new(Box::new(ManualClock::at_ms(START_MS)), 1);
    let id = engine.connect();
    (engine, id)
}

/// Runs one command line as client `id` and renders what the client was sent, one reply
/// after another, trailing spaces trimmed; `Invalid argument(s)` for unbalanced quotes and
/// an empty string for a blank line.
pub fn run_kv(engine: &mut Engine, id: ClientId, line: &str) -> String {
    let Some(argv) = split_args(line) else {
        return INVALID_ARGUMENTS.to_string();
    };
    if argv.is_empty() {
        return String::new();
    }
    engine.submit(id, argv);
    render_sent(engine, id)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runs_lines_as_redis_cli_prints_them() {
        let (mut e, id) = new_engine();
        assert_eq!(run_kv(&mut e, id, "SET \"a b\" 1 EX 60"), "OK");
        assert_eq!(run_kv(&mut e, id, "TTL \"a b\""), "(integer) 60");
        assert_eq!(run_kv(&mut e, id, "GET \"a"), "Invalid argument(s)");
        assert_eq!(run_kv(&mut e, id, "   "), "");
    }
}
