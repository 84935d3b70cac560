//! Tests of the generic group through the engine: effects, expiry (lazy and active), SCAN
//! and the database commands.

use crate::engine::testing;
use std::collections::{BTreeMap, HashSet};

use crate::engine::types::Value;
use crate::engine::{ClientId, Clock, Effect, Engine, ManualClock, Reply};

const START_MS: i64 = 1_704_067_200_000;

fn engine() -> (Engine, ManualClock, ClientId) {
    let (mut e, clock) = testing::engine_at(START_MS);
    let c = e.connect();
    (e, clock, c)
}

fn argv(cmd: &[&str]) -> Vec<Vec<u8>> {
    cmd.iter().map(|a| a.as_bytes().to_vec()).collect()
}

fn run(e: &mut Engine, c: ClientId, cmd: &[&str]) -> Reply {
    e.execute(c, argv(cmd))
}

fn effect(db: usize, cmd: &[&str]) -> Effect {
    Effect {
        db,
        argv: argv(cmd),
    }
}

/// One database's keys with their value and deadline.
type DbDump = BTreeMap<Vec<u8>, (Value, Option<i64>)>;

/// Every key of every database with its value and deadline, expired or not.
fn dump(e: &Engine) -> Vec<DbDump> {
    e.server()
        .dbs
        .iter()
        .map(|db| {
            db.iter()
                .map(|(k, en)| (k.to_vec(), (en.value.clone(), en.expire_at())))
                .collect()
        })
        .collect()
}

#[test]
fn expire_family_propagates_as_pexpireat_with_the_absolute_time() {
    let (mut e, _clock, c) = engine();
    run(&mut e, c, &["SELECT", "2"]);
    run(&mut e, c, &["SET", "k", "v"]);
    e.take_effects();
    let at = (START_MS + 100_000).to_string();
    for cmd in [
        &["EXPIRE", "k", "100"][..],
        &["PEXPIRE", "k", "100000"],
        &["EXPIREAT", "k", &(START_MS / 1000 + 100).to_string()],
        &["PEXPIREAT", "k", &at, "XX"],
    ] {
        assert_eq!(run(&mut e, c, cmd), Reply::Integer(1));
        assert_eq!(
            e.take_effects(),
            vec![effect(2, &["PEXPIREAT", "k", &at])],
            "{cmd:?}"
        );
    }
}

#[test]
fn an_expire_in_the_past_propagates_as_del() {
    let (mut e, _clock, c) = engine();
    for cmd in [
        &["EXPIRE", "k", "-1"][..],
        &["PEXPIRE", "k", "0"],
        &["EXPIREAT", "k", "1"],
    ] {
        run(&mut e, c, &["SET", "k", "v"]);
        e.take_effects();
        assert_eq!(run(&mut e, c, cmd), Reply::Integer(1));
        assert_eq!(e.take_effects(), vec![effect(0, &["DEL", "k"])]);
        assert_eq!(run(&mut e, c, &["EXISTS", "k"]), Reply::Integer(0));
    }
}

#[test]
fn commands_that_change_nothing_record_no_effect() {
    let (mut e, _clock, c) = engine();
    run(&mut e, c, &["SET", "k", "v"]);
    run(&mut e, c, &["SET", "vol", "v"]);
    run(&mut e, c, &["EXPIRE", "vol", "100"]);
    e.take_effects();
    let dirty = e.server().dirty;
    for cmd in [
        &["DEL", "nokey"][..],
        &["UNLINK", "nokey", "nokey2"],
        &["EXPIRE", "nokey", "10"],
        &["EXPIRE", "k", "10", "XX"],
        &["EXPIRE", "vol", "10", "NX"],
        &["EXPIRE", "vol", "10", "GT"],
        &["EXPIRE", "k", "-1", "XX"],
        &["PERSIST", "k"],
        &["PERSIST", "nokey"],
        &["RENAME", "k", "k"],
        &["RENAMENX", "k", "vol"],
        &["RENAME", "nokey", "x"],
        &["MOVE", "nokey", "1"],
        &["COPY", "nokey", "x"],
        &["COPY", "k", "vol"],
        &["EXPIRE", "k", "abc"],
        &["TOUCH", "k"],
        &["EXISTS", "k"],
    ] {
        run(&mut e, c, cmd);
        assert_eq!(e.take_effects(), vec![], "{cmd:?}");
    }
    assert_eq!(e.server().dirty, dirty);
}

#[test]
fn writes_replay_as_themselves_in_the_clients_database() {
    let (mut e, _clock, c) = engine();
    run(&mut e, c, &["SELECT", "3"]);
    run(&mut e, c, &["SET", "k", "v"]);
    e.take_effects();
    for (cmd, reply) in [
        (&["COPY", "k", "k2", "DB", "4"][..], Reply::Integer(1)),
        (&["RENAME", "k", "r"], Reply::ok()),
        (&["RENAMENX", "r", "k"], Reply::Integer(1)),
        (&["MOVE", "k", "5"], Reply::Integer(1)),
        (&["SWAPDB", "0", "0"], Reply::ok()),
        (&["FLUSHDB"], Reply::ok()),
        (&["FLUSHDB", "ASYNC"], Reply::ok()),
        (&["FLUSHALL", "sync"], Reply::ok()),
    ] {
        assert_eq!(run(&mut e, c, cmd), reply, "{cmd:?}");
        assert_eq!(e.take_effects(), vec![effect(3, cmd)], "{cmd:?}");
    }
    run(&mut e, c, &["SET", "a", "1"]);
    run(&mut e, c, &["SET", "b", "1"]);
    run(&mut e, c, &["EXPIRE", "b", "100"]);
    e.take_effects();
    for cmd in [&["PERSIST", "b"][..], &["DEL", "a", "nokey", "b"]] {
        run(&mut e, c, cmd);
        assert_eq!(e.take_effects(), vec![effect(3, cmd)], "{cmd:?}");
    }
}

#[test]
fn a_key_lives_until_the_clock_passes_its_deadline() {
    let (mut e, clock, c) = engine();
    run(&mut e, c, &["SET", "k", "v"]);
    run(&mut e, c, &["PEXPIRE", "k", "100"]);
    e.take_effects();
    clock.advance_ms(100);
    assert_eq!(run(&mut e, c, &["PTTL", "k"]), Reply::Integer(0));
    assert_eq!(run(&mut e, c, &["GET", "k"]), Reply::bulk(b"v"));
    assert_eq!(e.tick(), 0);
    clock.advance_ms(1);
    assert_eq!(e.take_effects(), vec![]);
    assert_eq!(run(&mut e, c, &["GET", "k"]), Reply::Nil);
    assert_eq!(e.take_effects(), vec![effect(0, &["DEL", "k"])]);
    assert_eq!(e.server().stats.expired_keys, 1);
}

#[test]
fn lazy_expiry_removes_a_key_when_a_command_touches_it() {
    let (mut e, clock, c) = engine();
    run(&mut e, c, &["SELECT", "6"]);
    run(&mut e, c, &["SET", "k", "v"]);
    run(&mut e, c, &["SET", "other", "v"]);
    run(&mut e, c, &["PEXPIRE", "k", "50"]);
    run(&mut e, c, &["PEXPIRE", "other", "50"]);
    e.take_effects();
    clock.advance_ms(60);
    // Nothing happens until something looks: DBSIZE still counts both.
    assert_eq!(run(&mut e, c, &["DBSIZE"]), Reply::Integer(2));
    assert_eq!(e.take_effects(), vec![]);
    assert_eq!(run(&mut e, c, &["EXISTS", "k"]), Reply::Integer(0));
    assert_eq!(e.take_effects(), vec![effect(6, &["DEL", "k"])]);
    assert_eq!(run(&mut e, c, &["DBSIZE"]), Reply::Integer(1));
    // A write to an expired key sees it gone first: DEL then SET.
    run(&mut e, c, &["SET", "other", "new"]);
    assert_eq!(
        e.take_effects(),
        vec![
            effect(6, &["DEL", "other"]),
            effect(6, &["SET", "other", "new"])
        ]
    );
    assert_eq!(run(&mut e, c, &["TTL", "other"]), Reply::Integer(-1));
}

#[test]
fn active_expiry_removes_expired_keys_without_access_and_records_a_del_for_each() {
    let (mut e, clock, c) = engine();
    let mut expected = HashSet::new();
    for db in [0usize, 9] {
        run(&mut e, c, &["SELECT", &db.to_string()]);
        for i in 0..50 {
            let k = format!("gone{i}");
            run(&mut e, c, &["SET", &k, "v"]);
            run(&mut e, c, &["PEXPIRE", &k, "1000"]);
            expected.insert((db, k));
        }
        for i in 0..10 {
            run(&mut e, c, &["SET", &format!("stay{i}"), "v"]);
            run(&mut e, c, &["EXPIRE", &format!("later{i}"), "100"]);
        }
    }
    e.take_effects();
    assert_eq!(e.tick(), 0, "nothing has expired yet");
    clock.advance_ms(1001);
    assert_eq!(e.tick(), 100);
    let effects = e.take_effects();
    let got: HashSet<(usize, String)> = effects
        .iter()
        .map(|ef| {
            assert_eq!(ef.argv.len(), 2);
            assert_eq!(ef.argv[0], b"DEL");
            (ef.db, String::from_utf8(ef.argv[1].clone()).unwrap())
        })
        .collect();
    assert_eq!(effects.len(), 100);
    assert_eq!(got, expected);
    assert_eq!(e.server().dbs[0].len(), 10);
    assert_eq!(e.server().dbs[9].len(), 10);
    assert_eq!(e.server().stats.expired_keys, 100);
    assert_eq!(e.tick(), 0);
}

#[test]
fn active_expiry_walks_the_whole_volatile_set_over_successive_ticks() {
    // 5 expired keys among 200 volatile ones: each tick examines 20 keys, finds at most
    // a few expired (not above 10%, so it stops), and resumes where it stopped; ten
    // ticks cover every key, which random sampling would not guarantee.
    let (mut e, clock, c) = engine();
    for i in 0..200 {
        let k = format!("k{i}");
        run(&mut e, c, &["SET", &k, "v"]);
        let ttl = if i % 40 == 7 { "10" } else { "100000" };
        run(&mut e, c, &["PEXPIRE", &k, ttl]);
    }
    e.take_effects();
    clock.advance_ms(11);
    let removed: usize = (0..10).map(|_| e.tick()).sum();
    assert_eq!(removed, 5);
    assert_eq!(e.server().dbs[0].len(), 195);
}

#[test]
fn one_tick_does_bounded_work() {
    let (mut e, clock, c) = engine();
    for i in 0..1000 {
        let k = format!("k{i}");
        run(&mut e, c, &["SET", &k, "v"]);
        run(&mut e, c, &["PEXPIRE", &k, "10"]);
    }
    clock.advance_ms(11);
    assert_eq!(e.tick(), 320);
    assert_eq!(e.tick(), 320);
    assert_eq!(e.tick(), 320);
    assert_eq!(e.tick(), 40);
    assert_eq!(e.server().dbs[0].len(), 0);
}

/// Runs `SCAN` to completion with `COUNT count`, calling `between` after each step.
fn full_scan(
    e: &mut Engine,
    c: ClientId,
    count: usize,
    mut between: impl FnMut(&mut Engine, usize),
) -> HashSet<Vec<u8>> {
    let mut seen = HashSet::new();
    let mut cursor = b"0".to_vec();
    for step in 0.. {
        let reply = e.execute(
            c,
            vec![
                b"SCAN".to_vec(),
                cursor.clone(),
                b"COUNT".to_vec(),
                count.to_string().into_bytes(),
            ],
        );
        let Reply::Array(parts) = reply else {
            panic!("{reply:?}")
        };
        let [Reply::Bulk(next), Reply::Array(keys)] = parts.as_slice() else {
            panic!("{parts:?}")
        };
        for k in keys {
            let Reply::Bulk(k) = k else { panic!() };
            seen.insert(k.clone());
        }
        cursor = next.clone();
        if cursor == b"0" {
            break;
        }
        between(e, step);
    }
    seen
}

#[test]
fn a_full_scan_returns_every_key_present_throughout_and_no_expired_key() {
    let (mut e, clock, c) = engine();
    for i in 0..500 {
        run(&mut e, c, &["SET", &format!("k{i}"), "v"]);
    }
    for i in 0..50 {
        let k = format!("dead{i}");
        run(&mut e, c, &["SET", &k, "v"]);
        run(&mut e, c, &["PEXPIRE", &k, "10"]);
    }
    clock.advance_ms(11);
    // While scanning, delete k0, k2, k4, … and add new keys.
    let mut deleted = HashSet::new();
    let seen = full_scan(&mut e, c, 7, |e, step| {
        let c = e.connect();
        let k = format!("k{}", 2 * step);
        e.execute(c, argv(&["DEL", &k]));
        e.execute(c, argv(&["SET", &format!("new{step}"), "v"]));
        e.disconnect(c);
        deleted.insert(k);
    });
    assert!(deleted.len() > 50);
    for i in 0..500 {
        let k = format!("k{i}");
        if !deleted.contains(&k) {
            assert!(seen.contains(k.as_bytes()), "missed {k}");
        }
    }
    assert!(!seen.iter().any(|k| k.starts_with(b"dead")));
    // Every expired key the walk met was removed.
    assert_eq!(run(&mut e, c, &["KEYS", "dead*"]), Reply::Array(vec![]));
    assert_eq!(e.server().stats.expired_keys, 50);
}

#[test]
fn scan_counts_that_are_huge_are_just_large() {
    let (mut e, _clock, c) = engine();
    run(&mut e, c, &["SET", "k", "v"]);
    assert_eq!(
        run(&mut e, c, &["SCAN", "0", "COUNT", "9223372036854775807"]),
        Reply::Array(vec![
            Reply::bulk(b"0"),
            Reply::Array(vec![Reply::bulk(b"k")])
        ])
    );
    // A cursor beyond the database restarts from its end, it does not fail.
    assert_eq!(
        run(&mut e, c, &["SCAN", "18446744073709551615"]),
        Reply::Array(vec![
            Reply::bulk(b"0"),
            Reply::Array(vec![Reply::bulk(b"k")])
        ])
    );
}

#[test]
fn randomkey_picks_every_key_eventually() {
    let (mut e, _clock, c) = engine();
    for k in ["a", "b", "c"] {
        run(&mut e, c, &["SET", k, "v"]);
    }
    let mut seen = HashSet::new();
    for _ in 0..200 {
        if let Reply::Bulk(k) = run(&mut e, c, &["RANDOMKEY"]) {
            seen.insert(k);
        }
    }
    assert_eq!(seen.len(), 3);
}

#[test]
fn swapdb_and_move_carry_deadlines_and_volatile_tracking() {
    let (mut e, clock, c) = engine();
    run(&mut e, c, &["SET", "k", "v"]);
    run(&mut e, c, &["PEXPIRE", "k", "100"]);
    assert_eq!(run(&mut e, c, &["MOVE", "k", "4"]), Reply::Integer(1));
    assert_eq!(run(&mut e, c, &["SWAPDB", "4", "5"]), Reply::ok());
    assert_eq!(e.server().dbs[5].volatile_len(), 1);
    assert_eq!(e.server().dbs[0].volatile_len(), 0);
    clock.advance_ms(101);
    e.take_effects();
    assert_eq!(e.tick(), 1);
    assert_eq!(e.take_effects(), vec![effect(5, &["DEL", "k"])]);
}

/// Drives engine A with a random sequence of keyspace commands, clock moves and ticks,
/// recording the effects with the time they were produced; replays them on a fresh
/// engine B at the same times; and checks both hold exactly the same data.
#[test]
fn replaying_the_effects_of_a_random_sequence_rebuilds_the_same_data() {
    let mut kinds = HashSet::new();
    for seed in 0..40u64 {
        let mut rng = fastrand::Rng::with_seed(seed);
        let (mut a, clock, c) = engine();
        let mut log: Vec<(i64, Vec<Effect>)> = Vec::new();
        let keys = ["k0", "k1", "k2", "k3", "k4"];
        for step in 0..400 {
            let k = keys[rng.usize(..keys.len())].to_string();
            let k2 = keys[rng.usize(..keys.len())].to_string();
            let db = rng.usize(..4).to_string();
            let now_s = clock.now_ms() / 1000;
            let now_ms = clock.now_ms();
            let cond = ["", "NX", "XX", "GT", "LT"][rng.usize(..5)].to_string();
            let mut cmd: Vec<String> = match rng.usize(..24) {
                0..=4 => vec!["SET".into(), k, format!("v{step}")],
                5 => vec!["DEL".into(), k, k2],
                6 => vec!["UNLINK".into(), k],
                7 => vec!["EXPIRE".into(), k, rng.i64(-2..20).to_string()],
                8 => vec!["PEXPIRE".into(), k, rng.i64(-100..3000).to_string()],
                9 => vec!["EXPIREAT".into(), k, (now_s + rng.i64(-2..10)).to_string()],
                10 => vec![
                    "PEXPIREAT".into(),
                    k,
                    (now_ms + rng.i64(-100..3000)).to_string(),
                ],
                11 => vec!["PERSIST".into(), k],
                12 => vec!["RENAME".into(), k, k2],
                13 => vec!["RENAMENX".into(), k, k2],
                14 => vec!["COPY".into(), k, k2, "DB".into(), db, "REPLACE".into()],
                15 => vec!["COPY".into(), k, k2],
                16 => vec!["MOVE".into(), k, db],
                17 => vec!["SWAPDB".into(), db, rng.usize(..4).to_string()],
                18 if rng.usize(..10) == 0 => vec!["FLUSHDB".into()],
                19 => vec!["SELECT".into(), db],
                20 => vec!["GET".into(), k],
                21 => vec!["SCAN".into(), "0".into(), "COUNT".into(), "3".into()],
                22 => vec!["RANDOMKEY".into()],
                _ => vec!["TTL".into(), k],
            };
            if (cmd[0].ends_with("EXPIRE") || cmd[0].ends_with("EXPIREAT")) && !cond.is_empty() {
                cmd.push(cond);
            }
            let refs: Vec<&str> = cmd.iter().map(String::as_str).collect();
            run(&mut a, c, &refs);
            log.push((clock.now_ms(), a.take_effects()));
            match rng.usize(..6) {
                0 => clock.advance_ms(rng.i64(0..1500)),
                1 => {
                    a.tick();
                    log.push((clock.now_ms(), a.take_effects()));
                }
                _ => {}
            }
        }

        let (mut b, clock_b, cb) = engine();
        for (at, effects) in log {
            clock_b.set_ms(at);
            for ef in effects {
                kinds.insert(String::from_utf8_lossy(&ef.argv[0]).into_owned());
                b.execute(cb, argv(&["SELECT", &ef.db.to_string()]));
                let reply = b.execute(cb, ef.argv.clone());
                assert!(!reply.is_error(), "seed {seed}: {ef:?} -> {reply:?}");
            }
        }
        assert_eq!(dump(&a), dump(&b), "seed {seed}");
    }
    for kind in [
        "SET",
        "DEL",
        "UNLINK",
        "PEXPIREAT",
        "PERSIST",
        "RENAME",
        "RENAMENX",
        "COPY",
        "MOVE",
        "SWAPDB",
        "FLUSHDB",
    ] {
        assert!(kinds.contains(kind), "no {kind} effect was exercised");
    }
}
