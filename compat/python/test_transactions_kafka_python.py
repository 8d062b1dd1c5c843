"""kafka-python (pure Python, 3.0.12 supports transactions) transactions: a KafkaProducer with a
transactional_id commits and aborts, read by read_committed and read_uncommitted KafkaConsumers
(end_offsets under read_committed is the last stable offset), with KafkaAdminClient's
describe_transactions, list_transactions and describe_producers while the transaction is open and
after it ends; consume-transform-produce with send_offsets_to_transaction and the consumer's
group_metadata() (the classic protocol: kafka-python has no KIP-848 consumer), its first processor
killed midway; zombie fencing by a second producer with the same transactional_id."""

import time

import pytest
from kafka import KafkaAdminClient, KafkaConsumer, KafkaProducer, OffsetAndMetadata, TopicPartition
from kafka.admin import TransactionListing, TransactionState
from kafka.errors import InvalidProducerEpochError, KafkaError, ProducerFencedError, TransactionalIdNotFoundError

from test_groups_kafka_python import create_topic

WAIT_S = 15
TRANSACTION_TIMEOUT_MS = 30000


def transactional(broker, transactional_id):
    """A transactional producer, initialised (the first init may wait for __transaction_state)."""
    producer = KafkaProducer(bootstrap_servers=broker.bootstrap, transactional_id=transactional_id,
                             transaction_timeout_ms=TRANSACTION_TIMEOUT_MS, request_timeout_ms=5000,
                             max_block_ms=30000, linger_ms=5)
    producer.init_transactions()
    return producer


def admin(broker):
    return KafkaAdminClient(bootstrap_servers=broker.bootstrap, request_timeout_ms=5000)


def reader(broker, isolation):
    return KafkaConsumer(bootstrap_servers=broker.bootstrap, group_id=None, enable_auto_commit=False,
                         auto_offset_reset="earliest", isolation_level=isolation, request_timeout_ms=5000,
                         fetch_max_wait_ms=100)


def poll_exactly(consumer, count):
    """Polls until count records have arrived (failing after WAIT_S), then once more to check
    nothing beyond them arrives; returns sorted (partition, offset, value) triples."""
    got = []
    deadline = time.monotonic() + WAIT_S
    while len(got) < count and time.monotonic() < deadline:
        for records in consumer.poll(timeout_ms=200).values():
            got.extend(records)
    for records in consumer.poll(timeout_ms=200).values():
        got.extend(records)
    triples = sorted((r.partition, r.offset, r.value.decode()) for r in got)
    assert len(got) == count, f"consumed {triples}, want {count} records"
    return triples


def read_from_start(broker, topic, partitions, isolation, count):
    consumer = reader(broker, isolation)
    try:
        tps = [TopicPartition(topic, p) for p in range(partitions)]
        consumer.assign(tps)
        consumer.seek_to_beginning(*tps)
        return poll_exactly(consumer, count)
    finally:
        consumer.close()


def await_end_offsets(broker, topic, partitions, isolation, want):
    """Polls the consumer's end_offsets at this isolation level until every partition is at want."""
    tps = [TopicPartition(topic, p) for p in range(partitions)]
    consumer = reader(broker, isolation)
    try:
        deadline = time.monotonic() + WAIT_S
        while (got := consumer.end_offsets(tps, timeout_ms=WAIT_S * 1000)) != {tp: want for tp in tps}:
            assert time.monotonic() < deadline, f"{isolation} end offsets {got}, want {want}"
            time.sleep(0.05)
    finally:
        consumer.close()


def send_all(producer, topic, values_by_partition):
    futures = [producer.send(topic, value=v.encode(), partition=p)
               for p, values in values_by_partition.items() for v in values]
    producer.flush(timeout=WAIT_S)
    return [f.get(timeout=WAIT_S).offset for f in futures]


def until(what, condition):
    """Polls condition() until it returns a truthy value (returned), failing after WAIT_S."""
    deadline = time.monotonic() + WAIT_S
    while not (value := condition()):
        assert time.monotonic() < deadline, f"{what} within {WAIT_S} s"
        time.sleep(0.05)
    return value


def test_commit_abort_and_admin(broker, topic_name):
    """A transaction writes 5 records to each of 2 partitions and commits; a second writes 5 more.
    While it is open: end_offsets read_committed is 6 (records and commit marker), read_uncommitted
    11; describe_transactions shows it Ongoing on both partitions with its timeout, producer id and
    epoch; list_transactions lists it (also filtered by state and by producer id);
    describe_producers shows its first offset, 6, on each partition. It aborts: both ends are 12,
    the description CompleteAbort with no partitions, describe_producers no open transaction;
    read_committed reads the 10 committed records, read_uncommitted all 20. An unknown id is
    TRANSACTIONAL_ID_NOT_FOUND."""
    topic, transactional_id = topic_name("kp-txn"), topic_name("kp-txn")
    create_topic(broker, topic, 2)
    producer = transactional(broker, transactional_id)
    client = admin(broker)
    try:
        producer.begin_transaction()
        assert send_all(producer, topic, {p: [f"committed-{p}-{i}" for i in range(5)] for p in (0, 1)}) == [0, 1, 2, 3, 4] * 2
        producer.commit_transaction()
        producer.begin_transaction()
        assert send_all(producer, topic, {p: [f"aborted-{p}-{i}" for i in range(5)] for p in (0, 1)}) == [6, 7, 8, 9, 10] * 2
        await_end_offsets(broker, topic, 2, "read_committed", 6)
        await_end_offsets(broker, topic, 2, "read_uncommitted", 11)

        tps = [TopicPartition(topic, 0), TopicPartition(topic, 1)]
        open_ = client.describe_transactions([transactional_id])[transactional_id]
        assert open_.state == TransactionState.ONGOING, open_
        assert open_.topic_partitions == set(tps)
        assert open_.transaction_timeout_ms == TRANSACTION_TIMEOUT_MS
        assert abs(open_.transaction_start_time_ms - time.time() * 1000) < 60_000, open_
        assert open_.producer_id >= 0
        listing = TransactionListing(transactional_id, open_.producer_id, TransactionState.ONGOING)
        listed = [t for ts in client.list_transactions().values() for t in ts]
        assert listing in listed
        assert [t for ts in client.list_transactions(producer_id_filters=[open_.producer_id]).values() for t in ts] == [listing]
        assert listing in [t for ts in client.list_transactions(state_filters=["Ongoing"]).values() for t in ts]
        assert transactional_id not in [t.transactional_id for ts in client.list_transactions(
            state_filters=["CompleteCommit", "CompleteAbort"]).values() for t in ts]
        producers = client.describe_producers(tps)
        for tp in tps:
            mine = [p for p in producers[tp].active_producers if p.producer_id == open_.producer_id]
            assert len(mine) == 1, producers[tp]
            assert (mine[0].producer_epoch, mine[0].current_transaction_start_offset) == (open_.producer_epoch, 6), mine[0]

        producer.abort_transaction()
        await_end_offsets(broker, topic, 2, "read_committed", 12)
        await_end_offsets(broker, topic, 2, "read_uncommitted", 12)
        done = until("CompleteAbort", lambda: (d := client.describe_transactions([transactional_id])[transactional_id])
                     .state == TransactionState.COMPLETE_ABORT and d)
        assert (done.producer_id, done.topic_partitions) == (open_.producer_id, set())
        until("no open transaction in describe_producers", lambda: all(
            p.current_transaction_start_offset == -1
            for tp, state in client.describe_producers(tps).items() for p in state.active_producers
            if p.producer_id == open_.producer_id))
        with pytest.raises(TransactionalIdNotFoundError):
            client.describe_transactions([topic_name("kp-unknown")])
    finally:
        producer.close(timeout=5)
        client.close()

    assert read_from_start(broker, topic, 2, "read_committed", 10) == [
        (p, i, f"committed-{p}-{i}") for p in (0, 1) for i in range(5)]
    assert read_from_start(broker, topic, 2, "read_uncommitted", 20) == sorted(
        [(p, i, f"committed-{p}-{i}") for p in (0, 1) for i in range(5)]
        + [(p, 6 + i, f"aborted-{p}-{i}") for p in (0, 1) for i in range(5)])


def processor_consumer(broker, source, group):
    return KafkaConsumer(source, bootstrap_servers=broker.bootstrap, group_id=group, enable_auto_commit=False,
                         auto_offset_reset="earliest", isolation_level="read_committed", max_poll_records=15,
                         session_timeout_ms=10000, heartbeat_interval_ms=200, request_timeout_ms=5000,
                         fetch_max_wait_ms=100)


def process_once(consumer, producer, output, commit):
    """Polls once and, if records came, copies them to output in one transaction with their
    offsets (send_offsets_to_transaction with group_metadata()), committed only if commit."""
    records = [r for batch in consumer.poll(timeout_ms=200).values() for r in batch]
    if not records:
        return 0
    producer.begin_transaction()
    offsets = {}
    for r in records:
        producer.send(output, key=r.key, value=b"out:" + r.value, partition=r.partition)
        offsets[TopicPartition(r.topic, r.partition)] = OffsetAndMetadata(r.offset + 1, "", -1)
    producer.send_offsets_to_transaction(offsets, consumer.group_metadata())
    if commit:
        producer.commit_transaction()
    else:
        producer.flush(timeout=WAIT_S)
    return len(records)


def test_consume_transform_produce(broker, topic_name):
    """A processor copies a 2-partition input of 100 records to an output topic, committing the
    input offsets in each transaction. The first commits at least half, then dies in its next
    transaction (copies flushed, offsets sent, nothing committed; its consumer and producer closed
    at once); a second with the same transactional_id and group finishes. read_committed output:
    every input record exactly once; read_uncommitted also the dead transaction's copies; the
    group's committed offsets are the input's end."""
    source, output = topic_name("kp-ctp-in"), topic_name("kp-ctp-out")
    create_topic(broker, source, 2)
    create_topic(broker, output, 2)
    plain = KafkaProducer(bootstrap_servers=broker.bootstrap, request_timeout_ms=5000, max_block_ms=10000)
    send_all(plain, source, {p: [f"in-{p}-{i}" for i in range(50)] for p in (0, 1)})
    plain.close(timeout=5)
    group, transactional_id = topic_name("kp-ctp-g"), topic_name("kp-ctp")

    producer = transactional(broker, transactional_id)
    consumer = processor_consumer(broker, source, group)
    done, deadline = 0, time.monotonic() + WAIT_S
    while done < 50:
        assert time.monotonic() < deadline, f"the first processor committed only {done} records"
        done += process_once(consumer, producer, output, commit=True)
    abandoned = 0
    while abandoned == 0:
        assert time.monotonic() < deadline, "the first processor found nothing left to abandon"
        abandoned = process_once(consumer, producer, output, commit=False)
    consumer.close(autocommit=False)
    producer.close(timeout=0)

    producer = transactional(broker, transactional_id)
    consumer = processor_consumer(broker, source, group)
    tps = [TopicPartition(source, 0), TopicPartition(source, 1)]
    client = admin(broker)
    try:
        def committed():
            offsets = client.list_group_offsets({group: None})[group]
            return {tp.partition: o.offset for tp, o in offsets.items() if tp.topic == source}
        deadline = time.monotonic() + WAIT_S
        while committed() != {0: 50, 1: 50}:
            assert time.monotonic() < deadline, f"committed {committed()}"
            process_once(consumer, producer, output, commit=True)
    finally:
        consumer.close(autocommit=False)
        producer.close(timeout=5)
        client.close()

    got = read_from_start(broker, output, 2, "read_committed", 100)
    assert sorted((p, v) for p, _, v in got) == sorted((p, f"out:in-{p}-{i}") for p in (0, 1) for i in range(50))
    read_from_start(broker, output, 2, "read_uncommitted", 100 + abandoned)


def test_zombie_is_fenced(broker, topic_name):
    """A second producer with the same transactional_id calls init_transactions while the first
    has a transaction open with acknowledged records: the first's next send fails
    (ProducerFencedError or InvalidProducerEpochError) and so does its commit, nothing of its transaction is visible to
    read_committed, and the second commits normally."""
    topic, transactional_id = topic_name("kp-zombie"), topic_name("kp-zombie")
    create_topic(broker, topic, 1)
    zombie = transactional(broker, transactional_id)
    successor = None
    try:
        zombie.begin_transaction()
        assert send_all(zombie, topic, {0: [f"zombie-{i}" for i in range(5)]}) == [0, 1, 2, 3, 4]
        successor = transactional(broker, transactional_id)
        fenced = (ProducerFencedError, InvalidProducerEpochError)
        with pytest.raises(KafkaError) as late:
            zombie.send(topic, value=b"zombie-late", partition=0).get(timeout=WAIT_S)
        assert isinstance(late.value, fenced), f"the zombie's send failed with {late.value!r}"
        # kafka-python takes INVALID_PRODUCER_EPOCH for an abortable error and starts bumping its
        # epoch: the commit is refused by the client itself (an invalid state transition).
        with pytest.raises(KafkaError):
            zombie.commit_transaction()

        successor.begin_transaction()
        send_all(successor, topic, {0: [f"live-{i}" for i in range(3)]})
        successor.commit_transaction()
    finally:
        zombie.close(timeout=0)
        if successor is not None:
            successor.close(timeout=5)

    assert [v for _, _, v in read_from_start(broker, topic, 1, "read_committed", 3)] == [f"live-{i}" for i in range(3)]
    assert [v for _, _, v in read_from_start(broker, topic, 1, "read_uncommitted", 8)] == (
        [f"zombie-{i}" for i in range(5)] + [f"live-{i}" for i in range(3)])
