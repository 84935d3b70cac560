//! A follower tab's replica (`src/tabs.rs`, `src/ui/services/tabs.rs`) on the host: the leader's
//! effect batches, framed as tab messages, applied in order with `snapshot::apply_effects`,
//! rebuild the leader's dataset — including after a lost batch, resynced from a snapshot.
#![cfg(not(target_arch = "wasm32"))]

use kvlab::engine::snapshot::{
    apply_effects, data_dump, decode_log_record, decode_snapshot, encode_log_record,
    encode_snapshot, install, TimedEffect,
};
use kvlab::engine::{Engine, ManualClock};
use kvlab::tabs::{Follow, Msg, Step};

const T0: i64 = 1_700_000_000_000;

fn argv(line: &str) -> Vec<Vec<u8>> {
    line.split(' ').map(|w| w.as_bytes().to_vec()).collect()
}

/// Runs `line` on the leader and frames its effects as the leader tab does.
fn batch(leader: &mut Engine, client: u64, line: &str, seq: &mut u64) -> Option<Vec<u8>> {
    if line == "TICK" {
        leader.tick();
    } else {
        leader.submit(client, argv(line));
    }
    let at_ms = leader.now_ms();
    let effects: Vec<TimedEffect> = leader
        .take_effects()
        .into_iter()
        .map(|effect| TimedEffect { at_ms, effect })
        .collect();
    if effects.is_empty() {
        return None;
    }
    *seq += 1;
    Some(
        Msg::Effects {
            leader: 1,
            seq: *seq,
            record: encode_log_record(*seq, &effects),
        }
        .encode(),
    )
}

/// Applies a framed message to the replica, as a follower does; `false` asks for a resync.
fn receive(replica: &mut Engine, follow: &mut Follow, bytes: &[u8]) -> bool {
    match Msg::decode(bytes).expect("frame") {
        Msg::Effects {
            leader,
            seq,
            record,
        } => match follow.effects(leader, seq) {
            Step::Apply => {
                let rec = decode_log_record(&record, 0).expect("record");
                apply_effects(replica, &rec.effects);
                true
            }
            Step::Skip => true,
            Step::Resync => false,
        },
        Msg::Snapshot {
            leader, seq, bytes, ..
        } => {
            let d = decode_snapshot(&bytes).expect("snapshot");
            install(replica, d.value.dbs);
            follow.snapshot(leader, seq);
            true
        }
        other => panic!("unexpected {other:?}"),
    }
}

const SCRIPT: &[&str] = &[
    "SET a 1",
    "INCR n",
    "RPUSH l x y z",
    "HSET h f v g w",
    "ZADD z 1 a 2 b",
    "SADD s m1 m2",
    "SET t v PX 50",
    "PEXPIRE a 80",
    "MULTI",
    "INCR n",
    "LPOP l",
    "EXEC",
    "SELECT 3",
    "SET other db",
    "SELECT 0",
    "GET t",
    "TICK",
    "LMOVE l l2 LEFT RIGHT",
    "ZINCRBY z 5 a",
    "HDEL h f",
    "SETRANGE a 3 xyz",
    "TICK",
    "DEL s",
    "INCRBYFLOAT f 1.5",
    "XADD st 1-1 k v",
    "TICK",
];

#[test]
fn a_replica_following_the_batches_holds_the_leaders_data() {
    let lclock = ManualClock::at_ms(T0);
    let rclock = ManualClock::at_ms(T0);
    let mut leader = Engine::new(Box::new(lclock.clone()), 1);
    let mut replica = Engine::new(Box::new(rclock.clone()), 2);
    let client = leader.connect();
    let mut follow = Follow::default();
    // The follower starts from the leader's snapshot (nothing yet).
    let snap = Msg::Snapshot {
        leader: 1,
        to: 2,
        seq: 0,
        bytes: encode_snapshot(leader.dbs(), 0, T0),
    };
    assert!(receive(&mut replica, &mut follow, &snap.encode()));
    let mut seq = 0;
    for (i, line) in SCRIPT.iter().enumerate() {
        lclock.advance_ms(30);
        rclock.advance_ms(30);
        if let Some(frame) = batch(&mut leader, client, line, &mut seq) {
            assert!(receive(&mut replica, &mut follow, &frame), "{line}");
        }
        assert_eq!(
            data_dump(replica.dbs()),
            data_dump(leader.dbs()),
            "after step {i}: {line}"
        );
    }
}

#[test]
fn a_lost_batch_is_noticed_and_a_snapshot_brings_the_replica_back() {
    let lclock = ManualClock::at_ms(T0);
    let mut leader = Engine::new(Box::new(lclock.clone()), 1);
    let mut replica = Engine::new(Box::new(ManualClock::at_ms(T0)), 2);
    let client = leader.connect();
    let mut follow = Follow::default();
    let snap = Msg::Snapshot {
        leader: 1,
        to: 2,
        seq: 0,
        bytes: encode_snapshot(leader.dbs(), 0, T0),
    };
    receive(&mut replica, &mut follow, &snap.encode());
    let mut seq = 0;
    let f1 = batch(&mut leader, client, "SET a 1", &mut seq).expect("write");
    let _lost = batch(&mut leader, client, "SET b 2", &mut seq).expect("write");
    let f3 = batch(&mut leader, client, "SET c 3", &mut seq).expect("write");
    assert!(receive(&mut replica, &mut follow, &f1));
    assert!(!receive(&mut replica, &mut follow, &f3), "gap noticed");
    // Batches that arrive before the snapshot are ignored; the snapshot includes them.
    let f4 = batch(&mut leader, client, "SET d 4", &mut seq).expect("write");
    assert!(receive(&mut replica, &mut follow, &f4));
    let snap = Msg::Snapshot {
        leader: 1,
        to: 2,
        seq,
        bytes: encode_snapshot(leader.dbs(), seq, leader.now_ms()),
    };
    assert!(receive(&mut replica, &mut follow, &snap.encode()));
    let f5 = batch(&mut leader, client, "SET e 5", &mut seq).expect("write");
    assert!(receive(&mut replica, &mut follow, &f5));
    assert_eq!(data_dump(replica.dbs()), data_dump(leader.dbs()));
}
