//! Eviction's run (Redis's `performEvictions`): before a command, with `maxmemory` set,
//! removes keys as the policy says until the used-memory estimate is within the limit. The
//! policies, settings and candidate pool are in [`crate::engine::evict`].

use crate::engine::evict::{lfu_decayed, Candidate, Policy, Settings, POOL_SIZE};
use crate::engine::keyspace::Key;
use crate::engine::latency::Latency;
use crate::engine::pubsub::class;

use super::memory::{key_bytes, used_memory};
use super::server::Server;

/// The result of [`perform_evictions`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// Memory is within the limit (or was brought within it).
    Ok,
    /// Memory is above the limit and nothing more could be removed.
    Fail,
}

/// Removes keys as the policy says until the used-memory estimate minus what was removed
/// is within `maxmemory` (Redis's `performEvictions`). Returns [`Outcome::Fail`] when it
/// could not get there. O(1) when within the limit; O(samples × databases) per key removed.
pub fn perform_evictions(srv: &mut Server, now_ms: i64) -> Outcome {
    let s = *srv.config.eviction();
    if s.maxmemory == 0 {
        return Outcome::Ok;
    }
    let used = used_memory(srv);
    if used <= s.maxmemory {
        return Outcome::Ok;
    }
    if s.policy == Policy::NoEviction {
        return Outcome::Fail;
    }
    let to_free = used - s.maxmemory;
    let mut freed = 0u64;
    // The latency monitor times the whole cycle and each removal, as Redis's
    // `eviction-cycle` and `eviction-del` events.
    let threshold_ms = srv.config.latency().0;
    let cycle = Latency::start(&*srv.clock, threshold_ms);
    let mut outcome = Outcome::Ok;
    while freed < to_free {
        let Some((db, key)) = pick(srv, &s, now_ms) else {
            outcome = Outcome::Fail;
            break;
        };
        let Some(bytes) = srv.dbs[db].get_raw(&key).map(|e| key_bytes(&key, e)) else {
            continue;
        };
        let del = Latency::start(&*srv.clock, threshold_ms);
        srv.drop_key(db, &key, class::EVICTED, "evicted");
        srv.latency
            .end(&*srv.clock, threshold_ms, "eviction-del", del);
        freed += bytes;
        srv.stats.evicted_keys += 1;
    }
    srv.latency
        .end(&*srv.clock, threshold_ms, "eviction-cycle", cycle);
    outcome
}

/// The next key to remove, or `None` when no key qualifies.
fn pick(srv: &mut Server, s: &Settings, now_ms: i64) -> Option<(usize, Key)> {
    let volatile = s.policy.volatile_only();
    let n = srv.dbs.len();
    if matches!(s.policy, Policy::AllKeysRandom | Policy::VolatileRandom) {
        for _ in 0..n {
            srv.evictor.next_db = (srv.evictor.next_db + 1) % n;
            let db = srv.evictor.next_db;
            let d = &srv.dbs[db];
            let len = if volatile { d.volatile_len() } else { d.len() };
            if len == 0 {
                continue;
            }
            let i = srv.rng.usize(0..len);
            let key = if volatile {
                d.volatile_key_at(i)
            } else {
                d.key_at(i).map(|(k, _)| k)
            };
            if let Some(k) = key {
                return Some((db, k.to_vec()));
            }
        }
        return None;
    }
    loop {
        let mut total = 0;
        for db in 0..n {
            let len = if volatile {
                srv.dbs[db].volatile_len()
            } else {
                srv.dbs[db].len()
            };
            if len == 0 {
                continue;
            }
            total += len;
            populate(srv, s, db, len, now_ms);
        }
        if total == 0 {
            return None;
        }
        // The best candidate still present (a candidate may have been deleted since it
        // was sampled, or have lost its TTL).
        while let Some(c) = srv.evictor.pool.pop() {
            let present = srv.dbs[c.db]
                .get_raw(&c.key)
                .is_some_and(|e| !volatile || e.expire_at().is_some());
            if present {
                return Some((c.db, c.key));
            }
        }
    }
}

/// Samples `maxmemory-samples` keys of database `db` (which has `len` candidates) into the
/// pool (Redis's `evictionPoolPopulate`).
fn populate(srv: &mut Server, s: &Settings, db: usize, len: usize, now_ms: i64) {
    let volatile = s.policy.volatile_only();
    // Distinct positions, as Redis's `dictGetSomeKeys` returns distinct keys: all of them
    // when the samples asked for are half the keys or more (a better choice for no more
    // work), else drawn at random without repeats.
    let positions: Vec<usize> = if len <= s.samples.saturating_mul(2) {
        (0..len).collect()
    } else {
        let mut seen = foldhash::HashSet::default();
        let mut picked = Vec::with_capacity(s.samples);
        while picked.len() < s.samples {
            let i = srv.rng.usize(0..len);
            if seen.insert(i) {
                picked.push(i);
            }
        }
        picked
    };
    for i in positions {
        let d = &srv.dbs[db];
        let found = if volatile {
            d.volatile_key_at(i)
                .and_then(|k| d.get_raw(k).map(|e| (k, e)))
        } else {
            d.key_at(i)
        };
        let Some((key, e)) = found else { continue };
        let score = match s.policy {
            Policy::AllKeysLfu | Policy::VolatileLfu => {
                255 - u64::from(lfu_decayed(
                    e.lfu,
                    e.accessed_ms(),
                    now_ms,
                    s.lfu_decay_time,
                ))
            }
            Policy::VolatileTtl => u64::MAX - e.expire_at().map_or(0, |t| t.max(0) as u64),
            _ => now_ms.saturating_sub(e.accessed_ms()).max(0) as u64,
        };
        let pool = &mut srv.evictor.pool;
        if pool.iter().any(|c| c.db == db && c.key == *key) {
            continue;
        }
        if pool.len() == POOL_SIZE && pool.first().is_some_and(|c| c.score >= score) {
            continue;
        }
        let at = pool.partition_point(|c| c.score < score);
        let key = key.to_vec();
        pool.insert(at, Candidate { score, db, key });
        if pool.len() > POOL_SIZE {
            pool.remove(0);
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::engine::testing::{self, run};
    use crate::engine::{ClientId, Engine, ManualClock, Reply};

    /// An engine at a manual clock, with a client, and the clock to move.
    fn engine() -> (Engine, ClientId, ManualClock) {
        let (mut e, clock) = testing::engine();
        let c = e.connect();
        (e, c, clock)
    }

    fn used_memory(e: &mut Engine, c: ClientId) -> u64 {
        let (Reply::Bulk(info) | Reply::Verbatim(_, info)) = run(e, c, "INFO memory") else {
            panic!("INFO memory is a bulk string");
        };
        let text = String::from_utf8(info).unwrap_or_default();
        text.lines()
            .find_map(|l| l.strip_prefix("used_memory:"))
            .and_then(|v| v.trim().parse().ok())
            .unwrap_or(0)
    }

    fn exists(e: &mut Engine, c: ClientId, key: &str) -> bool {
        run(e, c, &format!("EXISTS {key}")) == Reply::Integer(1)
    }

    /// Sets `maxmemory` one byte below what is used now, so that the next command must
    /// evict exactly one key (each key is worth far more than a byte), and runs it.
    fn squeeze_one(e: &mut Engine, c: ClientId) {
        let used = used_memory(e, c);
        assert_eq!(
            run(e, c, &format!("CONFIG SET maxmemory {}", used - 1)),
            Reply::status("OK")
        );
        run(e, c, "PING");
        assert_eq!(run(e, c, "CONFIG SET maxmemory 0"), Reply::status("OK"));
    }

    #[test]
    fn lru_removes_the_key_idle_longest() {
        let (mut e, c, clock) = engine();
        run(&mut e, c, "CONFIG SET maxmemory-policy allkeys-lru");
        // More samples than keys: the choice is exact.
        run(&mut e, c, "CONFIG SET maxmemory-samples 64");
        for k in ["a", "b", "c", "d"] {
            run(&mut e, c, &format!("SET {k} value-of-{k}"));
            clock.advance_ms(1000);
        }
        run(&mut e, c, "GET a");
        squeeze_one(&mut e, c);
        assert!(!exists(&mut e, c, "b"), "b was idle longest");
        for k in ["a", "c", "d"] {
            assert!(exists(&mut e, c, k), "{k} stays");
        }
        let effects = e.take_effects();
        assert!(effects
            .iter()
            .any(|f| f.argv == vec![b"DEL".to_vec(), b"b".to_vec()]));
        let (Reply::Bulk(stats) | Reply::Verbatim(_, stats)) = run(&mut e, c, "INFO stats") else {
            panic!("INFO stats is a bulk string");
        };
        assert!(String::from_utf8_lossy(&stats).contains("evicted_keys:1\r\n"));
    }

    #[test]
    fn volatile_ttl_removes_the_key_expiring_soonest_and_never_a_persistent_one() {
        let (mut e, c, _clock) = engine();
        run(&mut e, c, "CONFIG SET maxmemory-policy volatile-ttl");
        run(&mut e, c, "CONFIG SET maxmemory-samples 64");
        run(&mut e, c, "SET keep forever");
        run(&mut e, c, "SET late v EX 300");
        run(&mut e, c, "SET soon v EX 50");
        run(&mut e, c, "SET mid v EX 100");
        squeeze_one(&mut e, c);
        assert!(!exists(&mut e, c, "soon"));
        squeeze_one(&mut e, c);
        assert!(!exists(&mut e, c, "mid"));
        squeeze_one(&mut e, c);
        squeeze_one(&mut e, c);
        assert!(
            exists(&mut e, c, "keep"),
            "no TTL, never a volatile-* victim"
        );
        assert_eq!(run(&mut e, c, "DBSIZE"), Reply::Integer(1));
    }

    #[test]
    fn lfu_counts_accesses_logarithmically_and_removes_the_least_used() {
        let (mut e, c, clock) = engine();
        run(&mut e, c, "CONFIG SET maxmemory-policy allkeys-lfu");
        run(&mut e, c, "CONFIG SET maxmemory-samples 64");
        run(&mut e, c, "SET hot v");
        run(&mut e, c, "SET cold v");
        assert_eq!(run(&mut e, c, "OBJECT FREQ hot"), Reply::Integer(5));
        for _ in 0..1000 {
            run(&mut e, c, "GET hot");
        }
        let Reply::Integer(hot) = run(&mut e, c, "OBJECT FREQ hot") else {
            panic!("OBJECT FREQ is an integer");
        };
        // With lfu-log-factor 10, a thousand hits take the counter to about 15-20; far
        // from the thousand a linear counter would reach.
        assert!((10..=30).contains(&hot), "counter {hot}");
        squeeze_one(&mut e, c);
        assert!(!exists(&mut e, c, "cold"));
        assert!(exists(&mut e, c, "hot"));
        // The counter decays by one per idle minute (lfu-decay-time 1).
        clock.advance_ms(3 * 60_000);
        assert_eq!(run(&mut e, c, "OBJECT FREQ hot"), Reply::Integer(hot - 3));
    }

    #[test]
    fn random_policies_take_every_database_in_turn() {
        let (mut e, c, _clock) = engine();
        run(&mut e, c, "CONFIG SET maxmemory-policy allkeys-random");
        for db in 0..3 {
            run(&mut e, c, &format!("SELECT {db}"));
            run(&mut e, c, "MSET x 1 y 2");
        }
        run(&mut e, c, "SELECT 0");
        run(&mut e, c, "CONFIG SET maxmemory 1");
        // Nothing can bring 1 byte within reach: every key goes, then writes fail.
        assert_eq!(run(&mut e, c, "GET x"), Reply::Nil);
        for db in 0..3 {
            run(&mut e, c, &format!("SELECT {db}"));
            assert_eq!(run(&mut e, c, "DBSIZE"), Reply::Integer(0));
        }
        assert!(matches!(run(&mut e, c, "SET x 1"), Reply::Error(m) if m.starts_with("OOM ")));
    }
}
