//! The HyperLogLog value itself: its constants and header, the encoding check, the hash
//! and pattern of an element, the cached cardinality, and the dense registers.

/// Register index bits (`HLL_P`).
pub const HLL_P: u32 = 14;
/// Number of registers (16384).
pub const REGISTERS: usize = 1 << HLL_P;
/// Bits of the hash used for the run of zeroes (`HLL_Q` = 50).
pub(super) const HLL_Q: usize = 64 - HLL_P as usize;
/// Header size in bytes.
pub const HEADER_LEN: usize = 16;
/// Size of a dense HyperLogLog: header plus 16384 six-bit registers.
pub const DENSE_LEN: usize = HEADER_LEN + (REGISTERS * 6).div_ceil(8);
/// The seed Redis passes to MurmurHash64A.
pub const HASH_SEED: u64 = 0xadc8_3b19;
/// `hll-sparse-max-bytes` default.
pub const DEFAULT_SPARSE_MAX_BYTES: u64 = 3000;

pub(super) const REGISTER_MAX: u8 = 63;
pub(super) const ENC_DENSE: u8 = 0;
pub(super) const ENC_SPARSE: u8 = 1;
pub(super) const SPARSE_VAL_MAX_VALUE: u8 = 32;
pub(super) const SPARSE_VAL_MAX_LEN: u64 = 4;
pub(super) const SPARSE_ZERO_MAX_LEN: u64 = 64;
pub(super) const SPARSE_XZERO_MAX_LEN: u64 = 16384;
/// Redis's `HLL_ALPHA_INF`, 0.5 / ln 2.
pub(super) const ALPHA_INF: f64 = 0.721_347_520_444_481_7;

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

// ---------------------------------------------------------------------------------------
// Dense registers
// ---------------------------------------------------------------------------------------

/// Register `i` of a dense register array; the byte after the array reads as 0.
pub(super) fn dense_get(regs: &[u8], i: usize) -> u8 {
    let byte = i * 6 / 8;
    let fb = (i * 6) & 7;
    let b0 = u32::from(regs.get(byte).copied().unwrap_or(0));
    let b1 = u32::from(regs.get(byte + 1).copied().unwrap_or(0));
    (((b0 >> fb) | (b1 << (8 - fb))) & u32::from(REGISTER_MAX)) as u8
}

/// Writes register `i` (value at most 63).
pub(super) fn dense_write(regs: &mut [u8], i: usize, val: u8) {
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
pub(super) fn dense_set(regs: &mut [u8], i: usize, count: u8) -> bool {
    if count > dense_get(regs, i) {
        dense_write(regs, i, count);
        true
    } else {
        false
    }
}
