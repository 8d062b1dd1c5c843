package dev.strand.compat;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ListOffsetsOptions;
import org.apache.kafka.clients.admin.ListTransactionsOptions;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.ProducerState;
import org.apache.kafka.clients.admin.TransactionDescription;
import org.apache.kafka.clients.admin.TransactionListing;
import org.apache.kafka.clients.admin.TransactionState;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.KafkaFuture;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.InvalidProducerEpochException;
import org.apache.kafka.common.errors.ProducerFencedException;
import org.apache.kafka.common.errors.TransactionalIdNotFoundException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Transactions with kafka-clients 4.4 (transactions V2, KIP-890, where the broker finalizes
 * {@code transaction.version=2}): commit and abort across topics as read_committed and
 * read_uncommitted consumers see them, the last stable offset (ListOffsets and the consumer's
 * endOffsets), consume-transform-produce with {@code sendOffsetsToTransaction} surviving a killed
 * processor (both group protocols), zombie fencing, an open transaction holding read_committed
 * consumers at its first offset, and the admin transaction calls.
 */
@ExtendWith(BrokerExtension.class)
class TransactionsTest {
    private static final Duration POLL = Duration.ofMillis(200);

    private static Broker broker;
    private static Admin admin;

    @BeforeAll
    static void connect(Broker started) {
        broker = started;
        admin = Clients.admin(broker);
    }

    @AfterAll
    static void disconnect() {
        if (admin != null) {
            admin.close();
        }
    }

    /**
     * The seeds' example: one transaction writes 100 records to each of three topics and commits, a
     * second writes 100 more to each and aborts. While the second is open the last stable offset is
     * 101 (100 records and the commit marker) and the high watermark 201; afterwards both are 202
     * (the abort marker counts too). read_committed sees exactly the 300 committed records and ends
     * at 202; read_uncommitted sees all 600.
     */
    @Test
    void committedRunIsVisibleAndAbortedRunIsNot() throws Exception {
        List<TopicPartition> partitions = new ArrayList<>();
        for (String name : List.of("a", "b", "c")) {
            String topic = Clients.topic("txn-seeds-" + name);
            Clients.createTopic(admin, topic, 1);
            partitions.add(new TopicPartition(topic, 0));
        }
        try (KafkaProducer<String, String> producer = transactional(Clients.topic("txn-seeds"))) {
            producer.initTransactions();
            producer.beginTransaction();
            sendToEach(producer, partitions, "committed");
            producer.commitTransaction();

            producer.beginTransaction();
            sendToEach(producer, partitions, "aborted");
            producer.flush();
            awaitEndOffsets(partitions, IsolationLevel.READ_COMMITTED, 101);
            awaitEndOffsets(partitions, IsolationLevel.READ_UNCOMMITTED, 201);
            try (KafkaConsumer<String, String> consumer = consumer(IsolationLevel.READ_COMMITTED)) {
                assertEquals(offsetsOf(partitions, 101), consumer.endOffsets(partitions), "consumer endOffsets, read_committed, open");
            }
            producer.abortTransaction();
        }
        awaitEndOffsets(partitions, IsolationLevel.READ_COMMITTED, 202);
        awaitEndOffsets(partitions, IsolationLevel.READ_UNCOMMITTED, 202);

        try (KafkaConsumer<String, String> consumer = consumer(IsolationLevel.READ_COMMITTED)) {
            assertEquals(offsetsOf(partitions, 202), consumer.endOffsets(partitions), "consumer endOffsets, read_committed");
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            List<ConsumerRecord<String, String>> records = Clients.pollExactly(consumer, 300);
            for (TopicPartition partition : partitions) {
                List<ConsumerRecord<String, String>> mine = of(records, partition);
                assertEquals(100, mine.size(), partition + " records");
                for (int i = 0; i < 100; i++) {
                    assertEquals(i, mine.get(i).offset());
                    assertEquals("committed-" + i, mine.get(i).value());
                }
            }
            // The consumer skips the aborted records and both markers: its position reaches the LSO.
            awaitCondition("read_committed positions at 202", () -> positions(consumer, partitions),
                p -> p.equals(offsetsOf(partitions, 202)), () -> consumer.poll(POLL));
        }
        try (KafkaConsumer<String, String> consumer = consumer(IsolationLevel.READ_UNCOMMITTED)) {
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            List<ConsumerRecord<String, String>> records = Clients.pollExactly(consumer, 600);
            for (TopicPartition partition : partitions) {
                List<ConsumerRecord<String, String>> mine = of(records, partition);
                for (int i = 0; i < 200; i++) {
                    // The commit marker is offset 100: the aborted run starts at 101.
                    ConsumerRecord<String, String> record = mine.get(i);
                    assertEquals(i < 100 ? i : i + 1, record.offset());
                    assertEquals(i < 100 ? "committed-" + i : "aborted-" + (i - 100), record.value());
                }
            }
        }
    }

    /**
     * Consume-transform-produce: a processor reads an input topic in a group, copies each record to
     * an output topic and commits the input offsets in the same transaction
     * ({@code sendOffsetsToTransaction} with the consumer's group metadata). The first processor
     * stops midway, its last transaction written and its offsets sent but never ended (producer
     * closed at once, sending nothing more; consumer closed, leaving the group); a second one with the same transactional id and group resumes. The
     * output read with read_committed holds every input record exactly once, read_uncommitted also
     * the abandoned transaction's copies, and the group's committed offsets are the input's end.
     */
    @ParameterizedTest(name = "group.protocol={0}")
    @ValueSource(strings = {"classic", "consumer"})
    void consumeTransformProduceSurvivesAKilledProcessor(String protocol) throws Exception {
        String input = Clients.topic("txn-ctp-in");
        String output = Clients.topic("txn-ctp-out");
        Clients.createTopic(admin, input, 2);
        Clients.createTopic(admin, output, 2);
        int perPartition = 100;
        List<TopicPartition> inputPartitions = List.of(new TopicPartition(input, 0), new TopicPartition(input, 1));
        List<String> expected = new ArrayList<>();
        try (KafkaProducer<String, String> producer = Clients.producer(broker, Map.of())) {
            for (int p = 0; p < 2; p++) {
                for (int i = 0; i < perPartition; i++) {
                    producer.send(new ProducerRecord<>(input, p, "k" + i, "in-" + p + "-" + i));
                    expected.add("out:in-" + p + "-" + i);
                }
            }
            producer.flush();
        }
        String group = Clients.topic("txn-ctp-g");
        String transactionalId = Clients.topic("txn-ctp");

        int abandoned = 0;
        try (KafkaConsumer<String, String> consumer = processorConsumer(group, protocol)) {
            KafkaProducer<String, String> producer = transactional(transactionalId);
            try {
                producer.initTransactions();
                consumer.subscribe(List.of(input));
                int committed = 0;
                long deadline = System.nanoTime() + Clients.WAIT.toNanos();
                while (committed < perPartition) {
                    assertTrue(System.nanoTime() < deadline, "the first processor committed only " + committed + " records");
                    committed += processOnce(consumer, producer, output, true);
                }
                // The processor dies in the middle of its next transaction: records written, offsets sent.
                while (abandoned == 0) {
                    assertTrue(System.nanoTime() < deadline, "the first processor found nothing left to abandon");
                    abandoned = processOnce(consumer, producer, output, false);
                }
            } finally {
                // A zero timeout: the producer sends nothing more, no EndTxn(abort) on its way out.
                producer.close(Duration.ZERO);
            }
        }

        try (KafkaConsumer<String, String> consumer = processorConsumer(group, protocol);
                KafkaProducer<String, String> producer = transactional(transactionalId)) {
            producer.initTransactions();
            consumer.subscribe(List.of(input));
            awaitCondition("the restarted processor consumed the whole input", () -> positions(consumer, inputPartitions),
                p -> p.equals(offsetsOf(inputPartitions, perPartition)), () -> processOnce(consumer, producer, output, true));
        }

        List<TopicPartition> outputPartitions = List.of(new TopicPartition(output, 0), new TopicPartition(output, 1));
        try (KafkaConsumer<String, String> consumer = consumer(IsolationLevel.READ_COMMITTED)) {
            consumer.assign(outputPartitions);
            consumer.seekToBeginning(outputPartitions);
            List<String> got = Clients.pollExactly(consumer, 2 * perPartition).stream().map(ConsumerRecord::value).sorted().toList();
            assertEquals(expected.stream().sorted().toList(), got, "read_committed output: every input record once");
        }
        try (KafkaConsumer<String, String> consumer = consumer(IsolationLevel.READ_UNCOMMITTED)) {
            consumer.assign(outputPartitions);
            consumer.seekToBeginning(outputPartitions);
            Clients.pollExactly(consumer, 2 * perPartition + abandoned);
        }
        Map<TopicPartition, Long> committedOffsets = admin.listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata()
            .get(Clients.WAIT.toSeconds(), TimeUnit.SECONDS).entrySet().stream()
            .collect(Collectors.toMap(Map.Entry::getKey, e -> e.getValue().offset()));
        assertEquals(offsetsOf(inputPartitions, perPartition), committedOffsets, "the group's committed offsets");
    }

    /**
     * Zombie fencing: a second producer with the same transactional.id calls initTransactions while
     * the first has a transaction open with acknowledged records. The first's next send and its
     * commit fail (ProducerFencedException, or InvalidProducerEpochException), nothing of its
     * transaction is visible to read_committed, and the second producer commits normally.
     */
    @Test
    void aSecondProducerWithTheSameIdFencesTheFirst() throws Exception {
        String topic = Clients.topic("txn-zombie");
        Clients.createTopic(admin, topic, 1);
        String transactionalId = Clients.topic("txn-zombie");
        try (KafkaProducer<String, String> zombie = transactional(transactionalId)) {
            zombie.initTransactions();
            zombie.beginTransaction();
            for (int i = 0; i < 5; i++) {
                assertEquals(i, zombie.send(new ProducerRecord<>(topic, 0, null, "zombie-" + i)).get().offset());
            }
            try (KafkaProducer<String, String> successor = transactional(transactionalId)) {
                successor.initTransactions();

                Throwable sendFailure = failure(() -> zombie.send(new ProducerRecord<>(topic, 0, null, "zombie-late")).get());
                assertFenced(sendFailure, "the zombie's send");
                Throwable commitFailure = failure(() -> {
                    zombie.commitTransaction();
                    return null;
                });
                assertFenced(commitFailure, "the zombie's commit");

                successor.beginTransaction();
                for (int i = 0; i < 3; i++) {
                    successor.send(new ProducerRecord<>(topic, 0, null, "live-" + i));
                }
                successor.commitTransaction();
            }
        }
        TopicPartition partition = new TopicPartition(topic, 0);
        try (KafkaConsumer<String, String> consumer = consumer(IsolationLevel.READ_COMMITTED)) {
            consumer.assign(List.of(partition));
            consumer.seekToBeginning(List.of(partition));
            assertEquals(List.of("live-0", "live-1", "live-2"),
                Clients.pollExactly(consumer, 3).stream().map(ConsumerRecord::value).toList());
        }
        try (KafkaConsumer<String, String> consumer = consumer(IsolationLevel.READ_UNCOMMITTED)) {
            consumer.assign(List.of(partition));
            consumer.seekToBeginning(List.of(partition));
            assertEquals(List.of("zombie-0", "zombie-1", "zombie-2", "zombie-3", "zombie-4", "live-0", "live-1", "live-2"),
                Clients.pollExactly(consumer, 8).stream().map(ConsumerRecord::value).toList());
        }
    }

    /**
     * An open transaction holds read_committed at its first offset, the last stable offset: 3
     * plain records, then a transaction's 2, then 2 plain records after it. read_committed reads the
     * first 3 and no further, and ListOffsets reports 3 for read_committed and 7 for
     * read_uncommitted; once the transaction commits the same consumer reads the other 4, and the
     * LSO moves past the commit marker to 8.
     */
    @Test
    void anOpenTransactionHoldsReadCommittedAtItsFirstOffset() throws Exception {
        String topic = Clients.topic("txn-lso");
        Clients.createTopic(admin, topic, 1);
        TopicPartition partition = new TopicPartition(topic, 0);
        try (KafkaProducer<String, String> plain = Clients.producer(broker, Map.of());
                KafkaProducer<String, String> transactional = transactional(Clients.topic("txn-lso"));
                KafkaConsumer<String, String> consumer = consumer(IsolationLevel.READ_COMMITTED)) {
            for (int i = 0; i < 3; i++) {
                plain.send(new ProducerRecord<>(topic, 0, null, "before-" + i)).get();
            }
            transactional.initTransactions();
            transactional.beginTransaction();
            for (int i = 0; i < 2; i++) {
                assertEquals(3 + i, transactional.send(new ProducerRecord<>(topic, 0, null, "txn-" + i)).get().offset());
            }
            for (int i = 0; i < 2; i++) {
                assertEquals(5 + i, plain.send(new ProducerRecord<>(topic, 0, null, "after-" + i)).get().offset());
            }
            awaitEndOffsets(List.of(partition), IsolationLevel.READ_COMMITTED, 3);
            awaitEndOffsets(List.of(partition), IsolationLevel.READ_UNCOMMITTED, 7);

            consumer.assign(List.of(partition));
            consumer.seekToBeginning(List.of(partition));
            assertEquals(List.of("before-0", "before-1", "before-2"),
                Clients.pollExactly(consumer, 3).stream().map(ConsumerRecord::value).toList());
            // Held at the LSO: a second more of polling brings nothing, and the position stays at 3.
            long until = System.nanoTime() + Duration.ofSeconds(1).toNanos();
            while (System.nanoTime() < until) {
                assertEquals(0, consumer.poll(POLL).count(), "records beyond the last stable offset");
            }
            assertEquals(3, consumer.position(partition));

            transactional.commitTransaction();
            List<ConsumerRecord<String, String>> rest = Clients.pollExactly(consumer, 4);
            assertEquals(List.of(3L, 4L, 5L, 6L), rest.stream().map(ConsumerRecord::offset).toList());
            assertEquals(List.of("txn-0", "txn-1", "after-0", "after-1"), rest.stream().map(ConsumerRecord::value).toList());
            awaitEndOffsets(List.of(partition), IsolationLevel.READ_COMMITTED, 8);
        }
    }

    /**
     * The admin transaction calls while a transaction is open on two partitions and after it
     * commits: describeTransactions (state, producer, partitions, timeout, coordinator),
     * listTransactions (all, and filtered by state and by producer id) and describeProducers (the
     * producer's id, epoch, last sequence and its transaction's first offset, gone after the
     * commit). An unknown transactional id is TRANSACTIONAL_ID_NOT_FOUND.
     */
    @Test
    void adminDescribesTransactionsAndProducers() throws Exception {
        String topic = Clients.topic("txn-admin");
        Clients.createTopic(admin, topic, 2);
        TopicPartition p0 = new TopicPartition(topic, 0);
        TopicPartition p1 = new TopicPartition(topic, 1);
        String transactionalId = Clients.topic("txn-admin");
        try (KafkaProducer<String, String> producer = transactional(transactionalId)) {
            producer.initTransactions();
            producer.beginTransaction();
            producer.send(new ProducerRecord<>(topic, 0, null, "a")).get();
            producer.send(new ProducerRecord<>(topic, 0, null, "b")).get();
            producer.send(new ProducerRecord<>(topic, 1, null, "c")).get();

            TransactionDescription open = wait(admin.describeTransactions(List.of(transactionalId)).description(transactionalId));
            assertEquals(TransactionState.ONGOING, open.state(), open.toString());
            assertEquals(Set.of(p0, p1), open.topicPartitions());
            assertEquals(Broker.NODE_ID, open.coordinatorId());
            assertEquals(TRANSACTION_TIMEOUT_MS, open.transactionTimeoutMs());
            assertTrue(open.transactionStartTimeMs().isPresent(), "an open transaction has a start time");
            assertTrue(Math.abs(open.transactionStartTimeMs().getAsLong() - System.currentTimeMillis()) < 60_000,
                "start time " + open.transactionStartTimeMs());
            assertTrue(open.producerId() >= 0, "producer id " + open.producerId());
            long producerId = open.producerId();

            TransactionListing ongoing = new TransactionListing(transactionalId, producerId, TransactionState.ONGOING);
            assertTrue(wait(admin.listTransactions().all()).contains(ongoing), "listTransactions lists " + ongoing);
            assertEquals(List.of(ongoing), List.copyOf(wait(admin.listTransactions(
                new ListTransactionsOptions().filterProducerIds(Set.of(producerId))).all())));
            assertTrue(wait(admin.listTransactions(new ListTransactionsOptions().filterStates(Set.of(TransactionState.ONGOING))).all())
                .contains(ongoing));
            assertFalse(wait(admin.listTransactions(new ListTransactionsOptions().filterStates(Set.of(TransactionState.COMPLETE_COMMIT))).all())
                .stream().anyMatch(l -> l.transactionalId().equals(transactionalId)), "listed as complete while open");

            Map<TopicPartition, ProducerState> producers = producerStates(List.of(p0, p1), producerId);
            assertEquals(open.producerEpoch(), producers.get(p0).producerEpoch());
            assertEquals(1, producers.get(p0).lastSequence());
            assertEquals(OptionalLong.of(0), producers.get(p0).currentTransactionStartOffset());
            assertEquals(0, producers.get(p1).lastSequence());
            assertEquals(OptionalLong.of(0), producers.get(p1).currentTransactionStartOffset());

            producer.commitTransaction();

            TransactionDescription done = awaitCondition("the transaction complete",
                () -> wait(admin.describeTransactions(List.of(transactionalId)).description(transactionalId)),
                d -> d.state() == TransactionState.COMPLETE_COMMIT, () -> null);
            assertEquals(producerId, done.producerId());
            assertEquals(Set.of(), done.topicPartitions());
            assertTrue(wait(admin.listTransactions(new ListTransactionsOptions().filterStates(Set.of(TransactionState.COMPLETE_COMMIT))).all())
                .contains(new TransactionListing(transactionalId, producerId, TransactionState.COMPLETE_COMMIT)));
            Map<TopicPartition, ProducerState> after = awaitCondition("no open transaction in describeProducers",
                () -> producerStates(List.of(p0, p1), producerId),
                s -> s.values().stream().allMatch(p -> p.currentTransactionStartOffset().isEmpty()), () -> null);
            // The markers carry the epoch the transaction ended with (transactions V2 bump it at the end).
            assertEquals(done.producerEpoch(), after.get(p0).producerEpoch(), "epoch after the commit " + after);
            assertEquals(done.producerEpoch(), after.get(p1).producerEpoch(), "epoch after the commit " + after);
        }
        ExecutionException unknown = assertThrows(ExecutionException.class,
            () -> admin.describeTransactions(List.of(Clients.topic("txn-unknown"))).all().get(Clients.WAIT.toSeconds(), TimeUnit.SECONDS));
        assertInstanceOf(TransactionalIdNotFoundException.class, unknown.getCause());
    }

    // --- helpers -----------------------------------------------------------------------------------

    private static final int TRANSACTION_TIMEOUT_MS = 30000;

    /** A transactional producer; the first initTransactions may wait for the broker to create __transaction_state. */
    private static KafkaProducer<String, String> transactional(String transactionalId) {
        return Clients.producer(broker, Map.of(
            ProducerConfig.TRANSACTIONAL_ID_CONFIG, transactionalId,
            ProducerConfig.TRANSACTION_TIMEOUT_CONFIG, TRANSACTION_TIMEOUT_MS,
            ProducerConfig.MAX_BLOCK_MS_CONFIG, 30000,
            ProducerConfig.LINGER_MS_CONFIG, 5));
    }

    private static KafkaConsumer<String, String> consumer(IsolationLevel isolation) {
        return Clients.consumer(broker, Map.of(ConsumerConfig.ISOLATION_LEVEL_CONFIG, isolation.toString()));
    }

    /** A processor's group member: read_committed, no auto commit (offsets go through the transaction). */
    private static KafkaConsumer<String, String> processorConsumer(String group, String protocol) {
        Map<String, Object> config = new HashMap<>();
        config.put(ConsumerConfig.GROUP_ID_CONFIG, group);
        config.put(ConsumerConfig.GROUP_PROTOCOL_CONFIG, protocol);
        config.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        config.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        config.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 15);
        if (protocol.equals("classic")) {
            config.put(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG, 200);
            config.put(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG, 10000);
        }
        return Clients.consumer(broker, config);
    }

    /**
     * One poll, and if it returned records one transaction copying them to {@code output} with the
     * input offsets, committed if {@code commit}, else left open with everything flushed. Returns
     * how many records it handled.
     */
    private static int processOnce(KafkaConsumer<String, String> consumer, KafkaProducer<String, String> producer,
            String output, boolean commit) {
        ConsumerRecords<String, String> records = consumer.poll(POLL);
        if (records.isEmpty()) {
            return 0;
        }
        producer.beginTransaction();
        Map<TopicPartition, OffsetAndMetadata> next = new HashMap<>();
        for (ConsumerRecord<String, String> record : records) {
            producer.send(new ProducerRecord<>(output, record.partition(), record.key(), "out:" + record.value()));
            next.put(new TopicPartition(record.topic(), record.partition()), new OffsetAndMetadata(record.offset() + 1));
        }
        producer.sendOffsetsToTransaction(next, consumer.groupMetadata());
        if (commit) {
            producer.commitTransaction();
        } else {
            producer.flush();
        }
        return records.count();
    }

    private static void sendToEach(KafkaProducer<String, String> producer, List<TopicPartition> partitions, String prefix) {
        for (TopicPartition partition : partitions) {
            for (int i = 0; i < 100; i++) {
                producer.send(new ProducerRecord<>(partition.topic(), partition.partition(), "k" + i, prefix + "-" + i));
            }
        }
    }

    /** Waits until ListOffsets(latest) with this isolation level reports {@code expected} for every partition. */
    private static void awaitEndOffsets(Collection<TopicPartition> partitions, IsolationLevel isolation, long expected) throws Exception {
        awaitCondition("ListOffsets latest, " + isolation + ", at " + expected, () -> {
            Map<TopicPartition, OffsetSpec> specs = partitions.stream().collect(Collectors.toMap(p -> p, p -> OffsetSpec.latest()));
            return new TreeMap<>(wait(admin.listOffsets(specs, new ListOffsetsOptions(isolation)).all()).entrySet().stream()
                .collect(Collectors.toMap(e -> e.getKey().toString(), e -> e.getValue().offset())));
        }, offsets -> offsets.values().stream().allMatch(o -> o == expected), () -> null);
    }

    /** This producer's state on each partition (describeProducers), failing if it is not listed. */
    private static Map<TopicPartition, ProducerState> producerStates(List<TopicPartition> partitions, long producerId) throws Exception {
        Map<TopicPartition, ProducerState> states = new HashMap<>();
        for (TopicPartition partition : partitions) {
            List<ProducerState> active = wait(admin.describeProducers(partitions).partitionResult(partition)).activeProducers();
            ProducerState mine = active.stream().filter(p -> p.producerId() == producerId).findFirst().orElse(null);
            assertNotNull(mine, "producer " + producerId + " among " + active + " on " + partition);
            states.put(partition, mine);
        }
        return states;
    }

    private interface Check<T> {
        T get() throws Exception;
    }

    private interface Step {
        Object run() throws Exception;
    }

    /**
     * Reads {@code value} until {@code done} holds, running {@code step} between reads (a poll, a
     * transaction; a step that returns null is followed by a 50 ms pause), failing after
     * {@link Clients#WAIT} with the last value; returns that value.
     */
    private static <T> T awaitCondition(String what, Check<T> value, Predicate<T> done, Step step) throws Exception {
        long deadline = System.nanoTime() + Clients.WAIT.toNanos();
        T last = value.get();
        while (!done.test(last)) {
            if (System.nanoTime() >= deadline) {
                fail(what + " within " + Clients.WAIT.toSeconds() + " s; last: " + last);
            }
            if (step.run() == null) {
                Thread.sleep(50);
            }
            last = value.get();
        }
        return last;
    }

    private static Map<TopicPartition, Long> positions(KafkaConsumer<?, ?> consumer, List<TopicPartition> partitions) {
        if (!consumer.assignment().containsAll(partitions)) {
            return Map.of();
        }
        Map<TopicPartition, Long> positions = new HashMap<>();
        for (TopicPartition partition : partitions) {
            positions.put(partition, consumer.position(partition));
        }
        return positions;
    }

    private static Map<TopicPartition, Long> offsetsOf(Collection<TopicPartition> partitions, long offset) {
        return partitions.stream().collect(Collectors.toMap(p -> p, p -> offset));
    }

    private static <K, V> List<ConsumerRecord<K, V>> of(List<ConsumerRecord<K, V>> records, TopicPartition partition) {
        return records.stream()
            .filter(r -> r.topic().equals(partition.topic()) && r.partition() == partition.partition())
            .toList();
    }

    /** What the call threw (an ExecutionException unwrapped), failing if it threw nothing. */
    private static Throwable failure(Check<?> call) {
        try {
            call.get();
        } catch (ExecutionException e) {
            return e.getCause();
        } catch (Exception e) {
            return e;
        }
        return fail("expected the call to fail");
    }

    private static void assertFenced(Throwable failure, String what) {
        Throwable cause = failure;
        while (cause != null && !(cause instanceof ProducerFencedException || cause instanceof InvalidProducerEpochException)) {
            cause = cause.getCause();
        }
        if (cause == null) {
            throw new AssertionError(what + " failed with " + failure + ", not ProducerFenced/InvalidProducerEpoch", failure);
        }
    }

    private static <T> T wait(KafkaFuture<T> future) throws Exception {
        return future.get(Clients.WAIT.toSeconds(), TimeUnit.SECONDS);
    }
}
