//! Eligible leader replicas (KIP-966 part 1) through the controller's public decisions, with
//! `eligible.leader.replicas.version` 1 as a new cluster finalizes it: fencing below
//! `min.insync.replicas` fills the ELR and may empty the ISR, unfencing an ELR member elects it
//! cleanly, a re-registration after an unclean shutdown (`previous_broker_epoch` not the
//! registered epoch) removes the broker from every ELR, the last known leader is elected (as
//! Kafka 4.4's balanced recovery) only when ISR and ELR are empty, and `min.insync.replicas`
//! changes clear ELRs or are refused as Kafka's `ConfigurationControlManager` does. The same
//! sequences with the feature at 0 are in `controller_brokers.rs` and `controller_elections.rs`.

mod common;
mod controller_common;

use common::Cluster;
use controller_common::{cluster_in_racks, create_assigned, epoch, fence, ids, leader_and_isr, partition, rejoin};
use strand_base::BrokerId;
use strand_metadata::controller::{
    ControllerDefaults, InitialFencing, PreviousSession, RegisterBrokerInputs, elect_leaders,
    incremental_alter_configs, register_broker,
};
use strand_metadata::image::{ConfigResourceKind, LeaderRecoveryState};
use strand_metadata::testkit::{CLUSTER_ID, registration};
use strand_protocol::error::ErrorCode;
use strand_protocol::messages::records::MetadataRecord;
use strand_protocol::messages::{
    ElectLeadersRequest, IncrementalAlterConfigsRequest, incremental_alter_configs_request,
};

/// Brokers 1-3 and topic `t` (one partition, replicas 1, 2, 3; `min.insync.replicas` 2, as
/// Strand sets it on a topic of three replicas).
fn three_brokers() -> Cluster {
    let mut cluster = cluster_in_racks(&[1, 2, 3], |_| None);
    create_assigned(&mut cluster, "t", &[&[1, 2, 3]]);
    cluster
}

/// (leader, ISR, ELR, last known ELR) of `t`-0.
fn state(cluster: &Cluster) -> (i32, Vec<i32>, Vec<i32>, Vec<i32>) {
    let p = partition(cluster, "t", 0);
    let list = |l: &[BrokerId]| l.iter().map(|b| b.0).collect();
    (p.leader.0, list(&p.isr), list(&p.elr), list(&p.last_known_elr))
}

/// A new incarnation of broker `id` registering with `previous_broker_epoch` (its clean
/// shutdown's epoch, or -1 after a crash), its old session expired.
fn reregister(cluster: &mut Cluster, id: i32, previous_broker_epoch: i64) {
    let mut request = registration(id);
    request.incarnation_id.0[0] = request.incarnation_id.0[0].wrapping_add(1);
    request.previous_broker_epoch = previous_broker_epoch;
    let inputs = RegisterBrokerInputs {
        cluster_id: CLUSTER_ID.to_owned(),
        new_broker_epoch: cluster.image.provenance().offset + 1,
        previous_session: PreviousSession::Expired,
        initial_fencing: InitialFencing::Fenced,
    };
    let result = register_broker(&cluster.image, &request, &inputs, &ControllerDefaults::default());
    assert_eq!(result.response.error_code, 0);
    cluster.apply(&result.records);
}

/// Fencing replicas one by one: the ISR shrinks to min ISR with no ELR, below it the replicas
/// that leave become eligible, the last one leaves too (no leader, last known ELR = it); a broker
/// outside the ELR coming back leads nothing, an ELR member coming back leads with ISR = itself.
#[test]
fn fencing_fills_the_elr_and_unfencing_elects_from_it() {
    let mut cluster = three_brokers();
    assert_eq!(state(&cluster), (1, vec![1, 2, 3], vec![], vec![]));
    fence(&mut cluster, 3);
    assert_eq!(state(&cluster), (1, vec![1, 2], vec![], vec![]));
    fence(&mut cluster, 2);
    assert_eq!(state(&cluster), (1, vec![1], vec![2], vec![]));
    let epoch_before = partition(&cluster, "t", 0).leader_epoch;
    fence(&mut cluster, 1);
    assert_eq!(state(&cluster), (-1, vec![], vec![1, 2], vec![1]));
    assert_eq!(partition(&cluster, "t", 0).leader_epoch, epoch_before + 1);
    rejoin(&mut cluster, 3);
    assert_eq!(state(&cluster), (-1, vec![], vec![1, 2], vec![1]), "3 is not eligible");
    rejoin(&mut cluster, 2);
    assert_eq!(state(&cluster), (2, vec![2], vec![1], vec![]), "a clean election from the ELR");
    assert_eq!(partition(&cluster, "t", 0).leader_recovery_state, LeaderRecoveryState::Recovered);
}

/// A broker that crashed (previous epoch -1) and registers again leaves the ELR but stays the
/// last known leader; one that shut down cleanly (its last epoch) stays eligible and is elected
/// once unfenced.
#[test]
fn unclean_shutdown_leaves_the_elr() {
    let mut cluster = three_brokers();
    for id in [3, 2, 1] {
        fence(&mut cluster, id);
    }
    assert_eq!(state(&cluster), (-1, vec![], vec![1, 2], vec![1]));
    reregister(&mut cluster, 1, -1);
    assert_eq!(state(&cluster), (-1, vec![], vec![2], vec![1]));
    let clean_epoch = epoch(&cluster, 2);
    reregister(&mut cluster, 2, clean_epoch);
    assert_eq!(state(&cluster), (-1, vec![], vec![2], vec![1]), "a clean shutdown keeps it eligible");
    rejoin(&mut cluster, 1);
    assert_eq!(state(&cluster), (-1, vec![], vec![2], vec![1]), "1 may have lost records: not elected");
    rejoin(&mut cluster, 2);
    assert_eq!(state(&cluster), (2, vec![2], vec![], vec![]));
}

/// With ISR and ELR both empty, the last known leader is elected once it is back (Kafka 4.4's
/// balanced recovery, an unclean election: RECOVERING), even without unclean elections allowed.
#[test]
fn last_known_leader_leads_when_nothing_else_can() {
    let mut cluster = three_brokers();
    for id in [3, 2, 1] {
        fence(&mut cluster, id);
    }
    reregister(&mut cluster, 2, -1);
    reregister(&mut cluster, 1, -1);
    assert_eq!(state(&cluster), (-1, vec![], vec![], vec![1]));
    rejoin(&mut cluster, 3);
    assert_eq!(state(&cluster), (-1, vec![], vec![], vec![1]), "3 was never eligible");
    rejoin(&mut cluster, 1);
    assert_eq!(state(&cluster), (1, vec![1], vec![], vec![]));
    assert_eq!(partition(&cluster, "t", 0).leader_recovery_state, LeaderRecoveryState::Recovering);
}

/// An unclean ElectLeaders with no active ELR member elects any active replica (RECOVERING) and
/// clears the ELR, whose members may hold records the new leader lacks.
#[test]
fn unclean_election_request_prefers_the_elr() {
    let mut cluster = three_brokers();
    for id in [3, 2, 1] {
        fence(&mut cluster, id);
    }
    rejoin(&mut cluster, 3);
    let request = ElectLeadersRequest {
        election_type: 1, // UNCLEAN
        topic_partitions: None,
        timeout_ms: 1_000,
        ..Default::default()
    };
    let result = elect_leaders(&cluster.image, &request, &ControllerDefaults::default());
    cluster.apply(&result.records);
    assert_eq!(leader_and_isr(&cluster, "t", 0), (3, vec![3]), "no ELR member is active: unclean");
    assert_eq!(partition(&cluster, "t", 0).leader_recovery_state, LeaderRecoveryState::Recovering);
    assert_eq!(partition(&cluster, "t", 0).elr, ids(&[]), "an unclean election clears the ELR");
}

fn set(kind: ConfigResourceKind, name: &str, value: Option<&str>) -> IncrementalAlterConfigsRequest {
    let op = if value.is_some() { 0 } else { 1 };
    IncrementalAlterConfigsRequest {
        resources: vec![incremental_alter_configs_request::AlterConfigsResource {
            resource_type: kind.wire(),
            resource_name: name.to_owned(),
            configs: vec![incremental_alter_configs_request::AlterableConfig {
                name: "min.insync.replicas".to_owned(),
                config_operation: op,
                value: value.map(str::to_owned),
                ..Default::default()
            }],
            ..Default::default()
        }],
        ..Default::default()
    }
}

/// (error code, ClearElrRecord topic names) of one `min.insync.replicas` change, applied.
fn change_min_isr(
    cluster: &mut Cluster,
    kind: ConfigResourceKind,
    name: &str,
    value: Option<&str>,
) -> (i16, Vec<String>) {
    let result = incremental_alter_configs(&cluster.image, &set(kind, name, value));
    cluster.apply(&result.records);
    let cleared = result
        .records
        .iter()
        .filter_map(|r| match &r.record {
            MetadataRecord::ClearElrRecord(c) => Some(c.topic_name.clone()),
            _ => None,
        })
        .collect();
    (result.response.responses[0].error_code, cleared)
}

/// With ELR on: a topic's `min.insync.replicas` change clears that topic's ELR, the cluster
/// default's clears every topic's, a broker's own value is refused and the cluster default may
/// not be deleted (INVALID_CONFIG). With ELR off none of it applies.
#[test]
fn min_isr_changes_clear_or_are_refused() {
    use ConfigResourceKind::{Broker, Topic};
    let invalid = ErrorCode::InvalidConfig.code();
    let mut cluster = three_brokers();
    fence(&mut cluster, 3);
    fence(&mut cluster, 2);
    assert_eq!(state(&cluster).2, vec![2]);
    assert_eq!(change_min_isr(&mut cluster, Topic, "t", Some("3")), (0, vec!["t".to_owned()]));
    assert_eq!(state(&cluster), (1, vec![1], vec![], vec![]), "the topic's ELR is cleared");
    assert_eq!(change_min_isr(&mut cluster, Broker, "", Some("2")), (0, vec![String::new()]));
    assert_eq!(change_min_isr(&mut cluster, Broker, "1", Some("2")), (invalid, vec![]));
    assert_eq!(change_min_isr(&mut cluster, Broker, "1", None), (invalid, vec![]));
    assert_eq!(change_min_isr(&mut cluster, Broker, "", None), (invalid, vec![]));
    cluster.set_elr_level(0);
    assert_eq!(change_min_isr(&mut cluster, Broker, "1", Some("2")), (0, vec![]));
    assert_eq!(change_min_isr(&mut cluster, Broker, "", None), (0, vec![]));
    assert_eq!(change_min_isr(&mut cluster, Topic, "t", Some("2")), (0, vec![]));
}

/// `min.insync.replicas` above the replication factor counts as the replication factor (Kafka's
/// effective min ISR): a two-replica topic with min ISR 3 tracks an ELR as soon as one leaves.
#[test]
fn effective_min_isr_is_capped_by_the_replication_factor() {
    let mut cluster = cluster_in_racks(&[1, 2], |_| None);
    create_assigned(&mut cluster, "t", &[&[1, 2]]);
    change_min_isr(&mut cluster, ConfigResourceKind::Topic, "t", Some("3"));
    assert_eq!(state(&cluster), (1, vec![1, 2], vec![], vec![]), "ISR 2 meets the capped minimum");
    fence(&mut cluster, 2);
    assert_eq!(state(&cluster), (1, vec![1], vec![2], vec![]));
}
