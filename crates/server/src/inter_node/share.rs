//! [`CoordinatorSharePersister`]: partition leaders' link to the share coordinator (Kafka's
//! `DefaultStatePersister`), over the inter-broker listener (to this very node when it is the
//! other end): a share-partition's state read, initialized and written with
//! ReadShareGroupState, InitializeShareGroupState and WriteShareGroupState at the leader of its
//! key's `__share_group_state` partition. While that coordinator moves or loads
//! (NOT_COORDINATOR, COORDINATOR_LOAD_IN_PROGRESS, COORDINATOR_NOT_AVAILABLE, or no answer) a
//! call is retried every [`RETRY_BACKOFF`] for up to `request.timeout.ms`.

use super::Link;
use std::sync::Arc;
use std::time::Duration;

use strand_base::BrokerId;
use strand_base::topic::SHARE_GROUP_STATE_TOPIC;
use strand_broker::{BoxFuture, SharePersister};
use strand_coordinator::group::hash::partition_for;
use strand_coordinator::share::state::{PersistedBatch, PersistedState, ShareKey, StateSummary};
use strand_metadata::image::MetadataImage;
use strand_protocol::error::ErrorCode;
use strand_protocol::messages::api::{RequestBody, ResponseBody};
use strand_protocol::messages::{
    DeleteShareGroupStateRequest, InitializeShareGroupStateRequest, ReadShareGroupStateRequest,
    ReadShareGroupStateSummaryRequest, WriteShareGroupStateRequest, delete_share_group_state_request as delete,
    initialize_share_group_state_request as init, read_share_group_state_request as read,
    read_share_group_state_summary_request as summary, write_share_group_state_request as write,
};
use tokio::sync::watch;

use super::brokers::BrokerDirectory;
use super::client::NodeClient;

/// How long a call waits before trying a coordinator again.
pub const RETRY_BACKOFF: Duration = Duration::from_millis(50);

/// ReadShareGroupStateSummary's version with `delivery_complete_count`.
const SUMMARY_VERSION: i16 = 1;

/// The share coordinator over TCP.
#[derive(Debug)]
pub struct CoordinatorSharePersister {
    brokers: BrokerDirectory,
    client: NodeClient,
    /// `request.timeout.ms`: how long a call may take, retries included.
    timeout: Duration,
}

impl CoordinatorSharePersister {
    pub fn new(
        image: watch::Receiver<Arc<MetadataImage>>,
        inter_broker_listener: String,
        connect_timeout: Duration,
        timeout: Duration,
        link: Link,
    ) -> CoordinatorSharePersister {
        CoordinatorSharePersister {
            brokers: BrokerDirectory::new(image, inter_broker_listener),
            client: NodeClient::new(connect_timeout, strand_base::limits::SOCKET_REQUEST_BYTES_MAX, link),
            timeout,
        }
    }

    /// The leader of `key`'s `__share_group_state` partition.
    fn coordinator(&self, key: &ShareKey) -> Option<BrokerId> {
        let image = self.brokers.image();
        let topic = image.topics().by_name(SHARE_GROUP_STATE_TOPIC)?;
        let partitions = i32::try_from(topic.partitions.len()).ok()?.max(1);
        let leader = topic.partitions.get(&partition_for(&key.coordinator_key(), partitions))?.leader;
        (leader != BrokerId::NONE).then_some(leader)
    }

    /// Sends `request` to `key`'s coordinator until it answers with a code that is not about
    /// where the coordinator is, or the time is up; the one partition's answer.
    async fn call<T>(
        &self,
        key: &ShareKey,
        request: RequestBody,
        answer: impl Fn(ResponseBody) -> Option<(ErrorCode, T)>,
    ) -> Result<T, ErrorCode> {
        let deadline = tokio::time::Instant::now() + self.timeout;
        loop {
            let code = match self.call_once(key, &request, &answer).await {
                Ok((ErrorCode::None, value)) => return Ok(value),
                Ok((code, _)) | Err(code) => code,
            };
            let retriable = matches!(
                code,
                ErrorCode::NotCoordinator
                    | ErrorCode::CoordinatorLoadInProgress
                    | ErrorCode::CoordinatorNotAvailable
                    | ErrorCode::NetworkException
            );
            if !retriable || tokio::time::Instant::now() + RETRY_BACKOFF > deadline {
                return Err(code);
            }
            tokio::time::sleep(RETRY_BACKOFF).await;
        }
    }

    async fn call_once<T>(
        &self,
        key: &ShareKey,
        request: &RequestBody,
        answer: &impl Fn(ResponseBody) -> Option<(ErrorCode, T)>,
    ) -> Result<(ErrorCode, T), ErrorCode> {
        let coordinator = self.coordinator(key).ok_or(ErrorCode::CoordinatorNotAvailable)?;
        let address = self.brokers.address(coordinator).map_err(|reason| {
            tracing::debug!("share state: {reason}");
            ErrorCode::CoordinatorNotAvailable
        })?;
        let version = if request.api_key() == strand_protocol::messages::api::ApiKey::ReadShareGroupStateSummary {
            SUMMARY_VERSION
        } else {
            0
        };
        match self.client.call_kafka(&address, request, version, self.timeout).await {
            Ok(response) => {
                let api = response.api_key();
                answer(response).ok_or_else(|| {
                    tracing::warn!("share state: {api:?} answered {:?} without the partition", request.api_key());
                    ErrorCode::UnknownServerError
                })
            }
            Err(e) => {
                tracing::debug!("share state: {e}");
                Err(ErrorCode::NetworkException)
            }
        }
    }
}

fn code(error_code: i16) -> ErrorCode {
    ErrorCode::from_code(error_code).unwrap_or(ErrorCode::UnknownServerError)
}

impl SharePersister for CoordinatorSharePersister {
    fn read(&self, key: ShareKey, leader_epoch: i32) -> BoxFuture<'_, Result<Option<PersistedState>, ErrorCode>> {
        Box::pin(async move {
            let request = RequestBody::ReadShareGroupState(ReadShareGroupStateRequest {
                group_id: key.group_id.clone(),
                topics: vec![read::ReadStateData {
                    topic_id: key.topic_id,
                    partitions: vec![read::PartitionData {
                        partition: key.partition,
                        leader_epoch,
                        ..Default::default()
                    }],
                    ..Default::default()
                }],
                ..Default::default()
            });
            self.call(&key, request, |response| {
                let ResponseBody::ReadShareGroupState(response) = response else { return None };
                let p = response.results.into_iter().next()?.partitions.into_iter().next()?;
                let state = (p.start_offset >= 0).then(|| PersistedState {
                    state_epoch: p.state_epoch,
                    leader_epoch,
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
                });
                Some((code(p.error_code), state))
            })
            .await
        })
    }

    fn initialize(&self, key: ShareKey, state_epoch: i32, start_offset: i64) -> BoxFuture<'_, Result<(), ErrorCode>> {
        Box::pin(async move {
            let request = RequestBody::InitializeShareGroupState(InitializeShareGroupStateRequest {
                group_id: key.group_id.clone(),
                topics: vec![init::InitializeStateData {
                    topic_id: key.topic_id,
                    partitions: vec![init::PartitionData {
                        partition: key.partition,
                        state_epoch,
                        start_offset,
                        ..Default::default()
                    }],
                    ..Default::default()
                }],
                ..Default::default()
            });
            self.call(&key, request, |response| {
                let ResponseBody::InitializeShareGroupState(response) = response else { return None };
                let p = response.results.into_iter().next()?.partitions.into_iter().next()?;
                Some((code(p.error_code), ()))
            })
            .await
        })
    }

    fn write(&self, key: ShareKey, state: PersistedState) -> BoxFuture<'_, Result<(), ErrorCode>> {
        Box::pin(async move {
            let request = RequestBody::WriteShareGroupState(WriteShareGroupStateRequest {
                group_id: key.group_id.clone(),
                topics: vec![write::WriteStateData {
                    topic_id: key.topic_id,
                    partitions: vec![write::PartitionData {
                        partition: key.partition,
                        state_epoch: state.state_epoch,
                        leader_epoch: state.leader_epoch,
                        start_offset: state.start_offset,
                        state_batches: state
                            .batches
                            .iter()
                            .map(|b| write::StateBatch {
                                first_offset: b.first_offset,
                                last_offset: b.last_offset,
                                delivery_state: b.delivery_state,
                                delivery_count: b.delivery_count,
                                ..Default::default()
                            })
                            .collect(),
                        ..Default::default()
                    }],
                    ..Default::default()
                }],
                ..Default::default()
            });
            self.call(&key, request, |response| {
                let ResponseBody::WriteShareGroupState(response) = response else { return None };
                let p = response.results.into_iter().next()?.partitions.into_iter().next()?;
                Some((code(p.error_code), ()))
            })
            .await
        })
    }

    fn summary(&self, key: ShareKey) -> BoxFuture<'_, Result<Option<StateSummary>, ErrorCode>> {
        Box::pin(async move {
            let request = RequestBody::ReadShareGroupStateSummary(ReadShareGroupStateSummaryRequest {
                group_id: key.group_id.clone(),
                topics: vec![summary::ReadStateSummaryData {
                    topic_id: key.topic_id,
                    partitions: vec![summary::PartitionData {
                        partition: key.partition,
                        leader_epoch: -1,
                        ..Default::default()
                    }],
                    ..Default::default()
                }],
                ..Default::default()
            });
            self.call(&key, request, |response| {
                let ResponseBody::ReadShareGroupStateSummary(response) = response else { return None };
                let p = response.results.into_iter().next()?.partitions.into_iter().next()?;
                let summary = (p.start_offset >= 0).then_some(StateSummary {
                    state_epoch: p.state_epoch,
                    leader_epoch: p.leader_epoch,
                    start_offset: p.start_offset,
                    delivery_complete_count: i64::from(p.delivery_complete_count),
                });
                Some((code(p.error_code), summary))
            })
            .await
        })
    }

    fn delete(&self, key: ShareKey) -> BoxFuture<'_, Result<(), ErrorCode>> {
        Box::pin(async move {
            let request = RequestBody::DeleteShareGroupState(DeleteShareGroupStateRequest {
                group_id: key.group_id.clone(),
                topics: vec![delete::DeleteStateData {
                    topic_id: key.topic_id,
                    partitions: vec![delete::PartitionData { partition: key.partition, ..Default::default() }],
                    ..Default::default()
                }],
                ..Default::default()
            });
            self.call(&key, request, |response| {
                let ResponseBody::DeleteShareGroupState(response) = response else { return None };
                let p = response.results.into_iter().next()?.partitions.into_iter().next()?;
                Some((code(p.error_code), ()))
            })
            .await
        })
    }
}
