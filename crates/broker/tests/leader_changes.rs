//! What clients get when partition leadership moves, through `Broker::handle` on a cluster
//! member (its replica manager takes partition states from the image, as the server's replay
//! loop gives them):
//! - KIP-951: Produce v10+ and Fetch v16+ refused with NOT_LEADER_OR_FOLLOWER (Fetch also
//!   FENCED_LEADER_EPOCH) name the current leader and epoch and carry its endpoint on the client's
//!   listener; older versions carry neither;
//! - KIP-320: ListOffsets, Fetch and OffsetForLeaderEpoch check the caller's current leader epoch
//!   against this replica's (older FENCED_LEADER_EPOCH, newer UNKNOWN_LEADER_EPOCH), and a
//!   follower answers them NOT_LEADER_OR_FOLLOWER, but for a consumer's Fetch v11+ (KIP-392);
//! - KIP-207: a new leader whose high watermark is below the offset its epoch began at answers
//!   ListOffsets OFFSET_NOT_AVAILABLE for the latest offset (and lookups finding nothing committed)
//!   until a follower's fetch moves the high watermark there.
//!
//! Broker 1 (this node) and broker 2 are registered and unfenced, each with a PLAINTEXT endpoint
//! `host-<id>:9092`; `orders-0` has replicas [1, 2], both in sync, and is led by broker 1 at epoch
//! 0. Requests as "broker 2" are the test's.

mod common;

use common::Node;

use bytes::{Bytes, BytesMut};
use strand_base::{BrokerId, TopicPartition, Uuid};
use strand_metadata::controller::{ApiMessageAndVersion, InitialFencing};
use strand_protocol::error::ErrorCode;
use strand_protocol::messages::api::{RequestBody, ResponseBody};
use strand_protocol::messages::fetch_request::{FetchPartition, FetchTopic, ReplicaState};
use strand_protocol::messages::list_offsets_request::{ListOffsetsPartition, ListOffsetsTopic};
use strand_protocol::messages::offset_for_leader_epoch_request::{OffsetForLeaderPartition, OffsetForLeaderTopic};
use strand_protocol::messages::produce_request::{PartitionProduceData, TopicProduceData};
use strand_protocol::messages::records::MetadataRecord;
use strand_protocol::messages::{
    FenceBrokerRecord, FetchRequest, FetchResponse, ListOffsetsRequest, OffsetForLeaderEpochRequest,
    PartitionChangeRecord, PartitionRecord, ProduceRequest, ProduceResponse, TopicRecord,
};
use strand_protocol::records::{NewRecord, RecordBatchBuilder};

const TOPIC: &str = "orders";
const TOPIC_ID: Uuid = Uuid([9; 16]);
const ME: BrokerId = BrokerId(1);
const OTHER: BrokerId = BrokerId(2);

/// Broker 1 (the harness's node) with broker 2 registered and `orders-0` created.
struct Member {
    node: Node,
}

impl Member {
    fn new() -> Member {
        let node = Node::new();
        node.register(OTHER.0, InitialFencing::Unfenced);
        let topic = TopicRecord { name: TOPIC.into(), topic_id: TOPIC_ID, ..Default::default() };
        let partition = PartitionRecord {
            partition_id: 0,
            topic_id: TOPIC_ID,
            replicas: vec![ME, OTHER],
            isr: vec![ME.0, OTHER.0],
            leader: ME,
            leader_epoch: 0,
            partition_epoch: 0,
            ..Default::default()
        };
        let member = Member { node };
        member.apply(&[
            ApiMessageAndVersion::latest(MetadataRecord::TopicRecord(topic)),
            ApiMessageAndVersion::latest(MetadataRecord::PartitionRecord(partition)),
        ]);
        member
    }

    /// Replays `records` into the image and publishes it to this node's replicas, as the
    /// server's replay loop does.
    fn apply(&self, records: &[ApiMessageAndVersion]) {
        self.node.writer.apply(records);
    }

    /// Replays `records` into the image only: this node's replicas have not taken them yet.
    fn replay(&self, records: &[ApiMessageAndVersion]) {
        self.node.writer.replay_unpublished(records);
    }

    /// Moves `orders-0`'s leadership to `leader` (bumping its leader epoch).
    fn elect(&self, leader: BrokerId) {
        self.apply(&[change(leader)]);
    }

    fn broker_epoch(&self, id: BrokerId) -> i64 {
        self.node.broker.image().cluster().broker(id).expect("registered").epoch
    }

    async fn call(&mut self, body: RequestBody, version: i16) -> ResponseBody {
        self.node.call(body, version).await
    }

    async fn produce(&mut self, version: i16, timestamp_ms: i64) -> ProduceResponse {
        let request = ProduceRequest {
            acks: 1,
            timeout_ms: 1000,
            topic_data: vec![TopicProduceData {
                name: if version >= 13 { String::new() } else { TOPIC.into() },
                topic_id: if version >= 13 { TOPIC_ID } else { Uuid::ZERO },
                partition_data: vec![PartitionProduceData {
                    index: 0,
                    records: Some(records(timestamp_ms)),
                    ..Default::default()
                }],
                ..Default::default()
            }],
            ..Default::default()
        };
        let ResponseBody::Produce(response) = self.call(RequestBody::Produce(request), version).await else {
            panic!("not a Produce response");
        };
        response
    }

    /// A consumer's fetch of `orders-0` from offset 0 (v13+ by topic id).
    async fn fetch(&mut self, version: i16, current_leader_epoch: i32) -> FetchResponse {
        self.fetch_as(version, fetch_request(version, BrokerId(-1), -1, 0, -1, current_leader_epoch)).await
    }

    async fn fetch_as(&mut self, version: i16, request: FetchRequest) -> FetchResponse {
        let ResponseBody::Fetch(response) = self.call(RequestBody::Fetch(request), version).await else {
            panic!("not a Fetch response");
        };
        assert_eq!(response.error_code, 0);
        response
    }

    /// ListOffsets of `orders-0` at `timestamp`: (error, offset, leader epoch).
    async fn list_offsets(
        &mut self,
        version: i16,
        replica_id: i32,
        timestamp: i64,
        current_leader_epoch: i32,
    ) -> (ErrorCode, i64, i32) {
        let request = ListOffsetsRequest {
            replica_id: BrokerId(replica_id),
            topics: vec![ListOffsetsTopic {
                name: TOPIC.into(),
                partitions: vec![ListOffsetsPartition {
                    partition_index: 0,
                    current_leader_epoch,
                    timestamp,
                    ..Default::default()
                }],
                ..Default::default()
            }],
            ..Default::default()
        };
        let ResponseBody::ListOffsets(response) = self.call(RequestBody::ListOffsets(request), version).await else {
            panic!("not a ListOffsets response");
        };
        let p = &response.topics[0].partitions[0];
        (ErrorCode::from_code(p.error_code).expect("known code"), p.offset, p.leader_epoch)
    }

    /// OffsetForLeaderEpoch v4 of `orders-0`: (error, leader epoch, end offset).
    async fn end_offset(&mut self, current_leader_epoch: i32, leader_epoch: i32) -> (ErrorCode, i32, i64) {
        let request = OffsetForLeaderEpochRequest {
            replica_id: BrokerId(-1),
            topics: vec![OffsetForLeaderTopic {
                topic: TOPIC.into(),
                partitions: vec![OffsetForLeaderPartition {
                    partition: 0,
                    current_leader_epoch,
                    leader_epoch,
                    ..Default::default()
                }],
                ..Default::default()
            }],
            ..Default::default()
        };
        let ResponseBody::OffsetForLeaderEpoch(response) =
            self.call(RequestBody::OffsetForLeaderEpoch(request), 4).await
        else {
            panic!("not an OffsetForLeaderEpoch response");
        };
        let p = &response.topics[0].partitions[0];
        (ErrorCode::from_code(p.error_code).expect("known code"), p.leader_epoch, p.end_offset)
    }
}

/// A leader change of `orders-0` to `leader`.
fn change(leader: BrokerId) -> ApiMessageAndVersion {
    let change = PartitionChangeRecord { topic_id: TOPIC_ID, partition_id: 0, leader, ..Default::default() };
    ApiMessageAndVersion::latest(MetadataRecord::PartitionChangeRecord(change))
}

/// `orders-0` moved wholly to `leader`: this node no longer holds a replica.
fn move_to(leader: BrokerId) -> ApiMessageAndVersion {
    let change = PartitionChangeRecord {
        topic_id: TOPIC_ID,
        partition_id: 0,
        leader,
        replicas: Some(vec![leader]),
        isr: Some(vec![leader]),
        ..Default::default()
    };
    ApiMessageAndVersion::latest(MetadataRecord::PartitionChangeRecord(change))
}

fn records(timestamp_ms: i64) -> Bytes {
    let mut builder = RecordBatchBuilder::new();
    builder.append(&NewRecord { timestamp_ms, key: None, value: Some(b"v"), headers: &[] }).expect("record");
    Bytes::from(BytesMut::from(&builder.build().expect("batch")[..]))
}

/// A Fetch of `orders-0` (v13+ by topic id) by `replica` (-1: a consumer) at `broker_epoch`.
fn fetch_request(
    version: i16,
    replica: BrokerId,
    broker_epoch: i64,
    fetch_offset: i64,
    last_fetched_epoch: i32,
    current_leader_epoch: i32,
) -> FetchRequest {
    let by_id = version >= 13;
    FetchRequest {
        replica_id: if version < 15 { replica } else { BrokerId(-1) },
        replica_state: if version >= 15 {
            ReplicaState { replica_id: replica, replica_epoch: broker_epoch, ..Default::default() }
        } else {
            ReplicaState::default()
        },
        max_wait_ms: 0,
        min_bytes: 1,
        max_bytes: 1 << 20,
        session_epoch: -1,
        topics: vec![FetchTopic {
            topic: if by_id { String::new() } else { TOPIC.into() },
            topic_id: if by_id { TOPIC_ID } else { Uuid::ZERO },
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

fn code(error_code: i16) -> ErrorCode {
    ErrorCode::from_code(error_code).expect("known code")
}

/// Produce v12 and v13 to a follower: NOT_LEADER_OR_FOLLOWER naming broker 2 at epoch 1, with
/// broker 2's PLAINTEXT endpoint; v9 gets the error alone.
#[tokio::test]
async fn produce_to_a_follower_names_the_new_leader() {
    let mut member = Member::new();
    assert_eq!(member.produce(12, 10).await.responses[0].partition_responses[0].error_code, 0);
    member.elect(OTHER);
    for version in [12, 13] {
        let response = member.produce(version, 20).await;
        let p = &response.responses[0].partition_responses[0];
        assert_eq!(code(p.error_code), ErrorCode::NotLeaderOrFollower, "v{version}");
        assert_eq!((p.current_leader.leader_id, p.current_leader.leader_epoch), (OTHER, 1), "v{version}");
        assert_eq!(response.node_endpoints.len(), 1, "v{version}");
        let endpoint = &response.node_endpoints[0];
        assert_eq!((endpoint.node_id, endpoint.host.as_str(), endpoint.port), (OTHER, "host-2", 9092));
        assert_eq!(endpoint.rack, common::registration(OTHER.0).rack, "the rack as registered");
    }
    let old = member.produce(9, 20).await;
    let p = &old.responses[0].partition_responses[0];
    assert_eq!(code(p.error_code), ErrorCode::NotLeaderOrFollower);
    assert_eq!((p.current_leader.leader_id, p.current_leader.leader_epoch), (BrokerId(-1), -1));
    assert!(old.node_endpoints.is_empty());
}

/// KIP-951's endpoints are on the listener the client came through (Kafka's
/// `getAliveBrokerNode(id, request.context.listenerName)`): a client on a listener the new leader
/// does not have is told who leads but given no endpoint, never another listener's address.
#[tokio::test]
async fn leader_endpoints_are_on_the_clients_listener() {
    let mut member = Member::new();
    member.elect(OTHER);
    let request = ProduceRequest {
        acks: 1,
        timeout_ms: 1000,
        topic_data: vec![TopicProduceData {
            name: TOPIC.into(),
            partition_data: vec![PartitionProduceData { index: 0, records: Some(records(20)), ..Default::default() }],
            ..Default::default()
        }],
        ..Default::default()
    };
    let external = strand_security::Session { listener: "EXTERNAL".to_owned(), ..common::session() };
    let ResponseBody::Produce(response) = member.node.call_as(&external, RequestBody::Produce(request), 12).await
    else {
        panic!("not a Produce response");
    };
    let p = &response.responses[0].partition_responses[0];
    assert_eq!(code(p.error_code), ErrorCode::NotLeaderOrFollower);
    assert_eq!((p.current_leader.leader_id, p.current_leader.leader_epoch), (OTHER, 1));
    assert!(response.node_endpoints.is_empty(), "{:?}", response.node_endpoints);
}

/// A consumer's Fetch v17 from a broker that no longer holds a replica: NOT_LEADER_OR_FOLLOWER
/// with the new leader and its endpoint; v15 (before KIP-951's endpoints) gets the error alone.
#[tokio::test]
async fn fetch_from_a_former_replica_names_the_new_leader() {
    let mut member = Member::new();
    member.apply(&[move_to(OTHER)]);
    let response = member.fetch(17, -1).await;
    let p = &response.responses[0].partitions[0];
    assert_eq!(code(p.error_code), ErrorCode::NotLeaderOrFollower);
    assert_eq!((p.current_leader.leader_id, p.current_leader.leader_epoch), (OTHER, 1));
    let endpoints: Vec<_> =
        response.node_endpoints.iter().map(|e| (e.node_id, e.host.as_str(), e.port, e.rack.clone())).collect();
    assert_eq!(endpoints, [(OTHER, "host-2", 9092, common::registration(OTHER.0).rack)]);
    let old = member.fetch(15, -1).await;
    let p = &old.responses[0].partitions[0];
    assert_eq!(code(p.error_code), ErrorCode::NotLeaderOrFollower);
    assert_eq!((p.current_leader.leader_id, p.current_leader.leader_epoch), (BrokerId(-1), -1));
    assert!(old.node_endpoints.is_empty());
}

/// KIP-392, as Kafka's `FetchParams.fetchOnlyLeader`: a follower serves a consumer's Fetch from
/// v11 on (the version with client metadata), whatever `replica.selector.class`; before v11 it
/// answers NOT_LEADER_OR_FOLLOWER. ListOffsets stays with the leader (below).
#[tokio::test]
async fn a_follower_serves_consumer_fetches_from_v11() {
    let mut member = Member::new();
    member.elect(OTHER);
    for version in [11, 12, 17] {
        let served = member.fetch(version, -1).await;
        let p = &served.responses[0].partitions[0];
        assert_eq!(p.error_code, 0, "v{version}");
        assert_eq!(p.preferred_read_replica, BrokerId(-1), "v{version}: a follower names none");
    }
    let old = member.fetch(10, -1).await;
    assert_eq!(code(old.responses[0].partitions[0].error_code), ErrorCode::NotLeaderOrFollower);
}

/// A consumer fetching at an older leader epoch is fenced (with this leader named, KIP-951), at a
/// newer one told the epoch is unknown (no hint: the client is ahead); -1 is unchecked.
#[tokio::test]
async fn fetch_checks_the_current_leader_epoch() {
    let mut member = Member::new();
    member.elect(ME);
    let fenced = member.fetch(17, 0).await;
    let p = &fenced.responses[0].partitions[0];
    assert_eq!(code(p.error_code), ErrorCode::FencedLeaderEpoch);
    assert_eq!((p.current_leader.leader_id, p.current_leader.leader_epoch), (ME, 1));
    assert_eq!(
        fenced.node_endpoints.iter().map(|e| (e.node_id, e.host.as_str())).collect::<Vec<_>>(),
        [(ME, "host-1")]
    );
    let unknown = member.fetch(17, 2).await;
    let p = &unknown.responses[0].partitions[0];
    assert_eq!(code(p.error_code), ErrorCode::UnknownLeaderEpoch);
    assert_eq!(p.current_leader.leader_id, BrokerId(-1));
    assert!(unknown.node_endpoints.is_empty());
    for epoch in [-1, 1] {
        let served = member.fetch(17, epoch).await;
        assert_eq!(served.responses[0].partitions[0].error_code, 0, "current leader epoch {epoch}");
    }
    let old = member.fetch(11, 0).await;
    assert_eq!(code(old.responses[0].partitions[0].error_code), ErrorCode::FencedLeaderEpoch);
    assert_eq!(old.responses[0].partitions[0].current_leader.leader_id, BrokerId(-1));
}

/// A follower's Fetch v17 (as a broker) refused for an old leader epoch names the leader and
/// carries its endpoint as a consumer's does.
#[tokio::test]
async fn replica_fetch_refusals_carry_the_leader_endpoint() {
    let mut member = Member::new();
    member.elect(ME);
    let epoch = member.broker_epoch(OTHER);
    let response = member.fetch_as(17, fetch_request(17, OTHER, epoch, 0, -1, 0)).await;
    let p = &response.responses[0].partitions[0];
    assert_eq!(code(p.error_code), ErrorCode::FencedLeaderEpoch);
    assert_eq!((p.current_leader.leader_id, p.current_leader.leader_epoch), (ME, 1));
    assert_eq!(response.node_endpoints.iter().map(|e| e.node_id).collect::<Vec<_>>(), [ME]);
}

/// The hint is the newest leadership known: the image's when this node's replica has not taken it
/// yet; a fenced leader is named but has no endpoint to give.
#[tokio::test]
async fn hints_follow_the_newest_leadership_and_skip_fenced_leaders() {
    let mut member = Member::new();
    member.elect(OTHER);
    // Epoch 2 back to broker 1 in the image only: the replica still follows at epoch 1, so it
    // refuses, but names the image's leadership.
    member.replay(&[change(ME)]);
    let response = member.produce(12, 10).await;
    let p = &response.responses[0].partition_responses[0];
    assert_eq!(code(p.error_code), ErrorCode::NotLeaderOrFollower);
    assert_eq!((p.current_leader.leader_id, p.current_leader.leader_epoch), (ME, 2));
    assert_eq!(response.node_endpoints.iter().map(|e| e.node_id).collect::<Vec<_>>(), [ME]);

    let mut member = Member::new();
    member.elect(OTHER);
    let epoch = member.broker_epoch(OTHER);
    let fence = FenceBrokerRecord { id: OTHER, epoch, ..Default::default() };
    member.apply(&[ApiMessageAndVersion::latest(MetadataRecord::FenceBrokerRecord(fence))]);
    let response = member.produce(12, 10).await;
    let p = &response.responses[0].partition_responses[0];
    assert_eq!(code(p.error_code), ErrorCode::NotLeaderOrFollower);
    assert_eq!((p.current_leader.leader_id, p.current_leader.leader_epoch), (OTHER, 1));
    assert!(response.node_endpoints.is_empty());
}

/// A follower answers ListOffsets and OffsetForLeaderEpoch NOT_LEADER_OR_FOLLOWER; a debugging
/// ListOffsets (replica id -2) is answered by any replica, from its log end.
#[tokio::test]
async fn follower_refuses_list_offsets_and_offset_for_leader_epoch() {
    let mut member = Member::new();
    member.produce(12, 10).await;
    member.elect(OTHER);
    for version in [1, 4, 9] {
        let epoch = if version >= 4 { 1 } else { -1 };
        let answer = member.list_offsets(version, -1, -1, epoch).await;
        assert_eq!(answer.0, ErrorCode::NotLeaderOrFollower, "v{version}");
    }
    assert_eq!(member.end_offset(1, 0).await.0, ErrorCode::NotLeaderOrFollower);
    assert_eq!(member.end_offset(-1, 0).await.0, ErrorCode::NotLeaderOrFollower);
    // The epoch is checked before the leadership.
    assert_eq!(member.end_offset(0, 0).await.0, ErrorCode::FencedLeaderEpoch);
    assert_eq!(member.list_offsets(9, -1, -1, 0).await.0, ErrorCode::FencedLeaderEpoch);
    assert_eq!(member.list_offsets(9, -2, -1, -1).await, (ErrorCode::None, 1, 1));
}

/// ListOffsets and OffsetForLeaderEpoch at an older current leader epoch: FENCED_LEADER_EPOCH; at
/// a newer one: UNKNOWN_LEADER_EPOCH; at the current one (or -1) answered.
#[tokio::test]
async fn list_offsets_checks_the_current_leader_epoch() {
    let mut member = Member::new();
    member.elect(ME);
    assert_eq!(member.list_offsets(9, -1, -2, 0).await.0, ErrorCode::FencedLeaderEpoch);
    assert_eq!(member.list_offsets(9, -1, -2, 2).await.0, ErrorCode::UnknownLeaderEpoch);
    assert_eq!(member.list_offsets(9, -1, -2, 1).await, (ErrorCode::None, 0, 1));
    assert_eq!(member.list_offsets(9, -1, -2, -1).await, (ErrorCode::None, 0, 1));
    assert_eq!(member.end_offset(0, 0).await.0, ErrorCode::FencedLeaderEpoch);
    assert_eq!(member.end_offset(2, 0).await.0, ErrorCode::UnknownLeaderEpoch);
    assert_eq!(member.end_offset(1, 1).await, (ErrorCode::None, 1, 0));
}

/// KIP-207: broker 1 wrote offsets 0-2 at epoch 0 that broker 2 never fetched (high watermark 0),
/// lost the leadership and got it back at epoch 2, starting at offset 3. Until broker 2 has
/// fetched to 3, a consumer's latest offset is OFFSET_NOT_AVAILABLE (LEADER_NOT_AVAILABLE before
/// v5), and so is a lookup by timestamp that finds nothing below the high watermark; the earliest
/// offset, and a broker's request (answered from the log end), are answered.
#[tokio::test]
async fn new_leader_answers_offset_not_available_until_its_high_watermark_reaches_its_epoch_start() {
    let mut member = Member::new();
    for timestamp in [10, 20, 30] {
        assert_eq!(member.produce(12, timestamp).await.responses[0].partition_responses[0].error_code, 0);
    }
    member.elect(OTHER);
    member.elect(ME);
    let status = member.node.replicas.partition_status(&TopicPartition::new(TOPIC, 0)).expect("status");
    assert_eq!((status.leader_epoch, status.leader_epoch_start_offset, status.high_watermark), (2, Some(3), 0));

    let not_available = (ErrorCode::OffsetNotAvailable, -1, -1);
    assert_eq!(member.list_offsets(9, -1, -1, 2).await, not_available);
    assert_eq!(member.list_offsets(5, -1, -1, 2).await, not_available);
    assert_eq!(member.list_offsets(4, -1, -1, 2).await, (ErrorCode::LeaderNotAvailable, -1, -1));
    assert_eq!(member.list_offsets(1, -1, -1, -1).await, (ErrorCode::LeaderNotAvailable, -1, -1));
    assert_eq!(member.list_offsets(9, -1, 10, 2).await, not_available, "timestamp 10 is at offset 0");
    assert_eq!(member.list_offsets(9, -1, -3, 2).await, not_available, "max timestamp");
    assert_eq!(member.list_offsets(9, -1, -2, 2).await, (ErrorCode::None, 0, 2), "earliest");
    assert_eq!(member.list_offsets(9, -1, -4, 2).await, (ErrorCode::None, 0, 2), "earliest local");
    assert_eq!(member.list_offsets(9, 2, -1, 2).await, (ErrorCode::None, 3, 2), "a broker's latest");

    // Broker 2 fetches offsets 0-1: the high watermark moves to 2, still short of 3.
    let epoch = member.broker_epoch(OTHER);
    member.fetch_as(17, fetch_request(17, OTHER, epoch, 0, -1, 2)).await;
    let caught_up = member.fetch_as(17, fetch_request(17, OTHER, epoch, 2, 0, 2)).await;
    assert_eq!(caught_up.responses[0].partitions[0].high_watermark, 2);
    assert_eq!(member.list_offsets(9, -1, -1, 2).await, not_available);
    assert_eq!(member.list_offsets(9, -1, 10, 2).await, (ErrorCode::None, 0, 2), "offset 0 is committed");
    assert_eq!(member.list_offsets(9, -1, 30, 2).await, not_available, "offset 2 is not");

    // At 3 the high watermark has reached the epoch's start: answered.
    let caught_up = member.fetch_as(17, fetch_request(17, OTHER, epoch, 3, 0, 2)).await;
    assert_eq!(caught_up.responses[0].partitions[0].high_watermark, 3);
    assert_eq!(member.list_offsets(9, -1, -1, 2).await, (ErrorCode::None, 3, 2));
    assert_eq!(member.list_offsets(4, -1, -1, 2).await, (ErrorCode::None, 3, 2));
    assert_eq!(member.list_offsets(1, -1, -1, -1).await, (ErrorCode::None, 3, -1));
    assert_eq!(member.list_offsets(9, -1, 30, 2).await, (ErrorCode::None, 2, 2));
    // A timestamp past every record: nothing, without an error now.
    assert_eq!(member.list_offsets(9, -1, 40, 2).await, (ErrorCode::None, -1, -1));
}

/// Timestamp specs the version does not know are UNSUPPORTED_VERSION (Kafka's
/// `isListOffsetsTimestampUnsupported`); -5 (latest tiered) and -6 (earliest pending upload,
/// v11) without tiered storage are -1.
#[tokio::test]
async fn list_offsets_timestamp_specs_by_version() {
    let mut member = Member::new();
    member.produce(12, 10).await;
    let epoch = member.broker_epoch(OTHER);
    member.fetch_as(17, fetch_request(17, OTHER, epoch, 1, 0, 0)).await;
    assert_eq!(member.list_offsets(6, -1, -3, -1).await.0, ErrorCode::UnsupportedVersion);
    assert_eq!(member.list_offsets(7, -1, -3, -1).await, (ErrorCode::None, 0, 0));
    assert_eq!(member.list_offsets(7, -1, -4, -1).await.0, ErrorCode::UnsupportedVersion);
    assert_eq!(member.list_offsets(8, -1, -4, -1).await, (ErrorCode::None, 0, 0));
    assert_eq!(member.list_offsets(8, -1, -5, -1).await.0, ErrorCode::UnsupportedVersion);
    assert_eq!(member.list_offsets(9, -1, -5, -1).await, (ErrorCode::None, -1, -1));
    assert_eq!(member.list_offsets(9, -1, -6, -1).await.0, ErrorCode::UnsupportedVersion);
    assert_eq!(member.list_offsets(10, -1, -6, -1).await.0, ErrorCode::UnsupportedVersion);
    assert_eq!(member.list_offsets(11, -1, -6, -1).await, (ErrorCode::None, -1, -1));
    assert_eq!(member.list_offsets(11, -1, -7, -1).await.0, ErrorCode::UnsupportedVersion);
}
