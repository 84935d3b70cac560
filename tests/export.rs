//! Export and import (`engine::export`) against a real Redis: a dataset built by random
//! commands is exported as a redis-cli command file and as RESP, loaded into
//! `redis-server` 7.0 with `redis-cli < file` and `redis-cli --pipe < file`, and every key
//! of every database is compared — type, contents and the exact deadline (`PEXPIRETIME`).
//! The exports are also imported back into a fresh engine and compared there.
#![cfg(not(target_arch = "wasm32"))]

#[path = "differential/gen.rs"]
#[allow(dead_code)]
mod gen;
mod support;

use std::io::Write;
use std::process::{Command, Stdio};

use kvlab::engine::clock::Clock;
use kvlab::engine::export::{
    import_cli_text, import_json, import_resp, to_cli_text, to_commands, to_json, to_resp,
};
use kvlab::engine::keyspace::Db;
use kvlab::engine::snapshot::{data_dump, decode_snapshot, encode_snapshot};
use kvlab::engine::types::Value;
use kvlab::engine::{Engine, Reply, SystemClock};

use gen::{Row, G, ROWS};
use support::process::redis_server;
use support::resp::RespClient;

fn argv(words: &[&str]) -> Vec<Vec<u8>> {
    words.iter().map(|w| w.as_bytes().to_vec()).collect()
}

/// A dataset of every type, binary keys and values, deadlines, several databases.
fn dataset(seed: u64) -> Engine {
    let mut e = Engine::new(Box::new(SystemClock), seed);
    let c = e.connect();
    let now = e.now_ms();
    let mut g = G::new(seed, now);
    let rows: Vec<&Row> = ROWS.iter().filter(|r| r.name != "_watch").collect();
    let total: u32 = rows.iter().map(|r| r.weight).sum();
    for _ in 0..4000 {
        let mut x = g.rng.u32(..total);
        let mut row = rows[rows.len() - 1];
        for r in &rows {
            if x < r.weight {
                row = r;
                break;
            }
            x -= r.weight;
        }
        let cmd = (row.gen)(&mut g).argv;
        if !cmd.is_empty() {
            e.execute(c, cmd);
        }
    }
    let big: Vec<String> = (0..2500).map(|i| format!("m{i}")).collect();
    let mut zadd = vec!["ZADD".to_string(), "bigz".into()];
    let mut rpush = vec!["RPUSH".to_string(), "bigl".into()];
    for (i, m) in big.iter().enumerate() {
        zadd.push(format!("{}", i as f64 / 7.0));
        zadd.push(m.clone());
        rpush.push(m.clone());
    }
    let words = |v: &[String]| v.iter().map(|s| s.as_bytes().to_vec()).collect::<Vec<_>>();
    e.execute(c, argv(&["SELECT", "5"]));
    e.execute(c, words(&zadd));
    e.execute(c, words(&rpush));
    e.execute(
        c,
        argv(&[
            "ZADD", "inf", "inf", "a", "-inf", "b", "-0", "c", "1e300", "d",
        ]),
    );
    e.execute(
        c,
        vec![
            b"SET".to_vec(),
            b"bin\x00\xff\"\\\n key".to_vec(),
            b"\x00\x01\r\n\t\"v".to_vec(),
        ],
    );
    e.execute(c, argv(&["HSET", "h\u{4e2d}", "f", "\u{6587}", "g", ""]));
    e.execute(c, argv(&["SET", "ttl", "v", "PX", "100000000"]));
    e.execute(c, argv(&["SADD", "s", "1", "2", "x"]));
    e.execute(c, argv(&["PEXPIRE", "s", "55555555"]));
    e.take_effects();
    e
}

/// Asks `redis` for everything about every key of `dbs` and checks it matches.
fn compare_with_redis(dbs: &[Db], redis: &mut RespClient) {
    let bulk = |b: &[u8]| Reply::Bulk(b.to_vec());
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis() as i64;
    let mut checked = 0;
    for (i, db) in dbs.iter().enumerate() {
        redis.call(&["SELECT".to_string(), i.to_string()]).unwrap();
        let alive = db.iter().filter(|(_, e)| !e.is_expired_at(now)).count();
        assert_eq!(
            redis.call(&["DBSIZE"]).unwrap(),
            Reply::Integer(alive as i64),
            "db {i}"
        );
        for (k, e) in db.iter() {
            if e.is_expired_at(now) {
                continue;
            }

            let ctx = format!("db {i} key {}", k.escape_ascii());
            let want_t = e.expire_at().unwrap_or(-1);
            assert_eq!(
                redis.call(&[&b"PEXPIRETIME"[..], k]).unwrap(),
                Reply::Integer(want_t),
                "{ctx}"
            );
            let items = |r: Reply| match r {
                Reply::Array(v) => v,
                other => panic!("{ctx}: {other:?}"),
            };
            match &e.value {
                Value::Str(s) => {
                    assert_eq!(
                        redis.call(&[&b"GET"[..], k]).unwrap(),
                        bulk(s.as_bytes()),
                        "{ctx}"
                    )
                }
                Value::List(l) => {
                    let got = items(redis.call(&[&b"LRANGE"[..], k, b"0", b"-1"]).unwrap());
                    let want: Vec<Reply> = l.iter().map(bulk).collect();
                    assert_eq!(got, want, "{ctx}");
                }
                Value::Set(s) => {
                    let mut got = items(redis.call(&[&b"SMEMBERS"[..], k]).unwrap());
                    let mut want: Vec<Reply> = s.iter().map(&bulk).collect();
                    let key = |r: &Reply| format!("{r:?}");
                    got.sort_by_key(key);
                    want.sort_by_key(key);
                    assert_eq!(got, want, "{ctx}");
                }
                Value::ZSet(z) => {
                    let got = items(
                        redis
                            .call(&[&b"ZRANGE"[..], k, b"0", b"-1", b"WITHSCORES"])
                            .unwrap(),
                    );
                    assert_eq!(got.len(), z.len() * 2, "{ctx}");
                    for (j, (m, s)) in z.iter().enumerate() {
                        assert_eq!(got[2 * j], bulk(m), "{ctx}");
                        let Reply::Bulk(text) = &got[2 * j + 1] else {
                            panic!("{ctx}: score {:?}", got[2 * j + 1])
                        };
                        let parsed: f64 = std::str::from_utf8(text).unwrap().parse().unwrap();
                        assert!(parsed == s, "{ctx}: score {parsed} vs {s}");
                    }
                }
                Value::Hash(h) => {
                    let got = items(redis.call(&[&b"HGETALL"[..], k]).unwrap());
                    let mut got: Vec<(Reply, Reply)> = got
                        .chunks(2)
                        .map(|p| (p[0].clone(), p[1].clone()))
                        .collect();
                    let mut want: Vec<(Reply, Reply)> =
                        h.iter().map(|(f, v)| (bulk(f), bulk(v))).collect();
                    let key = |r: &(Reply, Reply)| format!("{r:?}");
                    got.sort_by_key(key);
                    want.sort_by_key(key);
                    assert_eq!(got, want, "{ctx}");
                }
                Value::Stream(st) => {
                    // Entries and their IDs; groups by their last delivered ID and pending count.
                    let got = items(redis.call(&[&b"XRANGE"[..], k, b"-", b"+"]).unwrap());
                    assert_eq!(got.len() as u64, st.len(), "{ctx}");
                    let groups = items(redis.call(&[&b"XINFO"[..], b"GROUPS", k]).unwrap());
                    assert_eq!(groups.len(), st.groups.len(), "{ctx}");
                }
            }
            checked += 1;
        }
    }
    assert!(checked > 50, "only {checked} keys compared");
}

fn redis_cli(port: u16, extra: &[&str], input: &[u8]) -> String {
    let mut child = Command::new("redis-cli")
        .args(["-h", "127.0.0.1", "-p", &port.to_string()])
        .args(extra)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("redis-cli is installed (scripts/setup.sh installs redis-tools)");
    child.stdin.take().unwrap().write_all(input).unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "redis-cli failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn a_command_file_export_loads_into_redis_with_redis_cli() {
    let e = dataset(1);
    let cmds = to_commands(e.dbs(), e.now_ms());
    let text = to_cli_text(&cmds);
    let server = redis_server(&[]);
    let out = redis_cli(server.port, &[], text.as_bytes());
    assert!(!out.contains("ERR"), "redis-cli reported errors:\n{out}");
    compare_with_redis(e.dbs(), &mut server.client());
}

#[test]
fn a_resp_export_loads_into_redis_with_redis_cli_pipe() {
    let e = dataset(2);
    let cmds = to_commands(e.dbs(), e.now_ms());
    let server = redis_server(&[]);
    let out = redis_cli(server.port, &["--pipe"], &to_resp(&cmds));
    assert!(out.contains("errors: 0,"), "{out}");
    compare_with_redis(e.dbs(), &mut server.client());
}

/// Compares two `data_dump`s, showing the first differing lines.
fn same(got: String, want: &str) {
    let diff: Vec<String> = got
        .lines()
        .zip(want.lines())
        .filter(|(a, b)| a != b)
        .take(3)
        .map(|(a, b)| format!("imported: {:.300}\nexported: {:.300}", a, b))
        .collect();
    assert!(
        diff.is_empty() && got.lines().count() == want.lines().count(),
        "{}",
        diff.join("\n")
    );
}

#[test]
fn exports_import_back_into_an_engine() {
    let e = dataset(3);
    let cmds = to_commands(e.dbs(), e.now_ms());
    let want = data_dump(e.dbs());

    let mut a = Engine::new(Box::new(SystemClock), 9);
    let c = a.connect();
    let r = import_cli_text(&mut a, c, to_cli_text(&cmds).as_bytes());
    assert!(r.errors.is_empty(), "{:?}", r.errors);
    assert_eq!(r.commands, cmds.len());
    same(data_dump(a.dbs()), &want);

    let mut b = Engine::new(Box::new(SystemClock), 9);
    let c = b.connect();
    let r = import_resp(&mut b, c, &to_resp(&cmds));
    assert!(r.errors.is_empty(), "{:?}", r.errors);
    same(data_dump(b.dbs()), &want);

    // A damaged tail is reported; what came before it is imported.
    let resp = to_resp(&cmds);
    let mut d = Engine::new(Box::new(SystemClock), 9);
    let c = d.connect();
    let r = import_resp(&mut d, c, &resp[..resp.len() - 3]);
    assert_eq!(r.commands, cmds.len() - 1);
    assert!(r.errors.last().unwrap().1.starts_with("Protocol error"));
}

#[test]
fn json_export_names_every_key_with_its_type_and_deadline() {
    let e = dataset(4);
    let json = to_json(e.dbs(), e.now_ms());
    assert!(json.starts_with("{\"format\":\"kvlab-export\",\"version\":1,"));
    assert!(
        json.contains("\"key\":{\"hex\":\"62696e00ff225c0a206b6579\"}"),
        "binary key as hex"
    );
    assert!(json.contains("[\"a\",\"inf\"]"));
    assert!(json.contains("\"key\":\"ttl\",\"type\":\"string\",\"expire_at_ms\":"));
    let keys: usize = e.dbs().iter().map(|d| d.len()).sum();
    assert_eq!(json.matches("\n{\"db\":").count(), keys);
    // It is JSON: python's parser agrees, when python is there.
    if let Ok(mut child) = Command::new("python3")
        .args([
            "-c",
            "import json,sys; d=json.load(sys.stdin); print(len(d['keys']))",
        ])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
    {
        child
            .stdin
            .take()
            .unwrap()
            .write_all(json.as_bytes())
            .unwrap();
        let out = child.wait_with_output().unwrap();
        assert_eq!(
            String::from_utf8_lossy(&out.stdout).trim(),
            keys.to_string()
        );
    }
}

#[test]
fn json_export_imports_back_into_a_fresh_engine_over_random_datasets() {
    for seed in [4, 11, 12, 13, 14] {
        let e = dataset(seed);
        let json = to_json(e.dbs(), e.now_ms());
        let mut a = Engine::new(Box::new(SystemClock), 9);
        let plan = import_json(&mut a, json.as_bytes()).unwrap_or_else(|err| panic!("{err}"));
        let keys: usize = e.dbs().iter().map(|d| d.len()).sum();
        assert_eq!(plan.keys, keys, "seed {seed}");
        assert!(plan.existing.is_empty());
        // As exact as a snapshot: a stream's rewrite commands cannot bring back a pending
        // entry whose message was deleted (XCLAIM skips it, as in Redis 7.0's AOF rewrite),
        // so compare with the dataset after a snapshot round trip.
        let snap = decode_snapshot(&encode_snapshot(e.dbs(), 0, e.now_ms())).unwrap();
        assert!(snap.error.is_none());
        same(data_dump(a.dbs()), &data_dump(&snap.value.dbs));
    }
    let streams = dataset(4)
        .dbs()
        .iter()
        .flat_map(|d| d.iter())
        .filter(|(_, e)| matches!(e.value, Value::Stream(_)))
        .count();
    assert!(streams > 0, "the datasets hold streams");
}

#[test]
fn json_import_skips_expired_keys_and_keeps_existing_ones() {
    let now = SystemClock.now_ms();
    let json = format!(
        "{{\"format\":\"kvlab-export\",\"version\":1,\"exported_ms\":0,\"keys\":[\n\
         {{\"db\":0,\"key\":\"old\",\"type\":\"string\",\"expire_at_ms\":{},\"value\":\"x\"}},\n\
         {{\"db\":0,\"key\":\"later\",\"type\":\"string\",\"expire_at_ms\":{},\"value\":\"y\"}},\n\
         {{\"db\":2,\"key\":\"mine\",\"type\":\"list\",\"value\":[\"imported\"]}},\n\
         {{\"db\":2,\"key\":{{\"hex\":\"00ff\"}},\"type\":\"zset\",\"value\":[[\"a\",\"-inf\"],[\"b\",1.5]]}}\n]}}\n",
        now - 1000,
        now + 100_000
    );
    let mut e = Engine::new(Box::new(SystemClock), 1);
    let c = e.connect();
    e.execute(c, argv(&["SELECT", "2"]));
    e.execute(c, argv(&["RPUSH", "mine", "kept"]));
    let plan = import_json(&mut e, json.as_bytes()).unwrap();
    assert_eq!(plan.expired, 1);
    assert_eq!(plan.keys, 2);
    assert_eq!(plan.existing, vec![(2, "\"mine\"".to_string())]);
    assert!(e.dbs()[0].get_raw(b"old").is_none());
    let later = e.dbs()[0].get_raw(b"later").unwrap();
    assert_eq!(later.expire_at(), Some(now + 100_000));
    assert_eq!(
        e.execute(c, argv(&["LRANGE", "mine", "0", "-1"])),
        Reply::Array(vec![Reply::Bulk(b"kept".to_vec())])
    );
    assert_eq!(
        e.execute(
            c,
            vec![b"ZSCORE".to_vec(), b"\x00\xff".to_vec(), b"b".to_vec()]
        ),
        Reply::Bulk(b"1.5".to_vec())
    );
    // The import's own client is gone; the caller's stays in its database.
    assert_eq!(e.execute(c, argv(&["DBSIZE"])), Reply::Integer(2));
}

#[test]
fn a_malformed_json_file_imports_nothing_and_says_where() {
    let good = "{\"format\":\"kvlab-export\",\"version\":1,\"exported_ms\":0,\"keys\":[\n\
                {\"db\":0,\"key\":\"a\",\"type\":\"string\",\"value\":\"1\"},\n";
    let cases: &[(&str, &str)] = &[
        ("{\"db\":0,\"key\":\"b\",\"type\":\"list\",\"value\":\"x\"}\n]}", "line 3, key \"b\": a list value must be an array"),
        ("{\"db\":0,\"key\":\"b\",\"type\":\"list\",\"value\":[]}\n]}", "line 3, key \"b\": a list value must not be empty"),
        ("{\"db\":0,\"key\":\"z\",\"type\":\"zset\",\"value\":[[\"m\",\"nan\"]]}\n]}", "line 3, key \"z\": a score must be"),
        ("{\"db\":16,\"key\":\"b\",\"type\":\"string\",\"value\":\"x\"}\n]}", "line 3, key \"b\": \"db\" must be 0 to 15"),
        ("{\"db\":0,\"key\":\"a\",\"type\":\"string\",\"value\":\"x\"}\n]}", "line 3, key \"a\": the key appears twice"),
        ("{\"db\":0,\"key\":\"h\",\"type\":\"hash\",\"value\":[[\"f\"]]}\n]}", "line 3, key \"h\": a hash element must be a pair"),
        ("{\"db\":0,\"key\":\"q\",\"type\":\"queue\",\"value\":[\"x\"]}\n]}", "line 3, key \"q\": unknown type \"queue\""),
        ("{\"db\":0,\"key\":\"s\",\"type\":\"stream\",\"value\":[[\"XADD\",\"s\",\"bad-id\",\"f\",\"v\"]]}\n]}", "line 3, key \"s\": "),
        ("{\"db\":0,\"key\":{\"hex\":\"zz\"},\"type\":\"string\",\"value\":\"x\"}\n]}", "line 3: \"key\" missing or not a byte string"),
        ("{\"db\":0,\"key\":\"b\",\"type\":\"string\",\n\"value\":\"x\"\n", "line 5: expected ',' or '}' in an object"),
        ("{\"db\":0,\"key\":\"b\",\"type\":\"string\",\"value\":\"x\u{1}\"}]}", "line 3: control character"),
    ];
    for (tail, want) in cases {
        let text = format!("{good}{tail}");
        let mut e = Engine::new(Box::new(SystemClock), 1);
        let c = e.connect();
        e.execute(c, argv(&["SET", "before", "kept"]));
        let err = import_json(&mut e, text.as_bytes())
            .unwrap_err()
            .to_string();
        assert!(err.starts_with(want), "{tail}: got {err:?}, want {want:?}");
        assert_eq!(
            data_dump(e.dbs()).lines().count(),
            1,
            "nothing imported: {tail}"
        );
        assert_eq!(
            e.execute(c, argv(&["GET", "before"])),
            Reply::Bulk(b"kept".to_vec())
        );
    }
    let mut e = Engine::new(Box::new(SystemClock), 1);
    for (text, want) in [
        ("[1,2]", "line 1: not a kvlab JSON export"),
        (
            "{\"format\":\"kvlab-export\",\"version\":2,\"keys\":[]}",
            "line 1: export version 2 is not supported",
        ),
        ("", "line 1: unexpected end of the document"),
        (&"[".repeat(100_000), "line 1: nested too deeply"),
    ] {
        let err = import_json(&mut e, text.as_bytes())
            .unwrap_err()
            .to_string();
        assert!(err.starts_with(want), "got {err:?}, want {want:?}");
    }
}
