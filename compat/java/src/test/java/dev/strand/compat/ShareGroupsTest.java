package dev.strand.compat;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.ShareGroupDescription;
import org.apache.kafka.clients.admin.ShareMemberDescription;
import org.apache.kafka.clients.consumer.AcknowledgeType;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.KafkaShareConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.GroupState;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.errors.GroupIdNotFoundException;
import org.apache.kafka.common.errors.InvalidConfigurationException;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Share groups (KIP-932) with kafka-clients' {@code KafkaShareConsumer}: disjoint delivery to
 * consumers sharing one partition, implicit and explicit acknowledgement (ACCEPT, RELEASE,
 * REJECT), redelivery after the acquisition lock of records a consumer took and never
 * acknowledged, describeShareGroups, and a consumer group's id refused to a share consumer.
 *
 * <p>Both brokers run with {@code group.share.record.lock.duration.ms} at {@link #LOCK} (and its
 * minimum lowered to allow it) and share heartbeats every second (Broker.java and
 * compat/broker/kafka-server.properties). A share-partition starts at the log's end when the
 * group first fetches it ({@code share.auto.offset.reset=latest}, Kafka's default), so each test
 * first produces markers until one is delivered ({@link #awaitDelivering}) and ignores markers
 * after that; {@link #earliestAndByDurationGroupsStartBehindTheEnd} sets the group config
 * {@code share.auto.offset.reset} instead.
 */
@ExtendWith(BrokerExtension.class)
class ShareGroupsTest {
    /** {@code group.share.record.lock.duration.ms} on both brokers. */
    static final Duration LOCK = Duration.ofSeconds(3);
    private static final String MARKER = "marker";

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

    /**
     * Two implicit-mode consumers of one single-partition topic: each record goes to exactly one
     * of them, both get some, and together they get all that was produced; the group describes
     * with both members, each assigned the partition.
     */
    @Test
    void twoConsumersShareOnePartitionDisjointly() throws Exception {
        String topic = topicWithOnePartition("share-split");
        String group = Clients.topic("share-split-group");
        try (KafkaShareConsumer<String, String> a = consumer(group, "implicit", 10);
             KafkaShareConsumer<String, String> b = consumer(group, "implicit", 10)) {
            a.subscribe(List.of(topic));
            b.subscribe(List.of(topic));
            awaitDelivering(topic, List.of(a, b));
            int count = 100;
            for (int i = 0; i < count; i++) {
                producer.send(new ProducerRecord<>(topic, "r" + i)).get(Clients.WAIT.toSeconds(), TimeUnit.SECONDS);
            }
            List<String> gotA = new ArrayList<>();
            List<String> gotB = new ArrayList<>();
            long deadline = System.nanoTime() + Clients.WAIT.toNanos();
            while (gotA.size() + gotB.size() < count && System.nanoTime() < deadline) {
                values(a.poll(Duration.ofMillis(200)), gotA);
                values(b.poll(Duration.ofMillis(200)), gotB);
            }
            // A last poll each: acknowledges the last records and shows nothing more comes.
            values(a.poll(Duration.ofMillis(300)), gotA);
            values(b.poll(Duration.ofMillis(300)), gotB);
            Set<String> union = new HashSet<>(gotA);
            union.addAll(gotB);
            assertEquals(count, gotA.size() + gotB.size(), "records delivered (a: " + gotA.size() + ", b: " + gotB.size() + ")");
            assertEquals(count, union.size(), "distinct records");
            for (int i = 0; i < count; i++) {
                assertTrue(union.contains("r" + i), "r" + i + " delivered");
            }
            assertFalse(gotA.isEmpty(), "consumer a got records");
            assertFalse(gotB.isEmpty(), "consumer b got records");

            ShareGroupDescription description = admin.describeShareGroups(List.of(group)).describedGroups().get(group)
                .get(Clients.WAIT.toSeconds(), TimeUnit.SECONDS);
            assertEquals(GroupState.STABLE, description.groupState());
            assertEquals(2, description.members().size());
            for (ShareMemberDescription member : description.members()) {
                assertEquals(Set.of(new TopicPartition(topic, 0)), member.assignment().topicPartitions());
            }
        }
    }

    /**
     * Explicit mode: a RELEASEd record comes back with its delivery count raised, a REJECTed one
     * never comes back, and ACCEPTed ones are done.
     */
    @Test
    void releaseRedeliversAndRejectArchives() throws Exception {
        String topic = topicWithOnePartition("share-acks");
        String group = Clients.topic("share-acks-group");
        try (KafkaShareConsumer<String, String> consumer = consumer(group, "explicit", 500)) {
            consumer.subscribe(List.of(topic));
            awaitDelivering(topic, List.of(consumer));
            for (String value : List.of("release-me", "reject-me", "accept-me")) {
                producer.send(new ProducerRecord<>(topic, value)).get(Clients.WAIT.toSeconds(), TimeUnit.SECONDS);
            }
            Map<String, List<Short>> deliveries = new TreeMap<>();
            long deadline = System.nanoTime() + Clients.WAIT.toNanos();
            while (!deliveries.getOrDefault("release-me", List.of()).contains((short) 2) && System.nanoTime() < deadline) {
                for (ConsumerRecord<String, String> record : consumer.poll(Duration.ofMillis(200))) {
                    deliveries.computeIfAbsent(record.value(), v -> new ArrayList<>()).add(record.deliveryCount().orElse((short) -1));
                    boolean firstRelease = record.value().equals("release-me") && record.deliveryCount().orElse((short) 0) == 1;
                    consumer.acknowledge(record, firstRelease ? AcknowledgeType.RELEASE
                        : record.value().equals("reject-me") ? AcknowledgeType.REJECT : AcknowledgeType.ACCEPT);
                }
                consumer.commitSync();
            }
            assertEquals(List.of((short) 1, (short) 2), deliveries.get("release-me"), "release-me deliveries: " + deliveries);
            // A record produced after them arrives, and the rejected one never does again.
            producer.send(new ProducerRecord<>(topic, "after")).get(Clients.WAIT.toSeconds(), TimeUnit.SECONDS);
            List<ConsumerRecord<String, String>> after = pollUntil(consumer, r -> r.value().equals("after"), true);
            for (ConsumerRecord<String, String> record : after) {
                deliveries.computeIfAbsent(record.value(), v -> new ArrayList<>()).add(record.deliveryCount().orElse((short) -1));
            }
            assertEquals(List.of((short) 1), deliveries.get("reject-me"), "reject-me deliveries: " + deliveries);
            assertEquals(List.of((short) 1), deliveries.get("accept-me"), "accept-me deliveries: " + deliveries);
        }
    }

    /**
     * Records a consumer took and never acknowledged come back to another consumer once their
     * acquisition lock ran out (the first consumer stops polling), with their delivery count
     * raised; likewise those of a consumer closed without acknowledging them.
     */
    @Test
    void unacknowledgedRecordsAreRedeliveredAfterTheLock() throws Exception {
        String topic = topicWithOnePartition("share-lock");
        String group = Clients.topic("share-lock-group");
        try (KafkaShareConsumer<String, String> stalled = consumer(group, "explicit", 500);
             KafkaShareConsumer<String, String> other = consumer(group, "explicit", 500)) {
            stalled.subscribe(List.of(topic));
            awaitDelivering(topic, List.of(stalled));
            // One batch, so that one fetch acquires all three and one poll returns them: in
            // explicit mode a second poll would have to acknowledge the first one's records.
            List<String> sent = List.of("held-0", "held-1", "held-2");
            try (KafkaProducer<String, String> batching = Clients.producer(broker, Map.of(ProducerConfig.LINGER_MS_CONFIG, 1_000))) {
                for (String value : sent) {
                    batching.send(new ProducerRecord<>(topic, value));
                }
                batching.flush();
            }
            List<ConsumerRecord<String, String>> held = pollUntil(stalled, r -> r.value().equals("held-2"), false);
            long acquiredAt = System.nanoTime();
            assertEquals(sent, held.stream().map(ConsumerRecord::value).filter(v -> v.startsWith("held")).toList());
            // `stalled` neither acknowledges nor polls again: its locks run out.
            other.subscribe(List.of(topic));
            List<ConsumerRecord<String, String>> redelivered = pollUntil(other, r -> r.value().equals("held-2"), true);
            Duration waited = Duration.ofNanos(System.nanoTime() - acquiredAt);
            Map<String, Short> counts = new TreeMap<>();
            redelivered.stream().filter(r -> r.value().startsWith("held")).forEach(r -> counts.put(r.value(), r.deliveryCount().orElse((short) -1)));
            assertEquals(Map.of("held-0", (short) 2, "held-1", (short) 2, "held-2", (short) 2), counts);
            assertTrue(waited.compareTo(LOCK.dividedBy(2)) >= 0, "redelivered after " + waited.toMillis() + " ms, before the lock ran out");
        }
        // A consumer closed without acknowledging: its records come back too.
        try (KafkaShareConsumer<String, String> other = consumer(group, "explicit", 500)) {
            try (KafkaShareConsumer<String, String> closing = consumer(group, "explicit", 500)) {
                closing.subscribe(List.of(topic));
                producer.send(new ProducerRecord<>(topic, "closed-0")).get(Clients.WAIT.toSeconds(), TimeUnit.SECONDS);
                pollUntil(closing, r -> r.value().equals("closed-0"), false);
            }
            other.subscribe(List.of(topic));
            List<ConsumerRecord<String, String>> redelivered = pollUntil(other, r -> r.value().equals("closed-0"), true);
            ConsumerRecord<String, String> closed = redelivered.stream().filter(r -> r.value().equals("closed-0")).findFirst().orElseThrow();
            assertEquals((short) 2, closed.deliveryCount().orElse((short) -1));
        }
    }

    /** A share consumer whose group id a consumer group holds is refused (GROUP_ID_NOT_FOUND). */
    @Test
    void aConsumerGroupsIdIsNotAShareGroup() throws Exception {
        String topic = topicWithOnePartition("share-clash");
        String group = Clients.topic("share-clash-group");
        Map<String, Object> overrides = Map.of(ConsumerConfig.GROUP_ID_CONFIG, group);
        try (KafkaConsumer<String, String> classic = Clients.consumer(broker, overrides)) {
            classic.commitSync(Map.of(new TopicPartition(topic, 0), new OffsetAndMetadata(0)));
        }
        try (KafkaShareConsumer<String, String> consumer = consumer(group, "implicit", 500)) {
            consumer.subscribe(List.of(topic));
            long deadline = System.nanoTime() + Clients.WAIT.toNanos();
            while (System.nanoTime() < deadline) {
                try {
                    consumer.poll(Duration.ofMillis(200));
                } catch (GroupIdNotFoundException e) {
                    return;
                }
            }
            fail("the share consumer was never refused its consumer group's id");
        }
    }

    /**
     * The group config {@code share.auto.offset.reset}: an {@code earliest} group is delivered the
     * records produced before it first fetched; a {@code by_duration:PT1H} group only those stamped
     * within the last hour (two records stamped two hours ago are skipped); an invalid value is
     * refused with Kafka's INVALID_CONFIG.
     */
    @Test
    void earliestAndByDurationGroupsStartBehindTheEnd() throws Exception {
        String topic = topicWithOnePartition("share-reset");
        long now = System.currentTimeMillis();
        long twoHoursAgo = now - Duration.ofHours(2).toMillis();
        for (String value : List.of("old-1", "old-2")) {
            producer.send(new ProducerRecord<>(topic, 0, twoHoursAgo, null, value)).get(Clients.WAIT.toSeconds(), TimeUnit.SECONDS);
        }
        producer.send(new ProducerRecord<>(topic, 0, now, null, "new")).get(Clients.WAIT.toSeconds(), TimeUnit.SECONDS);
        Map<String, List<String>> expected = Map.of(
            "earliest", List.of("old-1", "old-2", "new"),
            "by_duration:PT1H", List.of("new"));
        for (Map.Entry<String, List<String>> reset : new TreeMap<>(expected).entrySet()) {
            String group = Clients.topic("share-reset-group");
            ConfigResource resource = new ConfigResource(ConfigResource.Type.GROUP, group);
            admin.incrementalAlterConfigs(Map.of(resource, List.of(new AlterConfigOp(
                new ConfigEntry("share.auto.offset.reset", reset.getKey()), AlterConfigOp.OpType.SET))))
                .all().get(Clients.WAIT.toSeconds(), TimeUnit.SECONDS);
            try (KafkaShareConsumer<String, String> consumer = consumer(group, "implicit", 500)) {
                consumer.subscribe(List.of(topic));
                List<String> got = new ArrayList<>();
                long deadline = System.nanoTime() + Clients.WAIT.toNanos();
                while (got.size() < reset.getValue().size() && System.nanoTime() < deadline) {
                    for (ConsumerRecord<String, String> record : consumer.poll(Duration.ofMillis(200))) {
                        got.add(record.value());
                    }
                }
                assertEquals(reset.getValue(), got, "share.auto.offset.reset=" + reset.getKey());
            }
        }
        ConfigResource invalid = new ConfigResource(ConfigResource.Type.GROUP, Clients.topic("share-reset-invalid"));
        ExecutionException refused = assertThrows(ExecutionException.class, () -> admin.incrementalAlterConfigs(Map.of(
            invalid, List.of(new AlterConfigOp(new ConfigEntry("share.auto.offset.reset", "first"), AlterConfigOp.OpType.SET))))
            .all().get(Clients.WAIT.toSeconds(), TimeUnit.SECONDS));
        assertTrue(refused.getCause() instanceof InvalidConfigurationException, refused.toString());
    }

    private static String topicWithOnePartition(String prefix) throws Exception {
        String topic = Clients.topic(prefix);
        Clients.createTopic(admin, topic, 1);
        return topic;
    }

    private static KafkaShareConsumer<String, String> consumer(String group, String ackMode, int maxPollRecords) {
        Map<String, Object> config = new HashMap<>();
        config.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrap());
        config.put(ConsumerConfig.GROUP_ID_CONFIG, group);
        config.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class);
        config.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class);
        config.put(ConsumerConfig.SHARE_ACKNOWLEDGEMENT_MODE_CONFIG, ackMode);
        config.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, maxPollRecords);
        config.put(ConsumerConfig.REQUEST_TIMEOUT_MS_CONFIG, 5000);
        config.put(ConsumerConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 10000);
        config.put(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, 100);
        return new KafkaShareConsumer<>(config);
    }

    /**
     * Produces markers until one of {@code consumers} gets one: from then on the group's
     * share-partition exists and every record produced is delivered. Explicit-mode consumers
     * accept what they get.
     */
    private static void awaitDelivering(String topic, List<KafkaShareConsumer<String, String>> consumers) throws Exception {
        long deadline = System.nanoTime() + Clients.WAIT.toNanos();
        while (System.nanoTime() < deadline) {
            producer.send(new ProducerRecord<>(topic, MARKER)).get(Clients.WAIT.toSeconds(), TimeUnit.SECONDS);
            boolean delivered = false;
            for (KafkaShareConsumer<String, String> consumer : consumers) {
                for (ConsumerRecord<String, String> record : consumer.poll(Duration.ofMillis(200))) {
                    acceptIfExplicit(consumer, record);
                    delivered = true;
                }
                consumer.commitSync();
            }
            if (delivered) {
                return;
            }
        }
        fail("no marker was delivered to the share group within " + Clients.WAIT.toSeconds() + " s");
    }

    /**
     * Polls until a record matching {@code last} arrives (failing after the wait); markers are
     * accepted, other records accepted only if {@code accept}. Returns the records but markers.
     */
    private static List<ConsumerRecord<String, String>> pollUntil(
            KafkaShareConsumer<String, String> consumer, Predicate<ConsumerRecord<String, String>> last, boolean accept) {
        List<ConsumerRecord<String, String>> records = new ArrayList<>();
        long deadline = System.nanoTime() + Clients.WAIT.toNanos() + LOCK.toNanos();
        while (System.nanoTime() < deadline) {
            boolean done = false;
            for (ConsumerRecord<String, String> record : consumer.poll(Duration.ofMillis(200))) {
                if (record.value().equals(MARKER) || accept) {
                    acceptIfExplicit(consumer, record);
                }
                if (!record.value().equals(MARKER)) {
                    records.add(record);
                }
                done |= last.test(record);
            }
            if (accept) {
                consumer.commitSync();
            }
            if (done) {
                return records;
            }
        }
        throw new AssertionError("the awaited record never arrived; got " + records.stream().map(ConsumerRecord::value).toList());
    }

    private static void acceptIfExplicit(KafkaShareConsumer<String, String> consumer, ConsumerRecord<String, String> record) {
        try {
            consumer.acknowledge(record, AcknowledgeType.ACCEPT);
        } catch (IllegalStateException implicitMode) {
            // Implicit mode: the next poll acknowledges it.
        }
    }

    private static void values(Iterable<ConsumerRecord<String, String>> records, List<String> into) {
        for (ConsumerRecord<String, String> record : records) {
            if (!record.value().equals(MARKER)) {
                into.add(record.value());
            }
        }
    }
}
