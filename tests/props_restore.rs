//! Damaged payloads never panic and never half-load: every valid payload of
//! `tests/restore/payloads.txt` (every type byte of RDB 1 to 10) is cut at every length
//! and has every byte flipped, and proptest damages them further (several bytes changed,
//! bytes inserted or removed, then cut); each result must be refused or be a value whose
//! type's invariants hold. Through the engine, a damaged payload given a valid checksum is
//! RESTOREd and the key, if one was made, is read and written by the type's commands.

#![cfg(not(target_arch = "wasm32"))]

use kvlab::engine::rdb::prim::Reader;
use kvlab::engine::rdb::read::{read_value, LoadError, LoadOptions};
use kvlab::engine::rdb::{crc64, unseal};
use kvlab::engine::types::hash::HashLimits;
use kvlab::engine::types::Value;
use kvlab::engine::{Engine, ManualClock, Reply};
use proptest::prelude::*;

const PAYLOADS: &str = include_str!("restore/payloads.txt");

/// The bodies (payload without its footer) that load, by default options.
fn bodies() -> Vec<Vec<u8>> {
    PAYLOADS
        .lines()
        .filter_map(|l| l.strip_prefix("payload "))
        .map(|h| {
            (0..h.len() / 2)
                .map(|i| u8::from_str_radix(&h[2 * i..2 * i + 2], 16).unwrap())
                .collect::<Vec<u8>>()
        })
        .filter_map(|p| unseal(&p, true).map(<[u8]>::to_vec))
        .filter(|b| load(b).is_ok())
        .collect()
}

fn load(body: &[u8]) -> Result<Value, LoadError> {
    let Some((&t, rest)) = body.split_first() else {
        return Err(LoadError::Bad);
    };
    read_value(&mut Reader::new(rest), t, &LoadOptions::default())
}

/// A loaded value must be whole: not an empty collection, and its type's invariants hold.
fn check(v: &Value) -> Result<(), String> {
    if v.is_empty_collection() {
        return Err("an empty collection".into());
    }
    match v {
        Value::Set(s) => s.check_invariants(),
        Value::ZSet(z) => z.check_invariants(),
        Value::Hash(h) => h.check_invariants(HashLimits {
            max_listpack_entries: usize::MAX,
            max_listpack_value: usize::MAX,
        }),
        Value::Stream(s) => s.check_invariants(),
        Value::Str(_) | Value::List(_) => Ok(()),
    }
}

fn load_and_check(body: &[u8]) {
    if let Ok(v) = load(body) {
        if let Err(e) = check(&v) {
            panic!("{e} from {body:02x?}");
        }
    }
}

#[test]
fn every_cut_and_every_flipped_byte_is_refused_or_whole() {
    let all = bodies();
    assert!(all.len() > 40, "the payload file has its valid cases");
    let mut types: Vec<u8> = all.iter().map(|b| b[0]).collect();
    types.sort_unstable();
    types.dedup();
    // Every type byte RESTORE takes but the modules' (6, 7) and RDB 11's streams (21).
    assert_eq!(
        types,
        [0, 1, 2, 3, 4, 5, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19]
    );
    for body in &all {
        for cut in 0..body.len() {
            load_and_check(&body[..cut]);
        }
        for at in 0..body.len() {
            for mask in [0x01, 0x80, 0xff] {
                let mut b = body.clone();
                b[at] ^= mask;
                load_and_check(&b);
            }
        }
    }
}

/// A payload of `body` with a valid footer.
fn sealed(body: &[u8]) -> Vec<u8> {
    let mut out = body.to_vec();
    out.extend_from_slice(&10u16.to_le_bytes());
    let crc = crc64(&out);
    out.extend_from_slice(&crc.to_le_bytes());
    out
}

fn argv(words: &[&[u8]]) -> Vec<Vec<u8>> {
    words.iter().map(|w| w.to_vec()).collect()
}

/// RESTOREs `payload` as k and, if that worked, reads and writes k as its type allows.
fn restore_and_use(payload: &[u8]) {
    let mut e = Engine::new(Box::new(ManualClock::at_ms(1_700_000_000_000)), 7);
    let c = e.connect();
    let reply = e.execute(c, argv(&[b"RESTORE", b"k", b"0", payload]));
    if reply != Reply::ok() {
        assert_eq!(e.execute(c, argv(&[b"EXISTS", b"k"])), Reply::Integer(0));
        return;
    }
    let Reply::Status(ty) = e.execute(c, argv(&[b"TYPE", b"k"])) else {
        panic!("TYPE replies a status");
    };
    let uses: &[&[&[u8]]] = match &*ty {
        "string" => &[&[b"GET", b"k"], &[b"APPEND", b"k", b"x"]],
        "list" => &[
            &[b"LRANGE", b"k", b"0", b"-1"],
            &[b"LPOP", b"k"],
            &[b"RPUSH", b"k", b"x"],
        ],
        "set" => &[
            &[b"SMEMBERS", b"k"],
            &[b"SADD", b"k", b"x"],
            &[b"SPOP", b"k"],
        ],
        "zset" => &[
            &[b"ZRANGE", b"k", b"0", b"-1", b"WITHSCORES"],
            &[b"ZADD", b"k", b"1", b"x"],
            &[b"ZPOPMIN", b"k"],
        ],
        "hash" => &[
            &[b"HGETALL", b"k"],
            &[b"HSET", b"k", b"x", b"y"],
            &[b"HDEL", b"k", b"x"],
        ],
        "stream" => &[
            &[b"XRANGE", b"k", b"-", b"+"],
            &[b"XINFO", b"STREAM", b"k", b"FULL"],
            &[b"XADD", b"k", b"*", b"f", b"v"],
            &[b"XTRIM", b"k", b"MAXLEN", b"1"],
            &[b"XINFO", b"GROUPS", b"k"],
        ],
        other => panic!("RESTORE made a {other}"),
    };
    for words in uses {
        e.execute(c, argv(words));
    }
    e.execute(c, argv(&[b"OBJECT", b"ENCODING", b"k"]));
}

/// A damage to a body.
#[derive(Debug, Clone)]
enum Damage {
    Set(usize, u8),
    Insert(usize, u8),
    Remove(usize),
    Cut(usize),
}

fn damage() -> impl Strategy<Value = Damage> {
    prop_oneof![
        4 => (any::<usize>(), any::<u8>()).prop_map(|(i, b)| Damage::Set(i, b)),
        1 => (any::<usize>(), any::<u8>()).prop_map(|(i, b)| Damage::Insert(i, b)),
        1 => any::<usize>().prop_map(Damage::Remove),
        1 => any::<usize>().prop_map(Damage::Cut),
    ]
}

fn apply(body: &mut Vec<u8>, d: &Damage) {
    let n = body.len().max(1);
    match *d {
        Damage::Set(i, b) => {
            if let Some(x) = body.get_mut(i % n) {
                *x = b;
            }
        }
        Damage::Insert(i, b) => body.insert(i % (body.len() + 1), b),
        Damage::Remove(i) => {
            if !body.is_empty() {
                body.remove(i % n);
            }
        }
        Damage::Cut(i) => body.truncate(i % n),
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn damaged_payloads_are_refused_or_whole(
        pick in any::<usize>(),
        damages in proptest::collection::vec(damage(), 1..5),
    ) {
        let all = bodies();
        let mut body = all[pick % all.len()].clone();
        for d in &damages {
            apply(&mut body, d);
        }
        load_and_check(&body);
        restore_and_use(&sealed(&body));
    }
}
