package dev.strand.compat;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ListShareGroupOffsetsSpec;
import org.apache.kafka.clients.admin.SharePartitionOffsetInfo;
import org.apache.kafka.clients.consumer.AcknowledgeType;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaShareConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The share-group offsets admin APIs (KIP-932) with kafka-clients' Admin and Kafka's
 * {@code kafka-share-groups.sh} ({@code ShareGroupCommand}): after a consumer accepted the first
 * records and left, listShareGroupOffsets gives the share-partition start offset;
 * alterShareGroupOffsets moves it and the next consumer starts there; deleteShareGroupOffsets
 * and deleteShareGroups remove the state and the group.
 */
@ExtendWith(BrokerExtension.class)
class ShareGroupOffsetsTest {
    private static final String MARKER = "marker";
    private static final String TOOL = "org.apache.kafka.tools.consumer.group.ShareGroupCommand";

    private static Broker broker;
    private static Admin admin;
    private static KafkaProducer<String, String> producer;

    @BeforeAll
    static void connect(Broker started) {
        broker = started;
        admin = Clients.admin(broker);
        producer = Clients.producer(broker, Map.of());
    }

    @AfterAll
    static void disconnect() {
        if (producer != null) {
            producer.close();
        }
        if (admin != null) {
            admin.close();
        }
    }

    @Test
    void offsetsAreListedAlteredAndDeleted() throws Exception {
        String topic = Clients.topic("share-offsets");
        Clients.createTopic(admin, topic, 1);
        String group = Clients.topic("share-offsets-group");
        TopicPartition tp = new TopicPartition(topic, 0);
        long firstRecord;
        try (KafkaShareConsumer<String, String> consumer = consumer(group)) {
            consumer.subscribe(List.of(topic));
            firstRecord = awaitDelivering(topic, consumer);
            for (int i = 0; i < 10; i++) {
                producer.send(new ProducerRecord<>(topic, "r" + i)).get(Clients.WAIT.toSeconds(), TimeUnit.SECONDS);
            }
            List<String> got = new ArrayList<>();
            long deadline = System.nanoTime() + Clients.WAIT.toNanos();
            while (!got.contains("r9") && System.nanoTime() < deadline) {
                for (ConsumerRecord<String, String> record : consumer.poll(Duration.ofMillis(200))) {
                    consumer.acknowledge(record, AcknowledgeType.ACCEPT);
                    got.add(record.value());
                }
                consumer.commitSync();
            }
            assertTrue(got.contains("r9"), "records consumed: " + got);
        }
        long end = firstRecord + 11;
        // Every record up to the log's end was accepted: no lag. The start offset is the end on
        // Strand; Kafka persists the start offset an acknowledgement found and the accepted
        // records above it, so it may lag behind (ARCHITECTURE.md, differences).
        SharePartitionOffsetInfo info = offsetInfo(group, tp);
        assertEquals(0, info.lag().orElse(-1L), "lag after every record was accepted: " + info);
        assertTrue(info.startOffset() > firstRecord && info.startOffset() <= end, "start offset " + info);
        Run describe = tool("--describe", "--offsets", "--group", group);
        System.out.printf("share offsets (%s): describe --offsets:%n%s", broker.kind(), describe);
        assertEquals(0, describe.exit(), describe.toString());
        assertEquals(List.of(
            "GROUP TOPIC PARTITION START-OFFSET LAG",
            group + " " + topic + " 0 " + info.startOffset() + " 0"), squeeze(describe.stdout()), describe.toString());

        // Reset to the first record: the next consumer gets the ten again.
        Run reset = tool("--reset-offsets", "--group", group, "--topic", topic, "--to-offset", Long.toString(firstRecord + 1), "--execute");
        System.out.printf("share offsets (%s): reset-offsets:%n%s", broker.kind(), reset);
        assertEquals(0, reset.exit(), reset.toString());
        assertEquals(List.of("GROUP TOPIC PARTITION NEW-OFFSET", group + " " + topic + " 0 " + (firstRecord + 1)),
            squeeze(reset.stdout()), reset.toString());
        SharePartitionOffsetInfo reset0 = offsetInfo(group, tp);
        assertEquals(firstRecord + 1, reset0.startOffset(), "start offset after the reset");
        assertEquals(10, reset0.lag().orElse(-1L), "lag after the reset: " + reset0);
        try (KafkaShareConsumer<String, String> consumer = consumer(group)) {
            consumer.subscribe(List.of(topic));
            List<String> got = new ArrayList<>();
            long deadline = System.nanoTime() + Clients.WAIT.toNanos();
            while (got.size() < 10 && System.nanoTime() < deadline) {
                for (ConsumerRecord<String, String> record : consumer.poll(Duration.ofMillis(200))) {
                    consumer.acknowledge(record, AcknowledgeType.ACCEPT);
                    got.add(record.value());
                }
                consumer.commitSync();
            }
            assertEquals(List.of("r0", "r1", "r2", "r3", "r4", "r5", "r6", "r7", "r8", "r9"), got, "records after the reset");
        }

        Run deleteOffsets = tool("--delete-offsets", "--group", group, "--topic", topic);
        System.out.printf("share offsets (%s): delete-offsets:%n%s", broker.kind(), deleteOffsets);
        assertEquals(0, deleteOffsets.exit(), deleteOffsets.toString());
        assertEquals(List.of("TOPIC STATUS", topic + " Successful"), squeeze(deleteOffsets.stdout()), deleteOffsets.toString());
        Map<TopicPartition, SharePartitionOffsetInfo> left = admin.listShareGroupOffsets(Map.of(group, new ListShareGroupOffsetsSpec()))
            .partitionsToOffsetInfo(group).get(Clients.WAIT.toSeconds(), TimeUnit.SECONDS);
        System.out.printf("share offsets (%s): after delete-offsets: %s%n", broker.kind(), left);
        assertFalse(left.containsKey(tp) && left.get(tp) != null, "offsets left: " + left);

        Run delete = tool("--delete", "--group", group);
        System.out.printf("share offsets (%s): delete:%n%s", broker.kind(), delete);
        assertEquals(0, delete.exit(), delete.toString());
        assertEquals(List.of("Deletion of requested share groups ('" + group + "') was successful."), squeeze(delete.stdout()),
            delete.toString());
        Set<String> groups = new java.util.HashSet<>();
        admin.listGroups().all().get(Clients.WAIT.toSeconds(), TimeUnit.SECONDS).forEach(g -> groups.add(g.groupId()));
        assertFalse(groups.contains(group), "the group is gone");
    }

    private static SharePartitionOffsetInfo offsetInfo(String group, TopicPartition tp) throws Exception {
        Map<TopicPartition, SharePartitionOffsetInfo> offsets = admin.listShareGroupOffsets(Map.of(group, new ListShareGroupOffsetsSpec()))
            .partitionsToOffsetInfo(group).get(Clients.WAIT.toSeconds(), TimeUnit.SECONDS);
        System.out.printf("share offsets (%s): %s%n", broker.kind(), offsets);
        SharePartitionOffsetInfo info = offsets.get(tp);
        if (info == null) {
            fail("no offset for " + tp + ": " + offsets);
        }
        return info;
    }

    /** The tool's lines with runs of blanks made one space, blank lines dropped. */
    private static List<String> squeeze(String out) {
        List<String> lines = new ArrayList<>();
        for (String line : out.split("\n")) {
            String squeezed = line.trim().replaceAll("\\s+", " ");
            if (!squeezed.isEmpty()) {
                lines.add(squeezed);
            }
        }
        return lines;
    }

    private static KafkaShareConsumer<String, String> consumer(String group) {
        Map<String, Object> config = new HashMap<>();
        config.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrap());
        config.put(ConsumerConfig.GROUP_ID_CONFIG, group);
        config.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class);
        config.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class);
        config.put(ConsumerConfig.SHARE_ACKNOWLEDGEMENT_MODE_CONFIG, "explicit");
        config.put(ConsumerConfig.REQUEST_TIMEOUT_MS_CONFIG, 5000);
        config.put(ConsumerConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 10000);
        config.put(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, 100);
        return new KafkaShareConsumer<>(config);
    }

    /** Produces markers until the consumer gets one (and accepts it); its offset. */
    private static long awaitDelivering(String topic, KafkaShareConsumer<String, String> consumer) throws Exception {
        long deadline = System.nanoTime() + Clients.WAIT.toNanos();
        while (System.nanoTime() < deadline) {
            producer.send(new ProducerRecord<>(topic, MARKER)).get(Clients.WAIT.toSeconds(), TimeUnit.SECONDS);
            long offset = -1;
            for (ConsumerRecord<String, String> record : consumer.poll(Duration.ofMillis(200))) {
                consumer.acknowledge(record, AcknowledgeType.ACCEPT);
                offset = Math.max(offset, record.offset());
            }
            consumer.commitSync();
            if (offset >= 0) {
                // Markers produced after it may still come: wait for the last one produced.
                return lastMarker(topic, consumer, offset);
            }
        }
        fail("no marker was delivered to the share group within " + Clients.WAIT.toSeconds() + " s");
        return -1;
    }

    /** The offset of the last marker, accepting any still coming. */
    private static long lastMarker(String topic, KafkaShareConsumer<String, String> consumer, long seen) throws Exception {
        long end = admin.listOffsets(Map.of(new TopicPartition(topic, 0), org.apache.kafka.clients.admin.OffsetSpec.latest()))
            .all().get(Clients.WAIT.toSeconds(), TimeUnit.SECONDS).get(new TopicPartition(topic, 0)).offset();
        long deadline = System.nanoTime() + Clients.WAIT.toNanos();
        while (seen < end - 1 && System.nanoTime() < deadline) {
            for (ConsumerRecord<String, String> record : consumer.poll(Duration.ofMillis(200))) {
                consumer.acknowledge(record, AcknowledgeType.ACCEPT);
                seen = Math.max(seen, record.offset());
            }
            consumer.commitSync();
        }
        return end - 1;
    }

    private record Run(int exit, String stdout, String stderr) {
        @Override
        public String toString() {
            return "exit " + exit + "\n--- stdout ---\n" + stdout + "--- stderr ---\n" + stderr;
        }
    }

    /** Runs {@code kafka-share-groups.sh --bootstrap-server <broker> args...}. */
    private static Run tool(String... args) throws Exception {
        List<String> command = new ArrayList<>(Broker.javaCommand(Broker.repoRoot()));
        command.add(TOOL);
        command.add("--bootstrap-server");
        command.add(broker.bootstrap());
        command.addAll(List.of(args));
        Path out = Files.createTempFile("share-tool-", ".out");
        Path err = Files.createTempFile("share-tool-", ".err");
        try {
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
        } finally {
            Files.deleteIfExists(out);
            Files.deleteIfExists(err);
        }
    }
}
