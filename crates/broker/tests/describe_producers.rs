//! DescribeProducers lists the producers a partition's leader remembers: an idempotent producer
//! with its epoch and last sequence, and where a transactional producer's open transaction starts.

mod common;

use bytes::{Bytes, BytesMut};
use common::Node;
use strand_base::{ProducerId, TopicPartition};
use strand_log::log::ValidatedBatch;
use strand_log::producer_state::{AppendContext, VerificationGuard};
use strand_protocol::error::ErrorCode;
use strand_protocol::messages::DescribeProducersRequest;
use strand_protocol::messages::api::{RequestBody, ResponseBody};
use strand_protocol::messages::describe_producers_request::TopicRequest;
use strand_protocol::messages::describe_producers_response::PartitionResponse;
use strand_protocol::records::{NewRecord, RecordBatchBuilder};
use strand_replication::Acks;

fn batch(producer_id: i64, epoch: i16, sequence: i32, records: usize, transactional: bool) -> Bytes {
    let mut builder = RecordBatchBuilder::new().producer(ProducerId(producer_id), epoch, sequence);
    if transactional {
        builder = builder.transactional();
    }
    for _ in 0..records {
        builder.append(&NewRecord { timestamp_ms: 1_000, key: None, value: Some(b"v"), headers: &[] }).expect("record");
    }
    builder.build().expect("batch")
}

fn append(node: &Node, tp: &TopicPartition, bytes: Bytes, guard: VerificationGuard) {
    let batch = ValidatedBatch::validate(BytesMut::from(&bytes[..])).expect("valid");
    let context = AppendContext::client(guard);
    node.replicas.append(tp, batch, 0, Acks::Leader, context).expect("append");
}

async fn describe(node: &mut Node, topic: &str, partitions: Vec<i32>) -> Vec<PartitionResponse> {
    let request = DescribeProducersRequest {
        topics: vec![TopicRequest { name: topic.into(), partition_indexes: partitions, ..Default::default() }],
        ..Default::default()
    };
    let ResponseBody::DescribeProducers(response) = node.call(RequestBody::DescribeProducers(request), 0).await else {
        panic!("not a DescribeProducers response")
    };
    response.topics.into_iter().next().expect("the topic").partitions
}

#[tokio::test]
async fn lists_the_producers_a_leader_remembers() {
    let mut node = Node::new();
    node.create_topic("t", 1).await;
    let tp = TopicPartition::new("t", 0);
    append(&node, &tp, batch(7, 2, 0, 3, false), VerificationGuard::SENTINEL);
    append(&node, &tp, batch(7, 2, 3, 2, false), VerificationGuard::SENTINEL);

    let partitions = describe(&mut node, "t", vec![0, 5]).await;
    assert_eq!(partitions[0].error_code, 0);
    let producers = &partitions[0].active_producers;
    assert_eq!(producers.len(), 1, "{producers:?}");
    let producer = &producers[0];
    assert_eq!((producer.producer_id, producer.producer_epoch, producer.last_sequence), (ProducerId(7), 2, 4));
    assert_eq!((producer.last_timestamp, producer.current_txn_start_offset), (1_000, -1));
    assert_eq!(partitions[1].error_code, ErrorCode::UnknownTopicOrPartition.code());

    let unknown = describe(&mut node, "missing", vec![0]).await;
    assert_eq!(unknown[0].error_code, ErrorCode::UnknownTopicOrPartition.code());

    // A transactional producer's first write needs a verification (KIP-890); once written, its
    // open transaction starts at that offset.
    let unverified = ValidatedBatch::validate(BytesMut::from(&batch(9, 0, 0, 1, true)[..])).expect("valid");
    let context = AppendContext::client(VerificationGuard::SENTINEL);
    let refused = node.replicas.append(&tp, unverified, 0, Acks::Leader, context).expect_err("unverified");
    assert_eq!(refused.code(), ErrorCode::InvalidTxnState);
    let guard = node.replicas.maybe_start_txn_verification(&tp, (ProducerId(9), 0), 0, false, 1_000).expect("guard");
    append(&node, &tp, batch(9, 0, 0, 1, true), guard);
    let partitions = describe(&mut node, "t", vec![0]).await;
    let transactional = partitions[0].active_producers.iter().find(|p| p.producer_id == ProducerId(9));
    assert_eq!(transactional.map(|p| p.current_txn_start_offset), Some(5), "{partitions:?}");
    // The transaction is open here now: no further verification is needed.
    let again = node.replicas.maybe_start_txn_verification(&tp, (ProducerId(9), 0), 1, false, 1_000).expect("open");
    assert_eq!(again, VerificationGuard::SENTINEL);
}
