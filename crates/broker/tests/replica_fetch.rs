//! The Fetch and Produce handlers of a leader in a cluster: a Fetch from a broker (replica id in
//! `replica_state`, v15+) is a follower's (it reads past the high watermark, moves it, is checked
//! for its leader and broker epochs, and gets diverging epochs); an `acks=all` Produce is answered
//! only once the follower has fetched past it, or REQUEST_TIMED_OUT.
//!
//! The broker here leads `orders-0` (replicas 1 and 2, both in sync) in an image replayed from
//! records, over a cluster-mode replica manager; "broker 2" is the test sending Fetch requests.

mod common;

use common::NoController;

use std::sync::Arc;

use bytes::{Bytes, BytesMut};
use strand_base::{BrokerId, SystemClock, TopicPartition, Uuid};
use strand_broker::{Broker, BrokerIdentity, handlers};
use strand_log::LogConfig;
use strand_metadata::image::{MetadataDelta, MetadataImage, MetadataProvenance};
use strand_protocol::error::ErrorCode;
use strand_protocol::messages::fetch_request::{FetchPartition, FetchTopic, ReplicaState};
use strand_protocol::messages::fetch_response::PartitionData;
use strand_protocol::messages::produce_request::{PartitionProduceData, TopicProduceData};
use strand_protocol::messages::produce_response::PartitionProduceResponse;
use strand_protocol::messages::records::MetadataRecord;
use strand_protocol::messages::{FetchRequest, PartitionRecord, ProduceRequest, TopicRecord};
use strand_protocol::records::{NewRecord, RecordBatchBuilder};
use strand_replication::{BrokerStatus, PartitionState, REPLICA_FETCH_VERSION, ReplicaManager};
use tokio::sync::watch;

const TOPIC_ID: Uuid = Uuid([7; 16]);

struct Leader {
    broker: Broker,
    replicas: Arc<ReplicaManager>,
    _dir: tempfile::TempDir,
    _images: watch::Sender<Arc<MetadataImage>>,
}

fn tp() -> TopicPartition {
    TopicPartition::new("orders", 0)
}

/// Broker 1 leading `orders-0` with replicas and ISR [1, 2]; brokers registered at epoch 5.
fn leader() -> Leader {
    let dir = tempfile::tempdir().expect("dir");
    let replicas = common::replica_manager(dir.path());
    let status = BrokerStatus { broker_epoch: 5, fenced: false, in_controlled_shutdown: false };
    replicas.set_broker_statuses([(BrokerId(1), status), (BrokerId(2), status)].into_iter().collect());
    replicas.apply_partition_state(&tp(), TOPIC_ID, common::log_config(), &led_by_1()).expect("lead");
    let (images, image) = watch::channel(Arc::new(image()));
    let groups = common::group_coordinator();
    let identity = BrokerIdentity {
        node_id: BrokerId(1),
        cluster_id: common::CLUSTER_ID.into(),
        listener_name: common::LISTENER.into(),
        broker_epoch: 5,
    };
    let broker = Broker::new(
        identity,
        common::settings(),
        image,
        replicas.clone(),
        groups,
        Arc::new(NoController),
        Arc::new(SystemClock),
    );
    Leader { broker, replicas, _dir: dir, _images: images }
}

/// A partition led by broker 1 at epoch 0, replicas and ISR [1, 2].
fn led_by_1() -> PartitionState {
    PartitionState {
        leader: BrokerId(1),
        leader_epoch: 0,
        partition_epoch: 0,
        replicas: vec![BrokerId(1), BrokerId(2)],
        isr: vec![BrokerId(1), BrokerId(2)],
        min_insync_replicas: 1,
        leader_recovery_state: 0,
    }
}

/// The image: topic `orders` with one partition led by broker 1, ISR [1, 2].
fn image() -> MetadataImage {
    let base = MetadataImage::empty();
    let mut delta = MetadataDelta::new(&base);
    let topic = TopicRecord { name: "orders".into(), topic_id: TOPIC_ID, ..Default::default() };
    let partition = PartitionRecord {
        partition_id: 0,
        topic_id: TOPIC_ID,
        replicas: vec![BrokerId(1), BrokerId(2)],
        isr: vec![1, 2],
        leader: BrokerId(1),
        leader_epoch: 0,
        partition_epoch: 0,
        ..Default::default()
    };
    delta.replay(&MetadataRecord::TopicRecord(topic)).expect("topic");
    delta.replay(&MetadataRecord::PartitionRecord(partition)).expect("partition");
    delta.apply(MetadataProvenance { offset: 2, epoch: 1 })
}

fn records(value: &str) -> Bytes {
    let mut builder = RecordBatchBuilder::new();
    builder
        .append(&NewRecord { timestamp_ms: 10, key: None, value: Some(value.as_bytes()), headers: &[] })
        .expect("record");
    Bytes::from(BytesMut::from(&builder.build().expect("batch")[..]))
}

async fn produce(broker: &Broker, acks: i16, timeout_ms: i32) -> PartitionProduceResponse {
    let response = handlers::produce::handle(broker, produce_request(acks, timeout_ms), 9, &common::session()).await;
    response.expect("answered").expect("a response").responses[0].partition_responses[0].clone()
}

/// One record for `orders-0`.
fn produce_request(acks: i16, timeout_ms: i32) -> ProduceRequest {
    ProduceRequest {
        acks,
        timeout_ms,
        topic_data: vec![TopicProduceData {
            name: "orders".into(),
            partition_data: vec![PartitionProduceData { index: 0, records: Some(records("v")), ..Default::default() }],
            ..Default::default()
        }],
        ..Default::default()
    }
}

/// A follower's fetch of `orders-0`, as broker 2 with broker epoch `broker_epoch`.
fn follower_fetch(
    fetch_offset: i64,
    last_fetched_epoch: i32,
    current_leader_epoch: i32,
    broker_epoch: i64,
) -> FetchRequest {
    FetchRequest {
        replica_state: ReplicaState { replica_id: BrokerId(2), replica_epoch: broker_epoch, ..Default::default() },
        max_wait_ms: 0,
        min_bytes: 1,
        max_bytes: 1 << 20,
        session_epoch: -1,
        topics: vec![FetchTopic {
            topic_id: TOPIC_ID,
            partitions: vec![FetchPartition {
                partition: 0,
                current_leader_epoch,
                fetch_offset,
                last_fetched_epoch,
                log_start_offset: 0,
                partition_max_bytes: 1 << 20,
                ..Default::default()
            }],
            ..Default::default()
        }],
        ..Default::default()
    }
}

async fn fetch(broker: &Broker, request: FetchRequest) -> PartitionData {
    let response = handlers::fetch::handle(broker, request, REPLICA_FETCH_VERSION, &common::session()).await;
    assert_eq!(response.error_code, 0);
    response.responses[0].partitions[0].clone()
}

/// A follower reads past the high watermark (a consumer could not), and its next fetch offset
/// moves the high watermark.
#[tokio::test]
async fn follower_fetch_reads_to_the_log_end_and_moves_the_high_watermark() {
    let leader = leader();
    assert_eq!(produce(&leader.broker, 1, 1000).await.error_code, 0);
    let first = fetch(&leader.broker, follower_fetch(0, -1, 0, 5)).await;
    assert_eq!((first.error_code, first.high_watermark), (0, 0));
    assert!(first.records.as_ref().is_some_and(|r| !r.is_empty()), "records past the high watermark");
    let next = fetch(&leader.broker, follower_fetch(1, 0, 0, 5)).await;
    assert_eq!((next.error_code, next.high_watermark), (0, 1));
    assert!(next.records.as_ref().is_none_or(|r| r.is_empty()));
    assert_eq!(leader.replicas.offsets(&tp()).expect("offsets").high_watermark, 1);
}

/// `acks=all` is answered once the follower has fetched past the batch; with no follower fetch
/// it times out with REQUEST_TIMED_OUT.
#[tokio::test]
async fn acks_all_waits_for_the_follower() {
    let leader = leader();
    let (produced, ()) = tokio::join!(produce(&leader.broker, -1, 10_000), async {
        let first = fetch(&leader.broker, follower_fetch(0, -1, 0, 5)).await;
        assert!(first.records.as_ref().is_some_and(|r| !r.is_empty()));
        fetch(&leader.broker, follower_fetch(1, 0, 0, 5)).await;
    });
    assert_eq!((produced.error_code, produced.base_offset), (0, 0));
    let timed_out = produce(&leader.broker, -1, 50).await;
    assert_eq!(timed_out.error_code, ErrorCode::RequestTimedOut.code());
}

/// A connection handles the next request while an acks=all produce waits (`produce::start`
/// hands the wait back). Each wait's timeout runs from its own append, not from when the
/// connection gets to it: two produces appended together and never replicated both time out
/// after one timeout, not one after the other.
#[tokio::test(start_paused = true)]
async fn a_pipelined_produce_times_out_from_its_append() {
    use handlers::produce::{Produced, start};
    let leader = leader();
    let appended = tokio::time::Instant::now();
    let mut waits = Vec::new();
    for _ in 0..2 {
        match start(&leader.broker, produce_request(-1, 200), 9, &common::session()).await.expect("appended") {
            Produced::Waiting(wait) => waits.push(wait),
            Produced::Done(answer) => panic!("acks=all with a follower waits: {answer:?}"),
        }
    }
    for wait in waits {
        let answer = wait.finish(&leader.broker).await;
        assert_eq!(answer.responses[0].partition_responses[0].error_code, ErrorCode::RequestTimedOut.code());
        assert_eq!(appended.elapsed(), std::time::Duration::from_millis(200), "one timeout from the appends");
    }
}

/// A follower whose metadata is ahead of the leader's (here: a topic the leader does not host
/// yet) is not answered UNKNOWN_TOPIC_ID at once, which would send it into its 1 s fetch backoff:
/// the fetch waits for the leader to catch up, and is then served. If the leader never does, the
/// error comes after the fetch's `max_wait_ms`.
#[tokio::test(start_paused = true)]
async fn a_follower_ahead_of_the_leaders_metadata_waits_for_it() {
    let leader = leader();
    const LATER: Uuid = Uuid([9; 16]);
    let later = TopicPartition::new("later", 0);
    let ahead = |max_wait_ms| {
        let mut request = follower_fetch(0, -1, 0, 5);
        request.max_wait_ms = max_wait_ms;
        request.topics[0].topic_id = LATER;
        request
    };
    let started = tokio::time::Instant::now();
    let (caught_up, ()) = tokio::join!(fetch(&leader.broker, ahead(500)), async {
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
        leader.replicas.apply_partition_state(&later, LATER, LogConfig::default(), &led_by_1()).expect("lead");
    });
    assert_eq!(caught_up.error_code, 0, "served once the leader hosts the partition");
    assert_eq!(started.elapsed(), std::time::Duration::from_millis(500), "an empty read waits out max_wait_ms");

    const NEVER: Uuid = Uuid([10; 16]);
    let mut unknown = ahead(300);
    unknown.topics[0].topic_id = NEVER;
    let started = tokio::time::Instant::now();
    let answered = fetch(&leader.broker, unknown).await;
    assert_eq!(answered.error_code, ErrorCode::UnknownTopicId.code());
    assert_eq!(started.elapsed(), std::time::Duration::from_millis(300), "the error after max_wait_ms");
}

/// The leader refuses a follower fetching at an older leader epoch (FENCED_LEADER_EPOCH, naming
/// itself as the current leader) or a newer one (UNKNOWN_LEADER_EPOCH), or with a broker epoch
/// older than its registration (NOT_LEADER_OR_FOLLOWER); a follower whose last epoch ended
/// earlier here gets a diverging epoch and no records.
#[tokio::test]
async fn follower_fetch_checks_and_divergence() {
    let leader = leader();
    assert_eq!(produce(&leader.broker, 1, 1000).await.error_code, 0);
    let unchecked = fetch(&leader.broker, follower_fetch(0, -1, -1, 5)).await;
    assert_eq!(unchecked.error_code, 0, "leader epoch -1 skips the check");
    let unknown = fetch(&leader.broker, follower_fetch(0, -1, 3, 5)).await;
    assert_eq!(unknown.error_code, ErrorCode::UnknownLeaderEpoch.code());
    let stale = fetch(&leader.broker, follower_fetch(0, -1, 0, 4)).await;
    assert_eq!(stale.error_code, ErrorCode::NotLeaderOrFollower.code());
    assert_eq!(stale.current_leader.leader_id, BrokerId(1));
    // The follower claims offsets 1..3 in epoch 0, which ended at 1 here.
    let diverging = fetch(&leader.broker, follower_fetch(3, 0, 0, 5)).await;
    assert_eq!((diverging.diverging_epoch.epoch, diverging.diverging_epoch.end_offset), (0, 1));
    assert!(diverging.records.as_ref().is_none_or(|r| r.is_empty()));
    let state = PartitionState { leader_epoch: 1, partition_epoch: 1, ..led_by_1() };
    leader.replicas.apply_partition_state(&tp(), TOPIC_ID, common::log_config(), &state).expect("new epoch");
    let fenced = fetch(&leader.broker, follower_fetch(1, 0, 0, 5)).await;
    assert_eq!(fenced.error_code, ErrorCode::FencedLeaderEpoch.code());
    assert_eq!((fenced.current_leader.leader_id, fenced.current_leader.leader_epoch), (BrokerId(1), 1));
}

/// A follower's fetch keeps KIP-74's limits too: the first partition with data returns its first
/// batch whole; a later one (here the same partition listed again) is cut at what is left of
/// `max_bytes`, not given a whole batch past it.
#[tokio::test]
async fn a_follower_fetch_stays_within_max_bytes_but_for_one_batch() {
    let leader = leader();
    assert_eq!(produce(&leader.broker, 1, 1000).await.error_code, 0);
    let batch = fetch(&leader.broker, follower_fetch(0, -1, 0, 5)).await.records.expect("records").len() as i32;
    let mut request = follower_fetch(0, -1, 0, 5);
    let twice = request.topics[0].partitions[0].clone();
    request.topics[0].partitions.push(twice);
    request.max_bytes = batch + 10;
    let response = handlers::fetch::handle(&leader.broker, request, REPLICA_FETCH_VERSION, &common::session()).await;
    let sizes: Vec<usize> =
        response.responses[0].partitions.iter().map(|p| p.records.as_ref().map_or(0, |r| r.len())).collect();
    assert_eq!(sizes, [batch as usize, 10], "the second read cut at the 10 bytes left");
}
