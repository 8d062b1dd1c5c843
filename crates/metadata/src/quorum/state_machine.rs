//! openraft's state machine: the metadata image as of the last applied entry, the membership,
//! and the high watermark it publishes; and the snapshots built from that image.
//!
//! The records themselves stay in the log; the broker's image is built by its own replay of them
//! ([`super::Quorum::subscribe`]). The state machine keeps an image too, because a snapshot is
//! the image written as records (Kafka's format, see `snapshot`) as of one entry, and openraft
//! asks for one at its last applied entry. Applying an entry replays its records into that
//! image, moves the high watermark (the offset after the last applied batch, as Kafka's), and
//! answers the proposer with its batch's last offset. A record that does not fit the image is
//! logged and skipped, as Kafka's metadata loader reports a fault and goes on: the quorum stores
//! and commits records without judging them.
//!
//! On open, the state machine starts from the newest snapshot on disk (or empty): everything
//! after it is applied again once the new leader's first entry commits, which is how a restart
//! replays.
//!
//! **Snapshots.** openraft's own policy is off; the quorum triggers one (`Quorum`'s snapshot
//! task) once `metadata.log.max.record.bytes.between.snapshots` bytes of records were applied
//! since the last, or `metadata.log.max.snapshot.interval.ms` passed with anything new, as
//! Kafka's `SnapshotGenerator` does. Building one writes `<end offset>-<epoch>.checkpoint` and
//! deletes older ones; openraft then purges the entries it holds (keeping
//! `SnapshotSettings::entries_kept`). A voter too far behind its leader's log gets the snapshot
//! installed: its image, membership and high watermark jump to it.
//!
//! On every voter, leader or follower, entries are applied once openraft learns they are
//! committed, so a follower's high watermark (and its subscribers' feed) trails the leader's by
//! at most a heartbeat.

use std::io::Cursor;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use bytes::Bytes;

use openraft::storage::RaftStateMachine;
use openraft::{
    EntryPayload, LogId, RaftSnapshotBuilder, Snapshot, SnapshotMeta, StorageError, StorageIOError, StoredMembership,
};
use tokio::sync::watch;

use super::QuorumError;
use super::entry::{AppliedOffsets, TypeConfig, VoterNode, decode_frame};
use super::log_store::{SharedLog, SnapshotInfo, failed, lock};
use super::snapshot::{MetadataSnapshot, SnapshotId, write_file};
use crate::image::{MetadataDelta, MetadataImage, MetadataProvenance};

pub(crate) struct StateMachine {
    log: SharedLog,
    /// The high watermark: subscribers read up to it.
    high_watermark: Arc<watch::Sender<i64>>,
    last_applied: Option<LogId<u64>>,
    membership: StoredMembership<u64, VoterNode>,
    /// The image as of `last_applied`.
    image: MetadataImage,
    /// The offset after the last applied batch.
    applied_end_offset: i64,
    /// The append time of the last applied data batch.
    last_append_time_ms: i64,
    /// Bytes of records applied since the last snapshot (read by the snapshot trigger).
    bytes_since_snapshot: Arc<AtomicU64>,
}

impl StateMachine {
    /// The state machine as of the newest snapshot in `log`'s directory, or empty.
    pub(crate) fn open(
        log: SharedLog,
        high_watermark: Arc<watch::Sender<i64>>,
        bytes_since_snapshot: Arc<AtomicU64>,
    ) -> Result<StateMachine, QuorumError> {
        let newest = {
            let log = lock(&log);
            log.snapshot().map(|info| (log.dir().to_owned(), info.id))
        };
        let mut state_machine = StateMachine {
            log,
            high_watermark,
            last_applied: None,
            membership: StoredMembership::default(),
            image: MetadataImage::empty(),
            applied_end_offset: 0,
            last_append_time_ms: -1,
            bytes_since_snapshot,
        };
        if let Some((dir, id)) = newest {
            state_machine.load(MetadataSnapshot::read(&dir, id)?)?;
        }
        Ok(state_machine)
    }

    /// Replaces the state with a snapshot's.
    fn load(&mut self, snapshot: MetadataSnapshot) -> Result<(), QuorumError> {
        let end = snapshot.id.end_offset;
        self.image = snapshot_image(&snapshot)?;
        self.last_applied = Some(snapshot.last_log_id);
        self.membership = snapshot.membership;
        self.applied_end_offset = end;
        self.last_append_time_ms = snapshot.last_contained_timestamp_ms;
        self.bytes_since_snapshot.store(0, Ordering::Relaxed);
        self.high_watermark.send_if_modified(|current| {
            let moved = end > *current;
            *current = (*current).max(end);
            moved
        });
        Ok(())
    }
}

/// The image a snapshot's records make.
fn snapshot_image(snapshot: &MetadataSnapshot) -> Result<MetadataImage, QuorumError> {
    let mut delta = MetadataDelta::new(&MetadataImage::empty());
    for (record, _) in &snapshot.records {
        delta.replay(record).map_err(|e| QuorumError::CorruptLog(format!("snapshot {:?}: {e}", snapshot.id)))?;
    }
    let provenance = MetadataProvenance { offset: snapshot.id.end_offset - 1, epoch: snapshot.id.epoch };
    Ok(delta.apply(provenance))
}

/// A snapshot received from the leader, decoded, if it is one this voter can install and start
/// from: an id of Kafka's form, a file that decodes, the last log id and voters `meta` states,
/// and records that make an image. (Installing it must not fail: openraft stops on any error
/// of its state machine.)
pub(crate) fn check_received(
    meta: &SnapshotMeta<u64, VoterNode>,
    bytes: Bytes,
) -> Result<MetadataSnapshot, QuorumError> {
    let invalid = |reason: String| QuorumError::CorruptLog(format!("a snapshot from the leader: {reason}"));
    let id = parse_raft_snapshot_id(&meta.snapshot_id)
        .filter(|id| id.end_offset > 0 && id.epoch >= 0)
        .ok_or_else(|| invalid(format!("snapshot id {:?}", meta.snapshot_id)))?;
    let decoded = MetadataSnapshot::decode(id, bytes)?;
    if Some(decoded.last_log_id) != meta.last_log_id {
        return Err(invalid(format!("it holds {} but openraft says {:?}", decoded.last_log_id, meta.last_log_id)));
    }
    let voters = |m: &StoredMembership<u64, VoterNode>| m.membership().voter_ids().collect::<Vec<_>>();
    if voters(&decoded.membership) != voters(&meta.last_membership) {
        return Err(invalid(format!(
            "its voters are {:?}, not {:?}",
            voters(&decoded.membership),
            voters(&meta.last_membership)
        )));
    }
    snapshot_image(&decoded)?;
    Ok(decoded)
}

fn snapshot_error(log: &SharedLog, e: QuorumError) -> StorageError<u64> {
    StorageIOError::write_snapshot(None, openraft::AnyError::new(&failed(log, e))).into()
}

/// openraft's snapshot id: Kafka's, `<end offset>-<epoch>`.
fn raft_snapshot_id(id: SnapshotId) -> String {
    format!("{}-{}", id.end_offset, id.epoch)
}

fn parse_raft_snapshot_id(text: &str) -> Option<SnapshotId> {
    let (end_offset, epoch) = text.split_once('-')?;
    Some(SnapshotId { end_offset: end_offset.parse().ok()?, epoch: epoch.parse().ok()? })
}

fn raft_snapshot(info: &SnapshotInfo, bytes: Vec<u8>) -> Snapshot<TypeConfig> {
    Snapshot {
        meta: SnapshotMeta {
            last_log_id: Some(info.last_log_id),
            last_membership: info.membership.clone(),
            snapshot_id: raft_snapshot_id(info.id),
        },
        snapshot: Box::new(Cursor::new(bytes)),
    }
}

/// Writes the image as of one applied entry as a snapshot.
pub(crate) struct SnapshotBuilder {
    log: SharedLog,
    image: MetadataImage,
    last_applied: Option<LogId<u64>>,
    membership: StoredMembership<u64, VoterNode>,
    end_offset: i64,
    last_append_time_ms: i64,
    bytes_since_snapshot: Arc<AtomicU64>,
}

impl RaftSnapshotBuilder<TypeConfig> for SnapshotBuilder {
    async fn build_snapshot(&mut self) -> Result<Snapshot<TypeConfig>, StorageError<u64>> {
        let Some(last_log_id) = self.last_applied else {
            return Err(snapshot_error(&self.log, QuorumError::Unsupported("a snapshot of an empty log".into())));
        };
        let epoch = i32::try_from(last_log_id.leader_id.term).unwrap_or(i32::MAX);
        let snapshot = MetadataSnapshot {
            id: SnapshotId { end_offset: self.end_offset, epoch },
            last_log_id,
            membership: self.membership.clone(),
            last_contained_timestamp_ms: self.last_append_time_ms,
            records: self.image.to_records(),
        };
        let dir = lock(&self.log).dir().to_owned();
        let bytes = snapshot.write(&dir).map_err(|e| snapshot_error(&self.log, e))?;
        let info = SnapshotInfo::of(&snapshot);
        let recorded = lock(&self.log).set_snapshot(info.clone());
        recorded.map_err(|e| snapshot_error(&self.log, e))?;
        self.bytes_since_snapshot.store(0, Ordering::Relaxed);
        tracing::info!(
            "metadata snapshot {} written: {} records, {} bytes",
            snapshot.id.file_name(),
            snapshot.records.len(),
            bytes.len()
        );
        Ok(raft_snapshot(&info, bytes))
    }
}

impl RaftStateMachine<TypeConfig> for StateMachine {
    type SnapshotBuilder = SnapshotBuilder;

    async fn applied_state(
        &mut self,
    ) -> Result<(Option<LogId<u64>>, StoredMembership<u64, VoterNode>), StorageError<u64>> {
        Ok((self.last_applied, self.membership.clone()))
    }

    async fn apply<I>(&mut self, entries: I) -> Result<Vec<AppliedOffsets>, StorageError<u64>>
    where
        I: IntoIterator<Item = openraft::Entry<TypeConfig>> + Send,
        I::IntoIter: Send,
    {
        let mut applied = Vec::new();
        for entry in entries {
            let log = &self.log;
            let apply_error =
                |e: QuorumError| StorageIOError::apply(entry.log_id, openraft::AnyError::new(&failed(log, e))).into();
            let stored = lock(&self.log).stored_batch(entry.log_id.index);
            let Some(stored) = stored else {
                return Err(apply_error(QuorumError::CorruptLog(format!("applying {}: no such batch", entry.log_id))));
            };
            let mut delta = MetadataDelta::new(&self.image);
            match &entry.payload {
                EntryPayload::Normal(frames) => {
                    for frame in &frames.frames {
                        let (record, _) = decode_frame(frame).map_err(apply_error)?;
                        // As Kafka's metadata loader: a record that does not fit the image is a
                        // fault to report, not a reason to stop the quorum; the image stays as it
                        // was before it (the broker's own replay stops there, loudly).
                        if let Err(e) = delta.replay(&record) {
                            tracing::error!("metadata snapshot image: skipping a record of {}: {e}", entry.log_id);
                        }
                    }
                    let bytes: usize = frames.frames.iter().map(Vec::len).sum();
                    self.bytes_since_snapshot.fetch_add(bytes as u64, Ordering::Relaxed);
                    self.last_append_time_ms = frames.append_time_ms;
                }
                EntryPayload::Membership(membership) => {
                    self.membership = StoredMembership::new(Some(entry.log_id), membership.clone());
                }
                EntryPayload::Blank => {}
            }
            let epoch = i32::try_from(entry.log_id.leader_id.term).unwrap_or(i32::MAX);
            self.image = delta.apply(MetadataProvenance { offset: stored.last_offset, epoch });
            self.applied_end_offset = stored.last_offset + 1;
            self.last_applied = Some(entry.log_id);
            applied.push(AppliedOffsets { last_offset: stored.last_offset });
        }
        if let Some(last) = applied.last() {
            let high_watermark = last.last_offset + 1;
            self.high_watermark.send_if_modified(|current| {
                assert!(high_watermark >= *current, "the high watermark never goes back");
                let moved = high_watermark > *current;
                *current = high_watermark;
                moved
            });
        }
        Ok(applied)
    }

    async fn get_snapshot_builder(&mut self) -> SnapshotBuilder {
        SnapshotBuilder {
            log: Arc::clone(&self.log),
            image: self.image.clone(),
            last_applied: self.last_applied,
            membership: self.membership.clone(),
            end_offset: self.applied_end_offset,
            last_append_time_ms: self.last_append_time_ms,
            bytes_since_snapshot: Arc::clone(&self.bytes_since_snapshot),
        }
    }

    async fn begin_receiving_snapshot(&mut self) -> Result<Box<Cursor<Vec<u8>>>, StorageError<u64>> {
        Ok(Box::new(Cursor::new(Vec::new())))
    }

    /// A snapshot from the leader: written to disk as the newest, then the state jumps to it
    /// (openraft purges the log up to it next).
    async fn install_snapshot(
        &mut self,
        meta: &SnapshotMeta<u64, VoterNode>,
        snapshot: Box<Cursor<Vec<u8>>>,
    ) -> Result<(), StorageError<u64>> {
        let bytes = Bytes::from(snapshot.into_inner());
        let decoded = check_received(meta, bytes.clone()).map_err(|e| snapshot_error(&self.log, e))?;
        let id = decoded.id;
        let dir = lock(&self.log).dir().to_owned();
        write_file(&dir, id, &bytes).map_err(|e| snapshot_error(&self.log, e))?;
        let recorded = lock(&self.log).set_snapshot(SnapshotInfo::of(&decoded));
        recorded.map_err(|e| snapshot_error(&self.log, e))?;
        tracing::info!("metadata snapshot {} installed from the leader", id.file_name());
        self.load(decoded).map_err(|e| snapshot_error(&self.log, e))
    }

    async fn get_current_snapshot(&mut self) -> Result<Option<Snapshot<TypeConfig>>, StorageError<u64>> {
        let newest = {
            let log = lock(&self.log);
            log.snapshot().map(|info| (log.dir().join(info.id.file_name()), info.clone()))
        };
        let Some((path, info)) = newest else { return Ok(None) };
        let bytes = std::fs::read(&path).map_err(|e| snapshot_error(&self.log, QuorumError::io(&path, e)))?;
        Ok(Some(raft_snapshot(&info, bytes)))
    }
}
