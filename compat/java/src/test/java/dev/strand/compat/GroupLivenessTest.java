package dev.strand.compat;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.admin.MemberDescription;
import org.apache.kafka.clients.consumer.CommitFailedException;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Liveness of classic consumer groups (issue 5) through kafka-clients 4.4: a member whose process
 * is killed is removed once its session times out, a member that stops polling leaves the group
 * after max.poll.interval.ms, and committed offsets survive a broker restart, clean or SIGKILL.
 *
 * <p>Sessions are 6 s, the lowest either broker accepts by default ({@code
 * group.min.session.timeout.ms=6000}), with a heartbeat every second. The measured times are
 * printed, so that a run's figures can be quoted.
 */
@ExtendWith(BrokerExtension.class)
class GroupLivenessTest {
    static final int SESSION_TIMEOUT_MS = 6000;
    static final int HEARTBEAT_INTERVAL_MS = 1000;
    private static final int MAX_POLL_INTERVAL_MS = 3000;
    private static final Duration POLL = Duration.ofMillis(100);
    /** A member that must find committed offsets. */
    private static final Map<String, Object> NO_RESET = Map.of(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "none");

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
     * Two members share 4 partitions; the process of one is killed (SIGKILL: no LeaveGroup, its
     * connections just drop). The coordinator removes it when its session times out, not before
     * (the last heartbeat was at most a heartbeat interval before the kill) and not much later, and
     * the survivor then gets all 4 partitions.
     */
    @Test
    void aKilledMemberIsRemovedAfterItsSessionTimeout() throws Exception {
        String topic = Clients.topic("liveness-kill");
        Clients.createTopic(admin, topic, 4);
        String group = Clients.topic("g-liveness-kill");
        Recorder survivorEvents = new Recorder();
        // The child's members use GroupMemberProcess's assignor: so must the survivor, to share a protocol.
        Map<String, Object> sameAssignor = Map.of(ConsumerConfig.PARTITION_ASSIGNMENT_STRATEGY_CONFIG,
            GroupMemberProcess.RecordingRangeAssignor.class.getName());
        try (KafkaConsumer<String, String> survivor = Clients.consumer(broker, member(group, "survivor", sameAssignor));
                MemberProcesses children = new MemberProcesses(broker, liveness(Map.of()))) {
            survivor.subscribe(List.of(topic), survivorEvents);
            MemberProcesses.Child child = children.start("victim");
            child.send("start victim " + group + " " + topic);
            await("the survivor and the child's member sharing 4 partitions 2/2", Duration.ofSeconds(30), () -> {
                survivor.poll(POLL);
                MemberProcesses.Event last = lastAssignment(children, "victim");
                return survivor.assignment().size() == 2 && last != null
                    && last.generation() == survivor.groupMetadata().generationId()
                    && last.partitions().size() == 2 && disjoint(last.partitions(), numbers(survivor.assignment()));
            }, () -> "survivor " + survivor.assignment() + ", child " + lastAssignment(children, "victim")
                + "\n" + children.tail(30));
            int generationBefore = survivor.groupMetadata().generationId();

            long killedAt = child.kill();
            Duration limit = Duration.ofMillis(SESSION_TIMEOUT_MS + 10_000);
            await("the survivor holding all 4 partitions after the kill", limit, () -> {
                survivor.poll(POLL);
                return survivor.assignment().size() == 4;
            }, () -> "survivor " + survivor.assignment());
            long elapsed = survivorEvents.lastAssignedAt - killedAt;
            System.out.printf("liveness: a killed member's partitions moved to the survivor %d ms after SIGKILL"
                + " (session.timeout.ms %d, heartbeat.interval.ms %d)%n", elapsed, SESSION_TIMEOUT_MS, HEARTBEAT_INTERVAL_MS);
            assertTrue(elapsed >= SESSION_TIMEOUT_MS - HEARTBEAT_INTERVAL_MS - 500,
                "partitions moved " + elapsed + " ms after the kill: before the session (" + SESSION_TIMEOUT_MS
                    + " ms from the last heartbeat) can have timed out");
            assertTrue(elapsed <= SESSION_TIMEOUT_MS + 4000,
                "partitions moved " + elapsed + " ms after the kill: more than 4 s after the session timeout");
            assertTrue(survivor.groupMetadata().generationId() > generationBefore, "a new generation");

            ConsumerGroupDescription described = describe(group);
            assertEquals(List.of(survivor.groupMetadata().memberId()),
                described.members().stream().map(MemberDescription::consumerId).toList(), "members after the kill");
        }
    }

    /**
     * Two members share 4 partitions; one stops polling. After max.poll.interval.ms (3 s) its
     * heartbeat thread sends LeaveGroup and the other member gets all 4 partitions, sooner than a
     * session timeout could have removed it. The stalled member's commitSync then fails with
     * CommitFailedException; when it polls again it has lost its partitions and rejoins, and the
     * two share the partitions again.
     */
    @Test
    void aMemberThatStopsPollingLeavesAndRejoinsWhenItPollsAgain() throws Exception {
        String topic = Clients.topic("liveness-poll");
        Clients.createTopic(admin, topic, 4);
        try (KafkaProducer<String, String> producer = Clients.producer(broker, Map.of())) {
            for (int i = 0; i < 40; i++) {
                producer.send(new ProducerRecord<>(topic, i % 4, null, "m" + i)).get();
            }
        }
        String group = Clients.topic("g-liveness-poll");
        Map<String, Object> slow = Map.of(ConsumerConfig.MAX_POLL_INTERVAL_MS_CONFIG, MAX_POLL_INTERVAL_MS,
            ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 1);
        Recorder stalledEvents = new Recorder();
        Recorder otherEvents = new Recorder();
        try (KafkaConsumer<String, String> stalled = Clients.consumer(broker, member(group, "stalled", slow));
                KafkaConsumer<String, String> other = Clients.consumer(broker, member(group, "other", slow))) {
            stalled.subscribe(List.of(topic), stalledEvents);
            other.subscribe(List.of(topic), otherEvents);
            List<ConsumerRecord<String, String>> stalledRead = new ArrayList<>();
            await("2/2, the stalled member having read a record of its own", Duration.ofSeconds(30), () -> {
                stalled.poll(POLL).forEach(stalledRead::add);
                other.poll(POLL);
                Set<Integer> mine = numbers(stalled.assignment());
                return mine.size() == 2 && other.assignment().size() == 2
                    && stalledRead.stream().anyMatch(r -> mine.contains(r.partition()));
            }, () -> "stalled " + stalled.assignment() + ", other " + other.assignment());
            Set<TopicPartition> stalledHad = Set.copyOf(stalled.assignment());

            // The stalled member's last poll: from now on only the other member polls.
            long lastPoll = System.currentTimeMillis();
            await("the other member holding all 4 partitions", Duration.ofMillis(MAX_POLL_INTERVAL_MS + SESSION_TIMEOUT_MS + 5000), () -> {
                other.poll(POLL);
                return other.assignment().size() == 4;
            }, () -> "other " + other.assignment());
            long elapsed = otherEvents.lastAssignedAt - lastPoll;
            System.out.printf("liveness: a member that stopped polling lost its partitions to the other %d ms after"
                + " its last poll (max.poll.interval.ms %d, session.timeout.ms %d)%n", elapsed, MAX_POLL_INTERVAL_MS,
                SESSION_TIMEOUT_MS);
            assertTrue(elapsed >= MAX_POLL_INTERVAL_MS - 200,
                "partitions moved " + elapsed + " ms after the last poll, before max.poll.interval.ms");
            // Without the LeaveGroup the member would stay until its session ran out: its last
            // heartbeat is at max.poll.interval.ms at the latest, so not before
            // max.poll.interval.ms + session.timeout.ms - heartbeat.interval.ms.
            assertTrue(elapsed < MAX_POLL_INTERVAL_MS + SESSION_TIMEOUT_MS - HEARTBEAT_INTERVAL_MS - 500,
                "partitions moved " + elapsed + " ms after the last poll: as late as a session timeout, not a LeaveGroup");
            assertEquals(List.of(other.groupMetadata().memberId()),
                describe(group).members().stream().map(MemberDescription::consumerId).toList(), "members after the leave");

            CommitFailedException thrown = assertThrows(CommitFailedException.class, stalled::commitSync,
                "commitSync by a member that left the group");
            assertNotNull(thrown.getMessage());

            await("the stalled member back, 2/2", Duration.ofSeconds(30), () -> {
                stalled.poll(POLL);
                other.poll(POLL);
                return stalled.assignment().size() == 2 && other.assignment().size() == 2;
            }, () -> "stalled " + stalled.assignment() + ", other " + other.assignment());
            assertTrue(stalledEvents.lost.containsAll(stalledHad),
                "the stalled member was told it lost " + stalledHad + "; events " + stalledEvents.events);
            assertEquals(stalled.groupMetadata().generationId(), other.groupMetadata().generationId(), "one generation");
            assertEquals(2, describe(group).members().size(), "members after the rejoin");
            other.commitSync();
            stalled.commitSync();
        }
    }

    /**
     * Committed offsets survive the broker stopping and starting again on the same data dir, once
     * stopped with SIGTERM and once with SIGKILL: after each restart a new member of the group (with
     * auto.offset.reset=none, so it must find them) resumes at the committed offsets, and reads
     * what is produced after the restart. Its own broker, so the restarts disturb no other test.
     */
    @Test
    void committedOffsetsSurviveACleanRestartAndAKill() throws Exception {
        try (Broker own = Broker.start(); Admin ownAdmin = Clients.admin(own)) {
            String topic = Clients.topic("liveness-restart");
            Clients.createTopic(ownAdmin, topic, 2);
            TopicPartition p0 = new TopicPartition(topic, 0);
            TopicPartition p1 = new TopicPartition(topic, 1);
            String group = Clients.topic("g-liveness-restart");
            produce(own, topic, 0, 10);
            try (KafkaConsumer<String, String> first = Clients.consumer(own, member(group, "first", Map.of()))) {
                first.subscribe(List.of(topic));
                Clients.pollExactly(first, 20);
                first.commitSync(Map.of(p0, new OffsetAndMetadata(4), p1, new OffsetAndMetadata(7)));
            }

            long started = System.nanoTime();
            own.restart(Broker.Stop.CLEAN);
            System.out.printf("liveness: broker stopped with SIGTERM and serving again after %d ms%n",
                TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started));
            produce(own, topic, 10, 12);
            try (KafkaConsumer<String, String> second = Clients.consumer(own, member(group, "second", NO_RESET))) {
                second.subscribe(List.of(topic));
                List<ConsumerRecord<String, String>> read = Clients.pollExactly(second, (12 - 4) + (12 - 7));
                assertEquals(Map.of(0, offsets(4, 12), 1, offsets(7, 12)), offsetsByPartition(read),
                    "offsets read after the clean restart");
                second.commitSync(Map.of(p0, new OffsetAndMetadata(9), p1, new OffsetAndMetadata(11)));
            }

            started = System.nanoTime();
            own.restart(Broker.Stop.KILL);
            System.out.printf("liveness: broker killed with SIGKILL and serving again after %d ms%n",
                TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started));
            produce(own, topic, 12, 13);
            try (KafkaConsumer<String, String> third = Clients.consumer(own, member(group, "third", NO_RESET))) {
                third.subscribe(List.of(topic));
                List<ConsumerRecord<String, String>> read = Clients.pollExactly(third, (13 - 9) + (13 - 11));
                assertEquals(Map.of(0, offsets(9, 13), 1, offsets(11, 13)), offsetsByPartition(read),
                    "offsets read after the SIGKILL restart");
            }
        }
    }

    // --- helpers ---------------------------------------------------------------------------------------

    /** The consumer settings of every member here (child processes get them too). */
    static Map<String, Object> liveness(Map<String, Object> overrides) {
        Map<String, Object> config = new HashMap<>();
        config.put(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG, SESSION_TIMEOUT_MS);
        config.put(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG, HEARTBEAT_INTERVAL_MS);
        config.putAll(overrides);
        return config;
    }

    /** A classic-protocol member of group, auto.offset.reset=earliest unless overridden. */
    private static Map<String, Object> member(String group, String clientId, Map<String, Object> overrides) {
        Map<String, Object> config = new HashMap<>(liveness(Map.of()));
        config.put(ConsumerConfig.GROUP_ID_CONFIG, group);
        config.put(ConsumerConfig.CLIENT_ID_CONFIG, clientId);
        config.put(ConsumerConfig.GROUP_PROTOCOL_CONFIG, "classic");
        config.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        config.putAll(overrides);
        return config;
    }

    /** Writes m{from}..m{to-1} to both partitions of topic. */
    private static void produce(Broker target, String topic, int from, int to) throws Exception {
        try (KafkaProducer<String, String> producer = Clients.producer(target, Map.of())) {
            for (int i = from; i < to; i++) {
                for (int partition = 0; partition < 2; partition++) {
                    assertEquals(i, producer.send(new ProducerRecord<>(topic, partition, null, "m" + i)).get().offset());
                }
            }
        }
    }

    private static Map<Integer, List<Long>> offsetsByPartition(List<ConsumerRecord<String, String>> records) {
        Map<Integer, List<Long>> offsets = new HashMap<>();
        records.forEach(r -> offsets.computeIfAbsent(r.partition(), p -> new ArrayList<>()).add(r.offset()));
        return offsets;
    }

    private static List<Long> offsets(long from, long to) {
        List<Long> offsets = new ArrayList<>();
        for (long o = from; o < to; o++) {
            offsets.add(o);
        }
        return offsets;
    }

    private static MemberProcesses.Event lastAssignment(MemberProcesses children, String name) {
        MemberProcesses.Event last = null;
        for (MemberProcesses.Event event : children.events()) {
            if (event.name().equals(name) && event.type().equals("assigned")) {
                last = event;
            }
        }
        return last;
    }

    private static Set<Integer> numbers(Collection<TopicPartition> partitions) {
        return partitions.stream().map(TopicPartition::partition).collect(Collectors.toCollection(TreeSet::new));
    }

    private static boolean disjoint(Set<Integer> a, Set<Integer> b) {
        return a.stream().noneMatch(b::contains);
    }

    private static ConsumerGroupDescription describe(String group) throws Exception {
        return admin.describeConsumerGroups(List.of(group)).describedGroups().get(group)
            .get(Clients.WAIT.toSeconds(), TimeUnit.SECONDS);
    }

    /** Runs step (which polls) until it returns true, failing with state() after timeout. */
    private static void await(String what, Duration timeout, BooleanSupplier step, Supplier<String> state) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!step.getAsBoolean()) {
            if (System.nanoTime() >= deadline) {
                fail(what + ": not reached within " + timeout.toMillis() + " ms; " + state.get());
            }
        }
    }

    /** A rebalance listener remembering what it was told, and when the last assignment came. */
    private static final class Recorder implements ConsumerRebalanceListener {
        final List<String> events = new ArrayList<>();
        final Set<TopicPartition> lost = new HashSet<>();
        volatile long lastAssignedAt;

        @Override
        public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
            events.add("revoked " + numbers(partitions));
        }

        @Override
        public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
            events.add("assigned " + numbers(partitions));
            lastAssignedAt = System.currentTimeMillis();
        }

        @Override
        public void onPartitionsLost(Collection<TopicPartition> partitions) {
            events.add("lost " + numbers(partitions));
            lost.addAll(partitions);
        }
    }
}
