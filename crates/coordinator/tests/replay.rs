//! Loading is replay: the records a shard wrote, read back (through their bytes) by a fresh shard,
//! give the same groups and offsets. Checked on a fixed scenario and on random sequences of
//! requests and clock moves (proptest; a failure prints the sequence that reproduces it),
//! transactional offset commits and their markers among them.

mod common;

use std::collections::{BTreeMap, HashMap};

use common::*;
use proptest::prelude::*;
use strand_coordinator::GroupConfig;
use strand_coordinator::group::Reply;
use strand_protocol::messages::offset_delete_request::{OffsetDeleteRequestPartition, OffsetDeleteRequestTopic};
use strand_protocol::messages::txn_offset_commit_request::{
    TxnOffsetCommitRequestPartition, TxnOffsetCommitRequestTopic,
};
use strand_protocol::messages::{JoinGroupResponse, OffsetDeleteRequest, SyncGroupResponse, TxnOffsetCommitRequest};
use strand_protocol::records::TransactionResult;

fn config() -> GroupConfig {
    GroupConfig {
        initial_rebalance_delay_ms: 100,
        offsets_retention_minutes: 1,
        offsets_retention_check_interval_ms: 20_000,
        ..GroupConfig::default()
    }
}

/// Every group the live shard holds in Stable or Empty, and every offset (committed, and pending
/// in open transactions), equal the replayed shard's. (Groups mid-rebalance differ by design:
/// their next record is not written yet.)
fn assert_replay_reproduces(h: &Harness) {
    let replayed = replayed_entries(config(), &h.entries);
    assert_eq!(h.shard.pending_offsets(), replayed.pending_offsets(), "pending offsets differ after replay");
    let (live_groups, live_offsets) = durable_view(&h.shard);
    let (replayed_groups, replayed_offsets) = durable_view(&replayed);
    assert_eq!(live_offsets, replayed_offsets, "offsets differ after replay");
    for (id, live) in &live_groups {
        if live.state == "Stable" || live.state == "Empty" {
            assert_eq!(Some(live), replayed_groups.get(id), "group {id} differs after replay");
        } else {
            assert!(replayed_groups.contains_key(id), "group {id} was written when created");
        }
    }
    for id in replayed_groups.keys() {
        assert!(live_groups.contains_key(id), "group {id} was deleted but replay kept it");
    }
    // Consumer groups are durable state only: replay gives back every one of them whole.
    assert_eq!(consumer_view(&h.shard), consumer_view(&replayed), "consumer groups differ after replay");
}

/// A scenario touching every record kind: a consumer group that syncs, a static member replaced,
/// a group that empties, a simple group, a deleted group, expired offsets.
#[test]
fn replay_reproduces_groups_and_offsets() {
    let mut h = Harness::new(config());
    let (a, ra) = h.join_new_member("g1", "a");
    let (b, rb) = h.join_new_member("g1", "b");
    let rs = h.join("s", &join_request("g2", "", Some("static-1")), 5);
    h.advance(200);
    let generation = h.join_answer(&ra).expect("a").generation_id;
    h.join_answer(&rb).expect("b");
    let s = h.join_answer(&rs).expect("s").member_id;
    h.sync(&sync_request("g1", &b, generation, &[]));
    h.sync(&sync_request("g1", &a, generation, &[(&a, b"one"), (&b, b"two")]));
    h.sync(&sync_request("g2", &s, 1, &[(&s, b"static")]));
    h.commit(&commit_request("g1", generation, &a, None, &[("orders", 0, 10), ("orders", 1, 11)]), 9);
    h.commit(&commit_request("simple", -1, "", None, &[("t", 0, 1)]), 9);
    h.commit(&commit_request("doomed", -1, "", None, &[("t", 0, 2)]), 9);
    let again = h.join("s", &join_request("g2", "", Some("static-1")), 5);
    h.join_answer(&again).expect("static member replaced");
    let out = h.shard.delete_groups(&["doomed".to_owned()]);
    h.absorb(out);
    // g1's b leaves and a is gone too: g1 rebalances to Empty.
    h.leave("g1", &[(&b, None), (&a, None)]);
    assert_eq!(h.group_state("g1"), Some("Empty"));
    assert_replay_reproduces(&h);
    assert_eq!(durable_view(&h.shard).1.len(), 3, "g1's two offsets and the simple group's");

    // A minute after emptying, g1's offsets expire and g1 goes; the simple group's too.
    h.advance(80_000);
    assert!(h.shard.group("g1").is_none() && h.shard.group("simple").is_none());
    assert_eq!(h.group_state("g2"), None, "g2's member stopped heartbeating: it left and g2 expired");
    assert_replay_reproduces(&h);
}

/// Consumer groups of every shape: members joining with names, a regex and as static members,
/// revoking, leaving, a static member away and back, a session expiring, topics growing and
/// appearing, offsets committed by members, and a group deleted.
#[test]
fn replay_reproduces_consumer_groups() {
    let mut h = Harness::new(config());
    h.shard.set_metadata(topics(1, &[("orders", 4), ("auto-a", 2)]));
    let beat = |h: &mut Harness, member: &str, epoch: i32, owned: &[(&str, &[i32])]| {
        let response = h.cg_heartbeat(&cg_beat("cg", member, epoch, owned));
        assert_eq!(response.error_code, 0, "{member}: {response:?}");
        response.member_epoch
    };
    assert_eq!(h.cg_heartbeat(&cg_join("cg", "a", &["orders"])).error_code, 0);
    let mut regex = cg_join("cg", "r", &[]);
    regex.subscribed_topic_names = None;
    regex.subscribed_topic_regex = Some("auto-.*".to_owned());
    assert_eq!(h.cg_heartbeat(&regex).error_code, 0);
    let mut statik = cg_join("cg", "s", &["orders", "auto-a"]);
    statik.instance_id = Some("i".to_owned());
    statik.server_assignor = Some("range".to_owned());
    assert_eq!(h.cg_heartbeat(&statik).error_code, 0);
    assert_replay_reproduces(&h);
    // a revokes what it must and the others pick up what is free.
    let a_epoch = beat(&mut h, "a", 1, &[("orders", &[0, 1, 2, 3])]);
    assert_replay_reproduces(&h);
    let owned_a: Vec<i32> = h
        .shard
        .consumer_group("cg")
        .and_then(|g| g.member("a"))
        .map(|m| {
            m.assigned_partitions().get(&topic_id("orders")).map(|p| p.iter().copied().collect()).unwrap_or_default()
        })
        .unwrap_or_default();
    beat(&mut h, "a", a_epoch, &[("orders", &owned_a)]);
    h.commit(
        &commit_request(
            "cg",
            h.shard.consumer_group("cg").and_then(|g| g.member("a")).map_or(0, |m| m.member_epoch),
            "a",
            None,
            &[("orders", owned_a[0], 7)],
        ),
        9,
    );
    assert_replay_reproduces(&h);
    // The static member steps away and comes back under a new id.
    let away = strand_protocol::messages::ConsumerGroupHeartbeatRequest {
        member_epoch: -2,
        instance_id: Some("i".to_owned()),
        ..cg_beat("cg", "s", 3, &[])
    };
    assert_eq!(h.cg_heartbeat(&away).error_code, 0);
    assert_replay_reproduces(&h);
    let mut back = cg_join("cg", "s2", &["orders", "auto-a"]);
    back.instance_id = Some("i".to_owned());
    assert_eq!(h.cg_heartbeat(&back).error_code, 0);
    assert_replay_reproduces(&h);
    // A new matching topic and more partitions.
    h.shard.set_metadata(topics(2, &[("orders", 6), ("auto-a", 2), ("auto-b", 3)]));
    h.advance(10_000);
    let r_epoch = h.shard.consumer_group("cg").and_then(|g| g.member("r")).map_or(0, |m| m.member_epoch);
    beat(&mut h, "r", r_epoch, &[]);
    assert_replay_reproduces(&h);
    // r stops heartbeating and expires; a leaves.
    h.advance(46_000);
    let leave =
        strand_protocol::messages::ConsumerGroupHeartbeatRequest { member_epoch: -1, ..cg_beat("cg", "a", 0, &[]) };
    h.cg_heartbeat(&leave);
    assert_replay_reproduces(&h);
    assert!(
        h.shard.consumer_group("cg").is_none() || h.shard.consumer_group("cg").is_some_and(|g| g.member("r").is_none())
    );
    // Everyone gone: the group is deleted with its offsets.
    h.advance(60_000);
    let out = h.shard.delete_groups(&["cg".to_owned()]);
    h.absorb(out);
    assert!(h.shard.group("cg").is_none());
    assert_replay_reproduces(&h);
}

/// One step of a random run.
#[derive(Debug, Clone)]
enum Op {
    Join {
        group: usize,
        client: usize,
        instance: bool,
        version: i16,
        topics: usize,
    },
    Sync {
        group: usize,
        client: usize,
    },
    Heartbeat {
        group: usize,
        client: usize,
    },
    Leave {
        group: usize,
        client: usize,
    },
    Commit {
        group: usize,
        client: usize,
        partition: i32,
        offset: i64,
        standalone: bool,
    },
    DeleteOffset {
        group: usize,
        topic: usize,
    },
    DeleteGroup {
        group: usize,
    },
    Advance {
        ms: i64,
    },
    CgJoin {
        member: usize,
        subscription: usize,
        instance: bool,
        assignor: usize,
    },
    CgBeat {
        member: usize,
        ack: bool,
    },
    CgLeave {
        member: usize,
        temporarily: bool,
    },
    CgCommit {
        member: usize,
        partition: i32,
    },
    Topics {
        orders: i32,
        extra: bool,
    },
    /// A TxnOffsetCommit from outside group management by one of two producers.
    TxnCommit {
        producer: i64,
        group: usize,
        partition: i32,
        offset: i64,
    },
    /// A producer's transaction ends.
    EndTxn {
        producer: i64,
        commit: bool,
    },
}

const CG_MEMBERS: usize = 4;
const CG_SUBSCRIPTIONS: usize = 3;

/// Classic clients join "cg" too, the group consumer-protocol members use: they upgrade it when it
/// is classic, join it as classic members when it is a consumer group, and downgrade it when the
/// last consumer-protocol member leaves.
const GROUPS: [&str; 3] = ["alpha", "beta", "cg"];
const CLIENTS: usize = 4;
const TOPICS: [&[&str]; 2] = [&["orders"], &["orders", "payments"]];

fn op() -> impl Strategy<Value = Op> {
    let group = 0..GROUPS.len();
    let client = 0..CLIENTS;
    prop_oneof![
        4 => (group.clone(), client.clone(), any::<bool>(), prop::sample::select(vec![3i16, 5, 9]), 0..TOPICS.len())
            .prop_map(|(group, client, instance, version, topics)| Op::Join { group, client, instance, version, topics }),
        3 => (group.clone(), client.clone()).prop_map(|(group, client)| Op::Sync { group, client }),
        3 => (group.clone(), client.clone()).prop_map(|(group, client)| Op::Heartbeat { group, client }),
        1 => (group.clone(), client.clone()).prop_map(|(group, client)| Op::Leave { group, client }),
        3 => (group.clone(), client.clone(), 0..3i32, 0..1000i64, any::<bool>()).prop_map(
            |(group, client, partition, offset, standalone)| Op::Commit { group, client, partition, offset, standalone }
        ),
        1 => (group.clone(), 0..2usize).prop_map(|(group, topic)| Op::DeleteOffset { group, topic }),
        1 => group.prop_map(|group| Op::DeleteGroup { group }),
        3 => prop_oneof![6 => 0..3_000i64, 2 => 0..12_000i64, 1 => Just(35_000i64)].prop_map(|ms| Op::Advance { ms }),
        3 => (0..CG_MEMBERS, 0..CG_SUBSCRIPTIONS, any::<bool>(), 0..3usize)
            .prop_map(|(member, subscription, instance, assignor)| Op::CgJoin { member, subscription, instance, assignor }),
        6 => (0..CG_MEMBERS, any::<bool>()).prop_map(|(member, ack)| Op::CgBeat { member, ack }),
        1 => (0..CG_MEMBERS, any::<bool>()).prop_map(|(member, temporarily)| Op::CgLeave { member, temporarily }),
        1 => (0..CG_MEMBERS, 0..4i32).prop_map(|(member, partition)| Op::CgCommit { member, partition }),
        1 => (1..6i32, any::<bool>()).prop_map(|(orders, extra)| Op::Topics { orders, extra }),
        2 => (0..2i64, 0..GROUPS.len(), 0..3i32, 0..1000i64)
            .prop_map(|(producer, group, partition, offset)| Op::TxnCommit { producer, group, partition, offset }),
        2 => (0..2i64, any::<bool>()).prop_map(|(producer, commit)| Op::EndTxn { producer, commit }),
    ]
}

/// What a simulated client knows of its membership in one group.
#[derive(Debug, Default, Clone)]
struct Membership {
    member_id: String,
    generation: i32,
    leader_of: Vec<String>,
}

/// A consumer-protocol client: member id, epoch, owned partitions by topic id, instance id.
type CgClient = (String, i32, Vec<(strand_base::Uuid, Vec<i32>)>, Option<String>);

/// Random clients over a harness: they join, sync (the leader assigning), heartbeat, leave and
/// commit as real clients would, with whatever they last learned.
struct Clients {
    h: Harness,
    known: HashMap<(usize, usize), Membership>,
    /// Consumer-protocol members: (member id, epoch, owned assignment, instance id).
    consumers: HashMap<usize, CgClient>,
    metadata_version: i64,
    joins: Vec<((usize, usize), Reply<JoinGroupResponse>)>,
    syncs: Vec<Reply<SyncGroupResponse>>,
}

impl Clients {
    fn membership(&self, group: usize, client: usize) -> Membership {
        self.known.get(&(group, client)).cloned().unwrap_or_default()
    }

    fn apply(&mut self, op: &Op) {
        match *op {
            Op::Join { group, client, instance, version, topics } => {
                let known = self.membership(group, client);
                let instance_id = format!("instance-{client}");
                let mut request =
                    join_request(GROUPS[group], &known.member_id, instance.then_some(instance_id.as_str()));
                request.protocols = protocols(&["range"], TOPICS[topics]);
                let reply = self.h.join(&format!("client-{client}"), &request, version);
                self.joins.push(((group, client), reply));
            }
            Op::Sync { group, client } => self.send_sync(group, client),
            Op::Heartbeat { group, client } => {
                let known = self.membership(group, client);
                self.h.heartbeat(GROUPS[group], &known.member_id, known.generation, None);
            }
            Op::Leave { group, client } => {
                let known = self.membership(group, client);
                self.h.leave(GROUPS[group], &[(&known.member_id, None)]);
            }
            Op::Commit { group, client, partition, offset, standalone } => {
                let known = self.membership(group, client);
                let (generation, member) =
                    if standalone { (-1, String::new()) } else { (known.generation, known.member_id) };
                let request =
                    commit_request(GROUPS[group], generation, &member, None, &[("orders", partition, offset)]);
                self.h.commit(&request, 9);
            }
            Op::DeleteOffset { group, topic } => {
                let request = OffsetDeleteRequest {
                    group_id: GROUPS[group].to_owned(),
                    topics: vec![OffsetDeleteRequestTopic {
                        name: ["orders", "payments"][topic].to_owned(),
                        partitions: (0..3).map(|p| OffsetDeleteRequestPartition { partition_index: p }).collect(),
                    }],
                };
                let out = self.h.shard.offset_delete(&request);
                self.h.absorb(out);
            }
            Op::DeleteGroup { group } => {
                let out = self.h.shard.delete_groups(&[GROUPS[group].to_owned()]);
                self.h.absorb(out);
            }
            Op::Advance { ms } => self.h.advance(ms),
            Op::CgJoin { member, subscription, instance, assignor } => {
                self.cg_join(member, subscription, instance, assignor)
            }
            Op::CgBeat { member, ack } => self.cg_beat(member, ack),
            Op::CgLeave { member, temporarily } => {
                if let Some((id, _, _, instance)) = self.consumers.get(&member).cloned() {
                    let request = strand_protocol::messages::ConsumerGroupHeartbeatRequest {
                        member_epoch: if temporarily && instance.is_some() { -2 } else { -1 },
                        instance_id: instance,
                        ..cg_beat("cg", &id, 0, &[])
                    };
                    self.h.cg_heartbeat(&request);
                    if !temporarily {
                        self.consumers.remove(&member);
                    }
                }
            }
            Op::CgCommit { member, partition } => {
                if let Some((id, epoch, _, _)) = self.consumers.get(&member).cloned() {
                    let request = commit_request("cg", epoch, &id, None, &[("orders", partition, 1)]);
                    self.h.commit(&request, 9);
                }
            }
            Op::TxnCommit { producer, group, partition, offset } => {
                let request = TxnOffsetCommitRequest {
                    transactional_id: format!("tx-{producer}"),
                    group_id: GROUPS[group].to_owned(),
                    producer_id: strand_base::ProducerId(producer),
                    generation_id_or_member_epoch: -1,
                    topics: vec![TxnOffsetCommitRequestTopic {
                        name: "orders".to_owned(),
                        partitions: vec![TxnOffsetCommitRequestPartition {
                            partition_index: partition,
                            committed_offset: offset,
                            ..TxnOffsetCommitRequestPartition::default()
                        }],
                        ..TxnOffsetCommitRequestTopic::default()
                    }],
                    ..TxnOffsetCommitRequest::default()
                };
                self.h.txn_commit(&request);
            }
            Op::EndTxn { producer, commit } => {
                let result = if commit { TransactionResult::Commit } else { TransactionResult::Abort };
                self.h.end_txn(strand_base::ProducerId(producer), result);
            }
            Op::Topics { orders, extra } => {
                self.metadata_version += 1;
                let mut list = vec![("orders", orders), ("auto-a", 2)];
                if extra {
                    list.push(("auto-b", 1));
                }
                self.h.shard.set_metadata(topics(self.metadata_version, &list));
            }
        }
        self.learn();
    }

    fn cg_join(&mut self, member: usize, subscription: usize, instance: bool, assignor: usize) {
        let generation = self.metadata_version;
        let id = format!("cg-member-{member}-{generation}-{}", self.h.now);
        let mut request = match subscription {
            0 => cg_join("cg", &id, &["orders"]),
            1 => cg_join("cg", &id, &["orders", "auto-a"]),
            _ => {
                let mut request = cg_join("cg", &id, &[]);
                request.subscribed_topic_names = None;
                request.subscribed_topic_regex = Some("auto-.*".to_owned());
                request
            }
        };
        let instance = instance.then(|| format!("cg-instance-{member}"));
        request.instance_id = instance.clone();
        request.server_assignor = [None, Some("uniform"), Some("range")][assignor].map(str::to_owned);
        let response = self.h.cg_heartbeat(&request);
        if response.error_code == 0 {
            let owned = cg_assignment(&response).unwrap_or_default();
            self.consumers.insert(member, (id, response.member_epoch, owned, instance));
        }
    }

    fn cg_beat(&mut self, member: usize, ack: bool) {
        let Some((id, epoch, owned, instance)) = self.consumers.get(&member).cloned() else { return };
        let mut request = cg_beat("cg", &id, epoch, &[]);
        request.instance_id = instance.clone();
        request.topic_partitions = ack.then(|| {
            owned
                .iter()
                .map(|(topic, partitions)| {
                    strand_protocol::messages::consumer_group_heartbeat_request::TopicPartitions {
                        topic_id: *topic,
                        partitions: partitions.clone(),
                        ..Default::default()
                    }
                })
                .collect()
        });
        let response = self.h.cg_heartbeat(&request);
        if response.error_code == 0 {
            let owned = cg_assignment(&response).unwrap_or(owned);
            self.consumers.insert(member, (id, response.member_epoch, owned, instance));
        } else if response.error_code != strand_protocol::error::ErrorCode::CoordinatorNotAvailable.code() {
            self.consumers.remove(&member);
        }
    }

    /// Takes in every answer that arrived; a member that got its JoinGroup answer sends its
    /// SyncGroup at once, as clients do (the leader with an assignment for every member).
    fn learn(&mut self) {
        loop {
            let mut synced = Vec::new();
            let joins = std::mem::take(&mut self.joins);
            for (who, reply) in joins {
                match self.h.join_answer(&reply) {
                    None => self.joins.push((who, reply)),
                    Some(answer) => {
                        let known = self.known.entry(who).or_default();
                        if answer.error_code == 0 {
                            known.member_id = answer.member_id.clone();
                            known.generation = answer.generation_id;
                            known.leader_of = answer.members.iter().map(|m| m.member_id.clone()).collect();
                            synced.push(who);
                        } else if !answer.member_id.is_empty() {
                            known.member_id = answer.member_id.clone();
                        }
                    }
                }
            }
            let syncs = std::mem::take(&mut self.syncs);
            for reply in syncs {
                if self.h.sync_answer(&reply).is_none() {
                    self.syncs.push(reply);
                }
            }
            if synced.is_empty() {
                return;
            }
            for (group, client) in synced {
                self.send_sync(group, client);
            }
        }
    }

    fn send_sync(&mut self, group: usize, client: usize) {
        let known = self.membership(group, client);
        // The leader deals orders' partitions out in turn, as real consumer protocol assignments
        // (so that a group of them can be upgraded).
        let count = known.leader_of.len().max(1);
        let assignments: Vec<(String, Vec<u8>)> = known
            .leader_of
            .iter()
            .enumerate()
            .map(|(i, m)| {
                let partitions: Vec<i32> =
                    (0..3i32).filter(|p| usize::try_from(*p).unwrap_or(0) % count == i).collect();
                (m.clone(), orders_assignment(&partitions))
            })
            .collect();
        let assignments: Vec<(&str, &[u8])> = assignments.iter().map(|(m, a)| (m.as_str(), a.as_slice())).collect();
        let request = sync_request(GROUPS[group], &known.member_id, known.generation, &assignments);
        let reply = self.h.sync(&request);
        self.syncs.push(reply);
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, failure_persistence: None, ..ProptestConfig::default() })]

    /// After any sequence of requests and clock moves, replaying the log gives back every Stable
    /// and Empty group and every offset.
    #[test]
    fn replay_reproduces_any_run(ops in prop::collection::vec(op(), 1..80)) {
        let mut h = Harness::new(config());
        h.shard.set_metadata(topics(0, &[("orders", 3), ("auto-a", 2)]));
        let mut clients = Clients {
            h,
            known: HashMap::new(),
            consumers: HashMap::new(),
            metadata_version: 0,
            joins: Vec::new(),
            syncs: Vec::new(),
        };
        for op in &ops {
            clients.apply(op);
            assert_replay_reproduces(&clients.h);
        }
        let groups: BTreeMap<_, _> = durable_view(&clients.h.shard).0;
        prop_assert!(groups.len() <= GROUPS.len());
        // No partition is ever held by two consumer group members at once.
        if let Some(group) = clients.h.shard.consumer_group("cg") {
            let mut held = std::collections::BTreeSet::new();
            for member in group.members() {
                for (topic, partitions) in member.assigned.iter().chain(member.pending_revocation.iter()) {
                    for partition in partitions.keys() {
                        prop_assert!(held.insert((*topic, *partition)), "partition held twice in {group:?}");
                    }
                }
            }
        }
    }
}

/// A consumer protocol assignment of `partitions` of orders (version 0, prefixed).
fn orders_assignment(partitions: &[i32]) -> Vec<u8> {
    use bytes::BufMut;
    use strand_protocol::Struct;
    use strand_protocol::messages::consumer_protocol_assignment::{ConsumerProtocolAssignment, TopicPartition};
    let assignment = ConsumerProtocolAssignment {
        assigned_partitions: vec![TopicPartition { topic: "orders".to_owned(), partitions: partitions.to_vec() }],
        user_data: None,
    };
    let mut out = bytes::BytesMut::new();
    out.put_i16(0);
    assignment.encode(&mut out, 0).expect("encode an assignment");
    out.to_vec()
}
