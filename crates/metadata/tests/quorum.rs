//! The controller quorum through its public API: appends commit in order, subscribers see every
//! committed record (replayed after a restart), the `__cluster_metadata-0` segment holds Kafka's
//! magic-2 batches, and a crash loses nothing an append acknowledged.
//!
//! Waits have upper bounds only ([`WAIT`]); nothing sleeps.

use std::future::Future;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use strand_base::{BrokerId, SystemClock, Uuid};
use strand_metadata::image::{MetadataDelta, MetadataImage, MetadataProvenance};
use strand_metadata::quorum::{
    CommittedBatch, LoneVoterTransport, Quorum, QuorumConfig, QuorumError, SnapshotSettings,
};
use strand_protocol::messages::records::MetadataRecord;
use strand_protocol::messages::{ProducerIdsRecord, TopicRecord, VotersRecord};
use strand_protocol::records::{ControlRecordType, RecordBatch, RecordBatches};
use strand_protocol::{Decoder, Message};
use tokio::sync::mpsc;

/// The most any step may take; hitting it is a failure, never a pass.
const WAIT: Duration = Duration::from_secs(30);
const NODE_ID: i32 = 1;
const CLUSTER_ID: &str = "MkU3OEVBNTcwNTJENDM2Qg";
const SEGMENT: &str = "00000000000000000000.log";

type Records = Vec<(MetadataRecord, i16)>;

async fn bounded<T>(what: &str, future: impl Future<Output = T>) -> T {
    tokio::time::timeout(WAIT, future).await.unwrap_or_else(|_| panic!("{what} took more than {WAIT:?}"))
}

async fn open(dir: &Path) -> Quorum {
    bounded("open", open_as(dir, NODE_ID)).await.expect("opens")
}

async fn open_as(dir: &Path, node_id: i32) -> Result<Quorum, QuorumError> {
    let config = QuorumConfig::lone_voter(node_id, CLUSTER_ID);
    Quorum::open(dir, config, Arc::new(LoneVoterTransport), Arc::new(SystemClock)).await
}

fn topic(name: &str, id: u8) -> (MetadataRecord, i16) {
    let record = TopicRecord { name: name.into(), topic_id: Uuid([id; 16]), ..TopicRecord::default() };
    (MetadataRecord::TopicRecord(record), 0)
}

fn producer_ids(next: i64) -> (MetadataRecord, i16) {
    let record = ProducerIdsRecord {
        broker_id: BrokerId(NODE_ID),
        broker_epoch: 5,
        next_producer_id: next,
        ..Default::default()
    };
    (MetadataRecord::ProducerIdsRecord(record), 0)
}

/// Record lists of different sizes, named after `prefix`.
fn record_lists(prefix: &str) -> Vec<Records> {
    vec![
        vec![topic(&format!("{prefix}-a"), 1)],
        vec![topic(&format!("{prefix}-b"), 2), producer_ids(1000), topic(&format!("{prefix}-c"), 3)],
        vec![producer_ids(2000), producer_ids(3000)],
    ]
}

/// Appends each list; returns the acknowledged last offsets, checking they increase.
async fn append_all(quorum: &Quorum, lists: &[Records]) -> Vec<i64> {
    let mut offsets: Vec<i64> = Vec::new();
    for list in lists {
        let offset = bounded("append", quorum.append(list.clone())).await.expect("commits");
        if let Some(previous) = offsets.last() {
            assert!(offset >= previous + list.len() as i64, "offset {offset} after {previous}");
        }
        offsets.push(offset);
    }
    offsets
}

/// Receives `count` data batches. Control batches (leader changes, voters) arrive too, empty, so
/// a subscriber's position moves past them; they are checked and skipped here.
async fn receive(rx: &mut mpsc::Receiver<CommittedBatch>, count: usize) -> Vec<CommittedBatch> {
    let mut batches = Vec::new();
    while batches.len() < count {
        let batch = bounded("a committed batch", rx.recv()).await.expect("the feed is open");
        if batch.records.is_empty() {
            assert!(batch.last_offset >= batch.base_offset, "a control batch holds its control records' offsets");
            continue;
        }
        batches.push(batch);
    }
    batches
}

/// The batches carry exactly `lists`, in order, ending at `offsets`.
fn check_batches(batches: &[CommittedBatch], lists: &[Records], offsets: &[i64]) {
    let records: Vec<&Records> = batches.iter().map(|b| &b.records).collect();
    assert_eq!(records, lists.iter().collect::<Vec<_>>());
    assert_eq!(batches.iter().map(|b| b.last_offset).collect::<Vec<_>>(), offsets);
    for batch in batches {
        assert_eq!(batch.last_offset - batch.base_offset + 1, batch.records.len() as i64);
    }
}

/// A fresh quorum elects itself; each append resolves with a higher offset once committed; a
/// subscriber from 0 sees exactly the appended records, in order.
#[tokio::test]
async fn appends_commit_in_order_and_subscribers_see_them() {
    let dir = tempfile::tempdir().expect("tempdir");
    let quorum = open(dir.path()).await;
    assert!(quorum.is_leader());
    assert!(quorum.leader_epoch() >= 1);
    let lists = record_lists("first");
    let offsets = append_all(&quorum, &lists).await;
    assert!(quorum.high_watermark() > offsets[2]);
    let mut rx = quorum.subscribe(0);
    check_batches(&receive(&mut rx, lists.len()).await, &lists, &offsets);
    // A later commit reaches the same subscriber; one from the middle starts at its batch.
    let more = vec![vec![topic("later", 9)]];
    let more_offsets = append_all(&quorum, &more).await;
    check_batches(&receive(&mut rx, 1).await, &more, &more_offsets);
    let mut from_middle = quorum.subscribe(offsets[1]);
    check_batches(&receive(&mut from_middle, 1).await, &lists[1..2], &offsets[1..2]);
    bounded("shutdown", quorum.shutdown()).await.expect("shuts down");
    // The feed ends after a shutdown, once everything committed was sent.
    let rest: Vec<CommittedBatch> = bounded("feed end", async {
        let mut rest = Vec::new();
        while let Some(batch) = rx.recv().await {
            rest.push(batch);
        }
        rest
    })
    .await;
    assert!(rest.is_empty());
}

/// Appends that cannot be written fail before anything is proposed.
#[tokio::test]
async fn invalid_appends_are_refused() {
    let dir = tempfile::tempdir().expect("tempdir");
    let quorum = open(dir.path()).await;
    let high_watermark = quorum.high_watermark();
    assert!(matches!(quorum.append(Vec::new()).await, Err(QuorumError::EmptyAppend)));
    let (record, _) = topic("t", 1);
    assert!(matches!(
        quorum.append(vec![(record, 7)]).await,
        Err(QuorumError::UnsupportedRecordVersion { api_key: 2, version: 7 })
    ));
    assert_eq!(quorum.high_watermark(), high_watermark);
    bounded("shutdown", quorum.shutdown()).await.expect("shuts down");
}

/// After a clean restart the committed records are replayed from the log, the new leader epoch
/// is higher, and appends continue after the old ones.
#[tokio::test]
async fn restart_replays_the_log_and_continues() {
    let dir = tempfile::tempdir().expect("tempdir");
    let quorum = open(dir.path()).await;
    let first = record_lists("before");
    let first_offsets = append_all(&quorum, &first).await;
    let epoch = quorum.leader_epoch();
    bounded("shutdown", quorum.shutdown()).await.expect("shuts down");

    let quorum = open(dir.path()).await;
    assert!(quorum.leader_epoch() > epoch, "epoch {} after {epoch}", quorum.leader_epoch());
    assert!(quorum.high_watermark() > first_offsets[2]);
    let mut rx = quorum.subscribe(0);
    check_batches(&receive(&mut rx, first.len()).await, &first, &first_offsets);
    let second = record_lists("after");
    let second_offsets = append_all(&quorum, &second).await;
    assert!(second_offsets[0] > first_offsets[2]);
    let batches = receive(&mut rx, second.len()).await;
    check_batches(&batches, &second, &second_offsets);
    assert!(batches.iter().all(|b| b.epoch == quorum.leader_epoch()));
    bounded("shutdown", quorum.shutdown()).await.expect("shuts down");
}

/// A lone voter whose snapshots purge everything they hold.
async fn open_purging(dir: &Path, max_bytes_between: u64) -> Quorum {
    let snapshots = SnapshotSettings { max_bytes_between, interval_ms: 0, entries_kept: 0 };
    let config = QuorumConfig { snapshots, ..QuorumConfig::lone_voter(NODE_ID, CLUSTER_ID) };
    let open = Quorum::open(dir, config, Arc::new(LoneVoterTransport), Arc::new(SystemClock));
    bounded("open", open).await.expect("opens")
}

/// Consistent records (distinct topics, growing producer ids), `count` appends of them.
fn image_lists(prefix: &str, first_id: u8, count: u8) -> Vec<Records> {
    (0..count).map(|i| vec![topic(&format!("{prefix}-{i}"), first_id + i)]).collect()
}

/// Replays a feed into an image until it reaches `end` (a snapshot replaces the image), and
/// says whether a snapshot came first.
async fn feed_image(rx: &mut mpsc::Receiver<CommittedBatch>, end: i64) -> (MetadataImage, bool) {
    let mut image = MetadataImage::empty();
    let mut first_was_snapshot = None;
    while image.provenance().offset + 1 < end {
        let batch = bounded("feed", rx.recv()).await.expect("the feed is open");
        first_was_snapshot.get_or_insert(batch.snapshot);
        let empty = MetadataImage::empty();
        let mut delta = MetadataDelta::new(if batch.snapshot { &empty } else { &image });
        for (record, _) in &batch.records {
            delta.replay(record).expect("replays");
        }
        image = delta.apply(MetadataProvenance { offset: batch.last_offset, epoch: batch.epoch });
    }
    (image, first_was_snapshot.unwrap_or(false))
}

fn topic_names(image: &MetadataImage) -> Vec<String> {
    image.topics().names().keys().cloned().collect()
}

fn checkpoints(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .expect("lists")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .filter(|name| name.ends_with(".checkpoint"))
        .collect();
    names.sort();
    names
}

/// A snapshot holds the image as of the last applied entry, in a file named as Kafka names it;
/// the log is purged below it; a subscriber from 0 gets the snapshot first, then what came
/// after; a restart starts from the snapshot and goes on.
#[tokio::test]
async fn a_snapshot_replaces_the_log_before_it() {
    let dir = tempfile::tempdir().expect("tempdir");
    let quorum = open_purging(dir.path(), u64::MAX).await;
    let before = image_lists("before", 1, 5);
    append_all(&quorum, &before).await;
    let end = bounded("snapshot", quorum.snapshot(WAIT)).await.expect("snapshots");
    assert_eq!(end, quorum.high_watermark());
    assert_eq!(checkpoints(dir.path()), [format!("{end:020}-{:010}.checkpoint", quorum.leader_epoch())]);
    let start = bounded("purge", quorum.wait_for_log_start(end, WAIT)).await.expect("purges");
    assert_eq!(start, end, "the snapshot purges the log it holds");
    let after = image_lists("after", 10, 2);
    append_all(&quorum, &after).await;
    let expected: Vec<String> =
        (0..2).map(|i| format!("after-{i}")).chain((0..5).map(|i| format!("before-{i}"))).collect();

    let (image, from_snapshot) = feed_image(&mut quorum.subscribe(0), quorum.high_watermark()).await;
    assert!(from_snapshot, "a feed from 0 starts with the snapshot");
    assert_eq!(topic_names(&image), expected);
    let epoch = quorum.leader_epoch();
    bounded("shutdown", quorum.shutdown()).await.expect("shuts down");

    let quorum = open(dir.path()).await;
    assert!(quorum.leader_epoch() > epoch);
    assert_eq!(quorum.log_start_offset(), end, "a restart starts at the snapshot");
    let more = image_lists("more", 20, 1);
    append_all(&quorum, &more).await;
    let (image, from_snapshot) = feed_image(&mut quorum.subscribe(0), quorum.high_watermark()).await;
    assert!(from_snapshot);
    assert_eq!(topic_names(&image).len(), 8);
    assert!(topic_names(&image).contains(&"more-0".to_owned()));
    bounded("shutdown", quorum.shutdown()).await.expect("shuts down");
}

/// `metadata.log.max.record.bytes.between.snapshots`: once that many bytes of records are
/// committed, the voter snapshots by itself.
#[tokio::test]
async fn enough_committed_bytes_trigger_a_snapshot() {
    let dir = tempfile::tempdir().expect("tempdir");
    let quorum = open_purging(dir.path(), 200).await;
    append_all(&quorum, &image_lists("t", 1, 10)).await;
    let committed = quorum.high_watermark();
    // Ten topic records are well over 200 bytes: a snapshot follows without being asked for.
    let end = bounded("snapshot", quorum.wait_for_snapshot(1, WAIT)).await.expect("a snapshot");
    assert!(end > 0 && end <= committed, "snapshot to {end} of {committed}");
    assert_eq!(checkpoints(dir.path()).len(), 1);
    bounded("shutdown", quorum.shutdown()).await.expect("shuts down");
}

/// The batches of a segment file, each checked for a valid CRC.
fn segment_batches(dir: &Path) -> Vec<RecordBatch> {
    let bytes = Bytes::from(std::fs::read(dir.join(SEGMENT)).expect("segment"));
    let mut batches = RecordBatches::new(bytes);
    let all: Vec<RecordBatch> = batches.by_ref().collect::<Result<_, _>>().expect("valid batches");
    assert!(!batches.partial_tail());
    assert!(all.iter().all(RecordBatch::crc_is_valid));
    all
}

/// Reads a record value as Kafka's `MetadataRecordSerde` does (independently of the quorum's
/// own decoder): unsigned varints frame version 1, type, version, then the record.
fn decode_metadata_value(value: &[u8]) -> (MetadataRecord, i16) {
    let mut d = Decoder::new(Bytes::copy_from_slice(value));
    assert_eq!(d.unsigned_varint().expect("frame version"), 1);
    let api_key = i16::try_from(d.unsigned_varint().expect("type")).expect("fits");
    let version = i16::try_from(d.unsigned_varint().expect("version")).expect("fits");
    let record = MetadataRecord::decode(api_key, &mut d, version).expect("record");
    d.finish().expect("no trailing bytes");
    (record, version)
}

/// The control record types of a control batch, with the voters of its `VotersRecord`s.
fn control_records(batch: &RecordBatch) -> (Vec<ControlRecordType>, Vec<Vec<i32>>) {
    let records = batch.records().expect("records");
    let (mut types, mut voters) = (Vec::new(), Vec::new());
    for record in records.iter() {
        let record = record.expect("record");
        let record_type = ControlRecordType::decode_key(record.key().expect("key")).expect("control key");
        if record_type == ControlRecordType::KraftVoters {
            let value = Bytes::copy_from_slice(record.value().expect("value"));
            let voters_record = VotersRecord::decode_exact(value, 0).expect("voters record");
            voters.push(voters_record.voters.iter().map(|v| v.voter_id.0).collect());
        }
        types.push(record_type);
    }
    (types, voters)
}

/// The segment holds valid magic-2 batches, one per Raft entry with contiguous offsets: the
/// membership (`KRaftVersionRecord`, `VotersRecord`), a `LeaderChangeMessage` per election, and
/// data batches whose records decode back to what was appended; `quorum-state` names the epoch.
#[tokio::test]
async fn segment_holds_kafka_metadata_batches() {
    let dir = tempfile::tempdir().expect("tempdir");
    let quorum = open(dir.path()).await;
    let lists = record_lists("seg");
    let offsets = append_all(&quorum, &lists).await;
    let epoch = quorum.leader_epoch();
    bounded("shutdown", quorum.shutdown()).await.expect("shuts down");

    let batches = segment_batches(dir.path());
    let mut next_offset = 0;
    for batch in &batches {
        assert_eq!(batch.base_offset(), next_offset);
        next_offset = batch.next_offset();
    }
    let (first, second) = (&batches[0], &batches[1]);
    assert!(first.attributes().is_control() && second.attributes().is_control());
    assert_eq!(
        control_records(first),
        (vec![ControlRecordType::KraftVersion, ControlRecordType::KraftVoters], vec![vec![NODE_ID]])
    );
    assert_eq!(control_records(second).0, vec![ControlRecordType::LeaderChange]);
    assert_eq!((first.partition_leader_epoch(), second.partition_leader_epoch()), (0, epoch));
    let data: Vec<&RecordBatch> = batches.iter().filter(|b| !b.attributes().is_control()).collect();
    assert_eq!(data.len(), lists.len());
    for ((batch, list), offset) in data.iter().zip(&lists).zip(&offsets) {
        assert_eq!((batch.last_offset(), batch.partition_leader_epoch()), (*offset, epoch));
        assert_eq!(batch.producer_id().0, -1);
        let records = batch.records().expect("records");
        let decoded: Records = records
            .iter()
            .map(|r| {
                let record = r.expect("record");
                assert_eq!(record.key(), None);
                decode_metadata_value(record.value().expect("value"))
            })
            .collect();
        assert_eq!(&decoded, list);
    }
    let quorum_state = std::fs::read_to_string(dir.path().join("quorum-state")).expect("quorum-state");
    let expected = format!(r#"{{"leaderId":{NODE_ID},"leaderEpoch":{epoch},"votedId":{NODE_ID},"#);
    assert!(quorum_state.starts_with(&expected), "{quorum_state}");
    assert!(quorum_state.ends_with(r#""data_version":1}"#), "{quorum_state}");
}

/// Runs `work` on a runtime of its own in another thread, then drops that runtime with whatever
/// is still running on it: the quorum is never shut down, as in a `kill -9` (the page cache
/// survives, as it does a process kill).
fn run_then_crash<T: Send + 'static>(work: impl Future<Output = T> + Send + 'static) -> T {
    std::thread::spawn(move || {
        let runtime =
            tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().expect("runtime");
        let result = runtime.block_on(work);
        runtime.shutdown_background();
        result
    })
    .join()
    .expect("the crashing thread")
}

/// A crash (no shutdown) and even a torn write after it lose nothing an append acknowledged:
/// appends are synced before openraft may count them, and recovery cuts only the torn tail.
#[tokio::test]
async fn crash_loses_nothing_acknowledged() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().to_owned();
    let lists = record_lists("acked");
    let (work_lists, epoch_before) = (lists.clone(), Arc::new(std::sync::atomic::AtomicI32::new(0)));
    let epoch_seen = Arc::clone(&epoch_before);
    let offsets = run_then_crash(async move {
        let quorum = open(&path).await;
        let offsets = append_all(&quorum, &work_lists).await;
        epoch_seen.store(quorum.leader_epoch(), std::sync::atomic::Ordering::SeqCst);
        // Crash: no shutdown, nothing closed or flushed on the way out.
        std::mem::forget(quorum);
        offsets
    });
    // A write torn by the crash: half a batch header after the last acknowledged batch.
    let segment = dir.path().join(SEGMENT);
    let mut bytes = std::fs::read(&segment).expect("segment");
    let torn = bytes[..30].to_vec();
    bytes.extend_from_slice(&torn);
    std::fs::write(&segment, &bytes).expect("tears");

    let quorum = open(dir.path()).await;
    assert!(quorum.leader_epoch() > epoch_before.load(std::sync::atomic::Ordering::SeqCst));
    let mut rx = quorum.subscribe(0);
    check_batches(&receive(&mut rx, lists.len()).await, &lists, &offsets);
    let after = vec![vec![topic("after-crash", 7)]];
    let after_offsets = append_all(&quorum, &after).await;
    assert!(after_offsets[0] > offsets[2]);
    check_batches(&receive(&mut rx, 1).await, &after, &after_offsets);
    bounded("shutdown", quorum.shutdown()).await.expect("shuts down");
    segment_batches(dir.path());
}

/// A directory whose quorum has another voter is refused.
#[tokio::test]
async fn another_voters_directory_is_refused() {
    let dir = tempfile::tempdir().expect("tempdir");
    let quorum = open(dir.path()).await;
    bounded("shutdown", quorum.shutdown()).await.expect("shuts down");
    let result = bounded("open", open_as(dir.path(), 2)).await;
    assert!(matches!(
        result,
        Err(QuorumError::VotersMismatch { node_id: 2, ref configured, ref logged }) if configured == &[2] && logged == &[NODE_ID]
    ));
}
