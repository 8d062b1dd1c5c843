package dev.strand.compat;

import static dev.strand.compat.ClusterAdmin.activeController;
import static dev.strand.compat.ClusterAdmin.awaitPartitions;
import static dev.strand.compat.ClusterAdmin.controllerNote;
import static dev.strand.compat.ClusterAdmin.describeTopic;
import static dev.strand.compat.ClusterAdmin.ids;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import java.util.stream.LongStream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ListTopicsOptions;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Issue 6's kill test with Apache Kafka's own verifiers: {@code org.apache.kafka.tools.VerifiableProducer}
 * and {@code VerifiableConsumer} (Kafka 4.4.0's tools jar in {@code target/kafka-libs}, or
 * {@code STRAND_KAFKA_LIBS}), each run as a child JVM whose JSON-lines stdout the test parses.
 *
 * <p>On a three-node cluster of its own ({@link Cluster}: brokers fenced after 2 s without a
 * heartbeat) the test creates a topic of 3 partitions, replication factor 3 and
 * {@code min.insync.replicas=2}, and runs VerifiableProducer with {@code --acks -1}, idempotence on
 * (infinite retries: the tool's own default is {@code retries=0}), {@link #MESSAGES} messages at
 * {@link #THROUGHPUT} a second, keyed so that every partition gets some. Once a third of them are
 * acknowledged, the leader of partition 0 is killed with SIGKILL; the producer carries on and must
 * finish with every send acknowledged ({@code producer_send_success}), none failed
 * ({@code producer_send_error}), and partition 0 acknowledging sends again after the kill (the
 * failover time is printed). The killed node is then restarted and awaited back in every ISR (the
 * group coordinator's {@code __consumer_offsets} is created with replication factor 3 on the first
 * FindCoordinator, which two live brokers of three cannot host on Kafka), and VerifiableConsumer
 * ({@code --verbose}: a {@code record_data} event per record; a classic group, committing after every
 * poll) reads the topic to its end offsets and is stopped with SIGTERM. Every
 * acknowledged value must be consumed exactly once, at the partition and offset it was acknowledged
 * with; each partition's offsets must be read in order, from 0 to the end offset without a gap, their
 * values (VerifiableProducer's counter) increasing with the offset; and the group's committed offsets
 * must be the end offsets. The figures are printed ({@code verifiable: ...} lines): acked, consumed,
 * duplicates, lost, the failover time and the durations.
 */
class VerifiableClusterTest {
    private static final int NODES = 3;
    private static final int PARTITIONS = 3;
    private static final int MESSAGES = 6000;
    /** Messages a second: the producer runs about {@code MESSAGES / THROUGHPUT} = 12 s. */
    private static final int THROUGHPUT = 500;
    /**
     * Keys 0..29 in turn ({@code --repeating-keys}), spread over the partitions by the key hash: with
     * no keys the sticky partitioner may leave a partition empty.
     */
    private static final int KEYS = 30;
    /** What the broker must do within: a failover, a rejoin, the consumer reading to the end. */
    private static final Duration DEADLINE = Duration.ofSeconds(30);
    private static final String OFFSETS_TOPIC = "__consumer_offsets";

    private static Cluster cluster;
    private static Admin admin;
    private static Path work;

    @BeforeAll
    static void startCluster() throws Exception {
        long started = System.nanoTime();
        cluster = Cluster.start(NODES);
        System.out.printf("verifiable: %d %s nodes serving after %d ms%n", NODES, cluster.kind().name().toLowerCase(),
            millisSince(started));
        admin = Clients.admin(cluster.bootstrap());
        work = Files.createTempDirectory(Broker.tempRoot(), "strand-compat-verifiable-");
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
            if (work != null && "1".equals(System.getenv("STRAND_COMPAT_KEEP_DIR"))) {
                System.err.println("compat: the tools' output kept: " + work);
            } else if (work != null) {
                Broker.deleteTree(work);
            }
        }
    }

    @Test
    void verifiableConsumerReadsEveryAcknowledgedRecordOnceAfterTheLeaderIsKilled() throws Exception {
        String topic = Clients.topic("verifiable");
        admin.createTopics(List.of(new NewTopic(topic, PARTITIONS, (short) NODES).configs(Map.of("min.insync.replicas", "2"))))
            .all().get(Clients.WAIT.toSeconds(), TimeUnit.SECONDS);
        awaitPartitions(admin, cluster, List.of(topic), "3 partitions, each with a leader and an ISR of 3",
            p -> p.leader() != null && p.isr().size() == NODES);
        assertEquals("2", topicConfig(topic, "min.insync.replicas"), "the topic's min.insync.replicas");
        int victim = describeTopic(admin, topic).partitions().get(0).leader().id();
        Integer controller = activeController(admin);

        // --- produce, killing partition 0's leader a third of the way ---------------------------------
        Path producerConfig = work.resolve("producer.properties");
        Files.writeString(producerConfig, String.join("\n",
            "enable.idempotence=true",
            "acks=all",
            // VerifiableProducer sets retries=0, which idempotence refuses; its --command-config wins.
            "retries=2147483647",
            "max.in.flight.requests.per.connection=5",
            "delivery.timeout.ms=" + DEADLINE.toMillis(),
            "request.timeout.ms=5000",
            "retry.backoff.max.ms=200",
            "reconnect.backoff.max.ms=200",
            ""));
        long produceStarted = System.nanoTime();
        long killedAtMs;
        int ackedBeforeKill;
        Tool producer = Tool.start("producer", "org.apache.kafka.tools.VerifiableProducer",
            "--bootstrap-server", cluster.bootstrap(), "--topic", topic, "--max-messages", Integer.toString(MESSAGES),
            "--throughput", Integer.toString(THROUGHPUT), "--acks", "-1", "--repeating-keys", Integer.toString(KEYS),
            "--command-config", producerConfig.toString());
        try {
            producer.await("a third of the messages acknowledged", DEADLINE,
                events -> count(events, "producer_send_success") >= MESSAGES / 3 || count(events, "producer_send_error") > 0);
            cluster.kill(victim);
            killedAtMs = System.currentTimeMillis();
            ackedBeforeKill = count(producer.events(), "producer_send_success");
            producer.awaitExit(Duration.ofMillis(1000L * MESSAGES / THROUGHPUT).plus(DEADLINE));
        } finally {
            producer.close();
        }
        long produceMs = millisSince(produceStarted);
        List<Map<String, Object>> producerEvents = producer.events();
        List<Map<String, Object>> acks = named(producerEvents, "producer_send_success");
        List<Map<String, Object>> errors = named(producerEvents, "producer_send_error");
        Map<String, Object> toolData = named(producerEvents, "tool_data").stream().findFirst().orElse(Map.of());
        System.out.printf("verifiable: producer: %s sent, %d acknowledged, %d failed in %d ms; node %d (leader of"
                + " partition 0%s) killed after %d acknowledgements%n", toolData.getOrDefault("sent", "?"), acks.size(),
            errors.size(), produceMs, victim, controllerNote(victim, controller), ackedBeforeKill);
        assertEquals(0, producer.exitStatus(), "VerifiableProducer's exit status\n" + producer.tail());
        assertEquals(List.of(), errors.stream().limit(20).toList(), "producer_send_error events (" + errors.size()
            + "): an idempotent producer retries through a failover\n" + cluster.tails());
        assertEquals(MESSAGES, acks.size(), "producer_send_success events\n" + producer.tail());
        assertEquals((long) MESSAGES, toolData.get("acked"), "tool_data's acked count: " + toolData);
        assertTrue(ackedBeforeKill < MESSAGES, "the leader was killed before the producer was done (" + ackedBeforeKill
            + " of " + MESSAGES + " acknowledged then)");

        // What the producer was told: value -> partition@offset. Each value and each position once.
        Map<String, TopicPartitionOffset> acked = new HashMap<>();
        Map<TopicPartitionOffset, String> ackedAt = new HashMap<>();
        List<String> ackedTwice = new ArrayList<>();
        for (Map<String, Object> ack : acks) {
            String value = (String) ack.get("value");
            TopicPartitionOffset at = new TopicPartitionOffset(((Long) ack.get("partition")).intValue(), (Long) ack.get("offset"));
            if (acked.put(value, at) != null) {
                ackedTwice.add("value " + value + " acknowledged twice");
            }
            String other = ackedAt.put(at, value);
            if (other != null) {
                ackedTwice.add("values " + other + " and " + value + " both acknowledged at " + at);
            }
        }
        assertEquals(List.of(), ackedTwice, "acknowledgements naming a value or a position twice");

        // Failover: the first acknowledgement on partition 0 after the kill.
        long firstAfterKill = acks.stream()
            .filter(a -> (Long) a.get("partition") == 0 && (Long) a.get("timestamp") > killedAtMs)
            .mapToLong(a -> (Long) a.get("timestamp")).min()
            .orElseThrow(() -> new AssertionError("no message acknowledged on partition 0 after its leader was killed"));
        System.out.printf("verifiable: first acknowledgement on partition 0 %d ms after its leader was killed"
            + " (broker.session.timeout.ms %d)%n", firstAfterKill - killedAtMs, Cluster.SESSION_TIMEOUT_MS);
        assertNotEquals(victim, describeTopic(admin, topic).partitions().get(0).leader().id(), "partition 0's leader after the kill");

        // --- bring the killed node back --------------------------------------------------------------
        List<String> topics = new ArrayList<>(List.of(topic));
        if (admin.listTopics(new ListTopicsOptions().listInternal(true)).names().get(Clients.WAIT.toSeconds(), TimeUnit.SECONDS)
                .contains(OFFSETS_TOPIC)) {
            topics.add(OFFSETS_TOPIC);
        }
        awaitPartitions(admin, cluster, topics, "node " + victim + " out of every ISR while it is down",
            p -> !ids(p.isr()).contains(victim) && p.leader() != null && p.leader().id() != victim);
        long restarted = System.nanoTime();
        cluster.restart(victim);
        awaitPartitions(admin, cluster, topics, "node " + victim + " back in every ISR after its restart",
            p -> !ids(p.replicas()).contains(victim) || ids(p.isr()).contains(victim));
        System.out.printf("verifiable: node %d restarted and back in every ISR of %s after %d ms%n", victim, topics,
            millisSince(restarted));

        // --- consume to the end ----------------------------------------------------------------------
        List<TopicPartition> partitions = IntStream.range(0, PARTITIONS).mapToObj(p -> new TopicPartition(topic, p)).toList();
        Map<Integer, Long> end = new TreeMap<>();
        admin.listOffsets(partitions.stream().collect(Collectors.toMap(p -> p, p -> OffsetSpec.latest()))).all()
            .get(Clients.WAIT.toSeconds(), TimeUnit.SECONDS)
            .forEach((partition, info) -> end.put(partition.partition(), info.offset()));
        String group = Clients.topic("verifiable-group");
        long consumeStarted = System.nanoTime();
        Tool consumer = Tool.start("consumer", "org.apache.kafka.tools.VerifiableConsumer",
            "--bootstrap-server", cluster.bootstrap(), "--topic", topic, "--group-id", group, "--group-protocol", "classic",
            "--reset-policy", "earliest", "--verbose");
        try {
            // Read to the end and committed it: offsets_committed (after every poll) names the end offsets.
            consumer.await("every partition read and committed to its end offset " + end, DEADLINE,
                events -> committedEnd(events, end));
            consumer.stop(DEADLINE);
        } finally {
            consumer.close();
        }
        long consumeMs = millisSince(consumeStarted);
        List<Map<String, Object>> consumerEvents = consumer.events();
        assertEquals(1, count(consumerEvents, "shutdown_complete"), "VerifiableConsumer's shutdown_complete events after"
            + " SIGTERM (exit status " + consumer.exitStatus() + ")\n" + consumer.tail());

        // --- what was read against what was acknowledged ------------------------------------------------
        Map<Integer, List<Long>> offsets = new TreeMap<>();
        Map<Integer, List<String>> values = new TreeMap<>();
        Map<String, List<TopicPartitionOffset>> readAt = new HashMap<>();
        for (Map<String, Object> record : named(consumerEvents, "record_data")) {
            int partition = ((Long) record.get("partition")).intValue();
            long offset = (Long) record.get("offset");
            String value = (String) record.get("value");
            offsets.computeIfAbsent(partition, p -> new ArrayList<>()).add(offset);
            values.computeIfAbsent(partition, p -> new ArrayList<>()).add(value);
            readAt.computeIfAbsent(value, v -> new ArrayList<>()).add(new TopicPartitionOffset(partition, offset));
        }
        List<String> duplicates = readAt.entrySet().stream().filter(e -> e.getValue().size() > 1)
            .map(e -> e.getKey() + " read at " + e.getValue()).sorted().toList();
        List<String> lost = acked.entrySet().stream().filter(e -> !readAt.containsKey(e.getKey()))
            .map(e -> e.getKey() + " (acknowledged at " + e.getValue() + ")").sorted().toList();
        List<String> misplaced = acked.entrySet().stream()
            .filter(e -> readAt.containsKey(e.getKey()) && !readAt.get(e.getKey()).get(0).equals(e.getValue()))
            .map(e -> e.getKey() + ": acknowledged at " + e.getValue() + ", read at " + readAt.get(e.getKey()))
            .sorted().toList();
        List<String> unacknowledged = readAt.keySet().stream().filter(v -> !acked.containsKey(v)).sorted().toList();
        int consumed = offsets.values().stream().mapToInt(List::size).sum();
        System.out.printf("verifiable: consumer read %d records in %d ms (end offsets %s): acked %d, consumed %d,"
                + " duplicates %d, lost %d, at another offset %d, never acknowledged %d%n", consumed, consumeMs, end,
            acked.size(), consumed, duplicates.size(), lost.size(), misplaced.size(), unacknowledged.size());
        assertEquals(List.of(), head(lost), "acknowledged records lost (" + lost.size() + ")");
        assertEquals(List.of(), head(duplicates), "records read more than once (" + duplicates.size() + ")");
        assertEquals(List.of(), head(misplaced), "acknowledged records read at another position (" + misplaced.size() + ")");
        assertEquals(List.of(), head(unacknowledged), "records read that the producer never had acknowledged ("
            + unacknowledged.size() + "; it had every send acknowledged)");
        assertTrue(end.values().stream().allMatch(offset -> offset > 0), "every partition got records: end offsets " + end);
        for (int partition = 0; partition < PARTITIONS; partition++) {
            List<Long> read = offsets.getOrDefault(partition, List.of());
            List<Long> expected = LongStream.range(0, end.get(partition)).boxed().toList();
            if (!read.equals(expected)) {
                fail("partition " + partition + ": offsets read are not 0.." + end.get(partition) + " in order: "
                    + firstDifference(read, expected));
            }
            List<String> partitionValues = values.getOrDefault(partition, List.of());
            for (int i = 1; i < partitionValues.size(); i++) {
                assertTrue(Long.parseLong(partitionValues.get(i - 1)) < Long.parseLong(partitionValues.get(i)),
                    "partition " + partition + ": value " + partitionValues.get(i - 1) + " at offset " + read.get(i - 1)
                        + " before value " + partitionValues.get(i) + " at " + read.get(i) + ", out of send order");
            }
        }
        Map<Integer, Long> committed = new TreeMap<>();
        admin.listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata().get(Clients.WAIT.toSeconds(), TimeUnit.SECONDS)
            .forEach((partition, offset) -> committed.put(partition.partition(), offset.offset()));
        Map<Integer, Long> nonEmpty = new TreeMap<>(end);
        nonEmpty.values().removeIf(offset -> offset == 0);
        assertEquals(nonEmpty, committed, "the group's committed offsets: the end offsets of every partition read");
    }

    // --- helpers ---------------------------------------------------------------------------------------

    /** A position in the test's topic. */
    private record TopicPartitionOffset(int partition, long offset) {
        @Override
        public String toString() {
            return partition + "@" + offset;
        }
    }

    /** Whether the consumer's successful commits have reached the end offset of every partition. */
    private static boolean committedEnd(List<Map<String, Object>> events, Map<Integer, Long> end) {
        Map<Integer, Long> committed = new HashMap<>();
        for (Map<String, Object> event : named(events, "offsets_committed")) {
            if (!Boolean.TRUE.equals(event.get("success"))) {
                continue;
            }
            for (Object entry : (List<?>) event.get("offsets")) {
                Map<?, ?> offset = (Map<?, ?>) entry;
                committed.merge(((Long) offset.get("partition")).intValue(), (Long) offset.get("offset"), Math::max);
            }
        }
        return end.entrySet().stream().allMatch(e -> e.getValue() == 0 || committed.getOrDefault(e.getKey(), -1L) >= e.getValue());
    }

    private static List<Map<String, Object>> named(List<Map<String, Object>> events, String name) {
        return events.stream().filter(e -> name.equals(e.get("name"))).toList();
    }

    private static int count(List<Map<String, Object>> events, String name) {
        return (int) events.stream().filter(e -> name.equals(e.get("name"))).count();
    }

    private static List<String> head(List<String> items) {
        return items.subList(0, Math.min(20, items.size()));
    }

    private static String firstDifference(List<Long> read, List<Long> expected) {
        for (int i = 0; i < Math.min(read.size(), expected.size()); i++) {
            if (!read.get(i).equals(expected.get(i))) {
                return "read " + read.size() + " offsets; the " + i + "th is " + read.get(i) + ", expected " + expected.get(i)
                    + " (read around it: " + read.subList(Math.max(0, i - 3), Math.min(read.size(), i + 4)) + ")";
            }
        }
        return "read " + read.size() + " offsets, expected " + expected.size()
            + (read.isEmpty() ? "" : " (last read " + read.get(read.size() - 1) + ")");
    }

    /**
     * A topic config's value, from DescribeConfigs; retried while the broker asked does not know the
     * topic yet (a created topic reaches each broker's metadata a moment after the controller commits it).
     */
    private static String topicConfig(String topic, String name) throws Exception {
        ConfigResource resource = new ConfigResource(ConfigResource.Type.TOPIC, topic);
        long deadline = System.nanoTime() + Clients.WAIT.toNanos();
        while (true) {
            try {
                Config config = admin.describeConfigs(List.of(resource)).all().get(Clients.WAIT.toSeconds(), TimeUnit.SECONDS)
                    .get(resource);
                return config.get(name) == null ? null : config.get(name).value();
            } catch (ExecutionException e) {
                if (!(e.getCause() instanceof UnknownTopicOrPartitionException) || System.nanoTime() >= deadline) {
                    throw e;
                }
            }
            Thread.sleep(100);
        }
    }

    private static long millisSince(long nanoTime) {
        return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - nanoTime);
    }

    /**
     * One of Kafka's tools in a child JVM (Kafka's classpath, {@code compat/kafka/log4j2.properties}:
     * its log on stderr, written to {@code <name>.stderr} in the test's work directory). Every stdout
     * line that is a JSON object is kept as an event, in order; the others only for failure messages.
     * Every stdout line is also copied to {@code <name>.stdout} there (kept with {@code STRAND_COMPAT_KEEP_DIR=1}).
     */
    private static final class Tool implements AutoCloseable {
        private static final int TAIL_LINES = 30;

        private final String name;
        private final Process process;
        private final Thread reader;
        private final List<Map<String, Object>> events = new ArrayList<>();
        private final List<String> lines = new ArrayList<>();

        private Tool(String name, Process process) {
            this.name = name;
            this.process = process;
            this.reader = new Thread(this::read, "verifiable-" + name);
            reader.setDaemon(true);
            reader.start();
        }

        static Tool start(String name, String mainClass, String... args) throws IOException {
            List<String> command = new ArrayList<>(Broker.javaCommand(Broker.repoRoot()));
            command.add(mainClass);
            command.addAll(List.of(args));
            Process process = new ProcessBuilder(command)
                .redirectError(ProcessBuilder.Redirect.to(work.resolve(name + ".stderr").toFile()))
                .start();
            process.getOutputStream().close();
            return new Tool(name, process);
        }

        private void read() {
            try (BufferedReader out = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
                    Writer copy = Files.newBufferedWriter(work.resolve(name + ".stdout"), StandardCharsets.UTF_8)) {
                String line;
                while ((line = out.readLine()) != null) {
                    copy.write(line);
                    copy.write('\n');
                    Map<String, Object> event = null;
                    if (line.startsWith("{")) {
                        try {
                            event = Json.object(line);
                        } catch (IllegalArgumentException e) {
                            event = null;
                        }
                    }
                    synchronized (this) {
                        lines.add(line);
                        if (event != null) {
                            events.add(event);
                        }
                        notifyAll();
                    }
                }
            } catch (IOException e) {
                // the process is gone
            }
        }

        synchronized List<Map<String, Object>> events() {
            return new ArrayList<>(events);
        }

        /** Waits until {@code done} holds for the events so far; fails after {@code timeout} or if the tool exits. */
        synchronized void await(String what, Duration timeout, Predicate<List<Map<String, Object>>> done) throws InterruptedException {
            long deadline = System.nanoTime() + timeout.toNanos();
            while (!done.test(events)) {
                long left = deadline - System.nanoTime();
                if (left <= 0 || (!process.isAlive() && !reader.isAlive())) {
                    fail(name + ": " + what + ": not within " + timeout.toSeconds() + " s"
                        + (process.isAlive() ? "" : " (it exited with status " + process.exitValue() + ")") + "\n" + tail()
                        + "\n" + cluster.tails());
                }
                TimeUnit.NANOSECONDS.timedWait(this, Math.min(left, TimeUnit.MILLISECONDS.toNanos(100)));
            }
        }

        /** Waits for the tool to exit by itself and its output to be read. */
        void awaitExit(Duration timeout) throws InterruptedException {
            if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                fail(name + " still running after " + timeout.toSeconds() + " s\n" + tail() + "\n" + cluster.tails());
            }
            reader.join(5000);
        }

        /**
         * SIGTERM (the tools close their client in a shutdown hook) and waits for the exit. Through
         * the ProcessHandle: {@code Process.destroy} would also close our end of the tool's stdout,
         * losing what its shutdown hook prints.
         */
        void stop(Duration timeout) throws InterruptedException {
            process.toHandle().destroy();
            awaitExit(timeout);
        }

        int exitStatus() {
            return process.exitValue();
        }

        /** The last stdout lines and the stderr file's last lines. */
        synchronized String tail() {
            StringBuilder out = new StringBuilder("--- " + name + ": last " + TAIL_LINES + " lines of stdout ---\n");
            lines.subList(Math.max(0, lines.size() - TAIL_LINES), lines.size()).forEach(l -> out.append(l).append('\n'));
            out.append("--- ").append(name).append(": last ").append(TAIL_LINES).append(" lines of stderr ---\n");
            try {
                List<String> err = Files.readAllLines(work.resolve(name + ".stderr"), StandardCharsets.UTF_8);
                err.subList(Math.max(0, err.size() - TAIL_LINES), err.size()).forEach(l -> out.append(l).append('\n'));
            } catch (IOException e) {
                out.append("(unreadable: ").append(e).append(")\n");
            }
            return out.toString();
        }

        @Override
        public void close() throws InterruptedException {
            if (process.isAlive()) {
                process.destroyForcibly();
                process.waitFor(10, TimeUnit.SECONDS);
            }
            reader.join(5000);
        }
    }

    /**
     * Just enough JSON for the tools' events: objects, arrays, strings, integers (as Long), other
     * numbers (as Double), booleans and null.
     */
    static final class Json {
        private final String text;
        private int at;

        private Json(String text) {
            this.text = text;
        }

        @SuppressWarnings("unchecked")
        static Map<String, Object> object(String text) {
            Json json = new Json(text);
            Object value = json.value();
            json.space();
            if (!(value instanceof Map) || json.at != text.length()) {
                throw new IllegalArgumentException("not one JSON object: " + text);
            }
            return (Map<String, Object>) value;
        }

        private Object value() {
            space();
            if (at >= text.length()) {
                throw error("a value");
            }
            char c = text.charAt(at);
            switch (c) {
                case '{': {
                    at++;
                    Map<String, Object> object = new LinkedHashMap<>();
                    space();
                    if (peek('}')) {
                        return object;
                    }
                    do {
                        space();
                        String key = string();
                        space();
                        expect(':');
                        object.put(key, value());
                        space();
                    } while (peek(','));
                    expect('}');
                    return object;
                }
                case '[': {
                    at++;
                    List<Object> array = new ArrayList<>();
                    space();
                    if (peek(']')) {
                        return array;
                    }
                    do {
                        array.add(value());
                        space();
                    } while (peek(','));
                    expect(']');
                    return array;
                }
                case '"':
                    return string();
                default:
                    for (Map.Entry<String, Object> word : List.of(Map.entry("true", (Object) Boolean.TRUE),
                            Map.entry("false", (Object) Boolean.FALSE))) {
                        if (text.startsWith(word.getKey(), at)) {
                            at += word.getKey().length();
                            return word.getValue();
                        }
                    }
                    if (text.startsWith("null", at)) {
                        at += 4;
                        return null;
                    }
                    int start = at;
                    while (at < text.length() && "+-0123456789.eE".indexOf(text.charAt(at)) >= 0) {
                        at++;
                    }
                    String number = text.substring(start, at);
                    if (number.isEmpty()) {
                        throw error("a value");
                    }
                    return number.matches("-?[0-9]+") ? (Object) Long.valueOf(number) : (Object) Double.valueOf(number);
            }
        }

        private String string() {
            expect('"');
            StringBuilder out = new StringBuilder();
            while (at < text.length() && text.charAt(at) != '"') {
                char c = text.charAt(at++);
                if (c != '\\') {
                    out.append(c);
                    continue;
                }
                if (at >= text.length()) {
                    throw error("an escape");
                }
                char e = text.charAt(at++);
                switch (e) {
                    case 'n' -> out.append('\n');
                    case 't' -> out.append('\t');
                    case 'r' -> out.append('\r');
                    case 'b' -> out.append('\b');
                    case 'f' -> out.append('\f');
                    case 'u' -> {
                        if (at + 4 > text.length()) {
                            throw error("four hex digits");
                        }
                        out.append((char) Integer.parseInt(text.substring(at, at + 4), 16));
                        at += 4;
                    }
                    default -> out.append(e);
                }
            }
            expect('"');
            return out.toString();
        }

        private void space() {
            while (at < text.length() && Character.isWhitespace(text.charAt(at))) {
                at++;
            }
        }

        private boolean peek(char c) {
            if (at < text.length() && text.charAt(at) == c) {
                at++;
                return true;
            }
            return false;
        }

        private void expect(char c) {
            if (!peek(c)) {
                throw error("'" + c + "'");
            }
        }

        private IllegalArgumentException error(String expected) {
            return new IllegalArgumentException("JSON: expected " + expected + " at " + at + " of " + text);
        }
    }
}
