//! The clients of the simulation: producers (acks=all and acks=1, at the node the controller's
//! or a broker's possibly stale metadata names as leader, appending at that broker's leader epoch
//! as the Produce handler does; acks=all waits on its own task until answered or abandoned) and
//! readers (ListOffsets then Fetch on the node they believe leads, never at an older leader epoch
//! than they have seen, KIP-320).

use std::sync::{Arc, Mutex};

use bytes::{Bytes, BytesMut};
use strand_base::{BrokerId, Offset};
use strand_log::log::ValidatedBatch;
use strand_log::producer_state::{AppendContext, VerificationGuard};
use strand_metadata::image::{MetadataImage, NO_LEADER};
use strand_protocol::records::{NewRecord, RecordBatchBuilder, RecordBatches};
use strand_replication::{Acks, Isolation, ReplicaError, ReplicaRole};
use tokio::task::JoinHandle;

use super::controller::Controller;
use super::{NO_TIMEOUT, Sim, TOPIC, lock, manager_of};

/// One record whose value is `value` (little-endian).
pub(super) fn batch(value: u64) -> ValidatedBatch {
    let mut builder = RecordBatchBuilder::new();
    let bytes = value.to_le_bytes();
    builder.append(&NewRecord { timestamp_ms: 10, key: None, value: Some(&bytes), headers: &[] }).expect("record");
    ValidatedBatch::validate(BytesMut::from(&builder.build().expect("batch")[..])).expect("valid")
}

/// The (offset, value) of every record in `bytes`.
pub(super) fn records_of(bytes: Bytes) -> Result<Vec<(Offset, u64)>, String> {
    let mut out = Vec::new();
    for batch in RecordBatches::new(bytes) {
        let batch = batch.map_err(|e| format!("a stored batch does not parse: {e}"))?;
        let records = batch.records().map_err(|e| format!("a stored batch's records: {e}"))?;
        for (delta, record) in records.iter().enumerate() {
            let record = record.map_err(|e| format!("a stored record: {e}"))?;
            let value = record.value().ok_or("a record without a value")?;
            let value = u64::from_le_bytes(value.try_into().map_err(|_| "a value of another size")?);
            out.push((batch.base_offset() + delta as i64, value));
        }
    }
    Ok(out)
}

/// A consumer polling whichever node it believes leads.
#[derive(Debug)]
pub(super) struct Reader {
    /// Follows a random broker's (possibly stale) metadata rather than the controller's.
    pub(super) stale_metadata: bool,
    pub(super) parts: Vec<ReaderPartition>,
}

#[derive(Debug, Default, Clone)]
pub(super) struct ReaderPartition {
    /// The highest leader epoch it has fetched at: older leaders are fenced (KIP-320).
    pub(super) epoch: i32,
    /// The highest latest offset a ListOffsets showed it (KIP-207: none while a new leader's high
    /// watermark is below its epoch start).
    pub(super) visible_hw: Offset,
    /// The highest high watermark a Fetch answer carried.
    pub(super) fetched_hw: Offset,
    /// What it consumed, from offset 0.
    pub(super) values: Vec<u64>,
}

/// An acks=all produce waiting for its answer.
#[derive(Debug)]
pub(super) struct PendingProduce {
    pub(super) node: BrokerId,
    pub(super) part: usize,
    pub(super) offset: Offset,
    pub(super) value: u64,
    pub(super) task: JoinHandle<()>,
}

pub(super) type Results = Arc<Mutex<Vec<(u64, Result<(), ReplicaError>)>>>;

impl Sim {
    /// The image a client looks leaders up in: the controller's, or a random broker's.
    pub(super) fn client_image(&mut self, stale: bool) -> Arc<MetadataImage> {
        if stale {
            let i = self.rng.below(self.nodes.len());
            self.controller.history[self.nodes[i].applied].clone()
        } else {
            self.controller.image().clone()
        }
    }

    pub(super) fn produce(&mut self, part: usize, acks: Acks, stale: bool) {
        let image = self.client_image(stale);
        let Some(topic) = image.topics().by_name(TOPIC) else { return };
        let leader = topic.partitions[&(part as i32)].leader;
        if leader == NO_LEADER || self.running(leader).is_none() {
            self.note(format!("produce to p{part}: no reachable leader ({leader})"));
            return;
        }
        let value = self.next_value;
        self.next_value += 1;
        let tp = self.parts[part].tp.clone();
        let node = &self.nodes[Self::index(leader)];
        // The broker appends at the leader epoch of its own image, as the Produce handler does.
        let epoch = Controller::partition(&self.controller.history[node.applied], part).leader_epoch;
        let manager = node.manager.as_ref().expect("running");
        let appended = manager.append_as_leader(
            &tp,
            batch(value),
            epoch,
            acks,
            AppendContext::client(VerificationGuard::SENTINEL),
        );
        match appended {
            Ok(appended) => {
                let offset = appended.info.first_offset;
                self.note(format!("produce v{value} acks={acks:?} to {leader} (epoch {epoch}): appended at {offset}"));
                if let Some(delayed) = appended.delayed {
                    let results = self.results.clone();
                    let task = tokio::spawn(async move {
                        let result = delayed.wait(NO_TIMEOUT).await;
                        lock(&results).push((value, result));
                    });
                    self.produces.insert(value, PendingProduce { node: leader, part, offset, value, task });
                } else {
                    self.stats.acked_one += 1;
                }
            }
            Err(e) => {
                self.stats.produce_refused += 1;
                self.note(format!("produce v{value} acks={acks:?} to {leader} (epoch {epoch}): {e}"));
            }
        }
    }

    pub(super) fn give_up(&mut self) {
        let ids: Vec<u64> = self.produces.keys().copied().collect();
        if ids.is_empty() {
            return;
        }
        let id = ids[self.rng.below(ids.len())];
        if let Some(p) = self.produces.remove(&id) {
            p.task.abort();
            self.stats.waits_abandoned += 1;
            self.note(format!("client gives up on v{id}"));
        }
    }

    /// Reader `r` polls partition `part`: ListOffsets (latest) then Fetch from its position.
    pub(super) fn poll(&mut self, r: usize, part: usize) {
        let stale = self.readers[r].stale_metadata;
        let image = self.client_image(stale);
        let Some(topic) = image.topics().by_name(TOPIC) else { return };
        let leader = topic.partitions[&(part as i32)].leader;
        let Some(manager) = manager_of(&self.nodes, leader) else { return };
        let tp = self.parts[part].tp.clone();
        let Ok(status) = manager.partition_status(&tp) else { return };
        if status.role != ReplicaRole::Leader || status.leader_epoch < self.readers[r].parts[part].epoch {
            // NOT_LEADER_OR_FOLLOWER, or FENCED_LEADER_EPOCH: the client refreshes its metadata.
            return;
        }
        let offsets = manager.offsets(&tp).expect("a leader's offsets");
        let position = self.readers[r].parts[part].values.len() as Offset;
        let read = manager.read(&tp, position, 1 << 20, Isolation::ReadUncommitted);
        self.stats.polls += 1;
        self.readers[r].parts[part].epoch = status.leader_epoch;
        let epoch = status.leader_epoch;
        let mut line = format!(
            "reader {r} polls p{part} on {leader} (epoch {epoch}): hw {} epoch start {:?}",
            offsets.high_watermark, status.leader_epoch_start_offset
        );
        // ListOffsets (latest), as the broker answers it: KIP-207 hides a new leader's high
        // watermark while it is below the epoch's start.
        if status.leader_epoch_start_offset.is_some_and(|start| start > offsets.high_watermark) {
            self.stats.visible_offset_not_available += 1;
        } else {
            let rp = &mut self.readers[r].parts[part];
            let before = rp.visible_hw;
            rp.visible_hw = before.max(offsets.high_watermark);
            if offsets.high_watermark < before {
                self.violation(format!(
                    "the consumer-visible high watermark of {tp} went back from {before} to {} (ListOffsets on \
                     {leader} at leader epoch {epoch})",
                    offsets.high_watermark
                ));
            }
        }
        match read {
            Ok(read) => {
                let rp = &mut self.readers[r].parts[part];
                if read.high_watermark < rp.fetched_hw {
                    // As in Kafka, a Fetch answer may carry a lower high watermark after a leader
                    // change (not an invariant: ListOffsets above is what KIP-207 guards).
                    self.stats.fetch_hw_dips += 1;
                }
                rp.fetched_hw = rp.fetched_hw.max(read.high_watermark);
                let bytes = read.records.map(|slice| slice.read().expect("read the slice")).unwrap_or_default();
                match self.consume(r, part, position, bytes) {
                    Ok(n) => line.push_str(&format!(", read {n} from {position}")),
                    Err(problem) => self.violation(format!("a consumer read of {tp}: {problem}")),
                }
            }
            Err(e) => self.violation(format!(
                "a consumer at position {position} of {tp} cannot fetch from leader {leader} (epoch {epoch}): {e}"
            )),
        }
        self.note(line);
    }

    /// Reader `r` takes the records a read of `part` from `position` returned; how many.
    fn consume(&mut self, r: usize, part: usize, position: Offset, bytes: Bytes) -> Result<usize, String> {
        let records = records_of(bytes)?;
        let values = &mut self.readers[r].parts[part].values;
        for (offset, value) in &records {
            if *offset != values.len() as Offset {
                return Err(format!("from {position}, offset {offset} came at {}", values.len()));
            }
            values.push(*value);
        }
        self.stats.records_read += records.len() as u64;
        Ok(records.len())
    }
}
