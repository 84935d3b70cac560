//! Configuration parameters: the table of every parameter `CONFIG GET/SET` knows, how each
//! one's text is checked and normalised, and typed accessors for the ones the engine reads.
//!
//! # Model
//! Redis 7.0 keeps each parameter in a typed C variable and converts to text for `CONFIG
//! GET`. We keep the *normalised text* of every parameter (`"1mb"` is stored as
//! `"1048576"`, `"YES"` as `"yes"`), which is exactly what `CONFIG GET` shows, and parse it
//! back when the engine needs a number: [`Config::int`] and the named accessors such as
//! [`Config::hash_max_listpack_entries`]. A value only gets into the map after it passed its
//! parameter's check, so those parses always succeed.
//!
//! # The table
//! [`PARAMS`] lists Redis 7.0's parameters (without the TLS ones, which a build without TLS
//! does not have) with their kind, bounds and defaults as `redis-server` starts without a
//! configuration file. Kinds follow Redis's: booleans (`yes`/`no`), signed and unsigned
//! integers with inclusive bounds (unsigned ones are checked as C's unsigned casts are, so
//! `-1` is out of range rather than unparseable), memory sizes (`1k` = 1000, `1kb` = 1024,
//! up to `gb`), percentages for `maxmemory-clients`, octal for `unixsocketperm`, enums,
//! plain strings, and a few parameters with their own syntax (`save`, `bind`,
//! `notify-keyspace-events`, `client-output-buffer-limit`, …).
//!
//! Parameters Redis marks immutable (`databases`, `daemonize`, …) or protected (`dir`,
//! `dbfilename`) can be read but `CONFIG SET` refuses them with Redis's messages. Hidden
//! ones (`rdb-key-save-delay`, `key-load-delay`, …) answer only to their exact name.

use std::collections::{BTreeMap, HashMap};
use std::sync::OnceLock;

use super::args::parse_i64;
use super::Config;

/// How a numeric parameter's text is read and shown.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unit {
    /// A plain decimal integer (Redis's `string2ll`).
    Plain,
    /// A memory size: digits with an optional unit `b k kb m mb g gb` (any case).
    Memory,
    /// A memory size or a percentage `N%` (stored as `-N`, shown as `N%`).
    MemoryOrPercent,
    /// An octal number, shown in octal.
    Octal,
}

/// Parameters with a syntax of their own.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Special {
    /// `save`: pairs of `<seconds> <changes>`, or `""` for none.
    Save,
    /// `notify-keyspace-events`: the class characters `KEg$lshzxetmdnA`.
    NotifyKeyspaceEvents,
    /// `bind`: a list of addresses.
    Bind,
    /// `client-output-buffer-limit`: groups of `<class> <hard> <soft> <seconds>`.
    ClientOutputBufferLimit,
    /// `oom-score-adj-values`: three integers in -2000..=2000.
    OomScoreAdjValues,
    /// `latency-tracking-info-percentiles`: floats in 0..=100.
    LatencyPercentiles,
}

/// The kind of a parameter, which decides how its value is checked and normalised.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// `yes` or `no`.
    Bool,
    /// A signed integer within `min..=max`.
    Int {
        /// Lower bound.
        min: i64,
        /// Upper bound.
        max: i64,
        /// Text format.
        unit: Unit,
    },
    /// An unsigned integer within `min..=max`; a negative input wraps as in C and fails.
    Uint {
        /// Lower bound.
        min: u64,
        /// Upper bound.
        max: u64,
        /// Text format.
        unit: Unit,
    },
    /// One of the names (any case); the value shown is the first name with the same number.
    Enum(&'static [(&'static str, u32)]),
    /// Several of the names, space separated, combined as bit flags (`shutdown-on-sigint`).
    EnumFlags(&'static [(&'static str, u32)]),
    /// Any string.
    Str,
    /// A parameter with its own syntax.
    Special(Special),
}

/// `CONFIG SET` refuses it: "can't set immutable config".
pub const IMMUTABLE: u8 = 1;
/// `CONFIG SET` refuses it: "can't set protected config" (`enable-protected-configs no`).
pub const PROTECTED: u8 = 2;
/// Only an exact name finds it; patterns skip it.
pub const HIDDEN: u8 = 4;
/// The value is split on spaces into several arguments before it is checked.
pub const MULTI_ARG: u8 = 8;

/// One configuration parameter.
#[derive(Debug, Clone, Copy)]
pub struct Param {
    /// Canonical name.
    pub name: &'static str,
    /// Older name that still works (`hash-max-ziplist-entries`), if any.
    pub alias: Option<&'static str>,
    /// What values it takes.
    pub kind: Kind,
    /// Default value, normalised.
    pub default: &'static str,
    /// [`IMMUTABLE`], [`PROTECTED`], [`HIDDEN`], [`MULTI_ARG`].
    pub flags: u8,
}

impl Param {
    const fn new(name: &'static str, kind: Kind, default: &'static str) -> Param {
        Param {
            name,
            alias: None,
            kind,
            default,
            flags: 0,
        }
    }
    const fn alias(mut self, alias: &'static str) -> Param {
        self.alias = Some(alias);
        self
    }
    const fn flags(mut self, flags: u8) -> Param {
        self.flags |= flags;
        self
    }
}

const INT_MAX: i64 = i32::MAX as i64;
const INT_MIN: i64 = i32::MIN as i64;
const LONG_MAX: i64 = i64::MAX;

const fn boolean(name: &'static str, default: bool) -> Param {
    Param::new(name, Kind::Bool, if default { "yes" } else { "no" })
}
const fn int(name: &'static str, min: i64, max: i64, default: &'static str) -> Param {
    Param::new(
        name,
        Kind::Int {
            min,
            max,
            unit: Unit::Plain,
        },
        default,
    )
}
const fn mem(name: &'static str, min: i64, max: i64, default: &'static str) -> Param {
    Param::new(
        name,
        Kind::Int {
            min,
            max,
            unit: Unit::Memory,
        },
        default,
    )
}
const fn uint(name: &'static str, min: u64, max: u64, default: &'static str) -> Param {
    Param::new(
        name,
        Kind::Uint {
            min,
            max,
            unit: Unit::Plain,
        },
        default,
    )
}
const fn umem(name: &'static str, min: u64, max: u64, default: &'static str) -> Param {
    Param::new(
        name,
        Kind::Uint {
            min,
            max,
            unit: Unit::Memory,
        },
        default,
    )
}
const fn string(name: &'static str, default: &'static str) -> Param {
    Param::new(name, Kind::Str, default)
}
const fn one_of(
    name: &'static str,
    names: &'static [(&'static str, u32)],
    default: &'static str,
) -> Param {
    Param::new(name, Kind::Enum(names), default)
}
const fn special(name: &'static str, kind: Special, default: &'static str) -> Param {
    Param::new(name, Kind::Special(kind), default)
}

const MAXMEMORY_POLICIES: &[(&str, u32)] = &[
    ("volatile-lru", 0),
    ("volatile-lfu", 1),
    ("volatile-random", 2),
    ("volatile-ttl", 3),
    ("allkeys-lru", 4),
    ("allkeys-lfu", 5),
    ("allkeys-random", 6),
    ("noeviction", 7),
];
const SYSLOG_FACILITIES: &[(&str, u32)] = &[
    ("user", 0),
    ("local0", 1),
    ("local1", 2),
    ("local2", 3),
    ("local3", 4),
    ("local4", 5),
    ("local5", 6),
    ("local6", 7),
    ("local7", 8),
];
const LOGLEVELS: &[(&str, u32)] = &[("debug", 0), ("verbose", 1), ("notice", 2), ("warning", 3)];
const SUPERVISED: &[(&str, u32)] = &[("upstart", 0), ("systemd", 1), ("auto", 2), ("no", 3)];
const FSYNC: &[(&str, u32)] = &[("everysec", 0), ("always", 1), ("no", 2)];
const SHUTDOWN_ON_SIG: &[(&str, u32)] = &[
    ("default", 0),
    ("save", 1),
    ("nosave", 2),
    ("now", 4),
    ("force", 8),
];
const DISKLESS_LOAD: &[(&str, u32)] = &[("disabled", 0), ("on-empty-db", 1), ("swapdb", 2)];
const OOM_SCORE_ADJ: &[(&str, u32)] = &[("no", 0), ("yes", 1), ("relative", 1), ("absolute", 2)];
const ACL_PUBSUB_DEFAULT: &[(&str, u32)] = &[("allchannels", 1), ("resetchannels", 0)];
const SANITIZE: &[(&str, u32)] = &[("no", 0), ("yes", 1), ("clients", 2)];
const PROTECTED_ACTION: &[(&str, u32)] = &[("no", 0), ("yes", 1), ("local", 2)];
const ENDPOINT_TYPE: &[(&str, u32)] = &[("ip", 0), ("hostname", 1), ("unknown-endpoint", 2)];
const PROPAGATION_ERROR: &[(&str, u32)] = &[("ignore", 0), ("panic", 1), ("panic-on-replicas", 2)];

/// Every parameter, as `redis-server` 7.0 defines it when started without a configuration
/// file (built without TLS).
pub const PARAMS: &[Param] = &[
    // Booleans.
    boolean("rdbchecksum", true).flags(IMMUTABLE),
    boolean("daemonize", false).flags(IMMUTABLE),
    boolean("io-threads-do-reads", false).flags(IMMUTABLE),
    boolean("always-show-logo", false).flags(IMMUTABLE),
    boolean("protected-mode", true),
    boolean("rdbcompression", true),
    boolean("rdb-del-sync-files", false),
    boolean("activerehashing", true),
    boolean("stop-writes-on-bgsave-error", true),
    boolean("set-proc-title", true).flags(IMMUTABLE),
    boolean("dynamic-hz", true),
    boolean("lazyfree-lazy-eviction", false),
    boolean("lazyfree-lazy-expire", false),
    boolean("lazyfree-lazy-server-del", false),
    boolean("lazyfree-lazy-user-del", false),
    boolean("lazyfree-lazy-user-flush", false),
    boolean("repl-disable-tcp-nodelay", false),
    boolean("repl-diskless-sync", true),
    boolean("aof-rewrite-incremental-fsync", true),
    boolean("no-appendfsync-on-rewrite", false),
    boolean("cluster-require-full-coverage", true),
    boolean("rdb-save-incremental-fsync", true),
    boolean("aof-load-truncated", true),
    boolean("aof-use-rdb-preamble", true),
    boolean("aof-timestamp-enabled", false),
    boolean("cluster-replica-no-failover", false).alias("cluster-slave-no-failover"),
    boolean("replica-lazy-flush", false).alias("slave-lazy-flush"),
    boolean("replica-serve-stale-data", true).alias("slave-serve-stale-data"),
    boolean("replica-read-only", true).alias("slave-read-only"),
    boolean("replica-ignore-maxmemory", true).alias("slave-ignore-maxmemory"),
    boolean("jemalloc-bg-thread", true),
    boolean("activedefrag", false),
    boolean("syslog-enabled", false).flags(IMMUTABLE),
    boolean("cluster-enabled", false).flags(IMMUTABLE),
    boolean("appendonly", false),
    boolean("cluster-allow-reads-when-down", false),
    boolean("cluster-allow-pubsubshard-when-down", true),
    boolean("crash-log-enabled", true),
    boolean("crash-memcheck-enabled", true),
    boolean("use-exit-on-panic", false).flags(HIDDEN),
    boolean("disable-thp", true).flags(IMMUTABLE),
    boolean("cluster-allow-replica-migration", true),
    boolean("replica-announced", true),
    boolean("latency-tracking", true),
    boolean("aof-disable-auto-gc", false),
    boolean("replica-ignore-disk-write-errors", false),
    // Strings.
    string("aclfile", "").flags(IMMUTABLE),
    string("unixsocket", "").flags(IMMUTABLE),
    string("pidfile", "").flags(IMMUTABLE),
    string("replica-announce-ip", "").alias("slave-announce-ip"),
    string("masteruser", ""),
    string("cluster-announce-ip", ""),
    string("cluster-config-file", "nodes.conf").flags(IMMUTABLE),
    string("cluster-announce-hostname", ""),
    string("syslog-ident", "redis").flags(IMMUTABLE),
    string("dbfilename", "dump.rdb").flags(PROTECTED),
    string("appendfilename", "appendonly.aof").flags(IMMUTABLE),
    string("appenddirname", "appendonlydir").flags(IMMUTABLE),
    string("server_cpulist", "").flags(IMMUTABLE),
    string("bio_cpulist", "").flags(IMMUTABLE),
    string("aof_rewrite_cpulist", "").flags(IMMUTABLE),
    string("bgsave_cpulist", "").flags(IMMUTABLE),
    string("ignore-warnings", ""),
    string("proc-title-template", "{title} {listen-addr} {server-mode}"),
    string("bind-source-addr", ""),
    string("logfile", "").flags(IMMUTABLE),
    string("masterauth", ""),
    string("requirepass", ""),
    string("dir", "/").flags(PROTECTED),
    string("replicaof", "")
        .alias("slaveof")
        .flags(IMMUTABLE | MULTI_ARG),
    // Enums.
    one_of("supervised", SUPERVISED, "no").flags(IMMUTABLE),
    one_of("syslog-facility", SYSLOG_FACILITIES, "local0").flags(IMMUTABLE),
    one_of("repl-diskless-load", DISKLESS_LOAD, "disabled"),
    one_of("loglevel", LOGLEVELS, "notice"),
    one_of("maxmemory-policy", MAXMEMORY_POLICIES, "noeviction"),
    one_of("appendfsync", FSYNC, "everysec"),
    one_of("oom-score-adj", OOM_SCORE_ADJ, "no"),
    one_of("acl-pubsub-default", ACL_PUBSUB_DEFAULT, "resetchannels"),
    one_of("sanitize-dump-payload", SANITIZE, "no"),
    one_of("enable-protected-configs", PROTECTED_ACTION, "no").flags(IMMUTABLE),
    one_of("enable-debug-command", PROTECTED_ACTION, "no").flags(IMMUTABLE),
    one_of("enable-module-command", PROTECTED_ACTION, "no").flags(IMMUTABLE),
    one_of("cluster-preferred-endpoint-type", ENDPOINT_TYPE, "ip"),
    one_of("propagation-error-behavior", PROPAGATION_ERROR, "ignore"),
    Param::new(
        "shutdown-on-sigint",
        Kind::EnumFlags(SHUTDOWN_ON_SIG),
        "default",
    )
    .flags(MULTI_ARG),
    Param::new(
        "shutdown-on-sigterm",
        Kind::EnumFlags(SHUTDOWN_ON_SIG),
        "default",
    )
    .flags(MULTI_ARG),
    // Signed integers.
    int("databases", 1, INT_MAX, "16").flags(IMMUTABLE),
    int("port", 0, 65535, "6379"),
    int("io-threads", 1, 128, "1").flags(IMMUTABLE),
    int("auto-aof-rewrite-percentage", 0, INT_MAX, "100"),
    int("cluster-replica-validity-factor", 0, INT_MAX, "10").alias("cluster-slave-validity-factor"),
    int("list-max-listpack-size", INT_MIN, INT_MAX, "-2").alias("list-max-ziplist-size"),
    int("tcp-keepalive", 0, INT_MAX, "300"),
    int("cluster-migration-barrier", 0, INT_MAX, "1"),
    int("active-defrag-cycle-min", 1, 99, "1"),
    int("active-defrag-cycle-max", 1, 99, "25"),
    int("active-defrag-threshold-lower", 0, 1000, "10"),
    int("active-defrag-threshold-upper", 0, 1000, "100"),
    int("lfu-log-factor", 0, INT_MAX, "10"),
    int("lfu-decay-time", 0, INT_MAX, "1"),
    int("replica-priority", 0, INT_MAX, "100").alias("slave-priority"),
    int("repl-diskless-sync-delay", 0, INT_MAX, "5"),
    int("maxmemory-samples", 1, INT_MAX, "5"),
    int("maxmemory-eviction-tenacity", 0, 100, "10"),
    int("timeout", 0, INT_MAX, "0"),
    int("replica-announce-port", 0, 65535, "0").alias("slave-announce-port"),
    int("tcp-backlog", 0, INT_MAX, "511").flags(IMMUTABLE),
    int("cluster-port", 0, 65535, "0").flags(IMMUTABLE),
    int("cluster-announce-bus-port", 0, 65535, "0"),
    int("cluster-announce-port", 0, 65535, "0"),
    int("cluster-announce-tls-port", 0, 65535, "0"),
    int("repl-timeout", 1, INT_MAX, "60"),
    int("repl-ping-replica-period", 1, INT_MAX, "10").alias("repl-ping-slave-period"),
    int("list-compress-depth", 0, INT_MAX, "0"),
    int("rdb-key-save-delay", INT_MIN, INT_MAX, "0").flags(HIDDEN),
    int("key-load-delay", INT_MIN, INT_MAX, "0").flags(HIDDEN),
    int("active-expire-effort", 1, 10, "1"),
    int("hz", 0, INT_MAX, "10"),
    int("min-replicas-to-write", 0, INT_MAX, "0").alias("min-slaves-to-write"),
    int("min-replicas-max-lag", 0, INT_MAX, "10").alias("min-slaves-max-lag"),
    int("watchdog-period", 0, INT_MAX, "0").flags(HIDDEN),
    int("shutdown-timeout", 0, INT_MAX, "10"),
    int("repl-diskless-sync-max-replicas", 0, INT_MAX, "0"),
    int("active-defrag-max-scan-fields", 1, LONG_MAX, "1000"),
    int("slowlog-max-len", 0, LONG_MAX, "128"),
    int("acllog-max-len", 0, LONG_MAX, "128"),
    int("busy-reply-threshold", 0, LONG_MAX, "5000").alias("lua-time-limit"),
    int("cluster-node-timeout", 0, LONG_MAX, "15000"),
    int("slowlog-log-slower-than", -1, LONG_MAX, "10000"),
    int("latency-monitor-threshold", 0, LONG_MAX, "0"),
    mem("proto-max-bulk-len", 1024 * 1024, LONG_MAX, "536870912"),
    int("stream-node-max-entries", 0, LONG_MAX, "100"),
    mem("repl-backlog-size", 1, LONG_MAX, "1048576"),
    int("repl-backlog-ttl", 0, LONG_MAX, "3600"),
    mem("auto-aof-rewrite-min-size", 0, LONG_MAX, "67108864"),
    int(
        "loading-process-events-interval-bytes",
        1024,
        INT_MAX,
        "2097152",
    )
    .flags(HIDDEN),
    Param::new(
        "maxmemory-clients",
        Kind::Int {
            min: -100,
            max: LONG_MAX,
            unit: Unit::MemoryOrPercent,
        },
        "0",
    ),
    // Unsigned integers.
    uint("maxclients", 1, u32::MAX as u64, "10000"),
    Param::new(
        "unixsocketperm",
        Kind::Uint {
            min: 0,
            max: 0o777,
            unit: Unit::Octal,
        },
        "0",
    )
    .flags(IMMUTABLE),
    uint("socket-mark-id", 0, u32::MAX as u64, "0").flags(IMMUTABLE),
    umem("maxmemory", 0, u64::MAX, "0"),
    umem("cluster-link-sendbuf-limit", 0, u64::MAX, "0"),
    uint("hash-max-listpack-entries", 0, LONG_MAX as u64, "512").alias("hash-max-ziplist-entries"),
    uint("set-max-intset-entries", 0, LONG_MAX as u64, "512"),
    uint("zset-max-listpack-entries", 0, LONG_MAX as u64, "128").alias("zset-max-ziplist-entries"),
    umem(
        "active-defrag-ignore-bytes",
        1,
        LONG_MAX as u64,
        "104857600",
    ),
    umem("hash-max-listpack-value", 0, LONG_MAX as u64, "64").alias("hash-max-ziplist-value"),
    umem("stream-node-max-bytes", 0, LONG_MAX as u64, "4096"),
    umem("zset-max-listpack-value", 0, LONG_MAX as u64, "64").alias("zset-max-ziplist-value"),
    umem("hll-sparse-max-bytes", 0, LONG_MAX as u64, "3000"),
    uint("tracking-table-max-keys", 0, LONG_MAX as u64, "1000000"),
    umem(
        "client-query-buffer-limit",
        1024 * 1024,
        LONG_MAX as u64,
        "1073741824",
    ),
    // Their own syntax.
    special("save", Special::Save, "3600 1 300 100 60 10000").flags(MULTI_ARG),
    special(
        "client-output-buffer-limit",
        Special::ClientOutputBufferLimit,
        "normal 0 0 0 slave 268435456 67108864 60 pubsub 33554432 8388608 60",
    )
    .flags(MULTI_ARG),
    special(
        "oom-score-adj-values",
        Special::OomScoreAdjValues,
        "0 200 800",
    )
    .flags(MULTI_ARG),
    special("notify-keyspace-events", Special::NotifyKeyspaceEvents, ""),
    special("bind", Special::Bind, "* -::*").flags(MULTI_ARG),
    special(
        "latency-tracking-info-percentiles",
        Special::LatencyPercentiles,
        "50 99 99.9",
    )
    .flags(MULTI_ARG),
];

/// Finds a parameter by name or alias, ignoring ASCII case. **O(1).**
pub fn lookup(name: &[u8]) -> Option<&'static Param> {
    lookup_named(name).map(|(_, p)| p)
}

/// Like [`lookup`], also returning the name that matched in its table spelling (the alias
/// when the alias was given). Redis 7.0 registers an alias as an entry of its own, so
/// errors name it and `CONFIG SET` takes a name and its alias as two parameters. **O(1).**
pub fn lookup_named(name: &[u8]) -> Option<(&'static str, &'static Param)> {
    static INDEX: OnceLock<HashMap<&'static str, (&'static str, &'static Param)>> = OnceLock::new();
    let index = INDEX.get_or_init(|| {
        let mut m = HashMap::new();
        for p in PARAMS {
            m.insert(p.name, (p.name, p));
            if let Some(a) = p.alias {
                m.insert(a, (a, p));
            }
        }
        m
    });
    if name.len() > 64 {
        return None;
    }
    let lower = std::str::from_utf8(name).ok()?.to_ascii_lowercase();
    index.get(lower.as_str()).copied()
}

impl Config {
    /// Every parameter at its default.
    pub fn with_defaults() -> Config {
        let mut config = Config {
            // Inserted one by one: `collect` would sort first, compiling one more copy of
            // the standard sort into the web app for the same map.
            values: PARAMS.iter().fold(BTreeMap::new(), |mut m, p| {
                m.insert(p.name.to_string(), p.default.to_string());
                m
            }),
            obuf_limits: [(0, 0, 0); 3],
            keyspace_events: 0,
            cluster_enabled: false,
            slowlog: (0, 0),
            eviction: super::evict::Settings::default(),
        };
        config.refresh_parsed();
        config
    }

    /// Re-parses the values that hot paths read in parsed form.
    fn refresh_parsed(&mut self) {
        self.obuf_limits = parse_obuf(self.get("client-output-buffer-limit").unwrap_or(""));
        let text = self.get("notify-keyspace-events").unwrap_or("");
        self.keyspace_events = if text.is_empty() {
            0
        } else {
            keyspace_event_flags(text).unwrap_or(0)
        };
        self.cluster_enabled = self.get("cluster-enabled") == Some("yes");
        self.slowlog = (
            self.int("slowlog-log-slower-than"),
            self.size("slowlog-max-len"),
        );
        self.eviction = super::evict::Settings {
            maxmemory: self
                .get("maxmemory")
                .and_then(|v| v.parse().ok())
                .unwrap_or(0),
            policy: super::evict::Policy::parse(self.get("maxmemory-policy").unwrap_or("")),
            samples: self.size("maxmemory-samples").max(1),
            lfu_log_factor: self.int("lfu-log-factor"),
            lfu_decay_time: self.int("lfu-decay-time"),
        };
    }

    /// The value of a parameter (by name or alias, any case) as `CONFIG GET` shows it.
    /// **O(1)** for aliases and odd cases, O(log P) for canonical names.
    pub fn get(&self, name: &str) -> Option<&str> {
        if let Some(v) = self.values.get(name) {
            return Some(v);
        }
        let p = lookup(name.as_bytes())?;
        Some(
            self.values
                .get(p.name)
                .map(String::as_str)
                .unwrap_or(p.default),
        )
    }

    /// Checks `value` for the parameter and returns its normalised text, or Redis's reason
    /// for refusing it (the text after `CONFIG SET failed (...) - `). `current` is the
    /// parameter's present value, which `client-output-buffer-limit` only partly replaces.
    pub fn normalize(param: &Param, value: &[u8], current: &str) -> Result<String, String> {
        let text = String::from_utf8_lossy(value);
        let args: Vec<&str> = if param.flags & MULTI_ARG != 0 {
            if text.is_empty() {
                Vec::new()
            } else {
                text.split(' ').collect()
            }
        } else {
            vec![&text]
        };
        check(param, &text, &args, current)
    }

    /// Sets a parameter to an already normalised value, applying Redis's side rules (`hz`
    /// is capped to 1..=500).
    pub fn set_normalized(&mut self, name: &'static str, value: String) {
        let value = match name {
            "hz" => parse_i64(value.as_bytes())
                .map(|v| v.clamp(1, 500).to_string())
                .unwrap_or(value),
            _ => value,
        };
        self.values.insert(name.to_string(), value);
        if matches!(
            name,
            "client-output-buffer-limit"
                | "notify-keyspace-events"
                | "cluster-enabled"
                | "slowlog-log-slower-than"
                | "slowlog-max-len"
                | "maxmemory"
                | "maxmemory-policy"
                | "maxmemory-samples"
                | "lfu-log-factor"
                | "lfu-decay-time"
        ) {
            self.refresh_parsed();
        }
    }

    /// A numeric parameter's value, parsed (0 when it is not a number). For unsigned
    /// parameters above `i64::MAX` this saturates.
    pub fn int(&self, name: &str) -> i64 {
        let Some(v) = self.get(name) else { return 0 };
        if let Some(pct) = v.strip_suffix('%') {
            return -parse_i64(pct.as_bytes()).unwrap_or(0);
        }
        parse_i64(v.as_bytes())
            .or_else(|| {
                v.parse::<u64>()
                    .ok()
                    .map(|u| i64::try_from(u).unwrap_or(i64::MAX))
            })
            .unwrap_or(0)
    }

    /// A numeric parameter as `usize` (negative values give 0).
    fn size(&self, name: &str) -> usize {
        usize::try_from(self.int(name)).unwrap_or(usize::MAX)
    }

    /// `cluster-enabled`: whether the engine acts as a one-node Redis Cluster.
    pub fn cluster_enabled(&self) -> bool {
        self.cluster_enabled
    }

    /// A boolean parameter.
    pub fn flag(&self, name: &str) -> bool {
        self.get(name) == Some("yes")
    }

    /// `hash-max-listpack-entries`: the most fields a hash keeps in a listpack.
    pub fn hash_max_listpack_entries(&self) -> usize {
        self.size("hash-max-listpack-entries")
    }

    /// `hash-max-listpack-value`: the longest field or value a listpack hash keeps.
    pub fn hash_max_listpack_value(&self) -> usize {
        self.size("hash-max-listpack-value")
    }

    /// `set-max-intset-entries`: the most members an all-integer set keeps in an intset.
    pub fn set_max_intset_entries(&self) -> usize {
        self.size("set-max-intset-entries")
    }

    /// `zset-max-listpack-entries`: the most members a sorted set keeps in a listpack.
    pub fn zset_max_listpack_entries(&self) -> usize {
        self.size("zset-max-listpack-entries")
    }

    /// `zset-max-listpack-value`: the longest member a listpack sorted set keeps.
    pub fn zset_max_listpack_value(&self) -> usize {
        self.size("zset-max-listpack-value")
    }

    /// `list-max-listpack-size`: positive = entries per quicklist node, negative = node
    /// size class (-1 = 4 KB … -5 = 64 KB).
    pub fn list_max_listpack_size(&self) -> i64 {
        self.int("list-max-listpack-size")
    }

    /// `list-compress-depth`.
    pub fn list_compress_depth(&self) -> usize {
        self.size("list-compress-depth")
    }

    /// `proto-max-bulk-len`: the longest string a command may create, in bytes.
    pub fn proto_max_bulk_len(&self) -> u64 {
        u64::try_from(self.int("proto-max-bulk-len")).unwrap_or(u64::MAX)
    }

    /// `maxmemory` in bytes (0 = no limit). **O(1)**: parsed when set.
    pub fn maxmemory(&self) -> u64 {
        self.eviction.maxmemory
    }

    /// `maxmemory`, `maxmemory-policy`, `maxmemory-samples` and the LFU parameters.
    /// **O(1)**: parsed when set.
    pub fn eviction(&self) -> &super::evict::Settings {
        &self.eviction
    }

    /// `maxmemory-policy`, e.g. `noeviction`.
    pub fn maxmemory_policy(&self) -> &str {
        self.get("maxmemory-policy").unwrap_or("noeviction")
    }

    /// `notify-keyspace-events`, normalised (`""` when off, `"AKE"` for everything).
    pub fn notify_keyspace_events(&self) -> &str {
        self.get("notify-keyspace-events").unwrap_or("")
    }

    /// `notify-keyspace-events` as class bits (see [`super::pubsub::class`]); 0 when off.
    /// **O(1)**: parsed when set.
    pub fn keyspace_events(&self) -> u32 {
        self.keyspace_events
    }

    /// `client-output-buffer-limit` as `(hard bytes, soft bytes, soft seconds)` for the
    /// classes normal, replica and pubsub, in that order.
    pub fn client_output_buffer_limits(&self) -> [(u64, u64, i64); 3] {
        self.obuf_limits
    }

    /// `hz`: active-expiry cycles per second.
    pub fn hz(&self) -> i64 {
        self.int("hz")
    }

    /// `timeout`: seconds of idleness after which a client is closed (0 = never).
    pub fn timeout(&self) -> i64 {
        self.int("timeout")
    }

    /// `maxclients`.
    pub fn maxclients(&self) -> i64 {
        self.int("maxclients")
    }

    /// `busy-reply-threshold` (alias `lua-time-limit`), milliseconds.
    pub fn busy_reply_threshold(&self) -> i64 {
        self.int("busy-reply-threshold")
    }

    /// True when `requirepass` is set: the `default` user has a password, so new
    /// connections must authenticate.
    pub fn password_required(&self) -> bool {
        self.get("requirepass").is_some_and(|p| !p.is_empty())
    }

    /// `slowlog-log-slower-than` (microseconds; negative: off) and `slowlog-max-len`.
    /// **O(1)**: parsed when set.
    pub fn slowlog(&self) -> (i64, usize) {
        self.slowlog
    }
}

/// Checks one parameter's value (split into `args` for multi-argument parameters) and
/// returns the normalised text.
fn check(param: &Param, text: &str, args: &[&str], current: &str) -> Result<String, String> {
    match param.kind {
        Kind::Bool => {
            if text.eq_ignore_ascii_case("yes") {
                Ok("yes".into())
            } else if text.eq_ignore_ascii_case("no") {
                Ok("no".into())
            } else {
                Err("argument must be 'yes' or 'no'".into())
            }
        }
        Kind::Int { min, max, unit } => {
            let v = parse_number(text, unit)?;
            if unit == Unit::MemoryOrPercent && v < 0 {
                if v < min {
                    return Err(format!(
                        "percentage argument must be less or equal to {}",
                        -min
                    ));
                }
            } else if v < min || v > max {
                return Err(format!(
                    "argument must be between {min} and {max} inclusive"
                ));
            }
            Ok(show_number(v, unit))
        }
        Kind::Uint { min, max, unit } => {
            let v = parse_number(text, unit)? as u64;
            if v < min || v > max {
                return Err(if unit == Unit::Octal {
                    format!("argument must be between {min:o} and {max:o} inclusive")
                } else {
                    format!("argument must be between {min} and {max} inclusive")
                });
            }
            Ok(match unit {
                Unit::Octal => format!("{v:o}"),
                Unit::Memory => v.to_string(),
                _ => (v as i64).to_string(),
            })
        }
        Kind::Enum(names) => {
            let value = match args {
                [one] => names
                    .iter()
                    .find(|(n, _)| n.eq_ignore_ascii_case(one))
                    .map(|(_, v)| *v),
                _ => None,
            };
            let Some(value) = value else {
                return Err(enum_error(names));
            };
            Ok(names
                .iter()
                .find(|(_, v)| *v == value)
                .map(|(n, _)| n.to_string())
                .unwrap_or_default())
        }
        Kind::EnumFlags(names) => {
            if args.is_empty() {
                return Err(enum_error(names));
            }
            let mut bits = 0;
            for a in args {
                let Some((_, v)) = names.iter().find(|(n, _)| n.eq_ignore_ascii_case(a)) else {
                    return Err(enum_error(names));
                };
                bits |= v;
            }
            if bits & 1 != 0 && bits & 2 != 0 {
                return Err("shutdown options SAVE and NOSAVE can't be used simultaneously".into());
            }
            if let Some((n, _)) = names.iter().find(|(_, v)| *v == bits) {
                return Ok(n.to_string());
            }
            // Several flags are shown in table order, as Redis's `configEnumGetName` does.
            let mut out: Vec<&str> = Vec::new();
            for (n, v) in names.iter() {
                if *v != 0 && bits & v == *v {
                    out.push(n);
                }
            }
            Ok(out.join(" "))
        }
        Kind::Str => Ok(text.to_string()),
        Kind::Special(s) => check_special(s, text, args, current),
    }
}

fn enum_error(names: &[(&str, u32)]) -> String {
    let list: Vec<&str> = names.iter().map(|(n, _)| *n).collect();
    format!(
        "argument(s) must be one of the following: {}",
        list.join(", ")
    )
}

/// Parses a numeric value as Redis's `numericParseString` does for the given unit.
fn parse_number(text: &str, unit: Unit) -> Result<i64, String> {
    match unit {
        Unit::Plain => {
            parse_i64(text.as_bytes()).ok_or("argument couldn't be parsed into an integer".into())
        }
        Unit::Memory => parse_memory(text)
            .map(|v| v as i64)
            .ok_or("argument must be a memory value".into()),
        Unit::MemoryOrPercent => {
            if let Some(v) = parse_memory(text) {
                return Ok(v as i64);
            }
            if text.len() > 1 {
                if let Some(n) = text
                    .strip_suffix('%')
                    .and_then(|d| parse_i64(d.as_bytes()))
                    .filter(|n| *n >= 0)
                {
                    return Ok(-n);
                }
            }
            Err("argument must be a memory or percent value".into())
        }
        Unit::Octal => {
            let (neg, digits) = match text.strip_prefix('-') {
                Some(d) => (true, d),
                None => (false, text.strip_prefix('+').unwrap_or(text)),
            };
            if digits.is_empty() || !digits.bytes().all(|c| (b'0'..=b'7').contains(&c)) {
                return Err("argument couldn't be parsed as an octal number".into());
            }
            let v = i64::from_str_radix(digits, 8)
                .map_err(|_| "argument couldn't be parsed as an octal number".to_string())?;
            Ok(if neg { -v } else { v })
        }
    }
}

fn show_number(v: i64, unit: Unit) -> String {
    match unit {
        Unit::MemoryOrPercent if v < 0 => format!("{}%", v.unsigned_abs()),
        Unit::Memory | Unit::MemoryOrPercent => (v as u64).to_string(),
        Unit::Octal => format!("{v:o}"),
        Unit::Plain => v.to_string(),
    }
}

/// Redis's `memtoull`: decimal digits followed by an optional unit (`b`, `k` = 1000, `kb`
/// = 1024, `m`, `mb`, `g`, `gb`, any case). A leading `-` or anything else fails. Like
/// Redis, a product that overflows wraps.
pub fn parse_memory(text: &str) -> Option<u64> {
    let digits_end = text
        .bytes()
        .position(|c| !c.is_ascii_digit())
        .unwrap_or(text.len());
    let (digits, unit) = text.split_at(digits_end);
    let mul: u64 = match unit.to_ascii_lowercase().as_str() {
        "" | "b" => 1,
        "k" => 1000,
        "kb" => 1024,
        "m" => 1000 * 1000,
        "mb" => 1024 * 1024,
        "g" => 1000 * 1000 * 1000,
        "gb" => 1024 * 1024 * 1024,
        _ => return None,
    };
    if digits.is_empty() {
        // strtoull("") gives 0 with no error.
        return Some(0);
    }
    let v = digits
        .bytes()
        .try_fold(0u64, |acc, c| {
            acc.checked_mul(10)?.checked_add(u64::from(c - b'0'))
        })
        .unwrap_or(u64::MAX);
    Some(v.wrapping_mul(mul))
}

/// C's `strtoll(s, &end, 10)` requiring `*end == '\0'`: optional leading spaces and sign,
/// digits, saturating on overflow. `None` when there is no digit or junk follows.
fn strtoll_whole(s: &str) -> Option<i64> {
    let t = s.trim_start_matches([' ', '\t', '\n', '\r', '\x0b', '\x0c']);
    let (neg, digits) = match t.as_bytes().first() {
        Some(b'-') => (true, &t[1..]),
        Some(b'+') => (false, &t[1..]),
        _ => (false, t),
    };
    if digits.is_empty() {
        // Nothing was parsed: strtoll leaves end at the start, which is '\0' only for "".
        return if s.is_empty() { Some(0) } else { None };
    }
    if !digits.bytes().all(|c| c.is_ascii_digit()) {
        return None;
    }
    let mut v: i128 = 0;
    for c in digits.bytes() {
        v = (v * 10 + i128::from(c - b'0')).min(i128::from(i64::MAX) + 1);
    }
    let v = if neg { -v } else { v };
    Some(v.clamp(i128::from(i64::MIN), i128::from(i64::MAX)) as i64)
}

fn check_special(
    kind: Special,
    text: &str,
    args: &[&str],
    current: &str,
) -> Result<String, String> {
    match kind {
        Special::Save => {
            if args.len() % 2 != 0 {
                return Err("Invalid save parameters".into());
            }
            let mut nums = Vec::with_capacity(args.len());
            for (j, a) in args.iter().enumerate() {
                let v = strtoll_whole(a).ok_or("Invalid save parameters")?;
                if (j % 2 == 0 && v < 1) || (j % 2 == 1 && v < 0) {
                    return Err("Invalid save parameters".into());
                }
                nums.push(v);
            }
            Ok(nums
                .chunks(2)
                .map(|p| format!("{} {}", p[0], p[1] as i32))
                .collect::<Vec<_>>()
                .join(" "))
        }
        Special::NotifyKeyspaceEvents => {
            let flags = keyspace_event_flags(text)
                .ok_or("Invalid event class character. Use 'Ag$lshzxeKEtmdn'.")?;
            // Kept lossless: the display form collapses the classes into `A`, which does not
            // include `n` (new-key events), yet Redis keeps `n` set behind it. `CONFIG GET`
            // shows the display form.
            let mut stored = keyspace_event_string(flags);
            if flags & ALL == ALL && flags & NEW != 0 {
                stored.push('n');
            }
            Ok(stored)
        }
        Special::Bind => {
            if args.len() > 16 {
                return Err("Too many bind addresses specified.".into());
            }
            Ok(args.join(" "))
        }
        Special::ClientOutputBufferLimit => {
            if args.len() % 4 != 0 {
                return Err("Wrong number of arguments in buffer limit configuration.".into());
            }
            // normal, slave, pubsub: the classes named replace the current ones.
            let mut classes = parse_obuf(current);
            for group in args.chunks(4) {
                let class = match group[0].to_ascii_lowercase().as_str() {
                    "normal" => 0,
                    "slave" | "replica" => 1,
                    "pubsub" => 2,
                    _ => {
                        return Err(
                            "Invalid client class specified in buffer limit configuration.".into(),
                        )
                    }
                };
                let err =
                    "Error in hard, soft or soft_seconds setting in buffer limit configuration.";
                let hard = parse_memory(group[1]).ok_or(err)?;
                let soft = parse_memory(group[2]).ok_or(err)?;
                let secs = strtoll_whole(group[3]).filter(|s| *s >= 0).ok_or(err)?;
                classes[class] = (hard, soft, secs);
            }
            Ok(render_obuf(&classes))
        }
        Special::OomScoreAdjValues => {
            if args.len() != 3 {
                return Err("wrong number of arguments".into());
            }
            let mut out = Vec::new();
            for a in args {
                let v = strtoll_whole(a)
                    .filter(|v| (-2000..=2000).contains(v))
                    .ok_or(
                        "Invalid oom-score-adj-values, elements must be between -2000 and 2000.",
                    )?;
                out.push(v.to_string());
            }
            Ok(out.join(" "))
        }
        Special::LatencyPercentiles => {
            if args.len() == 1 && args[0].is_empty() {
                return Ok(String::new());
            }
            let mut out = Vec::new();
            for a in args {
                let v = super::args::parse_f64(a.as_bytes())
                    .ok_or("Invalid latency-tracking-info-percentiles parameters")?;
                if !(0.0..=100.0).contains(&v) {
                    return Err(
                        "latency-tracking-info-percentiles parameters should sit between [0.0,100.0]"
                            .into(),
                    );
                }
                let fixed = format!("{v:.6}");
                out.push(
                    fixed
                        .trim_end_matches('0')
                        .trim_end_matches('.')
                        .to_string(),
                );
            }
            Ok(out.join(" "))
        }
    }
}

/// Reads a normalised `client-output-buffer-limit` value (normal, slave, pubsub).
fn parse_obuf(text: &str) -> [(u64, u64, i64); 3] {
    let mut out = [
        (0, 0, 0),
        (268435456, 67108864, 60),
        (33554432, 8388608, 60),
    ];
    let words: Vec<&str> = text.split(' ').collect();
    for (slot, group) in out.iter_mut().zip(words.chunks(4)) {
        if let [_, h, s, t] = group {
            *slot = (
                h.parse().unwrap_or(0),
                s.parse().unwrap_or(0),
                t.parse().unwrap_or(0),
            );
        }
    }
    out
}

/// The `client-output-buffer-limit` text.
fn render_obuf(classes: &[(u64, u64, i64); 3]) -> String {
    let names = ["normal", "slave", "pubsub"];
    names
        .iter()
        .zip(classes.iter())
        .map(|(n, (h, s, t))| format!("{n} {h} {s} {t}"))
        .collect::<Vec<_>>()
        .join(" ")
}

use super::pubsub::class::{
    ALL, EVICTED, EXPIRED, GENERIC as G, HASH, KEYEVENT as E, KEYSPACE as K, KEY_MISS as MISS,
    LIST, MODULE, NEW, SET, STREAM, STRING, ZSET,
};

/// Parses `notify-keyspace-events` class characters into flags (`None` for an unknown one).
pub fn keyspace_event_flags(classes: &str) -> Option<u32> {
    let mut flags = 0;
    for c in classes.chars() {
        flags |= match c {
            'A' => ALL,
            'g' => G,
            '$' => STRING,
            'l' => LIST,
            's' => SET,
            'h' => HASH,
            'z' => ZSET,
            'x' => EXPIRED,
            'e' => EVICTED,
            'K' => K,
            'E' => E,
            't' => STREAM,
            'm' => MISS,
            'd' => MODULE,
            'n' => NEW,
            _ => return None,
        };
    }
    Some(flags)
}

/// The canonical text of keyspace-event flags, as `CONFIG GET` shows it.
pub fn keyspace_event_string(flags: u32) -> String {
    let mut s = String::new();
    if flags & ALL == ALL {
        s.push('A');
    } else {
        for (bit, c) in [
            (G, 'g'),
            (STRING, '$'),
            (LIST, 'l'),
            (SET, 's'),
            (HASH, 'h'),
            (ZSET, 'z'),
            (EXPIRED, 'x'),
            (EVICTED, 'e'),
            (STREAM, 't'),
            (MODULE, 'd'),
            (NEW, 'n'),
        ] {
            if flags & bit != 0 {
                s.push(c);
            }
        }
    }
    for (bit, c) in [(K, 'K'), (E, 'E'), (MISS, 'm')] {
        if flags & bit != 0 {
            s.push(c);
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique() {
        let mut seen = std::collections::HashSet::new();
        for p in PARAMS {
            assert!(seen.insert(p.name), "duplicate {}", p.name);
            if let Some(a) = p.alias {
                assert!(seen.insert(a), "duplicate alias {a}");
            }
        }
    }

    #[test]
    fn defaults_pass_their_own_checks() {
        for p in PARAMS {
            let got = Config::normalize(p, p.default.as_bytes(), p.default);
            assert_eq!(got.as_deref(), Ok(p.default), "{}", p.name);
        }
    }

    #[test]
    fn memory_units_follow_memtoull() {
        assert_eq!(parse_memory("1k"), Some(1000));
        assert_eq!(parse_memory("1KB"), Some(1024));
        assert_eq!(parse_memory("2mb"), Some(2 * 1024 * 1024));
        assert_eq!(parse_memory("3g"), Some(3_000_000_000));
        assert_eq!(parse_memory("-1"), None);
        assert_eq!(parse_memory("1.5mb"), None);
        assert_eq!(parse_memory("1tb"), None);
    }

    #[test]
    fn numbers_are_checked_like_redis() {
        let p = lookup(b"maxclients").unwrap();
        assert_eq!(
            Config::normalize(p, b"-1", ""),
            Err("argument must be between 1 and 4294967295 inclusive".into())
        );
        let p = lookup(b"hz").unwrap();
        assert_eq!(
            Config::normalize(p, b"abc", ""),
            Err("argument couldn't be parsed into an integer".into())
        );
        let p = lookup(b"maxmemory-clients").unwrap();
        assert_eq!(Config::normalize(p, b"10%", ""), Ok("10%".into()));
        assert_eq!(
            Config::normalize(p, b"101%", ""),
            Err("percentage argument must be less or equal to 100".into())
        );
        let mut c = Config::with_defaults();
        c.set_normalized("maxmemory-clients", "10%".into());
        assert_eq!(c.int("maxmemory-clients"), -10);
    }

    #[test]
    fn hz_is_capped() {
        let mut c = Config::with_defaults();
        c.set_normalized("hz", "1000".into());
        assert_eq!(c.hz(), 500);
        c.set_normalized("hz", "0".into());
        assert_eq!(c.hz(), 1);
    }

    #[test]
    fn keyspace_events_round_trip() {
        assert_eq!(
            keyspace_event_string(keyspace_event_flags("KEA").unwrap()),
            "AKE"
        );
        assert_eq!(
            keyspace_event_string(keyspace_event_flags("Exg").unwrap()),
            "gxE"
        );
        assert_eq!(keyspace_event_flags("Q"), None);
    }

    #[test]
    fn accessors_read_typed_values() {
        let c = Config::with_defaults();
        assert_eq!(c.hash_max_listpack_entries(), 512);
        assert_eq!(c.zset_max_listpack_entries(), 128);
        assert_eq!(c.list_max_listpack_size(), -2);
        assert_eq!(c.proto_max_bulk_len(), 512 * 1024 * 1024);
        assert_eq!(c.maxmemory_policy(), "noeviction");
        assert!(c.flag("activerehashing"));
        assert_eq!(c.get("lua-time-limit"), Some("5000"));
    }
}
