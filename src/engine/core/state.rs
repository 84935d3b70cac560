//! Configuration and statistics: the parsed forms of the parameters read on every command
//! ([`Config`]; its parameter table and accessors are in [`crate::engine::config`]) and the
//! counters `INFO` reports ([`Stats`]).

use std::collections::BTreeMap;

use crate::engine::evict;
use crate::engine::reply::Reply;

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
    /// `min-replicas-to-write` and `min-replicas-max-lag` allow writes (see
    /// [`Config::good_replicas`]): read on every command, so worked out once.
    pub(crate) good_replicas: bool,
    /// `slowlog-log-slower-than` and `slowlog-max-len`: read after every command, so
    /// parsed once.
    pub(crate) slowlog: (i64, usize),
    /// `latency-monitor-threshold` (ms, 0: off) and `latency-tracking`: read after every
    /// command, so parsed once.
    pub(crate) latency: (i64, bool),
    /// `maxmemory`, its policy and the LFU parameters: read before every command, so
    /// parsed once.
    pub(crate) eviction: evict::Settings,
    /// The encodings' thresholds and `proto-max-bulk-len`: read by every write to a
    /// collection (parsing them was 9% of a ZADD's CPU), so parsed once.
    pub(crate) sizes: Sizes,
}

/// The parsed thresholds of [`Config::sizes`](Config).
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Sizes {
    pub(crate) hash_entries: usize,
    pub(crate) hash_value: usize,
    pub(crate) set_intset: usize,
    pub(crate) zset_entries: usize,
    pub(crate) zset_value: usize,
    pub(crate) list_fill: i64,
    pub(crate) list_depth: usize,
    pub(crate) proto_max_bulk: u64,
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
    /// Per-command counts for `INFO commandstats` and latency histograms, keyed by
    /// (command, subcommand) names, the subcommand `""` for a plain command.
    /// A hash map: one lookup per command (the counts and the histogram share it, as they
    /// share Redis's command struct), where a B-tree's string comparisons were a tenth of
    /// kvlab-server's CPU under `redis-benchmark -P 16`; readers sort it
    /// ([`Stats::per_command_sorted`], [`Stats::histograms_sorted`]).
    pub per_command: foldhash::HashMap<crate::engine::latency::StatKey, CommandStats>,
    /// Error replies sent, to clients and to scripts (`total_error_replies`).
    pub error_replies: u64,
    /// Error replies by code, the first word of the error (`INFO errorstats`).
    pub errors: BTreeMap<String, u64>,
    /// `error_replies` when the last command's failure was settled (Redis's
    /// `prev_err_count`, see [`Stats::settle_errors`]).
    pub(crate) settled_errors: u64,
    /// Reply buffers shrunk and grown by the clients' cron (`reply_buffer_shrinks`,
    /// `reply_buffer_expands`; see [`crate::engine::outbox`]).
    pub reply_buffer_resizes: (u64, u64),
}

impl Stats {
    /// The per-command counts in name order (`INFO commandstats`): the commands called,
    /// failed or rejected since the last reset (Redis skips the others too).
    pub fn per_command_sorted(&self) -> Vec<(&crate::engine::latency::StatKey, &CommandStats)> {
        let mut v: Vec<_> = self
            .per_command
            .iter()
            .filter(|(_, s)| s.calls > 0 || s.failed > 0 || s.rejected > 0)
            .collect();
        v.sort_unstable_by_key(|(k, _)| **k);
        v
    }

    /// The latency histograms in command-name order: the commands timed with
    /// `latency-tracking` on since the last reset.
    pub fn histograms_sorted(
        &self,
    ) -> Vec<(
        &crate::engine::latency::StatKey,
        &crate::engine::latency::Histogram,
    )> {
        let mut v: Vec<_> = self
            .per_command
            .iter()
            .filter_map(|(k, s)| Some((k, s.histogram.as_ref()?)))
            .collect();
        v.sort_unstable_by_key(|(k, _)| **k);
        v
    }

    /// Counts one error reply, as Redis's `afterErrorReply`: in `total_error_replies` and
    /// under its code. `text` is the error without its `-`. The code is its first word if
    /// a space ends it within Redis's search (the first 32 bytes of `-text`), else `ERR`:
    /// `MY_CODE` alone or an overlong first word count as `ERR`. **O(log codes).**
    pub(crate) fn count_error(&mut self, text: &str) {
        self.error_replies += 1;
        let head = &text.as_bytes()[..text.len().min(31)];
        let code = match head.iter().position(|&b| b == b' ') {
            Some(end) => &text[..end],
            None => "ERR",
        };
        match self.errors.get_mut(code) {
            Some(n) => *n += 1,
            None => {
                self.errors.insert(code.to_string(), 1);
            }
        }
    }

    /// Counts the errors of a script's reply (Redis's `luaReplyToRedisReply` adding each as an
    /// error reply), in order, but those `counted` says a `redis.call` got, which were counted
    /// at their command. Returns how many were counted already and whether any was counted now.
    pub(crate) fn count_script_errors(&mut self, reply: &Reply, counted: &[bool]) -> (u64, bool) {
        fn walk<'r>(reply: &'r Reply, errors: &mut Vec<&'r str>) {
            match reply {
                Reply::Error(text) => errors.push(text),
                Reply::Array(items) | Reply::Set(items) | Reply::Push(items) => {
                    items.iter().for_each(|r| walk(r, errors))
                }
                Reply::Map(pairs) => pairs.iter().for_each(|(k, v)| {
                    walk(k, errors);
                    walk(v, errors);
                }),
                _ => {}
            }
        }
        let mut errors = Vec::new();
        walk(reply, &mut errors);
        let (mut before, mut now) = (0, false);
        for (i, text) in errors.into_iter().enumerate() {
            if counted.get(i).copied().unwrap_or(false) {
                before += 1;
            } else {
                self.count_error(text);
                now = true;
            }
        }
        (before, now)
    }

    /// True if error replies were counted since the last call (Redis's
    /// `incrCommandStatsOnError`): a command failed if any error was sent while it ran
    /// and after the commands it ran itself (`EXEC`'s, a script's) — `CLIENT UNBLOCK
    /// ... ERROR` fails with the error it sends another client. Each top-level command,
    /// each command run and each refusal of a script's command settles.
    pub(crate) fn settle_errors(&mut self) -> bool {
        let new = self.error_replies != self.settled_errors;
        self.settled_errors = self.error_replies;
        new
    }

    /// Zeroes what `CONFIG RESETSTAT` resets (Redis's `resetServerStats` and
    /// `resetCommandTableStats`, `resetErrorTableStats`).
    pub(crate) fn reset(&mut self) {
        self.commands = 0;
        self.connections = 0;
        self.expired_keys = 0;
        self.keyspace_hits = 0;
        self.keyspace_misses = 0;
        self.per_command.clear();
        self.error_replies = 0;
        self.settled_errors = 0;
        self.errors.clear();
        self.reply_buffer_resizes = (0, 0);
    }
}

/// One command's line in `INFO commandstats`, and its latency histogram.
#[derive(Debug, Clone, Default)]
pub struct CommandStats {
    /// Times it ran (each command of an EXEC counts).
    pub calls: u64,
    /// Runs that replied with an error.
    pub failed: u64,
    /// Microseconds spent running it, in all.
    pub usec: u64,
    /// Times it was refused before running (arity, inside MULTI, in subscriber context).
    pub rejected: u64,
    /// Its latency distribution, once it was timed with `latency-tracking` on
    /// (`LATENCY HISTOGRAM`, `INFO latencystats`).
    pub histogram: Option<crate::engine::latency::Histogram>,
}

impl CommandStats {
    /// Puts one call that ran `duration_us` microseconds in the histogram.
    pub fn record_latency(&mut self, duration_us: i64) {
        self.histogram
            .get_or_insert_with(crate::engine::latency::Histogram::new)
            .record(duration_us.saturating_mul(1000));
    }
}
