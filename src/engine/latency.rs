//! The latency monitor (`LATENCY LATEST/HISTORY/RESET/GRAPH/DOCTOR`) and the per-command
//! latency histograms (`LATENCY HISTOGRAM`, `INFO latencystats`), the state Redis 7.0 keeps
//! in `latency.c` and in each command's `latency_histogram`.
//!
//! # Events
//! An event (`command`, `fast-command`, `expire-cycle`, `eviction-cycle`, …) keeps the
//! latest [`SERIES_LEN`] samples, at most one per second (a second's worst), and its all
//! time high, in milliseconds. Samples are only taken when `latency-monitor-threshold` is
//! set and reached; the caller checks that ([`Latency::sample_if_needed`]).
//!
//! # Histograms
//! [`Histogram`] is written here rather than taken from the `hdrhistogram` crate: Redis's
//! replies depend on the exact bucket boundaries of the C HdrHistogram (`highest equivalent
//! value` of each bucket: `LATENCY HISTOGRAM` reports 66 usec for the 65536 ns level,
//! `INFO` p50=3.007 for a 3 µs call), and all we need of it is recording and two read-outs
//! at one configuration (1 ns .. 1 s, 2 significant figures). That is a log-linear table of
//! 3072 counters: 24 power-of-two ranges of 128 linear sub-buckets each (the first range
//! has 256), the layout HdrHistogram computes for those parameters; the index math below
//! is the same, so the boundaries are identical.

use std::collections::BTreeMap;

use crate::engine::clock::Clock;

/// How many samples an event keeps (Redis's `LATENCY_TS_LEN`).
pub const SERIES_LEN: usize = 160;

/// One sample of an event: the Unix second it was taken in and its latency (ms).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Sample {
    /// Unix seconds; 0 marks an unused slot.
    pub time: i64,
    /// Milliseconds.
    pub latency: u64,
}

/// One event's time series: a ring of samples, the next slot to write, the all time high.
#[derive(Debug, Clone)]
pub struct Series {
    /// The ring.
    pub samples: [Sample; SERIES_LEN],
    /// The next slot to write.
    pub idx: usize,
    /// The all time high, in milliseconds.
    pub max: u64,
}

impl Series {
    fn new() -> Series {
        Series {
            samples: [Sample::default(); SERIES_LEN],
            idx: 0,
            max: 0,
        }
    }

    /// The latest sample.
    pub fn last(&self) -> Sample {
        self.samples[(self.idx + SERIES_LEN - 1) % SERIES_LEN]
    }

    /// The samples taken, oldest first.
    pub fn in_order(&self) -> impl Iterator<Item = Sample> + '_ {
        (0..SERIES_LEN)
            .map(move |j| self.samples[(self.idx + j) % SERIES_LEN])
            .filter(|s| s.time != 0)
    }
}

/// A command's statistics key: its (command, subcommand) names as the table's rows spell
/// them, the subcommand `""` for a plain command (`INFO commandstats`, the histograms).
///
/// Keys are looked up once or twice per command, and comparing the names byte by byte
/// was most of that cost; a key made from the table's rows points at the rows' own
/// strings, so equality first compares addresses and lengths, and only when they differ
/// confirms by the bytes. Order is by the bytes; the hash is one word made of each
/// name's length and its first two, middle and last bytes, read without a copy, which tell
/// the table's names apart almost always (the few that share them only share a bucket:
/// equality decides).
#[derive(Debug, Clone, Copy, Eq, PartialOrd, Ord)]
pub struct StatKey(pub &'static str, pub &'static str);

impl std::hash::Hash for StatKey {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        fn word(s: &str) -> u64 {
            let b = s.as_bytes();
            match (b.first(), b.get(1), b.get(b.len() / 2), b.last()) {
                (Some(&f), Some(&s), Some(&m), Some(&l)) => {
                    let bytes = u64::from(f) | u64::from(s) << 8 | u64::from(m) << 16;
                    b.len() as u64 | (bytes | u64::from(l) << 24) << 8
                }
                _ => b.first().map_or(0, |&f| 1 | u64::from(f) << 8),
            }
        }
        state.write_u64(word(self.0) ^ word(self.1).rotate_left(29));
    }
}

impl PartialEq for StatKey {
    fn eq(&self, other: &StatKey) -> bool {
        fn same(a: &str, b: &str) -> bool {
            (a.len() == b.len() && std::ptr::eq(a.as_ptr(), b.as_ptr())) || a == b
        }
        same(self.0, other.0) && same(self.1, other.1)
    }
}

/// The latency monitor and the command histograms, in the server state.
#[derive(Debug, Default)]
pub struct Latency {
    /// Events by name. (The command histograms are kept with the command counts, in
    /// [`crate::engine::core::state::CommandStats`].)
    pub events: BTreeMap<String, Series>,
}

impl Latency {
    /// Records `latency_ms` for `event` at Unix second `now_s` if `threshold_ms` is set (not
    /// 0) and reached (Redis's `latencyAddSampleIfNeeded`).
    pub fn sample_if_needed(
        &mut self,
        event: &str,
        latency_ms: u64,
        threshold_ms: i64,
        now_s: i64,
    ) {
        if threshold_ms > 0 && latency_ms >= threshold_ms as u64 {
            self.add_sample(event, latency_ms, now_s);
        }
    }

    /// Adds a sample (Redis's `latencyAddSample`): a second keeps only its worst.
    pub fn add_sample(&mut self, event: &str, latency_ms: u64, now_s: i64) {
        let ts = match self.events.get_mut(event) {
            Some(ts) => ts,
            None => self
                .events
                .entry(event.to_string())
                .or_insert_with(Series::new),
        };
        ts.max = ts.max.max(latency_ms);
        let prev = (ts.idx + SERIES_LEN - 1) % SERIES_LEN;
        if ts.samples[prev].time == now_s {
            let p = &mut ts.samples[prev];
            p.latency = p.latency.max(latency_ms);
            return;
        }
        ts.samples[ts.idx] = Sample {
            time: now_s,
            latency: latency_ms,
        };
        ts.idx = (ts.idx + 1) % SERIES_LEN;
    }

    /// Forgets the events named `event` in any case, or all of them for `None`; returns how
    /// many were forgotten.
    pub fn reset(&mut self, event: Option<&[u8]>) -> usize {
        let before = self.events.len();
        match event {
            None => self.events.clear(),
            Some(e) => self
                .events
                .retain(|name, _| !name.as_bytes().eq_ignore_ascii_case(e)),
        }
        before - self.events.len()
    }

    /// A start reading for timing `event`s of a cycle with [`Latency::end`], when the
    /// monitor is on (`threshold_ms` not 0; Redis's `latencyStartMonitor`).
    pub fn start(clock: &dyn Clock, threshold_ms: i64) -> Option<i64> {
        (threshold_ms > 0).then(|| clock.monotonic_us())
    }

    /// Ends a timing begun with [`Latency::start`]: samples `event` if it took at least
    /// `threshold_ms` (Redis's `latencyEndMonitor` and `latencyAddSampleIfNeeded`).
    pub fn end(&mut self, clock: &dyn Clock, threshold_ms: i64, event: &str, start: Option<i64>) {
        if let Some(started) = start {
            let ms = clock.monotonic_us().saturating_sub(started).max(0) / 1000;
            let now_s = clock.now_ms().div_euclid(1000);
            self.sample_if_needed(event, ms as u64, threshold_ms, now_s);
        }
    }
}

/// An event's figures for the doctor (Redis's `latencyStats`).
#[derive(Debug, Default, Clone, Copy)]
pub struct Analysis {
    /// Samples kept.
    pub samples: u64,
    /// Their average, mean absolute deviation, minimum, maximum (ms).
    pub avg: u64,
    /// Mean absolute deviation from `avg`.
    pub mad: u64,
    /// Seconds from the oldest sample to now (at least 1).
    pub period: i64,
}

/// Analyses a series at Unix second `now_s` (Redis's `analyzeLatencyForEvent`).
pub fn analyze(ts: &Series, now_s: i64) -> Analysis {
    let mut a = Analysis::default();
    let (mut sum, mut oldest) = (0u64, 0i64);
    for s in ts.in_order() {
        a.samples += 1;
        sum += s.latency;
        if oldest == 0 || s.time < oldest {
            oldest = s.time;
        }
    }
    if a.samples == 0 {
        return a;
    }
    a.avg = sum / a.samples;
    a.period = (now_s - oldest).max(0);
    if a.period == 0 {
        a.period = 1;
    }
    let dev: u64 = ts.in_order().map(|s| a.avg.abs_diff(s.latency)).sum();
    a.mad = dev / a.samples;
    a
}

/// The smallest value tracked, in nanoseconds (Redis's `LATENCY_HISTOGRAM_MIN_VALUE`).
pub const HIST_MIN_NS: i64 = 1;
/// The largest value tracked: a second (`LATENCY_HISTOGRAM_MAX_VALUE`); longer calls
/// count as a second.
pub const HIST_MAX_NS: i64 = 1_000_000_000;
/// log2 of the sub-buckets in a range: 2 significant figures need 200 distinct values, so
/// 256 (HdrHistogram's `sub_bucket_count`).
const SUB_BUCKET_BITS: u32 = 8;
const SUB_BUCKET_COUNT: i64 = 1 << SUB_BUCKET_BITS;
const SUB_BUCKET_HALF_BITS: u32 = SUB_BUCKET_BITS - 1;
const SUB_BUCKET_HALF: i64 = 1 << SUB_BUCKET_HALF_BITS;
const SUB_BUCKET_MASK: i64 = SUB_BUCKET_COUNT - 1;
/// Ranges needed until 256·2^k exceeds a second: 23.
const BUCKETS: usize = 23;
/// Counters: `(BUCKETS + 1) · 128`.
const COUNTS: usize = (BUCKETS + 1) << SUB_BUCKET_HALF_BITS;

/// A command's latency distribution in nanoseconds (see the module's opening comment).
#[derive(Debug, Clone)]
pub struct Histogram {
    counts: Vec<u64>,
    total: u64,
}

fn bucket_index(value: i64) -> u32 {
    let pow2ceiling = 64 - (value | SUB_BUCKET_MASK).leading_zeros();
    pow2ceiling - (SUB_BUCKET_HALF_BITS + 1)
}

fn counts_index(value: i64) -> usize {
    let b = bucket_index(value);
    let sub = value >> b;
    (((b as i64 + 1) << SUB_BUCKET_HALF_BITS) + sub - SUB_BUCKET_HALF) as usize
}

/// The lowest value of the counter at `index`.
fn value_at_index(index: usize) -> i64 {
    let index = index as i64;
    let mut bucket = (index >> SUB_BUCKET_HALF_BITS) - 1;
    let mut sub = (index & (SUB_BUCKET_HALF - 1)) + SUB_BUCKET_HALF;
    if bucket < 0 {
        sub -= SUB_BUCKET_HALF;
        bucket = 0;
    }
    sub << bucket
}

/// The lowest value counted with `value`.
pub fn lowest_equivalent(value: i64) -> i64 {
    let b = bucket_index(value);
    (value >> b) << b
}

/// The highest value counted with `value`.
pub fn highest_equivalent(value: i64) -> i64 {
    let b = bucket_index(value);
    let sub = value >> b;
    let range = if sub >= SUB_BUCKET_COUNT { b + 1 } else { b };
    lowest_equivalent(value) + (1i64 << range) - 1
}

impl Default for Histogram {
    fn default() -> Histogram {
        Histogram::new()
    }
}

impl Histogram {
    /// An empty histogram.
    pub fn new() -> Histogram {
        Histogram {
            counts: vec![0; COUNTS],
            total: 0,
        }
    }

    /// Counts a value in nanoseconds, clamped to the tracked range.
    pub fn record(&mut self, ns: i64) {
        let v = ns.clamp(HIST_MIN_NS, HIST_MAX_NS);
        let i = counts_index(v);
        if let Some(c) = self.counts.get_mut(i) {
            *c += 1;
            self.total += 1;
        }
    }

    /// Values counted.
    pub fn total(&self) -> u64 {
        self.total
    }

    /// The value at `percentile` (HdrHistogram's `hdr_value_at_percentile`): the highest
    /// equivalent value of the first counter at which the cumulative count reaches the
    /// percentile's share of the total (the lowest equivalent for percentile 0).
    pub fn value_at_percentile(&self, percentile: f64) -> i64 {
        let p = percentile.min(100.0);
        let wanted = (((p / 100.0) * self.total as f64) + 0.5) as u64;
        let wanted = wanted.max(1);
        let mut seen = 0u64;
        let mut value = 0;
        for (i, &c) in self.counts.iter().enumerate() {
            seen += c;
            if seen >= wanted {
                value = value_at_index(i);
                break;
            }
        }
        if percentile == 0.0 {
            lowest_equivalent(value)
        } else {
            highest_equivalent(value)
        }
    }

    /// The cumulative distribution as `LATENCY HISTOGRAM` gives it: for each power of two
    /// from 1024 ns whose level added calls, the level's bucket's highest value in
    /// microseconds and the calls up to it (HdrHistogram's logarithmic iterator, first
    /// bucket 1024, base 2, as Redis's `fillCommandCDF` walks it).
    pub fn cdf_usec(&self) -> Vec<(i64, u64)> {
        let mut out = Vec::new();
        let mut level: i64 = 1024;
        let mut level_lowest = lowest_equivalent(level);
        let mut index: isize = -1;
        let (mut value, mut cumulative, mut previous) = (0i64, 0u64, 0u64);
        let mut highest = 0i64;
        loop {
            let peek_beyond = (index + 1) < COUNTS as isize
                && value_at_index((index + 1) as usize) > level_lowest;
            if !(cumulative < self.total || peek_beyond) {
                break;
            }
            // Advance until the current value reaches the reporting level.
            loop {
                if value >= level_lowest {
                    level *= 2;
                    level_lowest = lowest_equivalent(level);
                    break;
                }
                index += 1;
                if index as usize >= COUNTS {
                    break;
                }
                cumulative += self.counts[index as usize];
                value = value_at_index(index as usize);
                highest = highest_equivalent(value);
            }
            if cumulative > previous {
                out.push((highest / 1000, cumulative));
            }
            previous = cumulative;
            if index as usize >= COUNTS {
                break;
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buckets_match_hdr_histograms_boundaries() {
        // Linear to 255, then 2^k-wide steps: 3000 ns falls in 2992..=3007.
        assert_eq!(lowest_equivalent(200), 200);
        assert_eq!(highest_equivalent(200), 200);
        assert_eq!(lowest_equivalent(3000), 2992);
        assert_eq!(highest_equivalent(3000), 3007);
        assert_eq!(highest_equivalent(65536), 66047);
        assert_eq!(
            value_at_index(counts_index(1_000_000_000)),
            lowest_equivalent(1_000_000_000)
        );
        assert!(counts_index(HIST_MAX_NS) < COUNTS);
    }

    #[test]
    fn percentiles_report_the_bucket_top() {
        let mut h = Histogram::new();
        for _ in 0..98 {
            h.record(3000);
        }
        h.record(41_000);
        h.record(41_000);
        assert_eq!(h.total(), 100);
        assert_eq!(h.value_at_percentile(50.0), 3007);
        assert_eq!(h.value_at_percentile(99.0), 41_215);
        assert_eq!(h.value_at_percentile(99.9), 41_215);
        assert_eq!(h.value_at_percentile(0.0), 2992);
        // Out of range values are clamped, not lost.
        h.record(5_000_000_000);
        h.record(-3);
        assert_eq!(h.total(), 102);
        assert_eq!(
            h.value_at_percentile(100.0),
            highest_equivalent(HIST_MAX_NS)
        );
    }

    #[test]
    fn cdf_is_cumulative_by_powers_of_two() {
        // As redis-server reported for 50 SETs: 8 up to 2 us, 35 up to 4, 48 up to 8, 50 up
        // to 66 (the 65536 ns level).
        let mut h = Histogram::new();
        for (ns, n) in [(1500, 8), (3000, 27), (6000, 13), (40_000, 2)] {
            for _ in 0..n {
                h.record(ns);
            }
        }
        assert_eq!(h.cdf_usec(), vec![(2, 8), (4, 35), (8, 48), (66, 50)]);
        assert!(Histogram::new().cdf_usec().is_empty());
        // As redis-server 7.0.15 reported an EVAL of 156 ms (its level's bucket top, and the
        // value's bucket top for INFO) and one of 1.37 s (clamped to a second; the last
        // level is never reached, so the last counter's top is reported).
        let mut eval = Histogram::new();
        eval.record(156_237_000);
        assert_eq!(eval.cdf_usec(), vec![(270_532, 1)]);
        assert_eq!(eval.value_at_percentile(50.0), 156_237_823);
        let mut long = Histogram::new();
        long.record(1_374_786_000);
        assert_eq!(long.cdf_usec(), vec![(1_073_741, 1)]);
        assert_eq!(long.value_at_percentile(99.9), 1_002_438_655);
        let mut one = Histogram::new();
        one.record(10);
        assert_eq!(one.cdf_usec(), vec![(1, 1)]);
    }

    #[test]
    fn events_keep_a_seconds_worst_and_reset_by_name() {
        let mut l = Latency::default();
        l.sample_if_needed("command", 5, 0, 100);
        assert!(l.events.is_empty());
        l.sample_if_needed("command", 5, 10, 100);
        assert!(l.events.is_empty());
        l.sample_if_needed("command", 300, 200, 100);
        l.sample_if_needed("command", 400, 200, 100);
        l.sample_if_needed("command", 250, 200, 101);
        let ts = &l.events["command"];
        assert_eq!(ts.in_order().collect::<Vec<_>>().len(), 2);
        assert_eq!(
            ts.last(),
            Sample {
                time: 101,
                latency: 250
            }
        );
        assert_eq!(ts.max, 400);
        let a = analyze(ts, 110);
        assert_eq!((a.samples, a.avg, a.mad, a.period), (2, 325, 75, 10));
        l.add_sample("expire-cycle", 30, 100);
        assert_eq!(l.reset(Some(b"COMMAND")), 1);
        assert_eq!(l.reset(Some(b"nope")), 0);
        assert_eq!(l.reset(None), 1);
    }
}
