//! The list's unit and property tests.

use super::*;

fn list(items: &[&str]) -> ListValue {
    items.iter().map(|s| s.as_bytes().to_vec()).collect()
}

fn strs(l: &ListValue) -> Vec<String> {
    l.iter()
        .map(|e| String::from_utf8_lossy(e).into_owned())
        .collect()
}

#[test]
fn range_clamps_like_redis_even_at_the_i64_limits() {
    let l = list(&["a", "b", "c"]);
    assert_eq!(l.range_bounds(0, -1), Some((0, 2)));
    assert_eq!(l.range_bounds(-100, 1), Some((0, 1)));
    assert_eq!(l.range_bounds(0, i64::MAX), Some((0, 2)));
    assert_eq!(l.range_bounds(i64::MIN, i64::MIN), None);
    assert_eq!(l.range_bounds(i64::MIN, i64::MAX), Some((0, 2)));
    assert_eq!(l.range_bounds(2, 1), None);
    assert_eq!(l.range_bounds(3, 5), None);
}

#[test]
fn trim_keeps_the_selected_range() {
    let mut l = list(&["a", "b", "c", "d", "e"]);
    assert_eq!(l.trim(1, -2), 2);
    assert_eq!(strs(&l), ["b", "c", "d"]);
    assert_eq!(l.trim(5, 1), 3);
    assert!(l.is_empty());
}

#[test]
fn remove_counts_from_either_end() {
    let mut l = list(&["a", "b", "a", "c", "a"]);
    assert_eq!(l.remove(-2, b"a"), 2);
    assert_eq!(strs(&l), ["a", "b", "c"]);
    let mut l = list(&["a", "b", "a", "c", "a"]);
    assert_eq!(l.remove(1, b"a"), 1);
    assert_eq!(strs(&l), ["b", "a", "c", "a"]);
    assert_eq!(l.remove(i64::MIN, b"a"), 2);
    assert_eq!(strs(&l), ["b", "c"]);
}

#[test]
fn positions_follow_rank_count_and_maxlen() {
    let l = list(&["a", "b", "c", "a", "b", "c", "a"]);
    assert_eq!(l.positions(b"a", 1, 1, 0), [0]);
    assert_eq!(l.positions(b"a", -1, 0, 0), [6, 3, 0]);
    assert_eq!(l.positions(b"a", 2, 0, 0), [3, 6]);
    assert_eq!(l.positions(b"a", 1, 0, 2), [0]);
    assert_eq!(l.positions(b"a", -2, 1, 3), Vec::<usize>::new());
    assert_eq!(l.positions(b"a", i64::MAX, 0, 0), Vec::<usize>::new());
    // Redis 7.0.15: RANK i64::MIN overflows, so every match is reported despite COUNT 1.
    assert_eq!(l.positions(b"a", i64::MIN, 1, 0), [6, 3, 0]);
}

#[test]
fn pop_many_never_exceeds_the_length() {
    let mut l = list(&["a", "b", "c"]);
    assert_eq!(l.pop_many(End::Right, u64::MAX), [b"c", b"b", b"a"]);
    assert!(l.is_empty());
}

/// The structure's invariants: no empty node, the counts add up to the length, and no
/// node holds more than the node size unless it holds one element.
fn check(l: &ListValue) {
    let nodes = &l.inner.nodes;
    assert!(nodes.iter().all(|n| n.count() > 0), "an empty node");
    assert_eq!(nodes.iter().map(|n| n.count()).sum::<usize>(), l.len());
    for n in nodes {
        assert!(
            n.count() == 1 || n.used() <= node::NODE_BYTES,
            "a node of {} bytes",
            n.used()
        );
    }
    assert_eq!(l.iter().len(), l.len());
}

#[test]
fn pushes_fill_nodes_from_both_ends_and_large_elements_take_their_own() {
    let mut l = ListValue::new();
    for i in 0..3_000 {
        l.push(
            if i % 2 == 0 { End::Left } else { End::Right },
            format!("item:{i}").into_bytes(),
        );
    }
    check(&l);
    // Each element 11-12 bytes with its lengths: about 700 to an 8 KB node.
    let (nodes, bytes) = l.nodes();
    assert!((5..=8).contains(&nodes), "{nodes} nodes");
    assert!(
        bytes <= nodes * node::NODE_BYTES,
        "{bytes} bytes in {nodes} nodes"
    );
    assert_eq!(l.get(0), Some(&b"item:2998"[..]));
    assert_eq!(l.get(-1), Some(&b"item:2999"[..]));
    l.push(End::Right, vec![b'x'; 20_000]);
    l.push(End::Right, b"after".to_vec());
    check(&l);
    assert_eq!(l.get(-2).map(<[u8]>::len), Some(20_000));
    assert_eq!(l.pop(End::Right), Some(b"after".to_vec()));
    assert_eq!(l.pop(End::Right).map(|v| v.len()), Some(20_000));
    check(&l);
}

#[test]
fn a_small_list_is_one_small_block() {
    let l = list(&["e0", "e1", "e2", "e3", "e4", "e5", "e6", "e7", "e8", "e9"]);
    // Ten 4-byte elements in a 64-byte block, and one slot of nodes.
    assert_eq!(l.nodes(), (1, 64));
    assert_eq!(l.inner.nodes.capacity(), 1);
    // A slot of the nodes' deque: 32 bytes, a size class of its own.
    assert_eq!(std::mem::size_of::<node::Node>(), 32);
}

#[test]
fn popping_gives_memory_back() {
    let mut l = ListValue::new();
    for i in 0..100_000 {
        l.push(End::Right, format!("v{i}").into_bytes());
    }
    let (_, full) = l.nodes();
    for _ in 0..99_990 {
        l.pop(End::Left);
    }
    check(&l);
    let (nodes, bytes) = l.nodes();
    assert_eq!(nodes, 1);
    assert!(bytes <= 256, "{bytes} bytes kept of {full}");
}

#[test]
fn equality_ignores_how_elements_are_split_into_nodes() {
    let mut a = ListValue::new();
    let mut b = ListValue::new();
    for i in 0..2_000 {
        a.push(End::Right, format!("{i}").into_bytes());
        b.push(End::Left, format!("{}", 1_999 - i).into_bytes());
    }
    assert_eq!(a, b);
    assert_eq!(a.clone(), b);
    b.set(1_000, b"other".to_vec());
    assert_ne!(a, b);
}

/// Property tests (proptest is a native dev-dependency only).
#[cfg(not(target_arch = "wasm32"))]
mod model {
    use super::*;
    use proptest::prelude::*;
    use std::collections::VecDeque;

    #[derive(Debug, Clone)]
    enum Op {
        Push(bool, Vec<u8>),
        Pop(bool),
        PopMany(bool, u64),
        Get(i64),
        Set(i64, Vec<u8>),
        Range(i64, i64),
        Trim(i64, i64),
        Insert(bool, u8, Vec<u8>),
        Remove(i64, u8),
        Positions(u8, i64, i64, i64),
    }

    /// Mostly short elements, some of up to 3 KB (a few to a node), from a small alphabet
    /// so that pivots and LREM find matches.
    fn element() -> impl Strategy<Value = Vec<u8>> {
        prop_oneof![
            6 => (0u8..6).prop_map(|c| vec![b'a' + c]),
            3 => proptest::collection::vec(any::<u8>(), 0..40),
            1 => (100usize..3_000, any::<u8>()).prop_map(|(n, b)| vec![b; n]),
        ]
    }

    fn op() -> impl Strategy<Value = Op> {
        let index = -40i64..40;
        prop_oneof![
            8 => (any::<bool>(), element()).prop_map(|(l, v)| Op::Push(l, v)),
            3 => any::<bool>().prop_map(Op::Pop),
            1 => (any::<bool>(), 0u64..8).prop_map(|(l, n)| Op::PopMany(l, n)),
            2 => index.clone().prop_map(Op::Get),
            2 => (index.clone(), element()).prop_map(|(i, v)| Op::Set(i, v)),
            2 => (index.clone(), index.clone()).prop_map(|(a, b)| Op::Range(a, b)),
            1 => (0i64..3, -3i64..0).prop_map(|(a, b)| Op::Trim(a, b)),
            2 => (any::<bool>(), 0u8..6, element()).prop_map(|(a, p, v)| Op::Insert(a, p, v)),
            1 => (-3i64..4, 0u8..6).prop_map(|(c, v)| Op::Remove(c, v)),
            1 => (0u8..6, prop_oneof![1i64..4, -3i64..0], 0i64..4, 0i64..20)
                .prop_map(|(e, r, c, m)| Op::Positions(e, r, c, m)),
        ]
    }

    fn resolve(len: usize, i: i64) -> Option<usize> {
        let j = if i < 0 { len as i64 + i } else { i };
        (0..len as i64).contains(&j).then_some(j as usize)
    }

    fn bounds(len: usize, s: i64, e: i64) -> Option<(usize, usize)> {
        let len = len as i64;
        let s = if s < 0 { (len + s).max(0) } else { s };
        let e = (if e < 0 { len + e } else { e }).min(len - 1);
        (s <= e && s < len).then_some((s as usize, e as usize))
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(300))]

        /// Every operation answers as a `VecDeque` does, and the nodes keep their
        /// invariants, across node boundaries, splits and removals.
        #[test]
        fn a_list_behaves_as_a_deque(ops in proptest::collection::vec(op(), 1..300)) {
            let mut l = ListValue::new();
            let mut m: VecDeque<Vec<u8>> = VecDeque::new();
            for op in ops {
                match op {
                    Op::Push(left, v) => if left {
                        l.push(End::Left, v.clone());
                        m.push_front(v);
                    } else {
                        l.push(End::Right, v.clone());
                        m.push_back(v);
                    },
                    Op::Pop(left) => if left {
                        prop_assert_eq!(l.pop(End::Left), m.pop_front());
                    } else {
                        prop_assert_eq!(l.pop(End::Right), m.pop_back());
                    },
                    Op::PopMany(left, n) => {
                        let want: Vec<Vec<u8>> = (0..n)
                            .map_while(|_| if left { m.pop_front() } else { m.pop_back() })
                            .collect();
                        prop_assert_eq!(l.pop_many(if left { End::Left } else { End::Right }, n), want);
                    }
                    Op::Get(i) => {
                        prop_assert_eq!(l.get(i), resolve(m.len(), i).map(|j| &m[j][..]));
                    }
                    Op::Set(i, v) => {
                        let at = resolve(m.len(), i);
                        prop_assert_eq!(l.set(i, v.clone()), at.is_some());
                        if let Some(j) = at {
                            m[j] = v;
                        }
                    }
                    Op::Range(s, e) => {
                        let want: Vec<&[u8]> = match bounds(m.len(), s, e) {
                            Some((a, b)) => m.range(a..=b).map(Vec::as_slice).collect(),
                            None => Vec::new(),
                        };
                        prop_assert_eq!(l.range(s, e).collect::<Vec<_>>(), want);
                    }
                    Op::Trim(s, e) => {
                        let before = m.len();
                        match bounds(m.len(), s, e) {
                            Some((a, b)) => {
                                m.truncate(b + 1);
                                m.drain(..a);
                            }
                            None => m.clear(),
                        }
                        prop_assert_eq!(l.trim(s, e), before - m.len());
                    }
                    Op::Insert(after, p, v) => {
                        let pivot = vec![b'a' + p];
                        let at = m.iter().position(|x| *x == pivot);
                        prop_assert_eq!(l.insert_at_pivot(after, &pivot, v.clone()), at.is_some());
                        if let Some(j) = at {
                            m.insert(j + usize::from(after), v);
                        }
                    }
                    Op::Remove(count, v) => {
                        let target = vec![b'a' + v];
                        let limit = count.unsigned_abs() as usize;
                        let mut hits: Vec<usize> = m.iter().enumerate()
                            .filter(|(_, x)| **x == target).map(|(i, _)| i).collect();
                        if count < 0 {
                            hits.reverse();
                        }
                        if count != 0 {
                            hits.truncate(limit);
                        }
                        hits.sort_unstable();
                        for &i in hits.iter().rev() {
                            m.remove(i);
                        }
                        prop_assert_eq!(l.remove(count, &target), hits.len());
                    }
                    Op::Positions(e, rank, count, maxlen) => {
                        let target = vec![b'a' + e];
                        let len = m.len();
                        let limit = if maxlen == 0 { len } else { (maxlen as usize).min(len) };
                        let order: Vec<usize> = if rank < 0 {
                            (0..len).rev().take(limit).collect()
                        } else {
                            (0..len).take(limit).collect()
                        };
                        let mut want: Vec<usize> = order.into_iter()
                            .filter(|&i| m[i] == target)
                            .skip(rank.unsigned_abs() as usize - 1)
                            .collect();
                        if count != 0 {
                            want.truncate(count as usize);
                        }
                        prop_assert_eq!(l.positions(&target, rank, count, maxlen), want);
                    }
                }
                check(&l);
                prop_assert_eq!(l.len(), m.len());
            }
            prop_assert!(l.iter().eq(m.iter().map(Vec::as_slice)));
            prop_assert!(l.iter().rev().eq(m.iter().rev().map(Vec::as_slice)));
            // Both ends at once meet in the middle without reading an element twice.
            let mut it = l.iter();
            let mut both = Vec::new();
            let mut back = Vec::new();
            loop {
                match (it.next(), it.next_back()) {
                    (Some(a), Some(b)) => { both.push(a); back.push(b); }
                    (Some(a), None) => { both.push(a); break; }
                    _ => break,
                }
            }
            both.extend(back.into_iter().rev());
            prop_assert!(both.into_iter().eq(m.iter().map(Vec::as_slice)));
        }
    }
}
