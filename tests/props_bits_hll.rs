//! Property tests for bitmaps and HyperLogLog.
//!
//! * The bit commands against a model that keeps each key as a `Vec<bool>` and computes
//!   every reply bit by bit (BITFIELD's overflow rules in 128-bit arithmetic).
//! * HyperLogLog: the estimate stays within Redis's own self-test bound (six standard
//!   errors) for random sets; a sparse value and its dense conversion give the same count
//!   and registers; PFCOUNT of several keys equals PFCOUNT of their PFMERGE.
//! * Effects: replaying the recorded effects into a fresh engine gives the same bytes.
//! * No input panics: random arguments (huge offsets, `i64::MIN` ranges, arbitrary bytes
//!   behind a `HYLL` header) only ever produce replies.

#![cfg(not(target_arch = "wasm32"))]

use std::collections::HashMap;

use kvlab::engine::{Engine, ManualClock, Reply};
use proptest::prelude::*;

const T0: i64 = 1_704_067_200_000;

fn engine() -> (Engine, u64) {
    let mut e = Engine::new(Box::new(ManualClock::at_ms(T0)), 9);
    let c = e.connect();
    (e, c)
}

fn run(e: &mut Engine, c: u64, argv: Vec<Vec<u8>>) -> Reply {
    e.execute(c, argv)
}

fn argv(parts: &[&dyn AsArg]) -> Vec<Vec<u8>> {
    parts.iter().map(|p| p.as_arg()).collect()
}

/// Anything that can be a command argument.
trait AsArg {
    fn as_arg(&self) -> Vec<u8>;
}
impl AsArg for &str {
    fn as_arg(&self) -> Vec<u8> {
        self.as_bytes().to_vec()
    }
}
impl AsArg for String {
    fn as_arg(&self) -> Vec<u8> {
        self.as_bytes().to_vec()
    }
}
impl AsArg for i64 {
    fn as_arg(&self) -> Vec<u8> {
        self.to_string().into_bytes()
    }
}
impl AsArg for u64 {
    fn as_arg(&self) -> Vec<u8> {
        self.to_string().into_bytes()
    }
}
impl AsArg for Vec<u8> {
    fn as_arg(&self) -> Vec<u8> {
        self.clone()
    }
}

// ---------------------------------------------------------------------------------------
// Bit commands against a Vec<bool> model
// ---------------------------------------------------------------------------------------

const KEYS: [&str; 3] = ["a", "b", "c"];

#[derive(Debug, Clone)]
enum FieldOp {
    Get,
    Set(i64),
    Incr(i64),
}

#[derive(Debug, Clone)]
struct FieldCmd {
    op: FieldOp,
    signed: bool,
    bits: u32,
    offset: u64,
    hash: bool,
    overflow: Option<u8>,
}

#[derive(Debug, Clone)]
enum Cmd {
    SetStr(usize, Vec<u8>),
    SetBit(usize, u64, bool),
    GetBit(usize, u64),
    BitCount(usize, Option<(i64, i64, Option<bool>)>),
    BitPos(usize, bool, Option<i64>, Option<i64>, Option<bool>),
    BitOp(u8, usize, Vec<usize>),
    BitField(usize, Vec<FieldCmd>),
    Del(usize),
}

fn field_strategy() -> impl Strategy<Value = FieldCmd> {
    (
        0u8..3,
        any::<bool>(),
        1u32..=64,
        0u64..120,
        any::<bool>(),
        prop_oneof![Just(None), (0u8..3).prop_map(Some)],
        prop_oneof![any::<i64>(), -300i64..300, Just(i64::MIN), Just(i64::MAX)],
    )
        .prop_map(|(kind, signed, bits, offset, hash, overflow, v)| {
            let bits = if signed { bits } else { bits.min(63) };
            FieldCmd {
                op: match kind {
                    0 => FieldOp::Get,
                    1 => FieldOp::Set(v),
                    _ => FieldOp::Incr(v),
                },
                signed,
                bits,
                offset: if hash { offset % 8 } else { offset },
                hash,
                overflow,
            }
        })
}

fn op_strategy() -> impl Strategy<Value = Cmd> {
    let k = 0usize..3;
    let idx = prop_oneof![-40i64..40, Just(i64::MIN), Just(i64::MAX)];
    prop_oneof![
        (k.clone(), proptest::collection::vec(any::<u8>(), 0..12))
            .prop_map(|(k, v)| Cmd::SetStr(k, v)),
        (k.clone(), 0u64..160, any::<bool>()).prop_map(|(k, o, v)| Cmd::SetBit(k, o, v)),
        (k.clone(), 0u64..180).prop_map(|(k, o)| Cmd::GetBit(k, o)),
        (
            k.clone(),
            proptest::option::of((
                idx.clone(),
                idx.clone(),
                proptest::option::of(any::<bool>())
            ))
        )
            .prop_map(|(k, r)| Cmd::BitCount(k, r)),
        (
            k.clone(),
            any::<bool>(),
            proptest::option::of(idx.clone()),
            proptest::option::of(idx),
            proptest::option::of(any::<bool>())
        )
            .prop_map(|(k, b, s, e, u)| Cmd::BitPos(k, b, s, e, u)),
        (
            0u8..4,
            k.clone(),
            proptest::collection::vec(0usize..4, 1..4)
        )
            .prop_map(|(o, d, s)| Cmd::BitOp(o, d, s)),
        (k.clone(), proptest::collection::vec(field_strategy(), 0..4))
            .prop_map(|(k, f)| Cmd::BitField(k, f)),
        k.prop_map(Cmd::Del),
    ]
}

/// The model: each key's bits, most significant bit of each byte first.
#[derive(Default)]
struct Model {
    keys: HashMap<&'static str, Vec<bool>>,
}

fn to_bits(bytes: &[u8]) -> Vec<bool> {
    bytes
        .iter()
        .flat_map(|b| (0..8).map(move |i| b & (0x80 >> i) != 0))
        .collect()
}

fn to_bytes(bits: &[bool]) -> Vec<u8> {
    bits.chunks(8)
        .map(|c| {
            c.iter()
                .enumerate()
                .fold(0u8, |acc, (i, &b)| acc | (u8::from(b) << (7 - i)))
        })
        .collect()
}

/// Resolves a BITCOUNT/BITPOS range over `total` units to an inclusive bit range.
fn resolve(total_bytes: usize, start: i64, end: i64, in_bits: bool) -> Option<(usize, usize)> {
    let unit: i128 = if in_bits { 1 } else { 8 };
    let total = total_bytes as i128 * 8 / unit;
    let fix = |v: i64| {
        let v = i128::from(v);
        (if v < 0 { total + v } else { v }).max(0)
    };
    let (s, e) = (fix(start), fix(end).min(total - 1));
    if s > e {
        return None;
    }
    Some(((s * unit) as usize, (e * unit + unit - 1) as usize))
}

fn field_limits(signed: bool, bits: u32) -> (i128, i128) {
    if signed {
        (-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1)
    } else {
        (0, (1i128 << bits) - 1)
    }
}

fn read_field(bits: &[bool], f: &FieldCmd, offset: usize) -> i128 {
    let mut v: i128 = 0;
    for i in 0..f.bits as usize {
        v = (v << 1) | i128::from(*bits.get(offset + i).unwrap_or(&false));
    }
    if f.signed && v >= 1i128 << (f.bits - 1) {
        v -= 1i128 << f.bits;
    }
    v
}

impl Model {
    /// Applies `op` and returns the reply Redis gives.
    fn apply(&mut self, op: &Cmd) -> Reply {
        match op {
            Cmd::SetStr(k, v) => {
                self.keys.insert(KEYS[*k], to_bits(v));
                Reply::ok()
            }
            Cmd::Del(k) => Reply::Integer(i64::from(self.keys.remove(KEYS[*k]).is_some())),
            Cmd::SetBit(k, off, v) => {
                let bits = self.keys.entry(KEYS[*k]).or_default();
                let off = *off as usize;
                if bits.len() <= off {
                    bits.resize((off / 8 + 1) * 8, false);
                }
                let old = bits[off];
                bits[off] = *v;
                Reply::Integer(i64::from(old))
            }
            Cmd::GetBit(k, off) => {
                let b = self
                    .keys
                    .get(KEYS[*k])
                    .and_then(|b| b.get(*off as usize).copied())
                    .unwrap_or(false);
                Reply::Integer(i64::from(b))
            }
            Cmd::BitCount(k, range) => {
                let Some(bits) = self.keys.get(KEYS[*k]) else {
                    return Reply::Integer(0);
                };
                let (s, e) = match range {
                    None => (0, bits.len()),
                    Some((s, e, _)) if *s < 0 && *e < 0 && s > e => return Reply::Integer(0),
                    Some((s, e, u)) => match resolve(bits.len() / 8, *s, *e, *u == Some(true)) {
                        Some((s, e)) => (s, e + 1),
                        None => return Reply::Integer(0),
                    },
                };
                Reply::Integer(bits[s..e].iter().filter(|&&b| b).count() as i64)
            }
            Cmd::BitPos(k, bit, start, end, unit) => {
                let Some(bits) = self.keys.get(KEYS[*k]) else {
                    return Reply::Integer(if *bit { -1 } else { 0 });
                };
                let (start, end, unit) = normalize_bitpos(*start, *end, *unit);
                let range = match start {
                    None if bits.is_empty() => None,
                    None => Some((0, bits.len() - 1)),
                    Some(s) => resolve(bits.len() / 8, s, end.unwrap_or(-1), unit == Some(true)),
                };
                let Some((s, e)) = range else {
                    return Reply::Integer(-1);
                };
                match (s..=e).find(|&i| bits[i] == *bit) {
                    Some(p) => Reply::Integer(p as i64),
                    None if *bit || end.is_some() => Reply::Integer(-1),
                    None => Reply::Integer(e as i64 + 1),
                }
            }
            Cmd::BitOp(o, dest, srcs) => {
                let srcs = if *o == 3 { &srcs[..1] } else { &srcs[..] };
                let inputs: Vec<Vec<bool>> = srcs
                    .iter()
                    .map(|&s| {
                        KEYS.get(s)
                            .and_then(|k| self.keys.get(k).cloned())
                            .unwrap_or_default()
                    })
                    .collect();
                let len = inputs.iter().map(Vec::len).max().unwrap_or(0);
                let at = |v: &Vec<bool>, i: usize| v.get(i).copied().unwrap_or(false);
                let out: Vec<bool> = (0..len)
                    .map(|i| {
                        let mut it = inputs.iter().map(|v| at(v, i));
                        let first = it.next().unwrap_or(false);
                        match o {
                            0 => it.fold(first, |a, b| a & b),
                            1 => it.fold(first, |a, b| a | b),
                            2 => it.fold(first, |a, b| a ^ b),
                            _ => !first,
                        }
                    })
                    .collect();
                if out.is_empty() {
                    self.keys.remove(KEYS[*dest]);
                } else {
                    self.keys.insert(KEYS[*dest], out);
                }
                Reply::Integer((len / 8) as i64)
            }
            Cmd::BitField(k, fields) => {
                let writes = fields.iter().any(|f| !matches!(f.op, FieldOp::Get));
                if writes {
                    let bits = self.keys.entry(KEYS[*k]).or_default();
                    let top = fields
                        .iter()
                        .filter(|f| !matches!(f.op, FieldOp::Get))
                        .map(|f| field_offset(f) + f.bits as usize)
                        .max()
                        .unwrap_or(0);
                    if bits.len() < top {
                        bits.resize(top.div_ceil(8) * 8, false);
                    }
                }
                let mut overflow = 0u8;
                let mut replies = Vec::new();
                for f in fields {
                    if let Some(o) = f.overflow {
                        overflow = o;
                    }
                    let off = field_offset(f);
                    let empty = Vec::new();
                    let bits = self.keys.get(KEYS[*k]).unwrap_or(&empty);
                    let old = read_field(bits, f, off);
                    let (min, max) = field_limits(f.signed, f.bits);
                    let (target, reply_old) = match f.op {
                        FieldOp::Get => {
                            replies.push(Reply::Integer(old as i64));
                            continue;
                        }
                        // An unsigned SET takes the value as a 64-bit unsigned number.
                        FieldOp::Set(v) if !f.signed => (i128::from(v as u64), true),
                        FieldOp::Set(v) => (i128::from(v), true),
                        FieldOp::Incr(by) => (old + i128::from(by), false),
                    };
                    let modulus = 1i128 << f.bits;
                    let new = if (min..=max).contains(&target) {
                        target
                    } else {
                        match overflow {
                            0 => {
                                let w = target.rem_euclid(modulus);
                                if w > max {
                                    w - modulus
                                } else {
                                    w
                                }
                            }
                            1 => {
                                // Redis quirk: SET of a signed field computes `max - value`
                                // in 64 bits, which wraps for values within `max` of
                                // i64::MIN, and then saturates them upwards.
                                let wraps = matches!(f.op, FieldOp::Set(_))
                                    && f.signed
                                    && f.bits < 64
                                    && target < max - i128::from(i64::MAX);
                                if target > max || wraps {
                                    max
                                } else {
                                    min
                                }
                            }
                            _ => {
                                replies.push(Reply::Nil);
                                continue;
                            }
                        }
                    };
                    let bits = self.keys.entry(KEYS[*k]).or_default();
                    let raw = new.rem_euclid(modulus);
                    for i in 0..f.bits as usize {
                        bits[off + i] = (raw >> (f.bits as usize - 1 - i)) & 1 == 1;
                    }
                    replies.push(Reply::Integer(if reply_old { old } else { new } as i64));
                }
                Reply::Array(replies)
            }
        }
    }
}

/// BITPOS takes `start [end [unit]]`: an end needs a start, a unit needs an end.
fn normalize_bitpos(
    start: Option<i64>,
    end: Option<i64>,
    unit: Option<bool>,
) -> (Option<i64>, Option<i64>, Option<bool>) {
    match (start, end) {
        (None, _) => (None, None, None),
        (Some(s), None) => (Some(s), None, None),
        (Some(s), Some(e)) => (Some(s), Some(e), unit),
    }
}

fn field_offset(f: &FieldCmd) -> usize {
    if f.hash {
        (f.offset * u64::from(f.bits)) as usize
    } else {
        f.offset as usize
    }
}

fn render(op: &Cmd) -> Vec<Vec<u8>> {
    let key = |k: &usize| KEYS.get(*k).copied().unwrap_or("none").as_arg();
    match op {
        Cmd::SetStr(k, v) => vec![b"SET".to_vec(), key(k), v.clone()],
        Cmd::Del(k) => vec![b"DEL".to_vec(), key(k)],
        Cmd::SetBit(k, o, v) => argv(&[&"SETBIT", &key(k), o, &i64::from(*v)]),
        Cmd::GetBit(k, o) => argv(&[&"GETBIT", &key(k), o]),
        Cmd::BitCount(k, r) => {
            let mut a = argv(&[&"BITCOUNT", &key(k)]);
            if let Some((s, e, u)) = r {
                a.push(s.as_arg());
                a.push(e.as_arg());
                if let Some(u) = u {
                    a.push(if *u { "BIT" } else { "BYTE" }.as_arg());
                }
            }
            a
        }
        Cmd::BitPos(k, b, s, e, u) => {
            let (s, e, u) = normalize_bitpos(*s, *e, *u);
            let mut a = argv(&[&"BITPOS", &key(k), &i64::from(*b)]);
            a.extend(s.map(|v| v.as_arg()));
            a.extend(e.map(|v| v.as_arg()));
            a.extend(u.map(|u| if u { "bit" } else { "byte" }.as_arg()));
            a
        }
        Cmd::BitOp(o, d, s) => {
            let name = ["AND", "OR", "XOR", "NOT"][*o as usize];
            let mut a = argv(&[&"BITOP", &name, &key(d)]);
            let srcs = if *o == 3 { &s[..1] } else { &s[..] };
            a.extend(srcs.iter().map(key));
            a
        }
        Cmd::BitField(k, fields) => {
            let mut a = argv(&[&"BITFIELD", &key(k)]);
            for f in fields {
                if let Some(o) = f.overflow {
                    a.push(b"OVERFLOW".to_vec());
                    a.push(["WRAP", "SAT", "FAIL"][o as usize].as_arg());
                }
                let ty = format!("{}{}", if f.signed { 'i' } else { 'u' }, f.bits);
                let off = if f.hash {
                    format!("#{}", f.offset)
                } else {
                    f.offset.to_string()
                };
                match f.op {
                    FieldOp::Get => a.extend(argv(&[&"GET", &ty, &off])),
                    FieldOp::Set(v) => a.extend(argv(&[&"SET", &ty, &off, &v])),
                    FieldOp::Incr(v) => a.extend(argv(&[&"INCRBY", &ty, &off, &v])),
                }
            }
            a
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn bit_commands_match_a_bool_vector_model(ops in proptest::collection::vec(op_strategy(), 1..30)) {
        let (mut e, c) = engine();
        let mut model = Model::default();
        for op in &ops {
            let want = model.apply(op);
            let got = run(&mut e, c, render(op));
            prop_assert_eq!(&got, &want, "{:?}", op);
            for k in KEYS {
                let got = run(&mut e, c, argv(&[&"GET", &k]));
                let want = Reply::bulk_or_nil(model.keys.get(k).map(|b| to_bytes(b)).as_deref());
                prop_assert_eq!(got, want, "key {} after {:?}", k, op);
            }
        }
    }
}

// ---------------------------------------------------------------------------------------
// HyperLogLog
// ---------------------------------------------------------------------------------------

fn int(r: Reply) -> i64 {
    match r {
        Reply::Integer(n) => n,
        other => panic!("expected an integer, got {other:?}"),
    }
}

fn bulk(r: Reply) -> Vec<u8> {
    match r {
        Reply::Bulk(b) => b,
        other => panic!("expected a bulk string, got {other:?}"),
    }
}

/// Adds `elements` to `key` in batches.
fn pfadd_all(e: &mut Engine, c: u64, key: &str, elements: &[Vec<u8>]) {
    for chunk in elements.chunks(50) {
        let mut a = argv(&[&"PFADD", &key]);
        a.extend(chunk.iter().cloned());
        let r = run(e, c, a);
        assert!(!r.is_error(), "{r:?}");
    }
}

/// Redis's PFSELFTEST bound: six standard errors (1.04 / sqrt(16384)), with room for the
/// ±1 rounding and a few register collisions at tiny cardinalities.
fn within_bound(n: usize, est: i64) -> bool {
    let relerr = 1.04 / (16384f64).sqrt();
    let max = ((relerr * 6.0 * n as f64).ceil() as i64).max(3);
    (est - n as i64).abs() <= max
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(12))]

    #[test]
    fn estimate_is_within_six_standard_errors(seed in any::<u64>(), n in prop_oneof![0usize..200, 200usize..40_000]) {
        let (mut e, c) = engine();
        let mut rng = fastrand::Rng::with_seed(seed);
        // Distinct elements: a counter behind a random prefix.
        let prefix: Vec<u8> = (0..rng.usize(0..12)).map(|_| rng.u8(..)).collect();
        let elements: Vec<Vec<u8>> = (0..n as u64)
            .map(|i| [prefix.as_slice(), &i.to_le_bytes()].concat())
            .collect();
        pfadd_all(&mut e, c, "h", &elements);
        let est = int(run(&mut e, c, argv(&[&"PFCOUNT", &"h"])));
        prop_assert!(within_bound(n, est), "n={} estimate={}", n, est);
        // The cached value answers the same.
        prop_assert_eq!(int(run(&mut e, c, argv(&[&"PFCOUNT", &"h"]))), est);
    }

    #[test]
    fn sparse_to_dense_preserves_count_and_registers(elements in proptest::collection::vec(proptest::collection::vec(any::<u8>(), 0..10), 1..1500)) {
        let (mut e, c) = engine();
        // A large limit keeps the value sparse (unless a register passes 32).
        run(&mut e, c, argv(&[&"CONFIG", &"SET", &"hll-sparse-max-bytes", &"1000000"]));
        pfadd_all(&mut e, c, "s", &elements);
        let bytes = bulk(run(&mut e, c, argv(&[&"GET", &"s"])));
        run(&mut e, c, vec![b"SET".to_vec(), b"d".to_vec(), bytes]);
        run(&mut e, c, argv(&[&"PFDEBUG", &"TODENSE", &"d"]));
        prop_assert_eq!(run(&mut e, c, argv(&[&"PFDEBUG", &"ENCODING", &"d"])), Reply::status("dense"));
        let count_s = int(run(&mut e, c, argv(&[&"PFCOUNT", &"s"])));
        let count_d = int(run(&mut e, c, argv(&[&"PFCOUNT", &"d"])));
        prop_assert_eq!(count_s, count_d);
        // Adding the same elements to a value that is dense from the start agrees too.
        run(&mut e, c, argv(&[&"PFADD", &"fromdense"]));
        run(&mut e, c, argv(&[&"PFDEBUG", &"TODENSE", &"fromdense"]));
        pfadd_all(&mut e, c, "fromdense", &elements);
        prop_assert_eq!(int(run(&mut e, c, argv(&[&"PFCOUNT", &"fromdense"]))), count_s);
        let regs_d = run(&mut e, c, argv(&[&"PFDEBUG", &"GETREG", &"d"]));
        let regs_s = run(&mut e, c, argv(&[&"PFDEBUG", &"GETREG", &"s"]));
        prop_assert_eq!(regs_d, regs_s);
        // With the default limit the value may turn dense on the way; the count is the same.
        run(&mut e, c, argv(&[&"CONFIG", &"SET", &"hll-sparse-max-bytes", &"3000"]));
        pfadd_all(&mut e, c, "default", &elements);
        prop_assert_eq!(int(run(&mut e, c, argv(&[&"PFCOUNT", &"default"]))), count_s);
    }

    #[test]
    fn count_of_several_keys_equals_count_of_their_merge(
        a in proptest::collection::vec(0u32..5000, 0..800),
        b in proptest::collection::vec(0u32..5000, 0..800),
    ) {
        let (mut e, c) = engine();
        let enc = |v: &Vec<u32>| v.iter().map(|x| x.to_string().into_bytes()).collect::<Vec<_>>();
        pfadd_all(&mut e, c, "a", &enc(&a));
        pfadd_all(&mut e, c, "b", &enc(&b));
        let union = int(run(&mut e, c, argv(&[&"PFCOUNT", &"a", &"b", &"missing"])));
        run(&mut e, c, argv(&[&"PFMERGE", &"m", &"a", &"b"]));
        prop_assert_eq!(int(run(&mut e, c, argv(&[&"PFCOUNT", &"m"]))), union);
        let mut all = enc(&a);
        all.extend(enc(&b));
        pfadd_all(&mut e, c, "both", &all);
        prop_assert_eq!(int(run(&mut e, c, argv(&[&"PFCOUNT", &"both"]))), union);
    }
}

fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// The bytes of HyperLogLogs built by redis-server 7.0.15 (`PFADD h<n> e0 … e<n-1>` in
/// batches of 100), before and after the PFCOUNT that caches the count, as length and
/// FNV-1a hash; and the PFCOUNT reply.
#[test]
fn same_bytes_as_redis() {
    const REDIS: &[(usize, usize, u64, i64, u64)] = &[
        (1, 21, 0xfffb6faeff77f7cd, 1, 0x546d16fdfd2c805a),
        (10, 48, 0x4afcb65d27f7d346, 10, 0xd06c25fbeaa23420),
        (100, 285, 0xb8de76dab4a4065e, 100, 0x40dec5e3b1513cfa),
        (1000, 1906, 0x5935de0232806824, 1008, 0x4ded8ea0046b668d),
        (3000, 12304, 0x1b31e02ee1b56bce, 2979, 0xb581fa7fa1f68d1c),
        (10000, 12304, 0x7378cbab5ab5c44b, 9973, 0x91141a0852dc0034),
        (
            100000,
            12304,
            0xafbf1713dc5ba3c8,
            100853,
            0xfd1fc23694773e63,
        ),
    ];
    let (mut e, c) = engine();
    for &(n, len, before, count, after) in REDIS {
        let key = format!("h{n}");
        for start in (0..n).step_by(100) {
            let mut a = argv(&[&"PFADD", &key]);
            a.extend((start..n.min(start + 100)).map(|i| format!("e{i}").into_bytes()));
            run(&mut e, c, a);
        }
        let bytes = bulk(run(&mut e, c, argv(&[&"GET", &key])));
        assert_eq!(
            (bytes.len(), fnv1a(&bytes)),
            (len, before),
            "{key} before PFCOUNT"
        );
        assert_eq!(
            int(run(&mut e, c, argv(&[&"PFCOUNT", &key]))),
            count,
            "{key}"
        );
        let bytes = bulk(run(&mut e, c, argv(&[&"GET", &key])));
        assert_eq!(fnv1a(&bytes), after, "{key} after PFCOUNT");
    }
    // Merging two sparse values into a new key: the same bytes as h1000 before its
    // count was cached (h10's elements are among h1000's).
    run(&mut e, c, argv(&[&"PFMERGE", &"m", &"h10", &"h1000"]));
    let bytes = bulk(run(&mut e, c, argv(&[&"GET", &"m"])));
    assert_eq!((bytes.len(), fnv1a(&bytes)), (1906, 0x5935de0232806824));
    let union = run(&mut e, c, argv(&[&"PFCOUNT", &"h10", &"h1000", &"h100000"]));
    assert_eq!(int(union), 100853);
}

// ---------------------------------------------------------------------------------------
// Effects and robustness
// ---------------------------------------------------------------------------------------

fn noisy_arg() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        Just(b"a".to_vec()),
        Just(b"h".to_vec()),
        Just(b"x".to_vec()),
        any::<i64>().prop_map(|n| n.to_string().into_bytes()),
        (-20i64..200).prop_map(|n| n.to_string().into_bytes()),
        Just(i64::MIN.to_string().into_bytes()),
        Just(i64::MAX.to_string().into_bytes()),
        Just(b"4294967295".to_vec()),
        Just(b"18446744073709551615".to_vec()),
        (0u64..1000).prop_map(|n| format!("#{n}").into_bytes()),
        Just(b"#9223372036854775807".to_vec()),
        prop_oneof![
            Just("BIT"),
            Just("BYTE"),
            Just("GET"),
            Just("SET"),
            Just("INCRBY"),
            Just("OVERFLOW"),
            Just("WRAP"),
            Just("SAT"),
            Just("FAIL"),
            Just("i64"),
            Just("u63"),
            Just("i1"),
            Just("u8"),
            Just("AND"),
            Just("NOT"),
            Just("XOR"),
            Just("ENCODING"),
            Just("DECODE"),
            Just("GETREG"),
            Just("TODENSE"),
        ]
        .prop_map(|s| s.as_bytes().to_vec()),
        proptest::collection::vec(any::<u8>(), 0..6),
    ]
}

fn noisy_hll() -> impl Strategy<Value = Vec<u8>> {
    (
        0u8..3,
        proptest::collection::vec(any::<u8>(), 0..12),
        proptest::collection::vec(any::<u8>(), 0..40),
    )
        .prop_map(|(enc, card, tail)| {
            let mut v = b"HYLL".to_vec();
            v.push(enc);
            v.extend_from_slice(&[0, 0, 0]);
            v.extend(card.iter().copied().chain(std::iter::repeat(0)).take(8));
            if enc == 0 {
                // A dense value of the right length, with arbitrary registers at the start.
                v.extend(
                    tail.iter()
                        .copied()
                        .chain(std::iter::repeat(0xff))
                        .take(12288),
                );
            } else {
                v.extend(tail);
            }
            v
        })
}

const NOISY_COMMANDS: &[&str] = &[
    "SETBIT",
    "GETBIT",
    "BITCOUNT",
    "BITPOS",
    "BITOP",
    "BITFIELD",
    "BITFIELD_RO",
    "PFADD",
    "PFCOUNT",
    "PFMERGE",
    "PFDEBUG",
];

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn no_input_panics(
        hlls in proptest::collection::vec(noisy_hll(), 1..3),
        cmds in proptest::collection::vec((0..NOISY_COMMANDS.len(), proptest::collection::vec(noisy_arg(), 0..8)), 1..12),
    ) {
        let (mut e, c) = engine();
        // Keep the largest allocation an offset can ask for at 1 MB.
        run(&mut e, c, argv(&[&"CONFIG", &"SET", &"proto-max-bulk-len", &"1mb"]));
        for (i, h) in hlls.iter().enumerate() {
            let key = ["a", "h"][i % 2];
            run(&mut e, c, vec![b"SET".to_vec(), key.as_bytes().to_vec(), h.clone()]);
        }
        run(&mut e, c, argv(&[&"HSET", &"x", &"f", &"v"]));
        for (name, args) in &cmds {
            let mut a = vec![NOISY_COMMANDS[*name].as_bytes().to_vec()];
            a.extend(args.iter().cloned());
            let _ = run(&mut e, c, a);
        }
    }

    #[test]
    fn effects_replay_to_the_same_bytes(
        ops in proptest::collection::vec(op_strategy(), 1..20),
        elements in proptest::collection::vec(proptest::collection::vec(0u16..3000, 0..60), 1..6),
    ) {
        let (mut e, c) = engine();
        for op in &ops {
            run(&mut e, c, render(op));
        }
        for (i, batch) in elements.iter().enumerate() {
            let key = format!("h{}", i % 3);
            let mut a = argv(&[&"PFADD", &key]);
            a.extend(batch.iter().map(|x| x.to_string().into_bytes()));
            run(&mut e, c, a);
            if i % 2 == 0 {
                run(&mut e, c, argv(&[&"PFCOUNT", &key]));
            }
            if i % 3 == 2 {
                run(&mut e, c, argv(&[&"PFMERGE", &"merged", &"h0", &key]));
            }
        }
        let effects = e.take_effects();
        let (mut replica, rc) = engine();
        for ef in effects {
            prop_assert_eq!(ef.db, 0);
            run(&mut replica, rc, ef.argv);
        }
        for k in ["a", "b", "c", "h0", "h1", "h2", "merged"] {
            prop_assert_eq!(
                run(&mut replica, rc, argv(&[&"GET", &k])),
                run(&mut e, c, argv(&[&"GET", &k])),
                "key {}", k
            );
        }
    }
}
