//! Replication throttles (KIP-73) on three replica managers over the in-memory transport of
//! `common`, on its manual clock (the quotas' time): a leader past its quota sends a throttled
//! partition's new replica nothing while an in-sync follower of it keeps replicating; a follower
//! past its quota leaves the throttled partition out of its fetches while an unthrottled one on
//! the same leader keeps replicating; once the quota's window has passed, the new replica
//! catches up and joins the ISR.

mod common;

use std::collections::BTreeMap;

use common::{Cluster, EVENT_WAIT, ids};
use strand_base::{BrokerId, TopicPartition};
use strand_replication::{Acks, ReplicationThrottles, ThrottledReplicas};

/// A record of 10 kB.
fn value(i: usize) -> String {
    format!("{i:05}{}", "v".repeat(10_000))
}

/// `topic` throttled wholly at `rate` bytes a second: on the leader's side or the follower's.
fn throttled(topic: &str, rate: u64, leader: bool) -> ReplicationThrottles {
    let replicas = BTreeMap::from([(topic.to_owned(), ThrottledReplicas::All)]);
    if leader {
        ReplicationThrottles { leader_rate: Some(rate), leader_replicas: replicas, ..Default::default() }
    } else {
        ReplicationThrottles { follower_rate: Some(rate), follower_replicas: replicas, ..Default::default() }
    }
}

/// The records of `tp` on node `id`.
fn count(cluster: &Cluster, id: i32, tp: &TopicPartition) -> usize {
    cluster.values(id, tp).len()
}

/// The leader's throttle: the bytes its in-sync follower fetches count against the quota but
/// are never held back; a replica added outside the ISR fetches and gets nothing while the quota
/// is exceeded (its fetches still reach the leader), then catches up once the window has passed.
#[tokio::test]
async fn a_leader_past_its_quota_sends_an_out_of_sync_replica_nothing() {
    let cluster = Cluster::new(&[1, 2, 3]);
    let tp = TopicPartition::new("moved", 0);
    cluster.create(&tp, &[1, 2], 1);
    cluster.node(1).set_replication_throttles(throttled("moved", 1000, true));
    for i in 0..10 {
        cluster.produce(1, &tp, &value(i), EVENT_WAIT).await.expect("in-sync follower 2 is never held back");
    }
    cluster.controller.change(&tp, false, |s| s.replicas = ids(&[1, 2, 3]));
    cluster.until(1, &tp, "replica 3 fetching", |s| s.followers.iter().any(|f| f.broker_id == BrokerId(3))).await;
    // More for follower 2, which keeps up; replica 3's fetches come and go empty meanwhile.
    for i in 10..13 {
        cluster.produce(1, &tp, &value(i), EVENT_WAIT).await.expect("follower 2 still replicates");
    }
    assert_eq!(count(&cluster, 2, &tp), 13);
    assert_eq!(count(&cluster, 3, &tp), 0, "the leader sends a throttled out-of-sync replica nothing");
    assert_eq!(cluster.node(1).partition_status(&tp).expect("status").isr, ids(&[1, 2]));

    // Past the window (11 samples of 1 s) the quota measures nothing: replica 3 catches up.
    cluster.clock.advance(60_000);
    cluster.until(1, &tp, "replica 3 in the ISR", |s| s.isr.contains(&BrokerId(3))).await;
    assert_eq!(count(&cluster, 3, &tp), 13);
}

/// The follower's throttle: a replica catching up takes one fetch's worth (the quota's first
/// window allows it), then leaves the throttled partition out of its fetches while the quota is
/// exceeded; an unthrottled partition from the same leader keeps replicating through those
/// fetches; once the window has passed it catches up.
#[tokio::test]
async fn a_follower_past_its_quota_leaves_a_throttled_partition_out() {
    let cluster = Cluster::new(&[1, 2, 3]);
    // Topic ids follow the names' lengths in `common`: the names differ in length.
    let (moved, other) = (TopicPartition::new("moved", 0), TopicPartition::new("unthrottled", 0));
    cluster.create(&moved, &[1], 1);
    cluster.create(&other, &[1, 3], 1);
    cluster.node(3).set_replication_throttles(throttled("moved", 1000, false));
    // 1.3 MB: more than one fetch's 1 MiB (`replica.fetch.max.bytes`) in 10 kB batches.
    for i in 0..130 {
        cluster.append(1, &moved, &value(i), Acks::Leader).expect("append");
    }
    cluster.controller.change(&moved, false, |s| s.replicas = ids(&[1, 3]));
    cluster.until(3, &moved, "the first fetch's worth", |s| s.log_end_offset > 0).await;
    for i in 0..3 {
        cluster.produce(1, &other, &value(i), EVENT_WAIT).await.expect("the unthrottled partition replicates");
    }
    let copied = count(&cluster, 3, &moved);
    assert!((1..130).contains(&copied), "{copied} of 130 records: one fetch's worth, then nothing");
    assert_eq!(count(&cluster, 3, &other), 3);

    cluster.clock.advance(60_000);
    cluster.until(1, &moved, "replica 3 in the ISR", |s| s.isr.contains(&BrokerId(3))).await;
    assert_eq!(count(&cluster, 3, &moved), 130);
}
