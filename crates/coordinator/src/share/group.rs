//! Share groups' membership (KIP-932): members join, heartbeat and leave with
//! ShareGroupHeartbeat, and the coordinator assigns them partitions itself, as Kafka's
//! `SimpleAssignor` does: a partition may go to several members, so with fewer partitions than
//! members every member still gets one, and with more each partition goes to one member.
//!
//! Epochs as Kafka keeps them: the group epoch goes up on every change of membership or
//! subscriptions, and a member's epoch catches up with it on its next heartbeat, which carries
//! its new assignment. A member silent for `group.share.session.timeout.ms` is removed.
//!
//! Deterministic: operations take the clock reading. Bounded: `group.share.max.size` members per
//! group. Not persisted yet (ARCHITECTURE.md, differences).

use std::collections::{BTreeMap, BTreeSet};

/// The share groups' settings the coordinator applies.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ShareGroupConfig {
    /// `group.share.session.timeout.ms`.
    pub session_timeout_ms: i64,
    /// `group.share.heartbeat.interval.ms`.
    pub heartbeat_interval_ms: i32,
    /// `group.share.max.size`.
    pub max_size: usize,
}

/// Why a heartbeat was refused (the handler maps each to Kafka's code).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HeartbeatError {
    /// The member id is empty, or a joining member names no topics: INVALID_REQUEST.
    Invalid(&'static str),
    /// Not a member (never joined, left, or expired): UNKNOWN_MEMBER_ID.
    UnknownMember,
    /// The epoch is not the member's: FENCED_MEMBER_EPOCH.
    Fenced,
    /// `group.share.max.size` members already: GROUP_MAX_SIZE_REACHED.
    Full,
}

/// A heartbeat's answer: the member's epoch, and its assignment when it changed (topic names
/// with partitions; the handler turns names into ids).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HeartbeatAnswer {
    pub member_epoch: i32,
    pub assignment: Option<BTreeMap<String, Vec<i32>>>,
}

/// A member as ShareGroupDescribe reports it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ShareMember {
    pub member_id: String,
    pub rack_id: Option<String>,
    pub client_id: String,
    pub client_host: String,
    pub member_epoch: i32,
    pub subscribed_topic_names: Vec<String>,
    pub assignment: BTreeMap<String, Vec<i32>>,
    last_heartbeat_ms: i64,
    /// The assignment was changed and not yet sent.
    assignment_pending: bool,
}

/// One share group.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ShareGroup {
    pub group_epoch: i32,
    pub assignment_epoch: i32,
    pub members: BTreeMap<String, ShareMember>,
    /// The partitions whose share-partition state the group has (Kafka's
    /// `ShareGroupStatePartitionMetadata` initialized topics): every partition ever assigned,
    /// and those an offsets reset named, until their offsets are deleted.
    pub initialized: BTreeMap<String, BTreeSet<i32>>,
}

impl ShareGroup {
    /// Kafka's group state names: Empty, or Stable (share groups never rebalance).
    pub fn state(&self) -> &'static str {
        if self.members.is_empty() { "Empty" } else { "Stable" }
    }
}

/// A joining or heartbeating member as the request and the connection describe it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Heartbeat {
    pub group_id: String,
    pub member_id: String,
    pub member_epoch: i32,
    pub rack_id: Option<String>,
    /// `None`: unchanged since the last heartbeat.
    pub subscribed_topic_names: Option<Vec<String>>,
    pub client_id: String,
    pub client_host: String,
}

/// The epoch with which a member leaves (`ShareGroupHeartbeatRequest.LEAVE_GROUP_MEMBER_EPOCH`).
pub const LEAVE_EPOCH: i32 = -1;

/// Every share group this coordinator holds.
#[derive(Debug)]
pub struct ShareGroups {
    config: ShareGroupConfig,
    groups: BTreeMap<String, ShareGroup>,
}

impl ShareGroups {
    pub fn new(config: ShareGroupConfig) -> ShareGroups {
        ShareGroups { config, groups: BTreeMap::new() }
    }

    pub fn config(&self) -> &ShareGroupConfig {
        &self.config
    }

    /// The group `group_id`, its expired members removed first.
    pub fn group(
        &mut self,
        group_id: &str,
        partitions: &dyn Fn(&str) -> Option<i32>,
        now_ms: i64,
    ) -> Option<&ShareGroup> {
        self.expire(group_id, partitions, now_ms);
        self.groups.get(group_id)
    }

    /// Every group's id and state (ListGroups), expired members removed first.
    pub fn list(&mut self, partitions: &dyn Fn(&str) -> Option<i32>, now_ms: i64) -> Vec<(String, &'static str)> {
        let ids: Vec<String> = self.groups.keys().cloned().collect();
        for id in &ids {
            self.expire(id, partitions, now_ms);
        }
        self.groups.iter().map(|(id, group)| (id.clone(), group.state())).collect()
    }

    /// Takes back a group `__consumer_offsets` keeps (after a restart), without members: they
    /// join again. A group already held is left as it is.
    pub fn restore(&mut self, group_id: &str, group_epoch: i32, initialized: BTreeMap<String, BTreeSet<i32>>) {
        self.groups.entry(group_id.to_owned()).or_insert_with(|| ShareGroup {
            group_epoch,
            assignment_epoch: group_epoch,
            members: BTreeMap::new(),
            initialized,
        });
    }

    /// What `__consumer_offsets` keeps of `group_id`: its epoch and initialized partitions.
    pub fn persisted(&self, group_id: &str) -> Option<(i32, BTreeMap<String, BTreeSet<i32>>)> {
        self.groups.get(group_id).map(|g| (g.group_epoch, g.initialized.clone()))
    }

    /// Whether `group_id` has no members: `None` if there is no such share group.
    pub fn is_empty_group(&self, group_id: &str) -> Option<bool> {
        self.groups.get(group_id).map(|g| g.members.is_empty())
    }

    /// The partitions with share-partition state of `group_id`, by topic name.
    pub fn initialized(&self, group_id: &str) -> BTreeMap<String, BTreeSet<i32>> {
        self.groups.get(group_id).map(|g| g.initialized.clone()).unwrap_or_default()
    }

    /// Notes that `group_id` has state for `topic`'s `partitions` (an offsets reset); the group is
    /// created, empty, if need be, as Kafka's AlterShareGroupOffsets does.
    pub fn mark_initialized(&mut self, group_id: &str, topic: &str, partitions: &[i32]) {
        let group = self.groups.entry(group_id.to_owned()).or_default();
        group.initialized.entry(topic.to_owned()).or_default().extend(partitions.iter().copied());
    }

    /// Forgets `group_id`'s state for `topic` (its offsets were deleted).
    pub fn forget_initialized(&mut self, group_id: &str, topic: &str) {
        if let Some(group) = self.groups.get_mut(group_id) {
            group.initialized.remove(topic);
        }
    }

    /// Removes `group_id` (DeleteGroups); it must have no members.
    pub fn remove(&mut self, group_id: &str) {
        self.groups.remove(group_id);
    }

    /// Whether a share group `group_id` exists (a consumer group may not take its id).
    pub fn contains(&self, group_id: &str) -> bool {
        self.groups.contains_key(group_id)
    }

    /// One ShareGroupHeartbeat. `partitions` gives a topic's partition count (`None`: no such
    /// topic, it is left out of the assignment until it exists).
    pub fn heartbeat(
        &mut self,
        request: Heartbeat,
        partitions: &dyn Fn(&str) -> Option<i32>,
        now_ms: i64,
    ) -> Result<HeartbeatAnswer, HeartbeatError> {
        if request.member_id.is_empty() {
            return Err(HeartbeatError::Invalid("MemberId can't be empty."));
        }
        self.expire(&request.group_id, partitions, now_ms);
        if request.member_epoch == LEAVE_EPOCH {
            let group = self.groups.get_mut(&request.group_id).ok_or(HeartbeatError::UnknownMember)?;
            group.members.remove(&request.member_id).ok_or(HeartbeatError::UnknownMember)?;
            Self::reassign(group, partitions);
            return Ok(HeartbeatAnswer { member_epoch: LEAVE_EPOCH, assignment: None });
        }
        let max_size = self.config.max_size;
        let joining = request.member_epoch == 0;
        if !joining && !self.groups.contains_key(&request.group_id) {
            return Err(HeartbeatError::UnknownMember);
        }
        let group = self.groups.entry(request.group_id.clone()).or_default();
        let changed = match group.members.get_mut(&request.member_id) {
            None if !joining => return Err(HeartbeatError::UnknownMember),
            None => {
                let topics = match &request.subscribed_topic_names {
                    Some(topics) if !topics.is_empty() => topics.clone(),
                    _ => return Err(HeartbeatError::Invalid("SubscribedTopicNames must be set in first request.")),
                };
                if group.members.len() >= max_size {
                    return Err(HeartbeatError::Full);
                }
                let member = ShareMember {
                    member_id: request.member_id.clone(),
                    rack_id: request.rack_id.clone(),
                    client_id: request.client_id.clone(),
                    client_host: request.client_host.clone(),
                    member_epoch: 0,
                    subscribed_topic_names: sorted(topics),
                    assignment: BTreeMap::new(),
                    last_heartbeat_ms: now_ms,
                    assignment_pending: true,
                };
                group.members.insert(request.member_id.clone(), member);
                true
            }
            // A member that lost its join response may join again with epoch 0.
            Some(member) if !joining && member.member_epoch != request.member_epoch => {
                return Err(HeartbeatError::Fenced);
            }
            Some(member) => {
                member.last_heartbeat_ms = now_ms;
                if joining {
                    member.assignment_pending = true;
                }
                match &request.subscribed_topic_names {
                    Some(topics) if sorted(topics.clone()) != member.subscribed_topic_names => {
                        member.subscribed_topic_names = sorted(topics.clone());
                        true
                    }
                    _ => false,
                }
            }
        };
        if changed {
            Self::reassign(group, partitions);
        } else {
            Self::refresh(group, partitions);
        }
        let group_epoch = group.group_epoch;
        let Some(member) = group.members.get_mut(&request.member_id) else { return Err(HeartbeatError::UnknownMember) };
        let send = member.assignment_pending || member.member_epoch != group_epoch;
        member.member_epoch = group_epoch;
        member.assignment_pending = false;
        Ok(HeartbeatAnswer { member_epoch: group_epoch, assignment: send.then(|| member.assignment.clone()) })
    }

    /// Removes the members of `group_id` silent for longer than the session timeout.
    fn expire(&mut self, group_id: &str, partitions: &dyn Fn(&str) -> Option<i32>, now_ms: i64) {
        let timeout = self.config.session_timeout_ms;
        let Some(group) = self.groups.get_mut(group_id) else { return };
        let before = group.members.len();
        group.members.retain(|_, m| now_ms.saturating_sub(m.last_heartbeat_ms) <= timeout);
        if group.members.len() != before {
            Self::reassign(group, partitions);
        }
    }

    /// Recomputes the assignment when a subscribed topic's partitions changed since.
    fn refresh(group: &mut ShareGroup, partitions: &dyn Fn(&str) -> Option<i32>) {
        let target = assign(&group.members, partitions);
        if group.members.iter().any(|(id, m)| target.get(id) != Some(&m.assignment)) {
            Self::reassign(group, partitions);
        }
    }

    /// A new group epoch with a new target assignment, sent to each member on its next
    /// heartbeat.
    fn reassign(group: &mut ShareGroup, partitions: &dyn Fn(&str) -> Option<i32>) {
        group.group_epoch = group.group_epoch.saturating_add(1);
        group.assignment_epoch = group.group_epoch;
        let mut target = assign(&group.members, partitions);
        for (id, member) in &mut group.members {
            member.assignment = target.remove(id).unwrap_or_default();
            for (topic, assigned) in &member.assignment {
                group.initialized.entry(topic.clone()).or_default().extend(assigned.iter().copied());
            }
        }
    }
}

fn sorted(mut topics: Vec<String>) -> Vec<String> {
    topics.sort();
    topics.dedup();
    topics
}

/// Kafka's `SimpleAssignor` in its deterministic form: per topic, its subscribers in member id
/// order; with at least as many partitions as subscribers, partition `p` goes to subscriber
/// `p % n`; with fewer, subscriber `i` gets partition `i % partitions`, so each has one.
pub fn assign(
    members: &BTreeMap<String, ShareMember>,
    partitions: &dyn Fn(&str) -> Option<i32>,
) -> BTreeMap<String, BTreeMap<String, Vec<i32>>> {
    let topics: BTreeSet<&String> = members.values().flat_map(|m| &m.subscribed_topic_names).collect();
    let mut out: BTreeMap<String, BTreeMap<String, Vec<i32>>> =
        members.keys().map(|id| (id.clone(), BTreeMap::new())).collect();
    for topic in topics {
        let Some(count) = partitions(topic).filter(|&c| c > 0) else { continue };
        let subscribers: Vec<&String> =
            members.iter().filter(|(_, m)| m.subscribed_topic_names.contains(topic)).map(|(id, _)| id).collect();
        let n = subscribers.len();
        let mut give = |member: &String, partition: i32| {
            if let Some(topics) = out.get_mut(member) {
                topics.entry(topic.clone()).or_default().push(partition);
            }
        };
        if count as usize >= n {
            for partition in 0..count {
                give(subscribers[partition as usize % n], partition);
            }
        } else {
            for (i, member) in subscribers.iter().enumerate() {
                give(member, (i % count as usize) as i32);
            }
        }
    }
    out
}
