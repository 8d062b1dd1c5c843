//! The active controller under requests whose size a client picks: a request's entries that
//! write nothing are answered without the controller's one-decision-at-a-time lock (a flood of
//! unknown or repeated names is answered while another decision holds it), decisions are
//! O(n log n) in the request, and no decision writes more than Kafka's 10,000 records
//! (`MAX_RECORDS_PER_USER_OP`). Driven through `QuorumController::handle` over an in-memory log
//! whose appends can be held.

mod common;

use std::sync::Arc;
use std::sync::Mutex;
use std::time::Duration;

use common::{Cluster, topic};
use strand_base::{SystemClock, Uuid};
use strand_metadata::controller::{ApiMessageAndVersion, ControllerDefaults, RECORDS_PER_REQUEST_MAX, delete_topics};
use strand_metadata::image::MetadataImage;
use strand_metadata::quorum::QuorumError;
use strand_metadata::quorum_controller::{BoxFuture, ControllerLog, ControllerSettings, QuorumController};
use strand_metadata::testkit::{CLUSTER_ID, committed};
use strand_protocol::error::ErrorCode;
use strand_protocol::messages::api::{RequestBody, ResponseBody};
use strand_protocol::messages::create_topics_request::{CreatableTopic, CreatableTopicConfig};
use strand_protocol::messages::elect_leaders_request::TopicPartitions;
use strand_protocol::messages::records::MetadataRecord;
use strand_protocol::messages::{
    CreateTopicsRequest, CreateTopicsResponse, DeleteTopicsRequest, ElectLeadersRequest, PartitionChangeRecord,
    TopicRecord,
};
use tokio::sync::watch;

/// A metadata log in memory that commits and replays at once, except while `held`: appends then
/// wait (a decision that holds the controller's lock meanwhile).
struct HeldLog {
    images: Mutex<watch::Sender<Arc<MetadataImage>>>,
    held: watch::Sender<bool>,
    /// Appends begun, held or not.
    appends: watch::Sender<usize>,
    /// Each batch appended: its record count and the topics it creates.
    batches: Mutex<Vec<(usize, Vec<String>)>>,
}

impl HeldLog {
    fn apply(&self, records: &[ApiMessageAndVersion]) -> i64 {
        let images = self.images.lock().expect("image lock");
        let next = committed(&images.borrow(), records);
        let offset = next.provenance().offset;
        images.send_replace(Arc::new(next));
        offset
    }
}

impl ControllerLog for HeldLog {
    fn append(&self, records: Vec<ApiMessageAndVersion>) -> BoxFuture<'_, Result<i64, QuorumError>> {
        Box::pin(async move {
            self.appends.send_modify(|n| *n += 1);
            let mut held = self.held.subscribe();
            let _ = held.wait_for(|held| !held).await;
            let created = records
                .iter()
                .filter_map(|r| match &r.record {
                    MetadataRecord::TopicRecord(t) => Some(t.name.clone()),
                    _ => None,
                })
                .collect();
            self.batches.lock().expect("batches lock").push((records.len(), created));
            Ok(self.apply(&records))
        })
    }

    fn leader_caught_up(&self, _timeout: Duration) -> BoxFuture<'_, Result<i64, QuorumError>> {
        Box::pin(async move { Ok(self.next_offset()) })
    }

    fn is_leader(&self) -> bool {
        true
    }

    fn leader_epoch(&self) -> i32 {
        1
    }

    fn next_offset(&self) -> i64 {
        self.images.lock().expect("image lock").borrow().provenance().offset + 1
    }
}

/// The active controller over a [`HeldLog`] starting at `image`.
fn controller(image: MetadataImage) -> (Arc<QuorumController>, Arc<HeldLog>) {
    let next_id = std::sync::atomic::AtomicU64::new(1);
    let new_topic_id = Box::new(move || {
        let n = next_id.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let mut bytes = [0x11; 16];
        bytes[8..].copy_from_slice(&n.to_be_bytes());
        Uuid(bytes)
    });
    controller_with_ids(image, new_topic_id)
}

/// [`controller`] drawing topic ids from `new_topic_id`.
fn controller_with_ids(
    image: MetadataImage,
    new_topic_id: Box<dyn Fn() -> Uuid + Send + Sync>,
) -> (Arc<QuorumController>, Arc<HeldLog>) {
    let (images, receiver) = watch::channel(Arc::new(image));
    let log = Arc::new(HeldLog {
        images: Mutex::new(images),
        held: watch::Sender::new(false),
        appends: watch::Sender::new(0),
        batches: Mutex::new(Vec::new()),
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
    let controller = QuorumController::new(log.clone(), receiver, Arc::new(SystemClock), settings, new_topic_id);
    (Arc::new(controller), log)
}

/// A cluster of one broker with topic `existing`.
fn base() -> MetadataImage {
    let mut cluster = Cluster::with_brokers(&[1]);
    cluster.create_topic("existing", 1, 1);
    cluster.image
}

async fn handle(controller: &QuorumController, request: RequestBody) -> ResponseBody {
    let version = match request {
        RequestBody::DeleteTopics(_) => 6,
        _ => 7,
    };
    // The clock is paused: if the request waits on the held lock, the runtime idles and the
    // timeout fires at once.
    let handled = tokio::time::timeout(Duration::from_secs(60), controller.handle(request, version)).await;
    handled.expect("answered without waiting for the decision that holds the controller").expect("handled").0
}

/// `count` names, every one of them twice, none of them a topic.
fn repeated_unknown_names(count: usize) -> Vec<String> {
    (0..count).map(|i| format!("unknown-{}", i / 2)).collect()
}

/// While a CreateTopics holds the controller (its records not yet committed), a DeleteTopics of
/// 100,000 repeated unknown names and a CreateTopics of 100,000 repeated and invalid names are
/// answered, with Kafka's codes: they write nothing, so they never wait for the lock.
#[tokio::test(start_paused = true)]
async fn a_flood_of_names_is_answered_while_a_decision_holds_the_controller() {
    let (controller, log) = controller(base());
    log.held.send_replace(true);
    let holder = {
        let controller = controller.clone();
        let request = CreateTopicsRequest { topics: vec![topic("held", 1, 1)], ..Default::default() };
        tokio::spawn(async move { controller.handle(RequestBody::CreateTopics(request), 7).await })
    };
    let _ = log.appends.subscribe().wait_for(|n| *n == 1).await;

    let names = repeated_unknown_names(100_000);
    let delete = DeleteTopicsRequest { topic_names: names.clone(), ..Default::default() };
    let ResponseBody::DeleteTopics(deleted) = handle(&controller, RequestBody::DeleteTopics(delete)).await else {
        panic!("not a DeleteTopics response");
    };
    assert_eq!(deleted.responses.len(), 50_000);
    assert!(deleted.responses.iter().all(|r| r.error_code == ErrorCode::InvalidRequest.code()), "each name repeated");

    let unique: Vec<String> = (0..100_000).map(|i| format!("unknown-{i}")).collect();
    let delete = DeleteTopicsRequest { topic_names: unique, ..Default::default() };
    let ResponseBody::DeleteTopics(deleted) = handle(&controller, RequestBody::DeleteTopics(delete)).await else {
        panic!("not a DeleteTopics response");
    };
    assert_eq!(deleted.responses.len(), 100_000);
    assert!(deleted.responses.iter().all(|r| r.error_code == ErrorCode::UnknownTopicOrPartition.code()));

    // No partitions asked for: below Kafka's bound on partitions per request, which would fail
    // the request whole.
    let mut topics: Vec<CreatableTopic> = names.iter().map(|n| topic(n, 0, 1)).collect();
    topics.extend((0..50_000).map(|i| topic(&format!("bad name {i}"), 0, 1)));
    let create = CreateTopicsRequest { topics, ..Default::default() };
    let ResponseBody::CreateTopics(created) = handle(&controller, RequestBody::CreateTopics(create)).await else {
        panic!("not a CreateTopics response");
    };
    assert_eq!(created.topics.len(), 100_000);
    let codes = |code: ErrorCode| created.topics.iter().filter(|t| t.error_code == code.code()).count();
    assert_eq!(codes(ErrorCode::InvalidRequest), 50_000, "each repeated name once");
    assert_eq!(codes(ErrorCode::InvalidTopicException), 50_000);

    log.held.send_replace(false);
    let (response, _) = holder.await.expect("holder task").expect("holder handled");
    let ResponseBody::CreateTopics(held) = response else { panic!("not a CreateTopics response") };
    assert_eq!(held.topics[0].error_code, 0, "{:?}", held.topics[0].error_message);
}

/// A decision made off the lock on an image that moves before the lock is taken is made again
/// for its successful entries only, on the new image; the answers merge back in request order.
#[tokio::test(start_paused = true)]
async fn entries_are_decided_again_when_the_image_moves() {
    let (controller, log) = controller(base());
    log.held.send_replace(true);
    let first = {
        let controller = controller.clone();
        let request = CreateTopicsRequest { topics: vec![topic("a", 1, 1)], ..Default::default() };
        tokio::spawn(async move { controller.handle(RequestBody::CreateTopics(request), 7).await })
    };
    let _ = log.appends.subscribe().wait_for(|n| *n == 1).await;
    let second = {
        let controller = controller.clone();
        let topics = vec![topic("b", 1, 1), topic("a", 1, 1), topic("bad name", 1, 1), topic("existing", 1, 1)];
        let request = CreateTopicsRequest { topics, ..Default::default() };
        tokio::spawn(async move { controller.handle(RequestBody::CreateTopics(request), 7).await })
    };
    tokio::task::yield_now().await;
    log.held.send_replace(false);
    first.await.expect("first task").expect("first handled");
    let (response, _) = second.await.expect("second task").expect("second handled");
    let ResponseBody::CreateTopics(response) = response else { panic!("not a CreateTopics response") };
    assert_eq!(
        codes(&response),
        [
            ("b", ErrorCode::None),
            ("a", ErrorCode::TopicAlreadyExists),
            ("bad name", ErrorCode::InvalidTopicException),
            ("existing", ErrorCode::TopicAlreadyExists),
        ]
        .map(|(n, c)| (n.to_owned(), c.code()))
    );
    assert_eq!(*log.appends.borrow(), 2, "one batch each");
}

/// A CreateTopics of 1,200 topics (2,400 records) is committed in chunks of whole topics of at
/// most 500 records, the controller's lock released between them (issue 15, finding 2: one
/// commit of 2,000 records held it 30-40 ms): a CreateTopics sent while the first chunk is being
/// committed is committed before the last chunk.
#[tokio::test(start_paused = true)]
async fn a_large_creation_is_committed_in_chunks_that_let_other_decisions_in() {
    let (controller, log) = controller(base());
    log.held.send_replace(true);
    let big = {
        let controller = controller.clone();
        let topics = (0..1_200).map(|i| topic(&format!("big-{i:04}"), 1, 1)).collect();
        let request = CreateTopicsRequest { topics, ..Default::default() };
        tokio::spawn(async move { controller.handle(RequestBody::CreateTopics(request), 7).await })
    };
    let _ = log.appends.subscribe().wait_for(|n| *n == 1).await;
    let small = {
        let controller = controller.clone();
        let request = CreateTopicsRequest { topics: vec![topic("small", 1, 1)], ..Default::default() };
        tokio::spawn(async move { controller.handle(RequestBody::CreateTopics(request), 7).await })
    };
    tokio::task::yield_now().await;
    log.held.send_replace(false);
    let (response, _) = big.await.expect("big task").expect("big handled");
    let ResponseBody::CreateTopics(response) = response else { panic!("not a CreateTopics response") };
    assert_eq!(response.topics.len(), 1_200);
    assert!(response.topics.iter().all(|t| t.error_code == 0), "every topic created");
    assert!(response.topics.iter().enumerate().all(|(i, t)| t.name == format!("big-{i:04}")), "request order");
    let (response, _) = small.await.expect("small task").expect("small handled");
    let ResponseBody::CreateTopics(response) = response else { panic!("not a CreateTopics response") };
    assert_eq!(response.topics[0].error_code, 0);

    let batches = log.batches.lock().expect("batches lock").clone();
    assert!(
        batches.iter().all(|(records, _)| *records <= 500),
        "{:?}",
        batches.iter().map(|b| b.0).collect::<Vec<_>>()
    );
    let created: usize = batches.iter().map(|(_, topics)| topics.len()).sum();
    assert_eq!(created, 1_201);
    let small_at = batches.iter().position(|(_, topics)| topics == &["small"]).expect("small's own batch");
    assert!(small_at < batches.len() - 1, "committed after the large creation's last chunk");
}

/// Large requests are decided off the lock one at a time, as Kafka's controller decides on one
/// thread: two clients sending large CreateTopics back to back kept both cores of a two-core
/// machine deciding. The first decision is held inside it (in
/// drawing its topic id) while the second is given a second to start (it started at once
/// before); then nothing is held any more.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn large_decisions_run_one_at_a_time() {
    use std::sync::atomic::{AtomicUsize, Ordering};
    let deciding = Arc::new(AtomicUsize::new(0));
    let most = Arc::new(AtomicUsize::new(0));
    let (entered_tx, mut entered) = tokio::sync::mpsc::unbounded_channel();
    let (release, release_rx) = std::sync::mpsc::channel::<()>();
    // Each draw waits until `release` is dropped.
    let release_rx = Mutex::new(release_rx);
    let next = std::sync::atomic::AtomicU8::new(1);
    let new_topic_id = {
        let (deciding, most) = (deciding.clone(), most.clone());
        Box::new(move || {
            let now = deciding.fetch_add(1, Ordering::SeqCst) + 1;
            most.fetch_max(now, Ordering::SeqCst);
            let _ = entered_tx.send(());
            let _ = release_rx.lock().map(|r| r.recv());
            deciding.fetch_sub(1, Ordering::SeqCst);
            Uuid([next.fetch_add(1, Ordering::SeqCst); 16])
        })
    };
    let (controller, _log) = controller_with_ids(base(), new_topic_id);
    let tasks: Vec<_> = ["wide-a", "wide-b"]
        .into_iter()
        .map(|name| {
            let controller = controller.clone();
            let request = CreateTopicsRequest { topics: vec![topic(name, 2_000, 1)], ..Default::default() };
            tokio::spawn(async move { controller.handle(RequestBody::CreateTopics(request), 7).await })
        })
        .collect();
    entered.recv().await.expect("the first decision started");
    let _ = tokio::time::timeout(Duration::from_secs(1), entered.recv()).await;
    // From here on no decision is held (each request is decided more than once: whole, then its
    // chunk).
    drop(release);
    for task in tasks {
        let (response, _) = task.await.expect("task").expect("handled");
        let ResponseBody::CreateTopics(response) = response else { panic!("not a CreateTopics response") };
        assert_eq!(response.topics[0].error_code, 0, "{:?}", response.topics[0].error_message);
    }
    assert_eq!(most.load(Ordering::SeqCst), 1, "two large decisions ran at once");
}

fn codes(response: &CreateTopicsResponse) -> Vec<(String, i16)> {
    response.topics.iter().map(|t| (t.name.clone(), t.error_code)).collect()
}

/// A CreateTopics whose records would pass 10,000 (5,000 topics with a config each: 15,000) is
/// refused whole with POLICY_VIOLATION, as Kafka's controller refuses an excessively large batch,
/// and writes nothing.
#[tokio::test(start_paused = true)]
async fn a_decision_past_the_record_bound_is_refused_whole() {
    let (controller, log) = controller(base());
    let topics = (0..5_000)
        .map(|i| CreatableTopic {
            configs: vec![CreatableTopicConfig {
                name: "retention.ms".to_owned(),
                value: Some("1000".to_owned()),
                ..Default::default()
            }],
            ..topic(&format!("t{i}"), 1, 1)
        })
        .collect();
    let request = CreateTopicsRequest { topics, ..Default::default() };
    let ResponseBody::CreateTopics(response) = handle(&controller, RequestBody::CreateTopics(request)).await else {
        panic!("not a CreateTopics response");
    };
    assert!(response.topics.iter().all(|t| t.error_code == ErrorCode::PolicyViolation.code()));
    assert_eq!(*log.appends.borrow(), 0, "nothing written");
}

/// DeleteTopics of 10,001 topics deletes the first 10,000 (one batch's worth) and fails the last
/// with UNKNOWN_SERVER_ERROR, as Kafka's bounded record list does.
/// A request's decision cost counts the partitions it places, not only its topics: ten topics of
/// 1,000 partitions each (a refused decision of 10,010 records, sent back to back) were decided
/// inline on an async worker, and other clients' Metadata p50 went from 0.05 to 3.7 ms.
#[test]
fn a_topic_counts_its_partitions_in_the_decision_cost() {
    use strand_metadata::controller::screening::entries;
    let topic = |name: &str, num_partitions: i32| CreatableTopic {
        name: name.into(),
        num_partitions,
        replication_factor: 1,
        ..Default::default()
    };
    let request = |topics: Vec<CreatableTopic>| {
        RequestBody::CreateTopics(CreateTopicsRequest { topics, timeout_ms: 1_000, ..Default::default() })
    };
    let ten_wide: Vec<CreatableTopic> = (0..10).map(|i| topic(&format!("t{i}"), 1_000)).collect();
    assert!(entries(&request(ten_wide)) >= 10_000);
    assert_eq!(entries(&request(vec![topic("default", -1)])), 1);
    let bounded = entries(&request(vec![topic("huge", i32::MAX)]));
    assert!(bounded <= 10_001, "{bounded}: counted past the partitions a request may create");
}

#[test]
fn delete_topics_deletes_at_most_one_batch() {
    let mut cluster = Cluster::with_brokers(&[1]);
    let records: Vec<ApiMessageAndVersion> = (0..=RECORDS_PER_REQUEST_MAX)
        .map(|i| {
            let mut id = [0x44; 16];
            id[8..].copy_from_slice(&(i as u64).to_be_bytes());
            let record = TopicRecord { name: format!("t{i}"), topic_id: Uuid(id), ..Default::default() };
            ApiMessageAndVersion::latest(MetadataRecord::TopicRecord(record))
        })
        .collect();
    cluster.apply(&records);
    let names = (0..=RECORDS_PER_REQUEST_MAX).map(|i| format!("t{i}")).collect();
    let result = delete_topics(&cluster.image, &DeleteTopicsRequest { topic_names: names, ..Default::default() });
    assert_eq!(result.records.len(), RECORDS_PER_REQUEST_MAX);
    let failed: Vec<_> = result
        .response
        .responses
        .iter()
        .filter(|r| r.error_code != 0)
        .map(|r| (r.name.clone(), r.error_code))
        .collect();
    assert_eq!(failed, [(Some(format!("t{RECORDS_PER_REQUEST_MAX}")), ErrorCode::UnknownServerError.code())]);
}

/// The image's index of names by collision spelling follows creations and deletions: `a_b`
/// collides with `a.b` while it exists, and is free once it is deleted.
#[test]
fn collisions_follow_the_image() {
    let mut cluster = Cluster::with_brokers(&[1]);
    cluster.create_topic("a.b", 1, 1);
    let request = CreateTopicsRequest { topics: vec![topic("a_b", 1, 1)], ..Default::default() };
    let create = |cluster: &mut Cluster| {
        let image = cluster.image.clone();
        strand_metadata::controller::create_topics(
            &image,
            &request,
            &ControllerDefaults::default(),
            &mut cluster.topic_ids(),
        )
    };
    assert_eq!(create(&mut cluster).response.topics[0].error_code, ErrorCode::InvalidTopicException.code());
    let deletion = delete_topics(
        &cluster.image,
        &DeleteTopicsRequest { topic_names: vec!["a.b".to_owned()], ..Default::default() },
    );
    cluster.apply(&deletion.records);
    let created = create(&mut cluster);
    assert_eq!(created.response.topics[0].error_code, 0);
    cluster.apply(&created.records);
    assert_eq!(cluster.image.topics().colliding_name("a.b"), Some("a_b"));
    assert_eq!(cluster.image.topics().colliding_name("a_b"), None);
}

/// Brokers 1 and 2; `t-0` in sync on both but led by the replica that is not its preferred one.
fn preferred_leader_elsewhere() -> MetadataImage {
    let mut cluster = Cluster::with_brokers(&[1, 2]);
    let topic_id = cluster.create_topic("t", 1, 2);
    let partition = cluster.image.topics().by_name("t").and_then(|t| t.partitions.get(&0).cloned()).expect("t-0");
    let change =
        PartitionChangeRecord { topic_id, partition_id: 0, leader: partition.replicas[1], ..Default::default() };
    cluster.apply(&[ApiMessageAndVersion::latest(MetadataRecord::PartitionChangeRecord(change))]);
    cluster.image
}

fn elect_leaders(partitions: Option<&[i32]>) -> RequestBody {
    let topic_partitions = partitions
        .map(|ids| vec![TopicPartitions { topic: "t".to_owned(), partitions: ids.to_vec(), ..Default::default() }]);
    RequestBody::ElectLeaders(ElectLeadersRequest { topic_partitions, ..Default::default() })
}

/// An election for every partition (a null list) reports only the partitions that needed one, as
/// Kafka's: a partition it found needing one that a concurrent election then took care of (the
/// image moved before it had the lock) is left out, not reported ELECTION_NOT_NEEDED.
#[tokio::test(start_paused = true)]
async fn an_election_for_every_partition_leaves_out_what_a_concurrent_one_did() {
    let (controller, log) = controller(preferred_leader_elsewhere());
    log.held.send_replace(true);
    let named = {
        let controller = controller.clone();
        tokio::spawn(async move { controller.handle(elect_leaders(Some(&[0])), 2).await })
    };
    let _ = log.appends.subscribe().wait_for(|n| *n == 1).await;
    let all = {
        let controller = controller.clone();
        tokio::spawn(async move { controller.handle(elect_leaders(None), 2).await })
    };
    tokio::task::yield_now().await;
    log.held.send_replace(false);
    let results = |handled: Result<(ResponseBody, i64), _>| {
        let Ok((ResponseBody::ElectLeaders(response), _)) = handled else { panic!("not an ElectLeaders response") };
        let topics = response.replica_election_results.into_iter();
        topics.map(|t| (t.topic, t.partition_result.iter().map(|p| (p.partition_id, p.error_code)).collect())).collect()
    };
    let named: Vec<(String, Vec<(i32, i16)>)> = results(named.await.expect("named task"));
    assert_eq!(named, [("t".to_owned(), vec![(0, 0)])]);
    let all: Vec<(String, Vec<(i32, i16)>)> = results(all.await.expect("all task"));
    assert_eq!(all, [("t".to_owned(), vec![])], "t-0 needed no election by the time the lock was held");
    assert_eq!(*log.appends.borrow(), 1, "one election");
}
