//! A log directory a failed `fdatasync` took offline, as clients and tools see it: DescribeLogDirs
//! answers it KAFKA_STORAGE_ERROR without partitions (Kafka's `describeLogDirs`), and once the
//! broker reported it in a heartbeat (KIP-858), Metadata lists the replicas in it among
//! `offline_replicas` (Kafka's `getOfflineReplicas`) with the leadership moved off them.
//!
//! Its own test binary: the `log::sync` failpoint is process-wide.

mod common;

use bytes::BytesMut;
use common::{NODE, Node, registration};
use strand_base::{BrokerId, TopicPartition, Uuid};
use strand_log::log::ValidatedBatch;
use strand_log::producer_state::{AppendContext, VerificationGuard};
use strand_metadata::controller::{
    ApiMessageAndVersion, ControllerDefaults, HeartbeatInputs, InitialFencing, broker_heartbeat,
};
use strand_metadata::testkit::register;
use strand_protocol::error::ErrorCode;
use strand_protocol::messages::api::{RequestBody, ResponseBody};
use strand_protocol::messages::records::MetadataRecord;
use strand_protocol::messages::{
    BrokerHeartbeatRequest, DescribeLogDirsRequest, MetadataRequest, MetadataResponse, PartitionChangeRecord,
};
use strand_protocol::records::{NewRecord, RecordBatchBuilder};
use strand_replication::Acks;

fn one_record() -> ValidatedBatch {
    let mut builder = RecordBatchBuilder::new();
    builder.append(&NewRecord { timestamp_ms: 10, key: None, value: Some(b"v"), headers: &[] }).expect("record");
    ValidatedBatch::validate(BytesMut::from(&builder.build().expect("batch")[..])).expect("valid")
}

/// One failed sync on the node's only log dir: DescribeLogDirs answers the dir
/// KAFKA_STORAGE_ERROR and lists nothing in it (before, it listed the partition as healthy).
#[tokio::test]
async fn describe_log_dirs_answers_an_offline_dir_with_a_storage_error() {
    let mut node = Node::new();
    let topic_id = node.create_topic("t", 1).await;
    let tp = TopicPartition::new("t", 0);
    // Every append synced, so the failing sync comes with the next append.
    let config = strand_log::LogConfig { flush_interval_messages: 1, ..common::log_config() };
    node.replicas.ensure_partition(&tp, topic_id, config).expect("config");
    fail::cfg("log::sync", "return").expect("failpoint");
    let appended =
        node.replicas.append(&tp, one_record(), 0, Acks::Leader, AppendContext::client(VerificationGuard::SENTINEL));
    fail::remove("log::sync");
    assert!(appended.is_err(), "{appended:?}");
    assert_eq!(node.replicas.handle_log_dir_failures().expect("dirs").len(), 1);

    let request = RequestBody::DescribeLogDirs(DescribeLogDirsRequest::default());
    let ResponseBody::DescribeLogDirs(response) = node.call(request, 4).await else { panic!("not DescribeLogDirs") };
    assert_eq!(response.error_code, 0);
    assert_eq!(response.results.len(), 1);
    let dir = &response.results[0];
    assert_eq!(dir.error_code, ErrorCode::KafkaStorageError.code(), "{dir:?}");
    assert!(dir.topics.is_empty(), "{dir:?}");
    assert!(!dir.log_dir.is_empty());
}

/// Broker 2 with two log dirs hosts replicas of `m` in each; its heartbeat reports dir 0
/// offline. Metadata then lists broker 2 in `offline_replicas` of the partition in dir 0 only,
/// whose leadership moved to this node, and its ISR lost broker 2.
#[tokio::test]
async fn metadata_lists_replicas_in_a_reported_offline_dir() {
    let mut node = Node::new();
    let dirs = [Uuid([0x55; 16]), Uuid([0x66; 16])];
    let mut request = registration(2);
    request.log_dirs = dirs.to_vec();
    let registered = register(&node.broker.image(), &request, InitialFencing::Unfenced);
    node.writer.apply(&registered.records);
    let topic_id = node.create_assigned("m", &[&[2, 1], &[2, 1]]).await;
    // Where broker 2 put each replica (AssignReplicasToDirs in Kafka): partition i in dir i.
    let placed: Vec<ApiMessageAndVersion> = (0..2)
        .map(|index| {
            let own = node.replicas.partition_status(&TopicPartition::new("m", index)).is_ok();
            assert!(own, "this node hosts m-{index}");
            let current = node.broker.image();
            let partition = current.topics().by_name("m").and_then(|t| t.partitions.get(&index)).cloned();
            let mut directories = partition.expect("m exists").directories;
            directories[0] = dirs[usize::try_from(index).expect("index")];
            let directories = Some(directories);
            let record = PartitionChangeRecord { topic_id, partition_id: index, directories, ..Default::default() };
            ApiMessageAndVersion::latest(MetadataRecord::PartitionChangeRecord(record))
        })
        .collect();
    node.writer.apply(&placed);

    let image = node.broker.image();
    let epoch = image.cluster().broker(BrokerId(2)).expect("registered").epoch;
    let heartbeat = BrokerHeartbeatRequest {
        broker_id: BrokerId(2),
        broker_epoch: epoch,
        current_metadata_offset: image.provenance().offset,
        offline_log_dirs: vec![dirs[0]],
        ..Default::default()
    };
    let inputs = HeartbeatInputs { controlled_shutdown_offset: None, active_metadata_offset_min: i64::MAX };
    let decided = broker_heartbeat(&image, &heartbeat, &inputs, &ControllerDefaults::default());
    assert_eq!(decided.response.error_code, 0);
    node.writer.apply(&decided.records);

    let ResponseBody::Metadata(response) =
        node.call(RequestBody::Metadata(MetadataRequest { topics: None, ..Default::default() }), 12).await
    else {
        panic!("not Metadata")
    };
    assert_eq!(summary(&response), [(0, NODE.0, vec![1], vec![2]), (1, 2, vec![2, 1], vec![])]);
}

/// (partition, leader, ISR, offline replicas) of topic `m`.
fn summary(response: &MetadataResponse) -> Vec<(i32, i32, Vec<i32>, Vec<i32>)> {
    let topic = response.topics.iter().find(|t| t.name.as_deref() == Some("m")).expect("m");
    topic
        .partitions
        .iter()
        .map(|p| {
            let ids = |v: &[BrokerId]| v.iter().map(|b| b.0).collect::<Vec<_>>();
            (p.partition_index, p.leader_id.0, ids(&p.isr_nodes), ids(&p.offline_replicas))
        })
        .collect()
}
