//! Time, injected.
//!
//! Time is a source of non-determinism, so the engine never reads the system clock itself:
//! the host hands it a [`Clock`]. The native server uses `SystemClock`; the browser passes
//! a clock built on `Date.now()`; tests use [`ManualClock`] and move time by hand.

use std::cell::Cell;
use std::rc::Rc;

/// A source of wall-clock time in microseconds since the Unix epoch.
pub trait Clock {
    /// Microseconds since 1970-01-01T00:00:00Z.
    fn now_us(&self) -> i64;

    /// Milliseconds since the Unix epoch.
    fn now_ms(&self) -> i64 {
        self.now_us().div_euclid(1000)
    }

    /// A reading in microseconds for measuring how long something took (the slow log,
    /// `INFO commandstats`): only differences between readings mean anything. A clock
    /// that has a monotonic, finer source than its wall time gives that; by default it
    /// is the wall time.
    fn monotonic_us(&self) -> i64 {
        self.now_us()
    }

    /// The wall time ([`Clock::now_us`]) and a [`Clock::monotonic_us`] reading, taken
    /// together at the start of a command: its time, and where its duration starts. By
    /// default two readings; a clock that can derive one from the other reads once.
    fn now_and_monotonic_us(&self) -> (i64, i64) {
        (self.now_us(), self.monotonic_us())
    }

    /// Stops the caller for `us` microseconds (`DEBUG SLEEP`, which stops the whole
    /// server). By default it waits on [`Clock::monotonic_us`], which is all a page's one
    /// thread can do; the operating system's clock sleeps, and a manual clock just moves
    /// forward, so tests see the time pass without waiting.
    fn sleep_us(&self, us: i64) {
        let end = self.monotonic_us().saturating_add(us);
        while self.monotonic_us() < end {
            std::hint::spin_loop();
        }
    }
}

/// The operating system's clock. Not available on `wasm32-unknown-unknown`, where
/// `SystemTime::now` panics.
#[cfg(not(target_arch = "wasm32"))]
#[derive(Debug, Default, Clone, Copy)]
pub struct SystemClock;

#[cfg(not(target_arch = "wasm32"))]
impl Clock for SystemClock {
    fn now_us(&self) -> i64 {
        system::wall_us()
    }

    fn monotonic_us(&self) -> i64 {
        system::monotonic_us()
    }

    /// One monotonic reading, and the wall time derived from it with the offset between
    /// the two clocks, which is read again from the system clock every
    /// 100 ms. Both clocks run at the same (NTP-slewed) rate, so the
    /// derived time equals the wall time to the microsecond; only a step of the system
    /// clock (`date -s`) reaches the engine up to 100 ms late. This saves one of the
    /// three clock readings every command took (a tenth of a microsecond on a VM).
    fn now_and_monotonic_us(&self) -> (i64, i64) {
        let mono = system::monotonic_us();
        (system::wall_from(mono), mono)
    }

    fn sleep_us(&self, us: i64) {
        if let Ok(us) = u64::try_from(us) {
            std::thread::sleep(std::time::Duration::from_micros(us));
        }
    }
}

/// The state behind [`SystemClock`], shared by every engine in the process (there is one
/// system clock).
#[cfg(not(target_arch = "wasm32"))]
mod system {
    use std::sync::atomic::{AtomicI64, Ordering};
    use std::time::{SystemTime, UNIX_EPOCH};

    /// How often the wall clock's offset from the monotonic one is read again (µs).
    pub const RESYNC_US: i64 = 100_000;

    /// The monotonic readings' origin.
    #[cfg(not(unix))]
    static START: std::sync::OnceLock<std::time::Instant> = std::sync::OnceLock::new();
    /// Wall time minus monotonic time, in µs, as last read.
    static OFFSET_US: AtomicI64 = AtomicI64::new(0);
    /// The monotonic reading at which [`OFFSET_US`] was read (`i64::MIN`: never).
    static SYNCED_AT_US: AtomicI64 = AtomicI64::new(i64::MIN);

    /// Microseconds on the system's monotonic clock (from an arbitrary origin).
    #[cfg(unix)]
    pub fn monotonic_us() -> i64 {
        let t = rustix::time::clock_gettime(rustix::time::ClockId::Monotonic);
        t.tv_sec.saturating_mul(1_000_000) + t.tv_nsec as i64 / 1000
    }

    /// Microseconds since the first reading in the process.
    #[cfg(not(unix))]
    pub fn monotonic_us() -> i64 {
        START
            .get_or_init(std::time::Instant::now)
            .elapsed()
            .as_micros() as i64
    }

    /// The system's wall time in microseconds since the Unix epoch.
    pub fn wall_us() -> i64 {
        SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map(|d| d.as_micros() as i64)
            .unwrap_or(0)
    }

    /// The wall time at the monotonic reading `mono`.
    pub fn wall_from(mono: i64) -> i64 {
        let synced = SYNCED_AT_US.load(Ordering::Relaxed);
        if synced == i64::MIN || mono.saturating_sub(synced) >= RESYNC_US || mono < synced {
            let offset = wall_us() - monotonic_us();
            OFFSET_US.store(offset, Ordering::Relaxed);
            SYNCED_AT_US.store(mono, Ordering::Relaxed);
            return mono + offset;
        }
        mono + OFFSET_US.load(Ordering::Relaxed)
    }
}

/// A clock that only moves when told to. Clones share the same time.
#[derive(Debug, Clone)]
pub struct ManualClock {
    us: Rc<Cell<i64>>,
}

impl ManualClock {
    /// A clock standing at `ms` milliseconds since the epoch.
    pub fn at_ms(ms: i64) -> ManualClock {
        ManualClock {
            us: Rc::new(Cell::new(ms.saturating_mul(1000))),
        }
    }

    /// Moves the clock forward (or back, for a negative `ms`).
    pub fn advance_ms(&self, ms: i64) {
        self.us
            .set(self.us.get().saturating_add(ms.saturating_mul(1000)));
    }

    /// Sets the clock to `ms` milliseconds since the epoch.
    pub fn set_ms(&self, ms: i64) {
        self.us.set(ms.saturating_mul(1000));
    }
}

impl Clock for ManualClock {
    fn now_us(&self) -> i64 {
        self.us.get()
    }

    fn sleep_us(&self, us: i64) {
        self.us.set(self.us.get().saturating_add(us.max(0)));
    }
}

/// A clock backed by closures returning milliseconds: the wall time (the browser passes
/// `Date.now`) and a monotonic reading for durations (`performance.now`, finer).
pub struct FnClock<F: Fn() -> f64, G: Fn() -> f64 = F>(pub F, pub Option<G>);

impl<F: Fn() -> f64> FnClock<F> {
    /// A clock on `wall` alone, which then also times durations.
    pub fn wall(wall: F) -> FnClock<F> {
        FnClock(wall, None)
    }
}

impl<F: Fn() -> f64, G: Fn() -> f64> Clock for FnClock<F, G> {
    fn now_us(&self) -> i64 {
        ((self.0)() * 1000.0) as i64
    }

    fn monotonic_us(&self) -> i64 {
        match &self.1 {
            Some(g) => (g() * 1000.0) as i64,
            None => self.now_us(),
        }
    }

    fn now_and_monotonic_us(&self) -> (i64, i64) {
        let now = self.now_us();
        match &self.1 {
            Some(g) => (now, (g() * 1000.0) as i64),
            // One reading serves as both (a call into JavaScript saved per command).
            None => (now, now),
        }
    }
}

/// A clock on one closure returning the wall time in milliseconds, which also serves as
/// its monotonic reading, kept from going back. The browser passes `Date.now`: from wasm in
/// Chromium it costs about 35 ns, while `performance.now()` costs about 215 ns and, in a page
/// that is not cross-origin isolated, moves in 100 µs steps, so it would time a short
/// command no better. A command takes one reading at its start and one at its end.
///
/// The monotonic reading is the wall time plus an adjustment that grows whenever the wall
/// clock steps back, so durations are never negative and the slow log never sees time run
/// backwards; a step forward shows as a longer duration for the command it falls in.
pub struct SteadyClock<F: Fn() -> f64> {
    wall: F,
    /// The last monotonic reading, and what is added to the wall time to make it (µs).
    steady: Cell<(i64, i64)>,
}

impl<F: Fn() -> f64> SteadyClock<F> {
    /// A clock on `wall`, in milliseconds since the Unix epoch.
    pub fn new(wall: F) -> SteadyClock<F> {
        SteadyClock {
            wall,
            steady: Cell::new((i64::MIN, 0)),
        }
    }

    /// The monotonic reading for the wall reading `wall_us`.
    fn steady(&self, wall_us: i64) -> i64 {
        let (last, mut adjust) = self.steady.get();
        let mut mono = wall_us.saturating_add(adjust);
        if mono < last {
            adjust = adjust.saturating_add(last - mono);
            mono = last;
        }
        self.steady.set((mono, adjust));
        mono
    }
}

impl<F: Fn() -> f64> Clock for SteadyClock<F> {
    fn now_us(&self) -> i64 {
        ((self.wall)() * 1000.0) as i64
    }

    fn monotonic_us(&self) -> i64 {
        let now = self.now_us();
        self.steady(now)
    }

    fn now_and_monotonic_us(&self) -> (i64, i64) {
        let now = self.now_us();
        (now, self.steady(now))
    }
}

#[cfg(all(test, not(target_arch = "wasm32")))]
mod tests {
    use super::*;

    /// The wall time derived from a monotonic reading is the system's wall time, at the
    /// first reading and after the offset was read again.
    #[test]
    fn the_system_clock_derives_the_wall_time_from_one_reading() {
        let clock = SystemClock;
        for round in 0..3 {
            let before = clock.now_us();
            let (now, mono) = clock.now_and_monotonic_us();
            let after = clock.now_us();
            assert!(
                before - 1_000 <= now && now <= after + 1_000,
                "round {round}: {before} <= {now} <= {after}"
            );
            assert!(mono <= clock.monotonic_us());
            std::thread::sleep(std::time::Duration::from_micros(
                system::RESYNC_US as u64 / 2 + 1,
            ));
        }
    }

    /// The steady clock reads the wall clock once per command start; its monotonic reading
    /// follows the wall clock, never goes back when the wall clock does, and moves on from
    /// where it stood once the wall clock moves again.
    #[test]
    fn the_steady_clock_never_goes_back() {
        let wall = Rc::new(Cell::new((1_700_000_000_000.0, 0)));
        let w = Rc::clone(&wall);
        let clock = SteadyClock::new(move || {
            let (ms, n) = w.get();
            w.set((ms, n + 1));
            ms
        });
        let at = |ms: f64| wall.set((ms, wall.get().1));
        assert_eq!(
            clock.now_and_monotonic_us(),
            (1_700_000_000_000_000, 1_700_000_000_000_000)
        );
        assert_eq!(wall.get().1, 1);
        at(1_700_000_000_002.5);
        assert_eq!(clock.monotonic_us(), 1_700_000_000_002_500);
        // The wall clock steps back an hour: the wall time says so, the monotonic reading
        // stands still, then moves with the wall clock from there.
        at(1_699_996_400_002.5);
        assert_eq!(
            clock.now_and_monotonic_us(),
            (1_699_996_400_002_500, 1_700_000_000_002_500)
        );
        at(1_699_996_400_003.0);
        assert_eq!(clock.monotonic_us(), 1_700_000_000_003_000);
        // A step forward is seen by both.
        at(1_699_996_400_013.0);
        assert_eq!(
            clock.now_and_monotonic_us(),
            (1_699_996_400_013_000, 1_700_000_000_013_000)
        );
        assert_eq!(wall.get().1, 5);
    }

    /// A clock on the wall time alone takes one reading for both at a command's start.
    #[test]
    fn a_wall_only_clock_reads_once_per_command_start() {
        let reads = Rc::new(Cell::new(0));
        let r = Rc::clone(&reads);
        let clock = FnClock::wall(move || {
            r.set(r.get() + 1);
            1_000.5
        });
        assert_eq!(clock.now_and_monotonic_us(), (1_000_500, 1_000_500));
        assert_eq!(reads.get(), 1);
    }
}
