//! The Chinese HELP texts (`www/i18n/help.zh-CN.json`, fetched by the web console in zh
//! mode) cover the command table exactly: every command and subcommand has a summary,
//! every complexity text has a translation, every group has a name, and nothing names a
//! command, complexity or group the table does not have. Adding a command without its
//! translation fails here.

#![cfg(not(target_arch = "wasm32"))]

use std::collections::BTreeSet;

use kvlab::engine::table::{self, Group};
use serde_json::Value;

fn load() -> Value {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/www/i18n/help.zh-CN.json");
    let text = std::fs::read_to_string(path).expect("help.zh-CN.json is readable");
    serde_json::from_str(&text).expect("help.zh-CN.json is valid JSON")
}

/// The keys of the object `section` of the file, each checked to map to a non-empty string.
fn keys(file: &Value, section: &str) -> BTreeSet<String> {
    let obj = file[section]
        .as_object()
        .unwrap_or_else(|| panic!("`{section}` is an object"));
    for (k, v) in obj {
        let text = v.as_str().unwrap_or_default();
        assert!(!text.trim().is_empty(), "{section}.{k}: empty translation");
    }
    obj.keys().cloned().collect()
}

fn has_cjk(s: &str) -> bool {
    s.chars().any(|c| ('\u{4e00}'..='\u{9fff}').contains(&c))
}

#[test]
fn summaries_cover_every_command_and_subcommand() {
    let file = load();
    let mut names = BTreeSet::new();
    for c in table::all() {
        names.insert(c.name.to_string());
        for s in c.subcommands {
            names.insert(format!("{} {}", c.name, s.name));
        }
    }
    let zh = keys(&file, "summary");
    let missing: Vec<_> = names.difference(&zh).collect();
    let unknown: Vec<_> = zh.difference(&names).collect();
    assert!(
        missing.is_empty(),
        "commands without a zh summary: {missing:?}"
    );
    assert!(
        unknown.is_empty(),
        "zh summaries of unknown commands: {unknown:?}"
    );
    for (name, text) in file["summary"].as_object().into_iter().flatten() {
        assert!(
            has_cjk(text.as_str().unwrap_or_default()),
            "summary of {name} is not Chinese"
        );
    }
}

#[test]
fn complexities_cover_the_table() {
    let file = load();
    let mut texts = BTreeSet::new();
    for c in table::all() {
        texts.insert(c.complexity.to_string());
        for s in c.subcommands {
            texts.insert(s.complexity.to_string());
        }
    }
    let zh = keys(&file, "complexity");
    let missing: Vec<_> = texts.difference(&zh).collect();
    let unknown: Vec<_> = zh.difference(&texts).collect();
    assert!(
        missing.is_empty(),
        "complexity texts without zh: {missing:?}"
    );
    assert!(
        unknown.is_empty(),
        "zh complexity texts the table no longer has: {unknown:?}"
    );
    // Anything beyond bare O() notation is prose and must be translated.
    for (en, text) in file["complexity"].as_object().into_iter().flatten() {
        let prose = en
            .split(|c: char| !c.is_ascii_alphabetic())
            .any(|w| w.len() >= 3 && w != "log");
        if prose {
            assert!(
                has_cjk(text.as_str().unwrap_or_default()),
                "complexity `{en}` is not translated"
            );
        }
    }
}

#[test]
fn groups_are_named() {
    let file = load();
    let names: BTreeSet<String> = Group::ALL.iter().map(|g| g.name().to_string()).collect();
    assert_eq!(keys(&file, "groups"), names);
}
