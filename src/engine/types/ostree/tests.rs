//! Tests of the order-statistic tree: ranks and keys against a sorted model, leaf filling at
//! the ends, random churn, and re-keying in place.

use super::node::*;
use super::*;

/// Elements are `(x / 4, x)`: keys tie in runs of up to four, so searches by key also
/// exercise the tie-breaking on values, and the order is `x`'s.
type T = OsTree<u64, u64>;

fn lt((ak, av): (u64, &u64), (bk, bv): (u64, &u64)) -> bool {
    ak < bk || (ak == bk && av < bv)
}

fn check(t: &T) {
    t.check(lt).unwrap();
}

fn insert(t: &mut T, x: u64) {
    t.insert(x / 4, x, |v| *v <= x);
}

fn rank(t: &T, x: u64) -> usize {
    let by_key = t.rank_of(x / 4, |v| *v < x);
    assert_eq!(by_key, t.rank_where(|k, v| lt((*k, v), (x / 4, &x))));
    by_key
}

#[test]
fn grows_and_shrinks_through_several_levels() {
    let mut t = OsTree::new();
    let mut rng = fastrand::Rng::with_seed(1);
    let mut model: Vec<u64> = Vec::new();
    for _ in 0..20_000 {
        let x = rng.u64(..1 << 40);
        if model.binary_search(&x).is_ok() {
            continue;
        }
        insert(&mut t, x);
        let at = model.partition_point(|y| *y < x);
        model.insert(at, x);
    }
    check(&t);
    assert!(matches!(t.root, Node::Inner(_)));
    for (i, x) in model.iter().enumerate().step_by(97) {
        assert_eq!(rank(&t, *x), i);
        assert_eq!(t.get(i), Some((x / 4, x)));
    }
    let from: Vec<u64> = t
        .iter_from(5000, false)
        .take(300)
        .map(|(_, v)| *v)
        .collect();
    assert_eq!(from, model[5000..5300]);
    let back: Vec<u64> = t.iter_from(5000, true).take(300).map(|(_, v)| *v).collect();
    let want: Vec<u64> = model[4701..=5000].iter().rev().copied().collect();
    assert_eq!(back, want);
    let mut gone = Vec::new();
    assert_eq!(
        t.remove_range(100, 7000, |k, v| {
            assert_eq!(k, v / 4);
            gone.push(v)
        }),
        7000
    );
    assert_eq!(gone, model[100..7100]);
    model.drain(100..7100);
    check(&t);
    while !model.is_empty() {
        let i = rng.usize(..model.len());
        let x = model.remove(i);
        assert_eq!(t.remove_at(i), Some((x / 4, x)));
        if model.len() % 1000 == 0 {
            check(&t);
        }
    }
    check(&t);
    assert!(t.is_empty());
    assert_eq!(t.iter_from(0, false).next(), None);
}

mod filling {
    use super::super::node::*;
    use super::super::*;

    fn leaves<K, V>(node: &Node<K, V>) -> usize {
        match node {
            Node::Leaf(_) => 1,
            Node::Inner(n) => n.kids.iter().map(leaves).sum(),
        }
    }

    /// Elements added in order, ascending or descending, leave the leaves behind the
    /// growing end three quarters full (48 of 64), not half.
    #[test]
    fn runs_at_one_end_fill_leaves_to_three_quarters() {
        let lt = |(ak, av): (u64, &u64), (bk, bv): (u64, &u64)| ak < bk || (ak == bk && av < bv);
        let n = 10_000u64;
        let mut up: OsTree<u64, u64> = OsTree::new();
        let mut down: OsTree<u64, u64> = OsTree::new();
        for x in 0..n {
            up.insert(x, x, |v| *v <= x);
            let y = n - 1 - x;
            down.insert(y, y, |v| *v <= y);
        }
        for t in [&up, &down] {
            t.check(lt).unwrap();
            let want = (n as usize).div_ceil(LEAF_MAX * 3 / 4);
            assert!(leaves(&t.root) <= want + 1, "{} leaves", leaves(&t.root));
            let all: Vec<u64> = t.iter_from(0, false).map(|(_, v)| *v).collect();
            assert_eq!(all, (0..n).collect::<Vec<_>>());
        }
        // Inserting in random order still splits in half.
        let mut mid: OsTree<u64, u64> = OsTree::new();
        let mut xs: Vec<u64> = (0..n).collect();
        fastrand::Rng::with_seed(3).shuffle(&mut xs);
        for k in xs {
            mid.insert(k, k, |v| *v <= k);
        }
        mid.check(lt).unwrap();
        assert!(leaves(&mid.root) > (n as usize).div_ceil(LEAF_MAX * 3 / 4) + 1);
    }
}

mod churn {
    use super::super::*;

    #[test]
    fn churn_keeps_invariants() {
        let lt = |(ak, av): (u64, &u64), (bk, bv): (u64, &u64)| ak < bk || (ak == bk && av < bv);
        let mut rng = fastrand::Rng::with_seed(5);
        for round in 0..40 {
            let mut t: OsTree<u64, u64> = OsTree::new();
            let mut model: Vec<u64> = Vec::new();
            for step in 0..600 {
                let x = rng.u64(..300);
                let found = model.binary_search(&x);
                if rng.u8(..50) == 0 && !model.is_empty() {
                    let a = rng.usize(..model.len());
                    let n = rng.usize(..40);
                    let mut gone = Vec::new();
                    let went = t.remove_range(a, n, |_, v| gone.push(v));
                    let want: Vec<u64> = model.drain(a..(a + n).min(model.len())).collect();
                    assert_eq!((went, gone), (want.len(), want));
                } else if rng.u8(..4) == 0 {
                    if let Ok(i) = found {
                        model.remove(i);
                        let r = t.rank_of(x / 8, |v| *v < x);
                        assert_eq!(t.remove_at(r), Some((x / 8, x)));
                    }
                } else if let Err(i) = found {
                    model.insert(i, x);
                    t.insert(x / 8, x, |v| *v <= x);
                }
                if let Err(e) = t.check(lt) {
                    panic!("round {round} step {step}: {e}\n{:?}", t.root);
                }
            }
        }
    }
}

mod rekey {
    use super::super::node::*;
    use super::super::*;

    /// The number of elements in the leaf holding rank `r`.
    fn leaf_len_at(t: &OsTree<u64, u64>, mut r: usize) -> usize {
        let mut node = &t.root;
        loop {
            match node {
                Node::Leaf(l) => return l.keys.len(),
                Node::Inner(n) => {
                    let (i, rest) = child_at_rank(n, r);
                    r = rest;
                    node = &n.kids[i];
                }
            }
        }
    }

    /// Issue 18: the element at the place a `(key, value)` probe finds may be another one
    /// with the same key (the value sought is absent and sorts just before it). `rekey`
    /// must change nothing then, wherever that place is: inside a leaf, or at the start of
    /// the next leaf (reached past a leaf's end through an equal separator).
    #[test]
    fn rekey_moves_only_the_value_it_was_asked_for() {
        let lt = |(ak, av): (u64, &u64), (bk, bv): (u64, &u64)| ak < bk || (ak == bk && av < bv);
        let mut t: OsTree<u64, u64> = OsTree::new();
        // Values are even; key = value / 20, so ten values share each key.
        let model: Vec<(u64, u64)> = (0..5000u64).map(|i| (i / 10, 2 * i)).collect();
        for &(k, v) in &model {
            t.insert(k, v, |w| *w <= v);
        }
        for &(k, v) in &model {
            // The odd value just below `v`: absent, and its place is `v`'s.
            let absent = v.wrapping_sub(1);
            for new_key in [k, k + 1, k + 300, 0] {
                let got = t.rekey(k, |w| w.cmp(&absent), new_key, |w| *w <= absent);
                assert_eq!(got, None, "({k}, {absent}) is absent; ({k}, {v}) is there");
            }
        }
        t.check(lt).unwrap();
        let all: Vec<(u64, u64)> = t.iter_from(0, false).map(|(k, v)| (k, *v)).collect();
        assert_eq!(all, model);
    }

    /// Changing keys, in place when the element stays inside its leaf and by removal and
    /// insertion otherwise, against a sorted model of `(key, value)` pairs.
    #[test]
    fn rekey_matches_a_model() {
        let lt = |(ak, av): (u64, &u64), (bk, bv): (u64, &u64)| ak < bk || (ak == bk && av < bv);
        let mut rng = fastrand::Rng::with_seed(11);
        let (mut in_place, mut moved, mut at_minimum) = (0, 0, 0);
        for round in 0..6 {
            let mut t: OsTree<u64, u64> = OsTree::new();
            let mut model: Vec<(u64, u64)> = Vec::new();
            let keys = [20, 400, 5000][round % 3];
            for v in 0..6000u64 {
                let k = rng.u64(..keys);
                let at = model.partition_point(|&(mk, mv)| (mk, mv) < (k, v));
                model.insert(at, (k, v));
                t.insert(k, v, |w| *w <= v);
            }
            // Thin it out, so that many leaves are near their minimum.
            while model.len() > 2000 {
                let i = rng.usize(..model.len());
                assert_eq!(t.remove_at(i), Some(model.remove(i)));
            }
            for step in 0..3000 {
                let i = rng.usize(..model.len());
                let (k, v) = model[i];
                let k2 = if rng.bool() {
                    k.saturating_add(rng.u64(1..4))
                } else {
                    rng.u64(..keys)
                };
                if k2 == k {
                    continue;
                }
                // Which way the removal goes: along the path found, or (when it leaves
                // the leaf underfull) by a new search.
                if leaf_len_at(&t, i) <= LEAF_MIN {
                    at_minimum += 1;
                }
                match t.rekey(k, |w| w.cmp(&v), k2, |w| *w <= v) {
                    Some(Moved::WithinLeaf) => in_place += 1,
                    Some(Moved::Reinserted) => moved += 1,
                    None => panic!("round {round} step {step}: ({k}, {v}) not found"),
                }
                model.remove(i);
                let at = model.partition_point(|&(mk, mv)| (mk, mv) < (k2, v));
                model.insert(at, (k2, v));
                // A probe that matches no element changes nothing.
                assert_eq!(
                    t.rekey(k2, |w| w.cmp(&(v + 1_000_000)), k, |w| *w <= v),
                    None
                );
                if step % 10 == 0 {
                    if let Err(e) = t.check(lt) {
                        panic!("round {round} step {step}: {e}");
                    }
                    let all: Vec<(u64, u64)> =
                        t.iter_from(0, false).map(|(k, v)| (k, *v)).collect();
                    assert_eq!(all, model);
                }
            }
            t.check(lt).unwrap();
            let all: Vec<(u64, u64)> = t.iter_from(0, false).map(|(k, v)| (k, *v)).collect();
            assert_eq!(all, model);
        }
        assert!(
            in_place > 1000 && moved > 1000 && at_minimum > 100,
            "{in_place} in place, {moved} moved, {at_minimum} from a leaf at its minimum"
        );
    }
}

#[test]
fn a_sorted_set_leaf_fits_two_kilobytes() {
    use crate::engine::types::small::SmallBytes;
    assert!(std::mem::size_of::<super::node::Leaf<f64, SmallBytes>>() <= 2048);
}
