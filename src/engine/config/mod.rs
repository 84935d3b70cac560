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

mod check;
mod params;
mod spec;
#[cfg(test)]
mod tests;
use check::{check, parse_obuf};
pub use check::{keyspace_event_flags, keyspace_event_string, parse_memory};
pub use params::PARAMS;
pub use spec::{Kind, Param, Special, Unit, HIDDEN, IMMUTABLE, MULTI_ARG, PROTECTED};

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
            good_replicas: true,
            slowlog: (0, 0),
            latency: (0, true),
            eviction: super::evict::Settings::default(),
            sizes: Default::default(),
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
        self.good_replicas =
            self.int("min-replicas-to-write") == 0 || self.int("min-replicas-max-lag") == 0;
        self.slowlog = (
            self.int("slowlog-log-slower-than"),
            self.size("slowlog-max-len"),
        );
        self.latency = (
            self.int("latency-monitor-threshold"),
            self.flag("latency-tracking"),
        );
        self.sizes = crate::engine::core::state::Sizes {
            hash_entries: self.size("hash-max-listpack-entries"),
            hash_value: self.size("hash-max-listpack-value"),
            set_intset: self.size("set-max-intset-entries"),
            zset_entries: self.size("zset-max-listpack-entries"),
            zset_value: self.size("zset-max-listpack-value"),
            list_fill: self.int("list-max-listpack-size"),
            list_depth: self.size("list-compress-depth"),
            proto_max_bulk: u64::try_from(self.int("proto-max-bulk-len")).unwrap_or(u64::MAX),
        };
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
                | "min-replicas-to-write"
                | "min-replicas-max-lag"
                | "slowlog-log-slower-than"
                | "slowlog-max-len"
                | "latency-monitor-threshold"
                | "latency-tracking"
                | "maxmemory"
                | "maxmemory-policy"
                | "maxmemory-samples"
                | "lfu-log-factor"
                | "lfu-decay-time"
                | "hash-max-listpack-entries"
                | "hash-max-listpack-value"
                | "set-max-intset-entries"
                | "zset-max-listpack-entries"
                | "zset-max-listpack-value"
                | "list-max-listpack-size"
                | "list-compress-depth"
                | "proto-max-bulk-len"
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
        self.sizes.hash_entries
    }

    /// `hash-max-listpack-value`: the longest field or value a listpack hash keeps.
    pub fn hash_max_listpack_value(&self) -> usize {
        self.sizes.hash_value
    }

    /// `set-max-intset-entries`: the most members an all-integer set keeps in an intset.
    pub fn set_max_intset_entries(&self) -> usize {
        self.sizes.set_intset
    }

    /// `zset-max-listpack-entries`: the most members a sorted set keeps in a listpack.
    pub fn zset_max_listpack_entries(&self) -> usize {
        self.sizes.zset_entries
    }

    /// Both `zset-max-listpack-*` thresholds, as the sorted-set writes take them.
    pub fn zset_limits(&self) -> crate::engine::types::zset::ZLimits {
        crate::engine::types::zset::ZLimits {
            entries: self.zset_max_listpack_entries(),
            value: self.zset_max_listpack_value(),
        }
    }

    /// `zset-max-listpack-value`: the longest member a listpack sorted set keeps.
    pub fn zset_max_listpack_value(&self) -> usize {
        self.sizes.zset_value
    }

    /// `list-max-listpack-size`: positive = entries per quicklist node, negative = node
    /// size class (-1 = 4 KB … -5 = 64 KB).
    pub fn list_max_listpack_size(&self) -> i64 {
        self.sizes.list_fill
    }

    /// `list-compress-depth`.
    pub fn list_compress_depth(&self) -> usize {
        self.sizes.list_depth
    }

    /// `proto-max-bulk-len`: the longest string a command may create, in bytes.
    pub fn proto_max_bulk_len(&self) -> u64 {
        self.sizes.proto_max_bulk
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

    /// Redis's `checkGoodReplicasStatus` for a primary with no replicas (kvlab has none):
    /// true unless both `min-replicas-to-write` and `min-replicas-max-lag` are set, in
    /// which case writes are refused with `NOREPLICAS`.
    /// **O(1)**: worked out when either is set.
    pub fn good_replicas(&self) -> bool {
        self.good_replicas
    }

    /// `lua-enable-deprecated-api`: scripts get `setfenv`, `getfenv` and `newproxy`.
    pub fn lua_deprecated_api(&self) -> bool {
        self.get("lua-enable-deprecated-api") == Some("yes")
    }

    /// `busy-reply-threshold` (alias `lua-time-limit`), milliseconds.
    pub fn busy_reply_threshold(&self) -> i64 {
        self.int("busy-reply-threshold")
    }

    /// `slowlog-log-slower-than` (microseconds; negative: off) and `slowlog-max-len`.
    /// **O(1)**: parsed when set.
    pub fn slowlog(&self) -> (i64, usize) {
        self.slowlog
    }

    /// `latency-monitor-threshold` (milliseconds; 0: the monitor is off) and whether
    /// `latency-tracking` keeps per-command histograms. **O(1)**: parsed when set.
    pub fn latency(&self) -> (i64, bool) {
        self.latency
    }

    /// `latency-tracking-info-percentiles`, parsed (checked when set).
    pub fn latency_percentiles(&self) -> Vec<f64> {
        self.get("latency-tracking-info-percentiles")
            .unwrap_or("")
            .split(' ')
            .filter_map(|p| p.parse().ok())
            .collect()
    }
}
