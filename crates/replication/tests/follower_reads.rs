//! KIP-392 in the replica manager: a follower serves a consumer's read (`ReadFrom::AnyReplica`)
//! up to its own high watermark with Kafka's `LocalLog.read` rules, and a leader names the
//! in-sync followers that hold an offset as read replica candidates.

mod common;

use common::{Cluster, EVENT_WAIT};
use strand_base::{BrokerId, TopicPartition};
use strand_protocol::error::ErrorCode;
use strand_replication::{Acks, FirstBatch, Isolation, PartitionRead, ReadFrom, ReplicaError};

fn tp() -> TopicPartition {
    TopicPartition::new("orders", 0)
}

fn read(cluster: &Cluster, id: i32, offset: i64, from: ReadFrom) -> Result<PartitionRead, ReplicaError> {
    cluster.node(id).read_limited(&tp(), offset, 1 << 20, Isolation::ReadUncommitted, FirstBatch::Whole, from)
}

/// Waits until the leader (node 1) has seen `follower` fetch from `offset`: it has everything below.
async fn follower_fetched(cluster: &Cluster, follower: i32, offset: i64) {
    let what = format!("follower {follower} fetching from {offset}");
    cluster
        .until(1, &tp(), &what, |s| {
            s.followers.iter().any(|f| f.broker_id == BrokerId(follower) && f.log_end_offset >= offset)
        })
        .await;
}

/// A follower reads committed records to a consumer that allows it, counting the bytes; between
/// its high watermark and log end it reads nothing, past its log end it is OFFSET_OUT_OF_RANGE;
/// a consumer that wants the leader is refused NOT_LEADER_OR_FOLLOWER.
#[tokio::test]
async fn a_follower_serves_reads_up_to_its_high_watermark() {
    let cluster = Cluster::new(&[1, 2, 3]);
    cluster.create(&tp(), &[1, 2, 3], 1);
    cluster.produce(1, &tp(), "a", EVENT_WAIT).await.expect("a");
    cluster.until(2, &tp(), "follower 2 learning the high watermark", |s| s.high_watermark == 1).await;
    // Follower 3 stops fetching: "b" reaches follower 2 but the high watermark stays at 1.
    cluster.cut(3);
    cluster.append(1, &tp(), "b", Acks::Leader).expect("b");
    follower_fetched(&cluster, 2, 2).await;

    let served = read(&cluster, 2, 0, ReadFrom::AnyReplica).expect("read from the follower");
    assert!(served.by_follower && !served.is_empty(), "{served:?}");
    assert_eq!((served.high_watermark, served.log_start_offset), (1, 0));
    assert_eq!(cluster.node(2).follower_read_bytes(), served.len());

    let above_high_watermark = read(&cluster, 2, 1, ReadFrom::AnyReplica).expect("between the HW and the log end");
    assert!(above_high_watermark.is_empty());
    let past_end = read(&cluster, 2, 3, ReadFrom::AnyReplica).expect_err("past the follower's log end");
    assert_eq!(past_end.code(), ErrorCode::OffsetOutOfRange);
    let leader_only = read(&cluster, 2, 0, ReadFrom::Leader).expect_err("leader only");
    assert_eq!(leader_only.code(), ErrorCode::NotLeaderOrFollower);

    let on_leader = read(&cluster, 1, 0, ReadFrom::AnyReplica).expect("read from the leader");
    assert!(!on_leader.by_follower && !on_leader.is_empty());
    assert_eq!(cluster.node(1).follower_read_bytes(), 0);
}

/// The leader's candidates for a read are the ISR followers whose log holds the offset, as their
/// last fetch showed it; a follower has none to offer.
#[tokio::test]
async fn read_replica_candidates_hold_the_offset() {
    let cluster = Cluster::new(&[1, 2, 3]);
    cluster.create(&tp(), &[1, 2, 3], 1);
    cluster.produce(1, &tp(), "a", EVENT_WAIT).await.expect("a");
    cluster.cut(3);
    cluster.append(1, &tp(), "b", Acks::Leader).expect("b");
    follower_fetched(&cluster, 2, 2).await;

    let candidates = |offset: i64| {
        let (leader_end, followers) =
            cluster.node(1).read_replica_candidates(&tp(), offset).expect("candidates").expect("leads");
        assert_eq!(leader_end, 2);
        let mut ids: Vec<i32> = followers.iter().map(|f| f.broker_id.0).collect();
        ids.sort_unstable();
        ids
    };
    assert_eq!(candidates(1), vec![2, 3]);
    assert_eq!(candidates(2), vec![2], "follower 3 has not fetched b");
    assert_eq!(candidates(3), Vec::<i32>::new());
    assert!(cluster.node(2).read_replica_candidates(&tp(), 0).expect("hosted").is_none());
}
