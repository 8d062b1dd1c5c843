#!/usr/bin/env python3
"""Drives librdkafka (through confluent-kafka-python) against a broker so that
the golden-capture recording proxy in front of it sees librdkafka's frames.

Usage: client.py <bootstrap>
"""

from __future__ import annotations

import sys
import time

from confluent_kafka import (
    Consumer,
    ConsumerGroupTopicPartitions,
    KafkaException,
    Producer,
    TopicCollection,
    TopicPartition,
    __version__ as ck_version,
    libversion,
)
from confluent_kafka.admin import AdminClient, ConfigResource, NewTopic, OffsetSpec, ResourceType

TOPIC = "golden-librdkafka"
CLASSIC_GROUP = "golden-librdkafka-classic"
NEXTGEN_GROUP = "golden-librdkafka-kip848"
N_RECORDS = 20
TIMEOUT = 20.0


def log(msg: str) -> None:
    print(f"[librdkafka] {msg}", flush=True)


def common(bootstrap: str, client_id: str) -> dict:
    return {
        "bootstrap.servers": bootstrap,
        "client.id": client_id,
        "socket.timeout.ms": 10000,
        "reconnect.backoff.ms": 50,
        "reconnect.backoff.max.ms": 500,
        "retry.backoff.ms": 50,
        "topic.metadata.refresh.interval.ms": 1000,
    }


def wait_all(futures: dict, what: str) -> dict:
    out = {}
    for k, f in futures.items():
        out[k] = f.result(timeout=TIMEOUT)
    log(f"{what}: ok")
    return out


def optional(what: str, fn) -> None:
    try:
        fn()
    except Exception as e:  # the frames are captured either way
        log(f"{what}: failed ({e})")


def produce(bootstrap: str) -> None:
    conf = common(bootstrap, "golden-librdkafka-producer")
    conf.update(
        {
            "compression.type": "snappy",
            "enable.idempotence": True,
            "acks": "all",
            "linger.ms": 20,
        }
    )
    p = Producer(conf)
    errors = []

    def on_delivery(err, msg):
        if err is not None:
            errors.append(err)

    for i in range(N_RECORDS):
        key = None if i % 7 == 6 else f"librdkafka-key-{i}".encode()
        headers = [("client", b"librdkafka"), ("seq", str(i).encode())]
        if i % 4 == 0:
            headers.append(("null-header", None))
        p.produce(
            TOPIC,
            key=key,
            value=f"librdkafka value {i}, snappy compressed".encode(),
            partition=i % 3,
            headers=headers,
            on_delivery=on_delivery,
        )
    remaining = p.flush(TIMEOUT)
    if remaining or errors:
        raise RuntimeError(f"produce failed: {remaining} undelivered, errors {errors}")
    log(f"produced {N_RECORDS} records (snappy, idempotent)")


def consume(bootstrap: str, group: str, protocol: str) -> None:
    conf = common(bootstrap, f"golden-librdkafka-{protocol}-consumer")
    conf.update(
        {
            "group.id": group,
            "group.protocol": protocol,
            "auto.offset.reset": "earliest",
            "enable.auto.commit": False,
            "fetch.wait.max.ms": 200,
        }
    )
    if protocol == "classic":
        conf.update({"session.timeout.ms": 6000, "heartbeat.interval.ms": 500})
    c = Consumer(conf)
    try:
        c.subscribe([TOPIC])
        seen = 0
        deadline = time.monotonic() + 40
        while seen < N_RECORDS and time.monotonic() < deadline:
            msg = c.poll(0.2)
            if msg is None:
                continue
            if msg.error():
                log(f"consume error: {msg.error()}")
                continue
            seen += 1
        if seen < N_RECORDS:
            raise RuntimeError(f"{group}: consumed {seen} of {N_RECORDS}")
        c.commit(asynchronous=False)
        assignment = c.assignment()
        committed = c.committed(assignment, timeout=TIMEOUT)
        log(f"{group} ({protocol}): consumed {seen}, committed {[(t.partition, t.offset) for t in committed]}")
        for tp in assignment:
            lo, hi = c.get_watermark_offsets(TopicPartition(TOPIC, tp.partition), timeout=TIMEOUT)
            log(f"partition {tp.partition}: offsets [{lo}, {hi})")
        times = c.offsets_for_times([TopicPartition(TOPIC, p, 0) for p in range(3)], timeout=TIMEOUT)
        log(f"offsets for time 0: {[(t.partition, t.offset) for t in times]}")
    finally:
        c.close()


def main() -> int:
    if len(sys.argv) != 2:
        print("usage: client.py <bootstrap>", file=sys.stderr)
        return 2
    bootstrap = sys.argv[1]
    log(f"confluent-kafka {ck_version}, librdkafka {libversion()[0]}")
    admin = AdminClient(common(bootstrap, "golden-librdkafka-admin"))

    wait_all(admin.create_topics([NewTopic(TOPIC, num_partitions=3, replication_factor=1)]), "create topic")
    md = admin.list_topics(timeout=TIMEOUT)
    log(f"{len(md.topics)} topics, {len(md.brokers)} brokers")
    optional("describe topics", lambda: admin.describe_topics(TopicCollection([TOPIC])).get(TOPIC).result(TIMEOUT))
    optional("describe cluster", lambda: log(f"cluster {admin.describe_cluster().result(TIMEOUT).cluster_id}"))
    optional(
        "describe configs",
        lambda: wait_all(admin.describe_configs([ConfigResource(ResourceType.TOPIC, TOPIC)]), "describe configs"),
    )

    # Wait until every partition has a leader before producing.
    deadline = time.monotonic() + TIMEOUT
    while True:
        t = admin.list_topics(TOPIC, timeout=TIMEOUT).topics[TOPIC]
        if t.error is None and len(t.partitions) == 3 and all(p.leader >= 0 for p in t.partitions.values()):
            break
        if time.monotonic() > deadline:
            raise RuntimeError("partitions have no leader")
        time.sleep(0.1)

    produce(bootstrap)
    consume(bootstrap, CLASSIC_GROUP, "classic")
    consume(bootstrap, NEXTGEN_GROUP, "consumer")

    offsets = wait_all(
        admin.list_offsets({TopicPartition(TOPIC, p): OffsetSpec.latest() for p in range(3)}), "list offsets"
    )
    log(f"latest offsets {sorted((tp.partition, r.offset) for tp, r in offsets.items())}")
    groups = admin.list_consumer_groups().result(TIMEOUT)
    log(f"groups: {sorted(g.group_id for g in groups.valid)}")
    desc = wait_all(admin.describe_consumer_groups([CLASSIC_GROUP, NEXTGEN_GROUP]), "describe groups")
    for g, d in sorted(desc.items()):
        log(f"group {g}: state={d.state} type={getattr(d, 'type', '?')}")
    res = wait_all(
        admin.list_consumer_group_offsets([ConsumerGroupTopicPartitions(CLASSIC_GROUP)]), "list group offsets"
    )
    for g, r in res.items():
        log(f"{g} committed {[(tp.partition, tp.offset) for tp in r.topic_partitions]}")
    log("done")
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except (KafkaException, RuntimeError) as e:
        print(f"[librdkafka] failed: {e}", file=sys.stderr)
        sys.exit(1)
