//! Boundary tests of the log's state files and the producer state, through the public API.
//!
//! The golden bytes below were written by Apache Kafka 4.4.0's own classes
//! (`OffsetCheckpointFile`, `LeaderEpochCheckpointFile`, `PartitionMetadataFile`,
//! `CleanShutdownFileHandler`, `PropertiesUtils.writePropertiesFile`,
//! `ProducerStateManager.writeSnapshot`), so these tests hold Strand to Kafka's formats without
//! running Kafka.

use std::collections::BTreeMap;
use std::path::Path;

use proptest::prelude::*;
use strand_base::{Offset, ProducerId, TopicPartition};
use strand_log::LogError;
use strand_log::checkpoint::{LeaderEpochCheckpointFile, OffsetCheckpointFile, RECOVERY_POINT_CHECKPOINT_FILE};
use strand_log::dir::{self, MetaProperties, MetaPropertiesVersion, PartitionMetadata};
use strand_log::epoch_cache::{EpochEntry, LeaderEpochCache};
use strand_log::producer_state::{
    AppendContext, AppendOutcome, BatchKind, BatchMetadata, CompletedTxn, ProducerBatch, ProducerSnapshotEntry,
    ProducerStateConfig, ProducerStateError, ProducerStateManager, TxnMarker, VerificationGuard, decode_snapshot,
    encode_snapshot, list_snapshots, read_snapshot, snapshot_path,
};
use strand_protocol::records::{EndTxnMarker, NewRecord, RecordBatch, RecordBatchBuilder, TransactionResult};

type TestResult = Result<(), Box<dyn std::error::Error>>;

/// Kafka 4.4.0's `recovery-point-offset-checkpoint` for three partitions.
const KAFKA_OFFSET_CHECKPOINT: &str = "0\n3\n__consumer_offsets 12 0\norders 0 42\norders 1 7\n";
/// Kafka 4.4.0's `leader-epoch-checkpoint` for epochs 0 at 0 and 3 at 1500.
const KAFKA_EPOCH_CHECKPOINT: &str = "0\n2\n0 0\n3 1500\n";
/// Kafka 4.4.0's `partition.metadata` (no final newline).
const KAFKA_PARTITION_METADATA: &str = "version: 0\ntopic_id: vTKbSOFgTj-LNy6UfK0G0w";
/// Kafka 4.4.0's `.kafka_cleanshutdown` for broker epoch 42.
const KAFKA_CLEAN_SHUTDOWN: &str = r#"{"version":0,"brokerEpoch":42}"#;
/// Kafka 4.4.0's `meta.properties` as `kafka-storage.sh format` writes it.
const KAFKA_META_PROPERTIES: &str = "#\n#Mon Nov 30 07:06:37 UTC 2026\nnode.id=3\n\
                                     directory.id=vTKbSOFgTj-LNy6UfK0G0w\nversion=1\n\
                                     cluster.id=4L6g3nShT-eMCtK--X86sw\n";
/// Kafka 4.4.0's `00000000000000000100.snapshot`: producer 1000 (epoch 3, last batch sequences
/// 5..=9 at offsets 37..=41) and producer 1001 (epoch 0, no batch, coordinator epoch 7,
/// transaction open since offset 50).
const KAFKA_SNAPSHOT_HEX: &str = "0001f87751280000000200000000000003e800030000000900000000000000290000000400\
                                  00018bcfe56800ffffffffffffffffffffffff00000000000003e90000ffffffffffffffff\
                                  ffffffff000000000000018bcfe569f4000000070000000000000032";

fn kafka_snapshot_entries() -> Vec<ProducerSnapshotEntry> {
    vec![
        ProducerSnapshotEntry {
            producer_id: ProducerId(1000),
            epoch: 3,
            last_sequence: 9,
            last_offset: 41,
            offset_delta: 4,
            timestamp: 1_700_000_000_000,
            coordinator_epoch: -1,
            current_txn_first_offset: -1,
        },
        ProducerSnapshotEntry {
            producer_id: ProducerId(1001),
            epoch: 0,
            last_sequence: -1,
            last_offset: -1,
            offset_delta: 0,
            timestamp: 1_700_000_000_500,
            coordinator_epoch: 7,
            current_txn_first_offset: 50,
        },
    ]
}

fn unhex(hex: &str) -> Vec<u8> {
    let digits: Vec<u8> = hex.bytes().filter(u8::is_ascii_hexdigit).collect();
    let value = |d: u8| if d.is_ascii_digit() { d - b'0' } else { d.to_ascii_lowercase() - b'a' + 10 };
    digits.chunks(2).map(|pair| (value(pair[0]) << 4) | value(pair[1])).collect()
}

fn is_corrupt<T: std::fmt::Debug>(result: &Result<T, LogError>) -> bool {
    matches!(result, Err(LogError::Corrupt { .. }))
}

// ---------------------------------------------------------------------------------------------
// Checkpoints and directory files against Kafka's bytes.

/// Strand writes the offset and leader-epoch checkpoints byte for byte as Kafka does, and reads
/// Kafka's.
#[test]
fn checkpoints_match_kafka_bytes() -> TestResult {
    let dir = tempfile::tempdir()?;
    let offsets = BTreeMap::from([
        (TopicPartition::new("orders", 0), 42),
        (TopicPartition::new("orders", 1), 7),
        (TopicPartition::new("__consumer_offsets", 12), 0),
    ]);
    let file = OffsetCheckpointFile::new(dir.path().join(RECOVERY_POINT_CHECKPOINT_FILE));
    file.write(&offsets)?;
    assert_eq!(std::fs::read_to_string(file.path())?, KAFKA_OFFSET_CHECKPOINT);
    std::fs::write(file.path(), KAFKA_OFFSET_CHECKPOINT)?;
    assert_eq!(file.read()?, offsets);

    let epochs = LeaderEpochCheckpointFile::in_dir(dir.path());
    epochs.write(&[EpochEntry::new(0, 0), EpochEntry::new(3, 1500)])?;
    assert_eq!(std::fs::read_to_string(epochs.path())?, KAFKA_EPOCH_CHECKPOINT);
    Ok(())
}

/// `partition.metadata` and the clean-shutdown marker are byte for byte Kafka's, and Kafka's
/// `meta.properties` (dated comment, its own key order) reads back its values.
#[test]
fn directory_files_match_kafka_bytes() -> TestResult {
    let dir = tempfile::tempdir()?;
    std::fs::write(PartitionMetadata::path(dir.path()), KAFKA_PARTITION_METADATA)?;
    let metadata = PartitionMetadata::read(dir.path())?.ok_or("no partition.metadata")?;
    assert_eq!(metadata.topic_id.to_string(), "vTKbSOFgTj-LNy6UfK0G0w");
    metadata.write(dir.path())?;
    assert_eq!(std::fs::read_to_string(PartitionMetadata::path(dir.path()))?, KAFKA_PARTITION_METADATA);

    dir::write_clean_shutdown(dir.path(), 42)?;
    assert_eq!(std::fs::read_to_string(dir.path().join(dir::CLEAN_SHUTDOWN_FILE))?, KAFKA_CLEAN_SHUTDOWN);

    std::fs::write(dir.path().join(dir::META_PROPERTIES_FILE), KAFKA_META_PROPERTIES)?;
    let props = MetaProperties::read(dir.path())?.ok_or("no meta.properties")?;
    assert_eq!(props.version, MetaPropertiesVersion::V1);
    assert_eq!((props.cluster_id.as_deref(), props.node_id), (Some("4L6g3nShT-eMCtK--X86sw"), Some(3)));
    assert_eq!(props.directory_id, Some(metadata.topic_id));
    props.write(dir.path())?;
    assert_eq!(MetaProperties::read(dir.path())?, Some(props));
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// Producer snapshot files.

/// The snapshot encoder produces Kafka's exact bytes, and the decoder reads Kafka's file.
#[test]
fn snapshot_matches_kafka_bytes() -> TestResult {
    let kafka = unhex(KAFKA_SNAPSHOT_HEX);
    assert_eq!(encode_snapshot(&kafka_snapshot_entries()), kafka);
    assert_eq!(decode_snapshot(Path::new("kafka.snapshot"), &kafka)?, kafka_snapshot_entries());
    let dir = tempfile::tempdir()?;
    let path = snapshot_path(dir.path(), 100);
    assert_eq!(path.file_name().and_then(|n| n.to_str()), Some("00000000000000000100.snapshot"));
    std::fs::write(&path, &kafka)?;
    let producers = read_snapshot(&path)?;
    let first_batch: Vec<BatchMetadata> = producers[0].batches().copied().collect();
    assert_eq!(
        first_batch,
        vec![BatchMetadata { last_seq: 9, last_offset: 41, offset_delta: 4, timestamp: 1_700_000_000_000 }]
    );
    assert_eq!(first_batch[0].first_seq(), 5);
    assert_eq!((producers[1].batches().count(), producers[1].current_txn_first_offset()), (0, Some(50)));
    let reencoded: Vec<ProducerSnapshotEntry> = producers.iter().map(|p| p.to_snapshot_entry()).collect();
    assert_eq!(reencoded, kafka_snapshot_entries());
    Ok(())
}

/// Every flipped byte, every truncation, an unknown version and trailing bytes make a snapshot
/// corrupt; none panics.
#[test]
fn damaged_snapshots_are_corrupt() {
    let kafka = unhex(KAFKA_SNAPSHOT_HEX);
    let path = Path::new("damaged.snapshot");
    for at in 0..kafka.len() {
        let mut damaged = kafka.clone();
        damaged[at] ^= 0x10;
        assert!(is_corrupt(&decode_snapshot(path, &damaged)), "flipped byte {at}");
    }
    for len in 0..kafka.len() {
        assert!(is_corrupt(&decode_snapshot(path, &kafka[..len])), "truncated to {len}");
    }
    let mut longer = kafka.clone();
    longer.push(0);
    assert!(is_corrupt(&decode_snapshot(path, &longer)));
    let mut negative_count = encode_snapshot(&[]);
    negative_count[6..10].copy_from_slice(&(-1i32).to_be_bytes());
    let crc = crc32c_of(&negative_count[6..]);
    negative_count[2..6].copy_from_slice(&crc.to_be_bytes());
    assert!(is_corrupt(&decode_snapshot(path, &negative_count)));
}

/// CRC-32C (Castagnoli), bit by bit: an implementation independent of the one under test.
fn crc32c_of(bytes: &[u8]) -> u32 {
    let mut crc = !0u32;
    for &byte in bytes {
        crc ^= u32::from(byte);
        for _ in 0..8 {
            crc = if crc & 1 == 1 { (crc >> 1) ^ 0x82F6_3B78 } else { crc >> 1 };
        }
    }
    !crc
}

// ---------------------------------------------------------------------------------------------
// Producer state: appends, transactions, snapshots.

const PID: ProducerId = ProducerId(7);

fn batch(producer_id: ProducerId, epoch: i16, base_sequence: i32, count: i32, base_offset: Offset) -> ProducerBatch {
    ProducerBatch {
        producer_id,
        producer_epoch: epoch,
        base_sequence,
        last_sequence: base_sequence + count - 1,
        base_offset,
        last_offset: base_offset + i64::from(count) - 1,
        max_timestamp: 10_000 + base_offset,
        kind: BatchKind::Data,
    }
}

fn txn_batch(
    producer_id: ProducerId,
    epoch: i16,
    base_sequence: i32,
    count: i32,
    base_offset: Offset,
) -> ProducerBatch {
    ProducerBatch { kind: BatchKind::TransactionalData, ..batch(producer_id, epoch, base_sequence, count, base_offset) }
}

fn marker(
    producer_id: ProducerId,
    epoch: i16,
    result: TransactionResult,
    coordinator_epoch: i32,
    offset: Offset,
) -> ProducerBatch {
    let marker = TxnMarker { result, coordinator_epoch, timestamp: 20_000 + offset };
    ProducerBatch {
        producer_id,
        producer_epoch: epoch,
        base_sequence: -1,
        last_sequence: -1,
        base_offset: offset,
        last_offset: offset,
        max_timestamp: 20_000 + offset,
        kind: BatchKind::Control(Some(marker)),
    }
}

fn no_verification() -> ProducerStateConfig {
    ProducerStateConfig { transaction_verification_enabled: false, ..ProducerStateConfig::default() }
}

/// Appends as the log does: check, update, complete ended transactions, advance the map end.
fn append(
    manager: &mut ProducerStateManager,
    batches: &[ProducerBatch],
    context: AppendContext,
) -> Result<Vec<(CompletedTxn, Offset)>, ProducerStateError> {
    match manager.check_and_prepare(batches, context)? {
        AppendOutcome::Duplicate(original) => panic!("unexpected duplicate of {original:?}"),
        AppendOutcome::Append(prepared) => {
            let mut completed = Vec::new();
            for txn in manager.update(prepared) {
                completed.push((txn, manager.last_stable_offset(&txn)));
                manager.complete_txn(&txn);
            }
            let end = batches.iter().map(|b| b.last_offset + 1).max().unwrap_or(manager.map_end_offset());
            manager.update_map_end_offset(end);
            Ok(completed)
        }
    }
}

fn client() -> AppendContext {
    AppendContext::client(VerificationGuard::SENTINEL)
}

/// Two interleaved transactions: the first unstable offset tracks the earliest open one, a
/// marker reports the transaction index's last stable offset, and completed transactions bound
/// the first unstable offset until the high watermark passes their marker.
#[test]
fn transactions_bound_the_last_stable_offset() -> TestResult {
    let dir = tempfile::tempdir()?;
    let mut m = ProducerStateManager::open(dir.path(), no_verification())?;
    let (a, b) = (ProducerId(1), ProducerId(2));
    append(&mut m, &[txn_batch(a, 0, 0, 2, 0)], client())?;
    append(&mut m, &[txn_batch(b, 0, 0, 1, 2)], client())?;
    assert_eq!((m.first_unstable_offset(), m.first_undecided_offset()), (Some(0), Some(0)));
    let done = append(&mut m, &[marker(a, 0, TransactionResult::Abort, 5, 3)], AppendContext::coordinator(1))?;
    let expected = CompletedTxn { producer_id: a, first_offset: 0, last_offset: 3, is_aborted: true };
    assert_eq!(done, vec![(expected, 2)]);
    assert_eq!((m.first_unstable_offset(), m.first_undecided_offset()), (Some(0), Some(2)));
    m.on_high_watermark_updated(4);
    assert_eq!(m.first_unstable_offset(), Some(2));
    let done = append(&mut m, &[marker(b, 0, TransactionResult::Commit, 5, 4)], AppendContext::coordinator(1))?;
    assert_eq!(done.iter().map(|(t, lso)| (t.is_aborted, *lso)).collect::<Vec<_>>(), vec![(false, 5)]);
    m.on_high_watermark_updated(5);
    assert_eq!(m.first_unstable_offset(), None);
    assert_eq!(m.last_entry(a).map(|e| e.coordinator_epoch()), Some(5));
    Ok(())
}

/// Transaction state errors: a non-transactional write inside a transaction, and a marker from
/// an older coordinator (accepted when replicated).
#[test]
fn transaction_state_errors() -> TestResult {
    let dir = tempfile::tempdir()?;
    let mut m = ProducerStateManager::open(dir.path(), no_verification())?;
    append(&mut m, &[txn_batch(PID, 0, 0, 1, 0)], client())?;
    let plain = m.check_and_prepare(&[batch(PID, 0, 1, 1, 1)], client());
    assert!(matches!(plain, Err(ProducerStateError::InvalidTxnState { .. })));
    append(&mut m, &[marker(PID, 0, TransactionResult::Commit, 5, 1)], AppendContext::coordinator(1))?;
    let zombie = [marker(PID, 0, TransactionResult::Abort, 4, 2)];
    let fenced = m.check_and_prepare(&zombie, AppendContext::coordinator(1));
    assert!(matches!(
        fenced,
        Err(ProducerStateError::TransactionCoordinatorFenced { coordinator_epoch: 4, current: 5, .. })
    ));
    assert!(matches!(m.check_and_prepare(&zombie, AppendContext::replication()), Ok(AppendOutcome::Append(_))));
    let from_client = m.check_and_prepare(&zombie, client());
    assert!(matches!(from_client, Err(ProducerStateError::InvalidControlBatch(_))));
    Ok(())
}

/// Transactions V2 (KIP-1228): a marker must carry a bumped epoch, except a retry of a marker
/// whose transaction already ended; version-1 markers keep the old rule.
#[test]
fn v2_markers_need_a_bumped_epoch() -> TestResult {
    let dir = tempfile::tempdir()?;
    let mut m = ProducerStateManager::open(dir.path(), no_verification())?;
    append(&mut m, &[txn_batch(PID, 3, 0, 1, 0)], client())?;
    let same_epoch = [marker(PID, 3, TransactionResult::Commit, 0, 1)];
    let v2 = m.check_and_prepare(&same_epoch, AppendContext::coordinator(2));
    assert!(matches!(v2, Err(ProducerStateError::InvalidProducerEpoch { .. })));
    assert!(matches!(m.check_and_prepare(&same_epoch, AppendContext::coordinator(1)), Ok(AppendOutcome::Append(_))));
    append(&mut m, &[marker(PID, 4, TransactionResult::Commit, 0, 1)], AppendContext::coordinator(2))?;
    assert_eq!(m.last_entry(PID).map(|e| (e.producer_epoch(), e.current_txn_first_offset())), Some((4, None)));
    let retry = [marker(PID, 4, TransactionResult::Commit, 0, 2)];
    assert_eq!(append(&mut m, &retry, AppendContext::coordinator(2))?, vec![]);
    Ok(())
}

/// KIP-890 verification: a V2 producer with no state must start at sequence 0; a verification
/// with a lower epoch than the producer's is fenced at once; a V2 marker of the verified epoch
/// keeps the verification for the next transaction.
#[test]
fn verification_rules_of_transactions_v2() -> TestResult {
    let dir = tempfile::tempdir()?;
    let mut m = ProducerStateManager::open(dir.path(), ProducerStateConfig::default())?;
    let guard = m.maybe_start_txn_verification(PID, 5, 0, true, 0)?;
    let late_start = m.check_and_prepare(&[txn_batch(PID, 0, 5, 1, 0)], AppendContext::client(guard));
    assert!(matches!(late_start, Err(ProducerStateError::OutOfOrderSequence { sequence: 5, .. })));
    let guard = m.maybe_start_txn_verification(PID, 0, 0, true, 0)?;
    append(&mut m, &[txn_batch(PID, 0, 0, 1, 0)], AppendContext::client(guard))?;
    assert_eq!(m.verification_guard(PID), VerificationGuard::SENTINEL);
    let stale = m.maybe_start_txn_verification(PID, 0, -1, true, 0);
    assert!(matches!(stale, Err(ProducerStateError::InvalidProducerEpoch { .. })));
    let next = m.maybe_start_txn_verification(PID, 1, 1, true, 0)?;
    assert_ne!(next, VerificationGuard::SENTINEL);
    append(&mut m, &[marker(PID, 1, TransactionResult::Commit, 0, 1)], AppendContext::coordinator(2))?;
    assert_eq!(m.verification_guard(PID), next);
    append(&mut m, &[txn_batch(PID, 1, 0, 1, 2)], AppendContext::client(next))?;
    assert!(m.has_ongoing_transaction(PID, 1));
    Ok(())
}

/// Several batches of one producer in one append are checked in order against each other, and
/// a failing batch leaves the state unchanged.
#[test]
fn batches_of_one_append_chain() -> TestResult {
    let dir = tempfile::tempdir()?;
    let mut m = ProducerStateManager::open(dir.path(), no_verification())?;
    append(&mut m, &[batch(PID, 0, 0, 2, 0), batch(PID, 0, 2, 3, 2)], client())?;
    assert_eq!(m.last_entry(PID).map(|e| e.last_seq()), Some(4));
    let broken = m.check_and_prepare(&[batch(PID, 0, 5, 1, 5), batch(PID, 0, 7, 1, 6)], client());
    assert!(matches!(broken, Err(ProducerStateError::OutOfOrderSequence { sequence: 7, .. })));
    assert_eq!(m.last_entry(PID).map(|e| e.last_seq()), Some(4));
    Ok(())
}

/// Idle producers expire unless a transaction is open; a transaction silent past the maximum
/// timeout plus Kafka's buffer is reported late.
#[test]
fn expiration_and_late_transactions() -> TestResult {
    let dir = tempfile::tempdir()?;
    let config =
        ProducerStateConfig { producer_id_expiration_ms: 1_000, max_transaction_timeout_ms: 100, ..no_verification() };
    let mut m = ProducerStateManager::open(dir.path(), config)?;
    append(&mut m, &[batch(ProducerId(1), 0, 0, 1, 0)], client())?;
    append(&mut m, &[txn_batch(ProducerId(2), 0, 0, 1, 1)], client())?;
    let last_timestamp = 10_001;
    assert!(!m.has_late_transaction(last_timestamp + 100 + 300_000));
    assert!(m.has_late_transaction(last_timestamp + 100 + 300_001));
    m.remove_expired_producers(10_000 + 1_000);
    assert_eq!(m.active_producers().keys().copied().collect::<Vec<_>>(), vec![ProducerId(2)]);
    Ok(())
}

/// Snapshots: taken at the map end offset, reloaded by truncate_and_reload from the latest one
/// at or below the log end (a corrupt one is deleted and an older one used), deleted below an
/// offset, and stray ones removed as Kafka does.
#[test]
fn snapshot_lifecycle() -> TestResult {
    let dir = tempfile::tempdir()?;
    let mut m = ProducerStateManager::open(dir.path(), no_verification())?;
    append(&mut m, &[batch(PID, 0, 0, 5, 0)], client())?;
    assert_eq!(m.take_snapshot()?, Some(snapshot_path(dir.path(), 5)));
    assert_eq!(m.take_snapshot()?, None);
    append(&mut m, &[batch(PID, 0, 5, 5, 5)], client())?;
    m.take_snapshot()?;
    append(&mut m, &[batch(PID, 0, 10, 5, 10)], client())?;
    m.take_snapshot()?;
    assert_eq!(list_snapshots(dir.path())?, vec![5, 10, 15]);

    let mut reloaded = ProducerStateManager::open(dir.path(), no_verification())?;
    reloaded.truncate_and_reload(0, 12, 10_000)?;
    assert_eq!((reloaded.map_end_offset(), list_snapshots(dir.path())?), (10, vec![5, 10]));
    assert_eq!(reloaded.last_entry(PID).map(|e| e.last_seq()), Some(9));

    std::fs::write(snapshot_path(dir.path(), 10), b"garbage")?;
    let mut fallback = ProducerStateManager::open(dir.path(), no_verification())?;
    fallback.truncate_and_reload(0, 12, 10_000)?;
    assert_eq!((fallback.map_end_offset(), list_snapshots(dir.path())?), (5, vec![5]));
    assert_eq!(fallback.last_entry(PID).map(|e| e.last_seq()), Some(4));

    fallback.truncate_and_reload(5, 12, 10_000)?;
    assert_eq!((fallback.map_end_offset(), fallback.active_producers().len()), (5, 0));
    assert!(list_snapshots(dir.path())?.is_empty());
    Ok(())
}

/// Deleting below an offset, marking for deletion, and Kafka's stray-snapshot rule (keep only
/// a stray above every segment) act on the files.
#[test]
fn snapshot_deletion_rules() -> TestResult {
    let dir = tempfile::tempdir()?;
    for offset in [0, 10, 20, 25, 30, 40] {
        std::fs::write(snapshot_path(dir.path(), offset), encode_snapshot(&[]))?;
    }
    let mut m = ProducerStateManager::open(dir.path(), no_verification())?;
    m.delete_snapshots_before(10)?;
    assert_eq!(list_snapshots(dir.path())?, vec![10, 20, 25, 30, 40]);
    let marked = m.remove_and_mark_snapshot_for_deletion(30)?.ok_or("not marked")?;
    assert!(marked.to_string_lossy().ends_with("00000000000000000030.snapshot.deleted"));
    std::fs::remove_file(marked)?;
    m.remove_stray_snapshots(&[10, 20, 30])?;
    assert_eq!(list_snapshots(dir.path())?, vec![10, 20, 40]);
    m.remove_stray_snapshots(&[10, 20, 50])?;
    assert_eq!(list_snapshots(dir.path())?, vec![10, 20]);
    assert_eq!((m.oldest_snapshot_offset(), m.latest_snapshot_offset()), (Some(10), Some(20)));
    Ok(())
}

/// Header fields come from real batches; a control batch yields its marker, with the record's
/// timestamp.
#[test]
fn producer_batch_from_stored_batches() -> TestResult {
    let mut builder = RecordBatchBuilder::new().base_offset(100).producer(PID, 2, 40).transactional();
    for i in 0..3 {
        builder.append(&NewRecord { timestamp_ms: 1_000 + i, key: None, value: Some(b"v"), headers: &[] })?;
    }
    let data = ProducerBatch::from_batch(&RecordBatch::parse(builder.build()?)?)?;
    assert_eq!(data, ProducerBatch { max_timestamp: 1_002, ..txn_batch(PID, 2, 40, 3, 100) });

    let end = EndTxnMarker { coordinator_epoch: 9 };
    let marker_bytes = strand_protocol::records::end_txn_marker_batch(PID, 2, TransactionResult::Abort, end, 5_000)?
        .base_offset(103)
        .build()?;
    let control = ProducerBatch::from_batch(&RecordBatch::parse(marker_bytes)?)?;
    let expected = TxnMarker { result: TransactionResult::Abort, coordinator_epoch: 9, timestamp: 5_000 };
    assert_eq!(control.kind, BatchKind::Control(Some(expected)));
    assert_eq!((control.base_offset, control.producer_epoch), (103, 2));
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// Property tests against small models.

#[derive(Debug, Clone)]
enum EpochOp {
    Assign(i32, i64),
    TruncateFromEnd(i64),
    TruncateFromStart(i64),
    Flush,
}

fn epoch_op() -> impl Strategy<Value = EpochOp> {
    prop_oneof![
        6 => (0..12i32, 0..60i64).prop_map(|(e, s)| EpochOp::Assign(e, s)),
        2 => (-1..62i64).prop_map(EpochOp::TruncateFromEnd),
        2 => (0..62i64).prop_map(EpochOp::TruncateFromStart),
        1 => Just(EpochOp::Flush),
    ]
}

/// The leader epoch cache's rules restated over a plain list, by brute force.
#[derive(Debug, Default)]
struct EpochModel(Vec<(i32, i64)>);

impl EpochModel {
    fn assign(&mut self, epoch: i32, start: i64) {
        if self.0.last().is_some_and(|&(e, s)| e == epoch && start >= s) {
            return;
        }
        self.0.retain(|&(e, s)| e < epoch && s < start);
        self.0.push((epoch, start));
    }

    fn truncate_from_end(&mut self, end: i64) {
        if end >= 0 {
            self.0.retain(|&(_, s)| s < end);
        }
    }

    fn truncate_from_start(&mut self, start: i64) {
        let covered: Vec<(i32, i64)> = self.0.iter().copied().filter(|&(_, s)| s <= start).collect();
        if let Some(&(epoch, _)) = covered.iter().max_by_key(|(e, _)| *e) {
            self.0.retain(|&(_, s)| s > start);
            self.0.insert(0, (epoch, start));
        }
    }

    fn end_offset_for(&self, requested: i32, log_end: i64) -> (i32, i64) {
        if requested == -1 {
            return (-1, -1);
        }
        if self.0.last().is_some_and(|&(e, _)| e == requested) {
            return (requested, log_end);
        }
        let higher = self.0.iter().filter(|(e, _)| *e > requested).min_by_key(|(e, _)| *e);
        let floor = self.0.iter().filter(|(e, _)| *e <= requested).max_by_key(|(e, _)| *e);
        match (higher, floor) {
            (None, _) => (-1, -1),
            (Some(&(_, start)), None) => (requested, start),
            (Some(&(_, start)), Some(&(e, _))) => (e, start),
        }
    }

    fn epoch_for_offset(&self, offset: i64) -> Option<i32> {
        self.0.iter().filter(|(_, s)| *s <= offset).max_by_key(|(_, s)| *s).map(|(e, _)| *e)
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// The epoch cache agrees with the brute-force model after every operation, in its entries
    /// and every query, and what it flushes is what a reopen reads.
    #[test]
    fn epoch_cache_matches_model(ops in proptest::collection::vec(epoch_op(), 1..30)) {
        let dir = tempfile::tempdir().map_err(|e| TestCaseError::fail(e.to_string()))?;
        let fail = |e: LogError| TestCaseError::fail(e.to_string());
        let mut cache = LeaderEpochCache::open(dir.path()).map_err(fail)?;
        let mut model = EpochModel::default();
        for op in ops {
            match op {
                EpochOp::Assign(e, s) => { cache.assign(e, s).map_err(fail)?; model.assign(e, s); }
                EpochOp::TruncateFromEnd(o) => { cache.truncate_from_end(o); model.truncate_from_end(o); }
                EpochOp::TruncateFromStart(o) => { cache.truncate_from_start(o); model.truncate_from_start(o); }
                EpochOp::Flush => {
                    cache.flush().map_err(fail)?;
                    let reopened = LeaderEpochCache::open(dir.path()).map_err(fail)?;
                    prop_assert_eq!(reopened.entries(), cache.entries());
                }
            }
            let entries: Vec<(i32, i64)> = cache.entries().iter().map(|e| (e.epoch, e.start_offset)).collect();
            prop_assert_eq!(&entries, &model.0);
            for requested in -2..14 {
                prop_assert_eq!(cache.end_offset_for(requested, 1_000), model.end_offset_for(requested, 1_000));
            }
            for offset in -1..62 {
                prop_assert_eq!(cache.epoch_for_offset(offset), model.epoch_for_offset(offset));
            }
        }
    }
}

/// One producer as the model sees it: its epoch and its last five batches
/// `(first_seq, last_seq, first_offset, last_offset)`.
#[derive(Debug, Clone)]
struct ProducerModel {
    epoch: i16,
    batches: Vec<(i32, i32, i64, i64)>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Verdict {
    Appended,
    Duplicate(i64, i64),
    OutOfOrder,
    Fenced,
}

fn wrap_sequence(sequence: i64) -> i32 {
    let max = i64::from(i32::MAX);
    (if sequence > max {
        sequence - max - 1
    } else if sequence < 0 {
        sequence + max + 1
    } else {
        sequence
    }) as i32
}

/// Kafka's client-append rules for non-transactional batches, restated per producer.
fn model_append(
    model: &mut BTreeMap<i64, ProducerModel>,
    pid: i64,
    epoch: i16,
    first: i32,
    last: i32,
    offsets: (i64, i64),
) -> Verdict {
    let Some(known) = model.get_mut(&pid) else {
        model.insert(pid, ProducerModel { epoch, batches: vec![(first, last, offsets.0, offsets.1)] });
        return Verdict::Appended;
    };
    if epoch == known.epoch
        && let Some(&(_, _, f, l)) = known.batches.iter().find(|b| b.0 == first && b.1 == last)
    {
        return Verdict::Duplicate(f, l);
    }
    let accepted = match epoch.cmp(&known.epoch) {
        std::cmp::Ordering::Less => return Verdict::Fenced,
        std::cmp::Ordering::Greater => first == 0,
        std::cmp::Ordering::Equal => known.batches.last().is_some_and(|b| first == wrap_sequence(i64::from(b.1) + 1)),
    };
    if !accepted {
        return Verdict::OutOfOrder;
    }
    if epoch != known.epoch {
        known.epoch = epoch;
        known.batches.clear();
    }
    known.batches.push((first, last, offsets.0, offsets.1));
    if known.batches.len() > 5 {
        known.batches.remove(0);
    }
    Verdict::Appended
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Client appends of three producers (one starting near `i32::MAX`, so sequences wrap) get
    /// the model's verdict: appended, duplicate with the original offsets, out of order, or
    /// fenced; and a snapshot reload restores each producer's epoch and last batch.
    #[test]
    fn producer_sequences_match_model(
        steps in proptest::collection::vec((1i64..4, prop_oneof![8 => Just(0i16), 1 => Just(1), 1 => Just(-1)], -8i64..4, 1i32..5), 1..60)
    ) {
        let dir = tempfile::tempdir().map_err(|e| TestCaseError::fail(e.to_string()))?;
        let mut manager = ProducerStateManager::open(dir.path(), no_verification()).map_err(|e| TestCaseError::fail(e.to_string()))?;
        let mut model: BTreeMap<i64, ProducerModel> = BTreeMap::new();
        let mut next_offset = 0i64;
        for (pid, epoch_delta, sequence_delta, count) in steps {
            let (epoch, first) = match model.get(&pid) {
                Some(known) => {
                    let last = known.batches.last().map_or(-1, |b| b.1);
                    ((known.epoch + epoch_delta).max(0), wrap_sequence(i64::from(last) + 1 + sequence_delta))
                }
                None => (epoch_delta.max(0), wrap_sequence(if pid == 2 { i64::from(i32::MAX) - 4 } else { 0 } + sequence_delta)),
            };
            let last = wrap_sequence(i64::from(first) + i64::from(count) - 1);
            let offsets = (next_offset, next_offset + i64::from(count) - 1);
            let producer_batch = ProducerBatch {
                producer_id: ProducerId(pid),
                producer_epoch: epoch,
                base_sequence: first,
                last_sequence: last,
                base_offset: offsets.0,
                last_offset: offsets.1,
                max_timestamp: 1_000 + offsets.0,
                kind: BatchKind::Data,
            };
            let verdict = match manager.check_and_prepare(&[producer_batch], client()) {
                Ok(AppendOutcome::Duplicate(original)) => Verdict::Duplicate(original.first_offset(), original.last_offset),
                Ok(AppendOutcome::Append(prepared)) => {
                    manager.update(prepared);
                    next_offset = offsets.1 + 1;
                    manager.update_map_end_offset(next_offset);
                    Verdict::Appended
                }
                Err(ProducerStateError::OutOfOrderSequence { .. }) => Verdict::OutOfOrder,
                Err(ProducerStateError::InvalidProducerEpoch { .. }) => Verdict::Fenced,
                Err(other) => return Err(TestCaseError::fail(format!("unexpected {other}"))),
            };
            prop_assert_eq!(verdict, model_append(&mut model, pid, epoch, first, last, offsets));
        }
        manager.take_snapshot().map_err(|e| TestCaseError::fail(e.to_string()))?;
        let mut reloaded = ProducerStateManager::open(dir.path(), no_verification()).map_err(|e| TestCaseError::fail(e.to_string()))?;
        reloaded.truncate_and_reload(0, next_offset, 1_000).map_err(|e| TestCaseError::fail(e.to_string()))?;
        for (pid, known) in &model {
            let entry = reloaded.last_entry(ProducerId(*pid)).ok_or_else(|| TestCaseError::fail("producer lost"))?;
            let last = known.batches.last().map(|b| (b.1, b.3));
            prop_assert_eq!((entry.producer_epoch(), Some((entry.last_seq(), entry.last_data_offset()))), (known.epoch, last));
        }
    }
}
