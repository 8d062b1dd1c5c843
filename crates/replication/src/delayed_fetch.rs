//! [`FetchWatch`]: what a parked fetch (consumer or follower, short of `min_bytes`) waits on.
//! Kafka's fetch purgatory keys a `DelayedFetch` by the partitions it reads; here a fetch
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
