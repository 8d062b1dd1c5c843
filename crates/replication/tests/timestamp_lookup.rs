//! ListOffsets by timestamp reads and decompresses a partition's batches without the partition's
//! lock (design §3's rule that no request holds a partition for work proportional to its data):
//! while a lookup is held where it decompresses (the `log::timestamp_scan` failpoint), an append
//! to the same partition completes; the lookup then answers what it would have answered alone.
//!
//! Its own test binary: the failpoint is process-wide.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Barrier, mpsc};
use std::time::Duration;

use bytes::BytesMut;
use strand_base::{SystemClock, TopicPartition, Uuid};
use strand_log::log::ValidatedBatch;
use strand_log::producer_state::{AppendContext, VerificationGuard};
use strand_log::{LogConfig, LogManager, NodeIdentity};
use strand_protocol::records::{Compression, NewRecord, RecordBatchBuilder};
use strand_replication::{Acks, ReplicaManager};

/// How long the test waits for something that should happen at once.
const EVENT_WAIT: Duration = Duration::from_secs(10);

/// A gzip batch of `count` records stamped `timestamp_ms`.
fn batch(timestamp_ms: i64, count: usize) -> ValidatedBatch {
    let mut builder = RecordBatchBuilder::new().compression(Compression::Gzip);
    for _ in 0..count {
        let record = NewRecord { timestamp_ms, key: None, value: Some(b"value"), headers: &[] };
        builder.append(&record).expect("record");
    }
    ValidatedBatch::validate(BytesMut::from(&builder.build().expect("batch")[..])).expect("valid")
}

fn manager(dir: &std::path::Path) -> ReplicaManager {
    let identity = NodeIdentity { cluster_id: "c".into(), node_id: 1 };
    let logs =
        LogManager::open(&[dir.to_owned()], &identity, LogConfig::default(), Arc::new(SystemClock)).expect("logs");
    ReplicaManager::new(logs, true)
}

fn client() -> AppendContext {
    AppendContext::client(VerificationGuard::SENTINEL)
}

/// A lookup by timestamp held inside its decompression does not hold the partition: an acks=1
/// append to it completes meanwhile, and the lookup, released, finds the first record at its
/// timestamp.
#[test]
fn an_append_completes_while_a_timestamp_lookup_decompresses() {
    let dir = tempfile::tempdir().expect("dir");
    let replicas = Arc::new(manager(dir.path()));
    let tp = TopicPartition::new("t", 0);
    replicas.ensure_partition(&tp, Uuid([1; 16]), LogConfig::default()).expect("host");
    for (timestamp, count) in [(10, 100), (20, 100), (30, 100)] {
        replicas.append(&tp, batch(timestamp, count), 0, Acks::Leader, client()).expect("append");
    }

    // The first lookup to reach the failpoint stops there until the test lets it go.
    let (reached, release) = (Arc::new(Barrier::new(2)), Arc::new(Barrier::new(2)));
    let fired = Arc::new(AtomicBool::new(false));
    let hold = (Arc::clone(&reached), Arc::clone(&release), Arc::clone(&fired));
    fail::cfg_callback("log::timestamp_scan", move || {
        if !hold.2.swap(true, Ordering::SeqCst) {
            hold.0.wait();
            hold.1.wait();
        }
    })
    .expect("failpoint");

    let lookup = std::thread::spawn({
        let (replicas, tp) = (Arc::clone(&replicas), tp.clone());
        move || replicas.offset_for_timestamp(&tp, 20).expect("lookup")
    });
    reached.wait();

    let (appended, append_done) = mpsc::channel();
    let append = std::thread::spawn({
        let (replicas, tp) = (Arc::clone(&replicas), tp.clone());
        move || {
            let result = replicas.append(&tp, batch(40, 1), 0, Acks::Leader, client()).map(|(info, _)| info);
            let _ = appended.send(());
            result
        }
    });
    let completed = append_done.recv_timeout(EVENT_WAIT).is_ok();
    fail::remove("log::timestamp_scan");
    release.wait();
    let found = lookup.join().expect("lookup thread");
    let info = append.join().expect("append thread").expect("appended");
    assert!(completed, "the append waited for the timestamp lookup to finish");
    assert_eq!(info.first_offset, 300);
    assert_eq!(found, Some((20, 100)), "the first record at timestamp 20");
}
