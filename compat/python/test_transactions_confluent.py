"""confluent-kafka (librdkafka 2.16) transactions: init_transactions, begin, produce, commit and
abort as read_committed and read_uncommitted consumers and ListOffsets see them (the last stable
offset while a transaction is open); consume-transform-produce with send_offsets_to_transaction
(the consumer's group metadata), its first processor killed midway, with the classic protocol and
with KIP-848's; zombie fencing by a second producer with the same transactional.id; an open
transaction holding read_committed consumers at its first offset until it commits. (librdkafka
has no admin calls for transactions: DescribeTransactions and ListTransactions are tested from
Java, Go and kafka-python.)"""

import time

import pytest
from confluent_kafka import (OFFSET_BEGINNING, Consumer, ConsumerGroupTopicPartitions, IsolationLevel, KafkaError,
                             KafkaException, Producer, TopicPartition)
from confluent_kafka.admin import OffsetSpec

from test_confluent_kafka import admin_client, create_topic

WAIT_S = 15
# The first init_transactions may wait for the broker to create __transaction_state.
INIT_S = 30


def transactional(broker, transactional_id, **config):
    producer = Producer({"bootstrap.servers": broker.bootstrap, "transactional.id": transactional_id,
                         "transaction.timeout.ms": 30000, "message.timeout.ms": 10000,
                         "socket.timeout.ms": 5000, "linger.ms": 5, **config})
    producer.init_transactions(INIT_S)
    return producer


def produce_all(producer, topic, values_by_partition):
    """Produces {partition: [values]} and flushes; every record must be delivered."""
    errors = []
    for partition, values in values_by_partition.items():
        for value in values:
            producer.produce(topic, value=value.encode(), partition=partition,
                             on_delivery=lambda err, msg: errors.append(err) if err else None)
    assert producer.flush(WAIT_S) == 0, "records still undelivered"
    assert errors == []


def end_offsets(broker, topic, partitions, isolation):
    """ListOffsets(latest) per partition at this isolation level."""
    admin = admin_client(broker)
    futures = admin.list_offsets({TopicPartition(topic, p): OffsetSpec.latest() for p in range(partitions)},
                                 isolation_level=isolation, request_timeout=WAIT_S)
    return {tp.partition: f.result(WAIT_S).offset for tp, f in futures.items()}


def await_end_offsets(broker, topic, partitions, isolation, want):
    """Polls end_offsets until every partition is at want: markers land a moment after the end."""
    expected = {p: want for p in range(partitions)}
    deadline = time.monotonic() + WAIT_S
    while (got := end_offsets(broker, topic, partitions, isolation)) != expected:
        assert time.monotonic() < deadline, f"{isolation} end offsets {got}, want {expected}"
        time.sleep(0.05)


def reader(broker, isolation, **config):
    return Consumer({"bootstrap.servers": broker.bootstrap, "group.id": "compat-txn-reader",
                     "isolation.level": isolation, "enable.auto.commit": False, "enable.partition.eof": False,
                     "socket.timeout.ms": 5000, "fetch.wait.max.ms": 100, **config})


def consume_exactly(consumer, count):
    """Consumes until count messages have arrived (failing after WAIT_S), then briefly more to
    check nothing beyond them arrives; returns sorted (partition, offset, value) triples."""
    got = []
    deadline = time.monotonic() + WAIT_S
    while len(got) < count and time.monotonic() < deadline:
        for msg in consumer.consume(num_messages=count - len(got), timeout=0.2):
            assert msg.error() is None, msg.error()
            got.append(msg)
    got.extend(m for m in consumer.consume(num_messages=1, timeout=0.3) if m.error() is None)
    triples = sorted((m.partition(), m.offset(), m.value().decode()) for m in got)
    assert len(got) == count, f"consumed {triples}, want {count} messages"
    return triples


def read_from_start(broker, topic, partitions, isolation, count):
    consumer = reader(broker, isolation)
    try:
        consumer.assign([TopicPartition(topic, p, OFFSET_BEGINNING) for p in range(partitions)])
        return consume_exactly(consumer, count)
    finally:
        consumer.close()


def test_commit_and_abort(broker, topic_name):
    """A transaction writes 5 records to each of 2 partitions and commits; a second writes 5 more
    and aborts. While it is open the LSO (ListOffsets read_committed) is 6, the records and the
    commit marker, and the high watermark 11; afterwards both are 12. read_committed reads the 10
    committed records, read_uncommitted all 20."""
    topic = topic_name("ck-txn")
    create_topic(broker, topic, partitions=2)
    producer = transactional(broker, topic_name("ck-txn"))
    producer.begin_transaction()
    produce_all(producer, topic, {p: [f"committed-{p}-{i}" for i in range(5)] for p in (0, 1)})
    producer.commit_transaction(WAIT_S)

    producer.begin_transaction()
    produce_all(producer, topic, {p: [f"aborted-{p}-{i}" for i in range(5)] for p in (0, 1)})
    await_end_offsets(broker, topic, 2, IsolationLevel.READ_COMMITTED, 6)
    await_end_offsets(broker, topic, 2, IsolationLevel.READ_UNCOMMITTED, 11)
    producer.abort_transaction(WAIT_S)
    await_end_offsets(broker, topic, 2, IsolationLevel.READ_COMMITTED, 12)
    await_end_offsets(broker, topic, 2, IsolationLevel.READ_UNCOMMITTED, 12)

    assert read_from_start(broker, topic, 2, "read_committed", 10) == [
        (p, i, f"committed-{p}-{i}") for p in (0, 1) for i in range(5)]
    assert read_from_start(broker, topic, 2, "read_uncommitted", 20) == sorted(
        [(p, i, f"committed-{p}-{i}") for p in (0, 1) for i in range(5)]
        + [(p, 6 + i, f"aborted-{p}-{i}") for p in (0, 1) for i in range(5)])


def processor_consumer(broker, group, protocol):
    config = {"bootstrap.servers": broker.bootstrap, "group.id": group, "group.protocol": protocol,
              "isolation.level": "read_committed", "enable.auto.commit": False, "auto.offset.reset": "earliest",
              "enable.partition.eof": False, "socket.timeout.ms": 5000, "fetch.wait.max.ms": 100}
    if protocol == "classic":
        config.update({"session.timeout.ms": 10000, "heartbeat.interval.ms": 200})
    return Consumer(config)


def process_once(consumer, producer, output, commit):
    """Consumes a batch and, if it got records, copies them to output in one transaction with the
    consumed offsets (send_offsets_to_transaction), committed only if commit. Returns how many."""
    messages = consumer.consume(num_messages=15, timeout=0.2)
    for m in messages:
        assert m.error() is None, m.error()
    if not messages:
        return 0
    producer.begin_transaction()
    for m in messages:
        producer.produce(output, key=m.key(), value=b"out:" + m.value(), partition=m.partition())
    producer.send_offsets_to_transaction(consumer.position(consumer.assignment()),
                                         consumer.consumer_group_metadata(), WAIT_S)
    if commit:
        producer.commit_transaction(WAIT_S)
    else:
        assert producer.flush(WAIT_S) == 0
    return len(messages)


@pytest.mark.parametrize("protocol", ["classic", "consumer"])
def test_consume_transform_produce(broker, topic_name, protocol):
    """A processor reads a 2-partition input of 100 records in a group and copies each to an
    output topic, committing the input offsets in the same transaction. The first processor
    commits at least half, then dies in its next transaction (copies flushed, offsets sent,
    nothing committed; consumer closed, producer dropped); a second one with the same
    transactional.id fences it and finishes. read_committed output: every input record exactly
    once; read_uncommitted also the dead transaction's copies; the group's committed offsets are
    the input's end."""
    source, output = topic_name(f"ck-ctp-in-{protocol}"), topic_name(f"ck-ctp-out-{protocol}")
    create_topic(broker, source, partitions=2)
    create_topic(broker, output, partitions=2)
    plain = Producer({"bootstrap.servers": broker.bootstrap, "message.timeout.ms": 10000})
    produce_all(plain, source, {p: [f"in-{p}-{i}" for i in range(50)] for p in (0, 1)})
    group, transactional_id = topic_name("ck-ctp-g"), topic_name("ck-ctp")

    producer = transactional(broker, transactional_id)
    consumer = processor_consumer(broker, group, protocol)
    consumer.subscribe([source])
    done, deadline = 0, time.monotonic() + WAIT_S
    while done < 50:
        assert time.monotonic() < deadline, f"the first processor committed only {done} records"
        done += process_once(consumer, producer, output, commit=True)
    abandoned = 0
    while abandoned == 0:
        assert time.monotonic() < deadline, "the first processor found nothing left to abandon"
        abandoned = process_once(consumer, producer, output, commit=False)
    consumer.close()
    del producer

    producer = transactional(broker, transactional_id)
    consumer = processor_consumer(broker, group, protocol)
    try:
        consumer.subscribe([source])
        partitions = [TopicPartition(source, 0), TopicPartition(source, 1)]
        deadline = time.monotonic() + WAIT_S
        while sorted((tp.partition, tp.offset) for tp in consumer.committed(partitions, timeout=WAIT_S)) != [(0, 50), (1, 50)]:
            assert time.monotonic() < deadline, f"committed {consumer.committed(partitions, timeout=WAIT_S)}"
            process_once(consumer, producer, output, commit=True)
    finally:
        consumer.close()

    got = read_from_start(broker, output, 2, "read_committed", 100)
    assert sorted((p, v) for p, _, v in got) == sorted((p, f"out:in-{p}-{i}") for p in (0, 1) for i in range(50))
    read_from_start(broker, output, 2, "read_uncommitted", 100 + abandoned)
    admin = admin_client(broker)
    listed = admin.list_consumer_group_offsets([ConsumerGroupTopicPartitions(group, partitions)])[group].result(WAIT_S)
    assert sorted((tp.partition, tp.offset) for tp in listed.topic_partitions) == [(0, 50), (1, 50)]


def is_fenced(error):
    return error.code() in (KafkaError._FENCED, KafkaError.PRODUCER_FENCED, KafkaError.INVALID_PRODUCER_EPOCH)


def kafka_error_raised(call):
    """Runs call and returns the KafkaError it raised, or None. confluent-kafka raises a fatal
    error from flush() while it runs a delivery callback, so the KafkaException may come chained
    to a SystemError."""
    try:
        call()
    except Exception as e:  # noqa: BLE001 - searched for the KafkaException below
        cause = e
        while cause is not None and not isinstance(cause, KafkaException):
            cause = cause.__cause__ or cause.__context__
        if cause is None:
            raise
        return cause.args[0]
    return None


def test_zombie_is_fenced(broker, topic_name):
    """A second producer with the same transactional.id calls init_transactions while the first
    has a transaction open with delivered records: the first's next produce or its commit fails
    as fenced (fatal), nothing of its transaction is visible to read_committed, and the second
    commits normally."""
    topic, transactional_id = topic_name("ck-zombie"), topic_name("ck-zombie")
    create_topic(broker, topic, partitions=1)
    errors = []  # a fatal error reaches error_cb, or is raised from flush
    zombie = transactional(broker, transactional_id, error_cb=errors.append)
    zombie.begin_transaction()
    produce_all(zombie, topic, {0: [f"zombie-{i}" for i in range(5)]})

    successor = transactional(broker, transactional_id)
    reports = []
    zombie.produce(topic, value=b"zombie-late", partition=0, on_delivery=lambda err, msg: reports.append(err))
    raised = kafka_error_raised(lambda: zombie.flush(WAIT_S))
    assert len(reports) == 1 and reports[0] is not None and is_fenced(reports[0]), (
        f"the zombie's late produce: {reports}")
    fatal = [e for e in errors + [raised] if e is not None and e.fatal()]
    assert fatal and is_fenced(fatal[0]), f"no fatal fenced error: raised {raised}, error_cb {errors}"
    committed = kafka_error_raised(lambda: zombie.commit_transaction(WAIT_S))
    assert committed is not None and is_fenced(committed), f"the zombie's commit: {committed}"
    del zombie

    successor.begin_transaction()
    produce_all(successor, topic, {0: [f"live-{i}" for i in range(3)]})
    successor.commit_transaction(WAIT_S)

    assert read_from_start(broker, topic, 1, "read_committed", 3) == [(0, 6 + i, f"live-{i}") for i in range(3)]
    assert [v for _, _, v in read_from_start(broker, topic, 1, "read_uncommitted", 8)] == (
        [f"zombie-{i}" for i in range(5)] + [f"live-{i}" for i in range(3)])


def test_open_transaction_holds_read_committed(broker, topic_name):
    """3 plain records, then an open transaction's 2, then 2 plain records: read_committed reads
    the first 3 and nothing more while the transaction is open (its position stays at 3); once it
    commits, the same consumer reads the other 4."""
    topic = topic_name("ck-lso")
    create_topic(broker, topic, partitions=1)
    plain = Producer({"bootstrap.servers": broker.bootstrap, "message.timeout.ms": 10000})
    produce_all(plain, topic, {0: [f"before-{i}" for i in range(3)]})
    producer = transactional(broker, topic_name("ck-lso"))
    producer.begin_transaction()
    produce_all(producer, topic, {0: ["txn-0", "txn-1"]})
    produce_all(plain, topic, {0: ["after-0", "after-1"]})
    await_end_offsets(broker, topic, 1, IsolationLevel.READ_COMMITTED, 3)

    consumer = reader(broker, "read_committed")
    try:
        consumer.assign([TopicPartition(topic, 0, OFFSET_BEGINNING)])
        assert consume_exactly(consumer, 3) == [(0, i, f"before-{i}") for i in range(3)]
        until = time.monotonic() + 1
        while time.monotonic() < until:
            assert [m for m in consumer.consume(num_messages=10, timeout=0.2) if m.error() is None] == []
        assert [tp.offset for tp in consumer.position([TopicPartition(topic, 0)])] == [3]

        producer.commit_transaction(WAIT_S)
        assert consume_exactly(consumer, 4) == [(0, 3, "txn-0"), (0, 4, "txn-1"), (0, 5, "after-0"), (0, 6, "after-1")]
    finally:
        consumer.close()
    await_end_offsets(broker, topic, 1, IsolationLevel.READ_COMMITTED, 8)
