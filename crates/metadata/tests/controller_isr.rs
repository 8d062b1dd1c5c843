//! AlterPartition through the public API: a table of proposals against Kafka's error codes, in
//! Kafka's order of checks, and accepted changes replayed into the image, whose state the
//! response must echo.

mod common;
mod controller_common;

use common::Cluster;
use controller_common::{
    CAUGHT_UP, cluster_in_racks, create_assigned, epoch, fence, heartbeat, ids, leader_and_isr, partition,
    partition_changes, rejoin, set_unclean,
};
use strand_base::{BrokerId, Uuid};
use strand_metadata::controller::{ControllerDefaults, alter_partition};
use strand_metadata::image::LeaderRecoveryState;
use strand_protocol::error::ErrorCode;
use strand_protocol::messages::AlterPartitionRequest;
use strand_protocol::messages::alter_partition_request::{BrokerState, PartitionData, TopicData};
use strand_protocol::messages::alter_partition_response;

/// Brokers 1-4; topic `t` with partition 0 on [1, 2, 3] led by 1.
fn base() -> (Cluster, Uuid) {
    let mut cluster = cluster_in_racks(&[1, 2, 3, 4], |_| None);
    let id = create_assigned(&mut cluster, "t", &[&[1, 2, 3]]);
    (cluster, id)
}

/// A proposal for partition 0 of `topic_id` at the partition's current epochs, from its leader.
#[derive(Debug, Clone)]
struct Proposal {
    broker: i32,
    broker_epoch: Option<i64>,
    topic_id: Uuid,
    partition: i32,
    leader_epoch: i32,
    partition_epoch: i32,
    isr: Vec<(i32, i64)>,
    recovery: i8,
    version: i16,
}

impl Proposal {
    /// The current leader proposes `isr` (v3, with each member's registered epoch).
    fn new(cluster: &Cluster, topic_id: Uuid, isr: &[i32]) -> Proposal {
        let p = partition(cluster, "t", 0);
        Proposal {
            broker: p.leader.0,
            broker_epoch: None,
            topic_id,
            partition: 0,
            leader_epoch: p.leader_epoch,
            partition_epoch: p.partition_epoch,
            isr: isr
                .iter()
                .map(|b| (*b, cluster.image.cluster().broker(BrokerId(*b)).map_or(-1, |r| r.epoch)))
                .collect(),
            recovery: 0,
            version: 3,
        }
    }

    fn request(&self, cluster: &Cluster) -> AlterPartitionRequest {
        let data = PartitionData {
            partition_index: self.partition,
            leader_epoch: self.leader_epoch,
            new_isr: self.isr.iter().map(|(b, _)| BrokerId(*b)).collect(),
            new_isr_with_epochs: self
                .isr
                .iter()
                .map(|(b, e)| BrokerState { broker_id: BrokerId(*b), broker_epoch: *e, ..Default::default() })
                .collect(),
            leader_recovery_state: self.recovery,
            partition_epoch: self.partition_epoch,
            ..Default::default()
        };
        AlterPartitionRequest {
            broker_id: BrokerId(self.broker),
            broker_epoch: self.broker_epoch.unwrap_or_else(|| epoch(cluster, self.broker)),
            topics: vec![TopicData { topic_id: self.topic_id, partitions: vec![data], ..Default::default() }],
            ..Default::default()
        }
    }

    /// Decides and applies; returns the one partition's response.
    fn send(&self, cluster: &mut Cluster) -> alter_partition_response::PartitionData {
        let result =
            alter_partition(&cluster.image, &self.request(cluster), self.version, &ControllerDefaults::default());
        assert_eq!(result.response.error_code, 0);
        cluster.apply(&result.records);
        let topic = &result.response.topics[0];
        assert_eq!(topic.topic_id, self.topic_id);
        topic.partitions[0].clone()
    }
}

/// Each proposal gets Kafka's error code and writes nothing.
fn check_error(cluster: &mut Cluster, proposal: &Proposal, expected: ErrorCode) {
    let before = cluster.image.clone();
    let response = proposal.send(cluster);
    assert_eq!(ErrorCode::from_code(response.error_code), Some(expected), "isr {:?}", proposal.isr);
    assert_eq!(cluster.image.topics(), before.topics(), "an error changes nothing");
}

/// The checks, in Kafka's order, each with its error code.
#[test]
fn alter_partition_errors() {
    use ErrorCode::{
        FencedLeaderEpoch, IneligibleReplica, InvalidRequest, InvalidUpdateVersion, NotController, UnknownTopicId,
        UnknownTopicOrPartition,
    };
    let (mut cluster, id) = base();
    let template = Proposal::new(&cluster, id, &[1, 2]);
    let ok = || template.clone();
    let cases: Vec<(Proposal, ErrorCode)> = vec![
        (Proposal { topic_id: Uuid([9; 16]), ..ok() }, UnknownTopicId),
        (Proposal { topic_id: Uuid::ZERO, ..ok() }, UnknownTopicId),
        (Proposal { partition: 5, ..ok() }, UnknownTopicOrPartition),
        (Proposal { leader_epoch: 1, ..ok() }, NotController),
        (Proposal { partition_epoch: 1, ..ok() }, NotController),
        (Proposal { leader_epoch: -1, broker: 2, ..ok() }, FencedLeaderEpoch),
        (Proposal { broker: 2, ..ok() }, InvalidRequest),
        (Proposal { partition_epoch: -1, isr: vec![(9, -1)], ..ok() }, InvalidUpdateVersion),
        (Proposal { isr: vec![(1, -1), (4, -1)], ..ok() }, InvalidRequest),
        (Proposal { isr: vec![(1, -1), (1, -1)], ..ok() }, InvalidRequest),
        (Proposal { isr: vec![(2, -1), (3, -1)], ..ok() }, InvalidRequest),
        (Proposal { isr: vec![], ..ok() }, InvalidRequest),
        (Proposal { recovery: 1, isr: vec![(1, -1)], ..ok() }, InvalidRequest),
        (Proposal { recovery: 7, ..ok() }, InvalidRequest),
        (Proposal { isr: vec![(1, -1), (2, 12_345)], ..ok() }, IneligibleReplica),
    ];
    for (proposal, expected) in &cases {
        check_error(&mut cluster, proposal, *expected);
    }
    let stale = Proposal { broker_epoch: Some(77), ..ok() };
    let result = alter_partition(&cluster.image, &stale.request(&cluster), 3, &ControllerDefaults::default());
    assert_eq!(result.response.error_code, ErrorCode::StaleBrokerEpoch.code());
    assert!(result.response.topics.is_empty() && result.records.is_empty());
}

/// KIP-841: a fenced or shutting-down broker may not join the ISR; an unknown epoch (-1, and
/// every member at version 2) skips only the epoch check.
#[test]
fn only_active_brokers_join() {
    let (mut cluster, id) = base();
    Proposal::new(&cluster, id, &[1]).send(&mut cluster);
    fence(&mut cluster, 2);
    let proposal = Proposal::new(&cluster, id, &[1, 2]);
    check_error(&mut cluster, &proposal, ErrorCode::IneligibleReplica);
    let proposal = Proposal { version: 2, ..Proposal::new(&cluster, id, &[1, 2]) };
    check_error(&mut cluster, &proposal, ErrorCode::IneligibleReplica);
    create_assigned(&mut cluster, "u", &[&[3, 4]]);
    let offset = cluster.image.provenance().offset;
    heartbeat(&mut cluster, 3, offset, false, true, &CAUGHT_UP);
    let three = cluster.image.cluster().broker(BrokerId(3)).expect("registered");
    assert!(three.in_controlled_shutdown && !three.fenced, "broker 3 led u-0, so it shuts down under control");
    let proposal = Proposal::new(&cluster, id, &[1, 3]);
    check_error(&mut cluster, &proposal, ErrorCode::IneligibleReplica);
    rejoin(&mut cluster, 2);
    let unknown_epoch = Proposal { isr: vec![(1, -1), (2, -1)], ..Proposal::new(&cluster, id, &[1]) };
    assert_eq!(unknown_epoch.send(&mut cluster).error_code, 0);
    assert_eq!(leader_and_isr(&cluster, "t", 0), (1, vec![1, 2]));
}

/// Shrinking and expanding: one record each, the response echoes the replayed state (same
/// leader epoch, partition epoch + 1), v2 and v3 alike; a proposal that changes nothing writes
/// nothing and answers the current state.
#[test]
fn shrink_and_expand() {
    let (mut cluster, id) = base();
    let shrink = Proposal::new(&cluster, id, &[1, 3]);
    let response = shrink.send(&mut cluster);
    let p = partition(&cluster, "t", 0);
    assert_eq!(p.isr, ids(&[1, 3]));
    assert_eq!((p.leader_epoch, p.partition_epoch), (0, 1));
    let expected = alter_partition_response::PartitionData {
        partition_index: 0,
        error_code: 0,
        leader_id: BrokerId(1),
        leader_epoch: 0,
        isr: ids(&[1, 3]),
        leader_recovery_state: 0,
        partition_epoch: 1,
        ..Default::default()
    };
    assert_eq!(response, expected);
    check_error(&mut cluster, &shrink, ErrorCode::InvalidUpdateVersion);

    let expand = Proposal { version: 2, isr: vec![(1, 99), (3, 99), (2, 99)], ..Proposal::new(&cluster, id, &[]) };
    let response = expand.send(&mut cluster);
    assert_eq!((response.error_code, response.partition_epoch, response.isr.clone()), (0, 2, ids(&[1, 3, 2])));
    assert_eq!(partition(&cluster, "t", 0).isr, ids(&[1, 3, 2]), "version 2 ignores the epochs");

    let same = Proposal::new(&cluster, id, &[1, 3, 2]);
    let result = alter_partition(&cluster.image, &same.request(&cluster), 3, &ControllerDefaults::default());
    assert!(result.records.is_empty());
    assert_eq!(result.response.topics[0].partitions[0].partition_epoch, 2);
}

/// The same partition twice in one request: the second entry is judged on the first's result.
#[test]
fn repeated_partition_sees_the_first_change() {
    let (cluster, id) = base();
    let mut request = Proposal::new(&cluster, id, &[1, 2]).request(&cluster);
    let again = request.topics[0].partitions[0].clone();
    request.topics[0].partitions.push(again);
    let result = alter_partition(&cluster.image, &request, 3, &ControllerDefaults::default());
    let codes: Vec<i16> = result.response.topics[0].partitions.iter().map(|p| p.error_code).collect();
    assert_eq!(codes, [0, ErrorCode::InvalidUpdateVersion.code()]);
    assert_eq!(partition_changes(&result.records).len(), 1);
}

/// After an unclean election the leader is RECOVERING: it may not grow the ISR until it reports
/// RECOVERED, which it may do with the ISR of itself alone. (Eligible leader replicas off: with
/// them on, the replicas that left the ISR are eligible and the election is clean.)
#[test]
fn recovering_leader() {
    let (mut cluster, id) = base();
    cluster.set_elr_level(0);
    Proposal::new(&cluster, id, &[1]).send(&mut cluster);
    set_unclean(&mut cluster, Some("t"), Some("true"));
    fence(&mut cluster, 1);
    let p = partition(&cluster, "t", 0);
    assert_eq!((p.leader.0, p.leader_recovery_state), (2, LeaderRecoveryState::Recovering));

    let grow = Proposal { recovery: 1, ..Proposal::new(&cluster, id, &[2, 3]) };
    check_error(&mut cluster, &grow, ErrorCode::InvalidRequest);
    let stay = Proposal { recovery: 1, ..Proposal::new(&cluster, id, &[2]) };
    let response = stay.send(&mut cluster);
    assert_eq!((response.error_code, response.leader_recovery_state), (0, 1));
    let recovered = Proposal::new(&cluster, id, &[2]);
    let response = recovered.send(&mut cluster);
    assert_eq!((response.error_code, response.leader_recovery_state), (0, 0));
    assert_eq!(partition(&cluster, "t", 0).leader_recovery_state, LeaderRecoveryState::Recovered);
    let response = Proposal::new(&cluster, id, &[2, 3]).send(&mut cluster);
    assert_eq!((response.error_code, response.isr), (0, ids(&[2, 3])));
}
