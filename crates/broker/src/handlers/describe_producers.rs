//! DescribeProducers (`kafka-transactions.sh describe-producers`): the idempotent and
//! transactional producers a partition's leader remembers, each with its epoch, last sequence and
//! timestamp, the epoch of the coordinator that last ended one of its transactions, and where its
//! open transaction starts. Partitions this node does not lead answer NOT_LEADER_OR_FOLLOWER,
//! unknown ones UNKNOWN_TOPIC_OR_PARTITION, as Kafka's `ReplicaManager.activeProducerState`.

use strand_base::TopicPartition;
use strand_protocol::error::ErrorCode;
use strand_protocol::messages::describe_producers_response::{PartitionResponse, ProducerState, TopicResponse};
use strand_protocol::messages::{DescribeProducersRequest, DescribeProducersResponse};

use strand_security::Session;
use strand_security::acl::AclOperation;

use crate::Broker;

/// Needs READ on each topic (TOPIC_AUTHORIZATION_FAILED, asked before the topic is looked up).
pub fn handle(broker: &Broker, request: DescribeProducersRequest, session: &Session) -> DescribeProducersResponse {
    let image = broker.image();
    let topics = request
        .topics
        .iter()
        .map(|topic| {
            let readable = broker.authorize_topic(session, AclOperation::Read, &topic.name);
            let known = image.topics().by_name(&topic.name);
            let partitions = topic
                .partition_indexes
                .iter()
                .map(|&partition_index| {
                    if !readable {
                        return failed(partition_index, ErrorCode::TopicAuthorizationFailed);
                    }
                    if known.is_none_or(|t| !t.partitions.contains_key(&partition_index)) {
                        return failed(partition_index, ErrorCode::UnknownTopicOrPartition);
                    }
                    let tp = TopicPartition::new(topic.name.clone(), partition_index);
                    match broker.replicas.active_producers(&tp) {
                        Ok(producers) => PartitionResponse {
                            partition_index,
                            active_producers: producers
                                .iter()
                                .map(|p| ProducerState {
                                    producer_id: p.producer_id(),
                                    producer_epoch: i32::from(p.producer_epoch()),
                                    last_sequence: p.last_seq(),
                                    last_timestamp: p.last_timestamp(),
                                    coordinator_epoch: p.coordinator_epoch(),
                                    current_txn_start_offset: p.current_txn_first_offset().unwrap_or(-1),
                                    ..Default::default()
                                })
                                .collect(),
                            ..Default::default()
                        },
                        Err(e) => failed(partition_index, e.code()),
                    }
                })
                .collect();
            TopicResponse { name: topic.name.clone(), partitions, ..Default::default() }
        })
        .collect();
    DescribeProducersResponse { topics, ..Default::default() }
}

fn failed(partition_index: i32, code: ErrorCode) -> PartitionResponse {
    PartitionResponse { partition_index, error_code: code.code(), ..Default::default() }
}
