//! `DEBUG DIGEST` and `DEBUG DIGEST-VALUE`: SHA-1 signatures of the dataset and of values,
//! computed the way Redis 7.0's `computeDatasetDigest` and `xorObjectDigest` do, so that
//! kvlab and redis-server give the same hex string for the same data (the differential
//! test compares them).
//!
//! Two ways of folding bytes into a 20-byte digest:
//! * **xor** ([`xor_digest`]): the digest is xored with SHA1(bytes). Xor is commutative, so
//!   unordered things (set members, hash fields, the keys of a database) give the same
//!   digest in any order.
//! * **mix** ([`mix_digest`]): xor, then the digest becomes SHA1(digest). Order matters:
//!   list elements, a stream's entries, a key before its value.
//!
//! A key's digest mixes its name, then its type as four big-endian bytes (Redis's
//! `OBJ_STRING` 0 … `OBJ_STREAM` 6), then its value: a string whole; each list element; a
//! set member xored in; a sorted-set member and its score (`%.17g`) mixed into a fresh
//! digest that is xored in (as bytes: hashed again); a hash field and its value likewise; each stream entry's
//! `ms.seq` id and its fields and values. A key with a deadline xors in `!!expire!!`. The
//! dataset's digest mixes each non-empty database's index (four big-endian bytes) and
//! xors in each key's digest (hashed again); an empty dataset is forty zeros.
//!
//! Keys are read as stored, logically expired ones included, as Redis reads its dict.
//! **O(N)** in the values' sizes.

use crate::engine::keyspace::{Db, Entry};
use crate::engine::reply::format_g17;
use crate::engine::types::Value;

/// A digest: twenty bytes, zero to start.
pub type Digest = [u8; 20];

fn sha1(bytes: &[u8]) -> Digest {
    sha1_smol::Sha1::from(bytes).digest().bytes()
}

/// Xors SHA1(`bytes`) into `digest` (Redis's `xorDigest`).
pub fn xor_digest(digest: &mut Digest, bytes: &[u8]) {
    for (d, h) in digest.iter_mut().zip(sha1(bytes)) {
        *d ^= h;
    }
}

/// Xors SHA1(`bytes`) into `digest`, then replaces it by its own SHA-1 (Redis's
/// `mixDigest`).
pub fn mix_digest(digest: &mut Digest, bytes: &[u8]) {
    xor_digest(digest, bytes);
    *digest = sha1(digest);
}

/// `%.17g` as C prints it, infinities included (a score is never NaN).
fn score_text(score: f64) -> String {
    if score.is_infinite() {
        if score > 0.0 { "inf" } else { "-inf" }.to_string()
    } else {
        format_g17(score)
    }
}

/// Redis's type numbers (`OBJ_STRING` …), as `xorObjectDigest` mixes them.
fn type_number(value: &Value) -> u32 {
    match value {
        Value::Str(_) => 0,
        Value::List(_) => 1,
        Value::Set(_) => 2,
        Value::ZSet(_) => 3,
        Value::Hash(_) => 4,
        Value::Stream(_) => 6,
    }
}

/// A pair (member and score, field and value) mixed into a fresh digest, which is then
/// xored in as bytes of its own (hashed again, as `xorDigest` does with anything).
fn xor_pair(digest: &mut Digest, a: &[u8], b: &[u8]) {
    let mut pair = Digest::default();
    mix_digest(&mut pair, a);
    mix_digest(&mut pair, b);
    xor_digest(digest, &pair);
}

/// Folds `entry`'s type, value and deadline into `digest` (Redis's `xorObjectDigest`).
pub fn object_digest(digest: &mut Digest, entry: &Entry) {
    mix_digest(digest, &type_number(&entry.value).to_be_bytes());
    match &entry.value {
        Value::Str(s) => mix_digest(digest, s.as_bytes()),
        Value::List(l) => {
            for e in l.iter() {
                mix_digest(digest, e);
            }
        }
        Value::Set(s) => {
            for m in s.iter() {
                xor_digest(digest, m);
            }
        }
        Value::ZSet(z) => {
            for (m, score) in z.iter() {
                xor_pair(digest, m, score_text(score).as_bytes());
            }
        }
        Value::Hash(h) => {
            for (f, v) in h.iter() {
                xor_pair(digest, f, v);
            }
        }
        Value::Stream(s) => {
            for (id, fields) in s.range(
                crate::engine::types::stream::StreamId::MIN,
                crate::engine::types::stream::StreamId::MAX,
            ) {
                mix_digest(digest, format!("{}.{}", id.ms, id.seq).as_bytes());
                for (f, v) in fields {
                    mix_digest(digest, f);
                    mix_digest(digest, v);
                }
            }
        }
    }
    if entry.expire_at().is_some() {
        xor_digest(digest, b"!!expire!!");
    }
}

/// The dataset's digest (Redis's `computeDatasetDigest`).
pub fn dataset_digest(dbs: &[Db]) -> Digest {
    let mut out = Digest::default();
    for (i, db) in dbs.iter().enumerate() {
        if db.is_empty() {
            continue;
        }
        mix_digest(&mut out, &(i as u32).to_be_bytes());
        for (key, entry) in db.iter() {
            let mut d = Digest::default();
            mix_digest(&mut d, key);
            object_digest(&mut d, entry);
            xor_digest(&mut out, &d);
        }
    }
    out
}

/// The digest as forty lowercase hex digits.
pub fn hex(digest: &Digest) -> String {
    digest.iter().map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sha1_is_the_standard_one() {
        assert_eq!(
            hex(&sha1(b"abc")),
            "a9993e364706816aba3e25717850c26c9cd0d89d"
        );
    }

    #[test]
    fn xor_ignores_order_and_mix_does_not() {
        let (mut a, mut b) = (Digest::default(), Digest::default());
        xor_digest(&mut a, b"x");
        xor_digest(&mut a, b"y");
        xor_digest(&mut b, b"y");
        xor_digest(&mut b, b"x");
        assert_eq!(a, b);
        let (mut a, mut b) = (Digest::default(), Digest::default());
        mix_digest(&mut a, b"x");
        mix_digest(&mut a, b"y");
        mix_digest(&mut b, b"y");
        mix_digest(&mut b, b"x");
        assert_ne!(a, b);
    }

    #[test]
    fn an_empty_dataset_is_zeros() {
        let dbs = vec![Db::default(); 16];
        assert_eq!(hex(&dataset_digest(&dbs)), "0".repeat(40));
    }

    #[test]
    fn scores_print_as_c_does() {
        assert_eq!(score_text(1.5), "1.5");
        assert_eq!(score_text(f64::INFINITY), "inf");
        assert_eq!(score_text(f64::NEG_INFINITY), "-inf");
        assert_eq!(score_text(0.1), "0.10000000000000001");
    }
}
