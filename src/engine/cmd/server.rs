//! The server group: CONFIG, INFO, TIME, LASTSAVE, ROLE, WAIT, SLOWLOG, MEMORY USAGE and
//! FUNCTION FLUSH.
//!
//! `CONFIG` reads and writes the parameters of [`crate::engine::config`]; `INFO` reports
//! the server in Redis 7.0's text format. There is no configuration file, no persistence
//! of our own and no replication, so the sections about them report what a fresh
//! stand-alone Redis master without saves would.

use std::collections::HashSet;

use crate::engine::args::Args;
use crate::engine::blocking::BlockOp;
use crate::engine::config::{self, HIDDEN, IMMUTABLE, PROTECTED};
use crate::engine::error::{c_str, CmdResult, Error};
use crate::engine::glob;
use crate::engine::pubsub::Kind;
use crate::engine::table::{Command, Flags, Group, KeySpec};
use crate::engine::{Config, Ctx, Reply, Server};

use super::connection::help_reply;
pub use crate::engine::core::memory::{
    bytes_to_human, estimate_dataset_bytes, key_bytes, memory_usage_bytes, used_memory,
    DEFAULT_SAMPLES, STARTUP_BYTES,
};

/// Flags of the administrative CONFIG subcommands.
const CONFIG_FLAGS: Flags = Flags::ADMIN
    .union(Flags::NOSCRIPT)
    .union(Flags::LOADING)
    .union(Flags::STALE);

/// The server commands.
pub const COMMANDS: &[Command] = &[
    Command::container("config", Group::Server, CONFIG_SUBCOMMANDS).doc(
        "",
        "Reads and changes configuration parameters at run time.",
        "Depends on subcommand.",
        "2.0.0",
    ),
    Command::new("info", -1, Group::Server, info)
        .tips(&[
            "nondeterministic_output",
            "request_policy:all_shards",
            "response_policy:special",
        ])
        .flags(Flags::LOADING.union(Flags::STALE))
        .acl(&["dangerous"])
        .doc(
            "[section [section ...]]",
            "Reports information and statistics about the server, by section.",
            "O(1)",
            "1.0.0",
        ),
    Command::new("time", 1, Group::Server, time)
        .tips(&["nondeterministic_output"])
        .flags(Flags::LOADING.union(Flags::STALE).union(Flags::FAST))
        .doc(
            "",
            "Returns the server's clock: Unix seconds and microseconds.",
            "O(1)",
            "2.6.0",
        ),
    Command::new("lastsave", 1, Group::Server, lastsave)
        .tips(&["nondeterministic_output"])
        .flags(Flags::LOADING.union(Flags::STALE).union(Flags::FAST))
        .acl(&["admin", "dangerous"])
        .doc(
            "",
            "Returns the Unix time of the last successful save (here: the start of the server).",
            "O(1)",
            "1.0.0",
        ),
    Command::new("role", 1, Group::Server, role)
        .flags(
            Flags::NOSCRIPT
                .union(Flags::LOADING)
                .union(Flags::STALE)
                .union(Flags::FAST),
        )
        .acl(&["admin", "dangerous"])
        .doc(
            "",
            "Reports the replication role: a master with no replicas here.",
            "O(1)",
            "2.8.12",
        ),
    Command::new("wait", 3, Group::Generic, wait)
        .tips(&["request_policy:all_shards", "response_policy:agg_min"])
        .flags(Flags::NOSCRIPT)
        .acl(&["connection"])
        .no_group_acl()
        .doc(
            "numreplicas timeout",
            "Blocks until the writes of this connection reach numreplicas replicas or the timeout (ms, 0 = forever) passes; replies how many did. There are no replicas here, so it answers 0 at once when numreplicas is 0 or less, else at the timeout.",
            "O(1)",
            "3.0.0",
        ),
    Command::container("slowlog", Group::Server, SLOWLOG_SUBCOMMANDS).doc(
        "subcommand [arguments]",
        "Reads and clears the slow log: the latest commands that ran for at least slowlog-log-slower-than microseconds.",
        "Depends on subcommand.",
        "2.2.12",
    ),
    Command::container("memory", Group::Server, MEMORY_SUBCOMMANDS).doc(
        "subcommand [arguments]",
        "Reports on memory use (here only USAGE, PURGE and HELP).",
        "Depends on subcommand.",
        "4.0.0",
    ),
    Command::container("function", Group::Scripting, FUNCTION_SUBCOMMANDS).doc(
        "",
        "Manages server-side functions.",
        "Depends on subcommand.",
        "7.0.0",
    ),
];

const CONFIG_SUBCOMMANDS: &[Command] = &[
    Command::new("get", -3, Group::Server, config_get)
        .flags(CONFIG_FLAGS)
        .doc(
            "parameter [parameter ...]",
            "Returns the parameters matching the names or glob patterns, with their values.",
            "O(N) when N is the number of configuration parameters provided",
            "2.0.0",
        ),
    Command::new("set", -4, Group::Server, config_set)
        .tips(&["request_policy:all_nodes", "response_policy:all_succeeded"])
        .flags(CONFIG_FLAGS)
        .doc(
            "parameter value [parameter value ...]",
            "Sets parameters, all or none: every value is checked before any is applied.",
            "O(N) when N is the number of configuration parameters provided",
            "2.0.0",
        ),
    Command::new("resetstat", 2, Group::Server, config_resetstat)
        .flags(CONFIG_FLAGS)
        .doc(
            "",
            "Resets the statistics INFO reports.",
            "O(1)",
            "2.0.0",
        ),
    Command::new("rewrite", 2, Group::Server, config_rewrite)
        .flags(CONFIG_FLAGS)
        .doc(
            "",
            "Rewrites the configuration file (there is none here, so it fails as Redis does without one).",
            "O(1)",
            "2.8.0",
        ),
    Command::new("help", 2, Group::Server, config_help)
        .flags(Flags::LOADING.union(Flags::STALE))
        .doc("", "Lists the CONFIG subcommands.", "O(1)", "5.0.0"),
];

/// Flags of the administrative SLOWLOG subcommands.
const SLOWLOG_FLAGS: Flags = Flags::ADMIN.union(Flags::LOADING).union(Flags::STALE);

const SLOWLOG_SUBCOMMANDS: &[Command] = &[
    Command::new("get", -2, Group::Server, slowlog_get)
        .tips(&["request_policy:all_nodes", "nondeterministic_output"])
        .flags(SLOWLOG_FLAGS)
        .doc(
            "[count]",
            "Returns the newest entries (10 by default, -1 for all): id, Unix time, microseconds, arguments, client address, client name.",
            "O(N) where N is the number of entries returned",
            "2.2.12",
        ),
    Command::new("len", 2, Group::Server, slowlog_len)
        .tips(&[
            "request_policy:all_nodes",
            "response_policy:agg_sum",
            "nondeterministic_output",
        ])
        .flags(SLOWLOG_FLAGS)
        .doc("", "Returns the number of entries in the slow log.", "O(1)", "2.2.12"),
    Command::new("reset", 2, Group::Server, slowlog_reset)
        .tips(&["request_policy:all_nodes", "response_policy:all_succeeded"])
        .flags(SLOWLOG_FLAGS)
        .doc(
            "",
            "Empties the slow log (entry ids go on).",
            "O(N) where N is the number of entries in the slowlog",
            "2.2.12",
        ),
    Command::new("help", 2, Group::Server, slowlog_help)
        .flags(Flags::LOADING.union(Flags::STALE))
        .doc("", "Lists the SLOWLOG subcommands.", "O(1)", "6.2.0"),
];

const MEMORY_SUBCOMMANDS: &[Command] = &[
    Command::new("usage", -3, Group::Server, memory_usage)
        .key_specs(&[KeySpec::index(2, "RO")])
        .flags(Flags::READONLY)
        .doc(
            "key [SAMPLES count]",
            "Estimates the bytes a key and its value take.",
            "O(N) where N is the number of samples.",
            "4.0.0",
        ),
    Command::new("doctor", 2, Group::Server, memory_doctor)
        .tips(&[
            "nondeterministic_output",
            "request_policy:all_shards",
            "response_policy:special",
        ])
        .doc(
            "",
            "Reports memory problems, in Redis's words (here: the instance is small, or no issue).",
            "O(1)",
            "4.0.0",
        ),
    Command::new("purge", 2, Group::Server, memory_purge)
        .tips(&["request_policy:all_shards", "response_policy:all_succeeded"])
        .doc(
            "",
            "Asks the allocator to release dirty pages (nothing to do here: answers OK).",
            "Depends on how much memory is allocated, could be slow",
            "4.0.0",
        ),
    Command::new("help", 2, Group::Server, memory_help)
        .flags(Flags::LOADING.union(Flags::STALE))
        .doc("", "Lists the MEMORY subcommands.", "O(1)", "4.0.0"),
];

const FUNCTION_SUBCOMMANDS: &[Command] =
    &[Command::new("flush", -2, Group::Scripting, function_flush)
        .tips(&["request_policy:all_shards", "response_policy:all_succeeded"])
        .flags(Flags::WRITE.union(Flags::NOSCRIPT))
        .doc(
            "[ASYNC | SYNC]",
            "Deletes every function library (there are none yet: it only answers OK).",
            "O(N) where N is the number of functions deleted",
            "7.0.0",
        )];

/// CONFIG GET parameter [parameter ...]
///
/// Each argument is an exact name or alias (any case; the reply uses it as given, and finds
/// hidden parameters too) or, when it has `*`, `?` or `[`, a case-insensitive glob pattern
/// over the names and aliases of the visible parameters. Replies a map of name → value
/// (a flat array in RESP2), each name once. Redis lists matches in its hash table's
/// order, which changes from run to run; we list them in table order.
fn config_get(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    let cfg = &ctx.srv.config;
    let mut seen: HashSet<String> = HashSet::new();
    let mut out = Vec::new();
    for arg in args.rest() {
        let text = String::from_utf8_lossy(&arg).into_owned();
        if !text.contains(['[', '*', '?']) {
            if seen.contains(&text.to_ascii_lowercase()) {
                continue;
            }
            if let Some(p) = config::lookup(&arg) {
                seen.insert(text.to_ascii_lowercase());
                out.push((text, value_of(cfg, p)));
            }
            continue;
        }
        for p in config::PARAMS.iter().filter(|p| p.flags & HIDDEN == 0) {
            for key in std::iter::once(p.name).chain(p.alias) {
                if !seen.contains(key) && glob::matches(&arg, key.as_bytes(), true) {
                    seen.insert(key.to_string());
                    out.push((key.to_string(), value_of(cfg, p)));
                }
            }
        }
    }
    Ok(Reply::Map(
        out.into_iter()
            .map(|(k, v)| (Reply::Bulk(k.into_bytes()), Reply::Bulk(v.into_bytes())))
            .collect(),
    ))
}

fn value_of(cfg: &Config, p: &config::Param) -> String {
    let stored = cfg.get(p.name).unwrap_or(p.default);
    if p.name == "notify-keyspace-events" {
        // Stored losslessly; shown as Redis shows it (`A` hides `n`).
        return config::keyspace_event_string(cfg.keyspace_events());
    }
    stored.to_string()
}

/// CONFIG SET parameter value [parameter value ...]
///
/// All or nothing, checked in Redis's order: an odd argument count is a syntax error;
/// then every name is looked up and the first problem found wins — an unknown name
/// (`Unknown option or number of arguments for CONFIG SET - '<name>'`), an immutable or
/// protected parameter, or a name given twice (an alias counts as a name of its own, as in
/// Redis 7.0); then each value is checked against its parameter and the first bad one fails
/// the whole command (`CONFIG SET failed (possibly related to argument '<name>') -
/// <reason>`) with nothing changed. Values are applied in order, so a later alias wins.
fn config_set(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    let pairs = args.rest();
    if pairs.len() % 2 != 0 {
        return Err(Error::Syntax);
    }
    let mut chosen: Vec<(&'static str, &'static config::Param)> = Vec::new();
    for pair in pairs.chunks(2) {
        let given = c_str(&pair[0]);
        let Some((name, p)) = config::lookup_named(&pair[0]) else {
            return Err(Error::Err(format!(
                "Unknown option or number of arguments for CONFIG SET - '{given}'"
            )));
        };
        if p.flags & IMMUTABLE != 0 {
            return Err(set_failed(&given, "can't set immutable config"));
        } else if p.flags & PROTECTED != 0 {
            return Err(set_failed(&given, "can't set protected config"));
        } else if chosen.iter().any(|(n, _)| *n == name) {
            return Err(set_failed(&given, "duplicate parameter"));
        }
        chosen.push((name, p));
    }
    // Values are checked in order against the value the earlier pairs leave behind.
    let mut staged = ctx.srv.config.clone();
    for ((name, p), pair) in chosen.iter().zip(pairs.chunks(2)) {
        let current = value_of(&staged, p);
        match Config::normalize(p, &pair[1], &current) {
            Ok(v) => staged.set_normalized(p.name, v),
            Err(why) => return Err(set_failed(name, &why)),
        }
    }
    ctx.srv.config = staged;
    Ok(Reply::ok())
}

fn set_failed(name: &str, why: &str) -> Error {
    Error::Err(format!(
        "CONFIG SET failed (possibly related to argument '{name}') - {why}"
    ))
}

/// CONFIG RESETSTAT: zeroes the counters INFO reports (commands, connections, expired
/// keys, hits and misses, the per-command counts).
fn config_resetstat(ctx: &mut Ctx<'_>, _args: &mut Args) -> CmdResult {
    let s = &mut ctx.srv.stats;
    s.commands = 0;
    s.connections = 0;
    s.expired_keys = 0;
    s.keyspace_hits = 0;
    s.keyspace_misses = 0;
    s.per_command.clear();
    Ok(Reply::ok())
}

/// CONFIG REWRITE: there is no configuration file, so this fails as Redis does without one.
fn config_rewrite(_ctx: &mut Ctx<'_>, _args: &mut Args) -> CmdResult {
    Err(Error::Err(
        "The server is running without a config file".into(),
    ))
}

/// CONFIG HELP
fn config_help(_ctx: &mut Ctx<'_>, _args: &mut Args) -> CmdResult {
    Ok(help_reply(
        "CONFIG",
        &[
            "GET <pattern>",
            "    Return parameters matching the glob-like <pattern> and their values.",
            "SET <directive> <value>",
            "    Set the configuration <directive> to <value>.",
            "RESETSTAT",
            "    Reset statistics reported by the INFO command.",
            "REWRITE",
            "    Rewrite the configuration file.",
        ],
    ))
}

/// TIME: the injected clock as two bulk strings, Unix seconds and microseconds (the clock
/// counts milliseconds, so the microseconds are a multiple of 1000).
fn time(ctx: &mut Ctx<'_>, _args: &mut Args) -> CmdResult {
    let ms = ctx.now_ms;
    Ok(Reply::Array(vec![
        Reply::bulk_int(ms.div_euclid(1000)),
        Reply::bulk_int(ms.rem_euclid(1000) * 1000),
    ]))
}

/// LASTSAVE: Unix seconds of the last save; nothing is saved by the engine itself, so it is
/// the time the server started, as for a fresh Redis.
fn lastsave(ctx: &mut Ctx<'_>, _args: &mut Args) -> CmdResult {
    Ok(Reply::Integer(ctx.srv.stats.start_ms.div_euclid(1000)))
}

/// SLOWLOG GET [count]: the newest `count` entries (10 without it, all with -1), newest
/// first. A count that is not an integer of at least -1, or a further argument, is refused
/// with Redis's messages.
fn slowlog_get(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    let count = match args.remaining() {
        0 => 10,
        1 => match crate::engine::args::parse_i64(args.next_bytes()?) {
            Some(-1) => usize::MAX,
            Some(n) if n >= 0 => usize::try_from(n).unwrap_or(usize::MAX),
            _ => {
                return Err(Error::Err(
                    "count should be greater than or equal to -1".into(),
                ))
            }
        },
        _ => return Err(Error::subcommand_syntax(args.argv())),
    };
    Ok(Reply::Array(
        ctx.srv
            .slowlog
            .newest(count)
            .map(|e| e.to_reply())
            .collect(),
    ))
}

/// SLOWLOG LEN
fn slowlog_len(ctx: &mut Ctx<'_>, _args: &mut Args) -> CmdResult {
    Ok(Reply::Integer(ctx.srv.slowlog.len() as i64))
}

/// SLOWLOG RESET
fn slowlog_reset(ctx: &mut Ctx<'_>, _args: &mut Args) -> CmdResult {
    ctx.srv.slowlog.reset();
    Ok(Reply::ok())
}

/// SLOWLOG HELP
fn slowlog_help(_ctx: &mut Ctx<'_>, _args: &mut Args) -> CmdResult {
    Ok(help_reply(
        "SLOWLOG",
        &[
            "GET [<count>]",
            "    Return top <count> entries from the slowlog (default: 10, -1 mean all).",
            "    Entries are made of:",
            "    id, timestamp, time in microseconds, arguments array, client IP and port,",
            "    client name",
            "LEN",
            "    Return the length of the slowlog.",
            "RESET",
            "    Reset the slowlog.",
        ],
    ))
}

/// ROLE: `master`, the replication offset (0: nothing is replicated) and the replicas (none).
fn role(_ctx: &mut Ctx<'_>, _args: &mut Args) -> CmdResult {
    Ok(Reply::Array(vec![
        Reply::bulk(b"master"),
        Reply::Integer(0),
        Reply::Array(Vec::new()),
    ]))
}

/// WAIT numreplicas timeout
///
/// Redis's `waitCommand` with no replicas: the count acknowledged is always 0. When that
/// already satisfies `numreplicas`, or the client may not block (inside `MULTI`), it is
/// the reply now; otherwise the client blocks until its timeout in milliseconds (0:
/// forever) or `CLIENT UNBLOCK`, and then gets 0 ([`BlockOp::Wait`]).
fn wait(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    let numreplicas = args.next_i64()?;
    let deadline = super::blocking::parse_timeout_ms(args.next_bytes()?, ctx.now_ms)?;
    let acked = 0;
    if acked >= numreplicas || ctx.deny_blocking {
        return Ok(Reply::Integer(acked));
    }
    ctx.block(Vec::new(), deadline, BlockOp::Wait);
    Ok(Reply::NilArray)
}

/// FUNCTION FLUSH [ASYNC|SYNC]: deletes all function libraries — there are none, so it
/// only checks its argument and answers OK. Counts as a change, as in Redis.
fn function_flush(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    match args.remaining() {
        0 => {}
        1 => {
            let mode = args.next_bytes()?;
            if !mode.eq_ignore_ascii_case(b"sync") && !mode.eq_ignore_ascii_case(b"async") {
                return Err(Error::Err(
                    "FUNCTION FLUSH only supports SYNC|ASYNC option".into(),
                ));
            }
        }
        _ => return Err(Error::subcommand_syntax(args.argv())),
    }
    ctx.dirty += 1;
    Ok(Reply::ok())
}

/// The sections of `INFO`, in the order Redis prints them.
const SECTIONS: &[&str] = &[
    "server",
    "clients",
    "memory",
    "persistence",
    "stats",
    "replication",
    "cpu",
    "modules",
    "commandstats",
    "errorstats",
    "latencystats",
    "cluster",
    "keyspace",
];

/// The sections shown by `INFO`, `INFO default`.
const DEFAULT_SECTIONS: &[&str] = &[
    "server",
    "clients",
    "memory",
    "persistence",
    "stats",
    "replication",
    "cpu",
    "modules",
    "errorstats",
    "cluster",
    "keyspace",
];

/// INFO [section [section ...]]
///
/// Text in Redis 7.0's format: each section is `# Title` followed by `field:value` lines,
/// CRLF line endings, one blank line between sections. Section names are case-insensitive;
/// `default` (the same as no argument), `all` and `everything` select groups of sections;
/// unknown names are ignored, and a request that selects nothing gets an empty string.
/// `commandstats` counts calls, failed calls (an error reply) and rejected calls (refused
/// before running) and the microseconds spent per command, in name order;
/// `errorstats` and `latencystats` are not tracked and print only their title. The memory figures are **estimates** (see [`estimate_dataset_bytes`]). A bulk
/// string in RESP2, a verbatim string in RESP3. **O(1)**: no section walks the keyspace.
fn info(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    let mut wanted: HashSet<&str> = HashSet::new();
    if args.is_empty() {
        wanted.extend(DEFAULT_SECTIONS);
    }
    for arg in args.rest() {
        let name = String::from_utf8_lossy(&arg).to_ascii_lowercase();
        match name.as_str() {
            "default" => wanted.extend(DEFAULT_SECTIONS),
            "all" | "everything" => wanted.extend(SECTIONS),
            other => {
                if let Some(s) = SECTIONS.iter().find(|s| **s == other) {
                    wanted.insert(s);
                }
            }
        }
    }
    let mut text = String::new();
    for section in SECTIONS.iter().filter(|s| wanted.contains(*s)) {
        if !text.is_empty() {
            text.push_str("\r\n");
        }
        let (title, fields) = info_section(ctx, section);
        text.push_str("# ");
        text.push_str(title);
        text.push_str("\r\n");
        for (k, v) in fields {
            text.push_str(&k);
            text.push(':');
            text.push_str(&v);
            text.push_str("\r\n");
        }
    }
    Ok(Reply::Verbatim("txt", text.into_bytes()))
}

/// MEMORY USAGE key [SAMPLES count]
///
/// An estimate of the bytes `key` and its value take (see [`estimate_dataset_bytes`] for
/// the model), or nil without such a key. A collection is measured on `count` elements
/// spread evenly over it and scaled up (default 5; `SAMPLES 0` measures every element).
/// As in Redis the options are checked before the key is looked up (a negative count or
/// an unknown option is a syntax error, the last `SAMPLES` wins), and the key is found
/// without lazy expiry, hit/miss counting or touching its access time. The numbers differ
/// from Redis's, whose come from its allocator. O(count).
fn memory_usage(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
    let key = args.next_owned()?;
    let mut samples = DEFAULT_SAMPLES;
    while !args.is_empty() {
        if args.eat("samples") && !args.is_empty() {
            let n = args.next_i64()?;
            if n < 0 {
                return Err(Error::Syntax);
            }
            samples = if n == 0 {
                usize::MAX
            } else {
                usize::try_from(n).unwrap_or(usize::MAX)
            };
        } else {
            return Err(Error::Syntax);
        }
    }
    let db = ctx.client.db;
    Ok(match ctx.srv.dbs[db].get_raw(&key) {
        Some(e) => {
            let bytes = memory_usage_bytes(&key, e, samples);
            Reply::Integer(i64::try_from(bytes).unwrap_or(i64::MAX))
        }
        None => Reply::Nil,
    })
}

/// MEMORY PURGE: Redis asks jemalloc to return dirty pages; the engine's memory is its
/// host's to manage, so there is nothing to do. Replies OK.
fn memory_purge(_ctx: &mut Ctx<'_>, _args: &mut Args) -> CmdResult {
    Ok(Reply::ok())
}

/// MEMORY DOCTOR: Redis's `getMemoryDoctorReport` on the memory figures `INFO memory`
/// gives. Under 5 MB it declines, as Redis does; above, Redis looks for a high peak,
/// fragmentation and big client or replication buffers — none of which the engine's
/// estimate has (its peak is its current use, its RSS its use) — so it finds no issue.
fn memory_doctor(ctx: &mut Ctx<'_>, _args: &mut Args) -> CmdResult {
    let text = if used_memory(ctx.srv) < 5 * 1024 * 1024 {
        "Hi Sam, this instance is empty or is using very little memory, my issues detector \
         can't be used in these conditions. Please, leave for your mission on Earth and fill \
         it with some data. The new Sam and I will be back to our programming as soon as I \
         finished rebooting.\n"
    } else {
        "Hi Sam, I can't find any memory issue in your instance. I can only account for what \
         occurs on this base.\n"
    };
    Ok(Reply::Verbatim("txt", text.as_bytes().to_vec()))
}

/// MEMORY HELP: Redis's subcommand list, word for word (MALLOC-STATS and STATS are listed
/// there but not implemented here).
fn memory_help(_ctx: &mut Ctx<'_>, _args: &mut Args) -> CmdResult {
    Ok(help_reply(
        "MEMORY",
        &[
            "DOCTOR",
            "    Return memory problems reports.",
            "MALLOC-STATS",
            "    Return internal statistics report from the memory allocator.",
            "PURGE",
            "    Attempt to purge dirty pages for reclamation by the allocator.",
            "STATS",
            "    Return information about the memory usage of the server.",
            "USAGE <key> [SAMPLES <count>]",
            "    Return memory in bytes used by <key> and its value. Nested values are",
            "    sampled up to <count> times (default: 5, 0 means sample all).",
        ],
    ))
}

/// The title and fields of one INFO section.
fn info_section(ctx: &Ctx<'_>, section: &str) -> (&'static str, Vec<(String, String)>) {
    let srv: &Server = ctx.srv;
    let now = ctx.now_ms;
    let cfg = &srv.config;
    let f = |k: &str, v: String| (k.to_string(), v);
    match section {
        "server" => {
            let uptime = (now - srv.stats.start_ms).max(0) / 1000;
            (
                "Server",
                vec![
                    f("redis_version", "7.0.15".into()),
                    f("redis_git_sha1", "00000000".into()),
                    f("redis_git_dirty", "0".into()),
                    f("redis_build_id", "0".into()),
                    f("redis_mode", "standalone".into()),
                    f(
                        "os",
                        format!("{} {}", std::env::consts::OS, std::env::consts::ARCH),
                    ),
                    f("arch_bits", usize::BITS.to_string()),
                    f("monotonic_clock", "injected".into()),
                    f("multiplexing_api", "kvlab".into()),
                    f("atomicvar_api", "none".into()),
                    f("gcc_version", "0.0.0".into()),
                    f("process_id", process_id().to_string()),
                    f("process_supervised", "no".into()),
                    f("run_id", srv.run_id.clone()),
                    f("tcp_port", cfg.int("port").to_string()),
                    f("server_time_usec", (now.saturating_mul(1000)).to_string()),
                    f("uptime_in_seconds", uptime.to_string()),
                    f("uptime_in_days", (uptime / 86400).to_string()),
                    f("hz", cfg.hz().to_string()),
                    f("configured_hz", cfg.hz().to_string()),
                    f("lru_clock", ((now / 1000) & ((1 << 24) - 1)).to_string()),
                    f("executable", String::new()),
                    f("config_file", String::new()),
                    f("io_threads_active", "0".into()),
                ],
            )
        }
        "clients" => (
            "Clients",
            vec![
                f("connected_clients", (ctx.others.len() + 1).to_string()),
                f("cluster_connections", "0".into()),
                f("maxclients", cfg.maxclients().to_string()),
                f("client_recent_max_input_buffer", "0".into()),
                f("client_recent_max_output_buffer", "0".into()),
                f("blocked_clients", srv.blocking.count().to_string()),
                f("tracking_clients", "0".into()),
                f(
                    "clients_in_timeout_table",
                    srv.blocking.with_timeout().to_string(),
                ),
            ],
        ),
        "memory" => {
            let used = used_memory(srv);
            let dataset = used - STARTUP_BYTES;
            let maxmemory = cfg.maxmemory();
            let pct = |part: u64, whole: u64| {
                if whole == 0 {
                    "0.00%".to_string()
                } else {
                    format!("{:.2}%", part as f64 * 100.0 / whole as f64)
                }
            };
            (
                "Memory",
                vec![
                    f("used_memory", used.to_string()),
                    f("used_memory_human", bytes_to_human(used)),
                    f("used_memory_rss", used.to_string()),
                    f("used_memory_rss_human", bytes_to_human(used)),
                    f("used_memory_peak", used.to_string()),
                    f("used_memory_peak_human", bytes_to_human(used)),
                    f("used_memory_peak_perc", "100.00%".into()),
                    f("used_memory_overhead", STARTUP_BYTES.to_string()),
                    f("used_memory_startup", STARTUP_BYTES.to_string()),
                    f("used_memory_dataset", dataset.to_string()),
                    f(
                        "used_memory_dataset_perc",
                        pct(dataset, used - STARTUP_BYTES),
                    ),
                    f("allocator_allocated", used.to_string()),
                    f("allocator_active", used.to_string()),
                    f("allocator_resident", used.to_string()),
                    f("total_system_memory", "0".into()),
                    f("total_system_memory_human", "0B".into()),
                    f("used_memory_lua", "32768".into()),
                    f("used_memory_vm_eval", "32768".into()),
                    f("used_memory_lua_human", "32.00K".into()),
                    f("used_memory_scripts_eval", "0".into()),
                    f("number_of_cached_scripts", "0".into()),
                    f("number_of_functions", "0".into()),
                    f("number_of_libraries", "0".into()),
                    f("used_memory_vm_functions", "32768".into()),
                    f("used_memory_vm_total", "65536".into()),
                    f("used_memory_vm_total_human", "64.00K".into()),
                    f("used_memory_functions", "0".into()),
                    f("used_memory_scripts", "0".into()),
                    f("used_memory_scripts_human", "0B".into()),
                    f("maxmemory", maxmemory.to_string()),
                    f("maxmemory_human", bytes_to_human(maxmemory)),
                    f("maxmemory_policy", cfg.maxmemory_policy().to_string()),
                    f("allocator_frag_ratio", "1.00".into()),
                    f("allocator_frag_bytes", "0".into()),
                    f("allocator_rss_ratio", "1.00".into()),
                    f("allocator_rss_bytes", "0".into()),
                    f("rss_overhead_ratio", "1.00".into()),
                    f("rss_overhead_bytes", "0".into()),
                    f("mem_fragmentation_ratio", "1.00".into()),
                    f("mem_fragmentation_bytes", "0".into()),
                    f("mem_not_counted_for_evict", "0".into()),
                    f("mem_replication_backlog", "0".into()),
                    f("mem_total_replication_buffers", "0".into()),
                    f("mem_clients_slaves", "0".into()),
                    f("mem_clients_normal", "0".into()),
                    f("mem_cluster_links", "0".into()),
                    f("mem_aof_buffer", "0".into()),
                    f("mem_allocator", "libc".into()),
                    f("active_defrag_running", "0".into()),
                    f("lazyfree_pending_objects", "0".into()),
                    f("lazyfreed_objects", "0".into()),
                ],
            )
        }
        "persistence" => (
            "Persistence",
            vec![
                f("loading", "0".into()),
                f("async_loading", "0".into()),
                f("current_cow_peak", "0".into()),
                f("current_cow_size", "0".into()),
                f("current_cow_size_age", "0".into()),
                f("current_fork_perc", "0.00".into()),
                f("current_save_keys_processed", "0".into()),
                f("current_save_keys_total", "0".into()),
                f("rdb_changes_since_last_save", srv.dirty.to_string()),
                f("rdb_bgsave_in_progress", "0".into()),
                f(
                    "rdb_last_save_time",
                    srv.stats.start_ms.div_euclid(1000).to_string(),
                ),
                f("rdb_last_bgsave_status", "ok".into()),
                f("rdb_last_bgsave_time_sec", "-1".into()),
                f("rdb_current_bgsave_time_sec", "-1".into()),
                f("rdb_saves", "0".into()),
                f("rdb_last_cow_size", "0".into()),
                f("rdb_last_load_keys_expired", "0".into()),
                f("rdb_last_load_keys_loaded", "0".into()),
                f("aof_enabled", u8::from(cfg.flag("appendonly")).to_string()),
                f("aof_rewrite_in_progress", "0".into()),
                f("aof_rewrite_scheduled", "0".into()),
                f("aof_last_rewrite_time_sec", "-1".into()),
                f("aof_current_rewrite_time_sec", "-1".into()),
                f("aof_last_bgrewrite_status", "ok".into()),
                f("aof_rewrites", "0".into()),
                f("aof_rewrites_consecutive_failures", "0".into()),
                f("aof_last_write_status", "ok".into()),
                f("aof_last_cow_size", "0".into()),
                f("module_fork_in_progress", "0".into()),
                f("module_fork_last_cow_size", "0".into()),
            ],
        ),
        "stats" => {
            let s = &srv.stats;
            let zero = |k: &str| f(k, "0".into());
            let mut v = vec![
                f("total_connections_received", s.connections.to_string()),
                f("total_commands_processed", s.commands.to_string()),
                zero("instantaneous_ops_per_sec"),
                zero("total_net_input_bytes"),
                zero("total_net_output_bytes"),
                zero("total_net_repl_input_bytes"),
                zero("total_net_repl_output_bytes"),
                f("instantaneous_input_kbps", "0.00".into()),
                f("instantaneous_output_kbps", "0.00".into()),
                f("instantaneous_input_repl_kbps", "0.00".into()),
                f("instantaneous_output_repl_kbps", "0.00".into()),
                zero("rejected_connections"),
                zero("sync_full"),
                zero("sync_partial_ok"),
                zero("sync_partial_err"),
                f("expired_keys", s.expired_keys.to_string()),
                f("expired_stale_perc", "0.00".into()),
                zero("expired_time_cap_reached_count"),
                zero("expire_cycle_cpu_milliseconds"),
                f("evicted_keys", s.evicted_keys.to_string()),
                zero("evicted_clients"),
                zero("total_eviction_exceeded_time"),
                zero("current_eviction_exceeded_time"),
                f("keyspace_hits", s.keyspace_hits.to_string()),
                f("keyspace_misses", s.keyspace_misses.to_string()),
                f(
                    "pubsub_channels",
                    srv.pubsub.channel_count(Kind::Channel).to_string(),
                ),
                f("pubsub_patterns", srv.pubsub.numpat().to_string()),
                f(
                    "pubsubshard_channels",
                    srv.pubsub.channel_count(Kind::Shard).to_string(),
                ),
            ];
            for k in [
                "latest_fork_usec",
                "total_forks",
                "migrate_cached_sockets",
                "slave_expires_tracked_keys",
                "active_defrag_hits",
                "active_defrag_misses",
                "active_defrag_key_hits",
                "active_defrag_key_misses",
                "total_active_defrag_time",
                "current_active_defrag_time",
                "tracking_total_keys",
                "tracking_total_items",
                "tracking_total_prefixes",
                "unexpected_error_replies",
                "total_error_replies",
                "dump_payload_sanitizations",
                "total_reads_processed",
                "total_writes_processed",
                "io_threaded_reads_processed",
                "io_threaded_writes_processed",
                "reply_buffer_shrinks",
                "reply_buffer_expands",
            ] {
                v.push(zero(k));
            }
            ("Stats", v)
        }
        "replication" => (
            "Replication",
            vec![
                f("role", "master".into()),
                f("connected_slaves", "0".into()),
                f("master_failover_state", "no-failover".into()),
                f("master_replid", srv.run_id.chars().rev().collect()),
                f("master_replid2", "0".repeat(40)),
                f("master_repl_offset", "0".into()),
                f("second_repl_offset", "-1".into()),
                f("repl_backlog_active", "0".into()),
                f(
                    "repl_backlog_size",
                    cfg.int("repl-backlog-size").to_string(),
                ),
                f("repl_backlog_first_byte_offset", "0".into()),
                f("repl_backlog_histlen", "0".into()),
            ],
        ),
        "cpu" => (
            "CPU",
            [
                "used_cpu_sys",
                "used_cpu_user",
                "used_cpu_sys_children",
                "used_cpu_user_children",
                "used_cpu_sys_main_thread",
                "used_cpu_user_main_thread",
            ]
            .iter()
            .map(|k| f(k, "0.000000".into()))
            .collect(),
        ),
        "modules" => ("Modules", Vec::new()),
        "commandstats" => (
            "Commandstats",
            srv.stats
                .per_command
                .iter()
                .map(|(&(name, sub), s)| {
                    let name = if sub.is_empty() {
                        name.to_string()
                    } else {
                        format!("{name}|{sub}")
                    };
                    (
                        format!("cmdstat_{name}"),
                        format!(
                            "calls={},usec={},usec_per_call={:.2},rejected_calls={},failed_calls={}",
                            s.calls,
                            s.usec,
                            if s.calls == 0 { 0.0 } else { s.usec as f64 / s.calls as f64 },
                            s.rejected,
                            s.failed
                        ),
                    )
                })
                .collect(),
        ),
        "errorstats" => ("Errorstats", Vec::new()),
        "latencystats" => ("Latencystats", Vec::new()),
        "cluster" => (
            "Cluster",
            vec![f(
                "cluster_enabled",
                u8::from(srv.config.cluster_enabled()).to_string(),
            )],
        ),
        _ => (
            "Keyspace",
            srv.dbs
                .iter()
                .enumerate()
                .filter(|(_, db)| !db.is_empty())
                .map(|(i, db)| {
                    (
                        format!("db{i}"),
                        format!(
                            "keys={},expires={},avg_ttl={}",
                            db.len(),
                            db.volatile_len(),
                            db.avg_ttl
                        ),
                    )
                })
                .collect(),
        ),
    }
}

#[cfg(not(target_arch = "wasm32"))]
fn process_id() -> u32 {
    std::process::id()
}

#[cfg(target_arch = "wasm32")]
fn process_id() -> u32 {
    0
}

#[cfg(test)]
mod tests {
    use super::bytes_to_human;
    use crate::engine::{Engine, ManualClock, Reply};

    fn run(e: &mut Engine, id: u64, line: &str) -> Reply {
        let argv = crate::engine::cli::split_args(line).unwrap();
        e.execute(id, argv)
    }

    fn info_text(e: &mut Engine, id: u64, line: &str) -> String {
        match run(e, id, line) {
            Reply::Verbatim("txt", t) => String::from_utf8(t).unwrap(),
            other => panic!("not verbatim: {other:?}"),
        }
    }

    /// A clock standing still whose monotonic reading advances 5 µs at every read, so
    /// every command takes 5 µs.
    struct Ticking(std::cell::Cell<i64>);

    impl crate::engine::Clock for Ticking {
        fn now_us(&self) -> i64 {
            1_700_000_000_250_000
        }

        fn monotonic_us(&self) -> i64 {
            self.0.set(self.0.get() + 5);
            self.0.get()
        }
    }

    /// The slow log and commandstats time commands on the monotonic clock; entries are
    /// newest first, EXEC is left out (its commands are logged), secrets are redacted,
    /// the client name is the one after the command, RESET is logged into the emptied log.
    #[test]
    fn slowlog_records_commands_over_the_threshold() {
        let mut e = Engine::new(Box::new(Ticking(std::cell::Cell::new(0))), 1);
        let a = e.connect();
        for line in [
            "CONFIG SET slowlog-log-slower-than 0",
            "SET k v",
            "MULTI",
            "SET a 1",
            "EXEC",
            "AUTH default pw",
            "CLIENT SETNAME nm",
        ] {
            run(&mut e, a, line);
        }
        let entry = |id: i64, argv: &[&str], name: &str| {
            Reply::Array(vec![
                Reply::Integer(id),
                Reply::Integer(1_700_000_000),
                Reply::Integer(5),
                Reply::Array(argv.iter().map(|w| Reply::bulk(w.as_bytes())).collect()),
                Reply::bulk(b"127.0.0.1:0"),
                Reply::bulk(name.as_bytes()),
            ])
        };
        assert_eq!(
            run(&mut e, a, "SLOWLOG GET 4"),
            Reply::Array(vec![
                entry(5, &["CLIENT", "SETNAME", "nm"], "nm"),
                entry(4, &["AUTH", "(redacted)", "(redacted)"], ""),
                entry(3, &["SET", "a", "1"], ""),
                entry(2, &["MULTI"], ""),
            ])
        );
        assert_eq!(run(&mut e, a, "SLOWLOG LEN"), Reply::Integer(7));
        assert_eq!(run(&mut e, a, "SLOWLOG RESET"), Reply::ok());
        assert_eq!(run(&mut e, a, "SLOWLOG LEN"), Reply::Integer(1));
        run(&mut e, a, "CONFIG SET slowlog-log-slower-than 6");
        run(&mut e, a, "SET k v");
        // The RESET and the LEN after it only: the threshold is read after each command
        // ran, so neither the CONFIG SET nor the SET made it.
        assert_eq!(run(&mut e, a, "SLOWLOG LEN"), Reply::Integer(2));
        assert!(info_text(&mut e, a, "INFO commandstats")
            .contains("cmdstat_set:calls=3,usec=15,usec_per_call=5.00,"));
        for bad in ["SLOWLOG GET x", "SLOWLOG GET -2"] {
            assert_eq!(
                run(&mut e, a, bad),
                Reply::Error("ERR count should be greater than or equal to -1".into())
            );
        }
        assert_eq!(
            run(&mut e, a, "SLOWLOG GET 1 2"),
            Reply::Error(
                "ERR unknown subcommand or wrong number of arguments for 'GET'. Try SLOWLOG HELP."
                    .into()
            )
        );
    }

    /// INFO commandstats: calls, failed calls (error replies) and rejected calls (arity)
    /// per command, subcommands as `config|get`; a BRPOP served at once
    /// counts as BRPOP only; an unknown subcommand counts nowhere; RESETSTAT clears.
    #[test]
    fn commandstats_count_calls_failures_and_rejections() {
        let mut e = Engine::new(Box::new(ManualClock::at_ms(0)), 1);
        let a = e.connect();
        for line in [
            "GET",
            "GET a",
            "LPUSH a",
            "SET a b",
            "LPUSH a b",
            "CONFIG GET maxmemory",
            "CONFIG GET",
            "CONFIG NOSUCH",
            "RPUSH l x",
            "BRPOP l 0",
            "MULTI",
            "WATCH x",
            "DISCARD",
        ] {
            run(&mut e, a, line);
        }
        let text = info_text(&mut e, a, "INFO commandstats");
        let line = |name: &str, calls: u64, rejected: u64, failed: u64| {
            format!(
                "cmdstat_{name}:calls={calls},usec=0,usec_per_call=0.00,rejected_calls={rejected},failed_calls={failed}\r\n"
            )
        };
        let want = [
            line("brpop", 1, 0, 0),
            line("config|get", 1, 1, 0),
            line("discard", 1, 0, 0),
            line("get", 1, 1, 0),
            line("lpush", 1, 1, 1),
            line("multi", 1, 0, 0),
            line("rpush", 1, 0, 0),
            line("set", 1, 0, 0),
            // WATCH refuses itself inside MULTI: a failed call, not a rejected one.
            line("watch", 1, 0, 1),
        ]
        .concat();
        assert_eq!(text, format!("# Commandstats\r\n{want}"));
        run(&mut e, a, "CONFIG RESETSTAT");
        let text = info_text(&mut e, a, "INFO commandstats");
        assert_eq!(
            text,
            format!("# Commandstats\r\n{}", line("config|resetstat", 1, 0, 0))
        );
    }

    /// The key browser's figures are the console's: `inspect::footprint` gives what
    /// `MEMORY USAGE` and the type's length command reply, sampled collections included.
    #[test]
    fn footprint_matches_memory_usage_and_the_length_commands() {
        let mut e = Engine::new(Box::new(ManualClock::at_ms(0)), 1);
        let a = e.connect();
        let long: Vec<String> = (0..100)
            .map(|i| format!("element-{i:0>width$}", width = i % 7))
            .collect();
        run(&mut e, a, &format!("RPUSH long {}", long.join(" ")));
        for (setup, key, len) in [
            ("SET s hello", "s", "STRLEN s"),
            ("RPUSH l a b c", "l", "LLEN l"),
            ("SADD st a b", "st", "SCARD st"),
            ("ZADD z 1 a", "z", "ZCARD z"),
            ("HSET h f v g w", "h", "HLEN h"),
            ("XADD x 1-1 f v", "x", "XLEN x"),
            ("PFADD p a b", "p", "STRLEN p"),
            ("PING", "long", "LLEN long"),
        ] {
            run(&mut e, a, setup);
            let fp =
                crate::engine::inspect::footprint(&e.server().dbs[0], key.as_bytes()).expect(key);
            let usage = run(&mut e, a, &format!("MEMORY USAGE {key}"));
            assert_eq!(usage, Reply::Integer(fp.memory as i64), "{key}");
            assert_eq!(run(&mut e, a, len), Reply::Integer(fp.len as i64), "{key}");
        }
    }

    /// A key the server removes is recorded as dropped, with its keyspace event, next to
    /// the `DEL` it replays as; a `DEL` the client sends is not.
    #[test]
    fn expired_keys_are_reported_as_dropped() {
        let clock = ManualClock::at_ms(1_000_000);
        let mut e = Engine::new(Box::new(clock.clone()), 1);
        let a = e.connect();
        run(&mut e, a, "SET gone x PX 100");
        run(&mut e, a, "SET mine y");
        e.take_effects();
        clock.advance_ms(200);
        run(&mut e, a, "GET gone");
        run(&mut e, a, "DEL mine");
        assert_eq!(e.take_dropped(), vec![(0, b"gone".to_vec(), "expired")]);
        assert_eq!(e.take_effects().len(), 2);
        assert!(e.take_dropped().is_empty());
    }

    /// MEMORY USAGE grows with the value, and SAMPLES 0 measures every element.
    #[test]
    fn memory_usage_estimates_grow_with_the_value() {
        let mut e = Engine::new(Box::new(ManualClock::at_ms(0)), 1);
        let a = e.connect();
        let usage = |e: &mut Engine, line: &str| match run(e, a, line) {
            Reply::Integer(n) => n,
            other => panic!("{line}: {other:?}"),
        };
        run(&mut e, a, "SET s x");
        let small = usage(&mut e, "MEMORY USAGE s");
        assert!(small > 0);
        run(&mut e, a, "APPEND s 0123456789");
        assert_eq!(usage(&mut e, "MEMORY USAGE s"), small + 10);
        for i in 0..100 {
            run(
                &mut e,
                a,
                &format!(
                    "RPUSH l {}",
                    if i == 99 {
                        "x".repeat(1000)
                    } else {
                        "y".into()
                    }
                ),
            );
        }
        let all = usage(&mut e, "MEMORY USAGE l SAMPLES 0");
        assert!(all > 1000, "{all}");
        assert!(usage(&mut e, "MEMORY USAGE l SAMPLES 1") < all);
    }

    /// INFO keyspace's avg_ttl is Redis's running estimate from the active expiry cycle:
    /// 0 before a cycle, then about the TTL left, and 0 again once no key has a TTL.
    #[test]
    fn avg_ttl_is_estimated_by_the_expiry_cycle() {
        let clock = ManualClock::at_ms(1_700_000_000_000);
        let mut e = Engine::new(Box::new(clock.clone()), 1);
        let c = e.connect();
        for i in 0..10 {
            run(&mut e, c, &format!("SET k{i} v EX 100"));
        }
        run(&mut e, c, "SET p v");
        let keyspace = |e: &mut Engine| {
            let text = info_text(e, c, "INFO keyspace");
            text.lines().last().unwrap_or_default().to_string()
        };
        assert_eq!(keyspace(&mut e), "db0:keys=11,expires=10,avg_ttl=0");
        clock.advance_ms(40_000);
        e.tick();
        // All ten keys have 60 s left; the first estimate is that average, then blended
        // as Redis blends it ((avg / 50) * 49 + avg / 50, in whole milliseconds).
        let avg = 60_000i64;
        let want = (avg / 50) * 49 + avg / 50;
        assert_eq!(
            keyspace(&mut e),
            format!("db0:keys=11,expires=10,avg_ttl={want}")
        );
        run(&mut e, c, "PERSIST k0");
        for i in 1..10 {
            run(&mut e, c, &format!("DEL k{i}"));
        }
        e.tick();
        assert_eq!(keyspace(&mut e), "db0:keys=2,expires=0,avg_ttl=0");
    }

    #[test]
    fn human_sizes_match_redis() {
        assert_eq!(bytes_to_human(1023), "1023B");
        assert_eq!(bytes_to_human(1024), "1.00K");
        assert_eq!(bytes_to_human(1_288_464), "1.23M");
        assert_eq!(bytes_to_human(25_276_063_744), "23.54G");
        assert_eq!(bytes_to_human(0), "0B");
    }

    #[test]
    fn info_has_redis_layout() {
        let mut e = Engine::new(Box::new(ManualClock::at_ms(1_704_067_200_000)), 1);
        let a = e.connect();
        run(&mut e, a, "SET k v");
        let text = info_text(&mut e, a, "INFO");
        assert!(text.starts_with("# Server\r\nredis_version:7.0.15\r\n"));
        let titles: Vec<&str> = text.split("\r\n").filter(|l| l.starts_with('#')).collect();
        assert_eq!(
            titles,
            [
                "# Server",
                "# Clients",
                "# Memory",
                "# Persistence",
                "# Stats",
                "# Replication",
                "# CPU",
                "# Modules",
                "# Errorstats",
                "# Cluster",
                "# Keyspace"
            ]
        );
        // Sections are separated by one blank line; the text ends with the last field.
        assert!(text.contains("io_threads_active:0\r\n\r\n# Clients\r\n"));
        assert!(text.ends_with("# Keyspace\r\ndb0:keys=1,expires=0,avg_ttl=0\r\n"));
        for line in text.split("\r\n") {
            assert!(
                line.is_empty() || line.starts_with("# ") || line.contains(':'),
                "{line:?}"
            );
        }
    }

    #[test]
    fn info_sections_select_and_order() {
        let mut e = Engine::new(Box::new(ManualClock::at_ms(0)), 1);
        let a = e.connect();
        assert_eq!(
            info_text(&mut e, a, "INFO keyspace"),
            "# Keyspace\r\n".to_string()
        );
        let t = info_text(&mut e, a, "INFO KEYSPACE server");
        assert!(t.starts_with("# Server\r\n"));
        assert!(t.ends_with("\r\n\r\n# Keyspace\r\n"));
        assert_eq!(info_text(&mut e, a, "INFO nosuch"), "");
        let all = info_text(&mut e, a, "INFO all");
        assert!(all.contains("# Commandstats\r\n"));
        assert!(all.contains("# Latencystats\r\n"));
        let t = info_text(&mut e, a, "INFO replication");
        assert!(t.contains("\r\nrole:master\r\n"));
        let t = info_text(&mut e, a, "INFO clients");
        assert!(t.contains("\r\nconnected_clients:1\r\n"));
    }

    #[test]
    fn info_memory_grows_with_data() {
        let mut e = Engine::new(Box::new(ManualClock::at_ms(0)), 1);
        let a = e.connect();
        let used = |e: &mut Engine| -> u64 {
            let t = info_text(e, a, "INFO memory");
            t.split("\r\n")
                .find_map(|l| l.strip_prefix("used_memory:"))
                .unwrap()
                .parse()
                .unwrap()
        };
        let before = used(&mut e);
        for i in 0..200 {
            run(&mut e, a, &format!("SET key:{i} {}", "x".repeat(100)));
        }
        let after = used(&mut e);
        assert!(after > before + 200 * 100, "{before} -> {after}");
    }

    #[test]
    fn time_reads_the_injected_clock() {
        let mut e = Engine::new(Box::new(ManualClock::at_ms(1_704_067_200_123)), 1);
        let a = e.connect();
        assert_eq!(
            run(&mut e, a, "TIME"),
            Reply::Array(vec![Reply::bulk(b"1704067200"), Reply::bulk(b"123000")])
        );
    }

    #[test]
    fn config_set_is_all_or_nothing() {
        let mut e = Engine::new(Box::new(ManualClock::at_ms(0)), 1);
        let a = e.connect();
        let r = run(&mut e, a, "CONFIG SET maxmemory 1mb hz nope");
        assert!(r.is_error());
        assert_eq!(e.server().config.maxmemory(), 0);
        assert_eq!(
            run(&mut e, a, "CONFIG SET maxmemory 1mb hz 20"),
            Reply::ok()
        );
        assert_eq!(e.server().config.maxmemory(), 1 << 20);
        assert_eq!(e.server().config.hz(), 20);
    }

    #[test]
    fn config_get_patterns_list_each_name_once() {
        let mut e = Engine::new(Box::new(ManualClock::at_ms(0)), 1);
        let a = e.connect();
        let Reply::Map(pairs) = run(&mut e, a, "CONFIG GET hash-max-* HASH-MAX-LISTPACK-ENTRIES")
        else {
            panic!("not a map")
        };
        let names: Vec<Reply> = pairs.into_iter().map(|(k, _)| k).collect();
        assert_eq!(
            names,
            [
                Reply::bulk(b"hash-max-listpack-entries"),
                Reply::bulk(b"hash-max-ziplist-entries"),
                Reply::bulk(b"hash-max-listpack-value"),
                Reply::bulk(b"hash-max-ziplist-value"),
            ]
        );
        let Reply::Map(all) = run(&mut e, a, "CONFIG GET *") else {
            panic!("not a map")
        };
        // Redis 7.0 without TLS: 163 names and aliases, minus the 5 hidden ones.
        assert!(all.len() > 150, "{}", all.len());
        assert!(!all
            .iter()
            .any(|(k, _)| *k == Reply::bulk(b"rdb-key-save-delay")));
    }
}
