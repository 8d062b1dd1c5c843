//! [`MemoryPartitionWriter`]: partitions held in memory, for tests (feature `testing`).
//!
//! Each partition is a list of batches with offsets assigned in place, a leader epoch the test
//! sets, and a high watermark that follows every append unless the test holds it back
//! ([`MemoryPartitionWriter::hold_commits`]), so that a test can observe what the coordinator
//! does before and after its records are committed. Appends and reads can be made to fail.
//!
//! Transaction verifications hand out fresh tokens (or the error a test set with
//! [`MemoryPartitionWriter::fail_verifications`]); a transactional append must present one it
//! handed out for that partition. The memory writer keeps no producer state beyond that.

use std::collections::HashMap;
use std::sync::{Mutex, MutexGuard, PoisonError};

use bytes::{Bytes, BytesMut};
use strand_base::{LeaderEpoch, Offset, TopicPartition};
use strand_protocol::records::{RecordBatch, RecordBatchMut};
use tokio::sync::watch;

use strand_protocol::error::ErrorCode;

use super::{BoxFuture, PartitionWriter, ReadResult, TxnVerification, VerificationToken, WriteError};

/// One in-memory partition.
#[derive(Debug)]
struct MemoryPartition {
    leader_epoch: LeaderEpoch,
    /// Batches in offset order, as stored.
    batches: Vec<Bytes>,
    log_end_offset: Offset,
    /// Held below the log end while commits are held.
    high_watermark: watch::Sender<Offset>,
    hold_commits: bool,
    fail_appends: Option<WriteError>,
    fail_reads: Option<WriteError>,
    fail_verifications: Option<ErrorCode>,
    /// Tokens handed out and not yet presented.
    verified: Vec<VerificationToken>,
}

/// In-memory partitions implementing [`PartitionWriter`].
#[derive(Debug, Default)]
pub struct MemoryPartitionWriter {
    partitions: Mutex<HashMap<TopicPartition, MemoryPartition>>,
    /// The last verification token handed out, over every partition.
    last_token: Mutex<u64>,
    /// Every verification asked for, in order.
    verifications: Mutex<Vec<(TopicPartition, TxnVerification)>>,
}

impl MemoryPartitionWriter {
    pub fn new() -> Self {
        Self::default()
    }

    /// Creates (or re-leads) `tp` with this node as leader at `leader_epoch`.
    pub fn lead(&self, tp: &TopicPartition, leader_epoch: LeaderEpoch) {
        let mut partitions = self.lock();
        let partition = partitions.entry(tp.clone()).or_insert_with(|| MemoryPartition {
            leader_epoch,
            batches: Vec::new(),
            log_end_offset: 0,
            high_watermark: watch::Sender::new(0),
            hold_commits: false,
            fail_appends: None,
            fail_reads: None,
            fail_verifications: None,
            verified: Vec::new(),
        });
        partition.leader_epoch = leader_epoch;
    }

    /// While held, appends are stored but not committed: their futures wait.
    pub fn hold_commits(&self, tp: &TopicPartition, hold: bool) {
        self.with(tp, |p| {
            p.hold_commits = hold;
            if !hold {
                let end = p.log_end_offset;
                p.high_watermark.send_replace(end);
            }
        });
    }

    /// Makes every append fail with `error` (until set back to `None`); nothing is stored.
    pub fn fail_appends(&self, tp: &TopicPartition, error: Option<WriteError>) {
        self.with(tp, |p| p.fail_appends = error);
    }

    /// Makes every read fail with `error` (until set back to `None`).
    pub fn fail_reads(&self, tp: &TopicPartition, error: Option<WriteError>) {
        self.with(tp, |p| p.fail_reads = error);
    }

    /// Makes every transaction verification of `tp` fail with `error` (until set back to `None`).
    pub fn fail_verifications(&self, tp: &TopicPartition, error: Option<ErrorCode>) {
        self.with(tp, |p| p.fail_verifications = error);
    }

    /// Every verification asked for so far, in order.
    pub fn verifications(&self) -> Vec<(TopicPartition, TxnVerification)> {
        self.verifications.lock().unwrap_or_else(PoisonError::into_inner).clone()
    }

    /// Every batch stored in `tp`, committed or not.
    pub fn batches(&self, tp: &TopicPartition) -> Vec<Bytes> {
        self.lock().get(tp).map(|p| p.batches.clone()).unwrap_or_default()
    }

    /// Stores `batch` as if another leader had written it (offsets assigned), committed.
    pub fn append_committed(&self, tp: &TopicPartition, batch: Bytes) -> Result<Offset, WriteError> {
        self.store_as_other_leader(tp, batch, true)
    }

    /// Stores `batch` as if another leader had written it but not yet committed it: the high
    /// watermark stays where it was until [`Self::hold_commits`] releases it.
    pub fn append_uncommitted(&self, tp: &TopicPartition, batch: Bytes) -> Result<Offset, WriteError> {
        self.store_as_other_leader(tp, batch, false)
    }

    fn store_as_other_leader(&self, tp: &TopicPartition, batch: Bytes, commit: bool) -> Result<Offset, WriteError> {
        let mut partitions = self.lock();
        let partition = partitions.get_mut(tp).ok_or(WriteError::UnknownPartition)?;
        let end = store(partition, batch)?;
        if commit {
            partition.high_watermark.send_replace(end);
        } else {
            partition.hold_commits = true;
        }
        Ok(end)
    }

    pub fn high_watermark(&self, tp: &TopicPartition) -> Option<Offset> {
        self.lock().get(tp).map(|p| *p.high_watermark.borrow())
    }

    fn with<T>(&self, tp: &TopicPartition, f: impl FnOnce(&mut MemoryPartition) -> T) -> Option<T> {
        self.lock().get_mut(tp).map(f)
    }

    fn lock(&self) -> MutexGuard<'_, HashMap<TopicPartition, MemoryPartition>> {
        self.partitions.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Stores the batch and returns a receiver to wait on for its commit.
    fn store_for_append(
        &self,
        tp: &TopicPartition,
        leader_epoch: LeaderEpoch,
        batch: Bytes,
    ) -> Result<(Offset, watch::Receiver<Offset>), WriteError> {
        let mut partitions = self.lock();
        let partition = partitions.get_mut(tp).ok_or(WriteError::UnknownPartition)?;
        if partition.leader_epoch != leader_epoch {
            return Err(WriteError::NotLeader);
        }
        if let Some(error) = &partition.fail_appends {
            return Err(error.clone());
        }
        let end = store(partition, batch)?;
        if !partition.hold_commits {
            partition.high_watermark.send_replace(end);
        }
        Ok((end, partition.high_watermark.subscribe()))
    }
}

/// Assigns the batch its offsets and leader epoch and stores it; returns the new log end.
fn store(partition: &mut MemoryPartition, batch: Bytes) -> Result<Offset, WriteError> {
    let mut bytes = BytesMut::from(&batch[..]);
    let mut view = RecordBatchMut::new(&mut bytes).map_err(|e| WriteError::Other(e.to_string()))?;
    view.set_base_offset(partition.log_end_offset);
    view.set_partition_leader_epoch(partition.leader_epoch);
    let stored = bytes.freeze();
    let parsed = RecordBatch::parse(stored.clone()).map_err(|e| WriteError::Other(e.to_string()))?;
    partition.log_end_offset = parsed.next_offset();
    partition.batches.push(stored);
    Ok(partition.log_end_offset)
}

impl PartitionWriter for MemoryPartitionWriter {
    fn append(
        &self,
        tp: &TopicPartition,
        leader_epoch: LeaderEpoch,
        batch: Bytes,
    ) -> BoxFuture<'_, Result<Offset, WriteError>> {
        let stored = self.store_for_append(tp, leader_epoch, batch);
        Box::pin(async move {
            let (end, mut high_watermark) = stored?;
            high_watermark.wait_for(|hw| *hw >= end).await.map_err(|_| WriteError::NotLeader)?;
            Ok(end)
        })
    }

    fn verify_transaction(
        &self,
        tp: &TopicPartition,
        verification: TxnVerification,
    ) -> BoxFuture<'_, Result<VerificationToken, ErrorCode>> {
        self.verifications.lock().unwrap_or_else(PoisonError::into_inner).push((tp.clone(), verification));
        let mut last_token = self.last_token.lock().unwrap_or_else(PoisonError::into_inner);
        let result = self
            .with(tp, |p| match p.fail_verifications {
                Some(error) => Err(error),
                None => {
                    *last_token += 1;
                    let token = VerificationToken(*last_token);
                    p.verified.push(token);
                    Ok(token)
                }
            })
            .unwrap_or(Err(ErrorCode::NotLeaderOrFollower));
        Box::pin(std::future::ready(result))
    }

    fn append_transactional(
        &self,
        tp: &TopicPartition,
        leader_epoch: LeaderEpoch,
        batch: Bytes,
        verification: VerificationToken,
    ) -> BoxFuture<'_, Result<Offset, WriteError>> {
        let presented = self.with(tp, |p| {
            let found = p.verified.iter().position(|t| *t == verification);
            found.map(|i| p.verified.remove(i)).is_some()
        });
        if presented == Some(false) {
            let refused = Err(WriteError::Producer(ErrorCode::InvalidTxnState));
            return Box::pin(std::future::ready(refused));
        }
        self.append(tp, leader_epoch, batch)
    }

    fn read(
        &self,
        tp: &TopicPartition,
        from: Offset,
        max_bytes: usize,
    ) -> BoxFuture<'_, Result<ReadResult, WriteError>> {
        let result = (|| {
            let partitions = self.lock();
            let partition = partitions.get(tp).ok_or(WriteError::UnknownPartition)?;
            if let Some(error) = &partition.fail_reads {
                return Err(error.clone());
            }
            let high_watermark = *partition.high_watermark.borrow();
            let mut records = BytesMut::new();
            for batch in &partition.batches {
                let parsed = RecordBatch::parse(batch.clone()).map_err(|e| WriteError::Other(e.to_string()))?;
                if parsed.next_offset() <= from {
                    continue;
                }
                if parsed.next_offset() > high_watermark
                    || (!records.is_empty() && records.len() + batch.len() > max_bytes)
                {
                    break;
                }
                records.extend_from_slice(batch);
            }
            Ok(ReadResult { records: records.freeze(), high_watermark })
        })();
        Box::pin(async move { result })
    }

    fn log_end_offset(&self, tp: &TopicPartition) -> Result<Offset, WriteError> {
        self.lock().get(tp).map(|p| p.log_end_offset).ok_or(WriteError::UnknownPartition)
    }

    fn wait_for_high_watermark(&self, tp: &TopicPartition, offset: Offset) -> BoxFuture<'_, Result<(), WriteError>> {
        let receiver = self.lock().get(tp).map(|p| p.high_watermark.subscribe());
        Box::pin(async move {
            let mut receiver = receiver.ok_or(WriteError::UnknownPartition)?;
            receiver.wait_for(|hw| *hw >= offset).await.map_err(|_| WriteError::NotLeader)?;
            Ok(())
        })
    }
}
