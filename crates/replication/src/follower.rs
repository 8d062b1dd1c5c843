//! The follower's side of a fetch: what a leader's answer for one partition does to the local
//! log (Kafka's `ReplicaFetcherThread.processPartitionData` and the truncation of
//! `AbstractFetcherThread`).
//!
//! - records: appended as they are (`Log::append_as_follower`, offsets and epochs the leader's),
//!   each batch's CRC checked first; then, with `log.flush.on.acks.all`, synced before the next
//!   fetch goes out, so the next fetch offset tells the leader "durable up to here" (design §6);
//! - a diverging epoch (Fetch v12+): truncation to where the leader's and this log's epochs
//!   agree, never by high watermark alone;
//! - OFFSET_OUT_OF_RANGE below the leader's log start: the log starts over at the leader's start;
//! - the high watermark becomes min(leader's, own log end) and never moves back except by
//!   truncation; the log start follows the leader's, up to the high watermark;
//! - any other error (NOT_LEADER_OR_FOLLOWER, FENCED_LEADER_EPOCH, UNKNOWN_LEADER_EPOCH, unknown
//!   topic): the partition backs off until the next fetch or a newer partition state.
//!
//! What it is not: it sends nothing; the fetcher (`fetcher.rs`) does, and calls this on a
//! blocking thread (appends and syncs are file I/O).

use bytes::Bytes;
use strand_base::{LeaderEpoch, Offset};
use strand_log::{Log, LogError};
use strand_protocol::codec::Records;
use strand_protocol::error::ErrorCode;
use strand_protocol::messages::fetch_response::PartitionData;
use strand_protocol::records::RecordBatches;

use crate::error::ReplicaError;
use crate::partition::Partition;
use crate::replica::{ReplicaState, Role, truncation_offset};

/// What the fetcher does next with a partition.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum FetchOutcome {
    /// Fetch again at once (from the new log end).
    Continue,
    /// Pause for `replica.fetch.backoff.ms`.
    Backoff,
    /// The partition is no longer followed at that epoch: the answer was dropped.
    Ignored,
}

impl Partition {
    /// Applies the leader's answer for this partition, fetched while following at
    /// `leader_epoch`.
    pub(crate) fn apply_fetched(
        &self,
        leader_epoch: LeaderEpoch,
        data: &PartitionData,
        flush: bool,
    ) -> Result<FetchOutcome, ReplicaError> {
        let (mut s, mut log) = self.lock_both()?;
        if !matches!(s.role, Role::Follower { .. }) || s.leader_epoch != leader_epoch {
            return Ok(FetchOutcome::Ignored);
        }
        let outcome = match ErrorCode::from_code(data.error_code) {
            Some(ErrorCode::None) if data.diverging_epoch.epoch >= 0 && data.diverging_epoch.end_offset >= 0 => {
                let diverging = (data.diverging_epoch.epoch, data.diverging_epoch.end_offset);
                truncate_at_divergence(&mut s, &mut log, diverging)?;
                FetchOutcome::Continue
            }
            Some(ErrorCode::None) => {
                append_records(&mut log, data.records.as_ref(), flush)?;
                follow_offsets(&mut s, &mut log, data)?;
                FetchOutcome::Continue
            }
            Some(ErrorCode::OffsetOutOfRange) => start_over(&mut s, &mut log, data)?,
            error => {
                tracing::debug!("fetching {} from its leader: error {error:?}; backing off", self.tp);
                FetchOutcome::Backoff
            }
        };
        self.publish_locked(&s, &log);
        self.sync_rolled_segments(&mut log);
        Ok(outcome)
    }
}

/// Appends the fetched batches (those wholly below the log end are skipped), then syncs.
fn append_records(log: &mut Log, records: Option<&Records>, flush: bool) -> Result<(), ReplicaError> {
    let bytes = match records {
        None => return Ok(()),
        Some(records) if records.is_empty() => return Ok(()),
        Some(records) => records_bytes(records)?,
    };
    let mut appended = false;
    for batch in RecordBatches::new(bytes) {
        let batch = batch.map_err(|e| LogError::InvalidBatch(format!("fetched from the leader: {e}")))?;
        if batch.last_offset() < log.log_end_offset() {
            continue;
        }
        if !batch.crc_is_valid() {
            return Err(LogError::InvalidBatch(format!("CRC mismatch in the batch at {}", batch.base_offset())).into());
        }
        log.append_as_follower(&batch)?;
        appended = true;
    }
    if appended && flush {
        let end = log.log_end_offset();
        log.flush_to(end)?;
    }
    Ok(())
}

/// A record set's bytes: in memory when decoded from the wire; read from the file when an
/// in-process transport handed the leader's file region over.
fn records_bytes(records: &Records) -> Result<Bytes, ReplicaError> {
    match records {
        Records::Bytes(bytes) => Ok(bytes.clone()),
        Records::File(region) => strand_log::file::read_range(&region.file, region.position, u64::from(region.len))
            .map_err(|e| LogError::Invalid(format!("reading a fetched file region: {e}")).into()),
    }
}

/// The follower's high watermark and log start after an append.
fn follow_offsets(s: &mut ReplicaState, log: &mut Log, data: &PartitionData) -> Result<(), ReplicaError> {
    let candidate = data.high_watermark.min(log.log_end_offset());
    if candidate > s.high_watermark {
        s.high_watermark = candidate;
        log.producer_state_mut().on_high_watermark_updated(candidate);
    }
    let start = data.log_start_offset.min(s.high_watermark);
    if start > log.log_start_offset() {
        log.advance_log_start_offset(start)?;
    }
    Ok(())
}

fn truncate_at_divergence(
    s: &mut ReplicaState,
    log: &mut Log,
    diverging: (LeaderEpoch, Offset),
) -> Result<(), ReplicaError> {
    let end = log.log_end_offset();
    let ours = log.epoch_cache().end_offset_for(diverging.0, end);
    let offset = truncation_offset(diverging, ours, end);
    if offset < end {
        tracing::info!("truncating to {offset} after the leader's diverging epoch {diverging:?}");
    }
    // Even at the log end: an epoch this node recorded as leader without writing goes.
    log.truncate_to(offset)?;
    s.high_watermark = s.high_watermark.min(log.log_end_offset());
    Ok(())
}

/// OFFSET_OUT_OF_RANGE. Below the leader's log start: nothing here is still there, so the log
/// starts over at the leader's start. Past the leader's end (possible only after an unclean
/// election, the fetch carrying no epoch): truncate to the leader's high watermark, which never
/// exceeds its end and below which every replica agrees.
fn start_over(s: &mut ReplicaState, log: &mut Log, data: &PartitionData) -> Result<FetchOutcome, ReplicaError> {
    let end = log.log_end_offset();
    if data.log_start_offset > end {
        tracing::info!("starting over at the leader's log start {}", data.log_start_offset);
        log.truncate_fully_and_start_at(data.log_start_offset)?;
        s.high_watermark = data.log_start_offset;
        return Ok(FetchOutcome::Continue);
    }
    if data.high_watermark >= 0 && data.high_watermark < end {
        log.truncate_to(data.high_watermark)?;
        s.high_watermark = s.high_watermark.min(log.log_end_offset());
        return Ok(FetchOutcome::Continue);
    }
    Ok(FetchOutcome::Backoff)
}
