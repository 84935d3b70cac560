//! Configuration and statistics: the parsed forms of the parameters read on every command
//! ([`Config`]; its parameter table and accessors are in [`crate::engine::config`]) and the
//! counters `INFO` reports ([`Stats`]).

use std::collections::BTreeMap;

use crate::engine::evict;

/// Configuration parameters the engine understands (`CONFIG GET/SET`); the parameter
/// table, checks and typed accessors are in [`config`](crate::engine::config).
#[derive(Debug, Clone)]
pub struct Config {
    /// Canonical parameter name → its normalised value, as `CONFIG GET` shows it. Change
    /// it through [`Config::set_normalized`], which keeps the parsed forms below current.
    pub values: std::collections::BTreeMap<String, String>,
    /// `client-output-buffer-limit`, parsed: read on every queued reply, so parsed once.
    pub(crate) obuf_limits: [(u64, u64, i64); 3],
    /// `notify-keyspace-events` as class bits: read on every write, so parsed once.
    pub(crate) keyspace_events: u32,
    /// `cluster-enabled`: read on every command, so parsed once.
    pub(crate) cluster_enabled: bool,
    /// `slowlog-log-slower-than` and `slowlog-max-len`: read after every command, so
    /// parsed once.
    pub(crate) slowlog: (i64, usize),
    /// `maxmemory`, its policy and the LFU parameters: read before every command, so
    /// parsed once.
    pub(crate) eviction: evict::Settings,
}

/// Counters reported by `INFO`.
#[derive(Debug, Clone, Default)]
pub struct Stats {
    /// Commands executed.
    pub commands: u64,
    /// Connections accepted.
    pub connections: u64,
    /// Keys removed because they expired.
    pub expired_keys: u64,
    /// Keys removed to stay within `maxmemory`.
    pub evicted_keys: u64,
    /// Lookups that found a key.
    pub keyspace_hits: u64,
    /// Lookups that found nothing.
    pub keyspace_misses: u64,
    /// Unix milliseconds when the engine started.
    pub start_ms: i64,
    /// Per-command counts for `INFO commandstats`, keyed by (command, subcommand) names,
    /// the subcommand `""` for a plain command.
    pub per_command: BTreeMap<(&'static str, &'static str), CommandStats>,
}

/// One command's line in `INFO commandstats`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CommandStats {
    /// Times it ran (each command of an EXEC counts).
    pub calls: u64,
    /// Runs that replied with an error.
    pub failed: u64,
    /// Microseconds spent running it, in all.
    pub usec: u64,
    /// Times it was refused before running (arity, inside MULTI, in subscriber context).
    pub rejected: u64,
}
