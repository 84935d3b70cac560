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

use HllError::Corrupt;

mod estimate;
mod selftest;
mod sparse;
#[cfg(test)]
mod tests;
pub use estimate::{count, count_registers};
pub use selftest::{self_test, SelfTestSize};
pub use sparse::{decode_sparse, merge_into, registers, to_dense};
use sparse::{push_xzero, sparse_set};

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
