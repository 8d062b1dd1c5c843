//! The coordinator's request API, one method per Kafka API, for thin broker handlers: each takes
//! the generated request and its version and returns the generated response, valid at that
//! version (errors included). What needs no group state is checked here (group ids, session
//! timeouts), as Kafka's `GroupCoordinatorService` does; version differences are bridged here too
//! (LeaveGroup v0-v2's single member, OffsetFetch's single-group form before v8, topic ids in
//! OffsetCommit and OffsetFetch v10 and TxnOffsetCommit v6).
//!
//! TxnOffsetCommit first has the transaction coordinator verify the producer's transaction (and,
//! for transactions V2, add this `__consumer_offsets` partition to it), as Kafka's
//! `scheduleTransactionalWriteOperation` does, then writes the offsets as the producer's
//! transactional batch.

use std::collections::BTreeMap;

use futures::future::join_all;
use strand_base::Uuid;
use strand_base::topic::OFFSETS_TOPIC;
use strand_protocol::error::ErrorCode;
use strand_protocol::messages::consumer_group_describe_response::DescribedGroup as ConsumerDescribedGroup;
use strand_protocol::messages::delete_groups_response::DeletableGroupResult;
use strand_protocol::messages::describe_groups_response::DescribedGroup;
use strand_protocol::messages::leave_group_request::MemberIdentity;
use strand_protocol::messages::offset_fetch_request::{OffsetFetchRequestGroup, OffsetFetchRequestTopics};
use strand_protocol::messages::offset_fetch_response::{
    OffsetFetchResponseGroup, OffsetFetchResponsePartition, OffsetFetchResponsePartitions, OffsetFetchResponseTopic,
    OffsetFetchResponseTopics,
};
use strand_protocol::messages::txn_offset_commit_request::TxnOffsetCommitRequestTopic;
use strand_protocol::messages::{
    ConsumerGroupDescribeRequest, ConsumerGroupDescribeResponse, ConsumerGroupHeartbeatRequest,
    ConsumerGroupHeartbeatResponse, DeleteGroupsRequest, DeleteGroupsResponse, DescribeGroupsRequest,
    DescribeGroupsResponse, HeartbeatRequest, HeartbeatResponse, JoinGroupRequest, JoinGroupResponse,
    LeaveGroupRequest, LeaveGroupResponse, ListGroupsRequest, ListGroupsResponse, OffsetCommitRequest,
    OffsetCommitResponse, OffsetDeleteRequest, OffsetDeleteResponse, OffsetFetchRequest, OffsetFetchResponse,
    SyncGroupRequest, SyncGroupResponse, TxnOffsetCommitRequest, TxnOffsetCommitResponse,
};

use super::coordinator::{GroupCoordinator, Parked, TxnAppend};
use crate::group::ClientInfo;
use crate::group::classic::{join_error, sync_error};
use crate::group::consumer::heartbeat::heartbeat_error as heartbeat_error_848;
use crate::group::offsets::{NO_OFFSET, offset_commit_error, offset_commit_topic_error, offset_delete_error};
use crate::group::txn_offsets::{txn_offset_commit_error, txn_offset_commit_topic_error};
use crate::runtime::ShardStatus;
use crate::writer::TxnVerification;

/// Topic names by id and back, from the broker's metadata image: OffsetCommit and OffsetFetch v10
/// name topics by id, while offsets are stored by name (as Kafka stores them).
pub trait TopicIds: Send + Sync {
    fn name(&self, id: Uuid) -> Option<String>;
    fn id(&self, name: &str) -> Option<Uuid>;
}

/// Knows no topic: for requests before v10, which name their topics.
#[derive(Debug, Clone, Copy, Default)]
pub struct NoTopicIds;

impl TopicIds for NoTopicIds {
    fn name(&self, _id: Uuid) -> Option<String> {
        None
    }

    fn id(&self, _name: &str) -> Option<Uuid> {
        None
    }
}

/// The first DescribeGroups version that answers GROUP_ID_NOT_FOUND for an unknown group.
const DESCRIBE_GROUPS_NOT_FOUND_VERSION: i16 = 6;

/// The first OffsetCommit and OffsetFetch version that names topics by id.
const TOPIC_ID_VERSION: i16 = 10;

/// The first TxnOffsetCommit version that names topics by id.
const TXN_TOPIC_ID_VERSION: i16 = 6;

/// The first TxnOffsetCommit version of transactions V2 (KIP-890): its clients send no
/// AddOffsetsToTxn, so verifying the transaction adds the partition to it.
const TXN_ADD_PARTITION_VERSION: i16 = 5;

/// The first TxnOffsetCommit version whose clients know TRANSACTION_ABORTABLE.
const TXN_ABORTABLE_VERSION: i16 = 4;

/// The first OffsetFetch version with `require_stable`.
const REQUIRE_STABLE_VERSION: i16 = 7;

impl GroupCoordinator {
    /// JoinGroup: answered once a classic group's rebalance reaches its next generation (or at
    /// once, for MEMBER_ID_REQUIRED and errors); a classic member of a consumer group is answered
    /// at once.
    pub async fn join_group(&self, client: ClientInfo, request: JoinGroupRequest, version: i16) -> JoinGroupResponse {
        let mut request = request;
        if version == 0 {
            // v0 has no rebalance timeout: the session timeout serves as both.
            request.rebalance_timeout_ms = request.session_timeout_ms;
        }
        let config = self.config();
        let response = if request.group_id.is_empty() {
            join_error(ErrorCode::InvalidGroupId, &request.member_id)
        } else if request.session_timeout_ms < config.min_session_timeout_ms
            || request.session_timeout_ms > config.max_session_timeout_ms
        {
            join_error(ErrorCode::InvalidSessionTimeout, &request.member_id)
        } else {
            let uuid =
                if request.member_id.is_empty() { self.shards.shared().member_ids.next_uuid() } else { String::new() };
            let partition = self.partition_for(&request.group_id);
            let op = move |shard: &mut crate::group::GroupShard, now_ms| {
                shard.join_group(now_ms, &client, &request, version, &uuid)
            };
            self.write_parkable(partition, op, Parked::Join).await.unwrap_or_else(|error| join_error(error, ""))
        };
        finish_join(response, version)
    }

    /// ConsumerGroupHeartbeat (KIP-848): joins, heartbeats and leaves a consumer group; the
    /// answer carries the member's epoch and, when it changed, its assignment.
    pub async fn consumer_group_heartbeat(
        &self,
        client: ClientInfo,
        request: ConsumerGroupHeartbeatRequest,
        version: i16,
    ) -> ConsumerGroupHeartbeatResponse {
        if request.group_id.is_empty() {
            // Checked here too so that an empty id never picks a partition.
            return heartbeat_error_848(ErrorCode::InvalidRequest, Some("GroupId can't be empty.".to_owned()));
        }
        let new_member_id =
            if request.member_id.is_empty() { self.shards.shared().member_ids.next_uuid() } else { String::new() };
        let partition = self.partition_for(&request.group_id);
        let op = move |shard: &mut crate::group::GroupShard, now_ms| {
            shard.consumer_group_heartbeat(now_ms, &client, &request, version, &new_member_id)
        };
        self.write(partition, op).await.unwrap_or_else(|error| heartbeat_error_848(error, None))
    }

    /// ConsumerGroupDescribe; groups of partitions not served here get that error each. Answers
    /// follow the request's order.
    pub async fn consumer_group_describe(
        &self,
        request: ConsumerGroupDescribeRequest,
        _version: i16,
    ) -> ConsumerGroupDescribeResponse {
        let by_partition = self.by_partition(&request.group_ids);
        let reads = by_partition.into_iter().map(|(partition, indexed)| async move {
            let ids: Vec<String> = indexed.iter().map(|(_, id)| id.clone()).collect();
            let described =
                match self.shards.read(partition, move |shard, _now_ms| shard.consumer_group_describe(&ids)).await {
                    Ok(described) => described,
                    Err(error) => indexed
                        .iter()
                        .map(|(_, id)| ConsumerDescribedGroup {
                            group_id: id.clone(),
                            error_code: error.code(),
                            ..ConsumerDescribedGroup::default()
                        })
                        .collect(),
                };
            indexed.into_iter().map(|(i, _)| i).zip(described).collect::<Vec<_>>()
        });
        let mut groups: Vec<(usize, ConsumerDescribedGroup)> = join_all(reads).await.into_iter().flatten().collect();
        groups.sort_by_key(|(i, _)| *i);
        ConsumerGroupDescribeResponse {
            groups: groups.into_iter().map(|(_, g)| g).collect(),
            ..ConsumerGroupDescribeResponse::default()
        }
    }

    /// SyncGroup: the leader's brings the assignment; every member's is answered once it is
    /// stored.
    pub async fn sync_group(&self, request: SyncGroupRequest, version: i16) -> SyncGroupResponse {
        if request.group_id.is_empty() {
            return sync_error(ErrorCode::InvalidGroupId);
        }
        if version >= 5 && (request.protocol_type.is_none() || request.protocol_name.is_none()) {
            return sync_error(ErrorCode::InconsistentGroupProtocol);
        }
        let partition = self.partition_for(&request.group_id);
        let op = move |shard: &mut crate::group::GroupShard, now_ms| shard.sync_group(now_ms, &request);
        self.write_parkable(partition, op, Parked::Sync).await.unwrap_or_else(sync_error)
    }

    pub async fn heartbeat(&self, request: HeartbeatRequest, _version: i16) -> HeartbeatResponse {
        if request.group_id.is_empty() {
            return heartbeat_error(ErrorCode::InvalidGroupId);
        }
        let partition = self.partition_for(&request.group_id);
        match self.write(partition, move |shard, now_ms| shard.heartbeat(now_ms, &request)).await {
            Ok(response) => response,
            // While the group loads, members are told all is well rather than to rejoin (Kafka).
            Err(ErrorCode::CoordinatorLoadInProgress) => HeartbeatResponse::default(),
            Err(error) => heartbeat_error(error),
        }
    }

    /// LeaveGroup: one member (v0-v2) or a batch of members (v3+).
    pub async fn leave_group(&self, request: LeaveGroupRequest, version: i16) -> LeaveGroupResponse {
        let members = if version < 3 {
            vec![MemberIdentity { member_id: request.member_id.clone(), ..MemberIdentity::default() }]
        } else {
            request.members.clone()
        };
        let response = if request.group_id.is_empty() {
            leave_error(ErrorCode::InvalidGroupId)
        } else {
            let partition = self.partition_for(&request.group_id);
            let group_id = request.group_id.clone();
            let op = move |shard: &mut crate::group::GroupShard, now_ms| shard.leave_group(now_ms, &group_id, &members);
            self.write(partition, op).await.unwrap_or_else(leave_error)
        };
        finish_leave(response, version)
    }

    /// OffsetCommit. Topics named by id (v10) are resolved through `topics`; an unknown id gets
    /// UNKNOWN_TOPIC_ID.
    pub async fn offset_commit(
        &self,
        request: OffsetCommitRequest,
        version: i16,
        topics: &dyn TopicIds,
    ) -> OffsetCommitResponse {
        let mut named = request.clone();
        let mut resolved = vec![true; request.topics.len()];
        if version >= TOPIC_ID_VERSION {
            named.topics.clear();
            for (topic, resolved) in request.topics.iter().zip(resolved.iter_mut()) {
                match topics.name(topic.topic_id) {
                    Some(name) => {
                        named.topics.push(strand_protocol::messages::offset_commit_request::OffsetCommitRequestTopic {
                            name,
                            ..topic.clone()
                        })
                    }
                    None => *resolved = false,
                }
            }
        }
        let partition = self.partition_for(&request.group_id);
        let committed = self.write(partition, move |shard, now_ms| shard.offset_commit(now_ms, &named, version)).await;
        let committed = match committed {
            Ok(response) => response,
            Err(error) => return offset_commit_error(&request, error),
        };
        let mut answered = committed.topics.into_iter();
        let mut response = OffsetCommitResponse::default();
        for (topic, resolved) in request.topics.iter().zip(resolved) {
            let answer = if resolved { answered.next() } else { None };
            response.topics.push(answer.unwrap_or_else(|| offset_commit_topic_error(topic, ErrorCode::UnknownTopicId)));
        }
        response
    }

    /// OffsetFetch: one group (v1-v7) or several (v8+), named partitions or all of a group's.
    pub async fn offset_fetch(
        &self,
        request: OffsetFetchRequest,
        version: i16,
        topics: &dyn TopicIds,
    ) -> OffsetFetchResponse {
        if version >= 8 {
            let groups = self.fetch_groups(request.groups, version, request.require_stable, topics).await;
            return OffsetFetchResponse { groups, ..OffsetFetchResponse::default() };
        }
        let group = OffsetFetchRequestGroup {
            group_id: request.group_id.clone(),
            topics: request.topics.as_ref().map(|topics| {
                topics
                    .iter()
                    .map(|t| OffsetFetchRequestTopics {
                        name: t.name.clone(),
                        partition_indexes: t.partition_indexes.clone(),
                        ..OffsetFetchRequestTopics::default()
                    })
                    .collect()
            }),
            ..OffsetFetchRequestGroup::default()
        };
        let stable = version >= REQUIRE_STABLE_VERSION && request.require_stable;
        let fetched = self.fetch_groups(vec![group], version, stable, topics).await;
        let fetched = fetched.into_iter().next().expect("one answer per group");
        single_group_fetch_response(&request, fetched, version)
    }

    /// Each group's offsets, in the request's order: one read of each coordinating partition
    /// for all of its groups, as DescribeGroups reads them. (A read per group made a request of
    /// thousands of groups quadratic: thousands of futures joined on one task, each polled again
    /// on every wake-up once the task's cooperative budget was spent; the broker test
    /// `request_complexity` measured 34x the CPU time for 8x the groups.)
    async fn fetch_groups(
        &self,
        groups: Vec<OffsetFetchRequestGroup>,
        version: i16,
        require_stable: bool,
        topics: &dyn TopicIds,
    ) -> Vec<OffsetFetchResponseGroup> {
        let mut by_partition: BTreeMap<i32, Vec<(usize, OffsetFetchRequestGroup)>> = BTreeMap::new();
        for (i, group) in groups.into_iter().enumerate() {
            by_partition.entry(self.partition_for(&group.group_id)).or_default().push((i, group));
        }
        let reads = by_partition.into_iter().map(|(partition, indexed)| async move {
            let (order, asked): (Vec<usize>, Vec<_>) =
                indexed.into_iter().map(|(i, group)| (i, with_topic_names(group, version, topics))).unzip();
            let (asked, unknown_ids): (Vec<OffsetFetchRequestGroup>, Vec<_>) = asked.into_iter().unzip();
            let group_ids: Vec<String> = asked.iter().map(|g| g.group_id.clone()).collect();
            let fetch = move |shard: &crate::group::GroupShard, _now_ms| {
                let fetch_one = |group: &OffsetFetchRequestGroup| {
                    if require_stable { shard.offset_fetch_stable(group) } else { shard.offset_fetch(group) }
                };
                asked.iter().map(fetch_one).collect::<Vec<_>>()
            };
            let answered: Vec<OffsetFetchResponseGroup> = match self.shards.read(partition, fetch).await {
                Ok(fetched) => {
                    let with_ids = fetched.into_iter().zip(unknown_ids);
                    with_ids.map(|(fetched, unknown)| with_topic_ids(fetched, unknown, version, topics)).collect()
                }
                Err(error) => (group_ids.into_iter())
                    .map(|group_id| OffsetFetchResponseGroup {
                        group_id,
                        error_code: error.code(),
                        ..OffsetFetchResponseGroup::default()
                    })
                    .collect(),
            };
            order.into_iter().zip(answered).collect::<Vec<_>>()
        });
        let mut fetched: Vec<(usize, OffsetFetchResponseGroup)> = join_all(reads).await.into_iter().flatten().collect();
        fetched.sort_by_key(|(i, _)| *i);
        fetched.into_iter().map(|(_, group)| group).collect()
    }

    /// TxnOffsetCommit (v0-v6): the offsets are written in the producer's transaction, visible
    /// to OffsetFetch once its COMMIT marker is. Topics named by id (v6) are resolved through
    /// `topics`; an unknown id gets UNKNOWN_TOPIC_ID. The broker answers partitions its metadata
    /// does not have before calling this.
    pub async fn txn_offset_commit(
        &self,
        request: TxnOffsetCommitRequest,
        version: i16,
        topics: &dyn TopicIds,
    ) -> TxnOffsetCommitResponse {
        if request.group_id.is_empty() {
            return txn_offset_commit_error(&request, ErrorCode::InvalidGroupId);
        }
        let mut named = request.clone();
        let mut resolved = vec![true; request.topics.len()];
        if version >= TXN_TOPIC_ID_VERSION {
            named.topics.clear();
            for (topic, resolved) in request.topics.iter().zip(resolved.iter_mut()) {
                match topics.name(topic.topic_id) {
                    Some(name) => named.topics.push(TxnOffsetCommitRequestTopic { name, ..topic.clone() }),
                    None => *resolved = false,
                }
            }
        }
        let committed = match self.commit_in_txn(named, version).await {
            Ok(response) => response,
            Err(error) => return txn_offset_commit_error(&request, error),
        };
        let mut answered = committed.topics.into_iter();
        let mut response = TxnOffsetCommitResponse::default();
        for (topic, resolved) in request.topics.iter().zip(resolved) {
            let answer = if resolved { answered.next() } else { None };
            response
                .topics
                .push(answer.unwrap_or_else(|| txn_offset_commit_topic_error(topic, ErrorCode::UnknownTopicId)));
        }
        response
    }

    /// Verifies the producer's transaction with its coordinator, then runs the commit on the
    /// shard and appends its records as the producer's transactional batch.
    async fn commit_in_txn(
        &self,
        request: TxnOffsetCommitRequest,
        version: i16,
    ) -> Result<TxnOffsetCommitResponse, ErrorCode> {
        let partition = self.partition_for(&request.group_id);
        // Not led or still loading here: answered before asking the transaction coordinator.
        match self.shards().status(partition) {
            ShardStatus::Active => {}
            ShardStatus::Loading => return Err(ErrorCode::CoordinatorLoadInProgress),
            ShardStatus::NotLed => return Err(ErrorCode::NotCoordinator),
        }
        let tp = strand_base::TopicPartition::new(OFFSETS_TOPIC, partition);
        let verification = TxnVerification {
            transactional_id: request.transactional_id.clone(),
            producer_id: request.producer_id,
            producer_epoch: request.producer_epoch,
            add: version >= TXN_ADD_PARTITION_VERSION,
        };
        let token = self
            .shards
            .writer()
            .verify_transaction(&tp, verification)
            .await
            .map_err(|error| verification_error(error, version))?;
        let txn =
            TxnAppend { producer_id: request.producer_id, producer_epoch: request.producer_epoch, verification: token };
        let op = move |shard: &mut crate::group::GroupShard, now_ms| shard.txn_offset_commit(now_ms, &request);
        self.write_in(partition, Some(txn), op).await
    }

    /// OffsetDelete (v0).
    pub async fn offset_delete(&self, request: OffsetDeleteRequest, _version: i16) -> OffsetDeleteResponse {
        if request.group_id.is_empty() {
            return offset_delete_error(ErrorCode::InvalidGroupId);
        }
        let partition = self.partition_for(&request.group_id);
        self.write(partition, move |shard, _now_ms| shard.offset_delete(&request))
            .await
            .unwrap_or_else(offset_delete_error)
    }

    /// ListGroups over every shard of this node. A shard still loading makes the whole answer
    /// COORDINATOR_LOAD_IN_PROGRESS, with no groups, as in Kafka; shards being unloaded are
    /// skipped.
    pub async fn list_groups(&self, request: ListGroupsRequest, _version: i16) -> ListGroupsResponse {
        let reads = self.shards().partitions().into_iter().map(|partition| {
            let states = request.states_filter.clone();
            let types = request.types_filter.clone();
            self.shards.read(partition, move |shard, _now_ms| shard.list_groups(&states, &types))
        });
        let mut response = ListGroupsResponse::default();
        for listed in join_all(reads).await {
            match listed {
                Ok(groups) => response.groups.extend(groups),
                Err(ErrorCode::NotCoordinator) => {}
                Err(error) => {
                    return ListGroupsResponse { error_code: error.code(), ..ListGroupsResponse::default() };
                }
            }
        }
        response
    }

    /// DescribeGroups; groups of partitions not served here get that error each. Answers follow
    /// the request's order.
    pub async fn describe_groups(&self, request: DescribeGroupsRequest, version: i16) -> DescribeGroupsResponse {
        let by_partition = self.by_partition(&request.groups);
        let reads = by_partition.into_iter().map(|(partition, indexed)| async move {
            let ids: Vec<String> = indexed.iter().map(|(_, id)| id.clone()).collect();
            let described = match self.shards.read(partition, move |shard, _now_ms| shard.describe_groups(&ids)).await {
                Ok(described) => described,
                Err(error) => indexed
                    .iter()
                    .map(|(_, id)| DescribedGroup {
                        group_id: id.clone(),
                        error_code: error.code(),
                        ..DescribedGroup::default()
                    })
                    .collect(),
            };
            indexed.into_iter().map(|(i, _)| i).zip(described).collect::<Vec<_>>()
        });
        let mut groups: Vec<(usize, DescribedGroup)> = join_all(reads).await.into_iter().flatten().collect();
        groups.sort_by_key(|(i, _)| *i);
        if version < DESCRIBE_GROUPS_NOT_FOUND_VERSION {
            // Before v6 an unknown group is only Dead, without an error (KIP-1043 added it).
            for (_, group) in groups.iter_mut().filter(|(_, g)| g.error_code == ErrorCode::GroupIdNotFound.code()) {
                group.error_code = ErrorCode::None.code();
                group.error_message = None;
            }
        }
        DescribeGroupsResponse {
            groups: groups.into_iter().map(|(_, g)| g).collect(),
            ..DescribeGroupsResponse::default()
        }
    }

    /// DeleteGroups; answers follow the request's order.
    pub async fn delete_groups(&self, request: DeleteGroupsRequest, _version: i16) -> DeleteGroupsResponse {
        let by_partition = self.by_partition(&request.groups_names);
        let writes = by_partition.into_iter().map(|(partition, indexed)| async move {
            let ids: Vec<String> = indexed.iter().map(|(_, id)| id.clone()).collect();
            let results = match self.write(partition, move |shard, _now_ms| shard.delete_groups(&ids)).await {
                Ok(results) => results,
                Err(error) => indexed
                    .iter()
                    .map(|(_, id)| DeletableGroupResult {
                        group_id: id.clone(),
                        error_code: error.code(),
                        ..DeletableGroupResult::default()
                    })
                    .collect(),
            };
            indexed.into_iter().map(|(i, _)| i).zip(results).collect::<Vec<_>>()
        });
        let mut results: Vec<(usize, DeletableGroupResult)> = join_all(writes).await.into_iter().flatten().collect();
        results.sort_by_key(|(i, _)| *i);
        DeleteGroupsResponse {
            results: results.into_iter().map(|(_, r)| r).collect(),
            ..DeleteGroupsResponse::default()
        }
    }

    /// Group ids (with their place in the request) by coordinating partition.
    pub(crate) fn by_partition(&self, group_ids: &[String]) -> BTreeMap<i32, Vec<(usize, String)>> {
        let mut by_partition: BTreeMap<i32, Vec<(usize, String)>> = BTreeMap::new();
        for (i, group_id) in group_ids.iter().enumerate() {
            by_partition.entry(self.partition_for(group_id)).or_default().push((i, group_id.clone()));
        }
        by_partition
    }
}

/// The error a TxnOffsetCommit gets when its transaction could not be verified, as Kafka's
/// `AddPartitionsToTxnManager` and `handleOperationException` turn it: errors a producer
/// handles, and retriable ones that make it retry (NETWORK_EXCEPTION becomes
/// COORDINATOR_LOAD_IN_PROGRESS, which retries without looking the coordinator up again).
fn verification_error(error: ErrorCode, version: i16) -> ErrorCode {
    match error {
        ErrorCode::ProducerFenced => ErrorCode::InvalidProducerEpoch,
        ErrorCode::TransactionAbortable if version < TXN_ABORTABLE_VERSION => ErrorCode::InvalidTxnState,
        ErrorCode::NetworkException => ErrorCode::CoordinatorLoadInProgress,
        ErrorCode::UnknownTopicOrPartition | ErrorCode::NotEnoughReplicas | ErrorCode::RequestTimedOut => {
            ErrorCode::CoordinatorNotAvailable
        }
        ErrorCode::NotLeaderOrFollower | ErrorCode::KafkaStorageError => ErrorCode::NotCoordinator,
        other => other,
    }
}

/// JoinGroup answers before v7 cannot carry a null protocol name.
fn finish_join(mut response: JoinGroupResponse, version: i16) -> JoinGroupResponse {
    if version < 7 && response.protocol_name.is_none() {
        response.protocol_name = Some(String::new());
    }
    response
}

/// LeaveGroup answers before v3 have one error and no member list: the top-level error if any,
/// else the member's.
fn finish_leave(response: LeaveGroupResponse, version: i16) -> LeaveGroupResponse {
    if version >= 3 {
        return response;
    }
    let error_code = if response.error_code != ErrorCode::None.code() {
        response.error_code
    } else {
        response.members.first().map_or(ErrorCode::None.code(), |m| m.error_code)
    };
    LeaveGroupResponse { error_code, ..LeaveGroupResponse::default() }
}

fn heartbeat_error(error: ErrorCode) -> HeartbeatResponse {
    HeartbeatResponse { error_code: error.code(), ..HeartbeatResponse::default() }
}

fn leave_error(error: ErrorCode) -> LeaveGroupResponse {
    LeaveGroupResponse { error_code: error.code(), ..LeaveGroupResponse::default() }
}

/// Topics named by id (v10) renamed by their ids' topics, for the shard, which knows names; the
/// ids of no topic are taken out, with their partitions, for [`with_topic_ids`].
fn with_topic_names(
    mut group: OffsetFetchRequestGroup,
    version: i16,
    topics: &dyn TopicIds,
) -> (OffsetFetchRequestGroup, Vec<(Uuid, Vec<i32>)>) {
    let mut unknown_ids = Vec::new();
    if version >= TOPIC_ID_VERSION
        && let Some(requested) = group.topics.as_mut()
    {
        requested.retain_mut(|topic| match topics.name(topic.topic_id) {
            Some(name) => {
                topic.name = name;
                true
            }
            None => {
                unknown_ids.push((topic.topic_id, topic.partition_indexes.clone()));
                false
            }
        });
    }
    (group, unknown_ids)
}

/// A group's answer from the shard with its topics' ids (v10; topics no longer in the metadata
/// left out), and UNKNOWN_TOPIC_ID for the partitions of `unknown_ids`.
fn with_topic_ids(
    mut fetched: OffsetFetchResponseGroup,
    unknown_ids: Vec<(Uuid, Vec<i32>)>,
    version: i16,
    topics: &dyn TopicIds,
) -> OffsetFetchResponseGroup {
    if version < TOPIC_ID_VERSION {
        return fetched;
    }
    fetched.topics.retain_mut(|topic| match topics.id(&topic.name) {
        Some(id) => {
            topic.topic_id = id;
            true
        }
        None => false,
    });
    for (topic_id, partitions) in unknown_ids {
        fetched.topics.push(OffsetFetchResponseTopics {
            topic_id,
            partitions: partitions
                .into_iter()
                .map(|p| OffsetFetchResponsePartitions {
                    partition_index: p,
                    committed_offset: NO_OFFSET,
                    error_code: ErrorCode::UnknownTopicId.code(),
                    ..OffsetFetchResponsePartitions::default()
                })
                .collect(),
            ..OffsetFetchResponseTopics::default()
        });
    }
    fetched
}

/// An OffsetFetch v1-v7 answer from one group's: a group error is the top-level error (v2+), or
/// every requested partition's (v1, which has no top-level error).
fn single_group_fetch_response(
    request: &OffsetFetchRequest,
    fetched: OffsetFetchResponseGroup,
    version: i16,
) -> OffsetFetchResponse {
    let error = fetched.error_code;
    let topics: Vec<OffsetFetchResponseTopic> = if error != ErrorCode::None.code() {
        if version >= 2 {
            Vec::new()
        } else {
            request
                .topics
                .iter()
                .flatten()
                .map(|t| OffsetFetchResponseTopic {
                    name: t.name.clone(),
                    partitions: t
                        .partition_indexes
                        .iter()
                        .map(|&p| OffsetFetchResponsePartition {
                            partition_index: p,
                            committed_offset: NO_OFFSET,
                            error_code: error,
                            ..OffsetFetchResponsePartition::default()
                        })
                        .collect(),
                    ..OffsetFetchResponseTopic::default()
                })
                .collect()
        }
    } else {
        fetched
            .topics
            .into_iter()
            .map(|t| OffsetFetchResponseTopic {
                name: t.name,
                partitions: t
                    .partitions
                    .into_iter()
                    .map(|p| OffsetFetchResponsePartition {
                        partition_index: p.partition_index,
                        committed_offset: p.committed_offset,
                        committed_leader_epoch: p.committed_leader_epoch,
                        metadata: p.metadata,
                        error_code: p.error_code,
                        ..OffsetFetchResponsePartition::default()
                    })
                    .collect(),
                ..OffsetFetchResponseTopic::default()
            })
            .collect()
    };
    let error_code = if version >= 2 { error } else { ErrorCode::None.code() };
    OffsetFetchResponse { topics, error_code, ..OffsetFetchResponse::default() }
}

impl GroupCoordinator {
    /// Whether a classic, consumer or streams group holds `group_id` (a share group may not take
    /// it); an error when this node does not coordinate it.
    pub async fn holds_group(&self, group_id: &str) -> Result<bool, ErrorCode> {
        let partition = self.partition_for(group_id);
        let id = group_id.to_owned();
        self.shards.read(partition, move |shard, _now_ms| shard.holds_group(&id)).await
    }

    /// The share group `group_id` as `__consumer_offsets` keeps it (`share_meta`).
    pub async fn share_group(
        &self,
        group_id: &str,
    ) -> Result<Option<super::share_meta::PersistedShareGroup>, ErrorCode> {
        let partition = self.partition_for(group_id);
        let id = group_id.to_owned();
        self.shards.read(partition, move |shard, _now_ms| shard.share_group(&id).cloned()).await
    }

    /// Stores the share group `group_id` in `__consumer_offsets` (`None`: deletes it); returns
    /// once the records are committed.
    pub async fn write_share_group(
        &self,
        group_id: &str,
        group: Option<super::share_meta::PersistedShareGroup>,
    ) -> Result<(), ErrorCode> {
        let partition = self.partition_for(group_id);
        let id = group_id.to_owned();
        self.write(partition, move |shard, _now_ms| shard.write_share_group(&id, group)).await
    }
}
