//! The sparse encoding's opcodes (ZERO, XZERO, VAL): walking them, setting a register in place,
//! promotion to dense, merging and decoding.

use super::repr::HllError::{Corrupt, OutOfMemory};
use super::repr::{
    dense_get, dense_set, dense_write, invalidate_cache, HllError, DENSE_LEN, ENC_DENSE,
    HEADER_LEN, REGISTERS, SPARSE_VAL_MAX_LEN, SPARSE_VAL_MAX_VALUE, SPARSE_ZERO_MAX_LEN,
};

/// One decoded sparse opcode.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Op {
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
    pub(super) fn span(self) -> u64 {
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

pub(super) fn push_xzero(out: &mut Vec<u8>, len: u64) {
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
pub(super) fn walk_sparse(s: &[u8], mut f: impl FnMut(u64, Op) -> bool) -> u64 {
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
pub(super) fn sparse_set(
    s: &mut Vec<u8>,
    index: usize,
    count: u8,
    sparse_max: u64,
) -> Result<bool, HllError> {
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
