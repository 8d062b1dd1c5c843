//! ConsumerGroupHeartbeat (joining, heartbeating, leaving) and ConsumerGroupDescribe, following
//! Kafka's `GroupMetadataManager`. Every step writes records that the shard replays at once;
//! nothing else changes the group.
//!
//! A heartbeat, in Kafka's order:
//! 1. the request's shape is checked (INVALID_REQUEST, UNSUPPORTED_ASSIGNOR,
//!    INVALID_REGULAR_EXPRESSION); epochs -1 and -2 leave;
//! 2. the group is found or created (an empty classic group is replaced; a classic group with
//!    members is upgraded if `group.consumer.migration.policy` allows it, see
//!    [`crate::group::migration`], else GROUP_ID_NOT_FOUND), the member found or created
//!    (GROUP_MAX_SIZE_REACHED, UNKNOWN_MEMBER_ID, FENCED_MEMBER_EPOCH, UNRELEASED_INSTANCE_ID,
//!    FENCED_INSTANCE_ID);
//! 3. the member's subscription is written if it changed, regular expressions are resolved, and
//!    the group epoch is bumped if the subscriptions, the preferred assignor or the subscribed
//!    topics' metadata hash changed;
//! 4. a group epoch ahead of the assignment epoch computes a new target assignment;
//! 5. the member is reconciled toward its target, and its session restarts.

use std::collections::{BTreeMap, BTreeSet};

use regex::Regex;
use strand_base::Uuid;
use strand_protocol::error::ErrorCode;
use strand_protocol::messages::consumer_group_describe_response::{
    Assignment as DescribedAssignment, DescribedGroup, Member as DescribedMember,
    TopicPartitions as DescribedTopicPartitions,
};
use strand_protocol::messages::consumer_group_heartbeat_request::TopicPartitions as OwnedPartitions;
use strand_protocol::messages::consumer_group_heartbeat_response::{
    Assignment as ResponseAssignment, TopicPartitions as ResponseTopicPartitions,
};
use strand_protocol::messages::{ConsumerGroupHeartbeatRequest, ConsumerGroupHeartbeatResponse};

use super::assignor::{Assignor, GroupSpec, MemberSpec};
use super::fence::rebalance_key;
use super::reconcile::{self, Reconcile};
use super::{
    Assignment, ConsumerGroup, ConsumerMember, LEAVE_GROUP_MEMBER_EPOCH, LEAVE_GROUP_STATIC_MEMBER_EPOCH, MemberState,
    ResolvedRegex,
};
use crate::group::classic::ClassicGroupState;
use crate::group::metadata::TopicMetadata;
use crate::group::records::CoordinatorRecord;
use crate::group::{ClientInfo, Effects, Group, GroupShard, Output};

/// Kafka's `REGEX_BATCH_REFRESH_MIN_INTERVAL_MS`: regular expressions are resolved again at most
/// this often when new topics appear.
pub const REGEX_REFRESH_MIN_INTERVAL_MS: i64 = 10_000;

/// A heartbeat's failure: the error and Kafka's message for it.
type Failure = (ErrorCode, String);

/// The consumer group a heartbeat finds (`None`: a new one), and, when it upgrades a classic
/// group, the records that convert it.
type PreparedGroup = (Option<ConsumerGroup>, Option<Vec<CoordinatorRecord>>);

fn fail<T>(error: ErrorCode, message: impl Into<String>) -> Result<T, Failure> {
    Err((error, message.into()))
}

/// A heartbeat answer carrying only an error.
pub fn heartbeat_error(error: ErrorCode, message: Option<String>) -> ConsumerGroupHeartbeatResponse {
    ConsumerGroupHeartbeatResponse {
        error_code: error.code(),
        error_message: message,
        ..ConsumerGroupHeartbeatResponse::default()
    }
}

/// Checks what needs no group state (Kafka's `throwIfConsumerGroupHeartbeatRequestIsInvalid`).
pub fn validate_request(
    request: &ConsumerGroupHeartbeatRequest,
    version: i16,
    assignors: &[String],
) -> Result<(), Failure> {
    let epoch = request.member_epoch;
    if (version >= 1 || epoch > 0 || epoch == LEAVE_GROUP_MEMBER_EPOCH) && request.member_id.is_empty() {
        return fail(ErrorCode::InvalidRequest, "MemberId can't be empty.");
    }
    if request.group_id.trim().is_empty() {
        return fail(ErrorCode::InvalidRequest, "GroupId can't be empty.");
    }
    if request.instance_id.as_deref().is_some_and(|i| i.trim().is_empty()) {
        return fail(ErrorCode::InvalidRequest, "InstanceId can't be empty.");
    }
    if request.rack_id.as_deref().is_some_and(|r| r.trim().is_empty()) {
        return fail(ErrorCode::InvalidRequest, "RackId can't be empty.");
    }
    if epoch == 0 {
        if request.rebalance_timeout_ms == -1 {
            return fail(ErrorCode::InvalidRequest, "RebalanceTimeoutMs must be provided in first request.");
        }
        if request.topic_partitions.as_ref().is_none_or(|p| !p.is_empty()) {
            return fail(ErrorCode::InvalidRequest, "TopicPartitions must be empty when (re-)joining.");
        }
        if request.subscribed_topic_names.is_none() && request.subscribed_topic_regex.is_none() {
            return fail(
                ErrorCode::InvalidRequest,
                "Either SubscribedTopicNames or SubscribedTopicRegex must be non-null when (re-)joining.",
            );
        }
    } else if epoch == LEAVE_GROUP_STATIC_MEMBER_EPOCH {
        if request.instance_id.is_none() {
            return fail(ErrorCode::InvalidRequest, "InstanceId can't be null.");
        }
    } else if epoch < LEAVE_GROUP_STATIC_MEMBER_EPOCH {
        return fail(ErrorCode::InvalidRequest, "MemberEpoch is invalid.");
    }
    if let Some(assignor) = &request.server_assignor
        && !assignors.iter().any(|a| a == assignor)
    {
        return fail(
            ErrorCode::UnsupportedAssignor,
            format!("ServerAssignor {assignor} is not supported. Supported assignors: {}.", assignors.join(", ")),
        );
    }
    Ok(())
}

/// Compiles a subscription regex with RE2J's full-match semantics.
pub fn compile_regex(regex: &str) -> Result<Regex, Failure> {
    Regex::new(&format!("^(?:{regex})$")).map_err(|e| {
        (
            ErrorCode::InvalidRegularExpression,
            format!("SubscribedTopicRegex `{regex}` is not a valid regular expression: {e}."),
        )
    })
}

/// One heartbeat, with what it comes with.
struct Beat<'a> {
    now: i64,
    client: &'a ClientInfo,
    request: &'a ConsumerGroupHeartbeatRequest,
    member_id: String,
}

impl GroupShard {
    /// ConsumerGroupHeartbeat. `new_member_id` is used when a v0 request has no member id (v1
    /// clients choose their own, KIP-1082).
    pub fn consumer_group_heartbeat(
        &mut self,
        now_ms: i64,
        client: &ClientInfo,
        request: &ConsumerGroupHeartbeatRequest,
        version: i16,
        new_member_id: &str,
    ) -> Output<ConsumerGroupHeartbeatResponse> {
        let mut effects = Effects::default();
        let member_id = if request.member_id.is_empty() { new_member_id.to_owned() } else { request.member_id.clone() };
        let beat = Beat { now: now_ms, client, request, member_id };
        let result = match validate_request(request, version, &self.config.consumer_assignors) {
            Err(failure) => Err(failure),
            Ok(()) if request.member_epoch < 0 => self.consumer_leave(&beat, &mut effects),
            Ok(()) => self.consumer_heartbeat(&beat, &mut effects),
        };
        let response = result.unwrap_or_else(|(error, message)| heartbeat_error(error, Some(message)));
        Output::new(effects, response)
    }

    /// ConsumerGroupDescribe for groups of this shard; a group that is not a consumer group (or
    /// does not exist) gets GROUP_ID_NOT_FOUND.
    pub fn consumer_group_describe(&self, group_ids: &[String]) -> Vec<DescribedGroup> {
        group_ids
            .iter()
            .map(|group_id| match self.groups.get(group_id) {
                Some(Group::Consumer(group)) => describe(group, self.default_assignor(), &self.metadata),
                Some(Group::Classic(_) | Group::Streams(_)) => DescribedGroup {
                    group_id: group_id.clone(),
                    error_code: ErrorCode::GroupIdNotFound.code(),
                    error_message: Some(format!("Group {group_id} is not a consumer group.")),
                    ..DescribedGroup::default()
                },
                None => DescribedGroup {
                    group_id: group_id.clone(),
                    error_code: ErrorCode::GroupIdNotFound.code(),
                    error_message: Some(format!("Group {group_id} not found.")),
                    ..DescribedGroup::default()
                },
            })
            .collect()
    }

    /// The assignor used when no member asks for one: the first of `group.consumer.assignors`.
    pub(crate) fn default_assignor(&self) -> &str {
        self.config.consumer_assignors.first().map_or("uniform", String::as_str)
    }

    fn consumer_heartbeat(
        &mut self,
        beat: &Beat<'_>,
        effects: &mut Effects,
    ) -> Result<ConsumerGroupHeartbeatResponse, Failure> {
        let request = beat.request;
        let group_id = request.group_id.as_str();
        let joining = request.member_epoch == 0;
        let (existing, upgrade) = self.prepare_group(group_id, joining, beat.now)?;
        let previous = self.prepare_member(existing.as_ref(), beat)?;
        if let Some(regex) = request.subscribed_topic_regex.as_deref().filter(|r| !r.is_empty()) {
            compile_regex(regex)?;
        }
        // Validated: from here on the heartbeat only writes (and replays) records.
        if let Some(records) = upgrade {
            self.upgrade_to_consumer(group_id, records, beat.now, effects);
        } else if existing.is_none() {
            if let Some(Group::Classic(_)) = self.groups.get(group_id) {
                // An empty classic group gives way to the consumer group (Kafka writes its tombstone).
                self.apply(effects, CoordinatorRecord::group_metadata_tombstone(group_id));
            }
            self.groups.insert(group_id.to_owned(), Group::Consumer(ConsumerGroup::new(group_id)));
        }
        let (member, replaced) = previous;
        if let Some(old) = &replaced {
            self.replace_static_member(group_id, old, &member, effects);
        }
        let updated = updated_member(&member, beat);
        let assignor_before = self.consumer_group(group_id).and_then(ConsumerGroup::preferred_server_assignor);
        let subscription_changed = self.write_member(group_id, &member, &updated, effects);
        let assignor_after = self.consumer_group(group_id).and_then(ConsumerGroup::preferred_server_assignor);
        let assignor_changed = assignor_before != assignor_after;
        let regexes_changed = self.refresh_regexes(group_id, beat, effects);
        self.maybe_bump_group_epoch(group_id, subscription_changed || assignor_changed || regexes_changed, effects);
        self.maybe_update_target(group_id, beat.now, effects);
        let owned = request.topic_partitions.as_deref();
        let reconciled =
            self.reconcile_member(group_id, &updated.member_id, beat.now, owned, subscription_changed, effects);
        let reconciled = reconciled.map_err(|_| {
            (
                ErrorCode::FencedMemberEpoch,
                "The consumer group member is in a unknown state. The member must abandon all its partitions and rejoin."
                    .to_owned(),
            )
        })?;
        self.schedule_session(group_id, &updated.member_id, beat.now);
        let full = joining
            || (request.rebalance_timeout_ms != -1
                && (request.subscribed_topic_names.is_some() || request.subscribed_topic_regex.is_some())
                && request.topic_partitions.is_some());
        let assignment_changed = reconciled.assigned_partitions() != member.assigned_partitions();
        Ok(ConsumerGroupHeartbeatResponse {
            member_id: Some(reconciled.member_id.clone()),
            member_epoch: reconciled.member_epoch,
            heartbeat_interval_ms: self.config.consumer_heartbeat_interval_ms,
            assignment: (full || assignment_changed).then(|| response_assignment(&reconciled.assigned_partitions())),
            ..ConsumerGroupHeartbeatResponse::default()
        })
    }

    /// The consumer group `group_id` as it stands (`None`: a new one, replacing nothing or an
    /// empty classic group). A classic group with members that may be upgraded comes as the
    /// consumer group it becomes, with the records that convert it.
    fn prepare_group(&self, group_id: &str, joining: bool, now: i64) -> Result<PreparedGroup, Failure> {
        match self.groups.get(group_id) {
            Some(Group::Consumer(group)) => Ok((Some(group.clone()), None)),
            None if joining => Ok((None, None)),
            None => fail(ErrorCode::GroupIdNotFound, format!("Consumer group {group_id} not found.")),
            Some(Group::Classic(classic)) if joining && classic.is_in(ClassicGroupState::Empty) => Ok((None, None)),
            Some(Group::Classic(classic)) if joining => {
                let records = self.upgrade_records(classic, now)?;
                let mut converted = ConsumerGroup::new(group_id);
                for record in &records {
                    converted.replay(&record.key, record.value.as_ref().map(|(_, value)| value));
                }
                Ok((Some(converted), Some(records)))
            }
            Some(Group::Classic(_) | Group::Streams(_)) => {
                fail(ErrorCode::GroupIdNotFound, format!("Group {group_id} is not a consumer group."))
            }
        }
    }

    /// The member before this heartbeat (a fresh one for a new member; for a static member taking
    /// over its instance, the previous member under the new id), and the member it replaces.
    fn prepare_member(
        &self,
        group: Option<&ConsumerGroup>,
        beat: &Beat<'_>,
    ) -> Result<(ConsumerMember, Option<ConsumerMember>), Failure> {
        let request = beat.request;
        let joining = request.member_epoch == 0;
        let member_id = beat.member_id.as_str();
        let empty = ConsumerGroup::default();
        let group = group.unwrap_or(&empty);
        let max = usize::try_from(self.config.consumer_max_size).unwrap_or(0);
        let replaces_static = request.instance_id.as_deref().is_some_and(|i| group.static_member(i).is_some());
        if group.member_count() >= max && group.member(member_id).is_none() && !replaces_static {
            return fail(
                ErrorCode::GroupMaxSizeReached,
                format!("The consumer group has reached its maximum capacity of {max} members."),
            );
        }
        let Some(instance) = request.instance_id.as_deref() else {
            return match group.member(member_id) {
                Some(member) => {
                    check_epoch(member, request)?;
                    Ok((member.clone(), None))
                }
                None if joining => Ok((ConsumerMember::new(member_id.to_owned()), None)),
                None => fail(
                    ErrorCode::UnknownMemberId,
                    format!("Member {member_id} is not a member of group {}.", request.group_id),
                ),
            };
        };
        let existing = group.static_member(instance);
        match existing {
            None if joining => Ok((
                group.member(member_id).cloned().unwrap_or_else(|| ConsumerMember::new(member_id.to_owned())),
                None,
            )),
            Some(old) if joining => {
                if old.member_epoch != LEAVE_GROUP_STATIC_MEMBER_EPOCH {
                    return fail(
                        ErrorCode::UnreleasedInstanceId,
                        format!(
                            "Static member {member_id} with instance id {instance} cannot join the group because the \
                             instance id is owned by {} member.",
                            old.member_id
                        ),
                    );
                }
                let mut taking_over = old.clone();
                taking_over.member_id = member_id.to_owned();
                taking_over.member_epoch = 0;
                taking_over.previous_member_epoch = 0;
                Ok((taking_over, Some(old.clone())))
            }
            None => fail(ErrorCode::UnknownMemberId, format!("Instance id {instance} is unknown.")),
            Some(old) if old.member_id != member_id => fail(
                ErrorCode::FencedInstanceId,
                format!(
                    "Static member {member_id} with instance id {instance} was fenced by member {}.",
                    old.member_id
                ),
            ),
            Some(old) => {
                check_epoch(old, request)?;
                Ok((old.clone(), None))
            }
        }
    }

    /// Kafka's `replaceMember`: the old static member's records go, the new one takes its
    /// subscription, target and assignment.
    pub(crate) fn replace_static_member(
        &mut self,
        group_id: &str,
        old: &ConsumerMember,
        new: &ConsumerMember,
        effects: &mut Effects,
    ) {
        let target = self.consumer_group(group_id).map(|g| g.target(&old.member_id)).unwrap_or_default();
        self.apply(effects, CoordinatorRecord::consumer_current_assignment_tombstone(group_id, &old.member_id));
        self.apply(effects, CoordinatorRecord::consumer_target_assignment_tombstone(group_id, &old.member_id));
        self.apply(effects, CoordinatorRecord::consumer_member_tombstone(group_id, &old.member_id));
        self.apply(effects, CoordinatorRecord::consumer_member(group_id, new));
        self.apply(effects, CoordinatorRecord::consumer_target_assignment(group_id, &new.member_id, &target));
        self.apply(effects, CoordinatorRecord::consumer_current_assignment(group_id, new));
        self.cancel_member_timers(group_id, &old.member_id);
    }

    /// Writes the member's subscription if anything of it changed (a new member is always
    /// written). True if its subscribed topic names or regex changed.
    pub(crate) fn write_member(
        &mut self,
        group_id: &str,
        before: &ConsumerMember,
        after: &ConsumerMember,
        effects: &mut Effects,
    ) -> bool {
        let known = self.consumer_group(group_id).is_some_and(|g| g.member(&after.member_id).is_some());
        if known && before == after {
            return false;
        }
        // Leaving the old regex: delete its resolution if no one else subscribes with it.
        if before.subscribed_topic_regex != after.subscribed_topic_regex
            && let Some(old) = before.regex()
        {
            let others = self.consumer_group(group_id).map_or(0, |g| {
                g.members().filter(|m| m.member_id != after.member_id && m.regex() == Some(old)).count()
            });
            let resolved = self.consumer_group(group_id).is_some_and(|g| g.regexes().contains_key(old));
            if others == 0 && resolved {
                self.apply(effects, CoordinatorRecord::consumer_regex_tombstone(group_id, old));
            }
        }
        self.apply(effects, CoordinatorRecord::consumer_member(group_id, after));
        before.subscribed_topic_names != after.subscribed_topic_names
            || before.subscribed_topic_regex != after.subscribed_topic_regex
            || !known
    }

    /// Resolves the group's regular expressions when one is new, or new topics appeared (at most
    /// every [`REGEX_REFRESH_MIN_INTERVAL_MS`]), or `group.consumer.regex.refresh.interval.ms`
    /// passed. Each keeps the matches the heartbeating member's principal may describe, as Kafka
    /// resolves a group's regexes with the context of the request that triggered it. Writes the
    /// resolutions that changed; true if any did.
    fn refresh_regexes(&mut self, group_id: &str, beat: &Beat<'_>, effects: &mut Effects) -> bool {
        let now = beat.now;
        let Some(group) = self.consumer_group(group_id) else { return false };
        let subscribed = group.subscribed_regexes();
        let stale: Vec<String> = group.regexes().keys().filter(|r| !subscribed.contains(*r)).cloned().collect();
        let unresolved = subscribed.iter().any(|r| !group.regexes().contains_key(r));
        let (last_time, last_version) = self.regex_refresh.get(group_id).copied().unwrap_or((i64::MIN, i64::MIN));
        let since = now.saturating_sub(last_time);
        let due = !subscribed.is_empty()
            && (unresolved
                || (since >= REGEX_REFRESH_MIN_INTERVAL_MS
                    && (last_version < self.metadata.new_topics_version()
                        || since >= i64::from(self.config.consumer_regex_refresh_interval_ms))));
        let mut records = Vec::new();
        for regex in stale {
            records.push(CoordinatorRecord::consumer_regex_tombstone(group_id, &regex));
        }
        if due {
            for regex in &subscribed {
                let mut topics = resolve(regex, &self.metadata);
                topics.retain(|topic| beat.client.describable.contains(topic));
                let unchanged = group.regexes().get(regex).is_some_and(|r| r.topics == topics);
                if !unchanged {
                    let resolved = ResolvedRegex { topics, version: self.metadata.version(), timestamp_ms: now };
                    records.push(CoordinatorRecord::consumer_regex(group_id, regex, &resolved));
                }
            }
            self.regex_refresh.insert(group_id.to_owned(), (now, self.metadata.version()));
        }
        let changed = !records.is_empty();
        for record in records {
            self.apply(effects, record);
        }
        changed
    }

    /// Bumps the group epoch if `bump`, or if the subscribed topics' metadata hash changed.
    pub(crate) fn maybe_bump_group_epoch(&mut self, group_id: &str, bump: bool, effects: &mut Effects) {
        let Some(group) = self.consumer_group(group_id) else { return };
        let topics = group.subscribed_topics();
        let hash = self.metadata.group_hash(topics.iter().map(String::as_str));
        if bump || hash != group.metadata_hash() {
            let epoch = group.group_epoch() + 1;
            tracing::info!(group = group_id, epoch, "bumped consumer group epoch");
            self.apply(effects, CoordinatorRecord::consumer_group_epoch(group_id, epoch, hash));
        }
    }

    /// Computes the target assignment at the group epoch if it is behind (Kafka's
    /// `TargetAssignmentBuilder`): records for the members whose target changed, then the
    /// assignment epoch.
    pub(crate) fn maybe_update_target(&mut self, group_id: &str, now: i64, effects: &mut Effects) {
        let Some(group) = self.consumer_group(group_id) else { return };
        if group.group_epoch() <= group.assignment_epoch() {
            return;
        }
        let assignor_name = group.preferred_server_assignor().unwrap_or_else(|| self.default_assignor().to_owned());
        let assignor = Assignor::from_name(&assignor_name).unwrap_or(Assignor::Uniform);
        let spec = group_spec(group, &self.metadata);
        let assignment = assignor.assign(&spec);
        let epoch = group.group_epoch();
        let mut records = Vec::new();
        for (member_id, target) in &assignment {
            if group.targets().get(member_id) != Some(target) {
                records.push(CoordinatorRecord::consumer_target_assignment(group_id, member_id, target));
            }
        }
        records.push(CoordinatorRecord::consumer_target_assignment_metadata(group_id, epoch, now));
        tracing::info!(group = group_id, epoch, assignor = assignor.name(), "computed a new target assignment");
        for record in records {
            self.apply(effects, record);
        }
    }

    /// Moves the member toward its target; writes its new assignment if it changed and starts or
    /// stops its rebalance timer.
    pub(crate) fn reconcile_member(
        &mut self,
        group_id: &str,
        member_id: &str,
        now: i64,
        owned: Option<&[OwnedPartitions]>,
        subscription_changed: bool,
        effects: &mut Effects,
    ) -> Result<ConsumerMember, reconcile::MustRejoin> {
        let Some(group) = self.consumer_group(group_id) else { return Err(reconcile::MustRejoin) };
        let Some(member) = group.member(member_id) else { return Err(reconcile::MustRejoin) };
        if member.is_reconciled_to(group.assignment_epoch()) && !subscription_changed {
            return Ok(member.clone());
        }
        let target = group.target(member_id);
        let subscribed: BTreeSet<Uuid> =
            group.member_topics(member).iter().filter_map(|t| self.metadata.id(t)).collect();
        let partition_epoch = |topic: Uuid, partition: i32| group.partition_epoch(topic, partition);
        let context = Reconcile {
            target_epoch: group.assignment_epoch(),
            target: &target,
            subscribed_topic_ids: &subscribed,
            subscription_changed,
            partition_epoch: &partition_epoch,
            owned,
        };
        let next = reconcile::next(member, &context)?;
        if &next == member {
            return Ok(next);
        }
        let rebalance_timeout = next.rebalance_timeout_ms;
        self.apply(effects, CoordinatorRecord::consumer_current_assignment(group_id, &next));
        if next.uses_classic_protocol() {
            // A classic member is timed by its join and sync timeouts instead.
            return Ok(next);
        }
        let key = rebalance_key(group_id, member_id);
        if next.state == MemberState::UnrevokedPartitions {
            self.timer.schedule(key, now + i64::from(rebalance_timeout.max(0)));
        } else {
            self.timer.cancel(&key);
        }
        Ok(next)
    }
}

impl GroupShard {
    /// The consumer group `group_id`, if it is one.
    pub fn consumer_group(&self, group_id: &str) -> Option<&ConsumerGroup> {
        match self.groups.get(group_id) {
            Some(Group::Consumer(group)) => Some(group),
            _ => None,
        }
    }

    /// A heartbeat with epoch -1 (leave) or -2 (a static member leaving for now).
    fn consumer_leave(
        &mut self,
        beat: &Beat<'_>,
        effects: &mut Effects,
    ) -> Result<ConsumerGroupHeartbeatResponse, Failure> {
        let request = beat.request;
        let group_id = request.group_id.as_str();
        let Some(group) = self.consumer_group(group_id) else {
            return fail(ErrorCode::GroupIdNotFound, format!("Consumer group {group_id} not found."));
        };
        let member_id = beat.member_id.as_str();
        let member = match request.instance_id.as_deref() {
            None => group.member(member_id).ok_or_else(|| {
                (ErrorCode::UnknownMemberId, format!("Member {member_id} is not a member of group {group_id}."))
            })?,
            Some(instance) => {
                let member = group
                    .static_member(instance)
                    .ok_or_else(|| (ErrorCode::UnknownMemberId, format!("Instance id {instance} is unknown.")))?;
                if member.member_id != member_id {
                    return fail(
                        ErrorCode::FencedInstanceId,
                        format!(
                            "Static member {member_id} with instance id {instance} was fenced by member {}.",
                            member.member_id
                        ),
                    );
                }
                member
            }
        };
        let response = |epoch: i32| ConsumerGroupHeartbeatResponse {
            member_id: Some(member_id.to_owned()),
            member_epoch: epoch,
            ..ConsumerGroupHeartbeatResponse::default()
        };
        if request.instance_id.is_some() && request.member_epoch == LEAVE_GROUP_STATIC_MEMBER_EPOCH {
            // The static member keeps its assignment for when it comes back; its session runs on.
            let mut away = member.clone();
            away.member_epoch = LEAVE_GROUP_STATIC_MEMBER_EPOCH;
            away.pending_revocation.clear();
            // Kafka 4.4 resets the assignment epochs, so that the instance, back at epoch 0, may
            // commit offsets for what it holds.
            for partitions in away.assigned.values_mut() {
                partitions.values_mut().for_each(|epoch| *epoch = 0);
            }
            tracing::info!(group = group_id, member = member_id, "static member left the consumer group for now");
            self.apply(effects, CoordinatorRecord::consumer_current_assignment(group_id, &away));
            return Ok(response(LEAVE_GROUP_STATIC_MEMBER_EPOCH));
        }
        tracing::info!(group = group_id, member = member_id, "member left the consumer group");
        let member_id = member.member_id.clone();
        self.fence_member(group_id, &member_id, beat.now, effects);
        Ok(response(request.member_epoch))
    }
}

/// Kafka's `throwIfConsumerGroupMemberEpochIsInvalid`. Epoch 0 (rejoining) is always accepted; an
/// older epoch only if it is the previous one and the member owns no more than it is assigned
/// (the answer that moved it on may have been lost).
fn check_epoch(member: &ConsumerMember, request: &ConsumerGroupHeartbeatRequest) -> Result<(), Failure> {
    let received = request.member_epoch;
    if received == 0 {
        return Ok(());
    }
    let rejoin = "The member must abandon all its partitions and rejoin.";
    if received > member.member_epoch {
        return fail(
            ErrorCode::FencedMemberEpoch,
            format!(
                "The consumer group member has a greater member epoch ({received}) than the one known by the group \
                 coordinator ({}). {rejoin}",
                member.member_epoch
            ),
        );
    }
    if received < member.member_epoch {
        let assigned = member.assigned_partitions();
        let subset = request.topic_partitions.as_ref().is_some_and(|owned| {
            owned.iter().all(|t| assigned.get(&t.topic_id).is_some_and(|p| t.partitions.iter().all(|i| p.contains(i))))
        });
        if received != member.previous_member_epoch || !subset {
            return fail(
                ErrorCode::FencedMemberEpoch,
                format!(
                    "The consumer group member has a smaller member epoch ({received}) than the one known by the group \
                     coordinator ({}). {rejoin}",
                    member.member_epoch
                ),
            );
        }
    }
    Ok(())
}

/// The member with what the heartbeat says of it (fields the request leaves null keep their
/// value), and who sent it.
fn updated_member(member: &ConsumerMember, beat: &Beat<'_>) -> ConsumerMember {
    let request = beat.request;
    let mut updated = member.clone();
    updated.member_id = beat.member_id.clone();
    if request.instance_id.is_some() {
        updated.instance_id = request.instance_id.clone();
    }
    if request.rack_id.is_some() {
        updated.rack_id = request.rack_id.clone();
    }
    if request.rebalance_timeout_ms != -1 {
        updated.rebalance_timeout_ms = request.rebalance_timeout_ms;
    }
    if request.server_assignor.is_some() {
        updated.server_assignor = request.server_assignor.clone();
    }
    if let Some(names) = &request.subscribed_topic_names {
        updated.subscribed_topic_names = names.iter().cloned().collect();
    }
    if let Some(regex) = &request.subscribed_topic_regex {
        updated.subscribed_topic_regex = regex.clone();
    }
    updated.client_id = beat.client.client_id.clone();
    updated.client_host = beat.client.client_host.clone();
    updated
}

/// The topics `regex` matches in full.
pub fn resolve(regex: &str, metadata: &TopicMetadata) -> BTreeSet<String> {
    match compile_regex(regex) {
        Ok(pattern) => metadata.names().filter(|name| pattern.is_match(name)).map(str::to_owned).collect(),
        Err((_, message)) => {
            tracing::error!(regex, %message, "ignoring a regular expression that does not compile");
            BTreeSet::new()
        }
    }
}

/// The assignor's input: every member's existing subscribed topics (by id) and current target.
fn group_spec(group: &ConsumerGroup, metadata: &TopicMetadata) -> GroupSpec {
    let mut partitions = BTreeMap::new();
    let members = group
        .members()
        .map(|member| {
            let topics: BTreeSet<Uuid> = group
                .member_topics(member)
                .iter()
                .filter_map(|name| metadata.topic(name))
                .map(|topic| {
                    partitions.insert(topic.id, topic.partitions);
                    topic.id
                })
                .collect();
            MemberSpec {
                member_id: member.member_id.clone(),
                instance_id: member.instance_id.clone(),
                topics,
                current: group.target(&member.member_id),
            }
        })
        .collect();
    GroupSpec { members, partitions }
}

fn response_assignment(assigned: &Assignment) -> ResponseAssignment {
    ResponseAssignment {
        topic_partitions: assigned
            .iter()
            .map(|(topic_id, partitions)| ResponseTopicPartitions {
                topic_id: *topic_id,
                partitions: partitions.iter().copied().collect(),
                ..ResponseTopicPartitions::default()
            })
            .collect(),
        ..ResponseAssignment::default()
    }
}

/// Kafka's `ConsumerGroup.asDescribedGroup`.
fn describe(group: &ConsumerGroup, default_assignor: &str, metadata: &TopicMetadata) -> DescribedGroup {
    let described_assignment = |assignment: &Assignment| DescribedAssignment {
        topic_partitions: assignment
            .iter()
            .filter_map(|(topic_id, partitions)| {
                Some(DescribedTopicPartitions {
                    topic_id: *topic_id,
                    topic_name: metadata.name(*topic_id)?.to_owned(),
                    partitions: partitions.iter().copied().collect(),
                    ..DescribedTopicPartitions::default()
                })
            })
            .collect(),
        ..DescribedAssignment::default()
    };
    let members = group
        .members()
        .map(|member| DescribedMember {
            member_id: member.member_id.clone(),
            instance_id: member.instance_id.clone(),
            rack_id: member.rack_id.clone(),
            member_epoch: member.member_epoch,
            client_id: member.client_id.clone(),
            client_host: member.client_host.clone(),
            subscribed_topic_names: member.subscribed_topic_names.iter().cloned().collect(),
            subscribed_topic_regex: Some(member.subscribed_topic_regex.clone()),
            assignment: described_assignment(&member.assigned_partitions()),
            target_assignment: described_assignment(&group.target(&member.member_id)),
            // Kafka's MemberType: 0 classic, 1 consumer.
            member_type: if member.uses_classic_protocol() { 0 } else { 1 },
            ..DescribedMember::default()
        })
        .collect();
    DescribedGroup {
        group_id: group.group_id().to_owned(),
        group_state: group.state().name().to_owned(),
        group_epoch: group.group_epoch(),
        assignment_epoch: group.assignment_epoch(),
        assignor_name: group.preferred_server_assignor().unwrap_or_else(|| default_assignor.to_owned()),
        members,
        ..DescribedGroup::default()
    }
}
