//! DUMP of random values against redis-server, and DUMP's time against the value's size
//! (see `dump.rs` for what is compared).

use kvlab::engine::{Engine, ManualClock, Reply};

use super::{args, bytes_line, hex, words, Pair, NUMBERS};

/// DUMP's time grows linearly with the value: every type at 100,000 and 1,000,000
/// elements, in the engine alone. Ignored by default (it is a measurement); run with
/// `cargo test --release --test differential dump::random::dump_time -- --ignored --nocapture`.
#[test]
#[ignore]
fn dump_time_is_linear() {
    use std::time::Instant;
    let mut engine = Engine::new(Box::new(ManualClock::at_ms(1_700_000_000_000)), 1);
    let id = engine.connect();
    let mut run = |argv: Vec<Vec<u8>>| engine.execute(id, argv);
    let mut report = Vec::new();
    for n in [100_000usize, 1_000_000] {
        for ty in ["list", "hash", "set", "zset", "stream"] {
            let key = format!("{ty}{n}").into_bytes();
            for chunk in (0..n).collect::<Vec<_>>().chunks(1000) {
                let mut argv: Vec<Vec<u8>> = match ty {
                    "list" => vec![b"RPUSH".to_vec(), key.clone()],
                    "hash" => vec![b"HSET".to_vec(), key.clone()],
                    "set" => vec![b"SADD".to_vec(), key.clone()],
                    "zset" => vec![b"ZADD".to_vec(), key.clone()],
                    _ => Vec::new(),
                };
                for &i in chunk {
                    match ty {
                        "list" | "set" => argv.push(format!("element:{i}").into_bytes()),
                        "hash" => {
                            // Values long enough to be tried with LZF.
                            argv.push(format!("field:{i}").into_bytes());
                            argv.push(format!("a value of some length, {i}").into_bytes());
                        }
                        "zset" => {
                            argv.push((i % 1000).to_string().into_bytes());
                            argv.push(format!("member:{i}").into_bytes());
                        }
                        _ => {
                            run(words(&format!(
                                "XADD {} {}-1 sensor {i} value x",
                                String::from_utf8_lossy(&key),
                                i + 1
                            )));
                        }
                    }
                }
                if !argv.is_empty() {
                    run(argv);
                }
            }
            let start = Instant::now();
            let r = run(args(&[b"DUMP", &key]));
            let took = start.elapsed();
            let Reply::Bulk(payload) = r else {
                panic!("DUMP {ty}: {r:?}")
            };
            eprintln!(
                "{ty:>6} n={n:>7}: {took:>10.2?} for {} bytes",
                payload.len()
            );
            report.push((ty, n, took.as_secs_f64()));
        }
    }
    for ty in ["list", "hash", "set", "zset", "stream"] {
        let t = |n| {
            report
                .iter()
                .find(|r| r.0 == ty && r.1 == n)
                .map_or(0.0, |r| r.2)
        };
        let ratio = t(1_000_000) / t(100_000);
        eprintln!("{ty:>6}: 10x the elements took {ratio:.1}x the time");
        assert!(
            ratio < 25.0,
            "{ty}: DUMP grew {ratio:.1}x for 10x the elements"
        );
    }
}

/// A small seeded generator (xorshift64*), so a failure names a reproducible seed.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }

    /// An element: an integer of a random width or sign, a near-integer, or bytes of a
    /// length around the listpack's length-encoding limits (63/64, 4095/4096), repetitive
    /// or not.
    fn element(&mut self, max_len: usize) -> Vec<u8> {
        match self.below(6) {
            0 => {
                let bits = self.below(64) as u32;
                let v = (self.next() >> (63 - bits.min(63))) as i64;
                let v = if self.below(2) == 0 {
                    v
                } else {
                    v.wrapping_neg()
                };
                v.to_string().into_bytes()
            }
            1 => NUMBERS[self.below(NUMBERS.len() as u64) as usize]
                .as_bytes()
                .to_vec(),
            _ => {
                let lens = [0usize, 1, 20, 21, 63, 64, 65, 4095, 4096, 5000];
                let len = match self.below(3) {
                    0 => lens[self.below(lens.len() as u64) as usize],
                    _ => self.below(40) as usize,
                }
                .min(max_len);
                let repetitive = self.below(2) == 0;
                (0..len)
                    .map(|i| {
                        if repetitive {
                            b'a' + (i % 3) as u8
                        } else {
                            self.next() as u8
                        }
                    })
                    .collect()
            }
        }
    }
}

/// Random values of every type whose bytes are deterministic, built alike on both sides
/// under random node settings, must dump to Redis's bytes (and restore). Seeds with
/// `KVLAB_DUMP_SEEDS=1,2,3` (default 1 to 4).
#[test]
fn dump_random_values() {
    let seeds: Vec<u64> = std::env::var("KVLAB_DUMP_SEEDS")
        .ok()
        .map(|s| s.split(',').filter_map(|x| x.trim().parse().ok()).collect())
        .unwrap_or_else(|| vec![1, 2, 3, 4]);
    let mut p = Pair::start();
    for seed in seeds {
        let mut g = Rng(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1);
        p.line("FLUSHALL");
        let fill = ["-1", "-2", "-3", "-5", "1", "3", "17", "128"][g.below(8) as usize];
        let depth = g.below(3);
        let compress = if g.below(3) == 0 { "no" } else { "yes" };
        let entries = [0, 1, 5, 100][g.below(4) as usize];
        let bytes = [0, 200, 4096][g.below(3) as usize];
        p.line(&format!("CONFIG SET list-max-listpack-size {fill}"));
        p.line(&format!("CONFIG SET list-compress-depth {depth}"));
        p.line(&format!("CONFIG SET rdbcompression {compress}"));
        p.line(&format!("CONFIG SET stream-node-max-entries {entries}"));
        p.line(&format!("CONFIG SET stream-node-max-bytes {bytes}"));
        let context = format!(
            "seed {seed}: fill {fill}, depth {depth}, rdbcompression {compress}, \
             stream nodes {entries}/{bytes}"
        );
        eprintln!("{context}");
        for round in 0..30 {
            let most = if g.below(4) == 0 { 2000 } else { 40 };
            let n = 1 + g.below(most) as usize;
            let key = format!("k{round}");
            match g.below(5) {
                0 => {
                    let items: Vec<Vec<u8>> = (0..n).map(|_| g.element(9000)).collect();
                    p.run(bytes_line("RPUSH", &key, &items));
                }
                1 => {
                    let mut items = Vec::new();
                    for _ in 0..n.min(200) {
                        items.push(g.element(64));
                        items.push(g.element(64));
                    }
                    p.run(bytes_line("HSET", &key, &items));
                }
                2 => {
                    let mut items = Vec::new();
                    for _ in 0..n.min(300) {
                        let score = match g.below(4) {
                            0 => (g.below(2000) as i64 - 1000).to_string(),
                            1 => format!("{}", (g.next() as i64) as f64 / 1e6),
                            2 => format!("{}e{}", g.below(100), g.below(40)),
                            _ => "inf".to_string(),
                        };
                        items.push(score.into_bytes());
                        items.push(g.element(80));
                    }
                    p.run(bytes_line("ZADD", &key, &items));
                }
                3 => {
                    let items: Vec<Vec<u8>> = (0..n.min(600))
                        .map(|_| {
                            let v = (g.next() >> g.below(64)) as i64;
                            v.wrapping_sub(1 << 20).to_string().into_bytes()
                        })
                        .collect();
                    p.run(bytes_line("SADD", &key, &items));
                    // A set that became a hash table compares by value only.
                    if p.redis(&words(&format!("OBJECT ENCODING {key}")))
                        != Reply::Bulk(b"intset".to_vec())
                    {
                        p.restores(&key);
                        continue;
                    }
                }
                _ => {
                    let names = [b"a".to_vec(), b"temp".to_vec(), b"12".to_vec()];
                    for i in 0..n.min(300) {
                        let mut fields = vec![format!("{}-{}", 1 + i * 3, g.below(3)).into_bytes()];
                        let count = 1 + g.below(3) as usize;
                        for usual in names.iter().take(count) {
                            let name = if g.below(4) == 0 {
                                g.element(10)
                            } else {
                                usual.clone()
                            };
                            fields.push(name);
                            fields.push(g.element(300));
                        }
                        p.run(bytes_line("XADD", &key, &fields));
                    }
                }
            }
            let (r, k) = p.dumps(key.as_bytes());
            assert!(
                r == k,
                "{context}: DUMP {key} differs\n redis: {}\n kvlab: {}",
                hex(&r),
                hex(&k)
            );
            p.exact += 1;
            p.restores(&key);
        }
    }
    eprintln!("random values: {} exact, {} restored", p.exact, p.restored);
}
