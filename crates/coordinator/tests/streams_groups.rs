//! KIP-1071 streams groups on one shard, driven with a hand-moved clock: a word count's topology
//! (a source topic, a repartition topic, a changelog) waiting for its source topic, then for the
//! internal topics the broker is told to create; tasks balanced across members, revoked before
//! they move, sticky when a member joins; standbys on another process; leaving and session
//! expiry moving tasks; fenced epochs; offsets checked against the member epoch; describe and
//! ListGroups; the group rebuilt from its records (through Kafka's bytes) after a restart.

mod common;

use std::collections::{BTreeMap, BTreeSet};

use common::*;
use strand_coordinator::GroupConfig;
use strand_coordinator::group::streams::topology::{
    STATUS_MISSING_INTERNAL_TOPICS, STATUS_MISSING_SOURCE_TOPICS, STATUS_STALE_TOPOLOGY,
};
use strand_protocol::error::ErrorCode;
use strand_protocol::messages::streams_group_heartbeat_request::{
    KeyValue, Subtopology, TaskIds as RequestTaskIds, TopicInfo, Topology,
};
use strand_protocol::messages::streams_group_heartbeat_response::TaskIds;
use strand_protocol::messages::{StreamsGroupHeartbeatRequest, StreamsGroupHeartbeatResponse};

const G: &str = "wc";
const INPUT: &str = "lines";
const REPARTITION: &str = "wc-by-word-repartition";
const CHANGELOG: &str = "wc-counts-changelog";
const SESSION_MS: i32 = 45_000;

fn config(standbys: usize) -> GroupConfig {
    GroupConfig {
        streams_session_timeout_ms: SESSION_MS,
        streams_num_standby_replicas: standbys,
        ..GroupConfig::default()
    }
}

/// The word count's topology as Kafka Streams 4.4 sends it: subtopology 0 reads the input and
/// writes the repartition topic, subtopology 1 reads it and keeps a changelogged store.
fn word_count(epoch: i32) -> Topology {
    let info = |name: &str, configs: &[(&str, &str)]| TopicInfo {
        name: name.to_owned(),
        topic_configs: configs
            .iter()
            .map(|(k, v)| KeyValue { key: (*k).to_owned(), value: (*v).to_owned(), ..Default::default() })
            .collect(),
        ..Default::default()
    };
    Topology {
        epoch,
        subtopologies: vec![
            Subtopology {
                subtopology_id: "0".to_owned(),
                source_topics: vec![INPUT.to_owned()],
                repartition_sink_topics: vec![REPARTITION.to_owned()],
                ..Default::default()
            },
            Subtopology {
                subtopology_id: "1".to_owned(),
                repartition_source_topics: vec![info(REPARTITION, &[("cleanup.policy", "delete")])],
                state_changelog_topics: vec![info(CHANGELOG, &[("cleanup.policy", "compact")])],
                ..Default::default()
            },
        ],
        ..Default::default()
    }
}

/// A simulated Kafka Streams member: it adopts every assignment at once and reports what it owns.
#[derive(Debug, Clone)]
struct Member {
    id: String,
    process: String,
    epoch: i32,
    active: BTreeMap<String, BTreeSet<i32>>,
    standby: BTreeMap<String, BTreeSet<i32>>,
}

fn request_tasks(tasks: &BTreeMap<String, BTreeSet<i32>>) -> Vec<RequestTaskIds> {
    tasks
        .iter()
        .map(|(s, p)| RequestTaskIds {
            subtopology_id: s.clone(),
            partitions: p.iter().copied().collect(),
            ..Default::default()
        })
        .collect()
}

fn adopt(list: &[TaskIds]) -> BTreeMap<String, BTreeSet<i32>> {
    list.iter().map(|t| (t.subtopology_id.clone(), t.partitions.iter().copied().collect())).collect()
}

impl Member {
    fn new(id: &str, process: &str) -> Self {
        Member {
            id: id.to_owned(),
            process: process.to_owned(),
            epoch: 0,
            active: BTreeMap::new(),
            standby: BTreeMap::new(),
        }
    }

    fn join_request(&self) -> StreamsGroupHeartbeatRequest {
        StreamsGroupHeartbeatRequest {
            group_id: G.to_owned(),
            member_id: self.id.clone(),
            member_epoch: 0,
            rebalance_timeout_ms: 30_000,
            topology: Some(word_count(0)),
            active_tasks: Some(Vec::new()),
            standby_tasks: Some(Vec::new()),
            warmup_tasks: Some(Vec::new()),
            process_id: Some(self.process.clone()),
            ..StreamsGroupHeartbeatRequest::default()
        }
    }

    fn beat_request(&self) -> StreamsGroupHeartbeatRequest {
        StreamsGroupHeartbeatRequest {
            group_id: G.to_owned(),
            member_id: self.id.clone(),
            member_epoch: self.epoch,
            rebalance_timeout_ms: -1,
            active_tasks: Some(request_tasks(&self.active)),
            standby_tasks: Some(request_tasks(&self.standby)),
            warmup_tasks: Some(Vec::new()),
            ..StreamsGroupHeartbeatRequest::default()
        }
    }

    fn join(&mut self, h: &mut Harness) -> StreamsGroupHeartbeatResponse {
        let request = self.join_request();
        self.send(h, &request)
    }

    fn beat(&mut self, h: &mut Harness) -> StreamsGroupHeartbeatResponse {
        let request = self.beat_request();
        self.send(h, &request)
    }

    fn send(&mut self, h: &mut Harness, request: &StreamsGroupHeartbeatRequest) -> StreamsGroupHeartbeatResponse {
        let out = h.shard.streams_group_heartbeat(h.now, &client(&self.id), request);
        let response = h.absorb(out).response;
        if response.error_code == 0 {
            self.epoch = response.member_epoch;
            if let Some(active) = &response.active_tasks {
                self.active = adopt(active);
            }
            if let Some(standby) = &response.standby_tasks {
                self.standby = adopt(standby);
            }
        }
        response
    }

    fn count(&self) -> usize {
        self.active.values().map(BTreeSet::len).sum()
    }
}

fn statuses(response: &StreamsGroupHeartbeatResponse) -> Vec<i8> {
    response.status.iter().flatten().map(|s| s.status_code).collect()
}

/// Beats every member until nothing changes (at most 10 rounds).
fn settle(h: &mut Harness, members: &mut [&mut Member]) {
    for _ in 0..10 {
        let before: Vec<(i32, usize)> = members.iter().map(|m| (m.epoch, m.count())).collect();
        for m in members.iter_mut() {
            let response = m.beat(h);
            assert_eq!(response.error_code, 0, "{response:?}");
        }
        let after: Vec<(i32, usize)> = members.iter().map(|m| (m.epoch, m.count())).collect();
        if before == after {
            return;
        }
    }
    panic!("the group did not settle");
}

fn owners(members: &[&Member]) -> BTreeMap<(String, i32), String> {
    let mut owners = BTreeMap::new();
    for m in members {
        for (s, parts) in &m.active {
            for p in parts {
                assert!(owners.insert((s.clone(), *p), m.id.clone()).is_none(), "task {s}_{p} owned twice");
            }
        }
    }
    owners
}

#[test]
fn a_topology_waits_for_its_source_topic_then_for_its_internal_topics() {
    let mut h = Harness::new(config(0));
    let mut a = Member::new("a", "p1");
    let response = a.join(&mut h);
    assert_eq!(response.error_code, 0);
    assert_eq!(statuses(&response), vec![STATUS_MISSING_SOURCE_TOPICS]);
    assert_eq!(response.member_epoch, 1);
    assert!(a.active.is_empty());
    assert_eq!(h.group_state(G), Some("NotReady"));

    // The input appears: the internal topics are missing, with the partitions the input gives
    // them and the configs the topology asks for.
    h.shard.set_metadata(topics(2, &[(INPUT, 3)]));
    let out = h.shard.streams_group_heartbeat(h.now, &client("a"), &a.beat_request());
    assert_eq!(statuses(&out.response.response), vec![STATUS_MISSING_INTERNAL_TOPICS]);
    let create: Vec<(String, i32, Option<String>)> = out
        .response
        .create_topics
        .iter()
        .map(|t| (t.name.clone(), t.partitions, t.configs.get("cleanup.policy").cloned()))
        .collect();
    assert_eq!(
        create,
        vec![
            (REPARTITION.to_owned(), 3, Some("delete".to_owned())),
            (CHANGELOG.to_owned(), 3, Some("compact".to_owned())),
        ]
    );

    // Created: member a gets all six tasks.
    h.shard.set_metadata(topics(3, &[(INPUT, 3), (REPARTITION, 3), (CHANGELOG, 3)]));
    let response = a.beat(&mut h);
    assert_eq!(statuses(&response), Vec::<i8>::new());
    assert_eq!(a.count(), 6);
    assert_eq!(a.epoch, 3, "joined, source found, internal topics found");
    assert_eq!(h.group_state(G), Some("Stable"));
}

fn ready_harness(standbys: usize) -> Harness {
    let mut h = Harness::new(config(standbys));
    h.shard.set_metadata(topics(1, &[(INPUT, 4), (REPARTITION, 4), (CHANGELOG, 4)]));
    h
}

#[test]
fn a_joining_member_gets_half_the_tasks_after_the_first_revokes_them() {
    let mut h = ready_harness(0);
    let mut a = Member::new("a", "p1");
    a.join(&mut h);
    assert_eq!(a.count(), 8);
    let a_before = a.active.clone();
    let mut b = Member::new("b", "p2");
    let joined = b.join(&mut h);
    assert_eq!(joined.error_code, 0);
    // b may not take tasks a still owns: it waits, at the new epoch, with nothing.
    assert_eq!(b.count(), 0);
    let epoch = b.epoch;
    // a's next heartbeat revokes half, keeping its epoch until it reports them gone.
    let revoke = a.beat(&mut h);
    assert_eq!(a.count(), 4);
    assert_eq!(revoke.member_epoch, epoch - 1, "the epoch waits for the revocation");
    let acked = a.beat(&mut h);
    assert_eq!(acked.member_epoch, epoch);
    b.beat(&mut h);
    assert_eq!(b.count(), 4);
    let all = owners(&[&a, &b]);
    assert_eq!(all.len(), 8);
    // Sticky: a kept only tasks it had.
    for (s, parts) in &a.active {
        assert!(parts.is_subset(&a_before[s]), "a kept its own tasks");
    }
    assert_eq!(h.group_state(G), Some("Stable"));
}

#[test]
fn a_leaving_members_tasks_move_to_the_others() {
    let mut h = ready_harness(0);
    let (mut a, mut b) = (Member::new("a", "p1"), Member::new("b", "p2"));
    a.join(&mut h);
    b.join(&mut h);
    settle(&mut h, &mut [&mut a, &mut b]);
    assert_eq!((a.count(), b.count()), (4, 4));
    let b_before = b.active.clone();
    let mut leave = b.beat_request();
    leave.member_epoch = -1;
    let left = b.send(&mut h, &leave);
    assert_eq!((left.error_code, left.member_epoch), (0, -1));
    settle(&mut h, &mut [&mut a]);
    assert_eq!(a.count(), 8);
    for (s, parts) in &b_before {
        assert!(parts.is_subset(&a.active[s]), "b's tasks went to a");
    }
}

#[test]
fn a_silent_member_is_fenced_when_its_session_ends() {
    let mut h = ready_harness(0);
    let (mut a, mut b) = (Member::new("a", "p1"), Member::new("b", "p2"));
    a.join(&mut h);
    b.join(&mut h);
    settle(&mut h, &mut [&mut a, &mut b]);
    // a keeps beating; b goes silent.
    for _ in 0..5 {
        h.advance(i64::from(SESSION_MS) / 4);
        a.beat(&mut h);
    }
    assert_eq!(a.count(), 8, "b's session ended and its tasks moved");
    let response = b.beat(&mut h);
    assert_eq!(response.error_code, ErrorCode::UnknownMemberId.code());
}

#[test]
fn standbys_go_to_the_other_process() {
    let mut h = ready_harness(1);
    let (mut a, mut b) = (Member::new("a", "p1"), Member::new("b", "p2"));
    a.join(&mut h);
    assert!(a.standby.is_empty(), "no other process to hold a standby");
    b.join(&mut h);
    settle(&mut h, &mut [&mut a, &mut b]);
    assert_eq!((a.count(), b.count()), (4, 4));
    assert_eq!(a.standby, b.active, "a holds a standby of each of b's tasks");
    assert_eq!(b.standby, a.active);
}

#[test]
fn stale_and_unknown_epochs_are_fenced() {
    let mut h = ready_harness(0);
    let mut a = Member::new("a", "p1");
    a.join(&mut h);
    let mut wrong = a.beat_request();
    wrong.member_epoch = a.epoch + 5;
    assert_eq!(
        h.shard.streams_group_heartbeat(h.now, &client("a"), &wrong).response.response.error_code,
        ErrorCode::FencedMemberEpoch.code()
    );
    let mut unknown = a.beat_request();
    unknown.member_id = "nobody".to_owned();
    assert_eq!(
        h.shard.streams_group_heartbeat(h.now, &client("x"), &unknown).response.response.error_code,
        ErrorCode::UnknownMemberId.code()
    );
    // A join without a topology is invalid.
    let mut bare = Member::new("c", "p3").join_request();
    bare.topology = None;
    assert_eq!(
        h.shard.streams_group_heartbeat(h.now, &client("c"), &bare).response.response.error_code,
        ErrorCode::InvalidRequest.code()
    );
    // A topology whose sink is not a repartition topic is refused.
    let mut bad = Member::new("c", "p3").join_request();
    if let Some(t) = bad.topology.as_mut() {
        t.subtopologies[0].repartition_sink_topics = vec!["elsewhere".to_owned()];
    }
    assert_eq!(
        h.shard.streams_group_heartbeat(h.now, &client("c"), &bad).response.response.error_code,
        ErrorCode::StreamsInvalidTopology.code()
    );
    // A repartition topic may not ask for more partitions than a group may have tasks.
    let mut huge = Member::new("c", "p3").join_request();
    if let Some(t) = huge.topology.as_mut() {
        t.subtopologies[1].repartition_source_topics[0].partitions = i32::MAX;
    }
    assert_eq!(
        h.shard.streams_group_heartbeat(h.now, &client("c"), &huge).response.response.error_code,
        ErrorCode::StreamsInvalidTopology.code()
    );
    // A member with another topology epoch is told its topology is stale.
    let mut other = Member::new("d", "p4").join_request();
    if let Some(t) = other.topology.as_mut() {
        t.epoch = 7;
    }
    let response = h.shard.streams_group_heartbeat(h.now, &client("d"), &other).response.response;
    assert_eq!(response.error_code, 0);
    assert_eq!(statuses(&response), vec![STATUS_STALE_TOPOLOGY]);
}

#[test]
fn offsets_are_committed_and_fetched_with_the_member_epoch() {
    let mut h = ready_harness(0);
    let mut a = Member::new("a", "p1");
    a.join(&mut h);
    let ok = h.commit(&commit_request(G, a.epoch, "a", None, &[(INPUT, 0, 10)]), 9);
    assert_eq!(commit_errors(&ok), vec![0]);
    let stale = h.commit(&commit_request(G, a.epoch - 1, "a", None, &[(INPUT, 0, 11)]), 9);
    assert_eq!(commit_errors(&stale), vec![ErrorCode::StaleMemberEpoch.code()]);
    let unknown = h.commit(&commit_request(G, a.epoch, "z", None, &[(INPUT, 0, 11)]), 9);
    assert_eq!(commit_errors(&unknown), vec![ErrorCode::UnknownMemberId.code()]);
    let admin = h.commit(&commit_request(G, -1, "", None, &[(INPUT, 0, 11)]), 9);
    assert_eq!(commit_errors(&admin), vec![ErrorCode::UnknownMemberId.code()], "not while it has members");
    let fetched = h.fetch(G, Some(&[(INPUT, &[0])]));
    assert_eq!(fetched.topics[0].partitions[0].committed_offset, 10);
}

#[test]
fn describe_and_list_name_the_streams_group() {
    let mut h = ready_harness(0);
    let mut a = Member::new("a", "p1");
    a.join(&mut h);
    let described = h.shard.streams_group_describe(&[G.to_owned(), "nope".to_owned()]);
    assert_eq!(described[0].error_code, 0);
    assert_eq!(described[0].group_state, "Stable");
    assert_eq!(described[0].members.len(), 1);
    assert_eq!(described[0].members[0].process_id, "p1");
    let active: usize = described[0].members[0].assignment.active_tasks.iter().map(|t| t.partitions.len()).sum();
    assert_eq!(active, 8);
    assert_eq!(described[0].topology.as_ref().map(|t| t.subtopologies.as_ref().map(Vec::len)), Some(Some(2)));
    assert_eq!(described[1].error_code, ErrorCode::GroupIdNotFound.code());
    let listed = h.shard.list_groups(&[], &["streams".to_owned()]);
    assert_eq!(listed.len(), 1);
    assert_eq!((listed[0].group_type.as_str(), listed[0].protocol_type.as_str()), ("streams", "streams"));
    // A group with members cannot be deleted; once empty it can.
    assert_eq!(h.shard.delete_groups(&[G.to_owned()]).response[0].error_code, ErrorCode::NonEmptyGroup.code());
    let mut leave = a.beat_request();
    leave.member_epoch = -1;
    a.send(&mut h, &leave);
    assert_eq!(h.group_state(G), Some("Empty"));
    assert_eq!(h.shard.delete_groups(&[G.to_owned()]).response[0].error_code, 0);
    assert!(h.shard.group(G).is_none());
}

/// A member's epochs and assignment, as its records hold them.
type DurableMember = (String, i32, i32, String);
/// Group epoch, assignment epoch, topology epoch, members and targets.
type Durable = (i32, i32, Option<i32>, Vec<DurableMember>, Vec<String>);

/// The group's durable part: what its records hold.
fn durable(h: &Harness) -> Option<Durable> {
    let group = h.shard.streams_group(G)?;
    let members = group
        .members()
        .map(|m| {
            (
                m.member_id.clone(),
                m.member_epoch,
                m.previous_member_epoch,
                format!("{:?}{:?}{:?}", m.state, m.assigned, m.pending_revocation),
            )
        })
        .collect();
    let targets = group.members().map(|m| format!("{}={:?}", m.member_id, group.target(&m.member_id))).collect();
    Some((group.group_epoch(), group.assignment_epoch(), group.topology().map(|t| t.epoch), members, targets))
}

#[test]
fn a_restarted_coordinator_rebuilds_the_group_from_its_records() {
    let mut h = ready_harness(1);
    let (mut a, mut b) = (Member::new("a", "p1"), Member::new("b", "p2"));
    a.join(&mut h);
    b.join(&mut h);
    // Mid-rebalance: a has been told to revoke and has not yet.
    a.beat(&mut h);
    let live = durable(&h);
    let mut restarted = Harness::new(config(1));
    restarted.shard = replayed(config(1), &h.log);
    restarted.shard.set_metadata(topics(1, &[(INPUT, 4), (REPARTITION, 4), (CHANGELOG, 4)]));
    let out = restarted.shard.on_loaded(restarted.now);
    restarted.absorb(out);
    assert_eq!(durable(&restarted), live, "the same group, members, epochs and assignments");
    assert_eq!(
        restarted.shard.streams_group(G).map(|g| g.topology() == h.shard.streams_group(G).and_then(|l| l.topology())),
        Some(true)
    );
    // The members carry on with their epochs, and the rebalance completes.
    settle(&mut restarted, &mut [&mut a, &mut b]);
    assert_eq!((a.count(), b.count()), (4, 4));
    assert_eq!(owners(&[&a, &b]).len(), 8);
    // Deleting the empty group writes its tombstones: a replay knows nothing of it.
    for m in [&mut a, &mut b] {
        let mut leave = m.beat_request();
        leave.member_epoch = -1;
        m.send(&mut restarted, &leave);
    }
    let out = restarted.shard.delete_groups(&[G.to_owned()]);
    assert_eq!(restarted.absorb(out)[0].error_code, 0);
    let mut log = h.log.clone();
    log.extend(restarted.log.iter().cloned());
    assert!(replayed(config(1), &log).group(G).is_none());
    // A silent member's session ends after the restart too.
    let mut h2 = ready_harness(0);
    let mut c = Member::new("c", "p3");
    c.join(&mut h2);
    let mut again = Harness::new(config(0));
    again.shard = replayed(config(0), &h2.log);
    let out = again.shard.on_loaded(again.now);
    again.absorb(out);
    again.advance(i64::from(SESSION_MS) + 1);
    assert_eq!(again.group_state(G), Some("Empty"));
}
