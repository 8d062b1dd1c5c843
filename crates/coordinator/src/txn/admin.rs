//! DescribeTransactions and ListTransactions over one shard (Kafka's `handleDescribeTransactions`
//! and `listTransactionStates`), and the timer sweeps: transactions past their timeout are
//! aborted with a fenced epoch, ids idle past `transactional.id.expiration.ms` are removed.

use strand_base::ProducerId;
use strand_protocol::error::ErrorCode;
use strand_protocol::messages::describe_transactions_response::{TopicData, TransactionState as DescribedTxn};
use strand_protocol::messages::list_transactions_response::TransactionState as ListedTxn;

use super::records::TxnRecord;
use super::shard::{SWEEP_RECORDS_MAX, TxnOutput, TxnShard};
use super::state::TxnState;

/// ListTransactions' filters, resolved (state names checked, pattern compiled).
#[derive(Debug, Clone, Default)]
pub struct ListFilter {
    /// Only these states; empty for all.
    pub states: Vec<TxnState>,
    /// Only these producer ids; empty for all.
    pub producer_ids: Vec<i64>,
    /// KIP-994: only transactions running longer than this (ms); negative for all.
    pub duration_ms: i64,
    /// Only ids this whole-id pattern matches.
    pub transactional_id_pattern: Option<regex::Regex>,
}

impl TxnShard {
    /// One id's DescribeTransactions answer.
    pub fn describe_transaction(&self, transactional_id: &str) -> DescribedTxn {
        let mut described = DescribedTxn { transactional_id: transactional_id.to_owned(), ..DescribedTxn::default() };
        if transactional_id.is_empty() {
            described.error_code = ErrorCode::InvalidRequest.code();
            return described;
        }
        let Some(txn) = self.txns.get(transactional_id).filter(|t| t.state != TxnState::Dead) else {
            described.error_code = ErrorCode::TransactionalIdNotFound.code();
            return described;
        };
        let mut topics: Vec<TopicData> = Vec::new();
        for tp in &txn.partitions {
            match topics.last_mut() {
                Some(last) if last.topic == tp.topic => last.partitions.push(tp.partition),
                _ => topics.push(TopicData {
                    topic: tp.topic.clone(),
                    partitions: vec![tp.partition],
                    ..TopicData::default()
                }),
            }
        }
        DescribedTxn {
            transaction_state: txn.state.name().to_owned(),
            transaction_timeout_ms: txn.timeout_ms,
            transaction_start_time_ms: txn.start_timestamp_ms,
            producer_id: ProducerId(txn.producer_id),
            producer_epoch: txn.producer_epoch,
            topics,
            ..described
        }
    }

    /// The ids `filter` selects, by id.
    pub fn list_transactions(&self, now_ms: i64, filter: &ListFilter) -> Vec<ListedTxn> {
        self.txns
            .iter()
            .filter(|(id, txn)| {
                txn.state != TxnState::Dead
                    && (filter.producer_ids.is_empty() || filter.producer_ids.contains(&txn.producer_id))
                    && (filter.states.is_empty() || filter.states.contains(&txn.state))
                    && (filter.duration_ms < 0 || now_ms - txn.start_timestamp_ms > filter.duration_ms)
                    && filter.transactional_id_pattern.as_ref().is_none_or(|p| p.is_match(id))
            })
            .map(|(id, txn)| ListedTxn {
                transactional_id: id.clone(),
                producer_id: ProducerId(txn.producer_id),
                transaction_state: txn.state.name().to_owned(),
                ..ListedTxn::default()
            })
            .collect()
    }

    /// Runs the sweeps due at `now_ms` and schedules the next ones.
    pub fn on_timer(&mut self, now_ms: i64) -> TxnOutput<()> {
        let mut output = TxnOutput::answer(());
        if self.abort_check_at_ms.is_some_and(|at| at <= now_ms) {
            let full = self.abort_timed_out(now_ms, &mut output);
            let interval = self.config.abort_timed_out_transactions_interval_ms;
            self.abort_check_at_ms = Some(if full { now_ms } else { now_ms + interval });
        }
        if self.expire_check_at_ms.is_some_and(|at| at <= now_ms) {
            let full = self.expire_transactional_ids(now_ms, &mut output);
            let interval = self.config.remove_expired_transactional_ids_interval_ms;
            self.expire_check_at_ms = Some(if full { now_ms } else { now_ms + interval });
        }
        let TxnOutput { records, markers, .. } = output;
        self.write(records, markers, ())
    }

    /// Aborts (with a fenced epoch) every transaction ongoing for longer than its timeout, up to
    /// [`SWEEP_RECORDS_MAX`]; whether it stopped at that limit.
    fn abort_timed_out(&self, now_ms: i64, output: &mut TxnOutput<()>) -> bool {
        let timed_out = self.txns.iter().filter(|(_, txn)| {
            matches!(txn.state, TxnState::Ongoing | TxnState::PrepareEpochFence)
                && txn.start_timestamp_ms.saturating_add(i64::from(txn.timeout_ms)) < now_ms
        });
        for (id, txn) in timed_out {
            if output.records.len() >= SWEEP_RECORDS_MAX {
                return true;
            }
            tracing::info!(transactional_id = %id, producer_id = txn.producer_id, "aborting a timed-out transaction");
            let aborted = self.fence_and_abort(id, txn, now_ms);
            output.records.extend(aborted.records);
            output.markers.extend(aborted.markers);
        }
        false
    }

    /// Removes (tombstones) every id idle in a settled state for `transactional.id.expiration.ms`,
    /// up to [`SWEEP_RECORDS_MAX`] records in all; whether it stopped at that limit.
    fn expire_transactional_ids(&self, now_ms: i64, output: &mut TxnOutput<()>) -> bool {
        let expiration_ms = self.config.transactional_id_expiration_ms;
        let expired = self.txns.iter().filter(|(_, txn)| {
            txn.state.is_expiration_allowed() && txn.last_update_timestamp_ms.saturating_add(expiration_ms) <= now_ms
        });
        for (id, _) in expired {
            if output.records.len() >= SWEEP_RECORDS_MAX {
                return true;
            }
            tracing::debug!(transactional_id = %id, "removing an expired transactional id");
            output.records.push(TxnRecord::tombstone(id));
        }
        false
    }
}
