//! Property tests: the sorted set against a model, a `Vec<(f64, Vec<u8>)>` kept sorted by
//! `(score, member)`.
//!
//! Random sequences of additions, score updates, removals and range removals run on both;
//! after every step the structure's invariants are checked and every query — ranks, the
//! member at a rank, iteration from a rank in both directions, first/last member in a score
//! range, counts by score — is compared with the model. Lexicographic queries are meaningful
//! only when all scores are equal (as Redis documents), so they get their own property over
//! sets whose scores are all 0. Small alphabets make ties and repeated members common.

#![cfg(not(target_arch = "wasm32"))]

use std::cmp::Ordering;

use kvlab::engine::types::zset::{LexBound, LexRange, ScoreRange, ZSet};
use proptest::prelude::*;

/// The model: sorted by score (with -0 == 0), then member bytes.
#[derive(Default, Debug)]
struct Model(Vec<(f64, Vec<u8>)>);

fn cmp_entry(a: &(f64, Vec<u8>), b: &(f64, Vec<u8>)) -> Ordering {
    a.0.partial_cmp(&b.0)
        .unwrap_or(Ordering::Equal)
        .then_with(|| a.1.cmp(&b.1))
}

impl Model {
    fn add(&mut self, m: &[u8], s: f64) {
        self.remove(m);
        self.0.push((s, m.to_vec()));
        self.0.sort_by(cmp_entry);
    }
    fn remove(&mut self, m: &[u8]) -> bool {
        let before = self.0.len();
        self.0.retain(|(_, x)| x != m);
        before != self.0.len()
    }
    fn rank(&self, m: &[u8]) -> Option<usize> {
        self.0.iter().position(|(_, x)| x == m)
    }
    fn in_score(&self, r: &ScoreRange) -> Vec<usize> {
        (0..self.0.len())
            .filter(|&i| r.gte_min(self.0[i].0) && r.lte_max(self.0[i].0))
            .collect()
    }
    fn in_lex(&self, r: &LexRange) -> Vec<usize> {
        (0..self.0.len())
            .filter(|&i| r.gte_min(&self.0[i].1) && r.lte_max(&self.0[i].1))
            .collect()
    }
}

#[derive(Debug, Clone)]
enum Op {
    Add(Vec<u8>, f64),
    Remove(Vec<u8>),
    RemoveRanks(usize, usize),
    RemoveScores(ScoreRange),
}

fn member() -> impl Strategy<Value = Vec<u8>> {
    prop::collection::vec(
        prop::sample::select(vec![b'a', b'b', b'c', 0u8, 0xff]),
        0..4,
    )
}

fn score() -> impl Strategy<Value = f64> {
    prop_oneof![
        (-5i32..5).prop_map(f64::from),
        prop::sample::select(vec![
            f64::NEG_INFINITY,
            f64::INFINITY,
            -0.0,
            0.0,
            1.5,
            -2.25,
            1e300
        ]),
    ]
}

fn score_range() -> impl Strategy<Value = ScoreRange> {
    (score(), score(), any::<bool>(), any::<bool>()).prop_map(|(min, max, minex, maxex)| {
        ScoreRange {
            min,
            max,
            minex,
            maxex,
        }
    })
}

fn lex_bound() -> impl Strategy<Value = LexBound> {
    prop_oneof![
        Just(LexBound::NegInf),
        Just(LexBound::PosInf),
        member().prop_map(LexBound::Incl),
        member().prop_map(LexBound::Excl),
    ]
}

fn lex_range() -> impl Strategy<Value = LexRange> {
    (lex_bound(), lex_bound()).prop_map(|(min, max)| LexRange { min, max })
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        6 => (member(), score()).prop_map(|(m, s)| Op::Add(m, s)),
        2 => member().prop_map(Op::Remove),
        1 => (0usize..40, 0usize..40).prop_map(|(a, b)| Op::RemoveRanks(a, b)),
        1 => score_range().prop_map(Op::RemoveScores),
    ]
}

/// Compares every query of the structure with the model.
fn agree(z: &ZSet, model: &Model, probes: &[ScoreRange]) -> Result<(), TestCaseError> {
    z.check_invariants().map_err(TestCaseError::fail)?;
    prop_assert_eq!(z.len(), model.0.len());
    let got: Vec<(f64, Vec<u8>)> = z.iter().map(|(m, s)| (s, m.to_vec())).collect();
    prop_assert_eq!(got.len(), model.0.len());
    for (i, ((gs, gm), (ms, mm))) in got.iter().zip(&model.0).enumerate() {
        prop_assert_eq!(gm, mm, "member at rank {}", i);
        prop_assert!(gs == ms, "score at rank {}: {} vs {}", i, gs, ms);
        prop_assert_eq!(z.rank(mm), model.rank(mm));
        prop_assert_eq!(model.rank(mm), Some(i));
        prop_assert_eq!(z.score(mm).map(|s| s == *ms), Some(true));
        let (rm, rs) = z.get_by_rank(i).expect("rank in range");
        prop_assert_eq!(rm, &mm[..]);
        prop_assert!(rs == *ms);
    }
    prop_assert!(z.get_by_rank(model.0.len()).is_none());
    // Storage positions (random picks, ZSCAN) reach every member exactly once.
    let mut by_pos: Vec<Vec<u8>> = (0..model.0.len())
        .map(|p| z.get_index(p).map(|(m, _)| m.to_vec()).unwrap_or_default())
        .collect();
    by_pos.sort();
    let mut members: Vec<Vec<u8>> = model.0.iter().map(|e| e.1.clone()).collect();
    members.sort();
    prop_assert_eq!(by_pos, members);
    prop_assert!(z.get_index(model.0.len()).is_none());
    prop_assert_eq!(z.rank(b"not-a-member-xyz"), None);
    // Iteration from every rank, both directions, with a limit.
    let n = model.0.len();
    for start in 0..n {
        let fwd: Vec<Vec<u8>> = z
            .iter_from_rank(start, false, 3)
            .map(|(m, _)| m.to_vec())
            .collect();
        let want: Vec<Vec<u8>> = model.0[start..(start + 3).min(n)]
            .iter()
            .map(|e| e.1.clone())
            .collect();
        prop_assert_eq!(fwd, want);
        let back: Vec<Vec<u8>> = z
            .iter_from_rank(start, true, 3)
            .map(|(m, _)| m.to_vec())
            .collect();
        let want: Vec<Vec<u8>> = model.0[start.saturating_sub(2)..=start]
            .iter()
            .rev()
            .map(|e| e.1.clone())
            .collect();
        prop_assert_eq!(back, want);
    }
    for r in probes {
        let idx = model.in_score(r);
        prop_assert_eq!(
            z.first_in_score_range(r),
            idx.first().copied(),
            "first in {:?}",
            r
        );
        prop_assert_eq!(
            z.last_in_score_range(r),
            idx.last().copied(),
            "last in {:?}",
            r
        );
        prop_assert_eq!(z.count_in_score_range(r), idx.len(), "count in {:?}", r);
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(150))]

    #[test]
    fn zset_matches_sorted_vec_model(
        ops in prop::collection::vec(op(), 1..120),
        probes in prop::collection::vec(score_range(), 4),
        large in any::<bool>(),
    ) {
        // These sets stay small, so both encodings are run on the same operations.
        let mut z = if large { ZSet::new_skiplist() } else { ZSet::new() };
        let mut model = Model::default();
        for op in ops {
            match op {
                Op::Add(m, s) => {
                    z.add(&m, s);
                    model.add(&m, s);
                }
                Op::Remove(m) => {
                    prop_assert_eq!(z.remove(&m).is_some(), model.remove(&m));
                }
                Op::RemoveRanks(a, b) => {
                    let removed = z.remove_rank_range(a, b);
                    let n = model.0.len();
                    let want = if a <= b && a < n { b.min(n - 1) - a + 1 } else { 0 };
                    prop_assert_eq!(removed, want);
                    if want > 0 {
                        model.0.drain(a..=b.min(n - 1));
                    }
                }
                Op::RemoveScores(r) => {
                    let idx = model.in_score(&r);
                    prop_assert_eq!(z.remove_score_range(&r), idx.len());
                    model.0.retain(|e| !(r.gte_min(e.0) && r.lte_max(e.0)));
                }
            }
            agree(&z, &model, &probes)?;
        }
    }

    #[test]
    fn lex_queries_match_the_model_when_scores_are_equal(
        members in prop::collection::vec(member(), 0..60),
        ranges in prop::collection::vec(lex_range(), 6),
        removal in lex_range(),
        large in any::<bool>(),
    ) {
        let mut z = if large { ZSet::new_skiplist() } else { ZSet::new() };
        let mut model = Model::default();
        for m in &members {
            z.add(m, 0.0);
            model.add(m, 0.0);
        }
        for r in &ranges {
            let idx = model.in_lex(r);
            prop_assert_eq!(z.first_in_lex_range(r), idx.first().copied(), "first in {:?}", r);
            prop_assert_eq!(z.last_in_lex_range(r), idx.last().copied(), "last in {:?}", r);
            prop_assert_eq!(z.count_in_lex_range(r), idx.len(), "count in {:?}", r);
        }
        let idx = model.in_lex(&removal);
        prop_assert_eq!(z.remove_lex_range(&removal), idx.len());
        model.0.retain(|e| !(removal.gte_min(&e.1) && removal.lte_max(&e.1)));
        agree(&z, &model, &[])?;
    }

    #[test]
    fn sets_that_outgrow_the_listpack_keep_their_contents(
        ops in prop::collection::vec((0u32..300, -3i32..3, 0u8..8), 100..400),
        long in 0usize..300,
    ) {
        // Up to 300 distinct members: the listpack fills, converts and goes on in the
        // large encoding, and one long member (over 64 bytes) may force it early.
        let mut z = ZSet::new();
        let mut model = Model::default();
        // Redis converts for good once a set has held 129 members or a long one.
        let mut outgrown = false;
        for (i, (m, s, kind)) in ops.into_iter().enumerate() {
            let m = if i == long {
                vec![b'L'; 65]
            } else {
                format!("m{m}").into_bytes()
            };
            if kind == 0 {
                prop_assert_eq!(z.remove(&m).is_some(), model.remove(&m));
            } else {
                z.add(&m, f64::from(s));
                model.add(&m, f64::from(s));
                outgrown |= model.0.len() > 128 || i == long;
            }
            prop_assert_eq!(z.is_listpack(), !outgrown, "encoding after step {}", i);
            if i % 50 == 0 {
                agree(&z, &model, &[])?;
            }
        }
        agree(&z, &model, &[ScoreRange { min: -1.0, max: 1.0, minex: true, maxex: false }])?;
    }

    #[test]
    fn large_sets_keep_ranks_through_churn(
        seed in any::<u64>(),
    ) {
        // Enough members for many skiplist levels; churn with removals and re-adds.
        let mut rng = seed;
        let mut next = move || {
            rng ^= rng << 13;
            rng ^= rng >> 7;
            rng ^= rng << 17;
            rng
        };
        let mut z = ZSet::new();
        let mut model = Model::default();
        for _ in 0..600 {
            let m = format!("m{}", next() % 300).into_bytes();
            if next() % 4 == 0 {
                prop_assert_eq!(z.remove(&m).is_some(), model.remove(&m));
            } else {
                let s = (next() % 50) as f64;
                z.add(&m, s);
                model.add(&m, s);
            }
        }
        agree(&z, &model, &[ScoreRange { min: 10.0, max: 20.0, minex: true, maxex: false }])?;
    }
}

/// The commands' own arithmetic (negative ranks, LIMIT offset/count, REV with `max min`)
/// against the model, through the engine.
mod commands {
    use super::*;
    use kvlab::engine::{Engine, ManualClock, Reply};

    fn bulk_list(r: Reply) -> Vec<Vec<u8>> {
        match r {
            Reply::Array(items) => items
                .into_iter()
                .map(|i| match i {
                    Reply::Bulk(b) => b,
                    other => panic!("not a bulk: {other:?}"),
                })
                .collect(),
            other => panic!("not an array: {other:?}"),
        }
    }

    fn bound(v: i32, ex: bool) -> Vec<u8> {
        format!("{}{v}", if ex { "(" } else { "" }).into_bytes()
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(200))]

        #[test]
        fn zrange_matches_the_model(
            pairs in prop::collection::btree_map(member(), -3i32..4, 0..12),
            (start, stop) in (-9i64..9, -9i64..9),
            (min, max, minex, maxex) in (-4i32..5, -4i32..5, any::<bool>(), any::<bool>()),
            (offset, count) in (-2i64..8, -2i64..8),
        ) {
            let mut e = Engine::new(Box::new(ManualClock::at_ms(0)), 5);
            let c = e.connect();
            let mut model = Model::default();
            for (m, s) in &pairs {
                let r = e.execute(c, vec![b"ZADD".to_vec(), b"z".to_vec(), s.to_string().into_bytes(), m.clone()]);
                prop_assert_eq!(r, Reply::Integer(1));
                model.add(m, f64::from(*s));
            }
            let n = model.0.len() as i64;
            let all: Vec<Vec<u8>> = model.0.iter().map(|e| e.1.clone()).collect();

            // By rank, both directions.
            let (mut a, mut b) = (if start < 0 { n + start } else { start }, if stop < 0 { n + stop } else { stop });
            a = a.max(0);
            let want: Vec<Vec<u8>> = if a > b || a >= n { vec![] } else {
                b = b.min(n - 1);
                all[a as usize..=b as usize].to_vec()
            };
            let got = bulk_list(e.execute(c, vec![b"ZRANGE".to_vec(), b"z".to_vec(), start.to_string().into_bytes(), stop.to_string().into_bytes()]));
            prop_assert_eq!(&got, &want);
            let rev_all: Vec<Vec<u8>> = all.iter().rev().cloned().collect();
            let want_rev: Vec<Vec<u8>> = if a > b || a >= n { vec![] } else { rev_all[a as usize..=b as usize].to_vec() };
            let got = bulk_list(e.execute(c, vec![b"ZREVRANGE".to_vec(), b"z".to_vec(), start.to_string().into_bytes(), stop.to_string().into_bytes()]));
            prop_assert_eq!(&got, &want_rev);

            // By score with LIMIT, both directions.
            let r = ScoreRange { min: f64::from(min), max: f64::from(max), minex, maxex };
            let inside: Vec<Vec<u8>> = model.in_score(&r).into_iter().map(|i| all[i].clone()).collect();
            let page = |v: Vec<Vec<u8>>| -> Vec<Vec<u8>> {
                if offset < 0 { return vec![]; }
                let it = v.into_iter().skip(offset as usize);
                if count < 0 { it.collect() } else { it.take(count as usize).collect() }
            };
            let limit = |mut argv: Vec<Vec<u8>>| {
                argv.extend([b"LIMIT".to_vec(), offset.to_string().into_bytes(), count.to_string().into_bytes()]);
                argv
            };
            let got = bulk_list(e.execute(c, limit(vec![b"ZRANGEBYSCORE".to_vec(), b"z".to_vec(), bound(min, minex), bound(max, maxex)])));
            prop_assert_eq!(&got, &page(inside.clone()));
            let got = bulk_list(e.execute(c, limit(vec![b"ZRANGE".to_vec(), b"z".to_vec(), bound(max, maxex), bound(min, minex), b"BYSCORE".to_vec(), b"REV".to_vec()])));
            prop_assert_eq!(&got, &page(inside.iter().rev().cloned().collect()));
            let got = e.execute(c, vec![b"ZCOUNT".to_vec(), b"z".to_vec(), bound(min, minex), bound(max, maxex)]);
            prop_assert_eq!(got, Reply::Integer(inside.len() as i64));
        }
    }
}
