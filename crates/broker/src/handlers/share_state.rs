//! The share coordinator's RPCs (KIP-932), which partition leaders send to the coordinator of a
//! share-partition's key (the leader of its `__share_group_state` partition, FindCoordinator key
//! type 2): InitializeShareGroupState, ReadShareGroupState, WriteShareGroupState,
//! DeleteShareGroupState and ReadShareGroupStateSummary, served by the node's
//! [`strand_coordinator::share::state::ShareCoordinator`].
//!
//! Only brokers send them: each needs CLUSTER_ACTION on the cluster, else every partition is
//! CLUSTER_AUTHORIZATION_FAILED; `share.version` below 1 answers UNSUPPORTED_VERSION. Per
//! partition: NOT_COORDINATOR if this node does not lead the key's partition,
//! COORDINATOR_LOAD_IN_PROGRESS while it loads, COORDINATOR_NOT_AVAILABLE before
//! `__share_group_state` exists; FENCED_LEADER_EPOCH and FENCED_STATE_EPOCH as the shard checks.
//! A read of a state never initialized answers start offset -1, state epoch 0 and no batches.

use strand_base::Uuid;
use strand_base::topic::SHARE_GROUP_STATE_TOPIC;
use strand_coordinator::group::hash::partition_for;
use strand_coordinator::share::state::{PersistedBatch, PersistedState, ShareKey, UNINITIALIZED_START_OFFSET};
use strand_metadata::image::SHARE_VERSION;
use strand_protocol::error::ErrorCode;
use strand_protocol::messages::{
    DeleteShareGroupStateRequest, DeleteShareGroupStateResponse, InitializeShareGroupStateRequest,
    InitializeShareGroupStateResponse, ReadShareGroupStateRequest, ReadShareGroupStateResponse,
    ReadShareGroupStateSummaryRequest, ReadShareGroupStateSummaryResponse, WriteShareGroupStateRequest,
    WriteShareGroupStateResponse, delete_share_group_state_response as delete,
    initialize_share_group_state_response as init, read_share_group_state_response as read,
    read_share_group_state_summary_response as summary, write_share_group_state_response as write,
};
use strand_security::Session;
use strand_security::acl::AclOperation;

use crate::Broker;

/// Why the whole request is refused, if it is.
fn refusal(broker: &Broker, session: &Session) -> Option<ErrorCode> {
    if broker.image().features().level(SHARE_VERSION) < 1 {
        return Some(ErrorCode::UnsupportedVersion);
    }
    if !broker.authorize_cluster(session, AclOperation::ClusterAction) {
        return Some(ErrorCode::ClusterAuthorizationFailed);
    }
    broker.share_coordinator.is_none().then_some(ErrorCode::CoordinatorNotAvailable)
}

/// The `__share_group_state` partition of `key`.
fn shard_of(broker: &Broker, key: &ShareKey) -> Result<i32, ErrorCode> {
    let image = broker.image();
    let topic = image.topics().by_name(SHARE_GROUP_STATE_TOPIC).ok_or(ErrorCode::CoordinatorNotAvailable)?;
    let partitions = i32::try_from(topic.partitions.len()).unwrap_or(i32::MAX).max(1);
    Ok(partition_for(&key.coordinator_key(), partitions))
}

fn key(group_id: &str, topic_id: Uuid, partition: i32) -> ShareKey {
    ShareKey { group_id: group_id.to_owned(), topic_id, partition }
}

fn code_of(result: &Result<impl Sized, ErrorCode>) -> i16 {
    result.as_ref().err().map_or(0, |code| code.code())
}

pub(crate) async fn initialize(
    broker: &Broker,
    request: InitializeShareGroupStateRequest,
    session: &Session,
) -> InitializeShareGroupStateResponse {
    let refused = refusal(broker, session);
    let mut results = Vec::with_capacity(request.topics.len());
    for topic in request.topics {
        let mut partitions = Vec::with_capacity(topic.partitions.len());
        for p in topic.partitions {
            let key = key(&request.group_id, topic.topic_id, p.partition);
            let result = match (refused, &broker.share_coordinator) {
                (Some(_), _) | (None, None) => Err(code_or_unavailable(refused)),
                (None, Some(coordinator)) => match shard_of(broker, &key) {
                    Ok(shard) => coordinator.initialize(shard, key, p.state_epoch, p.start_offset).await,
                    Err(code) => Err(code),
                },
            };
            partitions.push(init::PartitionResult {
                partition: p.partition,
                error_code: code_of(&result),
                ..Default::default()
            });
        }
        results.push(init::InitializeStateResult { topic_id: topic.topic_id, partitions, ..Default::default() });
    }
    InitializeShareGroupStateResponse { results, ..Default::default() }
}

pub(crate) async fn read(
    broker: &Broker,
    request: ReadShareGroupStateRequest,
    session: &Session,
) -> ReadShareGroupStateResponse {
    let refused = refusal(broker, session);
    let mut results = Vec::with_capacity(request.topics.len());
    for topic in request.topics {
        let mut partitions = Vec::with_capacity(topic.partitions.len());
        for p in topic.partitions {
            let key = key(&request.group_id, topic.topic_id, p.partition);
            let result = match (refused, &broker.share_coordinator) {
                (Some(_), _) | (None, None) => Err(code_or_unavailable(refused)),
                (None, Some(coordinator)) => match shard_of(broker, &key) {
                    Ok(shard) => coordinator.read(shard, key, p.leader_epoch).await,
                    Err(code) => Err(code),
                },
            };
            let mut answer = read::PartitionResult {
                partition: p.partition,
                error_code: code_of(&result),
                start_offset: UNINITIALIZED_START_OFFSET,
                ..Default::default()
            };
            if let Ok(Some(state)) = result {
                answer.state_epoch = state.state_epoch;
                answer.start_offset = state.start_offset;
                answer.state_batches = state
                    .batches
                    .iter()
                    .map(|b| read::StateBatch {
                        first_offset: b.first_offset,
                        last_offset: b.last_offset,
                        delivery_state: b.delivery_state,
                        delivery_count: b.delivery_count,
                        ..Default::default()
                    })
                    .collect();
            }
            partitions.push(answer);
        }
        results.push(read::ReadStateResult { topic_id: topic.topic_id, partitions, ..Default::default() });
    }
    ReadShareGroupStateResponse { results, ..Default::default() }
}

pub(crate) async fn write(
    broker: &Broker,
    request: WriteShareGroupStateRequest,
    session: &Session,
) -> WriteShareGroupStateResponse {
    let refused = refusal(broker, session);
    let mut results = Vec::with_capacity(request.topics.len());
    for topic in request.topics {
        let mut partitions = Vec::with_capacity(topic.partitions.len());
        for p in topic.partitions {
            let key = key(&request.group_id, topic.topic_id, p.partition);
            let state = PersistedState {
                state_epoch: p.state_epoch,
                leader_epoch: p.leader_epoch,
                start_offset: p.start_offset,
                batches: p
                    .state_batches
                    .iter()
                    .map(|b| PersistedBatch {
                        first_offset: b.first_offset,
                        last_offset: b.last_offset,
                        delivery_state: b.delivery_state,
                        delivery_count: b.delivery_count,
                    })
                    .collect(),
            };
            let result = match (refused, &broker.share_coordinator) {
                (Some(_), _) | (None, None) => Err(code_or_unavailable(refused)),
                (None, Some(coordinator)) => match shard_of(broker, &key) {
                    Ok(shard) => coordinator.write(shard, key, state).await,
                    Err(code) => Err(code),
                },
            };
            partitions.push(write::PartitionResult {
                partition: p.partition,
                error_code: code_of(&result),
                ..Default::default()
            });
        }
        results.push(write::WriteStateResult { topic_id: topic.topic_id, partitions, ..Default::default() });
    }
    WriteShareGroupStateResponse { results, ..Default::default() }
}

pub(crate) async fn delete(
    broker: &Broker,
    request: DeleteShareGroupStateRequest,
    session: &Session,
) -> DeleteShareGroupStateResponse {
    let refused = refusal(broker, session);
    let mut results = Vec::with_capacity(request.topics.len());
    for topic in request.topics {
        let mut partitions = Vec::with_capacity(topic.partitions.len());
        for p in topic.partitions {
            let key = key(&request.group_id, topic.topic_id, p.partition);
            let result = match (refused, &broker.share_coordinator) {
                (Some(_), _) | (None, None) => Err(code_or_unavailable(refused)),
                (None, Some(coordinator)) => match shard_of(broker, &key) {
                    Ok(shard) => coordinator.delete(shard, key).await,
                    Err(code) => Err(code),
                },
            };
            partitions.push(delete::PartitionResult {
                partition: p.partition,
                error_code: code_of(&result),
                ..Default::default()
            });
        }
        results.push(delete::DeleteStateResult { topic_id: topic.topic_id, partitions, ..Default::default() });
    }
    DeleteShareGroupStateResponse { results, ..Default::default() }
}

pub(crate) async fn summary(
    broker: &Broker,
    request: ReadShareGroupStateSummaryRequest,
    session: &Session,
) -> ReadShareGroupStateSummaryResponse {
    let refused = refusal(broker, session);
    let mut results = Vec::with_capacity(request.topics.len());
    for topic in request.topics {
        let mut partitions = Vec::with_capacity(topic.partitions.len());
        for p in topic.partitions {
            let key = key(&request.group_id, topic.topic_id, p.partition);
            let result = match (refused, &broker.share_coordinator) {
                (Some(_), _) | (None, None) => Err(code_or_unavailable(refused)),
                (None, Some(coordinator)) => match shard_of(broker, &key) {
                    Ok(shard) => coordinator.summary(shard, key).await,
                    Err(code) => Err(code),
                },
            };
            let mut answer = summary::PartitionResult {
                partition: p.partition,
                error_code: code_of(&result),
                start_offset: UNINITIALIZED_START_OFFSET,
                leader_epoch: -1,
                ..Default::default()
            };
            if let Ok(Some(state)) = result {
                answer.state_epoch = state.state_epoch;
                answer.leader_epoch = state.leader_epoch;
                answer.start_offset = state.start_offset;
                answer.delivery_complete_count = i32::try_from(state.delivery_complete_count()).unwrap_or(i32::MAX);
            }
            partitions.push(answer);
        }
        results.push(summary::ReadStateSummaryResult { topic_id: topic.topic_id, partitions, ..Default::default() });
    }
    ReadShareGroupStateSummaryResponse { results, ..Default::default() }
}

fn code_or_unavailable(refused: Option<ErrorCode>) -> ErrorCode {
    refused.unwrap_or(ErrorCode::CoordinatorNotAvailable)
}
