//! `MEMORY USAGE` and `OBJECT ENCODING` against a real `redis-server` 7.0 (jemalloc): the
//! same commands build a key on both sides, then both must name the same encoding, and
//! the byte counts must be
//!
//! * equal, for strings (`int`, `embstr`, `raw`) and the compact encodings (listpack
//!   hashes and sorted sets, intsets, a list of one quicklist node);
//! * within 10%, for the encodings Redis itself samples (`SAMPLES`, 5 by default) in an
//!   order of its own: hash tables, skiplists, lists of many nodes, streams.
//!
//! Run alone with `cargo test --test differential memory::`.

use kvlab::engine::Reply;

use super::support::sides::Sides;

struct Pair {
    sides: Sides,
}

fn words(line: &str) -> Vec<Vec<u8>> {
    line.split_whitespace()
        .map(|w| w.as_bytes().to_vec())
        .collect()
}

impl Pair {
    fn start() -> Pair {
        Pair {
            sides: Sides::start(&[]),
        }
    }

    fn both(&mut self, argv: &[Vec<u8>]) -> (Reply, Reply) {
        self.sides.both(argv)
    }

    /// Runs a command on both sides; the replies must agree.
    fn run(&mut self, argv: Vec<Vec<u8>>) {
        let (r, k) = self.both(&argv);
        assert_eq!(r, k, "{:?}", String::from_utf8_lossy(&argv.join(&b' ')));
    }

    fn line(&mut self, line: &str) {
        self.run(words(line));
    }

    /// The key's encoding on both sides must agree; its `MEMORY USAGE` must be equal when
    /// `exact`, else within 10%. Returns (redis, kvlab) bytes.
    fn check(&mut self, key: &str, exact: bool) -> (i64, i64) {
        self.line(&format!("OBJECT ENCODING {key}"));
        let (r, k) = self.both(&words(&format!("MEMORY USAGE {key}")));
        let (Reply::Integer(r), Reply::Integer(k)) = (r.clone(), k.clone()) else {
            panic!("MEMORY USAGE {key}: {r:?} / {k:?}");
        };
        eprintln!("{key:<24} redis {r:>8}  kvlab {k:>8}");
        if exact {
            assert_eq!(r, k, "MEMORY USAGE {key}: redis {r}, kvlab {k}");
        } else {
            assert!(
                (r - k).abs() * 10 <= r,
                "MEMORY USAGE {key}: redis {r}, kvlab {k} (more than 10% apart)"
            );
        }
        (r, k)
    }
}

fn many(cmd: &str, key: &str, n: usize, item: impl Fn(usize) -> String) -> Vec<u8> {
    let mut line = format!("{cmd} {key}");
    for i in 0..n {
        line.push(' ');
        line.push_str(&item(i));
    }
    line.into_bytes()
}

#[test]
fn memory_usage_and_encoding_match_redis() {
    let mut p = Pair::start();
    let run = |p: &mut Pair, line: Vec<u8>| {
        let argv: Vec<Vec<u8>> = line
            .split(|&b| b == b' ')
            .filter(|w| !w.is_empty())
            .map(<[u8]>::to_vec)
            .collect();
        p.run(argv);
    };
    // Strings: every encoding and sds header size.
    let strings: Vec<(String, String)> = vec![
        ("s:int".into(), "12345".into()),
        ("s:bigint".into(), "-9223372036854775808".into()),
        ("s:short".into(), "hello".into()),
        ("s:embstr44".into(), "x".repeat(44)),
        ("s:raw45".into(), "y".repeat(45)),
        ("s:raw300".into(), "z".repeat(300)),
        ("s:raw70000".into(), "w".repeat(70_000)),
        (format!("k:{}", "n".repeat(40)), "v".into()),
    ];
    for (k, v) in &strings {
        p.run(vec![
            b"SET".to_vec(),
            k.clone().into_bytes(),
            v.clone().into_bytes(),
        ]);
        p.check(k, true);
    }
    p.line("SET s:float 0");
    p.line("INCRBYFLOAT s:float 1.5");
    p.check("s:float", true);
    p.line("SET s:app abc");
    p.line("APPEND s:app defghij");
    p.check("s:app", true);

    // Listpack hashes and sorted sets, intsets, one-node lists: exact.
    run(
        &mut p,
        many("HSET", "h:small", 10, |i| format!("field{i} {}", i * 1000)),
    );
    p.check("h:small", true);
    run(
        &mut p,
        many("HSET", "h:mixed", 30, |i| {
            format!("f{i} {}", "v".repeat(i + 1))
        }),
    );
    p.check("h:mixed", true);
    run(
        &mut p,
        many("ZADD", "z:small", 50, |i| format!("{}.5 member:{i}", i)),
    );
    p.check("z:small", true);
    run(
        &mut p,
        many("ZADD", "z:ints", 20, |i| {
            format!("{} m{i}", i as i64 * 1_000_003 - 7)
        }),
    );
    p.check("z:ints", true);
    run(
        &mut p,
        many("SADD", "s:ints", 100, |i| (i * 37).to_string()),
    );
    p.check("s:ints", true);
    run(
        &mut p,
        many("SADD", "s:wide", 10, |i| {
            (i as i64 * 100_000_000_000).to_string()
        }),
    );
    p.check("s:wide", true);
    run(&mut p, many("RPUSH", "l:one", 50, |i| format!("item:{i}")));
    p.check("l:one", true);

    // Sampled by Redis: within 10%.
    run(
        &mut p,
        many("HSET", "h:big", 1000, |i| format!("field:{i} value:{i}")),
    );
    p.check("h:big", false);
    run(
        &mut p,
        many("SADD", "s:big", 1000, |i| format!("member:{i}")),
    );
    p.check("s:big", false);
    run(
        &mut p,
        many("ZADD", "z:big", 1000, |i| format!("{i} member:{i}")),
    );
    p.check("z:big", false);
    run(
        &mut p,
        many("RPUSH", "l:big", 5000, |i| format!("item:{i}")),
    );
    p.check("l:big", false);
    for i in 0..300 {
        p.line(&format!(
            "XADD x:big {}-1 field value:{i} other {i}",
            1_700_000_000_000u64 + i
        ));
    }
    p.check("x:big", false);
    p.line("XGROUP CREATE x:big g 0");
    p.line("XREADGROUP GROUP g alice COUNT 10 STREAMS x:big >");
    p.check("x:big", false);
}
