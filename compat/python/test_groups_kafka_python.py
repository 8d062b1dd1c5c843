"""kafka-python (pure Python) consumer groups (issue 5): KafkaConsumer with group_id subscribes,
commits (explicitly and by auto-commit on close) and a new member resumes at the committed
offsets; two members split a topic's partitions; KafkaAdminClient lists, describes, reads and
alters the group's offsets and deletes it."""

import time

from kafka import KafkaAdminClient, KafkaConsumer, KafkaProducer, OffsetAndMetadata, TopicPartition
from kafka.errors import GroupSubscribedToTopicError, NoError, UnknownMemberIdError

from test_kafka_python import WAIT_S

PARTITIONS = 2


def create_topic(broker, topic, partitions):
    admin = KafkaAdminClient(bootstrap_servers=broker.bootstrap, request_timeout_ms=5000)
    try:
        created = admin.create_topics({topic: {"num_partitions": partitions, "replication_factor": 1}},
                                      timeout_ms=WAIT_S * 1000, wait_for_metadata=True)
        assert [(t["name"], t["error_code"]) for t in created["topics"]] == [(topic, 0)], created
    finally:
        admin.close()


def produce(broker, topic, partition, values):
    """Writes values to one partition; returns their offsets."""
    p = KafkaProducer(bootstrap_servers=broker.bootstrap, request_timeout_ms=5000, max_block_ms=10000, acks="all")
    try:
        return [p.send(topic, value=v.encode(), partition=partition).get(timeout=WAIT_S).offset for v in values]
    finally:
        p.close(timeout=5)


def member(broker, topic, group, **config):
    """A group member subscribed to topic; heartbeats every 0.2 s so rebalances are noticed at once."""
    settings = {"group_id": group, "auto_offset_reset": "earliest", "enable_auto_commit": False,
                "session_timeout_ms": 10000, "heartbeat_interval_ms": 200, "request_timeout_ms": 5000,
                "fetch_max_wait_ms": 100, **config}
    return KafkaConsumer(topic, bootstrap_servers=broker.bootstrap, **settings)


def poll_exactly(c, count):
    """Polls until count records have arrived (failing after WAIT_S), then once more to check that
    nothing beyond them arrives; returns (partition, offset, value) triples, sorted."""
    got = []
    deadline = time.monotonic() + WAIT_S
    while len(got) < count and time.monotonic() < deadline:
        for records in c.poll(timeout_ms=200).values():
            got.extend(records)
    for records in c.poll(timeout_ms=200).values():
        got.extend(records)
    triples = sorted((r.partition, r.offset, r.value.decode()) for r in got)
    assert len(got) == count, f"consumed {triples}, want {count} records"
    return triples


def test_commit_then_a_new_member_resumes(broker, topic_name):
    """A member reads both partitions, commit()s its positions, then an explicit offset with
    metadata; committed() reports them. A second member (auto_offset_reset=latest, so only the
    commit can place it) resumes exactly there, and its auto-commit on close commits what it read."""
    topic, group = topic_name("kp-group"), topic_name("kp-g")
    create_topic(broker, topic, PARTITIONS)
    tp0, tp1 = TopicPartition(topic, 0), TopicPartition(topic, 1)
    for p in (0, 1):
        assert produce(broker, topic, p, [f"p{p}-{i}" for i in range(5)]) == list(range(5))

    first = member(broker, topic, group)
    try:
        assert poll_exactly(first, 10) == [(p, i, f"p{p}-{i}") for p in (0, 1) for i in range(5)]
        first.commit()
        assert (first.committed(tp0), first.committed(tp1)) == (5, 5)
        first.commit({tp0: OffsetAndMetadata(3, "kp-meta", -1)})
        assert first.committed(tp0, metadata=True).metadata == "kp-meta"
        assert first.committed(tp0) == 3
    finally:
        first.close(autocommit=False)

    for p in (0, 1):
        assert produce(broker, topic, p, [f"p{p}-{i}" for i in (5, 6)]) == [5, 6]
    second = member(broker, topic, group, auto_offset_reset="latest", enable_auto_commit=True)
    try:
        assert poll_exactly(second, 6) == [(0, i, f"p0-{i}") for i in (3, 4, 5, 6)] + [(1, 5, "p1-5"), (1, 6, "p1-6")]
    finally:
        second.close()  # autocommit=True: commits the positions before leaving
    admin = KafkaAdminClient(bootstrap_servers=broker.bootstrap, request_timeout_ms=5000)
    try:
        offsets = admin.list_group_offsets({group: None})[group]
        assert {tp: o.offset for tp, o in offsets.items()} == {tp0: 7, tp1: 7}
    finally:
        admin.close()


def test_two_members_split_the_partitions(broker, topic_name):
    """Two members of one group (kafka-python's default assignors: range first) split a
    four-partition topic [0, 1] and [2, 3]; each reads only its own partitions' records."""
    topic, group = topic_name("kp-split"), topic_name("kp-g")
    create_topic(broker, topic, 4)
    members = [member(broker, topic, group, client_id=f"kp-{name}") for name in ("a", "b")]
    try:
        deadline = time.monotonic() + WAIT_S
        shares = []
        while True:
            for m in members:
                assert m.poll(timeout_ms=50) == {}, "a record before any was written"
            shares = [sorted(tp.partition for tp in m.assignment()) for m in members]
            if sorted(shares) == [[0, 1], [2, 3]]:
                break
            assert time.monotonic() < deadline, f"members own {shares}"
        for p in range(4):
            produce(broker, topic, p, [f"p{p}-0", f"p{p}-1"])
        for m, share in zip(members, shares):
            assert poll_exactly(m, 4) == [(p, i, f"p{p}-{i}") for p in share for i in (0, 1)]
    finally:
        for m in members:
            m.close(autocommit=False)


def test_admin_group_operations(broker, topic_name):
    """KafkaAdminClient: list_groups and describe_groups show the active member with its
    assignment; list_group_offsets its commit; once the group is empty alter_group_offsets moves
    the offset, delete_group_offsets removes it, and delete_groups removes the group."""
    topic, group = topic_name("kp-admin-group"), topic_name("kp-g")
    create_topic(broker, topic, 1)
    tp0 = TopicPartition(topic, 0)
    produce(broker, topic, 0, [f"m{i}" for i in range(4)])
    admin = KafkaAdminClient(bootstrap_servers=broker.bootstrap, request_timeout_ms=5000)
    c = member(broker, topic, group, client_id="kp-admin-member")
    try:
        poll_exactly(c, 4)
        c.commit()
        listed = [g for g in admin.list_groups() if g["group_id"] == group]
        assert listed == [{"group_id": group, "group_state": "Stable", "group_type": "classic",
                           "protocol_type": "consumer"}]
        described = admin.describe_groups([group])[group]
        assert described["error"] is None
        assert described["group_state"] == "Stable"
        assert described["protocol_type"] == "consumer"
        assert described["protocol_data"] == "range"
        assert [(m["client_id"], m["client_host"]) for m in described["members"]] == [("kp-admin-member", "/127.0.0.1")]
        assignment = described["members"][0]["member_assignment"]
        assert assignment["assigned_partitions"] == [{"topic": topic, "partitions": [0]}]
        assert described["members"][0]["member_metadata"]["topics"] == [topic]
        assert {tp: o.offset for tp, o in admin.list_group_offsets({group: None})[group].items()} == {tp0: 4}
        # An active group's offsets and the group itself cannot be changed from outside.
        assert admin.delete_groups([group]) == {group: "NonEmptyGroupError"}
        assert admin.delete_group_offsets(group, [tp0]) == {tp0: GroupSubscribedToTopicError}
        assert admin.alter_group_offsets(group, {tp0: OffsetAndMetadata(1, "", -1)}) == {tp0: UnknownMemberIdError}
    finally:
        c.close(autocommit=False)

    try:
        described = admin.describe_groups([group])[group]
        assert (described["group_state"], described["members"]) == ("Empty", [])
        assert admin.alter_group_offsets(group, {tp0: OffsetAndMetadata(1, "", -1)}) == {tp0: NoError}
        assert {tp: o.offset for tp, o in admin.list_group_offsets({group: None})[group].items()} == {tp0: 1}
        assert admin.delete_group_offsets(group, [tp0]) == {tp0: NoError}
        assert admin.list_group_offsets({group: None})[group] == {}
        assert admin.delete_groups([group]) == {group: "OK"}
        assert group not in [g["group_id"] for g in admin.list_groups()]
        assert admin.list_group_offsets({group: None})[group] == {}
        # DescribeGroups of a deleted group: Dead, with GROUP_ID_NOT_FOUND (DescribeGroups v6).
        described = admin.describe_groups([group])[group]
        assert (described["group_state"], described["members"]) == ("Dead", [])
        assert "GroupIdNotFoundError" in (described["error"] or ""), described
        assert admin.delete_groups([group]) == {group: "GroupIdNotFoundError"}
    finally:
        admin.close()
