//! Tests of the set group through the engine: encodings, effects and their replay, sampling
//! and WATCH.

use crate::engine::testing::{self, exec_survives, run};
use crate::engine::{ClientId, Engine, Reply};

fn engine(seed: u64) -> (Engine, ClientId) {
    testing::seeded(testing::T0, seed)
}

fn effects_of(e: &mut Engine, c: ClientId, line: &str) -> Vec<Vec<Vec<u8>>> {
    e.take_effects();
    run(e, c, line);
    e.take_effects().into_iter().map(|fx| fx.argv).collect()
}

#[test]
fn spop_leaving_few_integers_rebuilds_an_intset_and_records_it() {
    // Recorded from redis-server 7.0.15: 11 integers in a hash table, SPOP 9 keeps the
    // encoding (two stay), SPOP 10 rebuilds the one that stays as an intset.
    for seed in 1..20 {
        let (mut e, c) = engine(seed);
        run(&mut e, c, "SADD h 1 2 3 4 5 6 7 8 9 10 11 a");
        run(&mut e, c, "SREM h a");
        run(&mut e, c, "SPOP h 9");
        assert_eq!(
            run(&mut e, c, "OBJECT ENCODING h"),
            Reply::bulk(b"hashtable")
        );
        run(&mut e, c, "SADD s 1 2 3 4 5 6 7 8 9 10 11 a");
        run(&mut e, c, "SREM s a");
        run(&mut e, c, "PEXPIRE s 100000");
        let fx = effects_of(&mut e, c, "SPOP s 10");
        assert_eq!(run(&mut e, c, "OBJECT ENCODING s"), Reply::bulk(b"intset"));
        assert_eq!(run(&mut e, c, "SCARD s"), Reply::Integer(1));
        // The effects rebuild the same set, as an intset, with its deadline.
        let left = members(&mut e, c, "s");
        let (mut r, rc) = engine(seed);
        for argv in fx {
            r.execute(rc, argv);
        }
        assert_eq!(members(&mut r, rc, "s"), left);
        assert_eq!(run(&mut r, rc, "OBJECT ENCODING s"), Reply::bulk(b"intset"));
        assert_eq!(run(&mut r, rc, "PTTL s"), Reply::Integer(100_000));
    }
}

/// The members of `key`, sorted, whatever the encoding.
fn members(e: &mut Engine, c: ClientId, key: &str) -> Vec<Vec<u8>> {
    let mut out = match run(e, c, &format!("SMEMBERS {key}")) {
        Reply::Array(items) | Reply::Set(items) => items
            .into_iter()
            .filter_map(|r| match r {
                Reply::Bulk(b) => Some(b),
                _ => None,
            })
            .collect(),
        _ => Vec::new(),
    };
    out.sort();
    out
}

#[test]
fn spop_replays_as_srem_of_what_it_popped() {
    for seed in 1..20 {
        let (mut a, ca) = engine(seed);
        let (mut b, cb) = engine(seed + 100);
        let fill: String = (0..3000).map(|i| format!(" m{i}")).collect();
        run(&mut a, ca, &format!("SADD s{fill}"));
        run(&mut b, cb, &format!("SADD s{fill}"));
        let mut effects = effects_of(&mut a, ca, "SPOP s");
        effects.extend(effects_of(&mut a, ca, "SPOP s 2500"));
        assert!(effects.iter().all(|fx| fx[0] == b"SREM"));
        assert!(effects.iter().all(|fx| fx.len() <= 1026));
        for fx in effects {
            b.execute(cb, fx);
        }
        assert_eq!(members(&mut a, ca, "s"), members(&mut b, cb, "s"));
        assert_eq!(run(&mut a, ca, "SCARD s"), Reply::Integer(499));
    }
}

#[test]
fn spop_of_the_whole_set_replays_as_del() {
    let (mut e, c) = engine(1);
    run(&mut e, c, "SADD s 1 2 3");
    assert_eq!(
        effects_of(&mut e, c, "SPOP s 3"),
        [vec![b"DEL".to_vec(), b"s".to_vec()]]
    );
    assert_eq!(
        effects_of(&mut e, c, "SPOP s 3"),
        Vec::<Vec<Vec<u8>>>::new()
    );
}

#[test]
fn writes_that_change_nothing_record_nothing() {
    let (mut e, c) = engine(1);
    run(&mut e, c, "SADD s 1 2 3");
    for line in [
        "SADD s 1 2",
        "SREM s 9",
        "SREM nokey 1",
        "SMOVE s s 1",
        "SMOVE s t 9",
        "SMOVE nokey t 1",
        "SPOP nokey",
        "SPOP s 0",
        "SINTERSTORE d s nokey",
        "SDIFFSTORE d s s",
        "SUNIONSTORE d nokey",
    ] {
        assert!(effects_of(&mut e, c, line).is_empty(), "{line}");
    }
    // Deleting an existing destination is a change.
    run(&mut e, c, "SADD d x");
    assert_eq!(effects_of(&mut e, c, "SINTERSTORE d s nokey").len(), 1);
}

#[test]
fn whole_set_replies_are_resp3_sets_for_resp3_clients() {
    let (mut e, c) = engine(1);
    run(&mut e, c, "SADD s 1 2");
    assert!(matches!(run(&mut e, c, "SMEMBERS s"), Reply::Array(_)));
    if let Some(client) = e.clients.get_mut(&c) {
        client.proto = 3;
    }
    for line in [
        "SMEMBERS s",
        "SINTER s",
        "SUNION s",
        "SDIFF s",
        "SPOP nokey 1",
    ] {
        assert!(matches!(run(&mut e, c, line), Reply::Set(_)), "{line}");
    }
    assert!(matches!(run(&mut e, c, "SRANDMEMBER s 5"), Reply::Array(_)));
}

#[test]
fn srandmember_counts_are_honoured_without_huge_allocations() {
    let (mut e, c) = engine(1);
    run(&mut e, c, "SADD s a b c d e f g h i j");
    for n in 1..=10 {
        let Reply::Array(items) = run(&mut e, c, &format!("SRANDMEMBER s {n}")) else {
            panic!("array expected");
        };
        let distinct: std::collections::HashSet<String> =
            items.iter().map(|r| format!("{r:?}")).collect();
        assert_eq!((items.len(), distinct.len()), (n, n));
        let Reply::Array(items) = run(&mut e, c, &format!("SRANDMEMBER s -{}", n * 3)) else {
            panic!("array expected");
        };
        assert_eq!(items.len(), n * 3);
    }
    assert!(run(&mut e, c, "SRANDMEMBER s -9223372036854775807").is_error());
    assert_eq!(
        run(&mut e, c, "SRANDMEMBER nokey -9223372036854775807"),
        Reply::Array(vec![])
    );
}

#[test]
fn sscan_of_a_hash_table_set_visits_every_member() {
    let (mut e, c) = engine(1);
    let fill: String = (0..1000).map(|i| format!(" m{i}")).collect();
    run(&mut e, c, &format!("SADD s{fill}"));
    let mut seen = std::collections::HashSet::new();
    let mut cursor = b"0".to_vec();
    loop {
        let reply = e.execute(
            c,
            vec![
                b"SSCAN".to_vec(),
                b"s".to_vec(),
                cursor.clone(),
                b"COUNT".to_vec(),
                b"7".to_vec(),
            ],
        );
        let Reply::Array(parts) = reply else {
            panic!("array expected")
        };
        let [Reply::Bulk(next), Reply::Array(items)] = parts.as_slice() else {
            panic!("cursor and items expected")
        };
        assert!(items.len() <= 7);
        for item in items {
            if let Reply::Bulk(b) = item {
                seen.insert(b.clone());
            }
        }
        cursor = next.clone();
        if cursor == b"0" {
            break;
        }
    }
    assert_eq!(seen.len(), 1000);
}

#[test]
fn store_commands_touch_the_destination_not_the_sources() {
    let (mut e, c) = engine(1);
    run(&mut e, c, "SADD s1 a b");
    run(&mut e, c, "SADD s2 b c");
    for cmd in ["SINTERSTORE", "SUNIONSTORE", "SDIFFSTORE"] {
        let write = format!("{cmd} dst s1 s2");
        assert!(exec_survives(&mut e, c, "s1", &write), "{cmd} source");
        assert!(exec_survives(&mut e, c, "s2", &write), "{cmd} source");
        assert!(
            !exec_survives(&mut e, c, "dst", &write),
            "{cmd} destination"
        );
    }
    // An empty result deletes an existing destination (a change) …
    assert!(!exec_survives(&mut e, c, "dst", "SINTERSTORE dst s1 nokey"));
    // … and leaves a missing one alone (no change).
    assert!(exec_survives(&mut e, c, "dst", "SINTERSTORE dst s1 nokey"));
}

#[test]
fn smove_touches_both_keys_only_when_a_member_moves() {
    let (mut e, c) = engine(1);
    run(&mut e, c, "SADD src a");
    assert!(exec_survives(&mut e, c, "src", "SMOVE src dst nosuch"));
    assert!(exec_survives(&mut e, c, "src", "SMOVE src src a"));
    assert!(!exec_survives(&mut e, c, "dst", "SMOVE src dst a"));
    assert!(!exec_survives(&mut e, c, "dst", "SMOVE dst src a"));
}
