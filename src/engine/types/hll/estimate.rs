//! The estimate: the register histogram of either encoding, and Ertl's estimator over it (`tau`, `sigma`).

use super::repr::HllError::Corrupt;
use super::repr::{dense_get, HllError, ALPHA_INF, ENC_DENSE, HEADER_LEN, HLL_Q, REGISTERS};
use super::sparse::{walk_sparse, Op};

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
