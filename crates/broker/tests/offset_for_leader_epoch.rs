//! OffsetForLeaderEpoch through `Broker::handle`: end offsets from the log's epoch cache, and
//! Kafka's errors for unknown, unhosted, not-led partitions and stale or future leader epochs.

mod common;

use common::{NODE, Node};
use strand_base::TopicPartition;
use strand_metadata::controller::{ApiMessageAndVersion, InitialFencing};
use strand_protocol::error::ErrorCode;
use strand_protocol::messages::api::{RequestBody, ResponseBody};
use strand_protocol::messages::offset_for_leader_epoch_request::{OffsetForLeaderPartition, OffsetForLeaderTopic};
use strand_protocol::messages::records::MetadataRecord;
use strand_protocol::messages::{OffsetForLeaderEpochRequest, PartitionChangeRecord};

/// One partition asked about: topic, partition, current leader epoch, leader epoch.
struct Ask(&'static str, i32, i32, i32);

/// What comes back: error, leader epoch, end offset.
type Answer = (ErrorCode, i32, i64);

async fn ask(node: &mut Node, asked: &Ask, version: i16) -> Answer {
    let Ask(topic, partition, current_leader_epoch, leader_epoch) = *asked;
    let request = OffsetForLeaderEpochRequest {
        replica_id: strand_base::BrokerId(-1),
        topics: vec![OffsetForLeaderTopic {
            topic: topic.to_owned(),
            partitions: vec![OffsetForLeaderPartition {
                partition,
                current_leader_epoch,
                leader_epoch,
                ..Default::default()
            }],
            ..Default::default()
        }],
        ..Default::default()
    };
    let ResponseBody::OffsetForLeaderEpoch(response) =
        node.call(RequestBody::OffsetForLeaderEpoch(request), version).await
    else {
        panic!("not an OffsetForLeaderEpoch response");
    };
    let topic_result = &response.topics[0];
    assert_eq!(topic_result.topic, topic);
    let p = &topic_result.partitions[0];
    assert_eq!(p.partition, partition);
    let code = ErrorCode::from_code(p.error_code).expect("a known error code");
    (code, p.leader_epoch, p.end_offset)
}

/// A node leading `t-0` with offsets 0-1 written at epoch 0 and offset 2 at epoch 1 (the image's
/// leader epoch is 1), `remote-0` hosted only on broker 2, and `follower-0` led by broker 2 with a
/// replica here.
async fn node() -> Node {
    let mut node = Node::new();
    let id = node.create_topic("t", 1).await;
    let tp = TopicPartition::new("t", 0);
    node.append(&tp, 0);
    node.append(&tp, 0);
    let change = PartitionChangeRecord { topic_id: id, partition_id: 0, leader: NODE, ..Default::default() };
    node.writer.apply(&[ApiMessageAndVersion::latest(MetadataRecord::PartitionChangeRecord(change))]);
    node.append(&tp, 1);
    node.register(2, InitialFencing::Unfenced);
    node.create_assigned("remote", &[&[2]]).await;
    node.create_assigned("follower", &[&[2, 1]]).await;
    node
}

/// Each case at v2, v3 and v4: the answer Kafka's `Partition.lastOffsetForLeaderEpoch` gives.
#[tokio::test]
async fn end_offsets_and_errors_at_every_version() {
    let none = ErrorCode::None;
    let cases: [(Ask, Answer); 11] = [
        (Ask("t", 0, -1, 0), (none, 0, 2)),
        (Ask("t", 0, 1, 0), (none, 0, 2)),
        (Ask("t", 0, 1, 1), (none, 1, 3)),
        (Ask("t", 0, -1, 7), (none, -1, -1)),
        (Ask("t", 0, -1, -1), (none, -1, -1)),
        (Ask("t", 0, 0, 0), (ErrorCode::FencedLeaderEpoch, -1, -1)),
        (Ask("t", 0, 2, 0), (ErrorCode::UnknownLeaderEpoch, -1, -1)),
        (Ask("t", 3, -1, 0), (ErrorCode::UnknownTopicOrPartition, -1, -1)),
        (Ask("nope", 0, -1, 0), (ErrorCode::UnknownTopicOrPartition, -1, -1)),
        (Ask("remote", 0, -1, 0), (ErrorCode::NotLeaderOrFollower, -1, -1)),
        (Ask("follower", 0, 0, 0), (ErrorCode::NotLeaderOrFollower, -1, -1)),
    ];
    let mut node = node().await;
    for version in 2..=4 {
        for (asked, expected) in &cases {
            let Ask(topic, partition, current, epoch) = *asked;
            let label = format!("v{version} {topic}-{partition} current {current} epoch {epoch}");
            assert_eq!(ask(&mut node, asked, version).await, *expected, "{label}");
        }
    }
}
