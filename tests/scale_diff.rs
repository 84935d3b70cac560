//! The scale workloads against a real `redis-server`: every collection grown to a million
//! elements through `kvlab-server` and Redis 7.0 side by side, every reply compared, and
//! at the end each key's cardinality, encoding and full content (issue 18).
//!
//! `tests/scale.rs` checks the structures against plain models; this checks what a client
//! sees. It starts with the reproduction that found the sorted-set defect: 1,000,000
//! members added to one key with pipelined `ZADD` (batches of 1,000 commands, one member
//! each, scores in order), and to another with 1,000 members per `ZADD` and random scores.
//!
//! Commands go out in pipelined batches of 1,000 to both servers before either's replies
//! are read, so the two work at once. Replies that Redis leaves to chance are checked
//! against Redis's data instead of compared: a random member (`SRANDMEMBER`,
//! `ZRANDMEMBER … WITHSCORES`, `HRANDFIELD … WITHVALUES`, `RANDOMKEY`) must be one Redis
//! holds, with the same score or value; after an `SPOP` that popped different members the
//! two sets are made equal again (kvlab gets its member back and loses Redis's). TTLs may
//! differ by a second.
//!
//! Like `tests/scale.rs`: full size in release builds (`cargo test --release --test
//! scale_diff`, which `scripts/test.sh` runs), a fiftieth in debug builds, `KVLAB_SCALE=N`
//! for N times more, `KVLAB_SCALE_SEED` for another seed.
#![cfg(not(target_arch = "wasm32"))]

mod support;

use std::time::Instant;

use fastrand::Rng;
use kvlab::engine::Reply;

use support::process::{self, ServerGuard};
use support::resp::{encode_command, RespClient};
use support::scale::{elements, rng};

/// Commands per pipelined batch.
const BATCH: usize = 1_000;

/// A command argument.
trait Arg {
    fn arg(&self) -> Vec<u8>;
}
impl Arg for str {
    fn arg(&self) -> Vec<u8> {
        self.as_bytes().to_vec()
    }
}
impl Arg for String {
    fn arg(&self) -> Vec<u8> {
        self.as_bytes().to_vec()
    }
}
impl Arg for [u8] {
    fn arg(&self) -> Vec<u8> {
        self.to_vec()
    }
}
impl Arg for Vec<u8> {
    fn arg(&self) -> Vec<u8> {
        self.clone()
    }
}
impl Arg for i64 {
    fn arg(&self) -> Vec<u8> {
        self.to_string().into_bytes()
    }
}
impl Arg for usize {
    fn arg(&self) -> Vec<u8> {
        self.to_string().into_bytes()
    }
}
impl Arg for f64 {
    /// Rust's shortest text that reads back as the same double (`inf`, `1e300`, `0.1`),
    /// which both servers parse with `strtod`.
    fn arg(&self) -> Vec<u8> {
        format!("{self:?}").into_bytes()
    }
}

impl<T: Arg + ?Sized> Arg for &T {
    fn arg(&self) -> Vec<u8> {
        (**self).arg()
    }
}

macro_rules! cmd {
    ($($a:expr),+ $(,)?) => { vec![$(Arg::arg(&$a)),+] };
}

type Argv = Vec<Vec<u8>>;

/// How a reply is judged.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Check {
    /// Byte for byte.
    Exact,
    /// The same elements in any order (a hash table's iteration order).
    Unordered,
    /// The same field-value pairs in any order (`HGETALL` of a hash table).
    UnorderedPairs,
    /// A random member of the set at `argv[1]` (`SRANDMEMBER key`).
    SetMember,
    /// `ZRANDMEMBER key 1 WITHSCORES`: a member with its score.
    ZsetMember,
    /// `HRANDFIELD key 1 WITHVALUES`: a field with its value.
    HashField,
    /// `RANDOMKEY`.
    Key,
    /// `SPOP key`: a member, not necessarily Redis's.
    Spop,
    /// A TTL in seconds, within one of Redis's.
    Ttl,
}

/// The two servers and the two connections, with a pipeline of commands not yet sent.
struct Pair {
    _redis: ServerGuard,
    _kvlab: ServerGuard,
    redis: RespClient,
    kvlab: RespClient,
    pending: Vec<(Argv, Check)>,
    sent: usize,
}

fn canon(r: &Reply, pairs: bool) -> Reply {
    let key = |r: &Reply| format!("{r:?}");
    match r {
        Reply::Array(items) if pairs => {
            let mut ps: Vec<Reply> = items.chunks(2).map(|c| Reply::Array(c.to_vec())).collect();
            ps.sort_by_cached_key(key);
            Reply::Array(ps)
        }
        Reply::Array(items) => {
            let mut v = items.clone();
            v.sort_by_cached_key(key);
            Reply::Array(v)
        }
        other => other.clone(),
    }
}

fn show(argv: &[Vec<u8>]) -> String {
    let mut s = String::new();
    for (i, a) in argv.iter().enumerate().take(8) {
        if i > 0 {
            s.push(' ');
        }
        s.push_str(&String::from_utf8_lossy(a));
    }
    if argv.len() > 8 {
        s.push_str(&format!(" … ({} arguments)", argv.len()));
    }
    s
}

fn short(r: &Reply) -> String {
    let mut s = format!("{r:?}");
    if s.len() > 300 {
        s.truncate(300);
        s.push('…');
    }
    s
}

impl Pair {
    fn start() -> Pair {
        let redis_guard = process::redis_server(&[]);
        let kvlab_guard = process::kvlab_server(env!("CARGO_BIN_EXE_kvlab-server"))
            .unwrap_or_else(|e| panic!("kvlab-server did not start: {e:?}"));
        let redis = redis_guard.client();
        let kvlab = kvlab_guard.client();
        Pair {
            _redis: redis_guard,
            _kvlab: kvlab_guard,
            redis,
            kvlab,
            pending: Vec::new(),
            sent: 0,
        }
    }

    /// Queues a command, sending the pipeline once it holds [`BATCH`]. A random pick ends
    /// its batch: its check reads Redis's data as it is right after the pick.
    fn push(&mut self, argv: Argv, check: Check) {
        let picks = !matches!(
            check,
            Check::Exact | Check::Unordered | Check::UnorderedPairs | Check::Ttl
        );
        self.pending.push((argv, check));
        if picks || self.pending.len() >= BATCH {
            self.flush();
        }
    }

    fn exact(&mut self, argv: Argv) {
        self.push(argv, Check::Exact);
    }

    /// Sends the queued commands to both servers, then reads and judges the replies.
    fn flush(&mut self) {
        let batch = std::mem::take(&mut self.pending);
        if batch.is_empty() {
            return;
        }
        let mut wire = Vec::new();
        for (argv, _) in &batch {
            wire.extend_from_slice(&encode_command(argv));
        }
        self.redis.send_raw(&wire).expect("send to redis-server");
        self.kvlab.send_raw(&wire).expect("send to kvlab-server");
        let mut follow_up = Vec::new();
        for (argv, check) in &batch {
            let want = self.redis.read_reply().expect("a reply from redis-server");
            let got = self.kvlab.read_reply().expect("a reply from kvlab-server");
            if let Some((for_redis, for_kvlab)) = self.judge(argv, *check, &want, &got) {
                follow_up.push((for_redis, for_kvlab));
            }
        }
        self.sent += batch.len();
        // Checks against Redis's data, and the mends after SPOP, each with its reply.
        for (for_redis, for_kvlab) in follow_up {
            for (argv, expect) in for_redis {
                let r = self.redis.call(&argv).expect("redis-server");
                assert_eq!(
                    r,
                    expect,
                    "redis-server on {} (checking kvlab's pick)",
                    show(&argv)
                );
            }
            for (argv, expect) in for_kvlab {
                let r = self.kvlab.call(&argv).expect("kvlab-server");
                assert_eq!(
                    r,
                    expect,
                    "kvlab-server on {} (mending after SPOP)",
                    show(&argv)
                );
            }
        }
    }

    /// Compares one reply pair; returns the follow-up commands (for Redis, for kvlab, each
    /// with the reply it must give) that a random pick needs.
    #[allow(clippy::type_complexity)]
    fn judge(
        &self,
        argv: &[Vec<u8>],
        check: Check,
        want: &Reply,
        got: &Reply,
    ) -> Option<(Vec<(Argv, Reply)>, Vec<(Argv, Reply)>)> {
        let fail = || {
            panic!(
                "after {} commands, {} ({check:?}):\n  redis-server: {}\n  kvlab-server: {}",
                self.sent,
                show(argv),
                short(want),
                short(got)
            )
        };
        let key = argv.get(1).cloned().unwrap_or_default();
        let one = Reply::Integer(1);
        match (check, want, got) {
            (Check::Exact, _, _) if want == got => None,
            (Check::Unordered, _, _) if canon(want, false) == canon(got, false) => None,
            (Check::UnorderedPairs, _, _) if canon(want, true) == canon(got, true) => None,
            (Check::Ttl, Reply::Integer(a), Reply::Integer(b)) if (a - b).abs() <= 1 => None,
            (_, Reply::Nil, Reply::Nil) if check != Check::Exact => None,
            (Check::SetMember, Reply::Bulk(_), Reply::Bulk(m)) => {
                Some((vec![(cmd!("SISMEMBER", key, m), one)], Vec::new()))
            }
            (Check::Key, Reply::Bulk(_), Reply::Bulk(k)) => {
                Some((vec![(cmd!("EXISTS", k), one)], Vec::new()))
            }
            (Check::ZsetMember, Reply::Array(a), Reply::Array(b)) if a.len() == b.len() => {
                match &b[..] {
                    [] => None,
                    [Reply::Bulk(m), s] => {
                        Some((vec![(cmd!("ZSCORE", key, m), s.clone())], Vec::new()))
                    }
                    _ => {
                        fail();
                        None
                    }
                }
            }
            (Check::HashField, Reply::Array(a), Reply::Array(b)) if a.len() == b.len() => {
                match &b[..] {
                    [] => None,
                    [Reply::Bulk(f), v] => {
                        Some((vec![(cmd!("HGET", key, f), v.clone())], Vec::new()))
                    }
                    _ => {
                        fail();
                        None
                    }
                }
            }
            (Check::Spop, Reply::Bulk(a), Reply::Bulk(b)) if a == b => None,
            (Check::Spop, Reply::Bulk(a), Reply::Bulk(b)) => Some((
                vec![(cmd!("SISMEMBER", key, b), one.clone())],
                vec![
                    (cmd!("SADD", key, b), one.clone()),
                    (cmd!("SREM", key, a), one),
                ],
            )),
            _ => {
                fail();
                None
            }
        }
    }

    /// Sends one command to both now (after the queue) and compares the replies.
    fn now(&mut self, argv: Argv, check: Check) {
        self.push(argv, check);
        self.flush();
    }

    /// Every key of database 0 on both sides (a full SCAN), which must be the same set.
    fn keys(&mut self) -> Vec<Vec<u8>> {
        self.flush();
        let mut all = [Vec::new(), Vec::new()];
        for (side, client) in [&mut self.redis, &mut self.kvlab].into_iter().enumerate() {
            let mut cursor = b"0".to_vec();
            loop {
                let scan: Argv = cmd!("SCAN", cursor, "COUNT", 1000usize);
                let r = client.call(&scan).unwrap();
                let Reply::Array(parts) = r else {
                    panic!("SCAN: {r:?}")
                };
                let [Reply::Bulk(next), Reply::Array(keys)] = &parts[..] else {
                    panic!("SCAN: {parts:?}")
                };
                all[side].extend(keys.iter().map(|k| match k {
                    Reply::Bulk(k) => k.clone(),
                    other => panic!("SCAN key {other:?}"),
                }));
                cursor = next.clone();
                if cursor == b"0" {
                    break;
                }
            }
            all[side].sort();
            all[side].dedup();
        }
        let [redis, kvlab] = all;
        assert_eq!(redis.len(), kvlab.len(), "DBSIZE by SCAN");
        assert!(redis == kvlab, "the two servers hold different keys");
        redis
    }

    /// Replies from redis-server alone to a pipeline of commands.
    fn ask_redis(&mut self, cmds: &[Argv]) -> Vec<Reply> {
        let wire: Vec<u8> = cmds.iter().flat_map(|c| encode_command(c)).collect();
        self.redis.send_raw(&wire).expect("send to redis-server");
        cmds.iter()
            .map(|_| self.redis.read_reply().expect("a reply from redis-server"))
            .collect()
    }

    /// Compares every key's type, encoding, cardinality and full content.
    fn compare_everything(&mut self) {
        let keys = self.keys();
        self.now(cmd!("DBSIZE"), Check::Exact);
        for chunk in keys.chunks(BATCH / 2) {
            let ask: Vec<Argv> = chunk
                .iter()
                .flat_map(|k| [cmd!("TYPE", k), cmd!("OBJECT", "ENCODING", k)])
                .collect();
            let told = self.ask_redis(&ask);
            for (k, te) in chunk.iter().zip(told.chunks(2)) {
                self.compare_key(k, &te[0], &te[1]);
            }
        }
        self.flush();
    }

    /// Queues the comparison of one key, of Redis's type `t` and encoding `enc`.
    fn compare_key(&mut self, k: &[u8], t: &Reply, enc: &Reply) {
        {
            self.exact(cmd!("TYPE", k));
            self.exact(cmd!("OBJECT", "ENCODING", k));
            let hashed = |s: &Reply| s == &Reply::Bulk(b"hashtable".to_vec());
            match t {
                Reply::Status(t) if t == "zset" => {
                    self.exact(cmd!("ZCARD", k));
                    self.exact(cmd!("ZRANGE", k, 0i64, -1i64, "WITHSCORES"));
                }
                Reply::Status(t) if t == "set" => {
                    self.exact(cmd!("SCARD", k));
                    let check = if hashed(enc) {
                        Check::Unordered
                    } else {
                        Check::Exact
                    };
                    self.push(cmd!("SMEMBERS", k), check);
                }
                Reply::Status(t) if t == "hash" => {
                    self.exact(cmd!("HLEN", k));
                    let check = if hashed(enc) {
                        Check::UnorderedPairs
                    } else {
                        Check::Exact
                    };
                    self.push(cmd!("HGETALL", k), check);
                }
                Reply::Status(t) if t == "list" => {
                    self.exact(cmd!("LLEN", k));
                    self.exact(cmd!("LRANGE", k, 0i64, -1i64));
                }
                Reply::Status(t) if t == "stream" => {
                    self.exact(cmd!("XLEN", k));
                    self.exact(cmd!("XRANGE", k, "-", "+"));
                    self.exact(cmd!("XINFO", "GROUPS", k));
                }
                Reply::Status(t) if t == "string" => {
                    self.exact(cmd!("GET", k));
                    self.push(cmd!("TTL", k), Check::Ttl);
                }
                other => panic!("TYPE {other:?}"),
            }
        }
    }

    fn report(&self, name: &str, t0: Instant) {
        eprintln!(
            "scale_diff {name}: {} commands agreed with redis-server, {:.1} s",
            self.sent,
            t0.elapsed().as_secs_f64()
        );
    }
}

/// A score drawn as the model tests draw them: in order, random, or tied.
fn score(rng: &mut Rng, i: usize) -> f64 {
    match rng.u8(..10) {
        0..=2 => i as f64,
        3..=5 => rng.f64() * 1e6,
        6..=8 => f64::from(rng.u8(..64)),
        _ => [f64::INFINITY, f64::NEG_INFINITY, 1e300, -2.5][rng.usize(..4)],
    }
}

fn member(i: usize) -> Vec<u8> {
    if i % 5 == 0 {
        format!("a member name long enough to live out of line:{i}").into_bytes()
    } else {
        format!("m{i}").into_bytes()
    }
}

/// The reproduction of issue 18, then a million-member set under every kind of update and
/// read, then ten thousand small sets (the listpack encoding, some converting).
#[test]
fn zsets_agree_with_redis_at_a_million_members() {
    let t0 = Instant::now();
    let n = elements();
    let mut rng = rng(11);
    let mut p = Pair::start();
    // The reproduction: one member per ZADD, scores in order; then 1,000 per ZADD.
    for i in 0..n {
        p.exact(cmd!("ZADD", "z:inorder", i, format!("m{i}")));
    }
    p.now(cmd!("ZCARD", "z:inorder"), Check::Exact);
    for s in (0..n).step_by(1000) {
        let mut argv = cmd!("ZADD", "z:bulk");
        for i in s..(s + 1000).min(n) {
            argv.push((rng.f64() * 1e6).arg());
            argv.push(format!("m{i}").into_bytes());
        }
        p.exact(argv);
    }
    p.now(cmd!("ZCARD", "z:bulk"), Check::Exact);
    // Churn on a set that keeps growing: every ZADD flag, ZINCRBY, removals, pops, reads.
    let key = "z:inorder";
    let mut next = n;
    for _ in 0..n {
        let i = rng.usize(..next + next / 10);
        let m = member(i);
        match rng.u8(..20) {
            0..=3 => {
                next += 1;
                p.exact(cmd!("ZADD", key, score(&mut rng, next), member(next)));
            }
            4..=6 => {
                let flags: &[&str] = [
                    &["XX"][..],
                    &["NX"],
                    &["GT", "CH"],
                    &["LT"],
                    &["XX", "INCR"],
                    &["CH"],
                ][rng.usize(..6)];
                let mut argv = cmd!("ZADD", key);
                argv.extend(flags.iter().map(|f| f.arg()));
                argv.push(score(&mut rng, i).arg());
                argv.push(m);
                p.exact(argv);
            }
            7 => p.exact(cmd!("ZINCRBY", key, f64::from(rng.i8(..)) / 4.0, m)),
            8 => p.exact(cmd!("ZREM", key, m)),
            9 => p.exact(cmd!("ZSCORE", key, m)),
            10 => p.exact(cmd!("ZRANK", key, m)),
            11 => p.exact(cmd!("ZREVRANK", key, m)),
            12 => {
                let r = rng.usize(..n);
                p.exact(cmd!("ZRANGE", key, r, r + 9, "WITHSCORES"));
            }
            13 => {
                let lo = rng.u8(..64);
                p.exact(cmd!(
                    "ZRANGEBYSCORE",
                    key,
                    format!("({lo}"),
                    "+inf",
                    "WITHSCORES",
                    "LIMIT",
                    0usize,
                    10usize
                ));
            }
            14 => {
                let a = score(&mut rng, i);
                p.exact(cmd!("ZCOUNT", key, a, "+inf"));
            }
            15 => p.exact(cmd!(if rng.bool() { "ZPOPMIN" } else { "ZPOPMAX" }, key)),
            16 if rng.u8(..10) == 0 => p.push(
                cmd!("ZRANDMEMBER", key, 1usize, "WITHSCORES"),
                Check::ZsetMember,
            ),
            17 => p.exact(cmd!("ZMSCORE", key, m, member(i + 1), member(i + 2))),
            18 => p.exact(cmd!("ZREMRANGEBYRANK", key, 0usize, rng.usize(..3))),
            _ => p.exact(cmd!("ZCARD", key)),
        }
    }
    // Small sets: listpacks, a tenth of them growing past 128 members and converting.
    let small = n / 100;
    for k in 0..small {
        let mut argv = cmd!("ZADD", format!("z:small:{k}"));
        for j in 0..90 {
            argv.push(f64::from(rng.i8(..)).arg());
            argv.push(format!("f{j}").into_bytes());
        }
        p.exact(argv);
    }
    for _ in 0..n / 2 {
        let k = rng.usize(..small);
        let key = format!("z:small:{k}");
        let m = format!("f{}", rng.usize(..if k % 10 == 0 { 200 } else { 120 }));
        match rng.u8(..8) {
            0..=2 => p.exact(cmd!("ZADD", key, f64::from(rng.i8(..)) / 2.0, m)),
            3 => p.exact(cmd!("ZINCRBY", key, 1.5f64, m)),
            4 => p.exact(cmd!("ZREM", key, m)),
            5 => p.exact(cmd!("ZRANK", key, m)),
            6 => p.exact(cmd!("ZRANGE", key, 0i64, 4i64, "WITHSCORES")),
            _ => p.exact(cmd!("OBJECT", "ENCODING", key)),
        }
    }
    p.compare_everything();
    p.report("zset", t0);
}

/// A million-member set (SADD, SREM, SISMEMBER, SMISMEMBER, SPOP, SRANDMEMBER) and small
/// sets of integers that stay intsets or convert.
#[test]
fn sets_agree_with_redis_at_a_million_members() {
    let t0 = Instant::now();
    let n = elements();
    let mut rng = rng(12);
    let mut p = Pair::start();
    let name = |i: usize| -> Vec<u8> {
        if i % 2 == 0 {
            i.to_string().into_bytes()
        } else {
            member(i)
        }
    };
    for s in (0..n).step_by(10) {
        let mut argv = cmd!("SADD", "s:big");
        argv.extend((s..s + 10).map(name));
        p.exact(argv);
    }
    p.now(cmd!("SCARD", "s:big"), Check::Exact);
    let mut next = n;
    for _ in 0..n {
        let m = name(rng.usize(..next + next / 10));
        match rng.u8(..10) {
            0..=2 => {
                next += 1;
                p.exact(cmd!("SADD", "s:big", name(next), m));
            }
            3 => p.exact(cmd!("SREM", "s:big", m)),
            4 => p.exact(cmd!("SISMEMBER", "s:big", m)),
            5 => p.exact(cmd!("SMISMEMBER", "s:big", m, name(next + 1))),
            6 if rng.u8(..10) == 0 => p.push(cmd!("SPOP", "s:big"), Check::Spop),
            7 if rng.u8(..10) == 0 => p.push(cmd!("SRANDMEMBER", "s:big"), Check::SetMember),
            8 => p.exact(cmd!("SCARD", "s:big")),
            _ => {
                let k = rng.usize(..100);
                let v = if k % 2 == 0 {
                    rng.i64(-200..200)
                } else {
                    rng.i64(-1000..1000)
                };
                let key = format!("s:small:{k}");
                match rng.u8(..4) {
                    0 => p.exact(cmd!("SREM", key, v)),
                    _ => p.exact(cmd!("SADD", key, v)),
                }
            }
        }
    }
    p.compare_everything();
    p.report("set", t0);
}

/// A million-field hash (HSET new and overwriting, HDEL, HGET, HMGET, HEXISTS, HINCRBY,
/// HRANDFIELD) and small hashes whose listpack order must match Redis's.
#[test]
fn hashes_agree_with_redis_at_a_million_fields() {
    let t0 = Instant::now();
    let n = elements();
    let mut rng = rng(13);
    let mut p = Pair::start();
    for s in (0..n).step_by(10) {
        let mut argv = cmd!("HSET", "h:big");
        for i in s..s + 10 {
            argv.push(member(i));
            argv.push(format!("value {i}").into_bytes());
        }
        p.exact(argv);
    }
    p.now(cmd!("HLEN", "h:big"), Check::Exact);
    let mut next = n;
    for _ in 0..n {
        let f = member(rng.usize(..next + next / 10));
        match rng.u8(..11) {
            0..=2 => {
                next += 1;
                p.exact(cmd!("HSET", "h:big", member(next), "new", f, "overwritten"));
            }
            3 => p.exact(cmd!("HDEL", "h:big", f)),
            4 => p.exact(cmd!("HGET", "h:big", f)),
            5 => p.exact(cmd!("HMGET", "h:big", f, member(next + 1))),
            6 => p.exact(cmd!("HEXISTS", "h:big", f)),
            7 => p.exact(cmd!(
                "HINCRBY",
                "h:big",
                format!("counter{}", rng.u8(..100)),
                3i64
            )),
            8 if rng.u8(..10) == 0 => p.push(
                cmd!("HRANDFIELD", "h:big", 1usize, "WITHVALUES"),
                Check::HashField,
            ),
            9 => p.exact(cmd!("HLEN", "h:big")),
            _ => {
                let k = rng.usize(..100);
                let key = format!("h:small:{k}");
                let f = format!("f{}", rng.usize(..if k % 2 == 0 { 300 } else { 600 }));
                match rng.u8(..4) {
                    0 => p.exact(cmd!("HDEL", key, f)),
                    _ => p.exact(cmd!("HSET", key, f, "v")),
                }
            }
        }
    }
    p.compare_everything();
    p.report("hash", t0);
}

/// A million-element list: pushes and pops at both ends, LINDEX, LSET, LRANGE, LTRIM,
/// and the scanning LINSERT, LREM and LPOS now and then.
#[test]
fn lists_agree_with_redis_at_a_million_elements() {
    let t0 = Instant::now();
    let n = elements();
    let mut rng = rng(14);
    let mut p = Pair::start();
    let value = |rng: &mut Rng, i: usize| -> Vec<u8> {
        if rng.u8(..50) == 0 {
            format!("common{}", rng.u8(..4)).into_bytes()
        } else {
            format!("v{i}").into_bytes()
        }
    };
    for s in (0..n).step_by(10) {
        let mut argv = cmd!(if rng.bool() { "RPUSH" } else { "LPUSH" }, "l");
        argv.extend((s..s + 10).map(|i| value(&mut rng, i)));
        p.exact(argv);
    }
    p.now(cmd!("LLEN", "l"), Check::Exact);
    let len = n as i64;
    for i in 0..n {
        let at = rng.i64(-len..len);
        match rng.u16(..1000) {
            0..=249 => p.exact(cmd!(
                if rng.bool() { "RPUSH" } else { "LPUSH" },
                "l",
                value(&mut rng, n + i)
            )),
            250..=449 => p.exact(cmd!(if rng.bool() { "RPOP" } else { "LPOP" }, "l")),
            450..=499 => p.exact(cmd!("LPOP", "l", rng.usize(..5))),
            500..=699 => p.exact(cmd!("LINDEX", "l", at)),
            700..=799 => p.exact(cmd!("LSET", "l", at, format!("set{i}"))),
            800..=949 => p.exact(cmd!("LRANGE", "l", at, at + 9)),
            950..=989 => p.exact(cmd!("LLEN", "l")),
            990..=996 => p.exact(cmd!("LTRIM", "l", rng.i64(0..3), rng.i64(-3..-1))),
            997 if rng.u8(..20) == 0 => p.exact(cmd!(
                "LINSERT",
                "l",
                if rng.bool() { "BEFORE" } else { "AFTER" },
                format!("common{}", rng.u8(..4)),
                format!("inserted{i}")
            )),
            998 if rng.u8(..20) == 0 => p.exact(cmd!(
                "LREM",
                "l",
                rng.i64(-2..3),
                format!("common{}", rng.u8(..4))
            )),
            999 if rng.u8(..20) == 0 => p.exact(cmd!(
                "LPOS",
                "l",
                format!("common{}", rng.u8(..4)),
                "RANK",
                -1i64,
                "COUNT",
                3usize
            )),
            _ => p.exact(cmd!("LINDEX", "l", 0i64)),
        }
    }
    p.compare_everything();
    p.report("list", t0);
}

/// A million-entry stream: XADD with explicit IDs, XDEL, XRANGE and XREVRANGE windows,
/// exact and approximate XTRIM, and a consumer group reading and acknowledging.
#[test]
fn streams_agree_with_redis_at_a_million_entries() {
    let t0 = Instant::now();
    let n = elements();
    let mut rng = rng(15);
    let mut p = Pair::start();
    let mut ms = 1usize;
    let mut ids = Vec::with_capacity(n * 2);
    p.exact(cmd!("XGROUP", "CREATE", "x", "g", "0", "MKSTREAM"));
    for i in 0..n {
        ms += rng.usize(..3);
        let id = format!("{ms}-{i}");
        p.exact(cmd!("XADD", "x", id.clone(), "n", i, "kind", "load"));
        ids.push(id);
    }
    p.now(cmd!("XLEN", "x"), Check::Exact);
    for i in 0..n {
        let pick = ids[rng.usize(..ids.len())].clone();
        match rng.u8(..20) {
            0..=5 => {
                ms += 1;
                let id = format!("{ms}-0");
                p.exact(cmd!("XADD", "x", id.clone(), "n", i));
                ids.push(id);
            }
            6..=7 => p.exact(cmd!("XDEL", "x", pick)),
            8..=10 => p.exact(cmd!("XRANGE", "x", pick, "+", "COUNT", 10usize)),
            // From the end down (Redis walks a reverse range over every deleted entry it
            // meets, so one that ends below the trimmed start can take 200 ms).
            11 => p.exact(cmd!("XREVRANGE", "x", "+", pick, "COUNT", 10usize)),
            12..=13 => p.exact(cmd!(
                "XREADGROUP",
                "GROUP",
                "g",
                ["alice", "bob"][rng.usize(..2)],
                "COUNT",
                5usize,
                "STREAMS",
                "x",
                ">"
            )),
            14 => p.exact(cmd!("XACK", "x", "g", pick)),
            15 => p.exact(cmd!("XPENDING", "x", "g")),
            16 => p.exact(cmd!("XLEN", "x")),
            17 if rng.u8(..10) == 0 => p.exact(cmd!("XTRIM", "x", "MAXLEN", "~", n - n / 100)),
            18 if rng.u8(..10) == 0 => {
                let id = &ids[rng.usize(..ids.len() / 50 + 1)];
                p.exact(cmd!("XTRIM", "x", "MINID", id.clone()))
            }
            // XINFO GROUPS computes each group's lag, which costs Redis 7.0 a walk over
            // the stream's tombstones: now and then.
            19 if rng.u8(..50) == 0 => p.exact(cmd!("XINFO", "GROUPS", "x")),
            _ => p.exact(cmd!("XLEN", "x")),
        }
    }
    p.now(cmd!("XINFO", "STREAM", "x"), Check::Exact);
    p.compare_everything();
    p.report("stream", t0);
}

/// A million keys: SET (with and without TTL, KEEPTTL), GET, MGET, DEL, EXISTS, EXPIRE,
/// PERSIST, TTL, TYPE, RANDOMKEY and DBSIZE.
#[test]
fn keyspaces_agree_with_redis_at_a_million_keys() {
    let t0 = Instant::now();
    let n = elements();
    let mut rng = rng(16);
    let mut p = Pair::start();
    let key = |i: usize| format!("key:{i}");
    for i in 0..n {
        if i % 5 == 0 {
            p.exact(cmd!(
                "SET",
                key(i),
                format!("value {i}"),
                "EX",
                100_000usize
            ));
        } else {
            p.exact(cmd!("SET", key(i), format!("value {i}")));
        }
    }
    p.now(cmd!("DBSIZE"), Check::Exact);
    let mut next = n;
    for _ in 0..n {
        let k = key(rng.usize(..next + next / 10));
        match rng.u8(..14) {
            0..=2 => {
                next += 1;
                p.exact(cmd!("SET", key(next), "new"));
            }
            3 => p.exact(cmd!("SET", k, "overwritten", "KEEPTTL")),
            4 => p.exact(cmd!("GET", k)),
            5 => p.exact(cmd!("MGET", k, key(next + 1))),
            6 => p.exact(cmd!("DEL", k)),
            7 => p.exact(cmd!("EXISTS", k)),
            8 => p.exact(cmd!("EXPIRE", k, 50_000usize + rng.usize(..50_000))),
            9 => p.exact(cmd!("PERSIST", k)),
            10 => p.push(cmd!("TTL", k), Check::Ttl),
            11 => p.exact(cmd!("TYPE", k)),
            12 if rng.u8(..10) == 0 => p.push(cmd!("RANDOMKEY"), Check::Key),
            _ => p.exact(cmd!("DBSIZE")),
        }
    }
    p.compare_everything();
    p.report("keyspace", t0);
}
