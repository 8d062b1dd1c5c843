//! A classic consumer group (the JoinGroup/SyncGroup protocol): its lifecycle, its members
//! ([`ClassicMember`]) and the state a `GroupMetadata` record stores. [`rebalance`] holds the
//! protocol's operations (JoinGroup, SyncGroup, Heartbeat, LeaveGroup and their timers), as Kafka's
//! `GroupMetadataManager` does.
//!
//! State that is durable (written as a `GroupMetadataValue` and rebuilt from one on load): protocol
//! type, generation, protocol, leader, and each member's ids, client, timeouts, subscription and
//! assignment. Everything else here is the soft state of a rebalance in progress (parked JoinGroup
//! and SyncGroup requests, pending members, the rebalance's timers), which a coordinator change
//! discards: clients rejoin. This is Kafka's own split (its classic group records are written with
//! `replayRecords = false`).
//!
//! Lifecycle ([`ClassicGroupState`]):
//!
//! ```text
//! Empty ──join──▶ PreparingRebalance ──all joined / timeout──▶ CompletingRebalance ──leader's sync──▶ Stable
//!   ▲                  ▲    │ no member left                      │                                   │
//!   └──────────────────┼────┘                                     │ member change                     │
//!                      └──────────────────────────────────────────┴───────────────────────────────────┘
//! Dead: unloaded or deleted, from any state.
//! ```

mod member;
pub mod rebalance;

pub use member::{ClassicMember, Protocol};

use std::collections::{BTreeMap, BTreeSet, HashMap};

use bytes::Bytes;
use strand_protocol::codec::Struct;
use strand_protocol::error::ErrorCode;
use strand_protocol::messages::consumer_protocol_subscription::ConsumerProtocolSubscription;
use strand_protocol::messages::group_metadata_value::MemberMetadata;
use strand_protocol::messages::join_group_request::JoinGroupRequestProtocol;
use strand_protocol::messages::join_group_response::JoinGroupResponseMember;
use strand_protocol::messages::{GroupMetadataValue, JoinGroupResponse, SyncGroupResponse};

use super::{Completion, PendingId};

/// The protocol type of Kafka's consumers (`ConsumerProtocol.PROTOCOL_TYPE`): the one whose
/// member metadata the coordinator decodes, to know the topics a group subscribes to.
pub const CONSUMER_PROTOCOL_TYPE: &str = "consumer";

/// A classic group's state. Each state lists the states it may be entered from
/// ([`ClassicGroupState::valid_previous`]); any other transition is a bug.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ClassicGroupState {
    /// No members; committed offsets may remain, and expire.
    Empty,
    /// Members are (re)joining; JoinGroup requests are parked until all have joined or the
    /// rebalance timeout passes.
    PreparingRebalance,
    /// The generation is chosen; waiting for the leader's SyncGroup with the assignment.
    CompletingRebalance,
    /// Every member has its assignment; members heartbeat.
    Stable,
    /// Unloaded or deleted: the group is being removed from this coordinator.
    Dead,
}

impl ClassicGroupState {
    pub const ALL: [ClassicGroupState; 5] = [
        ClassicGroupState::Empty,
        ClassicGroupState::PreparingRebalance,
        ClassicGroupState::CompletingRebalance,
        ClassicGroupState::Stable,
        ClassicGroupState::Dead,
    ];

    /// Kafka's name, as ListGroups and DescribeGroups report it.
    pub fn name(self) -> &'static str {
        match self {
            ClassicGroupState::Empty => "Empty",
            ClassicGroupState::PreparingRebalance => "PreparingRebalance",
            ClassicGroupState::CompletingRebalance => "CompletingRebalance",
            ClassicGroupState::Stable => "Stable",
            ClassicGroupState::Dead => "Dead",
        }
    }

    /// The states this one may be entered from (Kafka's `ClassicGroupState.validPreviousStates`).
    pub fn valid_previous(self) -> &'static [ClassicGroupState] {
        use ClassicGroupState::*;
        match self {
            Empty => &[PreparingRebalance],
            PreparingRebalance => &[Stable, CompletingRebalance, Empty],
            CompletingRebalance => &[PreparingRebalance],
            Stable => &[CompletingRebalance],
            Dead => &[Stable, PreparingRebalance, CompletingRebalance, Empty, Dead],
        }
    }

    pub fn can_transition_to(self, target: ClassicGroupState) -> bool {
        target.valid_previous().contains(&self)
    }
}

/// A classic group: its durable state, its members and the soft state of a rebalance.
#[derive(Debug, Clone)]
pub struct ClassicGroup {
    group_id: String,
    state: ClassicGroupState,
    previous_state: ClassicGroupState,
    /// When the group last changed state (ms), `None` if unknown (an old record).
    current_state_timestamp: Option<i64>,
    protocol_type: Option<String>,
    protocol_name: Option<String>,
    generation_id: i32,
    leader_id: Option<String>,
    /// By member id (ordered, so the leader picked after a leader leaves is deterministic).
    members: BTreeMap<String, ClassicMember>,
    /// Member id by group instance id.
    static_members: HashMap<String, String>,
    /// Members told MEMBER_ID_REQUIRED and expected back with their new id.
    pending_join_members: BTreeSet<String>,
    /// Members of the new generation that have not sent SyncGroup yet.
    pending_sync_members: BTreeSet<String>,
    /// The topics the members subscribe to, computed at each generation (consumer groups only).
    subscribed_topics: Option<BTreeSet<String>>,
    /// A member joined during the initial rebalance's delay, which extends it.
    new_member_added: bool,
    /// What the group's `Join` timer does when it fires.
    join_timer: JoinTimer,
}

/// What a classic group's join-phase timer does when it fires.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum JoinTimer {
    /// Complete the join phase (rebalance timeout).
    CompleteJoin,
    /// The initial rebalance's delay (`group.initial.rebalance.delay.ms`): complete, or extend by
    /// `delay_ms` if members joined meanwhile and `remaining_ms` of the rebalance timeout is left.
    InitialDelay { delay_ms: i32, remaining_ms: i32 },
}

impl ClassicGroup {
    /// A new group with no members, in `state` since `now_ms`.
    pub fn new(group_id: String, state: ClassicGroupState, now_ms: Option<i64>) -> Self {
        ClassicGroup {
            group_id,
            state,
            previous_state: ClassicGroupState::Dead,
            current_state_timestamp: now_ms,
            protocol_type: None,
            protocol_name: None,
            generation_id: 0,
            leader_id: None,
            members: BTreeMap::new(),
            static_members: HashMap::new(),
            pending_join_members: BTreeSet::new(),
            pending_sync_members: BTreeSet::new(),
            subscribed_topics: None,
            new_member_added: false,
            join_timer: JoinTimer::CompleteJoin,
        }
    }

    /// The group a `GroupMetadataValue` describes, as loading rebuilds it: Stable with its members
    /// (each supporting only the group's protocol), or Empty without.
    pub fn from_record(group_id: &str, value: &GroupMetadataValue) -> Self {
        let state = if value.members.is_empty() { ClassicGroupState::Empty } else { ClassicGroupState::Stable };
        let mut group = ClassicGroup::new(group_id.to_owned(), state, None);
        group.generation_id = value.generation;
        group.protocol_type = Some(value.protocol_type.clone()).filter(|t| !t.is_empty());
        group.protocol_name = value.protocol.clone();
        group.leader_id = value.leader.clone();
        group.current_state_timestamp = (value.current_state_timestamp != -1).then_some(value.current_state_timestamp);
        for stored in &value.members {
            let rebalance_timeout_ms =
                if stored.rebalance_timeout == -1 { stored.session_timeout } else { stored.rebalance_timeout };
            let protocols = vec![Protocol {
                name: value.protocol.clone().unwrap_or_default(),
                metadata: stored.subscription.clone(),
            }];
            let mut member = ClassicMember::new(
                stored.member_id.clone(),
                stored.group_instance_id.clone(),
                stored.client_id.clone(),
                stored.client_host.clone(),
                rebalance_timeout_ms,
                stored.session_timeout,
                value.protocol_type.clone(),
                protocols,
            );
            member.assignment = stored.assignment.clone();
            if let Some(instance) = &member.group_instance_id {
                group.static_members.insert(instance.clone(), member.member_id.clone());
            }
            group.members.insert(member.member_id.clone(), member);
        }
        group.subscribed_topics = group.compute_subscribed_topics();
        group
    }

    /// The group as a `GroupMetadataValue` (Kafka's `newGroupMetadataRecord`): every member with
    /// its metadata for the group's protocol and its assignment.
    pub fn to_record_value(&self) -> GroupMetadataValue {
        let protocol = self.protocol_name.clone();
        let members = self
            .members
            .values()
            .map(|member| MemberMetadata {
                member_id: member.member_id.clone(),
                group_instance_id: member.group_instance_id.clone(),
                client_id: member.client_id.clone(),
                client_host: member.client_host.clone(),
                rebalance_timeout: member.rebalance_timeout_ms,
                session_timeout: member.session_timeout_ms,
                subscription: protocol.as_deref().and_then(|p| member.metadata(p)).cloned().unwrap_or_default(),
                assignment: member.assignment.clone(),
                ..MemberMetadata::default()
            })
            .collect();
        GroupMetadataValue {
            protocol_type: self.protocol_type.clone().unwrap_or_default(),
            generation: self.generation_id,
            protocol,
            leader: self.leader_id.clone(),
            current_state_timestamp: self.current_state_timestamp.unwrap_or(-1),
            members,
            ..GroupMetadataValue::default()
        }
    }

    /// The bytes of member metadata and assignments the group's record would hold: a lower bound
    /// of its size, known without encoding it.
    pub fn stored_member_bytes(&self) -> usize {
        let protocol = self.protocol_name.as_deref();
        self.members
            .values()
            .map(|m| protocol.and_then(|p| m.metadata(p)).map_or(0, Bytes::len).saturating_add(m.assignment.len()))
            .fold(0, usize::saturating_add)
    }

    /// The record Kafka writes when a JoinGroup creates a group (`newEmptyGroupMetadataRecord`):
    /// generation 0, no protocol type, protocol, leader or members.
    pub fn empty_record_value(&self) -> GroupMetadataValue {
        GroupMetadataValue {
            protocol_type: String::new(),
            generation: 0,
            protocol: None,
            leader: None,
            current_state_timestamp: self.current_state_timestamp.unwrap_or(-1),
            members: Vec::new(),
            ..GroupMetadataValue::default()
        }
    }

    pub fn group_id(&self) -> &str {
        &self.group_id
    }

    pub fn state(&self) -> ClassicGroupState {
        self.state
    }

    pub fn previous_state(&self) -> ClassicGroupState {
        self.previous_state
    }

    pub fn is_in(&self, state: ClassicGroupState) -> bool {
        self.state == state
    }

    pub fn generation_id(&self) -> i32 {
        self.generation_id
    }

    pub fn protocol_type(&self) -> Option<&str> {
        self.protocol_type.as_deref()
    }

    pub fn protocol_name(&self) -> Option<&str> {
        self.protocol_name.as_deref()
    }

    pub fn leader_id(&self) -> Option<&str> {
        self.leader_id.as_deref()
    }

    pub fn current_state_timestamp(&self) -> Option<i64> {
        self.current_state_timestamp
    }

    pub fn members(&self) -> impl Iterator<Item = &ClassicMember> {
        self.members.values()
    }

    pub fn member(&self, member_id: &str) -> Option<&ClassicMember> {
        self.members.get(member_id)
    }

    pub fn has_member(&self, member_id: &str) -> bool {
        self.members.contains_key(member_id)
    }

    pub fn member_count(&self) -> usize {
        self.members.len()
    }

    pub fn is_leader(&self, member_id: &str) -> bool {
        self.leader_id.as_deref() == Some(member_id)
    }

    pub fn is_pending_member(&self, member_id: &str) -> bool {
        self.pending_join_members.contains(member_id)
    }

    pub fn pending_member_count(&self) -> usize {
        self.pending_join_members.len()
    }

    pub fn static_member_id(&self, group_instance_id: &str) -> Option<&str> {
        self.static_members.get(group_instance_id).map(String::as_str)
    }

    pub fn subscribed_topics(&self) -> Option<&BTreeSet<String>> {
        self.subscribed_topics.as_ref()
    }

    /// A group created by offset commits alone (no protocol type, no members).
    pub fn is_simple(&self) -> bool {
        self.protocol_type.is_none() && self.is_in(ClassicGroupState::Empty) && self.pending_join_members.is_empty()
    }

    pub fn uses_consumer_protocol(&self) -> bool {
        self.protocol_type.as_deref() == Some(CONSUMER_PROTOCOL_TYPE)
    }

    /// Moves to `target`, stamping the time. Panics on a transition the lifecycle forbids: that is
    /// a bug in the coordinator, not something a request can cause.
    pub fn transition_to(&mut self, target: ClassicGroupState, now_ms: i64) {
        assert!(
            self.state.can_transition_to(target),
            "group {} cannot go from {} to {}",
            self.group_id,
            self.state.name(),
            target.name()
        );
        self.previous_state = self.state;
        self.state = target;
        self.current_state_timestamp = Some(now_ms);
    }

    /// Whether a rebalance can start from the current state.
    pub fn can_rebalance(&self) -> bool {
        self.state.can_transition_to(ClassicGroupState::PreparingRebalance)
    }

    /// Checks a request's member id and group instance id (Kafka's `validateMember`).
    pub fn validate_member(&self, member_id: &str, group_instance_id: Option<&str>) -> Result<(), ErrorCode> {
        if let Some(instance) = group_instance_id {
            match self.static_member_id(instance) {
                None => return Err(ErrorCode::UnknownMemberId),
                Some(existing) if existing != member_id => return Err(ErrorCode::FencedInstanceId),
                Some(_) => {}
            }
        }
        if !self.has_member(member_id) {
            return Err(ErrorCode::UnknownMemberId);
        }
        Ok(())
    }

    /// Whether a member of `protocol_type` offering `protocols` can join: any type and protocol
    /// while the group is Empty; otherwise the same type and at least one protocol every member
    /// supports.
    pub fn supports_protocols(&self, protocol_type: &str, protocols: &[JoinGroupRequestProtocol]) -> bool {
        if self.is_in(ClassicGroupState::Empty) {
            return !protocol_type.is_empty() && !protocols.is_empty();
        }
        self.protocol_type.as_deref() == Some(protocol_type)
            && protocols.iter().any(|p| self.members.values().all(|m| m.supports(&p.name)))
    }

    /// The protocol the members vote for: each votes for its most preferred protocol that every
    /// member supports; the most votes win (ties go to the protocol first in the leader's list,
    /// a deterministic choice where Kafka's depends on hash order). `None` without members.
    pub fn select_protocol(&self) -> Option<String> {
        let first = self.members.values().next()?;
        let candidates: BTreeSet<&str> = first
            .protocols
            .iter()
            .map(|p| p.name.as_str())
            .filter(|name| self.members.values().all(|m| m.supports(name)))
            .collect();
        let mut votes: BTreeMap<&str, usize> = BTreeMap::new();
        for member in self.members.values() {
            if let Some(choice) = member.vote(&candidates) {
                *votes.entry(choice).or_default() += 1;
            }
        }
        let most = votes.values().copied().max()?;
        let leader = self.leader_id.as_deref().and_then(|id| self.members.get(id)).unwrap_or(first);
        leader
            .protocols
            .iter()
            .map(|p| p.name.as_str())
            .find(|name| votes.get(name) == Some(&most))
            .or_else(|| votes.iter().find(|(_, n)| **n == most).map(|(name, _)| *name))
            .map(str::to_owned)
    }

    /// The longest rebalance timeout among the members.
    pub fn rebalance_timeout_ms(&self) -> i32 {
        self.members.values().map(|m| m.rebalance_timeout_ms).max().unwrap_or(0)
    }

    pub fn awaiting_join_count(&self) -> usize {
        self.members.values().filter(|m| m.is_awaiting_join()).count()
    }

    /// Every member has rejoined and no member is still expected back with its new id.
    pub fn has_all_members_joined(&self) -> bool {
        self.members.values().all(ClassicMember::is_awaiting_join) && self.pending_join_members.is_empty()
    }

    pub fn has_received_sync_from_all_members(&self) -> bool {
        self.pending_sync_members.is_empty()
    }

    pub fn pending_sync_members(&self) -> impl Iterator<Item = &String> {
        self.pending_sync_members.iter()
    }

    pub(crate) fn join_timer(&self) -> JoinTimer {
        self.join_timer
    }

    pub(crate) fn set_join_timer(&mut self, timer: JoinTimer) {
        self.join_timer = timer;
    }

    pub(crate) fn new_member_added(&self) -> bool {
        self.new_member_added
    }

    pub(crate) fn set_new_member_added(&mut self, added: bool) {
        self.new_member_added = added;
    }

    /// Adds a member (its JoinGroup parked as `awaiting_join`). The first member sets the group's
    /// protocol type and becomes leader if there is none.
    pub(crate) fn add_member(&mut self, mut member: ClassicMember, awaiting_join: Option<PendingId>) {
        if let Some(instance) = &member.group_instance_id {
            let previous = self.static_members.insert(instance.clone(), member.member_id.clone());
            assert!(previous.is_none(), "static member {instance} added twice to group {}", self.group_id);
        }
        if self.members.is_empty() {
            self.protocol_type = Some(member.protocol_type.clone());
        }
        if self.leader_id.is_none() {
            self.leader_id = Some(member.member_id.clone());
        }
        member.awaiting_join = awaiting_join;
        self.pending_join_members.remove(&member.member_id);
        self.members.insert(member.member_id.clone(), member);
    }

    /// Removes a member (or a pending member). Any request it had parked is answered
    /// UNKNOWN_MEMBER_ID, so that none is left waiting. A leaving leader is replaced by the first
    /// remaining member.
    pub(crate) fn remove_member(&mut self, member_id: &str, completions: &mut Vec<Completion>) {
        if let Some(mut removed) = self.members.remove(member_id) {
            if let Some(instance) = &removed.group_instance_id {
                self.static_members.remove(instance);
            }
            if let Some(id) = removed.awaiting_join.take() {
                completions.push(Completion::Join(id, join_error(ErrorCode::UnknownMemberId, "")));
            }
            if let Some(id) = removed.awaiting_sync.take() {
                completions.push(Completion::Sync(id, sync_error(ErrorCode::UnknownMemberId)));
            }
        }
        if self.is_leader(member_id) {
            self.leader_id = self.members.keys().next().cloned();
        }
        self.pending_join_members.remove(member_id);
        self.pending_sync_members.remove(member_id);
    }

    /// Answers every parked JoinGroup and SyncGroup with `error`: the group is about to become a
    /// consumer group, and its members must rejoin it.
    pub(crate) fn complete_all_parked(&mut self, error: ErrorCode, completions: &mut Vec<Completion>) {
        for member in self.members.values_mut() {
            if let Some(id) = member.awaiting_join.take() {
                completions.push(Completion::Join(id, join_error(error, &member.member_id)));
            }
            if let Some(id) = member.awaiting_sync.take() {
                completions.push(Completion::Sync(id, sync_error(error)));
            }
        }
    }

    /// Members told MEMBER_ID_REQUIRED and not back yet.
    pub(crate) fn pending_members(&self) -> impl Iterator<Item = &String> {
        self.pending_join_members.iter()
    }

    /// The classic group a consumer group becomes when its last consumer-protocol members leave
    /// (Kafka's `ClassicGroup.fromConsumerGroup`): Stable at generation `generation` (the group
    /// epoch), the first member leading, the protocol the members vote for. Assignments are left
    /// for the caller to set.
    pub(crate) fn downgraded(group_id: &str, generation: i32, now_ms: i64, members: Vec<ClassicMember>) -> Self {
        let mut group = ClassicGroup::new(group_id.to_owned(), ClassicGroupState::Stable, Some(now_ms));
        group.generation_id = generation;
        for member in members {
            group.add_member(member, None);
        }
        group.protocol_name = group.select_protocol();
        group.subscribed_topics = group.compute_subscribed_topics();
        group
    }

    pub(crate) fn add_pending_member(&mut self, member_id: String) {
        assert!(!self.has_member(member_id.as_str()), "pending member {member_id} is already a member");
        self.pending_join_members.insert(member_id);
    }

    pub(crate) fn set_pending_sync_members(&mut self) {
        self.pending_sync_members = self.members.keys().cloned().collect();
    }

    pub(crate) fn remove_pending_sync_member(&mut self, member_id: &str) {
        self.pending_sync_members.remove(member_id);
    }

    pub(crate) fn clear_pending_sync_members(&mut self) {
        self.pending_sync_members.clear();
    }

    /// Updates a rejoining member's protocols and timeouts and parks its JoinGroup (`None`: not
    /// parked). A JoinGroup it had parked already is answered REBALANCE_IN_PROGRESS: the client
    /// has given up on it.
    pub(crate) fn update_member(
        &mut self,
        member_id: &str,
        protocols: Vec<Protocol>,
        rebalance_timeout_ms: i32,
        session_timeout_ms: i32,
        awaiting_join: Option<PendingId>,
        completions: &mut Vec<Completion>,
    ) {
        let Some(member) = self.members.get_mut(member_id) else {
            return;
        };
        member.protocols = protocols;
        member.rebalance_timeout_ms = rebalance_timeout_ms;
        member.session_timeout_ms = session_timeout_ms;
        if let Some(previous) = std::mem::replace(&mut member.awaiting_join, awaiting_join)
            && Some(previous) != awaiting_join
        {
            completions.push(Completion::Join(previous, join_error(ErrorCode::RebalanceInProgress, member_id)));
        }
    }

    pub(crate) fn set_new(&mut self, member_id: &str, is_new: bool) {
        if let Some(member) = self.members.get_mut(member_id) {
            member.is_new = is_new;
        }
    }

    /// Parks a member's SyncGroup; one it had parked already is answered REBALANCE_IN_PROGRESS.
    pub(crate) fn park_sync(&mut self, member_id: &str, id: PendingId, completions: &mut Vec<Completion>) {
        if let Some(member) = self.members.get_mut(member_id)
            && let Some(previous) = member.awaiting_sync.replace(id)
        {
            completions.push(Completion::Sync(previous, sync_error(ErrorCode::RebalanceInProgress)));
        }
    }

    /// Answers the member's parked JoinGroup with `response`; false if none was parked.
    pub(crate) fn complete_join(
        &mut self,
        member_id: &str,
        response: JoinGroupResponse,
        completions: &mut Vec<Completion>,
    ) -> bool {
        match self.members.get_mut(member_id).and_then(|m| m.awaiting_join.take()) {
            Some(id) => {
                completions.push(Completion::Join(id, response));
                true
            }
            None => false,
        }
    }

    /// Answers the member's parked SyncGroup with `response`; false if none was parked.
    pub(crate) fn complete_sync(
        &mut self,
        member_id: &str,
        response: SyncGroupResponse,
        completions: &mut Vec<Completion>,
    ) -> bool {
        match self.members.get_mut(member_id).and_then(|m| m.awaiting_sync.take()) {
            Some(id) => {
                completions.push(Completion::Sync(id, response));
                true
            }
            None => false,
        }
    }

    /// Replaces a static member's id (KIP-345: the same instance came back with no member id).
    /// The old id's parked requests are answered FENCED_INSTANCE_ID.
    pub(crate) fn replace_static_member(
        &mut self,
        group_instance_id: &str,
        old_member_id: &str,
        new_member_id: &str,
        completions: &mut Vec<Completion>,
    ) {
        let Some(mut old) = self.members.remove(old_member_id) else {
            panic!("cannot replace member {old_member_id} of group {}: it is not a member", self.group_id);
        };
        if let Some(id) = old.awaiting_join.take() {
            let response = JoinGroupResponse {
                member_id: old_member_id.to_owned(),
                protocol_name: None,
                protocol_type: None,
                error_code: ErrorCode::FencedInstanceId.code(),
                ..JoinGroupResponse::default()
            };
            completions.push(Completion::Join(id, response));
        }
        if let Some(id) = old.awaiting_sync.take() {
            completions.push(Completion::Sync(id, sync_error(ErrorCode::FencedInstanceId)));
        }
        old.member_id = new_member_id.to_owned();
        old.is_new = false;
        self.members.insert(new_member_id.to_owned(), old);
        if self.is_leader(old_member_id) {
            self.leader_id = Some(new_member_id.to_owned());
        }
        self.static_members.insert(group_instance_id.to_owned(), new_member_id.to_owned());
        self.pending_sync_members.remove(old_member_id);
    }

    pub(crate) fn members_mut(&mut self) -> impl Iterator<Item = &mut ClassicMember> {
        self.members.values_mut()
    }

    /// If the leader has not rejoined, makes the first member that has the leader. False when
    /// no member has rejoined (the join phase cannot complete).
    pub(crate) fn maybe_elect_new_joined_leader(&mut self) -> bool {
        let Some(leader) = self.leader_id.as_deref().and_then(|id| self.members.get(id)) else {
            return false;
        };
        if leader.is_awaiting_join() {
            return true;
        }
        match self.members.values().find(|m| m.is_awaiting_join()) {
            Some(member) => {
                self.leader_id = Some(member.member_id.clone());
                true
            }
            None => false,
        }
    }

    /// Starts the next generation: the protocol is chosen and the group moves to
    /// CompletingRebalance, or, without members, to Empty with no protocol.
    pub(crate) fn init_next_generation(&mut self, now_ms: i64) {
        self.generation_id += 1;
        if self.members.is_empty() {
            self.protocol_name = None;
            self.subscribed_topics = self.compute_subscribed_topics();
            self.transition_to(ClassicGroupState::Empty, now_ms);
        } else {
            self.protocol_name = self.select_protocol();
            self.subscribed_topics = self.compute_subscribed_topics();
            self.transition_to(ClassicGroupState::CompletingRebalance, now_ms);
        }
        self.pending_sync_members.clear();
    }

    /// The members as the leader's JoinGroup response lists them, with their metadata for the
    /// chosen protocol.
    pub fn members_for_leader(&self) -> Vec<JoinGroupResponseMember> {
        let protocol = self.protocol_name.as_deref().unwrap_or_default();
        self.members
            .values()
            .map(|m| JoinGroupResponseMember {
                member_id: m.member_id.clone(),
                group_instance_id: m.group_instance_id.clone(),
                metadata: m.metadata(protocol).cloned().unwrap_or_default(),
                ..JoinGroupResponseMember::default()
            })
            .collect()
    }

    /// Whether an OffsetDelete or an expiry must spare `topic`: a consumer group's members
    /// subscribe to it (unknown subscriptions count as subscribed for a consumer group).
    pub fn is_subscribed_to_topic(&self, topic: &str) -> bool {
        match &self.subscribed_topics {
            Some(topics) => topics.contains(topic),
            None => self.uses_consumer_protocol(),
        }
    }

    /// The topics a consumer group's members subscribe to, from their embedded consumer protocol
    /// subscriptions; `None` if the group is not a consumer group or a subscription is unreadable.
    fn compute_subscribed_topics(&self) -> Option<BTreeSet<String>> {
        if !self.uses_consumer_protocol() {
            return None;
        }
        let protocol = self.protocol_name.as_deref();
        let mut topics = BTreeSet::new();
        for member in self.members.values() {
            let metadata = member.metadata(protocol?)?;
            topics.extend(decode_subscription_topics(metadata)?);
        }
        Some(topics)
    }
}

/// The topics of an embedded consumer protocol subscription (a 2-byte version, then the
/// subscription struct), read at version 0 as Kafka does, so newer versions' extra fields are
/// simply not read.
pub fn decode_subscription_topics(metadata: &Bytes) -> Option<Vec<String>> {
    let mut d = super::consumer_protocol::bounded(metadata.clone());
    let _version = d.i16().ok()?;
    ConsumerProtocolSubscription::decode(&mut d, 0).ok().map(|s| s.topics)
}

/// A JoinGroup answer carrying only an error (and the member id, as Kafka echoes it).
pub fn join_error(error: ErrorCode, member_id: &str) -> JoinGroupResponse {
    JoinGroupResponse { error_code: error.code(), member_id: member_id.to_owned(), ..JoinGroupResponse::default() }
}

/// A SyncGroup answer carrying only an error.
pub fn sync_error(error: ErrorCode) -> SyncGroupResponse {
    SyncGroupResponse { error_code: error.code(), ..SyncGroupResponse::default() }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every transition of the lifecycle, allowed exactly as Kafka's ClassicGroupState allows it.
    #[test]
    fn lifecycle_transitions_are_kafkas() {
        use ClassicGroupState::*;
        let allowed = [
            (Empty, PreparingRebalance),
            (Empty, Dead),
            (PreparingRebalance, Empty),
            (PreparingRebalance, CompletingRebalance),
            (PreparingRebalance, Dead),
            (CompletingRebalance, Stable),
            (CompletingRebalance, PreparingRebalance),
            (CompletingRebalance, Dead),
            (Stable, PreparingRebalance),
            (Stable, Dead),
            (Dead, Dead),
        ];
        for from in ClassicGroupState::ALL {
            for to in ClassicGroupState::ALL {
                let expected = allowed.contains(&(from, to));
                assert_eq!(from.can_transition_to(to), expected, "{} -> {}", from.name(), to.name());
            }
        }
    }

    fn member(id: &str, protocols: &[&str]) -> ClassicMember {
        let protocols = protocols.iter().map(|p| Protocol { name: (*p).to_owned(), metadata: Bytes::new() }).collect();
        ClassicMember::new(id.into(), None, "c".into(), "/h".into(), 1000, 1000, "consumer".into(), protocols)
    }

    /// The protocol every member supports that most members prefer wins.
    #[test]
    fn protocol_selection_is_a_vote_over_common_protocols() {
        let mut group = ClassicGroup::new("g".into(), ClassicGroupState::Empty, Some(0));
        group.add_member(member("a", &["range", "roundrobin", "sticky"]), None);
        group.add_member(member("b", &["sticky", "range"]), None);
        group.add_member(member("c", &["sticky", "roundrobin", "range"]), None);
        // Common: range, sticky. Votes: a -> range, b -> sticky, c -> sticky.
        assert_eq!(group.select_protocol().as_deref(), Some("sticky"));
    }
}
