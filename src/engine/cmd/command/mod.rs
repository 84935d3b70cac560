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
use crate::engine::core::ctx::Table;
use crate::engine::error::{CmdResult, Error};
use crate::engine::glob;
use crate::engine::table::{docs, BeginSearch, Command, FindKeys, Flags, Group, KeySpec};
use crate::engine::{Ctx, Reply};

use super::connection::help_reply;

mod syntax;

use syntax::{map, status_set};
pub use syntax::{parse_syntax, ArgType, DocArg};

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
fn lookup_full(table: &'static Table, name: &[u8]) -> Option<(String, &'static Command)> {
    match name.iter().position(|&c| c == b'|') {
        None => table.lookup(name).map(|c| (c.name.to_string(), c)),
        Some(i) => {
            let parent = table.lookup(&name[..i])?;
            let sub = parent.subcommand(&name[i + 1..])?;
            Some((format!("{}|{}", parent.name, sub.name), sub))
        }
    }
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
        status_set(categories),
        Reply::Set(cmd.tips.iter().map(|t| Reply::bulk(t.as_bytes())).collect()),
        Reply::Set(specs),
        subcommands,
    ])
}

/// One `COMMAND DOCS` entry (Redis's `addReplyCommandDocs`).
fn docs_reply(fullname: &str, cmd: &Command) -> Reply {
    let key = fullname.replace('|', " ");
    let mut pairs = vec![
        ("summary", Reply::bulk(docs::summary(cmd, &key).as_bytes())),
        ("since", Reply::bulk(docs::since(cmd, &key).as_bytes())),
        ("group", Reply::bulk(cmd.group.name().as_bytes())),
        (
            "complexity",
            Reply::bulk(docs::complexity(cmd, &key).as_bytes()),
        ),
    ];
    let args = parse_syntax(&docs::syntax(cmd, &key));
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
fn command_all(ctx: &mut Ctx<'_>, _args: &mut Args) -> CmdResult {
    Ok(Reply::Array(
        ctx.table.all().map(|c| info_reply(c.name, c)).collect(),
    ))
}

/// COMMAND COUNT: the number of top-level commands.
fn command_count(ctx: &mut Ctx<'_>, _args: &mut Args) -> CmdResult {
    Ok(Reply::Integer(ctx.table.all().count() as i64))
}

/// COMMAND LIST [FILTERBY MODULE name | ACLCAT category | PATTERN pattern]
///
/// Every command name followed by its subcommands' `container|sub` names. `MODULE` matches
/// nothing (there are no modules), `ACLCAT` an unknown category matches nothing, and
/// `PATTERN` is a case-insensitive glob over the full names. Anything else, or a
/// `FILTERBY` without exactly its two arguments, is a syntax error.
fn command_list(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
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
    for c in ctx.table.all() {
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
            .map(|n| match lookup_full(ctx.table, n) {
                Some((full, c)) => info_reply(&full, c),
                None => Reply::NilArray,
            })
            .collect(),
    ))
}

/// COMMAND DOCS [command-name ...]: a map from each known named command to its docs
/// (unknown names are left out); every command when none is named.
fn command_docs(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    let table = ctx.table;
    let entries: Vec<(String, &Command)> = if args.is_empty() {
        table.all().map(|c| (c.name.to_string(), c)).collect()
    } else {
        args.rest()
            .iter()
            .filter_map(|n| lookup_full(table, n))
            .collect()
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
fn keys_of(table: &'static Table, argv: &[Vec<u8>]) -> CmdResult<Keys> {
    let invalid = || Error::Err("Invalid command specified".into());
    let first = argv.first().ok_or_else(invalid)?;
    let base = table.lookup(first).ok_or_else(invalid)?;
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
fn command_getkeys(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    let line = args.rest();
    let keys = keys_of(ctx.table, &line)?;
    Ok(Reply::Array(
        keys.into_iter()
            .map(|(i, _)| Reply::bulk(&line[i]))
            .collect(),
    ))
}

/// COMMAND GETKEYSANDFLAGS command [arg ...]: each key with its key-spec flags.
fn command_getkeysandflags(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    let line = args.rest();
    let keys = keys_of(ctx.table, &line)?;
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
        crate::help_lines![
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

#[cfg(test)]
mod tests {
    use super::*;

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
        let e = crate::engine::Engine::new(Box::new(crate::engine::ManualClock::at_ms(0)), 1);
        assert_eq!(all.len(), e.table().all().count());
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
}
