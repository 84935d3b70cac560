//! `MONITOR` feeding and argument redaction: what monitors are sent after each command,
//! and which arguments they (and the slow log) see as `(redacted)`.

use crate::engine::cli::quote;
use crate::engine::reply::Reply;

use super::client::Client;
use super::server::Server;

/// Which arguments of a command hold secrets that `MONITOR` and the slow log show as
/// `(redacted)` (Redis's `redactClientCommandArgument` calls): every argument of `AUTH`,
/// the user and password after `HELLO … AUTH`, and the value of a password parameter
/// (`requirepass`, `masterauth`) in `CONFIG SET`. **O(arguments).**
pub fn redacted(argv: &[Vec<u8>]) -> Vec<bool> {
    let mut out = vec![false; argv.len()];
    let is = |i: usize, name: &[u8]| argv.get(i).is_some_and(|a| a.eq_ignore_ascii_case(name));
    if is(0, b"auth") {
        out.iter_mut().skip(1).for_each(|r| *r = true);
    } else if is(0, b"hello") {
        let mut i = 2;
        while i < argv.len() {
            if is(i, b"auth") {
                for r in out.iter_mut().skip(i + 1).take(2) {
                    *r = true;
                }
                i += 3;
            } else if is(i, b"setname") {
                i += 2;
            } else {
                i += 1;
            }
        }
    } else if is(0, b"config") && is(1, b"set") {
        let mut i = 2;
        while i + 1 < argv.len() {
            if is(i, b"requirepass") || is(i, b"masterauth") {
                out[i + 1] = true;
            }
            i += 2;
        }
    }
    out
}

/// Sends the line of one executed command to every monitor:
/// `+<seconds>.<microseconds> [<db> <addr>] "arg" "arg" …`, each argument quoted as
/// `sdscatrepr` does, secrets shown as `(redacted)` (see [`redacted`]). The database is the client's after the command (a `SELECT 3` shows 3).
/// Commands flagged admin (`CONFIG`, `CLIENT KILL`, `DEBUG`…) are not shown; the caller
/// checks that. **O(monitors × size of the command).**
pub fn feed_monitors(srv: &mut Server, c: &Client, argv: &[Vec<u8>]) {
    let us = srv.clock.now_us();
    let mut line = format!(
        "{}.{:06} [{} {}]",
        us.div_euclid(1_000_000),
        us.rem_euclid(1_000_000),
        c.db,
        c.addr
    );
    for (a, secret) in argv.iter().zip(redacted(argv)) {
        line.push(' ');
        if secret {
            line.push_str("\"(redacted)\"");
        } else {
            line.push_str(&quote(a));
        }
    }
    let monitors: Vec<_> = srv.monitors.iter().copied().collect();
    for m in monitors {
        srv.send(m, Reply::status(line.clone()));
    }
}
