//! [`GroupMember`]: one member of a classic consumer group (Kafka's `ConsumerCoordinator` with
//! the eager `RangeAssignor`): JoinGroup, and as the leader the range assignment of every
//! member's subscribed topics, SyncGroup, Heartbeat, OffsetCommit in the member's generation and
//! LeaveGroup, each to the group's coordinator (found with FindCoordinator for every call, so a
//! moved coordinator is found again).
//!
//! What it is not (yet): no KIP-848 `consumer` protocol (ConsumerGroupHeartbeat), no
//! cooperative or other assignors, no topic patterns. It owns no thread: its caller sends the
//! heartbeats ([`GroupMember::heartbeat`]) between its fetches and rejoins when one says so.

use std::collections::BTreeMap;

use bytes::{BufMut, Bytes, BytesMut};
use strand_protocol::codec::{Decoder, Struct};
use strand_protocol::error::ErrorCode;
use strand_protocol::messages::api::{RequestBody, ResponseBody};
use strand_protocol::messages::consumer_protocol_assignment::TopicPartition as AssignedTopic;
use strand_protocol::messages::join_group_request::JoinGroupRequestProtocol;
use strand_protocol::messages::leave_group_request::MemberIdentity;
use strand_protocol::messages::sync_group_request::SyncGroupRequestAssignment;
use strand_protocol::messages::{
    ConsumerProtocolAssignment, ConsumerProtocolSubscription, HeartbeatRequest, JoinGroupRequest, LeaveGroupRequest,
    OffsetCommitRequest, SyncGroupRequest,
};

use crate::admin_groups::TopicPartition;
use crate::{Admin, Client, ClientError};

/// The assignor this member offers and, as leader, runs (Kafka's `RangeAssignor` name).
pub const RANGE_ASSIGNOR: &str = "range";
/// JoinGroup/SyncGroup rounds one [`GroupMember::join`] makes before giving up: each round is
/// a rebalance that restarted under it (members coming and going).
const JOIN_ROUNDS_MAX: usize = 50;
/// OffsetCommit with topics by name (v10 names them by id).
const OFFSET_COMMIT_VERSION: i16 = 9;
/// The embedded consumer protocol version this member writes.
const CONSUMER_PROTOCOL_VERSION: i16 = 0;

/// How a member joins: Kafka's `group.id`, `group.instance.id`, `session.timeout.ms`,
/// `max.poll.interval.ms` (the rebalance timeout) and its subscription.
#[derive(Debug, Clone)]
pub struct GroupSettings {
    pub group_id: String,
    pub group_instance_id: Option<String>,
    pub session_timeout_ms: i32,
    pub rebalance_timeout_ms: i32,
    pub topics: Vec<String>,
}

/// A joined member: its id, generation and assigned partitions (sorted).
#[derive(Debug)]
pub struct GroupMember {
    admin: Admin,
    settings: GroupSettings,
    member_id: String,
    generation_id: i32,
    assignment: Vec<TopicPartition>,
}

impl GroupMember {
    /// A member of `settings.group_id` that has not joined yet.
    pub fn new(client: Client, settings: GroupSettings) -> GroupMember {
        GroupMember {
            admin: Admin::new(client),
            settings,
            member_id: String::new(),
            generation_id: -1,
            assignment: Vec::new(),
        }
    }

    pub fn client(&self) -> &Client {
        self.admin.client()
    }

    /// The partitions of the last completed join.
    pub fn assignment(&self) -> &[TopicPartition] {
        &self.assignment
    }

    /// Joins (or rejoins) the group and syncs: the new assignment.
    pub async fn join(&mut self) -> Result<&[TopicPartition], ClientError> {
        for _ in 0..JOIN_ROUNDS_MAX {
            match self.join_round().await {
                Ok(assignment) => {
                    self.assignment = assignment;
                    return Ok(&self.assignment);
                }
                Err(error) if rejoin_needed(&error) || error.is_retriable() => {
                    if matches!(error.code(), Some(ErrorCode::UnknownMemberId | ErrorCode::IllegalGeneration)) {
                        self.member_id.clear();
                    }
                }
                Err(error) => return Err(error),
            }
        }
        Err(ClientError::Timeout(format!("joining group {} ({JOIN_ROUNDS_MAX} rebalances)", self.settings.group_id)))
    }

    /// Whether the group is still stable for this member: `Ok(false)` when it must rejoin
    /// (a rebalance started, or the member was fenced or expired).
    pub async fn heartbeat(&mut self) -> Result<bool, ClientError> {
        let request = RequestBody::Heartbeat(HeartbeatRequest {
            group_id: self.settings.group_id.clone(),
            generation_id: self.generation_id,
            member_id: self.member_id.clone(),
            group_instance_id: self.settings.group_instance_id.clone(),
            ..Default::default()
        });
        let ResponseBody::Heartbeat(response) = self.call(&request, None).await? else {
            return Err(unexpected("Heartbeat"));
        };
        match ClientError::from_response(response.error_code, None) {
            None => Ok(true),
            Some(error) if rejoin_needed(&error) => {
                if error.code() != Some(ErrorCode::RebalanceInProgress) {
                    self.member_id.clear();
                }
                Ok(false)
            }
            Some(error) => Err(error),
        }
    }

    /// Commits `offsets` (the next offset to read of each partition) in this generation.
    pub async fn commit(&self, offsets: &BTreeMap<TopicPartition, i64>) -> Result<(), ClientError> {
        let request = RequestBody::OffsetCommit(OffsetCommitRequest {
            group_id: self.settings.group_id.clone(),
            generation_id_or_member_epoch: self.generation_id,
            member_id: self.member_id.clone(),
            group_instance_id: self.settings.group_instance_id.clone(),
            retention_time_ms: -1,
            topics: crate::admin_groups::commit_topics(offsets),
            ..Default::default()
        });
        let ResponseBody::OffsetCommit(response) = self.call(&request, Some(OFFSET_COMMIT_VERSION)).await? else {
            return Err(unexpected("OffsetCommit"));
        };
        let codes = response.topics.iter().flat_map(|t| t.partitions.iter().map(|p| p.error_code));
        match codes.filter_map(|code| ClientError::from_response(code, None)).next() {
            Some(error) => Err(error),
            None => Ok(()),
        }
    }

    /// The group's committed offsets of `partitions`; a partition without one is left out.
    pub async fn committed(&self, partitions: &[TopicPartition]) -> Result<BTreeMap<TopicPartition, i64>, ClientError> {
        let all = self.admin.list_group_offsets(&self.settings.group_id).await?;
        Ok(all.into_iter().filter(|(tp, _)| partitions.contains(tp)).map(|(tp, c)| (tp, c.offset)).collect())
    }

    /// Leaves the group (a dynamic member; a static one stays until its session expires, as in
    /// Kafka).
    pub async fn leave(&mut self) -> Result<(), ClientError> {
        if self.member_id.is_empty() || self.settings.group_instance_id.is_some() {
            return Ok(());
        }
        let request = RequestBody::LeaveGroup(LeaveGroupRequest {
            group_id: self.settings.group_id.clone(),
            members: vec![MemberIdentity {
                member_id: std::mem::take(&mut self.member_id),
                reason: Some("the consumer is being closed".into()),
                ..Default::default()
            }],
            ..Default::default()
        });
        let ResponseBody::LeaveGroup(response) = self.call(&request, None).await? else {
            return Err(unexpected("LeaveGroup"));
        };
        ClientError::from_response(response.error_code, None).map_or(Ok(()), Err)
    }

    /// One JoinGroup and SyncGroup; the member's partitions.
    async fn join_round(&mut self) -> Result<Vec<TopicPartition>, ClientError> {
        let request = RequestBody::JoinGroup(JoinGroupRequest {
            group_id: self.settings.group_id.clone(),
            session_timeout_ms: self.settings.session_timeout_ms,
            rebalance_timeout_ms: self.settings.rebalance_timeout_ms,
            member_id: self.member_id.clone(),
            group_instance_id: self.settings.group_instance_id.clone(),
            protocol_type: "consumer".into(),
            protocols: vec![JoinGroupRequestProtocol {
                name: RANGE_ASSIGNOR.into(),
                metadata: subscription(&self.settings.topics),
                ..Default::default()
            }],
            ..Default::default()
        });
        let ResponseBody::JoinGroup(joined) = self.call(&request, None).await? else {
            return Err(unexpected("JoinGroup"));
        };
        if joined.error_code == ErrorCode::MemberIdRequired.code() {
            self.member_id = joined.member_id.clone();
        }
        if let Some(error) = ClientError::from_response(joined.error_code, None) {
            return Err(error);
        }
        self.member_id = joined.member_id.clone();
        self.generation_id = joined.generation_id;
        let assignments = if joined.leader == joined.member_id {
            let members = joined.members.iter().map(|m| (m.member_id.clone(), subscribed(&m.metadata)));
            self.leader_assignments(members.collect()).await?
        } else {
            Vec::new()
        };
        let request = RequestBody::SyncGroup(SyncGroupRequest {
            group_id: self.settings.group_id.clone(),
            generation_id: self.generation_id,
            member_id: self.member_id.clone(),
            group_instance_id: self.settings.group_instance_id.clone(),
            protocol_type: Some("consumer".into()),
            protocol_name: Some(RANGE_ASSIGNOR.into()),
            assignments,
            ..Default::default()
        });
        let ResponseBody::SyncGroup(synced) = self.call(&request, None).await? else {
            return Err(unexpected("SyncGroup"));
        };
        if let Some(error) = ClientError::from_response(synced.error_code, None) {
            return Err(error);
        }
        Ok(assigned(&synced.assignment))
    }

    /// The leader's SyncGroup assignments: [`range_assignment`] over the topics' partition
    /// counts (a topic that does not exist has none).
    async fn leader_assignments(
        &self,
        members: Vec<(String, Vec<String>)>,
    ) -> Result<Vec<SyncGroupRequestAssignment>, ClientError> {
        let mut counts = BTreeMap::new();
        for topic in members.iter().flat_map(|(_, topics)| topics) {
            if counts.contains_key(topic) {
                continue;
            }
            let count = match crate::consumer::layout(self.client(), topic).await {
                Ok(layout) => layout.leaders.len(),
                Err(error) if error.code() == Some(ErrorCode::UnknownTopicOrPartition) => 0,
                Err(error) => return Err(error),
            };
            counts.insert(topic.clone(), count);
        }
        Ok(range_assignment(&members, &counts)
            .into_iter()
            .map(|(member_id, assigned_partitions)| SyncGroupRequestAssignment {
                member_id,
                assignment: embedded(&ConsumerProtocolAssignment { assigned_partitions, user_data: None }),
                ..Default::default()
            })
            .collect())
    }

    /// Sends `request` to the group's coordinator (at `version`, or the newest both speak).
    async fn call(&self, request: &RequestBody, version: Option<i16>) -> Result<ResponseBody, ClientError> {
        let coordinator = self.admin.group_coordinator(&self.settings.group_id).await?;
        let connection = self.client().node_connection(coordinator.id).await?;
        match version {
            Some(version) => connection.call_at(request, version).await,
            None => connection.call(request).await,
        }
    }
}

/// Kafka's `RangeAssignor`: per topic, its `counts` partitions in order cut into consecutive
/// ranges for the members subscribed to it (sorted by id), the first `partitions % members` one
/// larger. Every member gets an entry, perhaps empty.
pub fn range_assignment(
    members: &[(String, Vec<String>)],
    counts: &BTreeMap<String, usize>,
) -> BTreeMap<String, Vec<AssignedTopic>> {
    let mut by_member: BTreeMap<String, Vec<AssignedTopic>> =
        members.iter().map(|(id, _)| (id.clone(), Vec::new())).collect();
    for (topic, count) in counts {
        let mut subscribers: Vec<&str> =
            members.iter().filter(|(_, t)| t.contains(topic)).map(|(id, _)| id.as_str()).collect();
        subscribers.sort_unstable();
        let (each, extra) = (count / subscribers.len().max(1), count % subscribers.len().max(1));
        let mut next = 0;
        for (i, member) in subscribers.into_iter().enumerate() {
            let take = each + usize::from(i < extra);
            let partitions: Vec<i32> = (next..next + take).filter_map(|p| i32::try_from(p).ok()).collect();
            next += take;
            if let (false, Some(list)) = (partitions.is_empty(), by_member.get_mut(member)) {
                list.push(AssignedTopic { topic: topic.clone(), partitions });
            }
        }
    }
    by_member
}

/// Errors after which the member must join again.
fn rejoin_needed(error: &ClientError) -> bool {
    matches!(
        error.code(),
        Some(
            ErrorCode::RebalanceInProgress
                | ErrorCode::UnknownMemberId
                | ErrorCode::IllegalGeneration
                | ErrorCode::MemberIdRequired
                | ErrorCode::NotCoordinator
                | ErrorCode::CoordinatorNotAvailable
        )
    )
}

/// JoinGroup metadata: the consumer protocol subscription to `topics`.
fn subscription(topics: &[String]) -> Bytes {
    embedded(&ConsumerProtocolSubscription { topics: topics.to_vec(), ..Default::default() })
}

/// `value` as consumer protocol bytes: its version, then the struct.
fn embedded(value: &impl Struct) -> Bytes {
    let mut out = BytesMut::new();
    out.put_i16(CONSUMER_PROTOCOL_VERSION);
    // A struct built here has no field version 0 lacks: encoding it cannot fail.
    if let Err(error) = value.encode(&mut out, CONSUMER_PROTOCOL_VERSION) {
        tracing::error!(%error, "could not encode consumer protocol bytes");
    }
    out.freeze()
}

/// The topics a member's JoinGroup metadata subscribes to; none if it does not decode.
fn subscribed(metadata: &Bytes) -> Vec<String> {
    decode::<ConsumerProtocolSubscription>(metadata).map(|s| s.topics).unwrap_or_default()
}

/// The partitions SyncGroup assigned, sorted; none if they do not decode.
fn assigned(bytes: &Bytes) -> Vec<TopicPartition> {
    let mut partitions: Vec<TopicPartition> = decode::<ConsumerProtocolAssignment>(bytes)
        .map(|a| {
            a.assigned_partitions
                .into_iter()
                .flat_map(|t| t.partitions.into_iter().map(move |p| (t.topic.clone(), p)))
                .collect()
        })
        .unwrap_or_default();
    partitions.sort();
    partitions
}

fn decode<T: Struct>(bytes: &Bytes) -> Option<T> {
    let prefix = bytes.get(..2)?;
    let version = i16::from_be_bytes([prefix[0], prefix[1]]).clamp(0, 3);
    let mut decoder = Decoder::with_budget(bytes.slice(2..), bytes.len().saturating_mul(8));
    T::decode(&mut decoder, version).ok()
}

fn unexpected(api: &str) -> ClientError {
    ClientError::Io { address: String::new(), reason: format!("not a {api} response") }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `members` (id, subscribed topics) over `counts`, as (member, topic, partitions) rows.
    fn check(members: &[(&str, &[&str])], counts: &[(&str, usize)], expected: &[(&str, &str, &[i32])]) {
        let members: Vec<(String, Vec<String>)> = members
            .iter()
            .map(|(id, topics)| ((*id).to_owned(), topics.iter().map(|t| (*t).to_owned()).collect()))
            .collect();
        let counts = counts.iter().map(|(t, n)| ((*t).to_owned(), *n)).collect();
        let rows: Vec<(String, String, Vec<i32>)> = range_assignment(&members, &counts)
            .into_iter()
            .flat_map(|(id, topics)| topics.into_iter().map(move |t| (id.clone(), t.topic, t.partitions)))
            .collect();
        let expected: Vec<(String, String, Vec<i32>)> =
            expected.iter().map(|(m, t, p)| ((*m).to_owned(), (*t).to_owned(), p.to_vec())).collect();
        assert_eq!(rows, expected);
    }

    /// Kafka's RangeAssignor: consecutive ranges by member id, the first ones one larger; a
    /// topic only among its subscribers; a member beyond the partitions gets none.
    #[test]
    fn range_assignment_is_kafka_s() {
        check(&[("b", &["t"]), ("a", &["t"])], &[("t", 5)], &[("a", "t", &[0, 1, 2]), ("b", "t", &[3, 4])]);
        check(
            &[("a", &["t", "u"]), ("b", &["t"])],
            &[("t", 2), ("u", 3)],
            &[("a", "t", &[0]), ("a", "u", &[0, 1, 2]), ("b", "t", &[1])],
        );
        check(&[("a", &["t"]), ("b", &["t"]), ("c", &["t"])], &[("t", 2)], &[("a", "t", &[0]), ("b", "t", &[1])]);
        check(&[("a", &["gone"])], &[("gone", 0)], &[]);
    }
}
