//! Canonical text dumps of a dataset, for tests and diagnostics.

use super::super::keyspace::{Db, Entry};
use super::super::types::Value;

/// A canonical text of a dataset, equal for two datasets exactly when they hold the same
/// keys, values, encodings and deadlines: keys sorted, members of unordered encodings
/// sorted, bytes escaped. For tests and diagnostics. **O(N log N).**
pub fn canonical_dump(dbs: &[Db]) -> String {
    dump(dbs, true)
}

/// [`canonical_dump`] without encodings: equal when two datasets hold the same data and
/// deadlines, as seen by commands that do not depend on the encoding (members of sets and
/// fields of hashes compare as sets). This is what replaying a log guarantees: like
/// Redis's append-only file, effects carry data, not encodings, so a sorted set that was
/// converted to a skiplist by `SORT` comes back as a listpack (and a score of -0 in it as
/// 0). Snapshots keep encodings.
pub fn data_dump(dbs: &[Db]) -> String {
    dump(dbs, false)
}

fn dump(dbs: &[Db], with_encoding: bool) -> String {
    use std::fmt::Write;
    let esc = |b: &[u8]| b.escape_ascii().to_string();
    let mut out = String::new();
    for (i, db) in dbs.iter().enumerate() {
        let mut keys: Vec<(&[u8], &Entry)> = db.iter().collect();
        keys.sort_by(|a, b| a.0.cmp(b.0));
        for (k, e) in keys {
            let _ = write!(
                out,
                "{i} {} {:?} {} {}:",
                esc(k),
                e.expire_at(),
                e.value.type_name(),
                if with_encoding {
                    e.value.encoding()
                } else {
                    ""
                }
            );
            let mut items: Vec<String> = match &e.value {
                Value::Str(s) => vec![esc(s.as_bytes())],
                Value::List(l) => l.iter().map(esc).collect(),
                Value::Set(s) => s.iter().map(&esc).collect(),
                // A score of -0 is 0 once a listpack holds it (see `ZSet::add`), so
                // without encodings the two compare equal.
                Value::ZSet(z) => z
                    .iter()
                    .map(|(m, s)| {
                        let s = if with_encoding || s != 0.0 { s } else { 0.0 };
                        format!("{}={:?}", esc(m), s)
                    })
                    .collect(),
                Value::Hash(h) => h
                    .iter()
                    .map(|(f, v)| format!("{}={}", esc(f), esc(v)))
                    .collect(),
                // Entries, IDs, groups and pending lists, as the commands that rebuild them.
                Value::Stream(st) => st
                    .rewrite(k)
                    .iter()
                    .map(|argv| argv.iter().map(|a| esc(a)).collect::<Vec<_>>().join(" "))
                    .collect(),
            };
            let unordered = match &e.value {
                Value::Set(s) => !s.is_intset() || !with_encoding,
                Value::Hash(h) => h.is_big() || !with_encoding,
                _ => false,
            };
            if unordered {
                items.sort();
            }
            let _ = writeln!(out, " {}", items.join(" "));
        }
    }
    out
}
