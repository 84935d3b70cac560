//! What the console adds around the engine, as redis-cli does: argument hints, Tab
//! completion, and the `HELP` built-in.
//!
//! All three read the [command table](crate::engine::table) — its syntax, summary,
//! complexity, since-version and group — so they can never disagree with the engine.
//! Fetching the Chinese HELP texts is the browser's part (`ui::console`); everything here
//! is host code, tested by `cargo test`.

use std::collections::BTreeMap;

use crate::engine::cli::split_args;
use crate::engine::inspect::KeyIndex;
use crate::engine::table::{self, docs, Command, Group};
use crate::i18n::Lang;

/// Splits a syntax line into its top-level items: `key value [NX|XX] [GET]` →
/// `key`, `value`, `[NX|XX]`, `[GET]` (brackets and braces kept whole).
fn syntax_items(syntax: &str) -> Vec<&str> {
    let mut items = Vec::new();
    let (mut depth, mut start) = (0i32, None);
    for (i, c) in syntax.char_indices() {
        match c {
            '[' | '{' => depth += 1,
            ']' | '}' => depth -= 1,
            _ => {}
        }
        if c == ' ' && depth <= 0 {
            if let Some(s) = start.take() {
                items.push(&syntax[s..i]);
            }
        } else if start.is_none() {
            start = Some(i);
        }
    }
    if let Some(s) = start {
        items.push(&syntax[s..]);
    }
    items
}

/// redis-cli's hint for `draft`: the part of the command's syntax not typed yet, shown in
/// grey after the cursor. `None` when there is nothing to hint.
pub fn hint(draft: &str) -> Option<String> {
    let argv = split_args(draft)?;
    let name = argv.first()?;
    let mut cmd = table::lookup(name)?;
    let mut full_name = cmd.name.to_string();
    let mut typed = argv.len() - 1;
    if !cmd.subcommands.is_empty() {
        // `CONFIG GET`: the subcommand's syntax once it is typed.
        if let Some(sub) = argv.get(1).and_then(|s| cmd.subcommand(s)) {
            if argv.len() > 2 || draft.ends_with(' ') {
                full_name = format!("{} {}", cmd.name, sub.name);
                cmd = sub;
                typed -= 1;
            }
        }
    }
    let syntax = docs::syntax(cmd, &full_name);
    if syntax.is_empty() {
        return None;
    }
    let items = syntax_items(&syntax);
    // Hints stop once something follows the last complete argument.
    let consumed = if draft.ends_with(' ') || typed == 0 {
        typed
    } else {
        return None;
    };
    let rest = items.get(consumed..)?;
    if rest.is_empty() {
        return None;
    }
    let sep = if draft.ends_with(' ') { "" } else { " " };
    Some(format!("{sep}{}", rest.join(" ")))
}

/// The candidates Tab offers for the last word of `draft`, as redis-cli and RedisInsight
/// do: command names first; then subcommands of container commands (`CONFIG G` → `GET`);
/// after `HELP`, the help topics (`@group`s and commands), as its banner promises; key
/// names in the positions the command table gives for keys (every later position for a
/// command it does not know). The case of command names follows what was typed (`hg` →
/// `hget`, `HG` → `HGET`). Returns the line without the word and the candidates, sorted.
pub fn completions(draft: &str, keys: &KeyIndex) -> (String, Vec<String>) {
    let word_start = draft.rfind(' ').map_or(0, |i| i + 1);
    let (head, word) = draft.split_at(word_start);
    let position = head.split_whitespace().count();
    // An empty word follows the case of the line (`CLIENT <Tab>` → `LIST`…).
    let lower = if word.is_empty() {
        !head.chars().any(|c| c.is_ascii_uppercase())
    } else {
        word.chars().any(|c| c.is_ascii_lowercase())
    };
    let case = |name: &str| {
        if lower {
            name.to_string()
        } else {
            name.to_ascii_uppercase()
        }
    };
    let matches = |name: &str| {
        name.len() >= word.len()
            && name
                .get(..word.len())
                .is_some_and(|p| p.eq_ignore_ascii_case(word))
    };
    let first = head.split_whitespace().next().unwrap_or("");
    let cmd = table::lookup(first.as_bytes());
    let mut out: Vec<String> = match (position, cmd) {
        (0, _) => table::all()
            .filter(|c| matches(c.name))
            .map(|c| case(c.name))
            .collect(),
        (1, _) if first.eq_ignore_ascii_case("help") => {
            let groups = Group::ALL
                .iter()
                .map(|g| format!("@{}", g.name()))
                .filter(|g| matches(g));
            let commands = table::all()
                .filter(|c| matches(c.name))
                .map(|c| case(c.name));
            groups.chain(commands).collect()
        }
        (1, Some(c)) if !c.subcommands.is_empty() => c
            .subcommands
            .iter()
            .filter(|s| matches(s.name))
            .map(|s| case(s.name))
            .collect(),
        (n, c) if c.is_none_or(|c| takes_key_at(c, n)) => keys
            .with_prefix(word.as_bytes())
            .iter()
            .take(200)
            .filter_map(|k| std::str::from_utf8(k).ok())
            .filter(|k| !k.contains([' ', '"', '\'']))
            .map(str::to_string)
            .collect(),
        _ => Vec::new(),
    };
    out.sort();
    out.dedup();
    (head.to_string(), out)
}

/// True if argument `n` (1 = the first after the name) of `cmd` may be a key: inside its
/// key range (a range open to the end, `-1`, goes on while typing), or anywhere for a
/// command whose keys depend on its arguments (`EVAL`, `XREAD`, `ZUNION`).
fn takes_key_at(cmd: &Command, n: usize) -> bool {
    let k = cmd.keys;
    if k.first <= 0 {
        return cmd.getkeys.is_some() || !cmd.key_specs.is_empty();
    }
    let n = n as i32;
    n >= k.first && (k.last < 0 || n <= k.last) && (n - k.first) % k.step.max(1) == 0
}

/// The longest prefix the candidates share (whole characters).
pub fn common_prefix(cands: &[String]) -> &str {
    let Some(first) = cands.first() else {
        return "";
    };
    let mut end = first.len();
    for c in &cands[1..] {
        end = first
            .char_indices()
            .zip(c.chars())
            .find(|((_, a), b)| a != b)
            .map_or(end.min(c.len()), |((i, _), _)| i.min(end));
    }
    &first[..end]
}

/// The Chinese texts of `HELP`: the command table's summaries, complexities and group
/// names in zh-CN. They live in `www/i18n/help.zh-CN.json`, outside the wasm, and are
/// fetched on first need in Chinese mode (`ui::console::load_help_zh`); `tests/help_zh.rs` keeps the
/// file in step with the table.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct HelpZh {
    /// By command name, subcommands as `container sub` (`config get`).
    pub(crate) summary: BTreeMap<String, String>,
    /// By the table's English complexity text.
    pub(crate) complexity: BTreeMap<String, String>,
    /// By group name (`sorted-set`).
    pub(crate) groups: BTreeMap<String, String>,
}

/// Where the Chinese help texts are, relative to the page.
pub const HELP_ZH_URL: &str = "i18n/help.zh-CN.json";

/// Where the command table's English summaries and complexities are, relative to the page
/// (the browser build leaves them out of its wasm: see [`crate::engine::table::docs`]).
pub const HELP_EN_URL: &str = "i18n/help.en.json";

/// Texts in Chinese when `zh` has them, else the table's English.
fn help_block(
    cmd: &Command,
    full_name: &str,
    group: Group,
    lang: Lang,
    zh: Option<&HelpZh>,
    out: &mut String,
) {
    let [summary, complexity, since, group_label] = lang.help().labels;
    let zh = zh.filter(|_| lang == Lang::Zh);
    let text = |map: fn(&HelpZh) -> &BTreeMap<String, String>, key: &str, en: String| {
        zh.and_then(|z| map(z).get(key)).map_or(en, String::clone)
    };
    let group_name = match zh.and_then(|z| z.groups.get(group.name())) {
        Some(name) => format!("{}（{name}）", group.name()),
        None => group.name().to_string(),
    };
    let (en_summary, en_complexity) = (
        docs::summary(cmd, full_name),
        docs::complexity(cmd, full_name),
    );
    out.push_str(&format!(
        "\n  {} {}\n  {summary} {}\n  {complexity} {}\n  {since} {}\n  {group_label} {}\n",
        full_name.to_ascii_uppercase(),
        docs::syntax(cmd, full_name),
        text(|z| &z.summary, full_name, en_summary),
        text(|z| &z.complexity, &en_complexity, en_complexity.clone()),
        docs::since(cmd, full_name),
        group_name
    ));
}

/// The output of redis-cli's `HELP` built-in for the words after `HELP`: the intro for
/// none, a command's syntax, summary, complexity and since-version for `HELP <command>`,
/// every command of a group for `HELP @<group>`. The labels are in `lang`; in Chinese the
/// summaries, complexities and group names come from `zh` when it has been fetched, and
/// from the command table's English otherwise.
pub fn help(args: &[Vec<u8>], lang: Lang, zh: Option<&HelpZh>) -> String {
    let Some(topic) = args.first() else {
        return lang.help().intro.to_string();
    };
    let topic = String::from_utf8_lossy(topic).to_ascii_lowercase();
    let mut out = String::new();
    if let Some(name) = topic.strip_prefix('@') {
        let group = Group::ALL.iter().copied().find(|g| g.name() == name);
        if let Some(group) = group {
            for c in table::all().filter(|c| c.group == group) {
                help_block(c, c.name, group, lang, zh, &mut out);
            }
        }
    } else if let Some(cmd) = table::lookup(topic.as_bytes()) {
        match args.get(1).and_then(|s| cmd.subcommand(s)) {
            Some(sub) => help_block(
                sub,
                &format!("{} {}", cmd.name, sub.name),
                cmd.group,
                lang,
                zh,
                &mut out,
            ),
            None => help_block(cmd, cmd.name, cmd.group, lang, zh, &mut out),
        }
    }
    if out.is_empty() {
        return lang.help().no_help.replacen("{}", &topic, 1);
    }
    out
}

/// Quotes `arg` for a command line only when it needs it, so a clicked command reads like
/// a typed one: `SET k "hello world"`, `SET k v`.
pub fn arg(arg: &[u8]) -> String {
    let plain = !arg.is_empty()
        && arg
            .iter()
            .all(|&b| b.is_ascii_graphic() && b != b'"' && b != b'\'' && b != b'\\');
    if plain {
        String::from_utf8_lossy(arg).into_owned()
    } else if let Ok(s) = std::str::from_utf8(arg) {
        if !s.chars().any(|c| c.is_control() || c == '"' || c == '\\') {
            return format!("\"{s}\"");
        }
        crate::engine::cli::quote(arg)
    } else {
        crate::engine::cli::quote(arg)
    }
}

/// A command line from words, each quoted as needed (see [`arg`]).
pub fn line(words: &[&[u8]]) -> String {
    words.iter().map(|w| arg(w)).collect::<Vec<_>>().join(" ")
}
