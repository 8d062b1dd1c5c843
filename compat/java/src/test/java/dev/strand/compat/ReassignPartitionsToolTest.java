package dev.strand.compat;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.TopicPartitionInfo;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Apache Kafka's own {@code kafka-reassign-partitions.sh} (4.4.0's {@code ReassignPartitionsCommand},
 * run as a child JVM over {@code target/kafka-libs}) against a three-node cluster of the class's own
 * ({@link Cluster}): {@code --generate} proposes moving a topic onto brokers 2 and 3 (it reads where
 * each replica lives with DescribeLogDirs), {@code --execute} starts a plan that moves partition 0
 * from broker 1 to brokers 2 and 3 and partition 1 from broker 2 to broker 3, {@code --verify}
 * reports both complete (and clears throttles); afterwards the partitions sit on their new replicas,
 * all in sync, no reassignment is listed, every record is read back from the new leader, and broker
 * 1's copy of partition 0 is gone. The time the move took is printed ({@code reassign: ...}).
 */
class ReassignPartitionsToolTest {
    private static final int RECORDS = 500;
    private static final Duration DEADLINE = Duration.ofSeconds(30);
    private static final String TOOL = "org.apache.kafka.tools.reassign.ReassignPartitionsCommand";

    private static Cluster cluster;
    private static Admin admin;
    private static Path work;

    @BeforeAll
    static void startCluster() throws Exception {
        cluster = Cluster.start(3);
        admin = Clients.admin(cluster.bootstrap());
        work = Files.createTempDirectory(Broker.tempRoot(), "strand-compat-reassign-");
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
            if (work != null) {
                Broker.deleteTree(work);
            }
        }
    }

    /** The tool's exit status and output. */
    private record Run(int exit, String stdout, String stderr) {
        @Override
        public String toString() {
            return "exit " + exit + "\n--- stdout ---\n" + stdout + "--- stderr ---\n" + stderr;
        }
    }

    /** Runs {@code kafka-reassign-partitions.sh --bootstrap-server <cluster> args...}. */
    private static Run tool(String... args) throws Exception {
        List<String> command = new ArrayList<>(Broker.javaCommand(Broker.repoRoot()));
        command.add(TOOL);
        command.add("--bootstrap-server");
        command.add(cluster.bootstrap());
        command.addAll(List.of(args));
        Path out = Files.createTempFile(work, "tool-", ".out");
        Path err = Files.createTempFile(work, "tool-", ".err");
        Process process = new ProcessBuilder(command)
            .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")))
            .redirectOutput(out.toFile())
            .redirectError(err.toFile())
            .start();
        if (!process.waitFor(60, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            throw new AssertionError(TOOL + " " + String.join(" ", args) + " did not finish within 60 s");
        }
        return new Run(process.exitValue(), Files.readString(out, StandardCharsets.UTF_8),
            Files.readString(err, StandardCharsets.UTF_8));
    }

    private static Path file(String name, String contents) throws Exception {
        return Files.writeString(work.resolve(name), contents, StandardCharsets.UTF_8);
    }

    /** The line after {@code heading} in the tool's output: the JSON it prints there. */
    private static String jsonAfter(Run run, String heading) {
        List<String> lines = run.stdout().lines().filter(l -> !l.isBlank()).toList();
        int at = lines.indexOf(heading);
        assertTrue(at >= 0 && at + 1 < lines.size(), "no \"" + heading + "\" in\n" + run);
        return lines.get(at + 1);
    }

    /** Partition number to replica list, from a reassignment JSON of one topic. */
    private static Map<Integer, List<Integer>> replicasIn(String json) {
        Matcher m = Pattern.compile("\"partition\":(\\d+),\"replicas\":\\[([0-9,]*)\\]").matcher(json);
        Map<Integer, List<Integer>> replicas = new java.util.TreeMap<>();
        while (m.find()) {
            List<Integer> ids = m.group(2).isEmpty() ? List.of()
                : java.util.Arrays.stream(m.group(2).split(",")).map(Integer::valueOf).toList();
            replicas.put(Integer.valueOf(m.group(1)), ids);
        }
        return replicas;
    }

    private static List<Integer> ids(List<Node> nodes) {
        return nodes.stream().map(Node::id).toList();
    }

    /** --generate, --execute, --verify, then the moved partitions as clients and disks see them. */
    @Test
    void generateExecuteAndVerifyMoveReplicasAndTheirData() throws Exception {
        String topic = Clients.topic("reassign");
        admin.createTopics(List.of(new NewTopic(topic, Map.of(0, List.of(1), 1, List.of(2))))).all()
            .get(Clients.WAIT.toSeconds(), TimeUnit.SECONDS);
        Clients.awaitTopic(admin, topic, 2);
        try (KafkaProducer<String, String> producer = Clients.producer(cluster.bootstrap(), Map.of())) {
            for (int i = 0; i < RECORDS; i++) {
                producer.send(new ProducerRecord<>(topic, 0, null, "record-" + i));
            }
            producer.flush();
        }
        Path oldReplica = cluster.member(1).dir.resolve("data").resolve(topic + "-0");
        assertTrue(Files.isDirectory(oldReplica), "broker 1 holds " + oldReplica);

        Path topics = file("topics.json", "{\"version\":1,\"topics\":[{\"topic\":\"" + topic + "\"}]}");
        Run generated = tool("--topics-to-move-json-file", topics.toString(), "--broker-list", "2,3", "--generate");
        assertEquals(0, generated.exit(), generated.toString());
        Map<Integer, List<Integer>> current = replicasIn(jsonAfter(generated, "Current partition replica assignment"));
        assertEquals(Map.of(0, List.of(1), 1, List.of(2)), current, generated.toString());
        Map<Integer, List<Integer>> proposed =
            replicasIn(jsonAfter(generated, "Proposed partition reassignment configuration"));
        assertEquals(Set.of(0, 1), proposed.keySet(), generated.toString());
        for (List<Integer> replicas : proposed.values()) {
            assertEquals(1, replicas.size(), "the replication factor is kept: " + generated);
            assertTrue(Set.of(2, 3).containsAll(replicas), "only brokers 2 and 3: " + generated);
        }

        Path plan = file("plan.json", "{\"version\":1,\"partitions\":["
            + "{\"topic\":\"" + topic + "\",\"partition\":0,\"replicas\":[2,3]},"
            + "{\"topic\":\"" + topic + "\",\"partition\":1,\"replicas\":[3]}]}");
        long started = System.nanoTime();
        Run executed = tool("--reassignment-json-file", plan.toString(), "--execute");
        assertEquals(0, executed.exit(), executed.toString());
        assertEquals(current, replicasIn(jsonAfter(executed, "Current partition replica assignment")), executed.toString());
        assertTrue(executed.stdout().contains("Successfully started partition reassignments for " + topic + "-0," + topic
            + "-1"), executed.toString());

        Run verified = tool("--reassignment-json-file", plan.toString(), "--verify");
        long deadline = System.nanoTime() + DEADLINE.toNanos();
        while (!verified.stdout().contains("Reassignment of partition " + topic + "-0 is completed.")
                || !verified.stdout().contains("Reassignment of partition " + topic + "-1 is completed.")) {
            assertEquals(0, verified.exit(), verified.toString());
            assertTrue(System.nanoTime() < deadline, "not complete within " + DEADLINE.toSeconds() + " s: " + verified);
            Thread.sleep(200);
            verified = tool("--reassignment-json-file", plan.toString(), "--verify");
        }
        assertEquals(0, verified.exit(), verified.toString());
        System.out.printf("reassign: %s moved and verified complete after %d ms%n", cluster.kind().name().toLowerCase(),
            TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started));

        TopicDescription described = admin.describeTopics(List.of(topic)).allTopicNames()
            .get(Clients.WAIT.toSeconds(), TimeUnit.SECONDS).get(topic);
        TopicPartitionInfo zero = described.partitions().get(0);
        assertEquals(List.of(2, 3), ids(zero.replicas()), described.toString());
        assertEquals(Set.of(2, 3), new TreeSet<>(ids(zero.isr())), described.toString());
        assertTrue(Set.of(2, 3).contains(zero.leader().id()), described.toString());
        assertEquals(List.of(3), ids(described.partitions().get(1).replicas()), described.toString());
        assertTrue(admin.listPartitionReassignments().reassignments().get(Clients.WAIT.toSeconds(), TimeUnit.SECONDS)
            .isEmpty(), "no reassignment left");

        try (KafkaConsumer<String, String> consumer = Clients.consumer(cluster.bootstrap(), Map.of())) {
            TopicPartition partition = new TopicPartition(topic, 0);
            consumer.assign(List.of(partition));
            consumer.seekToBeginning(List.of(partition));
            List<String> values = Clients.pollExactly(consumer, RECORDS).stream().map(ConsumerRecord::value)
                .collect(Collectors.toList());
            for (int i = 0; i < RECORDS; i++) {
                assertEquals("record-" + i, values.get(i), "record " + i);
            }
        }
        // Kafka renames a removed replica's directory at once and deletes it later; Strand deletes it.
        long gone = System.nanoTime() + DEADLINE.toNanos();
        while (Files.exists(oldReplica)) {
            assertTrue(System.nanoTime() < gone, "broker 1 still has " + oldReplica);
            Thread.sleep(100);
        }
    }
}
