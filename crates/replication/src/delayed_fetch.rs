//! [`DelayedFetch`]: Kafka's `DelayedFetch`, the one wait of every Fetch, a consumer's
//! (`strand-broker`'s fetch handler) or a follower's ([`crate::ReplicaManager::replica_fetch`]):
//! read the partitions, and while the answer is short of `min_bytes`, wait for a change of one of
//! them until `max_wait_ms` runs out, then read again.
//!
//! [`FetchWatch`]: what a parked fetch waits on. Kafka's fetch purgatory keys a `DelayedFetch`
//! by the partitions it reads; here a fetch
//! subscribes to each partition it reads (a `tokio::sync::watch` per partition, changed on every
//! append, high watermark, ISR or leadership change and on removal), and, for partitions this node
//! does not host yet, to the node's hosting changes. An append wakes only the fetches reading its
//! partition, never every fetch on the node.
//!
//! Subscribe before reading, then wait: a change between the read and the wait is not missed
//! (a watch receiver remembers the version it has seen).
//!
//! What it is not: it reads nothing and decides nothing; the fetch reads again when woken.

use std::future::Future;
use std::pin::Pin;
use std::task::Poll;

use tokio::sync::watch;
use tokio::time::{Duration, Instant};

/// A fetch that may wait: until it has what it needs or its deadline passes.
#[derive(Debug, Clone, Copy)]
pub struct DelayedFetch {
    deadline: Instant,
}

impl DelayedFetch {
    /// A fetch that waits at most `max_wait` from now.
    pub fn new(max_wait: Duration) -> DelayedFetch {
        DelayedFetch { deadline: Instant::now() + max_wait }
    }

    /// Runs `pass` until it says its answer is complete, or once more after the deadline.
    /// `pass` subscribes every partition it reads to the [`FetchWatch`] it is given before
    /// reading it, so a change between its read and the wait is not missed; only a change of one
    /// of those wakes this fetch.
    pub async fn run<T>(self, mut pass: impl FnMut(&mut FetchWatch) -> (T, bool)) -> T {
        loop {
            let mut watch = FetchWatch::new();
            let (answer, complete) = pass(&mut watch);
            let now = Instant::now();
            if complete || now >= self.deadline {
                return answer;
            }
            let _ = tokio::time::timeout(self.deadline - now, watch.changed()).await;
        }
    }
}

/// One receiver's wait for its next change.
type ChangeWait<'a> = Pin<Box<dyn Future<Output = Result<(), watch::error::RecvError>> + Send + 'a>>;

/// The changes one parked fetch waits for. Cheap to build: one receiver per partition read.
#[derive(Debug, Default)]
pub struct FetchWatch {
    receivers: Vec<watch::Receiver<u64>>,
}

impl FetchWatch {
    pub fn new() -> Self {
        FetchWatch::default()
    }

    /// Adds a partition's (or the node's hosting) change signal, subscribed before the read it
    /// guards.
    pub fn add(&mut self, receiver: watch::Receiver<u64>) {
        self.receivers.push(receiver);
    }

    /// How many signals the fetch waits on.
    pub fn len(&self) -> usize {
        self.receivers.len()
    }

    pub fn is_empty(&self) -> bool {
        self.receivers.is_empty()
    }

    /// Resolves once any of the signals changed since it was subscribed (or its partition is
    /// gone); never, with none. Polling is linear in the signals, and happens only when one of
    /// them wakes this fetch.
    pub async fn changed(&mut self) {
        let mut waits: Vec<ChangeWait<'_>> =
            self.receivers.iter_mut().map(|r| Box::pin(r.changed()) as ChangeWait<'_>).collect();
        std::future::poll_fn(|cx| {
            for wait in &mut waits {
                if wait.as_mut().poll(cx).is_ready() {
                    return Poll::Ready(());
                }
            }
            Poll::Pending
        })
        .await;
    }
}
