//! KIP-1071 streams groups (`group.protocol=streams`): Kafka Streams applications whose tasks the
//! coordinator assigns, as Kafka's `StreamsGroup` and `GroupMetadataManager` do.
//!
//! A member joins with its application's topology ([`topology`]: subtopologies and their source,
//! repartition and changelog topics); the coordinator works out how many tasks each subtopology
//! has, which internal topics are missing (the broker creates them) and answers with Kafka's
//! statuses while the topology cannot run. Once it can, the sticky task assignor ([`assignor`])
//! computes a target assignment of active and standby tasks, and each member is reconciled toward
//! its target ([`reconcile`]): tasks another member still owns are revoked from it first, and
//! handed on only once it has reported them gone. The heartbeat itself, leaving, sessions and
//! StreamsGroupDescribe are in [`heartbeat`].
//!
//! As a classic group's, a streams group's state is changed by the heartbeat directly and written
//! to `__consumer_offsets` as records describing the result ([`records`], Kafka's streams record
//! types), which loading replays: a coordinator that moves or restarts has the group, its members,
//! epochs and assignments as they were. Offsets are ordinary offset records
//! ([`offsets`] checks them against the member epoch).

pub mod assignor;
pub mod heartbeat;
pub mod offsets;
pub mod reconcile;
pub mod records;
pub mod topology;

use std::collections::{BTreeMap, BTreeSet};

use topology::{ConfiguredTopology, Topology};

/// Tasks by subtopology id: the partitions (task numbers) of each.
pub type Tasks = BTreeMap<String, BTreeSet<i32>>;

/// The epoch a member leaves with.
pub const LEAVE_GROUP_MEMBER_EPOCH: i32 = -1;
/// The epoch a static member leaves with, meaning to come back.
pub const LEAVE_GROUP_STATIC_MEMBER_EPOCH: i32 = -2;

/// A member's active, standby and warm-up tasks.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TaskSets {
    pub active: Tasks,
    pub standby: Tasks,
    pub warmup: Tasks,
}

impl TaskSets {
    pub fn is_empty(&self) -> bool {
        [&self.active, &self.standby, &self.warmup].iter().all(|t| t.values().all(BTreeSet::is_empty))
    }

    /// The tasks of `self` that `other` does not have, kind by kind.
    pub fn minus(&self, other: &TaskSets) -> TaskSets {
        TaskSets {
            active: tasks_minus(&self.active, &other.active),
            standby: tasks_minus(&self.standby, &other.standby),
            warmup: tasks_minus(&self.warmup, &other.warmup),
        }
    }

    /// The tasks both have, kind by kind.
    pub fn intersect(&self, other: &TaskSets) -> TaskSets {
        TaskSets {
            active: tasks_minus(&self.active, &tasks_minus(&self.active, &other.active)),
            standby: tasks_minus(&self.standby, &tasks_minus(&self.standby, &other.standby)),
            warmup: tasks_minus(&self.warmup, &tasks_minus(&self.warmup, &other.warmup)),
        }
    }

    /// Whether any task of `self` is in `other`, whatever its kind there.
    pub fn overlaps(&self, other: &TaskSets) -> bool {
        !self.intersect(other).is_empty()
    }

    pub fn task_count(&self) -> usize {
        [&self.active, &self.standby, &self.warmup].iter().map(|t| t.values().map(BTreeSet::len).sum::<usize>()).sum()
    }
}

/// The tasks of `a` not in `b`; subtopologies left without tasks are dropped.
pub fn tasks_minus(a: &Tasks, b: &Tasks) -> Tasks {
    let mut out = Tasks::new();
    for (subtopology, partitions) in a {
        let kept: BTreeSet<i32> = match b.get(subtopology) {
            Some(other) => partitions.difference(other).copied().collect(),
            None => partitions.clone(),
        };
        if !kept.is_empty() {
            out.insert(subtopology.clone(), kept);
        }
    }
    out
}

/// Whether `tasks` holds `partition` of `subtopology`.
pub fn holds(tasks: &Tasks, subtopology: &str, partition: i32) -> bool {
    tasks.get(subtopology).is_some_and(|p| p.contains(&partition))
}

/// Where a member stands in its reconciliation (Kafka's streams `MemberState`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum MemberState {
    /// It has its target at the assignment epoch.
    #[default]
    Stable,
    /// It must give up tasks first; its epoch waits until it has.
    UnrevokedTasks,
    /// It is at the assignment epoch but some active tasks of its target are still owned by others.
    UnreleasedTasks,
}

impl MemberState {
    /// Kafka's names, as StreamsGroupDescribe does not report them but logs do.
    pub fn name(self) -> &'static str {
        match self {
            MemberState::Stable => "STABLE",
            MemberState::UnrevokedTasks => "UNREVOKED_TASKS",
            MemberState::UnreleasedTasks => "UNRELEASED_TASKS",
        }
    }
}

/// One member of a streams group.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct StreamsMember {
    pub member_id: String,
    pub instance_id: Option<String>,
    pub rack_id: Option<String>,
    pub client_id: String,
    pub client_host: String,
    /// The Kafka Streams instance (process) it runs in; standbys avoid the process of their active.
    pub process_id: String,
    pub user_endpoint: Option<(String, u16)>,
    pub client_tags: BTreeMap<String, String>,
    pub rebalance_timeout_ms: i32,
    pub topology_epoch: i32,
    pub member_epoch: i32,
    pub previous_member_epoch: i32,
    pub state: MemberState,
    /// The tasks it may run now.
    pub assigned: TaskSets,
    /// Tasks it must give up before it moves on.
    pub pending_revocation: TaskSets,
}

/// The group's state, as ListGroups and StreamsGroupDescribe name it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StreamsGroupState {
    Empty,
    /// The topology cannot run yet (missing or mis-partitioned topics).
    NotReady,
    Assigning,
    Reconciling,
    Stable,
}

impl StreamsGroupState {
    pub fn name(self) -> &'static str {
        match self {
            StreamsGroupState::Empty => "Empty",
            StreamsGroupState::NotReady => "NotReady",
            StreamsGroupState::Assigning => "Assigning",
            StreamsGroupState::Reconciling => "Reconciling",
            StreamsGroupState::Stable => "Stable",
        }
    }
}

/// A streams group.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct StreamsGroup {
    group_id: String,
    pub(crate) group_epoch: i32,
    pub(crate) assignment_epoch: i32,
    /// The topology members run, as the first member (of an empty group) gave it.
    pub(crate) topology: Option<Topology>,
    /// The topology worked out against the cluster's topics at `metadata_hash`.
    pub(crate) configured: Option<ConfiguredTopology>,
    /// Kafka's group hash of the topics the topology names, when last configured.
    pub(crate) metadata_hash: i64,
    pub(crate) members: BTreeMap<String, StreamsMember>,
    pub(crate) target: BTreeMap<String, TaskSets>,
    /// Bumped whenever which member runs which active task changes (Interactive Queries).
    pub(crate) endpoint_information_epoch: i32,
}

impl StreamsGroup {
    pub fn new(group_id: &str) -> Self {
        StreamsGroup { group_id: group_id.to_owned(), ..StreamsGroup::default() }
    }

    pub fn group_id(&self) -> &str {
        &self.group_id
    }

    pub fn group_epoch(&self) -> i32 {
        self.group_epoch
    }

    pub fn assignment_epoch(&self) -> i32 {
        self.assignment_epoch
    }

    pub fn topology(&self) -> Option<&Topology> {
        self.topology.as_ref()
    }

    pub fn configured(&self) -> Option<&ConfiguredTopology> {
        self.configured.as_ref()
    }

    pub fn is_empty(&self) -> bool {
        self.members.is_empty()
    }

    pub fn members(&self) -> impl Iterator<Item = &StreamsMember> {
        self.members.values()
    }

    pub fn member(&self, member_id: &str) -> Option<&StreamsMember> {
        self.members.get(member_id)
    }

    pub fn static_member(&self, instance_id: &str) -> Option<&StreamsMember> {
        self.members.values().find(|m| m.instance_id.as_deref() == Some(instance_id))
    }

    /// A member's target (empty if it has none).
    pub fn target(&self, member_id: &str) -> TaskSets {
        self.target.get(member_id).cloned().unwrap_or_default()
    }

    pub fn state(&self) -> StreamsGroupState {
        if self.members.is_empty() {
            StreamsGroupState::Empty
        } else if !self.configured.as_ref().is_some_and(ConfiguredTopology::is_ready) {
            StreamsGroupState::NotReady
        } else if self.group_epoch > self.assignment_epoch {
            StreamsGroupState::Assigning
        } else if self
            .members
            .values()
            .any(|m| m.member_epoch != self.assignment_epoch || m.state != MemberState::Stable)
        {
            StreamsGroupState::Reconciling
        } else {
            StreamsGroupState::Stable
        }
    }

    /// Whether a member other than `except` owns `partition` of `subtopology` as an active task
    /// (assigned or still to revoke).
    pub fn active_owned_by_other(&self, except: &str, subtopology: &str, partition: i32) -> bool {
        self.members.iter().filter(|(id, _)| id.as_str() != except).any(|(_, m)| {
            holds(&m.assigned.active, subtopology, partition)
                || holds(&m.pending_revocation.active, subtopology, partition)
        })
    }

    /// Whether the topology reads `topic` while the group has members (OffsetDelete and offset
    /// expiry spare its offsets).
    pub fn is_subscribed_to_topic(&self, topic: &str) -> bool {
        !self.members.is_empty()
            && self.topology.as_ref().is_some_and(|t| {
                t.subtopologies.iter().any(|s| {
                    s.source_topics.iter().any(|n| n == topic)
                        || s.repartition_source_topics.iter().any(|r| r.name == topic)
                })
            })
    }
}

/// The subtopology ids and partitions `tasks` holds, deduplicated, for responses.
pub fn task_list(tasks: &Tasks) -> Vec<(String, Vec<i32>)> {
    tasks
        .iter()
        .filter(|(_, partitions)| !partitions.is_empty())
        .map(|(subtopology, partitions)| (subtopology.clone(), partitions.iter().copied().collect()))
        .collect()
}

/// The set of `(subtopology, partition)` pairs of `tasks`.
pub fn task_pairs(tasks: &Tasks) -> BTreeSet<(String, i32)> {
    tasks.iter().flat_map(|(s, parts)| parts.iter().map(move |p| (s.clone(), *p))).collect()
}
