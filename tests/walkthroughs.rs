//! Runs every step of every walkthrough in `www/walkthroughs/` and compares each result with
//! the file: the SQL on SQLite (rusqlite with a bundled SQLite, the same statement runner as
//! the browser's SQL worker: `src/sql/exec.rs`), the KV commands on kvlab's engine, rendered
//! as redis-cli prints them. A difference fails naming the file, line and step, so the prose
//! and the behaviour it describes cannot drift apart.
//!
//! `WALK_BLESS=1 cargo test --test walkthroughs` rewrites the expected results in the files
//! from what actually ran (for authors: write the commands, bless, then read the diff).

#![cfg(not(target_arch = "wasm32"))]

#[path = "../src/sql/exec.rs"]
#[allow(dead_code)]
mod exec;

use std::path::{Path, PathBuf};

use kvlab::walk::kv::{new_engine, run_kv};
use kvlab::walk::{parse, parse_index, Walkthrough};
use rusqlite::Connection;

fn dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("www/walkthroughs")
}

/// One expected block to rewrite when blessing: line range and new text.
type Edit = ((usize, usize), String);

/// Runs a parsed walkthrough; returns the mismatches (as messages naming `name`, line and
/// step) and the edits that would make the file match.
fn run(name: &str, w: &Walkthrough) -> (Vec<String>, Vec<Edit>) {
    let mut failures = Vec::new();
    let mut edits = Vec::new();
    let conn = Connection::open_in_memory().expect("sqlite opens");
    if let Err(e) = conn.execute_batch(&w.schema) {
        failures.push(format!("{name}: [schema]: {e}"));
        return (failures, edits);
    }
    let (mut engine, id) = new_engine();
    for s in &w.seed {
        let got = run_kv(&mut engine, id, &s.command);
        if got.starts_with("(error)") || got == "Invalid argument(s)" {
            failures.push(format!("{name}:{}: [seed] {}: {got}", s.line, s.command));
        }
    }
    for (n, step) in w.steps.iter().enumerate() {
        for c in &step.sql {
            let got = match exec::run_sql(&conn, &c.sql) {
                Ok(o) => o.to_text(),
                Err(e) => format!("error: {e}"),
            };
            if got != c.expect {
                failures.push(format!(
                    "{name}:{}: step {}: sql> {}\n--- expected\n{}\n--- got\n{got}\n",
                    c.line,
                    n + 1,
                    c.sql,
                    c.expect
                ));
                edits.push((c.expect_lines, got));
            }
        }
        for c in &step.kv {
            let got = run_kv(&mut engine, id, &c.command);
            if got != c.expect {
                failures.push(format!(
                    "{name}:{}: step {}: kv> {}\n--- expected\n{}\n--- got\n{got}\n",
                    c.line,
                    n + 1,
                    c.command,
                    c.expect
                ));
                edits.push((c.expect_lines, got));
            }
        }
    }
    (failures, edits)
}

/// Parses, validates and runs the file at `path`; with `bless`, rewrites its expected results.
fn check_file(path: &Path, bless: bool) -> Vec<String> {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) => return vec![format!("{name}: {e}")],
    };
    let w = match parse(&name, &text) {
        Ok(w) => w,
        Err(e) => return vec![e.to_string()],
    };
    let (failures, mut edits) = run(&name, &w);
    if bless && !edits.is_empty() {
        let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
        edits.sort_by_key(|e| std::cmp::Reverse(e.0 .0));
        for ((start, end), got) in edits {
            lines.splice(start..end, got.lines().map(str::to_string));
        }
        std::fs::write(path, lines.join("\n") + "\n").expect("write blessed file");
        return Vec::new();
    }
    let mut failures = failures;
    if let Err(e) = w.validate(&name) {
        failures.insert(0, e.to_string());
    }
    failures
}

#[test]
fn every_walkthrough_runs_as_written() {
    let dir = dir();
    let index = std::fs::read_to_string(dir.join("index.txt")).expect("www/walkthroughs/index.txt");
    let listed = parse_index(&index);
    let mut on_disk: Vec<String> = std::fs::read_dir(&dir)
        .expect("www/walkthroughs")
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".walk"))
        .collect();
    on_disk.sort();
    let mut sorted = listed.clone();
    sorted.sort();
    assert_eq!(
        sorted, on_disk,
        "index.txt must list exactly the .walk files"
    );
    let bless = std::env::var_os("WALK_BLESS").is_some();
    assert!(
        bless || listed.len() >= 10,
        "index.txt lists {} walkthroughs",
        listed.len()
    );
    let mut failures = Vec::new();
    let mut ids = Vec::new();
    for f in &listed {
        failures.extend(check_file(&dir.join(f), bless));
        if let Ok(w) = parse(f, &std::fs::read_to_string(dir.join(f)).unwrap_or_default()) {
            assert!(!ids.contains(&w.id), "{f}: duplicate id {}", w.id);
            ids.push(w.id);
        }
    }
    assert!(
        failures.is_empty(),
        "{} walkthrough mismatches:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// A file with mistakes — a wrong KV reply, a wrong SQL result, a missing translation — is
/// reported with its name, the line and the step, and what was expected against what ran.
#[test]
fn a_mistake_is_reported_with_file_and_step() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/walk-broken/mistakes.walk");
    let failures = check_file(&path, false);
    let all = failures.join("\n");
    assert!(
        all.contains("mistakes.walk:25: step 2: needs narration in en: and zh:"),
        "{all}"
    );
    assert!(
        all.contains("mistakes.walk:18: step 1: kv> GET login:1:name\n--- expected\n\"Ken\"\n--- got\n\"ken thompson\""),
        "{all}"
    );
    assert!(
        all.contains("mistakes.walk:20: step 1: sql> SELECT name FROM login WHERE user_id = 1;\n--- expected\n| name |\n| Ken |"),
        "{all}"
    );
    assert_eq!(failures.len(), 3, "{all}");
}
