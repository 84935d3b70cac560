//! Runs every transcript in `tests/transcripts/*.txt` against the engine.
//!
//! # Format
//! ```text
//! # A comment. Blank lines separate nothing and are ignored.
//! > SET greeting "hello world"
//! OK
//! > LRANGE list 0 -1
//! 1) "a"
//! 2) "b"
//! @sleep 1500      advance the engine's clock by 1500 ms (blocked clients time out)
//! @tick            run one active-expiry cycle
//! @client B        switch to client B (connected on first use); the first client is A
//! @pushes          what client B was sent since its last command (e.g. messages)
//! @close           close the current client's connection (its name connects anew on use)
//! @config cluster-enabled yes   set a parameter as redis-server's start-up options do
//! ```
//! A line starting with `> ` is a command, split with redis-cli's rules; the lines after it up
//! to the next command or directive are the exact reply as redis-cli prints it. The engine
//! starts empty at 2024-01-01T00:00:00Z with a fixed random seed, so transcripts are
//! deterministic.
//!
//! # Several clients
//! Commands go through [`Engine::submit`], the interface of a pipelining server, and what is
//! printed after a command is everything the client was sent from just before the command
//! to just after it, each reply rendered as redis-cli renders one: messages it had not yet
//! been shown, the command's reply or replies (`SUBSCRIBE a b` answers once per channel),
//! and messages it received meanwhile. `@pushes` prints (and consumes) what the current
//! client was sent since, typically messages another client published; no lines after it
//! means nothing was sent. `tests/transcripts/record.py` records such transcripts against a
//! real redis-server, whose client-side rendering it reproduces.
//!
//! # Blocked clients
//! A command that blocks (`BLPOP` with no data) prints nothing; its late reply is printed by
//! a later `@pushes` of that client, after another client served it (or after `@sleep`
//! moved the clock past its timeout: the driver then runs [`Engine::expire_blocked`], as a
//! server does on its timer). Commands a blocked client sends print nothing either: they run
//! once it is unblocked, and their replies follow its late reply. In a command, `{B}`
//! stands for client B's id (for `CLIENT UNBLOCK {B}`), since ids differ between the engine
//! and a real server.
//!
//! # The native server's path
//! Every transcript also runs, in step, on a second engine that takes its commands through
//! [`Engine::submit_into`], which kvlab-server uses: it writes replies straight into the
//! connection's buffer when nothing else waits for the client. After every command and
//! `@pushes`, the RESP bytes each engine has for the client must be identical.

#![cfg(not(target_arch = "wasm32"))]

use std::collections::HashMap;
use std::path::Path;

use kvlab::engine::cli::{format_replies, split_args};
use kvlab::engine::{ClientId, Engine, ManualClock};

/// The clock's starting point: 2024-01-01T00:00:00Z.
const START_MS: i64 = 1_704_067_200_000;

fn run_file(path: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(path).expect("read transcript");
    let clock = ManualClock::at_ms(START_MS);
    let mut engine = Engine::new(Box::new(clock.clone()), 1);
    let mut twin = Engine::new(Box::new(clock.clone()), 1);
    let mut clients = HashMap::new();
    let mut current = "A".to_string();
    clients.insert(current.clone(), connect(&mut engine, &mut twin));
    let mut failures = Vec::new();
    let lines: Vec<&str> = text.lines().collect();
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i];
        i += 1;
        let trimmed = line.trim_end();
        if trimmed.is_empty() || trimmed.starts_with('#') {
            continue;
        }
        if let Some(directive) = trimmed.strip_prefix('@') {
            let mut parts = directive.split_whitespace();
            match (parts.next(), parts.next()) {
                (Some("sleep"), Some(ms)) => {
                    clock.advance_ms(ms.parse().expect("sleep ms"));
                    engine.expire_blocked();
                    twin.expire_blocked();
                }
                (Some("config"), Some(name)) => {
                    let value = parts.next().expect("@config name value");
                    for e in [&mut engine, &mut twin] {
                        e.configure(name, value)
                            .unwrap_or_else(|e| panic!("{}:{i}: {e}", path.display()));
                    }
                }
                (Some("tick"), None) => {
                    engine.tick();
                    twin.tick();
                }
                (Some("client"), Some(name)) => {
                    current = name.to_string();
                    if !clients.contains_key(&current) {
                        let id = connect(&mut engine, &mut twin);
                        clients.insert(current.clone(), id);
                    }
                }
                (Some("close"), None) => {
                    if let Some(id) = clients.remove(&current) {
                        engine.disconnect(id);
                        twin.disconnect(id);
                    }
                }
                (Some("pushes"), None) => {
                    let directive_line = i;
                    let expected = expected_lines(&lines, &mut i);
                    let id = clients[&current];
                    let got = sent(&mut engine, &mut twin, id, None)
                        .unwrap_or_else(|e| format!("{e} at {}:{directive_line}", path.display()));
                    if got != expected {
                        failures.push(format!(
                            "{}:{directive_line}: @pushes (client {current})\n--- expected\n{expected}\n--- got\n{got}\n",
                            path.display()
                        ));
                    }
                }
                _ => panic!("{}:{i}: unknown directive {trimmed}", path.display()),
            }
            continue;
        }
        let Some(cmd) = trimmed.strip_prefix("> ") else {
            panic!(
                "{}:{i}: expected '> command' or a directive, got {trimmed:?}",
                path.display()
            );
        };
        let cmd_line = i;
        let expected = expected_lines(&lines, &mut i);
        let mut text = cmd.to_string();
        for (name, id) in &clients {
            text = text.replace(&format!("{{{name}}}"), &id.to_string());
        }
        let got = match split_args(&text) {
            Some(argv) if argv.is_empty() => continue,
            Some(argv) => {
                let id = clients[&current];
                engine.submit(id, argv.clone());
                sent(&mut engine, &mut twin, id, Some(argv))
                    .unwrap_or_else(|e| format!("{e} at {}:{cmd_line}", path.display()))
            }
            None => "Invalid argument(s)".to_string(),
        };
        if got != expected {
            failures.push(format!(
                "{}:{cmd_line}: > {cmd}\n--- expected\n{expected}\n--- got\n{got}\n",
                path.display()
            ));
        }
    }
    failures
}

/// Connects a client to both engines, which give it the same id.
fn connect(engine: &mut Engine, twin: &mut Engine) -> ClientId {
    let id = engine.connect();
    assert_eq!(twin.connect(), id, "the twin engines number clients alike");
    id
}

/// What `engine` sent client `id` since the last look, rendered as redis-cli renders it,
/// once `twin` has run `argv` (if any) through [`Engine::submit_into`] and drained its
/// queue as kvlab-server does; an error if the two byte streams differ.
fn sent(
    engine: &mut Engine,
    twin: &mut Engine,
    id: ClientId,
    argv: Option<Vec<Vec<u8>>>,
) -> Result<String, String> {
    let replies = engine.take_pushes(id);
    let proto = engine.client(id).map_or(2, |c| c.proto);
    let mut queued = Vec::new();
    for r in &replies {
        r.write_resp(proto, &mut queued);
    }
    let mut direct = Vec::new();
    if let Some(argv) = argv {
        twin.submit_into(id, argv, &mut direct);
    }
    let twin_proto = twin.client(id).map_or(2, |c| c.proto);
    twin.drain_pushes(id, |r| r.write_resp(twin_proto, &mut direct));
    if queued != direct {
        return Err(format!(
            "submit_into wrote {:?}, submit queued {:?}",
            String::from_utf8_lossy(&direct),
            String::from_utf8_lossy(&queued)
        ));
    }
    Ok(format_replies(&replies, proto))
}

/// The expected lines from `lines[*i]` up to the next command, directive, comment or blank
/// line, joined; advances `i` past them.
fn expected_lines(lines: &[&str], i: &mut usize) -> String {
    let mut expected = Vec::new();
    while *i < lines.len() {
        let l = lines[*i].trim_end();
        if l.starts_with("> ") || l.starts_with('@') || l.starts_with('#') || l.is_empty() {
            break;
        }
        expected.push(l);
        *i += 1;
    }
    expected.join("\n")
}

#[test]
fn transcripts() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/transcripts");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .expect("tests/transcripts exists")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "txt"))
        .collect();
    files.sort();
    assert!(!files.is_empty(), "no transcripts found");
    let mut failures = Vec::new();
    for f in &files {
        failures.extend(run_file(f));
    }
    assert!(
        failures.is_empty(),
        "{} transcript mismatches:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
