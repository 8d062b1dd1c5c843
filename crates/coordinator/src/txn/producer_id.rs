//! Where new producer ids come from. The cluster hands them out in blocks (AllocateProducerIds to
//! the controller, a `ProducerIdsRecord` in the metadata log), which the broker owns: it
//! implements [`ProducerIdSource`]. Operations of the state machine are synchronous and
//! deterministic, so they draw from [`ProducerIds`], a hand of ids the shell filled beforehand;
//! an operation that finds it empty answers [`NeedProducerId`], and the shell draws an id from the
//! source and runs the operation again on the same state.

use std::fmt;
use std::sync::atomic::{AtomicI64, Ordering};

use strand_protocol::error::ErrorCode;

use crate::writer::BoxFuture;

/// The cluster's producer ids: each call answers an id never handed out before, by any broker.
pub trait ProducerIdSource: Send + Sync + fmt::Debug {
    /// A fresh producer id, or the error to answer the client with (Kafka answers
    /// COORDINATOR_LOAD_IN_PROGRESS while a new block is being fetched).
    fn next_producer_id(&self) -> BoxFuture<'_, Result<i64, ErrorCode>>;
}

/// Ids an operation may take, synchronously.
pub trait ProducerIds {
    /// The next id, or `None` when the hand is empty.
    fn next_producer_id(&mut self) -> Option<i64>;
}

/// An operation needed a producer id and [`ProducerIds`] had none; it changed nothing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NeedProducerId;

/// A hand of at most one id: what the shell passes to an operation.
impl ProducerIds for Option<i64> {
    fn next_producer_id(&mut self) -> Option<i64> {
        self.take()
    }
}

/// Ids from a counter, for tests and for a single node that owns every id.
#[derive(Debug)]
pub struct SequentialProducerIds {
    next: AtomicI64,
}

impl SequentialProducerIds {
    pub fn starting_at(first: i64) -> Self {
        SequentialProducerIds { next: AtomicI64::new(first) }
    }
}

impl ProducerIdSource for SequentialProducerIds {
    fn next_producer_id(&self) -> BoxFuture<'_, Result<i64, ErrorCode>> {
        let id = self.next.fetch_add(1, Ordering::Relaxed);
        Box::pin(async move { Ok(id) })
    }
}

impl ProducerIds for SequentialProducerIds {
    fn next_producer_id(&mut self) -> Option<i64> {
        Some(self.next.fetch_add(1, Ordering::Relaxed))
    }
}
