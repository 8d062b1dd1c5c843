//! The classic group protocol: JoinGroup, SyncGroup, Heartbeat, LeaveGroup and the timers that
//! drive a rebalance (sessions, the rebalance timeout, the initial rebalance delay, the wait for
//! SyncGroups), following Kafka's `GroupMetadataManager` step for step.
//!
//! A rebalance: members (re)join and their JoinGroups are parked; when every member has rejoined
//! (or the rebalance timeout passes, dropping those that did not) the next generation starts, the
//! leader's JoinGroup answer lists every member's metadata and the others' answers none; members
//! then send SyncGroup, parked until the leader's SyncGroup brings the assignment, which is written
//! as a `GroupMetadata` record and, once committed, answers every parked SyncGroup.
//!
//! The same four requests for a consumer group with members (KIP-848 online migration) go to
//! [`crate::group::consumer::classic_protocol`] instead; `on_downgraded` starts the rebalance of
//! a consumer group just turned classic ([`crate::group::migration`]).

use bytes::Bytes;
use strand_protocol::error::ErrorCode;
use strand_protocol::messages::leave_group_request::MemberIdentity;
use strand_protocol::messages::leave_group_response::MemberResponse;
use strand_protocol::messages::{
    HeartbeatRequest, HeartbeatResponse, JoinGroupRequest, JoinGroupResponse, LeaveGroupResponse, SyncGroupRequest,
    SyncGroupResponse,
};

use super::{ClassicGroup, ClassicGroupState, ClassicMember, JoinTimer, Protocol, join_error, sync_error};
use crate::config::GroupConfig;
use crate::group::consumer::classic_protocol::ClassicJoin;
use crate::group::records::{CoordinatorRecord, batch_fits};
use crate::group::timer::{Timer, TimerKey};
use crate::group::{ClientInfo, Effects, Group, GroupShard, Output, PendingId, Reply};

use ClassicGroupState::{CompletingRebalance, Dead, Empty, PreparingRebalance, Stable};

/// What the protocol's steps need besides the group: settings, the shard's timer, the time, and
/// where records and completions go.
pub(crate) struct Ctx<'a> {
    pub config: &'a GroupConfig,
    pub timer: &'a mut Timer,
    pub now: i64,
    pub effects: &'a mut Effects,
}

impl Ctx<'_> {
    fn schedule_heartbeat(&mut self, group: &ClassicGroup, member_id: &str, timeout_ms: i32) {
        let key = TimerKey::Heartbeat { group: group.group_id().to_owned(), member: member_id.to_owned() };
        self.timer.schedule(key, self.now + i64::from(timeout_ms));
    }

    /// Restarts a member's session (its session timeout from now).
    fn reschedule_session(&mut self, group: &ClassicGroup, member_id: &str) {
        if let Some(member) = group.member(member_id) {
            let timeout = member.session_timeout_ms;
            self.schedule_heartbeat(group, member_id, timeout);
        }
    }

    fn cancel_heartbeat(&mut self, group: &ClassicGroup, member_id: &str) {
        self.timer.cancel(&TimerKey::Heartbeat { group: group.group_id().to_owned(), member: member_id.to_owned() });
    }

    fn schedule_join(&mut self, group: &mut ClassicGroup, delay_ms: i32, what: JoinTimer) {
        group.set_join_timer(what);
        self.timer.schedule(TimerKey::Join { group: group.group_id().to_owned() }, self.now + i64::from(delay_ms));
    }

    fn write_group(&mut self, group: &ClassicGroup) {
        self.effects.records.push(CoordinatorRecord::group_metadata(group.group_id(), group.to_record_value()));
    }
}

impl GroupShard {
    /// JoinGroup. `new_member_uuid` is the random part of the member id to hand out if the
    /// request has none (`client_id-uuid`, or `group_instance_id-uuid` for a static member).
    /// Session timeout and group id are checked by the caller (they need no group state).
    pub fn join_group(
        &mut self,
        now_ms: i64,
        client: &ClientInfo,
        request: &JoinGroupRequest,
        version: i16,
        new_member_uuid: &str,
    ) -> Output<Reply<JoinGroupResponse>> {
        let mut effects = Effects::default();
        let pending = self.allocate_pending_id();
        let group_id = request.group_id.as_str();
        if let Some(Group::Consumer(group)) = self.groups.get(group_id) {
            if !group.is_empty() {
                // A classic member joins the consumer group (online migration), as in Kafka.
                let join = ClassicJoin { now: now_ms, client, request, version, new_member_id: new_member_uuid };
                let response = self.classic_join_to_consumer_group(&join, &mut effects);
                return Output::new(effects, Reply::Now(response));
            }
            // An empty consumer group gives way to the classic group, as in Kafka.
            for tombstone in group.tombstones() {
                self.apply(&mut effects, tombstone);
            }
        }
        let is_new_group = !self.groups.contains_key(group_id);
        if is_new_group {
            if !request.member_id.is_empty() {
                let response = join_error(ErrorCode::UnknownMemberId, &request.member_id);
                return Output::new(effects, Reply::Now(response));
            }
            let group = ClassicGroup::new(group_id.to_owned(), Empty, Some(now_ms));
            self.groups.insert(group_id.to_owned(), Group::Classic(group));
        }
        let join = JoinInput { client, request, version, new_member_uuid, pending };
        let reply = self.with_classic(group_id, now_ms, &mut effects, |group, ctx| join_classic(group, ctx, &join));
        let reply = reply.unwrap_or_else(|| Reply::Now(join_error(ErrorCode::InconsistentGroupProtocol, "")));
        if is_new_group
            && !effects.records.iter().any(|r| r.record_type() == crate::group::records::GROUP_METADATA)
            && let Some(Group::Classic(group)) = self.groups.get(group_id)
        {
            // Kafka writes a new group at once, so that it survives a coordinator change.
            effects.records.push(CoordinatorRecord::group_metadata(group_id, group.empty_record_value()));
        }
        Output::new(effects, reply)
    }

    /// SyncGroup. The group id is checked by the caller.
    pub fn sync_group(&mut self, now_ms: i64, request: &SyncGroupRequest) -> Output<Reply<SyncGroupResponse>> {
        let mut effects = Effects::default();
        if let Some(Group::Consumer(group)) = self.groups.get(&request.group_id) {
            let response = if group.is_empty() {
                sync_error(ErrorCode::UnknownMemberId)
            } else {
                self.classic_sync_to_consumer_group(now_ms, request)
            };
            return Output::new(effects, Reply::Now(response));
        }
        let pending = self.allocate_pending_id();
        let reply = self.with_classic(&request.group_id, now_ms, &mut effects, |group, ctx| {
            if group.is_in(Empty) {
                return Reply::Now(sync_error(ErrorCode::UnknownMemberId));
            }
            sync_classic(group, ctx, request, pending)
        });
        Output::new(effects, reply.unwrap_or_else(|| Reply::Now(sync_error(ErrorCode::UnknownMemberId))))
    }

    /// Heartbeat. The group id is checked by the caller.
    pub fn heartbeat(&mut self, now_ms: i64, request: &HeartbeatRequest) -> Output<HeartbeatResponse> {
        let mut effects = Effects::default();
        if let Some(Group::Consumer(_)) = self.groups.get(&request.group_id) {
            let error = self.classic_heartbeat_to_consumer_group(now_ms, request);
            return Output::new(
                effects,
                HeartbeatResponse { error_code: error.code(), ..HeartbeatResponse::default() },
            );
        }
        let error = self
            .with_classic(&request.group_id, now_ms, &mut effects, |group, ctx| heartbeat_classic(group, ctx, request))
            .unwrap_or(ErrorCode::UnknownMemberId);
        Output::new(effects, HeartbeatResponse { error_code: error.code(), ..HeartbeatResponse::default() })
    }

    /// LeaveGroup, in its batched form (v3+; the caller turns a v0-v2 request's one member id into
    /// a one-member list).
    pub fn leave_group(
        &mut self,
        now_ms: i64,
        group_id: &str,
        members: &[MemberIdentity],
    ) -> Output<LeaveGroupResponse> {
        let mut effects = Effects::default();
        if let Some(Group::Consumer(_)) = self.groups.get(group_id) {
            let response = self.classic_leave_to_consumer_group(now_ms, group_id, members, &mut effects);
            return Output::new(effects, response);
        }
        let response =
            self.with_classic(group_id, now_ms, &mut effects, |group, ctx| leave_classic(group, ctx, members));
        let response = response.unwrap_or_else(|| LeaveGroupResponse {
            members: members.iter().map(|m| member_response(m, ErrorCode::UnknownMemberId)).collect(),
            ..LeaveGroupResponse::default()
        });
        Output::new(effects, response)
    }
}

/// One JoinGroup and what comes with it.
struct JoinInput<'a> {
    client: &'a ClientInfo,
    request: &'a JoinGroupRequest,
    version: i16,
    new_member_uuid: &'a str,
    pending: PendingId,
}

fn join_classic(group: &mut ClassicGroup, ctx: &mut Ctx<'_>, join: &JoinInput<'_>) -> Reply<JoinGroupResponse> {
    let member_id = join.request.member_id.as_str();
    if !accept_joining_member(group, ctx.config, member_id) {
        ctx.cancel_heartbeat(group, member_id);
        group.remove_member(member_id, &mut ctx.effects.completions);
        return Reply::Now(join_error(ErrorCode::GroupMaxSizeReached, ""));
    }
    if member_id.is_empty() { join_new_member(group, ctx, join) } else { join_existing_member(group, ctx, join) }
}

/// Whether the group has room for the member (`group.max.size`).
fn accept_joining_member(group: &ClassicGroup, config: &GroupConfig, member_id: &str) -> bool {
    let max = usize::try_from(config.max_size).unwrap_or(0);
    match group.state() {
        Empty | Dead => true,
        // Counting parked JoinGroups, not members: members that do not rejoin are about to go.
        PreparingRebalance => {
            group.member(member_id).is_some_and(ClassicMember::is_awaiting_join) || group.awaiting_join_count() < max
        }
        CompletingRebalance | Stable => group.has_member(member_id) || group.member_count() < max,
    }
}

fn join_new_member(group: &mut ClassicGroup, ctx: &mut Ctx<'_>, join: &JoinInput<'_>) -> Reply<JoinGroupResponse> {
    let request = join.request;
    if group.is_in(Dead) {
        return Reply::Now(join_error(ErrorCode::CoordinatorNotAvailable, ""));
    }
    if !group.supports_protocols(&request.protocol_type, &request.protocols) {
        return Reply::Now(join_error(ErrorCode::InconsistentGroupProtocol, ""));
    }
    let prefix = request.group_instance_id.as_deref().unwrap_or(&join.client.client_id);
    let new_member_id = format!("{prefix}-{}", join.new_member_uuid);
    match request.group_instance_id.as_deref() {
        Some(instance) => match group.static_member_id(instance).map(str::to_owned) {
            Some(old_member_id) => update_static_member(group, ctx, join, &old_member_id, &new_member_id),
            None => add_member_then_rebalance_or_complete_join(group, ctx, join, new_member_id),
        },
        // KIP-394: a dynamic member first gets its id, and must come back with it.
        None if join.version >= 4 => {
            group.add_pending_member(new_member_id.clone());
            ctx.schedule_heartbeat(group, &new_member_id, request.session_timeout_ms);
            Reply::Now(join_error(ErrorCode::MemberIdRequired, &new_member_id))
        }
        None => add_member_then_rebalance_or_complete_join(group, ctx, join, new_member_id),
    }
}

fn join_existing_member(group: &mut ClassicGroup, ctx: &mut Ctx<'_>, join: &JoinInput<'_>) -> Reply<JoinGroupResponse> {
    let request = join.request;
    let member_id = request.member_id.as_str();
    if group.is_in(Dead) {
        return Reply::Now(join_error(ErrorCode::CoordinatorNotAvailable, member_id));
    }
    if !group.supports_protocols(&request.protocol_type, &request.protocols) {
        return Reply::Now(join_error(ErrorCode::InconsistentGroupProtocol, member_id));
    }
    if group.is_pending_member(member_id) {
        // A pending member got its id through MEMBER_ID_REQUIRED, as a dynamic member: it cannot
        // come back static (Kafka fails such a request as a server error too).
        if request.group_instance_id.is_some() {
            return Reply::Now(join_error(ErrorCode::UnknownServerError, member_id));
        }
        return add_member_then_rebalance_or_complete_join(group, ctx, join, member_id.to_owned());
    }
    if let Err(error) = group.validate_member(member_id, request.group_instance_id.as_deref()) {
        let response = JoinGroupResponse { protocol_name: None, ..join_error(error, member_id) };
        return Reply::Now(response);
    }
    let unchanged = group.member(member_id).is_some_and(|m| m.matches(&request.protocols));
    match group.state() {
        PreparingRebalance => update_member_then_rebalance_or_complete_join(group, ctx, join),
        CompletingRebalance if unchanged => {
            // The member missed its JoinGroup answer: give it again.
            Reply::Now(current_generation_response(group, member_id, group.is_leader(member_id)))
        }
        Stable if unchanged && !group.is_leader(member_id) => {
            Reply::Now(current_generation_response(group, member_id, false))
        }
        // A changed member, or the leader (which rejoins to trigger a rebalance, say for new
        // partitions of a subscribed topic): rebalance.
        CompletingRebalance | Stable => update_member_then_rebalance_or_complete_join(group, ctx, join),
        Empty | Dead => Reply::Now(join_error(ErrorCode::UnknownMemberId, member_id)),
    }
}

/// The current generation as a JoinGroup answer, with the members' metadata for the leader.
fn current_generation_response(group: &ClassicGroup, member_id: &str, with_members: bool) -> JoinGroupResponse {
    JoinGroupResponse {
        members: if with_members { group.members_for_leader() } else { Vec::new() },
        member_id: member_id.to_owned(),
        generation_id: group.generation_id(),
        protocol_name: group.protocol_name().map(str::to_owned),
        protocol_type: group.protocol_type().map(str::to_owned),
        leader: group.leader_id().unwrap_or_default().to_owned(),
        skip_assignment: false,
        ..JoinGroupResponse::default()
    }
}

fn add_member_then_rebalance_or_complete_join(
    group: &mut ClassicGroup,
    ctx: &mut Ctx<'_>,
    join: &JoinInput<'_>,
    member_id: String,
) -> Reply<JoinGroupResponse> {
    let request = join.request;
    let mut member = ClassicMember::new(
        member_id.clone(),
        request.group_instance_id.clone(),
        join.client.client_id.clone(),
        join.client.client_host.clone(),
        request.rebalance_timeout_ms,
        request.session_timeout_ms,
        request.protocol_type.clone(),
        Protocol::from_request(&request.protocols),
    );
    member.is_new = true;
    if group.is_in(PreparingRebalance) && group.previous_state() == Empty {
        // The initial rebalance's delay is extended while members keep coming.
        group.set_new_member_added(true);
    }
    group.add_member(member, Some(join.pending));
    // A parked new member cannot heartbeat, and a client that gave up would leave a defunct
    // member behind: its JoinGroup times out instead.
    let timeout = ctx.config.new_member_join_timeout_ms;
    ctx.schedule_heartbeat(group, &member_id, timeout);
    maybe_prepare_rebalance_or_complete_join(group, ctx);
    Reply::Parked(join.pending)
}

fn update_member_then_rebalance_or_complete_join(
    group: &mut ClassicGroup,
    ctx: &mut Ctx<'_>,
    join: &JoinInput<'_>,
) -> Reply<JoinGroupResponse> {
    let request = join.request;
    group.update_member(
        &request.member_id,
        Protocol::from_request(&request.protocols),
        request.rebalance_timeout_ms,
        request.session_timeout_ms,
        Some(join.pending),
        &mut ctx.effects.completions,
    );
    maybe_prepare_rebalance_or_complete_join(group, ctx);
    Reply::Parked(join.pending)
}

/// A known static member rejoined without its member id (KIP-345): it takes a new id, and the
/// group rebalances only if it must (its metadata changes the group's protocol, or the group is
/// mid-rebalance).
fn update_static_member(
    group: &mut ClassicGroup,
    ctx: &mut Ctx<'_>,
    join: &JoinInput<'_>,
    old_member_id: &str,
    new_member_id: &str,
) -> Reply<JoinGroupResponse> {
    let request = join.request;
    let instance = request.group_instance_id.as_deref().unwrap_or_default();
    let previous_leader = group.leader_id().unwrap_or_default().to_owned();
    ctx.cancel_heartbeat(group, old_member_id);
    group.replace_static_member(instance, old_member_id, new_member_id, &mut ctx.effects.completions);
    ctx.reschedule_session(group, new_member_id);
    group.update_member(
        new_member_id,
        Protocol::from_request(&request.protocols),
        request.rebalance_timeout_ms,
        request.session_timeout_ms,
        Some(join.pending),
        &mut ctx.effects.completions,
    );
    match group.state() {
        Stable if group.select_protocol().as_deref() == group.protocol_name() => {
            // Nothing the assignment depends on changed: keep the generation, store the new id.
            ctx.write_group(group);
            let is_leader = group.is_leader(new_member_id);
            let response = if join.version >= 9 {
                JoinGroupResponse {
                    skip_assignment: is_leader,
                    ..current_generation_response(group, new_member_id, is_leader)
                }
            } else {
                // Older clients would run the assignment if told they lead: name the old leader.
                JoinGroupResponse {
                    leader: previous_leader,
                    ..current_generation_response(group, new_member_id, false)
                }
            };
            group.complete_join(new_member_id, response, &mut ctx.effects.completions);
        }
        Stable => maybe_prepare_rebalance_or_complete_join(group, ctx),
        // The leader may already hold an assignment naming the old id.
        CompletingRebalance => prepare_rebalance(group, ctx),
        PreparingRebalance => maybe_complete_join_phase(group, ctx),
        Empty | Dead => unreachable!("a static member of group {} rejoined in state Empty or Dead", group.group_id()),
    }
    Reply::Parked(join.pending)
}

fn maybe_prepare_rebalance_or_complete_join(group: &mut ClassicGroup, ctx: &mut Ctx<'_>) {
    if group.can_rebalance() {
        prepare_rebalance(group, ctx);
    } else {
        maybe_complete_join_phase(group, ctx);
    }
}

/// Starts a rebalance: parked SyncGroups are told to rejoin, and the join phase begins (after the
/// initial delay, for a group that was Empty).
pub(crate) fn prepare_rebalance(group: &mut ClassicGroup, ctx: &mut Ctx<'_>) {
    if group.is_in(CompletingRebalance) {
        reset_and_propagate_assignment_with_error(group, ctx, ErrorCode::RebalanceInProgress);
    }
    group.clear_pending_sync_members();
    ctx.timer.cancel(&TimerKey::Sync { group: group.group_id().to_owned() });
    let is_initial = group.is_in(Empty);
    if is_initial {
        let delay_ms = ctx.config.initial_rebalance_delay_ms;
        // A client picks the rebalance timeout, down to `i32::MIN`: saturate, where Kafka's `int`
        // would wrap to ~24.8 days of extensions.
        let remaining_ms = group.rebalance_timeout_ms().saturating_sub(delay_ms).max(0);
        ctx.schedule_join(group, delay_ms, JoinTimer::InitialDelay { delay_ms, remaining_ms });
    }
    group.transition_to(PreparingRebalance, ctx.now);
    if !is_initial {
        maybe_complete_join_else_schedule(group, ctx);
    }
}

fn maybe_complete_join_else_schedule(group: &mut ClassicGroup, ctx: &mut Ctx<'_>) {
    if group.has_all_members_joined() {
        complete_join(group, ctx);
    } else {
        let timeout = group.rebalance_timeout_ms();
        ctx.schedule_join(group, timeout, JoinTimer::CompleteJoin);
    }
}

/// Completes the join phase early if every member is back, except during the initial rebalance,
/// which always waits out its delay.
fn maybe_complete_join_phase(group: &mut ClassicGroup, ctx: &mut Ctx<'_>) {
    if group.is_in(PreparingRebalance) && group.previous_state() != Empty && group.has_all_members_joined() {
        complete_join(group, ctx);
    }
}

/// The group's `Join` timer fired.
pub(crate) fn on_join_timer(group: &mut ClassicGroup, ctx: &mut Ctx<'_>) {
    match group.join_timer() {
        JoinTimer::CompleteJoin => complete_join(group, ctx),
        JoinTimer::InitialDelay { delay_ms, remaining_ms } => {
            if group.new_member_added() && remaining_ms != 0 {
                group.set_new_member_added(false);
                let next_delay = ctx.config.initial_rebalance_delay_ms.min(remaining_ms);
                let next_remaining = remaining_ms.saturating_sub(delay_ms).max(0);
                ctx.schedule_join(
                    group,
                    next_delay,
                    JoinTimer::InitialDelay { delay_ms: next_delay, remaining_ms: next_remaining },
                );
            } else {
                complete_join(group, ctx);
            }
        }
    }
}

/// Ends the join phase: dynamic members that did not rejoin are dropped, the next generation
/// starts, and every parked JoinGroup is answered (the leader's with all members' metadata). A
/// group left without members becomes Empty and is written as such.
fn complete_join(group: &mut ClassicGroup, ctx: &mut Ctx<'_>) {
    ctx.timer.cancel(&TimerKey::Join { group: group.group_id().to_owned() });
    let not_rejoined: Vec<String> =
        group.members().filter(|m| !m.is_awaiting_join() && !m.is_static()).map(|m| m.member_id.clone()).collect();
    for member_id in &not_rejoined {
        ctx.cancel_heartbeat(group, member_id);
        group.remove_member(member_id, &mut ctx.effects.completions);
    }
    if group.is_in(Dead) {
        return;
    }
    if !group.maybe_elect_new_joined_leader() && group.member_count() > 0 {
        // Only static members that did not rejoin are left: wait for them (or their sessions).
        let timeout = group.rebalance_timeout_ms();
        ctx.schedule_join(group, timeout, JoinTimer::CompleteJoin);
        return;
    }
    group.init_next_generation(ctx.now);
    if group.is_in(Empty) {
        ctx.write_group(group);
        return;
    }
    let member_ids: Vec<String> = group.members().map(|m| m.member_id.clone()).collect();
    for member_id in &member_ids {
        let response = current_generation_response(group, member_id, group.is_leader(member_id));
        group.complete_join(member_id, response, &mut ctx.effects.completions);
        ctx.reschedule_session(group, member_id);
        group.set_new(member_id, false);
    }
    group.set_pending_sync_members();
    let timeout = group.rebalance_timeout_ms();
    ctx.timer.schedule(TimerKey::Sync { group: group.group_id().to_owned() }, ctx.now + i64::from(timeout));
}

fn sync_classic(
    group: &mut ClassicGroup,
    ctx: &mut Ctx<'_>,
    request: &SyncGroupRequest,
    pending: PendingId,
) -> Reply<SyncGroupResponse> {
    if let Err(error) = validate_sync(group, request) {
        return Reply::Now(sync_error(error));
    }
    let member_id = request.member_id.as_str();
    match group.state() {
        PreparingRebalance => Reply::Now(sync_error(ErrorCode::RebalanceInProgress)),
        CompletingRebalance => {
            group.park_sync(member_id, pending, &mut ctx.effects.completions);
            remove_pending_sync_member(group, ctx, member_id);
            if group.is_leader(member_id) {
                store_assignment(group, ctx, request);
            }
            Reply::Parked(pending)
        }
        Stable => {
            remove_pending_sync_member(group, ctx, member_id);
            let assignment = group.member(member_id).map(|m| m.assignment.clone()).unwrap_or_default();
            Reply::Now(SyncGroupResponse {
                protocol_type: group.protocol_type().map(str::to_owned),
                protocol_name: group.protocol_name().map(str::to_owned),
                assignment,
                ..SyncGroupResponse::default()
            })
        }
        Empty | Dead => Reply::Now(sync_error(ErrorCode::UnknownMemberId)),
    }
}

fn validate_sync(group: &ClassicGroup, request: &SyncGroupRequest) -> Result<(), ErrorCode> {
    if group.is_in(Dead) {
        return Err(ErrorCode::CoordinatorNotAvailable);
    }
    group.validate_member(&request.member_id, request.group_instance_id.as_deref())?;
    if request.generation_id != group.generation_id() {
        return Err(ErrorCode::IllegalGeneration);
    }
    if is_inconsistent(request.protocol_type.as_deref(), group.protocol_type())
        || is_inconsistent(request.protocol_name.as_deref(), group.protocol_name())
    {
        return Err(ErrorCode::InconsistentGroupProtocol);
    }
    Ok(())
}

fn is_inconsistent(requested: Option<&str>, current: Option<&str>) -> bool {
    matches!((requested, current), (Some(a), Some(b)) if a != b)
}

/// The leader's assignment: stored in every member (an empty one for members it left out),
/// written as the group's record, and sent to every parked SyncGroup; the group is Stable.
fn store_assignment(group: &mut ClassicGroup, ctx: &mut Ctx<'_>, request: &SyncGroupRequest) {
    for member in group.members_mut() {
        member.assignment = request
            .assignments
            .iter()
            .find(|a| a.member_id == member.member_id)
            .map(|a| a.assignment.clone())
            .unwrap_or_default();
    }
    // Written as Kafka writes it: while still CompletingRebalance, with that state's timestamp.
    let record = CoordinatorRecord::group_metadata(group.group_id(), group.to_record_value());
    if !group_record_fits(group, &record, ctx.config) {
        // As Kafka's SyncGroup when the log refuses the record (RecordTooLarge): every waiting
        // member is told UNKNOWN_SERVER_ERROR and the group rebalances; nothing is written.
        tracing::warn!(
            group = group.group_id(),
            members = group.member_count(),
            max = ctx.config.batch_bytes_max,
            "the group's assignment is larger than message.max.bytes; not stored"
        );
        reset_and_propagate_assignment_with_error(group, ctx, ErrorCode::UnknownServerError);
        maybe_prepare_rebalance_or_complete_join(group, ctx);
        return;
    }
    ctx.effects.records.push(record);
    propagate_assignment(group, ctx, ErrorCode::None);
    group.transition_to(Stable, ctx.now);
}

/// Whether the group's record fits a batch of `message.max.bytes`. The members' metadata and
/// assignments alone may already be too large, which needs no encoding.
fn group_record_fits(group: &ClassicGroup, record: &CoordinatorRecord, config: &GroupConfig) -> bool {
    let max = config.batch_bytes_max;
    group.stored_member_bytes() <= max && batch_fits(std::slice::from_ref(record), max)
}

fn remove_pending_sync_member(group: &mut ClassicGroup, ctx: &mut Ctx<'_>, member_id: &str) {
    group.remove_pending_sync_member(member_id);
    if group.has_received_sync_from_all_members() {
        ctx.timer.cancel(&TimerKey::Sync { group: group.group_id().to_owned() });
    }
}

fn reset_and_propagate_assignment_with_error(group: &mut ClassicGroup, ctx: &mut Ctx<'_>, error: ErrorCode) {
    assert!(group.is_in(CompletingRebalance), "group {} must be CompletingRebalance", group.group_id());
    for member in group.members_mut() {
        member.assignment = Bytes::new();
    }
    propagate_assignment(group, ctx, error);
}

/// Answers every parked SyncGroup with the member's assignment (or `error`), restarting the
/// sessions of those it answered.
fn propagate_assignment(group: &mut ClassicGroup, ctx: &mut Ctx<'_>, error: ErrorCode) {
    let ok = error == ErrorCode::None;
    let answers: Vec<(String, SyncGroupResponse)> = group
        .members()
        .map(|member| {
            let response = SyncGroupResponse {
                error_code: error.code(),
                protocol_type: group.protocol_type().filter(|_| ok).map(str::to_owned),
                protocol_name: group.protocol_name().filter(|_| ok).map(str::to_owned),
                assignment: member.assignment.clone(),
                ..SyncGroupResponse::default()
            };
            (member.member_id.clone(), response)
        })
        .collect();
    for (member_id, response) in answers {
        if group.complete_sync(&member_id, response, &mut ctx.effects.completions) {
            ctx.reschedule_session(group, &member_id);
        }
    }
}

/// The wait for SyncGroups ended: members that sent none are dropped and the group rebalances.
pub(crate) fn expire_pending_sync(group: &mut ClassicGroup, ctx: &mut Ctx<'_>) {
    if !matches!(group.state(), CompletingRebalance | Stable) || group.has_received_sync_from_all_members() {
        return;
    }
    let missing: Vec<String> = group.pending_sync_members().cloned().collect();
    for member_id in &missing {
        ctx.cancel_heartbeat(group, member_id);
        group.remove_member(member_id, &mut ctx.effects.completions);
    }
    prepare_rebalance(group, ctx);
}

/// A member's (or pending member's) session ended without a heartbeat.
pub(crate) fn expire_heartbeat(group: &mut ClassicGroup, ctx: &mut Ctx<'_>, member_id: &str) {
    if group.is_in(Dead) {
        return;
    }
    if group.is_pending_member(member_id) {
        group.remove_member(member_id, &mut ctx.effects.completions);
        if group.is_in(PreparingRebalance) && group.has_all_members_joined() {
            complete_join(group, ctx);
        }
        return;
    }
    let expired = group.member(member_id).is_some_and(|m| !m.has_satisfied_heartbeat());
    if expired {
        remove_member_and_update_group(group, ctx, member_id);
    }
}

fn remove_member_and_update_group(group: &mut ClassicGroup, ctx: &mut Ctx<'_>, member_id: &str) {
    group.remove_member(member_id, &mut ctx.effects.completions);
    match group.state() {
        Stable | CompletingRebalance => maybe_prepare_rebalance_or_complete_join(group, ctx),
        PreparingRebalance if group.has_all_members_joined() => complete_join(group, ctx),
        _ => {}
    }
}

fn heartbeat_classic(group: &mut ClassicGroup, ctx: &mut Ctx<'_>, request: &HeartbeatRequest) -> ErrorCode {
    if group.is_in(Dead) {
        return ErrorCode::CoordinatorNotAvailable;
    }
    if let Err(error) = group.validate_member(&request.member_id, request.group_instance_id.as_deref()) {
        return error;
    }
    if request.generation_id != group.generation_id() {
        return ErrorCode::IllegalGeneration;
    }
    match group.state() {
        Empty | Dead => ErrorCode::UnknownMemberId,
        PreparingRebalance => {
            ctx.reschedule_session(group, &request.member_id);
            ErrorCode::RebalanceInProgress
        }
        // Members may heartbeat between their JoinGroup answer and their SyncGroup.
        CompletingRebalance | Stable => {
            ctx.reschedule_session(group, &request.member_id);
            ErrorCode::None
        }
    }
}

fn leave_classic(group: &mut ClassicGroup, ctx: &mut Ctx<'_>, members: &[MemberIdentity]) -> LeaveGroupResponse {
    if group.is_in(Dead) {
        return LeaveGroupResponse {
            error_code: ErrorCode::CoordinatorNotAvailable.code(),
            ..LeaveGroupResponse::default()
        };
    }
    let mut responses = Vec::with_capacity(members.len());
    for leaving in members {
        let error = leave_one(group, ctx, leaving);
        responses.push(member_response(leaving, error));
    }
    if responses.iter().any(|r| r.error_code == ErrorCode::None.code()) {
        match group.state() {
            Stable | CompletingRebalance => maybe_prepare_rebalance_or_complete_join(group, ctx),
            PreparingRebalance => maybe_complete_join_phase(group, ctx),
            Empty | Dead => {}
        }
    }
    LeaveGroupResponse { members: responses, ..LeaveGroupResponse::default() }
}

/// Removes one leaving member. An empty member id with a group instance id is an administrator
/// removing a static member (KIP-345).
fn leave_one(group: &mut ClassicGroup, ctx: &mut Ctx<'_>, leaving: &MemberIdentity) -> ErrorCode {
    if leaving.member_id.is_empty() {
        let member_id = leaving.group_instance_id.as_deref().and_then(|i| group.static_member_id(i)).map(str::to_owned);
        return match member_id {
            Some(member_id) => {
                ctx.cancel_heartbeat(group, &member_id);
                group.remove_member(&member_id, &mut ctx.effects.completions);
                ErrorCode::None
            }
            None => ErrorCode::UnknownMemberId,
        };
    }
    if group.is_pending_member(&leaving.member_id) {
        ctx.cancel_heartbeat(group, &leaving.member_id);
        group.remove_member(&leaving.member_id, &mut ctx.effects.completions);
        return ErrorCode::None;
    }
    match group.validate_member(&leaving.member_id, leaving.group_instance_id.as_deref()) {
        Ok(()) => {
            ctx.cancel_heartbeat(group, &leaving.member_id);
            group.remove_member(&leaving.member_id, &mut ctx.effects.completions);
            ErrorCode::None
        }
        Err(error) => error,
    }
}

fn member_response(member: &MemberIdentity, error: ErrorCode) -> MemberResponse {
    MemberResponse {
        member_id: member.member_id.clone(),
        group_instance_id: member.group_instance_id.clone(),
        error_code: error.code(),
        ..MemberResponse::default()
    }
}

/// After loading: every member's session starts now, and a group over `group.max.size` (the
/// setting may have been lowered) rebalances.
pub(crate) fn on_loaded(group: &mut ClassicGroup, ctx: &mut Ctx<'_>) {
    let member_ids: Vec<String> = group.members().map(|m| m.member_id.clone()).collect();
    for member_id in &member_ids {
        ctx.reschedule_session(group, member_id);
    }
    let max = usize::try_from(ctx.config.max_size).unwrap_or(0);
    if group.member_count() > max && group.can_rebalance() {
        prepare_rebalance(group, ctx);
    }
}

/// A consumer group just became this classic group: every member's session starts now and the
/// group rebalances, so that members rejoin under the classic protocol.
pub(crate) fn on_downgraded(group: &mut ClassicGroup, ctx: &mut Ctx<'_>) {
    let member_ids: Vec<String> = group.members().map(|m| m.member_id.clone()).collect();
    for member_id in &member_ids {
        ctx.reschedule_session(group, member_id);
    }
    prepare_rebalance(group, ctx);
}

/// Keeps a member's session alive (an offset commit from it counts, in Stable and
/// PreparingRebalance).
pub(crate) fn touch_session(group: &ClassicGroup, ctx: &mut Ctx<'_>, member_id: &str) {
    ctx.reschedule_session(group, member_id);
}
