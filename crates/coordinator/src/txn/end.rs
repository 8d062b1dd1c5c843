//! EndTxn (Kafka's `endTransaction` and `endTransactionWithTV1`): commit or abort the ongoing
//! transaction by writing PrepareCommit or PrepareAbort; the answer goes out once that record is
//! committed, and the markers follow.
//!
//! Under transactions V2 (EndTxn v5, KIP-890 part 2) every transaction ends with a new epoch,
//! returned to the client: a retried or delayed EndTxn carries the old epoch, so it is recognised
//! as a retry of the transaction it ended (answered with the current producer id and epoch, and
//! nothing written) and can never end a later transaction, which the new epoch identifies. Kafka's
//! table for the settled states (PF = PRODUCER_FENCED, ITS = INVALID_TXN_STATE, retry = the
//! request's epoch is one below the current one):
//!
//! ```text
//!                  abort: retry  current     commit: retry  current
//! Empty                   PF     bump                PF     ITS
//! CompleteAbort           NONE   bump                ITS    ITS
//! CompleteCommit          ITS    bump                NONE   ITS
//! ```

use strand_protocol::error::ErrorCode;

use super::markers::TxnResult;
use super::metadata::{NO_PRODUCER_EPOCH, NO_PRODUCER_ID, TRANSACTION_VERSION_2, TxnMetadata};
use super::producer_id::{NeedProducerId, ProducerIds};
use super::shard::{TxnOutput, TxnShard};
use super::state::TxnState;

/// EndTxn's answer: the producer id and epoch the client goes on with (transactions V2; -1 and
/// -1 before), or the error.
pub type EndTxnResult = Result<(i64, i16), ErrorCode>;

const NO_PRODUCER: (i64, i16) = (NO_PRODUCER_ID, NO_PRODUCER_EPOCH);

impl TxnShard {
    /// EndTxn from `producer` (its id and epoch) using `client_transaction_version` (2 for
    /// EndTxn v5).
    pub fn end_txn(
        &mut self,
        now_ms: i64,
        ids: &mut dyn ProducerIds,
        transactional_id: &str,
        producer: (i64, i16),
        result: TxnResult,
        client_transaction_version: i16,
    ) -> Result<TxnOutput<EndTxnResult>, NeedProducerId> {
        let (producer_id, producer_epoch) = producer;
        if transactional_id.is_empty() {
            return Ok(TxnOutput::answer(Err(ErrorCode::InvalidRequest)));
        }
        let Some(txn) = self.txns.get(transactional_id).cloned() else {
            return Ok(TxnOutput::answer(Err(ErrorCode::InvalidProducerIdMapping)));
        };
        let decision = if client_transaction_version >= TRANSACTION_VERSION_2 {
            decide_v2(&txn, producer_id, producer_epoch, result)
        } else {
            decide_v1(&txn, producer_id, producer_epoch, result)
        };
        match decision {
            Decision::Answer(answer) => Ok(TxnOutput::answer(answer)),
            Decision::Prepare { to, no_partition_added } => {
                let next_producer_id =
                    if client_transaction_version >= TRANSACTION_VERSION_2 && txn.is_epoch_exhausted() {
                        ids.next_producer_id().ok_or(NeedProducerId)?
                    } else {
                        NO_PRODUCER_ID
                    };
                let prepared =
                    txn.prepare_end(to, client_transaction_version, next_producer_id, no_partition_added, now_ms);
                let answer = if client_transaction_version >= TRANSACTION_VERSION_2 {
                    // What the client goes on with is what CompleteCommit/CompleteAbort will hold.
                    let done = prepared.prepare_complete(now_ms);
                    Ok((done.producer_id, done.producer_epoch))
                } else {
                    Ok(NO_PRODUCER)
                };
                let markers = vec![self.markers_for(transactional_id, &prepared)];
                let record = self.record(transactional_id, prepared);
                Ok(self.write(vec![record], markers, answer))
            }
        }
    }

    /// The coordinator's own abort of an ongoing transaction (a timeout): the epoch is bumped to
    /// fence its producer, as for InitProducerId. A PrepareEpochFence left by a Kafka coordinator
    /// is aborted at its epoch. The sweep has no producer id at hand: a transaction whose epochs
    /// are exhausted is fenced as under transactions V1 (its producer's next InitProducerId
    /// rotates the id) where Kafka would move it to a new id at once.
    pub(crate) fn fence_and_abort(&self, transactional_id: &str, txn: &TxnMetadata, now_ms: i64) -> TxnOutput<()> {
        let version = self.config.transaction_version;
        let aborted = if txn.state == TxnState::PrepareEpochFence {
            txn.prepare_end(TxnState::PrepareAbort, version, NO_PRODUCER_ID, false, now_ms)
        } else if txn.is_epoch_exhausted() {
            let aborted = txn.prepare_fence_and_abort(version.min(1), NO_PRODUCER_ID, now_ms);
            TxnMetadata { client_transaction_version: version, ..aborted }
        } else {
            txn.prepare_fence_and_abort(version, NO_PRODUCER_ID, now_ms)
        };
        let markers = vec![self.markers_for(transactional_id, &aborted)];
        TxnOutput { records: vec![self.record(transactional_id, aborted)], markers, response: () }
    }
}

/// What EndTxn does, decided from the id's state alone.
enum Decision {
    /// Answer without writing.
    Answer(EndTxnResult),
    /// Write the PrepareCommit/PrepareAbort.
    Prepare { to: TxnState, no_partition_added: bool },
}

fn prepare_state(result: TxnResult) -> TxnState {
    match result {
        TxnResult::Commit => TxnState::PrepareCommit,
        TxnResult::Abort => TxnState::PrepareAbort,
    }
}

/// EndTxn again while the markers of the same decision are being written: retry later; the
/// other decision cannot be taken any more.
fn repeated(txn: &TxnMetadata, result: TxnResult) -> Decision {
    if txn.state == prepare_state(result) {
        Decision::Answer(Err(ErrorCode::ConcurrentTransactions))
    } else {
        invalid(txn, result)
    }
}

fn invalid(txn: &TxnMetadata, result: TxnResult) -> Decision {
    tracing::warn!(state = %txn.state, %result, "EndTxn in a state that cannot take it");
    Decision::Answer(Err(ErrorCode::InvalidTxnState))
}

/// Transactions V1 (EndTxn v0-v4): the epoch must be the current one.
fn decide_v1(txn: &TxnMetadata, producer_id: i64, producer_epoch: i16, result: TxnResult) -> Decision {
    if txn.producer_id != producer_id {
        return Decision::Answer(Err(ErrorCode::InvalidProducerIdMapping));
    }
    if txn.producer_epoch != producer_epoch {
        return Decision::Answer(Err(ErrorCode::ProducerFenced));
    }
    match (txn.state, result) {
        (TxnState::Ongoing, _) => Decision::Prepare { to: prepare_state(result), no_partition_added: false },
        (TxnState::CompleteCommit, TxnResult::Commit) | (TxnState::CompleteAbort, TxnResult::Abort) => {
            Decision::Answer(Ok(NO_PRODUCER))
        }
        (TxnState::PrepareCommit | TxnState::PrepareAbort, _) => repeated(txn, result),
        (TxnState::PrepareEpochFence | TxnState::Dead, _) => Decision::Answer(Err(ErrorCode::ConcurrentTransactions)),
        _ => invalid(txn, result),
    }
}

/// Transactions V2 (EndTxn v5): the epoch must be the current one, or for a retry the one
/// before it (or, across a producer id rotation, the last epoch of the previous id).
fn decide_v2(txn: &TxnMetadata, producer_id: i64, producer_epoch: i16, result: TxnResult) -> Decision {
    let retry_on_overflow =
        txn.previous_producer_id == producer_id && producer_epoch == i16::MAX - 1 && txn.producer_epoch == 0;
    let retry_on_bump = i32::from(txn.producer_epoch) == i32::from(producer_epoch) + 1;
    let valid_epoch = match txn.state {
        TxnState::Ongoing | TxnState::Empty | TxnState::Dead | TxnState::PrepareEpochFence => {
            producer_epoch == txn.producer_epoch
        }
        TxnState::PrepareCommit | TxnState::PrepareAbort => retry_on_bump,
        TxnState::CompleteCommit | TxnState::CompleteAbort => {
            retry_on_bump || retry_on_overflow || producer_epoch == txn.producer_epoch
        }
    };
    let is_retry = retry_on_bump || retry_on_overflow;
    if txn.producer_id != producer_id && !retry_on_overflow {
        return Decision::Answer(Err(ErrorCode::InvalidProducerIdMapping));
    }
    if !valid_epoch {
        return Decision::Answer(Err(ErrorCode::ProducerFenced));
    }
    let current = Ok((txn.producer_id, txn.producer_epoch));
    match (txn.state, result) {
        (TxnState::Ongoing, _) => Decision::Prepare { to: prepare_state(result), no_partition_added: false },
        (TxnState::CompleteCommit, TxnResult::Commit) | (TxnState::CompleteAbort, TxnResult::Abort) if is_retry => {
            Decision::Answer(current)
        }
        (TxnState::CompleteCommit, TxnResult::Abort) if is_retry => invalid(txn, result),
        (TxnState::CompleteCommit | TxnState::CompleteAbort | TxnState::Empty, TxnResult::Abort) => {
            Decision::Prepare { to: TxnState::PrepareAbort, no_partition_added: true }
        }
        (TxnState::PrepareCommit | TxnState::PrepareAbort, _) => repeated(txn, result),
        (TxnState::PrepareEpochFence | TxnState::Dead, _) => Decision::Answer(Err(ErrorCode::ConcurrentTransactions)),
        _ => invalid(txn, result),
    }
}
