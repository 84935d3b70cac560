//! Memory accounting: the estimate `INFO memory` reports as `used_memory`, `MEMORY USAGE`
//! of one key, and what eviction compares with `maxmemory`. The figures are estimates for
//! teaching and comparison, not accounting (see [`estimate_dataset_bytes`]).

use crate::engine::keyspace::{Db, Entry};

use super::server::Server;

pub use crate::engine::alloc::HostFacts;

/// Redis's default number of `MEMORY USAGE` samples.
pub const DEFAULT_SAMPLES: usize = 5;

/// The bytes `MEMORY USAGE key SAMPLES samples` reports for `key` holding `e`, as Redis
/// computes them ([`super::objsize`]), allocations shaped by the configuration `shape`
/// (the key browser shows the figure for
/// [`DEFAULT_SAMPLES`], so it matches the console's `MEMORY USAGE key`). O(samples).
pub fn memory_usage_bytes(key: &[u8], e: &Entry, samples: usize, shape: Shape) -> u64 {
    super::objsize::memory_usage(key, e, samples, shape)
}

pub use super::objsize::Shape;

/// The memory `INFO memory` reports as used, and `maxmemory` is checked against: the
/// startup figure plus the estimated dataset (see [`estimate_dataset_bytes`]).
/// **O(databases)** (sampled per database).
pub fn used_memory(srv: &Server) -> u64 {
    STARTUP_BYTES + srv.dbs.iter().map(estimate_dataset_bytes).sum::<u64>()
}

/// Fixed memory of an empty server, as a fresh Redis 7.0 reports in `used_memory_startup`.
pub const STARTUP_BYTES: u64 = 876_040;

/// Redis's `bytesToHuman`: `B` below 1 KiB, then two decimals with `K`, `M`, `G`, `T`, `P`.
pub fn bytes_to_human(n: u64) -> String {
    const UNITS: [(u32, char); 5] = [(1, 'K'), (2, 'M'), (3, 'G'), (4, 'T'), (5, 'P')];
    if n < 1024 {
        return format!("{n}B");
    }
    for (power, unit) in UNITS {
        let limit = 1u128 << (10 * (power + 1));
        if u128::from(n) < limit {
            let d = n as f64 / (1u64 << (10 * power)) as f64;
            return format!("{d:.2}{unit}");
        }
    }
    format!("{n}B")
}

/// Keys whose sizes are added up exactly; bigger databases are sampled.
const SAMPLE_KEYS: usize = 64;

/// An **estimate** of the bytes a database's keys and values take, in the spirit of
/// Redis's `used_memory_dataset`: each key costs what `MEMORY USAGE` says of it (Redis's
/// own allocations for it, [`super::objsize`]). To stay O(1), a database with more than
/// 64 keys is measured on 64 keys spread evenly over its storage and scaled up. The
/// numbers are for teaching and comparison, not accounting: Redis adds its own overhead
/// (the main dict's table, clients' buffers), which `used_memory_startup` stands for.
pub fn estimate_dataset_bytes(db: &Db) -> u64 {
    let n = db.len();
    if n == 0 {
        return 0;
    }
    let picks = n.min(SAMPLE_KEYS);
    let mut sum = 0u64;
    for i in 0..picks {
        if let Some((k, e)) = db.key_at(i * n / picks) {
            sum += key_bytes(k, e);
        }
    }
    sum.saturating_mul(n as u64) / picks as u64
}

/// Estimated bytes of one key with its value, as [`estimate_dataset_bytes`] counts them
/// (what eviction frees by removing it): its `MEMORY USAGE`.
pub fn key_bytes(key: &[u8], e: &Entry) -> u64 {
    super::objsize::memory_usage(key, e, DEFAULT_SAMPLES, Shape::default())
}
