//! Loading a shard: the partition read from its start, once everything earlier leaders wrote is
//! committed, batch by batch. Shared by the group and the transaction shells, whose shards differ
//! only in how they replay a batch.

use strand_base::{Offset, TopicPartition};
use strand_protocol::records::{RecordBatch, RecordBatches, RecordsError};

use super::LOAD_READ_BYTES_MAX;
use crate::writer::{PartitionWriter, WriteError};

/// Waits for `tp`'s log end to be committed, then hands every batch from offset 0 to `replay`,
/// in order, each once; returns the offset after the last one.
pub(crate) async fn read_partition<E>(
    writer: &dyn PartitionWriter,
    tp: &TopicPartition,
    mut replay: impl FnMut(&RecordBatch) -> Result<(), E>,
) -> Result<Offset, E>
where
    E: From<WriteError> + From<RecordsError>,
{
    let end = writer.log_end_offset(tp)?;
    writer.wait_for_high_watermark(tp, end).await?;
    let mut next = 0;
    loop {
        let read = writer.read(tp, next, LOAD_READ_BYTES_MAX).await?;
        let mut advanced = false;
        for batch in RecordBatches::new(read.records) {
            let batch = batch?;
            if batch.next_offset() <= next {
                continue;
            }
            replay(&batch)?;
            next = batch.next_offset();
            advanced = true;
        }
        if !advanced {
            return Ok(next);
        }
    }
}
