//! `COMMAND` and its subcommands: the command table describing itself.
//!
//! Everything here is computed from the [command table](crate::engine::table), in the reply
//! shapes of Redis 7.0:
//!
//! * `COMMAND` / `COMMAND INFO`: per command a 10-element array — name, arity, flags,
//!   first key, last key, key step, ACL categories, tips, key specs, subcommands.
//!   The key specs are the row's own (flags, notes, `begin_search`, `find_keys`); the
//!   legacy first/last/step and `movablekeys` are derived from them by the table.
//! * `COMMAND DOCS`: a map from name to a map of summary, since, group, complexity,
//!   arguments and subcommands. The arguments are parsed from the row's syntax line (see
//!   [`parse_syntax`]): `[…]` is optional, `a | b` is one-of, `x [x ...]` is multiple, an
//!   UPPERCASE word is a token; argument types are guessed from names (`key`, `pattern`,
//!   `count`…). `redis-cli` 7.0 builds its command-line hints from this reply, so every
//!   string it reads is a bulk string and every flag a status reply, as it asserts.
//! * `COMMAND LIST`, `COUNT`, `GETKEYS`, `GETKEYSANDFLAGS`, `HELP`.
//!
//! Redis lists commands in its hash table's order; we list them in table order.

use crate::engine::args::Args;
use crate::engine::error::{CmdResult, Error};
use crate::engine::glob;
use crate::engine::table::{self, BeginSearch, Command, FindKeys, Flags, Group, KeySpec};
use crate::engine::{Ctx, Reply};

use super::connection::help_reply;

const INTROSPECTION: Flags = Flags::LOADING.union(Flags::STALE);

/// The COMMAND container.
pub const COMMANDS: &[Command] =
    &[
        Command::container("command", Group::Server, COMMAND_SUBCOMMANDS)
            .tips(&["nondeterministic_output_order"])
            .bare(command_all, -1)
            .flags(INTROSPECTION)
            .acl(&["connection"])
            .doc(
                "",
                "Describes every command this server knows.",
                "O(N) where N is the total number of Redis commands",
                "2.8.13",
            ),
    ];

const COMMAND_SUBCOMMANDS: &[Command] = &[
    Command::new("count", 2, Group::Server, command_count)
        .flags(INTROSPECTION)
        .acl(&["connection"])
        .doc(
            "",
            "Counts the commands this server knows.",
            "O(1)",
            "2.8.13",
        ),
    Command::new("list", -2, Group::Server, command_list)
        .tips(&["nondeterministic_output_order"])
        .flags(INTROSPECTION)
        .acl(&["connection"])
        .doc(
            "[FILTERBY <MODULE module-name | ACLCAT category | PATTERN pattern>]",
            "Lists the names of the commands and subcommands, optionally filtered.",
            "O(N) where N is the total number of Redis commands",
            "7.0.0",
        ),
    Command::new("info", -2, Group::Server, command_info)
        .tips(&["nondeterministic_output_order"])
        .flags(INTROSPECTION)
        .acl(&["connection"])
        .doc(
            "[command-name [command-name ...]]",
            "Describes the named commands (all when none is named); nil for unknown names.",
            "O(N) where N is the number of commands to look up",
            "2.8.13",
        ),
    Command::new("docs", -2, Group::Server, command_docs)
        .tips(&["nondeterministic_output_order"])
        .flags(INTROSPECTION)
        .acl(&["connection"])
        .doc(
            "[command-name [command-name ...]]",
            "Documents the named commands (all when none is named): summary, syntax, complexity.",
            "O(N) where N is the number of commands to look up",
            "7.0.0",
        ),
    Command::new("getkeys", -4, Group::Server, command_getkeys)
        .flags(INTROSPECTION)
        .acl(&["connection"])
        .doc(
            "command [arg [arg ...]]",
            "Extracts the key names from a full command line.",
            "O(N) where N is the number of arguments to the command",
            "2.8.13",
        ),
    Command::new(
        "getkeysandflags",
        -4,
        Group::Server,
        command_getkeysandflags,
    )
    .flags(INTROSPECTION)
    .acl(&["connection"])
    .doc(
        "command [arg [arg ...]]",
        "Extracts the key names from a full command line, with their access flags.",
        "O(N) where N is the number of arguments to the command",
        "7.0.0",
    ),
    Command::new("help", 2, Group::Server, command_help)
        .flags(INTROSPECTION)
        .acl(&["connection"])
        .doc("", "Lists the COMMAND subcommands.", "O(1)", "5.0.0"),
];

/// Finds a command by name, or a subcommand by `container|sub`, ignoring case.
fn lookup_full(name: &[u8]) -> Option<(String, &'static Command)> {
    match name.iter().position(|&c| c == b'|') {
        None => table::lookup(name).map(|c| (c.name.to_string(), c)),
        Some(i) => {
            let parent = table::lookup(&name[..i])?;
            let sub = parent.subcommand(&name[i + 1..])?;
            Some((format!("{}|{}", parent.name, sub.name), sub))
        }
    }
}

fn status_set<'a>(items: impl IntoIterator<Item = &'a str>) -> Reply {
    Reply::Set(items.into_iter().map(Reply::status).collect())
}

fn map(pairs: Vec<(&str, Reply)>) -> Reply {
    Reply::Map(
        pairs
            .into_iter()
            .map(|(k, v)| (Reply::bulk(k.as_bytes()), v))
            .collect(),
    )
}

/// One key spec of `COMMAND INFO` (Redis's `addReplyCommandKeySpecs`).
fn key_spec_reply(spec: &KeySpec) -> Reply {
    let int = |n: i32| Reply::Integer(i64::from(n));
    let (begin_type, begin_spec) = match spec.begin {
        BeginSearch::Index(pos) => ("index", vec![("index", int(pos))]),
        BeginSearch::Keyword { keyword, startfrom } => (
            "keyword",
            vec![
                ("keyword", Reply::bulk(keyword.as_bytes())),
                ("startfrom", int(startfrom)),
            ],
        ),
        BeginSearch::Unknown => ("unknown", vec![]),
    };
    let (find_type, find_spec) = match spec.find {
        FindKeys::Range {
            lastkey,
            keystep,
            limit,
        } => (
            "range",
            vec![
                ("lastkey", int(lastkey)),
                ("keystep", int(keystep)),
                ("limit", int(limit)),
            ],
        ),
        FindKeys::Keynum {
            keynumidx,
            firstkey,
            keystep,
        } => (
            "keynum",
            vec![
                ("keynumidx", int(keynumidx)),
                ("firstkey", int(firstkey)),
                ("keystep", int(keystep)),
            ],
        ),
        FindKeys::Unknown => ("unknown", vec![]),
    };
    let mut pairs = Vec::new();
    if !spec.notes.is_empty() {
        pairs.push(("notes", Reply::bulk(spec.notes.as_bytes())));
    }
    pairs.extend([
        ("flags", status_set(spec.flags.names())),
        (
            "begin_search",
            map(vec![
                ("type", Reply::bulk(begin_type.as_bytes())),
                ("spec", map(begin_spec)),
            ]),
        ),
        (
            "find_keys",
            map(vec![
                ("type", Reply::bulk(find_type.as_bytes())),
                ("spec", map(find_spec)),
            ]),
        ),
    ]);
    map(pairs)
}

/// One `COMMAND INFO` entry (Redis's `addReplyCommandInfo`).
fn info_reply(fullname: &str, cmd: &Command) -> Reply {
    let k = cmd.keys;
    let specs = cmd.key_specs.iter().map(key_spec_reply).collect();
    let subcommands = if cmd.subcommands.is_empty() {
        Reply::Set(Vec::new())
    } else {
        Reply::Array(
            cmd.subcommands
                .iter()
                .map(|s| info_reply(&format!("{fullname}|{}", s.name), s))
                .collect(),
        )
    };
    let categories: Vec<String> = cmd
        .acl_categories()
        .iter()
        .map(|c| format!("@{c}"))
        .collect();
    Reply::Array(vec![
        Reply::bulk(fullname.as_bytes()),
        Reply::Integer(i64::from(cmd.arity)),
        status_set(cmd.flags.names()),
        Reply::Integer(i64::from(k.first)),
        Reply::Integer(i64::from(k.last)),
        Reply::Integer(i64::from(k.step)),
        status_set(categories.iter().map(String::as_str)),
        Reply::Set(cmd.tips.iter().map(|t| Reply::bulk(t.as_bytes())).collect()),
        Reply::Set(specs),
        subcommands,
    ])
}

/// One `COMMAND DOCS` entry (Redis's `addReplyCommandDocs`).
fn docs_reply(fullname: &str, cmd: &Command) -> Reply {
    let mut pairs = vec![
        ("summary", Reply::bulk(cmd.summary.as_bytes())),
        ("since", Reply::bulk(cmd.since.as_bytes())),
        ("group", Reply::bulk(cmd.group.name().as_bytes())),
        ("complexity", Reply::bulk(cmd.complexity.as_bytes())),
    ];
    let args = parse_syntax(cmd.syntax);
    if !args.is_empty() {
        let has_keys = cmd.keys.first > 0;
        pairs.push((
            "arguments",
            Reply::Array(args.iter().map(|a| a.to_reply(has_keys)).collect()),
        ));
    }
    if !cmd.subcommands.is_empty() {
        pairs.push((
            "subcommands",
            Reply::Map(
                cmd.subcommands
                    .iter()
                    .map(|s| {
                        let name = format!("{fullname}|{}", s.name);
                        (Reply::bulk(name.as_bytes()), docs_reply(&name, s))
                    })
                    .collect(),
            ),
        ));
    }
    map(pairs)
}

/// COMMAND: `COMMAND INFO` for every command. **O(N)** in the number of commands.
fn command_all(_ctx: &mut Ctx<'_>, _args: &mut Args) -> CmdResult {
    Ok(Reply::Array(
        table::all().map(|c| info_reply(c.name, c)).collect(),
    ))
}

/// COMMAND COUNT: the number of top-level commands.
fn command_count(_ctx: &mut Ctx<'_>, _args: &mut Args) -> CmdResult {
    Ok(Reply::Integer(table::all().count() as i64))
}

/// COMMAND LIST [FILTERBY MODULE name | ACLCAT category | PATTERN pattern]
///
/// Every command name followed by its subcommands' `container|sub` names. `MODULE` matches
/// nothing (there are no modules), `ACLCAT` an unknown category matches nothing, and
/// `PATTERN` is a case-insensitive glob over the full names. Anything else, or a
/// `FILTERBY` without exactly its two arguments, is a syntax error.
fn command_list(_ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    enum Filter {
        None,
        Module,
        AclCat(String),
        Pattern(Vec<u8>),
    }
    let mut filter = Filter::None;
    while !args.is_empty() {
        if args.remaining() == 3 && args.eat("FILTERBY") {
            let kind = args.next_keyword()?;
            let arg = args.next_owned()?;
            filter = match kind.as_str() {
                "MODULE" => Filter::Module,
                "ACLCAT" => Filter::AclCat(String::from_utf8_lossy(&arg).to_ascii_lowercase()),
                "PATTERN" => Filter::Pattern(arg),
                _ => return Err(Error::Syntax),
            };
        } else {
            return Err(Error::Syntax);
        }
    }
    let keep = |name: &str, cmd: &Command| match &filter {
        Filter::None => true,
        Filter::Module => false,
        Filter::AclCat(cat) => cmd.acl_categories().contains(&cat.as_str()),
        Filter::Pattern(p) => glob::matches(p, name.as_bytes(), true),
    };
    let mut out = Vec::new();
    for c in table::all() {
        if keep(c.name, c) {
            out.push(Reply::bulk(c.name.as_bytes()));
        }
        for s in c.subcommands {
            let full = format!("{}|{}", c.name, s.name);
            if keep(&full, s) {
                out.push(Reply::Bulk(full.into_bytes()));
            }
        }
    }
    Ok(Reply::Array(out))
}

/// COMMAND INFO [command-name ...]: the info of each named command (`container|sub` names a
/// subcommand), nil for unknown names; every command when none is named.
fn command_info(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    if args.is_empty() {
        return command_all(ctx, args);
    }
    Ok(Reply::Array(
        args.rest()
            .iter()
            .map(|n| match lookup_full(n) {
                Some((full, c)) => info_reply(&full, c),
                None => Reply::NilArray,
            })
            .collect(),
    ))
}

/// COMMAND DOCS [command-name ...]: a map from each known named command to its docs
/// (unknown names are left out); every command when none is named.
fn command_docs(_ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    let entries: Vec<(String, &Command)> = if args.is_empty() {
        table::all().map(|c| (c.name.to_string(), c)).collect()
    } else {
        args.rest().iter().filter_map(|n| lookup_full(n)).collect()
    };
    Ok(Reply::Map(
        entries
            .into_iter()
            .map(|(name, c)| (Reply::bulk(name.as_bytes()), docs_reply(&name, c)))
            .collect(),
    ))
}

/// Key positions with their key-spec flags.
type Keys = Vec<(usize, Vec<&'static str>)>;

/// The keys of the command line in `argv` (from the command name on), each with its
/// key-spec flags, or the error `COMMAND GETKEYS` gives.
fn keys_of(argv: &[Vec<u8>]) -> CmdResult<Keys> {
    let invalid = || Error::Err("Invalid command specified".into());
    let first = argv.first().ok_or_else(invalid)?;
    let base = table::lookup(first).ok_or_else(invalid)?;
    let cmd = if argv.len() == 1 || base.subcommands.is_empty() {
        base
    } else {
        base.subcommand(&argv[1]).ok_or_else(invalid)?
    };
    if !cmd.has_keys() {
        return Err(Error::Err("The command has no key arguments".into()));
    }
    if !cmd.arity_ok(argv.len()) {
        return Err(Error::Err(
            "Invalid number of arguments specified for command".into(),
        ));
    }
    let keys: Keys = cmd
        .keys_and_flags(argv, false)
        .unwrap_or_default()
        .into_iter()
        .map(|(i, f)| (i, f.names()))
        .collect();
    if keys.is_empty() && !cmd.flags.contains(Flags::NO_MANDATORY_KEYS) {
        return Err(Error::Err("Invalid arguments specified for command".into()));
    }
    Ok(keys)
}

/// COMMAND GETKEYS command [arg ...]: the key names the command line would touch.
fn command_getkeys(_ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    let line = args.rest();
    let keys = keys_of(&line)?;
    Ok(Reply::Array(
        keys.into_iter()
            .map(|(i, _)| Reply::bulk(&line[i]))
            .collect(),
    ))
}

/// COMMAND GETKEYSANDFLAGS command [arg ...]: each key with its key-spec flags.
fn command_getkeysandflags(_ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    let line = args.rest();
    let keys = keys_of(&line)?;
    Ok(Reply::Array(
        keys.into_iter()
            .map(|(i, flags)| Reply::Array(vec![Reply::bulk(&line[i]), status_set(flags)]))
            .collect(),
    ))
}

/// COMMAND HELP
fn command_help(_ctx: &mut Ctx<'_>, _args: &mut Args) -> CmdResult {
    Ok(help_reply(
        "COMMAND",
        &[
            "(no subcommand)",
            "    Return details about all Redis commands.",
            "COUNT",
            "    Return the total number of commands in this Redis server.",
            "LIST",
            "    Return a list of all commands in this Redis server.",
            "INFO [<command-name> ...]",
            "    Return details about multiple Redis commands.",
            "    If no command names are given, documentation details for all",
            "    commands are returned.",
            "DOCS [<command-name> ...]",
            "    Return documentation details about multiple Redis commands.",
            "    If no command names are given, documentation details for all",
            "    commands are returned.",
            "GETKEYS <full-command>",
            "    Return the keys from a full Redis command.",
            "GETKEYSANDFLAGS <full-command>",
            "    Return the keys and the access flags from a full Redis command.",
        ],
    ))
}

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
    fn to_reply(&self, has_keys: bool) -> Reply {
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

    #[test]
    fn every_syntax_line_parses_and_ours_round_trip() {
        let mine = [Group::Connection, Group::Server];
        for c in table::all() {
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

    fn run(line: &str) -> Reply {
        let mut e = crate::engine::Engine::new(Box::new(crate::engine::ManualClock::at_ms(0)), 1);
        let id = e.connect();
        e.execute(id, crate::engine::cli::split_args(line).unwrap())
    }

    #[test]
    fn bare_command_lists_every_command() {
        let Reply::Array(all) = run("COMMAND") else {
            panic!("not an array")
        };
        assert_eq!(Reply::Integer(all.len() as i64), run("COMMAND COUNT"));
        assert_eq!(all.len(), table::all().count());
        assert_eq!(run("COMMAND INFO"), Reply::Array(all));
    }

    #[test]
    fn command_info_of_a_container_lists_its_subcommands() {
        let Reply::Array(outer) = run("COMMAND INFO config") else {
            panic!("not an array")
        };
        let Reply::Array(info) = &outer[0] else {
            panic!("not an array")
        };
        assert_eq!(info.len(), 10);
        assert_eq!(info[0], Reply::bulk(b"config"));
        assert_eq!(info[1], Reply::Integer(-2));
        assert_eq!(info[2], Reply::Set(vec![]));
        assert_eq!(info[6], Reply::Set(vec![Reply::status("@slow")]));
        let Reply::Array(subs) = &info[9] else {
            panic!("subcommands are an array")
        };
        let Reply::Array(get) = &subs[0] else {
            panic!("not an array")
        };
        assert_eq!(get[0], Reply::bulk(b"config|get"));
        // A command without subcommands has an empty *set* there, as in Redis.
        let Reply::Array(outer) = run("COMMAND INFO ping") else {
            panic!("not an array")
        };
        let Reply::Array(ping) = &outer[0] else {
            panic!("not an array")
        };
        assert_eq!(ping[9], Reply::Set(vec![]));
    }

    #[test]
    fn command_docs_has_redis_cli_shape() {
        let Reply::Map(entries) = run("COMMAND DOCS client nosuch") else {
            panic!("not a map")
        };
        assert_eq!(entries.len(), 1);
        let (name, Reply::Map(doc)) = &entries[0] else {
            panic!("doc is not a map")
        };
        assert_eq!(*name, Reply::bulk(b"client"));
        let keys: Vec<&Reply> = doc.iter().map(|(k, _)| k).collect();
        assert_eq!(
            keys,
            [
                &Reply::bulk(b"summary"),
                &Reply::bulk(b"since"),
                &Reply::bulk(b"group"),
                &Reply::bulk(b"complexity"),
                &Reply::bulk(b"subcommands"),
            ]
        );
        let Reply::Map(subs) = &doc[4].1 else {
            panic!("subcommands are a map")
        };
        let (sub_name, Reply::Map(list)) = subs
            .iter()
            .find(|(k, _)| *k == Reply::bulk(b"client|list"))
            .unwrap()
        else {
            panic!("no client|list")
        };
        assert_eq!(*sub_name, Reply::bulk(b"client|list"));
        let (_, Reply::Array(args)) = list
            .iter()
            .find(|(k, _)| *k == Reply::bulk(b"arguments"))
            .unwrap()
        else {
            panic!("arguments are an array")
        };
        let Reply::Map(first) = &args[0] else {
            panic!("an argument is a map")
        };
        assert!(first.contains(&(Reply::bulk(b"token"), Reply::bulk(b"TYPE"))));
        assert!(first.contains(&(
            Reply::bulk(b"flags"),
            Reply::Set(vec![Reply::status("optional")])
        )));
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
