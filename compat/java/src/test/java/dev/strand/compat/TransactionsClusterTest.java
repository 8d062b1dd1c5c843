package dev.strand.compat;

import static dev.strand.compat.ClusterAdmin.awaitPartitions;
import static dev.strand.compat.ClusterAdmin.describeTopic;
import static dev.strand.compat.ClusterAdmin.ids;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.Predicate;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ListOffsetsOptions;
import org.apache.kafka.clients.admin.ListTopicsOptions;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.TopicPartitionInfo;
import org.apache.kafka.common.errors.AuthorizationException;
import org.apache.kafka.common.errors.InvalidProducerEpochException;
import org.apache.kafka.common.errors.OutOfOrderSequenceException;
import org.apache.kafka.common.errors.ProducerFencedException;
import org.apache.kafka.common.errors.RetriableException;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.errors.UnsupportedVersionException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The transaction issue's kill test: Java consume-transform-produce with
 * {@code sendOffsetsToTransaction} on a three-node cluster of its own ({@link Cluster}) while
 * brokers are killed with SIGKILL and restarted, and a zombie producer fenced midway.
 *
 * <p>An input topic and an output topic, each of 3 partitions, replication factor 3 and
 * {@code min.insync.replicas=2}; the input is filled with {@link #RECORDS} records of unique values
 * ({@code in-<i>} on partition {@code i % 3}). A processor thread ({@link Processor}) runs the
 * standard loop: a read_committed classic group member without auto commit and a transactional
 * producer of a fixed {@code transactional.id}; poll, begin, send each record transformed
 * ({@code out:<value>|t<transaction>}, to the same partition number), sendOffsetsToTransaction with the
 * consumer's group metadata, commit. On a fencing or other fatal error it closes the producer and
 * makes a new one (whose initTransactions ends whatever the old one left open); on any other error it
 * aborts; either way it rewinds the consumer to the group's committed offsets. The test lets it
 * process in steps (a budget of committed records), and meanwhile:
 *
 * <ol>
 *   <li>kills the leader of input partition 0 while the processor runs, lets it get through a fifth
 *       of the input with the node down, then restarts the node and waits until it is back in every
 *       ISR (input, output, {@code __consumer_offsets}, {@code __transaction_state});
 *   <li>stops the processor in the middle of a transaction (records written and acknowledged),
 *       starts a second producer with the same {@code transactional.id} (initTransactions, which
 *       aborts the open transaction) and lets the processor go on: its next send, offsets and commit
 *       must fail with ProducerFencedException (or InvalidProducerEpochException), after which it
 *       makes a new producer and commits again;
 *   <li>kills the coordinator of the processor's {@code transactional.id} (Admin
 *       describeTransactions' coordinatorId) while the processor runs; the processor finishes the
 *       input with the node down (the coordinator must move), then the node is restarted and awaited
 *       back in every ISR.
 * </ol>
 *
 * <p>Every transaction the processor began is recorded with what it sent, what was acknowledged and
 * how it ended: committed, aborted (abortTransaction returned), fenced by the zombie (aborted by
 * its initTransactions), or unknown (commit failed and the producer was replaced). Then the output is
 * read to its end, first checking that no transaction is left open (the last stable offsets equal the
 * high watermarks). read_committed must hold every input value exactly once, each output partition
 * the input partition's values in input order; no record of an aborted or fenced transaction; of every
 * transaction all its records or none, all for committed ones; read_uncommitted every acknowledged
 * record (the fenced transaction's among them: the aborted copies a read_committed consumer must
 * skip). The group's committed offsets must be the input's end offsets. The figures are printed
 * ({@code txn-cluster: ...} lines): records in and out, duplicates, lost, aborted reads, aborted
 * copies, transactions by outcome, failover times and durations.
 */
class TransactionsClusterTest {
    private static final int NODES = 3;
    private static final int PARTITIONS = 3;
    private static final int RECORDS = 3000;
    /** Records per poll, so per transaction: about 60 transactions over the input. */
    private static final int MAX_POLL_RECORDS = 50;
    /** What the broker must do within: a failover, a rejoin, a step of the processor. */
    private static final Duration DEADLINE = Duration.ofSeconds(30);
    private static final Duration POLL = Duration.ofMillis(100);
    private static final String OFFSETS_TOPIC = "__consumer_offsets";
    private static final String TRANSACTION_TOPIC = "__transaction_state";

    private static Cluster cluster;
    private static Admin admin;

    @BeforeAll
    static void startCluster() throws Exception {
        long started = System.nanoTime();
        cluster = Cluster.start(NODES);
        System.out.printf("txn-cluster: %d %s nodes serving after %d ms%n", NODES, cluster.kind().name().toLowerCase(),
            millisSince(started));
        admin = Clients.admin(cluster.bootstrap());
    }

    @AfterAll
    static void stopCluster() {
        try {
            if (admin != null) {
                admin.close(Duration.ofSeconds(2));
            }
        } finally {
            if (cluster != null) {
                cluster.close();
            }
        }
    }

    @Test
    void consumeTransformProduceIsExactlyOnceWhileBrokersAreKilled() throws Exception {
        long testStarted = System.nanoTime();
        String input = Clients.topic("txn-cluster-in");
        String output = Clients.topic("txn-cluster-out");
        for (String topic : List.of(input, output)) {
            admin.createTopics(List.of(new NewTopic(topic, PARTITIONS, (short) NODES).configs(Map.of("min.insync.replicas", "2"))))
                .all().get(Clients.WAIT.toSeconds(), TimeUnit.SECONDS);
        }
        awaitPartitions(admin, cluster, List.of(input, output), "3 partitions each, with a leader and an ISR of 3",
            p -> p.leader() != null && p.isr().size() == NODES);
        List<TopicPartition> inputPartitions = partitions(input);
        List<TopicPartition> outputPartitions = partitions(output);

        // --- the input -------------------------------------------------------------------------------
        long fillStarted = System.nanoTime();
        Map<Integer, List<String>> inputValues = new TreeMap<>();
        try (KafkaProducer<String, String> producer = Clients.producer(cluster.bootstrap(), Map.of(
                ProducerConfig.ACKS_CONFIG, "all", ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true))) {
            List<Future<RecordMetadata>> sends = new ArrayList<>();
            for (int i = 0; i < RECORDS; i++) {
                String value = "in-" + i;
                inputValues.computeIfAbsent(i % PARTITIONS, p -> new ArrayList<>()).add(value);
                sends.add(producer.send(new ProducerRecord<>(input, i % PARTITIONS, "k" + i, value)));
            }
            for (Future<RecordMetadata> send : sends) {
                send.get(Clients.WAIT.toSeconds(), TimeUnit.SECONDS);
            }
        }
        Map<TopicPartition, Long> inputEnd = endOffsets(inputPartitions, IsolationLevel.READ_UNCOMMITTED);
        assertEquals(partitionsAt(inputPartitions, RECORDS / PARTITIONS), inputEnd, "the input's end offsets");
        System.out.printf("txn-cluster: input of %d records written in %d ms%n", RECORDS, millisSince(fillStarted));

        String group = Clients.topic("txn-cluster-group");
        String transactionalId = Clients.topic("txn-cluster-processor");
        Processor processor = new Processor(input, output, group, transactionalId, inputEnd);
        Thread thread = new Thread(processor, "txn-cluster-processor");
        thread.setDaemon(true);
        long processStarted = System.nanoTime();
        thread.start();
        KafkaProducer<String, String> zombie = null;
        try {
            // Warm up: the first transactions create __transaction_state and __consumer_offsets.
            processor.allow(RECORDS / 5);
            processor.await("a fifth of the input committed", () -> processor.progress() >= RECORDS / 5);
            List<String> topics = new ArrayList<>(List.of(input, output));
            Set<String> internal = admin.listTopics(new ListTopicsOptions().listInternal(true)).names()
                .get(Clients.WAIT.toSeconds(), TimeUnit.SECONDS);
            for (String name : List.of(OFFSETS_TOPIC, TRANSACTION_TOPIC)) {
                assertTrue(internal.contains(name), name + " exists once transactions with offsets have committed: " + internal);
                topics.add(name);
            }
            awaitPartitions(admin, cluster, List.of(OFFSETS_TOPIC, TRANSACTION_TOPIC), "the internal topics replicated 3 ways and in sync",
                p -> p.leader() != null && p.replicas().size() == NODES && p.isr().size() == NODES);

            // --- kill 1: the leader of input partition 0, mid-stream ---------------------------------
            processor.allow(2 * RECORDS / 5);
            int atKill = processor.progress();
            processor.await("the processor running again after the warm-up", () -> processor.progress() >= atKill + 3 * MAX_POLL_RECORDS);
            int victim = leaderOf(input, 0);
            int coordinatorThen = transactionCoordinator(transactionalId);
            int committedBeforeKill = processor.progress();
            long killedAt = cluster.kill(victim);
            processor.await("two fifths of the input committed with node " + victim + " down",
                () -> processor.progress() >= 2 * RECORDS / 5);
            System.out.printf("txn-cluster: node %d (leader of input partition 0%s) killed after %d records committed;"
                    + " the processor committed again %d ms later%n", victim,
                victim == coordinatorThen ? ", the transaction coordinator too" : "", committedBeforeKill,
                processor.firstCommitAfter(killedAt));
            restartAndAwaitIsr(victim, topics);

            // --- the zombie: a second producer with the same transactional.id ------------------------
            processor.allow(3 * RECORDS / 5);
            processor.requestPause();
            processor.await("the processor paused in the middle of a transaction", processor::paused);
            Attempt interrupted = processor.pausedAttempt();
            long fenceStarted = System.nanoTime();
            zombie = transactionalProducer(cluster.bootstrap(), transactionalId);
            zombie.initTransactions();
            long fencedAt = System.nanoTime();
            processor.resume();
            processor.await("the interrupted transaction ended", () -> interrupted.outcome() != Outcome.OPEN);
            assertEquals(Outcome.FENCED, interrupted.outcome(), "the interrupted transaction's outcome: " + interrupted.error);
            assertFenced(interrupted.failure, "the processor's next send, offsets and commit after the second producer's initTransactions");
            processor.await("a transaction committed by a new producer after the fencing",
                () -> processor.committedByGenerationAbove(interrupted.generation));
            System.out.printf("txn-cluster: zombie: a second producer's initTransactions took %d ms and fenced the"
                    + " processor mid-transaction (%d records acknowledged in it); the processor's next call failed with %s;"
                    + " its new producer committed %d ms after the fencing%n", millisSince(fenceStarted),
                interrupted.acknowledged.size(), interrupted.error, processor.firstCommitAfter(fencedAt));
            assertTrue(!interrupted.acknowledged.isEmpty(), "the interrupted transaction had acknowledged records");
            zombie.close(Duration.ofSeconds(5));
            zombie = null;
            processor.await("three fifths of the input committed", () -> processor.progress() >= 3 * RECORDS / 5);

            // --- kill 2: the transaction coordinator of the processor's transactional.id -------------
            processor.allow(RECORDS);
            int atSecondKill = processor.progress();
            processor.await("the processor running again after the zombie",
                () -> processor.progress() >= atSecondKill + 3 * MAX_POLL_RECORDS);
            int coordinator = transactionCoordinator(transactionalId);
            List<TopicPartitionInfo> statePartitions = describeTopic(admin, TRANSACTION_TOPIC).partitions();
            int leaderOfItsPartition = statePartitions.get(partitionFor(transactionalId, statePartitions.size())).leader().id();
            assertEquals(coordinator, leaderOfItsPartition, "the transaction coordinator leads its " + TRANSACTION_TOPIC + " partition");
            int committedBeforeSecondKill = processor.progress();
            long secondKilledAt = cluster.kill(coordinator);
            processor.await("the whole input committed with node " + coordinator + " down", processor::finished);
            System.out.printf("txn-cluster: node %d (transaction coordinator of the processor) killed after %d records"
                    + " committed; the processor committed again %d ms later%n", coordinator, committedBeforeSecondKill,
                processor.firstCommitAfter(secondKilledAt));
            int newCoordinator = transactionCoordinator(transactionalId);
            assertNotEquals(coordinator, newCoordinator, "the transaction coordinator after node " + coordinator + " was killed");
            processor.stop();
            thread.join(DEADLINE.toMillis());
            assertTrue(!thread.isAlive(), "the processor did not stop");
            assertNull(processor.error(), () -> "the processor failed: " + processor.error() + "\n" + cluster.tails());
            System.out.printf("txn-cluster: processing done in %d ms; transactions: %s, producers %d%n",
                millisSince(processStarted), processor.outcomes(), processor.generations());
            restartAndAwaitIsr(coordinator, topics);
        } finally {
            processor.stop();
            thread.join(DEADLINE.toMillis());
            if (zombie != null) {
                zombie.close(Duration.ZERO);
            }
        }
        if (processor.error() != null) {
            throw new AssertionError("the processor failed\n" + cluster.tails(), processor.error());
        }

        // --- what the output holds ---------------------------------------------------------------------
        long verifyStarted = System.nanoTime();
        Map<TopicPartition, Long> outputEnd = endOffsets(outputPartitions, IsolationLevel.READ_UNCOMMITTED);
        Map<TopicPartition, Long> stable = awaitValue("no transaction left open on the output (last stable offsets at the high watermarks "
                + outputEnd + ")", () -> endOffsets(outputPartitions, IsolationLevel.READ_COMMITTED), outputEnd::equals);
        Map<Integer, List<String>> committedRead = readAll(outputPartitions, IsolationLevel.READ_COMMITTED, stable);
        Map<Integer, List<String>> uncommittedRead = readAll(outputPartitions, IsolationLevel.READ_UNCOMMITTED, outputEnd);

        Map<Integer, Attempt> attempts = processor.attempts();
        Map<String, Integer> seenCommitted = new HashMap<>();
        Map<Integer, Integer> committedPerAttempt = new HashMap<>();
        Map<Integer, List<String>> committedInputOrder = new TreeMap<>();
        List<String> malformed = new ArrayList<>();
        List<String> abortedReads = new ArrayList<>();
        committedRead.forEach((partition, values) -> {
            for (String value : values) {
                Output parsed = Output.parse(value);
                Attempt attempt = parsed == null ? null : attempts.get(parsed.attempt);
                if (attempt == null || !attempt.sent.contains(value)) {
                    malformed.add(partition + ": " + value);
                    continue;
                }
                seenCommitted.merge(parsed.input, 1, Integer::sum);
                committedPerAttempt.merge(parsed.attempt, 1, Integer::sum);
                committedInputOrder.computeIfAbsent(partition, p -> new ArrayList<>()).add(parsed.input);
                if (attempt.outcome() == Outcome.ABORTED || attempt.outcome() == Outcome.FENCED) {
                    abortedReads.add(value + " (transaction " + attempt.id + ", " + attempt.outcome() + ": " + attempt.error + ")");
                }
            }
        });
        Set<String> allInput = inputValues.values().stream().flatMap(List::stream).collect(Collectors.toSet());
        List<String> duplicates = seenCommitted.entrySet().stream().filter(e -> e.getValue() > 1)
            .map(e -> e.getKey() + " x" + e.getValue()).sorted().toList();
        List<String> lost = allInput.stream().filter(v -> !seenCommitted.containsKey(v)).sorted().toList();
        List<String> torn = new ArrayList<>();
        for (Attempt attempt : attempts.values()) {
            int read = committedPerAttempt.getOrDefault(attempt.id, 0);
            boolean whole = read == attempt.sent.size();
            if ((attempt.outcome() == Outcome.COMMITTED && !whole) || (read != 0 && !whole)) {
                torn.add("transaction " + attempt.id + " (" + attempt.outcome() + ", " + attempt.sent.size() + " records sent): "
                    + read + " read_committed");
            }
        }
        int unknownCommitted = (int) attempts.values().stream()
            .filter(a -> a.outcome() == Outcome.UNKNOWN && committedPerAttempt.getOrDefault(a.id, 0) > 0).count();

        Set<String> uncommittedSet = new TreeSet<>();
        List<String> uncommittedTwice = new ArrayList<>();
        uncommittedRead.values().forEach(values -> values.forEach(v -> {
            if (!uncommittedSet.add(v)) {
                uncommittedTwice.add(v);
            }
        }));
        List<String> committedNotUncommitted = committedRead.values().stream().flatMap(List::stream)
            .filter(v -> !uncommittedSet.contains(v)).sorted().toList();
        List<String> acknowledgedMissing = attempts.values().stream().flatMap(a -> a.acknowledged.stream())
            .filter(v -> !uncommittedSet.contains(v)).sorted().toList();
        int recordsOut = committedRead.values().stream().mapToInt(List::size).sum();
        int uncommittedCount = uncommittedRead.values().stream().mapToInt(List::size).sum();
        int abortedCopies = uncommittedCount - recordsOut;
        System.out.printf("txn-cluster: records in %d, records out %d, duplicates %d, lost %d, aborted reads %d;"
                + " read_uncommitted %d (aborted copies %d); transactions %s (%d of unknown outcome committed);"
                + " verified in %d ms, whole test %d ms%n", RECORDS, recordsOut, duplicates.size(), lost.size(),
            abortedReads.size(), uncommittedCount, abortedCopies, processor.outcomes(), unknownCommitted,
            millisSince(verifyStarted), millisSince(testStarted));

        assertEquals(List.of(), head(malformed), "read_committed output records the processor never sent (" + malformed.size() + ")");
        assertEquals(List.of(), head(abortedReads), "read_committed records of aborted transactions (" + abortedReads.size() + ")");
        assertEquals(List.of(), head(duplicates), "input values read_committed more than once (" + duplicates.size() + ")");
        assertEquals(List.of(), head(lost), "input values missing from the read_committed output (" + lost.size() + ")");
        assertEquals(List.of(), head(torn), "transactions read_committed in part, or committed and not read whole");
        assertEquals(RECORDS, recordsOut, "records out");
        assertEquals(inputValues, committedInputOrder, "each output partition: its input partition's values in order");
        assertEquals(List.of(), head(uncommittedTwice), "records read_uncommitted twice (" + uncommittedTwice.size() + ")");
        assertEquals(List.of(), head(committedNotUncommitted), "read_committed records that read_uncommitted misses");
        assertEquals(List.of(), head(acknowledgedMissing), "acknowledged output records missing from read_uncommitted ("
            + acknowledgedMissing.size() + ")");
        assertTrue(abortedCopies >= processor.pausedAttempt().acknowledged.size(), "aborted copies " + abortedCopies
            + " include the fenced transaction's " + processor.pausedAttempt().acknowledged.size() + " acknowledged records");
        Map<TopicPartition, Long> groupOffsets = admin.listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata()
            .get(Clients.WAIT.toSeconds(), TimeUnit.SECONDS).entrySet().stream()
            .collect(Collectors.toMap(Map.Entry::getKey, e -> e.getValue().offset()));
        assertEquals(inputEnd, groupOffsets, "the group's committed offsets: the input's end offsets");
    }

    // --- the processor ---------------------------------------------------------------------------------

    enum Outcome { OPEN, COMMITTED, ABORTED, FENCED, UNKNOWN }

    /** One transaction the processor began: what it sent, what was acknowledged, how it ended. */
    static final class Attempt {
        final int id;
        /** Which of the processor's producers (1 for the first). */
        final int generation;
        final Set<String> sent = ConcurrentHashMap.newKeySet();
        final Set<String> acknowledged = ConcurrentHashMap.newKeySet();
        private volatile Outcome outcome = Outcome.OPEN;
        volatile Throwable failure;
        volatile String error;
        volatile long committedAt;

        Attempt(int id, int generation) {
            this.id = id;
            this.generation = generation;
        }

        Outcome outcome() {
            return outcome;
        }
    }

    /** An output value: {@code out:<input value>|t<transaction id>}. */
    private record Output(String input, int attempt) {
        static Output parse(String value) {
            int bar = value.lastIndexOf("|t");
            if (!value.startsWith("out:") || bar < 0) {
                return null;
            }
            try {
                return new Output(value.substring(4, bar), Integer.parseInt(value.substring(bar + 2)));
            } catch (NumberFormatException e) {
                return null;
            }
        }
    }

    /**
     * The consume-transform-produce loop, on a thread of its own. It processes while its committed
     * records are below the budget the test allows, and can be asked to stop in the middle of its
     * next transaction (records sent and acknowledged, one held back, offsets not yet sent) until the
     * test resumes it.
     */
    private static final class Processor implements Runnable {
        private final String input;
        private final String output;
        private final String group;
        private final String transactionalId;
        private final Map<TopicPartition, Long> end;

        // Guarded by this.
        private final Map<TopicPartition, Long> committed = new HashMap<>();
        private final Map<Integer, Attempt> attempts = new TreeMap<>();
        private int budget;
        private int generation;
        private boolean pauseRequested;
        private Attempt pausedAttempt;
        private boolean paused;
        private boolean resumed;
        private boolean stopped;
        private boolean exited;
        private Throwable error;
        private Thread thread;

        Processor(String input, String output, String group, String transactionalId, Map<TopicPartition, Long> end) {
            this.input = input;
            this.output = output;
            this.group = group;
            this.transactionalId = transactionalId;
            this.end = Map.copyOf(end);
        }

        @Override
        public void run() {
            synchronized (this) {
                thread = Thread.currentThread();
            }
            Map<String, Object> config = new HashMap<>();
            config.put(ConsumerConfig.GROUP_ID_CONFIG, group);
            config.put(ConsumerConfig.GROUP_PROTOCOL_CONFIG, "classic");
            config.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
            config.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
            config.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, MAX_POLL_RECORDS);
            config.put(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG, 500);
            config.put(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG, 10000);
            KafkaProducer<String, String> producer = null;
            try (KafkaConsumer<String, String> consumer = Clients.consumer(cluster.bootstrap(), config)) {
                consumer.subscribe(List.of(input));
                producer = newProducer();
                while (awaitBudget()) {
                    ConsumerRecords<String, String> records = consumer.poll(POLL);
                    if (records.isEmpty()) {
                        continue;
                    }
                    Attempt attempt = begin();
                    try {
                        producer = transact(consumer, producer, records, attempt);
                    } catch (KafkaException e) {
                        attempt.failure = e;
                        attempt.error = describe(e);
                        boolean fenced = attempt == pausedAttempt();
                        boolean replace = fatal(e);
                        if (!replace) {
                            try {
                                producer.abortTransaction();
                                attempt.outcome = Outcome.ABORTED;
                            } catch (KafkaException abortFailure) {
                                attempt.error += "; abortTransaction: " + describe(abortFailure);
                                replace = true;
                            }
                        }
                        if (fenced) {
                            // The second producer's initTransactions aborted it before the processor went on.
                            attempt.outcome = Outcome.FENCED;
                        } else if (replace) {
                            attempt.outcome = Outcome.UNKNOWN;
                        }
                        if (replace) {
                            producer.close(Duration.ZERO);
                            producer = null;
                            producer = newProducer();
                        }
                        rewind(consumer);
                    }
                    synchronized (this) {
                        notifyAll();
                    }
                }
            } catch (Throwable t) {
                synchronized (this) {
                    error = t;
                }
            } finally {
                if (producer != null) {
                    producer.close(Duration.ofSeconds(5));
                }
                synchronized (this) {
                    exited = true;
                    notifyAll();
                }
            }
        }

        /** One transaction over {@code records}; returns the producer (the same). */
        private KafkaProducer<String, String> transact(KafkaConsumer<String, String> consumer, KafkaProducer<String, String> producer,
                ConsumerRecords<String, String> records, Attempt attempt) throws InterruptedException {
            producer.beginTransaction();
            List<ConsumerRecord<String, String>> list = new ArrayList<>();
            records.forEach(list::add);
            Map<TopicPartition, OffsetAndMetadata> next = new HashMap<>();
            for (ConsumerRecord<String, String> record : list) {
                next.put(new TopicPartition(record.topic(), record.partition()), new OffsetAndMetadata(record.offset() + 1));
            }
            // Paused with one record held back, so that something is sent after the fencing too.
            boolean pause = list.size() >= 2 && takePauseRequest(attempt);
            int held = pause ? 1 : 0;
            for (ConsumerRecord<String, String> record : list.subList(0, list.size() - held)) {
                send(producer, record, attempt);
            }
            if (pause) {
                producer.flush();
                pauseUntilResumed();
                send(producer, list.get(list.size() - 1), attempt);
            }
            producer.sendOffsetsToTransaction(next, consumer.groupMetadata());
            producer.commitTransaction();
            synchronized (this) {
                attempt.committedAt = System.nanoTime();
                attempt.outcome = Outcome.COMMITTED;
                next.forEach((partition, offset) -> committed.put(partition, offset.offset()));
                notifyAll();
            }
            return producer;
        }

        private void send(KafkaProducer<String, String> producer, ConsumerRecord<String, String> record, Attempt attempt) {
            String value = "out:" + record.value() + "|t" + attempt.id;
            attempt.sent.add(value);
            producer.send(new ProducerRecord<>(output, record.partition(), record.key(), value), (metadata, e) -> {
                if (e == null) {
                    attempt.acknowledged.add(value);
                }
            });
        }

        /**
         * A new transactional producer, initialised: initTransactions is retried after a timeout (a
         * coordinator moving), the producer replaced after any other error, until {@link #DEADLINE}.
         */
        private KafkaProducer<String, String> newProducer() {
            long deadline = System.nanoTime() + DEADLINE.toNanos();
            while (true) {
                KafkaProducer<String, String> producer = transactionalProducer(cluster.bootstrap(), transactionalId);
                synchronized (this) {
                    generation++;
                }
                try {
                    while (true) {
                        try {
                            producer.initTransactions();
                            return producer;
                        } catch (TimeoutException e) {
                            if (System.nanoTime() >= deadline) {
                                throw e;
                            }
                        }
                    }
                } catch (KafkaException e) {
                    producer.close(Duration.ZERO);
                    if (System.nanoTime() >= deadline) {
                        throw e;
                    }
                }
            }
        }

        /** Seeks every assigned partition back to the group's committed offset (the start if none). */
        private void rewind(KafkaConsumer<String, String> consumer) {
            long deadline = System.nanoTime() + DEADLINE.toNanos();
            while (true) {
                Set<TopicPartition> assigned = consumer.assignment();
                try {
                    Map<TopicPartition, OffsetAndMetadata> offsets = consumer.committed(assigned, Duration.ofSeconds(5));
                    for (TopicPartition partition : assigned) {
                        OffsetAndMetadata offset = offsets.get(partition);
                        if (offset == null) {
                            consumer.seekToBeginning(List.of(partition));
                        } else {
                            consumer.seek(partition, offset.offset());
                        }
                    }
                    synchronized (this) {
                        offsets.forEach((partition, offset) -> {
                            if (offset != null) {
                                committed.put(partition, offset.offset());
                            }
                        });
                    }
                    return;
                } catch (RetriableException e) {
                    if (System.nanoTime() >= deadline) {
                        throw e;
                    }
                }
            }
        }

        private static boolean fatal(KafkaException e) {
            return e instanceof ProducerFencedException || e instanceof InvalidProducerEpochException
                || e instanceof OutOfOrderSequenceException || e instanceof AuthorizationException
                || e instanceof UnsupportedVersionException;
        }

        private synchronized Attempt begin() {
            Attempt attempt = new Attempt(attempts.size() + 1, generation);
            attempts.put(attempt.id, attempt);
            return attempt;
        }

        /** Waits while the committed records reach the budget; false once stopped. */
        private synchronized boolean awaitBudget() throws InterruptedException {
            while (!stopped && progress() >= budget && !finished()) {
                wait(100);
            }
            return !stopped && !finished();
        }

        private synchronized boolean takePauseRequest(Attempt attempt) {
            if (!pauseRequested) {
                return false;
            }
            pauseRequested = false;
            pausedAttempt = attempt;
            return true;
        }

        private synchronized void pauseUntilResumed() throws InterruptedException {
            paused = true;
            notifyAll();
            long deadline = System.nanoTime() + DEADLINE.toNanos();
            while (!resumed && !stopped) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    throw new IllegalStateException("not resumed within " + DEADLINE.toSeconds() + " s");
                }
                TimeUnit.NANOSECONDS.timedWait(this, left);
            }
        }

        // --- the test's side ---

        synchronized void allow(int records) {
            budget = records;
            notifyAll();
        }

        synchronized void requestPause() {
            pauseRequested = true;
            notifyAll();
        }

        synchronized boolean paused() {
            return paused;
        }

        synchronized Attempt pausedAttempt() {
            return pausedAttempt;
        }

        synchronized void resume() {
            resumed = true;
            notifyAll();
        }

        synchronized void stop() {
            stopped = true;
            notifyAll();
        }

        synchronized Throwable error() {
            return error;
        }

        synchronized int progress() {
            return committed.values().stream().mapToInt(Long::intValue).sum();
        }

        synchronized boolean finished() {
            return end.entrySet().stream().allMatch(e -> e.getValue().equals(committed.get(e.getKey())));
        }

        synchronized int generations() {
            return generation;
        }

        synchronized boolean committedByGenerationAbove(int generation) {
            return attempts.values().stream().anyMatch(a -> a.generation > generation && a.outcome() == Outcome.COMMITTED);
        }

        /** Milliseconds from {@code nanoTime} to the first commit after it (-1 if none). */
        synchronized long firstCommitAfter(long nanoTime) {
            return attempts.values().stream().filter(a -> a.outcome() == Outcome.COMMITTED && a.committedAt > nanoTime)
                .mapToLong(a -> TimeUnit.NANOSECONDS.toMillis(a.committedAt - nanoTime)).min().orElse(-1);
        }

        /** Where the processor's thread is, for failure messages. */
        private String where() {
            StringBuilder out = new StringBuilder("--- the processor's thread ---\n");
            if (thread != null) {
                for (StackTraceElement frame : thread.getStackTrace()) {
                    out.append("    at ").append(frame).append('\n');
                    if (frame.getClassName().equals(Processor.class.getName()) && frame.getMethodName().equals("run")) {
                        break;
                    }
                }
            }
            return out.toString();
        }

        synchronized Map<Integer, Attempt> attempts() {
            return new TreeMap<>(attempts);
        }

        synchronized Map<Outcome, Long> outcomes() {
            return attempts.values().stream().collect(Collectors.groupingBy(Attempt::outcome, () -> new TreeMap<>(), Collectors.counting()));
        }

        /**
         * Waits until {@code done} holds, failing after {@link #DEADLINE} or if the processor
         * stopped with an error.
         */
        synchronized void await(String what, BooleanSupplier done) throws InterruptedException {
            long deadline = System.nanoTime() + DEADLINE.toNanos();
            while (!done.getAsBoolean()) {
                if (error != null || exited) {
                    throw new AssertionError(what + ": the processor stopped" + (error == null ? "" : " with " + error)
                        + "\n" + cluster.tails(), error);
                }
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    fail(what + ": not within " + DEADLINE.toSeconds() + " s (committed " + committed + " of " + end
                        + "; transactions " + outcomes() + "; producers " + generation + ")\n" + where() + cluster.tails());
                }
                TimeUnit.NANOSECONDS.timedWait(this, Math.min(left, TimeUnit.MILLISECONDS.toNanos(100)));
            }
        }
    }

    // --- helpers ---------------------------------------------------------------------------------------

    static KafkaProducer<String, String> transactionalProducer(String bootstrap, String transactionalId) {
        return Clients.producer(bootstrap, Map.of(
            ProducerConfig.TRANSACTIONAL_ID_CONFIG, transactionalId,
            ProducerConfig.TRANSACTION_TIMEOUT_CONFIG, 30000,
            ProducerConfig.LINGER_MS_CONFIG, 5,
            ProducerConfig.RETRY_BACKOFF_MAX_MS_CONFIG, 200,
            ProducerConfig.RECONNECT_BACKOFF_MAX_MS_CONFIG, 200));
    }

    /** Reads {@code partitions} from the start to {@code end} with this isolation level: values by partition. */
    private static Map<Integer, List<String>> readAll(List<TopicPartition> partitions, IsolationLevel isolation,
            Map<TopicPartition, Long> end) {
        Map<Integer, List<String>> values = new TreeMap<>();
        try (KafkaConsumer<String, String> consumer = Clients.consumer(cluster.bootstrap(),
                Map.of(ConsumerConfig.ISOLATION_LEVEL_CONFIG, isolation.toString()))) {
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            long deadline = System.nanoTime() + DEADLINE.toNanos();
            while (partitions.stream().anyMatch(p -> consumer.position(p) < end.get(p))) {
                if (System.nanoTime() >= deadline) {
                    fail(isolation + ": could not read to " + end + " within " + DEADLINE.toSeconds() + " s; positions "
                        + partitions.stream().collect(Collectors.toMap(p -> p, consumer::position)));
                }
                for (ConsumerRecord<String, String> record : consumer.poll(POLL)) {
                    values.computeIfAbsent(record.partition(), p -> new ArrayList<>()).add(record.value());
                }
            }
        }
        return values;
    }

    private static Map<TopicPartition, Long> endOffsets(List<TopicPartition> partitions, IsolationLevel isolation) throws Exception {
        return admin.listOffsets(partitions.stream().collect(Collectors.toMap(p -> p, p -> OffsetSpec.latest())),
                new ListOffsetsOptions(isolation)).all().get(Clients.WAIT.toSeconds(), TimeUnit.SECONDS)
            .entrySet().stream().collect(Collectors.toMap(Map.Entry::getKey, e -> e.getValue().offset()));
    }

    private interface Check<T> {
        T get() throws Exception;
    }

    private static <T> T awaitValue(String what, Check<T> value, Predicate<T> done) throws Exception {
        long deadline = System.nanoTime() + DEADLINE.toNanos();
        T last = value.get();
        while (!done.test(last)) {
            if (System.nanoTime() >= deadline) {
                fail(what + ": not within " + DEADLINE.toSeconds() + " s; last " + last);
            }
            Thread.sleep(100);
            last = value.get();
        }
        return last;
    }

    /** The coordinator of {@code transactionalId} (Admin describeTransactions), retried while it moves. */
    private static int transactionCoordinator(String transactionalId) throws Exception {
        return awaitValue("describeTransactions(" + transactionalId + ")", () -> {
            try {
                return admin.describeTransactions(List.of(transactionalId)).description(transactionalId)
                    .get(Clients.WAIT.toSeconds(), TimeUnit.SECONDS).coordinatorId();
            } catch (ExecutionException e) {
                return -1;
            }
        }, id -> id >= 0);
    }

    /**
     * Waits until killed node {@code id} has left every ISR of {@code topics} and leads nothing,
     * restarts it and waits until it is back in the ISR of every partition it holds.
     */
    private static void restartAndAwaitIsr(int id, List<String> topics) throws Exception {
        awaitPartitions(admin, cluster, topics, "node " + id + " out of every ISR and leading nothing while it is down",
            p -> !ids(p.isr()).contains(id) && p.leader() != null && p.leader().id() != id);
        long started = System.nanoTime();
        cluster.restart(id);
        long serving = millisSince(started);
        awaitPartitions(admin, cluster, topics, "node " + id + " back in every ISR after its restart",
            p -> !ids(p.replicas()).contains(id) || ids(p.isr()).contains(id));
        System.out.printf("txn-cluster: node %d restarted: serving after %d ms, in every ISR of %s after %d ms%n",
            id, serving, topics, millisSince(started));
    }

    private static int leaderOf(String name, int partition) throws Exception {
        Node leader = describeTopic(admin, name).partitions().get(partition).leader();
        assertTrue(leader != null, name + "-" + partition + " has a leader");
        return leader.id();
    }

    /** Kafka's partitioning of coordinator keys: {@code Utils.abs(hashCode)} mod the partition count. */
    private static int partitionFor(String key, int partitions) {
        int hash = key.hashCode();
        return (hash == Integer.MIN_VALUE ? 0 : Math.abs(hash)) % partitions;
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

    /** An exception and its causes, class names and messages. */
    private static String describe(Throwable e) {
        StringBuilder out = new StringBuilder();
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (out.length() > 0) {
                out.append(" <- ");
            }
            out.append(t.getClass().getSimpleName()).append(": ").append(t.getMessage());
        }
        return out.toString();
    }

    private static List<TopicPartition> partitions(String topic) {
        return IntStream.range(0, PARTITIONS).mapToObj(p -> new TopicPartition(topic, p)).toList();
    }

    private static Map<TopicPartition, Long> partitionsAt(List<TopicPartition> partitions, long offset) {
        return partitions.stream().collect(Collectors.toMap(p -> p, p -> offset));
    }

    private static List<String> head(List<String> items) {
        return items.subList(0, Math.min(20, items.size()));
    }

    private static long millisSince(long nanoTime) {
        return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - nanoTime);
    }
}
