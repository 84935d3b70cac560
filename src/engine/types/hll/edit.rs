//! Creating a HyperLogLog and raising its registers in either encoding.

use super::repr::HllError::Corrupt;
use super::repr::{
    dense_set, pattern, HllError, ENC_DENSE, ENC_SPARSE, HEADER_LEN, REGISTERS,
    SPARSE_XZERO_MAX_LEN,
};
use super::sparse::{push_xzero, sparse_set};

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
