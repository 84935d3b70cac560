//! Tests of the string group through the engine: encodings, effects and their replay, and the
//! limits set by `proto-max-bulk-len`.

use crate::engine::testing::{self, effects, run};
use crate::engine::types::Value;
use crate::engine::{Clock, Effect, Engine, ManualClock, Reply, NUM_DBS};

const T0: i64 = 1_704_067_200_000;

fn engine() -> (Engine, ManualClock, u64) {
    let (mut e, clock) = testing::engine_at(T0);
    let c = e.connect();
    (e, clock, c)
}

fn encoding(e: &Engine, key: &str) -> &'static str {
    e.server().dbs[0]
        .get_raw(key.as_bytes())
        .map_or("none", |en| en.value.encoding())
}

/// `OBJECT ENCODING` after each command, as redis-server 7.0.15 answered.
#[test]
fn encodings_match_redis() {
    let (mut e, _, c) = engine();
    let long45 = "x".repeat(45);
    let long44 = "x".repeat(44);
    for (cmd, key, want) in [
        ("SET a 12".to_string(), "a", "int"),
        ("SET b -9223372036854775808".into(), "b", "int"),
        ("SET c 012".into(), "c", "embstr"),
        (format!("SET d {long44}"), "d", "embstr"),
        (format!("SET e {long45}"), "e", "raw"),
        ("INCRBYFLOAT f 11".into(), "f", "embstr"),
        ("INCRBYFLOAT g 1.5".into(), "g", "embstr"),
        ("INCR i".into(), "i", "int"),
        ("SET j abc".into(), "j", "embstr"),
        ("APPEND j d".into(), "j", "raw"),
        ("APPEND k 12".into(), "k", "int"),
        ("SETRANGE l 0 12".into(), "l", "raw"),
        ("SET m 12".into(), "m", "int"),
        ("SETRANGE m 0 3".into(), "m", "raw"),
        ("SET n 1.5".into(), "n", "embstr"),
        ("INCRBY o 100000".into(), "o", "int"),
        ("GETSET p 7".into(), "p", "int"),
        ("MSET q 8 r hello".into(), "q", "int"),
        ("SETNX s 9".into(), "s", "int"),
        ("SETEX t 100 10".into(), "t", "int"),
        ("PSETEX u 100000 x".into(), "u", "embstr"),
        ("SET v abc".into(), "v", "embstr"),
        ("SETRANGE v 0 \"\"".into(), "v", "embstr"),
        ("APPEND w \"\"".into(), "w", "embstr"),
        (format!("INCRBYFLOAT y {}", "1".repeat(50)), "y", "raw"),
    ] {
        assert!(!run(&mut e, c, &cmd).is_error(), "{cmd}");
        assert_eq!(encoding(&e, key), want, "{cmd}");
    }
}

#[test]
fn effects_are_replayable_forms() {
    let (mut e, _, c) = engine();
    let at = T0 + 10_000;
    for (cmd, want) in [
        ("SET k v", vec!["SET k v".to_string()]),
        ("SET k v NX", vec![]),
        ("SET k w XX GET get", vec!["SET k w XX".into()]),
        ("SET k v EX 10 GET", vec![format!("SET k v PXAT {at}")]),
        ("SET k v PX 10000 XX", vec![format!("SET k v PXAT {at}")]),
        ("SETEX k 10 v", vec![format!("SET k v PXAT {at}")]),
        ("PSETEX k 10000 v", vec![format!("SET k v PXAT {at}")]),
        ("SET k v KEEPTTL", vec!["SET k v KEEPTTL".into()]),
        ("SETNX k v", vec![]),
        ("GETSET k x", vec!["SET k x".into()]),
        ("GETEX k", vec![]),
        ("GETEX k PERSIST", vec![]),
        ("GETEX k EX 10", vec![format!("PEXPIREAT k {at}")]),
        ("GETEX k PERSIST", vec!["PERSIST k".into()]),
        ("GETEX k PXAT 1", vec!["DEL k".into()]),
        ("GETDEL k", vec![]),
        ("SET k 10.5", vec!["SET k 10.5".into()]),
        ("INCRBYFLOAT k 0.1", vec!["SET k 10.6 KEEPTTL".into()]),
        ("INCRBYFLOAT k abc", vec![]),
        ("GETDEL k", vec!["DEL k".into()]),
        ("INCR n", vec!["INCR n".into()]),
        ("INCRBY n 9223372036854775807", vec![]),
        ("APPEND n x", vec!["APPEND n x".into()]),
        ("SETRANGE n 0 \"\"", vec![]),
        ("SETRANGE n 1 y", vec!["SETRANGE n 1 y".into()]),
        ("MSETNX n 1 m 2", vec![]),
        ("MSET n 1 m 2", vec!["MSET n 1 m 2".into()]),
        ("HSET h a 1", vec!["HSET h a 1".into()]),
        ("HDEL h nope", vec![]),
        ("HSETNX h a 2", vec![]),
        ("HINCRBYFLOAT h a 1.5", vec!["HSET h a 2.5".into()]),
        ("HINCRBY h a 1", vec![]),
        ("HDEL h a", vec!["HDEL h a".into()]),
    ] {
        run(&mut e, c, cmd);
        assert_eq!(effects(&mut e), want, "{cmd}");
    }
    assert_eq!(e.server().dirty, 22);
}

/// One key of a dump: name, value as text, deadline.
type Row = (Vec<u8>, String, Option<i64>);

/// Everything a database holds, in a comparable form (bytes and deadlines; encodings
/// are not part of the data and legitimately change on replay, as after an AOF load).
fn dump(e: &Engine) -> Vec<Vec<Row>> {
    (0..NUM_DBS)
        .map(|db| {
            let mut rows: Vec<_> = e.server().dbs[db]
                .iter()
                .map(|(k, e)| {
                    let v = match &e.value {
                        Value::Str(s) => format!("str {:?}", s.as_bytes()),
                        Value::Hash(h) => format!("hash big={} {:?}", h.is_big(), h),
                        other => format!("{other:?}"),
                    };
                    (k.to_vec(), v, e.expire_at())
                })
                .collect();
            rows.sort();
            rows
        })
        .collect()
}

/// Applies DEL, PEXPIREAT and PERSIST directly when the command table lacks them (they
/// belong to the keyspace group); returns false when the table should run the effect.
fn replay_keyspace_effect(e: &mut Engine, ef: &Effect) -> bool {
    let name = String::from_utf8_lossy(&ef.argv[0]).to_ascii_uppercase();
    if crate::engine::table::lookup(name.as_bytes()).is_some() {
        return false;
    }
    let db = &mut e.srv.dbs[ef.db];
    let key = &ef.argv[1];
    match name.as_str() {
        "DEL" => {
            db.remove(key);
        }
        "PEXPIREAT" => {
            let at = crate::engine::args::parse_i64(&ef.argv[2]);
            db.set_expire(key, at);
        }
        "PERSIST" => {
            db.set_expire(key, None);
        }
        _ => return false,
    }
    true
}

#[test]
fn replaying_effects_rebuilds_the_same_data() {
    let script = [
        "SET a 1",
        "SET b hello EX 5",
        "SET c v PX 100",
        "SET d v PXAT 1",
        "INCR a",
        "INCRBYFLOAT f 0.1",
        "INCRBYFLOAT f 1e300",
        "APPEND b \" world\"",
        "SETRANGE s 3 abc",
        "GETEX b PX 50",
        "@200",
        "GET c",
        "INCR c",
        "SET e v EX 100",
        "GETEX e PERSIST",
        "SET g v KEEPTTL GET",
        "MSET m1 x m2 y",
        "MSETNX m3 z m1 no",
        "GETSET m1 z",
        "GETDEL m2",
        "SELECT 3",
        "SETEX x 1 v",
        "SET y v NX",
        "SET y w NX",
        "HSET h a 1 b 2 c 3",
        "HINCRBY h a 5",
        "HINCRBYFLOAT h b 0.25",
        "HINCRBYFLOAT h long 1111111111111111111111111111111111111111111111111111111111111111111111",
        "HDEL h c",
        "HSETNX h c 4",
        "HMSET h2 x 1",
        "HDEL h2 x",
        "@2000",
        "INCRBYFLOAT x 1",
        "SELECT 0",
        "GETEX a EXAT 1",
    ];
    let (mut a, clock, c) = engine();
    let mut log: Vec<(i64, Vec<Effect>)> = Vec::new();
    for line in script {
        if let Some(ms) = line.strip_prefix('@') {
            clock.advance_ms(ms.parse().unwrap_or(0));
            continue;
        }
        let reply = run(&mut a, c, line);
        assert!(!reply.is_error(), "{line}: {reply:?}");
        log.push((clock.now_ms(), a.take_effects()));
    }
    let (mut b, clock_b, cb) = engine();
    for (at, effects) in log {
        clock_b.set_ms(at);
        for ef in effects {
            if replay_keyspace_effect(&mut b, &ef) {
                continue;
            }
            run(&mut b, cb, &format!("SELECT {}", ef.db));
            let reply = b.execute(cb, ef.argv.clone());
            assert!(!reply.is_error(), "{:?}: {reply:?}", ef.argv);
        }
    }
    assert_eq!(dump(&a), dump(&b));
    assert!(!dump(&a)[0].is_empty() && !dump(&a)[3].is_empty());
}

/// With `proto-max-bulk-len` at its minimum (1 MB), as checked against redis-server.
#[test]
fn proto_max_bulk_len_limits_growth_and_lcs() {
    let (mut e, _, c) = engine();
    e.srv
        .config
        .values
        .insert("proto-max-bulk-len".into(), "1048576".into());
    let err = Reply::Error("ERR string exceeds maximum allowed size (proto-max-bulk-len)".into());
    run(&mut e, c, &format!("SET k {}", "x".repeat(1048575)));
    assert_eq!(run(&mut e, c, "APPEND k x"), Reply::Integer(1048576));
    assert_eq!(run(&mut e, c, "APPEND k x"), err);
    assert_eq!(
        run(&mut e, c, "SETRANGE k 1048575 y"),
        Reply::Integer(1048576)
    );
    assert_eq!(run(&mut e, c, "SETRANGE k 1048576 y"), err);
    assert_eq!(
        run(&mut e, c, "SETRANGE k2 1048575 y"),
        Reply::Integer(1048576)
    );
    assert_eq!(run(&mut e, c, "SETRANGE k3 1048576 y"), err);
    assert_eq!(e.server().dbs[0].get_raw(b"k3").map(|_| ()), None);

    let lcs_err = Reply::Error(
        "ERR Insufficient memory, transient memory for LCS exceeds proto-max-bulk-len".into(),
    );
    run(
        &mut e,
        c,
        &format!("MSET a {} b {}", "a".repeat(511), "b".repeat(511)),
    );
    assert_eq!(run(&mut e, c, "LCS a b LEN"), Reply::Integer(0));
    run(&mut e, c, &format!("SET a {}", "a".repeat(512)));
    assert_eq!(run(&mut e, c, "LCS a b LEN"), lcs_err);
}

#[test]
fn resp3_shapes() {
    let (mut e, _, c) = engine();
    if let Some(cl) = e.clients.get_mut(&c) {
        cl.proto = 3;
    }
    run(&mut e, c, "MSET a ab b xb");
    run(&mut e, c, "HSET h f v");
    let pair = Reply::Array(vec![Reply::bulk(b"f"), Reply::bulk(b"v")]);
    assert_eq!(
        run(&mut e, c, "HRANDFIELD h -2 WITHVALUES"),
        Reply::Array(vec![pair.clone(), pair])
    );
    assert_eq!(
        run(&mut e, c, "HGETALL h"),
        Reply::Map(vec![(Reply::bulk(b"f"), Reply::bulk(b"v"))])
    );
    assert_eq!(run(&mut e, c, "HGETALL nokey"), Reply::Map(vec![]));
    let range = |s: i64, t: i64| Reply::Array(vec![Reply::Integer(s), Reply::Integer(t)]);
    assert_eq!(
        run(&mut e, c, "LCS a b IDX"),
        Reply::Map(vec![
            (
                Reply::bulk(b"matches"),
                Reply::Array(vec![Reply::Array(vec![range(1, 1), range(1, 1)])])
            ),
            (Reply::bulk(b"len"), Reply::Integer(1)),
        ])
    );
}
