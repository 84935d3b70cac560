//! Scale model tests: every collection driven to a million live elements by a seeded mix
//! of operations, checked against a plain model at every step and against the structure's
//! own invariant check along the way (issue 18).
//!
//! # Why at this size
//! Defects in tuned data structures hide where small tests never go: a 32-bit hash that
//! two members share (the birthday bound puts the first such pair near 77,000 members, and
//! about a hundred pairs among a million), a tree four levels deep, leaves split unevenly
//! after long runs in order, tables resized many times. A sorted set once lost members past
//! 300,000 that every small test kept. So each structure here grows to at least
//! 1,000,000 live elements through at least 1,000,000 operations: adds, updates and
//! removes, rank and range reads, pops and random picks, each answer compared with a model
//! built on the standard library (`BTreeMap`, `BTreeSet`, `HashMap`, `VecDeque`).
//!
//! # Running them
//! `scripts/test.sh` (and so CI) runs them in release mode:
//! `cargo test --release --test scale`. Debug builds (plain `cargo test`) run the same
//! workloads at a fiftieth of the size, so the logic is checked everywhere and the full
//! size costs seconds, not minutes. `KVLAB_SCALE=N` multiplies the full size by N (for
//! example `KVLAB_SCALE=5 cargo test --release --test scale` reaches 5,000,000 elements);
//! `KVLAB_SCALE_SEED` changes the seed. Each test prints its size and run time.
//!
//! A performance change to any of these structures lands only with these tests passing
//! (each structure's opening comment says so too).
#![cfg(not(target_arch = "wasm32"))]

mod support;

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet, VecDeque};
use std::time::Instant;

use fastrand::Rng;
use kvlab::engine::keyspace::{Db, Entry};
use kvlab::engine::types::hash::HashLimits;
use kvlab::engine::types::list::End;
use kvlab::engine::types::stream::{Fields, Group, StreamId, Trim, TrimStrategy};
use kvlab::engine::types::zset::{AddOutcome, ScoreRange};
use kvlab::engine::types::{HashValue, ListValue, SetValue, StrValue, Stream, Value, ZSet};
use support::scale::{elements, rng, FULL};

/// Prints what a test did, for the run-time figures in CI's log.
fn report(name: &str, ops: usize, live: usize, t0: Instant) {
    eprintln!(
        "scale {name}: {ops} operations, {live} live elements at the end, {:.1} s",
        t0.elapsed().as_secs_f64()
    );
}

/// Elements in a plain `Vec` with their positions in a `HashMap`: uniform random choice
/// and removal in O(1), for picking which present element an operation touches.
#[derive(Default)]
struct Pool<T: std::hash::Hash + Eq + Clone> {
    items: Vec<T>,
    at: HashMap<T, usize>,
}

impl<T: std::hash::Hash + Eq + Clone> Pool<T> {
    fn len(&self) -> usize {
        self.items.len()
    }
    fn contains(&self, x: &T) -> bool {
        self.at.contains_key(x)
    }
    fn insert(&mut self, x: T) -> bool {
        if self.at.contains_key(&x) {
            return false;
        }
        self.at.insert(x.clone(), self.items.len());
        self.items.push(x);
        true
    }
    fn remove(&mut self, x: &T) -> bool {
        let Some(i) = self.at.remove(x) else {
            return false;
        };
        self.items.swap_remove(i);
        if let Some(moved) = self.items.get(i) {
            self.at.insert(moved.clone(), i);
        }
        true
    }
    fn pick(&self, rng: &mut Rng) -> Option<&T> {
        if self.items.is_empty() {
            None
        } else {
            self.items.get(rng.usize(..self.items.len()))
        }
    }
}

// ---------------------------------------------------------------------------------------
// Sorted sets
// ---------------------------------------------------------------------------------------

/// A score as a model's ordered key. Scores are never NaN, and the workloads never make
/// `-0` (which the sorted set orders equal to `0`), so `total_cmp` is the set's order.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Score(f64);
impl Eq for Score {}
impl PartialOrd for Score {
    fn partial_cmp(&self, o: &Score) -> Option<std::cmp::Ordering> {
        Some(self.cmp(o))
    }
}
impl Ord for Score {
    fn cmp(&self, o: &Score) -> std::cmp::Ordering {
        self.0.total_cmp(&o.0)
    }
}

/// The sorted-set model: member → score, and the `(score, member)` order.
#[derive(Default)]
struct ZModel {
    scores: HashMap<Vec<u8>, f64>,
    order: BTreeSet<(Score, Vec<u8>)>,
    members: Pool<Vec<u8>>,
}

impl ZModel {
    fn len(&self) -> usize {
        self.scores.len()
    }
    fn set(&mut self, m: &[u8], s: f64) {
        if let Some(old) = self.scores.insert(m.to_vec(), s) {
            self.order.remove(&(Score(old), m.to_vec()));
        }
        self.order.insert((Score(s), m.to_vec()));
        self.members.insert(m.to_vec());
    }
    fn remove(&mut self, m: &[u8]) -> Option<f64> {
        let s = self.scores.remove(m)?;
        self.order.remove(&(Score(s), m.to_vec()));
        self.members.remove(&m.to_vec());
        Some(s)
    }
}

/// How a ZADD or ZINCRBY decides from the current score (`update`'s `decide`).
#[derive(Debug, Clone, Copy)]
enum ZAddMode {
    Plain(f64),
    Nx(f64),
    Xx(f64),
    Gt(f64),
    Lt(f64),
    Incr(f64),
}

impl ZAddMode {
    /// The score to set, `None` to skip, `Err` for an increment that makes NaN.
    fn decide(self, cur: Option<f64>) -> Result<Option<f64>, &'static str> {
        Ok(match (self, cur) {
            (ZAddMode::Plain(s), _) => Some(s),
            (ZAddMode::Nx(s), None) => Some(s),
            (ZAddMode::Nx(_), Some(_)) => None,
            (ZAddMode::Xx(s), Some(_)) => Some(s),
            (ZAddMode::Xx(_), None) => None,
            (ZAddMode::Gt(s), Some(c)) => (s > c).then_some(s),
            (ZAddMode::Lt(s), Some(c)) => (s < c).then_some(s),
            (ZAddMode::Gt(s) | ZAddMode::Lt(s), None) => Some(s),
            (ZAddMode::Incr(d), c) => {
                let v = c.unwrap_or(0.0) + d;
                if v.is_nan() {
                    return Err("resulting score is not a number (NaN)");
                }
                Some(v)
            }
        })
    }
}

/// A score as workloads draw it: in order (timestamps, counters), random, or from a small
/// pool so that many members tie (ties are where the member bytes decide the order).
fn draw_score(rng: &mut Rng, counter: u64) -> f64 {
    const POOL: [f64; 8] = [
        0.0,
        1.0,
        2.5,
        -3.0,
        100.0,
        1e9,
        f64::INFINITY,
        f64::NEG_INFINITY,
    ];
    match rng.u8(..10) {
        0..=2 => counter as f64,
        3..=5 => (rng.f64() * 2e6).floor() / 2.0 - 5e5,
        6..=8 => f64::from(rng.u8(..64)),
        _ => POOL[rng.usize(..POOL.len())],
    }
}

/// A new member name: short ones stored inline, a fifth long enough to be shared blocks.
fn draw_member(rng: &mut Rng, counter: u64) -> Vec<u8> {
    if rng.u8(..5) == 0 {
        format!("a member name long enough to live out of line:{counter}").into_bytes()
    } else {
        format!("m{counter}").into_bytes()
    }
}

/// One `ZADD`/`ZINCRBY`-like update through `ZSet::update` (or, for a tenth, `ZSet::add`),
/// with the model's expected answer.
fn zset_write(z: &mut ZSet, model: &mut ZModel, m: &[u8], mode: ZAddMode, plain_add: bool) {
    let cur = model.scores.get(m).copied();
    let want = mode.decide(cur).map(|d| {
        d.map(|new| {
            let outcome = match cur {
                None => AddOutcome::Added,
                Some(c) if c == new => AddOutcome::Unchanged,
                Some(_) => AddOutcome::Updated,
            };
            (outcome, new)
        })
    });
    if plain_add {
        if let ZAddMode::Plain(s) = mode {
            let got = z.add(m, s);
            assert_eq!(Ok(Some((got, s))), want, "ZSet::add of {m:?}");
            model.set(m, s);
            return;
        }
    }
    let got = z.update(m, |c| mode.decide(c));
    assert_eq!(
        got, want,
        "ZSet::update of {m:?} ({mode:?}, model had {cur:?})"
    );
    if let Ok(Some((_, s))) = want {
        model.set(m, s);
    }
}

/// Reads that need ranks, compared with the model's order made into a `Vec` (the model
/// cannot count ranks itself without walking).
fn zset_reads(z: &ZSet, model: &ZModel, rng: &mut Rng, reads: usize) {
    let order: Vec<(f64, &[u8])> = model.order.iter().map(|(s, m)| (s.0, &m[..])).collect();
    assert_eq!(z.len(), order.len());
    if order.is_empty() {
        return;
    }
    for _ in 0..reads {
        let r = rng.usize(..order.len());
        let (s, m) = order[r];
        assert_eq!(z.rank(m), Some(r), "rank of {m:?}");
        assert_eq!(z.get_by_rank(r), Some((m, s)));
        let rev = rng.bool();
        let got: Vec<(Vec<u8>, f64)> = z
            .iter_from_rank(r, rev, 10)
            .map(|(m, s)| (m.to_vec(), s))
            .collect();
        let want: Vec<(Vec<u8>, f64)> = if rev {
            order[r.saturating_sub(9)..=r]
                .iter()
                .rev()
                .map(|(s, m)| (m.to_vec(), *s))
                .collect()
        } else {
            order[r..(r + 10).min(order.len())]
                .iter()
                .map(|(s, m)| (m.to_vec(), *s))
                .collect()
        };
        assert_eq!(got, want, "10 from rank {r} (rev {rev})");
        // A score range between two present scores, either bound exclusive.
        let (a, b) = (order[rng.usize(..order.len())].0, s);
        let range = ScoreRange {
            min: a.min(b),
            max: a.max(b),
            minex: rng.bool(),
            maxex: rng.bool(),
        };
        let lo = order.partition_point(|(s, _)| !range.gte_min(*s));
        let hi = order.partition_point(|(s, _)| range.lte_max(*s));
        let count = hi.saturating_sub(lo);
        assert_eq!(z.count_in_score_range(&range), count, "count in {range:?}");
        let first = (count > 0).then_some(lo);
        let last = (count > 0).then(|| hi - 1);
        assert_eq!(z.first_in_score_range(&range), first, "first in {range:?}");
        assert_eq!(z.last_in_score_range(&range), last, "last in {range:?}");
    }
}

/// One large sorted set (the skiplist encoding: dict and order-statistics tree) grown to
/// [`elements`] members, with updates in every ZADD mode, removals, pops from both ends,
/// rank-range and score-range removals, random picks, and periodic rank and range reads.
/// This is the workload that lost members before issue 18's fix.
#[test]
fn zset_large_against_a_model() {
    let t0 = Instant::now();
    let n = elements();
    let mut rng = rng(1);
    let mut z = ZSet::new();
    let mut model = ZModel::default();
    let mut counter = 0u64;
    let mut ops = 0usize;
    let read_every = n / 4;
    while model.len() < n || ops < n {
        ops += 1;
        let growing = model.len() < n;
        let roll = rng.u8(..100);
        match roll {
            // A new member (or, a tenth of the time, one that was removed before).
            _ if roll < if growing { 55 } else { 20 } => {
                counter += 1;
                let m = draw_member(&mut rng, counter);
                let s = draw_score(&mut rng, counter);
                let mode = match rng.u8(..6) {
                    0 => ZAddMode::Nx(s),
                    1 => ZAddMode::Gt(s),
                    2 => ZAddMode::Incr(s),
                    _ => ZAddMode::Plain(s),
                };
                zset_write(&mut z, &mut model, &m, mode, rng.u8(..10) == 0);
            }
            // An update of a present member.
            _ if roll < 80 => {
                let Some(m) = model.members.pick(&mut rng).cloned() else {
                    continue;
                };
                let s = draw_score(&mut rng, counter);
                let mode = match rng.u8(..8) {
                    0 => ZAddMode::Xx(s),
                    1 => ZAddMode::Gt(s),
                    2 => ZAddMode::Lt(s),
                    3 => ZAddMode::Nx(s),
                    4 | 5 => ZAddMode::Incr(f64::from(rng.i8(..)) / 4.0),
                    _ => ZAddMode::Plain(s),
                };
                zset_write(&mut z, &mut model, &m, mode, rng.u8(..10) == 0);
            }
            // A removal: present or never added.
            80..=86 => {
                let m = match model.members.pick(&mut rng) {
                    Some(m) if rng.u8(..4) != 0 => m.clone(),
                    _ => format!("never added {}", rng.u32(..)).into_bytes(),
                };
                assert_eq!(z.remove(&m), model.remove(&m), "remove {m:?}");
            }
            // ZPOPMIN / ZPOPMAX.
            87..=89 => {
                let want = if roll == 87 {
                    model.order.first()
                } else {
                    model.order.last()
                }
                .map(|(s, m)| (m.clone(), s.0));
                let got =
                    if roll == 87 { z.first() } else { z.last() }.map(|(m, s)| (m.to_vec(), s));
                assert_eq!(got, want, "pop");
                if let Some((m, s)) = want {
                    assert_eq!(z.remove(&m), Some(s));
                    model.remove(&m);
                }
            }
            // ZRANDMEMBER: a uniformly random storage position.
            90..=94 => {
                if model.len() > 0 {
                    let pos = rng.usize(..model.len());
                    let (m, s) = z.get_index(pos).expect("a position below len");
                    assert_eq!(model.scores.get(m), Some(&s), "random pick {m:?}");
                }
                assert!(z.get_index(model.len()).is_none());
            }
            // ZSCORE of a present or absent member.
            95..=97 => {
                let m = match model.members.pick(&mut rng) {
                    Some(m) if rng.bool() => m.clone(),
                    _ => {
                        let later = counter + 1 + u64::from(rng.u16(..));
                        draw_member(&mut rng, later)
                    }
                };
                assert_eq!(z.score(&m), model.scores.get(&m).copied(), "score {m:?}");
            }
            // ZREMRANGEBYRANK near an end, ZREMRANGEBYSCORE over a narrow range.
            _ => {
                if roll == 98 {
                    let k = rng.usize(..8).min(model.len());
                    let victims: Vec<Vec<u8>> =
                        model.order.iter().take(k).map(|(_, m)| m.clone()).collect();
                    if k > 0 {
                        assert_eq!(z.remove_rank_range(0, k - 1), k);
                    }
                    for m in victims {
                        model.remove(&m);
                    }
                } else {
                    // Two neighbouring half-integers of the random scores' range, which
                    // hold a member or so (an integer of the tied pool holds thousands).
                    let min = f64::from(rng.i32(-1_000_000..1_000_000)) / 2.0;
                    let range = ScoreRange {
                        min,
                        max: min + 0.5,
                        minex: false,
                        maxex: false,
                    };
                    let victims: Vec<Vec<u8>> = model
                        .order
                        .range((Score(min), Vec::new())..(Score(min + 0.75), Vec::new()))
                        .filter(|(s, _)| range.lte_max(s.0))
                        .map(|(_, m)| m.clone())
                        .collect();
                    assert_eq!(z.remove_score_range(&range), victims.len());
                    for m in victims {
                        model.remove(&m);
                    }
                }
            }
        }
        assert_eq!(z.len(), model.len());
        if ops % read_every == 0 {
            z.check_invariants()
                .unwrap_or_else(|e| panic!("after {ops} ops: {e}"));
            zset_reads(&z, &model, &mut rng, 20_000);
        }
    }
    z.check_invariants().unwrap();
    zset_reads(&z, &model, &mut rng, 20_000);
    let all: Vec<(Vec<u8>, f64)> = z.iter().map(|(m, s)| (m.to_vec(), s)).collect();
    let want: Vec<(Vec<u8>, f64)> = model.order.iter().map(|(s, m)| (m.clone(), s.0)).collect();
    assert!(all == want, "iteration differs from the model");
    assert!(!z.is_listpack());
    report("zset (skiplist)", ops, model.len(), t0);
}

/// Many small sorted sets (the listpack encoding) holding [`elements`] members between
/// them, each touched by the same mix of operations; a tenth of them grow past 128
/// members and convert, a few get a member longer than 64 bytes and convert, and some are
/// re-evaluated after removals as a `*STORE` result is.
#[test]
fn zset_small_against_a_model() {
    let t0 = Instant::now();
    let n = elements();
    // About 85 members a set once the mix settles (see the roll below): room for 1.2 n.
    let keys = n / 75;
    let mut rng = rng(2);
    let mut sets: Vec<(ZSet, ZModel)> = (0..keys).map(|_| Default::default()).collect();
    let (mut live, mut ops, mut converted) = (0usize, 0usize, 0usize);
    while live < n || ops < n {
        ops += 1;
        // Most sets draw from 120 names and stay small; every tenth from 200, gets a
        // quarter of the operations besides, and converts.
        let k = if rng.u8(..4) == 0 {
            10 * rng.usize(..keys / 10)
        } else {
            rng.usize(..keys)
        };
        let universe = if k % 10 == 0 { 200 } else { 120 };
        let (z, model) = &mut sets[k];
        let (before, was_listpack) = (model.len(), z.is_listpack());
        let name = |rng: &mut Rng| -> Vec<u8> {
            match rng.u32(..20_000) {
                0 => format!("{:-<70}", rng.u32(..)).into_bytes(),
                _ => format!("k{k}:{}", rng.u32(..universe)).into_bytes(),
            }
        };
        let roll = rng.u8(..100);
        match roll {
            0..=59 => {
                let m = name(&mut rng);
                let s = f64::from(rng.i8(..)) / 2.0;
                let mode = match rng.u8(..6) {
                    0 => ZAddMode::Xx(s),
                    1 => ZAddMode::Gt(s),
                    2 => ZAddMode::Incr(s),
                    _ => ZAddMode::Plain(s),
                };
                zset_write(z, model, &m, mode, rng.u8(..10) == 0);
            }
            60..=74 => {
                let m = name(&mut rng);
                assert_eq!(z.remove(&m), model.remove(&m));
            }
            75..=79 => {
                let want = model.order.first().map(|(s, m)| (m.clone(), s.0));
                assert_eq!(z.first().map(|(m, s)| (m.to_vec(), s)), want);
                if let Some((m, _)) = want {
                    z.remove(&m);
                    model.remove(&m);
                }
            }
            80..=89 => {
                // Ranks and a slice from a rank, from the model's order directly.
                let order: Vec<(f64, &[u8])> =
                    model.order.iter().map(|(s, m)| (s.0, &m[..])).collect();
                if !order.is_empty() {
                    let r = rng.usize(..order.len());
                    assert_eq!(z.rank(order[r].1), Some(r));
                    let got: Vec<(Vec<u8>, f64)> = z
                        .iter_from_rank(r, false, 5)
                        .map(|(m, s)| (m.to_vec(), s))
                        .collect();
                    let want: Vec<(Vec<u8>, f64)> = order[r..(r + 5).min(order.len())]
                        .iter()
                        .map(|(s, m)| (m.to_vec(), *s))
                        .collect();
                    assert_eq!(got, want);
                    let pos = rng.usize(..order.len());
                    let (m, s) = z.get_index(pos).unwrap();
                    assert_eq!(model.scores.get(m), Some(&s));
                }
                let m = name(&mut rng);
                assert_eq!(z.score(&m), model.scores.get(&m).copied());
            }
            90..=97 => {
                let range = ScoreRange {
                    min: f64::from(rng.i8(..)) / 2.0,
                    max: f64::from(rng.i8(..)) / 2.0,
                    minex: rng.bool(),
                    maxex: rng.bool(),
                };
                let want = model
                    .order
                    .iter()
                    .filter(|(s, _)| range.gte_min(s.0) && range.lte_max(s.0))
                    .count();
                assert_eq!(z.count_in_score_range(&range), want);
            }
            _ => {
                // A *STORE result is re-evaluated: back to a listpack when small enough.
                z.shrink_encoding_if_small();
            }
        }
        // Every step of a listpack, every conversion, and every eighth step of a set
        // already converted (its check is O(N log N)).
        if z.is_listpack() || was_listpack || ops % 8 == 0 {
            z.check_invariants()
                .unwrap_or_else(|e| panic!("set {k} after {ops} ops: {e}"));
        }
        assert_eq!(z.len(), model.len());
        converted += usize::from(was_listpack && !z.is_listpack());
        live = live + model.len() - before;
    }
    let listpacks = sets.iter().filter(|(z, _)| z.is_listpack()).count();
    for (z, model) in &sets {
        let all: Vec<(Vec<u8>, f64)> = z.iter().map(|(m, s)| (m.to_vec(), s)).collect();
        let want: Vec<(Vec<u8>, f64)> = model.order.iter().map(|(s, m)| (m.clone(), s.0)).collect();
        assert_eq!(all, want);
    }
    assert!(
        listpacks > keys / 2 && converted > 0 && (converted > keys / 20 || n < FULL),
        "{listpacks} of {keys} sets are listpacks, {converted} conversions"
    );
    report(
        &format!("zset (listpack; {converted} conversions, {listpacks} of {keys} sets listpacks at the end)"),
        ops,
        live,
        t0,
    );
}

// ---------------------------------------------------------------------------------------
// Sets
// ---------------------------------------------------------------------------------------

/// Redis's intset rule for a set that has never converted: canonical `i64` members only,
/// at most 512 of them.
fn intset_member(m: &[u8]) -> bool {
    kvlab::engine::args::parse_i64(m).is_some()
}

/// One large hash-table set grown to [`elements`] members, and a few hundred small sets of
/// integers that cross the intset limit (512) or meet a non-integer and convert, with
/// SADD, SREM, SISMEMBER, SRANDMEMBER (random positions) and SPOP against a model.
#[test]
fn sets_against_a_model() {
    let t0 = Instant::now();
    let n = elements();
    let mut rng = rng(3);
    let mut big = SetValue::new();
    let mut model: Pool<Vec<u8>> = Pool::default();
    let small_keys = (n / 10_000).max(8);
    let mut small: Vec<(SetValue, BTreeSet<i64>, bool)> = (0..small_keys)
        .map(|_| (SetValue::new(), BTreeSet::new(), true))
        .collect();
    let (mut counter, mut ops) = (0u64, 0usize);
    while model.len() < n || ops < n {
        ops += 1;
        let growing = model.len() < n;
        let roll = rng.u8(..100);
        match roll {
            _ if roll < if growing { 60 } else { 25 } => {
                counter += 1;
                let m = if rng.bool() {
                    counter.to_string().into_bytes()
                } else {
                    draw_member(&mut rng, counter)
                };
                assert_eq!(big.insert_bytes(&m), model.insert(m.clone()), "SADD {m:?}");
            }
            _ if roll < 70 => {
                let m = match model.pick(&mut rng) {
                    Some(m) => m.clone(),
                    None => continue,
                };
                assert!(!big.insert_bytes(&m), "SADD of present {m:?}");
            }
            70..=79 => {
                let m = match model.pick(&mut rng) {
                    Some(m) if rng.u8(..4) != 0 => m.clone(),
                    _ => format!("absent {}", rng.u32(..)).into_bytes(),
                };
                assert_eq!(big.remove(&m), model.remove(&m), "SREM {m:?}");
            }
            80..=84 => {
                if model.len() > 0 {
                    let i = rng.usize(..model.len());
                    let m = big.remove_index(i).expect("a position below len");
                    assert!(model.remove(&m), "SPOP gave {m:?}, not a member");
                }
            }
            85..=89 => {
                if model.len() > 0 {
                    let i = rng.usize(..model.len());
                    let m = big.get_index(i).expect("a position below len");
                    assert!(model.contains(&m.to_vec()), "SRANDMEMBER gave {m:?}");
                }
                assert!(big.get_index(model.len()).is_none());
            }
            90..=94 => {
                let m = match model.pick(&mut rng) {
                    Some(m) if rng.bool() => m.clone(),
                    _ => (counter + 1 + u64::from(rng.u16(..)))
                        .to_string()
                        .into_bytes(),
                };
                assert_eq!(big.contains(&m), model.contains(&m), "SISMEMBER {m:?}");
            }
            _ => {
                // A small set of integers: intset until the 513th or a non-integer.
                // Even sets draw from 400 integers and stay intsets; odd ones from 2,000
                // integers and now and then a non-integer, and convert.
                let k = rng.usize(..small_keys);
                let (s, ints, pure) = &mut small[k];
                let odd = k % 2 == 1;
                let v = rng.i64(if odd { -1000..1000 } else { -200..200 });
                let m = if odd && rng.u16(..2000) == 0 {
                    format!("x{v}").into_bytes()
                } else {
                    v.to_string().into_bytes()
                };
                if rng.u8(..4) == 0 {
                    assert_eq!(s.remove(&m), intset_member(&m) && ints.remove(&v));
                } else if intset_member(&m) {
                    assert_eq!(s.insert_bytes(&m), ints.insert(v));
                    *pure &= ints.len() <= 512;
                } else {
                    s.insert_bytes(&m);
                    s.remove(&m);
                    *pure = false;
                }
                assert_eq!(s.is_intset(), *pure, "small set {k}");
                if *pure {
                    let got: Vec<&[u8]> = s.iter().collect();
                    let want: Vec<Vec<u8>> =
                        ints.iter().map(|v| v.to_string().into_bytes()).collect();
                    assert!(got.iter().eq(want.iter()), "intset order of set {k}");
                }
            }
        }
        assert_eq!(big.len(), model.len());
        if ops % (n / 4) == 0 {
            big.check_invariants()
                .unwrap_or_else(|e| panic!("after {ops} ops: {e}"));
        }
    }
    big.check_invariants().unwrap();
    let got: HashSet<&[u8]> = big.iter().collect();
    assert_eq!(got.len(), model.len());
    assert!(model.items.iter().all(|m| got.contains(&m[..])));
    for (k, (s, ints, pure)) in small.iter().enumerate() {
        s.check_invariants()
            .unwrap_or_else(|e| panic!("small set {k}: {e}"));
        assert_eq!(s.is_intset(), *pure);
        let got: BTreeSet<i64> = s
            .iter()
            .map(|m| std::str::from_utf8(m).unwrap().parse().unwrap())
            .collect();
        assert_eq!(&got, ints);
    }
    let converted = small.iter().filter(|(_, _, pure)| !pure).count();
    assert!(
        converted <= small_keys / 2,
        "{converted} small sets converted"
    );
    assert!(converted > 0 || n < FULL, "no small set converted");
    report("set", ops, model.len(), t0);
}

// ---------------------------------------------------------------------------------------
// Hashes
// ---------------------------------------------------------------------------------------

/// One large hash grown to [`elements`] fields, and small hashes that keep listpack order
/// until they pass `hash-max-listpack-entries` or meet a value over
/// `hash-max-listpack-value`, with HSET (new and overwriting), HDEL, HGET and HRANDFIELD.
#[test]
fn hashes_against_a_model() {
    let t0 = Instant::now();
    let n = elements();
    let limits = HashLimits::default();
    let mut rng = rng(4);
    let mut big = HashValue::default();
    let mut model: HashMap<Vec<u8>, Vec<u8>> = HashMap::new();
    let mut fields: Pool<Vec<u8>> = Pool::default();
    let small_keys = 200;
    // A small hash's model: its fields in listpack order, and whether it converted.
    let mut small: Vec<(HashValue, Fields, bool)> = (0..small_keys)
        .map(|_| (HashValue::default(), Vec::new(), false))
        .collect();
    let (mut counter, mut ops) = (0u64, 0usize);
    while model.len() < n || ops < n {
        ops += 1;
        let growing = model.len() < n;
        let roll = rng.u8(..100);
        match roll {
            _ if roll < if growing { 55 } else { 25 } => {
                counter += 1;
                let f = draw_member(&mut rng, counter);
                let v = format!("v{}", rng.u32(..)).into_bytes();
                let new = model.insert(f.clone(), v.clone()).is_none();
                fields.insert(f.clone());
                assert_eq!(big.insert(f, v, limits), new);
            }
            _ if roll < 70 => {
                let Some(f) = fields.pick(&mut rng).cloned() else {
                    continue;
                };
                let v = format!("overwritten {}", rng.u32(..)).into_bytes();
                model.insert(f.clone(), v.clone());
                assert!(!big.insert(f, v, limits));
            }
            70..=79 => {
                let f = match fields.pick(&mut rng) {
                    Some(f) if rng.u8(..4) != 0 => f.clone(),
                    _ => format!("absent {}", rng.u32(..)).into_bytes(),
                };
                let was = model.remove(&f).is_some();
                fields.remove(&f);
                assert_eq!(big.remove(&f), was, "HDEL {f:?}");
            }
            80..=89 => {
                let f = match fields.pick(&mut rng) {
                    Some(f) if rng.bool() => f.clone(),
                    _ => {
                        let later = counter + 1 + u64::from(rng.u16(..));
                        draw_member(&mut rng, later)
                    }
                };
                assert_eq!(big.get(&f), model.get(&f).map(Vec::as_slice), "HGET {f:?}");
            }
            90..=94 => {
                if !model.is_empty() {
                    let (f, v) = big.get_index(rng.usize(..model.len())).unwrap();
                    assert_eq!(model.get(f).map(Vec::as_slice), Some(v), "HRANDFIELD");
                }
                assert!(big.get_index(model.len()).is_none());
            }
            _ => {
                let k = rng.usize(..small_keys);
                let (h, order, big_now) = &mut small[k];
                let f = format!("f{}", rng.u16(..600)).into_bytes();
                if rng.u8(..3) == 0 {
                    let at = order.iter().position(|(g, _)| *g == f);
                    assert_eq!(h.remove(&f), at.is_some());
                    if let Some(at) = at {
                        if *big_now {
                            order.swap_remove(at);
                        } else {
                            order.remove(at);
                        }
                    }
                } else {
                    let long = rng.u16(..3000) == 0;
                    let v = if long {
                        vec![b'x'; 65]
                    } else {
                        b"small".to_vec()
                    };
                    let new = match order.iter_mut().find(|(g, _)| *g == f) {
                        Some(slot) => {
                            slot.1 = v.clone();
                            false
                        }
                        None => {
                            order.push((f.clone(), v.clone()));
                            true
                        }
                    };
                    assert_eq!(h.insert(f, v, limits), new);
                    *big_now |= long || order.len() > limits.max_listpack_entries;
                }
                assert_eq!(h.encoding() == "hashtable", *big_now, "small hash {k}");
                if !*big_now {
                    let got: Vec<(&[u8], &[u8])> = h.iter().collect();
                    let want: Vec<(&[u8], &[u8])> =
                        order.iter().map(|(f, v)| (&f[..], &v[..])).collect();
                    assert_eq!(got, want, "listpack order of hash {k}");
                }
            }
        }
        assert_eq!(big.len(), model.len());
        if ops % (n / 4) == 0 {
            big.check_invariants(limits)
                .unwrap_or_else(|e| panic!("after {ops} ops: {e}"));
        }
    }
    big.check_invariants(limits).unwrap();
    assert_eq!(big.encoding(), "hashtable");
    assert_eq!(big.len(), model.len());
    assert!(big
        .iter()
        .all(|(f, v)| model.get(f).map(Vec::as_slice) == Some(v)));
    for (k, (h, order, _)) in small.iter().enumerate() {
        h.check_invariants(limits)
            .unwrap_or_else(|e| panic!("small hash {k}: {e}"));
        let got: HashMap<&[u8], &[u8]> = h.iter().collect();
        let want: HashMap<&[u8], &[u8]> = order.iter().map(|(f, v)| (&f[..], &v[..])).collect();
        assert_eq!(got, want);
    }
    report("hash", ops, model.len(), t0);
}

// ---------------------------------------------------------------------------------------
// Lists
// ---------------------------------------------------------------------------------------

/// One list grown to [`elements`] elements with pushes and pops at both ends, LINDEX and
/// LSET anywhere (negative indexes too), LRANGE windows, LTRIM of a few elements, and the
/// O(N) LINSERT, LREM and LPOS now and then, against a `VecDeque`.
#[test]
fn list_against_a_model() {
    let t0 = Instant::now();
    let n = elements();
    let mut rng = rng(5);
    let mut list = ListValue::new();
    let mut model: VecDeque<Vec<u8>> = VecDeque::new();
    let (mut counter, mut ops) = (0u64, 0usize);
    // A few values repeat, so LREM and LPOS find several.
    let value = |rng: &mut Rng, counter: u64| -> Vec<u8> {
        if rng.u8(..50) == 0 {
            format!("common{}", rng.u8(..4)).into_bytes()
        } else {
            format!("v{counter}").into_bytes()
        }
    };
    let index = |rng: &mut Rng, len: usize| -> i64 {
        let len = len as i64;
        if rng.bool() {
            rng.i64(-len - 2..len + 2)
        } else {
            rng.i64(-3..3)
        }
    };
    // The model's answer for a user index (negative counts from the tail).
    let resolve = |len: usize, i: i64| -> Option<usize> {
        let j = if i < 0 { len as i64 + i } else { i };
        (0..len as i64).contains(&j).then_some(j as usize)
    };
    while model.len() < n || ops < n {
        ops += 1;
        let growing = model.len() < n;
        let roll = rng.u16(..1000);
        match roll {
            _ if roll < if growing { 600 } else { 300 } => {
                counter += 1;
                let v = value(&mut rng, counter);
                if rng.bool() {
                    list.push(End::Left, v.clone());
                    model.push_front(v);
                } else {
                    list.push(End::Right, v.clone());
                    model.push_back(v);
                }
            }
            _ if roll < 780 => {
                if rng.bool() {
                    assert_eq!(list.pop(End::Left), model.pop_front());
                } else {
                    assert_eq!(list.pop(End::Right), model.pop_back());
                }
            }
            780..=799 => {
                let count = rng.u64(..6);
                let end = if rng.bool() { End::Left } else { End::Right };
                let want: Vec<Vec<u8>> = (0..count)
                    .map_while(|_| match end {
                        End::Left => model.pop_front(),
                        End::Right => model.pop_back(),
                    })
                    .collect();
                assert_eq!(list.pop_many(end, count), want);
            }
            800..=899 => {
                let i = index(&mut rng, model.len());
                let want = resolve(model.len(), i).map(|j| &model[j][..]);
                assert_eq!(list.get(i), want, "LINDEX {i}");
            }
            900..=939 => {
                let i = index(&mut rng, model.len());
                let v = format!("set{}", rng.u32(..)).into_bytes();
                let at = resolve(model.len(), i);
                assert_eq!(list.set(i, v.clone()), at.is_some(), "LSET {i}");
                if let Some(j) = at {
                    model[j] = v;
                }
            }
            940..=989 => {
                let start = index(&mut rng, model.len());
                // A window of up to a dozen: both ends counted from the same side (`0 -1`
                // would read the whole list, a million comparisons, which the final check
                // does once).
                let end = start.saturating_add(rng.i64(-2..12));
                let end = if (start < 0) == (end < 0) { end } else { start };
                let len = model.len() as i64;
                // As Redis: negative indexes count from the end, a start before the
                // head is the head, an end past the tail is the tail.
                let s = if start < 0 {
                    (len + start).max(0)
                } else {
                    start
                };
                let e = (if end < 0 { len + end } else { end }).min(len - 1);
                let want: Vec<&[u8]> = if s > e || s >= len {
                    Vec::new()
                } else {
                    model
                        .range(s as usize..=e as usize)
                        .map(Vec::as_slice)
                        .collect()
                };
                let got: Vec<&[u8]> = list.range(start, end).collect();
                assert_eq!(got, want, "LRANGE {start} {end}");
            }
            990..=995 => {
                // LTRIM keeping all but a few at each end.
                let (a, b) = (rng.i64(0..4), rng.i64(-4..0));
                let len = model.len() as i64;
                let (s, e) = (a, len + b);
                let removed = list.trim(a, b);
                if s > e || s >= len {
                    assert_eq!(removed, model.len());
                    model.clear();
                } else {
                    let before = model.len();
                    model.truncate(e as usize + 1);
                    model.drain(..s as usize);
                    assert_eq!(removed, before - model.len());
                }
            }
            996 | 997 if rng.u16(..250) == 0 => {
                // LINSERT and LREM scan the list: O(N), so rarely.
                let pivot = format!("common{}", rng.u8(..4)).into_bytes();
                let after = rng.bool();
                let v = format!("inserted{}", rng.u32(..)).into_bytes();
                let at = model.iter().position(|x| *x == pivot);
                assert_eq!(list.insert_at_pivot(after, &pivot, v.clone()), at.is_some());
                if let Some(j) = at {
                    model.insert(j + usize::from(after), v);
                }
            }
            998 | 999 if rng.u16(..250) == 0 => {
                let target = format!("common{}", rng.u8(..4)).into_bytes();
                let count = rng.i64(-3..4);
                let mut removed = 0;
                let limit = count.unsigned_abs() as usize;
                if count == 0 {
                    let before = model.len();
                    model.retain(|x| *x != target);
                    removed = before - model.len();
                } else if count > 0 {
                    let mut i = 0;
                    while i < model.len() && removed < limit {
                        if model[i] == target {
                            model.remove(i);
                            removed += 1;
                        } else {
                            i += 1;
                        }
                    }
                } else {
                    let mut i = model.len();
                    while i > 0 && removed < limit {
                        i -= 1;
                        if model[i] == target {
                            model.remove(i);
                            removed += 1;
                        }
                    }
                }
                assert_eq!(list.remove(count, &target), removed, "LREM {count}");
                let want: Vec<usize> = model
                    .iter()
                    .enumerate()
                    .filter(|(_, x)| **x == target)
                    .map(|(i, _)| i)
                    .collect();
                assert_eq!(list.positions(&target, 1, 0, 0), want, "LPOS COUNT 0");
            }
            _ => {}
        }
        assert_eq!(list.len(), model.len());
    }
    assert!(
        list.iter().eq(model.iter().map(Vec::as_slice)),
        "the list differs from the model"
    );
    report("list", ops, model.len(), t0);
}

// ---------------------------------------------------------------------------------------
// Streams
// ---------------------------------------------------------------------------------------

/// One stream grown to [`elements`] entries by XADD with increasing IDs (small nodes, so
/// the node model has many), with XDEL, exact and approximate XTRIM, XRANGE and XREVRANGE
/// windows, and a consumer group whose pending list takes and acknowledges entries.
#[test]
fn stream_against_a_model() {
    let t0 = Instant::now();
    let n = elements();
    let mut rng = rng(6);
    let mut s = Stream::new();
    let mut model: BTreeMap<StreamId, Fields> = BTreeMap::new();
    let mut ids: Pool<StreamId> = Pool::default();
    let mut pending: BTreeMap<StreamId, Vec<u8>> = BTreeMap::new();
    s.groups.insert(b"g".to_vec(), Group::new(StreamId::MIN, 0));
    for c in ["alice", "bob", "carol"] {
        let g = s.groups.get_mut(&b"g"[..]).unwrap();
        g.consumers
            .insert(c.as_bytes().to_vec(), Default::default());
    }
    let mut next = StreamId::new(1, 0);
    let mut ops = 0usize;
    while model.len() < n || ops < n {
        ops += 1;
        let growing = model.len() < n;
        let roll = rng.u16(..1000);
        match roll {
            _ if roll < if growing { 700 } else { 350 } => {
                let fields = vec![(b"n".to_vec(), ops.to_string().into_bytes())];
                s.append(next, fields.clone(), 100, 4096)
                    .expect("an increasing ID");
                model.insert(next, fields);
                ids.insert(next);
                next = if rng.bool() {
                    StreamId::new(next.ms + rng.u64(1..1000), 0)
                } else {
                    StreamId::new(next.ms, next.seq + 1)
                };
            }
            _ if roll < 820 => {
                let id = match ids.pick(&mut rng) {
                    Some(id) if rng.u8(..4) != 0 => *id,
                    _ => StreamId::new(rng.u64(..next.ms + 1), 7),
                };
                let was = model.remove(&id).is_some();
                ids.remove(&id);
                assert_eq!(s.delete(id), was, "XDEL {id}");
            }
            820..=899 => {
                let start = StreamId::new(rng.u64(..next.ms + 2), rng.u64(..3));
                let end = StreamId::new(start.ms + rng.u64(..2000), rng.u64(..3));
                // XRANGE with the end before the start is empty.
                let end = end.max(start);
                let (got, want): (Vec<StreamId>, Vec<StreamId>) = if rng.bool() {
                    (
                        s.range(start, end).take(10).map(|(id, _)| *id).collect(),
                        model
                            .range(start..=end)
                            .take(10)
                            .map(|(id, _)| *id)
                            .collect(),
                    )
                } else {
                    (
                        s.range(start, end)
                            .rev()
                            .take(10)
                            .map(|(id, _)| *id)
                            .collect(),
                        model
                            .range(start..=end)
                            .rev()
                            .take(10)
                            .map(|(id, _)| *id)
                            .collect(),
                    )
                };
                assert_eq!(got, want, "XRANGE {start} {end}");
                for id in got {
                    assert_eq!(s.get(id), model.get(&id));
                }
            }
            900..=959 => {
                // XREADGROUP: a consumer takes an entry; XACK: one is acknowledged.
                let g = s.groups.get_mut(&b"g"[..]).unwrap();
                if rng.bool() {
                    if let Some(id) = ids.pick(&mut rng) {
                        let c = ["alice", "bob", "carol"][rng.usize(..3)].as_bytes();
                        g.assign(*id, c, ops as i64, 1);
                        pending.insert(*id, c.to_vec());
                    }
                } else if let Some((&id, _)) = pending.iter().next() {
                    assert!(g.ack(id));
                    pending.remove(&id);
                } else {
                    assert!(!g.ack(StreamId::new(1, 1)));
                }
            }
            960..=979 => {
                assert_eq!(s.first().map(|(id, f)| (id, f.clone())), {
                    model.iter().next().map(|(id, f)| (*id, f.clone()))
                });
                assert_eq!(
                    s.last().map(|(id, _)| id),
                    model.keys().next_back().copied()
                );
            }
            _ => {
                // XTRIM: exact MAXLEN or MINID by a few, or approximate (whole nodes).
                let len = model.len() as u64;
                let approx = rng.bool();
                let strategy = if rng.bool() {
                    TrimStrategy::MaxLen(len.saturating_sub(rng.u64(..20)))
                } else {
                    let first = model.keys().next().copied().unwrap_or(StreamId::MIN);
                    TrimStrategy::MinId(StreamId::new(first.ms + rng.u64(..50), 0))
                };
                let trim = Trim {
                    strategy,
                    approx,
                    limit: 0,
                };
                let removed = s.trim(&trim);
                // Whatever the nodes allowed, a trim removes the oldest entries.
                let gone: Vec<StreamId> = model.keys().take(removed as usize).copied().collect();
                for id in &gone {
                    model.remove(id);
                    ids.remove(id);
                }
                match strategy {
                    TrimStrategy::MaxLen(max) if !approx => {
                        assert_eq!(model.len() as u64, max.min(len));
                    }
                    TrimStrategy::MinId(min) if !approx => {
                        assert!(model.keys().next().is_none_or(|id| *id >= min));
                        assert!(gone.iter().all(|id| *id < min));
                    }
                    TrimStrategy::MaxLen(max) => assert!(model.len() as u64 >= max.min(len)),
                    TrimStrategy::MinId(min) => assert!(gone.iter().all(|id| *id < min)),
                }
                assert_eq!(s.first().map(|(id, _)| id), model.keys().next().copied());
            }
        }
        assert_eq!(s.len(), model.len() as u64);
        if ops % (n / 4) == 0 {
            s.check_invariants()
                .unwrap_or_else(|e| panic!("after {ops} ops: {e}"));
        }
    }
    s.check_invariants().unwrap();
    assert!(s
        .range(StreamId::MIN, StreamId::MAX)
        .map(|(id, f)| (*id, f))
        .eq(model.iter().map(|(id, f)| (*id, f))));
    let g = &s.groups[&b"g"[..]];
    let got: BTreeMap<StreamId, Vec<u8>> = g
        .pel
        .iter()
        .map(|(id, nack)| (*id, nack.consumer.clone()))
        .collect();
    assert_eq!(got, pending);
    report("stream", ops, model.len(), t0);
}

// ---------------------------------------------------------------------------------------
// The keyspace
// ---------------------------------------------------------------------------------------

fn string(v: &[u8]) -> Value {
    Value::Str(StrValue::new(v.to_vec()))
}

fn bytes_of(e: &Entry) -> &[u8] {
    match &e.value {
        Value::Str(s) => s.as_bytes(),
        _ => panic!("the workload stores strings only"),
    }
}

/// One database grown to [`elements`] keys (in cluster mode, so the slot index is kept
/// too), with SET (keeping the TTL or not), overwrites, DEL, EXPIRE and PERSIST, GET,
/// RANDOMKEY and the expiry sampler's random volatile key, COUNTKEYSINSLOT, and SCAN
/// passes that must return every key present throughout.
#[test]
fn keyspace_against_a_model() {
    let t0 = Instant::now();
    let n = elements();
    let mut rng = rng(7);
    let mut db = Db::default();
    db.index_slots(true);
    let mut model: HashMap<Vec<u8>, (Vec<u8>, Option<i64>)> = HashMap::new();
    let mut keys: Pool<Vec<u8>> = Pool::default();
    let mut volatile: Pool<Vec<u8>> = Pool::default();
    let (mut counter, mut ops) = (0u64, 0usize);
    while model.len() < n || ops < n {
        ops += 1;
        let growing = model.len() < n;
        let roll = rng.u8(..100);
        match roll {
            _ if roll < if growing { 55 } else { 20 } => {
                counter += 1;
                let k = if rng.u8(..10) == 0 {
                    format!("{{user:{}}}:visits", counter % 1000).into_bytes()
                } else {
                    format!("key:{counter}").into_bytes()
                };
                let v = format!("value {counter}").into_bytes();
                if rng.u8(..5) == 0 {
                    let at = 1_000_000 + rng.i64(..1_000_000);
                    db.insert_entry(k.clone(), Entry::new(string(&v), Some(at), 0));
                    model.insert(k.clone(), (v, Some(at)));
                    volatile.insert(k.clone());
                } else {
                    let keep_ttl = rng.bool();
                    let created = db.set(&k, string(&v), keep_ttl, 0);
                    assert_eq!(created, !model.contains_key(&k), "SET's new-key answer");
                    let e = model.entry(k.clone()).or_insert((Vec::new(), None));
                    e.0 = v;
                    if !keep_ttl && e.1.take().is_some() {
                        volatile.remove(&k);
                    }
                }
                keys.insert(k);
            }
            _ if roll < 65 => {
                let Some(k) = keys.pick(&mut rng).cloned() else {
                    continue;
                };
                let keep_ttl = rng.bool();
                assert!(!db.set(&k, string(b"overwritten"), keep_ttl, 0));
                let e = model.get_mut(&k).unwrap();
                e.0 = b"overwritten".to_vec();
                if !keep_ttl && e.1.take().is_some() {
                    volatile.remove(&k);
                }
            }
            65..=74 => {
                let k = match keys.pick(&mut rng) {
                    Some(k) if rng.u8(..4) != 0 => k.clone(),
                    _ => format!("absent:{}", rng.u32(..)).into_bytes(),
                };
                let want = model.remove(&k);
                keys.remove(&k);
                volatile.remove(&k);
                let got = db.remove(&k);
                assert_eq!(
                    got.as_ref().map(bytes_of),
                    want.as_ref().map(|(v, _)| &v[..])
                );
            }
            75..=82 => {
                let k = match keys.pick(&mut rng) {
                    Some(k) if rng.u8(..8) != 0 => k.clone(),
                    _ => format!("absent:{}", rng.u32(..)).into_bytes(),
                };
                let at = rng.bool().then(|| 1_000_000 + rng.i64(..1_000_000));
                let present = model.contains_key(&k);
                assert_eq!(db.set_expire(&k, at), present);
                if let Some(e) = model.get_mut(&k) {
                    e.1 = at;
                    if at.is_some() {
                        volatile.insert(k);
                    } else {
                        volatile.remove(&k);
                    }
                }
            }
            83..=89 => {
                let k = match keys.pick(&mut rng) {
                    Some(k) if rng.bool() => k.clone(),
                    _ => format!("key:{}", counter + 1 + u64::from(rng.u16(..))).into_bytes(),
                };
                let got = db
                    .get_raw(&k)
                    .map(|e| (bytes_of(e).to_vec(), e.expire_at()));
                assert_eq!(got.as_ref(), model.get(&k), "GET {k:?}");
                assert_eq!(db.is_expired(&k, 1_500_000), {
                    model
                        .get(&k)
                        .is_some_and(|(_, at)| at.is_some_and(|t| t < 1_500_000))
                });
            }
            90..=94 => {
                if !model.is_empty() {
                    let (k, e) = db.key_at(rng.usize(..model.len())).unwrap();
                    assert_eq!(model.get(k).map(|(v, _)| &v[..]), Some(bytes_of(e)));
                }
                if volatile.len() > 0 {
                    let k = db.volatile_key_at(rng.usize(..volatile.len())).unwrap();
                    assert!(model.get(k).is_some_and(|(_, at)| at.is_some()));
                }
                assert_eq!(db.volatile_len(), volatile.len());
            }
            95..=98 => {
                let k = keys
                    .pick(&mut rng)
                    .cloned()
                    .unwrap_or_else(|| b"key:1".to_vec());
                let slot = kvlab::engine::cluster::key_slot(&k);
                let got = db.count_keys_in_slot(slot);
                if rng.u16(..5000) == 0 {
                    // Counting a slot in the model walks every key: rarely.
                    let want = model
                        .keys()
                        .filter(|k| kvlab::engine::cluster::key_slot(k) == slot)
                        .count();
                    assert_eq!(got, Some(want), "COUNTKEYSINSLOT {slot}");
                }
            }
            _ => {
                // A SCAN pass over a hundred positions, with a delete in between: the
                // cursor stays valid.
                let mut cursor = 0;
                for _ in 0..10 {
                    cursor = db.scan(cursor, 10, |k, _| assert!(model.contains_key(k)));
                    if cursor == 0 {
                        break;
                    }
                }
            }
        }
        assert_eq!(db.len(), model.len());
        if ops % (n / 4) == 0 {
            db.check_invariants()
                .unwrap_or_else(|e| panic!("after {ops} ops: {e}"));
        }
    }
    db.check_invariants().unwrap();
    // A full SCAN returns every key.
    let mut seen = HashSet::new();
    let mut cursor = 0;
    loop {
        cursor = db.scan(cursor, 1000, |k, _| {
            seen.insert(k.to_vec());
        });
        if cursor == 0 {
            break;
        }
    }
    assert_eq!(seen.len(), model.len());
    assert!(model.keys().all(|k| seen.contains(k)));
    for (k, (v, at)) in &model {
        let e = db.get_raw(k).unwrap();
        assert_eq!((bytes_of(e), e.expire_at()), (&v[..], *at));
    }
    report("keyspace", ops, model.len(), t0);
}

/// What a save was handed, key by key (a key handed twice is a defect the test reports).
type Handed = std::rc::Rc<std::cell::RefCell<(HashMap<Vec<u8>, (Vec<u8>, Option<i64>)>, usize)>>;

struct Collect(Handed);

impl kvlab::engine::keyspace::EntrySink for Collect {
    fn put(&mut self, key: &[u8], entry: &Entry) {
        let mut got = self.0.borrow_mut();
        got.1 += 1;
        got.0
            .insert(key.to_vec(), (bytes_of(entry).to_vec(), entry.expire_at()));
    }
}

/// A background save of a database of [`elements`] keys (the BGSAVE path: the save walks
/// a thousand positions per step) while as many writes run between its steps — overwrites,
/// removals, deadlines set and cleared, new keys, in-place changes, one flush three
/// quarters through: the save is handed exactly the keys, values and deadlines of its
/// start, each once; and a second save, after all that, gets the database as it then is.
#[test]
fn keyspace_save_under_writes_at_scale() {
    let t0 = Instant::now();
    let n = elements();
    let mut rng = rng(11);
    let mut db = Db::default();
    let mut keys: Pool<Vec<u8>> = Pool::default();
    for i in 0..n {
        let k = format!("key:{i}").into_bytes();
        let at = (i % 5 == 0).then(|| 1_000_000 + i as i64);
        db.insert_entry(
            k.clone(),
            Entry::new(string(format!("v{i}").as_bytes()), at, 0),
        );
        keys.insert(k);
    }
    let mut at_start: HashMap<Vec<u8>, (Vec<u8>, Option<i64>)> = HashMap::new();
    for (epoch, writes) in [(1u16, n), (2, n / 10)] {
        let t_save = Instant::now();
        at_start.clear();
        for (k, e) in db.iter() {
            at_start.insert(k.to_vec(), (bytes_of(e).to_vec(), e.expire_at()));
        }
        let handed = Handed::default();
        db.start_save(epoch, Box::new(Collect(handed.clone())));
        let mut ops = 0;
        while db.save_pending() {
            for _ in 0..writes / 1000 + 1 {
                ops += 1;
                if epoch == 1 && ops == writes * 3 / 4 {
                    db.clear();
                    keys = Pool::default();
                    continue;
                }
                let pick = keys.pick(&mut rng).cloned();
                match (rng.u8(..10), pick) {
                    (0..=1, Some(k)) => {
                        db.set(&k, string(b"over"), rng.bool(), 1);
                    }
                    (2..=3, Some(k)) => {
                        keys.remove(&k);
                        db.remove(&k);
                    }
                    (4, Some(k)) => {
                        db.set_expire(&k, rng.bool().then_some(77));
                    }
                    (5, Some(k)) => {
                        if let Some(Value::Str(s)) = db.get_raw_mut(&k).map(|e| &mut e.value) {
                            s.edit().push(b'!');
                        }
                    }
                    (6, Some(k)) => db.insert_entry(k, Entry::new(string(b"i"), Some(5), 1)),
                    _ => {
                        let k = format!("new:{}", rng.u64(..)).into_bytes();
                        db.set(&k, string(b"new"), false, 1);
                        keys.insert(k);
                    }
                }
            }
            db.save_step(1000);
        }
        let (_, written) = db.end_save().expect("the save");
        let got = handed.borrow();
        assert_eq!(got.1 as u64, written);
        assert_eq!(got.1, at_start.len(), "save {epoch}: each key handed once");
        assert!(got.0 == at_start, "save {epoch}: the keys of its start");
        db.check_invariants().unwrap();
        report(
            &format!("keyspace save {epoch}"),
            ops,
            at_start.len(),
            t_save,
        );
    }
    eprintln!(
        "scale keyspace saves: {:.1} s in all, the {n} keys' setup included",
        t0.elapsed().as_secs_f64()
    );
}
