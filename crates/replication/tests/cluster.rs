//! Three replica managers replicating through the in-memory transport and fake controller of
//! `common`: `acks=all` completes only once every ISR member has fetched past the batch, the
//! high watermark is the lowest log end over the ISR, a lagging follower leaves the ISR after
//! `replica.lag.time.max.ms` and rejoins once caught up (unless its broker is ineligible), a
//! leader change truncates the old leader's divergent tail without losing an acknowledged record,
//! `min.insync.replicas` is enforced before and after appending, high watermarks survive a
//! restart, and replicas a reassignment adds copy the log and join the ISR.

mod common;

use std::time::Duration;

use common::{Cluster, EVENT_WAIT, ids};
use strand_base::{BrokerId, Clock, TopicPartition};
use strand_protocol::error::ErrorCode;
use strand_replication::{Acks, BrokerStatus, FollowerFetch, Isolation, ReplicaError, ReplicaRole, RoleChange};

fn tp() -> TopicPartition {
    TopicPartition::new("orders", 0)
}

/// Waits until node `id`'s leader has seen follower `follower` fetch from `offset` or later.
async fn fetched(cluster: &Cluster, id: i32, follower: i32, offset: i64) {
    let what = format!("follower {follower} fetching from {offset}");
    cluster
        .until(id, &tp(), &what, |s| {
            s.followers.iter().any(|f| f.broker_id == BrokerId(follower) && f.log_end_offset >= offset)
        })
        .await;
}

/// An `acks=all` produce is acknowledged only after both followers fetched past it: with one
/// follower cut off the high watermark stays put and the produce waits; healing it completes it.
#[tokio::test]
async fn acks_all_completes_only_after_both_followers_fetched() {
    let cluster = Cluster::new(&[1, 2, 3]);
    cluster.create(&tp(), &[1, 2, 3], 2);
    fetched(&cluster, 1, 3, 0).await;
    cluster.cut(3);
    let appended = cluster.append(1, &tp(), "a", Acks::All).expect("append");
    let waiting = tokio::spawn(appended.delayed.expect("acks=all").wait(EVENT_WAIT * 2));
    fetched(&cluster, 1, 2, 1).await;
    let status = cluster.node(1).partition_status(&tp()).expect("status");
    assert_eq!(status.high_watermark, 0, "follower 3 has not fetched the batch");
    assert!(!waiting.is_finished());
    cluster.heal(3);
    waiting.await.expect("task").expect("acknowledged");
    assert_eq!(cluster.node(1).offsets(&tp()).expect("offsets").high_watermark, 1);
    for follower in [2, 3] {
        assert_eq!(cluster.values(follower, &tp()), vec![(0, "a".to_owned())]);
    }
}

/// The high watermark is the lowest log end offset over the ISR: it follows the slower
/// follower, and consumers never read past it.
#[tokio::test]
async fn high_watermark_is_the_lowest_isr_log_end() {
    let cluster = Cluster::new(&[1, 2, 3]);
    cluster.create(&tp(), &[1, 2, 3], 1);
    cluster.produce(1, &tp(), "a", EVENT_WAIT).await.expect("a");
    cluster.cut(3);
    for value in ["b", "c", "d"] {
        cluster.append(1, &tp(), value, Acks::Leader).expect("append");
    }
    fetched(&cluster, 1, 2, 4).await;
    let status = cluster.node(1).partition_status(&tp()).expect("status");
    assert_eq!((status.log_end_offset, status.high_watermark), (4, 1));
    let read = cluster.node(1).read(&tp(), 1, 1 << 20, Isolation::ReadUncommitted).expect("read");
    assert!(read.records.is_none(), "nothing past the high watermark");
    cluster.heal(3);
    cluster.until(1, &tp(), "high watermark 4", |s| s.high_watermark == 4).await;
    let read = cluster.node(1).read(&tp(), 1, 1 << 20, Isolation::ReadUncommitted).expect("read");
    assert!(read.records.is_some());
}

/// A follower that stops fetching leaves the ISR once it has not been caught up for
/// `replica.lag.time.max.ms` (measured from its last caught-up time), not before; the high
/// watermark then moves on without it. Caught up again, it rejoins.
#[tokio::test]
async fn lagging_follower_leaves_the_isr_and_rejoins() {
    let cluster = Cluster::new(&[1, 2, 3]);
    cluster.create(&tp(), &[1, 2, 3], 1);
    fetched(&cluster, 1, 3, 0).await;
    cluster.cut(3);
    cluster.append(1, &tp(), "a", Acks::Leader).expect("append");
    fetched(&cluster, 1, 2, 1).await;
    let leader = cluster.node(1);
    cluster.clock.advance(29_000);
    assert_eq!(leader.maybe_shrink_isr(cluster.clock.now_ms()), 0, "within the lag time");
    cluster.clock.advance(2_000);
    assert_eq!(leader.maybe_shrink_isr(cluster.clock.now_ms()), 1);
    let status = cluster.until(1, &tp(), "ISR shrunk", |s| s.isr == ids(&[1, 2]) && !s.isr_change_in_flight).await;
    assert_eq!(status.high_watermark, 1);
    assert_eq!(cluster.controller.state(&tp()).isr, ids(&[1, 2]));
    cluster.heal(3);
    cluster.until(1, &tp(), "ISR expanded", |s| s.isr == ids(&[1, 2, 3]) && !s.isr_change_in_flight).await;
    assert_eq!(cluster.controller.state(&tp()).isr, ids(&[1, 2, 3]));
    assert_eq!(cluster.values(3, &tp()), vec![(0, "a".to_owned())]);
}

/// KIP-841: a caught-up follower whose broker is fenced (or shutting down) does not rejoin the
/// ISR; once the metadata shows it eligible, it does.
#[tokio::test]
async fn ineligible_broker_does_not_rejoin() {
    let cluster = Cluster::new(&[1, 2, 3]);
    cluster.controller.metadata_first.store(true, std::sync::atomic::Ordering::SeqCst);
    cluster.create(&tp(), &[1, 2, 3], 1);
    fetched(&cluster, 1, 3, 0).await;
    cluster.cut(3);
    cluster.append(1, &tp(), "a", Acks::Leader).expect("append");
    fetched(&cluster, 1, 2, 1).await;
    cluster.clock.advance(31_000);
    cluster.node(1).maybe_shrink_isr(cluster.clock.now_ms());
    cluster.until(1, &tp(), "ISR shrunk", |s| s.isr == ids(&[1, 2])).await;
    let status = |fenced: bool| BrokerStatus { broker_epoch: 1, fenced, in_controlled_shutdown: false };
    let fenced = [(BrokerId(1), status(false)), (BrokerId(2), status(false)), (BrokerId(3), status(true))];
    cluster.node(1).set_broker_statuses(fenced.into_iter().collect());
    cluster.heal(3);
    let status_now = cluster
        .until(1, &tp(), "follower 3 caught up", |s| {
            s.followers.iter().any(|f| f.broker_id == BrokerId(3) && f.log_end_offset == 1)
        })
        .await;
    assert_eq!((status_now.isr.clone(), status_now.isr_change_in_flight), (ids(&[1, 2]), false));
    let eligible = [(BrokerId(1), status(false)), (BrokerId(2), status(false)), (BrokerId(3), status(false))];
    cluster.node(1).set_broker_statuses(eligible.into_iter().collect());
    cluster.until(1, &tp(), "ISR expanded", |s| s.isr == ids(&[1, 2, 3])).await;
}

/// A leader change with divergent logs: the old leader wrote two records no follower has, then
/// lost leadership; the new leader commits another; when the old leader comes back as a follower
/// it truncates at the diverging epoch's end (never by high watermark) and takes the new
/// leader's log. No acknowledged record is lost, and it rejoins the ISR.
#[tokio::test]
async fn leader_change_truncates_the_divergent_tail() {
    let cluster = Cluster::new(&[1, 2, 3]);
    cluster.create(&tp(), &[1, 2, 3], 2);
    assert_eq!(cluster.produce(1, &tp(), "a", EVENT_WAIT).await.expect("a"), 0);
    cluster.cut(2);
    cluster.cut(3);
    cluster.append(1, &tp(), "b", Acks::Leader).expect("b");
    cluster.append(1, &tp(), "c", Acks::Leader).expect("c");
    cluster.cut(1);
    cluster.heal(2);
    cluster.heal(3);
    cluster.controller.change(&tp(), true, |s| {
        s.leader = BrokerId(2);
        s.isr = ids(&[2, 3]);
    });
    assert_eq!(cluster.node(2).partition_status(&tp()).expect("status").role, ReplicaRole::Leader);
    assert_eq!(cluster.produce(2, &tp(), "d", EVENT_WAIT).await.expect("d"), 1);
    cluster.heal(1);
    assert_eq!(cluster.controller.publish_to(&tp(), BrokerId(1)), RoleChange::BecameFollower);
    let expected = vec![(0, "a".to_owned()), (1, "d".to_owned())];
    cluster.until(1, &tp(), "old leader caught up", |s| s.log_end_offset == 2 && s.high_watermark == 2).await;
    assert_eq!(cluster.values(1, &tp()), expected);
    assert_eq!(cluster.values(2, &tp()), expected);
    assert_eq!(cluster.values(3, &tp()), expected);
    cluster.until(2, &tp(), "old leader back in the ISR", |s| s.isr.len() == 3).await;
}

/// The deposed leader refuses produces (NOT_LEADER_OR_FOLLOWER), and a parked `acks=all` on it
/// fails the same way; consumers cannot read from a follower.
#[tokio::test]
async fn followers_refuse_produce_and_consumer_reads() {
    let cluster = Cluster::new(&[1, 2, 3]);
    cluster.create(&tp(), &[1, 2, 3], 2);
    cluster.cut(2);
    cluster.cut(3);
    let parked = cluster.append(1, &tp(), "x", Acks::All).expect("append");
    cluster.heal(2);
    cluster.heal(3);
    cluster.controller.change(&tp(), true, |s| s.leader = BrokerId(2));
    let error = parked.delayed.expect("acks=all").wait(EVENT_WAIT).await.expect_err("deposed");
    assert_eq!(error.code(), ErrorCode::NotLeaderOrFollower);
    let refused = cluster.node(1).append_as_leader(
        &tp(),
        common::batch("y"),
        1,
        Acks::Leader,
        strand_log::producer_state::AppendContext::client(strand_log::producer_state::VerificationGuard::SENTINEL),
    );
    assert_eq!(refused.expect_err("follower").code(), ErrorCode::NotLeaderOrFollower);
    let read = cluster.node(3).read(&tp(), 0, 100, Isolation::ReadUncommitted);
    assert_eq!(read.expect_err("follower").code(), ErrorCode::NotLeaderOrFollower);
}

/// `acks=all` with an ISR smaller than `min.insync.replicas` is NOT_ENOUGH_REPLICAS before
/// anything is appended; `acks=1` still appends.
#[tokio::test]
async fn acks_all_below_min_insync_is_refused_before_appending() {
    let cluster = Cluster::new(&[1, 2, 3]);
    cluster.create(&tp(), &[1, 2, 3], 3);
    cluster.controller.change(&tp(), false, |s| s.isr = ids(&[1, 2]));
    let refused = cluster.append(1, &tp(), "a", Acks::All).expect_err("too few in sync");
    assert!(matches!(refused, ReplicaError::NotEnoughReplicas { isr: 2, min: 3, .. }), "{refused:?}");
    assert_eq!(refused.code(), ErrorCode::NotEnoughReplicas);
    assert_eq!(cluster.node(1).log_end_offset(&tp()).expect("end"), 0);
    cluster.append(1, &tp(), "b", Acks::Leader).expect("acks=1 appends");
    assert_eq!(cluster.node(1).log_end_offset(&tp()).expect("end"), 1);
}

/// `min.insync.replicas` above the replica count asks for every replica, not more (Kafka's
/// `Partition.effectiveMinIsr`): a one-replica partition with `min.insync.replicas=2` takes
/// `acks=all` and acknowledges it; a two-replica one with 3 takes it with both in sync.
#[tokio::test]
async fn min_insync_above_the_replica_count_asks_for_every_replica() {
    let cluster = Cluster::new(&[1, 2]);
    cluster.create(&tp(), &[1], 2);
    let appended = cluster.append(1, &tp(), "a", Acks::All).expect("one replica of one is enough");
    appended.delayed.expect("acks=all").wait(EVENT_WAIT).await.expect("acknowledged");

    let other = TopicPartition::new("pairs", 0);
    cluster.create(&other, &[1, 2], 3);
    cluster.until(1, &other, "ISR of two", |s| s.isr.len() == 2).await;
    let appended = cluster.append(1, &other, "b", Acks::All).expect("two in sync of two");
    appended.delayed.expect("acks=all").wait(EVENT_WAIT).await.expect("acknowledged once the follower has it");
}

/// Strict min ISR (KIP-966, as Kafka 4): once the ISR shrinks below `min.insync.replicas` the
/// high watermark stops, for `acks=1` records too, so an `acks=all` produce waiting meanwhile
/// times out (REQUEST_TIMED_OUT) rather than being acknowledged; with the ISR back at the
/// minimum the high watermark catches up.
#[tokio::test]
async fn isr_below_min_insync_holds_the_high_watermark() {
    let cluster = Cluster::new(&[1, 2, 3]);
    cluster.create(&tp(), &[1, 2, 3], 2);
    fetched(&cluster, 1, 2, 0).await;
    fetched(&cluster, 1, 3, 0).await;
    cluster.cut(2);
    cluster.cut(3);
    let appended = cluster.append(1, &tp(), "a", Acks::All).expect("append");
    cluster.clock.advance(31_000);
    assert_eq!(cluster.node(1).maybe_shrink_isr(cluster.clock.now_ms()), 1);
    cluster.until(1, &tp(), "ISR of one", |s| s.isr == ids(&[1])).await;
    let waited = appended.delayed.expect("acks=all").wait(Duration::from_millis(300)).await;
    assert_eq!(waited.expect_err("ISR of one").code(), ErrorCode::RequestTimedOut);
    cluster.append(1, &tp(), "b", Acks::Leader).expect("acks=1 appends");
    let offsets = cluster.node(1).offsets(&tp()).expect("offsets");
    assert_eq!(offsets.high_watermark, 0, "nothing is exposed with an ISR of one");
    cluster.heal(2);
    cluster.until(1, &tp(), "ISR back to two", |s| s.isr.len() == 2).await;
    cluster.until(1, &tp(), "high watermark 2", |s| s.high_watermark == 2).await;
}

/// An `acks=all` produce nobody replicates times out with REQUEST_TIMED_OUT.
#[tokio::test]
async fn acks_all_times_out() {
    let cluster = Cluster::new(&[1, 2, 3]);
    cluster.create(&tp(), &[1, 2, 3], 2);
    cluster.cut(2);
    cluster.cut(3);
    let error = cluster.produce(1, &tp(), "a", Duration::from_millis(50)).await.expect_err("nobody replicates");
    assert_eq!(error.code(), ErrorCode::RequestTimedOut);
}

/// Partition states older than the one held (a lower leader or partition epoch) are ignored.
#[tokio::test]
async fn stale_partition_states_are_ignored() {
    let cluster = Cluster::new(&[1, 2, 3]);
    let topic_id = cluster.create(&tp(), &[1, 2, 3], 1);
    cluster.controller.change(&tp(), true, |s| s.leader = BrokerId(2));
    let current = cluster.controller.state(&tp());
    let config = common::log_config();
    let older_leader = strand_replication::PartitionState { leader: BrokerId(1), leader_epoch: 0, ..current.clone() };
    let node = cluster.node(2);
    assert_eq!(
        node.apply_partition_state(&tp(), topic_id, config.clone(), &older_leader).expect("apply"),
        RoleChange::Stale
    );
    let older_isr =
        strand_replication::PartitionState { partition_epoch: current.partition_epoch - 1, ..current.clone() };
    assert_eq!(
        node.apply_partition_state(&tp(), topic_id, config.clone(), &older_isr).expect("apply"),
        RoleChange::Stale
    );
    assert_eq!(node.apply_partition_state(&tp(), topic_id, config, &current).expect("apply"), RoleChange::Unchanged);
    assert_eq!(node.partition_status(&tp()).expect("status").role, ReplicaRole::Leader);
}

/// The leader's checks on a follower's fetch: the leader epoch it names (older: fenced; newer:
/// unknown), that it is a replica, its broker epoch against the registration, and the diverging
/// epoch when its last fetched epoch ends earlier here.
#[tokio::test]
async fn follower_fetch_checks() {
    let cluster = Cluster::new(&[1, 2, 3]);
    cluster.create(&tp(), &[1, 2, 3], 1);
    cluster.cut(2);
    cluster.cut(3);
    cluster.append(1, &tp(), "a", Acks::Leader).expect("a");
    cluster.controller.change(&tp(), true, |_| {});
    cluster.append(1, &tp(), "b", Acks::Leader).expect("b");
    let leader = cluster.node(1);
    let fetch = FollowerFetch {
        replica_id: BrokerId(2),
        broker_epoch: 1,
        current_leader_epoch: 1,
        fetch_offset: 0,
        last_fetched_epoch: -1,
        log_start_offset: 0,
        max_bytes: 1 << 20,
    };
    let now = cluster.clock.now_ms();
    let code = |fetch: FollowerFetch| leader.fetch_for_follower(&tp(), &fetch, now).expect_err("refused").code();
    assert_eq!(code(FollowerFetch { current_leader_epoch: 0, ..fetch }), ErrorCode::FencedLeaderEpoch);
    assert_eq!(code(FollowerFetch { current_leader_epoch: 2, ..fetch }), ErrorCode::UnknownLeaderEpoch);
    assert_eq!(code(FollowerFetch { replica_id: BrokerId(9), ..fetch }), ErrorCode::NotLeaderOrFollower);
    assert_eq!(code(FollowerFetch { fetch_offset: 5, ..fetch }), ErrorCode::OffsetOutOfRange);
    let registered = |epoch| BrokerStatus { broker_epoch: epoch, fenced: false, in_controlled_shutdown: false };
    leader.set_broker_statuses([(BrokerId(1), registered(1)), (BrokerId(2), registered(4))].into_iter().collect());
    assert_eq!(code(fetch), ErrorCode::NotLeaderOrFollower, "a stale broker epoch");
    let fetch = FollowerFetch { broker_epoch: 4, ..fetch };
    let read = leader.fetch_for_follower(&tp(), &fetch, now).expect("fetch");
    assert_eq!((read.diverging_epoch, read.log_end_offset), (None, 2));
    assert!(read.records.is_some(), "a follower reads past the high watermark");
    // It wrote offsets 1..=2 in epoch 0, which ended at 1 here.
    let diverging = FollowerFetch { fetch_offset: 3, last_fetched_epoch: 0, ..fetch };
    let read = leader.fetch_for_follower(&tp(), &diverging, now).expect("fetch");
    assert_eq!(read.diverging_epoch, Some((0, 1)));
    assert!(read.records.is_none());
}

/// High watermarks are checkpointed in Kafka's `replication-offset-checkpoint` and a restarted
/// node starts from them, leader and follower alike.
#[tokio::test]
async fn high_watermark_checkpoint_survives_a_restart() {
    let mut cluster = Cluster::new(&[1, 2, 3]);
    cluster.create(&tp(), &[1, 2, 3], 2);
    for value in ["a", "b", "c"] {
        cluster.produce(1, &tp(), value, EVENT_WAIT).await.expect("produce");
    }
    cluster.until(2, &tp(), "follower high watermark 3", |s| s.high_watermark == 3).await;
    cluster.cut(2);
    cluster.append(1, &tp(), "d", Acks::Leader).expect("d");
    cluster.node(1).checkpoint_high_watermarks().expect("checkpoint");
    cluster.restart(1).await;
    cluster.restart(2).await;
    for id in [1, 2] {
        let status = cluster.node(id).partition_status(&tp()).expect("status");
        assert_eq!(status.role, ReplicaRole::Unassigned);
        assert_eq!(status.high_watermark, 3, "node {id}");
    }
    assert_eq!(cluster.node(1).partition_status(&tp()).expect("status").log_end_offset, 4);
}

/// A reassignment's first step grows the replica list under the same leader: the new replicas
/// create their logs, copy the leader's from its start and are proposed for the ISR, each once
/// caught up.
#[tokio::test]
async fn replicas_added_by_a_reassignment_copy_the_log_and_join_the_isr() {
    let cluster = Cluster::new(&[1, 2, 3]);
    cluster.create(&tp(), &[1], 1);
    for value in ["a", "b"] {
        cluster.produce(1, &tp(), value, EVENT_WAIT).await.expect("produce");
    }
    assert!(cluster.node(2).partition_status(&tp()).is_err(), "broker 2 hosts nothing yet");
    cluster.controller.change(&tp(), false, |s| s.replicas = ids(&[2, 3, 1]));
    cluster.until(1, &tp(), "ISR expanded", |s| s.isr.len() == 3 && !s.isr_change_in_flight).await;
    assert_eq!(cluster.controller.state(&tp()).isr.len(), 3);
    for follower in [2, 3] {
        assert_eq!(cluster.values(follower, &tp()), vec![(0, "a".to_owned()), (1, "b".to_owned())]);
    }
}
