//! The command table: the single source of truth for every command.
//!
//! Each command group (`cmd/string.rs`, `cmd/hash.rs`, …) declares a `COMMANDS` slice of
//! [`Command`] values: name, arity in Redis's ±N convention (N = exactly N arguments
//! counting the name, -N = at least N), flags, group, key specs, syntax, summary,
//! complexity, the version that introduced it, and the handler. Container commands
//! (`CONFIG`, `CLIENT`, `OBJECT`, `COMMAND`) list their subcommands the same way.
//!
//! Keys are described once, as Redis 7 does, by [`KeySpec`]s: each says what the command
//! does with some keys (`RW access delete`, `OW update`, …) and how to find them — where
//! the search begins (a position, or after a keyword) and how keys follow from there (a
//! range, or a count then that many keys). Everything about keys is derived from them:
//! the legacy first/last/step and the `movablekeys` flag (as Redis's
//! `populateCommandLegacyRangeSpec` derives them, see [`legacy_range`]), `COMMAND INFO`'s
//! key-spec section, `COMMAND GETKEYS`/`GETKEYSANDFLAGS`, the keys cluster mode checks
//! for CROSSSLOT, and those touched keys that WATCH and keyspace notifications see. A few
//! commands need a procedure the specs can't express ([`GetKeys`], Redis's
//! `getkeys_proc`): SORT's STORE, and SET's and BITFIELD's flags that depend on the
//! arguments.
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
        /// Key positions can't be found from first/last/step alone; set from the key
        /// specs by [`Command::key_specs`], never by hand.
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

/// The legacy key range of `COMMAND INFO` (first key, last key, step): positions
/// `first..=last` stepping by `step`, a negative `last` counting from the end (-1 = last
/// argument); all zero for no keys. Derived from the key specs (see [`legacy_range`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KeyRange {
    /// Position of the first key (1 = first argument after the name).
    pub first: i32,
    /// Position of the last key; negative counts from the end.
    pub last: i32,
    /// Distance between keys.
    pub step: i32,
}

bitflags! {
    /// The flags of a key spec, as Redis 7's `COMMAND INFO` and `COMMAND GETKEYSANDFLAGS`
    /// name them: one of `RO`/`RW`/`OW`/`RM` (read-only, read-write, overwrite, remove),
    /// what is done to the value (`access`, `update`, `insert`, `delete`), and remarks on
    /// the spec itself (`not_key`: a shard channel, not a key; `incomplete`: the spec may
    /// miss keys; `variable_flags`: the flags depend on the other arguments).
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    pub struct KeyFlags: u16 {
        /// Reads the key's value, doesn't change it.
        const RO = 1 << 0;
        /// Reads and changes the value.
        const RW = 1 << 1;
        /// Overwrites the value without reading it.
        const OW = 1 << 2;
        /// Deletes the key.
        const RM = 1 << 3;
        /// Returns or uses user data from the value.
        const ACCESS = 1 << 4;
        /// Updates data in the value.
        const UPDATE = 1 << 5;
        /// Adds data to the value.
        const INSERT = 1 << 6;
        /// Removes data from the value.
        const DELETE = 1 << 7;
        /// Not a key (a shard channel), found the same way.
        const NOT_KEY = 1 << 8;
        /// The spec may not find every key.
        const INCOMPLETE = 1 << 9;
        /// The flags depend on the arguments (`SET … GET`).
        const VARIABLE_FLAGS = 1 << 10;
    }
}

/// Key-spec flag names in Redis's reply order.
const KEY_FLAG_NAMES: &[(KeyFlags, &str)] = &[
    (KeyFlags::RO, "RO"),
    (KeyFlags::RW, "RW"),
    (KeyFlags::OW, "OW"),
    (KeyFlags::RM, "RM"),
    (KeyFlags::ACCESS, "access"),
    (KeyFlags::UPDATE, "update"),
    (KeyFlags::INSERT, "insert"),
    (KeyFlags::DELETE, "delete"),
    (KeyFlags::NOT_KEY, "not_key"),
    (KeyFlags::INCOMPLETE, "incomplete"),
    (KeyFlags::VARIABLE_FLAGS, "variable_flags"),
];

impl KeyFlags {
    /// Parses space-separated flag names (`"RW access delete"`) at compile time; an unknown
    /// name stops the build.
    pub const fn of(names: &str) -> KeyFlags {
        let b = names.as_bytes();
        let mut flags = KeyFlags::empty();
        let mut i = 0;
        while i < b.len() {
            if b[i] == b' ' {
                i += 1;
                continue;
            }
            let mut j = i;
            while j < b.len() && b[j] != b' ' {
                j += 1;
            }
            let mut k = 0;
            let mut found = false;
            while k < KEY_FLAG_NAMES.len() {
                let n = KEY_FLAG_NAMES[k].1.as_bytes();
                if n.len() == j - i {
                    let mut m = 0;
                    while m < n.len() && n[m] == b[i + m] {
                        m += 1;
                    }
                    if m == n.len() {
                        flags = flags.union(KEY_FLAG_NAMES[k].0);
                        found = true;
                    }
                }
                k += 1;
            }
            assert!(found, "unknown key-spec flag");
            i = j;
        }
        flags
    }

    /// The flag names, in Redis's order.
    pub fn names(self) -> Vec<&'static str> {
        KEY_FLAG_NAMES
            .iter()
            .filter(|(f, _)| self.contains(*f))
            .map(|(_, n)| *n)
            .collect()
    }
}

/// Where a key spec starts looking (Redis's `begin_search`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BeginSearch {
    /// At a fixed argument position (1 = first argument after the name).
    Index(i32),
    /// Right after the first `keyword` found scanning from `startfrom` (a negative start
    /// counts from the end and scans backwards); the spec finds nothing without it.
    Keyword {
        /// The keyword, as Redis spells it (compared ignoring case).
        keyword: &'static str,
        /// Where the scan starts.
        startfrom: i32,
    },
    /// The arguments alone don't say (SORT's `BY`/`GET`/`STORE`).
    Unknown,
}

/// How a key spec finds its keys from where the search began (Redis's `find_keys`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FindKeys {
    /// Keys from the start to `lastkey` (relative to the start; negative counts from the
    /// end), every `keystep`; with a `limit` > 1 and `lastkey` -1, only the first
    /// 1/`limit` of the remaining arguments (XREAD's `STREAMS a b 0 0`).
    Range {
        /// Last key, relative to the start, or from the end when negative.
        lastkey: i32,
        /// Distance between keys.
        keystep: i32,
        /// Divides the remaining arguments (0 = all of them).
        limit: i32,
    },
    /// A key count at start + `keynumidx`, the keys from start + `firstkey` every `keystep`
    /// (`ZUNION 2 a b`). The count must be an integer from 1 to the keys present. Every
    /// such command also has a Redis `getkeys_proc`, used when the count isn't a strict
    /// integer: it reads the count as C's `atoi` does (`2x` is 2) and reports the counted
    /// keys, then any others (a `…STORE` destination), all without flags.
    Keynum {
        /// Where the count is, relative to the start.
        keynumidx: i32,
        /// Where the first key is, relative to the start.
        firstkey: i32,
        /// Distance between keys.
        keystep: i32,
    },
    /// The arguments alone don't say.
    Unknown,
}

/// One of a command's key specs, as Redis 7's `COMMAND INFO` describes it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KeySpec {
    /// What the command does with these keys.
    pub flags: KeyFlags,
    /// Redis's remark on the spec (empty for none).
    pub notes: &'static str,
    /// Where the search starts.
    pub begin: BeginSearch,
    /// How keys are found from there.
    pub find: FindKeys,
}

impl KeySpec {
    /// One key at position `pos` (extend with [`KeySpec::range`] or [`KeySpec::keynum`]).
    pub const fn index(pos: i32, flags: &str) -> KeySpec {
        KeySpec {
            flags: KeyFlags::of(flags),
            notes: "",
            begin: BeginSearch::Index(pos),
            find: FindKeys::Range {
                lastkey: 0,
                keystep: 1,
                limit: 0,
            },
        }
    }

    /// One key after `keyword`, searched for from `startfrom`.
    pub const fn keyword(keyword: &'static str, startfrom: i32, flags: &str) -> KeySpec {
        KeySpec {
            begin: BeginSearch::Keyword { keyword, startfrom },
            ..KeySpec::index(0, flags)
        }
    }

    /// Keys the arguments alone don't locate (found by a [`GetKeys`] procedure if at all).
    pub const fn unknown(flags: &str) -> KeySpec {
        KeySpec {
            begin: BeginSearch::Unknown,
            find: FindKeys::Unknown,
            ..KeySpec::index(0, flags)
        }
    }

    /// Finds a range of keys from the start.
    pub const fn range(mut self, lastkey: i32, keystep: i32, limit: i32) -> KeySpec {
        self.find = FindKeys::Range {
            lastkey,
            keystep,
            limit,
        };
        self
    }

    /// Finds a counted run of keys from the start.
    pub const fn keynum(mut self, keynumidx: i32, firstkey: i32, keystep: i32) -> KeySpec {
        self.find = FindKeys::Keynum {
            keynumidx,
            firstkey,
            keystep,
        };
        self
    }

    /// Adds Redis's note.
    pub const fn notes(mut self, notes: &'static str) -> KeySpec {
        self.notes = notes;
        self
    }

    /// The positions this spec finds in `argv` (command name at 0), or `Err` when the
    /// spec can't tell (unknown spec, bad key count). Redis's `getKeysUsingKeySpecs` for
    /// one spec. O(number of arguments).
    fn find_in(&self, argv: &[Vec<u8>], arity: i32) -> Result<Vec<usize>, ()> {
        let argc = argv.len() as i64;
        let first = match self.begin {
            BeginSearch::Index(pos) => i64::from(pos),
            BeginSearch::Keyword { keyword, startfrom } => {
                let (mut i, end, dir) = if startfrom > 0 {
                    (i64::from(startfrom), argc - 1, 1)
                } else {
                    (argc + i64::from(startfrom), 1, -1)
                };
                let mut hit = None;
                while (dir > 0 && i <= end) || (dir < 0 && i >= end) {
                    if i >= argc || i < 1 {
                        break;
                    }
                    if word_is(&argv[i as usize], keyword) {
                        hit = Some(i + 1);
                        break;
                    }
                    i += dir;
                }
                match hit {
                    Some(f) => f,
                    None => return Ok(Vec::new()),
                }
            }
            BeginSearch::Unknown => return Err(()),
        };
        let (first, last, step) = match self.find {
            FindKeys::Range {
                lastkey,
                keystep,
                limit,
            } => {
                let last = if lastkey >= 0 {
                    first + i64::from(lastkey)
                } else if limit <= 1 {
                    argc + i64::from(lastkey)
                } else {
                    first + ((argc - first) / i64::from(limit) + i64::from(lastkey))
                };
                (first, last, i64::from(keystep))
            }
            FindKeys::Keynum {
                keynumidx,
                firstkey,
                keystep,
            } => {
                let at = first + i64::from(keynumidx);
                let count = argv
                    .get(at as usize)
                    .and_then(|a| super::args::parse_i64(a))
                    .ok_or(())?;
                let start = first + i64::from(firstkey);
                let step = i64::from(keystep.max(1));
                if count < 1 || start.saturating_add((count - 1).saturating_mul(step)) >= argc {
                    return Err(());
                }
                (start, start + (count - 1) * step, step)
            }
            FindKeys::Unknown => return Err(()),
        };
        let mut out = Vec::new();
        let mut i = first;
        while step > 0 && i <= last {
            if i >= argc || i < 1 {
                // Past the end: a variadic command reports the arity itself.
                if arity < 0 {
                    i += step;
                    continue;
                }
                return Err(());
            }
            out.push(i as usize);
            i += step;
        }
        Ok(out)
    }
}

/// Redis's `getkeys_proc`: key finding the key specs can't express, kept where kvlab needs
/// it (the spec has an unknown part, or its flags depend on the arguments).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GetKeys {
    /// `SORT`'s `STORE destination` (the last one counts), skipping the arguments of
    /// `LIMIT`, `GET` and `BY` as Redis's `sortGetKeys` does; the sorted key is `RO access`,
    /// the destination `OW update`.
    Sort,
    /// `SORT_RO`: just the sorted key, `RO access` (its `BY`/`GET` patterns are unknown).
    SortRo,
    /// `SET`: the key is `RW access update` with `GET`, `OW update` without.
    Set,
    /// `BITFIELD`: the key is `RW access update` when a `SET` or `INCRBY` operation is
    /// there, `RO access` otherwise.
    Bitfield,
}

/// Redis's `populateCommandLegacyRangeSpec`: the legacy (first, last, step) of a command's
/// key specs, and whether keys can be elsewhere too (`movablekeys`). A single index+range
/// spec is taken as is; otherwise consecutive index+range specs with step 1 are merged,
/// and anything else (keywords, key counts, unknown, gaps, other steps, `incomplete`)
/// makes the command movable.
pub const fn legacy_range(specs: &[KeySpec]) -> (KeyRange, bool) {
    const NONE: KeyRange = KeyRange {
        first: 0,
        last: 0,
        step: 0,
    };
    if specs.is_empty() {
        return (NONE, false);
    }
    if specs.len() == 1 {
        if let (
            BeginSearch::Index(pos),
            FindKeys::Range {
                lastkey, keystep, ..
            },
        ) = (specs[0].begin, specs[0].find)
        {
            let last = if lastkey < 0 { lastkey } else { pos + lastkey };
            return (
                KeyRange {
                    first: pos,
                    last,
                    step: keystep,
                },
                specs[0].flags.contains(KeyFlags::INCOMPLETE),
            );
        }
    }
    let mut movable = false;
    let mut first = i32::MAX;
    // Compared as unsigned, as Redis does, so a from-the-end -1 wins over any position.
    let mut last: u32 = 0;
    let mut prev_last: u32 = 0;
    let mut i = 0;
    while i < specs.len() {
        let s = &specs[i];
        i += 1;
        let (pos, lastkey, keystep) = match (s.begin, s.find) {
            (
                BeginSearch::Index(pos),
                FindKeys::Range {
                    lastkey, keystep, ..
                },
            ) => (pos, lastkey, keystep),
            _ => {
                movable = true;
                continue;
            }
        };
        if keystep != 1 || (prev_last != 0 && prev_last != (pos - 1) as u32) {
            movable = true;
            continue;
        }
        if s.flags.contains(KeyFlags::INCOMPLETE) {
            movable = true;
        }
        if pos < first {
            first = pos;
        }
        let abs = if lastkey >= 0 { lastkey + pos } else { lastkey };
        if abs as u32 > last {
            last = abs as u32;
        }
        prev_last = last;
    }
    if first == i32::MAX {
        return (NONE, true);
    }
    (
        KeyRange {
            first,
            last: last as i32,
            step: 1,
        },
        movable,
    )
}

/// One entry of the command table.
#[derive(Debug, Clone, Copy)]
pub struct Command {
    /// Lowercase name (`get`, or `get` for `CONFIG GET` under its container).
    pub name: &'static str,
    /// Redis's arity: N = exactly N arguments including the name(s); -N = at least N.
    pub arity: i32,
    /// Flags (`movablekeys` is derived from the key specs).
    pub flags: Flags,
    /// Documentation group.
    pub group: Group,
    /// The legacy key range, derived from [`Command::key_specs`].
    pub keys: KeyRange,
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
    /// Whether the group's own ACL category is left out (Redis's SORT is not `@keyspace`).
    pub no_group_acl: bool,
    /// Hints for cluster clients (`COMMAND INFO` "tips"), e.g. `nondeterministic_output`.
    pub tips: &'static [&'static str],
    /// Where the keys are and what is done to them: Redis 7's key specs, the one
    /// description from which the legacy range, `movablekeys`, `COMMAND GETKEYS`,
    /// `GETKEYSANDFLAGS`, `COMMAND INFO` and cluster slot checks all follow.
    pub key_specs: &'static [KeySpec],
    /// Key finding the specs can't express (Redis's `getkeys_proc`), if needed.
    pub getkeys: Option<GetKeys>,
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
            keys: KeyRange {
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
            no_group_acl: false,
            tips: &[],
            key_specs: &[],
            getkeys: None,
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
            keys: KeyRange {
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
            no_group_acl: false,
            tips: &[],
            key_specs: &[],
            getkeys: None,
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

    /// Sets the flags (`movablekeys` is kept as the key specs made it).
    pub const fn flags(mut self, flags: Flags) -> Command {
        self.flags = flags.union(self.flags.intersection(Flags::MOVABLE_KEYS));
        self
    }

    /// Sets the key specs, and from them the legacy key range and `movablekeys` (see
    /// [`legacy_range`]).
    pub const fn key_specs(mut self, specs: &'static [KeySpec]) -> Command {
        let (range, movable) = legacy_range(specs);
        self.key_specs = specs;
        self.keys = range;
        if movable {
            self.flags = self.flags.union(Flags::MOVABLE_KEYS);
        }
        self
    }

    /// Names the key-finding procedure the key specs need (see [`GetKeys`]).
    pub const fn getkeys(mut self, proc: GetKeys) -> Command {
        self.getkeys = Some(proc);
        self
    }

    /// Leaves the group's ACL category out (see [`Command::no_group_acl`]).
    pub const fn no_group_acl(mut self) -> Command {
        self.no_group_acl = true;
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
            _ if !self.subcommands.is_empty() || self.no_group_acl => None,
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

    /// Whether `COMMAND GETKEYS` can find keys for this command at all: a key-finding
    /// procedure, or a key spec that is about keys (not shard channels).
    pub fn has_keys(&self) -> bool {
        self.getkeys.is_some()
            || self
                .key_specs
                .iter()
                .any(|s| !s.flags.contains(KeyFlags::NOT_KEY))
    }

    /// The positions of every key in `argv` (the command line from its name on), shard
    /// channels included, as cluster mode checks their slots. `None` when the arguments
    /// don't say (a key count that isn't a count of keys that are there).
    /// O(number of arguments).
    pub fn key_indexes(&self, argv: &[Vec<u8>]) -> Option<Vec<usize>> {
        Some(
            self.keys_and_flags(argv, true)?
                .into_iter()
                .map(|(i, _)| i)
                .collect(),
        )
    }

    /// Each key of `argv` with its key-spec flags, as `COMMAND GETKEYSANDFLAGS` reports
    /// them, in key-spec order (Redis's `getKeysFromCommandWithSpecs`): the specs find the
    /// keys unless one of them can't or its flags vary, and then the command's [`GetKeys`]
    /// procedure does. `not_key` specs count only with `include_not_keys`. `None` when the
    /// arguments are invalid for key finding. O(number of arguments).
    pub fn keys_and_flags(
        &self,
        argv: &[Vec<u8>],
        include_not_keys: bool,
    ) -> Option<Vec<(usize, KeyFlags)>> {
        let varies = self
            .key_specs
            .iter()
            .any(|s| s.flags.contains(KeyFlags::VARIABLE_FLAGS));
        if !varies {
            let mut out = Vec::new();
            let mut ok = true;
            for spec in self.key_specs {
                if spec.flags.contains(KeyFlags::NOT_KEY) && !include_not_keys {
                    continue;
                }
                match spec.find_in(argv, self.arity) {
                    Ok(found) => out.extend(found.into_iter().map(|i| (i, spec.flags))),
                    Err(()) => {
                        ok = false;
                        break;
                    }
                }
            }
            if ok {
                return Some(out);
            }
        }
        let argc = argv.len();
        let Some(proc) = self.getkeys else {
            return self.numkeys_fallback(argv);
        };
        match proc {
            GetKeys::Sort => {
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
                let mut out = vec![(1, KeyFlags::of("RO access"))];
                out.extend(store.map(|i| (i, KeyFlags::of("OW update"))));
                Some(out)
            }
            GetKeys::SortRo => Some(vec![(1, KeyFlags::of("RO access"))]),
            GetKeys::Set => {
                let get = argv.iter().skip(3).any(|a| word_is(a, "get"));
                let flags = if get { "RW access update" } else { "OW update" };
                Some(vec![(1, KeyFlags::of(flags))])
            }
            GetKeys::Bitfield => {
                let writes = argv
                    .iter()
                    .skip(2)
                    .any(|a| word_is(a, "set") || word_is(a, "incrby"));
                let flags = if writes {
                    "RW access update"
                } else {
                    "RO access"
                };
                Some(vec![(1, KeyFlags::of(flags))])
            }
        }
    }

    /// Redis's key-count procedures (`zunionInterDiffStoreGetKeys`, `lmpopGetKeys`, …),
    /// for when the count of a [`FindKeys::Keynum`] spec isn't a strict integer: the count
    /// as `atoi` reads it, the counted keys, then the keys of the other (single-key) specs,
    /// all with no flags. `None` without a key-count spec or with a count out of range.
    fn numkeys_fallback(&self, argv: &[Vec<u8>]) -> Option<Vec<(usize, KeyFlags)>> {
        let argc = argv.len();
        let mut counted = Vec::new();
        let mut others = Vec::new();
        for spec in self.key_specs {
            match (spec.begin, spec.find) {
                (
                    BeginSearch::Index(pos),
                    FindKeys::Keynum {
                        keynumidx,
                        firstkey,
                        keystep,
                    },
                ) => {
                    let at = usize::try_from(pos + keynumidx).ok()?;
                    let n = numkeys(argv.get(at)?);
                    let start = usize::try_from(pos + firstkey).ok()?;
                    let step = usize::try_from(keystep.max(1)).ok()?;
                    let n = usize::try_from(n).ok().filter(|&n| n >= 1)?;
                    if start.saturating_add((n - 1).saturating_mul(step)) >= argc {
                        return None;
                    }
                    counted.extend((0..n).map(|i| (start + i * step, KeyFlags::empty())));
                }
                (BeginSearch::Index(pos), FindKeys::Range { lastkey: 0, .. }) => {
                    others.extend(
                        usize::try_from(pos)
                            .ok()
                            .filter(|&p| p < argc)
                            .map(|p| (p, KeyFlags::empty())),
                    );
                }
                _ => return None,
            }
        }
        if counted.is_empty() {
            return None;
        }
        counted.extend(others);
        Some(counted)
    }

    /// The positions of the key arguments in an argument vector of length `argc`.
    pub fn key_positions(&self, argc: usize) -> Vec<usize> {
        let KeyRange { first, last, step } = self.keys;
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

    fn ok(_: &mut Ctx<'_>, _: &mut Args) -> CmdResult {
        Ok(super::super::Reply::ok())
    }

    #[test]
    fn key_positions_follow_first_last_step() {
        const MSET: Command = Command::new("mset", -3, Group::String, ok)
            .key_specs(&[KeySpec::index(1, "OW update").range(-1, 2, 0)]);
        let range = KeyRange {
            first: 1,
            last: -1,
            step: 2,
        };
        assert_eq!(MSET.keys, range);
        assert!(!MSET.flags.contains(Flags::MOVABLE_KEYS));
        assert_eq!(MSET.key_positions(5), vec![1, 3]);
    }

    #[test]
    fn legacy_range_merges_consecutive_specs_and_marks_the_rest_movable() {
        let r = |first, last, step| KeyRange { first, last, step };
        // LMOVE: two single keys side by side.
        const LMOVE: &[KeySpec] = &[
            KeySpec::index(1, "RW access delete"),
            KeySpec::index(2, "RW insert"),
        ];
        assert_eq!(legacy_range(LMOVE), (r(1, 2, 1), false));
        // ZUNIONSTORE: the destination, then a counted run.
        const ZUNIONSTORE: &[KeySpec] = &[
            KeySpec::index(1, "OW update"),
            KeySpec::index(2, "RO access").keynum(0, 1, 1),
        ];
        assert_eq!(legacy_range(ZUNIONSTORE), (r(1, 1, 1), true));
        // ZUNION: nothing fixed at all.
        const ZUNION: &[KeySpec] = &[KeySpec::index(1, "RO access").keynum(0, 1, 1)];
        assert_eq!(legacy_range(ZUNION), (r(0, 0, 0), true));
        // A gap between ranges (MIGRATE-like) makes the later one movable.
        const GAP: &[KeySpec] = &[KeySpec::index(1, "RO"), KeySpec::index(3, "RO")];
        assert_eq!(legacy_range(GAP), (r(1, 1, 1), true));
        // A from-the-end last key wins (compared unsigned).
        const TAIL: &[KeySpec] = &[
            KeySpec::index(1, "RO"),
            KeySpec::index(2, "RO").range(-1, 1, 0),
        ];
        assert_eq!(legacy_range(TAIL), (r(1, -1, 1), false));
        assert_eq!(legacy_range(&[]), (r(0, 0, 0), false));
    }

    #[test]
    fn every_key_spec_says_how_the_key_is_used() {
        let access = KeyFlags::RO
            .union(KeyFlags::RW)
            .union(KeyFlags::OW)
            .union(KeyFlags::RM);
        for c in all().chain(all().flat_map(|c| c.subcommands.iter())) {
            for spec in c.key_specs {
                let n = (spec.flags & access).bits().count_ones();
                let channel = spec.flags.contains(KeyFlags::NOT_KEY);
                assert!(n == 1 || (channel && n == 0), "{}: {spec:?}", c.name);
            }
            assert!(
                !c.key_specs.is_empty() || c.keys.first == 0,
                "{} has a key range without specs",
                c.name
            );
        }
    }

    #[test]
    fn a_key_count_that_is_not_strict_falls_back_to_redis_finder() {
        let argv = |line: &str| -> Vec<Vec<u8>> {
            line.split(' ').map(|w| w.as_bytes().to_vec()).collect()
        };
        let z = lookup(b"zunionstore").expect("zunionstore");
        let none = KeyFlags::empty();
        assert_eq!(
            z.keys_and_flags(&argv("zunionstore d 2x a b"), false),
            Some(vec![(3, none), (4, none), (1, none)])
        );
        assert_eq!(
            z.keys_and_flags(&argv("zunionstore d 2 a b"), false),
            Some(vec![
                (1, KeyFlags::of("OW update")),
                (3, KeyFlags::of("RO access")),
                (4, KeyFlags::of("RO access")),
            ])
        );
        assert_eq!(z.keys_and_flags(&argv("zunionstore d 3x a b"), false), None);
        let p = lookup(b"spublish").expect("spublish");
        assert!(!p.has_keys());
        assert_eq!(p.key_indexes(&argv("spublish ch m")), Some(vec![1]));
    }

    #[test]
    fn key_flags_parse_and_print_in_redis_order() {
        let f = KeyFlags::of("update RW  access");
        assert_eq!(f.names(), ["RW", "access", "update"]);
        assert_eq!(KeyFlags::of("").names(), Vec::<&str>::new());
    }

    #[test]
    fn specs_find_keys_like_redis() {
        let argv = |line: &str| -> Vec<Vec<u8>> {
            line.split(' ').map(|w| w.as_bytes().to_vec()).collect()
        };
        let xread = KeySpec::keyword("STREAMS", 1, "RO access").range(-1, 1, 2);
        assert_eq!(
            xread.find_in(&argv("xread count 2 streams a b 0 0"), -4),
            Ok(vec![4, 5])
        );
        assert_eq!(xread.find_in(&argv("xread count 2"), -4), Ok(vec![]));
        let store = KeySpec::keyword("STORE", 6, "OW update");
        assert_eq!(
            store.find_in(&argv("georadius k 0 0 1 m store d"), -6),
            Ok(vec![7])
        );
        assert_eq!(
            store.find_in(&argv("georadius k 0 0 1 m store"), -6),
            Ok(vec![])
        );
        let counted = KeySpec::index(2, "RO access").keynum(0, 1, 1);
        assert_eq!(
            counted.find_in(&argv("zunionstore d 2 a b"), -4),
            Ok(vec![3, 4])
        );
        assert_eq!(counted.find_in(&argv("zunionstore d 2x a b"), -4), Err(()));
        assert_eq!(counted.find_in(&argv("zunionstore d 3 a b"), -4), Err(()));
        assert_eq!(counted.find_in(&argv("zunionstore d 0 a"), -4), Err(()));
        let huge = "zunionstore d 9223372036854775807 a";
        assert_eq!(counted.find_in(&argv(huge), -4), Err(()));
        assert_eq!(KeySpec::unknown("RO").find_in(&argv("sort k"), -2), Err(()));
    }
}
