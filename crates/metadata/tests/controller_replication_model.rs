//! Seeded random sequences of the replication decisions (session expiry, heartbeats with every
//! wish, AlterPartition proposals fresh and stale, preferred and unclean elections, rebalancing,
//! unclean settings, new incarnations, reassignments started, changed and cancelled) on clusters
//! of 3 to 5 brokers, each decision replayed into the image, which must keep Kafka's invariants
//! after every step:
//! - a leader is in its ISR, or there is none (-1); the ISR is a repeat-free subset of the
//!   replicas, empty only with eligible leader replicas on, and every member is active unless it
//!   is the last one;
//! - eligible leader replicas (KIP-966, run with the feature at 0 and at 1): none with the
//!   feature off; with it on, a repeat-free subset of the replicas outside the ISR, none while the
//!   ISR holds `min.insync.replicas`, and a last known ELR of at most one broker;
//! - fenced brokers and brokers in controlled shutdown lead nothing;
//! - the replicas are repeat-free, the adding and removing replicas among them; a reassignment
//!   whose ISR allows completing it has completed (unless an unclean election set the ISR after
//!   the completion check, as Kafka's builder does: the leader is then RECOVERING; or an election
//!   from the ELR did, leaving the new leader alone in the ISR);
//! - the leader epoch grows by one exactly when the leader changes or a replica leaves the
//!   replicas, the partition epoch by one exactly when anything changes;
//! - responses agree with the replayed image (heartbeat fencing, AlterPartition's echo);
//! - at the end, the image's snapshot records (`MetadataImage::to_records`) recreate it exactly.
//!
//! proptest prints the smallest failing sequence (and keeps its seed in `proptest-regressions`).

mod common;
mod controller_common;

use std::collections::BTreeMap;

use common::{Cluster, from_snapshot_records};
use controller_common::{cluster_in_racks, epoch, register_incarnation, set_unclean};
use proptest::prelude::*;
use strand_base::BrokerId;
use strand_metadata::controller::{
    ControllerDefaults, ELECTIONS_PER_CALL_MAX, HeartbeatInputs, InitialFencing, LeaderRebalance, alter_partition,
    alter_partition_reassignments, broker_heartbeat, elect_leaders, fence_broker, preferred_leader_moves,
    unclean_leader_moves,
};
use strand_metadata::image::{
    ELIGIBLE_LEADER_REPLICAS_VERSION, LeaderRecoveryState, MetadataImage, NO_LEADER, PartitionImage,
};
use strand_protocol::messages::alter_partition_reassignments_request::{ReassignablePartition, ReassignableTopic};
use strand_protocol::messages::alter_partition_request::{BrokerState, PartitionData, TopicData};
use strand_protocol::messages::elect_leaders_request::TopicPartitions;
use strand_protocol::messages::{
    AlterPartitionReassignmentsRequest, AlterPartitionRequest, BrokerHeartbeatRequest, ElectLeadersRequest,
};

const TOPICS: [&str; 3] = ["a", "b", "c"];

/// One step of the random mix. Brokers and partitions are picked by index modulo what exists.
#[derive(Debug, Clone)]
enum Op {
    SessionExpired {
        broker: usize,
    },
    Heartbeat {
        broker: usize,
        want_fence: bool,
        want_shut_down: bool,
        caught_up: bool,
        others_caught_up: bool,
    },
    Alter {
        topic: usize,
        partition: usize,
        members: u8,
        stale: bool,
        version: i16,
    },
    Elect {
        topic: usize,
        partition: usize,
        unclean: bool,
    },
    Rebalance,
    UncleanMoves,
    SetUnclean {
        topic: Option<usize>,
        enabled: bool,
    },
    Reregister {
        broker: usize,
    },
    /// Reassigns to the brokers `target` picks (cancels with `None`), at version 1 when
    /// `keep_factor` forbids a replication factor change.
    Reassign {
        topic: usize,
        partition: usize,
        target: Option<Vec<usize>>,
        keep_factor: bool,
    },
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        3 => (0..5_usize).prop_map(|broker| Op::SessionExpired { broker }),
        6 => (0..5_usize, any::<bool>(), prop::bool::weighted(0.2), prop::bool::weighted(0.8), any::<bool>()).prop_map(
            |(broker, want_fence, want_shut_down, caught_up, others_caught_up)| Op::Heartbeat {
                broker,
                want_fence: want_fence && !want_shut_down && broker % 2 == 0,
                want_shut_down,
                caught_up,
                others_caught_up,
            }
        ),
        6 => (0..3_usize, 0..3_usize, any::<u8>(), prop::bool::weighted(0.2), 2..=3_i16).prop_map(
            |(topic, partition, members, stale, version)| Op::Alter { topic, partition, members, stale, version }
        ),
        2 => (0..3_usize, 0..3_usize, any::<bool>()).prop_map(|(topic, partition, unclean)| Op::Elect {
            topic,
            partition,
            unclean
        }),
        1 => Just(Op::Rebalance),
        1 => Just(Op::UncleanMoves),
        1 => (prop::option::of(0..3_usize), any::<bool>()).prop_map(|(topic, enabled)| Op::SetUnclean { topic, enabled }),
        1 => (0..5_usize).prop_map(|broker| Op::Reregister { broker }),
        3 => (0..3_usize, 0..3_usize, prop::option::weighted(0.8, prop::collection::vec(0..5_usize, 1..=4)), any::<bool>())
            .prop_map(|(topic, partition, target, keep_factor)| Op::Reassign { topic, partition, target, keep_factor }),
    ]
}

/// A cluster of `brokers` brokers over two racks, and topics `a` (RF 3), `b` (RF 2), `c` (RF 1),
/// three partitions each.
fn cluster(brokers: i32, elr_level: i16) -> Cluster {
    let ids: Vec<i32> = (1..=brokers).collect();
    let mut cluster = cluster_in_racks(&ids, |id| Some(if id % 2 == 0 { "even" } else { "odd" }));
    cluster.set_elr_level(elr_level);
    for (name, rf) in TOPICS.iter().zip([3, 2, 1]) {
        cluster.create_topic(name, 3, rf);
    }
    cluster
}

/// Runs one step; returns a complaint if a response disagrees with the replayed image.
fn step(cluster: &mut Cluster, op: &Op, brokers: i32, incarnations: &mut u8) -> Result<(), String> {
    let broker_at = |i: usize| BrokerId(i32::try_from(i).unwrap_or(0) % brokers + 1);
    let defaults = ControllerDefaults::default();
    match *op {
        Op::SessionExpired { broker } => {
            let records = fence_broker(&cluster.image, broker_at(broker), &defaults);
            cluster.apply(&records);
        }
        Op::Heartbeat { broker, want_fence, want_shut_down, caught_up, others_caught_up } => {
            heartbeat(cluster, broker_at(broker), [want_fence, want_shut_down, caught_up, others_caught_up])?;
        }
        Op::Alter { topic, partition, members, stale, version } => {
            alter(cluster, TOPICS[topic], i32::try_from(partition).unwrap_or(0), members, stale, version)?;
        }
        Op::Elect { topic, partition, unclean } => {
            let request = ElectLeadersRequest {
                election_type: i8::from(unclean),
                topic_partitions: Some(vec![TopicPartitions {
                    topic: TOPICS[topic].to_owned(),
                    partitions: vec![i32::try_from(partition).unwrap_or(0)],
                    ..Default::default()
                }]),
                ..Default::default()
            };
            let result = elect_leaders(&cluster.image, &request, &ControllerDefaults::default());
            cluster.apply(&result.records);
        }
        Op::Rebalance => {
            let rebalance =
                LeaderRebalance { imbalance_per_broker_percentage: 0, elections_max: ELECTIONS_PER_CALL_MAX };
            let records = preferred_leader_moves(&cluster.image, &rebalance, &ControllerDefaults::default());
            cluster.apply(&records);
        }
        Op::UncleanMoves => {
            let records = unclean_leader_moves(&cluster.image, &defaults, ELECTIONS_PER_CALL_MAX);
            cluster.apply(&records);
        }
        Op::SetUnclean { topic, enabled } => {
            set_unclean(cluster, topic.map(|t| TOPICS[t]), Some(if enabled { "true" } else { "false" }));
        }
        Op::Reregister { broker } => {
            *incarnations = incarnations.wrapping_add(1);
            register_incarnation(cluster, broker_at(broker).0, None, InitialFencing::Fenced, *incarnations);
        }
        Op::Reassign { topic, partition, ref target, keep_factor } => {
            let request = AlterPartitionReassignmentsRequest {
                allow_replication_factor_change: !keep_factor,
                topics: vec![ReassignableTopic {
                    name: TOPICS[topic].to_owned(),
                    partitions: vec![ReassignablePartition {
                        partition_index: i32::try_from(partition).unwrap_or(0),
                        replicas: target.as_ref().map(|t| t.iter().map(|i| broker_at(*i)).collect()),
                        ..Default::default()
                    }],
                    ..Default::default()
                }],
                ..Default::default()
            };
            let result = alter_partition_reassignments(&cluster.image, &request, 1, &defaults);
            cluster.apply(&result.records);
            let answer = &result.response.responses[0].partitions[0];
            let most = if answer.error_code == 0 { 1 } else { 0 };
            if result.records.len() > most {
                return Err(format!("{} records for {answer:?}", result.records.len()));
            }
        }
    }
    Ok(())
}

fn heartbeat(
    cluster: &mut Cluster,
    broker: BrokerId,
    [want_fence, want_shut_down, caught_up, others]: [bool; 4],
) -> Result<(), String> {
    let broker_epoch = epoch(cluster, broker.0);
    let request = BrokerHeartbeatRequest {
        broker_id: broker,
        broker_epoch,
        current_metadata_offset: if caught_up { cluster.image.provenance().offset } else { broker_epoch - 1 },
        want_fence,
        want_shut_down,
        ..Default::default()
    };
    let inputs = HeartbeatInputs {
        controlled_shutdown_offset: None,
        active_metadata_offset_min: if others { i64::MAX } else { -1 },
    };
    let result = broker_heartbeat(&cluster.image, &request, &inputs, &ControllerDefaults::default());
    cluster.apply(&result.records);
    let registration = cluster.image.cluster().broker(broker).ok_or("registered")?;
    let response = &result.response;
    if response.error_code != 0 || response.is_fenced != registration.fenced {
        return Err(format!("heartbeat response {response:?} for {registration:?}"));
    }
    if response.should_shut_down && leads_something(&cluster.image, broker) {
        return Err(format!("broker {broker} told to stop while leading"));
    }
    Ok(())
}

/// The partition's leader (or broker 1 when there is none) proposes its ISR plus the replicas
/// `members` picks, at the current epochs or older ones.
fn alter(cluster: &mut Cluster, topic: &str, index: i32, members: u8, stale: bool, version: i16) -> Result<(), String> {
    let topic_image = cluster.image.topics().by_name(topic).ok_or("topic")?;
    let (id, p) = (topic_image.id, topic_image.partitions.get(&index).ok_or("partition")?.clone());
    let sender = if p.has_leader() { p.leader } else { BrokerId(1) };
    let mut isr = vec![sender];
    isr.extend(
        p.replicas.iter().enumerate().filter(|(i, b)| members & (1 << i) != 0 && **b != sender).map(|(_, b)| *b),
    );
    let lag = i32::from(stale);
    let data = PartitionData {
        partition_index: index,
        leader_epoch: p.leader_epoch - lag,
        new_isr: isr.clone(),
        new_isr_with_epochs: isr
            .iter()
            .map(|b| BrokerState { broker_id: *b, broker_epoch: epoch(cluster, b.0), ..Default::default() })
            .collect(),
        leader_recovery_state: 0,
        partition_epoch: p.partition_epoch - lag,
        ..Default::default()
    };
    let request = AlterPartitionRequest {
        broker_id: sender,
        broker_epoch: epoch(cluster, sender.0),
        topics: vec![TopicData { topic_id: id, partitions: vec![data], ..Default::default() }],
        ..Default::default()
    };
    let result = alter_partition(&cluster.image, &request, version, &ControllerDefaults::default());
    cluster.apply(&result.records);
    let answer = &result.response.topics[0].partitions[0];
    let now = partition_of(&cluster.image, topic, index);
    let echoed = (answer.leader_id, &answer.isr, answer.leader_epoch, answer.partition_epoch);
    if answer.error_code == 0 && echoed != (now.leader, &now.isr, now.leader_epoch, now.partition_epoch) {
        return Err(format!("AlterPartition answered {answer:?}, the image has {now:?}"));
    }
    Ok(())
}

fn partition_of(image: &MetadataImage, topic: &str, index: i32) -> PartitionImage {
    image.topics().by_name(topic).and_then(|t| t.partitions.get(&index)).cloned().expect("partition")
}

fn leads_something(image: &MetadataImage, broker: BrokerId) -> bool {
    image.topics().iter().any(|t| t.partitions.values().any(|p| p.leader == broker))
}

fn partitions(image: &MetadataImage) -> BTreeMap<(String, i32), PartitionImage> {
    image.topics().iter().flat_map(|t| t.partitions.iter().map(|(i, p)| ((t.name.clone(), *i), p.clone()))).collect()
}

/// The invariants of one partition, alone and against its state before the step.
fn check_partition(
    image: &MetadataImage,
    before: &PartitionImage,
    p: &PartitionImage,
    min_isr: usize,
) -> Result<(), String> {
    let cluster = image.cluster();
    let elr_on = image.features().level(ELIGIBLE_LEADER_REPLICAS_VERSION) >= 1;
    let repeat_free_replicas = |list: &[BrokerId]| {
        let mut distinct = list.to_vec();
        distinct.sort();
        distinct.dedup();
        distinct.len() == list.len() && list.iter().all(|b| p.replicas.contains(b))
    };
    if (p.isr.is_empty() && !elr_on) || !repeat_free_replicas(&p.isr) {
        return Err("ISR empty, repeated, or outside the replicas".to_owned());
    }
    if p.isr.is_empty() && p.leader != NO_LEADER {
        return Err("a leader without an ISR".to_owned());
    }
    check_elr(p, elr_on, min_isr)?;
    if p.leader != NO_LEADER && !(p.isr.contains(&p.leader) && cluster.is_active(p.leader)) {
        return Err("the leader is out of the ISR, fenced or shutting down".to_owned());
    }
    if p.isr.len() > 1 && !p.isr.iter().all(|b| cluster.is_active(*b)) {
        return Err("an inactive broker is in an ISR with others".to_owned());
    }
    check_reassignment(p, elr_on)?;
    let leader_changed = p.leader != before.leader;
    let replica_left = before.replicas.iter().any(|b| !p.replicas.contains(b));
    if p.leader_epoch != before.leader_epoch + i32::from(leader_changed || replica_left) {
        return Err(format!(
            "leader epoch {} -> {} with leader changed: {leader_changed}, a replica left: {replica_left}",
            before.leader_epoch, p.leader_epoch
        ));
    }
    let unchanged = |x: &PartitionImage| {
        let lists = [&x.isr, &x.replicas, &x.adding_replicas, &x.removing_replicas, &x.elr, &x.last_known_elr]
            .map(|l| l.clone());
        (x.leader, x.leader_recovery_state, lists)
    };
    let changed = unchanged(p) != unchanged(before);
    if p.partition_epoch != before.partition_epoch + i32::from(changed) {
        return Err(format!(
            "partition epoch {} -> {} with change: {changed}",
            before.partition_epoch, p.partition_epoch
        ));
    }
    Ok(())
}

/// The ELR rules: none with the feature off; with it on, repeat-free replicas outside the ISR,
/// none while the ISR holds `min_isr`; the last known ELR names at most the last leader.
fn check_elr(p: &PartitionImage, elr_on: bool, min_isr: usize) -> Result<(), String> {
    if !elr_on {
        return if p.elr.is_empty() { Ok(()) } else { Err("an ELR with the feature off".to_owned()) };
    }
    let mut distinct = p.elr.clone();
    distinct.sort();
    distinct.dedup();
    if distinct.len() != p.elr.len() || p.elr.iter().any(|b| p.isr.contains(b) || !p.replicas.contains(b)) {
        return Err("ELR repeated, in the ISR, or outside the replicas".to_owned());
    }
    if p.isr.len() >= min_isr && !p.elr.is_empty() {
        return Err(format!("an ELR while the ISR holds min.insync.replicas ({min_isr})"));
    }
    if p.last_known_elr.len() > 1 {
        return Err("a last known ELR of more than the last leader".to_owned());
    }
    Ok(())
}

/// Replicas without repeats, adding and removing among them, and no reassignment left that its
/// ISR would let complete (Kafka's `maybeCompleteReassignment`) but after an unclean election or
/// an election from the ELR (whose ISR of the new leader alone is set after the completion check,
/// as Kafka's builder does; the next change completes it).
fn check_reassignment(p: &PartitionImage, elr_on: bool) -> Result<(), String> {
    let mut distinct = p.replicas.clone();
    distinct.sort();
    distinct.dedup();
    if distinct.len() != p.replicas.len() {
        return Err("repeated replicas".to_owned());
    }
    if !p.adding_replicas.iter().chain(&p.removing_replicas).all(|b| p.replicas.contains(b)) {
        return Err("an adding or removing replica is not a replica".to_owned());
    }
    let elected_from_elr = elr_on && p.isr == [p.leader];
    if !p.is_reassigning() || p.leader_recovery_state == LeaderRecoveryState::Recovering || elected_from_elr {
        return Ok(());
    }
    let staying = |b: &&BrokerId| !p.removing_replicas.contains(b);
    let isr: Vec<&BrokerId> = p.isr.iter().filter(staying).collect();
    let replicas: Vec<&BrokerId> = p.replicas.iter().filter(staying).collect();
    if !isr.is_empty() && !replicas.is_empty() && replicas.iter().all(|b| isr.contains(b)) {
        return Err("a reassignment that could complete is still in progress".to_owned());
    }
    Ok(())
}

fn check_image(before: &MetadataImage, after: &MetadataImage) -> Result<(), String> {
    let old = partitions(before);
    let defaults = ControllerDefaults::default();
    for (key, p) in partitions(after) {
        let previous = old.get(&key).ok_or("a partition appeared")?;
        let configured = defaults.topic_configs(after).topic(&key.0).long("min.insync.replicas");
        let min_isr = usize::try_from(configured).unwrap_or(1).min(p.replicas.len()).max(1);
        check_partition(after, previous, &p, min_isr)
            .map_err(|e| format!("{}-{}: {e}\n  before {previous:?}\n  after  {p:?}", key.0, key.1))?;
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    /// Random decision sequences keep every partition's leader, ISR and epochs consistent.
    #[test]
    fn random_replication_decisions_keep_invariants(
        brokers in 3..=5_i32,
        elr_level in 0..=1_i16,
        ops in proptest::collection::vec(op(), 1..80),
    ) {
        let mut cluster = cluster(brokers, elr_level);
        let mut incarnations = 0_u8;
        prop_assert_eq!(check_image(&cluster.image, &cluster.image), Ok(()));
        for (i, op) in ops.iter().enumerate() {
            let before = cluster.image.clone();
            let stepped = step(&mut cluster, op, brokers, &mut incarnations);
            prop_assert_eq!(stepped, Ok(()), "step {} {:?}", i, op);
            prop_assert_eq!(check_image(&before, &cluster.image), Ok(()), "step {} {:?}", i, op);
        }
        // A metadata snapshot of whatever the decisions left recreates it exactly.
        prop_assert_eq!(from_snapshot_records(&cluster.image), cluster.image);
    }
}
