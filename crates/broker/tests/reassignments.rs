//! AlterPartitionReassignments and ListPartitionReassignments through `Broker::handle`: decided
//! by the controller behind the broker, answered once the broker's image shows the new replicas,
//! at every version, with errors per partition.

mod common;

use common::Node;
use strand_base::BrokerId;
use strand_metadata::controller::InitialFencing;
use strand_protocol::error::ErrorCode;
use strand_protocol::messages::alter_partition_reassignments_request::{ReassignablePartition, ReassignableTopic};
use strand_protocol::messages::api::{RequestBody, ResponseBody};
use strand_protocol::messages::list_partition_reassignments_request::ListPartitionReassignmentsTopics;
use strand_protocol::messages::{
    AlterPartitionReassignmentsRequest, AlterPartitionReassignmentsResponse, ListPartitionReassignmentsRequest,
    ListPartitionReassignmentsResponse,
};

fn ids(ids: &[i32]) -> Vec<BrokerId> {
    ids.iter().copied().map(BrokerId).collect()
}

async fn alter(
    node: &mut Node,
    partitions: &[(i32, Option<&[i32]>)],
    allow: bool,
    version: i16,
) -> AlterPartitionReassignmentsResponse {
    let topic = ReassignableTopic {
        name: "t".to_owned(),
        partitions: partitions
            .iter()
            .map(|(index, replicas)| ReassignablePartition {
                partition_index: *index,
                replicas: replicas.map(ids),
                ..Default::default()
            })
            .collect(),
        ..Default::default()
    };
    let request = AlterPartitionReassignmentsRequest {
        allow_replication_factor_change: allow,
        topics: vec![topic],
        ..Default::default()
    };
    match node.call(RequestBody::AlterPartitionReassignments(request), version).await {
        ResponseBody::AlterPartitionReassignments(response) => response,
        other => panic!("not an AlterPartitionReassignments response: {other:?}"),
    }
}

async fn list(
    node: &mut Node,
    topics: Option<Vec<ListPartitionReassignmentsTopics>>,
) -> ListPartitionReassignmentsResponse {
    let request = ListPartitionReassignmentsRequest { topics, ..Default::default() };
    match node.call(RequestBody::ListPartitionReassignments(request), 0).await {
        ResponseBody::ListPartitionReassignments(response) => response,
        other => panic!("not a ListPartitionReassignments response: {other:?}"),
    }
}

fn codes(response: &AlterPartitionReassignmentsResponse) -> Vec<ErrorCode> {
    response.responses[0].partitions.iter().filter_map(|p| ErrorCode::from_code(p.error_code)).collect()
}

/// A reassignment started through the broker shows in the broker's image and in
/// ListPartitionReassignments as soon as the answer comes; cancelling it restores the replicas.
#[tokio::test]
async fn start_list_and_cancel() {
    let mut node = Node::new();
    node.register(2, InitialFencing::Unfenced);
    node.register(3, InitialFencing::Unfenced);
    node.create_assigned("t", &[&[1], &[1]]).await;
    let response = alter(&mut node, &[(0, Some(&[2, 3])), (1, Some(&[1, 9])), (5, None)], true, 0).await;
    assert_eq!(
        codes(&response),
        [ErrorCode::None, ErrorCode::InvalidReplicaAssignment, ErrorCode::UnknownTopicOrPartition]
    );
    assert_eq!((response.error_code, response.error_message.as_deref()), (0, None));
    let partition = node.broker.image().topics().by_name("t").and_then(|t| t.partitions.get(&0).cloned());
    let partition = partition.expect("t-0");
    assert_eq!((partition.replicas, partition.adding_replicas), (ids(&[2, 3, 1]), ids(&[2, 3])));

    let listed = list(&mut node, None).await;
    assert_eq!(listed.topics.len(), 1);
    let ongoing = &listed.topics[0].partitions;
    assert_eq!(ongoing.len(), 1);
    assert_eq!(
        (ongoing[0].partition_index, &ongoing[0].replicas, &ongoing[0].adding_replicas, &ongoing[0].removing_replicas),
        (0, &ids(&[2, 3, 1]), &ids(&[2, 3]), &ids(&[1]))
    );
    let named =
        ListPartitionReassignmentsTopics { name: "t".to_owned(), partition_indexes: vec![1], ..Default::default() };
    assert!(list(&mut node, Some(vec![named])).await.topics.is_empty(), "t-1 is not reassigning");

    let response = alter(&mut node, &[(0, None), (1, None)], true, 1).await;
    assert_eq!(codes(&response), [ErrorCode::None, ErrorCode::NoReassignmentInProgress]);
    let partition = node.broker.image().topics().by_name("t").and_then(|t| t.partitions.get(&0).cloned());
    assert_eq!(partition.expect("t-0").replicas, ids(&[1]));
    assert!(list(&mut node, None).await.topics.is_empty());
}

/// Version 1 carries `allow_replication_factor_change`: false refuses a change of size and the
/// response echoes the option.
#[tokio::test]
async fn version_1_guards_the_replication_factor() {
    let mut node = Node::new();
    node.register(2, InitialFencing::Unfenced);
    node.create_assigned("t", &[&[1]]).await;
    let response = alter(&mut node, &[(0, Some(&[1, 2]))], false, 1).await;
    assert_eq!(codes(&response), [ErrorCode::InvalidReplicationFactor]);
    assert!(!response.allow_replication_factor_change);
    let response = alter(&mut node, &[(0, Some(&[2]))], false, 1).await;
    assert_eq!(codes(&response), [ErrorCode::None]);
}
