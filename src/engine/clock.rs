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
        use std::time::{SystemTime, UNIX_EPOCH};
        SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map(|d| d.as_micros() as i64)
            .unwrap_or(0)
    }

    fn monotonic_us(&self) -> i64 {
        use std::sync::OnceLock;
        use std::time::Instant;
        static START: OnceLock<Instant> = OnceLock::new();
        START.get_or_init(Instant::now).elapsed().as_micros() as i64
    }

    fn sleep_us(&self, us: i64) {
        if let Ok(us) = u64::try_from(us) {
            std::thread::sleep(std::time::Duration::from_micros(us));
        }
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
}
