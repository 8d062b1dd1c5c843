//! InitProducerId with a transactional id (Kafka's `handleInitProducerId` and
//! `prepareInitProducerIdTransit`): a new id gets a producer id at epoch 0; a known one gets its
//! epoch bumped, which fences every older instance of the producer; an ongoing transaction is
//! aborted first (and the client told CONCURRENT_TRANSACTIONS, to retry once it is); exhausted
//! epochs move the id to a new producer id. KIP-360: a request carrying the producer id and epoch
//! it had is a recovering producer, accepted only if they are still current (or it is a retry of
//! the bump it never heard of); anything else is PRODUCER_FENCED.

use strand_protocol::error::ErrorCode;

use super::metadata::{NO_PRODUCER_EPOCH, NO_PRODUCER_ID, TRANSACTION_VERSION_2, TxnMetadata, is_epoch_exhausted};
use super::producer_id::{NeedProducerId, ProducerIds};
use super::shard::{TxnOutput, TxnShard};
use super::state::TxnState;

/// InitProducerId's answer: the producer id and epoch to use, or the error.
pub type InitProducerIdResult = Result<(i64, i16), ErrorCode>;

impl TxnShard {
    /// InitProducerId for `transactional_id`. `expected` is the request's producer id and epoch
    /// (InitProducerId v3+), when not -1.
    pub fn init_producer_id(
        &mut self,
        now_ms: i64,
        ids: &mut dyn ProducerIds,
        transactional_id: &str,
        timeout_ms: i32,
        expected: Option<(i64, i16)>,
    ) -> Result<TxnOutput<InitProducerIdResult>, NeedProducerId> {
        if transactional_id.is_empty() {
            return Ok(TxnOutput::answer(Err(ErrorCode::InvalidRequest)));
        }
        if !self.config.is_valid_timeout(timeout_ms) {
            return Ok(TxnOutput::answer(Err(ErrorCode::InvalidTransactionTimeout)));
        }
        let current = match self.txns.get(transactional_id) {
            Some(txn) => txn.clone(),
            None => TxnMetadata::new(ids.next_producer_id().ok_or(NeedProducerId)?, timeout_ms, now_ms),
        };
        if let Some((producer_id, epoch)) = expected {
            let known = current.producer_epoch == NO_PRODUCER_EPOCH
                || producer_id == current.producer_id
                || (producer_id == current.previous_producer_id && is_epoch_exhausted(epoch));
            if !known {
                return Ok(TxnOutput::answer(Err(ErrorCode::ProducerFenced)));
            }
        }
        match current.state {
            TxnState::Empty | TxnState::CompleteCommit | TxnState::CompleteAbort => {
                let next = match self.next_init(&current, ids, timeout_ms, expected, now_ms)? {
                    Ok(next) => next,
                    Err(error) => return Ok(TxnOutput::answer(Err(error))),
                };
                let response = Ok((next.producer_id, next.producer_epoch));
                let record = self.record(transactional_id, next);
                Ok(self.write(vec![record], Vec::new(), response))
            }
            TxnState::Ongoing => {
                // Abort the transaction under a fenced epoch; the client is told to retry. Under
                // transactions V2 a retry naming the fenced epoch gets the abort's epoch (the
                // last epoch is the fenced one), any other bumps again; exhausted epochs move
                // the id to a new producer id with the abort. Under V1 the retry bumps again
                // (and rotates the producer id if the fence used the last epoch).
                let version = self.config.transaction_version;
                let next_producer_id = if version >= TRANSACTION_VERSION_2 && current.is_epoch_exhausted() {
                    ids.next_producer_id().ok_or(NeedProducerId)?
                } else {
                    NO_PRODUCER_ID
                };
                let aborted = current.prepare_fence_and_abort(version, next_producer_id, now_ms);
                let markers = vec![self.markers_for(transactional_id, &aborted)];
                let record = self.record(transactional_id, aborted);
                Ok(self.write(vec![record], markers, Err(ErrorCode::ConcurrentTransactions)))
            }
            // Markers are being written (or, for PrepareEpochFence, which Kafka never writes, a
            // timeout sweep will abort it): retry later.
            TxnState::PrepareCommit | TxnState::PrepareAbort | TxnState::PrepareEpochFence | TxnState::Dead => {
                Ok(TxnOutput::answer(Err(ErrorCode::ConcurrentTransactions)))
            }
        }
    }

    /// The Empty metadata InitProducerId moves a settled id to: a new producer id if the epochs
    /// are exhausted (and the request, if it names an epoch, names the current one), else the
    /// epoch bumped (Kafka's `prepareIncrementProducerEpoch`), or kept for a retried request.
    fn next_init(
        &self,
        current: &TxnMetadata,
        ids: &mut dyn ProducerIds,
        timeout_ms: i32,
        expected: Option<(i64, i16)>,
        now_ms: i64,
    ) -> Result<Result<TxnMetadata, ErrorCode>, NeedProducerId> {
        let expected_epoch = expected.map(|(_, epoch)| epoch);
        if current.is_epoch_exhausted() && expected_epoch.is_none_or(|e| e == current.producer_epoch) {
            let producer_id = ids.next_producer_id().ok_or(NeedProducerId)?;
            let last_epoch = if expected.is_some() { current.producer_epoch } else { NO_PRODUCER_EPOCH };
            return Ok(Ok(current.prepare_rotation(producer_id, last_epoch, timeout_ms, now_ms)));
        }
        let bumped = current.producer_epoch.saturating_add(1);
        let (epoch, last_epoch) = match expected_epoch {
            None => (bumped, NO_PRODUCER_EPOCH),
            Some(e) if current.producer_epoch == NO_PRODUCER_EPOCH || e == current.producer_epoch => {
                (bumped, current.producer_epoch)
            }
            // A retry of a bump whose answer was lost: the same epoch again.
            Some(e) if e == current.last_producer_epoch => (current.producer_epoch, current.last_producer_epoch),
            Some(_) => return Ok(Err(ErrorCode::ProducerFenced)),
        };
        Ok(Ok(current.prepare_init(epoch, last_epoch, timeout_ms, now_ms)))
    }
}
