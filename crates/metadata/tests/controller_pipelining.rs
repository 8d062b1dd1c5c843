//! The active controller decides its next request while the previous one's records commit
//! (Kafka's controller does the same): the decision lock is not held through the metadata log's
//! fsync. A decision made on records not yet committed is answered only once they are; when
//! they fail, so does every decision made on them, and the next one starts from what was
//! committed. Driven through `QuorumController::handle` over an in-memory log whose commits
//! the test releases one batch at a time.

mod common;

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use common::{Cluster, topic};
use strand_base::{SystemClock, Uuid};
use strand_metadata::controller::{ApiMessageAndVersion, ControllerDefaults};
use strand_metadata::image::MetadataImage;
use strand_metadata::quorum::QuorumError;
use strand_metadata::quorum_controller::{
    BoxFuture, Committing, ControllerError, ControllerLog, ControllerSettings, QuorumController,
};
use strand_metadata::testkit::{CLUSTER_ID, committed};
use strand_protocol::error::ErrorCode;
use strand_protocol::messages::api::{RequestBody, ResponseBody};
use strand_protocol::messages::{CreateTopicsRequest, CreateTopicsResponse};
use tokio::sync::{oneshot, watch};
use tokio::task::JoinHandle;

type Outcome = Result<i64, QuorumError>;

/// A metadata log in memory that logs batches in the order they are handed to it and commits
/// them only when the test says so, oldest first, as a Raft leader does.
struct HeldLog {
    images: Mutex<watch::Sender<Arc<MetadataImage>>>,
    /// Batches handed over and not yet committed, oldest first.
    queue: Mutex<VecDeque<(Vec<ApiMessageAndVersion>, oneshot::Sender<Outcome>)>>,
    /// Batches handed over so far.
    handed: watch::Sender<usize>,
    epoch: Mutex<i32>,
}

impl HeldLog {
    /// Commits the oldest batch handed over.
    fn commit_oldest(&self) {
        let (records, answer) = self.queue.lock().expect("queue lock").pop_front().expect("a batch in flight");
        let images = self.images.lock().expect("image lock");
        let next = committed(&images.borrow(), &records);
        let offset = next.provenance().offset;
        images.send_replace(Arc::new(next));
        let _ = answer.send(Ok(offset));
    }

    /// The leadership is lost: every batch in flight fails, and a new leadership begins.
    fn lose_leadership(&self) {
        for (_, answer) in self.queue.lock().expect("queue lock").drain(..) {
            let _ = answer.send(Err(QuorumError::NotLeader { leader_id: None }));
        }
        *self.epoch.lock().expect("epoch lock") += 1;
    }

    async fn wait_until_handed(&self, count: usize) {
        let mut handed = self.handed.subscribe();
        let waited = tokio::time::timeout(Duration::from_secs(60), handed.wait_for(|n| *n >= count));
        waited.await.expect("handed to the log while the earlier batch was not committed").expect("log open");
    }

    fn image(&self) -> Arc<MetadataImage> {
        self.images.lock().expect("image lock").borrow().clone()
    }
}

impl ControllerLog for HeldLog {
    fn append(&self, records: Vec<ApiMessageAndVersion>) -> BoxFuture<'_, Result<i64, QuorumError>> {
        Box::pin(async move { self.submit(records).await?.await })
    }

    fn submit(&self, records: Vec<ApiMessageAndVersion>) -> BoxFuture<'_, Result<Committing, QuorumError>> {
        let (answer, committed) = oneshot::channel();
        self.queue.lock().expect("queue lock").push_back((records, answer));
        self.handed.send_modify(|n| *n += 1);
        Box::pin(async move {
            let committing: Committing =
                Box::pin(async move { committed.await.unwrap_or(Err(QuorumError::NotLeader { leader_id: None })) });
            Ok(committing)
        })
    }

    /// Caught up once nothing is in flight, as a Raft leader's log is once all it holds is applied.
    fn leader_caught_up(&self, _timeout: Duration) -> BoxFuture<'_, Result<i64, QuorumError>> {
        Box::pin(async move {
            assert!(
                self.queue.lock().expect("queue lock").is_empty(),
                "decided on the committed image while batches are in flight"
            );
            Ok(self.next_offset())
        })
    }

    fn is_leader(&self) -> bool {
        true
    }

    fn leader_epoch(&self) -> i32 {
        *self.epoch.lock().expect("epoch lock")
    }

    fn next_offset(&self) -> i64 {
        self.image().provenance().offset + 1
    }
}

/// The active controller over a [`HeldLog`] holding a cluster of one broker.
fn controller() -> (Arc<QuorumController>, Arc<HeldLog>) {
    let image = Cluster::with_brokers(&[1]).image;
    let (images, receiver) = watch::channel(Arc::new(image));
    let log = Arc::new(HeldLog {
        images: Mutex::new(images),
        queue: Mutex::new(VecDeque::new()),
        handed: watch::Sender::new(0),
        epoch: Mutex::new(1),
    });
    let settings = ControllerSettings {
        cluster_id: CLUSTER_ID.to_owned(),
        defaults: ControllerDefaults::default(),
        session_timeout_ms: 9_000,
        bootstrap: Vec::new(),
        unfence_on_registration: true,
        node_id: 1,
        voters: Vec::new(),
    };
    let next_id = std::sync::atomic::AtomicU64::new(1);
    let new_topic_id = Box::new(move || {
        let mut bytes = [0x22; 16];
        bytes[8..].copy_from_slice(&next_id.fetch_add(1, std::sync::atomic::Ordering::Relaxed).to_be_bytes());
        Uuid(bytes)
    });
    let controller = QuorumController::new(log.clone(), receiver, Arc::new(SystemClock), settings, new_topic_id);
    (Arc::new(controller), log)
}

/// Creates `name` (one partition) in a task of its own.
fn create(controller: &Arc<QuorumController>, name: &str) -> JoinHandle<Result<(ResponseBody, i64), ControllerError>> {
    let controller = controller.clone();
    let request = CreateTopicsRequest { topics: vec![topic(name, 1, 1)], ..Default::default() };
    tokio::spawn(async move { controller.handle(RequestBody::CreateTopics(request), 7).await })
}

fn created(answer: Result<(ResponseBody, i64), ControllerError>) -> (CreateTopicsResponse, i64) {
    match answer.expect("answered") {
        (ResponseBody::CreateTopics(response), offset) => (response, offset),
        (other, _) => panic!("not a CreateTopics response: {other:?}"),
    }
}

fn topic_names(image: &MetadataImage) -> Vec<String> {
    image.topics().names().keys().cloned().collect()
}

/// Two creations are both handed to the log before either commits, in the order decided, and
/// each is answered with its own batch's offset once that batch commits.
#[tokio::test]
async fn the_next_decision_is_made_while_the_previous_one_commits() {
    let (controller, log) = controller();
    let first = create(&controller, "first");
    log.wait_until_handed(1).await;
    let second = create(&controller, "second");
    log.wait_until_handed(2).await;
    assert!(!first.is_finished() && !second.is_finished(), "answered before their records committed");

    log.commit_oldest();
    let (response, first_offset) = created(first.await.expect("task"));
    assert_eq!(response.topics[0].error_code, 0);
    assert_eq!(topic_names(&log.image()), ["first"], "the batches are logged in the order decided");
    log.commit_oldest();
    let (response, second_offset) = created(second.await.expect("task"));
    assert_eq!(response.topics[0].error_code, 0);
    assert!(second_offset > first_offset);
    assert_eq!(second_offset, log.image().provenance().offset);
    assert_eq!(topic_names(&log.image()), ["first", "second"]);
}

/// A creation decided on a creation of the same name that has not committed is refused
/// (TOPIC_ALREADY_EXISTS) without writing, but the refusal waits for that creation to commit:
/// answered sooner, a client could see the topic refused and then not exist.
#[tokio::test(start_paused = true)]
async fn a_refusal_decided_on_uncommitted_records_waits_for_them() {
    let (controller, log) = controller();
    let first = create(&controller, "same");
    log.wait_until_handed(1).await;
    let mut again = create(&controller, "same");
    // The clock is paused: the runtime idles at once if the refusal waits, and the timeout fires.
    let early = tokio::time::timeout(Duration::from_secs(10), &mut again).await;
    assert!(early.is_err(), "the refusal was answered before the creation it depends on committed");
    assert_eq!(*log.handed.borrow(), 1, "a refusal writes nothing");

    log.commit_oldest();
    let (response, first_offset) = created(first.await.expect("task"));
    assert_eq!(response.topics[0].error_code, 0);
    let (response, offset) = created(again.await.expect("task"));
    assert_eq!(response.topics[0].error_code, ErrorCode::TopicAlreadyExists.code());
    assert_eq!(offset, first_offset, "the refusal depends on the creation's record");
}

/// When the leadership is lost with two batches in flight, the second decided on the first's
/// records, both fail; the next decision starts from what was committed.
#[tokio::test]
async fn decisions_made_on_a_failed_batch_fail_with_it() {
    let (controller, log) = controller();
    let first = create(&controller, "first");
    log.wait_until_handed(1).await;
    let second = create(&controller, "second");
    log.wait_until_handed(2).await;

    log.lose_leadership();
    for answer in [first.await.expect("task"), second.await.expect("task")] {
        assert!(matches!(answer, Err(ControllerError::NotController { .. })), "{answer:?}");
    }

    let third = create(&controller, "second");
    log.wait_until_handed(3).await;
    log.commit_oldest();
    let (response, _) = created(third.await.expect("task"));
    assert_eq!(response.topics[0].error_code, 0, "{:?}", response.topics[0].error_message);
    assert_eq!(topic_names(&log.image()), ["second"], "nothing of the failed batches");
}

/// Batches in flight are bounded: past the bound, the next decision waits for the oldest
/// batch to commit before it is handed over.
#[tokio::test(start_paused = true)]
async fn batches_in_flight_are_bounded() {
    const BOUND: usize = 64;
    let (controller, log) = controller();
    let mut creations = Vec::new();
    for i in 0..BOUND {
        creations.push(create(&controller, &format!("t{i}")));
        log.wait_until_handed(i + 1).await;
    }
    let past = create(&controller, "past");
    // The clock is paused: the runtime idles at once if the decision waits, and the timeout fires.
    let mut handed = log.handed.subscribe();
    let waited = tokio::time::timeout(Duration::from_secs(10), handed.wait_for(|n| *n > BOUND));
    assert!(waited.await.is_err(), "more than {BOUND} batches in flight");
    log.commit_oldest();
    log.wait_until_handed(BOUND + 1).await;
    for _ in 0..BOUND {
        log.commit_oldest();
    }
    for creation in creations.into_iter().chain([past]) {
        let (response, _) = created(creation.await.expect("task"));
        assert_eq!(response.topics[0].error_code, 0);
    }
    assert_eq!(log.image().topics().len(), BOUND + 1);
}
