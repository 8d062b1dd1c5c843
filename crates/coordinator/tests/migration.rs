//! KIP-848 online migration, driven through the shard as clients would: a classic group upgraded
//! by a ConsumerGroupHeartbeat, classic members served inside a consumer group (JoinGroup,
//! SyncGroup, Heartbeat, LeaveGroup, their timeouts), the downgrade when the last
//! consumer-protocol member leaves, the migration policy's refusals, the describe APIs, and replay
//! of every record written along the way.

mod common;

use std::collections::{BTreeMap, BTreeSet};

use bytes::{BufMut, Bytes, BytesMut};
use common::*;
use strand_coordinator::group::Group;
use strand_coordinator::group::Reply;
use strand_coordinator::group::consumer::ConsumerGroupState;
use strand_coordinator::group::records::CoordinatorRecord;
use strand_coordinator::{GroupConfig, MigrationPolicy};
use strand_protocol::Struct;
use strand_protocol::error::ErrorCode;
use strand_protocol::messages::ConsumerGroupHeartbeatRequest;
use strand_protocol::messages::consumer_protocol_assignment::{ConsumerProtocolAssignment, TopicPartition};
use strand_protocol::messages::consumer_protocol_subscription::{
    ConsumerProtocolSubscription, TopicPartition as OwnedTopic,
};
use strand_protocol::messages::join_group_request::JoinGroupRequestProtocol;
use strand_protocol::messages::records::GroupCoordinatorValue;

const G: &str = "migrating";
const PARTITIONS: i32 = 6;

fn config(policy: MigrationPolicy) -> GroupConfig {
    GroupConfig {
        initial_rebalance_delay_ms: 100,
        consumer_migration_policy: policy,
        offsets_retention_check_interval_ms: 3_600_000,
        ..GroupConfig::default()
    }
}

fn harness(policy: MigrationPolicy) -> Harness {
    let mut h = Harness::new(config(policy));
    h.shard.set_metadata(topics(10, &[("orders", PARTITIONS)]));
    h
}

/// `partitions` of orders as a SyncGroup assignment (consumer protocol version 3, as the Java
/// client writes it).
fn assignment_bytes(partitions: &[i32]) -> Bytes {
    let assignment = ConsumerProtocolAssignment {
        assigned_partitions: vec![TopicPartition { topic: "orders".to_owned(), partitions: partitions.to_vec() }],
        user_data: None,
    };
    let mut out = BytesMut::new();
    out.put_i16(3);
    assignment.encode(&mut out, 3).expect("encode an assignment");
    out.freeze()
}

/// The orders partitions of a SyncGroup assignment, sorted.
fn decode_assignment(bytes: &Bytes) -> Vec<i32> {
    if bytes.is_empty() {
        return Vec::new();
    }
    let mut d = strand_protocol::codec::Decoder::new(bytes.slice(2..));
    let version = i16::from_be_bytes([bytes[0], bytes[1]]);
    let assignment = ConsumerProtocolAssignment::decode(&mut d, version).expect("decode an assignment");
    let mut partitions: Vec<i32> = assignment
        .assigned_partitions
        .iter()
        .filter(|t| t.topic == "orders")
        .flat_map(|t| t.partitions.iter().copied())
        .collect();
    partitions.sort_unstable();
    partitions
}

/// A classic consumer (the Java client's eager protocol with the `range` assignor): it gives up
/// everything it owns before it rejoins, and the group's leader assigns when the group is classic.
#[derive(Debug, Clone, Default)]
struct Classic {
    name: String,
    member_id: String,
    generation: i32,
    owned: Vec<i32>,
    /// Cooperative clients keep their partitions across a rejoin and report them.
    cooperative: bool,
}

impl Classic {
    fn new(name: &str) -> Self {
        Classic { name: name.to_owned(), generation: -1, ..Classic::default() }
    }

    fn protocols(&self) -> Vec<JoinGroupRequestProtocol> {
        let subscription = ConsumerProtocolSubscription {
            topics: vec!["orders".to_owned()],
            owned_partitions: if self.owned.is_empty() {
                Vec::new()
            } else {
                vec![OwnedTopic { topic: "orders".to_owned(), partitions: self.owned.clone() }]
            },
            generation_id: self.generation,
            ..ConsumerProtocolSubscription::default()
        };
        let mut metadata = BytesMut::new();
        metadata.put_i16(3);
        subscription.encode(&mut metadata, 3).expect("encode a subscription");
        let name = if self.cooperative { "cooperative-sticky" } else { "range" };
        vec![JoinGroupRequestProtocol {
            name: name.to_owned(),
            metadata: metadata.freeze(),
            ..JoinGroupRequestProtocol::default()
        }]
    }

    /// Sends JoinGroup v9 (asking for a member id first if it has none), revoking everything first
    /// unless cooperative. Returns the reply.
    fn send_join(&mut self, h: &mut Harness) -> Reply<strand_protocol::messages::JoinGroupResponse> {
        if !self.cooperative {
            self.owned.clear();
        }
        let mut request = join_request(G, &self.member_id, None);
        request.protocols = self.protocols();
        let reply = h.join(&self.name, &request, 9);
        if let Reply::Now(answer) = &reply
            && answer.error_code == ErrorCode::MemberIdRequired.code()
        {
            self.member_id = answer.member_id.clone();
            request.member_id = self.member_id.clone();
            return h.join(&self.name, &request, 9);
        }
        reply
    }

    /// A JoinGroup answered at once (a consumer group's), then SyncGroup: adopts the assignment.
    fn join_and_sync(&mut self, h: &mut Harness) -> i16 {
        let reply = self.send_join(h);
        let answer = h.join_answer(&reply).expect("a consumer group answers JoinGroup at once");
        if answer.error_code != 0 {
            return answer.error_code;
        }
        assert_eq!(answer.protocol_type.as_deref(), Some("consumer"));
        assert!(answer.members.is_empty(), "no member list: the server assigns");
        self.generation = answer.generation_id;
        self.sync(h, &[])
    }

    fn sync(&mut self, h: &mut Harness, assignments: &[(&str, &[u8])]) -> i16 {
        let mut request = sync_request(G, &self.member_id, self.generation, assignments);
        request.protocol_type = Some("consumer".to_owned());
        request.protocol_name = Some(self.protocols()[0].name.clone());
        let reply = h.sync(&request);
        let Some(answer) = h.sync_answer(&reply) else { return -1 };
        if answer.error_code == 0 {
            // Eager clients own nothing here; cooperative ones revoke what is no longer assigned.
            self.owned = decode_assignment(&answer.assignment);
        }
        answer.error_code
    }

    fn heartbeat(&self, h: &mut Harness) -> i16 {
        h.heartbeat(G, &self.member_id, self.generation, None)
    }

    /// Heartbeats, and rejoins when told to (as the Java client does on REBALANCE_IN_PROGRESS and
    /// ILLEGAL_GENERATION). The last error seen.
    fn step(&mut self, h: &mut Harness) -> i16 {
        let error = self.heartbeat(h);
        if error == ErrorCode::RebalanceInProgress.code() || error == ErrorCode::IllegalGeneration.code() {
            return self.join_and_sync(h);
        }
        error
    }
}

/// A KIP-848 consumer that adopts each assignment at once and reports what it owns.
#[derive(Debug, Clone)]
struct Modern {
    id: String,
    epoch: i32,
    owned: Vec<i32>,
}

impl Modern {
    fn new(id: &str) -> Self {
        Modern { id: id.to_owned(), epoch: 0, owned: Vec::new() }
    }

    fn join(&mut self, h: &mut Harness) -> i16 {
        let request = cg_join(G, &self.id, &["orders"]);
        self.send(h, &request)
    }

    fn step(&mut self, h: &mut Harness) -> i16 {
        let owned = self.owned.clone();
        let request = cg_beat(G, &self.id, self.epoch, &[("orders", &owned)]);
        self.send(h, &request)
    }

    fn leave(&mut self, h: &mut Harness) -> i16 {
        let request = ConsumerGroupHeartbeatRequest { member_epoch: -1, ..cg_beat(G, &self.id, self.epoch, &[]) };
        let error = h.cg_heartbeat(&request).error_code;
        self.owned.clear();
        error
    }

    fn send(&mut self, h: &mut Harness, request: &ConsumerGroupHeartbeatRequest) -> i16 {
        let response = h.cg_heartbeat(request);
        if response.error_code == 0 {
            self.epoch = response.member_epoch;
            if let Some(assignment) = cg_assignment(&response) {
                self.owned = assignment.into_iter().flat_map(|(_, p)| p).collect();
            }
        }
        response.error_code
    }
}

/// Three classic members form a classic group: the leader assigns with `range` (two partitions
/// each). Returns them, synced.
fn classic_group(h: &mut Harness) -> Vec<Classic> {
    let mut members: Vec<Classic> = ["c1", "c2", "c3"].iter().map(|n| Classic::new(n)).collect();
    let replies: Vec<_> = members.iter_mut().map(|m| m.send_join(h)).collect();
    h.advance(200);
    let answers: Vec<_> = replies.iter().map(|r| h.join_answer(r).expect("joined")).collect();
    let leader = answers.iter().find(|a| !a.members.is_empty()).expect("a leader").member_id.clone();
    let mut ids: Vec<String> = members.iter().map(|m| m.member_id.clone()).collect();
    ids.sort();
    let per = PARTITIONS / 3;
    let assignments: Vec<(String, Bytes)> = ids
        .iter()
        .enumerate()
        .map(|(i, id)| {
            let i = i32::try_from(i).expect("few members");
            (id.clone(), assignment_bytes(&(i * per..(i + 1) * per).collect::<Vec<_>>()))
        })
        .collect();
    for (member, answer) in members.iter_mut().zip(&answers) {
        member.generation = answer.generation_id;
    }
    // Followers first (parked), then the leader with the assignment.
    let order: Vec<usize> = (0..members.len()).filter(|i| members[*i].member_id != leader).collect();
    let mut replies = Vec::new();
    for i in order {
        let member = &members[i];
        let mut request = sync_request(G, &member.member_id, member.generation, &[]);
        request.protocol_type = Some("consumer".to_owned());
        request.protocol_name = Some("range".to_owned());
        replies.push((i, h.sync(&request)));
    }
    let leader_index = members.iter().position(|m| m.member_id == leader).expect("leader");
    let refs: Vec<(&str, &[u8])> = assignments.iter().map(|(id, a)| (id.as_str(), a.as_ref())).collect();
    assert_eq!(members[leader_index].sync(h, &refs), 0);
    for (i, reply) in replies {
        let answer = h.sync_answer(&reply).expect("synced");
        members[i].owned = decode_assignment(&answer.assignment);
    }
    assert_eq!(h.group_state(G), Some("Stable"));
    members
}

/// Every partition is owned by at most one client at every moment, and by exactly one once the
/// group is stable.
fn assert_exclusive(classic: &[Classic], modern: &[Modern], complete: bool) {
    let mut owners: BTreeMap<i32, Vec<String>> = BTreeMap::new();
    for c in classic {
        for p in &c.owned {
            owners.entry(*p).or_default().push(c.name.clone());
        }
    }
    for m in modern {
        for p in &m.owned {
            owners.entry(*p).or_default().push(m.id.clone());
        }
    }
    for (partition, who) in &owners {
        assert!(who.len() == 1, "partition {partition} owned by {who:?}");
    }
    if complete {
        let all: BTreeSet<i32> = (0..PARTITIONS).collect();
        assert_eq!(owners.keys().copied().collect::<BTreeSet<_>>(), all, "every partition owned");
    }
}

/// Steps every client until a whole round changes nothing, checking exclusive ownership after
/// every request. The group must then be Stable with every partition owned exactly once.
fn settle(h: &mut Harness, classic: &mut [Classic], modern: &mut [Modern]) {
    for _ in 0..30 {
        let before: Vec<_> = classic
            .iter()
            .map(|c| (c.generation, c.owned.clone()))
            .chain(modern.iter().map(|m| (m.epoch, m.owned.clone())))
            .collect();
        for i in 0..classic.len() {
            assert_eq!(classic[i].step(h), 0, "classic {} stepped", classic[i].name);
            assert_exclusive(classic, modern, false);
        }
        for i in 0..modern.len() {
            assert_eq!(modern[i].step(h), 0, "consumer {} stepped", modern[i].id);
            assert_exclusive(classic, modern, false);
        }
        let after: Vec<_> = classic
            .iter()
            .map(|c| (c.generation, c.owned.clone()))
            .chain(modern.iter().map(|m| (m.epoch, m.owned.clone())))
            .collect();
        if before == after {
            assert_exclusive(classic, modern, true);
            return;
        }
        h.advance(1_000);
    }
    panic!("the group did not settle: {classic:?} {modern:?}");
}

/// The records a replay must reproduce: the live consumer group equals the replayed one.
fn assert_replays(h: &Harness, policy: MigrationPolicy) {
    let replayed = replayed(config(policy), &h.log);
    assert_eq!(consumer_view(&h.shard), consumer_view(&replayed), "consumer groups differ after replay");
    let (live, offsets) = durable_view(&h.shard);
    let (again, offsets_again) = durable_view(&replayed);
    assert_eq!(offsets, offsets_again);
    for (id, group) in &live {
        if group.state == "Stable" || group.state == "Empty" {
            assert_eq!(Some(group), again.get(id), "classic group {id} differs after replay");
        } else {
            assert!(again.contains_key(id), "classic group {id} was written");
        }
    }
}

fn consumer_group_state(h: &Harness) -> Option<ConsumerGroupState> {
    h.shard.consumer_group(G).map(|g| g.state())
}

/// A ConsumerGroupHeartbeat joining a classic group with members converts it: the classic
/// group's tombstone, then every member with its classic metadata, the group and assignment
/// epochs at the classic generation, targets and current assignments from the classic
/// assignment; parked requests are told to rejoin; the classic members then move to the new
/// target through JoinGroup and SyncGroup while the new member gets what they release.
#[test]
fn a_consumer_member_upgrades_a_classic_group() {
    let mut h = harness(MigrationPolicy::Bidirectional);
    let mut classic = classic_group(&mut h);
    let generation = classic[0].generation;
    h.commit(&commit_request(G, generation, &classic[0].member_id, None, &[("orders", 0, 42)]), 8);
    let before = h.log.len();
    let mut modern = vec![Modern::new("m1")];
    assert_eq!(modern[0].join(&mut h), 0);
    assert!(matches!(h.shard.group(G), Some(Group::Consumer(_))), "the group is a consumer group now");

    let written = &h.log[before..];
    assert_eq!(written[0], CoordinatorRecord::group_metadata_tombstone(G), "the classic group goes first");
    let subscriptions: Vec<_> = written[1..4]
        .iter()
        .map(|r| match &r.value {
            Some((_, GroupCoordinatorValue::ConsumerGroupMemberMetadataValue(v))) => v.clone(),
            other => panic!("expected a member subscription, got {other:?}"),
        })
        .collect();
    for value in &subscriptions {
        let classic_metadata = value.classic_member_metadata.as_ref().expect("classic metadata");
        assert_eq!(classic_metadata.session_timeout_ms, SESSION_MS);
        assert_eq!(classic_metadata.supported_protocols[0].name, "range");
        assert_eq!(value.subscribed_topic_names, vec!["orders".to_owned()]);
    }
    match &written[4].value {
        Some((_, GroupCoordinatorValue::ConsumerGroupMetadataValue(v))) => assert_eq!(v.epoch, generation),
        other => panic!("expected the group epoch, got {other:?}"),
    }
    let group = h.shard.consumer_group(G).expect("consumer group");
    assert_eq!(group.group_epoch(), generation + 1, "the joining member bumped the group epoch");
    for c in &classic {
        let member = group.member(&c.member_id).expect("classic member kept");
        assert!(member.uses_classic_protocol());
        assert_eq!(member.member_epoch, generation);
        let owned: Vec<i32> = member.assigned_partitions().values().flatten().copied().collect();
        assert_eq!(owned, c.owned, "current assignment from the classic assignment");
    }
    assert_eq!(modern[0].epoch, generation + 1);
    assert!(modern[0].owned.is_empty(), "every partition is still held by a classic member");
    assert_eq!(h.fetch(G, None).topics[0].partitions[0].committed_offset, 42, "offsets stay");
    assert_replays(&h, MigrationPolicy::Bidirectional);

    // Classic members are told to rejoin and hand partitions over.
    assert_eq!(classic[0].heartbeat(&mut h), ErrorCode::RebalanceInProgress.code());
    settle(&mut h, &mut classic, &mut modern);
    assert_eq!(consumer_group_state(&h), Some(ConsumerGroupState::Stable));
    assert!((1..=2).contains(&modern[0].owned.len()), "six partitions over four members: the newcomer gets its share");
    assert_replays(&h, MigrationPolicy::Bidirectional);

    // Classic members commit with their generation, the member epoch.
    let member = &classic[1];
    let response = h.commit(&commit_request(G, member.generation, &member.member_id, None, &[("orders", 1, 7)]), 8);
    assert_eq!(commit_errors(&response), vec![0]);
    let stale = h.commit(&commit_request(G, member.generation - 1, &member.member_id, None, &[("orders", 1, 8)]), 8);
    assert_eq!(commit_errors(&stale), vec![ErrorCode::IllegalGeneration.code()]);
}

/// A parked JoinGroup of a classic group mid-rebalance is answered REBALANCE_IN_PROGRESS when the
/// group is upgraded, and the member rejoins the consumer group.
#[test]
fn an_upgrade_mid_rebalance_tells_parked_members_to_rejoin() {
    let mut h = harness(MigrationPolicy::Bidirectional);
    let mut classic = classic_group(&mut h);
    let parked = classic[0].send_join(&mut h);
    assert!(matches!(parked, Reply::Parked(_)), "the classic group rebalances");
    let mut modern = vec![Modern::new("m1")];
    assert_eq!(modern[0].join(&mut h), 0);
    let answer = h.join_answer(&parked).expect("answered by the upgrade");
    assert_eq!(answer.error_code, ErrorCode::RebalanceInProgress.code());
    settle(&mut h, &mut classic, &mut modern);
    assert_replays(&h, MigrationPolicy::Bidirectional);
}

/// Classic members join a consumer group with members under any policy, with eager and
/// cooperative clients side by side: after each settled generation every partition has exactly
/// one owner, and never two at once on the way.
#[test]
fn classic_members_join_a_consumer_group() {
    for policy in [MigrationPolicy::Disabled, MigrationPolicy::Bidirectional] {
        let mut h = harness(policy);
        let mut modern = vec![Modern::new("m1"), Modern::new("m2")];
        for m in modern.iter_mut() {
            assert_eq!(m.join(&mut h), 0);
        }
        let mut classic = Vec::new();
        settle(&mut h, &mut classic, &mut modern);
        let mut eager = Classic::new("c1");
        assert_eq!(eager.join_and_sync(&mut h), 0);
        classic.push(eager);
        settle(&mut h, &mut classic, &mut modern);
        let mut cooperative = Classic::new("c2");
        cooperative.cooperative = true;
        assert_eq!(
            cooperative.join_and_sync(&mut h),
            ErrorCode::InconsistentGroupProtocol.code(),
            "c2's only protocol is not one every classic member supports"
        );
        cooperative.member_id.clear();
        // A member of another protocol type is refused too.
        let mut connect = join_request(G, "", None);
        connect.protocol_type = "connect".to_owned();
        let reply = h.join("x", &connect, 9);
        assert_eq!(h.join_answer(&reply).expect("now").error_code, ErrorCode::InconsistentGroupProtocol.code());
        let mut second = Classic::new("c3");
        assert_eq!(second.join_and_sync(&mut h), 0);
        classic.push(second);
        settle(&mut h, &mut classic, &mut modern);
        assert_eq!(consumer_group_state(&h), Some(ConsumerGroupState::Stable));

        // ConsumerGroupDescribe tells member types apart; ListGroups says consumer.
        let described = h.shard.consumer_group_describe(&[G.to_owned()]);
        let types: BTreeMap<String, i8> =
            described[0].members.iter().map(|m| (m.member_id.clone(), m.member_type)).collect();
        assert_eq!(types.get("m1"), Some(&1));
        assert_eq!(types.get(&classic[0].member_id), Some(&0));
        let listed = h.shard.list_groups(&[], &[]);
        assert_eq!((listed[0].group_type.as_str(), listed[0].protocol_type.as_str()), ("consumer", "consumer"));
        let classic_describe = h.shard.describe_groups(&[G.to_owned()]);
        assert_eq!(classic_describe[0].error_code, ErrorCode::GroupIdNotFound.code());

        // A classic member leaves: the others take its partitions.
        let leaving = classic.remove(1);
        let response = h.leave(G, &[(&leaving.member_id, None)]);
        assert_eq!(response.members[0].error_code, 0);
        let refused = h.leave(G, &[("m1", None)]);
        assert_eq!(refused.members[0].error_code, ErrorCode::UnknownMemberId.code(), "m1 uses the consumer protocol");
        settle(&mut h, &mut classic, &mut modern);
        assert_replays(&h, policy);
    }
}

/// A classic member's session runs on its own session timeout, and one that joined but never
/// syncs is fenced after its rebalance timeout.
#[test]
fn classic_members_time_out_as_classic_members() {
    let mut h = harness(MigrationPolicy::Disabled);
    let mut modern = [Modern::new("m1")];
    modern[0].join(&mut h);
    let mut quiet = Classic::new("quiet");
    assert_eq!(quiet.join_and_sync(&mut h), 0);
    h.advance(i64::from(SESSION_MS) - 1_000);
    modern[0].step(&mut h);
    assert!(h.shard.consumer_group(G).expect("group").member(&quiet.member_id).is_some());
    h.advance(2_000);
    modern[0].step(&mut h);
    assert!(
        h.shard.consumer_group(G).expect("group").member(&quiet.member_id).is_none(),
        "fenced after its {SESSION_MS} ms session, well before the consumer protocol's 45 s"
    );

    let mut lazy = Classic::new("lazy");
    let reply = lazy.send_join(&mut h);
    assert_eq!(h.join_answer(&reply).expect("now").error_code, 0);
    for _ in 0..4 {
        h.advance(i64::from(SESSION_MS) / 2);
        modern[0].step(&mut h);
        lazy.heartbeat(&mut h);
    }
    h.advance(i64::from(REBALANCE_MS));
    assert!(h.shard.consumer_group(G).expect("group").member(&lazy.member_id).is_none(), "no SyncGroup in time");
    assert_replays(&h, MigrationPolicy::Disabled);
}

/// When the last consumer-protocol member leaves, the classic members form a classic group again:
/// the consumer group's tombstones, then one GroupMetadata record at the group epoch with every
/// member's target assignment; the group rebalances and the members rejoin it as a classic group.
#[test]
fn the_last_consumer_member_leaving_downgrades_the_group() {
    for how in ["leave", "session"] {
        let mut h = harness(MigrationPolicy::Bidirectional);
        let mut classic = classic_group(&mut h);
        let mut modern = vec![Modern::new("m1")];
        modern[0].join(&mut h);
        settle(&mut h, &mut classic, &mut modern);
        let epoch = h.shard.consumer_group(G).expect("group").group_epoch();
        let mut targets: Vec<i32> = classic
            .iter()
            .flat_map(|c| h.shard.consumer_group(G).expect("group").target(&c.member_id).into_values().flatten())
            .collect();
        targets.sort_unstable();
        let before = h.log.len();
        if how == "leave" {
            assert_eq!(modern[0].leave(&mut h), 0);
        } else {
            // Classic members keep heartbeating; the consumer member goes silent.
            for _ in 0..10 {
                h.advance(5_000);
                for c in classic.iter() {
                    c.heartbeat(&mut h);
                }
            }
            modern[0].owned.clear();
        }
        let Some(Group::Classic(group)) = h.shard.group(G) else { panic!("{how}: a classic group again") };
        assert_eq!(group.generation_id(), epoch, "{how}: generation at the group epoch");
        assert_eq!(group.state().name(), "PreparingRebalance");
        let written = &h.log[before..];
        let last = written.last().expect("records");
        let Some((_, GroupCoordinatorValue::GroupMetadataValue(value))) = &last.value else {
            panic!("{how}: the classic group's record comes last, got {last:?}")
        };
        assert_eq!(value.members.len(), 3);
        let mut assigned: Vec<i32> = value.members.iter().flat_map(|m| decode_assignment(&m.assignment)).collect();
        assigned.sort_unstable();
        assert_eq!(assigned, targets, "{how}: the remaining members' targets, serialized");
        assert!(written[..written.len() - 1].iter().all(|r| r.value.is_none()), "{how}: tombstones first");
        assert_replays(&h, MigrationPolicy::Bidirectional);

        // The classic members rejoin the classic group: the leader assigns, the group is Stable.
        let mut replies = Vec::new();
        for c in classic.iter_mut() {
            assert_ne!(c.heartbeat(&mut h), 0, "{how}: told to rejoin");
            replies.push(c.send_join(&mut h));
        }
        let answers: Vec<_> = replies.iter().map(|r| h.join_answer(r).expect("rebalanced")).collect();
        for (c, a) in classic.iter_mut().zip(&answers) {
            assert_eq!(a.error_code, 0);
            c.generation = a.generation_id;
        }
        let leader = answers.iter().find(|a| !a.members.is_empty()).expect("a leader").member_id.clone();
        let assignments: Vec<(String, Bytes)> = answers
            .iter()
            .enumerate()
            .map(|(i, a)| {
                let i = i32::try_from(i).expect("few");
                (a.member_id.clone(), assignment_bytes(&[2 * i, 2 * i + 1]))
            })
            .collect();
        let refs: Vec<(&str, &[u8])> = assignments.iter().map(|(id, a)| (id.as_str(), a.as_ref())).collect();
        let leader_index = classic.iter().position(|c| c.member_id == leader).expect("leader");
        assert_eq!(classic[leader_index].sync(&mut h, &refs), 0);
        assert_eq!(h.group_state(G), Some("Stable"));
        assert_replays(&h, MigrationPolicy::Bidirectional);
    }
}

/// The policy's refusals, with Kafka's answers: an upgrade refused answers GROUP_ID_NOT_FOUND with
/// the reason; a downgrade refused leaves a consumer group of classic members, still served.
#[test]
fn the_migration_policy_is_obeyed() {
    for (policy, upgrades, downgrades) in [
        (MigrationPolicy::Disabled, false, false),
        (MigrationPolicy::Upgrade, true, false),
        (MigrationPolicy::Downgrade, false, true),
        (MigrationPolicy::Bidirectional, true, true),
    ] {
        let mut h = harness(policy);
        let mut classic = classic_group(&mut h);
        let response = h.cg_heartbeat(&cg_join(G, "m1", &["orders"]));
        if upgrades {
            assert_eq!(response.error_code, 0, "{policy:?}");
        } else {
            assert_eq!(response.error_code, ErrorCode::GroupIdNotFound.code(), "{policy:?}");
            assert_eq!(
                response.error_message.as_deref(),
                Some("Cannot upgrade classic group migrating to consumer group because online upgrade is disabled.")
            );
            assert_eq!(h.group_state(G), Some("Stable"), "{policy:?}: the classic group is untouched");
            continue;
        }
        let mut modern = vec![Modern::new("m1")];
        modern[0].epoch = response.member_epoch;
        settle(&mut h, &mut classic, &mut modern);
        modern[0].leave(&mut h);
        let is_classic = matches!(h.shard.group(G), Some(Group::Classic(_)));
        assert_eq!(is_classic, downgrades, "{policy:?}");
        if !downgrades {
            // A consumer group of classic members only, still served.
            settle(&mut h, &mut classic, &mut []);
            assert_eq!(consumer_group_state(&h), Some(ConsumerGroupState::Stable));
        }
        assert_replays(&h, policy);
    }

    // A downgrade-only policy: classic members join a consumer group, and it turns classic when
    // its last consumer member leaves.
    let mut h = harness(MigrationPolicy::Downgrade);
    let mut modern = vec![Modern::new("m1")];
    modern[0].join(&mut h);
    let mut classic = vec![Classic::new("c1")];
    assert_eq!(classic[0].join_and_sync(&mut h), 0);
    settle(&mut h, &mut classic, &mut modern);
    modern[0].leave(&mut h);
    assert!(matches!(h.shard.group(G), Some(Group::Classic(_))));
}

/// Groups that cannot be upgraded: another protocol type, an assignment carrying a custom
/// assignor's user data; each answered GROUP_ID_NOT_FOUND with Kafka's reason.
#[test]
fn groups_that_cannot_be_upgraded() {
    let mut h = harness(MigrationPolicy::Bidirectional);
    let mut connect = join_request(G, "", None);
    connect.protocol_type = "connect".to_owned();
    let reply = h.join("w", &connect, 3);
    h.advance(200);
    assert_eq!(h.join_answer(&reply).expect("joined").error_code, 0);
    let response = h.cg_heartbeat(&cg_join(G, "m1", &["orders"]));
    assert_eq!(response.error_code, ErrorCode::GroupIdNotFound.code());
    assert_eq!(
        response.error_message.as_deref(),
        Some(
            "Cannot upgrade classic group migrating to consumer group because the group does not use the consumer \
             embedded protocol."
        )
    );

    let mut h = harness(MigrationPolicy::Bidirectional);
    let mut member = Classic::new("c1");
    let reply = member.send_join(&mut h);
    h.advance(200);
    member.generation = h.join_answer(&reply).expect("joined").generation_id;
    let custom = ConsumerProtocolAssignment {
        assigned_partitions: vec![TopicPartition { topic: "orders".to_owned(), partitions: vec![0] }],
        user_data: Some(Bytes::from_static(b"sticky-state")),
    };
    let mut bytes = BytesMut::new();
    bytes.put_i16(0);
    custom.encode(&mut bytes, 0).expect("encode");
    let id = member.member_id.clone();
    assert_eq!(member.sync(&mut h, &[(&id, &bytes)]), 0);
    let response = h.cg_heartbeat(&cg_join(G, "m1", &["orders"]));
    assert_eq!(response.error_code, ErrorCode::GroupIdNotFound.code());
    assert!(response.error_message.as_deref().is_some_and(|m| m.contains("unsupported custom assignor")));
    assert_eq!(h.group_state(G), Some("Stable"));
}

/// Cooperative classic members keep their partitions across rejoins and report them: one told to
/// give partitions up gets the reduced assignment, revokes, and only then do others get them.
#[test]
fn cooperative_classic_members_revoke_first() {
    let mut h = harness(MigrationPolicy::Bidirectional);
    let mut modern = vec![Modern::new("m1")];
    modern[0].join(&mut h);
    let mut classic = Vec::new();
    settle(&mut h, &mut classic, &mut modern);
    assert_eq!(modern[0].owned.len(), 6);
    let mut c1 = Classic::new("c1");
    c1.cooperative = true;
    assert_eq!(c1.join_and_sync(&mut h), 0);
    assert!(c1.owned.is_empty(), "m1 still holds everything");
    classic.push(c1);
    settle(&mut h, &mut classic, &mut modern);
    assert_eq!(classic[0].owned.len(), 3);
    modern.push(Modern::new("m2"));
    assert_eq!(modern[1].join(&mut h), 0);
    settle(&mut h, &mut classic, &mut modern);
    assert_eq!(classic[0].owned.len(), 2, "c1 revoked one partition for m2");
    assert_replays(&h, MigrationPolicy::Bidirectional);
}
