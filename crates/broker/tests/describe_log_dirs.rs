//! DescribeLogDirs through `Broker::handle`: the node's log directory with the partitions in it
//! and their sizes, every partition for a null topic list, only the named ones otherwise, and
//! (v4+) the total and usable bytes of its file system.

mod common;

use common::Node;
use strand_base::TopicPartition;
use strand_protocol::error::ErrorCode;
use strand_protocol::messages::api::{RequestBody, ResponseBody};
use strand_protocol::messages::describe_log_dirs_request::DescribableLogDirTopic;
use strand_protocol::messages::{DescribeLogDirsRequest, DescribeLogDirsResponse};

async fn describe(
    node: &mut Node,
    topics: Option<Vec<DescribableLogDirTopic>>,
    version: i16,
) -> DescribeLogDirsResponse {
    match node
        .call(RequestBody::DescribeLogDirs(DescribeLogDirsRequest { topics, ..Default::default() }), version)
        .await
    {
        ResponseBody::DescribeLogDirs(response) => response,
        other => panic!("not a DescribeLogDirs response: {other:?}"),
    }
}

/// (topic, partition, size) of every partition listed, in order.
fn listed(response: &DescribeLogDirsResponse) -> Vec<(String, i32, i64)> {
    response
        .results
        .iter()
        .flat_map(|r| r.topics.iter())
        .flat_map(|t| t.partitions.iter().map(|p| (t.name.clone(), p.partition_index, p.partition_size)))
        .collect()
}

/// The one log directory, holding the topic's partitions: the written one with its bytes, the
/// empty one with none; a topic list narrows the answer to the named partitions.
#[tokio::test]
async fn lists_the_partitions_in_each_directory() {
    let mut node = Node::new();
    node.create_topic("t", 2).await;
    node.append(&TopicPartition::new("t", 0), 0);
    let all = describe(&mut node, None, 4).await;
    assert_eq!((all.error_code, all.results.len()), (0, 1));
    let dir = &all.results[0];
    assert_eq!(dir.error_code, 0);
    assert!(std::path::Path::new(&dir.log_dir).join("t-0").is_dir(), "{dir:?}");
    let partitions = listed(&all);
    assert_eq!(partitions.iter().map(|(t, p, _)| (t.as_str(), *p)).collect::<Vec<_>>(), [("t", 0), ("t", 1)]);
    assert!(partitions[0].2 > 0 && partitions[1].2 == 0, "{partitions:?}");
    assert!(dir.topics[0].partitions.iter().all(|p| p.offset_lag == 0 && !p.is_future_key));
    assert!(dir.total_bytes > 0 && dir.usable_bytes > 0, "v4 reports the file system's space: {dir:?}");
    assert!(dir.total_bytes >= dir.usable_bytes, "{dir:?}");

    let named = DescribableLogDirTopic { topic: "t".to_owned(), partitions: vec![1, 7], ..Default::default() };
    let some = describe(&mut node, Some(vec![named]), 1).await;
    assert_eq!(listed(&some), [("t".to_owned(), 1, 0)]);
}

/// A directory whose file system cannot be read (here, it is gone) is answered
/// KAFKA_STORAGE_ERROR with no partitions and no space, as Kafka answers for an offline one.
#[tokio::test]
async fn an_unreadable_directory_is_a_storage_error() {
    let mut node = Node::new();
    node.create_topic("t", 1).await;
    let before = describe(&mut node, None, 4).await;
    let log_dir = before.results[0].log_dir.clone();
    std::fs::remove_dir_all(&log_dir).expect("remove the log directory");
    let after = describe(&mut node, None, 4).await;
    let dir = &after.results[0];
    assert_eq!((after.error_code, dir.log_dir.as_str()), (0, log_dir.as_str()));
    assert_eq!(dir.error_code, ErrorCode::KafkaStorageError.code(), "{dir:?}");
    assert!(dir.topics.is_empty() && dir.total_bytes == -1 && dir.usable_bytes == -1, "{dir:?}");
}
