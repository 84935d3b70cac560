//! The arguments `COMMAND DOCS` reports, parsed from a table row's syntax line (`[…]` optional,
//! `a | b` one-of, `x [x ...]` multiple, UPPERCASE tokens), with the tests that round-trip them
//! through redis-cli's hints.

use crate::engine::Reply;

/// The type of a documented argument, as `COMMAND DOCS` names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ArgType {
    /// Any string.
    String,
    /// An integer.
    Integer,
    /// A floating-point number.
    Double,
    /// A key name.
    Key,
    /// A glob pattern.
    Pattern,
    /// A Unix time.
    UnixTime,
    /// A literal keyword with no value (`NX`).
    PureToken,
    /// One of several alternatives.
    OneOf,
    /// Several arguments that go together.
    Block,
}

impl ArgType {
    fn name(self) -> &'static str {
        match self {
            ArgType::String => "string",
            ArgType::Integer => "integer",
            ArgType::Double => "double",
            ArgType::Key => "key",
            ArgType::Pattern => "pattern",
            ArgType::UnixTime => "unix-time",
            ArgType::PureToken => "pure-token",
            ArgType::OneOf => "oneof",
            ArgType::Block => "block",
        }
    }

    /// Guesses the type of a lowercase argument from its name.
    fn guess(name: &str) -> ArgType {
        const INTEGERS: &[&str] = &[
            "count",
            "index",
            "start",
            "end",
            "stop",
            "offset",
            "seconds",
            "milliseconds",
            "numkeys",
            "cursor",
            "db",
            "decrement",
            "rank",
            "len",
            "maxlen",
            "port",
            "client-id",
            "numreplicas",
            "protover",
        ];
        const DOUBLES: &[&str] = &[
            "score",
            "weight",
            "radius",
            "longitude",
            "latitude",
            "timeout",
        ];
        if name == "key" || name.ends_with("key") || name == "destination" || name == "source" {
            ArgType::Key
        } else if name == "pattern" {
            ArgType::Pattern
        } else if name.starts_with("unix-time") {
            ArgType::UnixTime
        } else if INTEGERS.contains(&name) {
            ArgType::Integer
        } else if DOUBLES.contains(&name) {
            ArgType::Double
        } else {
            ArgType::String
        }
    }
}

/// One documented argument of a command (a node of `COMMAND DOCS` "arguments").
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DocArg {
    /// Its name (lowercase).
    pub name: String,
    /// Its type.
    pub kind: ArgType,
    /// The keyword that precedes it, if any (`EX` for `EX seconds`).
    pub token: Option<String>,
    /// May be left out.
    pub optional: bool,
    /// May be repeated.
    pub multiple: bool,
    /// When repeated, the token is repeated too.
    pub multiple_token: bool,
    /// The alternatives of a one-of, or the members of a block.
    pub args: Vec<DocArg>,
}

impl DocArg {
    pub(super) fn to_reply(&self, has_keys: bool) -> Reply {
        let mut pairs = vec![
            ("name", Reply::bulk(self.name.as_bytes())),
            ("type", Reply::bulk(self.kind.name().as_bytes())),
        ];
        if self.kind == ArgType::Key && has_keys {
            pairs.push(("key_spec_index", Reply::Integer(0)));
        }
        if let Some(t) = &self.token {
            pairs.push(("token", Reply::bulk(t.as_bytes())));
        }
        let mut flags = Vec::new();
        if self.optional {
            flags.push("optional");
        }
        if self.multiple {
            flags.push("multiple");
        }
        if self.multiple_token {
            flags.push("multiple_token");
        }
        if !flags.is_empty() {
            pairs.push(("flags", status_set(flags)));
        }
        if matches!(self.kind, ArgType::OneOf | ArgType::Block) {
            pairs.push((
                "arguments",
                Reply::Array(self.args.iter().map(|a| a.to_reply(has_keys)).collect()),
            ));
        }
        map(pairs)
    }

    fn leaf(word: &str) -> DocArg {
        let upper = is_token(word);
        DocArg {
            name: word.to_ascii_lowercase(),
            kind: if upper {
                ArgType::PureToken
            } else {
                ArgType::guess(word)
            },
            token: upper.then(|| word.to_string()),
            optional: false,
            multiple: false,
            multiple_token: false,
            args: Vec::new(),
        }
    }

    fn group(kind: ArgType, args: Vec<DocArg>) -> DocArg {
        let sep = "_";
        DocArg {
            name: args
                .iter()
                .map(|a| a.name.as_str())
                .collect::<Vec<_>>()
                .join(sep),
            kind,
            token: None,
            optional: false,
            multiple: false,
            multiple_token: false,
            args,
        }
    }
}

/// True for a keyword: letters all uppercase (digits and `-` allowed), at least one letter.
fn is_token(word: &str) -> bool {
    word.bytes().any(|c| c.is_ascii_uppercase())
        && word
            .bytes()
            .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == b'-' || c == b'_')
}

/// A parsed piece of syntax before it becomes arguments.
#[derive(Debug, Clone, PartialEq)]
enum Raw {
    Word(String),
    Ellipsis,
    /// `[ … ]` (optional) or `( … )`, with its `|`-separated alternatives.
    Group {
        optional: bool,
        alts: Vec<Vec<Raw>>,
    },
    /// The items, repeatable (from `x [x ...]` or `[x ...]`).
    Repeat(Vec<Raw>),
}

/// Parses a syntax line in Redis's documentation style into `COMMAND DOCS` arguments:
/// `[x]` optional, `<x | y>` or `(x y)` a required group, `x | y` alternatives, `x [x ...]`
/// repeatable, an UPPERCASE word a token (it attaches to the argument that follows).
/// Malformed lines give whatever could be read; they never panic.
pub fn parse_syntax(syntax: &str) -> Vec<DocArg> {
    let mut tokens = Vec::new();
    for word in syntax.split_whitespace() {
        let mut cur = String::new();
        for ch in word.chars() {
            if matches!(ch, '[' | ']' | '(' | ')' | '<' | '>' | '|') {
                if !cur.is_empty() {
                    tokens.push(std::mem::take(&mut cur));
                }
                tokens.push(ch.to_string());
            } else {
                cur.push(ch);
            }
        }
        if !cur.is_empty() {
            tokens.push(cur);
        }
    }
    let mut pos = 0;
    let mut alts = parse_alts(&tokens, &mut pos);
    if alts.len() > 1 {
        // `ON | OFF` at the top level: one required one-of.
        let choices = alts.into_iter().map(|a| single(to_args(a))).collect();
        return vec![DocArg::group(ArgType::OneOf, choices)];
    }
    to_args(alts.pop().unwrap_or_default())
}

/// Reads `|`-separated sequences until a closing bracket (consumed) or the end.
fn parse_alts(tokens: &[String], pos: &mut usize) -> Vec<Vec<Raw>> {
    let mut alts = vec![Vec::new()];
    while let Some(t) = tokens.get(*pos) {
        *pos += 1;
        match t.as_str() {
            "]" | ")" | ">" => break,
            "|" => alts.push(Vec::new()),
            "[" | "(" | "<" => {
                let inner = parse_alts(tokens, pos);
                if let Some(cur) = alts.last_mut() {
                    cur.push(Raw::Group {
                        optional: t == "[",
                        alts: inner,
                    });
                }
            }
            "..." => {
                if let Some(cur) = alts.last_mut() {
                    cur.push(Raw::Ellipsis);
                }
            }
            w => {
                if let Some(cur) = alts.last_mut() {
                    cur.push(Raw::Word(w.to_string()));
                }
            }
        }
    }
    alts.into_iter().map(fold_repeats).collect()
}

/// Rewrites `x [x ...]` into a repeat of `x`, and `[x ...]` alone into an optional repeat.
fn fold_repeats(seq: Vec<Raw>) -> Vec<Raw> {
    let mut out: Vec<Raw> = Vec::new();
    for item in seq {
        let repeated = match &item {
            Raw::Group {
                optional: true,
                alts,
            } if alts.len() == 1 && alts[0].last() == Some(&Raw::Ellipsis) => {
                Some(alts[0][..alts[0].len() - 1].to_vec())
            }
            _ => None,
        };
        match repeated {
            Some(body) if !body.is_empty() && out.ends_with(&body) => {
                out.truncate(out.len() - body.len());
                out.push(Raw::Repeat(body));
            }
            Some(body) if !body.is_empty() => out.push(Raw::Group {
                optional: true,
                alts: vec![vec![Raw::Repeat(body)]],
            }),
            _ => out.push(item),
        }
    }
    out
}

/// Turns a sequence into arguments: a token followed by a value becomes one argument with
/// that token.
fn to_args(seq: Vec<Raw>) -> Vec<DocArg> {
    let mut out = Vec::new();
    let mut pending: Option<String> = None;
    for item in seq {
        let arg = match item {
            Raw::Word(w) if is_token(&w) => {
                if let Some(prev) = pending.take() {
                    out.push(DocArg::leaf(&prev));
                }
                pending = Some(w);
                continue;
            }
            Raw::Word(w) => DocArg::leaf(&w),
            Raw::Ellipsis => continue,
            Raw::Group { optional, alts } => {
                let mut arg = if alts.len() == 1 {
                    single(to_args(alts.into_iter().next().unwrap_or_default()))
                } else {
                    DocArg::group(
                        ArgType::OneOf,
                        alts.into_iter().map(|a| single(to_args(a))).collect(),
                    )
                };
                arg.optional |= optional;
                arg
            }
            Raw::Repeat(body) => {
                let mut arg = single(to_args(body));
                arg.multiple = true;
                arg.multiple_token = arg.token.is_some();
                arg
            }
        };
        match pending.take() {
            Some(tok) if arg.token.is_none() => out.push(DocArg {
                token: Some(tok),
                ..arg
            }),
            Some(tok) => {
                out.push(DocArg::leaf(&tok));
                out.push(arg);
            }
            None => out.push(arg),
        }
    }
    if let Some(tok) = pending {
        out.push(DocArg::leaf(&tok));
    }
    out
}

/// One argument stands for itself; several become a block.
fn single(mut args: Vec<DocArg>) -> DocArg {
    if args.len() == 1 {
        args.remove(0)
    } else {
        DocArg::group(ArgType::Block, args)
    }
}

/// A RESP3 set of status strings (flags, ACL categories, key-spec flags).
pub(super) fn status_set<S: Into<std::borrow::Cow<'static, str>>>(
    items: impl IntoIterator<Item = S>,
) -> Reply {
    Reply::Set(items.into_iter().map(Reply::status).collect())
}

/// A map keyed by bulk strings, as `COMMAND INFO`'s and `DOCS`' sections are.
pub(super) fn map(pairs: Vec<(&str, Reply)>) -> Reply {
    Reply::Map(
        pairs
            .into_iter()
            .map(|(k, v)| (Reply::bulk(k.as_bytes()), v))
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Renders arguments the way redis-cli 7.0 builds its hints (`cliConcatArguments`).
    fn hint(args: &[DocArg]) -> String {
        args.iter().map(hint_one).collect::<Vec<_>>().join(" ")
    }

    fn hint_one(a: &DocArg) -> String {
        let repeat = match a.kind {
            ArgType::OneOf => a.args.iter().map(hint_one).collect::<Vec<_>>().join("|"),
            ArgType::Block => hint(&a.args),
            ArgType::PureToken => String::new(),
            _ => a.name.clone(),
        };
        let mut token = a.token.clone().unwrap_or_default();
        if !token.is_empty() && a.kind != ArgType::PureToken {
            token.push(' ');
        }
        let mut s = String::new();
        if a.optional {
            s.push('[');
        }
        s.push_str(&token);
        s.push_str(&repeat);
        if a.multiple {
            s.push_str(" [");
            if a.multiple_token {
                s.push_str(&token);
            }
            s.push_str(&repeat);
            s.push_str(" ...]");
        }
        if a.optional {
            s.push(']');
        }
        s
    }

    #[test]
    fn syntax_round_trips_through_redis_cli_hints() {
        for (syntax, expected) in [
            ("key", "key"),
            ("key [key ...]", "key [key ...]"),
            ("[NX | XX]", "[NX|XX]"),
            (
                "key value [NX | XX] [GET] [EX seconds | PX milliseconds | KEEPTTL]",
                "key value [NX|XX] [GET] [EX seconds|PX milliseconds|KEEPTTL]",
            ),
            (
                "key field value [field value ...]",
                "key field value [field value ...]",
            ),
            ("[section [section ...]]", "[section [section ...]]"),
            (
                "key [GET pattern [GET pattern ...]]",
                "key [GET pattern [GET pattern ...]]",
            ),
            ("[LIMIT offset count]", "[LIMIT offset count]"),
            ("ON | OFF | SKIP", "ON|OFF|SKIP"),
            (
                "[FILTERBY MODULE module-name | ACLCAT category | PATTERN pattern]",
                "[FILTERBY MODULE module-name|ACLCAT category|PATTERN pattern]",
            ),
        ] {
            let args = parse_syntax(syntax);
            assert_eq!(hint(&args), expected, "{syntax}");
        }
    }

    // The rows carry their syntax natively only (the browser fetches it).
    #[cfg(not(target_arch = "wasm32"))]
    #[test]
    fn every_syntax_line_parses_and_ours_round_trip() {
        use crate::engine::table::Group;
        use crate::engine::{Engine, ManualClock};
        let mine = [Group::Connection, Group::Server];
        let engine = Engine::new(Box::new(ManualClock::at_ms(0)), 1);
        for c in engine.table().all() {
            for (name, cmd) in
                std::iter::once((c.name, c)).chain(c.subcommands.iter().map(|s| (s.name, s)))
            {
                let args = parse_syntax(cmd.syntax);
                assert!(args.iter().all(|a| !a.name.is_empty()), "{name}");
                if mine.contains(&cmd.group) {
                    let want = cmd.syntax.replace(['<', '>'], "").replace(" | ", "|");
                    assert_eq!(hint(&args), want, "{name}");
                }
            }
        }
    }

    #[test]
    fn syntax_types_and_flags() {
        let args = parse_syntax("key [EX seconds] [NX]");
        assert_eq!(args[0].kind, ArgType::Key);
        assert_eq!(args[1].kind, ArgType::Integer);
        assert_eq!(args[1].token.as_deref(), Some("EX"));
        assert!(args[1].optional);
        assert_eq!(args[2].kind, ArgType::PureToken);
        assert!(parse_syntax("").is_empty());
        // Malformed input does not panic.
        for bad in ["[", "]", "| |", "[a | ", "... ...", "( [ ) ]"] {
            let _ = parse_syntax(bad);
        }
    }
}
