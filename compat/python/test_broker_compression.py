"""Broker-side compression (issue 19): a topic whose compression.type differs from the producer's
codec stores the batches recompressed; librdkafka (confluent-kafka) and kafka-python read them
back record for record. The partition's size on disk (DescribeLogDirs) shows the codec the broker
wrote: far below the values' size for a codec, above it for `uncompressed`."""

import pytest
from kafka import KafkaAdminClient, TopicPartition

from test_confluent_kafka import consume_from_beginning, create_topic, produce
from test_kafka_python import consumer as kafka_python_consumer
from test_kafka_python import poll_exactly

COUNT = 20


def partition_bytes(broker, topic):
    """The size of partition 0 of `topic` in every log dir, as kafka-python's DescribeLogDirs reads it."""
    admin = KafkaAdminClient(bootstrap_servers=broker.bootstrap, request_timeout_ms=5000)
    try:
        total = 0
        for response in admin.describe_log_dirs(topic_partitions={topic: [0]}):
            for log_dir in response["log_dirs"]:
                for found in log_dir["topics"]:
                    if found["name"] == topic:
                        total += sum(p["partition_size"] for p in found["partitions"])
        return total
    finally:
        admin.close()


@pytest.mark.parametrize("target", ["uncompressed", "gzip", "snappy", "lz4", "zstd"])
def test_recompressed_batches_read_back(broker, topic_name, target):
    topic = topic_name(f"recompress-{target}")
    create_topic(broker, topic, config={"compression.type": target})
    sent_codec = "gzip" if target == "uncompressed" else "none"
    records = [(None if i % 4 == 0 else f"k{i}".encode(), (f"{target} value {i} " * 100).encode(),
                [("target", target.encode())]) for i in range(COUNT)]
    produce(broker, topic, records, **{"compression.type": sent_codec, "linger.ms": 50})

    got = consume_from_beginning(broker, topic, COUNT)
    assert [(m.offset(), m.key(), m.value(), m.headers()) for m in got] == [
        (i, k, v, h) for i, (k, v, h) in enumerate(records)]

    c = kafka_python_consumer(broker)
    try:
        partition = TopicPartition(topic, 0)
        c.assign([partition])
        c.seek_to_beginning(partition)
        read = poll_exactly(c, COUNT)
    finally:
        c.close()
    assert [(r.offset, r.key, r.value, r.headers) for r in read] == [
        (i, k, v, h) for i, (k, v, h) in enumerate(records)]

    value_bytes = sum(len(v) for _, v, _ in records)
    stored = partition_bytes(broker, topic)
    if target == "uncompressed":
        assert stored > value_bytes, f"stored {stored} bytes for {value_bytes} value bytes"
    else:
        assert stored < value_bytes / 4, f"stored {stored} bytes for {value_bytes} value bytes"
