//! The command table's row type: flags, documentation group, and [`CommandRow`] with its
//! const builder methods, plus [`Table`], a lookup index over groups of rows.
//!
//! The row is generic over its handler: this file sits below the engine's context, which
//! defines the handler type (see [`crate::engine::core::ctx`]), so the context can hold the
//! table (`Ctx::table`) without an import cycle.

use std::sync::OnceLock;

use bitflags::bitflags;
use hashbrown::HashTable;

use super::name::NameKey;

use super::keyspec::{
    legacy_range, numkeys, word_is, BeginSearch, FindKeys, GetKeys, KeyFlags, KeyRange, KeySpec,
};

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
        /// specs by [`Command::key_specs`](CommandRow::key_specs), never by hand.
        const MOVABLE_KEYS = 1 << 16;
        /// The key arguments are optional (`COMMAND GETKEYS` may return none).
        const NO_MANDATORY_KEYS = 1 << 17;
        /// Refused while a replica loads its dataset asynchronously.
        const NO_ASYNC_LOADING = 1 << 18;
        /// Runs only where its `enable-<name>-command` parameter allows (`DEBUG`); not
        /// shown, as Redis hides it.
        const PROTECTED = 1 << 19;
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

bitflags! {
    /// What dispatch needs to know about a command beyond Redis's flags: the facts
    /// Redis's `processCommand` tests by handler (`c->cmd->proc == execCommand` …). Kept
    /// apart from [`Flags`], so that none of them shows in `COMMAND INFO`.
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    pub struct DispatchFlags: u8 {
        /// Allowed in a RESP2 client's subscriber context (`PING`, the (un)subscribe
        /// commands, `QUIT`, `RESET`).
        const SUBSCRIBER_CONTEXT = 1 << 0;
        /// Runs at once inside `MULTI` rather than being queued (`EXEC`, `DISCARD`, `MULTI`,
        /// `WATCH`, `QUIT`, `RESET`).
        const NOT_QUEUED = 1 << 1;
        /// Ends an open transaction (`EXEC`, `DISCARD`, `QUIT`, `RESET`): inside `MULTI` it
        /// is never refused for memory.
        const ENDS_MULTI = 1 << 2;
        /// Runs the queued commands (`EXEC`): the checks before running look at its queue
        /// (denyoom, writes under `CLIENT PAUSE`, cluster slots), and refusing it aborts
        /// the transaction with `EXECABORT`.
        const RUNS_QUEUE = 1 << 3;
        /// Calls a function (`FCALL`, `FCALL_RO`): the checks before running use the
        /// function's flags in place of some of the command's (Redis's
        /// `fcallGetCommandFlags`, see [`crate::engine::scripting::script_command_flags`]).
        const FUNCTION_FLAGS = 1 << 4;
        /// Runs a script (`EVAL`, `EVALSHA` and their `_RO`): the checks before running
        /// use the flags of its shebang, cached or read from the body (Redis's
        /// `evalGetCommandFlags`).
        const SCRIPT_FLAGS = 1 << 5;
    }
}

/// Which keys a write effect of the command changes, for hosts that follow changes key
/// by key ([`crate::engine::inspect::touched_keys`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Touches {
    /// Those at the command's key positions; none found means "unknown" (`FLUSHDB`).
    KeyPositions,
    /// None at all (`MULTI`, `EXEC`, `SELECT`).
    Nothing,
    /// Keys the key positions cannot name: `MOVE`'s and `COPY`'s destination may be in
    /// another database. Whoever follows the changes re-reads the database.
    Unnamed,
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

/// The ACL categories in Redis's order (`ACL CAT`), without `@`: the one list that
/// [`CommandRow::acl_categories`] sorts by and the ACL rules parse against.
pub const ACL_CATEGORIES: &[&str] = &[
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

/// One entry of the command table, generic over its handler type so that this file names
/// no engine state: the engine's rows are [`crate::engine::table::Command`], whose handler
/// is [`crate::engine::Ctx`]'s [`Handler`](crate::engine::table::Handler).
#[derive(Debug, Clone, Copy)]
pub struct CommandRow<H: 'static> {
    /// Lowercase name (`get`, or `get` for `CONFIG GET` under its container).
    pub name: &'static str,
    /// Redis's arity: N = exactly N arguments including the name(s); -N = at least N.
    pub arity: i32,
    /// Flags (`movablekeys` is derived from the key specs).
    pub flags: Flags,
    /// Documentation group.
    pub group: Group,
    /// The legacy key range, derived from [`Command::key_specs`](CommandRow::key_specs).
    pub keys: KeyRange,
    /// The arguments after the name, in Redis's documentation syntax (natively only; see
    /// [`docs::syntax`](super::docs::syntax)).
    #[cfg(not(target_arch = "wasm32"))]
    pub syntax: &'static str,
    /// One sentence on what it does, in our words (natively only; read it through
    /// [`docs::summary`](super::docs::summary), which the browser build serves too).
    #[cfg(not(target_arch = "wasm32"))]
    pub summary: &'static str,
    /// Time complexity (natively only; see [`docs::complexity`](super::docs::complexity)).
    #[cfg(not(target_arch = "wasm32"))]
    pub complexity: &'static str,
    /// The Redis version that introduced it (natively only; see
    /// [`docs::since`](super::docs::since)).
    #[cfg(not(target_arch = "wasm32"))]
    pub since: &'static str,
    /// The handler; `None` for a container whose subcommands do the work.
    pub handler: Option<H>,
    /// Subcommands of a container command.
    pub subcommands: &'static [CommandRow<H>],
    /// ACL categories beyond those derived from the flags and the group (see
    /// [`Command::acl_categories`](CommandRow::acl_categories)), without the `@`, e.g. `dangerous`.
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
    /// Dispatch's own facts about the command (never shown to clients).
    pub dispatch: DispatchFlags,
    /// Which keys its effects change (see [`Touches`]).
    pub touches: Touches,
}

impl<H: Copy + 'static> CommandRow<H> {
    /// A command with no flags, no keys and no documentation yet; fill in with the builder
    /// methods (all `const`, so tables are plain data).
    pub const fn new(name: &'static str, arity: i32, group: Group, handler: H) -> Self {
        CommandRow {
            name,
            arity,
            flags: Flags::empty(),
            group,
            keys: KeyRange {
                first: 0,
                last: 0,
                step: 0,
            },
            #[cfg(not(target_arch = "wasm32"))]
            syntax: "",
            #[cfg(not(target_arch = "wasm32"))]
            summary: "",
            #[cfg(not(target_arch = "wasm32"))]
            complexity: "",
            #[cfg(not(target_arch = "wasm32"))]
            since: "1.0.0",
            handler: Some(handler),
            subcommands: &[],
            acl: &[],
            no_group_acl: false,
            tips: &[],
            key_specs: &[],
            getkeys: None,
            dispatch: DispatchFlags::empty(),
            touches: Touches::KeyPositions,
        }
    }

    /// A container command (`CONFIG`, `CLIENT`, …) dispatching to `subcommands`.
    pub const fn container(
        name: &'static str,
        group: Group,
        subcommands: &'static [CommandRow<H>],
    ) -> Self {
        CommandRow {
            name,
            arity: -2,
            flags: Flags::empty(),
            group,
            keys: KeyRange {
                first: 0,
                last: 0,
                step: 0,
            },
            #[cfg(not(target_arch = "wasm32"))]
            syntax: "",
            #[cfg(not(target_arch = "wasm32"))]
            summary: "",
            #[cfg(not(target_arch = "wasm32"))]
            complexity: "Depends on subcommand.",
            #[cfg(not(target_arch = "wasm32"))]
            since: "1.0.0",
            handler: None,
            subcommands,
            acl: &[],
            no_group_acl: false,
            tips: &[],
            key_specs: &[],
            getkeys: None,
            dispatch: DispatchFlags::empty(),
            touches: Touches::KeyPositions,
        }
    }

    /// Gives a container a handler of its own for when it is called without a subcommand
    /// (`COMMAND` lists every command), with the arity that applies then.
    pub const fn bare(mut self, handler: H, arity: i32) -> Self {
        self.handler = Some(handler);
        self.arity = arity;
        self
    }

    /// Adds ACL categories that Redis gives this command explicitly (without the `@`).
    pub const fn acl(mut self, categories: &'static [&'static str]) -> Self {
        self.acl = categories;
        self
    }

    /// Sets the cluster-client tips shown by `COMMAND INFO`.
    pub const fn tips(mut self, tips: &'static [&'static str]) -> Self {
        self.tips = tips;
        self
    }

    /// Sets dispatch's own facts (see [`DispatchFlags`]).
    pub const fn dispatch(mut self, flags: DispatchFlags) -> Self {
        self.dispatch = flags;
        self
    }

    /// Sets which keys the command's effects change (see [`Touches`]).
    pub const fn touches(mut self, touches: Touches) -> Self {
        self.touches = touches;
        self
    }

    /// Sets the flags (`movablekeys` is kept as the key specs made it).
    pub const fn flags(mut self, flags: Flags) -> Self {
        self.flags = flags.union(self.flags.intersection(Flags::MOVABLE_KEYS));
        self
    }

    /// Sets the key specs, and from them the legacy key range and `movablekeys` (see
    /// [`legacy_range`]).
    pub const fn key_specs(mut self, specs: &'static [KeySpec]) -> Self {
        let (range, movable) = legacy_range(specs);
        self.key_specs = specs;
        self.keys = range;
        if movable {
            self.flags = self.flags.union(Flags::MOVABLE_KEYS);
        }
        self
    }

    /// Names the key-finding procedure the key specs need (see [`GetKeys`]).
    pub const fn getkeys(mut self, proc: GetKeys) -> Self {
        self.getkeys = Some(proc);
        self
    }

    /// Leaves the group's ACL category out (see [`Command::no_group_acl`](CommandRow::no_group_acl)).
    pub const fn no_group_acl(mut self) -> Self {
        self.no_group_acl = true;
        self
    }

    /// Sets the syntax, summary, complexity and since-version. The browser build keeps
    /// none of them (see [`super::docs`]): they are fetched.
    #[cfg_attr(target_arch = "wasm32", allow(unused_variables, unused_mut))]
    pub const fn doc(
        mut self,
        syntax: &'static str,
        summary: &'static str,
        complexity: &'static str,
        since: &'static str,
    ) -> Self {
        #[cfg(not(target_arch = "wasm32"))]
        {
            self.syntax = syntax;
            self.summary = summary;
            self.complexity = complexity;
            self.since = since;
        }
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
    pub fn subcommand(&self, name: &[u8]) -> Option<&'static CommandRow<H>> {
        self.subcommands
            .iter()
            .find(|c| c.name.as_bytes().eq_ignore_ascii_case(name))
    }

    /// The ACL categories (without `@`) in the order Redis lists them: those Redis derives
    /// from the flags (`setImplicitACLCategories`: write, read, admin + dangerous, pubsub,
    /// fast, blocking, and slow for anything not fast), the group's own category
    /// (`keyspace` for generic, `string`, `hash`, …; none for server and cluster), and the
    /// extra ones the row names with [`Command::acl`](CommandRow::acl).
    pub fn acl_categories(&self) -> Vec<&'static str> {
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
        ACL_CATEGORIES
            .iter()
            .copied()
            .filter(|c| have.contains(c))
            .collect()
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

/// Groups of rows and a by-name index over them, built on first use. The engine receives
/// its table as a `&'static` reference ([`crate::engine::table::TABLE`]).
pub struct Table<H: 'static> {
    groups: &'static [&'static [CommandRow<H>]],
    index: OnceLock<HashTable<(NameKey, &'static CommandRow<H>)>>,
}

impl<H: Copy + Sync + Send + 'static> Table<H> {
    /// A table of these groups, in the order `COMMAND` lists them.
    pub const fn new(groups: &'static [&'static [CommandRow<H>]]) -> Self {
        Table {
            groups,
            index: OnceLock::new(),
        }
    }

    /// Iterates over every top-level command.
    pub fn all(&'static self) -> impl Iterator<Item = &'static CommandRow<H>> {
        self.groups.iter().flat_map(|g| g.iter())
    }

    /// Looks a top-level command up by name, ignoring ASCII case. **O(1).**
    pub fn lookup(&'static self, name: &[u8]) -> Option<&'static CommandRow<H>> {
        let index = self.index.get_or_init(|| {
            let mut index = HashTable::new();
            for c in self.all() {
                let key = NameKey::of(c.name.as_bytes()).expect("command names are short");
                index.insert_unique(key.hash(), (key, c), |(k, _)| k.hash());
            }
            index
        });
        // Names are ASCII: bytes that are not match nothing, no UTF-8 check needed.
        let key = NameKey::of(name)?;
        index.find(key.hash(), |(k, _)| *k == key).map(|&(_, c)| c)
    }

    /// The row that runs for `argv` given where its arguments start (`pos` 2 after a
    /// subcommand), as dispatch resolved it: how a queued command is found again at `EXEC`.
    pub fn resolved(&'static self, argv: &[Vec<u8>], pos: usize) -> Option<&'static CommandRow<H>> {
        let top = self.lookup(argv.first()?)?;
        if pos == 2 {
            top.subcommand(argv.get(1)?)
        } else {
            Some(top)
        }
    }
}
