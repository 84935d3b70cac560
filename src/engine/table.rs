//! The command table: the single source of truth for every command.
//!
//! Each command group (`cmd/string.rs`, `cmd/hash.rs`, …) declares a `COMMANDS` slice of
//! [`Command`] values: name, arity in Redis's ±N convention (N = exactly N arguments
//! counting the name, -N = at least N), flags, group, key positions, syntax, summary,
//! complexity, the version that introduced it, and the handler. Container commands
//! (`CONFIG`, `CLIENT`, `OBJECT`, `COMMAND`) list their subcommands the same way.
//!
//! Everything that needs to know about commands reads this table: dispatch and the central
//! arity check in [`crate::engine::Engine::execute`], `COMMAND INFO/DOCS/LIST/COUNT`, and the
//! console's hints and `HELP`.

use foldhash::HashMap;
use std::sync::OnceLock;

use bitflags::bitflags;

use super::args::Args;
use super::error::CmdResult;
use super::Ctx;

/// A command handler: reads its arguments from the cursor (positioned after the name, or
/// after the subcommand), acts on the context and returns the reply.
pub type Handler = fn(&mut Ctx<'_>, &mut Args) -> CmdResult;

bitflags! {
    /// Command flags, as Redis's `COMMAND INFO` names them.
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    pub struct Flags: u32 {
        /// May modify the keyspace.
        const WRITE = 1 << 0;
        /// Only reads.
        const READONLY = 1 << 1;
        /// May grow memory use.
        const DENYOOM = 1 << 2;
        /// Administrative.
        const ADMIN = 1 << 3;
        /// Pub/sub related.
        const PUBSUB = 1 << 4;
        /// Not allowed from scripts.
        const NOSCRIPT = 1 << 5;
        /// May block the client.
        const BLOCKING = 1 << 6;
        /// Allowed while loading.
        const LOADING = 1 << 7;
        /// Allowed on a stale replica.
        const STALE = 1 << 8;
        /// Not shown in MONITOR.
        const SKIP_MONITOR = 1 << 9;
        /// Not logged in the slow log.
        const SKIP_SLOWLOG = 1 << 10;
        /// O(1) or O(log N).
        const FAST = 1 << 11;
        /// Allowed before authentication.
        const NO_AUTH = 1 << 12;
        /// May replicate even though it is not a write.
        const MAY_REPLICATE = 1 << 13;
        /// Refused inside MULTI.
        const NO_MULTI = 1 << 14;
        /// Allowed while a script is busy.
        const ALLOW_BUSY = 1 << 15;
        /// Key positions can't be found from first/last/step alone.
        const MOVABLE_KEYS = 1 << 16;
        /// The key arguments are optional (`COMMAND GETKEYS` may return none).
        const NO_MANDATORY_KEYS = 1 << 17;
        /// Refused while a replica loads its dataset asynchronously.
        const NO_ASYNC_LOADING = 1 << 18;
    }
}

impl Flags {
    /// The flag names `COMMAND INFO` replies with, in Redis's order (`addReplyFlagsForCommand`).
    /// `may_replicate` is kept but not shown, as Redis hides it.
    pub fn names(self) -> Vec<&'static str> {
        const NAMES: &[(Flags, &str)] = &[
            (Flags::WRITE, "write"),
            (Flags::READONLY, "readonly"),
            (Flags::DENYOOM, "denyoom"),
            (Flags::ADMIN, "admin"),
            (Flags::PUBSUB, "pubsub"),
            (Flags::NOSCRIPT, "noscript"),
            (Flags::BLOCKING, "blocking"),
            (Flags::LOADING, "loading"),
            (Flags::STALE, "stale"),
            (Flags::SKIP_MONITOR, "skip_monitor"),
            (Flags::SKIP_SLOWLOG, "skip_slowlog"),
            (Flags::FAST, "fast"),
            (Flags::NO_AUTH, "no_auth"),
            (Flags::NO_MANDATORY_KEYS, "no_mandatory_keys"),
            (Flags::NO_ASYNC_LOADING, "no_async_loading"),
            (Flags::NO_MULTI, "no_multi"),
            (Flags::MOVABLE_KEYS, "movablekeys"),
            (Flags::ALLOW_BUSY, "allow_busy"),
        ];
        NAMES
            .iter()
            .filter(|(f, _)| self.contains(*f))
            .map(|(_, n)| *n)
            .collect()
    }
}

/// The command groups of Redis's documentation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Group {
    /// Keys and expiry.
    Generic,
    /// Strings.
    String,
    /// Hashes.
    Hash,
    /// Lists.
    List,
    /// Sets.
    Set,
    /// Sorted sets.
    SortedSet,
    /// Connection management.
    Connection,
    /// Server management.
    Server,
    /// Pub/sub.
    Pubsub,
    /// Transactions.
    Transactions,
    /// Streams.
    Stream,
    /// Bitmaps.
    Bitmap,
    /// HyperLogLog.
    Hyperloglog,
    /// Geospatial indexes.
    Geo,
    /// Cluster.
    Cluster,
    /// Scripting and functions.
    Scripting,
}

impl Group {
    /// The name Redis's `COMMAND DOCS` uses.
    pub fn name(self) -> &'static str {
        match self {
            Group::Generic => "generic",
            Group::String => "string",
            Group::Hash => "hash",
            Group::List => "list",
            Group::Set => "set",
            Group::SortedSet => "sorted-set",
            Group::Connection => "connection",
            Group::Server => "server",
            Group::Pubsub => "pubsub",
            Group::Transactions => "transactions",
            Group::Stream => "stream",
            Group::Bitmap => "bitmap",
            Group::Hyperloglog => "hyperloglog",
            Group::Geo => "geo",
            Group::Cluster => "cluster",
            Group::Scripting => "scripting",
        }
    }

    /// Every group, in documentation order.
    pub const ALL: &'static [Group] = &[
        Group::Generic,
        Group::String,
        Group::List,
        Group::Set,
        Group::SortedSet,
        Group::Hash,
        Group::Pubsub,
        Group::Transactions,
        Group::Connection,
        Group::Server,
        Group::Scripting,
        Group::Hyperloglog,
        Group::Cluster,
        Group::Geo,
        Group::Stream,
        Group::Bitmap,
    ];
}

/// Where a command's keys are: positions `first..=last` stepping by `step` (a negative
/// `last` counts from the end: -1 = last argument). All zero for no keys.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KeySpec {
    /// Position of the first key (1 = first argument after the name).
    pub first: i32,
    /// Position of the last key; negative counts from the end.
    pub last: i32,
    /// Distance between keys.
    pub step: i32,
}

/// One entry of the command table.
#[derive(Debug, Clone, Copy)]
pub struct Command {
    /// Lowercase name (`get`, or `get` for `CONFIG GET` under its container).
    pub name: &'static str,
    /// Redis's arity: N = exactly N arguments including the name(s); -N = at least N.
    pub arity: i32,
    /// Flags.
    pub flags: Flags,
    /// Documentation group.
    pub group: Group,
    /// Key positions.
    pub keys: KeySpec,
    /// The arguments after the name, in Redis's documentation syntax.
    pub syntax: &'static str,
    /// One sentence on what it does, in our words.
    pub summary: &'static str,
    /// Time complexity.
    pub complexity: &'static str,
    /// The Redis version that introduced it.
    pub since: &'static str,
    /// The handler; `None` for a container whose subcommands do the work.
    pub handler: Option<Handler>,
    /// Subcommands of a container command.
    pub subcommands: &'static [Command],
    /// ACL categories beyond those derived from the flags and the group (see
    /// [`Command::acl_categories`]), without the `@`, e.g. `dangerous`.
    pub acl: &'static [&'static str],
    /// Hints for cluster clients (`COMMAND INFO` "tips"), e.g. `nondeterministic_output`.
    pub tips: &'static [&'static str],
    /// Key-spec flags (`COMMAND INFO`), e.g. `["RW", "access", "update"]`; when empty they
    /// are derived from the command flags (`RO access` for read-only, `RW update` for writes).
    pub key_flags: &'static [&'static str],
    /// Keys found by scanning the arguments, after those of [`Command::keys`]: Redis's
    /// keyword and `numkeys` key specs (see [`MovableKeys`]). Empty for most commands.
    pub movable: &'static [MovableKeys],
}

/// How a command's variable key positions are found, as Redis 7's key specs (`begin_search`
/// by keyword, `find_keys` by key count) and its `getkeys_proc` callbacks find them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MovableKeys {
    /// A key count at argument `at` followed by that many keys (`ZUNION 2 a b`,
    /// `BLMPOP 0 2 a b LEFT`). The count must be 1 or more and the keys must all be present.
    Numkeys {
        /// Position of the count (1 = first argument after the name).
        at: usize,
    },
    /// One key right after the first occurrence of `keyword` at or after position `from`
    /// (`GEORADIUS … STORE dest`); nothing when the keyword is absent.
    Keyword {
        /// The keyword, lowercase.
        keyword: &'static str,
        /// Where the search starts.
        from: usize,
    },
    /// `SORT`'s `STORE destination` (the last one counts), skipping the arguments of
    /// `LIMIT`, `GET` and `BY` as Redis's `sortGetKeys` does.
    SortStore,
    /// After `STREAMS`, the first half of the remaining arguments (`XREAD … STREAMS a b 0 0`).
    Streams,
}

impl MovableKeys {
    /// The key-spec flags of the keys this spec finds, when they differ from the command's
    /// (a `STORE` destination is overwritten: `OW update`).
    pub fn key_flags(&self) -> Option<&'static [&'static str]> {
        match self {
            MovableKeys::Keyword { .. } | MovableKeys::SortStore => Some(&["OW", "update"]),
            MovableKeys::Numkeys { .. } | MovableKeys::Streams => None,
        }
    }
}

/// `strcasecmp` as Redis's key finders use it: compares up to the argument's first NUL.
fn word_is(arg: &[u8], word: &str) -> bool {
    let end = arg.iter().position(|&b| b == 0).unwrap_or(arg.len());
    arg[..end].eq_ignore_ascii_case(word.as_bytes())
}

impl Command {
    /// A command with no flags, no keys and no documentation yet; fill in with the builder
    /// methods (all `const`, so tables are plain data).
    pub const fn new(name: &'static str, arity: i32, group: Group, handler: Handler) -> Command {
        Command {
            name,
            arity,
            flags: Flags::empty(),
            group,
            keys: KeySpec {
                first: 0,
                last: 0,
                step: 0,
            },
            syntax: "",
            summary: "",
            complexity: "",
            since: "1.0.0",
            handler: Some(handler),
            subcommands: &[],
            acl: &[],
            tips: &[],
            key_flags: &[],
            movable: &[],
        }
    }

    /// A container command (`CONFIG`, `CLIENT`, …) dispatching to `subcommands`.
    pub const fn container(
        name: &'static str,
        group: Group,
        subcommands: &'static [Command],
    ) -> Command {
        Command {
            name,
            arity: -2,
            flags: Flags::empty(),
            group,
            keys: KeySpec {
                first: 0,
                last: 0,
                step: 0,
            },
            syntax: "",
            summary: "",
            complexity: "Depends on subcommand.",
            since: "1.0.0",
            handler: None,
            subcommands,
            acl: &[],
            tips: &[],
            key_flags: &[],
            movable: &[],
        }
    }

    /// Gives a container a handler of its own for when it is called without a subcommand
    /// (`COMMAND` lists every command), with the arity that applies then.
    pub const fn bare(mut self, handler: Handler, arity: i32) -> Command {
        self.handler = Some(handler);
        self.arity = arity;
        self
    }

    /// Adds ACL categories that Redis gives this command explicitly (without the `@`).
    pub const fn acl(mut self, categories: &'static [&'static str]) -> Command {
        self.acl = categories;
        self
    }

    /// Sets the cluster-client tips shown by `COMMAND INFO`.
    pub const fn tips(mut self, tips: &'static [&'static str]) -> Command {
        self.tips = tips;
        self
    }

    /// Sets the key-spec flags shown by `COMMAND INFO` (see [`Command::key_flags`]).
    pub const fn key_flags(mut self, flags: &'static [&'static str]) -> Command {
        self.key_flags = flags;
        self
    }

    /// Sets the flags.
    pub const fn flags(mut self, flags: Flags) -> Command {
        self.flags = flags;
        self
    }

    /// Adds key positions found by scanning the arguments (see [`MovableKeys`]).
    pub const fn movable(mut self, specs: &'static [MovableKeys]) -> Command {
        self.movable = specs;
        self
    }

    /// Sets the key positions.
    pub const fn keys(mut self, first: i32, last: i32, step: i32) -> Command {
        self.keys = KeySpec { first, last, step };
        self
    }

    /// Sets the syntax, summary, complexity and since-version.
    pub const fn doc(
        mut self,
        syntax: &'static str,
        summary: &'static str,
        complexity: &'static str,
        since: &'static str,
    ) -> Command {
        self.syntax = syntax;
        self.summary = summary;
        self.complexity = complexity;
        self.since = since;
        self
    }

    /// True when `argc` arguments (including the name) satisfy the arity.
    pub fn arity_ok(&self, argc: usize) -> bool {
        let argc = argc as i64;
        let a = i64::from(self.arity);
        if a >= 0 {
            argc == a
        } else {
            argc >= -a
        }
    }

    /// Looks up a subcommand by name, ignoring case.
    pub fn subcommand(&self, name: &[u8]) -> Option<&'static Command> {
        self.subcommands
            .iter()
            .find(|c| c.name.as_bytes().eq_ignore_ascii_case(name))
    }

    /// The ACL categories (without `@`) in the order Redis lists them: those Redis derives
    /// from the flags (`setImplicitACLCategories`: write, read, admin + dangerous, pubsub,
    /// fast, blocking, and slow for anything not fast), the group's own category
    /// (`keyspace` for generic, `string`, `hash`, …; none for server and cluster), and the
    /// extra ones the row names with [`Command::acl`].
    pub fn acl_categories(&self) -> Vec<&'static str> {
        const ORDER: &[&str] = &[
            "keyspace",
            "read",
            "write",
            "set",
            "sortedset",
            "list",
            "hash",
            "string",
            "bitmap",
            "hyperloglog",
            "geo",
            "stream",
            "pubsub",
            "admin",
            "fast",
            "slow",
            "blocking",
            "dangerous",
            "connection",
            "transaction",
            "scripting",
        ];
        let mut have: Vec<&str> = self.acl.to_vec();
        let f = self.flags;
        if f.contains(Flags::WRITE) {
            have.push("write");
        }
        if f.contains(Flags::READONLY) && self.group != Group::Scripting {
            have.push("read");
        }
        if f.contains(Flags::ADMIN) {
            have.extend(["admin", "dangerous"]);
        }
        if f.contains(Flags::PUBSUB) {
            have.push("pubsub");
        }
        if f.contains(Flags::FAST) {
            have.push("fast");
        }
        if f.contains(Flags::BLOCKING) {
            have.push("blocking");
        }
        if !have.contains(&"fast") {
            have.push("slow");
        }
        // Containers carry no group category of their own (Redis's CLIENT, CONFIG).
        have.extend(match self.group {
            _ if !self.subcommands.is_empty() => None,
            Group::Generic => Some("keyspace"),
            Group::String => Some("string"),
            Group::Hash => Some("hash"),
            Group::List => Some("list"),
            Group::Set => Some("set"),
            Group::SortedSet => Some("sortedset"),
            Group::Connection => Some("connection"),
            Group::Pubsub => Some("pubsub"),
            Group::Transactions => Some("transaction"),
            Group::Stream => Some("stream"),
            Group::Bitmap => Some("bitmap"),
            Group::Hyperloglog => Some("hyperloglog"),
            Group::Geo => Some("geo"),
            Group::Scripting => Some("scripting"),
            Group::Server | Group::Cluster => None,
        });
        ORDER.iter().copied().filter(|c| have.contains(c)).collect()
    }

    /// The positions of every key in `argv` (the command line from its name on), as `COMMAND
    /// GETKEYS` reports them: the fixed positions, then the movable ones in the order of
    /// [`Command::movable`]. `None` when a key count is not a count of keys that are there
    /// (Redis: "Invalid arguments specified for command"). O(number of arguments).
    pub fn key_indexes(&self, argv: &[Vec<u8>]) -> Option<Vec<usize>> {
        Some(
            self.key_indexes_by_spec(argv)?
                .into_iter()
                .map(|(i, _)| i)
                .collect(),
        )
    }

    /// [`Command::key_indexes`], each key with the movable spec that found it (`None` for
    /// the fixed positions), for `COMMAND GETKEYSANDFLAGS`.
    pub fn key_indexes_by_spec(
        &self,
        argv: &[Vec<u8>],
    ) -> Option<Vec<(usize, Option<&'static MovableKeys>)>> {
        let argc = argv.len();
        let mut out: Vec<(usize, Option<&'static MovableKeys>)> = self
            .key_positions(argc)
            .into_iter()
            .map(|i| (i, None))
            .collect();
        for spec in self.movable {
            let found = Some(spec);
            match *spec {
                MovableKeys::Numkeys { at } => {
                    let n = argv.get(at).map(|a| numkeys(a))?;
                    if n < 1 || n > argc.saturating_sub(at + 1) as i64 {
                        return None;
                    }
                    out.extend(((at + 1)..(at + 1 + n as usize)).map(|i| (i, found)));
                }
                MovableKeys::Keyword { keyword, from } => {
                    let hit = (from..argc.saturating_sub(1)).find(|&i| word_is(&argv[i], keyword));
                    out.extend(hit.map(|i| (i + 1, found)));
                }
                MovableKeys::SortStore => {
                    let mut store = None;
                    let mut i = 2;
                    while i < argc {
                        let a = &argv[i];
                        if word_is(a, "limit") {
                            i += 2;
                        } else if word_is(a, "get") || word_is(a, "by") {
                            i += 1;
                        } else if word_is(a, "store") && i + 1 < argc {
                            store = Some(i + 1);
                        }
                        i += 1;
                    }
                    out.extend(store.map(|i| (i, found)));
                }
                MovableKeys::Streams => {
                    let at = (1..argc).find(|&i| word_is(&argv[i], "streams"))?;
                    let n = (argc - at - 1) / 2;
                    if n == 0 {
                        return None;
                    }
                    out.extend(((at + 1)..(at + 1 + n)).map(|i| (i, found)));
                }
            }
        }
        Some(out)
    }

    /// The positions of the key arguments in an argument vector of length `argc`.
    pub fn key_positions(&self, argc: usize) -> Vec<usize> {
        let KeySpec { first, last, step } = self.keys;
        if first <= 0 || step <= 0 {
            return Vec::new();
        }
        let last = if last < 0 {
            argc as i64 + i64::from(last)
        } else {
            i64::from(last)
        };
        let mut out = Vec::new();
        let mut i = i64::from(first);
        while i <= last && (i as usize) < argc {
            out.push(i as usize);
            i += i64::from(step);
        }
        out
    }
}

/// A key count as Redis reads it: a strict integer, or failing that what C's `atoi` makes
/// of the text (Redis falls back to its `getkeys_proc`, which uses `atoi`: `2x` is 2).
fn numkeys(arg: &[u8]) -> i64 {
    if let Some(n) = super::args::parse_i64(arg) {
        return n;
    }
    let text = arg.trim_ascii_start();
    let (neg, digits) = match text.first() {
        Some(b'-') => (true, &text[1..]),
        Some(b'+') => (false, &text[1..]),
        _ => (false, text),
    };
    let mut n: i64 = 0;
    for &b in digits.iter().take_while(|b| b.is_ascii_digit()) {
        n = n.saturating_mul(10).saturating_add(i64::from(b - b'0'));
    }
    if neg {
        -n
    } else {
        n
    }
}

/// Every command group's table, in the order `COMMAND` lists them.
fn groups() -> &'static [&'static [Command]] {
    use super::cmd;
    &[
        cmd::string::COMMANDS,
        cmd::hash::COMMANDS,
        cmd::keys::COMMANDS,
        cmd::pubsub::COMMANDS,
        cmd::multi::COMMANDS,
        cmd::connection::COMMANDS,
        cmd::server::COMMANDS,
        cmd::command::COMMANDS,
        cmd::list::COMMANDS,
        cmd::blocking::LIST_COMMANDS,
        cmd::set::COMMANDS,
        cmd::zset::COMMANDS,
        cmd::blocking::ZSET_COMMANDS,
        cmd::sort::COMMANDS,
        cmd::bitmap::COMMANDS,
        cmd::hyperloglog::COMMANDS,
        cmd::cluster::COMMANDS,
        cmd::geo::COMMANDS,
        cmd::stream::COMMANDS,
    ]
}

/// Iterates over every top-level command.
pub fn all() -> impl Iterator<Item = &'static Command> {
    groups().iter().flat_map(|g| g.iter())
}

/// Looks a top-level command up by name, ignoring ASCII case. **O(1).**
pub fn lookup(name: &[u8]) -> Option<&'static Command> {
    static INDEX: OnceLock<HashMap<&'static str, &'static Command>> = OnceLock::new();
    let index = INDEX.get_or_init(|| all().map(|c| (c.name, c)).collect());
    if name.len() > 32 {
        return None;
    }
    let mut buf = [0u8; 32];
    let lower = &mut buf[..name.len()];
    lower.copy_from_slice(name);
    lower.make_ascii_lowercase();
    let lower = std::str::from_utf8(lower).ok()?;
    index.get(lower).copied()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_lowercase_and_documented() {
        let mut seen = std::collections::HashSet::new();
        for c in all() {
            assert!(seen.insert(c.name), "duplicate command {}", c.name);
            assert_eq!(c.name, c.name.to_ascii_lowercase());
            assert!(!c.summary.is_empty(), "{} has no summary", c.name);
            assert!(!c.complexity.is_empty(), "{} has no complexity", c.name);
            assert!(c.arity != 0, "{} has arity 0", c.name);
            assert!(
                c.flags.contains(Flags::WRITE) != c.flags.contains(Flags::READONLY)
                    || (!c.flags.contains(Flags::WRITE) && !c.flags.contains(Flags::READONLY)),
                "{} is both write and readonly",
                c.name
            );
            for s in c.subcommands {
                assert!(
                    !s.summary.is_empty(),
                    "{}|{} has no summary",
                    c.name,
                    s.name
                );
                assert!(s.handler.is_some(), "{}|{} has no handler", c.name, s.name);
            }
            if c.subcommands.is_empty() {
                assert!(c.handler.is_some(), "{} has no handler", c.name);
            }
        }
    }

    #[test]
    fn lookup_ignores_case() {
        assert!(lookup(b"PING").is_some());
        assert!(lookup(b"pInG").is_some());
        assert!(lookup(b"nosuchcommand").is_none());
    }

    #[test]
    fn key_positions_follow_first_last_step() {
        let c = Command::new("mset", -3, Group::String, |_, _| {
            Ok(super::super::Reply::ok())
        })
        .keys(1, -1, 2);
        assert_eq!(c.key_positions(5), vec![1, 3]);
    }
}
