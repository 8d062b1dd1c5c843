package dev.strand.compat;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.AcknowledgeType;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.KafkaShareConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.errors.InvalidConfigurationException;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Share groups' dead-letter topics (KIP-1191) with kafka-clients' {@code KafkaShareConsumer}: a
 * REJECTed record, and one a consumer RELEASEs until {@code group.share.delivery.count.limit}
 * (5, both brokers' default), are written once to the group's
 * {@code errors.deadletterqueue.topic.name} with Kafka's {@code __dlq.errors.*} headers, with the
 * original key and value only under {@code errors.deadletterqueue.copy.record.enable=true}; a
 * topic without {@code errors.deadletterqueue.group.enable=true} gets nothing; the group configs
 * are altered and described with the Admin client, a {@code __} topic name refused. Then
 * Strand's own release backoff ({@code share.release.backoff.ms}, {@code share.release.backoff.max.ms}),
 * which Kafka refuses as an unknown group config.
 *
 * <p>As in ShareGroupsTest a share-partition starts at the log's end, so each test first produces
 * markers until one is delivered.
 */
@ExtendWith(BrokerExtension.class)
class ShareGroupDeadLetterTest {
    private static final String MARKER = "marker";
    /** Both brokers' default {@code group.share.delivery.count.limit}. */
    private static final int DELIVERY_LIMIT = 5;

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

    /** REJECT without copying: one record of headers only, no key or value. */
    @Test
    void rejectedRecordIsDeadLetteredWithKafkasHeaders() throws Exception {
        Scenario s = scenario("dlq-reject", false, true);
        long offset = s.send("k1", "reject-me");
        ConsumerRecord<String, String> got = s.consumeActing(r -> r.value().equals("reject-me") ? AcknowledgeType.REJECT : AcknowledgeType.ACCEPT, "reject-me");
        assertEquals((short) 1, got.deliveryCount().orElse((short) -1));
        List<ConsumerRecord<String, String>> letters = s.awaitDeadLetters(1);
        ConsumerRecord<String, String> letter = letters.get(0);
        assertEquals(expectedHeaders(s.topic, offset, s.group, 1, "Offset rejected by client."), headers(letter));
        assertNull(letter.key(), "no key without copy");
        assertNull(letter.value(), "no value without copy");
        assertEquals(0, letter.partition(), "source partition 0 % 1 partition");
        s.assertOnlyLetters(List.of(offset));
    }

    /** REJECT with copy: the original key and value come along. */
    @Test
    void copiedRecordKeepsKeyAndValue() throws Exception {
        Scenario s = scenario("dlq-copy", true, true);
        long offset = s.send("k2", "copy-me");
        s.consumeActing(r -> r.value().equals("copy-me") ? AcknowledgeType.REJECT : AcknowledgeType.ACCEPT, "copy-me");
        ConsumerRecord<String, String> letter = s.awaitDeadLetters(1).get(0);
        assertEquals("k2", letter.key());
        assertEquals("copy-me", letter.value());
        assertEquals(expectedHeaders(s.topic, offset, s.group, 1, "Offset rejected by client."), headers(letter));
        s.assertOnlyLetters(List.of(offset));
    }

    /** A consumer that RELEASEs every time: delivered up to the limit, then dead-lettered once. */
    @Test
    void deliveryLimitDeadLettersOnce() throws Exception {
        Scenario s = scenario("dlq-limit", false, true);
        long offset = s.send("k3", "always-release");
        List<Short> deliveries = new ArrayList<>();
        long deadline = System.nanoTime() + Clients.WAIT.toNanos() * 2;
        while (deliveries.size() < DELIVERY_LIMIT && System.nanoTime() < deadline) {
            for (ConsumerRecord<String, String> record : s.consumer.poll(Duration.ofMillis(200))) {
                boolean target = record.value().equals("always-release");
                if (target) {
                    deliveries.add(record.deliveryCount().orElse((short) -1));
                }
                s.consumer.acknowledge(record, target ? AcknowledgeType.RELEASE : AcknowledgeType.ACCEPT);
            }
            s.consumer.commitSync();
        }
        assertEquals(List.of((short) 1, (short) 2, (short) 3, (short) 4, (short) 5), deliveries);
        ConsumerRecord<String, String> letter = s.awaitDeadLetters(1).get(0);
        assertEquals(expectedHeaders(s.topic, offset, s.group, DELIVERY_LIMIT, "Offset delivery count exceeded the threshold."), headers(letter));
        // Never delivered again: a later record arrives, and still one dead letter.
        s.send("k4", "after");
        List<String> seen = new ArrayList<>();
        s.consumeActing(r -> {
            seen.add(r.value());
            return AcknowledgeType.ACCEPT;
        }, "after");
        assertTrue(!seen.contains("always-release"), "redelivered past the limit: " + seen);
        s.assertOnlyLetters(List.of(offset));
    }

    /** A topic that did not opt in with errors.deadletterqueue.group.enable gets nothing. */
    @Test
    void topicNotOptedInGetsNothing() throws Exception {
        Scenario s = scenario("dlq-closed", false, false);
        s.send("k5", "reject-me");
        s.consumeActing(r -> r.value().equals("reject-me") ? AcknowledgeType.REJECT : AcknowledgeType.ACCEPT, "reject-me");
        s.send("k6", "after");
        s.consumeActing(r -> AcknowledgeType.ACCEPT, "after");
        s.assertOnlyLetters(List.of());
    }

    /**
     * A dead-letter topic without the broker's errors.deadletterqueue.topic.name.prefix ("dlq.")
     * is accepted as a group config but gets nothing, opted in or not.
     */
    @Test
    void topicWithoutThePrefixGetsNothing() throws Exception {
        Scenario s = scenario("dlq-unprefixed", false, true, "");
        s.send("k7", "reject-me");
        s.consumeActing(r -> r.value().equals("reject-me") ? AcknowledgeType.REJECT : AcknowledgeType.ACCEPT, "reject-me");
        s.send("k8", "after");
        s.consumeActing(r -> AcknowledgeType.ACCEPT, "after");
        s.assertOnlyLetters(List.of());
    }

    /**
     * Exactly once across a kill: on Strand the dead-letter topic refuses writes (max.message.bytes=1:
     * MESSAGE_TOO_LARGE) while five records are REJECTed, so they stay Archiving, persisted so; the
     * broker is killed (SIGKILL), the topic fixed, and once a new consumer fetches, each of the five
     * is written once, none redelivered. Kafka 4.4 gives up on a refused dead letter, so there the
     * topic takes them (min.insync.replicas=2 on one replica is capped at one, as on Strand) and
     * only "once each" is checked. Its own broker.
     */
    @Test
    void deadLettersPendingAtAKillAreWrittenOnceAfterIt() throws Exception {
        try (Broker own = Broker.start(); Admin ownAdmin = Clients.admin(own);
             KafkaProducer<String, String> ownProducer = Clients.producer(own, Map.of())) {
            String topic = Clients.topic("dlq-kill");
            String group = Clients.topic("dlq-kill-group");
            String dlq = "dlq.letters-" + topic;
            Clients.createTopic(ownAdmin, topic, 1);
            String refusing = own.kind() == Broker.Kind.STRAND ? "max.message.bytes" : "min.insync.replicas";
            String refusal = own.kind() == Broker.Kind.STRAND ? "1" : "2";
            Clients.createTopic(ownAdmin, new NewTopic(dlq, 1, (short) 1)
                .configs(Map.of("errors.deadletterqueue.group.enable", "true", refusing, refusal)));
            ConfigResource groupResource = new ConfigResource(ConfigResource.Type.GROUP, group);
            ownAdmin.incrementalAlterConfigs(Map.of(groupResource, List.of(new AlterConfigOp(
                new ConfigEntry("errors.deadletterqueue.topic.name", dlq), AlterConfigOp.OpType.SET))))
                .all().get(Clients.WAIT.toSeconds(), TimeUnit.SECONDS);
            List<Long> rejected = new ArrayList<>();
            try (KafkaShareConsumer<String, String> first = shareConsumer(own, group)) {
                first.subscribe(List.of(topic));
                awaitDelivering(ownProducer, topic, first);
                for (int i = 0; i < 5; i++) {
                    rejected.add(ownProducer.send(new ProducerRecord<>(topic, "k" + i, "reject-" + i))
                        .get(Clients.WAIT.toSeconds(), TimeUnit.SECONDS).offset());
                }
                Scenario s = new Scenario(topic, group, dlq, first);
                s.consumeActing(r -> r.value().startsWith("reject-") ? AcknowledgeType.REJECT : AcknowledgeType.ACCEPT, "reject-4");
                // The rejections are answered, and on Strand nothing could be written.
                TopicPartition dlqPartition = new TopicPartition(dlq, 0);
                long written = ownAdmin.listOffsets(Map.of(dlqPartition, OffsetSpec.latest())).partitionResult(dlqPartition)
                    .get(Clients.WAIT.toSeconds(), TimeUnit.SECONDS).offset();
                System.out.printf("dead letters across a kill (%s): %d written before the kill%n", own.kind(), written);
                if (own.kind() == Broker.Kind.STRAND) {
                    assertEquals(0, written, "dead letters written while the topic refused them");
                }
                own.restart(Broker.Stop.KILL);
            }
            ConfigResource dlqResource = new ConfigResource(ConfigResource.Type.TOPIC, dlq);
            ownAdmin.incrementalAlterConfigs(Map.of(dlqResource, List.of(new AlterConfigOp(
                new ConfigEntry(refusing, ""), AlterConfigOp.OpType.DELETE))))
                .all().get(Clients.WAIT.toSeconds(), TimeUnit.SECONDS);
            List<String> seen = new ArrayList<>();
            List<Long> letters = new ArrayList<>();
            try (KafkaShareConsumer<String, String> second = shareConsumer(own, group);
                 KafkaConsumer<String, String> reader = Clients.consumer(own, Map.of())) {
                second.subscribe(List.of(topic));
                ownProducer.send(new ProducerRecord<>(topic, "after")).get(Clients.WAIT.toSeconds(), TimeUnit.SECONDS);
                TopicPartition tp = new TopicPartition(dlq, 0);
                reader.assign(List.of(tp));
                reader.seekToBeginning(List.of(tp));
                long deadline = System.nanoTime() + Clients.WAIT.toNanos() * 2;
                while ((letters.size() < rejected.size() || !seen.contains("after")) && System.nanoTime() < deadline) {
                    for (ConsumerRecord<String, String> record : second.poll(Duration.ofMillis(200))) {
                        seen.add(record.value());
                        second.acknowledge(record, AcknowledgeType.ACCEPT);
                    }
                    second.commitSync();
                    for (ConsumerRecord<String, String> letter : reader.poll(Duration.ofMillis(100))) {
                        letters.add(Long.parseLong(headers(letter).get("__dlq.errors.offset")));
                    }
                }
                // Nothing more arrives once the partition moved past them.
                long end = reader.endOffsets(List.of(tp)).get(tp);
                while (reader.position(tp) < end && System.nanoTime() < deadline) {
                    for (ConsumerRecord<String, String> letter : reader.poll(Duration.ofMillis(100))) {
                        letters.add(Long.parseLong(headers(letter).get("__dlq.errors.offset")));
                    }
                }
            }
            System.out.printf("dead letters across a kill (%s): rejected %s, written %s, delivered after %s%n",
                own.kind(), rejected, letters, seen);
            assertEquals(rejected, letters, "each rejected record dead-lettered once");
            assertTrue(seen.stream().noneMatch(v -> v.startsWith("reject-")), "a rejected record redelivered: " + seen);
        }
    }

    /** The group configs as kafka-configs --entity-type groups sets and describes them. */
    @Test
    void groupConfigsAlterAndDescribe() throws Exception {
        String group = Clients.topic("dlq-configs-group");
        ConfigResource resource = new ConfigResource(ConfigResource.Type.GROUP, group);
        alterGroup(group, Map.of("errors.deadletterqueue.topic.name", "dlq.somewhere", "errors.deadletterqueue.copy.record.enable", "true"));
        Config described = admin.describeConfigs(List.of(resource)).all().get(Clients.WAIT.toSeconds(), TimeUnit.SECONDS).get(resource);
        assertEquals("dlq.somewhere", described.get("errors.deadletterqueue.topic.name").value());
        assertEquals("true", described.get("errors.deadletterqueue.copy.record.enable").value());
        assertEquals(ConfigEntry.ConfigSource.DYNAMIC_GROUP_CONFIG, described.get("errors.deadletterqueue.topic.name").source());
        ExecutionException refused = assertThrows(ExecutionException.class,
            () -> alterGroup(group, Map.of("errors.deadletterqueue.topic.name", "__internal")));
        assertInstanceOf(InvalidConfigurationException.class, refused.getCause());
    }

    /**
     * Strand's release backoff: a RELEASEd record comes back no sooner than
     * share.release.backoff.ms, doubling per delivery up to share.release.backoff.max.ms. Kafka
     * refuses the keys (unknown group configs).
     */
    @Test
    void releasedRecordComesBackAfterItsBackoff() throws Exception {
        String group = Clients.topic("backoff-group");
        if (broker.kind() == Broker.Kind.KAFKA) {
            ExecutionException refused = assertThrows(ExecutionException.class,
                () -> alterGroup(group, Map.of("share.release.backoff.ms", "1000")));
            assertInstanceOf(InvalidConfigurationException.class, refused.getCause());
            Assumptions.abort("share.release.backoff.ms is Strand's own");
        }
        long base = 800;
        long cap = 1200;
        alterGroup(group, Map.of("share.release.backoff.ms", Long.toString(base), "share.release.backoff.max.ms", Long.toString(cap)));
        String topic = Clients.topic("backoff");
        Clients.createTopic(admin, topic, 1);
        try (KafkaShareConsumer<String, String> consumer = shareConsumer(group)) {
            consumer.subscribe(List.of(topic));
            awaitDelivering(topic, consumer);
            producer.send(new ProducerRecord<>(topic, "retry-me")).get(Clients.WAIT.toSeconds(), TimeUnit.SECONDS);
            // Deliveries 1, 2 and 3 each released: waits of base, 2 * base capped, then the cap.
            List<Long> waits = new ArrayList<>();
            long releasedAt = 0;
            long deadline = System.nanoTime() + Clients.WAIT.toNanos() * 2;
            while (waits.size() < 3 && System.nanoTime() < deadline) {
                boolean released = false;
                for (ConsumerRecord<String, String> record : consumer.poll(Duration.ofMillis(100))) {
                    boolean target = record.value().equals("retry-me");
                    if (target && record.deliveryCount().orElse((short) 0) > 1) {
                        waits.add(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - releasedAt));
                    }
                    consumer.acknowledge(record, target ? AcknowledgeType.RELEASE : AcknowledgeType.ACCEPT);
                    released |= target;
                }
                // The release is sent, and answered, here: the backoff runs from no later.
                long before = System.nanoTime();
                consumer.commitSync();
                if (released) {
                    releasedAt = before;
                }
            }
            assertEquals(3, waits.size(), "redeliveries seen: " + waits);
            assertTrue(waits.get(0) >= base, "first redelivery after " + waits + " ms, backoff " + base);
            assertTrue(waits.get(1) >= cap, "second redelivery after " + waits + " ms, backoff " + cap);
            assertTrue(waits.get(2) >= cap, "third redelivery after " + waits + " ms, backoff " + cap);
        }
    }

    /** One source topic, its group with a dead-letter topic, a consumer delivering already. */
    private static Scenario scenario(String name, boolean copy, boolean optIn) throws Exception {
        return scenario(name, copy, optIn, "dlq.");
    }

    private static Scenario scenario(String name, boolean copy, boolean optIn, String prefix) throws Exception {
        String topic = Clients.topic(name);
        String group = Clients.topic(name + "-group");
        String dlq = prefix + "letters-" + topic;
        Clients.createTopic(admin, topic, 1);
        NewTopic dlqTopic = new NewTopic(dlq, 1, (short) 1);
        if (optIn) {
            dlqTopic.configs(Map.of("errors.deadletterqueue.group.enable", "true"));
        }
        Clients.createTopic(admin, dlqTopic);
        alterGroup(group, Map.of("errors.deadletterqueue.topic.name", dlq, "errors.deadletterqueue.copy.record.enable", Boolean.toString(copy)));
        KafkaShareConsumer<String, String> consumer = shareConsumer(group);
        consumer.subscribe(List.of(topic));
        awaitDelivering(topic, consumer);
        return new Scenario(topic, group, dlq, consumer);
    }

    private record Scenario(String topic, String group, String dlq, KafkaShareConsumer<String, String> consumer) {
        long send(String key, String value) throws Exception {
            return producer.send(new ProducerRecord<>(topic, key, value)).get(Clients.WAIT.toSeconds(), TimeUnit.SECONDS).offset();
        }

        /** Polls, acknowledging each record as {@code action} says, until {@code last} arrives. */
        ConsumerRecord<String, String> consumeActing(
                java.util.function.Function<ConsumerRecord<String, String>, AcknowledgeType> action, String last) {
            long deadline = System.nanoTime() + Clients.WAIT.toNanos();
            while (System.nanoTime() < deadline) {
                ConsumerRecord<String, String> found = null;
                for (ConsumerRecord<String, String> record : consumer.poll(Duration.ofMillis(200))) {
                    consumer.acknowledge(record, record.value().equals(MARKER) ? AcknowledgeType.ACCEPT : action.apply(record));
                    if (record.value().equals(last)) {
                        found = record;
                    }
                }
                consumer.commitSync();
                if (found != null) {
                    return found;
                }
            }
            throw new AssertionError(last + " never arrived");
        }

        /** Reads the dead-letter topic from its start until it holds {@code count} records. */
        List<ConsumerRecord<String, String>> awaitDeadLetters(int count) {
            try (KafkaConsumer<String, String> reader = Clients.consumer(broker, Map.of())) {
                TopicPartition tp = new TopicPartition(dlq, 0);
                reader.assign(List.of(tp));
                reader.seekToBeginning(List.of(tp));
                List<ConsumerRecord<String, String>> got = new ArrayList<>();
                long deadline = System.nanoTime() + Clients.WAIT.toNanos();
                while (got.size() < count && System.nanoTime() < deadline) {
                    reader.poll(Duration.ofMillis(200)).forEach(got::add);
                }
                assertEquals(count, got.size(), "dead letters in " + dlq);
                return got;
            }
        }

        /** The dead-letter topic, read to its end, holds letters for exactly these offsets. */
        void assertOnlyLetters(List<Long> offsets) {
            consumer.close();
            try (KafkaConsumer<String, String> reader = Clients.consumer(broker, Map.of())) {
                TopicPartition tp = new TopicPartition(dlq, 0);
                reader.assign(List.of(tp));
                reader.seekToBeginning(List.of(tp));
                long end = reader.endOffsets(List.of(tp)).get(tp);
                List<Long> got = new ArrayList<>();
                long deadline = System.nanoTime() + Clients.WAIT.toNanos();
                while (reader.position(tp) < end && System.nanoTime() < deadline) {
                    for (ConsumerRecord<String, String> record : reader.poll(Duration.ofMillis(200))) {
                        got.add(Long.parseLong(headers(record).get("__dlq.errors.offset")));
                    }
                }
                assertEquals(offsets, got, "source offsets dead-lettered to " + dlq);
            }
        }
    }

    private static Map<String, String> expectedHeaders(String topic, long offset, String group, int deliveryCount, String message) {
        Map<String, String> expected = new TreeMap<>();
        expected.put("__dlq.errors.topic", topic);
        expected.put("__dlq.errors.partition", "0");
        expected.put("__dlq.errors.offset", Long.toString(offset));
        expected.put("__dlq.errors.group", group);
        expected.put("__dlq.errors.delivery.count", Integer.toString(deliveryCount));
        expected.put("__dlq.errors.message", message);
        return expected;
    }

    private static Map<String, String> headers(ConsumerRecord<String, String> record) {
        Map<String, String> headers = new TreeMap<>();
        for (Header header : record.headers()) {
            headers.put(header.key(), header.value() == null ? null : new String(header.value(), StandardCharsets.UTF_8));
        }
        return headers;
    }

    private static void alterGroup(String group, Map<String, String> configs) throws Exception {
        ConfigResource resource = new ConfigResource(ConfigResource.Type.GROUP, group);
        List<AlterConfigOp> ops = configs.entrySet().stream()
            .map(e -> new AlterConfigOp(new ConfigEntry(e.getKey(), e.getValue()), AlterConfigOp.OpType.SET))
            .toList();
        admin.incrementalAlterConfigs(Map.of(resource, ops)).all().get(Clients.WAIT.toSeconds(), TimeUnit.SECONDS);
    }

    private static KafkaShareConsumer<String, String> shareConsumer(String group) {
        return shareConsumer(broker, group);
    }

    private static KafkaShareConsumer<String, String> shareConsumer(Broker on, String group) {
        Map<String, Object> config = new HashMap<>();
        config.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, on.bootstrap());
        config.put(ConsumerConfig.GROUP_ID_CONFIG, group);
        config.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class);
        config.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class);
        config.put(ConsumerConfig.SHARE_ACKNOWLEDGEMENT_MODE_CONFIG, "explicit");
        config.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 500);
        config.put(ConsumerConfig.REQUEST_TIMEOUT_MS_CONFIG, 5000);
        config.put(ConsumerConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 10000);
        config.put(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, 100);
        return new KafkaShareConsumer<>(config);
    }

    /** Produces markers until the consumer gets one (accepting it). */
    private static void awaitDelivering(String topic, KafkaShareConsumer<String, String> consumer) throws Exception {
        awaitDelivering(producer, topic, consumer);
    }

    private static void awaitDelivering(KafkaProducer<String, String> producer, String topic,
            KafkaShareConsumer<String, String> consumer) throws Exception {
        long deadline = System.nanoTime() + Clients.WAIT.toNanos();
        while (System.nanoTime() < deadline) {
            producer.send(new ProducerRecord<>(topic, MARKER)).get(Clients.WAIT.toSeconds(), TimeUnit.SECONDS);
            boolean delivered = false;
            for (ConsumerRecord<String, String> record : consumer.poll(Duration.ofMillis(200))) {
                consumer.acknowledge(record, AcknowledgeType.ACCEPT);
                delivered = true;
            }
            consumer.commitSync();
            if (delivered) {
                return;
            }
        }
        fail("no marker was delivered to the share group within " + Clients.WAIT.toSeconds() + " s");
    }
}
