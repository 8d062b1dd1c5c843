"""kafka-python (pure Python): KafkaProducer, then KafkaConsumer with assign() and
seek_to_beginning(), seek() and offsets_for_times() (no group)."""

import time

import pytest
from kafka import KafkaAdminClient, KafkaConsumer, KafkaProducer, TopicPartition

WAIT_S = 15


def create_topic(broker, topic):
    """Creates a one-partition topic with kafka-python's admin client and waits until the
    broker's metadata shows it with a leader."""
    admin = KafkaAdminClient(bootstrap_servers=broker.bootstrap, request_timeout_ms=5000)
    try:
        created = admin.create_topics({topic: {"num_partitions": 1, "replication_factor": 1}},
                                      timeout_ms=WAIT_S * 1000, wait_for_metadata=True)
        assert [(t["name"], t["error_code"]) for t in created["topics"]] == [(topic, 0)], created
    finally:
        admin.close()


def producer(broker, **config):
    return KafkaProducer(bootstrap_servers=broker.bootstrap, request_timeout_ms=5000, max_block_ms=10000,
                         **config)


def consumer(broker):
    return KafkaConsumer(bootstrap_servers=broker.bootstrap, group_id=None, enable_auto_commit=False,
                         auto_offset_reset="none", request_timeout_ms=5000, fetch_max_wait_ms=100)


def poll_exactly(c, count):
    got = []
    deadline = time.monotonic() + WAIT_S
    while len(got) < count and time.monotonic() < deadline:
        for records in c.poll(timeout_ms=200).values():
            got.extend(records)
    for records in c.poll(timeout_ms=200).values():
        got.extend(records)
    assert len(got) == count, f"consumed {len(got)} records, want {count}"
    return got


@pytest.mark.parametrize("compression", [None, "gzip"])
def test_produce_then_assign_and_seek_to_beginning(broker, topic_name, compression):
    """send().get() returns consecutive offsets; assign + seek_to_beginning reads every record back."""
    topic = topic_name(f"kp-{compression or 'none'}")
    create_topic(broker, topic)
    p = producer(broker, acks="all", compression_type=compression)
    try:
        for i in range(10):
            metadata = p.send(topic, key=f"k{i}".encode(), value=f"kafka-python {i}".encode(),
                              headers=[("i", str(i).encode())], partition=0).get(timeout=WAIT_S)
            assert (metadata.topic, metadata.partition, metadata.offset) == (topic, 0, i)
    finally:
        p.close(timeout=5)
    c = consumer(broker)
    try:
        tp = TopicPartition(topic, 0)
        c.assign([tp])
        c.seek_to_beginning(tp)
        got = poll_exactly(c, 10)
        assert [(r.offset, r.key, r.value, r.headers) for r in got] == [
            (i, f"k{i}".encode(), f"kafka-python {i}".encode(), [("i", str(i).encode())]) for i in range(10)]
        assert c.position(tp) == 10
        assert c.end_offsets([tp]) == {tp: 10}
    finally:
        c.close()


def test_seek_and_offsets_for_times(broker, topic_name):
    """seek(n) reads from offset n; offsets_for_times(now - 1h) finds the first record of the last hour."""
    topic = topic_name("kp-times")
    create_topic(broker, topic)
    now_ms = int(time.time() * 1000)
    ages_ms = [3 * 3600_000, 2 * 3600_000, 30 * 60_000, 60_000]
    p = producer(broker, acks="all")
    try:
        for i, age in enumerate(ages_ms):
            p.send(topic, value=f"t{i}".encode(), partition=0, timestamp_ms=now_ms - age).get(timeout=WAIT_S)
    finally:
        p.close(timeout=5)
    c = consumer(broker)
    try:
        tp = TopicPartition(topic, 0)
        c.assign([tp])
        c.seek(tp, 1)
        assert [r.value for r in poll_exactly(c, 3)] == [b"t1", b"t2", b"t3"]
        found = c.offsets_for_times({tp: now_ms - 3600_000})[tp]
        assert (found.offset, found.timestamp) == (2, now_ms - ages_ms[2])
        assert c.offsets_for_times({tp: now_ms + 3600_000})[tp] is None
    finally:
        c.close()
