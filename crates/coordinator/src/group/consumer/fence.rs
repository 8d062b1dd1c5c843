//! Fencing and the member timers of consumer groups: a member is removed (fenced) when it
//! leaves, when its session (`group.consumer.session.timeout.ms`) expires, or when it does not
//! revoke partitions within its rebalance timeout, as Kafka's `consumerGroupFenceMembers` does.

use super::MemberState;
use crate::group::records::CoordinatorRecord;
use crate::group::timer::TimerKey;
use crate::group::{Effects, GroupShard};

impl GroupShard {
    /// Removes a member (Kafka's `consumerGroupFenceMembers`): its records are deleted, regexes
    /// only it used go, and the group epoch is bumped with the new metadata hash; a group left
    /// without members gets its assignment epoch at the new group epoch.
    pub(crate) fn fence_member(&mut self, group_id: &str, member_id: &str, now: i64, effects: &mut Effects) {
        let Some(group) = self.consumer_group(group_id) else { return };
        let Some(member) = group.member(member_id) else { return };
        let regex = member.regex().map(str::to_owned);
        let regex_orphaned = regex.as_deref().is_some_and(|r| {
            group.regexes().contains_key(r)
                && !group.members().any(|m| m.member_id != member_id && m.regex() == Some(r))
        });
        let last = group.member_count() == 1;
        self.apply(effects, CoordinatorRecord::consumer_current_assignment_tombstone(group_id, member_id));
        self.apply(effects, CoordinatorRecord::consumer_target_assignment_tombstone(group_id, member_id));
        self.apply(effects, CoordinatorRecord::consumer_member_tombstone(group_id, member_id));
        if let (Some(regex), true) = (regex, regex_orphaned) {
            self.apply(effects, CoordinatorRecord::consumer_regex_tombstone(group_id, &regex));
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
        self.timer.cancel(&session_key(group_id, member_id));
        self.timer.cancel(&rebalance_key(group_id, member_id));
    }

    pub(crate) fn schedule_session(&mut self, group_id: &str, member_id: &str, now: i64) {
        let timeout = i64::from(self.config.consumer_session_timeout_ms);
        self.timer.schedule(session_key(group_id, member_id), now + timeout);
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
