//! Unit tests of a partition driven directly: role transitions and AlterPartition answers.

use std::sync::Arc;

use strand_base::{LeaderEpoch, SystemClock};
use strand_log::log::LogCheckpoints;
use strand_log::{Log, LogConfig};

use super::*;
use crate::isr::{AlterOutcome, LeaderAndIsr};
use crate::state::{PartitionState, RoleChange};

fn partition(dir: &std::path::Path) -> Partition {
    let config = LogConfig { segment_index_bytes: 4096, ..LogConfig::default() };
    let log = Log::open(dir, config, LogCheckpoints::default(), Arc::new(SystemClock)).expect("log");
    let changed = Arc::new(watch::Sender::new(0));
    let state = ReplicaState::new(Uuid::ZERO, 0);
    Partition::new(TopicPartition::new("t", 0), Arc::new(Mutex::new(log)), state, BrokerId(1), false, changed)
}

fn state(leader: i32, leader_epoch: LeaderEpoch, partition_epoch: i32, isr: &[i32]) -> PartitionState {
    PartitionState {
        leader: BrokerId(leader),
        leader_epoch,
        partition_epoch,
        replicas: vec![BrokerId(1), BrokerId(2), BrokerId(3)],
        isr: isr.iter().copied().map(BrokerId).collect(),
        min_insync_replicas: 1,
        leader_recovery_state: 0,
    }
}

/// Every role transition a partition state can cause, in order, with what it leaves.
#[test]
fn role_transitions() {
    let dir = tempfile::tempdir().expect("dir");
    let p = partition(dir.path());
    let check = |incoming: PartitionState, expected: RoleChange, role: crate::ReplicaRole, isr: &[i32]| {
        assert_eq!(p.apply(&incoming, Uuid::ZERO, 0).expect("apply"), expected, "{incoming:?}");
        let status = p.status().expect("status");
        assert_eq!(status.role, role, "{incoming:?}");
        assert_eq!(status.isr, isr.iter().copied().map(BrokerId).collect::<Vec<_>>());
    };
    use crate::state::ReplicaRole::{Follower, Leader};
    let follower_of = |id| Follower { leader: BrokerId(id) };
    // Unassigned → Leader; same epochs → unchanged; older → stale.
    check(state(1, 3, 5, &[1, 2, 3]), RoleChange::BecameLeader, Leader, &[1, 2, 3]);
    check(state(1, 3, 5, &[1, 2, 3]), RoleChange::Unchanged, Leader, &[1, 2, 3]);
    check(state(1, 3, 4, &[1]), RoleChange::Stale, Leader, &[1, 2, 3]);
    check(state(2, 2, 9, &[2]), RoleChange::Stale, Leader, &[1, 2, 3]);
    // Leader → Leader: a newer partition epoch replaces the ISR; a newer leader epoch resets.
    check(state(1, 3, 6, &[1, 2]), RoleChange::Updated, Leader, &[1, 2]);
    check(state(1, 4, 7, &[1, 2]), RoleChange::BecameLeader, Leader, &[1, 2]);
    // Leader → Follower → Follower (ISR change, then a new epoch of the same leader).
    check(state(2, 5, 8, &[1, 2]), RoleChange::BecameFollower, follower_of(2), &[]);
    check(state(2, 5, 9, &[2]), RoleChange::Updated, follower_of(2), &[]);
    check(state(2, 6, 10, &[2]), RoleChange::BecameFollower, follower_of(2), &[]);
    // Follower of no leader, then Leader again.
    check(state(-1, 7, 11, &[2]), RoleChange::BecameFollower, follower_of(-1), &[]);
    check(state(1, 8, 12, &[1]), RoleChange::BecameLeader, Leader, &[1]);
    assert_eq!(p.status().expect("status").leader_epoch_start_offset, Some(0));
    // Not a replica any more: refused.
    let gone = PartitionState { replicas: vec![BrokerId(2)], ..state(2, 9, 13, &[2]) };
    assert!(p.apply(&gone, Uuid::ZERO, 0).is_err());
}

/// How the leader takes each kind of AlterPartition answer: refused (the committed ISR
/// stands), stale (pending until metadata), retriable, or accepted (adopted with its
/// partition epoch); answers to an item no longer in flight are ignored.
#[test]
fn alter_partition_answers() {
    use strand_protocol::error::ErrorCode;
    let dir = tempfile::tempdir().expect("dir");
    let p = partition(dir.path());
    p.apply(&state(1, 0, 0, &[1, 2, 3]), Uuid::ZERO, 0).expect("lead");
    let shrink = |now| p.maybe_shrink_isr(now, 30_000, &None).expect("check");
    assert_eq!(shrink(30_000), None, "within the lag time");
    let item = shrink(30_001).expect("both followers lag");
    assert_eq!(item.isr(), vec![BrokerId(1)]);
    assert_eq!((item.leader_epoch, item.partition_epoch), (0, 0));
    assert_eq!(shrink(40_000), None, "one change in flight");
    let answer = |result| p.on_alter_partition(&item, result).expect("answer");
    assert_eq!(answer(Err(ErrorCode::InvalidUpdateVersion)), AlterOutcome::AwaitMetadata);
    assert_eq!(answer(Err(ErrorCode::RequestTimedOut)), AlterOutcome::Retry);
    let stale = LeaderAndIsr {
        leader: BrokerId(1),
        leader_epoch: 1,
        isr: vec![BrokerId(1)],
        leader_recovery_state: 0,
        partition_epoch: 1,
    };
    assert_eq!(answer(Ok(stale)), AlterOutcome::AwaitMetadata);
    assert!(p.is_in_flight(&item));
    assert_eq!(answer(Err(ErrorCode::IneligibleReplica)), AlterOutcome::Reverted);
    assert_eq!(p.status().expect("status").isr, vec![BrokerId(1), BrokerId(2), BrokerId(3)]);
    assert_eq!(answer(Err(ErrorCode::IneligibleReplica)), AlterOutcome::Ignored);
    let item = shrink(40_000).expect("proposed again");
    let accepted = LeaderAndIsr {
        leader: BrokerId(1),
        leader_epoch: 0,
        isr: vec![BrokerId(1)],
        leader_recovery_state: 0,
        partition_epoch: 1,
    };
    assert_eq!(p.on_alter_partition(&item, Ok(accepted)).expect("answer"), AlterOutcome::Adopted);
    let status = p.status().expect("status");
    assert_eq!((status.isr, status.partition_epoch, status.isr_change_in_flight), (vec![BrokerId(1)], 1, false));
}
