//! Records too large for `__consumer_offsets`, through the runtime over the in-memory partition
//! writer on tokio's paused clock: an operation whose batch would pass `message.max.bytes` is
//! answered as Kafka answers it and appends nothing; a batch up to the limit, even one larger
//! than a load read step, is loaded back.

mod common;

use std::sync::Arc;

use bytes::Bytes;
use common::{TokioClock, cg_join, join_request, sync_request};
use strand_base::TopicPartition;
use strand_coordinator::runtime::LOAD_READ_BYTES_MAX;
use strand_coordinator::writer::memory::MemoryPartitionWriter;
use strand_coordinator::{ClientInfo, GroupConfig, GroupCoordinator, OFFSETS_TOPIC, SequentialMemberIds};
use strand_protocol::error::ErrorCode;
use strand_protocol::messages::{DescribeGroupsRequest, JoinGroupRequest, SyncGroupResponse};

const PARTITIONS: i32 = 2;

fn tp(partition: i32) -> TopicPartition {
    TopicPartition::new(OFFSETS_TOPIC, partition)
}

/// A coordinator leading every partition at epoch 1, loaded.
async fn active(config: GroupConfig) -> (Arc<MemoryPartitionWriter>, GroupCoordinator) {
    let writer = Arc::new(MemoryPartitionWriter::new());
    let clock = Arc::new(TokioClock::starting_now());
    let config = GroupConfig { offsets_topic_partitions: PARTITIONS, initial_rebalance_delay_ms: 100, ..config };
    let coordinator = GroupCoordinator::new(config, writer.clone(), clock, Arc::new(SequentialMemberIds::default()));
    for partition in 0..PARTITIONS {
        writer.lead(&tp(partition), 1);
        coordinator.shards().become_leader(partition, 1);
        assert!(coordinator.shards().wait_active(partition).await);
    }
    (writer, coordinator)
}

fn client(id: &str) -> ClientInfo {
    ClientInfo { client_id: id.to_owned(), client_host: "/10.0.0.1".to_owned(), ..Default::default() }
}

/// A JoinGroup whose only protocol carries `metadata_bytes` of metadata.
fn join_with_metadata(group: &str, member_id: &str, metadata_bytes: usize) -> JoinGroupRequest {
    let mut request = join_request(group, member_id, None);
    request.protocols[0].metadata = Bytes::from(vec![b'm'; metadata_bytes]);
    request
}

/// Two members with `metadata_bytes` each join and sync. Returns both SyncGroup answers.
async fn two_members_sync(
    coordinator: &GroupCoordinator,
    group: &str,
    metadata_bytes: usize,
) -> (SyncGroupResponse, SyncGroupResponse) {
    let mut ids = Vec::new();
    for name in ["a", "b"] {
        let first = coordinator.join_group(client(name), join_with_metadata(group, "", metadata_bytes), 5).await;
        assert_eq!(first.error_code, ErrorCode::MemberIdRequired.code());
        ids.push(first.member_id);
    }
    let (ja, jb) = tokio::join!(
        coordinator.join_group(client("a"), join_with_metadata(group, &ids[0], metadata_bytes), 5),
        coordinator.join_group(client("b"), join_with_metadata(group, &ids[1], metadata_bytes), 5),
    );
    assert_eq!((ja.error_code, jb.error_code), (0, 0));
    let (leader, follower) = if ja.leader == ja.member_id { (ja, jb) } else { (jb, ja) };
    let assignments: Vec<(&str, &[u8])> = vec![(leader.member_id.as_str(), b"l"), (follower.member_id.as_str(), b"f")];
    // The follower's SyncGroup reaches the shard first (`join!` polls in order) and waits.
    let (follower, leader) = tokio::join!(
        coordinator.sync_group(sync_request(group, &follower.member_id, leader.generation_id, &[]), 3),
        coordinator.sync_group(sync_request(group, &leader.member_id, leader.generation_id, &assignments), 3),
    );
    (leader, follower)
}

/// A ConsumerGroupHeartbeat whose member record would pass `message.max.bytes` (a subscription
/// of many long topic names) is answered UNKNOWN_SERVER_ERROR, as Kafka answers the
/// RecordTooLargeException of its atomic write; nothing is appended, the shard reloads from the
/// log and serves the next heartbeat.
#[tokio::test(start_paused = true)]
async fn an_operation_whose_batch_is_too_large_appends_nothing() {
    let (writer, coordinator) = active(GroupConfig { batch_bytes_max: 64 * 1024, ..GroupConfig::default() }).await;
    let partition = coordinator.partition_for("cg");
    let before = writer.batches(&tp(partition)).len();

    let names: Vec<String> = (0..1_000).map(|i| format!("{i:0>100}")).collect();
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    let huge = coordinator.consumer_group_heartbeat(client("c"), cg_join("cg", "m1", &names), 1).await;
    assert_eq!(huge.error_code, ErrorCode::UnknownServerError.code());
    assert_eq!(writer.batches(&tp(partition)).len(), before, "nothing appended");

    assert!(coordinator.shards().wait_active(partition).await);
    let normal = coordinator.consumer_group_heartbeat(client("c"), cg_join("cg", "m1", &["orders"]), 1).await;
    assert_eq!((normal.error_code, normal.member_epoch), (0, 1), "the member that was refused joins afresh");
}

/// A group whose record is larger than a load read step but within `message.max.bytes` is
/// written, and a new leader loads it back whole.
#[tokio::test(start_paused = true)]
async fn a_record_up_to_the_limit_is_loaded_back() {
    let max = 2 * LOAD_READ_BYTES_MAX;
    let (writer, coordinator) = active(GroupConfig { batch_bytes_max: max, ..GroupConfig::default() }).await;
    let metadata_bytes = LOAD_READ_BYTES_MAX * 3 / 4;
    let (leader, follower) = two_members_sync(&coordinator, "g", metadata_bytes).await;
    assert_eq!((leader.error_code, follower.error_code), (0, 0));
    let partition = coordinator.partition_for("g");
    let largest = writer.batches(&tp(partition)).iter().map(Bytes::len).max().expect("batches");
    assert!(largest > LOAD_READ_BYTES_MAX && largest <= max, "a {largest}-byte batch");

    coordinator.shards().resign(partition);
    writer.lead(&tp(partition), 2);
    coordinator.shards().become_leader(partition, 2);
    assert!(coordinator.shards().wait_active(partition).await);
    let described =
        coordinator.describe_groups(DescribeGroupsRequest { groups: vec!["g".into()], ..Default::default() }, 5).await;
    let group = &described.groups[0];
    assert_eq!(group.group_state, "Stable");
    assert_eq!(group.members.len(), 2);
    assert!(group.members.iter().all(|m| m.member_metadata.len() == metadata_bytes));

    // Past the limit: the SyncGroup fails and nothing that large is written.
    let (leader, follower) = two_members_sync(&coordinator, "h", max / 2 + 1).await;
    let unknown = ErrorCode::UnknownServerError.code();
    assert_eq!((leader.error_code, follower.error_code), (unknown, unknown));
    let h_partition = coordinator.partition_for("h");
    assert!(writer.batches(&tp(h_partition)).iter().all(|b| b.len() <= max), "nothing over the limit is written");
}
