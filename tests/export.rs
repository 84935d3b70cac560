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

use kvlab::engine::export::{
    import_cli_text, import_resp, to_cli_text, to_commands, to_json, to_resp,
};
use kvlab::engine::keyspace::Db;
use kvlab::engine::snapshot::data_dump;
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
            let k = k.as_slice();
            let ctx = format!("db {i} key {}", k.escape_ascii());
            let want_t = e.expire_at.unwrap_or(-1);
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
                        bulk(&s.bytes),
                        "{ctx}"
                    )
                }
                Value::List(l) => {
                    let got = items(redis.call(&[&b"LRANGE"[..], k, b"0", b"-1"]).unwrap());
                    let want: Vec<Reply> = l.items.iter().map(|x| bulk(x)).collect();
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

#[test]
fn exports_import_back_into_an_engine() {
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
