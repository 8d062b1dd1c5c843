//! Elections and placement through the public API: ElectLeaders (preferred and unclean, every
//! per-partition error code of Kafka's), the automatic preferred-leader and unclean moves, and
//! rack-aware placement with Kafka's INVALID_REPLICATION_FACTOR rules at topic creation.

mod common;
mod controller_common;

use std::collections::BTreeSet;

use common::{Cluster, topic};
use controller_common::{
    CAUGHT_UP, cluster_in_racks, create_assigned, fence, heartbeat, leader_and_isr, partition, partition_changes,
    register_in_rack, rejoin, set_unclean,
};
use strand_base::BrokerId;
use strand_metadata::controller::{
    ControllerDefaults, ELECTIONS_PER_CALL_MAX, InitialFencing, LeaderRebalance, create_partitions, create_topics,
    elect_leaders, preferred_leader_moves, unclean_leader_moves,
};
use strand_metadata::image::LeaderRecoveryState;
use strand_protocol::error::ErrorCode;
use strand_protocol::messages::create_partitions_request::CreatePartitionsTopic;
use strand_protocol::messages::elect_leaders_request::TopicPartitions;
use strand_protocol::messages::{CreatePartitionsRequest, CreateTopicsRequest, ElectLeadersRequest};

const PREFERRED: i8 = 0;
const UNCLEAN: i8 = 1;

/// Three brokers; `t` has partitions preferring 1, 2, 3. Broker 1 was fenced and came back, so
/// `t-0` is led by 2 and has ISR [2, 3]; `t-2` has ISR [3, 2].
fn after_a_restart() -> Cluster {
    let mut cluster = cluster_in_racks(&[1, 2, 3], |_| None);
    create_assigned(&mut cluster, "t", &[&[1, 2, 3], &[2, 3, 1], &[3, 1, 2]]);
    fence(&mut cluster, 1);
    rejoin(&mut cluster, 1);
    cluster
}

fn request(election_type: i8, partitions: Option<&[(&str, &[i32])]>) -> ElectLeadersRequest {
    ElectLeadersRequest {
        election_type,
        topic_partitions: partitions.map(|list| {
            list.iter()
                .map(|(name, ids)| TopicPartitions {
                    topic: (*name).to_owned(),
                    partitions: ids.to_vec(),
                    ..Default::default()
                })
                .collect()
        }),
        ..Default::default()
    }
}

/// Decides and applies an ElectLeaders request; returns (topic, partition, error) per result.
fn elect(cluster: &mut Cluster, request: &ElectLeadersRequest) -> Vec<(String, i32, ErrorCode)> {
    let result = elect_leaders(&cluster.image, request, &ControllerDefaults::default());
    cluster.apply(&result.records);
    let elected = result
        .response
        .replica_election_results
        .iter()
        .flat_map(|t| t.partition_result.iter().map(|p| (t.topic.clone(), p)))
        .filter(|(_, p)| p.error_code == 0)
        .count();
    assert_eq!(elected, partition_changes(&result.records).len(), "one record per successful election");
    result
        .response
        .replica_election_results
        .iter()
        .flat_map(|t| {
            t.partition_result
                .iter()
                .map(|p| (t.topic.clone(), p.partition_id, ErrorCode::from_code(p.error_code).expect("known")))
        })
        .collect()
}

fn results(expected: &[(&str, i32, ErrorCode)]) -> Vec<(String, i32, ErrorCode)> {
    expected.iter().map(|(t, p, e)| ((*t).to_owned(), *p, *e)).collect()
}

/// Preferred elections: the preferred replica takes over when it is in the ISR; Kafka's codes
/// for a preferred leader that already leads, is out of the ISR, or an unknown partition.
#[test]
fn preferred_elections() {
    use ErrorCode::{ElectionNotNeeded, None, PreferredLeaderNotAvailable, UnknownTopicOrPartition};
    let mut cluster = after_a_restart();
    let got = elect(&mut cluster, &request(PREFERRED, Some(&[("t", &[0, 1, 2, 9]), ("nope", &[0])])));
    let expected = [
        ("t", 0, PreferredLeaderNotAvailable),
        ("t", 1, ElectionNotNeeded),
        ("t", 2, ElectionNotNeeded),
        ("t", 9, UnknownTopicOrPartition),
        ("nope", 0, UnknownTopicOrPartition),
    ];
    assert_eq!(got, results(&expected), "broker 1 is not back in t-0's ISR");

    let p0 = partition(&cluster, "t", 0);
    let mut expand = p0.isr.clone();
    expand.push(BrokerId(1));
    let change = strand_protocol::messages::PartitionChangeRecord {
        topic_id: cluster.image.topics().by_name("t").expect("t").id,
        partition_id: 0,
        isr: Some(expand),
        ..Default::default()
    };
    cluster.apply(&[strand_metadata::controller::ApiMessageAndVersion::latest(
        strand_protocol::messages::records::MetadataRecord::PartitionChangeRecord(change),
    )]);
    let got = elect(&mut cluster, &request(PREFERRED, Some(&[("t", &[0])])));
    assert_eq!(got, results(&[("t", 0, None)]));
    assert_eq!(leader_and_isr(&cluster, "t", 0), (1, vec![2, 3, 1]));
    assert_eq!(partition(&cluster, "t", 0).leader_epoch, p0.leader_epoch + 1);
    let got = elect(&mut cluster, &request(PREFERRED, Some(&[("t", &[0, 0])])));
    assert_eq!(got, results(&[("t", 0, ElectionNotNeeded), ("t", 0, ElectionNotNeeded)]));
}

/// A null list elects for every partition and reports only those that needed it; an empty
/// list does nothing; an unknown type is INVALID_REQUEST for the request and each partition.
#[test]
fn all_partitions_empty_and_invalid() {
    let mut cluster = after_a_restart();
    create_assigned(&mut cluster, "u", &[&[2, 1]]);
    let got = elect(&mut cluster, &request(PREFERRED, None));
    assert_eq!(got, results(&[("t", 0, ErrorCode::PreferredLeaderNotAvailable)]));
    let result = elect_leaders(&cluster.image, &request(PREFERRED, None), &ControllerDefaults::default());
    let topics: Vec<&str> = result.response.replica_election_results.iter().map(|t| t.topic.as_str()).collect();
    assert_eq!(topics, ["t", "u"], "every topic is listed, even with no partition to report");

    let empty = elect_leaders(&cluster.image, &request(PREFERRED, Some(&[])), &ControllerDefaults::default());
    assert!(empty.records.is_empty() && empty.response.replica_election_results.is_empty());

    let invalid = elect_leaders(&cluster.image, &request(5, Some(&[("t", &[0, 1])])), &ControllerDefaults::default());
    assert_eq!(invalid.response.error_code, ErrorCode::InvalidRequest.code());
    let codes: Vec<i16> =
        invalid.response.replica_election_results[0].partition_result.iter().map(|p| p.error_code).collect();
    assert_eq!(codes, [ErrorCode::InvalidRequest.code(); 2]);
    assert!(invalid.records.is_empty());
}

/// Unclean elections: not needed while a leader exists; otherwise an ISR member if one can lead,
/// else any active replica (ISR = [it], RECOVERING), else ELIGIBLE_LEADERS_NOT_AVAILABLE
/// (eligible leader replicas off; with them on, see `controller_elr.rs`).
#[test]
fn unclean_elections() {
    use ErrorCode::{ElectionNotNeeded, EligibleLeadersNotAvailable};
    let mut cluster = cluster_in_racks(&[1, 2, 3], |_| None);
    cluster.set_elr_level(0);
    create_assigned(&mut cluster, "t", &[&[1, 2, 3]]);
    create_assigned(&mut cluster, "s", &[&[3]]);
    assert_eq!(elect(&mut cluster, &request(UNCLEAN, Some(&[("t", &[0])]))), results(&[("t", 0, ElectionNotNeeded)]));
    fence(&mut cluster, 2);
    fence(&mut cluster, 3);
    fence(&mut cluster, 1);
    assert_eq!(leader_and_isr(&cluster, "t", 0), (-1, vec![1]));
    rejoin(&mut cluster, 2);
    let got = elect(&mut cluster, &request(UNCLEAN, Some(&[("t", &[0]), ("s", &[0])])));
    assert_eq!(got, results(&[("t", 0, ErrorCode::None), ("s", 0, EligibleLeadersNotAvailable)]));
    assert_eq!(leader_and_isr(&cluster, "t", 0), (2, vec![2]));
    assert_eq!(partition(&cluster, "t", 0).leader_recovery_state, LeaderRecoveryState::Recovering);
}

/// Automatic rebalancing: every partition whose preferred replica can lead moves back to it
/// (with Kafka's per-broker imbalance percentage, only brokers above it), at most
/// `elections_max` per call.
#[test]
fn preferred_leader_moves_back() {
    let mut cluster = cluster_in_racks(&[1, 2, 3], |_| None);
    create_assigned(&mut cluster, "t", &[&[1, 2], &[1, 2], &[1, 2], &[2, 1], &[2, 1], &[2, 1], &[2, 1], &[3, 1]]);
    fence(&mut cluster, 2);
    rejoin(&mut cluster, 2);
    // Broker 2 came back out of every ISR; let it rejoin them.
    let t = cluster.image.topics().by_name("t").expect("t").clone();
    let rejoin_isr: Vec<_> = t
        .partitions
        .iter()
        .filter(|(_, p)| p.replicas.len() == 2)
        .map(|(index, p)| {
            let change = strand_protocol::messages::PartitionChangeRecord {
                topic_id: t.id,
                partition_id: *index,
                isr: Some(p.replicas.clone()),
                ..Default::default()
            };
            strand_metadata::controller::ApiMessageAndVersion::latest(
                strand_protocol::messages::records::MetadataRecord::PartitionChangeRecord(change),
            )
        })
        .collect();
    cluster.apply(&rejoin_isr);
    let leaders = |cluster: &Cluster| (0..8).map(|i| partition(cluster, "t", i).leader.0).collect::<Vec<_>>();
    assert_eq!(leaders(&cluster), [1, 1, 1, 1, 1, 1, 1, 3], "broker 1 leads everything it replicates");

    let limited = LeaderRebalance { imbalance_per_broker_percentage: 0, elections_max: 2 };
    assert_eq!(
        partition_changes(&preferred_leader_moves(&cluster.image, &limited, &ControllerDefaults::default())).len(),
        2
    );
    let strict = LeaderRebalance { imbalance_per_broker_percentage: 100, elections_max: ELECTIONS_PER_CALL_MAX };
    assert!(
        preferred_leader_moves(&cluster.image, &strict, &ControllerDefaults::default()).is_empty(),
        "no broker is over 100%"
    );
    let kraft = LeaderRebalance { imbalance_per_broker_percentage: 0, elections_max: ELECTIONS_PER_CALL_MAX };
    let records = preferred_leader_moves(&cluster.image, &kraft, &ControllerDefaults::default());
    cluster.apply(&records);
    assert_eq!(leaders(&cluster), [1, 1, 1, 2, 2, 2, 2, 3]);
    assert!(preferred_leader_moves(&cluster.image, &kraft, &ControllerDefaults::default()).is_empty());
}

/// The ZooKeeper controller's ratio: a broker's partitions move back only once more than the
/// percentage of those it prefers are led by others.
#[test]
fn imbalance_percentage() {
    let mut cluster = cluster_in_racks(&[1, 2, 3], |_| None);
    create_assigned(&mut cluster, "t", &[&[1, 2], &[1, 2], &[1, 2], &[1, 2], &[1, 2]]);
    let offset = cluster.image.provenance().offset;
    // Move one of broker 1's five leaderships away with a preferred election on a swapped order.
    create_assigned(&mut cluster, "u", &[&[2, 1]]);
    heartbeat(&mut cluster, 2, offset, false, false, &CAUGHT_UP);
    let t = cluster.image.topics().by_name("t").expect("t").clone();
    let change = strand_protocol::messages::PartitionChangeRecord {
        topic_id: t.id,
        partition_id: 0,
        leader: BrokerId(2),
        ..Default::default()
    };
    cluster.apply(&[strand_metadata::controller::ApiMessageAndVersion::latest(
        strand_protocol::messages::records::MetadataRecord::PartitionChangeRecord(change),
    )]);
    let over = |percentage| {
        let rebalance = LeaderRebalance { imbalance_per_broker_percentage: percentage, elections_max: 10 };
        partition_changes(&preferred_leader_moves(&cluster.image, &rebalance, &ControllerDefaults::default())).len()
    };
    assert_eq!(over(19), 1, "1 of 5 is 20% > 19%");
    assert_eq!(over(20), 0, "20% is not over 20%");
}

/// The periodic unclean elections act only on topics that allow them, once turned on (eligible
/// leader replicas off, so the ISR keeps its last member).
#[test]
fn unclean_leader_moves_follow_the_setting() {
    let mut cluster = cluster_in_racks(&[1, 2], |_| None);
    cluster.set_elr_level(0);
    create_assigned(&mut cluster, "t", &[&[1, 2]]);
    create_assigned(&mut cluster, "u", &[&[1, 2]]);
    fence(&mut cluster, 2);
    fence(&mut cluster, 1);
    rejoin(&mut cluster, 2);
    let defaults = ControllerDefaults::default();
    assert!(unclean_leader_moves(&cluster.image, &defaults, 10).is_empty());
    set_unclean(&mut cluster, Some("u"), Some("true"));
    let records = unclean_leader_moves(&cluster.image, &defaults, 10);
    cluster.apply(&records);
    assert_eq!(leader_and_isr(&cluster, "u", 0), (2, vec![2]));
    assert_eq!(leader_and_isr(&cluster, "t", 0), (-1, vec![1]));
    assert!(unclean_leader_moves(&cluster.image, &defaults, 0).is_empty());
}

fn rack_of(id: i32) -> Option<&'static str> {
    Some(["east", "west", "north"][usize::try_from(id % 3).unwrap_or(0)])
}

/// Topics placed over racks: every partition's replicas are on distinct racks, leaders spread,
/// and CreatePartitions places the same way.
#[test]
fn placement_spreads_over_racks() {
    let mut cluster = cluster_in_racks(&[1, 2, 3, 4, 5, 6], rack_of);
    cluster.create_topic("spread", 12, 3);
    let grow = CreatePartitionsRequest {
        topics: vec![CreatePartitionsTopic {
            name: "spread".to_owned(),
            count: 18,
            assignments: None,
            ..Default::default()
        }],
        ..Default::default()
    };
    let result = create_partitions(&cluster.image, &grow);
    assert_eq!(result.response.results[0].error_code, 0);
    cluster.apply(&result.records);
    let topic = cluster.image.topics().by_name("spread").expect("created");
    let mut leaders = BTreeSet::new();
    for (index, p) in &topic.partitions {
        let racks: BTreeSet<_> = p.replicas.iter().map(|b| rack_of(b.0)).collect();
        assert_eq!(racks.len(), 3, "partition {index}: {:?}", p.replicas);
        assert_eq!(p.isr, p.replicas);
        leaders.insert(p.leader);
    }
    assert!(leaders.len() >= 3, "leaders spread: {leaders:?}");
}

/// Kafka's replication factor rules: fenced brokers count (they get replicas, not leaderships),
/// brokers in controlled shutdown do not; with every usable broker fenced creation fails.
#[test]
fn replication_factor_limits() {
    let mut cluster = cluster_in_racks(&[1, 2], |_| None);
    register_in_rack(&mut cluster, 3, None, InitialFencing::Fenced);
    let create = |cluster: &mut Cluster, rf: i16| {
        let request = CreateTopicsRequest { topics: vec![topic("x", 1, rf)], ..Default::default() };
        let image = cluster.image.clone();
        let result = create_topics(&image, &request, &ControllerDefaults::default(), &mut cluster.topic_ids());
        (ErrorCode::from_code(result.response.topics[0].error_code), result.response.topics[0].error_message.clone())
    };
    assert_eq!(create(&mut cluster, 3).0, Some(ErrorCode::None));
    let (code, message) = create(&mut cluster, 4);
    assert_eq!(code, Some(ErrorCode::InvalidReplicationFactor));
    assert_eq!(
        message.as_deref(),
        Some(
            "Unable to replicate the partition 4 time(s): The target replication factor of 4 cannot be reached \
             because only 3 broker(s) are registered or some brokers have all their log directories cordoned."
        )
    );
    create_assigned(&mut cluster, "led", &[&[2, 1]]);
    let offset = cluster.image.provenance().offset;
    heartbeat(&mut cluster, 2, offset, false, true, &CAUGHT_UP);
    assert!(cluster.image.cluster().broker(BrokerId(2)).is_some_and(|b| b.in_controlled_shutdown));
    assert_eq!(create(&mut cluster, 3).0, Some(ErrorCode::InvalidReplicationFactor), "broker 2 is shutting down");
    fence(&mut cluster, 1);
    let (code, message) = create(&mut cluster, 1);
    assert_eq!(code, Some(ErrorCode::InvalidReplicationFactor));
    assert_eq!(
        message.as_deref(),
        Some(
            "Unable to replicate the partition 1 time(s): All brokers are currently fenced, or have all their log \
             directories cordoned."
        )
    );
}
