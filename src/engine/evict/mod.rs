//! `maxmemory` and its eviction policies, after Redis 7.0's `evict.c`.
//!
//! # What happens
//! With `maxmemory` set (non-zero), before each command the engine compares its used
//! memory (the estimate `INFO memory` reports as `used_memory`: a fixed start-up figure plus
//! each key's bytes, sampled as `MEMORY USAGE` samples, see
//! [`crate::engine::core::memory::used_memory`]) with the limit. Above it, keys are removed
//! as `maxmemory-policy` says until the estimated bytes of the keys removed cover the
//! excess ([`crate::engine::core::evict::perform_evictions`]). Each removal counts in `INFO stats`' `evicted_keys`,
//! fires the `evicted` keyspace event, touches WATCHed keys and is recorded as a `DEL`
//! effect (as Redis propagates it to its AOF and replicas).
//!
//! When memory stays above the limit, because the policy is `noeviction` or no key
//! qualifies (`volatile-*` and no key has a TTL), commands that may use more memory (the
//! `denyoom` flag; inside MULTI any command but EXEC, DISCARD, QUIT and RESET) fail with
//! `OOM command not allowed when used memory > 'maxmemory'.`, and reads still run.
//!
//! # Which key goes
//! * `allkeys-random`, `volatile-random`: a key drawn uniformly from a database's keys (or
//!   its keys with a TTL), the databases taken in turn.
//! * `allkeys-lru`, `volatile-lru`, `allkeys-lfu`, `volatile-lfu`, `volatile-ttl`: Redis's
//!   approximation. From each database `maxmemory-samples` keys (5 by default) are drawn at
//!   random and scored: by idle time (LRU), by 255 minus the LFU counter (LFU), by how
//!   soon the key expires (TTL). The best go into a pool of 16 candidates that is kept
//!   from one eviction to the next, and the best candidate still present is removed. More
//!   samples make the choice closer to the true least recently used key, at more cost.
//!
//! # The LFU counter
//! Under an LFU policy each access to a key first decays its counter by one per
//! `lfu-decay-time` minutes since the previous access, then increments it with probability
//! `1 / ((counter - 5) * lfu-log-factor + 1)`, so it grows with the logarithm of the
//! number of accesses and saturates at 255 (Redis's `updateLFU`). A new key starts at 5.
//! Under other policies the counter is left alone, as in Redis; `OBJECT FREQ` reports it
//! decayed to the present.
//!
//! # Costs
//! Checking the limit reads at most 64 keys per non-empty database (O(1) per command). A
//! removal draws `maxmemory-samples` keys per non-empty database; freeing memory after a
//! large write costs that per key removed. Unlike Redis, which stops after a time budget
//! (`maxmemory-eviction-tenacity`) and continues in the background, one call frees all
//! it must: the engine has no background.
//!
//! This module holds the policies, their settings and the candidate pool, and records
//! accesses ([`touch`]); the LFU counter is in [`lfu`]; the run that removes keys is in
//! [`crate::engine::core::evict`], beside the server state it acts on.

pub mod lfu;

pub use lfu::{lfu_decayed, LFU_INIT_VAL};

use super::keyspace::{Entry, Key};

/// Redis's `EVPOOL_SIZE`: candidates kept between evictions.
pub(crate) const POOL_SIZE: usize = 16;

/// `maxmemory-policy`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Policy {
    /// Never remove keys; refuse writes instead.
    NoEviction,
    /// Least recently used, among all keys.
    AllKeysLru,
    /// Least recently used, among keys with a TTL.
    VolatileLru,
    /// Least frequently used, among all keys.
    AllKeysLfu,
    /// Least frequently used, among keys with a TTL.
    VolatileLfu,
    /// Any key.
    AllKeysRandom,
    /// Any key with a TTL.
    VolatileRandom,
    /// The key with a TTL that expires soonest.
    VolatileTtl,
}

impl Policy {
    /// The policy named as `CONFIG SET maxmemory-policy` takes it (lowercase).
    pub fn parse(name: &str) -> Policy {
        match name {
            "allkeys-lru" => Policy::AllKeysLru,
            "volatile-lru" => Policy::VolatileLru,
            "allkeys-lfu" => Policy::AllKeysLfu,
            "volatile-lfu" => Policy::VolatileLfu,
            "allkeys-random" => Policy::AllKeysRandom,
            "volatile-random" => Policy::VolatileRandom,
            "volatile-ttl" => Policy::VolatileTtl,
            _ => Policy::NoEviction,
        }
    }

    /// True for the LFU policies, under which access counters are kept.
    pub fn is_lfu(self) -> bool {
        matches!(self, Policy::AllKeysLfu | Policy::VolatileLfu)
    }

    /// True when only keys with a TTL may go.
    pub(crate) fn volatile_only(self) -> bool {
        matches!(
            self,
            Policy::VolatileLru
                | Policy::VolatileLfu
                | Policy::VolatileRandom
                | Policy::VolatileTtl
        )
    }
}

/// The eviction parameters, parsed once when set (they are read before every command).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Settings {
    /// `maxmemory` in bytes; 0 = no limit.
    pub maxmemory: u64,
    /// `maxmemory-policy`.
    pub policy: Policy,
    /// `maxmemory-samples`.
    pub samples: usize,
    /// `lfu-log-factor`.
    pub lfu_log_factor: i64,
    /// `lfu-decay-time`, minutes.
    pub lfu_decay_time: i64,
}

impl Default for Settings {
    fn default() -> Settings {
        Settings {
            maxmemory: 0,
            policy: Policy::NoEviction,
            samples: 5,
            lfu_log_factor: 10,
            lfu_decay_time: 1,
        }
    }
}

/// One candidate of the pool: how good a victim it is (higher is better), and where.
#[derive(Debug, Clone)]
pub(crate) struct Candidate {
    pub(crate) score: u64,
    pub(crate) db: usize,
    pub(crate) key: Key,
}

/// What eviction keeps between calls: the candidate pool, and the database the random
/// policies take next.
#[derive(Debug, Clone, Default)]
pub struct Evictor {
    /// Ascending by score; the best candidate is last.
    pub(crate) pool: Vec<Candidate>,
    pub(crate) next_db: usize,
}

/// Records an access to `e` at `now_ms`: its access time, and under an LFU policy its
/// counter, decayed then incremented logarithmically (Redis's `updateLFU`). O(1).
pub fn touch(e: &mut Entry, now_ms: i64, s: &Settings, rng: &mut fastrand::Rng) {
    if s.policy.is_lfu() {
        let c = lfu_decayed(e.lfu, e.accessed_ms(), now_ms, s.lfu_decay_time);
        e.lfu = if c == u8::MAX {
            c
        } else {
            let base = f64::from(c.saturating_sub(LFU_INIT_VAL));
            let p = 1.0 / (base * s.lfu_log_factor as f64 + 1.0);
            if rng.f64() < p {
                c + 1
            } else {
                c
            }
        };
    }
    e.set_accessed_ms(now_ms);
}
