//! Tests of the hash group through the engine: encoding conversions, configured limits,
//! HRANDFIELD counts, HSCAN and random commands.

use super::*;
use crate::engine::testing::{self, run};
use crate::engine::types::{HashValue, Value};
use crate::engine::{Engine, Reply};
use std::collections::HashSet;

fn engine() -> (Engine, u64) {
    testing::seeded(1_704_067_200_000, 3)
}

fn hash<'e>(e: &'e Engine, key: &str) -> &'e HashValue {
    match e.server().dbs[0]
        .get_raw(key.as_bytes())
        .map(|en| &en.value)
    {
        Some(Value::Hash(h)) => h,
        other => panic!("{key} is {other:?}"),
    }
}

fn bulks(r: &Reply) -> Vec<Vec<u8>> {
    match r {
        Reply::Array(items) => items
            .iter()
            .map(|i| match i {
                Reply::Bulk(b) => b.clone(),
                other => panic!("not a bulk: {other:?}"),
            })
            .collect(),
        other => panic!("not an array: {other:?}"),
    }
}

/// `OBJECT ENCODING` after each step, as redis-server 7.0.15 answered.
#[test]
fn conversions_match_redis() {
    let (mut e, c) = engine();
    let v65 = "x".repeat(65);
    let f65 = "b".repeat(65);
    let steps: Vec<(Vec<String>, &str, &str)> = vec![
        (vec!["HSET h1 a 1".into()], "h1", "listpack"),
        (vec![format!("HSET h2 a {v65}")], "h2", "hashtable"),
        // HSETNX on an existing field looks at nothing, even a long value.
        (
            vec!["HSET h3 a 1".into(), format!("HSETNX h3 a {v65}")],
            "h3",
            "listpack",
        ),
        (vec![format!("HSETNX h3 {f65} x")], "h3", "hashtable"),
        (
            vec![
                "HSET h4 a 1".into(),
                format!("HINCRBYFLOAT h4 a {}", "1".repeat(70)),
            ],
            "h4",
            "hashtable",
        ),
        (
            vec!["HSET h5 a 1".into(), format!("HINCRBY h5 {f65} 1")],
            "h5",
            "hashtable",
        ),
        // Never back to listpack.
        (
            vec![
                "HSET h6 a 1".into(),
                format!("HSET h6 a {v65}"),
                "HSET h6 a 1".into(),
            ],
            "h6",
            "hashtable",
        ),
        (
            vec![format!(
                "HSET h7 {}",
                (0..512)
                    .map(|i| format!("f{i} v"))
                    .collect::<Vec<_>>()
                    .join(" ")
            )],
            "h7",
            "listpack",
        ),
        (vec!["HSET h7 f512 v".into()], "h7", "hashtable"),
        // An arity error converts nothing.
        (
            vec!["HSET h9 a 1".into(), format!("HSET h9 a 1 {f65}")],
            "h9",
            "listpack",
        ),
    ];
    for (cmds, key, want) in steps {
        for cmd in &cmds {
            run(&mut e, c, cmd);
        }
        assert_eq!(hash(&e, key).encoding(), want, "{cmds:?}");
    }
}

#[test]
fn limits_follow_the_configuration() {
    let (mut e, c) = engine();
    e.srv
        .config
        .set_normalized("hash-max-listpack-entries", "2".into());
    run(&mut e, c, "HSET h a 1 b 2");
    assert_eq!(hash(&e, "h").encoding(), "listpack");
    run(&mut e, c, "HSET h c 3");
    assert_eq!(hash(&e, "h").encoding(), "hashtable");
}

#[test]
fn map_reply_is_flat_in_resp2() {
    let pairs = vec![(Reply::bulk(b"a"), Reply::Integer(1))];
    assert_eq!(
        map_reply(2, pairs.clone()),
        Reply::Array(vec![Reply::bulk(b"a"), Reply::Integer(1)])
    );
    assert_eq!(map_reply(3, pairs.clone()), Reply::Map(pairs));
    assert_eq!(map_reply(2, Vec::new()), Reply::Array(Vec::new()));
}

#[test]
fn hrandfield_counts() {
    let (mut e, c) = engine();
    let fields: Vec<String> = (0..20).map(|i| format!("f{i}")).collect();
    let args: Vec<String> = fields.iter().map(|f| format!("{f} v{f}")).collect();
    run(&mut e, c, &format!("HSET h {}", args.join(" ")));
    for n in 1..20usize {
        // Distinct fields, in listpack order for a small hash.
        let got = bulks(&run(&mut e, c, &format!("HRANDFIELD h {n}")));
        assert_eq!(got.len(), n);
        let pos: Vec<usize> = got
            .iter()
            .map(|f| {
                fields
                    .iter()
                    .position(|x| x.as_bytes() == f.as_slice())
                    .unwrap()
            })
            .collect();
        assert!(pos.windows(2).all(|w| w[0] < w[1]), "{pos:?}");
        // Repeats allowed, any order.
        let got = bulks(&run(&mut e, c, &format!("HRANDFIELD h -{n} WITHVALUES")));
        assert_eq!(got.len(), 2 * n);
        for pair in got.chunks(2) {
            assert_eq!(pair[1], [b"v".as_slice(), &pair[0]].concat());
        }
    }
    let all = bulks(&run(&mut e, c, "HRANDFIELD h -1000"));
    let distinct: HashSet<_> = all.iter().collect();
    assert_eq!(distinct.len(), 20, "1000 draws should hit every field");
    assert_eq!(
        run(
            &mut e,
            c,
            &format!("HRANDFIELD h -{}", MAX_RANDOM_REPLY + 1)
        ),
        Reply::Error("ERR value is out of range".into())
    );
    assert_eq!(
        run(
            &mut e,
            c,
            &format!("HRANDFIELD h -{} WITHVALUES", MAX_RANDOM_REPLY / 2 + 1)
        ),
        Reply::Error("ERR value is out of range".into())
    );
    // A big hash samples distinct positions too.
    e.srv
        .config
        .values
        .insert("hash-max-listpack-entries".into(), "4".into());
    run(&mut e, c, "HSET big a 1 b 2 c 3 d 4 e 5 f 6");
    for _ in 0..50 {
        let got = bulks(&run(&mut e, c, "HRANDFIELD big 5"));
        let distinct: HashSet<_> = got.iter().collect();
        assert_eq!(distinct.len(), 5);
    }
}

#[test]
fn hscan_pages_through_a_big_hash_despite_deletes() {
    let (mut e, c) = engine();
    let args: Vec<String> = (0..1000).map(|i| format!("f{i} {i}")).collect();
    run(&mut e, c, &format!("HSET h {}", args.join(" ")));
    assert_eq!(hash(&e, "h").encoding(), "hashtable");
    let mut seen = HashSet::new();
    let mut cursor = "0".to_string();
    let mut round = 0;
    loop {
        let reply = run(&mut e, c, &format!("HSCAN h {cursor} COUNT 7"));
        let Reply::Array(parts) = reply else {
            panic!("{reply:?}")
        };
        let Reply::Bulk(next) = &parts[0] else {
            panic!()
        };
        let items = bulks(&parts[1]);
        assert!(items.len() <= 14);
        for pair in items.chunks(2) {
            seen.insert(pair[0].clone());
        }
        // Delete odd fields as we go; even ones must all be seen.
        run(&mut e, c, &format!("HDEL h f{}", 2 * round + 1));
        round += 1;
        cursor = String::from_utf8(next.clone()).unwrap();
        if cursor == "0" {
            break;
        }
    }
    for i in (0..1000).step_by(2) {
        assert!(seen.contains(format!("f{i}").as_bytes()), "missed f{i}");
    }
    let page = run(&mut e, c, "HSCAN h 0 MATCH f99* COUNT 100000");
    let Reply::Array(parts) = page else { panic!() };
    assert_eq!(parts[0], Reply::bulk(b"0"));
    // f990..f999 remain (f99 itself was deleted as an odd field during the scan).
    assert_eq!(bulks(&parts[1]).len(), 2 * 10);
}

/// Random commands of both groups with awkward arguments: no panic, and the invariants
/// hold (no empty hash is stored, no string exceeds the limit).
#[test]
fn random_commands_never_panic() {
    const TOKENS: &[&str] = &[
        "a",
        "b",
        "h",
        "s",
        "f",
        "g",
        "0",
        "1",
        "-1",
        "2",
        "-3",
        "10",
        "1.5",
        "-0",
        "9223372036854775807",
        "-9223372036854775808",
        "4611686018427387904",
        "1e300",
        "inf",
        "nan",
        "",
        " 1",
        "\\x00",
        "\\xff",
        "EX",
        "PX",
        "EXAT",
        "PXAT",
        "KEEPTTL",
        "PERSIST",
        "NX",
        "XX",
        "GET",
        "IDX",
        "LEN",
        "MINMATCHLEN",
        "WITHMATCHLEN",
        "WITHVALUES",
        "MATCH",
        "COUNT",
        "*",
        "f*",
        "536870911",
        "0x10",
        "1e4932",
    ];
    let mut names: Vec<&str> = super::COMMANDS.iter().map(|c| c.name).collect();
    names.extend(crate::engine::cmd::string::COMMANDS.iter().map(|c| c.name));
    let mut rng = fastrand::Rng::with_seed(11);
    let (mut e, c) = engine();
    for _ in 0..20_000 {
        let name = names[rng.usize(0..names.len())];
        let n = rng.usize(0..7);
        let args: Vec<String> = (0..n)
            .map(|_| format!("\"{}\"", TOKENS[rng.usize(0..TOKENS.len())]))
            .collect();
        let line = format!("{name} {}", args.join(" "));
        run(&mut e, c, &line);
        for (k, en) in e.server().dbs[0].iter() {
            match &en.value {
                Value::Hash(h) => assert!(!h.is_empty(), "{line}: empty hash {k:?}"),
                Value::Str(s) => assert!(s.len() <= 536_870_912, "{line}"),
                _ => {}
            }
        }
        if rng.usize(0..50) == 0 {
            e.srv.dbs[0].clear();
        }
    }
}
