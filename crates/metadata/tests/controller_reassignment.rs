//! Partition reassignment (KIP-455) through the public API: AlterPartitionReassignments'
//! validation and Kafka's error codes, the records that start, complete and cancel a
//! reassignment (replica order, adding and removing lists, epochs, a new leader when the old one
//! is removed), completion by AlterPartition and by fencing, and ListPartitionReassignments
//! reading the replayed image.

mod common;
mod controller_common;

use common::Cluster;
use controller_common::{cluster_in_racks, create_assigned, epoch, fence, ids, partition, rejoin, set_unclean};
use strand_base::BrokerId;
use strand_metadata::controller::{
    ControllerDefaults, alter_partition, alter_partition_reassignments, list_partition_reassignments,
};
use strand_metadata::image::PartitionImage;
use strand_protocol::error::ErrorCode;
use strand_protocol::messages::alter_partition_reassignments_request::{ReassignablePartition, ReassignableTopic};
use strand_protocol::messages::alter_partition_request::{BrokerState, PartitionData, TopicData};
use strand_protocol::messages::list_partition_reassignments_request::ListPartitionReassignmentsTopics;
use strand_protocol::messages::{
    AlterPartitionReassignmentsRequest, AlterPartitionRequest, ListPartitionReassignmentsRequest,
};

/// One partition's target: `Some(replicas)` to reassign, `None` to cancel.
type Target<'a> = (&'a str, i32, Option<&'a [i32]>);

/// Brokers 1-5.
fn base() -> Cluster {
    cluster_in_racks(&[1, 2, 3, 4, 5], |_| None)
}

fn request(targets: &[Target<'_>], allow_replication_factor_change: bool) -> AlterPartitionReassignmentsRequest {
    let mut topics: Vec<ReassignableTopic> = Vec::new();
    for (name, index, replicas) in targets {
        let partition =
            ReassignablePartition { partition_index: *index, replicas: replicas.map(ids), ..Default::default() };
        match topics.iter_mut().find(|t| t.name == *name) {
            Some(topic) => topic.partitions.push(partition),
            None => topics.push(ReassignableTopic {
                name: (*name).to_owned(),
                partitions: vec![partition],
                ..Default::default()
            }),
        }
    }
    AlterPartitionReassignmentsRequest { allow_replication_factor_change, topics, ..Default::default() }
}

/// Decides `targets` at `version` and applies the records; each partition's error code and
/// message, in request order.
fn reassign_at(
    cluster: &mut Cluster,
    targets: &[Target<'_>],
    version: i16,
    allow: bool,
) -> Vec<(ErrorCode, Option<String>)> {
    let request = request(targets, allow);
    let result = alter_partition_reassignments(&cluster.image, &request, version, &ControllerDefaults::default());
    assert_eq!(result.response.error_code, 0);
    // Version 0 has no such flag: it always allows the change, and says so from version 1.
    assert_eq!(result.response.allow_replication_factor_change, allow || version < 1);
    cluster.apply(&result.records);
    result
        .response
        .responses
        .iter()
        .flat_map(|t| t.partitions.iter())
        .map(|p| (ErrorCode::from_code(p.error_code).expect("known code"), p.error_message.clone()))
        .collect()
}

/// [`reassign_at`] at version 0; every partition must succeed.
fn reassign(cluster: &mut Cluster, targets: &[Target<'_>]) {
    for (i, (code, message)) in reassign_at(cluster, targets, 0, true).into_iter().enumerate() {
        assert_eq!((code, message), (ErrorCode::None, None), "{:?}", targets[i]);
    }
}

/// (replicas, isr, leader, adding, removing) of a partition, as plain ids.
fn state(cluster: &Cluster, topic: &str, index: i32) -> (Vec<i32>, Vec<i32>, i32, Vec<i32>, Vec<i32>) {
    let p = partition(cluster, topic, index);
    let plain = |v: &[BrokerId]| v.iter().map(|b| b.0).collect::<Vec<_>>();
    (plain(&p.replicas), plain(&p.isr), p.leader.0, plain(&p.adding_replicas), plain(&p.removing_replicas))
}

/// The partition's leader proposes `isr` at the current epochs (v3); the answer's error code.
fn alter_isr(cluster: &mut Cluster, topic: &str, index: i32, isr: &[i32]) -> ErrorCode {
    let topic_id = cluster.image.topics().by_name(topic).expect("topic").id;
    let p = partition(cluster, topic, index);
    let data = PartitionData {
        partition_index: index,
        leader_epoch: p.leader_epoch,
        new_isr_with_epochs: isr
            .iter()
            .map(|b| BrokerState { broker_id: BrokerId(*b), broker_epoch: epoch(cluster, *b), ..Default::default() })
            .collect(),
        leader_recovery_state: 0,
        partition_epoch: p.partition_epoch,
        ..Default::default()
    };
    let request = AlterPartitionRequest {
        broker_id: p.leader,
        broker_epoch: epoch(cluster, p.leader.0),
        topics: vec![TopicData { topic_id, partitions: vec![data], ..Default::default() }],
        ..Default::default()
    };
    let result = alter_partition(&cluster.image, &request, 3, &ControllerDefaults::default());
    cluster.apply(&result.records);
    ErrorCode::from_code(result.response.topics[0].partitions[0].error_code).expect("known code")
}

/// One listed reassignment: (topic, index, replicas, adding, removing).
type Ongoing = (String, i32, Vec<i32>, Vec<i32>, Vec<i32>);

/// ListPartitionReassignments for everything (`None`) or the named partitions.
fn ongoing(cluster: &Cluster, named: Option<&[(&str, &[i32])]>) -> Vec<Ongoing> {
    let topics = named.map(|named| {
        named
            .iter()
            .map(|(name, indexes)| ListPartitionReassignmentsTopics {
                name: (*name).to_owned(),
                partition_indexes: indexes.to_vec(),
                ..Default::default()
            })
            .collect()
    });
    let request = ListPartitionReassignmentsRequest { topics, ..Default::default() };
    let result = list_partition_reassignments(&cluster.image, &request);
    assert!(result.records.is_empty(), "listing writes nothing");
    assert_eq!((result.response.error_code, result.response.error_message.as_deref()), (0, None));
    let plain = |v: &[BrokerId]| v.iter().map(|b| b.0).collect::<Vec<_>>();
    result
        .response
        .topics
        .iter()
        .flat_map(|t| {
            t.partitions.iter().map(|p| {
                (
                    t.name.clone(),
                    p.partition_index,
                    plain(&p.replicas),
                    plain(&p.adding_replicas),
                    plain(&p.removing_replicas),
                )
            })
        })
        .collect()
}

fn epochs(p: &PartitionImage) -> (i32, i32) {
    (p.leader_epoch, p.partition_epoch)
}

/// Kafka's checks, each with its code; nothing is written for a failed partition, and one
/// failure does not stop the others.
#[test]
fn validation() {
    use ErrorCode::{InvalidReplicaAssignment, NoReassignmentInProgress, None as Ok, UnknownTopicOrPartition};
    let mut cluster = base();
    create_assigned(&mut cluster, "t", &[&[1, 2, 3], &[2, 3, 4]]);
    let before = cluster.image.topics().clone();
    let targets: Vec<Target<'_>> = vec![
        ("nope", 0, Some(&[1])),
        ("t", 7, Some(&[1])),
        ("t", 0, Some(&[])),
        ("t", 0, Some(&[1, 2, 2])),
        ("t", 0, Some(&[1, 9])),
        ("t", 0, Some(&[1, -1])),
        ("t", 0, None),
        ("t", 1, Some(&[2, 3, 4])),
    ];
    let codes: Vec<ErrorCode> = reassign_at(&mut cluster, &targets, 0, true).into_iter().map(|(c, _)| c).collect();
    assert_eq!(
        codes,
        [
            UnknownTopicOrPartition,
            UnknownTopicOrPartition,
            InvalidReplicaAssignment,
            InvalidReplicaAssignment,
            InvalidReplicaAssignment,
            InvalidReplicaAssignment,
            NoReassignmentInProgress,
            Ok,
        ]
    );
    assert_eq!(cluster.image.topics(), &before, "errors and a target equal to the replicas write nothing");
    let messages = reassign_at(&mut cluster, &[("nope", 0, Some(&[1])), ("t", 0, Some(&[1, 9]))], 0, true);
    assert_eq!(messages[0].1.as_deref(), Some("Unable to find a topic named nope."));
    assert_eq!(
        messages[1].1.as_deref(),
        Some("The manual partition assignment includes broker 9, but no such broker is registered.")
    );
}

/// Moving a partition off its only replica: the start lists the target then the removed replica,
/// with adding and removing, and keeps the leader and its epoch; an ISR with one new replica
/// completes nothing; the ISR with both completes it: the old leader leaves the replicas and the
/// ISR, a target replica leads (NEW_LEADER_ELECTED to the old one), the lists are cleared.
#[test]
fn move_completes_when_the_new_replicas_are_in_sync() {
    let mut cluster = base();
    create_assigned(&mut cluster, "t", &[&[1]]);
    reassign(&mut cluster, &[("t", 0, Some(&[2, 3]))]);
    assert_eq!(state(&cluster, "t", 0), (vec![2, 3, 1], vec![1], 1, vec![2, 3], vec![1]));
    let p = partition(&cluster, "t", 0);
    assert_eq!(epochs(&p), (0, 1), "the replica list grew: no new leader epoch");
    assert_eq!(p.directories.len(), 3, "a directory per replica");
    assert_eq!(ongoing(&cluster, None), [("t".to_owned(), 0, vec![2, 3, 1], vec![2, 3], vec![1])]);

    assert_eq!(alter_isr(&mut cluster, "t", 0, &[1, 2]), ErrorCode::None);
    assert_eq!(state(&cluster, "t", 0), (vec![2, 3, 1], vec![1, 2], 1, vec![2, 3], vec![1]));
    assert_eq!(alter_isr(&mut cluster, "t", 0, &[1, 2, 3]), ErrorCode::NewLeaderElected);
    assert_eq!(state(&cluster, "t", 0), (vec![2, 3], vec![2, 3], 2, vec![], vec![]));
    let p = partition(&cluster, "t", 0);
    assert_eq!(epochs(&p), (1, 3));
    let registered = |b: i32| cluster.image.cluster().broker(BrokerId(b)).expect("registered").default_dir();
    assert_eq!(p.directories, vec![registered(2), registered(3)]);
    assert!(ongoing(&cluster, None).is_empty());
}

/// A reassignment that only reorders replicas completes in its first record, with no new leader
/// epoch; one that only drops a replica completes at once too, with a new leader epoch (the
/// dropped replica is fenced) and the leader kept; one that only adds waits for the ISR.
#[test]
fn reorders_and_shrinks_complete_at_once() {
    let mut cluster = base();
    create_assigned(&mut cluster, "t", &[&[1, 2, 3], &[1, 2, 3]]);
    create_assigned(&mut cluster, "u", &[&[1, 2]]);
    reassign(&mut cluster, &[("t", 0, Some(&[3, 2, 1])), ("t", 1, Some(&[1, 3])), ("u", 0, Some(&[1, 2, 3]))]);
    assert_eq!(state(&cluster, "t", 0), (vec![3, 2, 1], vec![1, 2, 3], 1, vec![], vec![]));
    assert_eq!(epochs(&partition(&cluster, "t", 0)), (0, 1));
    assert_eq!(state(&cluster, "t", 1), (vec![1, 3], vec![1, 3], 1, vec![], vec![]));
    assert_eq!(epochs(&partition(&cluster, "t", 1)), (1, 1));
    assert_eq!(state(&cluster, "u", 0), (vec![1, 2, 3], vec![1, 2], 1, vec![3], vec![]));
    assert_eq!(ongoing(&cluster, None), [("u".to_owned(), 0, vec![1, 2, 3], vec![3], vec![])]);
    assert_eq!(alter_isr(&mut cluster, "u", 0, &[1, 2, 3]), ErrorCode::None);
    assert_eq!(state(&cluster, "u", 0), (vec![1, 2, 3], vec![1, 2, 3], 1, vec![], vec![]));
}

/// Cancelling reverts to the original replicas, dropping the adding ones from the ISR with a new
/// leader epoch; a cancellation that leaves only adding replicas in the ISR needs an unclean
/// election, refused unless the topic allows one, when the first original replica becomes the
/// ISR alone.
#[test]
fn cancel_reverts() {
    let mut cluster = base();
    create_assigned(&mut cluster, "t", &[&[1, 2]]);
    reassign(&mut cluster, &[("t", 0, Some(&[3, 4]))]);
    assert_eq!(alter_isr(&mut cluster, "t", 0, &[1, 2, 3]), ErrorCode::None);
    reassign(&mut cluster, &[("t", 0, None)]);
    assert_eq!(state(&cluster, "t", 0), (vec![1, 2], vec![1, 2], 1, vec![], vec![]));
    assert_eq!(epochs(&partition(&cluster, "t", 0)), (1, 3), "the adding replicas are fenced by a new epoch");
    assert!(ongoing(&cluster, None).is_empty());

    create_assigned(&mut cluster, "u", &[&[1, 2]]);
    reassign(&mut cluster, &[("u", 0, Some(&[3, 4]))]);
    assert_eq!(alter_isr(&mut cluster, "u", 0, &[1, 2, 3]), ErrorCode::None);
    fence(&mut cluster, 1);
    fence(&mut cluster, 2);
    assert_eq!(state(&cluster, "u", 0), (vec![3, 4, 1, 2], vec![3], 3, vec![3, 4], vec![1, 2]));
    let refused = reassign_at(&mut cluster, &[("u", 0, None)], 0, true);
    assert_eq!(refused[0].0, ErrorCode::InvalidReplicaAssignment);
    assert_eq!(
        refused[0].1.as_deref(),
        Some("Unable to revert partition assignment for u:0 because it would require an unclean leader election.")
    );
    set_unclean(&mut cluster, Some("u"), Some("true"));
    rejoin(&mut cluster, 1);
    reassign(&mut cluster, &[("u", 0, None)]);
    assert_eq!(state(&cluster, "u", 0), (vec![1, 2], vec![1], 1, vec![], vec![]));
}

/// A fenced adding replica may not join the ISR, so the reassignment waits for it; once it is
/// back and in sync the reassignment completes, the kept leader getting a new epoch because a
/// replica left.
#[test]
fn completion_waits_for_an_active_adding_replica() {
    let mut cluster = base();
    create_assigned(&mut cluster, "t", &[&[1, 2]]);
    reassign(&mut cluster, &[("t", 0, Some(&[1, 3]))]);
    assert_eq!(state(&cluster, "t", 0), (vec![1, 3, 2], vec![1, 2], 1, vec![3], vec![2]));
    fence(&mut cluster, 3);
    assert_eq!(alter_isr(&mut cluster, "t", 0, &[1, 2, 3]), ErrorCode::IneligibleReplica);
    rejoin(&mut cluster, 3);
    assert_eq!(alter_isr(&mut cluster, "t", 0, &[1, 2, 3]), ErrorCode::None);
    assert_eq!(state(&cluster, "t", 0), (vec![1, 3], vec![1, 3], 1, vec![], vec![]));
    assert_eq!(epochs(&partition(&cluster, "t", 0)), (1, 2));
}

/// A leader that is removed while out of sync replicas are still joining keeps leading until
/// the reassignment completes; fencing it meanwhile moves the leadership to an in-sync replica.
#[test]
fn removed_leader_fenced_mid_reassignment() {
    let mut cluster = base();
    create_assigned(&mut cluster, "t", &[&[1, 2, 3]]);
    reassign(&mut cluster, &[("t", 0, Some(&[2, 3, 4]))]);
    assert_eq!(state(&cluster, "t", 0), (vec![2, 3, 4, 1], vec![1, 2, 3], 1, vec![4], vec![1]));
    fence(&mut cluster, 1);
    assert_eq!(state(&cluster, "t", 0), (vec![2, 3, 4, 1], vec![2, 3], 2, vec![4], vec![1]));
    assert_eq!(alter_isr(&mut cluster, "t", 0, &[2, 3, 4]), ErrorCode::None);
    assert_eq!(state(&cluster, "t", 0), (vec![2, 3, 4], vec![2, 3, 4], 2, vec![], vec![]));
}

/// Version 1 with `allow_replication_factor_change` false refuses a target of another size
/// (INVALID_REPLICATION_FACTOR with Kafka's message), counting an ongoing reassignment's target;
/// version 0 has no such option.
#[test]
fn replication_factor_guard() {
    let mut cluster = base();
    create_assigned(&mut cluster, "t", &[&[1, 2], &[1, 2]]);
    let answers = reassign_at(&mut cluster, &[("t", 0, Some(&[3])), ("t", 1, Some(&[2, 3]))], 1, false);
    let refused =
        (ErrorCode::InvalidReplicationFactor, Some("The replication factor is changed from 2 to 1".to_owned()));
    assert_eq!(answers[0], refused);
    assert_eq!(answers[1], (ErrorCode::None, None));
    assert_eq!(state(&cluster, "t", 1), (vec![2, 3, 1], vec![1, 2], 1, vec![3], vec![1]));
    let again = reassign_at(&mut cluster, &[("t", 1, Some(&[4, 5])), ("t", 1, Some(&[4, 5, 1]))], 1, false);
    assert_eq!(again[0].0, ErrorCode::None, "the ongoing target has two replicas");
    assert_eq!(again[1].0, ErrorCode::InvalidReplicationFactor);
    let v0 = reassign_at(&mut cluster, &[("t", 0, Some(&[3]))], 0, false);
    assert_eq!(v0[0].0, ErrorCode::None, "version 0 always allows it");
}

/// ListPartitionReassignments: everything in progress by topic name, or the named partitions
/// that are reassigning (unknown topics and partitions left out).
#[test]
fn list_named_partitions() {
    let mut cluster = base();
    create_assigned(&mut cluster, "a", &[&[1], &[2], &[3]]);
    create_assigned(&mut cluster, "b", &[&[1]]);
    reassign(&mut cluster, &[("b", 0, Some(&[4])), ("a", 2, Some(&[5])), ("a", 0, Some(&[4]))]);
    let all: Vec<(String, i32)> = ongoing(&cluster, None).into_iter().map(|(t, i, ..)| (t, i)).collect();
    assert_eq!(all, [("a".to_owned(), 0), ("a".to_owned(), 2), ("b".to_owned(), 0)]);
    let named = ongoing(&cluster, Some(&[("a", &[1, 2, 9]), ("zzz", &[0]), ("b", &[0])]));
    assert_eq!(
        named,
        [("a".to_owned(), 2, vec![5, 3], vec![5], vec![3]), ("b".to_owned(), 0, vec![4, 1], vec![4], vec![1])]
    );
    assert!(ongoing(&cluster, Some(&[("a", &[1])])).is_empty());
}
