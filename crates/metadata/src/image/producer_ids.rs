//! The producer id allocation state, from `ProducerIdsRecord`s, as Kafka's `ProducerIdsImage`.

use strand_protocol::messages::ProducerIdsRecord;

use super::ReplayError;

/// How many producer ids one AllocateProducerIds hands a broker (Kafka's
/// `ProducerIdsBlock.PRODUCER_ID_BLOCK_SIZE`).
pub const PRODUCER_ID_BLOCK_SIZE: i32 = 1000;

/// The first producer id not yet handed out in any block. Blocks are persisted before they are
/// used, so after a restart no producer id is handed out twice.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ProducerIdsImage {
    /// `-1` until the first block is allocated, as in Kafka's image.
    next_producer_id: i64,
}

impl Default for ProducerIdsImage {
    fn default() -> Self {
        ProducerIdsImage { next_producer_id: -1 }
    }
}

impl ProducerIdsImage {
    /// Where the next block starts: 0 before any allocation.
    pub fn next_block_start(&self) -> i64 {
        self.next_producer_id.max(0)
    }

    /// The raw `nextProducerId` of the last `ProducerIdsRecord`, `-1` if none.
    pub fn next_producer_id(&self) -> i64 {
        self.next_producer_id
    }

    /// A block is only ever handed out once: the next id must grow, as Kafka's
    /// `ProducerIdControlManager.replay` checks.
    pub(super) fn replay(&mut self, record: &ProducerIdsRecord) -> Result<(), ReplayError> {
        if record.next_producer_id <= self.next_producer_id || record.next_producer_id < 0 {
            return Err(ReplayError::ProducerIdNotIncreasing {
                current: self.next_producer_id,
                next: record.next_producer_id,
            });
        }
        self.next_producer_id = record.next_producer_id;
        Ok(())
    }
}
