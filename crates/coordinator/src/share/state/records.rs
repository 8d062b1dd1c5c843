//! The records of `__share_group_state`, in Kafka's format (its share coordinator's
//! `ShareSnapshot` and `ShareUpdate`), so that Kafka's tools and a Kafka broker read them:
//!
//! ```text
//! key   = record type (i16: 0 ShareSnapshot, 1 ShareUpdate) | key v0: group id, topic id, partition
//! value = version (i16, 0) | ShareSnapshotValue or ShareUpdateValue v0
//!         or null: a tombstone, which removes the share-partition's state
//! ```
//!
//! A snapshot is a share-partition's whole state; an update carries only the batches that
//! changed, merged over the state before it (`shard::merge`). Strand writes snapshots only
//! (every write is small: at most `group.share.partition.max.record.locks` records, in ranges)
//! and reads both.

use bytes::{BufMut, Bytes, BytesMut};
use strand_base::Uuid;
use strand_protocol::codec::{DecodeError, Decoder, EncodeError, Struct};
use strand_protocol::messages::share_snapshot_value::StateBatch as SnapshotBatch;
use strand_protocol::messages::share_update_value::StateBatch as UpdateBatch;
use strand_protocol::messages::{ShareSnapshotKey, ShareSnapshotValue, ShareUpdateKey, ShareUpdateValue};
use strand_protocol::records::{NewRecord, RecordBatchBuilder, RecordsError};

use super::{PersistedBatch, PersistedState};

/// `ShareSnapshot`'s record type.
pub const SNAPSHOT_KEY_TYPE: i16 = 0;
/// `ShareUpdate`'s record type.
pub const UPDATE_KEY_TYPE: i16 = 1;

/// A share-partition's state is keyed by its group, topic id and partition (Kafka's
/// `SharePartitionKey`).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ShareKey {
    pub group_id: String,
    pub topic_id: Uuid,
    pub partition: i32,
}

impl ShareKey {
    /// `groupId:topicId:partition`: the text FindCoordinator key type 2 names and
    /// `__share_group_state`'s partition is hashed from.
    pub fn coordinator_key(&self) -> String {
        format!("{}:{}:{}", self.group_id, self.topic_id, self.partition)
    }
}

/// A snapshot's fields besides its state.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct SnapshotMeta {
    pub snapshot_epoch: i32,
    pub create_timestamp: i64,
    pub write_timestamp: i64,
}

/// What a record of `__share_group_state` says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ShareValue {
    Snapshot(SnapshotMeta, PersistedState),
    /// An update: `start_offset` -1 leaves it as it was; `state_epoch` is the snapshot's.
    Update {
        snapshot_epoch: i32,
        state: PersistedState,
    },
    /// The state is deleted.
    Tombstone,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ShareRecord {
    pub key: ShareKey,
    pub value: ShareValue,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ShareRecordError {
    #[error("the key is shorter than its 2-byte record type")]
    MissingKeyType,
    #[error("unknown share coordinator record type {0}")]
    UnknownKeyType(i16),
    #[error("the value is shorter than its 2-byte version")]
    MissingValueVersion,
    #[error("unknown share coordinator value version {0}")]
    UnknownValueVersion(i16),
    #[error("a share coordinator record is malformed: {0}")]
    Malformed(#[from] DecodeError),
}

impl ShareRecordError {
    pub fn is_unknown_version(&self) -> bool {
        matches!(self, ShareRecordError::UnknownKeyType(_) | ShareRecordError::UnknownValueVersion(_))
    }
}

impl ShareRecord {
    pub fn encode_key(&self) -> Result<Bytes, EncodeError> {
        let mut out = BytesMut::new();
        let (group_id, topic_id, partition) = (self.key.group_id.clone(), self.key.topic_id, self.key.partition);
        match self.value {
            ShareValue::Update { .. } => {
                out.put_i16(UPDATE_KEY_TYPE);
                ShareUpdateKey { group_id, topic_id, partition }.encode(&mut out, 0)?;
            }
            _ => {
                out.put_i16(SNAPSHOT_KEY_TYPE);
                ShareSnapshotKey { group_id, topic_id, partition }.encode(&mut out, 0)?;
            }
        }
        Ok(out.freeze())
    }

    pub fn encode_value(&self) -> Result<Option<Bytes>, EncodeError> {
        let mut out = BytesMut::new();
        out.put_i16(0);
        match &self.value {
            ShareValue::Tombstone => return Ok(None),
            ShareValue::Snapshot(meta, state) => ShareSnapshotValue {
                snapshot_epoch: meta.snapshot_epoch,
                state_epoch: state.state_epoch,
                leader_epoch: state.leader_epoch,
                start_offset: state.start_offset,
                create_timestamp: meta.create_timestamp,
                write_timestamp: meta.write_timestamp,
                state_batches: state
                    .batches
                    .iter()
                    .map(|b| SnapshotBatch {
                        first_offset: b.first_offset,
                        last_offset: b.last_offset,
                        delivery_state: b.delivery_state,
                        delivery_count: b.delivery_count,
                        ..Default::default()
                    })
                    .collect(),
                ..Default::default()
            }
            .encode(&mut out, 0)?,
            ShareValue::Update { snapshot_epoch, state } => ShareUpdateValue {
                snapshot_epoch: *snapshot_epoch,
                leader_epoch: state.leader_epoch,
                start_offset: state.start_offset,
                state_batches: state
                    .batches
                    .iter()
                    .map(|b| UpdateBatch {
                        first_offset: b.first_offset,
                        last_offset: b.last_offset,
                        delivery_state: b.delivery_state,
                        delivery_count: b.delivery_count,
                        ..Default::default()
                    })
                    .collect(),
                ..Default::default()
            }
            .encode(&mut out, 0)?,
        }
        Ok(Some(out.freeze()))
    }

    pub fn decode(key: Bytes, value: Option<Bytes>) -> Result<ShareRecord, ShareRecordError> {
        let mut d = Decoder::new(key);
        let key_type = d.i16().map_err(|_| ShareRecordError::MissingKeyType)?;
        let key = match key_type {
            SNAPSHOT_KEY_TYPE => {
                let k = ShareSnapshotKey::decode(&mut d, 0)?;
                ShareKey { group_id: k.group_id, topic_id: k.topic_id, partition: k.partition }
            }
            UPDATE_KEY_TYPE => {
                let k = ShareUpdateKey::decode(&mut d, 0)?;
                ShareKey { group_id: k.group_id, topic_id: k.topic_id, partition: k.partition }
            }
            other => return Err(ShareRecordError::UnknownKeyType(other)),
        };
        let Some(value) = value else { return Ok(ShareRecord { key, value: ShareValue::Tombstone }) };
        let mut d = Decoder::new(value);
        let version = d.i16().map_err(|_| ShareRecordError::MissingValueVersion)?;
        if version != 0 {
            return Err(ShareRecordError::UnknownValueVersion(version));
        }
        let value = if key_type == SNAPSHOT_KEY_TYPE {
            let v = ShareSnapshotValue::decode(&mut d, 0)?;
            let meta = SnapshotMeta {
                snapshot_epoch: v.snapshot_epoch,
                create_timestamp: v.create_timestamp,
                write_timestamp: v.write_timestamp,
            };
            let batches = v
                .state_batches
                .iter()
                .map(|b| batch(b.first_offset, b.last_offset, b.delivery_state, b.delivery_count));
            let state = PersistedState {
                state_epoch: v.state_epoch,
                leader_epoch: v.leader_epoch,
                start_offset: v.start_offset,
                batches: batches.collect(),
            };
            ShareValue::Snapshot(meta, state)
        } else {
            let v = ShareUpdateValue::decode(&mut d, 0)?;
            let batches = v
                .state_batches
                .iter()
                .map(|b| batch(b.first_offset, b.last_offset, b.delivery_state, b.delivery_count));
            let state = PersistedState {
                state_epoch: 0,
                leader_epoch: v.leader_epoch,
                start_offset: v.start_offset,
                batches: batches.collect(),
            };
            ShareValue::Update { snapshot_epoch: v.snapshot_epoch, state }
        };
        Ok(ShareRecord { key, value })
    }
}

fn batch(first_offset: i64, last_offset: i64, delivery_state: i8, delivery_count: i16) -> PersistedBatch {
    PersistedBatch { first_offset, last_offset, delivery_state, delivery_count }
}

/// `records` as one batch of `__share_group_state`, stamped `timestamp_ms`.
pub fn build_batch(records: &[ShareRecord], timestamp_ms: i64) -> Result<Bytes, ShareBatchError> {
    let mut builder = RecordBatchBuilder::new();
    for record in records {
        let key = record.encode_key()?;
        let value = record.encode_value()?;
        builder.append(&NewRecord { timestamp_ms, key: Some(&key), value: value.as_deref(), headers: &[] })?;
    }
    Ok(builder.build()?)
}

#[derive(Debug, thiserror::Error)]
pub enum ShareBatchError {
    #[error("encoding a share coordinator record: {0}")]
    Encode(#[from] EncodeError),
    #[error("building a share coordinator batch: {0}")]
    Records(#[from] RecordsError),
}
