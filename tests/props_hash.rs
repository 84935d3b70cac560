//! Property test: random HSET/HDEL-like writes on a [`HashValue`] against a plain model, a
//! `Vec` of pairs in listpack order (an update keeps its place, a delete closes its gap)
//! plus whether Redis would have converted.
//!
//! Small limits and short strings make both thresholds, repeated fields and empty strings
//! common; an occasional long value takes the length varint past one byte. After every
//! step the encoding, the length, every lookup and, while small, the exact order are
//! compared; once converted only the content is (the table's order is unspecified).

#![cfg(not(target_arch = "wasm32"))]

use kvlab::engine::types::hash::HashLimits;
use kvlab::engine::types::HashValue;
use proptest::prelude::*;

#[derive(Debug, Clone)]
enum Op {
    Set(Vec<u8>, Vec<u8>),
    Del(Vec<u8>),
    Args(usize),
}

fn field() -> impl Strategy<Value = Vec<u8>> {
    prop::collection::vec(prop_oneof![Just(b'a'), Just(b'b'), Just(0u8)], 0..3)
}

fn value() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        8 => prop::collection::vec(any::<u8>(), 0..6),
        1 => (100usize..300).prop_map(|n| vec![b'x'; n]),
    ]
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        6 => (field(), value()).prop_map(|(f, v)| Op::Set(f, v)),
        3 => field().prop_map(Op::Del),
        1 => (0usize..300).prop_map(Op::Args),
    ]
}

proptest! {
    #[test]
    fn hash_matches_a_vec_of_pairs(
        entries in 0usize..8,
        value_limit in prop_oneof![0usize..8, Just(200usize), Just(1000usize)],
        ops in prop::collection::vec(op(), 1..60),
    ) {
        let limits = HashLimits { max_listpack_entries: entries, max_listpack_value: value_limit };
        let mut h = HashValue::default();
        let mut model: Vec<(Vec<u8>, Vec<u8>)> = Vec::new();
        let mut big = false;
        for op in ops {
            match op {
                Op::Set(f, v) => {
                    big |= f.len() > value_limit || v.len() > value_limit;
                    let new = match model.iter_mut().find(|(g, _)| *g == f) {
                        Some(slot) => { slot.1 = v.clone(); false }
                        None => { model.push((f.clone(), v.clone())); true }
                    };
                    big |= model.len() > entries;
                    prop_assert_eq!(h.insert(f, v, limits), new);
                }
                Op::Del(f) => {
                    let at = model.iter().position(|(g, _)| *g == f);
                    if let Some(at) = at {
                        model.remove(at);
                    }
                    prop_assert_eq!(h.remove(&f), at.is_some());
                }
                Op::Args(n) => {
                    big |= n > value_limit;
                    h.convert_for_args([n], limits);
                }
            }
            prop_assert_eq!(h.is_big(), big);
            prop_assert_eq!(h.len(), model.len());
            for (f, v) in &model {
                prop_assert_eq!(h.get(f), Some(&v[..]));
            }
            prop_assert_eq!(h.get(b"zz"), None);
            let got: Vec<(Vec<u8>, Vec<u8>)> =
                h.iter().map(|(f, v)| (f.to_vec(), v.to_vec())).collect();
            if big {
                let mut got = got;
                let mut want = model.clone();
                got.sort();
                want.sort();
                prop_assert_eq!(got, want);
            } else {
                prop_assert_eq!(&got, &model);
                for (i, (f, v)) in model.iter().enumerate() {
                    prop_assert_eq!(h.get_index(i), Some((&f[..], &v[..])));
                }
                prop_assert_eq!(h.check_invariants(limits), Ok(()));
                let (again, repeated) = HashValue::from_pairs(got, false);
                prop_assert!(!repeated);
                prop_assert_eq!(&again, &h);
            }
            prop_assert_eq!(h.get_index(model.len()), None);
            prop_assert_eq!(h.clone(), h.clone());
        }
    }
}
