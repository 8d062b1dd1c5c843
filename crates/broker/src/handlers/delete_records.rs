//! DeleteRecords (`kafka-delete-records.sh`, AdminClient `deleteRecords`): each partition's log
//! start offset moves up to the requested offset (`-1`: the high watermark) on its leader, so
//! consumers below it get OFFSET_OUT_OF_RANGE and follow `auto.offset.reset`. The answer's low
//! watermark is the leader's new log start offset.
//!
//! Errors, as Kafka: UNKNOWN_TOPIC_OR_PARTITION, NOT_LEADER_OR_FOLLOWER off the leader,
//! OFFSET_OUT_OF_RANGE past the high watermark or below zero, POLICY_VIOLATION on a topic that is
//! only compacted. Unlike Kafka, the answer does not wait for the followers' log start offsets to
//! follow (they move on their next fetch).

use strand_protocol::error::ErrorCode;
use strand_protocol::messages::delete_records_response::{DeleteRecordsPartitionResult, DeleteRecordsTopicResult};
use strand_protocol::messages::{DeleteRecordsRequest, DeleteRecordsResponse};

use strand_security::Session;
use strand_security::acl::{AclOperation, ResourceType};

use crate::Broker;

/// Needs DELETE on each topic (TOPIC_AUTHORIZATION_FAILED, asked before the topic is looked up).
pub fn handle(broker: &Broker, request: DeleteRecordsRequest, session: &Session) -> DeleteRecordsResponse {
    let image = broker.image();
    let names = request.topics.iter().map(|t| t.name.as_str());
    let deletable = broker.authorized_names(session, AclOperation::Delete, ResourceType::Topic, names);
    let topics = request
        .topics
        .iter()
        .map(|topic| {
            let partitions = topic
                .partitions
                .iter()
                .map(|p| {
                    let found = if deletable.contains(&topic.name) {
                        super::target(
                            &image,
                            image.topics().by_name(&topic.name),
                            p.partition_index,
                            broker.identity.node_id,
                        )
                    } else {
                        Err(ErrorCode::TopicAuthorizationFailed)
                    };
                    let result = found.and_then(|target| {
                        broker.replicas.delete_records(&target.partition, p.offset).map_err(|e| e.code())
                    });
                    let (low_watermark, error_code) = match result {
                        Ok(start) => (start, ErrorCode::None),
                        Err(code) => (-1, code),
                    };
                    DeleteRecordsPartitionResult {
                        partition_index: p.partition_index,
                        low_watermark,
                        error_code: error_code.code(),
                        ..Default::default()
                    }
                })
                .collect();
            DeleteRecordsTopicResult { name: topic.name.clone(), partitions, ..Default::default() }
        })
        .collect();
    DeleteRecordsResponse { topics, ..Default::default() }
}
