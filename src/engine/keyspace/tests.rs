//! Unit tests of the keyspace: SCAN, background saves, entry sizes.

use std::cell::RefCell;
use std::rc::Rc;

use super::*;
use crate::engine::types::StrValue;

fn s(v: &str) -> Value {
    Value::Str(StrValue::from_slice(v.as_bytes()))
}

#[test]
fn scan_returns_every_key_present_throughout_despite_deletes() {
    let mut db = Db::default();
    for i in 0..1000 {
        db.set(format!("k{i}").as_bytes(), s("v"), false, 0);
    }
    let mut seen = std::collections::HashSet::new();
    let mut cursor = 0;
    let mut step = 0;
    loop {
        cursor = db.scan(cursor, 10, |k, _| {
            seen.insert(k.to_vec());
        });
        // Delete and add keys while scanning: k{odd < 500} go away, new keys come in.
        if step < 250 {
            db.remove(format!("k{}", 2 * step + 1).as_bytes());
            db.set(format!("new{step}").as_bytes(), s("v"), false, 0);
        }
        step += 1;
        if cursor == 0 {
            break;
        }
    }
    for i in 0..1000 {
        if i % 2 == 0 || i >= 500 {
            assert!(seen.contains(format!("k{i}").as_bytes()), "missed k{i}");
        }
    }
}

type Saved = Rc<RefCell<Vec<(Key, String, Option<i64>)>>>;

struct Record(Saved);

impl EntrySink for Record {
    fn put(&mut self, key: &[u8], entry: &Entry) {
        let value = format!("{:?}", entry.value);
        self.0
            .borrow_mut()
            .push((key.to_vec(), value, entry.expire_at()));
    }
}

fn rows<'a>(
    entries: impl Iterator<Item = (&'a [u8], &'a Entry)>,
) -> Vec<(Key, String, Option<i64>)> {
    let mut out: Vec<_> = entries
        .map(|(k, e)| (k.to_vec(), format!("{:?}", e.value), e.expire_at()))
        .collect();
    out.sort();
    out
}

/// A save started on a database gets exactly the entries it had then, whatever writes,
/// deadlines, removals, re-insertions and flushes run between its steps; an entry is
/// written once, and a second save gets the database as it is at its own start.
#[test]
fn a_save_gets_the_entries_of_its_start() {
    let mut rng = fastrand::Rng::with_seed(7);
    let mut db = Db::default();
    // 40 saves whose numbers run out half way (see `next_save_epoch`).
    let mut epoch = u16::MAX - 20;
    for _ in 0..40 {
        epoch = next_save_epoch(epoch, std::slice::from_mut(&mut db));
        for _ in 0..rng.usize(0..300) {
            let k = format!("k{}", rng.u32(..400)).into_bytes();
            db.set(&k, s("start"), false, 0);
        }
        let want = rows(db.iter());
        let saved = Saved::default();
        db.start_save(epoch, Box::new(Record(saved.clone())));
        while db.save_pending() {
            for _ in 0..rng.usize(0..6) {
                let k = format!("k{}", rng.u32(..500)).into_bytes();
                match rng.u32(..100) {
                    0..=24 => {
                        db.set(&k, s("w"), rng.bool(), 1);
                    }
                    25..=44 => {
                        db.remove(&k);
                    }
                    45..=59 => {
                        db.set_expire(&k, rng.bool().then_some(99));
                    }
                    60..=74 => {
                        if let Some(e) = db.get_raw_mut(&k) {
                            e.value = s("changed");
                        }
                    }
                    75..=89 => db.insert_entry(k, Entry::new(s("i"), Some(5), 1)),
                    90..=91 => db.clear(),
                    _ => {
                        db.get_raw(&k);
                    }
                }
            }
            db.save_step(rng.usize(1..9));
        }
        let (_, written) = db.end_save().expect("a save");
        let mut got: Vec<_> = saved.borrow().clone();
        got.sort();
        assert_eq!(got.len() as u64, written);
        assert_eq!(got, want, "save {epoch}");
        db.check_invariants().unwrap();
    }
}

#[test]
fn an_entry_is_40_bytes() {
    // The value's 24, the deadline's 8, and the access time, save mark and LFU
    // counter in the last 8 (see `Entry`).
    assert_eq!(std::mem::size_of::<Entry>(), 40);
    // With its key, one entry of the table's segments.
    assert_eq!(std::mem::size_of::<(Stored, Entry)>(), 56);
}

#[test]
fn set_without_keep_ttl_persists_the_key() {
    let mut db = Db::default();
    db.set(b"a", s("1"), false, 0);
    db.set_expire(b"a", Some(100));
    assert_eq!(db.volatile_len(), 1);
    db.set(b"a", s("2"), true, 0);
    assert_eq!(db.volatile_len(), 1);
    db.set(b"a", s("3"), false, 0);
    assert_eq!(db.volatile_len(), 0);
    assert_eq!(db.get_raw(b"a").unwrap().expire_at(), None);
}
