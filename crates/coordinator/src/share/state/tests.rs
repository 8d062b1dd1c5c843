use strand_base::Uuid;
use strand_protocol::error::ErrorCode;
use strand_protocol::records::RecordBatch;

use super::records::{ShareKey, ShareRecord, ShareValue, SnapshotMeta, build_batch};
use super::shard::{ShareStateShard, merged};
use super::{PersistedBatch, PersistedState, STATE_ACKNOWLEDGED, STATE_ACQUIRED, STATE_AVAILABLE};

fn key() -> ShareKey {
    ShareKey { group_id: "g".into(), topic_id: Uuid([7; 16]), partition: 3 }
}

fn batch(first_offset: i64, last_offset: i64, delivery_state: i8, delivery_count: i16) -> PersistedBatch {
    PersistedBatch { first_offset, last_offset, delivery_state, delivery_count }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

#[test]
fn snapshot_record_has_kafkas_layout() {
    let state = PersistedState { state_epoch: 1, leader_epoch: 2, start_offset: 5, batches: vec![batch(5, 6, 1, 1)] };
    let meta = SnapshotMeta { snapshot_epoch: 0, create_timestamp: 9, write_timestamp: 9 };
    let record = ShareRecord { key: key(), value: ShareValue::Snapshot(meta, state.clone()) };
    let key_bytes = record.encode_key().expect("test");
    // Type 0, then ShareSnapshotKey v0 (not flexible): group id (i16 length), topic id, partition.
    assert_eq!(hex(&key_bytes), format!("000000016707{}00000003", "07".repeat(15)));
    let value_bytes = record.encode_value().expect("test").expect("test");
    // Version 0, then the flexible ShareSnapshotValue: epochs, start offset, timestamps, batches
    // (compact array of 1 + 1), each with its tag buffer, then the value's tag buffer.
    assert_eq!(
        hex(&value_bytes),
        "0000\
         00000000\
         00000001\
         00000002\
         0000000000000005\
         0000000000000009\
         0000000000000009\
         02\
         0000000000000005\
         0000000000000006\
         01\
         0001\
         00\
         00"
    );
    let decoded = ShareRecord::decode(key_bytes, Some(value_bytes)).expect("test");
    assert_eq!(decoded, record);
}

#[test]
fn update_and_tombstone_round_trip() {
    let state = PersistedState { state_epoch: 0, leader_epoch: 4, start_offset: -1, batches: vec![batch(8, 9, 2, 1)] };
    let update = ShareRecord { key: key(), value: ShareValue::Update { snapshot_epoch: 3, state } };
    let key_bytes = update.encode_key().expect("test");
    assert_eq!(&key_bytes[..2], &[0, 1]);
    let decoded = ShareRecord::decode(key_bytes, update.encode_value().expect("test")).expect("test");
    assert_eq!(decoded, update);
    let tombstone = ShareRecord { key: key(), value: ShareValue::Tombstone };
    assert_eq!(tombstone.encode_value().expect("test"), None);
    assert_eq!(ShareRecord::decode(tombstone.encode_key().expect("test"), None).expect("test"), tombstone);
    let unknown = ShareRecord::decode(bytes::Bytes::from_static(&[0, 9, 0, 0]), None).expect_err("an unknown type");
    assert!(unknown.is_unknown_version());
}

#[test]
fn merge_replaces_what_a_batch_overlaps_and_drops_below_the_start() {
    let base = PersistedState {
        state_epoch: 1,
        leader_epoch: 1,
        start_offset: 0,
        batches: vec![batch(0, 9, STATE_ACQUIRED, 1)],
    };
    let update = PersistedState {
        state_epoch: 1,
        leader_epoch: 1,
        start_offset: 2,
        batches: vec![batch(4, 5, STATE_ACKNOWLEDGED, 1), batch(7, 7, STATE_AVAILABLE, 1)],
    };
    let out = merged(&base, &update);
    assert_eq!(out.start_offset, 2);
    assert_eq!(
        out.batches,
        vec![
            batch(2, 3, STATE_ACQUIRED, 1),
            batch(4, 5, STATE_ACKNOWLEDGED, 1),
            batch(6, 6, STATE_ACQUIRED, 1),
            batch(7, 7, STATE_AVAILABLE, 1),
            batch(8, 9, STATE_ACQUIRED, 1),
        ]
    );
}

#[test]
fn shard_fences_old_epochs_and_recovers_by_replay() {
    let mut shard = ShareStateShard::new();
    let mut log = Vec::new();
    log.extend(shard.initialize(&key(), 1, 10, 100).expect("test"));
    assert_eq!(shard.initialize(&key(), 1, 10, 100), Err(ErrorCode::FencedStateEpoch));
    let write = PersistedState {
        state_epoch: 1,
        leader_epoch: 5,
        start_offset: 12,
        batches: vec![batch(12, 14, STATE_ACQUIRED, 2), batch(15, 15, STATE_ACKNOWLEDGED, 1)],
    };
    log.extend(shard.write(&key(), &write, 200).expect("test"));
    let stale = PersistedState { leader_epoch: 4, ..write.clone() };
    assert_eq!(shard.write(&key(), &stale, 300), Err(ErrorCode::FencedLeaderEpoch));
    assert_eq!(shard.read(&key(), 4, 300), Err(ErrorCode::FencedLeaderEpoch));
    let (state, records) = shard.read(&key(), 6, 300).expect("test");
    assert_eq!(state.as_ref().map(|s| s.leader_epoch), Some(6));
    log.extend(records);
    // What a restarted coordinator loads: the same batches replayed from the log's bytes.
    let bytes = build_batch(&log, 300).expect("test");
    let batch_read = RecordBatch::parse(bytes).expect("test");
    let mut reloaded = ShareStateShard::new();
    let records = batch_read.records().expect("test");
    for record in &records {
        let record = record.expect("test");
        let key = bytes::Bytes::copy_from_slice(record.key().expect("test"));
        let value = record.value().map(bytes::Bytes::copy_from_slice);
        reloaded.replay(&ShareRecord::decode(key, value).expect("test"));
    }
    assert_eq!(reloaded.state(&key()), shard.state(&key()));
    let state = reloaded.state(&key()).expect("test");
    assert_eq!((state.state_epoch, state.leader_epoch, state.start_offset), (1, 6, 12));
    assert_eq!(state.batches, write.batches);
    // A delete leaves nothing to read.
    let tombstone = reloaded.delete(&key());
    assert_eq!(tombstone.len(), 1);
    assert_eq!(reloaded.read(&key(), 6, 400), Ok((None, Vec::new())));
}

#[test]
fn a_write_of_too_many_batches_is_refused() {
    let mut shard = ShareStateShard::new();
    let batches = (0..=super::shard::STATE_BATCHES_MAX as i64).map(|o| batch(o, o, STATE_AVAILABLE, 1)).collect();
    let write = PersistedState { state_epoch: 0, leader_epoch: 0, start_offset: 0, batches };
    assert!(matches!(shard.write(&key(), &write, 0), Err(ErrorCode::InvalidRequest)), "a write of too many batches");
    assert_eq!(shard.state(&key()), None);
}
