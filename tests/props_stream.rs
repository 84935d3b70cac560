//! Property tests: the stream against a model, a `BTreeMap` from ID to value plus the
//! metadata Redis 7.0 keeps (last ID, recorded first ID, maximal deleted ID, entries added).
//!
//! Random sequences of appends (with IDs that may be too small), deletions and trims run on
//! both, under random node limits (`stream-node-max-entries` 1 to 6, a few byte limits) so
//! that entries spread over many listpack nodes. Exact trims must match the model; an
//! approximate trim (`~`, whole nodes only) must remove a prefix, never more than the exact
//! trim would, and respect LIMIT. After every step the node model's invariants are checked
//! and ranges in both directions are compared with the model.

#![cfg(not(target_arch = "wasm32"))]

use std::collections::BTreeMap;

use kvlab::engine::types::stream::{Stream, StreamId, Trim, TrimStrategy};
use proptest::prelude::*;

#[derive(Default, Debug)]
struct Model {
    entries: BTreeMap<StreamId, Vec<u8>>,
    last_id: StreamId,
    first_id: StreamId,
    max_deleted: StreamId,
    added: u64,
}

#[derive(Debug, Clone)]
enum Op {
    Add(u64, u64, usize),
    Del(u64, u64),
    TrimLen(u64, bool, i64),
    TrimMin(u64, u64, bool, i64),
    Range(u64, u64, bool),
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        6 => (0..40u64, 0..4u64, 0..80usize).prop_map(|(ms, seq, len)| Op::Add(ms, seq, len)),
        2 => (0..40u64, 0..4u64).prop_map(|(ms, seq)| Op::Del(ms, seq)),
        1 => (0..30u64, any::<bool>(), 0..20i64).prop_map(|(n, a, l)| Op::TrimLen(n, a, l)),
        1 => (0..40u64, 0..4u64, any::<bool>(), 0..20i64)
            .prop_map(|(ms, seq, a, l)| Op::TrimMin(ms, seq, a, l)),
        2 => (0..40u64, 0..40u64, any::<bool>()).prop_map(|(a, b, r)| Op::Range(a, b, r)),
    ]
}

fn fields(v: &[u8]) -> Vec<(Vec<u8>, Vec<u8>)> {
    vec![(b"f".to_vec(), v.to_vec())]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn stream_matches_model(
        ops in proptest::collection::vec(op(), 1..120),
        max_entries in 1..7i64,
        max_bytes in prop_oneof![Just(0i64), Just(60), Just(200), Just(4096)],
    ) {
        let mut s = Stream::new();
        let mut m = Model::default();
        for op in ops {
            match op {
                Op::Add(ms, seq, len) => {
                    let id = StreamId::new(ms, seq);
                    let v = vec![b'x'; len];
                    let ok = s.append(id, fields(&v), max_entries, max_bytes).is_ok();
                    prop_assert_eq!(ok, id > m.last_id);
                    if ok {
                        if m.entries.is_empty() {
                            m.first_id = id;
                        }
                        m.entries.insert(id, v);
                        m.last_id = id;
                        m.added += 1;
                    }
                }
                Op::Del(ms, seq) => {
                    let id = StreamId::new(ms, seq);
                    let existed = m.entries.remove(&id).is_some();
                    prop_assert_eq!(s.delete(id), existed);
                    if existed {
                        m.max_deleted = m.max_deleted.max(id);
                        m.first_id = m.entries.keys().next().copied().unwrap_or_default();
                    }
                }
                Op::TrimLen(n, approx, limit) => {
                    let t = Trim { strategy: TrimStrategy::MaxLen(n), approx, limit: if approx { limit } else { 0 } };
                    let exact = m.entries.len().saturating_sub(n as usize);
                    let removed = s.trim(&t) as usize;
                    if approx {
                        prop_assert!(removed <= exact);
                        if limit > 0 {
                            prop_assert!(removed as i64 <= limit);
                        }
                    } else {
                        prop_assert_eq!(removed, exact);
                    }
                    for _ in 0..removed {
                        let k = *m.entries.keys().next().unwrap();
                        m.entries.remove(&k);
                    }
                    if removed > 0 || m.entries.is_empty() {
                        m.first_id = m.entries.keys().next().copied().unwrap_or_default();
                    }
                }
                Op::TrimMin(ms, seq, approx, limit) => {
                    let min = StreamId::new(ms, seq);
                    let t = Trim { strategy: TrimStrategy::MinId(min), approx, limit: if approx { limit } else { 0 } };
                    let exact = m.entries.range(..min).count();
                    let removed = s.trim(&t) as usize;
                    if approx {
                        prop_assert!(removed <= exact);
                    } else {
                        prop_assert_eq!(removed, exact);
                    }
                    for _ in 0..removed {
                        let k = *m.entries.keys().next().unwrap();
                        m.entries.remove(&k);
                    }
                    if removed > 0 || m.entries.is_empty() {
                        m.first_id = m.entries.keys().next().copied().unwrap_or_default();
                    }
                }
                Op::Range(a, b, rev) => {
                    let (lo, hi) = (StreamId::new(a, 0), StreamId::new(b, u64::MAX));
                    let got: Vec<StreamId> = if rev {
                        s.range(lo, hi).rev().map(|(k, _)| *k).collect()
                    } else {
                        s.range(lo, hi).map(|(k, _)| *k).collect()
                    };
                    let mut want: Vec<StreamId> = if lo <= hi {
                        m.entries.range(lo..=hi).map(|(k, _)| *k).collect()
                    } else {
                        Vec::new()
                    };
                    if rev {
                        want.reverse();
                    }
                    prop_assert_eq!(got, want);
                }
            }
            prop_assert_eq!(s.check_invariants(), Ok(()));
            prop_assert_eq!(s.len() as usize, m.entries.len());
            prop_assert_eq!(s.last_id, m.last_id);
            prop_assert_eq!(s.first_id, m.first_id);
            prop_assert_eq!(s.max_deleted_entry_id, m.max_deleted);
            prop_assert_eq!(s.entries_added, m.added);
            let all: Vec<(StreamId, Vec<u8>)> = s
                .range(StreamId::MIN, StreamId::MAX)
                .map(|(k, f)| (*k, f[0].1.clone()))
                .collect();
            let want: Vec<(StreamId, Vec<u8>)> =
                m.entries.iter().map(|(k, v)| (*k, v.clone())).collect();
            prop_assert_eq!(all, want);
        }
    }
}
