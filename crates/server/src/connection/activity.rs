//! [`Activity`]: what a connection's reader and writer share about it: when it last did
//! something (its idle clock), how many of its requests are owed an answer, and until when a
//! throttled client is muted (KIP-219).

use std::sync::Mutex;
use std::sync::PoisonError;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use strand_broker::{Handled, Outcome};
use tokio::time::Instant;

/// How often a connection with a response owed looks again whether it has become idle.
const UNANSWERED_RECHECK: Duration = Duration::from_secs(1);

/// When a connection last did something (read a whole frame or its size, wrote a response) and
/// how many of its requests are handled and unanswered: its idle clock runs only while none is.
/// And until when a throttled client is muted (KIP-219: nothing more is read from it).
#[derive(Debug)]
pub(super) struct Activity {
    last: Mutex<Instant>,
    pub(super) unanswered: AtomicUsize,
    muted_until: Mutex<Option<Instant>>,
}

impl Activity {
    pub(super) fn new() -> Activity {
        Activity { last: Mutex::new(Instant::now()), unanswered: AtomicUsize::new(0), muted_until: Mutex::new(None) }
    }

    /// Mutes the connection if `request` was answered with a throttle (one a wait returns is the
    /// writer's to apply, once it knows it).
    pub(super) fn mute_after(&self, request: &Handled) {
        if let Handled::Done(Outcome::Throttled(_, throttle)) = request {
            self.mute(*throttle);
        }
    }

    /// Mutes the connection for `throttle` from now (a longer mute already set stands).
    pub(super) fn mute(&self, throttle: Duration) {
        let until = Instant::now() + throttle;
        let mut muted = self.muted_until.lock().unwrap_or_else(PoisonError::into_inner);
        *muted = Some(muted.map_or(until, |m| m.max(until)));
    }

    /// Resolves once the connection is not muted.
    pub(super) async fn unmuted(&self) {
        let until = *self.muted_until.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(until) = until {
            tokio::time::sleep_until(until).await;
        }
    }

    pub(super) fn touch(&self) {
        *self.last.lock().unwrap_or_else(PoisonError::into_inner) = Instant::now();
    }

    /// Resolves once the connection has been idle for `idle_max`; never if that is `None`.
    pub(super) async fn idle(&self, idle_max: Option<Duration>) -> Duration {
        let Some(idle_max) = idle_max else { return std::future::pending().await };
        loop {
            if self.unanswered.load(Ordering::Acquire) > 0 {
                // Not idle while a response is owed; the writer touches `last` when it is sent.
                tokio::time::sleep(idle_max.min(UNANSWERED_RECHECK)).await;
                continue;
            }
            let deadline = *self.last.lock().unwrap_or_else(PoisonError::into_inner) + idle_max;
            if deadline <= Instant::now() {
                return idle_max;
            }
            tokio::time::sleep_until(deadline).await;
        }
    }
}
