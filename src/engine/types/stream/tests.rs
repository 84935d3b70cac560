//! Tests of the stream type: ID parsing, listpack nodes and trimming, and radix-tree node counts.

use super::*;

fn f(v: &str) -> Fields {
    vec![(b"f".to_vec(), v.as_bytes().to_vec())]
}

#[test]
fn ids_parse_like_redis() {
    let p = |s: &str| parse_id(s.as_bytes(), 0, true, false).map(|p| p.id);
    assert_eq!(p("1-2"), Some(StreamId::new(1, 2)));
    assert_eq!(p("5"), Some(StreamId::new(5, 0)));
    assert_eq!(p("-"), None);
    assert_eq!(p("1-"), None);
    assert_eq!(p("-1"), None);
    assert_eq!(
        p("18446744073709551615-18446744073709551615"),
        Some(StreamId::MAX)
    );
    assert_eq!(p("18446744073709551616"), None);
    assert_eq!(p("007-1"), Some(StreamId::new(7, 1)));
    let star = parse_id(b"5-*", 0, true, true).unwrap();
    assert!(!star.seq_given);
}

#[test]
fn entries_appended_below_the_tail_nodes_master_stay_in_that_node() {
    let id = |ms| StreamId::new(ms, 0);
    let exact = |strategy| Trim {
        strategy,
        approx: false,
        limit: 0,
    };
    let mut s = Stream::new();
    s.append(id(10), f("a"), 100, 4096).unwrap();
    s.append(id(20), f("b"), 100, 4096).unwrap();
    assert!(s.delete(id(20)));
    // The exact trim flags 10-0 deleted inside the node, which stays.
    assert_eq!(s.trim(&exact(TrimStrategy::MinId(id(15)))), 1);
    assert_eq!((s.len(), s.node_count()), (0, 1));
    s.last_id = id(5); // XSETID 5-0
    for ms in [6, 7, 8, 30] {
        s.append(id(ms), f("c"), 100, 4096).unwrap();
        s.check_invariants().unwrap();
    }
    assert_eq!(s.node_count(), 1);
    assert_eq!(s.trim(&exact(TrimStrategy::MaxLen(2))), 2);
    s.check_invariants().unwrap();
    let left: Vec<StreamId> = s.entries.keys().copied().collect();
    assert_eq!(left, vec![id(8), id(30)]);
    assert!(s.delete(id(8)) && s.delete(id(30)));
    assert_eq!(s.node_count(), 0);
    assert!(s.strays.is_empty());
    s.check_invariants().unwrap();
}

#[test]
fn nodes_split_by_entry_count_and_trim_by_node() {
    let mut s = Stream::new();
    for i in 1..=25u64 {
        s.append(StreamId::new(i, 0), f("v"), 10, 4096).unwrap();
    }
    assert_eq!(s.node_count(), 3);
    let t = Trim {
        strategy: TrimStrategy::MaxLen(12),
        approx: true,
        limit: 0,
    };
    assert_eq!(s.trim(&t), 10);
    assert_eq!(s.len(), 15);
    let t = Trim {
        strategy: TrimStrategy::MaxLen(12),
        approx: false,
        limit: 0,
    };
    assert_eq!(s.trim(&t), 3);
    assert_eq!(s.first_id, StreamId::new(14, 0));
}

#[test]
fn rax_nodes_of_small_trees() {
    let mut s = Stream::new();
    assert_eq!(s.rax_nodes(), 1);
    s.append(StreamId::new(1, 0), f("v"), 1, 4096).unwrap();
    assert_eq!(s.rax_nodes(), 2);
    s.append(StreamId::new(2, 0), f("v"), 1, 4096).unwrap();
    // A chain of 7 shared bytes, the branch, and a leaf under each side.
    assert_eq!(s.rax_nodes(), 6);
}
