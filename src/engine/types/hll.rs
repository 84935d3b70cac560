//! HyperLogLog, stored in a string, byte for byte as Redis 7.0 stores it.
//!
//! A HyperLogLog is not a type of its own: `PFADD` creates an ordinary string, `TYPE` says
//! `string`, `GET` returns its bytes and `SET` of those bytes (say, copied from a real Redis)
//! gives back a working HyperLogLog. So the representation must be Redis's exactly; this
//! module reads and writes it on a plain `Vec<u8>`.
//!
//! # Layout
//! A 16-byte header, then the registers:
//!
//! ```text
//! +------+---+-----+----------+---------------------------+
//! | HYLL | E | N/U | Cardinal.| registers ...             |
//! +------+---+-----+----------+---------------------------+
//!   4      1   3     8 (little endian)
//! ```
//! `E` is the encoding (0 dense, 1 sparse); the three unused bytes are copied along but never
//! read. The cardinality is a cache: the last `PFCOUNT` result, valid while the top bit of
//! its last byte is clear. Every write that may change the estimate sets that bit.
//!
//! There are 2^14 = 16384 registers (`HLL_P` = 14). An element is hashed with MurmurHash64A
//! (seed `0xadc83b19`); the low 14 bits pick the register, and the register keeps the
//! largest "position of the first set bit" (1..=51) seen among the remaining 50 bits.
//!
//! **Dense**: 16384 registers of 6 bits, packed from the least significant bit of each byte
//! upwards: register `i` starts at bit `6i`, so it occupies bits `6i % 8 ..` of byte
//! `6i / 8` and, if it does not fit, the low bits of the next byte. The string is always
//! exactly 16 + 12288 bytes; Redis rejects a dense value of any other length.
//!
//! **Sparse**: a run-length encoding, for HyperLogLogs with few non-zero registers:
//!
//! * `00xxxxxx` ZERO: 1..=64 registers set to 0;
//! * `01xxxxxx yyyyyyyy` XZERO: 1..=16384 registers set to 0 (14-bit length);
//! * `1vvvvvxx` VAL: 1..=4 registers set to the value 1..=32.
//!
//! The opcodes must cover exactly 16384 registers. A new HyperLogLog is one XZERO opcode
//! (18 bytes). Setting a register splits the opcode that covers it into at most three
//! (`XZERO VAL XZERO`), then merges neighbouring VAL opcodes with equal values; this is done
//! exactly as Redis's `hllSparseSet` does it (same split, same five-opcode merge window), so
//! that the bytes come out identical. The value is *promoted* to dense, for good, when a
//! register needs a value above 32 or when the string would grow beyond
//! `hll-sparse-max-bytes` (3000 by default, header included).
//!
//! # Corrupt values
//! Any string that starts with the header passes the type check ([`check`]), so the sparse
//! walkers meet arbitrary bytes. They never index out of range: a byte read past the end
//! reads as 0 (Redis reads the string's terminating NUL there), and a sparse value whose
//! opcodes do not add up to exactly 16384 registers is [`HllError::Corrupt`] (Redis's
//! `INVALIDOBJ`) wherever all registers are read: counting, merging, turning dense. This
//! is the rule of the reference server, Debian's 7.0.15 with the fix for CVE-2025-32023
//! (upstream 7.0.15 accepted opcodes after the 16384th register in some of those paths).
//! Raising one register only walks to the opcode that covers it, so it succeeds on such
//! a value, as in Redis.
//!
//! One divergence is deliberate. When a value ends with the first byte of an XZERO, Redis
//! reads the second byte past the end of the string: its terminating NUL the first time,
//! but after splitting that opcode, the byte its in-place edit wrote just past the new
//! end. We keep no bytes past the end and always read 0, so such a value (only ever made
//! by hand, or by bit commands on an HLL) gives the same bytes after its first edit and
//! may differ after later ones. Random command streams against redis-server agree
//! otherwise.
//!
//! # Estimate
//! [`count`] uses the estimator of Otmar Ertl ("New cardinality estimation algorithms for
//! HyperLogLog sketches", 2017), as Redis has since 5.0: a histogram of register values fed
//! through the `tau` and `sigma` series, rounded to the nearest integer.

/// Register index bits (`HLL_P`).
pub const HLL_P: u32 = 14;
/// Number of registers (16384).
pub const REGISTERS: usize = 1 << HLL_P;
/// Bits of the hash used for the run of zeroes (`HLL_Q` = 50).
const HLL_Q: usize = 64 - HLL_P as usize;
/// Header size in bytes.
pub const HEADER_LEN: usize = 16;
/// Size of a dense HyperLogLog: header plus 16384 six-bit registers.
pub const DENSE_LEN: usize = HEADER_LEN + (REGISTERS * 6).div_ceil(8);
/// The seed Redis passes to MurmurHash64A.
pub const HASH_SEED: u64 = 0xadc8_3b19;
/// `hll-sparse-max-bytes` default.
pub const DEFAULT_SPARSE_MAX_BYTES: u64 = 3000;

const REGISTER_MAX: u8 = 63;
const ENC_DENSE: u8 = 0;
const ENC_SPARSE: u8 = 1;
const SPARSE_VAL_MAX_VALUE: u8 = 32;
const SPARSE_VAL_MAX_LEN: u64 = 4;
const SPARSE_ZERO_MAX_LEN: u64 = 64;
const SPARSE_XZERO_MAX_LEN: u64 = 16384;
/// Redis's `HLL_ALPHA_INF`, 0.5 / ln 2.
const ALPHA_INF: f64 = 0.721_347_520_444_481_7;

/// The two encodings of a valid header.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Encoding {
    /// 16384 packed six-bit registers.
    Dense,
    /// Run-length opcodes.
    Sparse,
}

impl Encoding {
    /// The name `PFDEBUG ENCODING` replies with.
    pub fn name(self) -> &'static str {
        match self {
            Encoding::Dense => "dense",
            Encoding::Sparse => "sparse",
        }
    }
}

/// The string is not a HyperLogLog at all (`WRONGTYPE Key is not a valid HyperLogLog
/// string value.`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NotHll;

/// Why an operation on a value with a valid header failed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HllError {
    /// The sparse registers do not cover exactly 16384 registers (`INVALIDOBJ Corrupted
    /// HLL object detected`).
    Corrupt,
    /// Growing the string failed (a huge crafted sparse value in a small address space).
    OutOfMemory,
}

use HllError::{Corrupt, OutOfMemory};

/// Redis's `isHLLObjectOrReply`: at least a header, the `HYLL` magic, a known encoding,
/// and for dense exactly [`DENSE_LEN`] bytes. Sparse values are only checked when walked.
pub fn check(bytes: &[u8]) -> Result<Encoding, NotHll> {
    if bytes.len() < HEADER_LEN || &bytes[..4] != b"HYLL" {
        return Err(NotHll);
    }
    match bytes[4] {
        ENC_DENSE if bytes.len() == DENSE_LEN => Ok(Encoding::Dense),
        ENC_SPARSE => Ok(Encoding::Sparse),
        _ => Err(NotHll),
    }
}

/// A new, empty HyperLogLog as `PFADD` creates it: sparse, one XZERO opcode covering every
/// register, cached cardinality 0 (valid).
pub fn new_sparse() -> Vec<u8> {
    let mut s = Vec::with_capacity(HEADER_LEN + 2);
    s.extend_from_slice(b"HYLL");
    s.push(ENC_SPARSE);
    s.extend_from_slice(&[0; 11]);
    // One XZERO opcode covers all 16384 registers.
    push_xzero(&mut s, SPARSE_XZERO_MAX_LEN.min(REGISTERS as u64));
    s
}

/// MurmurHash2, 64-bit version (`MurmurHash64A`), reading eight-byte blocks as little
/// endian as Redis does on every platform.
pub fn murmur64a(data: &[u8], seed: u64) -> u64 {
    const M: u64 = 0xc6a4_a793_5bd1_e995;
    const R: u32 = 47;
    let mut h = seed ^ (data.len() as u64).wrapping_mul(M);
    let mut blocks = data.chunks_exact(8);
    for b in &mut blocks {
        let mut k = u64::from_le_bytes([b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]]);
        k = k.wrapping_mul(M);
        k ^= k >> R;
        k = k.wrapping_mul(M);
        h ^= k;
        h = h.wrapping_mul(M);
    }
    let tail = blocks.remainder();
    if !tail.is_empty() {
        for (i, &b) in tail.iter().enumerate() {
            h ^= u64::from(b) << (8 * i);
        }
        h = h.wrapping_mul(M);
    }
    h ^= h >> R;
    h = h.wrapping_mul(M);
    h ^= h >> R;
    h
}

/// Redis's `hllPatLen`: the register an element maps to, and the length of the `0…01`
/// pattern in the rest of its hash (1..=51).
pub fn pattern(element: &[u8]) -> (usize, u8) {
    let hash = murmur64a(element, HASH_SEED);
    let index = (hash & (REGISTERS as u64 - 1)) as usize;
    let rest = (hash >> HLL_P) | (1u64 << HLL_Q);
    (index, rest.trailing_zeros() as u8 + 1)
}

/// The cached cardinality, if the cache is valid. `s` must have a header.
pub fn cached(s: &[u8]) -> Option<u64> {
    let card: [u8; 8] = s.get(8..16)?.try_into().ok()?;
    if card[7] & 0x80 == 0 {
        Some(u64::from_le_bytes(card))
    } else {
        None
    }
}

/// Stores `card` as the cached cardinality (`PFCOUNT` on one key).
pub fn store_cache(s: &mut [u8], card: u64) {
    if let Some(c) = s.get_mut(8..16) {
        c.copy_from_slice(&card.to_le_bytes());
    }
}

/// Marks the cached cardinality stale (`HLL_INVALIDATE_CACHE`); the other bits stay.
pub fn invalidate_cache(s: &mut [u8]) {
    if let Some(b) = s.get_mut(15) {
        *b |= 0x80;
    }
}

/// Adds one element (`hllAdd`): `Ok(true)` if a register grew, so the estimate may have
/// changed. A sparse value may be promoted to dense on the way (see the module docs).
pub fn add(s: &mut Vec<u8>, element: &[u8], sparse_max: u64) -> Result<bool, HllError> {
    let (index, count) = pattern(element);
    set_register(s, index, count, sparse_max)
}

/// Raises register `index` to `count` if it is lower, in either encoding
/// (`hllDenseSet`/`hllSparseSet`). `Ok(true)` if it changed. Does not touch the cache.
pub fn set_register(
    s: &mut Vec<u8>,
    index: usize,
    count: u8,
    sparse_max: u64,
) -> Result<bool, HllError> {
    match s.get(4) {
        Some(&ENC_DENSE) => Ok(dense_set(&mut s[HEADER_LEN..], index, count)),
        Some(&ENC_SPARSE) => sparse_set(s, index, count, sparse_max),
        _ => Err(Corrupt),
    }
}

// ---------------------------------------------------------------------------------------
// Dense registers
// ---------------------------------------------------------------------------------------

/// Register `i` of a dense register array; the byte after the array reads as 0.
fn dense_get(regs: &[u8], i: usize) -> u8 {
    let byte = i * 6 / 8;
    let fb = (i * 6) & 7;
    let b0 = u32::from(regs.get(byte).copied().unwrap_or(0));
    let b1 = u32::from(regs.get(byte + 1).copied().unwrap_or(0));
    (((b0 >> fb) | (b1 << (8 - fb))) & u32::from(REGISTER_MAX)) as u8
}

/// Writes register `i` (value at most 63).
fn dense_write(regs: &mut [u8], i: usize, val: u8) {
    let byte = i * 6 / 8;
    let fb = (i * 6) & 7;
    let v = u32::from(val & REGISTER_MAX);
    let max = u32::from(REGISTER_MAX);
    if let Some(b) = regs.get_mut(byte) {
        *b = ((u32::from(*b) & !(max << fb)) | (v << fb)) as u8;
    }
    if let Some(b) = regs.get_mut(byte + 1) {
        *b = ((u32::from(*b) & !(max >> (8 - fb))) | (v >> (8 - fb))) as u8;
    }
}

/// `hllDenseSet`: raises register `i` to `count`; true if it changed.
fn dense_set(regs: &mut [u8], i: usize, count: u8) -> bool {
    if count > dense_get(regs, i) {
        dense_write(regs, i, count);
        true
    } else {
        false
    }
}

// ---------------------------------------------------------------------------------------
// Sparse opcodes
// ---------------------------------------------------------------------------------------

/// One decoded sparse opcode.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Op {
    Zero(u64),
    Xzero(u64),
    Val(u8, u64),
}

impl Op {
    /// Decodes the opcode at `p` (a second XZERO byte past the end reads as 0).
    fn at(s: &[u8], p: usize) -> Op {
        let b = s.get(p).copied().unwrap_or(0);
        if b & 0xc0 == 0 {
            Op::Zero(u64::from(b & 0x3f) + 1)
        } else if b & 0x80 == 0 {
            let lo = s.get(p + 1).copied().unwrap_or(0);
            Op::Xzero(((u64::from(b & 0x3f) << 8) | u64::from(lo)) + 1)
        } else {
            Op::Val(((b >> 2) & 0x1f) + 1, u64::from(b & 0x3) + 1)
        }
    }

    /// Registers covered.
    fn span(self) -> u64 {
        match self {
            Op::Zero(n) | Op::Xzero(n) | Op::Val(_, n) => n,
        }
    }

    /// Bytes taken.
    fn len(self) -> usize {
        match self {
            Op::Xzero(_) => 2,
            _ => 1,
        }
    }
}

fn val_byte(value: u8, len: u64) -> u8 {
    0x80 | ((value.wrapping_sub(1) & 0x1f) << 2) | ((len.wrapping_sub(1) & 0x3) as u8)
}

fn push_xzero(out: &mut Vec<u8>, len: u64) {
    let l = len - 1;
    out.push(((l >> 8) as u8 & 0x3f) | 0x40);
    out.push((l & 0xff) as u8);
}

/// A run of `len` zero registers as Redis writes it when splitting: ZERO up to 64, else
/// XZERO.
fn push_zeros(out: &mut Vec<u8>, len: u64) {
    if len > SPARSE_ZERO_MAX_LEN {
        push_xzero(out, len);
    } else {
        out.push((len - 1) as u8);
    }
}

/// Walks the sparse opcodes of `s` (after the header), calling `f(first_register, op)`;
/// `f` returns false to stop. Returns the register count covered by the opcodes visited.
fn walk_sparse(s: &[u8], mut f: impl FnMut(u64, Op) -> bool) -> u64 {
    let mut p = HEADER_LEN;
    let mut idx = 0u64;
    while p < s.len() {
        let op = Op::at(s, p);
        if !f(idx, op) {
            break;
        }
        idx += op.span();
        p += op.len();
    }
    idx
}

/// Redis's `hllSparseSet`: raises register `index` to `count` in a sparse value, splitting
/// and merging opcodes in place, or promoting to dense (see the module docs). Invalidates
/// the cache when something changed.
fn sparse_set(s: &mut Vec<u8>, index: usize, count: u8, sparse_max: u64) -> Result<bool, HllError> {
    if count > SPARSE_VAL_MAX_VALUE {
        return promote(s, index, count);
    }
    let index = index as u64;
    // Step 1: find the opcode covering `index`.
    let mut end = s.len();
    let mut p = HEADER_LEN;
    let mut first = 0u64;
    let mut prev: Option<usize> = None;
    let mut op = None;
    while p < end {
        let o = Op::at(s, p);
        if index < first + o.span() {
            op = Some(o);
            break;
        }
        prev = Some(p);
        p += o.len();
        first += o.span();
    }
    let Some(op) = op else {
        return Err(Corrupt);
    };
    let span = op.span();

    // Step 2: the trivial cases update one byte; the general one builds a replacement.
    let mut seq: Vec<u8> = Vec::with_capacity(5);
    match op {
        Op::Val(old, _) if old >= count => return Ok(false),
        Op::Val(_, 1) | Op::Zero(1) => {
            s[p] = val_byte(count, 1);
        }
        _ => {
            let last = first + span - 1;
            match op {
                Op::Val(cur, _) => {
                    if index != first {
                        seq.push(val_byte(cur, index - first));
                    }
                    seq.push(val_byte(count, 1));
                    if index != last {
                        seq.push(val_byte(cur, last - index));
                    }
                }
                _ => {
                    if index != first {
                        push_zeros(&mut seq, index - first);
                    }
                    seq.push(val_byte(count, 1));
                    if index != last {
                        push_zeros(&mut seq, last - index);
                    }
                }
            }
            // Step 3: substitute the sequence for the opcode.
            let old_len = op.len();
            let new_total = end + seq.len() - old_len;
            if seq.len() > old_len && new_total as u64 > sparse_max {
                return promote(s, index as usize, count);
            }
            s.try_reserve_exact(seq.len()).map_err(|_| OutOfMemory)?;
            // An XZERO cut short by the end of the string loses its missing byte, as the
            // in-place edit in Redis does: hence the truncation.
            s.splice(p..(p + old_len).min(end), seq.iter().copied());
            s.truncate(new_total);
            end = s.len();
        }
    }

    // Step 4: merge adjacent VAL opcodes of equal value, looking at up to five opcodes
    // from the one before the change.
    let mut p = prev.unwrap_or(HEADER_LEN);
    let mut budget = 5;
    while p < end && budget > 0 {
        budget -= 1;
        match Op::at(s, p) {
            Op::Xzero(_) => {
                p += 2;
                continue;
            }
            Op::Zero(_) => {
                p += 1;
                continue;
            }
            Op::Val(v1, l1) => {
                if p + 1 < end {
                    if let Op::Val(v2, l2) = Op::at(s, p + 1) {
                        if v1 == v2 && l1 + l2 <= SPARSE_VAL_MAX_LEN {
                            s[p + 1] = val_byte(v1, l1 + l2);
                            s.remove(p);
                            end -= 1;
                            continue;
                        }
                    }
                }
                p += 1;
            }
        }
    }
    invalidate_cache(s);
    Ok(true)
}

/// Converts to dense and then sets the register (the end of `hllSparseSet`).
fn promote(s: &mut Vec<u8>, index: usize, count: u8) -> Result<bool, HllError> {
    to_dense(s)?;
    Ok(dense_set(&mut s[HEADER_LEN..], index, count))
}

/// Redis's `hllSparseToDense`: rewrites a sparse value as dense, keeping the header (and
/// so the cached cardinality). `Ok(true)` if it converted, `Ok(false)` if already dense.
pub fn to_dense(s: &mut Vec<u8>) -> Result<bool, HllError> {
    if s.get(4) == Some(&ENC_DENSE) {
        return Ok(false);
    }
    if s.len() < HEADER_LEN {
        return Err(Corrupt);
    }
    let mut dense = vec![0u8; DENSE_LEN];
    dense[..HEADER_LEN].copy_from_slice(&s[..HEADER_LEN]);
    dense[4] = ENC_DENSE;
    let regs = &mut dense[HEADER_LEN..];
    let mut overflow = false;
    let covered = walk_sparse(s, |first, op| {
        if first + op.span() > REGISTERS as u64 {
            overflow = true;
            return false;
        }
        if let Op::Val(v, n) = op {
            for i in first..first + n {
                dense_write(regs, i as usize, v);
            }
        }
        true
    });
    if overflow || covered != REGISTERS as u64 {
        return Err(Corrupt);
    }
    *s = dense;
    Ok(true)
}

/// Redis's `hllMerge`: `max[i] = max(max[i], register i)` for every register of the
/// HyperLogLog `s` (whose header was checked). `max` holds 16384 entries.
pub fn merge_into(max: &mut [u8], s: &[u8]) -> Result<(), HllError> {
    match s.get(4) {
        Some(&ENC_DENSE) => {
            let regs = s.get(HEADER_LEN..).unwrap_or(&[]);
            for (i, m) in max.iter_mut().enumerate().take(REGISTERS) {
                *m = (*m).max(dense_get(regs, i));
            }
            Ok(())
        }
        _ => {
            let mut overflow = false;
            let covered = walk_sparse(s, |first, op| {
                if first + op.span() > REGISTERS as u64 {
                    overflow = true;
                    return false;
                }
                if let Op::Val(v, n) = op {
                    for i in first..first + n {
                        if let Some(m) = max.get_mut(i as usize) {
                            *m = (*m).max(v);
                        }
                    }
                }
                true
            });
            if overflow || covered != REGISTERS as u64 {
                Err(Corrupt)
            } else {
                Ok(())
            }
        }
    }
}

/// The register values of `s`, 16384 of them (for `PFDEBUG GETREG`, on a dense value).
pub fn registers(s: &[u8]) -> Result<Vec<u8>, HllError> {
    let mut regs = vec![0u8; REGISTERS];
    merge_into(&mut regs, s)?;
    Ok(regs)
}

/// `PFDEBUG DECODE`: the sparse opcodes as `z:<len>`, `Z:<len>`, `v:<value>,<len>`.
pub fn decode_sparse(s: &[u8]) -> String {
    let mut parts = Vec::new();
    walk_sparse(s, |_, op| {
        parts.push(match op {
            Op::Zero(n) => format!("z:{n}"),
            Op::Xzero(n) => format!("Z:{n}"),
            Op::Val(v, n) => format!("v:{v},{n}"),
        });
        true
    });
    parts.join(" ")
}

// ---------------------------------------------------------------------------------------
// Self test
// ---------------------------------------------------------------------------------------

/// How the self test is sized: Redis's `PFSELFTEST` uses 1000 register rounds and adds
/// ten million elements; unit tests use less.
#[derive(Debug, Clone, Copy)]
pub struct SelfTestSize {
    /// Rounds of "fill every dense register with random values and read them back".
    pub register_rounds: u32,
    /// Elements added in the accuracy part (the last checkpoint is the largest power of
    /// ten not above it).
    pub elements: u64,
}

impl SelfTestSize {
    /// Redis's sizes (`HLL_TEST_CYCLES` = 1000, 10 000 000 elements).
    pub const REDIS: SelfTestSize = SelfTestSize {
        register_rounds: 1000,
        elements: 10_000_000,
    };
}

/// Redis's `PFSELFTEST`: `Ok(())`, or the text of the `TESTFAILED …` error.
///
/// 1. Register access: every dense register is set to a random value 0..=63, then all are
///    read back, so a write that spills into a neighbour is caught.
/// 2. Accuracy: the elements `j ^ seed` (eight bytes, little endian) for j = 1, 2, … are
///    added to a dense register array and to a new HyperLogLog (sparse until it is
///    promoted). At each power of ten j: the HyperLogLog must still be sparse while
///    `j < sparse_max / 2`, both must estimate the same, and the estimate must be within
///    six standard errors (1.04/√16384) of j — within 1 at j = 10.
///
/// `rand` stands for C's `rand()`. **O(rounds·16384 + elements)**.
pub fn self_test(
    size: SelfTestSize,
    sparse_max: u64,
    mut rand: impl FnMut() -> u32,
) -> Result<(), String> {
    let mut regs = vec![0u8; DENSE_LEN - HEADER_LEN];
    let mut expected = vec![0u8; REGISTERS];
    for _ in 0..size.register_rounds {
        for (i, e) in expected.iter_mut().enumerate() {
            let r = (rand() & u32::from(REGISTER_MAX)) as u8;
            *e = r;
            dense_write(&mut regs, i, r);
        }
        for (i, &e) in expected.iter().enumerate() {
            let val = dense_get(&regs, i);
            if val != e {
                return Err(format!(
                    "TESTFAILED Register {i} should be {e} but is {val}"
                ));
            }
        }
    }

    let mut dense = new_sparse();
    to_dense(&mut dense).map_err(|_| "TESTFAILED dense conversion failed".to_string())?;
    let mut hll = new_sparse();
    let relerr = 1.04 / (REGISTERS as f64).sqrt();
    let mut checkpoint: u64 = 1;
    let seed = u64::from(rand()) | (u64::from(rand()) << 32);
    let fail = |_| "TESTFAILED dense/sparse disagree".to_string();
    for j in 1..=size.elements {
        let ele = (j ^ seed).to_le_bytes();
        add(&mut dense, &ele, sparse_max).map_err(fail)?;
        add(&mut hll, &ele, sparse_max).map_err(fail)?;
        if j != checkpoint {
            continue;
        }
        if j < sparse_max / 2 && check(&hll) != Ok(Encoding::Sparse) {
            return Err("TESTFAILED sparse encoding not used".into());
        }
        let card = count(&dense).map_err(fail)?;
        if card != count(&hll).map_err(fail)? {
            return Err("TESTFAILED dense/sparse disagree".into());
        }
        let abserr = checkpoint.abs_diff(card);
        let maxerr = if j == 10 {
            1
        } else {
            (relerr * 6.0 * checkpoint as f64).ceil() as u64
        };
        if abserr > maxerr {
            return Err(format!(
                "TESTFAILED Too big error. card:{checkpoint} abserr:{abserr}"
            ));
        }
        checkpoint = checkpoint.saturating_mul(10);
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------
// Estimate
// ---------------------------------------------------------------------------------------

/// Redis's `hllCount` on a value with a checked header: the estimate from its registers
/// (ignoring the cache). A sparse value that does not cover exactly 16384 registers is
/// [`HllError::Corrupt`].
pub fn count(s: &[u8]) -> Result<u64, HllError> {
    let mut histo = [0u64; 64];
    match s.get(4) {
        Some(&ENC_DENSE) => {
            let regs = s.get(HEADER_LEN..).unwrap_or(&[]);
            for i in 0..REGISTERS {
                histo[usize::from(dense_get(regs, i))] += 1;
            }
        }
        _ => {
            let mut overflow = false;
            let covered = walk_sparse(s, |first, op| {
                if first + op.span() > REGISTERS as u64 {
                    overflow = true;
                    return false;
                }
                match op {
                    Op::Zero(n) | Op::Xzero(n) => histo[0] += n,
                    Op::Val(v, n) => histo[usize::from(v)] += n,
                }
                true
            });
            if overflow || covered != REGISTERS as u64 {
                return Err(Corrupt);
            }
        }
    }
    Ok(estimate(&histo))
}

/// The estimate for plain one-byte registers (`PFCOUNT` of several keys, whose union is
/// built as a byte per register).
pub fn count_registers(regs: &[u8]) -> u64 {
    let mut histo = [0u64; 64];
    for &r in regs.iter().take(REGISTERS) {
        histo[usize::from(r & 63)] += 1;
    }
    estimate(&histo)
}

/// Ertl's improved estimator over the register histogram, as Redis 7.0's `hllCount`.
fn estimate(histo: &[u64; 64]) -> u64 {
    let m = REGISTERS as f64;
    let mut z = m * tau((m - histo[HLL_Q + 1] as f64) / m);
    for j in (1..=HLL_Q).rev() {
        z += histo[j] as f64;
        z *= 0.5;
    }
    z += m * sigma(histo[0] as f64 / m);
    let e = (ALPHA_INF * m * m / z).round();
    if e.is_finite() && e < 9_223_372_036_854_775_808.0 {
        e as u64
    } else {
        // Only crafted registers get here (all at 50 or more). Redis's `llroundl` then
        // overflows to LLONG_MIN, which reads back as 2^63 (and PFCOUNT replies
        // -9223372036854775808); as a cache it has the top bit set, so it stays stale.
        1u64 << 63
    }
}

/// Ertl's sigma series (`hllSigma`).
fn sigma(mut x: f64) -> f64 {
    if x == 1.0 {
        return f64::INFINITY;
    }
    if !(0.0..1.0).contains(&x) {
        // Unreachable for a histogram of 16384 registers; guards the loop against NaN.
        return f64::INFINITY;
    }
    let mut y = 1.0;
    let mut z = x;
    loop {
        x *= x;
        let prev = z;
        z += x * y;
        y += y;
        if prev == z {
            return z;
        }
    }
}

/// Ertl's tau series (`hllTau`).
fn tau(mut x: f64) -> f64 {
    if x == 0.0 || x == 1.0 || !(0.0..=1.0).contains(&x) {
        return 0.0;
    }
    let mut y = 1.0;
    let mut z = 1.0 - x;
    loop {
        x = x.sqrt();
        let prev = z;
        y *= 0.5;
        // GCC folds C's pow(1 - x, 2) into one multiplication.
        z -= (1.0 - x) * (1.0 - x) * y;
        if prev == z {
            return z / 3.0;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn empty_value_is_one_xzero() {
        let s = new_sparse();
        assert_eq!(s.len(), 18);
        assert_eq!(&s[16..], &[0x7f, 0xff]);
        assert_eq!(check(&s), Ok(Encoding::Sparse));
        assert_eq!(count(&s), Ok(0));
        assert_eq!(cached(&s), Some(0));
    }

    #[test]
    fn dense_registers_do_not_disturb_neighbours() {
        let mut regs = vec![0u8; DENSE_LEN - HEADER_LEN];
        let mut rng = fastrand::Rng::with_seed(3);
        let want: Vec<u8> = (0..REGISTERS).map(|_| rng.u8(0..64)).collect();
        for (i, &v) in want.iter().enumerate() {
            dense_write(&mut regs, i, v);
        }
        for (i, &v) in want.iter().enumerate() {
            assert_eq!(dense_get(&regs, i), v, "register {i}");
        }
    }

    #[test]
    fn self_test_passes_at_reduced_size() {
        let mut rng = fastrand::Rng::with_seed(5);
        let size = SelfTestSize {
            register_rounds: 3,
            elements: 100_000,
        };
        assert_eq!(
            self_test(size, DEFAULT_SPARSE_MAX_BYTES, || rng.u32(..) >> 1),
            Ok(())
        );
    }

    #[test]
    fn sparse_and_dense_agree() {
        let mut sparse = new_sparse();
        let mut dense = new_sparse();
        to_dense(&mut dense).unwrap();
        for i in 0..2000u32 {
            let e = i.to_le_bytes();
            add(&mut sparse, &e, u64::MAX).unwrap();
            add(&mut dense, &e, u64::MAX).unwrap();
        }
        assert_eq!(check(&sparse), Ok(Encoding::Sparse));
        assert_eq!(count(&sparse), count(&dense));
        assert_eq!(registers(&sparse), registers(&dense));
    }

    #[test]
    fn corrupt_sparse_never_panics() {
        for tail in [
            &[][..],
            &[0x40],
            &[0x7f],
            &[0x00],
            &[0xff, 0xff],
            &[0x7f, 0xff, 0x00],
        ] {
            let mut s = b"HYLL\x01\0\0\0\0\0\0\0\0\0\0\0".to_vec();
            s.extend_from_slice(tail);
            let _ = count(&s);
            let _ = registers(&s);
            let _ = decode_sparse(&s);
            for i in [0usize, 1, 100, 16383] {
                let mut t = s.clone();
                let _ = set_register(&mut t, i, 5, 3000);
                let mut t = s.clone();
                let _ = set_register(&mut t, i, 40, 3000);
            }
        }
    }
}
