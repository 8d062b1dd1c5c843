#!/usr/bin/env python3
"""Delayed delivery: scheduling throughput, delivery lateness, and memory with many pending.

Usage: bench/delayed_delivery.py BOOTSTRAP STRAND_PID [RECORDS] [DELAY_MS] [VALUE_BYTES]
       (defaults: 1,000,000 records due 60,000 ms after they are sent, values of 100 bytes)

Against a running node (`target/release/strand server`), it creates a topic
`delayed-bench-<pid>` of one partition, reads the node's RSS (/proc/STRAND_PID/status), then
produces RECORDS records with confluent-kafka (idempotent, lz4, linger 20 ms), each with a
`strand.deliver.at` header of its send time plus DELAY_MS, and reports records/s scheduled and the
node's RSS once every record is pending. A classic-group consumer then reads the topic: each
record's lateness is the time it was consumed minus its due time (this client's clock is the
node's); it reports the p50, p99 and max lateness, the records delivered per second, and checks
that each record arrived once. Needs `pip install confluent-kafka` (bench/requirements.txt).
"""

import statistics
import sys
import time

from confluent_kafka import Consumer, Producer
from confluent_kafka.admin import AdminClient, NewTopic


def rss_mib(pid: int) -> float:
    with open(f"/proc/{pid}/status", encoding="ascii") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    raise RuntimeError("no VmRSS")


def main() -> None:
    bootstrap, pid = sys.argv[1], int(sys.argv[2])
    records = int(sys.argv[3]) if len(sys.argv) > 3 else 1_000_000
    delay_ms = int(sys.argv[4]) if len(sys.argv) > 4 else 60_000
    size = int(sys.argv[5]) if len(sys.argv) > 5 else 100
    topic = f"delayed-bench-{time.time_ns() % 1_000_000}"
    admin = AdminClient({"bootstrap.servers": bootstrap})
    admin.create_topics([NewTopic(topic, 1, 1)])[topic].result(30)
    time.sleep(1)  # the topic's leader is elected a moment after CreateTopics answers
    before = rss_mib(pid)

    producer = Producer({"bootstrap.servers": bootstrap, "enable.idempotence": True, "linger.ms": 20,
                         "compression.type": "lz4", "batch.size": 512 * 1024, "queue.buffering.max.messages": 500_000})
    value = b"x" * size
    failed = []
    started = time.monotonic()
    for i in range(records):
        due = int(time.time() * 1000) + delay_ms
        while True:
            try:
                producer.produce(topic, key=str(i).encode(), value=value,
                                 headers=[("strand.deliver.at", str(due).encode())],
                                 on_delivery=lambda err, _msg: failed.append(err) if err else None)
                break
            except BufferError:
                producer.poll(0.05)
        if i % 10_000 == 0:
            producer.poll(0)
    assert producer.flush(120) == 0 and not failed, failed[:3]
    scheduled_s = time.monotonic() - started
    pending_rss = rss_mib(pid)
    print(f"scheduled {records:,} records in {scheduled_s:.1f} s: {records / scheduled_s:,.0f} records/s; "
          f"RSS {before:.0f} MiB before, {pending_rss:.0f} MiB with all pending (+{pending_rss - before:.0f} MiB)")

    consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": f"g-{topic}", "auto.offset.reset": "earliest",
                         "fetch.wait.max.ms": 10, "enable.auto.commit": False})
    consumer.subscribe([topic])
    lateness, seen, first_at = [], set(), None
    deadline = time.monotonic() + delay_ms / 1000 + scheduled_s + 600
    while len(seen) < records and time.monotonic() < deadline:
        for msg in consumer.consume(num_messages=10_000, timeout=0.005):
            if msg.error():
                raise RuntimeError(msg.error())
            now_ms = time.time() * 1000
            first_at = first_at or time.monotonic()
            due = int(dict(msg.headers())["strand.deliver.at"])
            lateness.append(now_ms - due)
            key = int(msg.key())
            assert key not in seen, f"record {key} delivered twice"
            seen.add(key)
    consumer.close()
    delivered_s = time.monotonic() - (first_at or time.monotonic())
    lateness.sort()
    p = lambda q: lateness[min(len(lateness) - 1, int(q * len(lateness)))]
    print(f"delivered {len(seen):,}/{records:,} once each in {delivered_s:.1f} s "
          f"({len(seen) / max(delivered_s, 1e-9):,.0f} records/s); lateness ms p50 {statistics.median(lateness):.0f} "
          f"p99 {p(0.99):.0f} max {lateness[-1]:.0f} (this consumer's own fetch wait included)")


if __name__ == "__main__":
    main()
