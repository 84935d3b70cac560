//! What the console adds around the engine, as redis-cli does: argument hints, Tab
//! completion, and the `HELP` built-in.
//!
//! All three read the [command table](crate::engine::table) — its syntax, summary,
//! complexity, since-version and group — so they can never disagree with the engine.

use crate::engine::cli::split_args;
use crate::engine::inspect::KeyIndex;
use crate::engine::table::{self, Command, Group};

use super::i18n::Lang;

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
    let mut typed = argv.len() - 1;
    if !cmd.subcommands.is_empty() {
        // `CONFIG GET`: the subcommand's syntax once it is typed.
        if let Some(sub) = argv.get(1).and_then(|s| cmd.subcommand(s)) {
            if argv.len() > 2 || draft.ends_with(' ') {
                cmd = sub;
                typed -= 1;
            }
        }
    }
    if cmd.syntax.is_empty() {
        return None;
    }
    let items = syntax_items(cmd.syntax);
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

/// The candidates Tab offers for the last word of `draft`: command names first, then
/// subcommands of container commands (`CONFIG G` → `GET`), then existing key names. The
/// case of command names follows what was typed. Returns the line without the word and
/// the candidates, sorted.
pub fn completions(draft: &str, keys: &KeyIndex) -> (String, Vec<String>) {
    let word_start = draft.rfind(' ').map_or(0, |i| i + 1);
    let (head, word) = draft.split_at(word_start);
    let position = head.split_whitespace().count();
    let lower = word.chars().any(|c| c.is_ascii_lowercase()) || word.is_empty();
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
    let mut out: Vec<String> = match position {
        0 => table::all()
            .filter(|c| matches(c.name))
            .map(|c| case(c.name))
            .collect(),
        _ => {
            let first = head.split_whitespace().next().unwrap_or("");
            let container = table::lookup(first.as_bytes()).filter(|c| !c.subcommands.is_empty());
            match container {
                Some(c) if position == 1 => c
                    .subcommands
                    .iter()
                    .filter(|s| matches(s.name))
                    .map(|s| case(s.name))
                    .collect(),
                _ => keys
                    .with_prefix(word.as_bytes())
                    .iter()
                    .take(100)
                    .filter_map(|k| std::str::from_utf8(k).ok())
                    .filter(|k| !k.contains([' ', '"', '\'']))
                    .map(str::to_string)
                    .collect(),
            }
        }
    };
    out.sort();
    out.dedup();
    (head.to_string(), out)
}

/// The labels of a help block, per language.
fn labels(lang: Lang) -> [&'static str; 4] {
    match lang {
        Lang::En => ["summary:", "complexity:", "since:", "group:"],
        Lang::Zh => ["概要：", "复杂度：", "起始版本：", "分组："],
    }
}

fn help_block(cmd: &Command, full_name: &str, group: Group, lang: Lang, out: &mut String) {
    let [summary, complexity, since, group_label] = labels(lang);
    out.push_str(&format!(
        "\n  {} {}\n  {summary} {}\n  {complexity} {}\n  {since} {}\n  {group_label} {}\n",
        full_name.to_ascii_uppercase(),
        cmd.syntax,
        cmd.summary,
        cmd.complexity,
        cmd.since,
        group.name()
    ));
}

/// The output of redis-cli's `HELP` built-in for the words after `HELP`: the intro for
/// none, a command's syntax, summary, complexity and since-version for `HELP <command>`,
/// every command of a group for `HELP @<group>`. The labels are in `lang`; the summaries
/// are the command table's (English, as Redis's own documentation).
pub fn help(args: &[Vec<u8>], lang: Lang) -> String {
    let Some(topic) = args.first() else {
        return match lang {
            Lang::En => "redis-cli 7.0.15 (kvlab)\nTo get help about Redis commands type:\n      \"help @<group>\" to get a list of commands in <group>\n      \"help <command>\" for help on <command>\n      \"help <tab>\" to get a list of possible help topics\n      \"clear\" or Ctrl+L to clear the screen".to_string(),
            Lang::Zh => "redis-cli 7.0.15 (kvlab)\n获取 Redis 命令的帮助：\n      \"help @<分组>\" 列出 <分组> 中的命令\n      \"help <命令>\" 查看 <命令> 的帮助\n      \"help <Tab>\" 补全可用的帮助主题\n      \"clear\" 或 Ctrl+L 清屏".to_string(),
        };
    };
    let topic = String::from_utf8_lossy(topic).to_ascii_lowercase();
    let mut out = String::new();
    if let Some(name) = topic.strip_prefix('@') {
        let group = Group::ALL.iter().copied().find(|g| g.name() == name);
        if let Some(group) = group {
            for c in table::all().filter(|c| c.group == group) {
                help_block(c, c.name, group, lang, &mut out);
            }
        }
    } else if let Some(cmd) = table::lookup(topic.as_bytes()) {
        match args.get(1).and_then(|s| cmd.subcommand(s)) {
            Some(sub) => help_block(
                sub,
                &format!("{} {}", cmd.name, sub.name),
                cmd.group,
                lang,
                &mut out,
            ),
            None => help_block(cmd, cmd.name, cmd.group, lang, &mut out),
        }
    }
    if out.is_empty() {
        return match lang {
            Lang::En => format!("No help for '{topic}'. Try \"help @<group>\", e.g. help @list"),
            Lang::Zh => format!("没有 '{topic}' 的帮助。试试 \"help @<分组>\"，例如 help @list"),
        };
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
