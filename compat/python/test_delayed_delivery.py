"""Strand's delayed delivery (ARCHITECTURE.md, "Delayed delivery") through unchanged clients:
confluent-kafka (librdkafka) producers, idempotent and transactional, mark records with the
strand.delay.ms or strand.deliver.at header, or write to a topic with delivery.delay.ms; consumer
groups (librdkafka's and kafka-python's, classic protocol) see each record once it is due, once,
with its key, headers and value; a transaction's delayed records appear only if it commits.

Apache Kafka has no delayed delivery: with STRAND_COMPAT_BROKER=kafka this file is skipped."""

import os
import time

import pytest
from confluent_kafka import Consumer, Producer
from kafka import KafkaConsumer

from test_confluent_kafka import create_topic
from test_transactions_confluent import WAIT_S, transactional

pytestmark = pytest.mark.skipif(os.environ.get("STRAND_COMPAT_BROKER", "strand") != "strand",
                                reason="Apache Kafka has no delayed delivery")

# How late a record may be seen here: far above the target, as CI's debug build is slow; a record
# held back wrongly never comes.
LATE_S = 5.0


def group_consumer(broker, group, **config):
    consumer = Consumer({"bootstrap.servers": broker.bootstrap, "group.id": group, "auto.offset.reset": "earliest",
                         "enable.partition.eof": False, "socket.timeout.ms": 5000, "fetch.wait.max.ms": 50,
                         "session.timeout.ms": 10000, **config})
    return consumer


def consume(consumer, count, timeout_s):
    """Up to count messages (with the time each was seen), polling until timeout_s."""
    got = []
    deadline = time.monotonic() + timeout_s
    while len(got) < count and time.monotonic() < deadline:
        for msg in consumer.consume(num_messages=count - len(got), timeout=0.1):
            assert msg.error() is None, msg.error()
            got.append((msg, time.time()))
    return got


def test_idempotent_producer_and_a_consumer_group(broker, topic_name):
    topic = topic_name("delayed")
    create_topic(broker, topic)
    producer = Producer({"bootstrap.servers": broker.bootstrap, "enable.idempotence": True, "linger.ms": 5})
    sent = time.time()
    due_at = str(int((sent + 1.2) * 1000))
    reports = []
    record = lambda err, msg: reports.append((err, msg.offset()))
    producer.produce(topic, key=b"order-1", value=b"unpaid", headers=[("strand.delay.ms", b"2000"), ("kind", b"t")],
                     on_delivery=record)
    producer.produce(topic, key=b"order-2", value=b"review", headers=[("strand.deliver.at", due_at.encode())],
                     on_delivery=record)
    producer.produce(topic, key=b"order-3", value=b"paid", on_delivery=record)
    assert producer.flush(WAIT_S) == 0
    assert [err for err, _ in reports] == [None, None, None]

    consumer = group_consumer(broker, f"g-{topic}")
    consumer.subscribe([topic])
    try:
        got = consume(consumer, 3, 30)
        seen = [(m.key(), m.value()) for m, _ in got]
        # The plain record shares the delayed ones' batch: it is stored pending too, due at once.
        assert sorted(seen) == [(b"order-1", b"unpaid"), (b"order-2", b"review"), (b"order-3", b"paid")]
        by_value = {m.value(): (m, at) for m, at in got}
        unpaid, unpaid_at = by_value[b"unpaid"]
        _, review_at = by_value[b"review"]
        assert unpaid_at >= sent + 2.0 and unpaid_at - (sent + 2.0) < LATE_S
        assert review_at >= sent + 1.2 and review_at < unpaid_at
        assert dict(unpaid.headers()) == {"strand.delay.ms": b"2000", "kind": b"t"}
        assert consume(consumer, 1, 1.0) == [], "nothing is delivered twice"
    finally:
        consumer.close()


def test_a_transactions_delayed_records_appear_only_if_it_commits(broker, topic_name):
    topic = topic_name("delayed-txn")
    create_topic(broker, topic)
    producer = transactional(broker, f"tx-{topic}")
    producer.begin_transaction()
    for i in range(5):
        producer.produce(topic, value=f"kept-{i}".encode(), headers=[("strand.delay.ms", b"800")])
    producer.commit_transaction(WAIT_S)
    producer.begin_transaction()
    for i in range(5):
        producer.produce(topic, value=f"dropped-{i}".encode(), headers=[("strand.delay.ms", b"300")])
    producer.flush(WAIT_S)
    producer.abort_transaction(WAIT_S)

    for isolation in ("read_committed", "read_uncommitted"):
        consumer = group_consumer(broker, f"g-{isolation}-{topic}", **{"isolation.level": isolation})
        consumer.subscribe([topic])
        try:
            got = consume(consumer, 6, 15)
            values = [m.value().decode() for m, _ in got]
            assert values == [f"kept-{i}" for i in range(5)], f"{isolation}: {values}"
        finally:
            consumer.close()


def test_a_topic_delay_with_kafka_python(broker, topic_name):
    topic = topic_name("topic-delay")
    create_topic(broker, topic, config={"delivery.delay.ms": "1000"})
    producer = Producer({"bootstrap.servers": broker.bootstrap, "linger.ms": 0})
    sent = time.time()
    for i in range(10):
        producer.produce(topic, key=f"k{i}".encode(), value=f"v{i}".encode())
    assert producer.flush(WAIT_S) == 0
    consumer = KafkaConsumer(topic, bootstrap_servers=broker.bootstrap, group_id=f"kp-{topic}",
                             auto_offset_reset="earliest", fetch_max_wait_ms=50, consumer_timeout_ms=30000)
    try:
        got = []
        for message in consumer:
            got.append((message.value.decode(), time.time()))
            if len(got) == 10:
                break
        assert [v for v, _ in got] == [f"v{i}" for i in range(10)]
        assert all(at >= sent + 1.0 for _, at in got), "no record before the topic's delay"
    finally:
        consumer.close()
