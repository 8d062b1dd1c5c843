//! The classic protocol served by a consumer group (KIP-848 online migration): JoinGroup,
//! SyncGroup, Heartbeat and LeaveGroup from members that use the classic protocol inside a
//! consumer group with members, as Kafka's `classicGroup*ToConsumerGroup` serve them.
//!
//! Such a member is a consumer group member like any other (its records, its target computed by
//! the server-side assignor, its reconciliation), plus its classic metadata (session timeout and
//! supported protocols). The classic exchange maps onto it:
//! - JoinGroup updates the member from its subscription (topics, rack, owned partitions), bumps the
//!   group epoch if its topics changed, computes a new target if needed and reconciles the member
//!   toward it. It is answered as soon as that is written, never parked: the generation is the
//!   member epoch, the protocol its first supported one, and no member list (no client-side
//!   assignment). The member then has its rebalance timeout to send SyncGroup.
//! - SyncGroup answers the member's assigned partitions, serialized in its consumer protocol
//!   version; REBALANCE_IN_PROGRESS if the group epoch moved past the member's (unless it is
//!   revoking: it rejoins once done).
//! - Heartbeat keeps the session (the member's own session timeout) and answers
//!   REBALANCE_IN_PROGRESS when the member must rejoin: the group epoch moved past its epoch, it
//!   must revoke partitions, or the partitions it waits for were released.
//! - LeaveGroup fences the members (which may downgrade the group, see
//!   [`crate::group::migration`]).
//!
//! A member told to rejoin has its rebalance timeout to do so, and one that joined has it to sync;
//! missing either fences it. Nothing here parks a request.

use std::collections::BTreeSet;

use strand_protocol::error::ErrorCode;
use strand_protocol::messages::leave_group_request::MemberIdentity;
use strand_protocol::messages::leave_group_response::MemberResponse;
use strand_protocol::messages::{
    HeartbeatRequest, JoinGroupRequest, JoinGroupResponse, LeaveGroupResponse, SyncGroupRequest, SyncGroupResponse,
};

use super::fence::{join_key, sync_key};
use super::{CONSUMER_GROUP_PROTOCOL_TYPE, ClassicMemberMetadata, ConsumerGroup, ConsumerMember, MemberState};
use crate::group::classic::{Protocol, join_error, sync_error};
use crate::group::consumer_protocol;
use crate::group::{ClientInfo, Effects, GroupShard};

/// The first JoinGroup version that requires a known member id (KIP-394).
const MEMBER_ID_REQUIRED_VERSION: i16 = 4;

/// One JoinGroup to a consumer group, with what comes with it.
pub(crate) struct ClassicJoin<'a> {
    pub now: i64,
    pub client: &'a ClientInfo,
    pub request: &'a JoinGroupRequest,
    pub version: i16,
    /// The member id to hand out if the request has none.
    pub new_member_id: &'a str,
}

impl GroupShard {
    /// JoinGroup from a classic member to the non-empty consumer group `request.group_id`
    /// (Kafka's `classicGroupJoinToConsumerGroup`).
    pub(crate) fn classic_join_to_consumer_group(
        &mut self,
        join: &ClassicJoin<'_>,
        effects: &mut Effects,
    ) -> JoinGroupResponse {
        let request = join.request;
        self.classic_join(join, effects).unwrap_or_else(|error| join_error(error, &request.member_id))
    }

    /// SyncGroup from a classic member of a non-empty consumer group.
    pub(crate) fn classic_sync_to_consumer_group(&mut self, now: i64, request: &SyncGroupRequest) -> SyncGroupResponse {
        self.classic_sync(now, request).unwrap_or_else(sync_error)
    }

    /// Heartbeat from a classic member of a consumer group.
    pub(crate) fn classic_heartbeat_to_consumer_group(&mut self, now: i64, request: &HeartbeatRequest) -> ErrorCode {
        let group_id = request.group_id.as_str();
        let Some(group) = self.consumer_group(group_id) else { return ErrorCode::UnknownMemberId };
        let member = match classic_member(group, &request.member_id, request.group_instance_id.as_deref()) {
            Ok(member) => member,
            Err(error) => return error,
        };
        if request.generation_id != member.member_epoch {
            return ErrorCode::IllegalGeneration;
        }
        let must_rejoin = member.member_epoch < group.group_epoch()
            || member.state == MemberState::UnrevokedPartitions
            || (member.state == MemberState::UnreleasedPartitions && !group.waiting_on_unreleased_partition(member));
        let (member_id, session, rebalance) = session_and_rebalance(member);
        self.schedule_session_ms(group_id, &member_id, now, session);
        if must_rejoin {
            self.timer.schedule_if_absent(join_key(group_id, &member_id), now + i64::from(rebalance.max(0)));
            return ErrorCode::RebalanceInProgress;
        }
        ErrorCode::None
    }

    /// LeaveGroup for members of a consumer group: each must be a classic member (an
    /// administrator may name a static member by instance id alone); those that may leave are
    /// fenced together.
    pub(crate) fn classic_leave_to_consumer_group(
        &mut self,
        now: i64,
        group_id: &str,
        members: &[MemberIdentity],
        effects: &mut Effects,
    ) -> LeaveGroupResponse {
        let mut responses = Vec::with_capacity(members.len());
        let mut leaving = BTreeSet::new();
        for identity in members {
            let found = self.consumer_group(group_id).ok_or(ErrorCode::UnknownMemberId).and_then(|group| {
                let member = match identity.group_instance_id.as_deref() {
                    None => group.member(&identity.member_id).ok_or(ErrorCode::UnknownMemberId)?,
                    Some(instance) => {
                        let member = group.static_member(instance).ok_or(ErrorCode::UnknownMemberId)?;
                        if !identity.member_id.is_empty() && identity.member_id != member.member_id {
                            return Err(ErrorCode::FencedInstanceId);
                        }
                        member
                    }
                };
                if member.uses_classic_protocol() {
                    Ok(member.member_id.clone())
                } else {
                    Err(ErrorCode::UnknownMemberId)
                }
            });
            let (member_id, error) = match found {
                Ok(member_id) => {
                    tracing::info!(group = group_id, member = %member_id, "classic member left the consumer group");
                    leaving.insert(member_id.clone());
                    (member_id, ErrorCode::None)
                }
                Err(error) => (identity.member_id.clone(), error),
            };
            responses.push(MemberResponse {
                member_id,
                group_instance_id: identity.group_instance_id.clone(),
                error_code: error.code(),
                ..MemberResponse::default()
            });
        }
        if !leaving.is_empty() {
            self.fence_members(group_id, &leaving, now, effects);
        }
        LeaveGroupResponse { members: responses, ..LeaveGroupResponse::default() }
    }

    fn classic_join(&mut self, join: &ClassicJoin<'_>, effects: &mut Effects) -> Result<JoinGroupResponse, ErrorCode> {
        let request = join.request;
        let group_id = request.group_id.as_str();
        let Some(group) = self.consumer_group(group_id) else { return Err(ErrorCode::UnknownMemberId) };
        let unknown = request.member_id.is_empty();
        let member_id = if unknown { join.new_member_id.to_owned() } else { request.member_id.clone() };
        let max = usize::try_from(self.config.consumer_max_size).unwrap_or(0);
        // A static member coming back under its instance id replaces itself: it needs no room
        // (Kafka's `throwIfConsumerGroupIsFull`).
        let replaces_static = request.group_instance_id.as_deref().is_some_and(|i| group.static_member(i).is_some());
        if group.member_count() >= max && group.member(&member_id).is_none() && !replaces_static {
            return Err(ErrorCode::GroupMaxSizeReached);
        }
        if !group.supports_classic_protocols(&request.protocol_type, request.protocols.iter().map(|p| p.name.as_str()))
        {
            return Err(ErrorCode::InconsistentGroupProtocol);
        }
        if unknown && request.group_instance_id.is_none() && join.version >= MEMBER_ID_REQUIRED_VERSION {
            tracing::info!(group = group_id, member = %member_id, "new classic member must rejoin with its member id");
            return Ok(join_error(ErrorCode::MemberIdRequired, &member_id));
        }
        let subscription = request
            .protocols
            .first()
            .and_then(|p| consumer_protocol::decode_subscription(&p.metadata))
            .ok_or(ErrorCode::UnknownServerError)?;
        let (member, replaced) = joining_member(group, &member_id, request.group_instance_id.as_deref(), unknown)?;
        // Validated: from here on the join writes (and replays) records.
        if let Some(old) = &replaced {
            self.replace_static_member(group_id, old, &member, effects);
        }
        let mut updated = member.clone();
        if request.group_instance_id.is_some() {
            updated.instance_id = request.group_instance_id.clone();
        }
        if subscription.rack_id.is_some() {
            updated.rack_id = subscription.rack_id.clone();
        }
        if request.rebalance_timeout_ms != -1 {
            updated.rebalance_timeout_ms = request.rebalance_timeout_ms;
        }
        updated.subscribed_topic_names = subscription.topics.iter().cloned().collect();
        updated.client_id = join.client.client_id.clone();
        updated.client_host = join.client.client_host.clone();
        updated.classic = Some(ClassicMemberMetadata {
            session_timeout_ms: request.session_timeout_ms,
            supported_protocols: Protocol::from_request(&request.protocols),
        });
        let subscription_changed = self.write_member(group_id, &member, &updated, effects);
        self.maybe_bump_group_epoch(group_id, subscription_changed, effects);
        self.maybe_update_target(group_id, join.now, effects);
        let owned = consumer_protocol::owned_partitions(&subscription, &self.metadata);
        let reconciled =
            self.reconcile_member(group_id, &member_id, join.now, Some(&owned), subscription_changed, effects);
        let reconciled = reconciled.map_err(|_| ErrorCode::FencedMemberEpoch)?;
        self.timer.cancel(&join_key(group_id, &member_id));
        self.schedule_session_ms(group_id, &member_id, join.now, request.session_timeout_ms);
        let sync_deadline = join.now + i64::from(request.rebalance_timeout_ms.max(0));
        self.timer.schedule(sync_key(group_id, &member_id), sync_deadline);
        tracing::debug!(group = group_id, member = %member_id, epoch = reconciled.member_epoch, "classic member joined");
        Ok(JoinGroupResponse {
            member_id,
            generation_id: reconciled.member_epoch,
            protocol_type: Some(CONSUMER_GROUP_PROTOCOL_TYPE.to_owned()),
            protocol_name: reconciled.classic.as_ref().map(|c| c.protocol_name().to_owned()),
            ..JoinGroupResponse::default()
        })
    }

    fn classic_sync(&mut self, now: i64, request: &SyncGroupRequest) -> Result<SyncGroupResponse, ErrorCode> {
        let group_id = request.group_id.as_str();
        let group = self.consumer_group(group_id).ok_or(ErrorCode::UnknownMemberId)?;
        let member = classic_member(group, &request.member_id, request.group_instance_id.as_deref())?;
        if request.generation_id != member.member_epoch {
            return Err(ErrorCode::IllegalGeneration);
        }
        let classic = member.classic.as_ref().ok_or(ErrorCode::UnknownMemberId)?;
        let type_differs = request.protocol_type.as_deref().is_some_and(|t| t != CONSUMER_GROUP_PROTOCOL_TYPE);
        let name_differs = request.protocol_name.as_deref().is_some_and(|n| n != classic.protocol_name());
        if type_differs || name_differs {
            return Err(ErrorCode::InconsistentGroupProtocol);
        }
        let version = classic.supported_protocols.first().and_then(|p| consumer_protocol::version(&p.metadata));
        let assignment =
            consumer_protocol::encode_assignment(&member.assigned_partitions(), &self.metadata, version.unwrap_or(0));
        let rebalancing = group.group_epoch() > member.member_epoch && member.state != MemberState::UnrevokedPartitions;
        let (member_id, session, rebalance) = session_and_rebalance(member);
        if rebalancing {
            self.timer.schedule_if_absent(join_key(group_id, &member_id), now + i64::from(rebalance.max(0)));
            return Err(ErrorCode::RebalanceInProgress);
        }
        self.timer.cancel(&sync_key(group_id, &member_id));
        self.schedule_session_ms(group_id, &member_id, now, session);
        Ok(SyncGroupResponse {
            protocol_type: request.protocol_type.clone(),
            protocol_name: request.protocol_name.clone(),
            assignment,
            ..SyncGroupResponse::default()
        })
    }
}

/// Kafka's `validateConsumerGroupMember` and `throwIfMemberDoesNotUseClassicProtocol`: the member
/// a classic request names, by id or by instance id.
fn classic_member<'a>(
    group: &'a ConsumerGroup,
    member_id: &str,
    instance: Option<&str>,
) -> Result<&'a ConsumerMember, ErrorCode> {
    let member = match instance {
        None => group.member(member_id).ok_or(ErrorCode::UnknownMemberId)?,
        Some(instance) => {
            let member = group.static_member(instance).ok_or(ErrorCode::UnknownMemberId)?;
            if member.member_id != member_id {
                return Err(ErrorCode::FencedInstanceId);
            }
            member
        }
    };
    if !member.uses_classic_protocol() {
        return Err(ErrorCode::UnknownMemberId);
    }
    Ok(member)
}

/// The member a JoinGroup is about (a new one if unknown), and the static member it replaces:
/// a classic static member joining without a member id takes its instance over, whatever the
/// previous member's state (Kafka's `getOrMaybeSubscribeStaticConsumerGroupMember`).
fn joining_member(
    group: &ConsumerGroup,
    member_id: &str,
    instance: Option<&str>,
    unknown: bool,
) -> Result<(ConsumerMember, Option<ConsumerMember>), ErrorCode> {
    let Some(instance) = instance else {
        let member = group.member(member_id).cloned().unwrap_or_else(|| ConsumerMember::new(member_id.to_owned()));
        return Ok((member, None));
    };
    let existing = group.static_member(instance);
    if unknown {
        return Ok(match existing {
            None => (ConsumerMember::new(member_id.to_owned()), None),
            Some(old) => {
                let mut taking_over = old.clone();
                taking_over.member_id = member_id.to_owned();
                taking_over.member_epoch = 0;
                taking_over.previous_member_epoch = 0;
                (taking_over, Some(old.clone()))
            }
        });
    }
    let old = existing.ok_or(ErrorCode::UnknownMemberId)?;
    if old.member_id != member_id {
        return Err(ErrorCode::FencedInstanceId);
    }
    Ok((old.clone(), None))
}

/// A classic member's id, session timeout and rebalance timeout.
fn session_and_rebalance(member: &ConsumerMember) -> (String, i32, i32) {
    let session = member.classic.as_ref().map_or(0, |c| c.session_timeout_ms);
    (member.member_id.clone(), session, member.rebalance_timeout_ms)
}
