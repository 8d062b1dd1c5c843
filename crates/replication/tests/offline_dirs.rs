//! A log directory taken offline by a failed `fdatasync`, at the replication layer (Kafka's
//! `ReplicaManager.handleLogDirFailure`): its partitions stop being led or followed here. The
//! leader of a partition in it must not shrink the ISR of the followers it can no longer serve
//! (the controller moves the leadership instead), takes no new partition state, and answers
//! its followers KAFKA_STORAGE_ERROR.
//!
//! Its own test binary: the `log::sync` failpoint is process-wide.

mod common;

use common::{Cluster, EVENT_WAIT, ids};
use std::time::Duration;

use strand_base::{BrokerId, Clock, TopicPartition};
use strand_replication::{Acks, RoleChange};

fn led_by_1() -> TopicPartition {
    TopicPartition::new("orders", 0)
}

fn led_by_2() -> TopicPartition {
    TopicPartition::new("payments", 0)
}

/// Node 1 leads `orders` and follows `payments`; one failed sync on node 1 takes its only log
/// directory offline. It then proposes no ISR change for `orders` however long its followers
/// lag, and takes no new state for either partition (it neither leads nor follows them any
/// more).
#[tokio::test]
async fn a_failed_sync_stops_leading_and_following_the_partitions_of_the_dir() {
    let cluster = Cluster::new(&[1, 2, 3]);
    cluster.create(&led_by_1(), &[1, 2, 3], 1);
    cluster.create(&led_by_2(), &[2, 1, 3], 1);
    cluster.produce(1, &led_by_1(), "a", EVENT_WAIT).await.expect("a");
    cluster.produce(2, &led_by_2(), "x", EVENT_WAIT).await.expect("x");
    let node = cluster.node(1);
    assert!(node.handle_log_dir_failures().expect("dirs").is_empty());

    // Followers cut off, so the one failing sync is node 1's own acks=all flush.
    cluster.cut(2);
    cluster.cut(3);
    fail::cfg("log::sync", "1*return").expect("failpoint");
    let appended = cluster.append(1, &led_by_1(), "b", Acks::All).expect("appended, not yet acknowledged");
    let refused = appended.delayed.expect("acks=all waits").wait(Duration::from_millis(100)).await;
    fail::remove("log::sync");
    assert!(refused.is_err(), "the failed sync is not acknowledged: {refused:?}");
    cluster.heal(2);
    cluster.heal(3);

    let offline = node.handle_log_dir_failures().expect("dirs");
    assert_eq!(offline.len(), 1, "{offline:?}");
    assert!(node.is_offline(&led_by_1()) && node.is_offline(&led_by_2()));

    // The followers cannot fetch from the failed leader; it must not evict them for that.
    cluster.clock.advance(31_000);
    assert_eq!(node.maybe_shrink_isr(cluster.clock.now_ms()), 0, "no ISR shrink from an offline leader");
    assert_eq!(cluster.controller.state(&led_by_1()).isr, ids(&[1, 2, 3]));

    // New leader epochs (published to the others first): node 1 takes no part any more.
    cluster.cut(1);
    cluster.controller.change(&led_by_1(), true, |s| s.leader = BrokerId(2));
    cluster.controller.change(&led_by_2(), true, |_| {});
    cluster.heal(1);
    for tp in [led_by_1(), led_by_2()] {
        assert_eq!(cluster.controller.publish_to(&tp, BrokerId(1)), RoleChange::Unchanged, "{tp}");
    }
}
