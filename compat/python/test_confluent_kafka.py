"""confluent-kafka (librdkafka 2.16): produce with delivery callbacks in each codec and acks
setting, consume by assign() from the beginning, AdminClient create and delete topics."""

import time

import pytest
from confluent_kafka import OFFSET_BEGINNING, Consumer, KafkaError, KafkaException, Producer, TopicPartition
from confluent_kafka.admin import AdminClient, NewPartitions, NewTopic

WAIT_S = 15


@pytest.fixture(scope="module", autouse=True)
def librdkafka_gets_metadata(broker):
    """librdkafka must get Metadata listing a broker before anything else here can work; if it
    cannot, every test in this module fails at once with this error instead of timing out."""
    metadata = admin_client(broker).list_topics(timeout=10)
    assert metadata.brokers, "librdkafka's Metadata request listed no broker"


def admin_client(broker):
    return AdminClient({"bootstrap.servers": broker.bootstrap, "socket.timeout.ms": 5000})


def await_topic(admin, topic, partitions):
    """Waits until Metadata shows the topic with its partitions led: the controller answers
    CreateTopics once the topic is committed, the broker's metadata has it a moment later."""
    deadline = time.monotonic() + WAIT_S
    while time.monotonic() < deadline:
        found = admin.list_topics(topic=topic, timeout=5).topics.get(topic)
        if (found is not None and found.error is None and len(found.partitions) == partitions
                and all(p.leader >= 0 for p in found.partitions.values())):
            return found
        time.sleep(0.05)
    raise AssertionError(f"topic {topic} never showed {partitions} led partitions")


def create_topic(broker, topic, partitions=1, config=None):
    admin = admin_client(broker)
    futures = admin.create_topics([NewTopic(topic, partitions, 1, config=config or {})], operation_timeout=WAIT_S)
    futures[topic].result(WAIT_S)
    return await_topic(admin, topic, partitions)


def produce(broker, topic, records, **config):
    """Produces (key, value, headers) tuples to partition 0; returns the delivery reports in
    callback order, after checking that every record was delivered."""
    reports = []
    producer = Producer({"bootstrap.servers": broker.bootstrap, "message.timeout.ms": 10000,
                         "socket.timeout.ms": 5000, **config})
    for key, value, headers in records:
        producer.produce(topic, value=value, key=key, headers=headers, partition=0,
                         on_delivery=lambda err, msg: reports.append((err, msg)))
    assert producer.flush(WAIT_S) == 0, "records still undelivered"
    assert [err for err, _ in reports] == [None] * len(records)
    return [msg for _, msg in reports]


def consume_from_beginning(broker, topic, count, partition=0):
    """Reads exactly count records from the start of one partition with assign() (no group join,
    no commits; librdkafka needs a group.id all the same)."""
    consumer = Consumer({"bootstrap.servers": broker.bootstrap, "group.id": f"compat-assign-{topic}",
                         "enable.auto.commit": False, "enable.partition.eof": False,
                         "socket.timeout.ms": 5000, "fetch.wait.max.ms": 100})
    try:
        consumer.assign([TopicPartition(topic, partition, OFFSET_BEGINNING)])
        got = []
        deadline = time.monotonic() + WAIT_S
        while len(got) < count and time.monotonic() < deadline:
            for msg in consumer.consume(num_messages=count - len(got), timeout=0.5):
                assert msg.error() is None, msg.error()
                got.append(msg)
        got.extend(consumer.consume(num_messages=1, timeout=0.3))
        assert len(got) == count, f"consumed {len(got)} records, want {count}"
        return got
    finally:
        consumer.close()


def test_delivery_callbacks_report_every_offset(broker, topic_name):
    """Every produced record gets one delivery callback, without error, with consecutive offsets."""
    topic = topic_name("ck-callbacks")
    create_topic(broker, topic)
    records = [(f"k{i}".encode(), f"v{i}".encode(), [("i", str(i).encode())]) for i in range(10)]
    delivered = produce(broker, topic, records, acks="all")
    assert [(m.topic(), m.partition(), m.offset()) for m in delivered] == [(topic, 0, i) for i in range(10)]
    assert [m.value() for m in delivered] == [v for _, v, _ in records]


@pytest.mark.parametrize("acks", ["0", "1", "all"])
def test_each_acks_setting_stores_the_records(broker, topic_name, acks):
    """acks 0, 1 and all all store the records; with acks=0 nobody answers, so no offset is known."""
    topic = topic_name(f"ck-acks{acks}")
    create_topic(broker, topic)
    records = [(None, f"acks {acks} #{i}".encode(), None) for i in range(5)]
    delivered = produce(broker, topic, records, acks=acks, **({} if acks == "all" else {"enable.idempotence": False}))
    expected_offsets = [None] * 5 if acks == "0" else list(range(5))
    assert [m.offset() for m in delivered] == expected_offsets
    got = consume_from_beginning(broker, topic, 5)
    assert [(m.offset(), m.value()) for m in got] == [(i, v) for i, (_, v, _) in enumerate(records)]


@pytest.mark.parametrize("codec", ["none", "gzip", "snappy", "lz4", "zstd"])
def test_each_codec_round_trips(broker, topic_name, codec):
    """Batches in each codec are delivered and read back intact, keys, null keys and headers included."""
    topic = topic_name(f"ck-{codec}")
    create_topic(broker, topic)
    records = [(None if i % 4 == 0 else f"key-{i}".encode(), (f"{codec} value {i} " * (10 + i)).encode(),
                [("codec", codec.encode())]) for i in range(30)]
    delivered = produce(broker, topic, records, **{"compression.type": codec, "linger.ms": 20,
                                                   "enable.idempotence": True})
    assert [m.offset() for m in delivered] == list(range(30))
    got = consume_from_beginning(broker, topic, 30)
    for i, (msg, (key, value, headers)) in enumerate(zip(got, records)):
        assert (msg.offset(), msg.key(), msg.value(), msg.headers()) == (i, key, value, headers)


def test_admin_create_and_delete_topics(broker, topic_name):
    """AdminClient creates topics (partitions, configs), reports TOPIC_ALREADY_EXISTS, grows
    partitions, deletes them, and reports UNKNOWN_TOPIC_OR_PART for a topic that is gone."""
    admin = admin_client(broker)
    first, second = topic_name("ck-admin-a"), topic_name("ck-admin-b")
    futures = admin.create_topics([NewTopic(first, 3, 1, config={"retention.ms": "3600000"}),
                                   NewTopic(second, 1, 1)], operation_timeout=WAIT_S)
    for topic, future in futures.items():
        assert future.result(WAIT_S) is None, topic
    assert len(await_topic(admin, first, 3).partitions) == 3
    await_topic(admin, second, 1)
    assert {first, second} <= set(admin.list_topics(timeout=5).topics)

    again = admin.create_topics([NewTopic(first, 3, 1)], operation_timeout=WAIT_S)[first]
    with pytest.raises(KafkaException) as exists:
        again.result(WAIT_S)
    assert exists.value.args[0].code() == KafkaError.TOPIC_ALREADY_EXISTS

    admin.create_partitions([NewPartitions(first, 4)], operation_timeout=WAIT_S)[first].result(WAIT_S)
    await_topic(admin, first, 4)
    shrink = admin.create_partitions([NewPartitions(first, 2)], operation_timeout=WAIT_S)[first]
    with pytest.raises(KafkaException) as invalid:
        shrink.result(WAIT_S)
    assert invalid.value.args[0].code() == KafkaError.INVALID_PARTITIONS

    for topic, future in admin.delete_topics([first, second], operation_timeout=WAIT_S).items():
        assert future.result(WAIT_S) is None, topic
    deadline = time.monotonic() + WAIT_S
    while {first, second} & set(admin.list_topics(timeout=5).topics):
        assert time.monotonic() < deadline, "deleted topics are still listed"
        time.sleep(0.05)
    gone = admin.delete_topics([first], operation_timeout=WAIT_S)[first]
    with pytest.raises(KafkaException) as unknown:
        gone.result(WAIT_S)
    assert unknown.value.args[0].code() == KafkaError.UNKNOWN_TOPIC_OR_PART
