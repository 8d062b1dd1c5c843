//! Fencing and the member timers of consumer groups: a member is removed (fenced) when it
//! leaves, when its session (`group.consumer.session.timeout.ms`, or a classic member's own
//! session timeout) expires, when it does not revoke partitions within its rebalance timeout, or,
//! for a classic member, when it does not rejoin or sync within its rebalance timeout, as Kafka's
//! `consumerGroupFenceMembers` does. Fencing the last members that use the consumer protocol may
//! turn the group back into a classic group (`crate::group::migration`).

use std::collections::BTreeSet;

use super::{ConsumerMember, MemberState};
use crate::group::records::CoordinatorRecord;
use crate::group::timer::TimerKey;
use crate::group::{Effects, GroupShard};

impl GroupShard {
    /// Removes a member (Kafka's `consumerGroupFenceMembers` for one member).
    pub(crate) fn fence_member(&mut self, group_id: &str, member_id: &str, now: i64, effects: &mut Effects) {
        self.fence_members(group_id, &BTreeSet::from([member_id.to_owned()]), now, effects);
    }

    /// Removes members (Kafka's `consumerGroupFenceMembers`): if only classic members would be
    /// left and the policy allows it, the group becomes a classic group instead
    /// ([`GroupShard::downgrade_to_classic`]). Otherwise their records are deleted, regexes only
    /// they used go, and the group epoch is bumped with the new metadata hash; a group left without
    /// members gets its assignment epoch at the new group epoch.
    pub(crate) fn fence_members(
        &mut self,
        group_id: &str,
        member_ids: &BTreeSet<String>,
        now: i64,
        effects: &mut Effects,
    ) {
        let Some(group) = self.consumer_group(group_id) else { return };
        let leaving: BTreeSet<String> = member_ids.iter().filter(|id| group.member(id).is_some()).cloned().collect();
        if leaving.is_empty() {
            return;
        }
        if self.may_downgrade(group, &leaving) {
            self.downgrade_to_classic(group_id, &leaving, now, effects);
            return;
        }
        let orphaned: BTreeSet<String> = leaving
            .iter()
            .filter_map(|id| group.member(id).and_then(ConsumerMember::regex))
            .filter(|regex| {
                group.regexes().contains_key(*regex)
                    && !group.members().any(|m| !leaving.contains(&m.member_id) && m.regex() == Some(regex))
            })
            .map(str::to_owned)
            .collect();
        let last = group.member_count() == leaving.len();
        for member_id in &leaving {
            self.apply(effects, CoordinatorRecord::consumer_current_assignment_tombstone(group_id, member_id));
            self.apply(effects, CoordinatorRecord::consumer_target_assignment_tombstone(group_id, member_id));
            self.apply(effects, CoordinatorRecord::consumer_member_tombstone(group_id, member_id));
        }
        for regex in &orphaned {
            self.apply(effects, CoordinatorRecord::consumer_regex_tombstone(group_id, regex));
        }
        if let Some(group) = self.consumer_group(group_id) {
            let topics = group.subscribed_topics();
            let hash = self.metadata.group_hash(topics.iter().map(String::as_str));
            let epoch = group.group_epoch() + 1;
            self.apply(effects, CoordinatorRecord::consumer_group_epoch(group_id, epoch, hash));
            if last {
                self.apply(effects, CoordinatorRecord::consumer_target_assignment_metadata(group_id, epoch, now));
            }
        }
        for member_id in &leaving {
            self.cancel_member_timers(group_id, member_id);
        }
    }

    /// Cancels every timer of a consumer group member: session, rebalance, and a classic member's
    /// join and sync timeouts.
    pub(crate) fn cancel_member_timers(&mut self, group_id: &str, member_id: &str) {
        self.timer.cancel(&session_key(group_id, member_id));
        self.timer.cancel(&rebalance_key(group_id, member_id));
        self.timer.cancel(&join_key(group_id, member_id));
        self.timer.cancel(&sync_key(group_id, member_id));
    }

    pub(crate) fn schedule_session(&mut self, group_id: &str, member_id: &str, now: i64) {
        self.schedule_session_ms(group_id, member_id, now, self.config.consumer_session_timeout_ms);
    }

    /// Restarts a member's session with `timeout_ms` (a classic member's own session timeout).
    pub(crate) fn schedule_session_ms(&mut self, group_id: &str, member_id: &str, now: i64, timeout_ms: i32) {
        self.timer.schedule(session_key(group_id, member_id), now + i64::from(timeout_ms));
    }

    /// A classic member of a consumer group did not rejoin, or did not sync, within its rebalance
    /// timeout: it is fenced.
    pub(crate) fn expire_classic_member(&mut self, group_id: &str, member_id: &str, now: i64, effects: &mut Effects) {
        if self.consumer_group(group_id).is_some_and(|g| g.member(member_id).is_some()) {
            tracing::info!(
                group = group_id,
                member = member_id,
                "classic member of a consumer group fenced: it did not join or sync in time"
            );
            self.fence_member(group_id, member_id, now, effects);
        }
    }

    /// A member's session expired: it is fenced.
    pub(crate) fn expire_consumer_session(&mut self, group_id: &str, member_id: &str, now: i64, effects: &mut Effects) {
        if self.consumer_group(group_id).is_some_and(|g| g.member(member_id).is_some()) {
            tracing::info!(group = group_id, member = member_id, "consumer group member fenced: its session expired");
            self.fence_member(group_id, member_id, now, effects);
        }
    }

    /// A member did not revoke its partitions within its rebalance timeout: it is fenced.
    pub(crate) fn expire_consumer_rebalance(
        &mut self,
        group_id: &str,
        member_id: &str,
        now: i64,
        effects: &mut Effects,
    ) {
        let revoking = self
            .consumer_group(group_id)
            .and_then(|g| g.member(member_id))
            .is_some_and(|m| m.state == MemberState::UnrevokedPartitions);
        if revoking {
            tracing::info!(
                group = group_id,
                member = member_id,
                "consumer group member fenced: it did not revoke in time"
            );
            self.fence_member(group_id, member_id, now, effects);
        }
    }

    /// After loading: every member's session starts now; a member revoking partitions gets its
    /// rebalance timeout again.
    pub(crate) fn on_consumer_group_loaded(&mut self, group_id: &str, now: i64) {
        let Some(group) = self.consumer_group(group_id) else { return };
        let members: Vec<(String, bool, i32)> = group
            .members()
            .map(|m| (m.member_id.clone(), m.state == MemberState::UnrevokedPartitions, m.rebalance_timeout_ms))
            .collect();
        for (member_id, revoking, rebalance_timeout) in members {
            self.schedule_session(group_id, &member_id, now);
            if revoking {
                self.timer.schedule(rebalance_key(group_id, &member_id), now + i64::from(rebalance_timeout.max(0)));
            }
        }
    }
}

pub(crate) fn session_key(group_id: &str, member_id: &str) -> TimerKey {
    TimerKey::ConsumerSession { group: group_id.to_owned(), member: member_id.to_owned() }
}

pub(crate) fn rebalance_key(group_id: &str, member_id: &str) -> TimerKey {
    TimerKey::ConsumerRebalance { group: group_id.to_owned(), member: member_id.to_owned() }
}

pub(crate) fn join_key(group_id: &str, member_id: &str) -> TimerKey {
    TimerKey::ConsumerJoin { group: group_id.to_owned(), member: member_id.to_owned() }
}

pub(crate) fn sync_key(group_id: &str, member_id: &str) -> TimerKey {
    TimerKey::ConsumerSync { group: group_id.to_owned(), member: member_id.to_owned() }
}
