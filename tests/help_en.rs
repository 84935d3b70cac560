//! The command table's English prose (`www/i18n/help.en.json`, which the browser build
//! fetches instead of carrying it in its wasm: see `kvlab::engine::table::docs`) equals
//! the table's rows exactly. After changing a row's syntax, summary, complexity or version, regenerate
//! the file with `KVLAB_BLESS=1 cargo test --test help_en`.

#![cfg(not(target_arch = "wasm32"))]

use kvlab::engine::table::docs;
use serde_json::{json, Map, Value};

const PATH: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/www/i18n/help.en.json");

fn object(map: &std::collections::BTreeMap<String, String>) -> Value {
    Value::Object(
        map.iter()
            .map(|(k, v)| (k.clone(), Value::String(v.clone())))
            .collect::<Map<_, _>>(),
    )
}

/// Every container's `HELP` lines, as its handler replies them natively: each top-level
/// command is asked for `HELP` (DEBUG allowed; CLUSTER on a cluster-enabled engine too),
/// and a reply of Redis's `addReplyHelp` shape is kept without its title and closing
/// `HELP` entry, under the name its title gives.
fn help_texts() -> std::collections::BTreeMap<String, String> {
    use kvlab::engine::{Engine, ManualClock, Reply};
    let mut out = std::collections::BTreeMap::new();
    for cluster in ["no", "yes"] {
        let mut e = Engine::new(Box::new(ManualClock::at_ms(1_700_000_000_000)), 1);
        e.configure("enable-debug-command", "yes").unwrap();
        e.configure("cluster-enabled", cluster).unwrap();
        let id = e.connect();
        for row in kvlab::engine::table::all() {
            let Reply::Array(items) = e.execute(id, vec![row.name.into(), b"HELP".to_vec()]) else {
                continue;
            };
            let lines: Vec<String> = items
                .iter()
                .filter_map(|r| match r {
                    Reply::Status(s) => Some(s.to_string()),
                    _ => None,
                })
                .collect();
            let Some(name) = lines.first().and_then(|t| {
                t.strip_suffix(" <subcommand> [<arg> [value] [opt] ...]. Subcommands are:")
            }) else {
                continue;
            };
            if lines.len() != items.len() || lines.len() < 3 {
                continue;
            }
            let body = &lines[1..lines.len() - 2];
            out.insert(name.to_string(), body.join("\n"));
        }
    }
    out
}

fn expected() -> String {
    let prose = docs::all(kvlab::engine::table::all());
    let help = help_texts();
    assert!(help.len() >= 15, "HELP replies found: {:?}", help.keys());
    let file = json!({
        "_comment": "The command table's summaries, complexities, syntaxes and since-versions by command (subcommands as 'container sub'), and the containers' HELP lines by command, generated from the rows and handlers in src/engine/cmd by tests/help_en.rs (KVLAB_BLESS=1 cargo test --test help_en). The browser build fetches this instead of carrying the texts in its wasm.",
        "summary": object(&prose.summary),
        "complexity": object(&prose.complexity),
        "syntax": object(&prose.syntax),
        "since": object(&prose.since),
        "help": object(&help),
    });
    serde_json::to_string_pretty(&file).expect("serializes") + "\n"
}

#[test]
fn help_en_json_is_the_tables_prose() {
    let want = expected();
    if std::env::var_os("KVLAB_BLESS").is_some() {
        std::fs::write(PATH, &want).expect("help.en.json is writable");
        return;
    }
    let have = std::fs::read_to_string(PATH).unwrap_or_default();
    assert!(
        have == want,
        "www/i18n/help.en.json is not the command table's prose: run \
         `KVLAB_BLESS=1 cargo test --test help_en` and commit the file"
    );
}

#[test]
fn every_command_has_its_prose() {
    let prose = docs::all(kvlab::engine::table::all());
    let rows: usize = kvlab::engine::table::all()
        .map(|c| 1 + c.subcommands.len())
        .sum();
    assert_eq!(prose.summary.len(), rows);
    assert_eq!(prose.complexity.len(), rows);
    assert_eq!(prose.syntax.len(), rows);
    assert_eq!(prose.since.len(), rows);
    for (name, text) in &prose.summary {
        assert!(
            !text.is_empty()
                || name.contains(' ')
                || kvlab::engine::table::lookup(name.as_bytes())
                    .is_some_and(|c| !c.subcommands.is_empty()),
            "{name} has no summary"
        );
        assert!(
            !prose.complexity[name].is_empty(),
            "{name} has no complexity"
        );
    }
    assert_eq!(
        prose.summary["set"],
        kvlab::engine::table::lookup(b"set")
            .map(|c| c.summary)
            .unwrap_or_default()
    );
}
