//! The parameter table, as data: every parameter `redis-server` 7.0 defines with its kind, range,
//! default and flags, and the name tables of its enumerated parameters. The logic that reads it
//! is in [`super`] (lookup, get, set) and [`super::check`] (validation).

use super::spec::{Kind, Param, Special, Unit, HIDDEN, IMMUTABLE, MULTI_ARG, PROTECTED};

const INT_MAX: i64 = i32::MAX as i64;
const INT_MIN: i64 = i32::MIN as i64;
const LONG_MAX: i64 = i64::MAX;

const fn boolean(name: &'static str, default: bool) -> Param {
    Param::new(name, Kind::Bool, if default { "yes" } else { "no" })
}
pub(super) const fn int(name: &'static str, min: i64, max: i64, default: &'static str) -> Param {
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
    // Debian's fix for CVE-2025-46818: setfenv, getfenv and newproxy are left out of the
    // scripting environment unless this is set at start-up.
    boolean("lua-enable-deprecated-api", false).flags(IMMUTABLE | HIDDEN),
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
