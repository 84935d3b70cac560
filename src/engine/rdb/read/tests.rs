//! Unit tests of the object reader; payloads recorded from Redis 7.0.15 are tested
//! against a real server in `tests/differential/restore.rs`.

use super::*;

fn read(bytes: &[u8]) -> Result<Value, LoadError> {
    let mut r = Reader::new(&bytes[1..]);
    read_value(&mut r, bytes[0], &LoadOptions::default())
}

#[test]
fn empty_objects_are_empty_keys() {
    assert_eq!(read(b"\x01\x00"), Err(LoadError::Empty));
    assert_eq!(read(b"\x02\x00"), Err(LoadError::Empty));
    assert_eq!(read(b"\x04\x00"), Err(LoadError::Empty));
    assert_eq!(read(b"\x12\x00"), Err(LoadError::Empty));
}

#[test]
fn modules_and_unknown_types_are_named() {
    assert_eq!(read(b"\x07\x01"), Err(LoadError::Module));
    assert_eq!(read(b"\x08\x01"), Err(LoadError::UnknownType(8)));
    assert_eq!(read(b"\x15\x01"), Err(LoadError::UnknownType(21)));
}

#[test]
fn plain_sets_refuse_duplicates_and_convert() {
    let Ok(Value::Set(s)) = read(b"\x02\x02\xc0\x05\xc0\x03") else {
        panic!("a set");
    };
    assert_eq!(s.encoding(), "intset");
    assert_eq!(s.iter().collect::<Vec<_>>(), [&b"3"[..], b"5"]);
    assert_eq!(read(b"\x02\x02\xc0\x05\xc0\x05"), Err(LoadError::Bad));
    assert_eq!(read(b"\x02\x02\x01a\x01a"), Err(LoadError::Bad));
    let Ok(Value::Set(s)) = read(b"\x02\x02\xc0\x05\x01a") else {
        panic!("a set");
    };
    assert_eq!(s.encoding(), "hashtable");
}

#[test]
fn plain_zsets_shrink_and_refuse_nan_and_duplicates() {
    // Type 3: ASCII scores; 253 is NaN.
    let Ok(Value::ZSet(z)) = read(b"\x03\x02\x01a\x031.5\x01b\xfe") else {
        panic!("a zset");
    };
    assert_eq!(z.encoding(), "listpack");
    assert_eq!(z.score(b"b"), Some(f64::INFINITY));
    assert_eq!(read(b"\x03\x01\x01a\xfd"), Err(LoadError::Bad));
    assert_eq!(read(b"\x03\x02\x01a\x011\x01a\x012"), Err(LoadError::Bad));
    let mut long = b"\x05\x01\x40\x41".to_vec();
    long.extend([b'm'; 65]);
    long.extend(2.5f64.to_le_bytes());
    let Ok(Value::ZSet(z)) = read(&long) else {
        panic!("a zset");
    };
    assert_eq!(z.encoding(), "skiplist");
}

#[test]
fn plain_hashes_convert_on_long_strings_and_counts() {
    let opts = LoadOptions {
        hash: HashLimits {
            max_listpack_entries: 1,
            max_listpack_value: 64,
        },
        ..LoadOptions::default()
    };
    let two = b"\x02\x01a\x011\x01b\x012";
    let Ok(Value::Hash(h)) = read_value(&mut Reader::new(two), kind::HASH, &opts) else {
        panic!("a hash");
    };
    assert_eq!(h.encoding(), "hashtable");
    let Ok(Value::Hash(h)) = read(b"\x04\x02\x01a\x011\x01b\x012") else {
        panic!("a hash");
    };
    assert_eq!(h.encoding(), "listpack");
    assert_eq!(read(b"\x04\x02\x01a\x011\x01a\x012"), Err(LoadError::Bad));
}

#[test]
fn truncations_are_refused_at_every_length() {
    let full = b"\x04\x02\x01a\x011\x01b\x012";
    for cut in 1..full.len() {
        assert_eq!(read(&full[..cut]), Err(LoadError::Bad), "cut at {cut}");
    }
}
