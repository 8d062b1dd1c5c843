package dev.strand.compat;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.admin.ListOffsetsResult;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.GroupType;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * KIP-848 online migration through kafka-clients 4.4 (the broker's default
 * {@code group.consumer.migration.policy=bidirectional}): a group of three {@code group.protocol=classic}
 * consumers replaced one at a time by {@code group.protocol=consumer} consumers (a rolling upgrade),
 * and the reverse (a rolling downgrade), while a producer writes.
 *
 * <p>Each member runs on its own thread (a KafkaConsumer belongs to one thread), commits what it
 * processed after every poll and when partitions are revoked, and records, for every partition it
 * is assigned, where its fetching starts. The test checks Kafka's at-least-once contract across the
 * migration: every acknowledged record is processed, and every new owner of a partition starts
 * exactly at the last successful commit (so a record is processed twice only when it came after
 * that commit, never skipped). At the end the committed offsets reach the end offsets and the group
 * is of the target type.
 */
@ExtendWith(BrokerExtension.class)
class MigrationTest {
    private static final int PARTITIONS = 6;
    private static final int MEMBERS = 3;
    /** How long a step of the migration may take to settle (every partition owned exactly once). */
    private static final Duration SETTLE = Duration.ofSeconds(60);

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

    /** Classic members replaced one by one by consumer-protocol members: the group ends a consumer group. */
    @Test
    void rollingUpgradeFromClassicToConsumer() throws Exception {
        migrate("classic", "consumer", GroupType.CONSUMER);
    }

    /** Consumer-protocol members replaced one by one by classic members: the group ends a classic group. */
    @Test
    void rollingDowngradeFromConsumerToClassic() throws Exception {
        migrate("consumer", "classic", GroupType.CLASSIC);
    }

    private void migrate(String from, String to, GroupType expectedType) throws Exception {
        String topic = Clients.topic("migrate-" + from);
        String group = Clients.topic("g-migrate-" + from);
        Clients.createTopic(admin, topic, PARTITIONS);
        Ledger ledger = new Ledger();
        List<Member> members = new ArrayList<>();
        try (Writer writer = new Writer(topic, ledger)) {
            for (int i = 0; i < MEMBERS; i++) {
                members.add(Member.start(group, topic, from, from + "-" + i, ledger));
            }
            awaitSettled(members, "the " + from + " group formed", ledger);
            assertEquals(from.equals("classic") ? GroupType.CLASSIC : GroupType.CONSUMER, describe(group).type());
            for (int i = 0; i < MEMBERS; i++) {
                members.remove(0).close();
                members.add(Member.start(group, topic, to, to + "-" + i, ledger));
                awaitSettled(members, "after replacing " + from + "-" + i + " by " + to + "-" + i, ledger);
                // With members of both protocols the group is a consumer group, as in Kafka.
                GroupType type = describe(group).type();
                if (i < MEMBERS - 1) {
                    assertEquals(GroupType.CONSUMER, type, "a group with members of both protocols");
                }
            }
            writer.stop();
            awaitCaughtUp(group, topic, members, ledger);
            ConsumerGroupDescription described = awaitType(group, expectedType);
            assertEquals(MEMBERS, described.members().size(), described.toString());
        } finally {
            for (Member member : members) {
                member.close();
            }
        }
        ledger.check();
        System.out.println("migration " + from + " -> " + to + ": " + ledger.summary());
    }

    // --- the members -------------------------------------------------------------------------------

    /** What every member and the producer saw, shared between their threads. */
    private static final class Ledger {
        /** Acknowledged records: partition -> offsets. */
        final Map<Integer, Set<Long>> produced = new ConcurrentHashMap<>();
        /** Processed records: partition -> offset -> how many times. */
        final Map<Integer, Map<Long, Integer>> processed = new ConcurrentHashMap<>();
        /** The last successful commit of each partition (the next offset to read). */
        final Map<Integer, Long> committed = new ConcurrentHashMap<>();
        /** Where a new owner's fetching started, against the last successful commit then. */
        final List<String> wrongStarts = new CopyOnWriteArrayList<>();
        final List<String> errors = new CopyOnWriteArrayList<>();
        /** Who owns what now: member name -> partitions. */
        final Map<String, Set<Integer>> owned = new ConcurrentHashMap<>();

        synchronized void committed(Map<TopicPartition, OffsetAndMetadata> offsets) {
            offsets.forEach((tp, offset) -> committed.merge(tp.partition(), offset.offset(), Math::max));
        }

        void process(ConsumerRecord<String, String> record) {
            processed.computeIfAbsent(record.partition(), p -> new ConcurrentHashMap<>())
                .merge(record.offset(), 1, Integer::sum);
        }

        void check() {
            assertEquals(List.of(), errors, "member errors");
            assertEquals(List.of(), wrongStarts, "a new owner started elsewhere than the last successful commit");
            produced.forEach((partition, offsets) -> {
                Map<Long, Integer> seen = processed.getOrDefault(partition, Map.of());
                Set<Long> missing = new TreeSet<>();
                for (long offset : offsets) {
                    if (!seen.containsKey(offset)) {
                        missing.add(offset);
                    }
                }
                assertEquals(Set.of(), missing, "acknowledged records of partition " + partition + " never processed");
            });
        }

        String summary() {
            long records = produced.values().stream().mapToLong(Set::size).sum();
            long again = processed.values().stream()
                .flatMap(m -> m.values().stream()).mapToLong(n -> n - 1).sum();
            return records + " records, " + again + " processed again after a rebalance (from the last commit)";
        }
    }

    /** A consumer on its own thread: poll, process, commit; commit on revocation too. */
    private static final class Member implements AutoCloseable {
        private final String name;
        private final KafkaConsumer<String, String> consumer;
        private final Ledger ledger;
        private final AtomicBoolean running = new AtomicBoolean(true);
        private final Thread thread;
        /** The next offset to commit per partition, as processed by this member. */
        private final Map<TopicPartition, OffsetAndMetadata> progress = new HashMap<>();

        private Member(String name, KafkaConsumer<String, String> consumer, Ledger ledger) {
            this.name = name;
            this.consumer = consumer;
            this.ledger = ledger;
            this.thread = new Thread(this::run, "member-" + name);
        }

        static Member start(String group, String topic, String protocol, String name, Ledger ledger) {
            Map<String, Object> config = new HashMap<>();
            config.put(ConsumerConfig.GROUP_ID_CONFIG, group);
            config.put(ConsumerConfig.CLIENT_ID_CONFIG, name);
            config.put(ConsumerConfig.GROUP_PROTOCOL_CONFIG, protocol);
            config.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
            config.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
            if (protocol.equals("classic")) {
                // Learn of a rebalance within half a second (the consumer protocol's interval is the broker's).
                config.put(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG, 500);
                config.put(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG, 10000);
            }
            Member member = new Member(name, Clients.consumer(broker, config), ledger);
            member.consumer.subscribe(List.of(topic), member.listener());
            member.thread.start();
            return member;
        }

        private ConsumerRebalanceListener listener() {
            return new ConsumerRebalanceListener() {
                @Override
                public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
                    commit(partitions);
                    partitions.forEach(tp -> progress.remove(tp));
                    ledger.owned.computeIfAbsent(name, n -> ConcurrentHashMap.newKeySet())
                        .removeAll(partitions.stream().map(TopicPartition::partition).toList());
                }

                @Override
                public void onPartitionsLost(Collection<TopicPartition> partitions) {
                    partitions.forEach(tp -> progress.remove(tp));
                    ledger.owned.computeIfAbsent(name, n -> ConcurrentHashMap.newKeySet())
                        .removeAll(partitions.stream().map(TopicPartition::partition).toList());
                }

                @Override
                public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
                    for (TopicPartition tp : partitions) {
                        long start = consumer.position(tp);
                        long expected = ledger.committed.getOrDefault(tp.partition(), 0L);
                        if (start != expected) {
                            ledger.wrongStarts.add(name + " starts " + tp + " at " + start + ", last commit " + expected);
                        }
                    }
                    ledger.owned.computeIfAbsent(name, n -> ConcurrentHashMap.newKeySet())
                        .addAll(partitions.stream().map(TopicPartition::partition).toList());
                }
            };
        }

        private void run() {
            try {
                while (running.get()) {
                    for (ConsumerRecord<String, String> record : consumer.poll(Duration.ofMillis(100))) {
                        ledger.process(record);
                        progress.put(new TopicPartition(record.topic(), record.partition()),
                            new OffsetAndMetadata(record.offset() + 1));
                    }
                    commit(consumer.assignment());
                }
            } catch (WakeupException e) {
                // Closing.
            } catch (Exception e) {
                ledger.errors.add(name + ": " + e);
            } finally {
                try {
                    consumer.close(Duration.ofSeconds(10));
                } catch (Exception e) {
                    ledger.errors.add(name + " closing: " + e);
                }
                ledger.owned.remove(name);
            }
        }

        /** Commits this member's progress on `partitions`; a failed commit is at-least-once's business. */
        private void commit(Collection<TopicPartition> partitions) {
            Map<TopicPartition, OffsetAndMetadata> offsets = new HashMap<>();
            for (TopicPartition tp : partitions) {
                OffsetAndMetadata offset = progress.get(tp);
                if (offset != null) {
                    offsets.put(tp, offset);
                }
            }
            if (offsets.isEmpty()) {
                return;
            }
            try {
                consumer.commitSync(offsets, Duration.ofSeconds(10));
                ledger.committed(offsets);
            } catch (WakeupException e) {
                throw e;
            } catch (Exception e) {
                System.out.println("migration: " + name + " could not commit (" + e.getClass().getSimpleName() + ")");
            }
        }

        Set<Integer> owned() {
            return ledger.owned.getOrDefault(name, Set.of());
        }

        @Override
        public void close() throws InterruptedException {
            if (running.getAndSet(false)) {
                thread.join(TimeUnit.SECONDS.toMillis(30));
            }
        }
    }

    /** Writes a record every few milliseconds, round robin over the partitions, until stopped. */
    private static final class Writer implements AutoCloseable {
        private final AtomicBoolean running = new AtomicBoolean(true);
        private final AtomicReference<Exception> failure = new AtomicReference<>();
        private final Thread thread;

        Writer(String topic, Ledger ledger) {
            thread = new Thread(() -> {
                try (KafkaProducer<String, String> producer = Clients.producer(broker, Map.of())) {
                    for (int n = 0; running.get(); n++) {
                        int partition = n % PARTITIONS;
                        var metadata = producer.send(new ProducerRecord<>(topic, partition, "k" + n, "v" + n))
                            .get(10, TimeUnit.SECONDS);
                        ledger.produced.computeIfAbsent(partition, p -> ConcurrentHashMap.newKeySet()).add(metadata.offset());
                        Thread.sleep(5);
                    }
                } catch (Exception e) {
                    failure.set(e);
                }
            }, "writer");
            thread.start();
        }

        void stop() throws Exception {
            running.set(false);
            thread.join(TimeUnit.SECONDS.toMillis(30));
            if (failure.get() != null) {
                throw failure.get();
            }
        }

        @Override
        public void close() throws Exception {
            stop();
        }
    }

    // --- waiting -----------------------------------------------------------------------------------

    /** Waits until every partition is owned by exactly one of `members`. */
    private static void awaitSettled(List<Member> members, String what, Ledger ledger) throws Exception {
        long deadline = System.nanoTime() + SETTLE.toNanos();
        String last = "";
        while (System.nanoTime() < deadline) {
            Map<Integer, Integer> owners = new HashMap<>();
            StringBuilder shares = new StringBuilder();
            for (Member member : members) {
                Set<Integer> owned = new TreeSet<>(member.owned());
                owned.forEach(p -> owners.merge(p, 1, Integer::sum));
                shares.append(member.name).append('=').append(owned).append(' ');
            }
            last = shares.toString();
            boolean settled = owners.size() == PARTITIONS && owners.values().stream().allMatch(n -> n == 1)
                && members.stream().allMatch(m -> !m.owned().isEmpty());
            if (settled) {
                return;
            }
            assertEquals(List.of(), ledger.errors, "member errors while waiting: " + what);
            Thread.sleep(100);
        }
        fail(what + ": the group did not settle within " + SETTLE.toSeconds() + " s; owned: " + last);
    }

    /** Waits until the group's committed offsets reach the end offsets of every partition. */
    private static void awaitCaughtUp(String group, String topic, List<Member> members, Ledger ledger) throws Exception {
        Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
        for (int p = 0; p < PARTITIONS; p++) {
            latest.put(new TopicPartition(topic, p), OffsetSpec.latest());
        }
        Map<TopicPartition, ListOffsetsResult.ListOffsetsResultInfo> ends =
            admin.listOffsets(latest).all().get(Clients.WAIT.toSeconds(), TimeUnit.SECONDS);
        long deadline = System.nanoTime() + SETTLE.toNanos();
        Map<TopicPartition, OffsetAndMetadata> committed = Map.of();
        while (System.nanoTime() < deadline) {
            committed = admin.listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata()
                .get(Clients.WAIT.toSeconds(), TimeUnit.SECONDS);
            Map<TopicPartition, OffsetAndMetadata> now = committed;
            if (ends.entrySet().stream().allMatch(e -> now.get(e.getKey()) != null
                    && now.get(e.getKey()).offset() == e.getValue().offset())) {
                return;
            }
            assertEquals(List.of(), ledger.errors, "member errors while catching up");
            Thread.sleep(100);
        }
        fail("committed offsets " + committed + " never reached the end offsets " + ends);
    }

    private static ConsumerGroupDescription awaitType(String group, GroupType type) throws Exception {
        long deadline = System.nanoTime() + SETTLE.toNanos();
        ConsumerGroupDescription described = describe(group);
        while (described.type() != type || described.members().size() != MEMBERS) {
            if (System.nanoTime() >= deadline) {
                fail("group " + group + " is not a " + type + " group of " + MEMBERS + " members: " + described);
            }
            Thread.sleep(100);
            described = describe(group);
        }
        assertTrue(described.members().stream().allMatch(m -> !m.assignment().topicPartitions().isEmpty()),
            "every member has partitions: " + described);
        return described;
    }

    private static ConsumerGroupDescription describe(String group) throws Exception {
        return admin.describeConsumerGroups(List.of(group)).describedGroups().get(group)
            .get(Clients.WAIT.toSeconds(), TimeUnit.SECONDS);
    }
}
