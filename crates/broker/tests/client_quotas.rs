//! Client quotas through the broker: AlterClientQuotas forwarded to the controller and
//! DescribeClientQuotas answered from the image; byte-rate quotas throttling Produce and a
//! consumer's Fetch (KIP-219: `throttle_time_ms` in the response, the connection told to mute),
//! never a follower's Fetch; CreateTopics past the controller mutation quota (KIP-599).

mod common;

use bytes::Bytes;
use common::Node;
use strand_base::Uuid;
use strand_broker::Outcome;
use strand_protocol::error::ErrorCode;
use strand_protocol::frame::{decode_response, encode_request};
use strand_protocol::messages::alter_client_quotas_request::{EntityData, EntryData, OpData};
use strand_protocol::messages::api::{RequestBody, ResponseBody};
use strand_protocol::messages::create_topics_request::CreatableTopic;
use strand_protocol::messages::describe_client_quotas_request::ComponentData;
use strand_protocol::messages::fetch_request::{FetchPartition, FetchTopic, ReplicaState};
use strand_protocol::messages::produce_request::{PartitionProduceData, TopicProduceData};
use strand_protocol::messages::{
    AlterClientQuotasRequest, CreateTopicsRequest, DescribeClientQuotasRequest, FetchRequest, ProduceRequest,
};
use strand_protocol::records::{NewRecord, RecordBatchBuilder};

/// Sets `key=value` on the entity of `(type, name)` pairs through the broker.
async fn set_quota(node: &mut Node, entity: &[(&str, Option<&str>)], key: &str, value: f64) {
    let entity = entity
        .iter()
        .map(|(kind, name)| EntityData {
            entity_type: (*kind).to_owned(),
            entity_name: name.map(str::to_owned),
            ..Default::default()
        })
        .collect();
    let ops = vec![OpData { key: key.to_owned(), value, remove: false, ..Default::default() }];
    let request = AlterClientQuotasRequest {
        entries: vec![EntryData { entity, ops, ..Default::default() }],
        ..Default::default()
    };
    let ResponseBody::AlterClientQuotas(response) = node.call(RequestBody::AlterClientQuotas(request), 1).await else {
        panic!("not an AlterClientQuotas response");
    };
    assert_eq!(response.entries[0].error_code, 0, "{response:?}");
}

fn batch(value_bytes: usize) -> Bytes {
    let value = vec![b'v'; value_bytes];
    let mut builder = RecordBatchBuilder::new();
    let record = NewRecord { timestamp_ms: 1_700_000_000_000, key: None, value: Some(&value), headers: &[] };
    builder.append(&record).expect("record");
    builder.build().expect("batch")
}

fn produce_request(topic: &str, value_bytes: usize) -> RequestBody {
    RequestBody::Produce(ProduceRequest {
        acks: 1,
        timeout_ms: 1000,
        topic_data: vec![TopicProduceData {
            name: topic.into(),
            partition_data: vec![PartitionProduceData {
                index: 0,
                records: Some(batch(value_bytes)),
                ..Default::default()
            }],
            ..Default::default()
        }],
        ..Default::default()
    })
}

fn fetch_request(id: Uuid, replica_id: i32) -> RequestBody {
    RequestBody::Fetch(FetchRequest {
        replica_state: ReplicaState {
            replica_id: strand_base::BrokerId(replica_id),
            replica_epoch: 0,
            ..Default::default()
        },
        max_wait_ms: 0,
        min_bytes: 1,
        max_bytes: 1 << 20,
        session_id: 0,
        session_epoch: -1,
        topics: vec![FetchTopic {
            topic_id: id,
            partitions: vec![FetchPartition {
                partition: 0,
                fetch_offset: 0,
                partition_max_bytes: 1 << 20,
                ..Default::default()
            }],
            ..Default::default()
        }],
        ..Default::default()
    })
}

/// Sends `body` from client id `client`; the response and how long the connection is muted.
async fn send(node: &Node, client: &str, body: RequestBody, version: i16) -> (ResponseBody, u128) {
    let api = body.api_key();
    let frame = encode_request(7, Some(client), &body, version).expect("encode");
    let (frame, mute) = match node.broker.handle(frame.slice(4..), &common::session()).await {
        Outcome::Respond(frame) => (frame, 0),
        Outcome::Throttled(Some(frame), mute) => (frame, mute.as_millis()),
        other => panic!("{other:?}"),
    };
    let bytes = strand_broker::frame_to_bytes(&frame).expect("readable");
    (decode_response(api, version, bytes.slice(4..)).expect("decode").1, mute)
}

/// AlterClientQuotas reaches the image, and DescribeClientQuotas reports it.
#[tokio::test]
async fn quotas_are_altered_and_described() {
    let mut node = Node::new();
    set_quota(&mut node, &[("user", Some("alice")), ("client-id", None)], "producer_byte_rate", 1024.0).await;
    let component = ComponentData {
        entity_type: "user".into(),
        match_type: 0,
        r#match: Some("alice".into()),
        ..Default::default()
    };
    let request = DescribeClientQuotasRequest { components: vec![component], strict: false, ..Default::default() };
    let ResponseBody::DescribeClientQuotas(response) = node.call(RequestBody::DescribeClientQuotas(request), 1).await
    else {
        panic!()
    };
    let entries = response.entries.expect("entries");
    assert_eq!(entries.len(), 1);
    let entity: Vec<(&str, Option<&str>)> =
        entries[0].entity.iter().map(|e| (e.entity_type.as_str(), e.entity_name.as_deref())).collect();
    assert_eq!(entity, [("client-id", None), ("user", Some("alice"))]);
    assert_eq!((entries[0].values[0].key.as_str(), entries[0].values[0].value), ("producer_byte_rate", 1024.0));
}

/// Past its `producer_byte_rate`, a client's Produce is answered with `throttle_time_ms` and the
/// connection is muted as long; a client without a quota is not throttled.
#[tokio::test]
async fn produce_past_its_byte_rate_is_throttled() {
    let mut node = Node::new();
    node.create_topic("t", 1).await;
    set_quota(&mut node, &[("client-id", Some("slow"))], "producer_byte_rate", 100.0).await;
    // 100 B/s over a window of at least 10 s: 1000 bytes pass, 5000 more are 4 s over.
    let (ResponseBody::Produce(first), mute) = send(&node, "slow", produce_request("t", 10), 9).await else { panic!() };
    assert_eq!((first.throttle_time_ms, mute), (0, 0));
    let (ResponseBody::Produce(second), mute) = send(&node, "slow", produce_request("t", 5000), 9).await else {
        panic!()
    };
    assert_eq!(second.responses[0].partition_responses[0].error_code, 0, "throttled, not refused");
    assert!(second.throttle_time_ms > 3000, "{}", second.throttle_time_ms);
    assert_eq!(mute, second.throttle_time_ms as u128);
    let (ResponseBody::Produce(other), mute) = send(&node, "fast", produce_request("t", 5000), 9).await else {
        panic!()
    };
    assert_eq!((other.throttle_time_ms, mute), (0, 0));
}

/// A consumer past its `consumer_byte_rate` gets no data and a throttle; a follower's Fetch of
/// the same partition is never measured.
#[tokio::test]
async fn consumer_fetch_past_its_byte_rate_is_throttled_but_replication_is_not() {
    let mut node = Node::new();
    let id = node.create_topic("t", 1).await;
    let _ = send(&node, "producer", produce_request("t", 5000), 9).await;
    // 1000 B/s over a window of at least 10 s: one 5 kB read passes, a second goes over.
    set_quota(&mut node, &[("client-id", None)], "consumer_byte_rate", 1000.0).await;
    let (ResponseBody::Fetch(first), _) = send(&node, "reader", fetch_request(id, -1), 17).await else { panic!() };
    assert!(!first.responses.is_empty(), "the first fetch is answered with data");
    assert_eq!(first.throttle_time_ms, 0);
    let (ResponseBody::Fetch(second), mute) = send(&node, "reader", fetch_request(id, -1), 17).await else { panic!() };
    assert!(second.throttle_time_ms > 0, "{second:?}");
    assert!(second.responses.is_empty(), "a throttled consumer gets no data");
    assert_eq!(mute, second.throttle_time_ms as u128);
    let (ResponseBody::Fetch(follower), mute) = send(&node, "reader", fetch_request(id, 2), 17).await else { panic!() };
    assert_eq!((follower.throttle_time_ms, mute), (0, 0), "replication is never throttled");
}

fn create_topics(names: &[&str], partitions: i32) -> RequestBody {
    let topics = names
        .iter()
        .map(|name| CreatableTopic {
            name: (*name).to_owned(),
            num_partitions: partitions,
            replication_factor: 1,
            ..Default::default()
        })
        .collect();
    RequestBody::CreateTopics(CreateTopicsRequest { topics, timeout_ms: 5000, ..Default::default() })
}

/// KIP-599: a CreateTopics flood past `controller_mutation_rate` is refused topic by topic once
/// the client's credits are spent (strict, v6+), with the time to repay them as the throttle;
/// before v6 nothing is refused but the throttle still comes.
#[tokio::test]
async fn create_topics_past_the_mutation_rate_is_throttled() {
    let mut node = Node::new();
    // 1 partition a second: a burst of 11 credits over 11 one-second windows.
    set_quota(&mut node, &[("client-id", Some("flood"))], "controller_mutation_rate", 1.0).await;
    let (ResponseBody::CreateTopics(strict), mute) =
        send(&node, "flood", create_topics(&["a", "b", "c", "d"], 5), 7).await
    else {
        panic!()
    };
    let codes: Vec<i16> = strict.topics.iter().map(|t| t.error_code).collect();
    let throttled = ErrorCode::ThrottlingQuotaExceeded.code();
    assert_eq!(codes, [0, 0, 0, throttled], "11 credits: three topics of 5, the third into debt");
    assert_eq!(strict.topics[3].error_message.as_deref(), Some("The throttling quota has been exceeded."));
    assert!(
        (3000..=4000).contains(&strict.throttle_time_ms),
        "4 in debt at 1/s, less what refilled: {}",
        strict.throttle_time_ms
    );
    assert_eq!(mute, strict.throttle_time_ms as u128);

    let (ResponseBody::CreateTopics(permissive), _) = send(&node, "flood", create_topics(&["e", "f"], 1), 5).await
    else {
        panic!()
    };
    assert!(permissive.topics.iter().all(|t| t.error_code == 0), "v5 is never refused: {permissive:?}");
    assert!(permissive.throttle_time_ms > strict.throttle_time_ms, "{}", permissive.throttle_time_ms);
    let (ResponseBody::CreateTopics(other), _) = send(&node, "other", create_topics(&["g"], 5), 7).await else {
        panic!()
    };
    assert_eq!((other.topics[0].error_code, other.throttle_time_ms), (0, 0), "another client has no quota");
}

/// AlterClientQuotas needs ALTER_CONFIGS on the cluster and DescribeClientQuotas
/// DESCRIBE_CONFIGS, as Kafka checks them; without, CLUSTER_AUTHORIZATION_FAILED.
#[tokio::test]
async fn quota_apis_are_authorized_on_the_cluster() {
    use strand_security::acl::{AclOperation, CLUSTER_NAME, ResourceType};
    let authorizer = common::TableAuthorizer::default()
        .allow("admin", AclOperation::AlterConfigs, ResourceType::Cluster, CLUSTER_NAME)
        .allow("admin", AclOperation::DescribeConfigs, ResourceType::Cluster, CLUSTER_NAME);
    let mut node = Node::new().with_authorizer(std::sync::Arc::new(authorizer));
    let entity = vec![EntityData { entity_type: "user".into(), entity_name: Some("u".into()), ..Default::default() }];
    let ops = vec![OpData { key: "producer_byte_rate".into(), value: 10.0, remove: false, ..Default::default() }];
    let alter = RequestBody::AlterClientQuotas(AlterClientQuotasRequest {
        entries: vec![EntryData { entity, ops, ..Default::default() }],
        ..Default::default()
    });
    let describe = RequestBody::DescribeClientQuotas(DescribeClientQuotasRequest::default());
    let denied = ErrorCode::ClusterAuthorizationFailed.code();
    for (who, code) in [("alice", denied), ("admin", 0)] {
        let session = common::session_of(who);
        let ResponseBody::AlterClientQuotas(altered) = node.call_as(&session, alter.clone(), 1).await else { panic!() };
        assert_eq!(altered.entries[0].error_code, code, "{who}");
        let ResponseBody::DescribeClientQuotas(described) = node.call_as(&session, describe.clone(), 1).await else {
            panic!()
        };
        assert_eq!(described.error_code, code, "{who}");
    }
}
