//! Partitions joining a transaction: AddPartitionsToTxn from a client (v0-3), from a partition
//! leader on the client's behalf (v5 under transactions V2, KIP-890 part 2), AddOffsetsToTxn
//! (the group's `__consumer_offsets` partition), and the partition leaders' verification
//! (AddPartitionsToTxn v4+ with `VerifyOnly`, KIP-890 part 1), which only answers whether each
//! partition is already in the ongoing transaction.

use std::collections::BTreeSet;

use strand_base::TopicPartition;
use strand_base::topic::OFFSETS_TOPIC;
use strand_protocol::error::ErrorCode;

use super::metadata::TxnMetadata;
use super::shard::{TxnOutput, TxnShard};
use super::state::TxnState;
use crate::group::hash;

impl TxnShard {
    /// AddPartitionsToTxn: `partitions` join the transaction of `producer_id` at `producer_epoch`,
    /// which starts if none is ongoing. `client_transaction_version` is the client's
    /// `transaction.version` as the request's version tells it.
    pub fn add_partitions(
        &mut self,
        now_ms: i64,
        transactional_id: &str,
        producer_id: i64,
        producer_epoch: i16,
        partitions: &BTreeSet<TopicPartition>,
        client_transaction_version: i16,
    ) -> TxnOutput<ErrorCode> {
        if transactional_id.is_empty() {
            return TxnOutput::answer(ErrorCode::InvalidRequest);
        }
        let txn = match self.producer_of(transactional_id, producer_id, producer_epoch) {
            Ok(txn) => txn,
            Err(error) => return TxnOutput::answer(error),
        };
        match txn.state {
            TxnState::PrepareCommit | TxnState::PrepareAbort | TxnState::PrepareEpochFence | TxnState::Dead => {
                TxnOutput::answer(ErrorCode::ConcurrentTransactions)
            }
            TxnState::Ongoing if partitions.is_subset(&txn.partitions) => TxnOutput::answer(ErrorCode::None),
            TxnState::Empty | TxnState::Ongoing | TxnState::CompleteCommit | TxnState::CompleteAbort => {
                let next = txn.prepare_add_partitions(partitions, client_transaction_version, now_ms);
                let record = self.record(transactional_id, next);
                self.write(vec![record], Vec::new(), ErrorCode::None)
            }
        }
    }

    /// AddOffsetsToTxn: the partition of `__consumer_offsets` that holds `group_id` joins the
    /// transaction (TxnOffsetCommit then writes there).
    pub fn add_offsets(
        &mut self,
        now_ms: i64,
        transactional_id: &str,
        producer_id: i64,
        producer_epoch: i16,
        group_id: &str,
    ) -> TxnOutput<ErrorCode> {
        let partition = hash::partition_for(group_id, self.config.offsets_topic_partitions);
        let partitions = BTreeSet::from([TopicPartition::new(OFFSETS_TOPIC, partition)]);
        self.add_partitions(now_ms, transactional_id, producer_id, producer_epoch, &partitions, 0)
    }

    /// A partition leader's check before a transactional write (KIP-890 part 1): each partition
    /// is NONE if it is in the ongoing transaction, TRANSACTION_ABORTABLE if not; an error about
    /// the producer applies to every partition.
    pub fn verify_partitions(
        &self,
        transactional_id: &str,
        producer_id: i64,
        producer_epoch: i16,
        partitions: &[TopicPartition],
    ) -> Vec<(TopicPartition, ErrorCode)> {
        let each = |error: ErrorCode| partitions.iter().map(|tp| (tp.clone(), error)).collect();
        if transactional_id.is_empty() {
            return each(ErrorCode::InvalidRequest);
        }
        let txn = match self.producer_of(transactional_id, producer_id, producer_epoch) {
            Ok(txn) => txn,
            Err(error) => return each(error),
        };
        if txn.state.is_prepare() {
            return each(ErrorCode::ConcurrentTransactions);
        }
        partitions
            .iter()
            .map(|tp| {
                let error = if txn.partitions.contains(tp) { ErrorCode::None } else { ErrorCode::TransactionAbortable };
                (tp.clone(), error)
            })
            .collect()
    }

    /// The id's metadata if `producer_id` at `producer_epoch` is its current producer: otherwise
    /// INVALID_PRODUCER_ID_MAPPING (unknown id, other producer id) or PRODUCER_FENCED (other
    /// epoch).
    fn producer_of(
        &self,
        transactional_id: &str,
        producer_id: i64,
        producer_epoch: i16,
    ) -> Result<&TxnMetadata, ErrorCode> {
        let txn = self.txns.get(transactional_id).ok_or(ErrorCode::InvalidProducerIdMapping)?;
        if txn.producer_id != producer_id {
            Err(ErrorCode::InvalidProducerIdMapping)
        } else if txn.producer_epoch != producer_epoch {
            Err(ErrorCode::ProducerFenced)
        } else {
            Ok(txn)
        }
    }
}
