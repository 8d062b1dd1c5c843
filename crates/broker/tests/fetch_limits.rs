//! Fetch's bounds through `Broker::handle`: a session holds at most
//! `FETCH_SESSION_PARTITIONS_MAX` partitions (a larger full fetch is answered sessionless, an
//! incremental fetch growing past it loses its session); a response holds at most `max_bytes`,
//! and each partition at most `partition_max_bytes`, but for the first batch of the first
//! partition with data (KIP-74), and `fetch.max.bytes` caps `max_bytes`; a parked fetch wakes for its own partitions only.

mod common;

use common::Node;
use strand_base::{TopicPartition, Uuid};
use strand_broker::fetch_session::FETCH_SESSION_PARTITIONS_MAX;
use strand_protocol::codec::Records;
use strand_protocol::error::ErrorCode;
use strand_protocol::messages::api::{RequestBody, ResponseBody};
use strand_protocol::messages::fetch_request::{FetchPartition, FetchTopic};
use strand_protocol::messages::{FetchRequest, FetchResponse};

const TOPIC: &str = "limits";
/// Fetch by topic id.
const VERSION: i16 = 16;

async fn call(node: &mut Node, request: FetchRequest) -> FetchResponse {
    let ResponseBody::Fetch(response) = node.call(RequestBody::Fetch(request), VERSION).await else {
        panic!("not a Fetch response");
    };
    response
}

/// A fetch of partitions `partitions` of topic `id` from offset 0, `partition_max_bytes` each, in
/// session `session` at `epoch`; it does not wait.
fn fetch(id: Uuid, partitions: impl Iterator<Item = i32>, partition_max_bytes: i32, max_bytes: i32) -> FetchRequest {
    FetchRequest {
        max_wait_ms: 0,
        min_bytes: 1,
        max_bytes,
        session_id: 0,
        session_epoch: -1,
        topics: vec![FetchTopic {
            topic_id: id,
            partitions: partitions
                .map(|partition| FetchPartition {
                    partition,
                    fetch_offset: 0,
                    partition_max_bytes,
                    ..Default::default()
                })
                .collect(),
            ..Default::default()
        }],
        ..Default::default()
    }
}

fn in_session(request: FetchRequest, session_id: i32, session_epoch: i32) -> FetchRequest {
    FetchRequest { session_id, session_epoch, ..request }
}

/// The record bytes answered per partition, in order.
fn sizes(response: &FetchResponse) -> Vec<u64> {
    response
        .responses
        .iter()
        .flat_map(|t| &t.partitions)
        .map(|p| match &p.records {
            Some(Records::Bytes(bytes)) => bytes.len() as u64,
            Some(Records::File(region)) => u64::from(region.len),
            None => 0,
        })
        .collect()
}

/// A full fetch naming more partitions than a session may hold is answered, sessionless; one at
/// the bound opens a session. (Partitions past the topic's three are answered
/// UNKNOWN_TOPIC_OR_PARTITION and held by the session like any other, as Kafka holds them.)
#[tokio::test]
async fn a_full_fetch_past_the_session_bound_is_answered_sessionless() {
    let mut node = Node::new();
    let id = node.create_topic(TOPIC, 3).await;
    let bound = i32::try_from(FETCH_SESSION_PARTITIONS_MAX).expect("bound");
    let over = call(&mut node, in_session(fetch(id, 0..=bound, 1 << 20, 1 << 20), 0, 0)).await;
    assert_eq!(over.error_code, 0);
    assert_eq!(over.responses[0].partitions.len(), FETCH_SESSION_PARTITIONS_MAX + 1, "every partition answered");
    assert_eq!(over.session_id, 0, "no session for {} partitions", FETCH_SESSION_PARTITIONS_MAX + 1);
    let at = call(&mut node, in_session(fetch(id, 0..bound, 1 << 20, 1 << 20), 0, 0)).await;
    assert!(at.session_id > 0, "a session for {FETCH_SESSION_PARTITIONS_MAX} partitions");
}

/// An incremental fetch that would grow its session past the bound drops the session: the client
/// is told FETCH_SESSION_ID_NOT_FOUND, as if it had been evicted, and fetches in full again.
#[tokio::test]
async fn an_incremental_fetch_past_the_session_bound_loses_the_session() {
    let mut node = Node::new();
    let id = node.create_topic(TOPIC, 3).await;
    let session = call(&mut node, in_session(fetch(id, 0..3, 1 << 20, 1 << 20), 0, 0)).await.session_id;
    assert!(session > 0);
    let bound = i32::try_from(FETCH_SESSION_PARTITIONS_MAX).expect("bound");
    let grown = call(&mut node, in_session(fetch(id, 3..bound + 1, 1 << 20, 1 << 20), session, 1)).await;
    assert_eq!(grown.error_code, ErrorCode::FetchSessionIdNotFound.code());
    let after = call(&mut node, in_session(fetch(id, 0..0, 1 << 20, 1 << 20), session, 2)).await;
    assert_eq!(after.error_code, ErrorCode::FetchSessionIdNotFound.code(), "the session is gone");
}

/// With `max_bytes` spent by the first partition's first batch, the other partitions return
/// nothing, though each has a batch and room under its own `partition_max_bytes` (before: a
/// whole batch each, three times the limit).
#[tokio::test]
async fn a_response_stays_within_max_bytes_but_for_one_batch() {
    let mut node = Node::new();
    let id = node.create_topic(TOPIC, 3).await;
    for partition in 0..3 {
        node.append(&TopicPartition::new(TOPIC, partition), 0);
    }
    let whole = call(&mut node, fetch(id, 0..3, 1 << 20, 1 << 20)).await;
    let batch = sizes(&whole)[0];
    assert!(batch > 1 && sizes(&whole) == [batch; 3], "a batch each: {:?}", sizes(&whole));

    let response = call(&mut node, fetch(id, 0..3, 1 << 20, 1)).await;
    assert_eq!(sizes(&response), [batch, 0, 0], "only the first batch passes max_bytes = 1");
}

/// `fetch.max.bytes` caps what the request asks for: with room for one batch and a half, a fetch
/// asking 1 MiB gets the first partition's batch, part of the second's, and nothing of the third.
#[tokio::test]
async fn fetch_max_bytes_caps_the_response() {
    async fn filled(mut node: Node) -> (Node, Uuid) {
        let id = node.create_topic(TOPIC, 3).await;
        for partition in 0..3 {
            node.append(&TopicPartition::new(TOPIC, partition), 0);
        }
        (node, id)
    }
    let (mut uncapped, id) = filled(Node::new()).await;
    let batch = sizes(&call(&mut uncapped, fetch(id, 0..3, 1 << 20, 1 << 20)).await)[0];
    let cap = i32::try_from(batch + batch / 2).expect("small");
    let settings = strand_broker::BrokerSettings { fetch_max_bytes: cap, ..common::settings() };
    let (mut node, id) = filled(Node::with_settings(settings)).await;
    let response = call(&mut node, fetch(id, 0..3, 1 << 20, 1 << 20)).await;
    assert_eq!(sizes(&response), [batch, batch / 2, 0], "the node's cap, not the request's 1 MiB");
}

/// Each partition after the first with data stays within its `partition_max_bytes`: a batch cut
/// at the limit (the client drops it), not the whole batch.
#[tokio::test]
async fn later_partitions_stay_within_partition_max_bytes() {
    let mut node = Node::new();
    let id = node.create_topic(TOPIC, 3).await;
    for partition in 0..3 {
        node.append(&TopicPartition::new(TOPIC, partition), 0);
    }
    let response = call(&mut node, fetch(id, 0..3, 10, 1 << 20)).await;
    let got = sizes(&response);
    assert!(got[0] > 10, "the first partition's first batch whole: {got:?}");
    assert_eq!(&got[1..], [10, 10], "later partitions cut at partition_max_bytes");
}

/// A fetch parked on partition 0 (short of `min_bytes`) sleeps through appends to partition 1
/// (it does not read again), and answers as soon as partition 0 has data.
#[tokio::test(start_paused = true)]
async fn a_parked_fetch_sleeps_through_appends_elsewhere() {
    let mut node = Node::new();
    let id = node.create_topic(TOPIC, 2).await;
    let request = FetchRequest { max_wait_ms: 30_000, ..fetch(id, 0..1, 1 << 20, 1 << 20) };
    let frame = strand_protocol::frame::encode_request(1, Some("parked"), &RequestBody::Fetch(request), VERSION)
        .expect("encode request");
    let session = common::session();
    let parked = node.broker.handle(frame.slice(4..), &session);
    let appender = async {
        while node.replicas.consumer_reads() == 0 {
            tokio::task::yield_now().await;
        }
        let reads = node.replicas.consumer_reads();
        for _ in 0..5 {
            node.append(&TopicPartition::new(TOPIC, 1), 0);
            for _ in 0..3 {
                tokio::task::yield_now().await;
            }
        }
        assert_eq!(
            node.replicas.consumer_reads(),
            reads,
            "appends to partition 1 woke the fetch parked on partition 0"
        );
        node.append(&TopicPartition::new(TOPIC, 0), 0);
        reads
    };
    let (outcome, reads) = tokio::join!(parked, appender);
    assert!(matches!(outcome, strand_broker::Outcome::Respond(_)), "answered once partition 0 has data");
    assert_eq!(node.replicas.consumer_reads(), reads + 1, "read again once, for partition 0's append");
}
