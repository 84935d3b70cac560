//! The LFU counter of a key (Redis's logarithmic 8-bit counter): its initial value and its
//! decay. Below the keyspace, which starts every key at [`LFU_INIT_VAL`].

/// Redis's `LFU_INIT_VAL`: the counter of a new key.
pub const LFU_INIT_VAL: u8 = 5;

/// `counter` decayed by one per `decay_time` minutes since `since_ms` (Redis's
/// `LFUDecrAndReturn`).
pub fn lfu_decayed(counter: u8, since_ms: i64, now_ms: i64, decay_time: i64) -> u8 {
    if decay_time <= 0 {
        return counter;
    }
    let periods = now_ms.saturating_sub(since_ms).max(0) / 60_000 / decay_time;
    u8::try_from(i64::from(counter).saturating_sub(periods).max(0)).unwrap_or(0)
}
