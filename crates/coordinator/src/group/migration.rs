//! Online migration between the classic and the consumer group protocols (KIP-848), as Kafka's
//! `GroupMetadataManager` does it, under `group.consumer.migration.policy`.
//!
//! - **Upgrade**: a ConsumerGroupHeartbeat joining a classic group with members, all of the
//!   `consumer` protocol type, turns it into a consumer group (policy `upgrade` or
//!   `bidirectional`). The classic group's tombstone is written, then the consumer group's records
//!   (Kafka's `createConsumerGroupRecords`): every member's subscription with its classic metadata
//!   (session timeout, supported protocols), the group epoch at the classic generation, every
//!   member's target assignment from its current classic assignment, the assignment epoch, every
//!   member's current assignment (Stable at that epoch). Parked JoinGroups and SyncGroups are
//!   answered REBALANCE_IN_PROGRESS; the joining member then bumps the group epoch, so a new target
//!   is computed and the classic members, told to rejoin at their next heartbeat, move to it.
//!   Refusals answer GROUP_ID_NOT_FOUND with Kafka's messages.
//! - **Downgrade**: when the members leaving a consumer group (a leave, an expired session, a
//!   missed rebalance, join or sync timeout) are the last that use the consumer protocol, and
//!   policy `downgrade` or `bidirectional` allows it, the consumer group's tombstones are written
//!   and the remaining classic members form a classic group at the group epoch, each assigned its
//!   target assignment, written as one `GroupMetadata` record; that group then rebalances.
//!
//! What it is not: the classic protocol served inside a consumer group (`consumer::classic_protocol`),
//! nor a downgrade when a classic static member replaces the last consumer-protocol static member
//! (Kafka's `validateOnlineDowngradeWithReplacedMember`), which Strand does not do: the group stays
//! a consumer group with classic members.
//!
//! Replay: the consumer group's records describe it whole, so loading gives the converted group
//! back; a downgraded group loads as the Stable group its record describes, whose members rejoin
//! anyway (the rebalance in progress is soft state, as for any classic group).

use std::collections::BTreeSet;

use strand_protocol::error::ErrorCode;

use super::classic::rebalance;
use super::classic::{ClassicGroup, ClassicMember};
use super::consumer::{ClassicMemberMetadata, ConsumerGroup, ConsumerMember, MemberState, with_epochs};
use super::consumer_protocol;
use super::records::CoordinatorRecord;
use super::timer::TimerKey;
use super::{Effects, Group, GroupShard};

/// Why a group cannot be converted: the error and Kafka's message for it.
type Refusal = (ErrorCode, String);

impl GroupShard {
    /// Kafka's `validateOnlineUpgrade` and `ConsumerGroup.fromClassicGroup`: the records that make
    /// `classic` a consumer group (after its tombstone), or why it may not become one.
    pub(crate) fn upgrade_records(&self, classic: &ClassicGroup, now: i64) -> Result<Vec<CoordinatorRecord>, Refusal> {
        let group_id = classic.group_id();
        let refuse = |why: &str| {
            tracing::info!(group = group_id, "cannot upgrade the classic group to a consumer group: {why}");
            (ErrorCode::GroupIdNotFound, format!("Cannot upgrade classic group {group_id} to consumer group {why}."))
        };
        if !self.config.consumer_migration_policy.is_upgrade_enabled() {
            return Err(refuse("because online upgrade is disabled"));
        }
        if !classic.uses_consumer_protocol() {
            return Err(refuse("because the group does not use the consumer embedded protocol"));
        }
        if classic.member_count() > usize::try_from(self.config.consumer_max_size).unwrap_or(0) {
            return Err(refuse("because the group size exceeds the consumer group maximum size"));
        }
        let generation = classic.generation_id();
        let mut members = Vec::with_capacity(classic.member_count());
        for classic_member in classic.members() {
            let member = self.upgraded_member(classic, classic_member).map_err(&refuse)?;
            members.push(member);
        }
        let topics: BTreeSet<&str> =
            members.iter().flat_map(|m| m.subscribed_topic_names.iter().map(String::as_str)).collect();
        let hash = self.metadata.group_hash(topics);
        let mut records: Vec<CoordinatorRecord> =
            members.iter().map(|m| CoordinatorRecord::consumer_member(group_id, m)).collect();
        records.push(CoordinatorRecord::consumer_group_epoch(group_id, generation, hash));
        records.extend(
            members.iter().map(|m| {
                CoordinatorRecord::consumer_target_assignment(group_id, &m.member_id, &m.assigned_partitions())
            }),
        );
        records.push(CoordinatorRecord::consumer_target_assignment_metadata(group_id, generation, now));
        records.extend(members.iter().map(|m| CoordinatorRecord::consumer_current_assignment(group_id, m)));
        Ok(records)
    }

    /// A classic member as the consumer group member it becomes: Stable at the generation, holding
    /// its classic assignment. The error names the reason in Kafka's words.
    fn upgraded_member(&self, classic: &ClassicGroup, member: &ClassicMember) -> Result<ConsumerMember, &'static str> {
        const MALFORMED: &str = "because the embedded consumer protocol is malformed";
        let metadata = classic
            .protocol_name()
            .and_then(|p| member.metadata(p))
            .or_else(|| member.protocols.first().map(|p| &p.metadata))
            .ok_or(MALFORMED)?;
        let subscription = consumer_protocol::decode_subscription(metadata).ok_or(MALFORMED)?;
        let assignment = consumer_protocol::decode_assignment(&member.assignment).ok_or(MALFORMED)?;
        if assignment.user_data.as_ref().is_some_and(|data| !data.is_empty()) {
            return Err("because an unsupported custom assignor is in use. Please refer to the documentation or \
                        switch to a default assignor before re-attempting the upgrade");
        }
        let generation = classic.generation_id();
        let mut upgraded = ConsumerMember::new(member.member_id.clone());
        upgraded.instance_id = member.group_instance_id.clone();
        upgraded.rack_id = subscription.rack_id.clone();
        upgraded.client_id = member.client_id.clone();
        upgraded.client_host = member.client_host.clone();
        upgraded.subscribed_topic_names = subscription.topics.iter().cloned().collect();
        upgraded.rebalance_timeout_ms = member.rebalance_timeout_ms;
        upgraded.member_epoch = generation;
        upgraded.previous_member_epoch = generation;
        upgraded.state = MemberState::Stable;
        upgraded.assigned = with_epochs(&consumer_protocol::assignment_by_id(&assignment, &self.metadata), generation);
        upgraded.classic = Some(ClassicMemberMetadata {
            session_timeout_ms: member.session_timeout_ms,
            supported_protocols: member.protocols.clone(),
        });
        Ok(upgraded)
    }

    /// Kafka's `convertToConsumerGroup`, once the joining member is validated: parked requests are
    /// told to rejoin, the classic group's timers stop, its tombstone and `records` (from
    /// [`GroupShard::upgrade_records`]) are written, and every member's session starts with its
    /// classic session timeout.
    pub(crate) fn upgrade_to_consumer(
        &mut self,
        group_id: &str,
        records: Vec<CoordinatorRecord>,
        now: i64,
        effects: &mut Effects,
    ) {
        if let Some(Group::Classic(classic)) = self.groups.get_mut(group_id) {
            classic.complete_all_parked(ErrorCode::RebalanceInProgress, &mut effects.completions);
            let ids: Vec<String> =
                classic.members().map(|m| m.member_id.clone()).chain(classic.pending_members().cloned()).collect();
            for member in ids {
                self.timer.cancel(&TimerKey::Heartbeat { group: group_id.to_owned(), member });
            }
        }
        self.apply(effects, CoordinatorRecord::group_metadata_tombstone(group_id));
        for record in records {
            self.apply(effects, record);
        }
        let sessions: Vec<(String, i32)> = self
            .consumer_group(group_id)
            .map(|group| {
                group
                    .members()
                    .map(|m| {
                        let timeout = m
                            .classic
                            .as_ref()
                            .map_or(self.config.consumer_session_timeout_ms, |c| c.session_timeout_ms);
                        (m.member_id.clone(), timeout)
                    })
                    .collect()
            })
            .unwrap_or_default();
        for (member_id, timeout) in sessions {
            self.schedule_session_ms(group_id, &member_id, now, timeout);
        }
        tracing::info!(group = group_id, "converted the classic group to a consumer group");
    }

    /// Kafka's `validateOnlineDowngradeWithFencedMembers`: whether removing `leaving` leaves only
    /// classic members, at least one and no more than `group.max.size`, and the policy allows it.
    pub(crate) fn may_downgrade(&self, group: &ConsumerGroup, leaving: &BTreeSet<String>) -> bool {
        if !group.all_members_use_classic_protocol_except(leaving) {
            return false;
        }
        let remaining = group.members().filter(|m| !leaving.contains(&m.member_id)).count();
        if remaining == 0 {
            return false;
        }
        let group_id = group.group_id();
        if !self.config.consumer_migration_policy.is_downgrade_enabled() {
            tracing::info!(group = group_id, "cannot downgrade the consumer group: online downgrade is disabled");
            return false;
        }
        if remaining > usize::try_from(self.config.max_size).unwrap_or(0) {
            tracing::info!(group = group_id, "cannot downgrade the consumer group: it exceeds group.max.size");
            return false;
        }
        true
    }

    /// Kafka's `convertToClassicGroup` for leaving members: the consumer group's tombstones, then
    /// the classic group of the remaining members (each assigned its target assignment, in the
    /// consumer protocol version of its chosen protocol's metadata) written as one record, and a
    /// rebalance.
    pub(crate) fn downgrade_to_classic(
        &mut self,
        group_id: &str,
        leaving: &BTreeSet<String>,
        now: i64,
        effects: &mut Effects,
    ) {
        let Some(consumer) = self.consumer_group(group_id).cloned() else { return };
        let members: Vec<ClassicMember> = consumer
            .members()
            .filter(|m| !leaving.contains(&m.member_id))
            .filter_map(|m| {
                let classic = m.classic.as_ref()?;
                Some(ClassicMember::new(
                    m.member_id.clone(),
                    m.instance_id.clone(),
                    m.client_id.clone(),
                    m.client_host.clone(),
                    m.rebalance_timeout_ms,
                    classic.session_timeout_ms,
                    super::classic::CONSUMER_PROTOCOL_TYPE.to_owned(),
                    classic.supported_protocols.clone(),
                ))
            })
            .collect();
        let mut classic = ClassicGroup::downgraded(group_id, consumer.group_epoch(), now, members);
        let protocol = classic.protocol_name().unwrap_or_default().to_owned();
        for member in classic.members_mut() {
            let version = member.metadata(&protocol).and_then(consumer_protocol::version).unwrap_or(0);
            let target = consumer.target(&member.member_id);
            member.assignment = consumer_protocol::encode_assignment(&target, &self.metadata, version);
        }
        for tombstone in consumer.tombstones() {
            self.apply(effects, tombstone);
        }
        for member in consumer.members() {
            self.cancel_member_timers(group_id, &member.member_id);
        }
        // Written, not replayed: the group in memory keeps every member's protocols and now
        // rebalances (Kafka updates its state directly here too).
        effects.records.push(CoordinatorRecord::group_metadata(group_id, classic.to_record_value()));
        self.groups.insert(group_id.to_owned(), Group::Classic(classic));
        self.with_classic(group_id, now, effects, rebalance::on_downgraded);
        tracing::info!(group = group_id, "converted the consumer group to a classic group");
    }
}
