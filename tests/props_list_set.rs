//! Property tests: random sequences of list commands against a `VecDeque` model, and of set
//! commands against a `BTreeSet` model.
//!
//! The models are written the naive way, from the commands' definitions rather than from
//! the engine's algorithms (`LRANGE` keeps the positions between the two normalised
//! indexes; `LPOS` lists every match and skips and takes from that list), so that a
//! shared misreading is unlikely. Every reply is compared, and after every command the
//! whole value is: the list element by element, the set as sorted members plus the
//! encoding Redis would report and, for intsets, the ascending order Redis lists them in.

#![cfg(not(target_arch = "wasm32"))]

use std::collections::{BTreeMap, BTreeSet, VecDeque};

use kvlab::engine::types::Value;
use kvlab::engine::{ClientId, Engine, ManualClock, Reply};
use proptest::prelude::*;

fn engine() -> (Engine, ClientId) {
    let mut e = Engine::new(Box::new(ManualClock::at_ms(1_704_067_200_000)), 3);
    let c = e.connect();
    e.execute(c, vec![b"SET".to_vec(), b"str".to_vec(), b"x".to_vec()]);
    (e, c)
}

fn argv(parts: &[&[u8]]) -> Vec<Vec<u8>> {
    parts.iter().map(|p| p.to_vec()).collect()
}

fn num(n: i64) -> Vec<u8> {
    n.to_string().into_bytes()
}

fn bulks(items: impl IntoIterator<Item = Vec<u8>>) -> Reply {
    Reply::Array(items.into_iter().map(Reply::Bulk).collect())
}

fn wrongtype() -> Reply {
    Reply::Error("WRONGTYPE Operation against a key holding the wrong kind of value".into())
}

/// An index: mostly near the list's size, sometimes at the `i64` extremes.
fn index() -> impl Strategy<Value = i64> {
    prop_oneof![
        8 => -12i64..12,
        1 => Just(i64::MIN),
        1 => Just(i64::MAX),
    ]
}

// ---------------------------------------------------------------------------------------
// Lists
// ---------------------------------------------------------------------------------------

#[derive(Debug, Clone)]
enum ListOp {
    Push {
        key: usize,
        left: bool,
        only_if_exists: bool,
        values: Vec<u8>,
    },
    Pop {
        key: usize,
        left: bool,
        count: Option<u64>,
    },
    Index {
        key: usize,
        index: i64,
    },
    Set {
        key: usize,
        index: i64,
        value: u8,
    },
    Range {
        key: usize,
        start: i64,
        stop: i64,
    },
    Trim {
        key: usize,
        start: i64,
        stop: i64,
    },
    Rem {
        key: usize,
        count: i64,
        value: u8,
    },
    Insert {
        key: usize,
        after: bool,
        pivot: u8,
        value: u8,
    },
    Pos {
        key: usize,
        value: u8,
        rank: i64,
        count: Option<i64>,
        maxlen: i64,
    },
    Move {
        src: usize,
        dst: usize,
        from_left: bool,
        to_left: bool,
    },
    Mpop {
        first: usize,
        left: bool,
        count: u64,
    },
}

const LIST_KEYS: [&[u8]; 3] = [b"l0", b"l1", b"str"];

fn list_key() -> impl Strategy<Value = usize> {
    prop_oneof![6 => 0usize..2, 1 => Just(2usize)]
}

fn small_value() -> impl Strategy<Value = u8> {
    0u8..4
}

fn list_op() -> impl Strategy<Value = ListOp> {
    prop_oneof![
        4 => (list_key(), any::<bool>(), prop::bool::weighted(0.2), prop::collection::vec(small_value(), 1..5))
            .prop_map(|(key, left, only_if_exists, values)| ListOp::Push { key, left, only_if_exists, values }),
        2 => (list_key(), any::<bool>(), prop::option::of(0u64..6))
            .prop_map(|(key, left, count)| ListOp::Pop { key, left, count }),
        1 => (list_key(), index()).prop_map(|(key, index)| ListOp::Index { key, index }),
        1 => (list_key(), index(), small_value()).prop_map(|(key, index, value)| ListOp::Set { key, index, value }),
        2 => (list_key(), index(), index()).prop_map(|(key, start, stop)| ListOp::Range { key, start, stop }),
        1 => (list_key(), index(), index()).prop_map(|(key, start, stop)| ListOp::Trim { key, start, stop }),
        1 => (list_key(), prop_oneof![-3i64..4, Just(i64::MIN), Just(i64::MAX)], small_value())
            .prop_map(|(key, count, value)| ListOp::Rem { key, count, value }),
        1 => (list_key(), any::<bool>(), small_value(), small_value())
            .prop_map(|(key, after, pivot, value)| ListOp::Insert { key, after, pivot, value }),
        2 => (list_key(), small_value(), prop_oneof![-4i64..0, 1i64..5], prop::option::of(0i64..4), 0i64..6)
            .prop_map(|(key, value, rank, count, maxlen)| ListOp::Pos { key, value, rank, count, maxlen }),
        1 => (list_key(), list_key(), any::<bool>(), any::<bool>())
            .prop_map(|(src, dst, from_left, to_left)| ListOp::Move { src, dst, from_left, to_left }),
        1 => (0usize..2, any::<bool>(), 1u64..5)
            .prop_map(|(first, left, count)| ListOp::Mpop { first, left, count }),
    ]
}

/// The value bytes for a small value number.
fn val(v: u8) -> Vec<u8> {
    vec![b'a' + v]
}

/// Positions of `from..=to` in a list of `len`, by definition: negative indexes count
/// from the end, and the range is whatever positions lie between the two.
fn positions_between(len: usize, start: i64, stop: i64) -> Vec<usize> {
    let norm = |i: i64| -> i128 {
        if i < 0 {
            i128::from(i) + len as i128
        } else {
            i128::from(i)
        }
    };
    let (s, e) = (norm(start), norm(stop));
    (0..len)
        .filter(|&i| (i as i128) >= s && (i as i128) <= e)
        .collect()
}

/// Applies one list command to the model and returns the reply Redis gives.
fn list_model(models: &mut [Option<VecDeque<Vec<u8>>>; 2], op: &ListOp) -> Reply {
    let is_str = |k: usize| k == 2;
    match op {
        ListOp::Push {
            key,
            left,
            only_if_exists,
            values,
        } => {
            if is_str(*key) {
                return wrongtype();
            }
            let m = &mut models[*key];
            if m.is_none() && *only_if_exists {
                return Reply::Integer(0);
            }
            let l = m.get_or_insert_with(VecDeque::new);
            for v in values {
                if *left {
                    l.push_front(val(*v));
                } else {
                    l.push_back(val(*v));
                }
            }
            Reply::Integer(l.len() as i64)
        }
        ListOp::Pop { key, left, count } => {
            if is_str(*key) {
                return wrongtype();
            }
            let Some(l) = models[*key].as_mut() else {
                return if count.is_some() {
                    Reply::NilArray
                } else {
                    Reply::Nil
                };
            };
            let take = |l: &mut VecDeque<Vec<u8>>| if *left { l.pop_front() } else { l.pop_back() };
            let reply = match count {
                None => Reply::Bulk(take(l).unwrap_or_default()),
                Some(n) => bulks((0..*n).map_while(|_| take(l))),
            };
            if l.is_empty() {
                models[*key] = None;
            }
            reply
        }
        ListOp::Index { key, index } => {
            if is_str(*key) {
                return wrongtype();
            }
            let Some(l) = models[*key].as_ref() else {
                return Reply::Nil;
            };
            match positions_between(l.len(), *index, *index).first() {
                Some(&i) => Reply::Bulk(l[i].clone()),
                None => Reply::Nil,
            }
        }
        ListOp::Set { key, index, value } => {
            if is_str(*key) {
                return wrongtype();
            }
            let Some(l) = models[*key].as_mut() else {
                return Reply::Error("ERR no such key".into());
            };
            match positions_between(l.len(), *index, *index).first() {
                Some(&i) => {
                    l[i] = val(*value);
                    Reply::ok()
                }
                None => Reply::Error("ERR index out of range".into()),
            }
        }
        ListOp::Range { key, start, stop } => {
            if is_str(*key) {
                return wrongtype();
            }
            let Some(l) = models[*key].as_ref() else {
                return Reply::Array(vec![]);
            };
            bulks(
                positions_between(l.len(), *start, *stop)
                    .into_iter()
                    .map(|i| l[i].clone()),
            )
        }
        ListOp::Trim { key, start, stop } => {
            if is_str(*key) {
                return wrongtype();
            }
            let Some(l) = models[*key].as_mut() else {
                return Reply::ok();
            };
            let keep: VecDeque<Vec<u8>> = positions_between(l.len(), *start, *stop)
                .into_iter()
                .map(|i| l[i].clone())
                .collect();
            *l = keep;
            if l.is_empty() {
                models[*key] = None;
            }
            Reply::ok()
        }
        ListOp::Rem { key, count, value } => {
            if is_str(*key) {
                return wrongtype();
            }
            let Some(l) = models[*key].as_mut() else {
                return Reply::Integer(0);
            };
            let v = val(*value);
            let mut matches: Vec<usize> = (0..l.len()).filter(|&i| l[i] == v).collect();
            if *count < 0 {
                matches.reverse();
            }
            let limit = if *count == 0 {
                usize::MAX
            } else {
                count.unsigned_abs() as usize
            };
            let mut doomed: Vec<usize> = matches.into_iter().take(limit).collect();
            doomed.sort_unstable();
            for &i in doomed.iter().rev() {
                l.remove(i);
            }
            if l.is_empty() {
                models[*key] = None;
            }
            Reply::Integer(doomed.len() as i64)
        }
        ListOp::Insert {
            key,
            after,
            pivot,
            value,
        } => {
            if is_str(*key) {
                return wrongtype();
            }
            let Some(l) = models[*key].as_mut() else {
                return Reply::Integer(0);
            };
            match l.iter().position(|e| *e == val(*pivot)) {
                Some(i) => {
                    l.insert(if *after { i + 1 } else { i }, val(*value));
                    Reply::Integer(l.len() as i64)
                }
                None => Reply::Integer(-1),
            }
        }
        ListOp::Pos {
            key,
            value,
            rank,
            count,
            maxlen,
        } => {
            if is_str(*key) {
                return wrongtype();
            }
            let Some(l) = models[*key].as_ref() else {
                return if count.is_some() {
                    Reply::Array(vec![])
                } else {
                    Reply::Nil
                };
            };
            let mut order: Vec<usize> = (0..l.len()).collect();
            if *rank < 0 {
                order.reverse();
            }
            if *maxlen > 0 {
                order.truncate(*maxlen as usize);
            }
            let found: Vec<usize> = order
                .into_iter()
                .filter(|&i| l[i] == val(*value))
                .skip(rank.unsigned_abs() as usize - 1)
                .collect();
            match count {
                None => found
                    .first()
                    .map_or(Reply::Nil, |&i| Reply::Integer(i as i64)),
                Some(n) => {
                    let take = if *n == 0 { usize::MAX } else { *n as usize };
                    Reply::Array(
                        found
                            .into_iter()
                            .take(take)
                            .map(|i| Reply::Integer(i as i64))
                            .collect(),
                    )
                }
            }
        }
        ListOp::Move {
            src,
            dst,
            from_left,
            to_left,
        } => {
            if is_str(*src) {
                return wrongtype();
            }
            if models[*src].is_none() {
                return Reply::Nil;
            }
            if is_str(*dst) {
                return wrongtype();
            }
            let Some(l) = models[*src].as_mut() else {
                return Reply::Nil;
            };
            let v = if *from_left {
                l.pop_front()
            } else {
                l.pop_back()
            }
            .unwrap_or_default();
            if l.is_empty() {
                models[*src] = None;
            }
            let d = models[*dst].get_or_insert_with(VecDeque::new);
            if *to_left {
                d.push_front(v.clone());
            } else {
                d.push_back(v.clone());
            }
            Reply::Bulk(v)
        }
        ListOp::Mpop { first, left, count } => {
            for k in [*first, 1 - *first] {
                let Some(l) = models[k].as_mut() else {
                    continue;
                };
                let items: Vec<Vec<u8>> = (0..*count)
                    .map_while(|_| if *left { l.pop_front() } else { l.pop_back() })
                    .collect();
                if l.is_empty() {
                    models[k] = None;
                }
                return Reply::Array(vec![Reply::Bulk(LIST_KEYS[k].to_vec()), bulks(items)]);
            }
            Reply::NilArray
        }
    }
}

fn list_argv(op: &ListOp) -> Vec<Vec<u8>> {
    let dir = |left: bool| -> &'static [u8] {
        if left {
            b"LEFT"
        } else {
            b"RIGHT"
        }
    };
    match op {
        ListOp::Push {
            key,
            left,
            only_if_exists,
            values,
        } => {
            let name: &[u8] = match (left, only_if_exists) {
                (true, false) => b"LPUSH",
                (false, false) => b"RPUSH",
                (true, true) => b"LPUSHX",
                (false, true) => b"RPUSHX",
            };
            let mut a = argv(&[name, LIST_KEYS[*key]]);
            a.extend(values.iter().map(|v| val(*v)));
            a
        }
        ListOp::Pop { key, left, count } => {
            let mut a = argv(&[if *left { b"LPOP" } else { b"RPOP" }, LIST_KEYS[*key]]);
            a.extend(count.map(|n| num(n as i64)));
            a
        }
        ListOp::Index { key, index } => argv(&[b"LINDEX", LIST_KEYS[*key], &num(*index)]),
        ListOp::Set { key, index, value } => {
            argv(&[b"LSET", LIST_KEYS[*key], &num(*index), &val(*value)])
        }
        ListOp::Range { key, start, stop } => {
            argv(&[b"LRANGE", LIST_KEYS[*key], &num(*start), &num(*stop)])
        }
        ListOp::Trim { key, start, stop } => {
            argv(&[b"LTRIM", LIST_KEYS[*key], &num(*start), &num(*stop)])
        }
        ListOp::Rem { key, count, value } => {
            argv(&[b"LREM", LIST_KEYS[*key], &num(*count), &val(*value)])
        }
        ListOp::Insert {
            key,
            after,
            pivot,
            value,
        } => argv(&[
            b"LINSERT",
            LIST_KEYS[*key],
            if *after { b"AFTER" } else { b"BEFORE" },
            &val(*pivot),
            &val(*value),
        ]),
        ListOp::Pos {
            key,
            value,
            rank,
            count,
            maxlen,
        } => {
            let mut a = argv(&[b"LPOS", LIST_KEYS[*key], &val(*value), b"RANK", &num(*rank)]);
            if let Some(n) = count {
                a.extend([b"COUNT".to_vec(), num(*n)]);
            }
            a.extend([b"MAXLEN".to_vec(), num(*maxlen)]);
            a
        }
        ListOp::Move {
            src,
            dst,
            from_left,
            to_left,
        } => argv(&[
            b"LMOVE",
            LIST_KEYS[*src],
            LIST_KEYS[*dst],
            dir(*from_left),
            dir(*to_left),
        ]),
        ListOp::Mpop { first, left, count } => argv(&[
            b"LMPOP",
            b"2",
            LIST_KEYS[*first],
            LIST_KEYS[1 - *first],
            dir(*left),
            b"COUNT",
            &num(*count as i64),
        ]),
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn lists_behave_like_a_vecdeque(ops in prop::collection::vec(list_op(), 1..60)) {
        let (mut e, c) = engine();
        let mut models: [Option<VecDeque<Vec<u8>>>; 2] = [None, None];
        for op in &ops {
            let expected = list_model(&mut models, op);
            let got = e.execute(c, list_argv(op));
            prop_assert_eq!(&got, &expected, "{:?}", op);
            for (k, m) in models.iter().enumerate() {
                let all = e.execute(c, argv(&[b"LRANGE", LIST_KEYS[k], b"0", b"-1"]));
                let want = bulks(m.iter().flatten().cloned());
                prop_assert_eq!(all, want, "after {:?}", op);
                // Emptied lists vanish from the keyspace.
                let present = e.server().dbs[0].get_raw(LIST_KEYS[k]).is_some();
                prop_assert_eq!(present, m.is_some());
            }
        }
    }
}

// ---------------------------------------------------------------------------------------
// Sets
// ---------------------------------------------------------------------------------------

const SET_KEYS: [&[u8]; 4] = [b"s0", b"s1", b"s2", b"str"];

#[derive(Debug, Clone)]
enum SetOp {
    Add {
        key: usize,
        members: Vec<u16>,
    },
    AddRange {
        key: usize,
        from: u16,
        len: u16,
    },
    Rem {
        key: usize,
        members: Vec<u16>,
    },
    IsMember {
        key: usize,
        member: u16,
    },
    MIsMember {
        key: usize,
        members: Vec<u16>,
    },
    Card {
        key: usize,
    },
    Move {
        src: usize,
        dst: usize,
        member: u16,
    },
    Pop {
        key: usize,
        count: Option<u64>,
    },
    RandMember {
        key: usize,
        count: i64,
    },
    Algebra {
        kind: u8,
        store: Option<usize>,
        keys: Vec<usize>,
    },
    InterCard {
        keys: Vec<usize>,
        limit: u64,
    },
}

fn set_key() -> impl Strategy<Value = usize> {
    prop_oneof![8 => 0usize..3, 1 => Just(3usize)]
}

/// Member numbers: below 1000 they are integers ("17", "-3"), above they are words.
fn member() -> impl Strategy<Value = u16> {
    prop_oneof![6 => 0u16..40, 1 => 1000u16..1006]
}

fn member_bytes(m: u16) -> Vec<u8> {
    match m {
        0..=999 => (i64::from(m) - 10).to_string().into_bytes(),
        _ => format!("w{}", m - 1000).into_bytes(),
    }
}

fn set_op() -> impl Strategy<Value = SetOp> {
    prop_oneof![
        5 => (set_key(), prop::collection::vec(member(), 1..6)).prop_map(|(key, members)| SetOp::Add { key, members }),
        1 => (0usize..3, 0u16..200, 100u16..600).prop_map(|(key, from, len)| SetOp::AddRange { key, from, len }),
        3 => (set_key(), prop::collection::vec(member(), 1..6)).prop_map(|(key, members)| SetOp::Rem { key, members }),
        1 => (set_key(), member()).prop_map(|(key, member)| SetOp::IsMember { key, member }),
        1 => (set_key(), prop::collection::vec(member(), 1..4)).prop_map(|(key, members)| SetOp::MIsMember { key, members }),
        1 => set_key().prop_map(|key| SetOp::Card { key }),
        2 => (set_key(), set_key(), member()).prop_map(|(src, dst, member)| SetOp::Move { src, dst, member }),
        2 => (set_key(), prop::option::of(0u64..8)).prop_map(|(key, count)| SetOp::Pop { key, count }),
        2 => (set_key(), -8i64..8).prop_map(|(key, count)| SetOp::RandMember { key, count }),
        4 => (0u8..3, prop::option::of(0usize..3), prop::collection::vec(set_key(), 1..4))
            .prop_map(|(kind, store, keys)| SetOp::Algebra { kind, store, keys }),
        1 => (prop::collection::vec(set_key(), 1..4), 0u64..4).prop_map(|(keys, limit)| SetOp::InterCard { keys, limit }),
    ]
}

/// A model set: its members and whether Redis would have made it a hash table.
#[derive(Debug, Clone, Default)]
struct ModelSet {
    members: BTreeSet<Vec<u8>>,
    hashtable: bool,
}

impl ModelSet {
    fn add(&mut self, m: Vec<u8>) -> bool {
        let new = self.members.insert(m.clone());
        if new && (kvlab::engine::args::parse_i64(&m).is_none() || self.members.len() > 512) {
            self.hashtable = true;
        }
        new
    }

    /// A set built fresh from `members`, as the STORE commands build theirs.
    fn fresh(members: BTreeSet<Vec<u8>>) -> ModelSet {
        let mut s = ModelSet::default();
        // Integers first, as the intset fills before converting: the final encoding only
        // depends on the member set.
        for m in members {
            s.add(m);
        }
        s
    }
}

type SetModels = BTreeMap<usize, ModelSet>;

fn sorted_bulks(reply: &Reply) -> Option<Vec<Vec<u8>>> {
    match reply {
        Reply::Array(items) | Reply::Set(items) => {
            let mut out: Vec<Vec<u8>> = items
                .iter()
                .filter_map(|r| match r {
                    Reply::Bulk(b) => Some(b.clone()),
                    _ => None,
                })
                .collect();
            out.sort();
            Some(out)
        }
        _ => None,
    }
}

fn set_argv(op: &SetOp) -> Vec<Vec<u8>> {
    let k = |i: usize| SET_KEYS[i].to_vec();
    match op {
        SetOp::Add { key, members } => {
            let mut a = vec![b"SADD".to_vec(), k(*key)];
            a.extend(members.iter().map(|m| member_bytes(*m)));
            a
        }
        SetOp::AddRange { key, from, len } => {
            let mut a = vec![b"SADD".to_vec(), k(*key)];
            a.extend((*from..from.saturating_add(*len)).map(|m| m.to_string().into_bytes()));
            a
        }
        SetOp::Rem { key, members } => {
            let mut a = vec![b"SREM".to_vec(), k(*key)];
            a.extend(members.iter().map(|m| member_bytes(*m)));
            a
        }
        SetOp::IsMember { key, member } => {
            vec![b"SISMEMBER".to_vec(), k(*key), member_bytes(*member)]
        }
        SetOp::MIsMember { key, members } => {
            let mut a = vec![b"SMISMEMBER".to_vec(), k(*key)];
            a.extend(members.iter().map(|m| member_bytes(*m)));
            a
        }
        SetOp::Card { key } => vec![b"SCARD".to_vec(), k(*key)],
        SetOp::Move { src, dst, member } => {
            vec![b"SMOVE".to_vec(), k(*src), k(*dst), member_bytes(*member)]
        }
        SetOp::Pop { key, count } => {
            let mut a = vec![b"SPOP".to_vec(), k(*key)];
            a.extend(count.map(|n| num(n as i64)));
            a
        }
        SetOp::RandMember { key, count } => vec![b"SRANDMEMBER".to_vec(), k(*key), num(*count)],
        SetOp::Algebra { kind, store, keys } => {
            let name = ["SINTER", "SUNION", "SDIFF"][*kind as usize];
            let mut a = match store {
                Some(d) => vec![format!("{name}STORE").into_bytes(), k(*d)],
                None => vec![name.as_bytes().to_vec()],
            };
            a.extend(keys.iter().map(|i| k(*i)));
            a
        }
        SetOp::InterCard { keys, limit } => {
            let mut a = vec![b"SINTERCARD".to_vec(), num(keys.len() as i64)];
            a.extend(keys.iter().map(|i| k(*i)));
            a.extend([b"LIMIT".to_vec(), num(*limit as i64)]);
            a
        }
    }
}

/// Checks one set command's reply against the model and updates the model.
fn check_set_op(models: &mut SetModels, op: &SetOp, got: &Reply) -> Result<(), TestCaseError> {
    let has_str = |keys: &[usize]| keys.contains(&3);
    match op {
        SetOp::Add { key, .. } | SetOp::AddRange { key, .. } => {
            if *key == 3 {
                prop_assert_eq!(got, &wrongtype());
                return Ok(());
            }
            let argv = set_argv(op);
            let m = models.entry(*key).or_default();
            let added = argv[2..].iter().filter(|x| m.add((*x).clone())).count();
            prop_assert_eq!(got, &Reply::Integer(added as i64));
        }
        SetOp::Rem { key, members } => {
            if *key == 3 {
                prop_assert_eq!(got, &wrongtype());
                return Ok(());
            }
            let removed = match models.get_mut(key) {
                Some(m) => members
                    .iter()
                    .filter(|x| m.members.remove(&member_bytes(**x)))
                    .count(),
                None => 0,
            };
            prop_assert_eq!(got, &Reply::Integer(removed as i64));
        }
        SetOp::IsMember { key, member } => {
            if *key == 3 {
                prop_assert_eq!(got, &wrongtype());
                return Ok(());
            }
            let has = models
                .get(key)
                .is_some_and(|m| m.members.contains(&member_bytes(*member)));
            prop_assert_eq!(got, &Reply::Integer(i64::from(has)));
        }
        SetOp::MIsMember { key, members } => {
            if *key == 3 {
                prop_assert_eq!(got, &wrongtype());
                return Ok(());
            }
            let want = members
                .iter()
                .map(|x| {
                    let has = models
                        .get(key)
                        .is_some_and(|m| m.members.contains(&member_bytes(*x)));
                    Reply::Integer(i64::from(has))
                })
                .collect();
            prop_assert_eq!(got, &Reply::Array(want));
        }
        SetOp::Card { key } => {
            if *key == 3 {
                prop_assert_eq!(got, &wrongtype());
                return Ok(());
            }
            let n = models.get(key).map_or(0, |m| m.members.len());
            prop_assert_eq!(got, &Reply::Integer(n as i64));
        }
        SetOp::Move { src, dst, member } => {
            let Some(s) = models.get(src).cloned() else {
                if *src != 3 {
                    prop_assert_eq!(got, &Reply::Integer(0));
                } else {
                    prop_assert_eq!(got, &wrongtype());
                }
                return Ok(());
            };
            if *dst == 3 {
                prop_assert_eq!(got, &wrongtype());
                return Ok(());
            }
            let m = member_bytes(*member);
            let present = s.members.contains(&m);
            prop_assert_eq!(got, &Reply::Integer(i64::from(present)));
            if present && src != dst {
                if let Some(s) = models.get_mut(src) {
                    s.members.remove(&m);
                }
                models.entry(*dst).or_default().add(m);
            }
        }
        SetOp::Pop { key, count } => {
            if *key == 3 {
                prop_assert_eq!(got, &wrongtype());
                return Ok(());
            }
            let Some(m) = models.get_mut(key) else {
                match count {
                    None => prop_assert_eq!(got, &Reply::Nil),
                    Some(_) => prop_assert_eq!(got, &Reply::Array(vec![])),
                }
                return Ok(());
            };
            let popped = match (count, got) {
                (None, Reply::Bulk(b)) => vec![b.clone()],
                (Some(_), r) => sorted_bulks(r).unwrap_or_default(),
                _ => return Err(TestCaseError::fail(format!("bad SPOP reply {got:?}"))),
            };
            let size = m.members.len();
            let want_len = count.map_or(1, |n| (n as usize).min(size));
            prop_assert_eq!(popped.len(), want_len);
            for p in popped {
                prop_assert!(m.members.remove(&p), "popped a non-member");
            }
            // Redis's third SPOP case: when the members that stay, times 5, are at most the
            // count, it builds a new set of them (an intset again if they are integers).
            if let Some(n) = count {
                let stay = size.saturating_sub(*n as usize);
                if (*n as usize) < size && stay * 5 <= *n as usize {
                    *m = ModelSet::fresh(std::mem::take(&mut m.members));
                }
            }
        }
        SetOp::RandMember { key, count } => {
            if *key == 3 {
                prop_assert_eq!(got, &wrongtype());
                return Ok(());
            }
            let members = models
                .get(key)
                .map(|m| m.members.clone())
                .unwrap_or_default();
            let picked = sorted_bulks(got).unwrap_or_default();
            prop_assert!(picked.iter().all(|p| members.contains(p)));
            if *count >= 0 {
                let want = (*count as usize).min(members.len());
                prop_assert_eq!(picked.len(), want);
                let distinct: BTreeSet<_> = picked.iter().collect();
                prop_assert_eq!(distinct.len(), want);
            } else if members.is_empty() {
                prop_assert_eq!(picked.len(), 0);
            } else {
                prop_assert_eq!(picked.len(), count.unsigned_abs() as usize);
            }
        }
        SetOp::Algebra { kind, store, keys } => {
            if has_str(keys) {
                prop_assert_eq!(got, &wrongtype());
                return Ok(());
            }
            let get = |i: &usize| models.get(i).map(|m| m.members.clone()).unwrap_or_default();
            let result: BTreeSet<Vec<u8>> = match kind {
                0 => {
                    let mut it = keys.iter().map(get);
                    let first = it.next().unwrap_or_default();
                    it.fold(first, |acc, s| acc.intersection(&s).cloned().collect())
                }
                1 => keys.iter().flat_map(get).collect(),
                _ => {
                    let first = get(&keys[0]);
                    keys[1..]
                        .iter()
                        .fold(first, |acc, i| acc.difference(&get(i)).cloned().collect())
                }
            };
            match store {
                None => prop_assert_eq!(sorted_bulks(got), Some(result.into_iter().collect())),
                Some(d) => {
                    prop_assert_eq!(got, &Reply::Integer(result.len() as i64));
                    // SDIFF's second algorithm (Redis picks it when copying the first set
                    // and deleting the others' members looks cheaper) first copies the whole
                    // first set into the destination, so the destination's encoding is
                    // that of the first set even if the members that forced a conversion
                    // are deleted again.
                    // The copy is built member by member into a fresh set, so what counts
                    // is whether the first set's members force a hash table, not how the
                    // first set itself is encoded (it may have converted for a member that
                    // is gone since).
                    let first_encoded_big = models
                        .get(&keys[0])
                        .is_some_and(|m| ModelSet::fresh(m.members.clone()).hashtable);
                    let diff_copies_first = *kind == 2 && {
                        let present: Vec<usize> = keys
                            .iter()
                            .filter_map(|i| models.get(i).map(|m| m.members.len()))
                            .collect();
                        let first_len = models.get(&keys[0]).map_or(0, |m| m.members.len());
                        let algo_one = first_len * present.len() / 2;
                        let algo_two: usize = present.iter().sum();
                        models.contains_key(&keys[0]) && algo_one > algo_two
                    };
                    if result.is_empty() {
                        models.remove(d);
                    } else {
                        let mut fresh = ModelSet::fresh(result);
                        if diff_copies_first && first_encoded_big {
                            fresh.hashtable = true;
                        }
                        models.insert(*d, fresh);
                    }
                }
            }
        }
        SetOp::InterCard { keys, limit } => {
            if has_str(keys) {
                prop_assert_eq!(got, &wrongtype());
                return Ok(());
            }
            let get = |i: &usize| models.get(i).map(|m| m.members.clone()).unwrap_or_default();
            let mut it = keys.iter().map(get);
            let first = it.next().unwrap_or_default();
            let n = it
                .fold(first, |acc, s| acc.intersection(&s).cloned().collect())
                .len();
            let n = if *limit == 0 {
                n
            } else {
                n.min(*limit as usize)
            };
            prop_assert_eq!(got, &Reply::Integer(n as i64));
        }
    }
    models.retain(|_, m| !m.members.is_empty());
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn sets_behave_like_a_btreeset(ops in prop::collection::vec(set_op(), 1..50)) {
        let (mut e, c) = engine();
        let mut models = SetModels::new();
        for op in &ops {
            let got = e.execute(c, set_argv(op));
            check_set_op(&mut models, op, &got)?;
            for (k, name) in SET_KEYS.iter().enumerate().take(3) {
                let model = models.get(&k);
                let all = e.execute(c, argv(&[b"SMEMBERS", name]));
                let want: Vec<Vec<u8>> = model.map(|m| m.members.iter().cloned().collect()).unwrap_or_default();
                prop_assert_eq!(sorted_bulks(&all), Some(want), "after {:?}", op);
                let entry = e.server().dbs[0].get_raw(name);
                prop_assert_eq!(entry.is_some(), model.is_some(), "emptied sets vanish");
                if let (Some(entry), Some(model)) = (entry, model) {
                    let Value::Set(s) = &entry.value else {
                        return Err(TestCaseError::fail("not a set"));
                    };
                    let want = if model.hashtable { "hashtable" } else { "intset" };
                    prop_assert_eq!(s.encoding(), want, "after {:?}", op);
                    if s.is_intset() {
                        // Redis lists an intset in ascending numeric order.
                        let order: Vec<i64> = s
                            .iter()
                            .filter_map(kvlab::engine::args::parse_i64)
                            .collect();
                        prop_assert!(order.windows(2).all(|w| w[0] < w[1]));
                        prop_assert_eq!(order.len(), s.len());
                    }
                }
            }
        }
    }
}
