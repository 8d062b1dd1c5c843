//! The committed-batch feed behind [`super::Quorum::subscribe`]: a task that reads the metadata
//! log from an offset up to the high watermark, batch by batch, and waits for the high watermark
//! to move. It reads the log as a follower fetches it, so replay after a restart and live
//! commits are the same path.

use strand_protocol::records::RecordBatch;
use tokio::sync::{mpsc, watch};

use super::entry::batch_records;
use super::log_store::{SharedLog, lock};
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
            let batches = lock(&log).read_batches(next, Some(committed))?;
            if batches.is_empty() {
                return Err(QuorumError::CorruptLog(format!("no batch at offset {next} below {committed}")));
            }
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
    })
}
