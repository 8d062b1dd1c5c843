//! Test support for every layer (feature `testkit`, enabled only from dev-dependencies): a
//! [`ManualClock`] the test sets and moves, so time-driven behaviour is checked without sleeping.

use std::sync::atomic::{AtomicI64, Ordering};

use crate::Clock;

/// Wall-clock milliseconds as the test sets them; the monotonic reading follows them (in
/// nanoseconds, 0 before the epoch). Starts at 0 unless built with [`ManualClock::new`].
#[derive(Debug, Default)]
pub struct ManualClock(AtomicI64);

impl ManualClock {
    /// A clock reading `now_ms`.
    pub fn new(now_ms: i64) -> ManualClock {
        ManualClock(AtomicI64::new(now_ms))
    }

    /// Moves the clock to `now_ms` (backwards too, as a wall clock may).
    pub fn set(&self, now_ms: i64) {
        self.0.store(now_ms, Ordering::SeqCst);
    }

    /// Moves the clock `ms` milliseconds on.
    pub fn advance(&self, ms: i64) {
        self.0.fetch_add(ms, Ordering::SeqCst);
    }
}

impl Clock for ManualClock {
    fn now_ms(&self) -> i64 {
        self.0.load(Ordering::SeqCst)
    }

    fn monotonic_ns(&self) -> u64 {
        u64::try_from(self.now_ms()).unwrap_or(0).saturating_mul(1_000_000)
    }
}
