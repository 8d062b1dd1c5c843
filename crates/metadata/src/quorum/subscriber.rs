//! The committed-batch feed behind [`super::Quorum::subscribe`]: a task that reads the metadata
//! log from an offset up to the high watermark, batch by batch, and waits for the high watermark
//! to move. It reads the log as a follower fetches it, so replay after a restart and live
//! commits are the same path.
//!
//! Where the log no longer holds the next batch (a snapshot replaced it: the log starts later, or
//! a snapshot installed from the leader moved the high watermark past the log's end), the feed
//! sends the newest snapshot as one batch marked [`CommittedBatch::snapshot`], then goes on
//! from the snapshot's end.

use strand_protocol::records::RecordBatch;
use tokio::sync::{mpsc, watch};

use super::entry::batch_records;
use super::log_store::{SharedLog, lock};
use super::snapshot::{MetadataSnapshot, SnapshotId};
use super::{CommittedBatch, QuorumError};

/// How many committed batches a subscriber may have waiting before the feed waits for it.
pub const SUBSCRIBER_BATCHES_MAX: usize = 64;

/// Starts the feed of committed data batches from the one holding `from_offset`.
pub(crate) fn spawn(
    log: SharedLog,
    high_watermark: watch::Receiver<i64>,
    from_offset: i64,
) -> mpsc::Receiver<CommittedBatch> {
    let (tx, rx) = mpsc::channel(SUBSCRIBER_BATCHES_MAX);
    tokio::spawn(async move {
        if let Err(e) = feed(log, high_watermark, from_offset, tx).await {
            tracing::error!("metadata log subscriber from offset {from_offset} stopped: {e}");
        }
    });
    rx
}

/// Sends batches until the receiver is dropped, or the quorum has closed (its high watermark
/// sender is gone) and everything below its last high watermark was sent.
async fn feed(
    log: SharedLog,
    mut high_watermark: watch::Receiver<i64>,
    from_offset: i64,
    tx: mpsc::Sender<CommittedBatch>,
) -> Result<(), QuorumError> {
    let mut next = from_offset.max(0);
    loop {
        let committed = *high_watermark.borrow_and_update();
        if next < committed {
            let batches = match next_read(&log, next, committed)? {
                NextRead::Batches(batches) => batches,
                NextRead::Snapshot(dir, id) => {
                    let snapshot = match MetadataSnapshot::read(&dir, id) {
                        Ok(snapshot) => snapshot,
                        // A newer snapshot replaced it meanwhile: read that one.
                        Err(_) if lock(&log).snapshot().map(|s| s.id) != Some(id) => continue,
                        Err(e) => return Err(e),
                    };
                    next = id.end_offset;
                    if tx.send(snapshot_batch(snapshot)).await.is_err() {
                        return Ok(());
                    }
                    continue;
                }
            };
            for batch in batches {
                next = batch.next_offset();
                if tx.send(committed_batch(&batch)?).await.is_err() {
                    return Ok(());
                }
            }
            continue;
        }
        tokio::select! {
            changed = high_watermark.changed() => {
                if changed.is_err() && *high_watermark.borrow() <= next {
                    return Ok(());
                }
            }
            () = tx.closed() => return Ok(()),
        }
    }
}

/// What the feed reads next.
enum NextRead {
    Batches(Vec<RecordBatch>),
    /// The snapshot in this directory: the log no longer holds the next batch.
    Snapshot(std::path::PathBuf, SnapshotId),
}

/// The batches from `next` below `committed`, or the newest snapshot if the log lacks them.
fn next_read(log: &SharedLog, next: i64, committed: i64) -> Result<NextRead, QuorumError> {
    let log = lock(log);
    let snapshot = log.snapshot().filter(|s| s.id.end_offset > next).map(|s| s.id);
    if next >= log.log_start_offset() {
        let batches = log.read_batches(next, Some(committed))?;
        if !batches.is_empty() {
            return Ok(NextRead::Batches(batches));
        }
    }
    match snapshot {
        Some(id) => Ok(NextRead::Snapshot(log.dir().to_owned(), id)),
        None => Err(QuorumError::CorruptLog(format!("no batch at offset {next} below {committed}, and no snapshot"))),
    }
}

/// A snapshot as subscribers receive it: every record of the image as of its end.
pub(crate) fn snapshot_batch(snapshot: MetadataSnapshot) -> CommittedBatch {
    CommittedBatch {
        base_offset: 0,
        last_offset: snapshot.id.end_offset - 1,
        epoch: snapshot.id.epoch,
        append_time_ms: snapshot.last_contained_timestamp_ms,
        records: snapshot.records,
        snapshot: true,
    }
}

/// A stored batch as subscribers receive it. Control batches (leader changes, voters) carry no
/// metadata records but are sent too, empty, so a subscriber's position advances past them as
/// Kafka's does.
pub(crate) fn committed_batch(batch: &RecordBatch) -> Result<CommittedBatch, QuorumError> {
    let records = if batch.attributes().is_control() { Vec::new() } else { batch_records(batch)? };
    Ok(CommittedBatch {
        base_offset: batch.base_offset(),
        last_offset: batch.last_offset(),
        epoch: batch.partition_leader_epoch(),
        append_time_ms: batch.max_timestamp(),
        records,
        snapshot: false,
    })
}
