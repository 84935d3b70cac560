//! RESTORE against a real redis-server: every payload of `tests/restore/payloads.txt`
//! (recorded by `DUMP` from Redis 7.0.15, cut out of Redis's own test RDB files, or taken
//! from its corrupt-dump tests; see `tests/restore/cases.txt` for the format) is RESTOREd
//! into kvlab's engine and into the server, and the two must give the same reply; when
//! that is OK, the same reads must agree too: `TYPE`, `OBJECT ENCODING`, the whole value,
//! and the case's own reads. Then the command itself: options, errors, TTLs, `IDLETIME`
//! and `FREQ`, compared reply by reply.

use kvlab::engine::{ClientId, Engine, Reply, SystemClock};

use crate::support::process::{redis_server, ServerGuard};
use crate::support::resp::{parse_bytes, RespClient};

const PAYLOADS: &str = include_str!("../restore/payloads.txt");

/// One case of the data file.
struct Case {
    name: String,
    configs: Vec<(String, String)>,
    reads: Vec<Vec<Vec<u8>>>,
    payload: Vec<u8>,
}

/// Splits a line as redis-cli does: words, double quotes with `\xHH` escapes.
fn words(line: &str) -> Vec<Vec<u8>> {
    let b = line.as_bytes();
    let (mut out, mut i) = (Vec::new(), 0);
    while i < b.len() {
        if b[i] == b' ' {
            i += 1;
            continue;
        }
        let mut w = Vec::new();
        if b[i] == b'"' {
            i += 1;
            while i < b.len() && b[i] != b'"' {
                if b[i] == b'\\' && b.get(i + 1) == Some(&b'x') {
                    let hex = std::str::from_utf8(&b[i + 2..i + 4]).unwrap();
                    w.push(u8::from_str_radix(hex, 16).unwrap());
                    i += 4;
                } else if b[i] == b'\\' {
                    w.push(match b[i + 1] {
                        b'n' => b'\n',
                        b'r' => b'\r',
                        c => c,
                    });
                    i += 2;
                } else {
                    w.push(b[i]);
                    i += 1;
                }
            }
            i += 1;
        } else {
            while i < b.len() && b[i] != b' ' {
                w.push(b[i]);
                i += 1;
            }
        }
        out.push(w);
    }
    out
}

fn hex(s: &str) -> Vec<u8> {
    (0..s.len() / 2)
        .map(|i| u8::from_str_radix(&s[2 * i..2 * i + 2], 16).unwrap())
        .collect()
}

fn cases() -> Vec<Case> {
    let mut out: Vec<Case> = Vec::new();
    for line in PAYLOADS.lines() {
        let (word, rest) = line.split_once(' ').unwrap_or((line, ""));
        match word {
            "case" => out.push(Case {
                name: rest.to_string(),
                configs: Vec::new(),
                reads: Vec::new(),
                payload: Vec::new(),
            }),
            "restore-config" => {
                let (p, v) = rest.split_once(' ').unwrap();
                out.last_mut().unwrap().configs.push((p.into(), v.into()));
            }
            "read" => out.last_mut().unwrap().reads.push(words(rest)),
            "payload" => out.last_mut().unwrap().payload = hex(rest),
            _ => {}
        }
    }
    out
}

/// The two servers, side by side.
struct Pair {
    _guard: ServerGuard,
    redis: RespClient,
    engine: Engine,
    client: ClientId,
}

impl Pair {
    fn new() -> Pair {
        let guard = redis_server(&[]);
        let redis = guard.client();
        let mut engine = Engine::new(Box::new(SystemClock), 1);
        let client = engine.connect();
        Pair {
            _guard: guard,
            redis,
            engine,
            client,
        }
    }

    /// Runs `argv` on both; the replies, kvlab's in wire form.
    fn both(&mut self, argv: &[Vec<u8>]) -> (Reply, Reply) {
        let r = self.redis.call(argv).expect("redis-server replies");
        let k = self.engine.execute(self.client, argv.to_vec());
        self.engine.take_effects();
        (r, parse_bytes(&k.to_resp(2)).expect("kvlab's reply parses"))
    }

    fn cmd(&mut self, args: &[&[u8]]) -> (Reply, Reply) {
        let argv: Vec<Vec<u8>> = args.iter().map(|a| a.to_vec()).collect();
        self.both(&argv)
    }
}

fn show(argv: &[Vec<u8>]) -> String {
    argv.iter()
        .map(|a| String::from_utf8_lossy(a).into_owned())
        .collect::<Vec<_>>()
        .join(" ")
}

/// An array reply's elements sorted (or its pairs, for a hash), for values whose order
/// Redis leaves to its hash table.
fn sorted(reply: Reply, pairs: bool) -> Reply {
    let Reply::Array(items) = reply else {
        return reply;
    };
    let key = |r: &Reply| format!("{r:?}");
    if pairs {
        let mut ps: Vec<Vec<Reply>> = items.chunks(2).map(<[Reply]>::to_vec).collect();
        ps.sort_by_key(|p| key(&p[0]));
        Reply::Array(ps.into_iter().flatten().collect())
    } else {
        let mut items = items;
        items.sort_by_key(key);
        Reply::Array(items)
    }
}

/// The reads every restored key gets, by type; `unordered` when the reply's order is the
/// hash table's (compared sorted, and for a hash by pairs).
fn default_reads(ty: &[u8]) -> Vec<(Vec<Vec<u8>>, bool, bool)> {
    let w = |s: &str| words(s);
    match ty {
        b"string" => vec![(w("GET k"), false, false), (w("STRLEN k"), false, false)],
        b"list" => vec![
            (w("LRANGE k 0 -1"), false, false),
            (w("LLEN k"), false, false),
        ],
        b"set" => vec![(w("SMEMBERS k"), true, false), (w("SCARD k"), false, false)],
        b"zset" => vec![(w("ZRANGE k 0 -1 WITHSCORES"), false, false)],
        b"hash" => vec![(w("HGETALL k"), true, true), (w("HLEN k"), false, false)],
        b"stream" => vec![
            (w("XRANGE k - +"), false, false),
            (w("XINFO STREAM k FULL"), false, false),
        ],
        _ => Vec::new(),
    }
}

#[test]
fn restored_payloads_read_as_in_redis() {
    let mut p = Pair::new();
    let mut failures = Vec::new();
    let all = cases();
    assert!(all.len() > 100, "the payload file has its cases");
    for case in &all {
        p.cmd(&[b"FLUSHALL"]);
        let mut saved = Vec::new();
        for (param, value) in &case.configs {
            if let (Reply::Array(v), _) = p.cmd(&[b"CONFIG", b"GET", param.as_bytes()]) {
                saved.push((param.clone(), v[1].clone()));
            }
            p.cmd(&[b"CONFIG", b"SET", param.as_bytes(), value.as_bytes()]);
        }
        let restore = vec![
            b"RESTORE".to_vec(),
            b"k".to_vec(),
            b"0".to_vec(),
            case.payload.clone(),
        ];
        let (r, k) = p.both(&restore);
        if r != k {
            failures.push(format!("{}: RESTORE: redis {r:?}, kvlab {k:?}", case.name));
        } else if r == Reply::Status("OK".into()) {
            let (ty, _) = p.cmd(&[b"TYPE", b"k"]);
            let Reply::Status(ty) = ty else {
                panic!("TYPE replies a status")
            };
            let (enc, kenc) = p.cmd(&[b"OBJECT", b"ENCODING", b"k"]);
            if enc != kenc {
                failures.push(format!(
                    "{}: OBJECT ENCODING: redis {enc:?}, kvlab {kenc:?}",
                    case.name
                ));
            }
            let hashed = enc == Reply::Bulk(b"hashtable".to_vec());
            // DUMP of what was restored: the same bytes, except where the order of a hash
            // table's members is Redis's own, and for lists and streams: Redis keeps a
            // loaded list's quicklist nodes as they came (kvlab packs a list anew by the
            // configuration in force) and a stream node's deleted entries (kvlab keeps
            // their count only, and DUMP writes the live entries).
            let (dr, dk) = p.cmd(&[b"DUMP", b"k"]);
            let repacked = matches!(&*ty, "list" | "stream");
            if dr != dk && !hashed && !repacked {
                failures.push(format!("{}: DUMP after RESTORE differs", case.name));
            }
            let mut reads = default_reads(ty.as_bytes());
            reads.extend(case.reads.iter().map(|r| (r.clone(), false, false)));
            for (argv, unordered, pairs) in reads {
                let (mut r, mut k) = p.both(&argv);
                if unordered && hashed {
                    r = sorted(r, pairs);
                    k = sorted(k, pairs);
                }
                if r != k {
                    failures.push(format!(
                        "{}: {}: redis {r:?}, kvlab {k:?}",
                        case.name,
                        show(&argv)
                    ));
                }
            }
        }
        for (param, value) in saved {
            if let Reply::Bulk(v) = value {
                p.cmd(&[b"CONFIG", b"SET", param.as_bytes(), &v]);
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} cases differ:\n{}",
        failures.len(),
        all.len(),
        failures.join("\n")
    );
}

/// A payload with its footer: the body, RDB version `version`, and a valid CRC-64.
fn sealed(body: &[u8], version: u16) -> Vec<u8> {
    let mut out = body.to_vec();
    out.extend_from_slice(&version.to_le_bytes());
    let crc = kvlab::engine::rdb::crc64(&out);
    out.extend_from_slice(&crc.to_le_bytes());
    out
}

#[test]
fn restore_options_and_errors_match_redis() {
    let mut p = Pair::new();
    let good = sealed(b"\x00\x05hello", 10);
    let mut bad_crc = good.clone();
    *bad_crc.last_mut().unwrap() ^= 1;
    let newer = sealed(b"\x00\x05hello", 11);
    let type8 = sealed(b"\x08\x00", 10);
    let empty_list = sealed(b"\x12\x00", 10);
    let truncated = sealed(b"\x00\x05hel", 10);
    let g = good.as_slice();
    let script: Vec<Vec<&[u8]>> = vec![
        vec![b"SET", b"s", b"x"],
        vec![b"RESTORE", b"s", b"0", g],
        vec![b"RESTORE", b"s", b"x", b"junk"],
        vec![b"RESTORE", b"s", b"0", g, b"REPLACE"],
        vec![b"GET", b"s"],
        vec![b"TTL", b"s"],
        vec![b"RESTORE", b"n", b"-1", g],
        vec![b"RESTORE", b"n", b"x", g],
        vec![b"RESTORE", b"n", b"0", g, b"bogus"],
        vec![b"RESTORE", b"n", b"0", g, b"IDLETIME"],
        vec![b"RESTORE", b"n", b"0", g, b"IDLETIME", b"-1"],
        vec![b"RESTORE", b"n", b"0", g, b"IDLETIME", b"x"],
        vec![b"RESTORE", b"n", b"0", g, b"FREQ", b"256"],
        vec![b"RESTORE", b"n", b"0", g, b"FREQ", b"-1"],
        vec![b"RESTORE", b"n", b"0", g, b"IDLETIME", b"5", b"FREQ", b"3"],
        vec![b"RESTORE", b"n", b"0", g, b"FREQ", b"3", b"IDLETIME", b"5"],
        vec![b"RESTORE", b"n", b"0", b"short"],
        vec![b"RESTORE", b"n", b"0", &bad_crc],
        vec![b"RESTORE", b"n", b"0", &newer],
        vec![b"RESTORE", b"n", b"0", &type8],
        vec![b"RESTORE", b"n", b"0", &empty_list],
        vec![b"RESTORE", b"n", b"0", &truncated],
        vec![b"EXISTS", b"n"],
        // A deadline far ahead, absolute: the same on both.
        vec![b"RESTORE", b"a", b"4102444800000", g, b"ABSTTL"],
        vec![b"PEXPIRETIME", b"a"],
        // A deadline in the past stores nothing; with REPLACE it deletes.
        vec![b"RESTORE", b"p", b"1", g, b"ABSTTL"],
        vec![b"EXISTS", b"p"],
        vec![b"RESTORE", b"s", b"1", g, b"ABSTTL", b"REPLACE"],
        vec![b"EXISTS", b"s"],
        // A relative TTL so large that adding now wraps into the past.
        vec![b"RESTORE", b"w", b"9223372036854775807", g],
        vec![b"EXISTS", b"w"],
        vec![
            b"RESTORE",
            b"i",
            b"0",
            g,
            b"IDLETIME",
            b"1000",
            b"REPLACE",
            b"ABSTTL",
        ],
        vec![b"OBJECT", b"FREQ", b"i"],
        vec![b"CONFIG", b"SET", b"maxmemory-policy", b"allkeys-lfu"],
        vec![b"RESTORE", b"f", b"0", g, b"FREQ", b"100"],
        vec![b"OBJECT", b"FREQ", b"f"],
        vec![b"OBJECT", b"IDLETIME", b"f"],
        vec![b"RESTORE", b"f2", b"0", g, b"IDLETIME", b"100"],
        vec![b"OBJECT", b"FREQ", b"f2"],
        vec![b"CONFIG", b"SET", b"maxmemory-policy", b"noeviction"],
        vec![b"RESTORE", b"f3", b"0", g, b"FREQ", b"100"],
    ];
    let mut failures = Vec::new();
    for argv in &script {
        let (r, k) = p.cmd(argv);
        if r != k {
            let argv: Vec<Vec<u8>> = argv.iter().map(|a| a.to_vec()).collect();
            failures.push(format!("{}: redis {r:?}, kvlab {k:?}", show(&argv)));
        }
    }
    // Times measured on each side's clock: within a second of each other.
    let near = |r: Reply, k: Reply, what: &str, failures: &mut Vec<String>| match (&r, &k) {
        (Reply::Integer(a), Reply::Integer(b)) if (a - b).abs() <= 1 => {}
        _ => failures.push(format!("{what}: redis {r:?}, kvlab {k:?}")),
    };
    let (r, k) = p.cmd(&[b"OBJECT", b"IDLETIME", b"i"]);
    near(r, k, "OBJECT IDLETIME after IDLETIME 1000", &mut failures);
    let (r, k) = p.cmd(&[b"RESTORE", b"t", b"5000", g]);
    assert_eq!(r, k);
    let (r, k) = p.cmd(&[b"TTL", b"t"]);
    near(r, k, "TTL after RESTORE t 5000", &mut failures);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
