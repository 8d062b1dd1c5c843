package dev.strand.compat;

import static dev.strand.compat.ClusterAdmin.activeController;
import static dev.strand.compat.ClusterAdmin.awaitPartitions;
import static dev.strand.compat.ClusterAdmin.controllerNote;
import static dev.strand.compat.ClusterAdmin.describeTopic;
import static dev.strand.compat.ClusterAdmin.ids;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ListTopicsOptions;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.TopicPartitionInfo;
import org.apache.kafka.common.errors.InvalidReplicationFactorException;
import org.apache.kafka.common.errors.RebalanceInProgressException;
import org.apache.kafka.common.errors.RetriableException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * A three-node cluster (issue 6) through kafka-clients 4.4: replicated topics, an idempotent
 * {@code acks=all} producer that loses and duplicates nothing when a partition's leader is killed,
 * a consumer group whose coordinator is killed, and killed brokers rejoining every ISR.
 *
 * <p>The cluster is the class's own ({@link Cluster}, each node broker and controller, brokers
 * fenced after 2 s without a heartbeat), not the suite's shared broker. The tests are the steps of
 * one story and run in order: a killed broker is restarted (and back in every ISR) before the next
 * one is killed, since two of three controllers down would leave no quorum. Failover and rejoin
 * times are printed ({@code cluster: ...} lines).
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ClusterTest {
    private static final int NODES = 3;
    private static final int PARTITIONS = 3;
    /** Records in each of the two batches the producer test sends. */
    private static final int BATCH = 3000;
    /** What the broker must do within: a failover, a rejoin, a coordinator moving. */
    private static final Duration DEADLINE = Duration.ofSeconds(30);
    private static final Duration POLL = Duration.ofMillis(100);
    private static final String OFFSETS_TOPIC = "__consumer_offsets";

    private static Cluster cluster;
    private static Admin admin;
    /** The replicated topic of the first test, which the later ones use. */
    private static String topic;
    /** Every record the producer test had acknowledged, by value. */
    private static final Map<String, RecordMetadata> acknowledged = new ConcurrentHashMap<>();
    /** A node killed by one test and not yet restarted. */
    private static Integer down;

    @BeforeAll
    static void startCluster() throws Exception {
        long started = System.nanoTime();
        cluster = Cluster.start(NODES);
        System.out.printf("cluster: %d %s nodes serving after %d ms%n", NODES, cluster.kind().name().toLowerCase(),
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

    /**
     * describeCluster lists the three nodes; a topic with 3 partitions and replication factor 3 has
     * every partition on all three, all in sync, the leaders spread one per broker; replication
     * factor 4 on three brokers is INVALID_REPLICATION_FACTOR.
     */
    @Test
    @Order(1)
    void aTopicIsReplicatedOverEveryBroker() throws Exception {
        Set<Integer> listed = ids(admin.describeCluster().nodes().get(Clients.WAIT.toSeconds(), TimeUnit.SECONDS));
        assertEquals(cluster.ids(), listed, "describeCluster's nodes");

        String name = Clients.topic("cluster");
        admin.createTopics(List.of(new NewTopic(name, PARTITIONS, (short) NODES))).all()
            .get(Clients.WAIT.toSeconds(), TimeUnit.SECONDS);
        TopicDescription described = awaitTopic(name, "3 partitions, each with a leader and an ISR of 3",
            d -> d.partitions().size() == PARTITIONS
                && d.partitions().stream().allMatch(p -> p.leader() != null && p.isr().size() == NODES));
        for (TopicPartitionInfo partition : described.partitions()) {
            String which = "partition " + partition.partition() + ": " + partition;
            assertEquals(cluster.ids(), ids(partition.replicas()), which + ": replicas");
            assertEquals(NODES, partition.replicas().size(), which + ": replicas");
            assertEquals(cluster.ids(), ids(partition.isr()), which + ": ISR");
            assertTrue(ids(partition.isr()).contains(partition.leader().id()), which + ": the leader is in the ISR");
        }
        Set<Integer> leaders = described.partitions().stream().map(p -> p.leader().id()).collect(Collectors.toSet());
        assertEquals(cluster.ids(), leaders, "leaders spread over the brokers: " + described);
        topic = name;

        String tooMany = Clients.topic("cluster-rf4");
        ExecutionException thrown = assertThrows(ExecutionException.class,
            () -> admin.createTopics(List.of(new NewTopic(tooMany, 1, (short) (NODES + 1)))).all()
                .get(Clients.WAIT.toSeconds(), TimeUnit.SECONDS),
            "replication factor 4 on 3 brokers");
        assertInstanceOf(InvalidReplicationFactorException.class, thrown.getCause(), thrown.toString());
        assertTrue(!admin.listTopics().names().get(Clients.WAIT.toSeconds(), TimeUnit.SECONDS).contains(tooMany),
            "the refused topic does not exist");
    }

    /**
     * An idempotent acks=all producer sends a batch, then a second one, paced, during which the
     * leader of partition 0 is killed with SIGKILL. The producer rides over the failover itself
     * (NOT_LEADER_OR_FOLLOWER or a dropped connection, then fresh metadata): every send is
     * acknowledged, and reading every partition from the start to its end offset finds each
     * acknowledged record exactly once, at the offset it was acknowledged with, in send order
     * within its partition.
     */
    @Test
    @Order(2)
    void acknowledgedRecordsSurviveTheLeaderBeingKilled() throws Exception {
        assertNotNull(topic, "needs the topic of the first test");
        int victim = leaderOf(topic, 0);
        Integer controller = activeController(admin);
        Map<String, Long> sentAt = new ConcurrentHashMap<>();
        Map<String, Long> ackedAt = new ConcurrentHashMap<>();
        ConcurrentLinkedQueue<String> failures = new ConcurrentLinkedQueue<>();
        AtomicInteger secondBatchSent = new AtomicInteger();
        long killedAt;
        Map<String, Object> config = Map.of(
            ProducerConfig.ACKS_CONFIG, "all",
            ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true,
            ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, (int) DEADLINE.toMillis(),
            ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, 5000,
            ProducerConfig.RETRY_BACKOFF_MAX_MS_CONFIG, 200,
            ProducerConfig.RECONNECT_BACKOFF_MAX_MS_CONFIG, 200);
        try (KafkaProducer<String, String> producer = Clients.producer(cluster.bootstrap(), config)) {
            for (int i = 0; i < BATCH; i++) {
                send(producer, "k" + i, "a-" + i, sentAt, ackedAt, failures);
            }
            producer.flush();
            assertEquals(List.of(), List.copyOf(failures), "sends of the first batch that failed");
            assertEquals(BATCH, acknowledged.size(), "the first batch acknowledged");

            // The second batch, about 1 record a millisecond, from a thread of its own.
            Thread sender = new Thread(() -> {
                try {
                    for (int i = 0; i < BATCH; i++) {
                        send(producer, "k" + i, "b-" + i, sentAt, ackedAt, failures);
                        secondBatchSent.incrementAndGet();
                        if (i % 10 == 9) {
                            Thread.sleep(10);
                        }
                    }
                } catch (Exception e) {
                    failures.add("the sending thread: " + e);
                }
            }, "cluster-producer");
            sender.setDaemon(true);
            sender.start();
            while (secondBatchSent.get() < BATCH / 3 && sender.isAlive()) {
                Thread.sleep(1);
            }
            killedAt = cluster.kill(victim);
            down = victim;
            int sentBeforeKill = secondBatchSent.get();
            sender.join(DEADLINE.toMillis());
            assertTrue(!sender.isAlive(), "the second batch was not sent within " + DEADLINE.toSeconds() + " s");
            producer.flush();
            System.out.printf("cluster: node %d (leader of partition 0%s) killed after %d of the second batch's %d sends%n",
                victim, controllerNote(victim, controller), sentBeforeKill, BATCH);
        }
        assertEquals(List.of(), List.copyOf(failures), "sends that failed (the producer must recover by itself)\n"
            + cluster.tails());
        assertEquals(2 * BATCH, acknowledged.size(), "records acknowledged");

        // Failover time: the first acknowledgement of a partition-0 record sent after the kill.
        long firstAck = acknowledged.entrySet().stream()
            .filter(e -> e.getValue().partition() == 0 && sentAt.get(e.getKey()) > killedAt)
            .mapToLong(e -> ackedAt.get(e.getKey()))
            .min().orElseThrow(() -> new AssertionError("no record sent to partition 0 after the kill"));
        System.out.printf("cluster: first acknowledged send to partition 0 %d ms after its leader was killed"
            + " (broker.session.timeout.ms %d)%n", TimeUnit.NANOSECONDS.toMillis(firstAck - killedAt), Cluster.SESSION_TIMEOUT_MS);
        TopicDescription after = describeTopic(admin, topic);
        assertNotEquals(victim, after.partitions().get(0).leader().id(), "partition 0's leader after the kill: " + after);

        // Read everything back.
        List<TopicPartition> partitions = partitions(topic);
        Map<String, List<ConsumerRecord<String, String>>> byValue = new HashMap<>();
        Map<Integer, List<ConsumerRecord<String, String>>> byPartition = new TreeMap<>();
        try (KafkaConsumer<String, String> consumer = Clients.consumer(cluster.bootstrap(), Map.of())) {
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            Map<TopicPartition, Long> end = consumer.endOffsets(partitions, Clients.WAIT);
            long deadline = System.nanoTime() + DEADLINE.toNanos();
            while (partitions.stream().anyMatch(p -> consumer.position(p) < end.get(p))) {
                if (System.nanoTime() >= deadline) {
                    fail("could not read to the end offsets " + end + " within " + DEADLINE.toSeconds() + " s; positions "
                        + partitions.stream().collect(Collectors.toMap(p -> p, consumer::position)));
                }
                for (ConsumerRecord<String, String> record : consumer.poll(POLL)) {
                    byValue.computeIfAbsent(record.value(), v -> new ArrayList<>()).add(record);
                    byPartition.computeIfAbsent(record.partition(), p -> new ArrayList<>()).add(record);
                }
            }
            System.out.printf("cluster: read back %d records (end offsets %s)%n",
                byValue.values().stream().mapToInt(List::size).sum(), new TreeMap<>(numbered(end)));
        }
        List<String> duplicated = byValue.entrySet().stream().filter(e -> e.getValue().size() > 1)
            .map(e -> e.getKey() + " at " + e.getValue().stream().map(r -> r.partition() + "@" + r.offset()).toList())
            .sorted().toList();
        assertEquals(List.of(), duplicated, "records written more than once");
        List<String> lost = new ArrayList<>();
        List<String> misplaced = new ArrayList<>();
        acknowledged.forEach((value, metadata) -> {
            List<ConsumerRecord<String, String>> found = byValue.get(value);
            if (found == null) {
                lost.add(value + " (acknowledged at " + metadata.partition() + "@" + metadata.offset() + ")");
            } else if (found.get(0).partition() != metadata.partition() || found.get(0).offset() != metadata.offset()) {
                misplaced.add(value + ": acknowledged at " + metadata.partition() + "@" + metadata.offset() + ", read at "
                    + found.get(0).partition() + "@" + found.get(0).offset());
            }
        });
        lost.sort(null);
        misplaced.sort(null);
        assertEquals(List.of(), lost, "acknowledged records lost");
        assertEquals(List.of(), misplaced, "acknowledged records read at another offset");
        byPartition.forEach((partition, records) -> {
            for (int i = 1; i < records.size(); i++) {
                assertTrue(sendOrder(records.get(i - 1).value()) < sendOrder(records.get(i).value()),
                    "partition " + partition + ": " + records.get(i - 1).value() + " at " + records.get(i - 1).offset()
                        + " before " + records.get(i).value() + " at " + records.get(i).offset() + ", out of send order");
            }
        });
    }

    /**
     * The broker killed by the previous test, started again over its data dir, catches up and is
     * back in the ISR of every partition it holds.
     */
    @Test
    @Order(3)
    void aKilledBrokerRejoinsEveryIsrWhenRestarted() throws Exception {
        assertNotNull(down, "needs the broker the previous test killed");
        restartAndAwaitIsr(down);
    }

    /**
     * A classic consumer group keeps working when its coordinator (the leader of the group's
     * __consumer_offsets partition, replicated 3 ways) is killed: the offsets committed before the
     * kill are served by the new coordinator; the member goes on polling and commits again; and a
     * new member of the group, after the first has left, resumes from those commits, not from the
     * beginning. Then the coordinator is restarted and rejoins every ISR.
     */
    @Test
    @Order(4)
    void aGroupKeepsItsOffsetsWhenItsCoordinatorIsKilled() throws Exception {
        assertNotNull(topic, "needs the topic of the first test");
        assertTrue(down == null, "node " + down + " is still down");
        List<TopicPartition> partitions = partitions(topic);
        Map<TopicPartition, Long> end;
        try (KafkaConsumer<String, String> probe = Clients.consumer(cluster.bootstrap(), Map.of())) {
            end = probe.endOffsets(partitions, Clients.WAIT);
        }
        long total = end.values().stream().mapToLong(Long::longValue).sum();
        String group = Clients.topic("g-cluster");
        Map<TopicPartition, OffsetAndMetadata> beforeKill;
        Map<TopicPartition, OffsetAndMetadata> afterKill;
        int coordinator;
        try (KafkaConsumer<String, String> first = Clients.consumer(cluster.bootstrap(), member(group, "first", "earliest"))) {
            first.subscribe(List.of(topic));
            pollUntil(first, "the first member holding 3 partitions and having read 600 records", 600);
            beforeKill = positions(first);
            first.commitSync(beforeKill, Clients.WAIT);

            coordinator = admin.describeConsumerGroups(List.of(group)).describedGroups().get(group)
                .get(Clients.WAIT.toSeconds(), TimeUnit.SECONDS).coordinator().id();
            TopicDescription offsets = describeTopic(admin, OFFSETS_TOPIC);
            TopicPartitionInfo groupPartition = offsets.partitions().get(partitionFor(group, offsets.partitions().size()));
            assertEquals(NODES, groupPartition.replicas().size(), OFFSETS_TOPIC + " is replicated 3 ways: " + groupPartition);
            assertEquals(NODES, groupPartition.isr().size(), OFFSETS_TOPIC + " in sync: " + groupPartition);
            assertEquals(coordinator, groupPartition.leader().id(),
                "the coordinator leads the group's " + OFFSETS_TOPIC + " partition: " + groupPartition);

            Integer controller = activeController(admin);
            long killedAt = cluster.kill(coordinator);
            down = coordinator;
            // The new coordinator may answer before it serves the commits: Kafka's serves what is
            // below its partition's high watermark, and a new leader's may lag for a fetch round.
            List<Map<TopicPartition, OffsetAndMetadata>> answers = new ArrayList<>();
            long deadline = System.nanoTime() + DEADLINE.toNanos();
            while (answers.isEmpty() || !answers.get(answers.size() - 1).equals(beforeKill)) {
                if (System.nanoTime() >= deadline) {
                    fail("the offsets committed before the coordinator was killed, " + beforeKill + ", not served within "
                        + DEADLINE.toSeconds() + " s; answers " + answers + "\n" + cluster.tails());
                }
                if (!answers.isEmpty()) {
                    Thread.sleep(50);
                }
                answers.add(committed(group));
            }
            System.out.printf("cluster: group coordinator (node %d%s) killed; its commits served again %d ms later%s%n",
                coordinator, controllerNote(coordinator, controller), millisSince(killedAt), answers.size() == 1 ? "" : " (answers before: " + answers.subList(0, answers.size() - 1) + ")");
            assertTrue(answers.stream().allMatch(a -> a.isEmpty() || a.equals(beforeKill)),
                "offsets served after the kill: only the commits or none yet: " + answers);

            // The member keeps working: it reads on (from where it was, or from its commits if it
            // had to rejoin) and commits again through the new coordinator.
            int rebalances = 0;
            deadline = System.nanoTime() + DEADLINE.toNanos();
            while (true) {
                pollUntil(first, "the first member holding 3 partitions and having read 600 more records", 600);
                afterKill = positions(first);
                try {
                    first.commitSync(afterKill, Clients.WAIT);
                    break;
                } catch (RebalanceInProgressException e) {
                    rebalances++;
                    if (System.nanoTime() >= deadline) {
                        throw e;
                    }
                }
            }
            System.out.printf("cluster: the member committed again %d ms after the coordinator was killed%s%n",
                millisSince(killedAt), rebalances == 0 ? "" : " (" + rebalances + " commits refused during a rebalance)");
            int newCoordinator = admin.describeConsumerGroups(List.of(group)).describedGroups().get(group)
                .get(Clients.WAIT.toSeconds(), TimeUnit.SECONDS).coordinator().id();
            assertNotEquals(coordinator, newCoordinator, "the group's coordinator after the kill");
        }
        long committedTotal = afterKill.values().stream().mapToLong(OffsetAndMetadata::offset).sum();
        assertTrue(committedTotal > beforeKill.values().stream().mapToLong(OffsetAndMetadata::offset).sum(),
            "the second commit is ahead of the first: " + beforeKill + " then " + afterKill);
        assertTrue(committedTotal < total, "records are left for the next member: committed " + afterKill + ", end " + end);
        assertEquals(afterKill, committed(group), "the group's committed offsets");

        // A new member (auto.offset.reset=none: it must find the commits) reads exactly the rest.
        try (KafkaConsumer<String, String> second = Clients.consumer(cluster.bootstrap(), member(group, "second", "none"))) {
            second.subscribe(List.of(topic));
            Map<Integer, List<Long>> read = new TreeMap<>();
            long deadline = System.nanoTime() + DEADLINE.toNanos();
            int count = 0;
            while (count < total - committedTotal || second.assignment().size() < PARTITIONS) {
                if (System.nanoTime() >= deadline) {
                    fail("the second member read " + count + " of " + (total - committedTotal) + " records within "
                        + DEADLINE.toSeconds() + " s; assignment " + second.assignment());
                }
                for (ConsumerRecord<String, String> record : second.poll(POLL)) {
                    read.computeIfAbsent(record.partition(), p -> new ArrayList<>()).add(record.offset());
                    count++;
                }
            }
            second.poll(Duration.ofMillis(300)).forEach(r -> read.computeIfAbsent(r.partition(), p -> new ArrayList<>()).add(r.offset()));
            Map<Integer, List<Long>> expected = new TreeMap<>();
            for (TopicPartition partition : partitions) {
                List<Long> offsets = range(afterKill.get(partition).offset(), end.get(partition));
                if (!offsets.isEmpty()) {
                    expected.put(partition.partition(), offsets);
                }
            }
            assertEquals(expected, read, "offsets the new member read: from the commits " + afterKill + " to the end " + end);
        }

        restartAndAwaitIsr(coordinator);
    }

    // --- helpers ---------------------------------------------------------------------------------------

    private static void send(KafkaProducer<String, String> producer, String key, String value, Map<String, Long> sentAt,
            Map<String, Long> ackedAt, ConcurrentLinkedQueue<String> failures) {
        sentAt.put(value, System.nanoTime());
        producer.send(new ProducerRecord<>(topic, key, value), (metadata, error) -> {
            if (error != null) {
                failures.add(value + ": " + error);
            } else {
                ackedAt.put(value, System.nanoTime());
                acknowledged.put(value, metadata);
            }
        });
    }

    /** a-i before b-i, each batch in its own order. */
    private static int sendOrder(String value) {
        int i = Integer.parseInt(value.substring(2));
        return value.startsWith("a-") ? i : BATCH + i;
    }

    /**
     * Waits until killed node {@code id} has left every ISR of the test's topics (fenced once its
     * session timed out), restarts it and waits until it is back in the ISR of every partition it
     * holds.
     */
    private static void restartAndAwaitIsr(int id) throws Exception {
        List<String> topics = new ArrayList<>(List.of(topic));
        if (admin.listTopics(new ListTopicsOptions().listInternal(true)).names().get(Clients.WAIT.toSeconds(), TimeUnit.SECONDS)
                .contains(OFFSETS_TOPIC)) {
            topics.add(OFFSETS_TOPIC);
        }
        awaitPartitions(admin, cluster, topics, "node " + id + " out of every ISR and leading nothing while it is down",
            p -> !ids(p.isr()).contains(id) && p.leader() != null && p.leader().id() != id);
        long started = System.nanoTime();
        cluster.restart(id);
        long serving = millisSince(started);
        awaitPartitions(admin, cluster, topics, "node " + id + " back in every ISR after its restart",
            p -> !ids(p.replicas()).contains(id) || ids(p.isr()).contains(id));
        down = null;
        System.out.printf("cluster: node %d restarted: serving after %d ms, in every ISR of %s after %d ms%n",
            id, serving, topics, millisSince(started));
        assertEquals(cluster.ids(), ids(admin.describeCluster().nodes().get(Clients.WAIT.toSeconds(), TimeUnit.SECONDS)),
            "describeCluster's nodes after the restart");
    }

    /** Polls describeTopics until {@code done} accepts the description. */
    private static TopicDescription awaitTopic(String name, String what, Predicate<TopicDescription> done) throws Exception {
        long deadline = System.nanoTime() + Clients.WAIT.toNanos();
        String last = "";
        while (System.nanoTime() < deadline) {
            try {
                TopicDescription described = describeTopic(admin, name);
                if (done.test(described)) {
                    return described;
                }
                last = described.toString();
            } catch (ExecutionException e) {
                last = e.toString();
            }
            Thread.sleep(50);
        }
        throw new AssertionError("topic " + name + " never showed " + what + "; last: " + last + "\n" + cluster.tails());
    }

    private static int leaderOf(String name, int partition) throws Exception {
        Node leader = describeTopic(admin, name).partitions().get(partition).leader();
        assertNotNull(leader, name + "-" + partition + " has a leader");
        return leader.id();
    }

    private static List<TopicPartition> partitions(String name) {
        return IntStream.range(0, PARTITIONS).mapToObj(p -> new TopicPartition(name, p)).toList();
    }

    private static Map<String, Object> member(String group, String clientId, String reset) {
        Map<String, Object> config = new HashMap<>();
        config.put(ConsumerConfig.GROUP_ID_CONFIG, group);
        config.put(ConsumerConfig.CLIENT_ID_CONFIG, clientId);
        config.put(ConsumerConfig.GROUP_PROTOCOL_CONFIG, "classic");
        config.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, reset);
        config.put(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG, GroupLivenessTest.SESSION_TIMEOUT_MS);
        config.put(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG, GroupLivenessTest.HEARTBEAT_INTERVAL_MS);
        config.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 100);
        config.put(ConsumerConfig.RETRY_BACKOFF_MAX_MS_CONFIG, 200);
        config.put(ConsumerConfig.RECONNECT_BACKOFF_MAX_MS_CONFIG, 200);
        return config;
    }

    /** Polls until the member holds every partition and has read {@code records} more records. */
    private static void pollUntil(KafkaConsumer<String, String> consumer, String what, int records) {
        long deadline = System.nanoTime() + DEADLINE.toNanos();
        int read = 0;
        while (read < records || consumer.assignment().size() < PARTITIONS) {
            if (System.nanoTime() >= deadline) {
                fail(what + ": not within " + DEADLINE.toSeconds() + " s (read " + read + ", assignment "
                    + consumer.assignment() + ")\n" + cluster.tails());
            }
            read += consumer.poll(POLL).count();
        }
    }

    private static Map<TopicPartition, OffsetAndMetadata> positions(KafkaConsumer<String, String> consumer) {
        Map<TopicPartition, OffsetAndMetadata> positions = new HashMap<>();
        for (TopicPartition partition : consumer.assignment()) {
            positions.put(partition, new OffsetAndMetadata(consumer.position(partition, Clients.WAIT)));
        }
        return positions;
    }

    /**
     * The group's committed offsets, as an admin client gets them from its coordinator: retried
     * (each call itself retries for 10 s) while the coordinator moves.
     */
    private static Map<TopicPartition, OffsetAndMetadata> committed(String group) throws Exception {
        long deadline = System.nanoTime() + DEADLINE.toNanos();
        Map<TopicPartition, OffsetAndMetadata> offsets;
        while (true) {
            try {
                offsets = admin.listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata()
                    .get(DEADLINE.toSeconds(), TimeUnit.SECONDS);
                break;
            } catch (ExecutionException e) {
                if (!(e.getCause() instanceof RetriableException) || System.nanoTime() >= deadline) {
                    throw e;
                }
            }
        }
        // Compare offsets only (no metadata strings, no leader epochs).
        Map<TopicPartition, OffsetAndMetadata> plain = new HashMap<>();
        offsets.forEach((partition, offset) -> plain.put(partition, new OffsetAndMetadata(offset.offset())));
        return plain;
    }

    /** Kafka's {@code GroupCoordinator.partitionFor}: {@code Utils.abs(groupId.hashCode()) % partitions}. */
    private static int partitionFor(String group, int partitions) {
        int hash = group.hashCode();
        return (hash == Integer.MIN_VALUE ? 0 : Math.abs(hash)) % partitions;
    }

    private static Map<Integer, Long> numbered(Map<TopicPartition, Long> offsets) {
        return offsets.entrySet().stream().collect(Collectors.toMap(e -> e.getKey().partition(), Map.Entry::getValue));
    }

    private static long millisSince(long nanoTime) {
        return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - nanoTime);
    }

    private static List<Long> range(long from, long to) {
        List<Long> values = new ArrayList<>();
        for (long v = from; v < to; v++) {
            values.add(v);
        }
        return values;
    }
}
