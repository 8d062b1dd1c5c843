//! A voter whose storage fails (Kafka halts on a failed metadata log): a failed sync of its log,
//! of a snapshot or of its `quorum-state` file stops it for good, with
//! [`Quorum::failed`] naming the directory and the error; nothing is acknowledged after the
//! failure, and a restart over the same directory recovers from what is on disk.
//!
//! The failures come from the `log::sync_metadata` failpoint (the `fail` crate, compiled into
//! tests only), which fails every sync of a file in a `__cluster_metadata-0` directory.
//! Failpoints are process-wide: the tests take turns ([`FAILPOINT`]). Waits have upper bounds
//! only ([`WAIT`]); nothing sleeps.

use std::future::Future;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use strand_base::{SystemClock, Uuid};
use strand_metadata::quorum::{
    CommittedBatch, LoneVoterTransport, Quorum, QuorumConfig, QuorumError, SnapshotSettings,
};
use strand_protocol::messages::TopicRecord;
use strand_protocol::messages::records::MetadataRecord;

const WAIT: Duration = Duration::from_secs(30);
const CLUSTER_ID: &str = "MkU3OEVBNTcwNTJENDM2Qg";
const FAILPOINT_NAME: &str = "log::sync_metadata";

/// One test at a time sets the failpoint.
static FAILPOINT: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

/// The failpoint fails every sync of the metadata log's files until dropped.
struct FailingSyncs;

impl FailingSyncs {
    fn start() -> FailingSyncs {
        fail::cfg(FAILPOINT_NAME, "return").expect("failpoint");
        FailingSyncs
    }
}

impl Drop for FailingSyncs {
    fn drop(&mut self) {
        fail::remove(FAILPOINT_NAME);
    }
}

async fn bounded<T>(what: &str, future: impl Future<Output = T>) -> T {
    tokio::time::timeout(WAIT, future).await.unwrap_or_else(|_| panic!("{what} took more than {WAIT:?}"))
}

/// The metadata log's directory under `root`, named as the node names it (the failpoint
/// recognises it by name).
fn metadata_dir(root: &Path) -> PathBuf {
    root.join("__cluster_metadata-0")
}

async fn open_with(dir: &Path, snapshots: SnapshotSettings) -> Result<Quorum, QuorumError> {
    let config = QuorumConfig { snapshots, ..QuorumConfig::lone_voter(1, CLUSTER_ID) };
    bounded("open", Quorum::open(dir, config, Arc::new(LoneVoterTransport), Arc::new(SystemClock))).await
}

async fn open(dir: &Path) -> Quorum {
    open_with(dir, SnapshotSettings::default()).await.expect("opens")
}

fn topic(name: &str, id: u8) -> Vec<(MetadataRecord, i16)> {
    let record = TopicRecord { name: name.into(), topic_id: Uuid([id; 16]), ..TopicRecord::default() };
    vec![(MetadataRecord::TopicRecord(record), 0)]
}

/// The names of the topics committed up to the high watermark, as a subscriber from 0 gets them.
async fn committed_topics(quorum: &Quorum) -> Vec<String> {
    let mut feed = quorum.subscribe(0);
    let mut names = Vec::new();
    let mut end = -1;
    while end + 1 < quorum.high_watermark() {
        let batch: CommittedBatch = bounded("a committed batch", feed.recv()).await.expect("the feed is open");
        end = batch.last_offset;
        for (record, _) in batch.records {
            if let MetadataRecord::TopicRecord(topic) = record {
                names.push(topic.name);
            }
        }
    }
    names
}

/// What [`Quorum::failed`] said: the directory and the reason.
async fn failure(quorum: &Quorum) -> (PathBuf, String) {
    match bounded("the failure", quorum.failed()).await {
        QuorumError::Failed { dir, reason } => (dir, reason),
        other => panic!("not a storage failure: {other}"),
    }
}

/// A failed sync of an append: the append is not acknowledged, the voter reports the failure
/// naming its directory and the error, refuses every later append, and a restart (no clean
/// shutdown: the node halts) recovers every acknowledged record and goes on.
#[tokio::test]
async fn a_failed_log_sync_stops_the_voter_and_a_restart_recovers() {
    let _turn = FAILPOINT.lock().await;
    let root = tempfile::tempdir().expect("tempdir");
    let dir = metadata_dir(root.path());
    let quorum = open(&dir).await;
    bounded("append", quorum.append(topic("before", 1))).await.expect("commits");
    let failing = FailingSyncs::start();
    let refused = bounded("the failing append", quorum.append(topic("failing", 2))).await;
    assert!(refused.is_err(), "a record whose sync failed was acknowledged at {refused:?}");
    let (failed_dir, reason) = failure(&quorum).await;
    assert_eq!(failed_dir, dir);
    assert!(reason.contains("injected fsync failure"), "{reason}");
    drop(failing);
    // The syncs work again, but the log's directory stays offline: nothing more is acknowledged.
    let later = bounded("a later append", quorum.append(topic("after-failure", 3))).await;
    assert!(later.is_err(), "acknowledged after the failure at {later:?}");
    drop(quorum);

    let quorum = open(&dir).await;
    let topics = committed_topics(&quorum).await;
    assert_eq!(topics.first().map(String::as_str), Some("before"), "{topics:?}");
    assert!(!topics.iter().any(|t| t == "after-failure"), "{topics:?}");
    bounded("append", quorum.append(topic("restarted", 4))).await.expect("commits after the restart");
    bounded("shutdown", quorum.shutdown()).await.expect("shuts down");
}

/// A snapshot whose file cannot be synced stops the voter too (openraft stops on it), and leaves
/// nothing the restart cannot start from: the half-written snapshot is not taken for one.
#[tokio::test]
async fn a_failed_snapshot_stops_the_voter_and_a_restart_recovers() {
    let _turn = FAILPOINT.lock().await;
    let root = tempfile::tempdir().expect("tempdir");
    let dir = metadata_dir(root.path());
    let snapshots = SnapshotSettings { max_bytes_between: u64::MAX, interval_ms: 0, entries_kept: 0 };
    let quorum = open_with(&dir, snapshots).await.expect("opens");
    bounded("append", quorum.append(topic("kept", 1))).await.expect("commits");
    let failing = FailingSyncs::start();
    let snapshot = quorum.snapshot(WAIT).await;
    assert!(snapshot.is_err(), "a snapshot whose sync failed: {snapshot:?}");
    let (failed_dir, reason) = failure(&quorum).await;
    assert_eq!(failed_dir, dir);
    assert!(reason.contains(".checkpoint") && reason.contains("injected fsync failure"), "{reason}");
    drop(failing);
    let later = bounded("a later append", quorum.append(topic("after-failure", 2))).await;
    assert!(later.is_err(), "acknowledged after the failure at {later:?}");
    drop(quorum);

    let quorum = open_with(&dir, snapshots).await.expect("opens after the failed snapshot");
    assert_eq!(committed_topics(&quorum).await, ["kept"]);
    bounded("shutdown", quorum.shutdown()).await.expect("shuts down");
}

/// A restart whose new vote cannot be saved (`quorum-state`) is refused with the error, and the
/// next start, with the disk healthy again, recovers.
#[tokio::test]
async fn a_failed_vote_refuses_the_start_and_the_next_start_recovers() {
    let _turn = FAILPOINT.lock().await;
    let root = tempfile::tempdir().expect("tempdir");
    let dir = metadata_dir(root.path());
    let quorum = open(&dir).await;
    bounded("append", quorum.append(topic("kept", 1))).await.expect("commits");
    bounded("shutdown", quorum.shutdown()).await.expect("shuts down");

    let failing = FailingSyncs::start();
    let refused = open_with(&dir, SnapshotSettings::default()).await;
    drop(failing);
    let error = refused.expect_err("a voter whose vote cannot be saved does not start").to_string();
    assert!(error.contains("quorum-state") || error.contains("injected fsync failure"), "{error}");

    let quorum = open(&dir).await;
    assert_eq!(committed_topics(&quorum).await, ["kept"]);
    bounded("shutdown", quorum.shutdown()).await.expect("shuts down");
}
