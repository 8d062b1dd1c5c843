package dev.strand.compat;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
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
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Predicate;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.admin.ConsumerGroupListing;
import org.apache.kafka.clients.admin.GroupListing;
import org.apache.kafka.clients.admin.ListGroupsOptions;
import org.apache.kafka.clients.admin.MemberDescription;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.NoOffsetForPartitionException;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.consumer.SubscriptionPattern;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.GroupState;
import org.apache.kafka.common.GroupType;
import org.apache.kafka.common.KafkaFuture;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.GroupIdNotFoundException;
import org.apache.kafka.common.errors.GroupNotEmptyException;
import org.apache.kafka.common.errors.GroupSubscribedToTopicException;
import org.apache.kafka.common.errors.UnknownMemberIdException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Consumer groups and committed offsets (issue 5) through kafka-clients 4.4: the classic protocol
 * with each client-side assignor, commits (auto, sync, async) that a new member resumes from,
 * auto.offset.reset, static membership, the consumer protocol (KIP-848) with its server-side
 * assignors and a broker-side regex subscription, and the AdminClient's group operations.
 *
 * <p>Each test makes its own topic and group. Members of one group are polled in turn from the
 * test's thread (a KafkaConsumer belongs to one thread; each still has its own heartbeat thread),
 * until their assignments are what the test expects or {@link Clients#WAIT} has passed.
 */
@ExtendWith(BrokerExtension.class)
class GroupsTest {
    /** Each member's poll while the test waits for the group: short, so all members rejoin promptly. */
    private static final Duration POLL = Duration.ofMillis(50);

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

    // --- classic protocol: the client-side assignors ------------------------------------------------

    /**
     * The seeds' example: 10 partitions, 3 members, the range assignor: members in member-id order
     * (client id, then a broker-made suffix) get 0-3, 4-6 and 7-9.
     */
    @Test
    void rangeAssignorGivesContiguousRangesInMemberOrder() throws Exception {
        String topic = topicWithPartitions("range", 10);
        String group = Clients.topic("g-range");
        try (Members members = classicMembers(group, topic, "range", 3)) {
            members.await("range assignment", List.of(range(0, 4), range(4, 7), range(7, 10)));
        }
    }

    /** The round-robin assignor deals the 10 partitions out in member order: 0,3,6,9 / 1,4,7 / 2,5,8. */
    @Test
    void roundRobinAssignorDealsPartitionsInMemberOrder() throws Exception {
        String topic = topicWithPartitions("roundrobin", 10);
        String group = Clients.topic("g-roundrobin");
        try (Members members = classicMembers(group, topic, "roundrobin", 3)) {
            members.await("round-robin assignment", List.of(Set.of(0, 3, 6, 9), Set.of(1, 4, 7), Set.of(2, 5, 8)));
        }
    }

    /**
     * Sticky and cooperative-sticky: 3 members share 10 partitions 4/3/3; when the third member is
     * closed (it leaves the group), the other two keep what they had and split the rest 5/5. With
     * cooperative-sticky they are never asked to give up a partition they keep.
     */
    @ParameterizedTest
    @ValueSource(strings = {"sticky", "cooperative-sticky"})
    void stickyAssignorsKeepPartitionsWhenAMemberLeaves(String assignor) throws Exception {
        String topic = topicWithPartitions("sticky", 10);
        String group = Clients.topic("g-" + assignor);
        try (Members members = classicMembers(group, topic, assignor, 3)) {
            List<Set<Integer>> before = members.await("3 members sharing 10 partitions 4/3/3", GroupsTest::balancedOverTen);
            members.rebalances(0).clear();
            members.rebalances(1).clear();

            members.closeLast();
            List<Set<Integer>> after = members.await("2 members sharing 10 partitions 5/5", GroupsTest::balancedOverTen);
            for (int i = 0; i < 2; i++) {
                assertTrue(after.get(i).containsAll(before.get(i)),
                    "member " + i + " kept " + before.get(i) + "; now has " + after.get(i));
                if (assignor.equals("cooperative-sticky")) {
                    assertEquals(Set.of(), members.rebalances(i).revoked,
                        "member " + i + " had nothing revoked under cooperative-sticky");
                }
            }
        }
    }

    // --- committed offsets -------------------------------------------------------------------------

    /**
     * enable.auto.commit: the offsets of what poll returned are committed as the member keeps
     * polling; a new member of the group (with auto.offset.reset=none, so it must find them)
     * resumes at exactly the committed offset.
     */
    @Test
    void autoCommitThenANewMemberResumes() throws Exception {
        String topic = topicWithPartitions("autocommit", 1);
        TopicPartition p0 = new TopicPartition(topic, 0);
        produce(topic, 0, 0, 10);
        String group = Clients.topic("g-autocommit");
        try (KafkaConsumer<String, String> first = Clients.consumer(broker, classic(group, "first", "range",
                Map.of(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, true, ConsumerConfig.AUTO_COMMIT_INTERVAL_MS_CONFIG, 100)))) {
            first.subscribe(List.of(topic));
            List<ConsumerRecord<String, String>> read = Clients.pollExactly(first, 10);
            assertEquals(values(0, 10), read.stream().map(ConsumerRecord::value).toList());
            long deadline = System.nanoTime() + Clients.WAIT.toNanos();
            OffsetAndMetadata committed = null;
            while (System.nanoTime() < deadline) {
                first.poll(POLL);
                committed = first.committed(Set.of(p0)).get(p0);
                if (committed != null && committed.offset() == 10) {
                    break;
                }
            }
            assertNotNull(committed, "auto commit committed nothing");
            assertEquals(10, committed.offset(), "auto-committed offset");
        }
        produce(topic, 0, 10, 15);
        try (KafkaConsumer<String, String> second = Clients.consumer(broker, classic(group, "second", "range",
                Map.of(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "none")))) {
            second.subscribe(List.of(topic));
            List<ConsumerRecord<String, String>> rest = Clients.pollExactly(second, 5);
            assertEquals(List.of(10L, 11L, 12L, 13L, 14L), rest.stream().map(ConsumerRecord::offset).toList());
            assertEquals(values(10, 15), rest.stream().map(ConsumerRecord::value).toList());
        }
        assertEquals(Map.of(p0, 10L), committedOffsets(group));
    }

    /**
     * commitSync with explicit offsets and metadata, then commitAsync of the positions: each new
     * member resumes where the previous one committed, and the commit callback reports the offsets.
     */
    @Test
    void commitSyncAndCommitAsyncThenANewMemberResumes() throws Exception {
        String topic = topicWithPartitions("commit", 2);
        TopicPartition p0 = new TopicPartition(topic, 0);
        TopicPartition p1 = new TopicPartition(topic, 1);
        produce(topic, 0, 0, 6);
        produce(topic, 1, 0, 6);
        String group = Clients.topic("g-commit");
        Map<String, Object> noReset = Map.of(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "none");
        try (KafkaConsumer<String, String> first = Clients.consumer(broker, classic(group, "first", "range", Map.of()))) {
            first.subscribe(List.of(topic));
            Clients.pollExactly(first, 12);
            first.commitSync(Map.of(p0, new OffsetAndMetadata(4, "sync-p0"), p1, new OffsetAndMetadata(6)));
            Map<TopicPartition, OffsetAndMetadata> committed = first.committed(Set.of(p0, p1));
            assertEquals(4, committed.get(p0).offset());
            assertEquals("sync-p0", committed.get(p0).metadata());
            assertEquals(6, committed.get(p1).offset());
            assertEquals("", committed.get(p1).metadata());
        }
        try (KafkaConsumer<String, String> second = Clients.consumer(broker, classic(group, "second", "range", noReset))) {
            second.subscribe(List.of(topic));
            List<ConsumerRecord<String, String>> rest = Clients.pollExactly(second, 2);
            assertEquals(List.of("0:4", "0:5"), rest.stream().map(r -> r.partition() + ":" + r.offset()).toList());
            assertEquals(values(4, 6), rest.stream().map(ConsumerRecord::value).toList());

            AtomicReference<Map<TopicPartition, OffsetAndMetadata>> reported = new AtomicReference<>();
            AtomicReference<Exception> failure = new AtomicReference<>();
            second.commitAsync((offsets, exception) -> {
                failure.set(exception);
                reported.set(offsets);
            });
            long deadline = System.nanoTime() + Clients.WAIT.toNanos();
            while (reported.get() == null && System.nanoTime() < deadline) {
                second.poll(POLL); // the callback runs inside poll
            }
            assertNull(failure.get(), "commitAsync failed");
            assertNotNull(reported.get(), "commitAsync's callback never ran");
            assertEquals(Map.of(p0, 6L, p1, 6L), offsetsOf(reported.get()));
        }
        assertEquals(Map.of(p0, 6L, p1, 6L), committedOffsets(group));
        produce(topic, 1, 6, 8);
        try (KafkaConsumer<String, String> third = Clients.consumer(broker, classic(group, "third", "range", noReset))) {
            third.subscribe(List.of(topic));
            List<ConsumerRecord<String, String>> rest = Clients.pollExactly(third, 2);
            assertEquals(List.of("1:6", "1:7"), rest.stream().map(r -> r.partition() + ":" + r.offset()).toList());
        }
    }

    /**
     * auto.offset.reset for a group without committed offsets: earliest reads from offset 0,
     * latest only what is written after the member got the partition, none fails the poll with
     * NoOffsetForPartitionException.
     */
    @Test
    void autoOffsetResetEarliestLatestNone() throws Exception {
        String topic = topicWithPartitions("reset", 1);
        TopicPartition p0 = new TopicPartition(topic, 0);
        produce(topic, 0, 0, 3);

        try (KafkaConsumer<String, String> earliest = Clients.consumer(broker,
                classic(Clients.topic("g-earliest"), "earliest", "range", Map.of()))) {
            earliest.subscribe(List.of(topic));
            assertEquals(values(0, 3), Clients.pollExactly(earliest, 3).stream().map(ConsumerRecord::value).toList());
        }

        try (KafkaConsumer<String, String> latest = Clients.consumer(broker, classic(Clients.topic("g-latest"), "latest",
                "range", Map.of(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "latest")))) {
            latest.subscribe(List.of(topic));
            long deadline = System.nanoTime() + Clients.WAIT.toNanos();
            while (latest.assignment().isEmpty() && System.nanoTime() < deadline) {
                assertEquals(0, latest.poll(POLL).count(), "latest read an old record");
            }
            assertEquals(Set.of(p0), latest.assignment());
            assertEquals(3, latest.position(p0), "latest starts at the log end");
            produce(topic, 0, 3, 4);
            List<ConsumerRecord<String, String>> fresh = Clients.pollExactly(latest, 1);
            assertEquals(3, fresh.get(0).offset());
            assertEquals("m3", fresh.get(0).value());
        }

        try (KafkaConsumer<String, String> none = Clients.consumer(broker, classic(Clients.topic("g-none"), "none",
                "range", Map.of(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "none")))) {
            none.subscribe(List.of(topic));
            NoOffsetForPartitionException thrown = assertThrows(NoOffsetForPartitionException.class, () -> {
                long deadline = System.nanoTime() + Clients.WAIT.toNanos();
                while (System.nanoTime() < deadline) {
                    none.poll(POLL);
                }
            });
            assertEquals(Set.of(p0), thrown.partitions());
        }
    }

    // --- static membership -------------------------------------------------------------------------

    /**
     * group.instance.id: a static member that is closed does not leave the group; restarted
     * within the session timeout it gets its old partitions back in the same generation, and the
     * other member sees no rebalance at all.
     */
    @Test
    void staticMemberRestartGetsTheSameAssignmentWithoutARebalance() throws Exception {
        String topic = topicWithPartitions("static", 4);
        String group = Clients.topic("g-static");
        Map<String, Object> s1 = Map.of(ConsumerConfig.GROUP_INSTANCE_ID_CONFIG, group + "-s1");
        Map<String, Object> s2 = Map.of(ConsumerConfig.GROUP_INSTANCE_ID_CONFIG, group + "-s2");
        try (Members members = new Members(topic)) {
            members.add(classic(group, "a", "range", s1));
            members.add(classic(group, "b", "range", s2));
            // Static members are ordered by group.instance.id for the range assignor.
            members.await("two static members", List.of(Set.of(0, 1), Set.of(2, 3)));
            KafkaConsumer<String, String> other = members.get(1);
            int generation = other.groupMetadata().generationId();
            String firstMemberId = members.get(0).groupMetadata().memberId();
            members.rebalances(1).events.clear();

            members.close(0);
            // Closed but not gone: the broker keeps the static member until its session times out.
            ConsumerGroupDescription described = describe(group);
            assertEquals(2, described.members().size(), "members while s1 is down: " + described);
            assertTrue(described.members().stream().anyMatch(m -> m.groupInstanceId().equals(Optional.of(group + "-s1"))
                && m.consumerId().equals(firstMemberId)), "s1 still a member: " + described);

            members.add(0, classic(group, "a", "range", s1));
            members.await("s1 restarted", List.of(Set.of(0, 1), Set.of(2, 3)));
            KafkaConsumer<String, String> restarted = members.get(0);
            assertEquals(generation, restarted.groupMetadata().generationId(), "restarted s1 joined the same generation");
            // Poll both a while longer: a rebalance started by the restart would show up here.
            for (int i = 0; i < 10; i++) {
                members.pollAll();
            }
            assertEquals(generation, other.groupMetadata().generationId(), "s2 saw a new generation");
            assertEquals(List.of(), members.rebalances(1).events, "s2's rebalance listener was called");
            assertEquals(Set.of(0, 1), partitions(restarted.assignment()));
            assertEquals(Set.of(2, 3), partitions(other.assignment()));

            ConsumerGroupDescription after = describe(group);
            assertEquals(2, after.members().size());
            MemberDescription s1Now = after.members().stream()
                .filter(m -> m.groupInstanceId().equals(Optional.of(group + "-s1"))).findFirst().orElseThrow();
            assertEquals(restarted.groupMetadata().memberId(), s1Now.consumerId(), "s1's member id is the restarted one's");
            assertEquals("a", s1Now.clientId());
        }
    }

    // --- the consumer protocol (KIP-848) -----------------------------------------------------------

    /**
     * group.protocol=consumer with each server-side assignor: 3 members share 10 partitions 4/3/3
     * (range: each a contiguous range); with uniform, when a member leaves, the other two keep
     * what they had and split the rest 5/5.
     */
    @ParameterizedTest
    @ValueSource(strings = {"uniform", "range"})
    void consumerProtocolWithServerSideAssignor(String assignor) throws Exception {
        String topic = topicWithPartitions("kip848", 10);
        String group = Clients.topic("g-kip848-" + assignor);
        try (Members members = new Members(topic)) {
            for (String client : List.of("a", "b", "c")) {
                members.add(consumerProtocol(group, client, Map.of(ConsumerConfig.GROUP_REMOTE_ASSIGNOR_CONFIG, assignor)));
            }
            // While members hand partitions over, a member can briefly hold some of its old
            // share and some of its new one: wait for the target, 4/3/3 (range: each contiguous).
            Predicate<List<Set<Integer>>> target = assignor.equals("range")
                ? shares -> balancedOverTen(shares) && shares.stream().allMatch(GroupsTest::contiguous)
                : GroupsTest::balancedOverTen;
            List<Set<Integer>> before = members.await("3 members sharing 10 partitions 4/3/3", target);
            // The group is Stable once every member has acknowledged its assignment (its next heartbeat).
            ConsumerGroupDescription described = awaitGroupState(group, GroupState.STABLE, members);
            assertEquals(GroupType.CONSUMER, described.type());
            assertEquals(assignor, described.partitionAssignor());
            assertEquals(3, described.members().size());
            Set<Integer> describedPartitions = partitions(described.members().stream()
                .flatMap(m -> m.assignment().topicPartitions().stream()).toList());
            assertEquals(range(0, 10), describedPartitions, "the members' assignments as described");

            members.closeLast();
            List<Set<Integer>> after = members.await("2 members sharing 10 partitions 5/5", GroupsTest::balancedOverTen);
            if (assignor.equals("uniform")) {
                for (int i = 0; i < 2; i++) {
                    assertTrue(after.get(i).containsAll(before.get(i)),
                        "member " + i + " kept " + before.get(i) + "; now has " + after.get(i));
                }
            }
        }
    }

    /**
     * Commits under the consumer protocol (OffsetCommit with the member epoch): commitSync, then a
     * new member of the group resumes at the committed offset, and the group lists it.
     */
    @Test
    void consumerProtocolCommitThenANewMemberResumes() throws Exception {
        String topic = topicWithPartitions("kip848-commit", 1);
        TopicPartition p0 = new TopicPartition(topic, 0);
        produce(topic, 0, 0, 6);
        String group = Clients.topic("g-kip848-commit");
        try (KafkaConsumer<String, String> first = Clients.consumer(broker, consumerProtocol(group, "first", Map.of()))) {
            first.subscribe(List.of(topic));
            Clients.pollExactly(first, 6);
            first.commitSync(Map.of(p0, new OffsetAndMetadata(4, "kip848")));
            assertEquals(4, first.committed(Set.of(p0)).get(p0).offset());
            ConsumerGroupDescription described = describe(group);
            assertEquals(GroupType.CONSUMER, described.type());
            MemberDescription only = described.members().iterator().next();
            assertEquals(first.groupMetadata().memberId(), only.consumerId());
            assertEquals(Optional.of(first.groupMetadata().generationId()), only.memberEpoch());
            assertEquals(Set.of(p0), only.assignment().topicPartitions());
        }
        Map<TopicPartition, OffsetAndMetadata> committed = wait(admin.listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata());
        assertEquals(Map.of(p0, 4L), offsetsOf(committed));
        assertEquals("kip848", committed.get(p0).metadata());
        assertEquals(GroupState.EMPTY, describe(group).groupState());
        try (KafkaConsumer<String, String> second = Clients.consumer(broker, consumerProtocol(group, "second",
                Map.of(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "none")))) {
            second.subscribe(List.of(topic));
            assertEquals(List.of(4L, 5L), Clients.pollExactly(second, 2).stream().map(ConsumerRecord::offset).toList());
        }
    }

    /**
     * A broker-side regex subscription (SubscriptionPattern, KIP-848) picks up a topic created
     * after the member joined: its partition is assigned and its records consumed. The broker
     * resolves a group's regexes again at most every 10 s, so this test takes about that long.
     */
    @Test
    void consumerProtocolRegexSubscriptionPicksUpANewTopic() throws Exception {
        String prefix = Clients.topic("regex");
        String existing = prefix + "-old";
        String later = prefix + "-new";
        Clients.createTopic(admin, existing, 2);
        Clients.createTopic(admin, Clients.topic("other"), 1);
        String group = Clients.topic("g-regex");
        try (KafkaConsumer<String, String> member = Clients.consumer(broker, consumerProtocol(group, "regex", Map.of()))) {
            member.subscribe(new SubscriptionPattern(prefix.replace("-", "\\-") + "\\-.*"));
            awaitAssignment(member, Set.of(new TopicPartition(existing, 0), new TopicPartition(existing, 1)));
            Clients.createTopic(admin, later, 1);
            awaitAssignment(member, Set.of(new TopicPartition(existing, 0), new TopicPartition(existing, 1),
                new TopicPartition(later, 0)));
            produce(later, 0, 0, 2);
            List<ConsumerRecord<String, String>> read = Clients.pollExactly(member, 2);
            assertEquals(List.of(later + ":m0", later + ":m1"), read.stream().map(r -> r.topic() + ":" + r.value()).toList());
        }
    }

    // --- AdminClient -------------------------------------------------------------------------------

    /**
     * listConsumerGroups / listGroups, describeConsumerGroups, listConsumerGroupOffsets while a
     * member is active (and the errors for deleting or altering an active group's offsets), then,
     * once it is empty, alterConsumerGroupOffsets, deleteConsumerGroupOffsets and deleteConsumerGroups.
     */
    @Test
    @SuppressWarnings("deprecation") // listConsumerGroups: the seeds' call; listGroups is checked too
    void adminGroupOperations() throws Exception {
        String topic = topicWithPartitions("admin", 2);
        TopicPartition p0 = new TopicPartition(topic, 0);
        TopicPartition p1 = new TopicPartition(topic, 1);
        produce(topic, 0, 0, 5);
        produce(topic, 1, 0, 5);
        String group = Clients.topic("g-admin");
        try (KafkaConsumer<String, String> member = Clients.consumer(broker, classic(group, "admin-member", "range", Map.of()))) {
            member.subscribe(List.of(topic));
            Clients.pollExactly(member, 10);
            member.commitSync();

            ConsumerGroupListing listed = wait(admin.listConsumerGroups().all()).stream()
                .filter(g -> g.groupId().equals(group)).findFirst().orElseThrow(() -> new AssertionError(group + " not listed"));
            assertFalse(listed.isSimpleConsumerGroup());
            assertEquals(Optional.of(GroupState.STABLE), listed.groupState());
            assertEquals(Optional.of(GroupType.CLASSIC), listed.type());
            GroupListing any = wait(admin.listGroups(ListGroupsOptions.forConsumerGroups()).all()).stream()
                .filter(g -> g.groupId().equals(group)).findFirst().orElseThrow(() -> new AssertionError(group + " not in listGroups"));
            assertEquals("consumer", any.protocol());
            assertEquals(Optional.of(GroupType.CLASSIC), any.type());

            ConsumerGroupDescription described = describe(group);
            assertEquals(group, described.groupId());
            assertFalse(described.isSimpleConsumerGroup());
            assertEquals(GroupType.CLASSIC, described.type());
            assertEquals(GroupState.STABLE, described.groupState());
            assertEquals("range", described.partitionAssignor());
            assertEquals(Broker.NODE_ID, described.coordinator().id());
            assertEquals(1, described.members().size());
            MemberDescription only = described.members().iterator().next();
            assertEquals(member.groupMetadata().memberId(), only.consumerId());
            assertEquals("admin-member", only.clientId());
            assertEquals("/127.0.0.1", only.host());
            assertEquals(Optional.empty(), only.groupInstanceId());
            assertEquals(Set.of(p0, p1), only.assignment().topicPartitions());

            assertEquals(Map.of(p0, 5L, p1, 5L), committedOffsets(group));
            assertCause(GroupNotEmptyException.class, admin.deleteConsumerGroups(List.of(group)).all());
            assertCause(GroupSubscribedToTopicException.class, admin.deleteConsumerGroupOffsets(group, Set.of(p0)).all());
            assertCause(UnknownMemberIdException.class,
                admin.alterConsumerGroupOffsets(group, Map.of(p0, new OffsetAndMetadata(1))).all());
        }

        ConsumerGroupDescription empty = describe(group);
        assertEquals(GroupState.EMPTY, empty.groupState());
        assertEquals(List.of(), List.copyOf(empty.members()));

        wait(admin.alterConsumerGroupOffsets(group, Map.of(p0, new OffsetAndMetadata(2), p1, new OffsetAndMetadata(3, "altered"))).all());
        Map<TopicPartition, OffsetAndMetadata> altered = wait(admin.listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata());
        assertEquals(Map.of(p0, 2L, p1, 3L), offsetsOf(altered));
        assertEquals("altered", altered.get(p1).metadata());

        wait(admin.deleteConsumerGroupOffsets(group, Set.of(p0)).all());
        assertEquals(Map.of(p1, 3L), committedOffsets(group));
        try (KafkaConsumer<String, String> resumed = Clients.consumer(broker, classic(group, "resumed", "range", Map.of()))) {
            resumed.subscribe(List.of(topic));
            // p0 lost its offset (earliest: 0..4); p1 resumes at the altered 3 (3, 4).
            List<ConsumerRecord<String, String>> read = Clients.pollExactly(resumed, 7);
            assertEquals(Set.of("0:0", "0:1", "0:2", "0:3", "0:4", "1:3", "1:4"),
                read.stream().map(r -> r.partition() + ":" + r.offset()).collect(Collectors.toSet()));
        }

        wait(admin.deleteConsumerGroups(List.of(group)).all());
        assertFalse(wait(admin.listConsumerGroups().all()).stream().anyMatch(g -> g.groupId().equals(group)),
            "deleted group still listed");
        assertEquals(Map.of(), committedOffsets(group));
        // A deleted group is not described as Dead: describeConsumerGroups fails with GROUP_ID_NOT_FOUND.
        assertCause(GroupIdNotFoundException.class, admin.describeConsumerGroups(List.of(group)).describedGroups().get(group));
        assertCause(GroupIdNotFoundException.class, admin.deleteConsumerGroups(List.of(group)).all());
    }

    // --- helpers -----------------------------------------------------------------------------------

    /** The classic protocol, one client-side assignor, a fast heartbeat so rebalances are noticed at once. */
    private static Map<String, Object> classic(String group, String clientId, String assignor, Map<String, Object> overrides) {
        Map<String, Object> config = new HashMap<>();
        config.put(ConsumerConfig.GROUP_ID_CONFIG, group);
        config.put(ConsumerConfig.CLIENT_ID_CONFIG, clientId);
        config.put(ConsumerConfig.GROUP_PROTOCOL_CONFIG, "classic");
        config.put(ConsumerConfig.PARTITION_ASSIGNMENT_STRATEGY_CONFIG, assignorClass(assignor));
        config.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        config.put(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG, 200);
        // The broker's group.min.session.timeout.ms is Kafka's default, 6 s.
        config.put(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG, 10000);
        config.putAll(overrides);
        return config;
    }

    /** The consumer protocol (KIP-848): the broker assigns; heartbeat and session settings are the broker's. */
    private static Map<String, Object> consumerProtocol(String group, String clientId, Map<String, Object> overrides) {
        Map<String, Object> config = new HashMap<>();
        config.put(ConsumerConfig.GROUP_ID_CONFIG, group);
        config.put(ConsumerConfig.CLIENT_ID_CONFIG, clientId);
        config.put(ConsumerConfig.GROUP_PROTOCOL_CONFIG, "consumer");
        config.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        config.putAll(overrides);
        return config;
    }

    private static String assignorClass(String name) {
        switch (name) {
            case "range":
                return org.apache.kafka.clients.consumer.RangeAssignor.class.getName();
            case "roundrobin":
                return org.apache.kafka.clients.consumer.RoundRobinAssignor.class.getName();
            case "sticky":
                return org.apache.kafka.clients.consumer.StickyAssignor.class.getName();
            case "cooperative-sticky":
                return org.apache.kafka.clients.consumer.CooperativeStickyAssignor.class.getName();
            default:
                throw new IllegalArgumentException(name);
        }
    }

    /** count members of the classic protocol with the given assignor, client ids a, b, c, ... (member order). */
    private static Members classicMembers(String group, String topic, String assignor, int count) {
        Members members = new Members(topic);
        for (int i = 0; i < count; i++) {
            members.add(classic(group, String.valueOf((char) ('a' + i)), assignor, Map.of()));
        }
        return members;
    }

    /** The members of one group, subscribed to one topic, each with a recording rebalance listener. */
    private static final class Members implements AutoCloseable {
        private final String topic;
        private final List<KafkaConsumer<String, String>> consumers = new ArrayList<>();
        private final List<Rebalances> listeners = new ArrayList<>();

        Members(String topic) {
            this.topic = topic;
        }

        void add(Map<String, Object> config) {
            add(consumers.size(), config);
        }

        void add(int index, Map<String, Object> config) {
            KafkaConsumer<String, String> consumer = Clients.consumer(broker, config);
            Rebalances listener = new Rebalances();
            consumer.subscribe(List.of(topic), listener);
            consumers.add(index, consumer);
            listeners.add(index, listener);
        }

        KafkaConsumer<String, String> get(int index) {
            return consumers.get(index);
        }

        Rebalances rebalances(int index) {
            return listeners.get(index);
        }

        void close(int index) {
            consumers.remove(index).close();
            listeners.remove(index);
        }

        void closeLast() {
            close(consumers.size() - 1);
        }

        void pollAll() {
            for (KafkaConsumer<String, String> consumer : consumers) {
                consumer.poll(POLL);
            }
        }

        List<Set<Integer>> assignments() {
            return consumers.stream().map(c -> partitions(c.assignment())).toList();
        }

        /** Polls every member until their assignments (partition numbers, in member order) are exactly expected. */
        List<Set<Integer>> await(String what, List<Set<Integer>> expected) {
            List<Set<Integer>> got = await(what, expected::equals);
            assertEquals(expected, got, what);
            return got;
        }

        /** Polls every member until their assignments (partition numbers, in member order) satisfy done. */
        List<Set<Integer>> await(String what, Predicate<List<Set<Integer>>> done) {
            long deadline = System.nanoTime() + Clients.WAIT.toNanos();
            List<Set<Integer>> last = assignments();
            while (!done.test(last)) {
                if (System.nanoTime() >= deadline) {
                    fail(what + ": not reached within " + Clients.WAIT.toSeconds() + " s; last assignments " + last);
                }
                pollAll();
                last = assignments();
            }
            return last;
        }

        @Override
        public void close() {
            for (KafkaConsumer<String, String> consumer : consumers) {
                consumer.close(Duration.ofSeconds(5));
            }
            consumers.clear();
        }
    }

    /** What a member's rebalance listener was told, in order. */
    private static final class Rebalances implements ConsumerRebalanceListener {
        final List<String> events = new ArrayList<>();
        final Set<Integer> revoked = new HashSet<>();

        @Override
        public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
            if (!partitions.isEmpty()) {
                events.add("revoked " + partitions(partitions));
                revoked.addAll(partitions(partitions));
            }
        }

        @Override
        public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
            if (!partitions.isEmpty()) {
                events.add("assigned " + partitions(partitions));
            }
        }

        @Override
        public void onPartitionsLost(Collection<TopicPartition> partitions) {
            events.add("lost " + partitions(partitions));
        }

        void clear() {
            events.clear();
            revoked.clear();
        }
    }

    /** The members hold all 10 partitions, none twice, their shares differing in size by one at most. */
    private static boolean balancedOverTen(List<Set<Integer>> shares) {
        Set<Integer> union = new HashSet<>();
        int total = 0;
        for (Set<Integer> share : shares) {
            union.addAll(share);
            total += share.size();
        }
        int fewest = shares.stream().mapToInt(Set::size).min().orElse(0);
        int most = shares.stream().mapToInt(Set::size).max().orElse(0);
        return total == 10 && union.equals(range(0, 10)) && most - fewest <= 1;
    }

    private static boolean contiguous(Set<Integer> share) {
        return share.isEmpty() || maxOf(share) - minOf(share) == share.size() - 1;
    }

    /** Polls the members (so they keep heartbeating and reconciling) until describeConsumerGroups shows state. */
    private static ConsumerGroupDescription awaitGroupState(String group, GroupState state, Members members) throws Exception {
        long deadline = System.nanoTime() + Clients.WAIT.toNanos();
        ConsumerGroupDescription described = describe(group);
        while (described.groupState() != state) {
            if (System.nanoTime() >= deadline) {
                fail("group " + group + " not " + state + " within " + Clients.WAIT.toSeconds() + " s: " + described);
            }
            members.pollAll();
            described = describe(group);
        }
        return described;
    }

    private static void awaitAssignment(KafkaConsumer<String, String> member, Set<TopicPartition> expected) {
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (!member.assignment().equals(expected)) {
            if (System.nanoTime() >= deadline) {
                fail("assignment " + member.assignment() + ", want " + expected);
            }
            assertEquals(0, member.poll(POLL).count(), "records before any were written");
        }
    }

    private static Set<Integer> partitions(Collection<TopicPartition> partitions) {
        return partitions.stream().map(TopicPartition::partition).collect(Collectors.toCollection(TreeSet::new));
    }

    private static Set<Integer> range(int from, int to) {
        return IntStream.range(from, to).boxed().collect(Collectors.toCollection(TreeSet::new));
    }

    private static int minOf(Set<Integer> values) {
        return values.stream().mapToInt(Integer::intValue).min().orElseThrow();
    }

    private static int maxOf(Set<Integer> values) {
        return values.stream().mapToInt(Integer::intValue).max().orElseThrow();
    }

    private static List<String> values(int from, int to) {
        return IntStream.range(from, to).mapToObj(i -> "m" + i).toList();
    }

    private static String topicWithPartitions(String prefix, int partitions) throws Exception {
        String topic = Clients.topic(prefix);
        Clients.createTopic(admin, topic, partitions);
        return topic;
    }

    /** Writes m{from}..m{to-1} to one partition, checking they land at offsets from..to-1. */
    private static void produce(String topic, int partition, int from, int to) throws Exception {
        try (KafkaProducer<String, String> producer = Clients.producer(broker, Map.of())) {
            for (int i = from; i < to; i++) {
                assertEquals(i, producer.send(new ProducerRecord<>(topic, partition, null, "m" + i)).get().offset());
            }
        }
    }

    private static ConsumerGroupDescription describe(String group) throws Exception {
        return wait(admin.describeConsumerGroups(List.of(group)).describedGroups().get(group));
    }

    private static Map<TopicPartition, Long> committedOffsets(String group) throws Exception {
        return offsetsOf(wait(admin.listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata()));
    }

    private static Map<TopicPartition, Long> offsetsOf(Map<TopicPartition, OffsetAndMetadata> offsets) {
        Map<TopicPartition, Long> plain = new HashMap<>();
        offsets.forEach((partition, offset) -> plain.put(partition, offset == null ? null : offset.offset()));
        return plain;
    }

    private static <T> T wait(KafkaFuture<T> future) throws Exception {
        return future.get(Clients.WAIT.toSeconds(), TimeUnit.SECONDS);
    }

    private static void assertCause(Class<? extends Throwable> expected, KafkaFuture<?> future) {
        ExecutionException thrown = assertThrows(ExecutionException.class, () -> wait(future));
        assertInstanceOf(expected, thrown.getCause());
    }
}
