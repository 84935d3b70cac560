//! The size and seed of the scale tests (`tests/scale.rs` against models,
//! `tests/scale_diff.rs` against redis-server), read from the environment once here.

use fastrand::Rng;

/// Live elements each scale test reaches at full size.
pub const FULL: usize = 1_000_000;

/// The size this run reaches: [`FULL`] in release builds, a fiftieth of it in debug
/// builds (so plain `cargo test` stays quick), times `KVLAB_SCALE`.
pub fn elements() -> usize {
    let times: usize = std::env::var("KVLAB_SCALE")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1);
    let base = if cfg!(debug_assertions) {
        FULL / 50
    } else {
        FULL
    };
    base * times.max(1)
}

/// The generator of test number `test`, seeded from `KVLAB_SCALE_SEED` (18 by default).
pub fn rng(test: u64) -> Rng {
    let seed: u64 = std::env::var("KVLAB_SCALE_SEED")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(18);
    Rng::with_seed(seed.wrapping_mul(1_000_003).wrapping_add(test))
}
