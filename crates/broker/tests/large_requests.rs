//! A large request (a frame over 1 MiB that is neither a Produce nor a follower's Fetch) is
//! handled on a thread of lowered priority, so that the CPU it takes does not hold up other
//! clients' requests (issue 15, finding 2); a small one is handled at the caller's priority.
//! Observed where the handler reaches the controller: the controller channel records the nice
//! value of the thread that calls it.

mod common;

use std::sync::{Arc, Mutex};

use bytes::Bytes;
use strand_base::SystemClock;
use strand_base::background::BACKGROUND_NICENESS;
use strand_broker::{BoxFuture, Broker, BrokerIdentity, ControllerChannel, Outcome};
use strand_metadata::controller::authorization::Requester;
use strand_metadata::image::MetadataImage;
use strand_protocol::frame::encode_request;
use strand_protocol::messages::CreateTopicsRequest;
use strand_protocol::messages::api::{ApiKey, RequestBody};
use strand_protocol::messages::create_topics_request::CreatableTopic;
use tokio::sync::watch;

/// This thread's nice value (field 19 of `/proc/thread-self/stat`).
fn own_niceness() -> i32 {
    let stat = std::fs::read_to_string("/proc/thread-self/stat").expect("stat");
    let after_name = &stat[stat.rfind(')').expect("comm") + 2..];
    after_name.split(' ').nth(16).expect("nice field").parse().expect("a number")
}

/// A controller that answers nothing and remembers the nice value of each caller's thread.
#[derive(Debug, Default)]
struct Recording {
    callers: Mutex<Vec<i32>>,
}

impl ControllerChannel for Recording {
    fn call(&self, _: ApiKey, _: i16, _: Bytes, _: Option<Requester>) -> BoxFuture<'_, Result<(Bytes, i64), String>> {
        self.callers.lock().expect("callers").push(own_niceness());
        Box::pin(async { Err("no answer in this test".to_owned()) })
    }
}

fn broker(controller: Arc<Recording>) -> (Broker, tempfile::TempDir) {
    let dir = tempfile::tempdir().expect("temp dir");
    let (_, image) = watch::channel(Arc::new(MetadataImage::empty()));
    let identity = BrokerIdentity {
        node_id: common::NODE,
        cluster_id: common::CLUSTER_ID.into(),
        listener_name: common::LISTENER.into(),
        broker_epoch: 0,
    };
    let replicas = common::replica_manager(dir.path());
    let groups = common::group_coordinator();
    let clock = Arc::new(SystemClock);
    (Broker::new(identity, common::settings(), image, replicas, groups, controller, clock), dir)
}

/// A CreateTopics of `topics` names, as a request frame.
fn create_topics(topics: usize) -> Bytes {
    let topics = (0..topics).map(|i| CreatableTopic {
        name: format!("a-topic-with-a-long-name-{i:08}"),
        num_partitions: 1,
        replication_factor: 1,
        ..Default::default()
    });
    let request = CreateTopicsRequest { topics: topics.collect(), timeout_ms: 1_000, ..Default::default() };
    let frame = encode_request(1, Some("large"), &RequestBody::CreateTopics(request), 7).expect("encode");
    frame.slice(4..)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_large_request_is_handled_at_lowered_priority_and_a_small_one_is_not() {
    let controller = Arc::new(Recording::default());
    let (broker, _dir) = broker(controller.clone());
    let worker = own_niceness();
    let (small, large) = (create_topics(10), create_topics(40_000));
    assert!(small.len() < 1024 * 1024 && large.len() > 1024 * 1024, "{} / {} bytes", small.len(), large.len());
    for frame in [small, large] {
        let outcome = broker.handle(frame, &common::session()).await;
        assert!(matches!(outcome, Outcome::Respond(_)), "answered: {outcome:?}");
    }
    let callers = controller.callers.lock().expect("callers").clone();
    assert_eq!(callers, vec![worker, (worker + BACKGROUND_NICENESS).min(19)]);
    assert_eq!(own_niceness(), worker, "the worker's own priority is untouched");
}
