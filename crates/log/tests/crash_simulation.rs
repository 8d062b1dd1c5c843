//! Simulated power cuts keep only what was synced (the disk of `crash_sim`: every sync the log
//! makes passes one door in `strand_log::file` and is watched), and the log keeps its promise
//! across them (design §6; the model in `crash_sim::model`): every record a flush acknowledged
//! survives, nothing else is invented, and an idempotent producer's retry of a batch the log
//! holds stays a duplicate.
//!
//! The property test draws runs of appends (some idempotent), flushes (with and without the
//! log's lock), a follower's truncations, retention's deletions (the log start offset moved),
//! producer-state snapshots, the log manager's checkpoints, new leader epochs, clean restarts,
//! and power cuts between them or inside one, right after any of its syncs (a flush, a
//! truncation, a clean shutdown cut short: `model::Op::CrashDuring`); the run goes on from what
//! each recovery left. Its case count keeps CI fast: `PROPTEST_CASES` raises it,
//! `PROPTEST_RNG_SEED` draws other runs.
//!
//! And the tests notice each missing sync: with only the segments' data syncs dropped, or only
//! the partition directory's, or only the log dir's, or only the recovery-point or leader-epoch
//! checkpoint's (its staged file's `fsync` before the rename), or with every sync skipped by the
//! `log::sync_skipped` failpoint, the same property fails. (Without the indexes' syncs it fails
//! too, a torn index below the recovery point trusted, but even with power cuts inside
//! operations in about one run in seven hundred: too rare for CI. A producer snapshot's is not
//! needed for it: recovery drops a torn snapshot and reads an older one.)
//!
//! A new partition's directory, `partition.metadata` and leader-epoch checkpoint are written
//! without syncing a directory (a CreateTopics of thousands of partitions would otherwise pay two
//! or three directory syncs each): its first flush syncs them, so they survive a power cut once
//! it returned, and a power cut before leaves nothing the node cannot start from.

mod crash_sim;

use std::path::Path;
use std::sync::{Arc, Mutex};

use bytes::BytesMut;
use crash_sim::model::{self, Op, in_partition};
use crash_sim::{Disk, Dropped, Rng, keep_all, serial, watch};
use proptest::prelude::*;
use proptest::test_runner::{RngSeed, TestCaseError, TestError, TestRunner};
use strand_base::SystemClock;
use strand_log::Log;
use strand_log::file::SyncKind;
use strand_log::log::{LogCheckpoints, ValidatedBatch};
use strand_log::producer_state::{AppendContext, VerificationGuard};
use strand_protocol::records::{NewRecord, RecordBatchBuilder, RecordBatches};

/// The property's cases unless `PROPTEST_CASES` says otherwise: sized for CI (a few seconds in
/// debug).
const CASES: u32 = 256;

/// The config of a run: `CASES` cases (or `PROPTEST_CASES`), a fixed seed (or
/// `PROPTEST_RNG_SEED`), shrinking bounded in time.
fn proptest_config() -> ProptestConfig {
    let default = ProptestConfig::default();
    let cases = if std::env::var_os("PROPTEST_CASES").is_some() { default.cases } else { CASES };
    let rng_seed =
        if std::env::var_os("PROPTEST_RNG_SEED").is_some() { default.rng_seed } else { RngSeed::Fixed(0x000c_7a54) };
    ProptestConfig { cases, rng_seed, max_shrink_time: 10_000, ..default }
}

proptest! {
    #![proptest_config(proptest_config())]

    /// Every acknowledged record survives power cuts anywhere in a run; nothing else is invented.
    #[test]
    fn power_cuts_keep_every_acknowledged_record(ops in model::ops()) {
        let _serial = serial();
        model::run(&ops, keep_all).map_err(TestCaseError::fail)?;
    }
}

/// Runs the property with the syncs `dropped` selects ignored by the disk (as if never made),
/// and returns the smallest run it found failing; panics if every run kept the promise.
fn fails_without(dropped: Dropped, what: &str) -> String {
    let _serial = serial();
    fails_without_serial(dropped, what)
}

/// [`fails_without`], [`serial`] already taken.
fn fails_without_serial(dropped: Dropped, what: &str) -> String {
    // Not shrunk: that a run fails is the point, and CI time is short.
    let config = ProptestConfig { failure_persistence: None, max_shrink_iters: 0, ..proptest_config() };
    let result = TestRunner::new(config).run(&model::ops(), |ops| {
        model::run(&ops, dropped).map_err(TestCaseError::fail)?;
        Ok(())
    });
    match result {
        Err(TestError::Fail(reason, ops)) => format!("{reason} in a run of {} operations", ops.len()),
        other => panic!("every run kept the promise without {what}: {other:?}"),
    }
}

fn is_segment_log(path: &Path) -> bool {
    path.extension().is_some_and(|e| e == "log")
}

/// Without the `fdatasync` of segments' `.log` files, acknowledged records are lost.
#[test]
fn without_the_segments_data_syncs_acknowledged_records_are_lost() {
    fails_without(|path, kind| kind == SyncKind::Data && is_segment_log(path), "the segments' data syncs");
}

/// Without the partition directory's `fsync` (a new segment's entry), acknowledged records in a
/// new segment are lost.
#[test]
fn without_the_partition_directory_sync_acknowledged_records_are_lost() {
    let dropped: Dropped = |path, kind| kind == SyncKind::Directory && path.ends_with("t-0");
    fails_without(dropped, "the partition directory's syncs");
}

/// Without the log dir's `fsync` (the partition directory's entry, the checkpoints' renames), a
/// new partition's acknowledged records are lost.
#[test]
fn without_the_log_dir_sync_acknowledged_records_are_lost() {
    fails_without(|path, kind| kind == SyncKind::Directory && !in_partition(path), "the log dir's syncs");
}

/// Without the `fsync` of a checkpoint's staged file before it is renamed over the old one, a
/// power cut can leave a torn `recovery-point-offset-checkpoint`.
#[test]
fn without_a_checkpoints_sync_before_its_rename_the_node_cannot_start() {
    let dropped: Dropped =
        |path, kind| kind == SyncKind::Replacement && path.ends_with("recovery-point-offset-checkpoint.tmp");
    fails_without(dropped, "the checkpoint's sync before its rename");
}

/// Without the `fsync` of the leader-epoch checkpoint's staged file before its rename, a power
/// cut can leave it torn, and the log dir cannot be loaded.
#[test]
fn without_the_epoch_checkpoints_sync_before_its_rename_the_log_dir_cannot_be_loaded() {
    let dropped: Dropped = |path, kind| kind == SyncKind::Replacement && path.ends_with("leader-epoch-checkpoint.tmp");
    fails_without(dropped, "the epoch checkpoint's sync before its rename");
}

/// With every sync skipped while claiming success (the `log::sync_skipped` failpoint, at the
/// one door every sync passes), the property fails.
#[test]
fn with_every_sync_skipped_acknowledged_records_are_lost() {
    let _serial = serial();
    let scenario = fail::FailScenario::setup();
    fail::cfg("log::sync_skipped", "return").expect("failpoint");
    let failed = std::panic::catch_unwind(|| fails_without_serial(keep_all, "any sync"));
    fail::remove("log::sync_skipped");
    scenario.teardown();
    if let Err(panic) = failed {
        std::panic::resume_unwind(panic);
    }
}

fn config() -> strand_log::LogConfig {
    model::config()
}

fn batch(values: &[String]) -> ValidatedBatch {
    let mut builder = RecordBatchBuilder::new();
    for value in values {
        builder
            .append(&NewRecord { timestamp_ms: 1_000, key: None, value: Some(value.as_bytes()), headers: &[] })
            .expect("record");
    }
    ValidatedBatch::validate(BytesMut::from(&builder.build().expect("batch")[..])).expect("valid")
}

/// A partition created by the log manager, its leader epoch 3 assigned (the checkpoint written)
/// and one batch of that epoch appended; if `flush`, flushed, then epoch 4 assigned, a batch of
/// it appended and flushed. Then a power cut: the log dir as the disk kept it, in a new
/// directory.
fn new_partition_then_crash(seed: u64, flush: bool) -> tempfile::TempDir {
    let mut rng = Rng::new(seed);
    let root = crash_sim::tempdir();
    let disk = Arc::new(Mutex::new(Disk::durable(root.path(), keep_all)));
    watch(&disk);
    let identity = strand_log::NodeIdentity { cluster_id: "c".into(), node_id: 1 };
    let dirs = [root.path().to_owned()];
    let mut logs = strand_log::LogManager::open(&dirs, &identity, config(), Arc::new(SystemClock)).expect("open");
    let tp = strand_base::TopicPartition::new("t", 0);
    let log = logs.get_or_create(&tp, strand_base::Uuid([7; 16]), config()).expect("create");
    {
        let mut log = log.lock().expect("log");
        log.maybe_assign_epoch_start_offset(3, 0).expect("epoch");
        let context = AppendContext::client(VerificationGuard::SENTINEL);
        log.append_as_leader(batch(&[format!("seed {seed}")]), 3, context).expect("append");
        if flush {
            let end = log.log_end_offset();
            log.flush_to(end).expect("flush");
            // A new leader epoch after the directory was synced: its checkpoint replaces the
            // file, and only the next flush makes the new one durable.
            log.maybe_assign_epoch_start_offset(4, end).expect("epoch");
            let context = AppendContext::client(VerificationGuard::SENTINEL);
            log.append_as_leader(batch(&[format!("seed {seed} again")]), 4, context).expect("append");
            let end = log.log_end_offset();
            log.flush_to(end).expect("flush");
        }
    }
    strand_log::file::watch_syncs(None);
    let image = crash_sim::tempdir();
    disk.lock().expect("disk").crash_image(root.path(), image.path(), &mut rng);
    image
}

/// The values of the log recovered from `dir` after a crash, in offset order.
fn recovered_values(dir: &Path) -> Vec<String> {
    let checkpoints = LogCheckpoints { recovery_point: 0, log_start_offset: 0, clean_shutdown: false };
    let log = Log::open(dir, config(), checkpoints, Arc::new(SystemClock)).expect("recovery");
    let slice = log.read(0, u64::MAX, None).expect("read").expect("a segment");
    let mut values = Vec::new();
    for batch in RecordBatches::new(slice.read().expect("read")) {
        for record in batch.expect("batch").records().expect("records").iter() {
            values.push(String::from_utf8_lossy(record.expect("record").value().unwrap_or_default()).into_owned());
        }
    }
    values
}

/// Once a new partition's first flush returned, its directory, `partition.metadata`, leader-epoch
/// checkpoint and acknowledged batch survive a power cut, though none of them was synced on its
/// own when written.
#[test]
fn a_new_partitions_files_survive_its_first_flush() {
    let _serial = serial();
    for seed in 0..8 {
        let image = new_partition_then_crash(seed, true);
        let dir = image.path().join("t-0");
        let metadata = strand_log::dir::PartitionMetadata::read(&dir).expect("read");
        assert_eq!(metadata.map(|m| m.topic_id), Some(strand_base::Uuid([7; 16])), "seed {seed}: partition.metadata");
        let epochs = strand_log::epoch_cache::LeaderEpochCache::open(&dir).expect("epochs");
        assert_eq!(epochs.latest_epoch(), Some(4), "seed {seed}: leader-epoch-checkpoint");
        assert_eq!(recovered_values(&dir), [format!("seed {seed}"), format!("seed {seed} again")], "seed {seed}");
    }
}

/// A power cut after a partition was created but before its first flush may take its directory
/// or files with it (nothing in them was acknowledged), and the node still starts from what is
/// left.
#[test]
fn a_new_partition_cut_before_its_first_flush_leaves_a_startable_dir() {
    let _serial = serial();
    for seed in 0..8 {
        let image = new_partition_then_crash(seed, false);
        let identity = strand_log::NodeIdentity { cluster_id: "c".into(), node_id: 1 };
        let dirs = [image.path().to_owned()];
        let logs = strand_log::LogManager::open(&dirs, &identity, config(), Arc::new(SystemClock));
        let logs = logs.unwrap_or_else(|e| panic!("seed {seed}: the node cannot start: {e}"));
        assert!(logs.offline_dirs().is_empty(), "seed {seed}: the log dir went offline");
    }
}

/// A short run that crashes twice, as a readable example of the property (and a quick check
/// that the model itself is sound: it fails on nothing here).
#[test]
fn a_run_goes_on_across_two_power_cuts() {
    let _serial = serial();
    let append = |records| Op::Append { records, pad: 100, idempotent: true };
    let ops = [
        append(3),
        append(4),
        Op::Flush { unlocked: false },
        append(2),
        Op::Crash { seed: 1 },
        append(3),
        Op::Snapshot,
        append(4),
        Op::Flush { unlocked: true },
        Op::Checkpoint,
        Op::Truncate { back: 2 },
        append(1),
        Op::Flush { unlocked: false },
        Op::Crash { seed: 2 },
        Op::DeleteBefore { forward: 5 },
        Op::Restart,
    ];
    if let Err(e) = model::run(&ops, keep_all) {
        panic!("{e}");
    }
}

/// Runs that lost or invented records before the log's fixes, each the smallest the property
/// test found (or one written for it): a follower's truncation and a recovery's cut are made
/// durable at once, a producer snapshot only after the records below it (and recovery drops
/// those past a lost tail, durably), a log whose records a power cut took past its checkpointed
/// start starts over there, and an index older than its log is rebuilt.
#[test]
fn runs_that_once_broke_the_promise_keep_it() {
    let _serial = serial();
    let a = |records, pad| Op::Append { records, pad, idempotent: false };
    let i = |records, pad| Op::Append { records, pad, idempotent: true };
    let flush = Op::Flush { unlocked: false };
    let cut = |op, after, seed| Op::CrashDuring { op: Box::new(op), after, seed };
    let runs: [(&str, Vec<Op>); 8] = [
        (
            // The segments above a truncation came back (their deletion not synced), ending the
            // log below records acknowledged since.
            "deleted segments came back",
            vec![a(4, 79), a(4, 79), a(4, 79), a(4, 79), flush.clone(), Op::Truncate { back: 11 }]
                .into_iter()
                .chain(std::iter::repeat_n(a(4, 0), 6))
                .chain([flush.clone()])
                .collect(),
        ),
        (
            // The segment a truncation cut short came back whole (the cut not synced, the
            // segment rolled at the cut so no flush synced it), overlapping the next segment.
            "a truncated tail came back",
            vec![
                a(2, 8),
                a(1, 47),
                a(3, 39),
                a(2, 40),
                a(1, 46),
                a(1, 68),
                Op::Restart,
                a(4, 1),
                Op::DeleteBefore { forward: 6 },
                a(1, 0),
                a(1, 0),
                Op::Truncate { back: 9 },
                a(4, 44),
                flush.clone(),
            ],
        ),
        (
            // The epoch checkpoint's directory sync made a new segment durable while the cut of
            // the one before it was not: both came back, overlapping, and a clean restart
            // served the old records at offsets appended again.
            "a truncated tail overlapped a new segment",
            vec![
                a(4, 0),
                a(3, 0),
                a(2, 0),
                a(1, 0),
                a(1, 0),
                flush.clone(),
                Op::Truncate { back: 5 },
                a(4, 52),
                a(1, 2),
                a(4, 27),
                Op::DeleteBefore { forward: 1 },
                Op::Crash { seed: 0 },
                a(1, 0),
                Op::Restart,
            ],
        ),
        (
            // A power cut took the only record, past the checkpointed log start offset 1: the
            // log restarted at 0, and the next recovery hid the record acknowledged there.
            "offsets below the log start offset reused",
            vec![
                a(1, 0),
                Op::DeleteBefore { forward: 1 },
                Op::Checkpoint,
                Op::Crash { seed: 0 },
                a(1, 0),
                flush.clone(),
            ],
        ),
        (
            // A producer snapshot written at a roll after a truncation was durable before the
            // records below it: recovery loaded it over older records, and a retry of a batch
            // the recovered log holds was appended again.
            "a snapshot of records the power cut took",
            vec![
                i(2, 70),
                a(3, 20),
                a(3, 17),
                Op::NewEpoch,
                i(4, 12),
                Op::Restart,
                flush.clone(),
                a(4, 6),
                a(3, 56),
                Op::Crash { seed: 4135924065018226188 },
                i(1, 7),
                flush.clone(),
                Op::NewEpoch,
                a(2, 17),
                i(3, 44),
                i(4, 52),
                Op::Truncate { back: 28 },
                i(3, 55),
                a(2, 15),
                Op::Crash { seed: 17889465907560244317 },
                Op::Truncate { back: 35 },
                i(3, 5),
                i(4, 11),
                a(1, 75),
                a(4, 52),
            ],
        ),
        (
            // A truncation's directory sync made a producer snapshot durable while the records
            // below it were not: a power cut took them but kept the snapshot and the segment
            // after them, and a retry of a lost batch was taken for a duplicate.
            "a snapshot past a lost tail",
            vec![
                a(1, 0),
                i(1, 0),
                i(2, 0),
                i(2, 0),
                i(4, 0),
                a(1, 0),
                i(1, 0),
                i(4, 0),
                i(4, 0),
                flush.clone(),
                Op::Checkpoint,
                a(1, 0),
                Op::Truncate { back: 16 },
                a(4, 47),
                flush.clone(),
                Op::Crash { seed: 0 },
                Op::Truncate { back: 0 },
            ],
        ),
        (
            // A truncation cut short (its segment's cut synced, not its directory) left a gap
            // before a later segment and its producer snapshot. Recovery deleted the snapshot
            // without syncing the directory; a clean shutdown, then a power cut, and the start
            // (trusting the clean shutdown, looking for no gap) loaded it again: a retry of a
            // batch the log holds was answered with the offset of one the truncation removed.
            "a snapshot past a gap came back after a clean shutdown",
            vec![
                i(1, 0),
                a(4, 79),
                a(4, 79),
                a(1, 0),
                flush.clone(),
                cut(Op::Truncate { back: 40 }, 1, 0),
                cut(Op::Restart, usize::MAX, 0),
            ],
        ),
        (
            // A truncation cut short after its segment's `.log` was synced, before its indexes:
            // the old offset index came back beside the cut log, and once records were appended
            // over the cut its last entry fell inside a batch. Loading the segment read a
            // header there, and the log dir could not be loaded.
            "an index older than its truncated log",
            vec![
                a(2, 20),
                a(2, 20),
                a(2, 20),
                flush.clone(),
                cut(Op::Truncate { back: 40 }, 1, 0),
                a(4, 0),
                a(4, 0),
                a(4, 0),
                Op::Crash { seed: 3 },
            ],
        ),
    ];
    let broken: Vec<String> =
        runs.iter().filter_map(|(name, ops)| model::run(ops, keep_all).err().map(|e| format!("{name}: {e}"))).collect();
    assert!(broken.is_empty(), "{broken:#?}");
}
