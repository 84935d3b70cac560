//! Memory accounting: the estimate `INFO memory` reports as `used_memory`, `MEMORY USAGE`
//! of one key, and what eviction compares with `maxmemory`. The figures are estimates for
//! teaching and comparison, not accounting (see [`estimate_dataset_bytes`]).

use crate::engine::keyspace::{Db, Entry};
use crate::engine::types::Value;

use super::server::Server;

/// What the engine cannot know about the process it runs in, told by the host (for
/// `INFO memory`): the allocator the binary links and how to read its resident size.
#[derive(Debug, Clone, Copy)]
pub struct HostFacts {
    /// `mem_allocator`: the allocator's name (Redis says `jemalloc-5.3.0` or `libc`).
    pub allocator: &'static str,
    /// `used_memory_rss`: the process's resident bytes now, if the host can tell
    /// (natively from `/proc`; in the browser the wasm memory's size). Without it INFO
    /// reports the estimate [`used_memory`] there too.
    pub resident: Option<fn() -> Option<u64>>,
}

impl Default for HostFacts {
    /// The browser build knows its own: Rust's wasm32 allocator is dlmalloc, and the
    /// memory a tab holds for the engine is the wasm memory, which never shrinks. A native
    /// library user gets the system allocator and no resident figure until it says more
    /// ([`Engine::set_host_facts`](crate::engine::Engine::set_host_facts)).
    fn default() -> HostFacts {
        #[cfg(target_arch = "wasm32")]
        {
            HostFacts {
                allocator: "dlmalloc",
                resident: Some(wasm_memory_bytes),
            }
        }
        #[cfg(not(target_arch = "wasm32"))]
        {
            HostFacts {
                allocator: "libc",
                resident: None,
            }
        }
    }
}

/// The size of the wasm module's memory, in bytes (64 KiB pages).
#[cfg(target_arch = "wasm32")]
fn wasm_memory_bytes() -> Option<u64> {
    Some(core::arch::wasm32::memory_size::<0>() as u64 * 65_536)
}

impl HostFacts {
    /// The resident size the host reports, else `estimate`.
    pub fn resident_or(&self, estimate: u64) -> u64 {
        self.resident.and_then(|f| f()).unwrap_or(estimate)
    }
}

/// Redis's default number of `MEMORY USAGE` samples.
pub const DEFAULT_SAMPLES: usize = 5;

/// The bytes `MEMORY USAGE key SAMPLES samples` reports for `key` holding `e` (the key
/// browser shows the figure for [`DEFAULT_SAMPLES`], so it matches the console's
/// `MEMORY USAGE key`). O(samples).
pub fn memory_usage_bytes(key: &[u8], e: &Entry, samples: usize) -> u64 {
    key.len() as u64 + KEY_OVERHEAD + value_bytes_sampled(&e.value, samples)
}

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
/// Elements whose sizes are added up exactly; bigger collections are sampled.
const SAMPLE_ELEMENTS: usize = 8;
/// Bookkeeping per key: the hash-table entry, the key's header and the value's header.
const KEY_OVERHEAD: u64 = 56;
/// Bookkeeping per element of a collection.
const ELEMENT_OVERHEAD: u64 = 16;

/// An **estimate** of the bytes a database's keys and values take, in the spirit of
/// Redis's `used_memory_dataset`: each key costs its length plus 56 bytes of bookkeeping,
/// each value its payload plus 16 bytes per element. To stay O(1), a database with more
/// than 64 keys is measured on 64 keys spread evenly over its storage and scaled up, and a
/// collection with more than 8 elements likewise — as Redis's `MEMORY USAGE` samples. The
/// numbers are for teaching and comparison, not accounting.
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
/// (what eviction frees by removing it).
pub fn key_bytes(key: &[u8], e: &Entry) -> u64 {
    key.len() as u64 + KEY_OVERHEAD + value_bytes(&e.value)
}

/// Estimated payload bytes of one value (see [`estimate_dataset_bytes`]).
fn value_bytes(v: &Value) -> u64 {
    value_bytes_sampled(v, SAMPLE_ELEMENTS)
}

/// Estimated payload bytes of one value, measuring at most `samples` of its elements.
fn value_bytes_sampled(v: &Value, samples: usize) -> u64 {
    let sampled = |len: usize, size: &dyn Fn(usize) -> u64| sampled(len, samples, size);
    #[allow(unreachable_patterns)]
    match v {
        Value::Str(s) => s.bytes.len() as u64,
        Value::Hash(h) => sampled(h.len(), &|i| {
            h.map
                .get_index(i)
                .map_or(0, |(f, v)| (f.len() + v.len()) as u64)
        }),
        Value::List(l) => sampled(l.len(), &|i| l.get(i as i64).map_or(0, |e| e.len() as u64)),
        Value::Set(s) => sampled(s.len(), &|i| s.get_index(i).map_or(0, |m| m.len() as u64)),
        // A sorted-set member also costs its score and skiplist links.
        Value::ZSet(z) => sampled(z.len(), &|i| {
            z.get_by_rank(i).map_or(0, |(m, _)| m.len() as u64 + 24)
        }),
        // A stream entry costs its fields and values plus its ID (16 bytes).
        Value::Stream(st) => {
            let ids: Vec<_> = st.range_sample(samples);
            let sum: u64 = ids.iter().map(|b| b + 16 + ELEMENT_OVERHEAD).sum();
            if ids.is_empty() {
                0
            } else {
                sum.saturating_mul(st.len()) / ids.len() as u64
            }
        }
        // Types added later without an arm here count a flat 64 bytes per key; give them an
        // arm (sampling their elements with `sampled`) when they arrive.
        _ => 64,
    }
}

/// Sums `size(i)` plus [`ELEMENT_OVERHEAD`] over a collection of `len` elements, or over
/// `samples` evenly spread indexes scaled up to `len`.
fn sampled(len: usize, samples: usize, size: &dyn Fn(usize) -> u64) -> u64 {
    if len == 0 || samples == 0 {
        return 0;
    }
    let picks = len.min(samples);
    let sum: u64 = (0..picks)
        // In u128: with SAMPLES 0 `picks` is `len`, and `i * len` overflows a 32-bit usize.
        .map(|i| size((i as u128 * len as u128 / picks as u128) as usize) + ELEMENT_OVERHEAD)
        .sum();
    sum.saturating_mul(len as u64) / picks as u64
}
