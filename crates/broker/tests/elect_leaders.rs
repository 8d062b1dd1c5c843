//! ElectLeaders through `Broker::handle`: forwarded to the controller behind the broker,
//! answered with Kafka's per-partition errors once the broker's image shows the new leaders, at
//! every version; refused without ALTER on the cluster as Kafka's `ControllerApis` refuses it.

mod common;

use std::sync::Arc;

use common::{Node, TableAuthorizer, session_of};
use strand_base::BrokerId;
use strand_metadata::controller::{ApiMessageAndVersion, ControllerDefaults, InitialFencing, fence_broker};
use strand_protocol::error::ErrorCode;
use strand_protocol::messages::api::{RequestBody, ResponseBody};
use strand_protocol::messages::elect_leaders_request::TopicPartitions;
use strand_protocol::messages::records::MetadataRecord;
use strand_protocol::messages::{ElectLeadersRequest, ElectLeadersResponse, PartitionChangeRecord};
use strand_security::Session;
use strand_security::acl::{AclOperation, CLUSTER_NAME, ResourceType};

const PREFERRED: i8 = 0;
const UNCLEAN: i8 = 1;

fn request(election_type: i8, partitions: Option<&[(&str, &[i32])]>) -> RequestBody {
    let topic_partitions = partitions.map(|list| {
        list.iter()
            .map(|(topic, ids)| TopicPartitions {
                topic: (*topic).to_owned(),
                partitions: ids.to_vec(),
                ..Default::default()
            })
            .collect()
    });
    RequestBody::ElectLeaders(ElectLeadersRequest { election_type, topic_partitions, ..Default::default() })
}

async fn elect(node: &mut Node, session: &Session, body: RequestBody, version: i16) -> ElectLeadersResponse {
    match node.call_as(session, body, version).await {
        ResponseBody::ElectLeaders(response) => response,
        other => panic!("not an ElectLeaders response: {other:?}"),
    }
}

/// (topic, partition, error) per result, in the response's order.
fn results(response: &ElectLeadersResponse) -> Vec<(String, i32, ErrorCode)> {
    let code = |c: i16| ErrorCode::from_code(c).expect("a known code");
    let topics = response.replica_election_results.iter();
    topics
        .flat_map(|t| t.partition_result.iter().map(|p| (t.topic.clone(), p.partition_id, code(p.error_code))))
        .collect()
}

fn expected(list: &[(&str, i32, ErrorCode)]) -> Vec<(String, i32, ErrorCode)> {
    list.iter().map(|(t, p, e)| ((*t).to_owned(), *p, *e)).collect()
}

fn leader(node: &Node, topic: &str, partition: i32) -> i32 {
    let image = node.broker.image();
    image.topics().by_name(topic).and_then(|t| t.partitions.get(&partition)).expect("the partition exists").leader.0
}

/// Brokers 1-3; `t-0` prefers 2 but broker 2 was fenced and came back, so broker 1 leads it and
/// (once `in_sync` is true) 2 is back in its ISR; `t-1` is led by its preferred replica, 1.
async fn preferred_leader_moved_away(in_sync: bool) -> Node {
    let mut node = Node::new();
    node.register(2, InitialFencing::Unfenced);
    node.register(3, InitialFencing::Unfenced);
    let topic_id = node.create_assigned("t", &[&[2, 1], &[1, 2]]).await;
    assert_eq!(leader(&node, "t", 0), 2);
    node.writer.apply(&fence_broker(&node.broker.image(), BrokerId(2), &ControllerDefaults::default()));
    node.register(2, InitialFencing::Unfenced);
    assert_eq!(leader(&node, "t", 0), 1);
    if in_sync {
        let change = PartitionChangeRecord {
            topic_id,
            partition_id: 0,
            isr: Some(vec![BrokerId(1), BrokerId(2)]),
            ..Default::default()
        };
        node.writer.apply(&[ApiMessageAndVersion::latest(MetadataRecord::PartitionChangeRecord(change))]);
    }
    node
}

/// A preferred election moves `t-0` back to broker 2, and the broker's image shows it when the
/// answer comes; the other partitions get Kafka's codes; a repeat is ELECTION_NOT_NEEDED; with a
/// null list only the partitions that needed an election are reported (here none, though the
/// topic is listed).
#[tokio::test]
async fn preferred_election_moves_the_leader_back() {
    use ErrorCode::{ElectionNotNeeded, None, UnknownTopicOrPartition};
    let mut node = preferred_leader_moved_away(true).await;
    let admin = common::session();
    let list: &[(&str, &[i32])] = &[("t", &[0, 1, 9]), ("nope", &[0])];
    let response = elect(&mut node, &admin, request(PREFERRED, Some(list)), 2).await;
    assert_eq!(response.error_code, 0);
    assert_eq!(
        results(&response),
        expected(&[
            ("t", 0, None),
            ("t", 1, ElectionNotNeeded),
            ("t", 9, UnknownTopicOrPartition),
            ("nope", 0, UnknownTopicOrPartition),
        ])
    );
    let messages: Vec<Option<&str>> = response.replica_election_results[1..]
        .iter()
        .flat_map(|t| t.partition_result.iter().map(|p| p.error_message.as_deref()))
        .collect();
    assert_eq!(messages, [Some("No such topic as nope")]);
    assert_eq!(leader(&node, "t", 0), 2, "the broker's image has the election when it answers");

    let again = elect(&mut node, &admin, request(PREFERRED, Some(&[("t", &[0])])), 1).await;
    assert_eq!(results(&again), expected(&[("t", 0, ElectionNotNeeded)]));
    let all = elect(&mut node, &admin, request(PREFERRED, Option::None), 2).await;
    assert_eq!((all.error_code, all.replica_election_results.len()), (0, 1));
    assert!(results(&all).is_empty(), "{all:?}");
}

/// A preferred replica out of the ISR cannot lead: PREFERRED_LEADER_NOT_AVAILABLE, reported for
/// a null list too; version 0 (no election type on the wire) elects preferred leaders.
#[tokio::test]
async fn preferred_leader_not_available_and_version_0() {
    let mut node = preferred_leader_moved_away(false).await;
    let admin = common::session();
    let all = elect(&mut node, &admin, request(PREFERRED, None), 2).await;
    assert_eq!(results(&all), expected(&[("t", 0, ErrorCode::PreferredLeaderNotAvailable)]));
    let v0 = elect(&mut node, &admin, request(PREFERRED, Some(&[("t", &[0, 1])])), 0).await;
    assert_eq!(
        results(&v0),
        expected(&[("t", 0, ErrorCode::PreferredLeaderNotAvailable), ("t", 1, ErrorCode::ElectionNotNeeded)])
    );
    assert_eq!(leader(&node, "t", 0), 1);
}

/// Unclean elections are not needed while a partition has a leader; an unknown election type
/// is INVALID_REQUEST at the top and on every partition, and changes nothing.
#[tokio::test]
async fn unclean_and_unknown_election_types() {
    let mut node = preferred_leader_moved_away(true).await;
    let admin = common::session();
    let unclean = elect(&mut node, &admin, request(UNCLEAN, Some(&[("t", &[0, 1])])), 1).await;
    assert_eq!(
        results(&unclean),
        expected(&[("t", 0, ErrorCode::ElectionNotNeeded), ("t", 1, ErrorCode::ElectionNotNeeded)])
    );
    let unknown = elect(&mut node, &admin, request(7, Some(&[("t", &[0, 1])])), 2).await;
    assert_eq!(unknown.error_code, ErrorCode::InvalidRequest.code());
    assert_eq!(
        results(&unknown),
        expected(&[("t", 0, ErrorCode::InvalidRequest), ("t", 1, ErrorCode::InvalidRequest)])
    );
    assert_eq!(leader(&node, "t", 0), 1);
}

/// Without ALTER on the cluster: CLUSTER_AUTHORIZATION_FAILED at the top and on each listed
/// partition (only on the partitions at version 0, which has no top-level code), and no
/// election; with it, the election happens.
#[tokio::test]
async fn elections_need_alter_on_the_cluster() {
    let authorizer =
        TableAuthorizer::default().allow("admin", AclOperation::Alter, ResourceType::Cluster, CLUSTER_NAME);
    let mut node = preferred_leader_moved_away(true).await.with_authorizer(Arc::new(authorizer));
    let (alice, admin) = (session_of("alice"), session_of("admin"));
    let refused = ErrorCode::ClusterAuthorizationFailed;

    let response = elect(&mut node, &alice, request(PREFERRED, Some(&[("t", &[0, 1])])), 2).await;
    assert_eq!(response.error_code, refused.code());
    assert_eq!(results(&response), expected(&[("t", 0, refused), ("t", 1, refused)]));
    let response = elect(&mut node, &alice, request(PREFERRED, None), 1).await;
    assert_eq!((response.error_code, response.replica_election_results.len()), (refused.code(), 0));
    let response = elect(&mut node, &alice, request(PREFERRED, Some(&[("t", &[0])])), 0).await;
    assert_eq!((response.error_code, results(&response)), (0, expected(&[("t", 0, refused)])));
    assert_eq!(leader(&node, "t", 0), 1, "a refused request elects nothing");

    let response = elect(&mut node, &admin, request(PREFERRED, None), 2).await;
    assert_eq!(results(&response), expected(&[("t", 0, ErrorCode::None)]));
    assert_eq!(leader(&node, "t", 0), 2);
}
