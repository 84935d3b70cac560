//! Unit tests of [`HashValue`]: order, conversions, loaders, and the limits from config.

use super::*;

fn limits(entries: usize, value: usize) -> HashLimits {
    HashLimits {
        max_listpack_entries: entries,
        max_listpack_value: value,
    }
}

#[test]
fn small_hash_keeps_listpack_order() {
    let mut h = HashValue::default();
    let l = HashLimits::default();
    for f in ["a", "b", "c", "d"] {
        assert!(h.insert(f.into(), b"1".to_vec(), l));
    }
    assert!(!h.insert(b"b".to_vec(), b"2".to_vec(), l));
    assert!(h.remove(b"a"));
    assert!(!h.remove(b"zz"));
    let fields: Vec<&[u8]> = h.iter().map(|(f, _)| f).collect();
    assert_eq!(fields, [&b"b"[..], b"c", b"d"]);
    assert_eq!(h.get(b"b"), Some(&b"2"[..]));
    assert_eq!(h.encoding(), "listpack");
}

#[test]
fn converts_on_too_many_fields_or_long_strings_and_never_back() {
    let mut h = HashValue::default();
    let l = limits(3, 8);
    for f in ["a", "b", "c"] {
        h.insert(f.into(), b"v".to_vec(), l);
    }
    assert!(!h.is_big());
    h.insert(b"d".to_vec(), b"v".to_vec(), l);
    assert!(h.is_big());
    h.remove(b"d");
    h.remove(b"c");
    assert_eq!(h.encoding(), "hashtable");

    let mut h = HashValue::default();
    h.insert(b"f".to_vec(), vec![b'x'; 9], l);
    assert!(h.is_big());

    let mut h = HashValue::default();
    h.insert(b"f".to_vec(), b"v".to_vec(), l);
    h.convert_for_args([1, 8], l);
    assert!(!h.is_big());
    h.convert_for_args([1, 9], l);
    assert!(h.is_big());
}

#[test]
fn limits_come_from_config_text() {
    let mut values = BTreeMap::new();
    assert_eq!(HashLimits::from_config(&values), HashLimits::default());
    values.insert("hash-max-listpack-entries".to_string(), "128".to_string());
    values.insert("hash-max-listpack-value".to_string(), "bad".to_string());
    assert_eq!(HashLimits::from_config(&values), limits(128, 64));
}

fn pairs(h: &HashValue) -> Vec<(String, String)> {
    h.iter()
        .map(|(f, v)| {
            (
                String::from_utf8_lossy(f).into_owned(),
                String::from_utf8_lossy(v).into_owned(),
            )
        })
        .collect()
}

fn p(f: &str, v: &str) -> (String, String) {
    (f.to_string(), v.to_string())
}

#[test]
fn updates_keep_their_place_and_deletes_close_the_gap() {
    let l = HashLimits::default();
    let mut h = HashValue::default();
    for (f, v) in [("a", "1"), ("b", "22"), ("c", "333"), ("d", "4")] {
        assert!(h.insert(f.into(), v.into(), l));
    }
    // Same length, longer, shorter, empty: each stays where it was.
    assert!(!h.insert(b"a".to_vec(), b"9".to_vec(), l));
    assert!(!h.insert(b"b".to_vec(), vec![b'x'; 64], l));
    assert!(!h.insert(b"c".to_vec(), b"".to_vec(), l));
    let long = "x".repeat(64);
    assert_eq!(
        pairs(&h),
        [p("a", "9"), p("b", &long), p("c", ""), p("d", "4")]
    );
    assert!(h.remove(b"b"));
    assert!(h.remove(b"d"));
    assert!(h.insert(b"e".to_vec(), b"5".to_vec(), l));
    assert_eq!(pairs(&h), [p("a", "9"), p("c", ""), p("e", "5")]);
    assert_eq!(h.len(), 3);
    assert_eq!(h.get_index(1), Some((&b"c"[..], &b""[..])));
    assert_eq!(h.get_index(3), None);
    assert!(h.contains(b"c") && !h.contains(b"b"));
    assert_eq!(h.packed_bytes(), Some(2 + 2 + 2 + 1 + 2 + 2));
    h.check_invariants(l).unwrap();
}

#[test]
fn conversion_at_either_threshold_keeps_every_pair() {
    // Entries: the 4th field of a 3-field limit converts, after it is written.
    let l = limits(3, 8);
    let mut h = HashValue::default();
    for f in ["a", "b", "c"] {
        h.insert(f.into(), f.into(), l);
        h.check_invariants(l).unwrap();
    }
    assert!(!h.is_big());
    h.insert(b"d".to_vec(), b"d".to_vec(), l);
    assert!(h.is_big());
    assert_eq!(h.packed_bytes(), None);
    assert_eq!(
        pairs(&h),
        [p("a", "a"), p("b", "b"), p("c", "c"), p("d", "d")]
    );
    h.check_invariants(l).unwrap();
    // Value: an update of an existing field with a long value converts too.
    let mut h = HashValue::default();
    h.insert(b"a".to_vec(), b"1".to_vec(), l);
    h.insert(b"b".to_vec(), b"2".to_vec(), l);
    assert!(!h.insert(b"a".to_vec(), vec![b'v'; 9], l));
    assert!(h.is_big());
    assert_eq!(h.len(), 2);
    assert_eq!(h.get(b"a"), Some(&[b'v'; 9][..]));
    assert_eq!(h.get(b"b"), Some(&b"2"[..]));
    // A long field converts as a long value does.
    let mut h = HashValue::default();
    h.insert(vec![b'f'; 9], b"1".to_vec(), l);
    assert!(h.is_big());
}

#[test]
fn raised_limits_pack_strings_of_any_length() {
    let l = limits(4, 1 << 20);
    let mut h = HashValue::default();
    let lens = [0usize, 127, 128, 16_383, 16_384, 300_000];
    for (i, n) in lens.iter().enumerate() {
        h.insert(vec![b'f'; i], vec![b'v'; *n], l);
        if h.is_big() {
            break;
        }
    }
    // Four fields packed, the fifth converted them.
    assert!(h.is_big());
    assert_eq!(h.len(), 5);
    let mut h = HashValue::default();
    for n in [128usize, 16_384, 300_000] {
        h.insert(n.to_string().into_bytes(), vec![b'v'; n], l);
    }
    assert!(!h.is_big());
    h.check_invariants(l).unwrap();
    for n in [128usize, 16_384, 300_000] {
        assert_eq!(h.get(n.to_string().as_bytes()).map(<[u8]>::len), Some(n));
    }
    assert!(h.remove(b"16384"));
    assert_eq!(h.get(b"300000").map(<[u8]>::len), Some(300_000));
    h.check_invariants(l).unwrap();
}

#[test]
fn from_pairs_round_trips_iter_in_both_encodings() {
    let l = HashLimits::default();
    let mut h = HashValue::default();
    for i in 0..20 {
        h.insert(
            format!("f{i}").into_bytes(),
            format!("v{i}").into_bytes(),
            l,
        );
    }
    h.remove(b"f3");
    let owned = |h: &HashValue| -> Vec<(Vec<u8>, Vec<u8>)> {
        h.iter().map(|(f, v)| (f.to_vec(), v.to_vec())).collect()
    };
    let (again, repeated) = HashValue::from_pairs(owned(&h), false);
    assert!(!repeated);
    assert_eq!(owned(&again), owned(&h));
    assert_eq!(again, h);
    let (big, _) = HashValue::from_pairs(owned(&h), true);
    assert!(big.is_big());
    assert_eq!(owned(&big), owned(&h));
    assert_ne!(big, h, "the encoding is part of equality");
    // A repeated field keeps its first place and takes the last value.
    let twice = vec![
        (b"a".to_vec(), b"1".to_vec()),
        (b"b".to_vec(), b"2".to_vec()),
        (b"a".to_vec(), b"3".to_vec()),
    ];
    let (h, repeated) = HashValue::from_pairs(twice, false);
    assert!(repeated);
    assert_eq!(pairs(&h), [p("a", "3"), p("b", "2")]);
    h.check_invariants(l).unwrap();
}

#[test]
fn equality_ignores_order_as_before_and_debug_shows_pairs() {
    let l = HashLimits::default();
    let mut a = HashValue::default();
    let mut b = HashValue::default();
    a.insert(b"x".to_vec(), b"1".to_vec(), l);
    a.insert(b"y".to_vec(), b"2".to_vec(), l);
    b.insert(b"y".to_vec(), b"2".to_vec(), l);
    b.insert(b"x".to_vec(), b"1".to_vec(), l);
    assert_eq!(a, b);
    b.insert(b"x".to_vec(), b"9".to_vec(), l);
    assert_ne!(a, b);
    let text = format!("{a:?}");
    assert!(
        text.contains("listpack") && text.contains("[120]: [49]"),
        "{text}"
    );
}

#[test]
fn positions_pick_pairs_in_the_order_asked() {
    let l = HashLimits::default();
    let mut h = HashValue::default();
    for f in ["a", "b", "c"] {
        h.insert(f.into(), f.into(), l);
    }
    let got: Vec<&[u8]> = h.at_positions(&[2, 0, 2, 7]).iter().map(|p| p.0).collect();
    assert_eq!(got, [&b"c"[..], b"a", b"c"]);
    let one: Vec<&[u8]> = h.at_positions(&[1]).iter().map(|p| p.0).collect();
    assert_eq!(one, [&b"b"[..]]);
}

#[test]
fn a_hash_is_two_words() {
    // A fat pointer: the pack's count is in its buffer, so a hash fits a 24-byte `Value`.
    assert_eq!(std::mem::size_of::<HashValue>(), 16);
}
