//! A replica this node was given but cannot host (its log cannot be created: no descriptors left,
//! a broken directory) is not silent: it is listed offline and answers KAFKA_STORAGE_ERROR to
//! produces and reads, as Kafka answers for an offline replica, instead of NOT_LEADER_OR_FOLLOWER
//! (which has clients wait for a leader that is never coming). Once a later state hosts it, it
//! serves.

mod common;

use common::Cluster;
use strand_base::{BrokerId, TopicPartition, Uuid};
use strand_log::producer_state::{AppendContext, VerificationGuard};
use strand_protocol::error::ErrorCode;
use strand_replication::{Acks, Isolation, PartitionState};

#[tokio::test]
async fn a_replica_that_cannot_be_hosted_answers_kafka_storage_error() {
    let cluster = Cluster::new(&[1]);
    let node = cluster.node(1);
    let tp = TopicPartition::new("orders", 0);
    let dir = node.log_dirs().expect("log dirs")[0].path.clone();
    // A file where the partition's directory must go: its log cannot be created.
    std::fs::write(dir.join("orders-0"), b"not a directory").expect("write");
    let state = PartitionState {
        leader: BrokerId(1),
        leader_epoch: 0,
        partition_epoch: 0,
        replicas: vec![BrokerId(1)],
        isr: vec![BrokerId(1)],
        min_insync_replicas: 1,
        leader_recovery_state: 0,
    };
    let topic_id = Uuid([7; 16]);
    let hosting = node.apply_partition_state(&tp, topic_id, common::log_config(), &state);
    assert!(hosting.is_err(), "{hosting:?}");
    assert_eq!(node.offline(), std::slice::from_ref(&tp));
    let append = || {
        node.append_as_leader(
            &tp,
            common::batch("a"),
            0,
            Acks::Leader,
            AppendContext::client(VerificationGuard::SENTINEL),
        )
    };
    let refused = append().expect_err("an offline replica takes no produce");
    assert_eq!(refused.code(), ErrorCode::KafkaStorageError, "{refused}");
    let read = node.read(&tp, 0, 1 << 20, Isolation::ReadUncommitted).expect_err("nor reads");
    assert_eq!(read.code(), ErrorCode::KafkaStorageError, "{read}");

    std::fs::remove_file(dir.join("orders-0")).expect("remove");
    node.apply_partition_state(&tp, topic_id, common::log_config(), &state).expect("hosted now");
    assert_eq!(node.offline(), Vec::<TopicPartition>::new());
    append().expect("served");
}
