//! KIP-848 consumer groups on one shard, driven with a hand-moved clock: joins with the `uniform`
//! and `range` assignors (exact partitions), revocation before reassignment, leaving, session and
//! rebalance timeouts, stale and fenced epochs, static members, regex subscriptions picking up new
//! topics, metadata changes, request validation, describe, offsets, and deletion.

mod common;

use std::collections::BTreeMap;

use common::*;
use strand_base::Uuid;
use strand_coordinator::GroupConfig;
use strand_coordinator::group::Group;
use strand_coordinator::group::consumer::ConsumerGroupState;
use strand_protocol::error::ErrorCode;
use strand_protocol::messages::ConsumerGroupHeartbeatRequest;

const G: &str = "cg";

fn config() -> GroupConfig {
    GroupConfig { consumer_session_timeout_ms: 45_000, ..GroupConfig::default() }
}

/// A simulated KIP-848 consumer: it adopts every assignment it is given at once (revoking what
/// is no longer in it) and reports what it owns in its next heartbeat.
#[derive(Debug, Clone)]
struct Consumer {
    id: String,
    epoch: i32,
    owned: BTreeMap<Uuid, Vec<i32>>,
}

impl Consumer {
    fn new(id: &str) -> Self {
        Consumer { id: id.to_owned(), epoch: 0, owned: BTreeMap::new() }
    }

    fn request(&self) -> ConsumerGroupHeartbeatRequest {
        let mut request = cg_beat(G, &self.id, self.epoch, &[]);
        request.topic_partitions = Some(
            self.owned
                .iter()
                .map(|(topic, partitions)| {
                    strand_protocol::messages::consumer_group_heartbeat_request::TopicPartitions {
                        topic_id: *topic,
                        partitions: partitions.clone(),
                        ..Default::default()
                    }
                })
                .collect(),
        );
        request
    }

    fn join(&mut self, h: &mut Harness, topics: &[&str], assignor: Option<&str>) -> i16 {
        let mut request = cg_join(G, &self.id, topics);
        request.server_assignor = assignor.map(str::to_owned);
        self.send(h, &request)
    }

    fn beat(&mut self, h: &mut Harness) -> i16 {
        let request = self.request();
        self.send(h, &request)
    }

    fn send(&mut self, h: &mut Harness, request: &ConsumerGroupHeartbeatRequest) -> i16 {
        let response = h.cg_heartbeat(request);
        if response.error_code == 0 {
            self.epoch = response.member_epoch;
            if let Some(assignment) = cg_assignment(&response) {
                self.owned = assignment.into_iter().collect();
            }
        }
        response.error_code
    }

    /// Partitions of `topic` it owns.
    fn of(&self, topic: &str) -> Vec<i32> {
        self.owned.get(&topic_id(topic)).cloned().unwrap_or_default()
    }
}

/// Heartbeats every consumer in turn until a whole round changes nothing.
fn settle(h: &mut Harness, consumers: &mut [Consumer]) {
    for _ in 0..20 {
        let before: Vec<_> = consumers.iter().map(|c| (c.epoch, c.owned.clone())).collect();
        for consumer in consumers.iter_mut() {
            assert_eq!(consumer.beat(h), 0, "{} heartbeat", consumer.id);
        }
        let after: Vec<_> = consumers.iter().map(|c| (c.epoch, c.owned.clone())).collect();
        if before == after {
            return;
        }
    }
    panic!("the group did not settle");
}

fn state(h: &Harness) -> ConsumerGroupState {
    h.shard.consumer_group(G).expect("consumer group").state()
}

fn harness(topic_list: &[(&str, i32)]) -> Harness {
    let mut h = Harness::new(config());
    h.shard.set_metadata(topics(10, topic_list));
    h
}

/// Three members join one by one with the default `uniform` assignor: each join bumps the group
/// epoch, and the six partitions end up two each, every move going through revocation first.
#[test]
fn three_members_with_uniform() {
    let mut h = harness(&[("orders", 6)]);
    let mut a = Consumer::new("a");
    assert_eq!(a.join(&mut h, &["orders"], None), 0);
    assert_eq!((a.epoch, a.of("orders")), (1, vec![0, 1, 2, 3, 4, 5]));
    assert_eq!(state(&h), ConsumerGroupState::Stable);

    let mut b = Consumer::new("b");
    assert_eq!(b.join(&mut h, &["orders"], None), 0);
    // b's target (3, 4, 5) is still a's: b moves to epoch 2 with nothing yet.
    assert_eq!((b.epoch, b.of("orders")), (2, vec![]));
    assert_eq!(state(&h), ConsumerGroupState::Reconciling);
    // a is asked to revoke 3, 4, 5 and stays at epoch 1 until it has.
    assert_eq!(a.beat(&mut h), 0);
    assert_eq!((a.epoch, a.of("orders")), (1, vec![0, 1, 2]));
    assert_eq!(b.beat(&mut h), 0);
    assert_eq!(b.of("orders"), Vec::<i32>::new(), "not before a acknowledged the revocation");
    assert_eq!(a.beat(&mut h), 0);
    assert_eq!(a.epoch, 2);
    assert_eq!(b.beat(&mut h), 0);
    assert_eq!((b.epoch, b.of("orders")), (2, vec![3, 4, 5]));

    let mut c = Consumer::new("c");
    assert_eq!(c.join(&mut h, &["orders"], None), 0);
    let mut all = [a, b, c];
    settle(&mut h, &mut all);
    let [a, b, c] = all;
    assert_eq!((a.of("orders"), b.of("orders"), c.of("orders")), (vec![0, 1], vec![3, 4], vec![2, 5]));
    assert!([a.epoch, b.epoch, c.epoch].iter().all(|e| *e == 3));
    assert_eq!(state(&h), ConsumerGroupState::Stable);
    let group = h.shard.consumer_group(G).expect("group");
    assert_eq!((group.group_epoch(), group.assignment_epoch()), (3, 3));
}

/// With `range` asked for by the members, ranges per topic in member order.
#[test]
fn three_members_with_range() {
    let mut h = harness(&[("orders", 7), ("payments", 2)]);
    let mut consumers = [Consumer::new("m1"), Consumer::new("m2"), Consumer::new("m3")];
    for consumer in consumers.iter_mut() {
        assert_eq!(consumer.join(&mut h, &["orders", "payments"], Some("range")), 0);
    }
    settle(&mut h, &mut consumers);
    let [m1, m2, m3] = &consumers;
    assert_eq!((m1.of("orders"), m2.of("orders"), m3.of("orders")), (vec![0, 1, 2], vec![3, 4], vec![5, 6]));
    assert_eq!((m1.of("payments"), m2.of("payments"), m3.of("payments")), (vec![0], vec![1], vec![]));
    let described = h.shard.consumer_group_describe(&[G.to_owned()]);
    assert_eq!(described[0].assignor_name, "range");
    assert_eq!(described[0].group_state, "Stable");
    assert_eq!(described[0].members.len(), 3);
}

/// A member leaves (epoch -1): its partitions are free at once and go to the others at their next
/// heartbeats; a member whose session expires is fenced the same way.
#[test]
fn leaving_and_expiring_members_release_partitions() {
    let mut h = harness(&[("orders", 4)]);
    let mut consumers = [Consumer::new("a"), Consumer::new("b")];
    for consumer in consumers.iter_mut() {
        consumer.join(&mut h, &["orders"], None);
    }
    settle(&mut h, &mut consumers);
    let [mut a, mut b] = consumers;
    assert_eq!((a.of("orders"), b.of("orders")), (vec![0, 1], vec![2, 3]));

    let leave = ConsumerGroupHeartbeatRequest { member_epoch: -1, ..cg_beat(G, "b", b.epoch, &[]) };
    let response = h.cg_heartbeat(&leave);
    assert_eq!((response.error_code, response.member_epoch), (0, -1));
    assert_eq!(a.beat(&mut h), 0);
    assert_eq!(a.of("orders"), vec![0, 1, 2, 3]);

    // b comes back, then stops heartbeating: 45 s later it is fenced and a gets everything again.
    b = Consumer::new("b");
    b.join(&mut h, &["orders"], None);
    let mut both = [a, b];
    settle(&mut h, &mut both);
    let [mut a, b] = both;
    assert_eq!(b.of("orders").len(), 2);
    for _ in 0..10 {
        h.advance(5_000);
        assert_eq!(a.beat(&mut h), 0);
    }
    assert!(h.shard.consumer_group(G).expect("group").member("b").is_none(), "b's session expired");
    assert_eq!(a.of("orders"), vec![0, 1, 2, 3]);
}

/// A member that does not revoke within its rebalance timeout is fenced, and the partitions it
/// held go to the member waiting for them.
#[test]
fn a_member_that_never_revokes_is_fenced() {
    let mut h = harness(&[("orders", 2)]);
    let mut a = Consumer::new("a");
    a.join(&mut h, &["orders"], None);
    let mut b = Consumer::new("b");
    b.join(&mut h, &["orders"], None);
    // a hears of the revocation but keeps reporting both partitions.
    let stubborn = a.request();
    h.cg_heartbeat(&stubborn);
    let member = h.shard.consumer_group(G).and_then(|g| g.member("a")).expect("a");
    assert_eq!(member.state, strand_coordinator::group::consumer::MemberState::UnrevokedPartitions);
    for _ in 0..6 {
        h.advance(5_000);
        h.cg_heartbeat(&stubborn);
        b.beat(&mut h);
    }
    h.advance(5_001);
    assert!(h.shard.consumer_group(G).expect("group").member("a").is_none(), "fenced after the rebalance timeout");
    assert_eq!(b.beat(&mut h), 0);
    assert_eq!(b.of("orders"), vec![0, 1]);
    assert_eq!(h.cg_heartbeat(&stubborn).error_code, ErrorCode::UnknownMemberId.code());
}

/// Epochs: ahead of the coordinator's or behind it (other than the previous one with a subset of
/// the assignment) is FENCED_MEMBER_EPOCH; OffsetCommit with a newer epoch is STALE_MEMBER_EPOCH,
/// with an older one it is accepted for partitions held since then.
#[test]
fn stale_and_fenced_epochs() {
    let mut h = harness(&[("orders", 2)]);
    let mut a = Consumer::new("a");
    a.join(&mut h, &["orders"], None);
    assert_eq!(a.epoch, 1);
    let ahead = cg_beat(G, "a", 5, &[("orders", &[0, 1])]);
    assert_eq!(h.cg_heartbeat(&ahead).error_code, ErrorCode::FencedMemberEpoch.code());
    let mut b = Consumer::new("b");
    b.join(&mut h, &["orders"], None);
    let mut both = [a, b];
    settle(&mut h, &mut both);
    let [a, _b] = both;
    assert_eq!(a.epoch, 2);
    // Epoch 1 is a's previous epoch, and it owns a subset of its assignment: accepted.
    let previous = cg_beat(G, "a", 1, &[("orders", &a.of("orders"))]);
    assert_eq!(h.cg_heartbeat(&previous).error_code, 0);
    // Epoch 1 while owning what it no longer has: fenced.
    let behind = cg_beat(G, "a", 1, &[("orders", &[0, 1])]);
    assert_eq!(h.cg_heartbeat(&behind).error_code, ErrorCode::FencedMemberEpoch.code());
    let unknown = cg_beat(G, "nobody", 1, &[]);
    assert_eq!(h.cg_heartbeat(&unknown).error_code, ErrorCode::UnknownMemberId.code());

    let held = a.of("orders")[0];
    let commit = |epoch: i32, partition: i32| commit_request(G, epoch, "a", None, &[("orders", partition, 10)]);
    assert_eq!(commit_errors(&h.commit(&commit(2, held), 9)), vec![0]);
    assert_eq!(commit_errors(&h.commit(&commit(3, held), 9)), vec![ErrorCode::StaleMemberEpoch.code()]);
    // Older epoch: fine for a partition assigned at or before it, stale for one assigned later.
    let assigned_at = h
        .shard
        .consumer_group(G)
        .and_then(|g| g.member("a"))
        .and_then(|m| m.assignment_epoch(topic_id("orders"), held));
    assert_eq!(assigned_at, Some(1));
    assert_eq!(commit_errors(&h.commit(&commit(1, held), 9)), vec![0]);
    assert_eq!(commit_errors(&h.commit(&commit(0, held), 9)), vec![ErrorCode::StaleMemberEpoch.code()]);
    assert_eq!(commit_errors(&h.commit(&commit(2, held), 8)), vec![ErrorCode::UnsupportedVersion.code()]);
    assert_eq!(
        commit_errors(&h.commit(&commit_request(G, 2, "x", None, &[("orders", 0, 1)]), 9)),
        vec![ErrorCode::UnknownMemberId.code()]
    );
}

/// A static member leaving with epoch -2 keeps its partitions; the same instance rejoining under a
/// new member id takes them over; another member claiming the instance meanwhile gets
/// UNRELEASED_INSTANCE_ID.
#[test]
fn static_member_rejoins_with_its_assignment() {
    let mut h = harness(&[("orders", 4)]);
    let mut s = Consumer::new("s1");
    let mut join = cg_join(G, "s1", &["orders"]);
    join.instance_id = Some("instance".to_owned());
    assert_eq!(s.send(&mut h, &join), 0);
    let mut d = Consumer::new("d");
    d.join(&mut h, &["orders"], None);
    let mut statically = [s, d];
    let instance_beat =
        |c: &Consumer| ConsumerGroupHeartbeatRequest { instance_id: Some("instance".to_owned()), ..c.request() };
    for _ in 0..5 {
        let request = instance_beat(&statically[0]);
        statically[0].send(&mut h, &request);
        statically[1].beat(&mut h);
    }
    let [s, mut d] = statically;
    let held = s.of("orders");
    assert_eq!(held.len(), 2);

    let away = ConsumerGroupHeartbeatRequest { member_epoch: -2, ..instance_beat(&s) };
    let response = h.cg_heartbeat(&away);
    assert_eq!((response.error_code, response.member_epoch), (0, -2));
    let epoch_before = h.shard.consumer_group(G).expect("group").group_epoch();

    let mut other = cg_join(G, "s-other", &["orders"]);
    other.instance_id = Some("instance".to_owned());
    // Released by the -2 leave: a new member id may take the instance over.
    let mut s2 = Consumer::new("s2");
    let mut rejoin = cg_join(G, "s2", &["orders"]);
    rejoin.instance_id = Some("instance".to_owned());
    assert_eq!(s2.send(&mut h, &rejoin), 0);
    assert_eq!(s2.of("orders"), held, "the new member id keeps the instance's partitions");
    assert_eq!(h.shard.consumer_group(G).expect("group").group_epoch(), epoch_before, "no rebalance");
    assert!(h.shard.consumer_group(G).expect("group").member("s1").is_none());
    // The instance is owned again: another member claiming it is refused.
    assert_eq!(h.cg_heartbeat(&other).error_code, ErrorCode::UnreleasedInstanceId.code());
    // The old member id is fenced by the new one.
    assert_eq!(h.cg_heartbeat(&instance_beat(&s)).error_code, ErrorCode::FencedInstanceId.code());
    assert_eq!(d.beat(&mut h), 0);
}

/// A regex subscription matches existing topics, and a topic created later that matches is picked
/// up (after Kafka's 10 s minimum refresh interval) without the member doing anything.
#[test]
fn regex_subscription_picks_up_new_topics() {
    let mut h = harness(&[("auto-one", 2), ("other", 3)]);
    let mut a = Consumer::new("a");
    let mut join = cg_join(G, "a", &[]);
    join.subscribed_topic_names = None;
    join.subscribed_topic_regex = Some("auto-.*".to_owned());
    assert_eq!(a.send(&mut h, &join), 0);
    assert_eq!((a.of("auto-one"), a.of("other")), (vec![0, 1], vec![]));
    let regexes = h.shard.consumer_group(G).expect("group").regexes().clone();
    assert_eq!(regexes["auto-.*"].topics.iter().cloned().collect::<Vec<_>>(), vec!["auto-one".to_owned()]);

    h.shard.set_metadata(topics(20, &[("auto-one", 2), ("auto-two", 1), ("other", 3)]));
    assert_eq!(a.beat(&mut h), 0);
    assert_eq!(a.of("auto-two"), Vec::<i32>::new(), "not within 10 s of the last resolution");
    h.advance(10_000);
    assert_eq!(a.beat(&mut h), 0);
    assert_eq!((a.of("auto-one"), a.of("auto-two")), (vec![0, 1], vec![0]));
    let described = h.shard.consumer_group_describe(&[G.to_owned()]);
    assert_eq!(described[0].members[0].subscribed_topic_regex.as_deref(), Some("auto-.*"));
    assert_eq!(described[0].members[0].assignment.topic_partitions.len(), 2);
}

/// More partitions for a subscribed topic change the metadata hash: the next heartbeat bumps the
/// group epoch and hands out the new partitions.
#[test]
fn new_partitions_bump_the_group_epoch() {
    let mut h = harness(&[("orders", 2)]);
    let mut a = Consumer::new("a");
    a.join(&mut h, &["orders"], None);
    assert_eq!(a.epoch, 1);
    h.shard.set_metadata(topics(11, &[("orders", 3)]));
    assert_eq!(a.beat(&mut h), 0);
    assert_eq!((a.epoch, a.of("orders")), (2, vec![0, 1, 2]));
}

/// Requests Kafka rejects before looking at any group, and the errors that need the group.
#[test]
fn invalid_requests_are_rejected_as_kafka_does() {
    let mut h = harness(&[("orders", 1)]);
    let base = cg_join(G, "m", &["orders"]);
    let cases: Vec<(ConsumerGroupHeartbeatRequest, ErrorCode, &str)> = vec![
        (
            ConsumerGroupHeartbeatRequest { member_id: String::new(), ..base.clone() },
            ErrorCode::InvalidRequest,
            "MemberId can't be empty.",
        ),
        (
            ConsumerGroupHeartbeatRequest { group_id: String::new(), ..base.clone() },
            ErrorCode::InvalidRequest,
            "GroupId can't be empty.",
        ),
        (
            ConsumerGroupHeartbeatRequest { instance_id: Some(String::new()), ..base.clone() },
            ErrorCode::InvalidRequest,
            "InstanceId can't be empty.",
        ),
        (
            ConsumerGroupHeartbeatRequest { rebalance_timeout_ms: -1, ..base.clone() },
            ErrorCode::InvalidRequest,
            "RebalanceTimeoutMs must be provided in first request.",
        ),
        (
            ConsumerGroupHeartbeatRequest { topic_partitions: None, ..base.clone() },
            ErrorCode::InvalidRequest,
            "TopicPartitions must be empty when (re-)joining.",
        ),
        (
            ConsumerGroupHeartbeatRequest { subscribed_topic_names: None, ..base.clone() },
            ErrorCode::InvalidRequest,
            "Either SubscribedTopicNames or SubscribedTopicRegex must be non-null when (re-)joining.",
        ),
        (
            ConsumerGroupHeartbeatRequest { member_epoch: -2, ..base.clone() },
            ErrorCode::InvalidRequest,
            "InstanceId can't be null.",
        ),
        (
            ConsumerGroupHeartbeatRequest { member_epoch: -3, ..base.clone() },
            ErrorCode::InvalidRequest,
            "MemberEpoch is invalid.",
        ),
        (
            ConsumerGroupHeartbeatRequest { server_assignor: Some("sticky".into()), ..base.clone() },
            ErrorCode::UnsupportedAssignor,
            "ServerAssignor sticky is not supported. Supported assignors: uniform, range.",
        ),
        (
            ConsumerGroupHeartbeatRequest { member_epoch: 3, ..base.clone() },
            ErrorCode::GroupIdNotFound,
            "Consumer group cg not found.",
        ),
    ];
    for (request, error, message) in cases {
        let response = h.cg_heartbeat(&request);
        assert_eq!(
            (response.error_code, response.error_message.as_deref()),
            (error.code(), Some(message)),
            "{request:?}"
        );
    }
    let bad_regex = ConsumerGroupHeartbeatRequest { subscribed_topic_regex: Some("(".into()), ..base.clone() };
    assert_eq!(h.cg_heartbeat(&bad_regex).error_code, ErrorCode::InvalidRegularExpression.code());
    assert!(h.shard.group(G).is_none(), "no failed request created the group");

    let mut small = Harness::new(GroupConfig { consumer_max_size: 1, ..config() });
    small.shard.set_metadata(topics(10, &[("orders", 1)]));
    assert_eq!(small.cg_heartbeat(&cg_join(G, "one", &["orders"])).error_code, 0);
    assert_eq!(small.cg_heartbeat(&cg_join(G, "two", &["orders"])).error_code, ErrorCode::GroupMaxSizeReached.code());

    // A classic group with members is not turned into a consumer group when the migration
    // policy forbids the upgrade (tests/migration.rs covers the upgrade itself).
    let disabled = GroupConfig { consumer_migration_policy: strand_coordinator::MigrationPolicy::Disabled, ..config() };
    let mut h = Harness::new(disabled);
    h.shard.set_metadata(topics(10, &[("orders", 1)]));
    let (_, reply) = h.join_new_member("classic", "c");
    let _ = reply;
    let response = h.cg_heartbeat(&cg_join("classic", "m", &["orders"]));
    assert_eq!(response.error_code, ErrorCode::GroupIdNotFound.code());
    assert_eq!(
        response.error_message.as_deref(),
        Some("Cannot upgrade classic group classic to consumer group because online upgrade is disabled.")
    );
    // A heartbeat of an established member to a classic group says it is not a consumer group.
    let response = h.cg_heartbeat(&cg_beat("classic", "m", 1, &[]));
    assert_eq!(response.error_message.as_deref(), Some("Group classic is not a consumer group."));
}

/// An empty classic group (here one made by a standalone offset commit) gives way to a consumer
/// group, keeping its offsets; an empty consumer group is deleted with all its tombstones.
#[test]
fn empty_groups_are_replaced_and_deleted() {
    let mut h = harness(&[("orders", 1)]);
    h.commit(&commit_request(G, -1, "", None, &[("orders", 0, 5)]), 9);
    assert!(matches!(h.shard.group(G), Some(Group::Classic(_))));
    let mut a = Consumer::new("a");
    assert_eq!(a.join(&mut h, &["orders"], None), 0);
    assert!(matches!(h.shard.group(G), Some(Group::Consumer(_))));
    assert_eq!(h.fetch(G, None).topics[0].partitions[0].committed_offset, 5);
    let listed = h.shard.list_groups(&[], &["consumer".to_owned()]);
    assert_eq!((listed[0].group_type.as_str(), listed[0].group_state.as_str()), ("consumer", "Stable"));

    let out = h.shard.delete_groups(&[G.to_owned()]);
    assert_eq!(h.absorb(out)[0].error_code, ErrorCode::NonEmptyGroup.code());
    let leave = ConsumerGroupHeartbeatRequest { member_epoch: -1, ..cg_beat(G, "a", a.epoch, &[]) };
    h.cg_heartbeat(&leave);
    assert_eq!(state(&h), ConsumerGroupState::Empty);
    let out = h.shard.delete_groups(&[G.to_owned()]);
    assert_eq!(h.absorb(out)[0].error_code, 0);
    assert!(h.shard.group(G).is_none());
    assert!(replayed(config(), &h.log).group(G).is_none(), "the tombstones delete it on reload too");
}

/// A classic JoinGroup of another protocol type is refused by a consumer group with members (a
/// consumer one joins it, see tests/migration.rs); an empty consumer group gives way to a classic
/// group.
#[test]
fn classic_members_and_consumer_groups() {
    let mut h = harness(&[("orders", 1)]);
    let mut a = Consumer::new("a");
    a.join(&mut h, &["orders"], None);
    let mut connect = join_request(G, "", None);
    connect.protocol_type = "connect".to_owned();
    let refused = h.join("classic-client", &connect, 5);
    let answer = h.join_answer(&refused).expect("answered at once");
    assert_eq!(answer.error_code, ErrorCode::InconsistentGroupProtocol.code());
    let leave = ConsumerGroupHeartbeatRequest { member_epoch: -1, ..cg_beat(G, "a", a.epoch, &[]) };
    h.cg_heartbeat(&leave);
    let (_member, _reply) = h.join_new_member(G, "classic-client");
    assert!(matches!(h.shard.group(G), Some(Group::Classic(_))));
    let reloaded = replayed(config(), &h.log);
    assert!(matches!(reloaded.group(G), Some(Group::Classic(_))), "the consumer group's tombstones come first");
}

/// A member dropping a topic from its subscription revokes that topic's partitions in the same
/// heartbeat (before any new target), and the other member picks them up once released.
#[test]
fn unsubscribing_revokes_at_once() {
    let mut h = harness(&[("orders", 2), ("payments", 2)]);
    let mut a = Consumer::new("a");
    a.join(&mut h, &["orders", "payments"], None);
    assert_eq!((a.of("orders"), a.of("payments")), (vec![0, 1], vec![0, 1]));
    let mut b = Consumer::new("b");
    b.join(&mut h, &["payments"], None);
    let mut both = [a, b];
    settle(&mut h, &mut both);
    let [mut a, b] = both;
    assert_eq!(a.of("orders").len() + a.of("payments").len() + b.of("payments").len(), 4);
    let mut narrower = a.request();
    narrower.subscribed_topic_names = Some(vec!["orders".to_owned()]);
    assert_eq!(a.send(&mut h, &narrower), 0);
    assert_eq!(a.of("payments"), Vec::<i32>::new(), "payments revoked in the same heartbeat");
    let mut both = [a, b];
    settle(&mut h, &mut both);
    let [a, b] = both;
    assert_eq!((a.of("orders"), b.of("payments")), (vec![0, 1], vec![0, 1]));
}
