//! Tests of the sorted-set type: ordering, updates, ranges, memory and encoding thresholds.

use super::repr::Repr;
use super::*;

fn z(pairs: &[(&str, f64)]) -> ZSet {
    let mut z = ZSet::new();
    for (m, s) in pairs {
        z.add(m.as_bytes(), *s);
    }
    z.check_invariants().unwrap();
    z
}

#[test]
fn orders_by_score_then_member_bytes() {
    let s = z(&[("b", 1.0), ("a", 1.0), ("c", 0.5), ("ab", 1.0)]);
    let order: Vec<_> = s.iter().map(|(m, _)| m.to_vec()).collect();
    assert_eq!(order, [&b"c"[..], b"a", b"ab", b"b"]);
    assert_eq!(s.rank(b"ab"), Some(2));
    assert_eq!(s.get_by_rank(3), Some((&b"b"[..], 1.0)));
    assert_eq!(s.get_by_rank(4), None);
}

#[test]
fn updates_move_members_and_keep_invariants() {
    let mut s = z(&[("a", 1.0), ("b", 2.0), ("c", 3.0)]);
    assert_eq!(s.add(b"a", 10.0), AddOutcome::Updated);
    assert_eq!(s.add(b"b", 2.5), AddOutcome::Updated);
    assert_eq!(s.add(b"c", 3.0), AddOutcome::Unchanged);
    s.check_invariants().unwrap();
    assert_eq!(s.rank(b"a"), Some(2));
    assert_eq!(s.remove(b"b"), Some(2.5));
    assert_eq!(s.remove(b"b"), None);
    s.check_invariants().unwrap();
}

/// Two members whose slots in `s`'s dict carry the same 32 hash bits, so that a probe
/// for one meets the other's slot if that one was placed first: the first returned
/// sorts after the second. Found by trying names (a birthday search: about 80,000).
fn hash_twins(s: &ZSet) -> (Vec<u8>, Vec<u8>) {
    let Repr::Skiplist(l) = &s.repr else {
        panic!("a large set has the dict")
    };
    let mut seen = std::collections::HashMap::new();
    for i in 0u32.. {
        let m = format!("twin:{i}").into_bytes();
        if let Some(other) = seen.insert(l.dict.hash_bits(&m), m.clone()) {
            return if other > m { (other, m) } else { (m, other) };
        }
    }
    unreachable!("32-bit hashes repeat within 2^32 + 1 names")
}

/// Issue 18: a member whose slot's hash bits equal those of a member placed before it.
/// `update` starts from the first slot with those bits, which is the other member's;
/// the move it tries must find that the tree's element at that score is not this
/// member. On the tree that trusted the place, ZADD answered "updated" for a member it
/// never added, and moved the other member to the new score in the tree alone.
#[test]
fn a_hash_twin_is_added_not_mistaken_for_its_twin() {
    for (twin_score, new_score) in [(5.0, 7.0), (5.0, 5.0), (5.0, 3.0)] {
        let mut s = ZSet::new();
        for i in 0..200 {
            s.add(format!("filler:{i}").as_bytes(), f64::from(i));
        }
        let (first, second) = hash_twins(&s);
        // `first` sorts after `second`, so a descent for (5, second) stops at
        // (5, first): the element a trusting tree would have moved.
        assert_eq!(s.add(&first, twin_score), AddOutcome::Added);
        assert_eq!(s.rank(&second), None);
        assert_eq!(s.score(&second), None);
        let got = s.update(&second, |cur| Ok::<_, ()>(Some(cur.unwrap_or(new_score))));
        assert_eq!(got, Ok(Some((AddOutcome::Added, new_score))));
        s.check_invariants().unwrap();
        assert_eq!(s.len(), 202);
        assert_eq!(s.score(&first), Some(twin_score));
        assert_eq!(s.score(&second), Some(new_score));
        // Updates of either twin now reach that one alone.
        let got = s.update(&first, |cur| Ok::<_, ()>(cur.map(|c| c + 100.0)));
        assert_eq!(got, Ok(Some((AddOutcome::Updated, twin_score + 100.0))));
        let got = s.update(&second, |cur| Ok::<_, ()>(cur.map(|c| c + 1.0)));
        assert_eq!(got, Ok(Some((AddOutcome::Updated, new_score + 1.0))));
        s.check_invariants().unwrap();
        assert_eq!(s.remove(&second), Some(new_score + 1.0));
        assert_eq!(s.rank(&second), None);
        assert_eq!(s.score(&first), Some(twin_score + 100.0));
        s.check_invariants().unwrap();
    }
}

/// `update` in both encodings: decisions from the current score, skips, errors passed
/// on, and the set left as a model says.
#[test]
fn update_decides_from_the_current_score() {
    for n in [5usize, 1000] {
        let mut s = ZSet::new();
        let mut model = std::collections::BTreeMap::new();
        for i in 0..n {
            let m = format!("m{i}");
            s.add(m.as_bytes(), i as f64);
            model.insert(m, i as f64);
        }
        assert_eq!(s.is_listpack(), n <= MAX_LISTPACK_ENTRIES);
        let mut rng = fastrand::Rng::with_seed(n as u64);
        for _ in 0..3000 {
            let m = format!("m{}", rng.usize(0..n + n / 4));
            let delta = f64::from(rng.i32(-3..4));
            let cur = model.get(&m).copied();
            // Like ZADD GT INCR: add `delta` when that raises the score; refuse 0;
            // keep the score as it is for -3.
            let got = s.update(m.as_bytes(), |c| match c {
                Some(_) if delta == 0.0 => Err("zero"),
                Some(c) if delta == -3.0 => Ok(Some(c)),
                Some(c) => Ok((delta > 0.0).then_some(c + delta)),
                None => Ok(Some(delta)),
            });
            let want = match cur {
                Some(_) if delta == 0.0 => Err("zero"),
                Some(c) if delta == -3.0 => Ok(Some((AddOutcome::Unchanged, c))),
                Some(c) if delta > 0.0 => Ok(Some((AddOutcome::Updated, c + delta))),
                Some(_) => Ok(None),
                None if delta == 0.0 => Ok(Some((AddOutcome::Added, 0.0))),
                None => Ok(Some((AddOutcome::Added, delta))),
            };
            assert_eq!(got, want, "{m}");
            if let Ok(Some((_, score))) = want {
                model.insert(m, score);
            }
        }
        s.check_invariants().unwrap();
        for (m, score) in &model {
            assert_eq!(s.score(m.as_bytes()), Some(*score));
        }
        assert_eq!(s.len(), model.len());
    }
}

#[test]
fn ranges_and_counts() {
    let mut s = ZSet::new();
    for i in 0..1000 {
        s.add(format!("m{i:04}").as_bytes(), f64::from(i / 10));
    }
    s.check_invariants().unwrap();
    let r = ScoreRange {
        min: 5.0,
        max: 7.0,
        minex: false,
        maxex: true,
    };
    assert_eq!(s.first_in_score_range(&r), Some(50));
    assert_eq!(s.last_in_score_range(&r), Some(69));
    assert_eq!(s.count_in_score_range(&r), 20);
    assert_eq!(s.remove_score_range(&r), 20);
    s.check_invariants().unwrap();
    assert_eq!(s.remove_rank_range(0, 9), 10);
    s.check_invariants().unwrap();
    assert_eq!(s.len(), 970);
    assert!(!s.is_listpack());
}

#[test]
fn lex_ranges() {
    let s = z(&[("a", 0.0), ("b", 0.0), ("c", 0.0), ("d", 0.0)]);
    let r = LexRange {
        min: LexBound::Excl(b"a".to_vec()),
        max: LexBound::Incl(b"c".to_vec()),
    };
    assert_eq!(s.count_in_lex_range(&r), 2);
    let all = LexRange {
        min: LexBound::NegInf,
        max: LexBound::PosInf,
    };
    assert_eq!(s.count_in_lex_range(&all), 4);
    let none = LexRange {
        min: LexBound::PosInf,
        max: LexBound::NegInf,
    };
    assert_eq!(s.count_in_lex_range(&none), 0);
}

#[test]
fn removals_give_memory_back() {
    let mut s = ZSet::new();
    for i in 0..1000 {
        s.add(format!("m{i}").as_bytes(), f64::from(i % 7));
    }
    for i in (0..1000).step_by(2) {
        s.remove(format!("m{i}").as_bytes());
        if i % 50 == 0 {
            s.check_invariants().unwrap();
        }
    }
    s.remove_rank_range(10, 400);
    s.check_invariants().unwrap();
    assert_eq!(s.len(), 109);
    let Repr::Skiplist(l) = &s.repr else {
        panic!("a set that held 1000 members stays in the skiplist encoding");
    };
    assert!(
        l.dict.capacity() < 4 * 109 + 64,
        "dict kept {}",
        l.dict.capacity()
    );
    for i in 0..50 {
        s.add(format!("new{i}").as_bytes(), -1.0);
    }
    s.check_invariants().unwrap();
    assert_eq!(s.rank(b"new0"), Some(0));
}

#[test]
fn iteration_from_a_rank_past_the_end_is_empty_in_both_encodings() {
    let small = z(&[("a", 1.0), ("b", 2.0)]);
    let mut large = ZSet::new_skiplist();
    large.add(b"a", 1.0);
    large.add(b"b", 2.0);
    for s in [&small, &large] {
        for rev in [false, true] {
            assert_eq!(s.iter_from_rank(2, rev, 10).count(), 0);
            assert_eq!(s.iter_from_rank(usize::MAX, rev, 10).count(), 0);
        }
        let back: Vec<&[u8]> = s.iter_from_rank(1, true, 10).map(|(m, _)| m).collect();
        assert_eq!(back, [&b"b"[..], b"a"]);
    }
}

#[test]
fn encoding_follows_redis_thresholds() {
    let mut s = ZSet::new();
    for i in 0..128 {
        s.add(format!("{i}").as_bytes(), 0.0);
    }
    assert_eq!(s.encoding(), "listpack");
    s.add(b"one more", 0.0);
    assert_eq!(s.encoding(), "skiplist");
    s.remove_rank_range(0, 200);
    assert!(s.is_empty());
    assert_eq!(s.encoding(), "skiplist");
    let mut t = ZSet::new();
    t.add(&[b'x'; 65], 1.0);
    assert_eq!(t.encoding(), "skiplist");
}
