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

/// The Chinese of every walkthrough reads as Chinese once shown: no ASCII space after or
/// before full-width punctuation (the line joins are taken out by `display_zh`, a space
/// typed in the file is not) and Chinese quotes “…” rather than ASCII ones.
#[test]
fn chinese_texts_use_chinese_punctuation() {
    use kvlab::walk::display_zh;
    let dir = dir();
    let index = std::fs::read_to_string(dir.join("index.txt")).expect("index.txt");
    let mut bad = Vec::new();
    for f in parse_index(&index) {
        let w = parse(&f, &std::fs::read_to_string(dir.join(&f)).expect("file")).expect("parses");
        let mut texts = vec![
            ("title".to_string(), w.title.zh.clone()),
            ("intro".into(), w.intro.zh.clone()),
        ];
        for (n, s) in w.steps.iter().enumerate() {
            texts.push((format!("step {} title", n + 1), s.title.zh.clone()));
            texts.push((format!("step {}", n + 1), s.say.zh.clone()));
        }
        for (at, text) in texts {
            let shown = display_zh(&text);
            let chars: Vec<char> = shown.chars().collect();
            for (i, w2) in chars.windows(2).enumerate() {
                let punct = |c: char| "，。；：！？、）（“”".contains(c);
                if (punct(w2[0]) && w2[1] == ' ') || (w2[0] == ' ' && punct(w2[1])) {
                    let from = i.saturating_sub(8);
                    bad.push(format!(
                        "{f}: {at}: space beside punctuation: …{}…",
                        chars[from..(i + 8).min(chars.len())]
                            .iter()
                            .collect::<String>()
                    ));
                }
            }
            if shown.contains('"') {
                bad.push(format!("{f}: {at}: ASCII quotes in Chinese: {shown}"));
            }
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

/// The recap of the login walkthrough names what each side built: the three indexes of
/// the SQL side, and the name keys, the list and the sorted set of the KV side (not the
/// seeded cells, though INCR changed one); its costs come from the plans and the table.
#[test]
fn login_recap_lists_indexes_and_extra_keys() {
    use kvlab::walk::recap::Recap;
    let text = std::fs::read_to_string(dir().join("login.walk")).expect("login.walk");
    let r = Recap::of(&parse("login.walk", &text).expect("parses"));
    let built: Vec<&str> = r.sql_built.iter().map(|b| b.sql.as_str()).collect();
    assert_eq!(
        built,
        [
            "CREATE UNIQUE INDEX login_name ON login(name);",
            "CREATE INDEX login_last ON login(last_login_time);",
            "CREATE INDEX login_times_idx ON login(login_times);",
        ]
    );
    let keys: Vec<(String, usize, &str)> = r
        .kv_built
        .iter()
        .map(|k| (k.pattern.clone(), k.count, k.kind))
        .collect();
    assert_eq!(
        keys,
        [
            ("login:*:id".to_string(), 3, "string"),
            ("login:last_login".to_string(), 1, "list"),
            ("login:login_times".to_string(), 1, "zset"),
        ]
    );
    assert_eq!(r.kv_built[1].writes, ["RPUSH", "LPUSH", "LTRIM"]);
    // Step 4 sorts a full scan; step 5 walks the new index; LRANGE is O(S+N).
    let s4: Vec<&str> = r.costs[3].sql.iter().map(|c| c.big_o.as_str()).collect();
    assert_eq!(s4, ["O(N log N)"]);
    let s5: Vec<&str> = r.costs[4].sql.iter().map(|c| c.big_o.as_str()).collect();
    assert_eq!(s5, ["O(log N + M)"]);
    assert!(r.costs[3]
        .kv
        .iter()
        .any(|c| c.what == "LRANGE" && c.big_o.starts_with("O(")));
    // The writes rebuild the final data: the seed, then no read command.
    assert!(r.kv_writes.iter().any(|c| c.starts_with("ZINCRBY")));
    assert!(!r
        .kv_writes
        .iter()
        .any(|c| c.starts_with("GET ") || c.starts_with("LRANGE")));
}
