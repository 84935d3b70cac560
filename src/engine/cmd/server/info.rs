//! INFO: the sections in Redis 7.0's text format, with what a fresh stand-alone master
//! without saves reports for persistence and replication.

use crate::engine::args::Args;
use crate::engine::core::memory::{bytes_to_human, used_memory, STARTUP_BYTES};
use crate::engine::error::CmdResult;
use crate::engine::pubsub::Kind;
use crate::engine::{Ctx, Reply, Server};
use std::collections::HashSet;

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
/// before running) and the microseconds spent per command, in name order; `errorstats`
/// counts error replies by code (`errorstat_WRONGTYPE:count=1`, codes in byte order, the code being the error's
/// first word as Redis finds it); `latencystats` gives each called command's latency percentiles (`latency-tracking-info-percentiles`) in microseconds while `latency-tracking` is on. The memory figures are **estimates** (see [`estimate_dataset_bytes`]). A bulk
/// string in RESP2, a verbatim string in RESP3. **O(1)**: no section walks the keyspace.
pub(super) fn info(ctx: &mut Ctx<'_>, args: &mut Args) -> CmdResult {
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
    Ok(Reply::Verbatim(*b"txt", text.into_bytes()))
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
                f("tracking_clients", srv.tracking.client_count().to_string()),
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
            let lua = srv.scripts.lua_memory() as u64;
            let scripts_eval = srv.scripts.cache_memory() as u64;
            let vm_functions = srv.functions.vm_memory() as u64;
            let functions = srv.functions.memory() as u64;
            // The resident size the host reports (natively /proc, in the browser the wasm
            // memory), which the engine's own estimate `used` undercounts: allocator
            // overhead, freed pages not returned, the interpreter's heap, the host's buffers.
            let rss = srv.host.resident_or(used);
            let peak = srv.peak_memory.get().max(used);
            srv.peak_memory.set(peak);
            let ratio = |a: u64, b: u64| {
                if b == 0 {
                    "1.00".to_string()
                } else {
                    format!("{:.2}", a as f64 / b as f64)
                }
            };
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
                    f("used_memory_rss", rss.to_string()),
                    f("used_memory_rss_human", bytes_to_human(rss)),
                    f("used_memory_peak", peak.to_string()),
                    f("used_memory_peak_human", bytes_to_human(peak)),
                    f("used_memory_peak_perc", pct(used, peak)),
                    f("used_memory_overhead", STARTUP_BYTES.to_string()),
                    f("used_memory_startup", STARTUP_BYTES.to_string()),
                    f("used_memory_dataset", dataset.to_string()),
                    f(
                        "used_memory_dataset_perc",
                        pct(dataset, used - STARTUP_BYTES),
                    ),
                    f("allocator_allocated", used.to_string()),
                    f("allocator_active", used.to_string()),
                    f("allocator_resident", rss.to_string()),
                    f("total_system_memory", "0".into()),
                    f("total_system_memory_human", "0B".into()),
                    f("used_memory_lua", lua.to_string()),
                    f("used_memory_vm_eval", lua.to_string()),
                    f("used_memory_lua_human", bytes_to_human(lua)),
                    f("used_memory_scripts_eval", scripts_eval.to_string()),
                    f("number_of_cached_scripts", srv.scripts.cache.len().to_string()),
                    f("number_of_functions", srv.functions.index.len().to_string()),
                    f(
                        "number_of_libraries",
                        srv.functions.libraries.len().to_string(),
                    ),
                    f("used_memory_vm_functions", vm_functions.to_string()),
                    f("used_memory_vm_total", (lua + vm_functions).to_string()),
                    f(
                        "used_memory_vm_total_human",
                        bytes_to_human(lua + vm_functions),
                    ),
                    f("used_memory_functions", functions.to_string()),
                    f("used_memory_scripts", (scripts_eval + functions).to_string()),
                    f(
                        "used_memory_scripts_human",
                        bytes_to_human(scripts_eval + functions),
                    ),
                    f("maxmemory", maxmemory.to_string()),
                    f("maxmemory_human", bytes_to_human(maxmemory)),
                    f("maxmemory_policy", cfg.maxmemory_policy().to_string()),
                    f("allocator_frag_ratio", "1.00".into()),
                    f("allocator_frag_bytes", "0".into()),
                    f("allocator_rss_ratio", ratio(rss, used)),
                    f("allocator_rss_bytes", (rss as i64 - used as i64).to_string()),
                    f("rss_overhead_ratio", "1.00".into()),
                    f("rss_overhead_bytes", "0".into()),
                    f("mem_fragmentation_ratio", ratio(rss, used)),
                    f("mem_fragmentation_bytes", (rss as i64 - used as i64).to_string()),
                    f("mem_not_counted_for_evict", "0".into()),
                    f("mem_replication_backlog", "0".into()),
                    f("mem_total_replication_buffers", "0".into()),
                    f("mem_clients_slaves", "0".into()),
                    f("mem_clients_normal", "0".into()),
                    f("mem_cluster_links", "0".into()),
                    f("mem_aof_buffer", "0".into()),
                    f("mem_allocator", srv.host.allocator.into()),
                    f("active_defrag_running", "0".into()),
                    f("lazyfree_pending_objects", "0".into()),
                    f("lazyfreed_objects", "0".into()),
                ],
            )
        }
        "persistence" => (
            "Persistence",
            [
                f("loading", "0".into()),
                f("async_loading", "0".into()),
                f("current_cow_peak", "0".into()),
                f("current_cow_size", "0".into()),
                f("current_cow_size_age", "0".into()),
                f("current_fork_perc", "0.00".into()),
            ]
            .into_iter()
            .chain(
                super::persist::info_fields(srv)
                    .into_iter()
                    .map(|(k, v)| f(k, v)),
            )
            .chain([
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
            ])
            .collect(),
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
            ] {
                v.push(zero(k));
            }
            v.push(f("tracking_total_keys", srv.tracking.key_count().to_string()));
            v.push(f("tracking_total_items", srv.tracking.item_count().to_string()));
            v.push(f(
                "tracking_total_prefixes",
                srv.tracking.prefix_count().to_string(),
            ));
            v.push(zero("unexpected_error_replies"));
            v.push(f("total_error_replies", s.error_replies.to_string()));
            for k in [
                "dump_payload_sanitizations",
                "total_reads_processed",
                "total_writes_processed",
                "io_threaded_reads_processed",
                "io_threaded_writes_processed",
            ] {
                v.push(zero(k));
            }
            let (shrinks, expands) = s.reply_buffer_resizes;
            v.push(f("reply_buffer_shrinks", shrinks.to_string()));
            v.push(f("reply_buffer_expands", expands.to_string()));
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
                .per_command_sorted()
                .into_iter()
                .map(|(&crate::engine::latency::StatKey(name, sub), s)| {
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
        "errorstats" => (
            "Errorstats",
            srv.stats
                .errors
                .iter()
                .map(|(code, n)| (format!("errorstat_{}", safe_name(code)), format!("count={n}")))
                .collect(),
        ),
        "latencystats" => ("Latencystats", latency_lines(srv)),
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

/// A name as INFO prints it in a field's name (Redis's `getSafeInfoString`): `#`, `:`,
/// CR and LF become `_`.
fn safe_name(name: &str) -> String {
    name.replace(['#', ':', '\r', '\n'], "_")
}

#[cfg(not(target_arch = "wasm32"))]
fn process_id() -> u32 {
    std::process::id()
}

#[cfg(target_arch = "wasm32")]
fn process_id() -> u32 {
    0
}

/// `INFO latencystats`' lines (Redis's `fillPercentileDistributionLatencies`): for each
/// command with a histogram, `p<percentile>=<usec>` for each configured percentile, the
/// percentile as `%f` without trailing zeros, the value with three decimals.
fn latency_lines(srv: &crate::engine::core::server::Server) -> Vec<(String, String)> {
    if !srv.config.latency().1 {
        return Vec::new();
    }
    let percentiles = srv.config.latency_percentiles();
    srv.stats
        .histograms_sorted()
        .into_iter()
        .map(|(&key, h)| {
            let values: Vec<String> = percentiles
                .iter()
                .map(|&p| {
                    let text = format!("{p:.6}");
                    let text = text.trim_end_matches('0').trim_end_matches('.');
                    format!("p{text}={:.3}", h.value_at_percentile(p) as f64 / 1000.0)
                })
                .collect();
            (
                format!(
                    "latency_percentiles_usec_{}",
                    safe_name(&super::latency::full_name(key))
                ),
                values.join(","),
            )
        })
        .collect()
}
