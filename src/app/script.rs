//! Multi-line Lua scripts in the console: the script editor's draft and the `EVAL` line it
//! runs, the splitting of pasted text into commands (a line break inside quotes belongs to
//! the argument, as in `sdssplitargs`), and a small Lua highlighter for the editor and for
//! the echo of a script in the log. Host code, tested by `cargo test`.
//!
//! Design (README, *Consoles*): a pane's **script editor** opens from the
//! pane's `Lua` button, or when Enter is pressed on an `EVAL`/`EVAL_RO`/`SCRIPT LOAD` line
//! whose quote is still open (`EVAL "local n = 1` ⏎): the text after the quote moves into
//! the editor and typing goes on there. In the editor Enter inserts a line break and
//! Ctrl+Enter runs `EVAL`; the keys and the arguments have a line each. The console then
//! shows and remembers the command as one redis-cli line, [`eval_line`], that splits back
//! into exactly the arguments that ran.

use std::ops::Range;

use crate::app::console;
use crate::engine::splitargs::split_args;

/// What the script editor holds (kept while it is closed).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ScriptDraft {
    /// The Lua source.
    pub body: String,
    /// The keys, as redis-cli words (`user:1 "a b"`).
    pub keys: String,
    /// The arguments, as redis-cli words.
    pub args: String,
    /// Runs `EVAL_RO` instead of `EVAL` (the editor was opened from an `EVAL_RO` line).
    pub read_only: bool,
}

/// A field of the script editor.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ScriptField {
    /// The Lua source.
    Body,
    /// The keys line.
    Keys,
    /// The arguments line.
    Args,
}

/// What the editor runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ScriptRun {
    /// `EVAL body numkeys keys… args…` (`EVAL_RO` when the draft says so).
    Eval,
    /// `SCRIPT LOAD body`: caches it and answers its SHA-1, for `EVALSHA`.
    Load,
    /// The `EVAL` line, run under the debugger ([`crate::app::debug`]).
    Debug,
}

/// Which editor line could not be split into words.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DraftError {
    /// The keys line has an unbalanced quote.
    Keys,
    /// The arguments line has an unbalanced quote.
    Args,
}

/// The command line for a run of `draft`, written as redis-cli would take it: the body
/// quoted so that its line breaks stay line breaks ([`quote_script`]), `numkeys` counted
/// from the keys line, every key and argument quoted as needed. [`split_args`] of the line
/// gives back exactly the arguments that run.
pub fn eval_line(draft: &ScriptDraft, run: ScriptRun) -> Result<String, DraftError> {
    let body = quote_script(&draft.body);
    if run == ScriptRun::Load {
        return Ok(format!("SCRIPT LOAD {body}"));
    }
    let keys = split_args(&draft.keys).ok_or(DraftError::Keys)?;
    let args = split_args(&draft.args).ok_or(DraftError::Args)?;
    let name = if draft.read_only { "EVAL_RO" } else { "EVAL" };
    let mut line = format!("{name} {body} {}", keys.len());
    for w in keys.iter().chain(&args) {
        line.push(' ');
        line.push_str(&console::arg(w));
    }
    Ok(line)
}

/// A script as one redis-cli argument that keeps its line breaks readable: `"…"` when it
/// has no `"` and no `\`, else `'…'` when it has no `'`; either way the text between the
/// quotes is the script itself (so it can be highlighted in the echo). Otherwise `"…"` with
/// `\\`, `\"` and control characters (but line breaks and tabs) escaped.
pub fn quote_script(body: &str) -> String {
    let plain = |c: char| !c.is_control() || matches!(c, '\n' | '\t');
    if body.chars().all(plain) {
        if !body.contains(['"', '\\']) {
            return format!("\"{body}\"");
        }
        if !body.contains('\'') {
            return format!("'{body}'");
        }
    }
    let mut out = String::with_capacity(body.len() + 8);
    out.push('"');
    for c in body.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '"' => out.push_str("\\\""),
            '\r' => out.push_str("\\r"),
            c if !plain(c) => {
                let mut buf = [0; 4];
                for b in c.encode_utf8(&mut buf).bytes() {
                    out.push_str(&format!("\\x{b:02x}"));
                }
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// Where each argument of `line` is, quotes included, as [`split_args`] reads them; `None`
/// when a quote is left open. (A closing quote glued to more text is not checked here:
/// [`split_args`] rejects the line anyway.)
pub fn arg_spans(line: &str) -> Option<Vec<Range<usize>>> {
    let b = line.as_bytes();
    let mut spans = Vec::new();
    let mut i = 0;
    loop {
        while i < b.len() && b[i].is_ascii_whitespace() {
            i += 1;
        }
        if i >= b.len() {
            return Some(spans);
        }
        let start = i;
        let mut quote = None;
        while i < b.len() {
            match (quote, b[i]) {
                (None, b' ' | b'\n' | b'\r' | b'\t') => break,
                (None, q @ (b'"' | b'\'')) => quote = Some(q),
                (Some(q), b'\\') if i + 1 < b.len() && (q == b'"' || b[i + 1] == b'\'') => {
                    i += 1;
                }
                (Some(q), c) if c == q => quote = None,
                _ => {}
            }
            i += 1;
        }
        if quote.is_some() {
            return None;
        }
        spans.push(start..i);
    }
}

/// True when `line` ends inside a quoted argument (more lines would continue it).
pub fn open_quote(line: &str) -> bool {
    arg_spans(line).is_none()
}

/// Pasted text as the commands it holds: a line break ends a command except inside a
/// quoted argument, so a pasted multi-line `EVAL "…" 0` is one command. `first` is the
/// text already in the command box, which the paste continues. Blank commands are dropped.
pub fn split_commands(first: &str, text: &str) -> Vec<String> {
    let text = text.replace("\r\n", "\n");
    let mut out = Vec::new();
    let mut cur = first.to_string();
    for (i, line) in text.split('\n').enumerate() {
        if i > 0 {
            if open_quote(&cur) {
                cur.push('\n');
            } else {
                out.push(std::mem::take(&mut cur));
            }
        }
        cur.push_str(line);
    }
    out.push(cur);
    out.retain(|l| !l.trim().is_empty());
    out
}

/// Stands for a line break inside a history entry when the history is stored a line per
/// entry (U+2028 LINE SEPARATOR, which `str::lines` does not split at).
const ENTRY_BREAK: char = '\u{2028}';

/// The console history as stored: an entry a line, a multi-line entry (a script) with its
/// line breaks as `ENTRY_BREAK` (U+2028). Histories stored before scripts read back the same.
pub fn history_text(history: &[String]) -> String {
    let entries: Vec<String> = history
        .iter()
        .map(|l| {
            l.replace("\r\n", "\n")
                .replace('\n', &ENTRY_BREAK.to_string())
        })
        .collect();
    entries.join("\n")
}

/// The history [`history_text`] stored.
pub fn history_from_text(text: &str) -> Vec<String> {
    text.lines().map(|l| l.replace(ENTRY_BREAK, "\n")).collect()
}

/// The editor's draft for an `EVAL`/`EVAL_RO`/`SCRIPT LOAD` line whose script quote is
/// still open, as Enter on it hands it over: the text after the quote and a new line.
pub fn handover(line: &str) -> Option<ScriptDraft> {
    if !open_quote(line) {
        return None;
    }
    let trimmed = line.trim_start();
    let (head, rest) = trimmed.split_once(['"', '\''])?;
    let words: Vec<String> = head
        .split_whitespace()
        .map(str::to_ascii_uppercase)
        .collect();
    let read_only = match words.iter().map(String::as_str).collect::<Vec<_>>()[..] {
        ["EVAL"] | ["SCRIPT", "LOAD"] => false,
        ["EVAL_RO"] => true,
        _ => return None,
    };
    Some(ScriptDraft {
        body: format!("{rest}\n"),
        read_only,
        ..ScriptDraft::default()
    })
}

/// The editor's draft for a line that runs a script (`EVAL body numkeys keys… args…`), so a
/// script recalled from the history opens in the editor again. `None` for other lines and
/// for one-line scripts (those stay in the command box).
pub fn recall(line: &str) -> Option<ScriptDraft> {
    if !line.contains('\n') {
        return None;
    }
    let argv = split_args(line)?;
    let name = argv.first()?.to_ascii_uppercase();
    let read_only = match name.as_slice() {
        b"EVAL" => false,
        b"EVAL_RO" => true,
        _ => return None,
    };
    let body = String::from_utf8(argv.get(1)?.clone()).ok()?;
    let n: usize = std::str::from_utf8(argv.get(2)?).ok()?.parse().ok()?;
    let rest = argv.get(3..)?;
    if n > rest.len() {
        return None;
    }
    let words = |w: &[Vec<u8>]| {
        w.iter()
            .map(|x| console::arg(x))
            .collect::<Vec<_>>()
            .join(" ")
    };
    Some(ScriptDraft {
        body,
        keys: words(&rest[..n]),
        args: words(&rest[n..]),
        read_only,
    })
}

/// Where the script is in a command line that carries one (`EVAL`, `EVAL_RO`,
/// `SCRIPT LOAD`, `FUNCTION LOAD`): the byte range of its text between the quotes — only
/// when that text is the script as it runs (no escapes in it), so highlighting it shows
/// what runs.
pub fn script_in_line(line: &str) -> Option<Range<usize>> {
    let spans = arg_spans(line)?;
    let word = |i: usize| spans.get(i).map(|r| line[r.clone()].to_ascii_uppercase());
    let at = match word(0)?.as_str() {
        "EVAL" | "EVAL_RO" => 1,
        "SCRIPT" if word(1)?.as_str() == "LOAD" => 2,
        "FUNCTION" if word(1)?.as_str() == "LOAD" => spans.len().checked_sub(1)?.max(2),
        _ => return None,
    };
    let r = spans.get(at)?.clone();
    let raw = &line[r.clone()];
    let inner = match raw.as_bytes()[0] {
        b'"' if raw.len() >= 2 && raw.ends_with('"') && !raw[1..].contains('\\') => {
            r.start + 1..r.end - 1
        }
        b'\'' if raw.len() >= 2 && raw.ends_with('\'') && !raw.contains("\\'") => {
            r.start + 1..r.end - 1
        }
        b'"' | b'\'' => return None,
        _ if !raw.contains(['"', '\'']) => r,
        _ => return None,
    };
    Some(inner)
}

/// A kind of Lua token the highlighter marks (the CSS class is [`Tok::class`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tok {
    /// `local`, `function`, `if`, `nil`, `true`, …
    Keyword,
    /// `"…"`, `'…'`, `[[…]]`.
    Str,
    /// `-- …`, `--[[ … ]]`.
    Comment,
    /// `42`, `3.5e2`, `0xff`.
    Number,
    /// `redis.call`, `redis.pcall` and the rest of the `redis` table.
    Api,
    /// `KEYS` and `ARGV`.
    Global,
}

impl Tok {
    /// The CSS class of the token.
    pub fn class(self) -> &'static str {
        match self {
            Tok::Keyword => "lua-kw",
            Tok::Str => "lua-str",
            Tok::Comment => "lua-com",
            Tok::Number => "lua-num",
            Tok::Api => "lua-api",
            Tok::Global => "lua-global",
        }
    }
}

const KEYWORDS: &[&str] = &[
    "and", "break", "do", "else", "elseif", "end", "false", "for", "function", "if", "in", "local",
    "nil", "not", "or", "repeat", "return", "then", "true", "until", "while",
];

/// The marked tokens of Lua source `src`, in order, as byte ranges (everything between
/// them is plain). Lua 5.1's lexical rules, forgiving: an unfinished string or comment runs
/// to the end of its line (or of the text, for long brackets), as while typing.
pub fn highlight(src: &str) -> Vec<(Tok, Range<usize>)> {
    let b = src.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        let start = i;
        if c == b'-' && b.get(i + 1) == Some(&b'-') {
            i += 2;
            match long_bracket(b, i) {
                Some(level) => i = close_long(b, i + level + 2, level),
                None => {
                    while i < b.len() && b[i] != b'\n' {
                        i += 1;
                    }
                }
            }
            out.push((Tok::Comment, start..i));
        } else if c == b'"' || c == b'\'' {
            i += 1;
            while i < b.len() && b[i] != c && b[i] != b'\n' {
                i += if b[i] == b'\\' && i + 1 < b.len() {
                    2
                } else {
                    1
                };
            }
            i = (i + usize::from(i < b.len() && b[i] == c)).min(b.len());
            out.push((Tok::Str, start..i));
        } else if c == b'[' && long_bracket(b, i).is_some() {
            let level = long_bracket(b, i).unwrap_or(0);
            i = close_long(b, i + level + 2, level);
            out.push((Tok::Str, start..i));
        } else if c.is_ascii_digit() || (c == b'.' && b.get(i + 1).is_some_and(u8::is_ascii_digit))
        {
            // Lua's read_numeral: digits and dots, an exponent with its sign, then letters.
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'.' || b[i] == b'_') {
                let exp = matches!(b[i], b'e' | b'E') && !src[start..i].starts_with("0x");
                i += 1;
                if exp && matches!(b.get(i), Some(b'+' | b'-')) {
                    i += 1;
                }
            }
            out.push((Tok::Number, start..i));
        } else if c.is_ascii_alphabetic() || c == b'_' {
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
                i += 1;
            }
            let word = &src[start..i];
            let after_dot = start > 0 && b[start - 1] == b'.';
            if KEYWORDS.contains(&word) {
                out.push((Tok::Keyword, start..i));
            } else if word == "redis" && !after_dot && b.get(i) == Some(&b'.') {
                let mut j = i + 1;
                while j < b.len() && (b[j].is_ascii_alphanumeric() || b[j] == b'_') {
                    j += 1;
                }
                if j > i + 1 {
                    i = j;
                }
                out.push((Tok::Api, start..i));
            } else if (word == "KEYS" || word == "ARGV") && !after_dot {
                out.push((Tok::Global, start..i));
            }
        } else {
            i += 1;
        }
    }
    out
}

/// The level of a long bracket opening at `i` (`[[` 0, `[==[` 2), if one does.
fn long_bracket(b: &[u8], i: usize) -> Option<usize> {
    if b.get(i) != Some(&b'[') {
        return None;
    }
    let mut j = i + 1;
    while b.get(j) == Some(&b'=') {
        j += 1;
    }
    (b.get(j) == Some(&b'[')).then_some(j - i - 1)
}

/// The end of a long bracket of `level` whose text starts at `i` (after `]=…]`), or the
/// end of the text.
fn close_long(b: &[u8], mut i: usize, level: usize) -> usize {
    while i < b.len() {
        if b[i] == b']' {
            let mut j = i + 1;
            while b.get(j) == Some(&b'=') {
                j += 1;
            }
            if j - i - 1 == level && b.get(j) == Some(&b']') {
                return j + 1;
            }
        }
        i += 1;
    }
    b.len()
}

/// `src` cut into pieces for display: each with its token kind, `None` for plain text.
pub fn pieces(src: &str) -> Vec<(Option<Tok>, &str)> {
    let mut out = Vec::new();
    let mut at = 0;
    for (tok, r) in highlight(src) {
        if r.start > at {
            out.push((None, &src[at..r.start]));
        }
        out.push((Some(tok), &src[r.clone()]));
        at = r.end;
    }
    if at < src.len() {
        out.push((None, &src[at..]));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn argv(words: &[&str]) -> Vec<Vec<u8>> {
        words.iter().map(|w| w.as_bytes().to_vec()).collect()
    }

    fn draft(body: &str, keys: &str, args: &str) -> ScriptDraft {
        ScriptDraft {
            body: body.into(),
            keys: keys.into(),
            args: args.into(),
            read_only: false,
        }
    }

    #[test]
    fn eval_line_splits_back_into_what_runs() {
        let bodies = [
            "return 1",
            "local n = redis.call('INCR', KEYS[1])\nreturn n",
            "return \"double\"",
            "return 'single' .. \"double\"",
            "return '\\\\' -- a backslash",
            "\treturn {1,\n2}\n",
            "return 'a\rb\u{1}c'",
            "",
            "return '中文'",
        ];
        for body in bodies {
            let d = draft(body, "user:1 \"a key\"", "10 'x y' \"\"");
            let line = eval_line(&d, ScriptRun::Eval).unwrap();
            assert_eq!(
                split_args(&line).unwrap(),
                argv(&["EVAL", body, "2", "user:1", "a key", "10", "x y", ""]),
                "{line}"
            );
            let load = eval_line(&d, ScriptRun::Load).unwrap();
            assert_eq!(split_args(&load).unwrap(), argv(&["SCRIPT", "LOAD", body]));
        }
    }

    #[test]
    fn eval_line_keeps_line_breaks_and_counts_keys() {
        let d = draft("local x = 1\nreturn x", "", "");
        assert_eq!(
            eval_line(&d, ScriptRun::Eval).unwrap(),
            "EVAL \"local x = 1\nreturn x\" 0"
        );
        let d = ScriptDraft {
            read_only: true,
            ..draft("return redis.call(\"GET\", KEYS[1])", "k", "")
        };
        assert_eq!(
            eval_line(&d, ScriptRun::Eval).unwrap(),
            "EVAL_RO 'return redis.call(\"GET\", KEYS[1])' 1 k"
        );
        assert_eq!(
            eval_line(&draft("return 1", "\"open", ""), ScriptRun::Eval),
            Err(DraftError::Keys)
        );
        assert_eq!(
            eval_line(&draft("return 1", "", "'open"), ScriptRun::Eval),
            Err(DraftError::Args)
        );
    }

    #[test]
    fn quote_script_escapes_only_when_it_must() {
        assert_eq!(quote_script("return 'a'"), "\"return 'a'\"");
        assert_eq!(quote_script("return \"a\""), "'return \"a\"'");
        assert_eq!(
            quote_script("return \"a\" .. 'b'"),
            "\"return \\\"a\\\" .. 'b'\""
        );
        assert_eq!(quote_script("x\u{0}y"), "\"x\\x00y\"");
    }

    #[test]
    fn pasted_text_splits_at_line_breaks_outside_quotes() {
        let text =
            "SET a 1\nEVAL \"local v = redis.call('GET', KEYS[1])\nreturn v\" 1 a\n\nGET a\n";
        assert_eq!(
            split_commands("", text),
            vec![
                "SET a 1".to_string(),
                "EVAL \"local v = redis.call('GET', KEYS[1])\nreturn v\" 1 a".to_string(),
                "GET a".to_string(),
            ]
        );
        // The box's text is continued; Windows line ends; an escaped quote stays inside.
        assert_eq!(
            split_commands("EVAL ", "'return 1\r\n' 0\r\nPING"),
            vec!["EVAL 'return 1\n' 0".to_string(), "PING".to_string()]
        );
        assert_eq!(
            split_commands("", "SET k \"a\\\"\nb\"\nGET k"),
            vec!["SET k \"a\\\"\nb\"".to_string(), "GET k".to_string()]
        );
        // A quote never closed: the rest is one command, which redis-cli's rules refuse.
        assert_eq!(
            split_commands("", "SET k \"a\nGET k"),
            vec!["SET k \"a\nGET k".to_string()]
        );
        assert_eq!(split_args("SET k \"a\nGET k"), None);
    }

    #[test]
    fn multi_line_history_entries_survive_storage() {
        let history = vec![
            "SET a 1".to_string(),
            "EVAL \"local x = 1\nreturn x\" 0".to_string(),
            "GET a".to_string(),
        ];
        let text = history_text(&history);
        assert_eq!(text.lines().count(), 3);
        assert_eq!(history_from_text(&text), history);
        assert_eq!(history_from_text("PING\nGET a\n"), ["PING", "GET a"]);
    }

    #[test]
    fn arg_spans_match_split_args() {
        let line = "EVAL  \"a b\" 'c\\'d' e\"f g\"";
        let spans = arg_spans(line).unwrap();
        let words: Vec<&str> = spans.iter().map(|r| &line[r.clone()]).collect();
        assert_eq!(words, ["EVAL", "\"a b\"", "'c\\'d'", "e\"f g\""]);
        assert_eq!(split_args(line).unwrap().len(), spans.len());
        assert!(open_quote("EVAL \"return 1"));
        assert!(open_quote("EVAL 'it\\'s"));
        assert!(!open_quote("EVAL \"a\\\\\" 0"));
    }

    #[test]
    fn handover_and_recall() {
        assert_eq!(
            handover("EVAL \"local n = 1"),
            Some(ScriptDraft {
                body: "local n = 1\n".into(),
                ..ScriptDraft::default()
            })
        );
        assert!(handover("eval_ro '").unwrap().read_only);
        assert_eq!(handover("script load \"x").unwrap().body, "x\n");
        assert_eq!(handover("SET k \"x"), None);
        assert_eq!(handover("EVAL \"x\" 0"), None);
        let d = draft("local a = 1\nreturn a", "k1 \"k 2\"", "v");
        let line = eval_line(&d, ScriptRun::Eval).unwrap();
        assert_eq!(recall(&line), Some(d));
        assert_eq!(recall("EVAL \"return 1\" 0"), None);
        assert_eq!(recall("SET k \"a\nb\""), None);
        assert_eq!(recall("EVAL \"a\nb\" 3 k"), None);
    }

    #[test]
    fn the_script_in_a_line() {
        let line = "EVAL \"local x = 1\nreturn x\" 0";
        assert_eq!(
            &line[script_in_line(line).unwrap()],
            "local x = 1\nreturn x"
        );
        let line = "script load 'return \"a\"'";
        assert_eq!(&line[script_in_line(line).unwrap()], "return \"a\"");
        let line = "FUNCTION LOAD REPLACE \"#!lua name=l\nredis.register_function('f', f)\"";
        assert!(line[script_in_line(line).unwrap()].starts_with("#!lua"));
        assert_eq!(script_in_line("EVAL \"return \\\"a\\\"\" 0"), None);
        assert_eq!(
            &"EVAL return 0"[script_in_line("EVAL return 0").unwrap()],
            "return"
        );
        assert_eq!(script_in_line("GET \"return 1\""), None);
        assert_eq!(script_in_line("EVAL \"open"), None);
    }

    fn marked(src: &str) -> Vec<(Tok, &str)> {
        highlight(src)
            .into_iter()
            .map(|(t, r)| (t, &src[r]))
            .collect()
    }

    #[test]
    fn highlights_keywords_strings_numbers_and_redis_calls() {
        use Tok::*;
        assert_eq!(
            marked("local n = redis.call('INCRBY', KEYS[1], ARGV[1]) + 0x1F\nreturn n * 2.5e-3"),
            vec![
                (Keyword, "local"),
                (Api, "redis.call"),
                (Str, "'INCRBY'"),
                (Global, "KEYS"),
                (Number, "1"),
                (Global, "ARGV"),
                (Number, "1"),
                (Number, "0x1F"),
                (Keyword, "return"),
                (Number, "2.5e-3"),
            ]
        );
        assert_eq!(
            marked("if x then return redis.pcall(\"GET\", \"a\\\"b\") end"),
            vec![
                (Keyword, "if"),
                (Keyword, "then"),
                (Keyword, "return"),
                (Api, "redis.pcall"),
                (Str, "\"GET\""),
                (Str, "\"a\\\"b\""),
                (Keyword, "end"),
            ]
        );
    }

    #[test]
    fn highlights_comments_and_long_brackets() {
        use Tok::*;
        assert_eq!(
            marked("-- a comment 'x'\nx = [[long\nstring]] --[==[ long\n]] comment ]==] y"),
            vec![
                (Comment, "-- a comment 'x'"),
                (Str, "[[long\nstring]]"),
                (Comment, "--[==[ long\n]] comment ]==]"),
            ]
        );
        // Unfinished: a string ends with its line, a long bracket with the text.
        assert_eq!(
            marked("s = 'open\nt = [=[ open"),
            vec![(Str, "'open"), (Str, "[=[ open")]
        );
        // Not keywords: names that contain them, fields; `redis` alone; t.KEYS.
        assert_eq!(
            marked("endx = t.local_ + redis + t.KEYS + a[1]"),
            vec![(Number, "1")]
        );
        assert_eq!(marked("redis.log(redis.LOG_WARNING, 'é')").len(), 3);
    }

    #[test]
    fn pieces_cover_the_source() {
        for src in [
            "local x = 'é' -- ü\nreturn x",
            "  ",
            "",
            "return [[",
            "--",
            "x = 1.",
        ] {
            let joined: String = pieces(src).iter().map(|(_, s)| *s).collect();
            assert_eq!(joined, src);
        }
    }
}
