//! Broker lifecycle decisions through the public API: heartbeats (Kafka's errors, unfencing once
//! caught up, fencing on request, controlled shutdown), fencing after a session expires (ISR and
//! leader moves, clean and unclean), unfencing elections, re-registration, and the heartbeat
//! tracker's soft state, and unregistration. Every decision's records are replayed into the image and checked there.

mod common;
mod controller_common;

use common::Cluster;
use controller_common::{
    CAUGHT_UP, apply_heartbeat, cluster_in_racks, create_assigned, epoch, fence, heartbeat, heartbeat_request, ids,
    kinds, leader_and_isr, partition, partition_changes, register_in_rack, register_incarnation, rejoin, set_unclean,
};
use strand_base::BrokerId;
use strand_metadata::controller::{
    BrokerHeartbeatTracker, ControllerDefaults, HeartbeatInputs, InitialFencing, PreviousSession, broker_heartbeat,
    fence_broker, unfence_broker, unregister_broker,
};
use strand_metadata::image::LeaderRecoveryState;
use strand_protocol::error::ErrorCode;
use strand_protocol::messages::{BrokerHeartbeatRequest, UnregisterBrokerRequest};

/// Three unfenced brokers and topic `t`: partition i prefers broker i+1, every ISR full.
fn three_brokers() -> Cluster {
    let mut cluster = cluster_in_racks(&[1, 2, 3], |_| None);
    create_assigned(&mut cluster, "t", &[&[1, 2, 3], &[2, 3, 1], &[3, 1, 2]]);
    cluster
}

fn broker_state(cluster: &Cluster, id: i32) -> (bool, bool) {
    let b = cluster.image.cluster().broker(BrokerId(id)).expect("registered");
    (b.fenced, b.in_controlled_shutdown)
}

/// Heartbeats from an unregistered broker or with another epoch are STALE_BROKER_EPOCH, as
/// Kafka answers, with no records and Kafka's default fields.
#[test]
fn heartbeat_epoch_errors() {
    let cluster = three_brokers();
    let check = |request: BrokerHeartbeatRequest| {
        let result = broker_heartbeat(&cluster.image, &request, &CAUGHT_UP, &ControllerDefaults::default());
        assert_eq!(result.response.error_code, ErrorCode::StaleBrokerEpoch.code(), "{request:?}");
        assert!(result.records.is_empty());
        assert!(result.response.is_fenced && !result.response.should_shut_down && !result.response.is_caught_up);
    };
    check(BrokerHeartbeatRequest { broker_id: BrokerId(9), ..heartbeat_request(&cluster, 1, 0, false, false) });
    let stale = heartbeat_request(&cluster, 1, 0, false, false);
    check(BrokerHeartbeatRequest { broker_epoch: stale.broker_epoch + 1, ..stale });
}

/// A new broker stays fenced until its metadata offset reaches its registration record, then one
/// heartbeat unfences it; `want_fence` keeps it fenced.
#[test]
fn heartbeat_unfences_once_caught_up() {
    let mut cluster = three_brokers();
    let broker_epoch = register_in_rack(&mut cluster, 4, None, InitialFencing::Fenced);
    assert_eq!(broker_state(&cluster, 4), (true, false));

    let (response, records) = heartbeat(&mut cluster, 4, broker_epoch - 1, false, false, &CAUGHT_UP);
    assert_eq!((response.error_code, response.is_caught_up, response.is_fenced), (0, false, true));
    assert!(records.is_empty());

    let (response, records) = heartbeat(&mut cluster, 4, broker_epoch, true, false, &CAUGHT_UP);
    assert_eq!((response.is_caught_up, response.is_fenced), (true, true), "want_fence keeps it fenced");
    assert!(records.is_empty());

    let (response, records) = heartbeat(&mut cluster, 4, broker_epoch, false, false, &CAUGHT_UP);
    assert_eq!((response.is_caught_up, response.is_fenced, response.should_shut_down), (true, false, false));
    assert_eq!(kinds(&records), ["BrokerRegistrationChange"]);
    assert_eq!(broker_state(&cluster, 4), (false, false));
    let (response, records) = heartbeat(&mut cluster, 4, broker_epoch, false, false, &CAUGHT_UP);
    assert!(!response.is_fenced && records.is_empty(), "an unfenced broker's heartbeat writes nothing");
}

/// Fencing: the broker leaves every ISR, the partitions it led move to the first active ISR
/// member in replica order with a new leader epoch, the others keep their leader and leader
/// epoch; the fencing record comes last.
#[test]
fn fence_moves_leaders_and_shrinks_isrs() {
    let mut cluster = three_brokers();
    let before: Vec<_> = (0..3).map(|i| partition(&cluster, "t", i)).collect();
    let records = fence(&mut cluster, 1);
    assert_eq!(kinds(&records), ["PartitionChange", "PartitionChange", "PartitionChange", "BrokerRegistrationChange"]);
    assert_eq!(broker_state(&cluster, 1), (true, false));
    assert_eq!(leader_and_isr(&cluster, "t", 0), (2, vec![2, 3]));
    assert_eq!(leader_and_isr(&cluster, "t", 1), (2, vec![2, 3]));
    assert_eq!(leader_and_isr(&cluster, "t", 2), (3, vec![3, 2]));
    let after: Vec<_> = (0..3).map(|i| partition(&cluster, "t", i)).collect();
    assert_eq!(after[0].leader_epoch, before[0].leader_epoch + 1, "a new leader, a new leader epoch");
    assert_eq!(after[1].leader_epoch, before[1].leader_epoch, "an ISR shrink alone keeps the leader epoch");
    assert!(after.iter().zip(&before).all(|(a, b)| a.partition_epoch == b.partition_epoch + 1));
    assert!(fence(&mut cluster, 1).is_empty(), "fencing a fenced broker writes nothing");
    assert!(fence_broker(&cluster.image, BrokerId(9), &ControllerDefaults::default()).is_empty());
}

/// With eligible leader replicas off, the last ISR member stays in the ISR when fenced, and the
/// partition has no leader until it comes back; unfencing makes it the leader again (Kafka's
/// `handleBrokerUnfenced`). (With them on, see `controller_elr.rs`.)
#[test]
fn last_isr_member_stays_and_leads_again_when_unfenced() {
    let mut cluster = three_brokers();
    cluster.set_elr_level(0);
    create_assigned(&mut cluster, "solo", &[&[1]]);
    fence(&mut cluster, 2);
    fence(&mut cluster, 3);
    assert_eq!(leader_and_isr(&cluster, "t", 0), (1, vec![1]));
    let epoch_before = partition(&cluster, "solo", 0).leader_epoch;
    fence(&mut cluster, 1);
    for (name, index) in [("solo", 0), ("t", 0), ("t", 1), ("t", 2)] {
        assert_eq!(leader_and_isr(&cluster, name, index), (-1, vec![1]), "{name}-{index}");
    }
    assert_eq!(partition(&cluster, "solo", 0).leader_epoch, epoch_before + 1);

    // Broker 2 comes back first: it is not in any ISR, so nothing gets a leader.
    let response = rejoin(&mut cluster, 2);
    assert!(!response.is_fenced);
    assert_eq!(leader_and_isr(&cluster, "t", 1), (-1, vec![1]));
    // Broker 1 comes back: it leads everything again, from the one unfence batch.
    let records = unfence_broker(&cluster.image, BrokerId(1), &ControllerDefaults::default());
    assert_eq!(kinds(&records)[0], "BrokerRegistrationChange");
    assert_eq!(partition_changes(&records).len(), 4);
    cluster.apply(&records);
    for (name, index) in [("solo", 0), ("t", 0), ("t", 1), ("t", 2)] {
        assert_eq!(leader_and_isr(&cluster, name, index), (1, vec![1]), "{name}-{index}");
    }
    assert!(unfence_broker(&cluster.image, BrokerId(1), &ControllerDefaults::default()).is_empty());
}

/// With `unclean.leader.election.enable` (topic, cluster default or static default) and eligible
/// leader replicas off, a fenced last ISR member hands the leadership to an active out-of-sync
/// replica: ISR = [it], RECOVERING.
#[test]
fn unclean_election_when_the_isr_is_gone() {
    for setting in ["topic", "cluster", "static", "off"] {
        let mut cluster = three_brokers();
        cluster.set_elr_level(0);
        fence(&mut cluster, 2);
        fence(&mut cluster, 3);
        rejoin(&mut cluster, 3);
        rejoin(&mut cluster, 2);
        assert_eq!(leader_and_isr(&cluster, "t", 0), (1, vec![1]));
        let mut defaults = ControllerDefaults::default();
        match setting {
            "topic" => set_unclean(&mut cluster, Some("t"), Some("true")),
            "cluster" => set_unclean(&mut cluster, None, Some("true")),
            "static" => {
                defaults.static_topic_configs.insert("unclean.leader.election.enable".to_owned(), "true".to_owned());
            }
            _ => set_unclean(&mut cluster, None, Some("false")),
        }
        let records = fence_broker(&cluster.image, BrokerId(1), &defaults);
        cluster.apply(&records);
        let p = partition(&cluster, "t", 0);
        if setting == "off" {
            assert_eq!((p.leader.0, p.leader_recovery_state), (-1, LeaderRecoveryState::Recovered));
            continue;
        }
        assert_eq!(leader_and_isr(&cluster, "t", 0), (2, vec![2]), "{setting}: first active replica");
        assert_eq!(leader_and_isr(&cluster, "t", 2), (3, vec![3]), "{setting}");
        assert_eq!(p.leader_recovery_state, LeaderRecoveryState::Recovering, "{setting}");
    }
}

/// A topic's own `false` wins over a cluster-wide `true` (eligible leader replicas off).
#[test]
fn topic_unclean_setting_overrides_the_cluster() {
    let mut cluster = three_brokers();
    cluster.set_elr_level(0);
    fence(&mut cluster, 2);
    fence(&mut cluster, 3);
    rejoin(&mut cluster, 2);
    set_unclean(&mut cluster, None, Some("true"));
    set_unclean(&mut cluster, Some("t"), Some("false"));
    fence(&mut cluster, 1);
    assert_eq!(leader_and_isr(&cluster, "t", 0), (-1, vec![1]));
}

/// Controlled shutdown: the first heartbeat marks the broker shutting down and moves its
/// leaderships and ISR memberships away; it may stop once it leads nothing and the active
/// brokers have seen that batch; then it is fenced (eligible leader replicas off: the last ISR
/// member stays).
#[test]
fn controlled_shutdown_moves_leaders_then_stops() {
    let mut cluster = three_brokers();
    cluster.set_elr_level(0);
    create_assigned(&mut cluster, "solo", &[&[1]]);
    let offset = cluster.image.provenance().offset;
    let (response, records) = heartbeat(&mut cluster, 1, offset, false, true, &CAUGHT_UP);
    assert_eq!((response.is_fenced, response.should_shut_down), (false, false));
    assert_eq!(kinds(&records)[0], "BrokerRegistrationChange");
    assert_eq!(broker_state(&cluster, 1), (false, true));
    assert_eq!(leader_and_isr(&cluster, "t", 0), (2, vec![2, 3]));
    assert_eq!(leader_and_isr(&cluster, "t", 2), (3, vec![3, 2]));
    assert_eq!(leader_and_isr(&cluster, "solo", 0), (-1, vec![1]), "the last member stays, without a leader");
    let shutdown_offset = cluster.image.provenance().offset;

    // Another active broker has not seen the shutdown batch yet: wait.
    let lagging = HeartbeatInputs {
        controlled_shutdown_offset: Some(shutdown_offset),
        active_metadata_offset_min: shutdown_offset - 1,
    };
    let (response, records) = heartbeat(&mut cluster, 1, shutdown_offset, false, true, &lagging);
    assert_eq!((response.is_fenced, response.should_shut_down), (false, false));
    assert!(records.is_empty());

    let caught_up = HeartbeatInputs { active_metadata_offset_min: shutdown_offset, ..lagging };
    let (response, records) = heartbeat(&mut cluster, 1, shutdown_offset, false, true, &caught_up);
    assert_eq!((response.is_fenced, response.should_shut_down), (true, true));
    assert_eq!(kinds(&records), ["BrokerRegistrationChange"]);
    assert_eq!(broker_state(&cluster, 1), (true, true));
    let (response, records) = heartbeat(&mut cluster, 1, shutdown_offset, false, true, &caught_up);
    assert!(response.should_shut_down && records.is_empty(), "a fenced broker asking to stop stops at once");
}

/// A broker that leads nothing, or is fenced, may shut down at once; `want_fence` with
/// `want_shut_down` also stops an unfenced one at once (fencing it). Eligible leader replicas off.
#[test]
fn immediate_shutdowns() {
    let mut cluster = cluster_in_racks(&[1, 2, 3], |_| None);
    cluster.set_elr_level(0);
    create_assigned(&mut cluster, "t", &[&[1, 2]]);
    let offset = cluster.image.provenance().offset;
    let (response, records) = heartbeat(&mut cluster, 3, offset, false, true, &CAUGHT_UP);
    assert_eq!((response.is_fenced, response.should_shut_down), (true, true), "broker 3 leads nothing");
    assert_eq!(kinds(&records), ["BrokerRegistrationChange"]);

    let (response, records) = heartbeat(&mut cluster, 2, offset, false, true, &CAUGHT_UP);
    assert!(response.should_shut_down, "broker 2 follows but leads nothing");
    assert_eq!(kinds(&records), ["PartitionChange", "BrokerRegistrationChange"]);
    assert_eq!(leader_and_isr(&cluster, "t", 0), (1, vec![1]));

    let (response, _) = heartbeat(&mut cluster, 1, offset, true, true, &CAUGHT_UP);
    assert!(response.should_shut_down && response.is_fenced);
    assert_eq!(leader_and_isr(&cluster, "t", 0), (-1, vec![1]));
}

/// An unfenced broker asking for fencing is fenced, leaving its ISRs, as on session expiry.
#[test]
fn want_fence_fences() {
    let mut cluster = three_brokers();
    let offset = cluster.image.provenance().offset;
    let (response, records) = heartbeat(&mut cluster, 3, offset, true, false, &CAUGHT_UP);
    assert!(response.is_fenced && !response.should_shut_down);
    assert_eq!(partition_changes(&records).len(), 3);
    assert_eq!(leader_and_isr(&cluster, "t", 2), (1, vec![1, 2]));
}

/// A new incarnation of a broker whose session expired but was never fenced takes the old one
/// out of its ISRs and leaderships, after the registration record (whose offset is the epoch).
#[test]
fn new_incarnation_leaves_stale_leaderships() {
    let mut cluster = three_brokers();
    let next_offset = cluster.image.provenance().offset + 1;
    let broker_epoch = register_incarnation(&mut cluster, 1, None, InitialFencing::Fenced, 9);
    assert_eq!(broker_epoch, next_offset);
    assert_eq!(broker_state(&cluster, 1), (true, false));
    assert_eq!(leader_and_isr(&cluster, "t", 0), (2, vec![2, 3]));
    assert!(cluster.image.topics().iter().flat_map(|t| t.partitions.values()).all(|p| !p.isr.contains(&BrokerId(1))));
}

/// The tracker: sessions expire after the timeout (oldest first, fenced brokers never), a new
/// controller gives every broker a full session, heartbeats renew them, and the inputs carry the
/// lowest active metadata offset and where a controlled shutdown began.
#[test]
fn heartbeat_tracker_sessions() {
    let mut cluster = three_brokers();
    let mut tracker = BrokerHeartbeatTracker::new();
    assert!(tracker.expired(&cluster.image, 1_000, 500).is_empty(), "first look: every session starts now");
    for (id, at) in [(2, 1_200), (3, 1_400)] {
        let request = heartbeat_request(&cluster, id, 10 * i64::from(id), false, false);
        tracker.heartbeat(&cluster.image, &request, at);
    }
    assert_eq!(tracker.expired(&cluster.image, 1_500, 500), ids(&[]));
    assert_eq!(tracker.expired(&cluster.image, 1_501, 500), ids(&[1]));
    assert_eq!(tracker.expired(&cluster.image, 1_901, 500), ids(&[1, 2, 3]));
    assert_eq!(tracker.previous_session(&cluster.image, BrokerId(2), 1_700, 500), PreviousSession::Live);
    assert_eq!(tracker.previous_session(&cluster.image, BrokerId(2), 1_701, 500), PreviousSession::Expired);

    let inputs = tracker.inputs(&cluster.image, BrokerId(2));
    assert_eq!(
        inputs,
        HeartbeatInputs { controlled_shutdown_offset: None, active_metadata_offset_min: -1 },
        "1 unheard"
    );
    tracker.heartbeat(&cluster.image, &heartbeat_request(&cluster, 1, 5, false, false), 1_800);
    assert_eq!(tracker.inputs(&cluster.image, BrokerId(2)).active_metadata_offset_min, 5);

    fence(&mut cluster, 1);
    assert_eq!(tracker.expired(&cluster.image, 5_000, 500), ids(&[2, 3]), "fenced brokers have no session to lose");
    assert_eq!(tracker.previous_session(&cluster.image, BrokerId(1), 1_800, 500), PreviousSession::Expired);
    assert_eq!(tracker.inputs(&cluster.image, BrokerId(2)).active_metadata_offset_min, 30);

    let offset = cluster.image.provenance().offset;
    let request = heartbeat_request(&cluster, 2, offset, false, true);
    apply_heartbeat(&mut cluster, &request, &CAUGHT_UP);
    tracker.heartbeat(&cluster.image, &request, 5_000);
    let inputs = tracker.inputs(&cluster.image, BrokerId(2));
    assert_eq!(inputs.controlled_shutdown_offset, Some(cluster.image.provenance().offset));
    assert_eq!(inputs.active_metadata_offset_min, 30, "only broker 3 is active");
    assert_eq!(tracker.inputs(&cluster.image, BrokerId(3)).active_metadata_offset_min, i64::MAX);

    register_incarnation(&mut cluster, 3, None, InitialFencing::Fenced, 7);
    rejoin(&mut cluster, 3);
    assert_eq!(tracker.expired(&cluster.image, 6_000, 500), ids(&[2]), "a new incarnation's session starts now");
    let stale = BrokerHeartbeatRequest {
        broker_epoch: epoch(&cluster, 3) - 1,
        ..heartbeat_request(&cluster, 3, 1, false, false)
    };
    tracker.heartbeat(&cluster.image, &stale, 9_000);
    assert_eq!(tracker.expired(&cluster.image, 6_600, 500), ids(&[2, 3]), "a stale heartbeat renews nothing");
}

/// UnregisterBroker: the broker leaves the ISRs and leaderships as when fenced, then its
/// registration is removed; a broker not registered (now, or ever) gets BROKER_ID_NOT_REGISTERED
/// with Kafka's message and no records.
#[test]
fn unregistering_moves_leaders_and_removes_the_registration() {
    let mut cluster = three_brokers();
    let request = |id: i32| UnregisterBrokerRequest { broker_id: BrokerId(id), ..Default::default() };
    let result = unregister_broker(&cluster.image, &request(1), &ControllerDefaults::default());
    assert_eq!(result.response.error_code, 0);
    assert_eq!(kinds(&result.records), ["PartitionChange", "PartitionChange", "PartitionChange", "UnregisterBroker"]);
    cluster.apply(&result.records);
    assert!(cluster.image.cluster().broker(BrokerId(1)).is_none(), "unregistered");
    assert_eq!(leader_and_isr(&cluster, "t", 0), (2, vec![2, 3]));
    assert_eq!(leader_and_isr(&cluster, "t", 2), (3, vec![3, 2]));
    for id in [1, 9] {
        let refused = unregister_broker(&cluster.image, &request(id), &ControllerDefaults::default());
        assert!(refused.records.is_empty());
        assert_eq!(refused.response.error_code, ErrorCode::BrokerIdNotRegistered.code());
        let message = format!("Broker ID {id} is not currently registered");
        assert_eq!(refused.response.error_message.as_deref(), Some(message.as_str()));
    }
}
