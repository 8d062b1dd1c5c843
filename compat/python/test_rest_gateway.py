"""Strand's REST gateway driven as Confluent's documentation drives Confluent REST Proxy v3.

Each step is one of the curl lines of Confluent's REST Proxy API reference and quick start (the
line is quoted above the step), sent with Python `requests` against Strand's `http.listeners`,
and checked against the answer Confluent documents: status code, `kind`, the fields and the
error JSON. What the gateway produced is then read back with kafka-python's KafkaConsumer, and
the topics it created are checked with kafka-python's admin client.

Apache Kafka has no REST proxy: with STRAND_COMPAT_BROKER=kafka this file is skipped.
"""

import base64
import json
import os

import pytest
import requests
from kafka import KafkaAdminClient, KafkaConsumer, TopicPartition

from compat_broker import Broker, BrokerNotReady

JSON = {"Content-Type": "application/json"}


@pytest.fixture(scope="module")
def rest():
    """A Strand of its own with http.listeners on: (broker, base URL of the cluster)."""
    if os.environ.get("STRAND_COMPAT_BROKER", "strand") != "strand":
        pytest.skip("Apache Kafka serves no REST API")
    try:
        broker = Broker.start("python-rest", http=True)
    except BrokerNotReady as e:
        pytest.exit(str(e), returncode=1)
    try:
        # curl -X GET http://localhost:8082/v3/clusters
        clusters = requests.get(f"{broker.http_url}/v3/clusters", timeout=30)
        assert clusters.status_code == 200, clusters.text
        assert clusters.json()["kind"] == "KafkaClusterList"
        cluster_id = clusters.json()["data"][0]["cluster_id"]
        yield broker, f"{broker.http_url}/v3/clusters/{cluster_id}"
    finally:
        broker.stop()


def read_all(broker, topic, partitions):
    """Every record of the topic's partitions, with kafka-python (until 3 s bring nothing more)."""
    consumer = KafkaConsumer(bootstrap_servers=broker.bootstrap, consumer_timeout_ms=3000)
    try:
        consumer.assign([TopicPartition(topic, p) for p in partitions])
        consumer.seek_to_beginning()
        return list(consumer)
    finally:
        consumer.close()


def test_the_documented_topic_sequence(rest):
    broker, cluster = rest
    # curl -X POST -H "Content-Type: application/json" \
    #   --data '{"topic_name": "topic-X", "partitions_count": 64, "replication_factor": 3,
    #            "configs": [{"name": "cleanup.policy", "value": "compact"},
    #                        {"name": "compression.type", "value": "gzip"}]}' \
    #   http://localhost:8082/v3/clusters/cluster-1/topics
    # (one broker here: replication factor 1, and 6 partitions)
    created = requests.post(f"{cluster}/topics", headers=JSON, timeout=30, json={
        "topic_name": "topic-X", "partitions_count": 6, "replication_factor": 1,
        "configs": [{"name": "cleanup.policy", "value": "compact"}, {"name": "compression.type", "value": "gzip"}]})
    assert created.status_code == 201, created.text
    topic = created.json()
    assert topic["kind"] == "KafkaTopic"
    assert (topic["topic_name"], topic["partitions_count"], topic["replication_factor"]) == ("topic-X", 6, 1)
    assert topic["metadata"]["self"] == f"{cluster}/topics/topic-X"
    assert topic["configs"]["related"] == f"{cluster}/topics/topic-X/configs"
    admin = KafkaAdminClient(bootstrap_servers=broker.bootstrap)
    try:
        assert "topic-X" in admin.list_topics()
    finally:
        admin.close()

    # The same again: Confluent's create_topic_already_exists example.
    again = requests.post(f"{cluster}/topics", headers=JSON, timeout=30, json={"topic_name": "topic-X"})
    assert (again.status_code, again.json()) == (400, {"error_code": 40002, "message": "Topic 'topic-X' already exists."})

    # curl -X POST ... --data '{"topic_name": "topic-X", "partitions_count": 64, "replication_factor": 3,
    #   "validate_only": true}' .../topics
    dry = requests.post(f"{cluster}/topics", headers=JSON, timeout=30,
                        json={"topic_name": "topic-Y", "partitions_count": 64, "replication_factor": 1, "validate_only": True})
    assert dry.status_code == 200, dry.text

    # curl http://localhost:8082/v3/clusters/cluster-1/topics
    listed = requests.get(f"{cluster}/topics", timeout=30).json()
    assert listed["kind"] == "KafkaTopicList"
    assert [t["topic_name"] for t in listed["data"] if t["topic_name"] == "topic-X"] == ["topic-X"]
    assert "topic-Y" not in [t["topic_name"] for t in listed["data"]]

    # curl http://localhost:8082/v3/clusters/cluster-1/topics/topic-X/configs/compression.type
    config = requests.get(f"{cluster}/topics/topic-X/configs/compression.type", timeout=30).json()
    assert (config["kind"], config["value"], config["source"]) == ("KafkaTopicConfig", "gzip", "DYNAMIC_TOPIC_CONFIG")

    # curl -X PUT -H "Content-Type: application/json" --data '{"value": "gzip"}' \
    #   .../topics/topic-X/configs/compression.type   (here: zstd)
    put = requests.put(f"{cluster}/topics/topic-X/configs/compression.type", headers=JSON, timeout=30,
                       json={"value": "zstd"})
    assert put.status_code == 204, put.text

    # curl -X POST -H "Content-Type: application/json" \
    #   --data '{"data": [{"name": "cleanup.policy", "operation": "DELETE"},
    #                     {"name": "compression.type", "value": "gzip"}]}' .../topics/topic-X/configs:alter
    altered = requests.post(f"{cluster}/topics/topic-X/configs:alter", headers=JSON, timeout=30, json={
        "data": [{"name": "cleanup.policy", "operation": "DELETE"}, {"name": "compression.type", "value": "gzip"}]})
    assert altered.status_code == 204, altered.text
    policy = requests.get(f"{cluster}/topics/topic-X/configs/cleanup.policy", timeout=30).json()
    assert (policy["value"], policy["is_default"]) == ("delete", True)

    # curl http://localhost:8082/v3/clusters/cluster-1/topics/topic-X/partitions
    partitions = requests.get(f"{cluster}/topics/topic-X/partitions", timeout=30).json()
    assert [p["partition_id"] for p in partitions["data"]] == list(range(6))

    # curl -X DELETE http://localhost:8082/v3/clusters/cluster-1/topics/topic-X
    assert requests.delete(f"{cluster}/topics/topic-X", timeout=30).status_code == 204
    gone = requests.get(f"{cluster}/topics/topic-X", timeout=30)
    assert (gone.status_code, gone.json()) == (
        404, {"error_code": 40403, "message": "This server does not host this topic-partition."})


def test_the_documented_produce_examples(rest):
    broker, cluster = rest
    assert requests.post(f"{cluster}/topics", headers=JSON, timeout=30,
                         json={"topic_name": "topic-1", "partitions_count": 2}).status_code == 201
    records = f"{cluster}/topics/topic-1/records"

    # curl -X POST -H "Content-Type: application/json" --data '{"partition_id": 1,
    #   "headers": [{"name": "Header-1", "value": "SGVhZGVyLTE="}, {"name": "Header-2", "value": "SGVhZGVyLTI="}],
    #   "key": {"type": "BINARY", "data": "Zm9vYmFy"}, "value": {"type": "JSON", "data": {"foo": "bar"}},
    #   "timestamp": "2021-02-05T19:14:42Z"}' .../topics/topic-1/records
    produced = requests.post(records, headers=JSON, timeout=30, json={
        "partition_id": 1,
        "headers": [{"name": "Header-1", "value": "SGVhZGVyLTE="}, {"name": "Header-2", "value": "SGVhZGVyLTI="}],
        "key": {"type": "BINARY", "data": "Zm9vYmFy"},
        "value": {"type": "JSON", "data": {"foo": "bar"}},
        "timestamp": "2021-02-05T19:14:42Z"})
    assert produced.status_code == 200, produced.text
    report = produced.json()
    assert report["error_code"] == 200
    assert (report["topic_name"], report["partition_id"], report["offset"]) == ("topic-1", 1, 0)
    assert report["timestamp"].startswith("2021-02-05T19:14:42")
    assert (report["key"], report["value"]) == ({"type": "BINARY", "size": 6}, {"type": "JSON", "size": 13})

    # curl -X POST -H "Content-Type: application/json" \
    #   --data '{"value": {"type": "STRING", "data": "My message"}}' .../topics/topic-1/records
    string = requests.post(records, headers=JSON, timeout=30, json={"value": {"type": "STRING", "data": "My message"}})
    assert string.status_code == 200 and string.json()["error_code"] == 200, string.text

    # Confluent's produce_record_bad_binary_data example: a report with error_code 400.
    bad = requests.post(records, headers=JSON, timeout=30, json={"value": {"type": "BINARY", "data": 1}})
    assert (bad.status_code, bad.json()) == (200, {"error_code": 400, "message": "Bad Request: data=1 is not a base64 string."})

    # Streaming mode: concatenated records in one chunked request (requests sends a generator
    # with Transfer-Encoding: chunked); one report each, in order.
    def chunks():
        for i in range(20):
            yield f'{{"partition_id": 0, "value": {{"type": "STRING", "data": "streamed-{i}"}}}}'.encode()
    streamed = requests.post(records, headers=JSON, data=chunks(), timeout=30)
    assert streamed.status_code == 200, streamed.text
    reports = [line for line in streamed.text.splitlines() if line.strip()]
    offsets = [json.loads(line)["offset"] for line in reports]
    assert offsets == sorted(offsets) and len(offsets) == 20, streamed.text

    read = read_all(broker, "topic-1", [0, 1])
    first = next(r for r in read if r.partition == 1)
    assert (first.key, first.value, first.timestamp) == (b"foobar", b'{"foo":"bar"}', 1612552482000)
    assert first.headers == [("Header-1", b"Header-1"), ("Header-2", b"Header-2")]
    values = [r.value for r in read if r.partition == 0]
    assert [v for v in values if v.startswith(b"streamed-")] == [f"streamed-{i}".encode() for i in range(20)]
    assert b"My message" in [r.value for r in read]
    assert base64.b64decode("Zm9vYmFy") == first.key
