//! `PFSELFTEST`: Redis's self test of the encodings and of the estimator's error.

use super::edit::{add, new_sparse};
use super::estimate::count;
use super::repr::{
    check, dense_get, dense_write, Encoding, DENSE_LEN, HEADER_LEN, REGISTERS, REGISTER_MAX,
};
use super::sparse::to_dense;

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
