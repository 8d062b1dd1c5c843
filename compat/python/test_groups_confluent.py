"""confluent-kafka (librdkafka 2.16) consumer groups (issue 5): subscribe, consume, commit and a
new member resuming at the committed offsets; two members splitting a topic's partitions, with
the classic protocol and with KIP-848's (group.protocol=consumer); the AdminClient's group
operations (list, describe, list/alter offsets, delete)."""

import time

import pytest
from confluent_kafka import (ConsumerGroupState, ConsumerGroupTopicPartitions, Consumer, KafkaError,
                             KafkaException, Producer, TopicPartition)

from test_confluent_kafka import admin_client, create_topic

WAIT_S = 15


def group_consumer(broker, group, protocol="classic", **config):
    """A member of group: no auto commit, earliest reset. Classic members heartbeat every 0.2 s so
    a rebalance is noticed at once; consumer-protocol members take those settings from the broker."""
    base = {"bootstrap.servers": broker.bootstrap, "group.id": group, "group.protocol": protocol,
            "enable.auto.commit": False, "auto.offset.reset": "earliest", "enable.partition.eof": False,
            "socket.timeout.ms": 5000, "fetch.wait.max.ms": 100}
    if protocol == "classic":
        base.update({"session.timeout.ms": 10000, "heartbeat.interval.ms": 200,
                     "partition.assignment.strategy": "range"})
    return Consumer({**base, **config})


def produce_to(broker, topic, partition, values):
    """Writes values to one partition; returns their offsets."""
    reports = []
    producer = Producer({"bootstrap.servers": broker.bootstrap, "message.timeout.ms": 10000})
    for value in values:
        producer.produce(topic, value=value.encode(), partition=partition,
                         on_delivery=lambda err, msg: reports.append((err, msg.offset())))
    assert producer.flush(WAIT_S) == 0, "records still undelivered"
    assert [err for err, _ in reports] == [None] * len(values)
    return [offset for _, offset in reports]


def consume_exactly(consumer, count):
    """Consumes until count messages have arrived (failing after WAIT_S), then briefly more to
    check that nothing beyond them arrives; returns (partition, offset, value) triples."""
    got = []
    deadline = time.monotonic() + WAIT_S
    while len(got) < count and time.monotonic() < deadline:
        for msg in consumer.consume(num_messages=count - len(got), timeout=0.2):
            assert msg.error() is None, msg.error()
            got.append(msg)
    got.extend(consumer.consume(num_messages=1, timeout=0.3))
    assert len(got) == count, f"consumed {[(m.partition(), m.offset()) for m in got]}, want {count} messages"
    return [(m.partition(), m.offset(), m.value().decode()) for m in got]


def owned(consumer):
    return sorted(tp.partition for tp in consumer.assignment())


def test_commit_then_a_new_member_resumes(broker, topic_name):
    """A member reads both partitions from the start, commits synchronously (its positions, then
    an explicit offset with metadata); committed() reports them; a new member of the group (with
    auto.offset.reset=latest, so only the commit can place it) resumes exactly there."""
    topic, group = topic_name("ck-group"), topic_name("ck-g")
    create_topic(broker, topic, partitions=2)
    for p in (0, 1):
        assert produce_to(broker, topic, p, [f"p{p}-{i}" for i in range(5)]) == list(range(5))

    first = group_consumer(broker, group)
    try:
        first.subscribe([topic])
        got = consume_exactly(first, 10)
        assert sorted(got) == [(p, i, f"p{p}-{i}") for p in (0, 1) for i in range(5)]
        committed = first.commit(asynchronous=False)
        assert sorted((tp.partition, tp.offset, tp.error) for tp in committed) == [(0, 5, None), (1, 5, None)]
        first.commit(offsets=[TopicPartition(topic, 0, 3, metadata="ck-meta")], asynchronous=False)
        fetched = first.committed([TopicPartition(topic, 0), TopicPartition(topic, 1)], timeout=WAIT_S)
        assert sorted((tp.partition, tp.offset) for tp in fetched) == [(0, 3), (1, 5)]
        assert [tp.metadata for tp in fetched if tp.partition == 0] == ["ck-meta"]
    finally:
        first.close()

    for p in (0, 1):
        assert produce_to(broker, topic, p, [f"p{p}-{i}" for i in (5, 6)]) == [5, 6]
    second = group_consumer(broker, group, **{"auto.offset.reset": "latest"})
    try:
        second.subscribe([topic])
        got = consume_exactly(second, 6)
        assert sorted(got) == [(0, i, f"p0-{i}") for i in (3, 4, 5, 6)] + [(1, i, f"p1-{i}") for i in (5, 6)]
        second.commit(asynchronous=False)
    finally:
        second.close()
    admin = admin_client(broker)  # kept referenced until its future is done
    listed = admin.list_consumer_group_offsets(
        [ConsumerGroupTopicPartitions(group, [TopicPartition(topic, 0), TopicPartition(topic, 1)])])[group].result(WAIT_S)
    assert sorted((tp.partition, tp.offset) for tp in listed.topic_partitions) == [(0, 7), (1, 7)]


@pytest.mark.parametrize("protocol", ["classic", "consumer"])
def test_two_members_split_the_partitions(broker, topic_name, protocol):
    """Two members of one group split a four-partition topic two and two (the classic protocol
    with the range assignor: adjacent pairs; KIP-848: the broker's assignor), and each reads
    only its own partitions' messages."""
    topic, group = topic_name(f"ck-split-{protocol}"), topic_name("ck-g")
    create_topic(broker, topic, partitions=4)
    members = [group_consumer(broker, group, protocol), group_consumer(broker, group, protocol)]
    try:
        for m in members:
            m.subscribe([topic])
        deadline = time.monotonic() + WAIT_S
        while not (len(owned(members[0])) == 2 and len(owned(members[1])) == 2):
            assert time.monotonic() < deadline, f"members own {owned(members[0])} and {owned(members[1])}"
            for m in members:
                assert m.consume(num_messages=1, timeout=0.05) == [], "a message before any was written"
        shares = [owned(m) for m in members]
        assert sorted(shares[0] + shares[1]) == [0, 1, 2, 3], shares
        if protocol == "classic":
            assert sorted(shares) == [[0, 1], [2, 3]], shares

        for p in range(4):
            produce_to(broker, topic, p, [f"p{p}-0", f"p{p}-1"])
        for m, share in zip(members, shares):
            got = consume_exactly(m, 4)
            assert sorted(got) == [(p, i, f"p{p}-{i}") for p in share for i in (0, 1)]
    finally:
        for m in members:
            m.close()


def test_admin_group_operations(broker, topic_name):
    """AdminClient: list_consumer_groups and describe_consumer_groups show an active member and its
    assignment; list_consumer_group_offsets its commit; once the group is empty,
    alter_consumer_group_offsets moves the offset and delete_consumer_groups removes the group
    (deleting it again: GROUP_ID_NOT_FOUND)."""
    topic, group = topic_name("ck-admin-group"), topic_name("ck-g")
    create_topic(broker, topic, partitions=1)
    produce_to(broker, topic, 0, [f"m{i}" for i in range(4)])
    admin = admin_client(broker)
    member = group_consumer(broker, group, **{"client.id": "ck-admin-member"})
    try:
        member.subscribe([topic])
        consume_exactly(member, 4)
        member.commit(asynchronous=False)

        listed = admin.list_consumer_groups(request_timeout=WAIT_S).result(WAIT_S)
        assert listed.errors == []
        mine = [g for g in listed.valid if g.group_id == group]
        assert len(mine) == 1, [g.group_id for g in listed.valid]
        assert (mine[0].is_simple_consumer_group, mine[0].state) == (False, ConsumerGroupState.STABLE)

        described = admin.describe_consumer_groups([group], request_timeout=WAIT_S)[group].result(WAIT_S)
        assert described.state == ConsumerGroupState.STABLE
        assert described.partition_assignor == "range"
        assert described.coordinator.id == 1
        assert [(m.client_id, m.host) for m in described.members] == [("ck-admin-member", "/127.0.0.1")]
        assert [(tp.topic, tp.partition) for tp in described.members[0].assignment.topic_partitions] == [(topic, 0)]
    finally:
        member.close()

    described = admin.describe_consumer_groups([group], request_timeout=WAIT_S)[group].result(WAIT_S)
    assert (described.state, described.members) == (ConsumerGroupState.EMPTY, [])
    altered = admin.alter_consumer_group_offsets(
        [ConsumerGroupTopicPartitions(group, [TopicPartition(topic, 0, 1)])], request_timeout=WAIT_S)[group].result(WAIT_S)
    assert [(tp.partition, tp.offset, tp.error) for tp in altered.topic_partitions] == [(0, 1, None)]
    fetched = admin.list_consumer_group_offsets([ConsumerGroupTopicPartitions(group)])[group].result(WAIT_S)
    assert [(tp.topic, tp.partition, tp.offset) for tp in fetched.topic_partitions] == [(topic, 0, 1)]

    assert admin.delete_consumer_groups([group], request_timeout=WAIT_S)[group].result(WAIT_S) is None
    with pytest.raises(KafkaException) as gone:
        admin.delete_consumer_groups([group], request_timeout=WAIT_S)[group].result(WAIT_S)
    assert gone.value.args[0].code() == KafkaError.GROUP_ID_NOT_FOUND
