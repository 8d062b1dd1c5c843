package dev.strand.compat;

import static org.junit.jupiter.api.Assertions.fail;

import dev.strand.compat.MemberProcesses.Child;
import dev.strand.compat.MemberProcesses.Event;
import dev.strand.compat.MemberProcesses.Line;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Issue 5's churn test: 20 consumers in 4 classic groups (one topic of 12 partitions) joining,
 * leaving and being killed at random while a producer writes, for {@code -Dchurn.seconds} (20 by
 * default, as CI runs it; 60 for the full minute), from a seed ({@code -Dchurn.seed}, printed; it
 * fixes the random choices, though not the timing they meet).
 *
 * <p>The consumers live in 4 child JVMs ({@link GroupMemberProcess}, 5 each to start with): a
 * "leave" closes one consumer (LeaveGroup), a "join" starts one in a running child, a "kill" sends
 * SIGKILL to a whole child (at most one per session timeout) and starts a replacement child with as
 * many new consumers in the same groups. Every consumer reports each assignment with its
 * generation, member id and the leader's whole assignment of that generation (the assignor puts it
 * in every member's user data), and the test checks afterwards:
 * <ul>
 *   <li>within every generation of every group, all reporting members got the same leader's
 *       assignment, each its own share of it, and no partition went to two members; a generation
 *       whose members all reported covers all 12 partitions;</li>
 *   <li>every rebalance a member went through (from its revocation or partitions-lost to its next
 *       assignment) took at most twice the session timeout;</li>
 *   <li>a member told UNKNOWN_MEMBER_ID (the coordinator's log lines in the child) had a new
 *       assignment within twice the session timeout: none is stuck;</li>
 *   <li>after the churn stops, each group settles within twice the session timeout (and 5 s for
 *       a replacement JVM to start) on one generation whose members are exactly its live
 *       consumers, and their commits reach the end offsets of what the producer wrote.</li>
 * </ul>
 * The figures are printed at the end; every line of the children is written to
 * {@code target/churn-<broker>.log}.
 */
@ExtendWith(BrokerExtension.class)
class ChurnTest {
    private static final int GROUPS = 4;
    private static final int PARTITIONS = 12;
    private static final int CHILDREN = 4;
    private static final int MEMBERS_PER_CHILD = 5;
    private static final int MEMBERS_MIN = 16;
    private static final int MEMBERS_MAX = 24;
    private static final long SESSION_TIMEOUT_MS = GroupLivenessTest.SESSION_TIMEOUT_MS;
    private static final long REBALANCE_LIMIT_MS = 2 * SESSION_TIMEOUT_MS;
    private static final Pattern UNKNOWN_MEMBER = Pattern.compile("UNKNOWN_MEMBER_ID|The coordinator is not aware of this member");
    private static final Pattern CLIENT_ID = Pattern.compile("clientId=([^,\\]]+)");

    private final Map<String, Live> live = new LinkedHashMap<>();
    private final Map<String, Child> children = new LinkedHashMap<>();
    private final List<String> groups = new ArrayList<>();
    private int nextMember;
    private int nextChild;
    private int kills;
    private int killedMembers;
    private int leaves;
    private int joins;

    /** A consumer the test started and has neither closed nor killed. */
    private record Live(String name, String child, String group) {}

    @Test
    void consumersJoiningLeavingAndKilledAtRandomWhileAProducerWrites(Broker broker) throws Exception {
        long seconds = Long.getLong("churn.seconds", 20);
        long seed = Long.getLong("churn.seed", System.nanoTime());
        Random random = new Random(seed);
        System.out.printf("churn: broker %s, %d s, seed %d (rerun with -Dchurn.seed=%d -Dchurn.seconds=%d)%n",
            broker.kind().name().toLowerCase(), seconds, seed, seed, seconds);
        String topic = Clients.topic("churn");
        try (Admin admin = Clients.admin(broker)) {
            Clients.createTopic(admin, topic, PARTITIONS);
        }
        for (int g = 0; g < GROUPS; g++) {
            groups.add(Clients.topic("churn-g" + g));
        }
        Map<String, Object> settings = GroupLivenessTest.liveness(Map.of(
            ConsumerConfig.MAX_POLL_INTERVAL_MS_CONFIG, 30_000,
            ConsumerConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 10_000,
            ConsumerConfig.REQUEST_TIMEOUT_MS_CONFIG, 5_000,
            ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, 100));
        List<String> problems = new ArrayList<>();
        AtomicBoolean producing = new AtomicBoolean(true);
        AtomicLong produced = new AtomicLong();
        AtomicReference<Exception> producerFailure = new AtomicReference<>();
        MemberProcesses processes = new MemberProcesses(broker, settings);
        Thread producer = new Thread(() -> {
            try {
                produce(broker, topic, producing, produced);
            } catch (Exception e) {
                producerFailure.set(e);
            }
        }, "churn-producer");
        try {
            producer.start();
            for (int c = 0; c < CHILDREN; c++) {
                Child child = startChild(processes);
                for (int m = 0; m < MEMBERS_PER_CHILD; m++) {
                    startMember(child, groups.get((c * MEMBERS_PER_CHILD + m) % GROUPS), topic);
                }
            }
            settle(processes, "the first generation", problems);

            long start = System.nanoTime();
            long end = start + TimeUnit.SECONDS.toNanos(seconds);
            long lastKill = start;
            while (System.nanoTime() < end) {
                // Churn at random moments: a pace, not a wait for something.
                Thread.sleep(500 + random.nextInt(1000));
                double draw = random.nextDouble();
                boolean coin = random.nextBoolean();
                boolean killDue = kills == 0 && System.nanoTime() - start > (end - start) / 2;
                boolean killAllowed = System.nanoTime() - lastKill >= TimeUnit.MILLISECONDS.toNanos(SESSION_TIMEOUT_MS);
                if (killAllowed && (killDue || draw < 0.15)) {
                    kill(processes, random, topic);
                    lastKill = System.nanoTime();
                } else if (live.size() < MEMBERS_MAX && (live.size() <= MEMBERS_MIN || coin)) {
                    join(random, topic);
                } else {
                    leave(random);
                }
            }
            producing.set(false);
            producer.join(30_000);
            if (producerFailure.get() != null) {
                problems.add("the producer failed: " + producerFailure.get());
            }
            settle(processes, "after the churn", problems);
            awaitCommitsAtEnd(broker, topic, problems);
        } finally {
            producing.set(false);
            producer.join(30_000);
            processes.close();
        }
        Path transcript = writeTranscript(broker, processes);
        analyse(processes.events(), processes.lines(), produced.get(), problems);
        if (!problems.isEmpty()) {
            fail(problems.size() + " problem(s) (every child's output: " + transcript.toAbsolutePath() + "):\n"
                + String.join("\n", problems.subList(0, Math.min(problems.size(), 40))));
        }
    }

    // --- churn --------------------------------------------------------------------------------------

    private Child startChild(MemberProcesses processes) throws IOException {
        Child child = processes.start("p" + nextChild++);
        children.put(child.id, child);
        return child;
    }

    private void startMember(Child child, String group, String topic) throws IOException {
        String name = "c" + nextMember++ + "-g" + groups.indexOf(group);
        live.put(name, new Live(name, child.id, group));
        child.send("start " + name + " " + group + " " + topic);
    }

    /** A new consumer in the group with the fewest, in a random running child. */
    private void join(Random random, String topic) throws IOException {
        Map<String, Integer> sizes = groupSizes();
        int fewest = sizes.values().stream().min(Integer::compare).orElseThrow();
        List<String> smallest = groups.stream().filter(g -> sizes.get(g) == fewest).toList();
        List<Child> running = children.values().stream().filter(Child::alive).toList();
        startMember(running.get(random.nextInt(running.size())), smallest.get(random.nextInt(smallest.size())), topic);
        joins++;
    }

    /** Closes a random consumer of a group that keeps two at least. */
    private void leave(Random random) throws IOException {
        Map<String, Integer> sizes = groupSizes();
        List<Live> candidates = live.values().stream().filter(m -> sizes.get(m.group()) > 2).toList();
        if (candidates.isEmpty()) {
            return;
        }
        Live member = candidates.get(random.nextInt(candidates.size()));
        live.remove(member.name());
        children.get(member.child()).send("close " + member.name());
        leaves++;
    }

    /** SIGKILL to a random child; a new child starts as many new consumers in the same groups. */
    private void kill(MemberProcesses processes, Random random, String topic) throws Exception {
        List<Child> running = children.values().stream().filter(Child::alive).toList();
        Child victim = running.get(random.nextInt(running.size()));
        victim.kill();
        List<Live> dead = live.values().stream().filter(m -> m.child().equals(victim.id)).toList();
        dead.forEach(m -> live.remove(m.name()));
        kills++;
        killedMembers += dead.size();
        Child replacement = startChild(processes);
        for (Live member : dead) {
            startMember(replacement, member.group(), topic);
        }
    }

    private Map<String, Integer> groupSizes() {
        Map<String, Integer> sizes = new HashMap<>();
        groups.forEach(g -> sizes.put(g, 0));
        live.values().forEach(m -> sizes.merge(m.group(), 1, Integer::sum));
        return sizes;
    }

    /** Writes to every partition in turn, a batch of 12 about every 20 ms, until told to stop. */
    private static void produce(Broker broker, String topic, AtomicBoolean producing, AtomicLong produced) throws Exception {
        try (KafkaProducer<String, String> producer = Clients.producer(broker, Map.of(ProducerConfig.LINGER_MS_CONFIG, 5))) {
            long n = 0;
            while (producing.get()) {
                Future<RecordMetadata> last = null;
                for (int p = 0; p < PARTITIONS; p++) {
                    last = producer.send(new ProducerRecord<>(topic, p, null, "r" + n++));
                }
                last.get(Clients.WAIT.toSeconds(), TimeUnit.SECONDS);
                produced.set(n);
                Thread.sleep(20);
            }
            producer.flush();
        }
    }

    // --- settling ------------------------------------------------------------------------------------

    /**
     * Waits (twice the session timeout, plus a few seconds for new JVMs to start) until each group's
     * live consumers all last reported an assignment of one generation whose leader's assignment
     * names exactly them.
     */
    private void settle(MemberProcesses processes, String when, List<String> problems) throws InterruptedException {
        long started = System.currentTimeMillis();
        long deadline = started + REBALANCE_LIMIT_MS + 5_000;
        List<Event> events = processes.events();
        String unsettled = unsettled(events);
        while (unsettled != null && System.currentTimeMillis() < deadline) {
            processes.awaitEvents(events.size() + 1, Duration.ofMillis(deadline - System.currentTimeMillis()));
            events = processes.events();
            unsettled = unsettled(events);
        }
        if (unsettled != null) {
            problems.add("groups not settled " + when + " within " + (deadline - started) + " ms: " + unsettled);
        } else {
            System.out.printf("churn: groups settled %s in %d ms%n", when, System.currentTimeMillis() - started);
        }
    }

    /** Why some group is not settled, or null. */
    private String unsettled(List<Event> events) {
        Map<String, Event> last = new HashMap<>();
        for (Event e : events) {
            if (e.type().equals("assigned") || e.type().equals("revoked") || e.type().equals("lost")) {
                last.put(e.name(), e);
            }
        }
        for (String group : groups) {
            List<Live> members = live.values().stream().filter(m -> m.group().equals(group)).toList();
            Set<Integer> generations = new TreeSet<>();
            Set<String> memberIds = new TreeSet<>();
            String table = null;
            for (Live member : members) {
                Event e = last.get(member.name());
                if (e == null || !e.type().equals("assigned")) {
                    return group + ": " + member.name() + " last " + (e == null ? "reported nothing" : e.type());
                }
                generations.add(e.generation());
                memberIds.add(e.memberId());
                table = e.extra();
            }
            if (generations.size() > 1) {
                return group + ": live members in generations " + generations;
            }
            if (table != null && !decode(table).keySet().equals(memberIds)) {
                return group + ": generation " + generations + " has members " + decode(table).keySet()
                    + ", the live ones are " + memberIds;
            }
        }
        return null;
    }

    /** Each group's committed offsets reach the end offsets (its consumers commit what they poll). */
    private void awaitCommitsAtEnd(Broker broker, String topic, List<String> problems) throws Exception {
        try (Admin admin = Clients.admin(broker)) {
            Map<TopicPartition, OffsetSpec> latest = IntStream.range(0, PARTITIONS).boxed()
                .collect(Collectors.toMap(p -> new TopicPartition(topic, p), p -> OffsetSpec.latest()));
            Map<TopicPartition, Long> end = new HashMap<>();
            admin.listOffsets(latest).all().get(Clients.WAIT.toSeconds(), TimeUnit.SECONDS)
                .forEach((partition, info) -> end.put(partition, info.offset()));
            for (String group : groups) {
                long deadline = System.nanoTime() + Clients.WAIT.toNanos();
                Map<TopicPartition, Long> committed = committed(admin, group);
                while (!committed.equals(end) && System.nanoTime() < deadline) {
                    Thread.sleep(100);
                    committed = committed(admin, group);
                }
                if (!committed.equals(end)) {
                    problems.add(group + ": committed offsets " + new TreeMap<>(byPartition(committed))
                        + " never reached the end offsets " + new TreeMap<>(byPartition(end)));
                }
            }
        }
    }

    private static Map<TopicPartition, Long> committed(Admin admin, String group) throws Exception {
        Map<TopicPartition, OffsetAndMetadata> offsets = admin.listConsumerGroupOffsets(group)
            .partitionsToOffsetAndMetadata().get(Clients.WAIT.toSeconds(), TimeUnit.SECONDS);
        Map<TopicPartition, Long> plain = new HashMap<>();
        offsets.forEach((partition, offset) -> plain.put(partition, offset == null ? null : offset.offset()));
        return plain;
    }

    private static Map<Integer, Long> byPartition(Map<TopicPartition, Long> offsets) {
        Map<Integer, Long> plain = new HashMap<>();
        offsets.forEach((partition, offset) -> plain.put(partition.partition(), offset));
        return plain;
    }

    // --- analysis ------------------------------------------------------------------------------------

    private void analyse(List<Event> events, List<Line> lines, long produced, List<String> problems) {
        Set<Integer> all = IntStream.range(0, PARTITIONS).boxed().collect(Collectors.toSet());
        int doubleOwned = 0;
        Map<String, int[]> generationCounts = new TreeMap<>();

        // Per group and generation: one leader's assignment, each member its share, no partition twice.
        Map<String, Map<Integer, List<Event>>> byGeneration = new TreeMap<>();
        for (Event e : events) {
            if (e.type().equals("assigned")) {
                byGeneration.computeIfAbsent(e.group(), g -> new TreeMap<>())
                    .computeIfAbsent(e.generation(), g -> new ArrayList<>()).add(e);
            }
        }
        for (var group : byGeneration.entrySet()) {
            int completed = 0;
            for (var generation : group.getValue().entrySet()) {
                String where = group.getKey() + " generation " + generation.getKey();
                List<Event> reports = generation.getValue();
                Set<String> tables = reports.stream().map(Event::extra).collect(Collectors.toSet());
                if (tables.size() != 1 || tables.contains("none")) {
                    problems.add(where + ": members reported different leader assignments: " + describe(reports));
                    continue;
                }
                Map<String, Set<Integer>> table = decode(tables.iterator().next());
                List<Integer> assigned = table.values().stream().flatMap(Set::stream).toList();
                if (assigned.size() != new HashSet<>(assigned).size() || !new HashSet<>(assigned).equals(all)) {
                    problems.add(where + ": the leader's assignment " + table + " is not a partition of 0-" + (PARTITIONS - 1));
                }
                Map<Integer, String> owners = new HashMap<>();
                Set<String> reported = new HashSet<>();
                for (Event e : reports) {
                    if (!reported.add(e.memberId())) {
                        problems.add(where + ": member " + e.memberId() + " (" + e.name() + ") reported twice");
                    }
                    if (!e.partitions().equals(table.get(e.memberId()))) {
                        problems.add(where + ": " + e.name() + " (" + e.memberId() + ") holds " + e.partitions()
                            + ", the leader gave it " + table.get(e.memberId()));
                    }
                    for (int p : e.partitions()) {
                        String other = owners.put(p, e.name());
                        if (other != null) {
                            doubleOwned++;
                            problems.add(where + ": partition " + p + " owned by " + other + " and " + e.name());
                        }
                    }
                }
                if (reported.equals(table.keySet())) {
                    completed++;
                    if (!owners.keySet().equals(all)) {
                        problems.add(where + ": every member reported, yet partitions " + owners.keySet() + " are owned");
                    }
                }
            }
            generationCounts.put(group.getKey(), new int[] {group.getValue().size(), completed,
                group.getValue().keySet().stream().mapToInt(Integer::intValue).max().orElse(0)});
        }

        // Per member: generations only grow; each rebalance it went through (revoked or lost, then
        // assigned again) took at most twice the session timeout; no error events.
        Map<String, List<Event>> byMember = new LinkedHashMap<>();
        for (Event e : events) {
            byMember.computeIfAbsent(e.name(), n -> new ArrayList<>()).add(e);
        }
        long longest = 0;
        String longestWhere = "-";
        int rebalances = 0;
        long longestJoin = 0;
        Map<String, Integer> commitFailures = new TreeMap<>();
        for (var member : byMember.entrySet()) {
            long pendingSince = -1;
            long startedAt = -1;
            int generation = -1;
            for (Event e : member.getValue()) {
                switch (e.type()) {
                    case "started" -> startedAt = e.at();
                    case "revoked", "lost" -> {
                        if (pendingSince < 0) {
                            pendingSince = e.at();
                        }
                    }
                    case "assigned" -> {
                        if (e.generation() <= generation) {
                            problems.add(member.getKey() + ": generation " + e.generation() + " after " + generation);
                        }
                        generation = e.generation();
                        if (pendingSince >= 0) {
                            long took = e.at() - pendingSince;
                            rebalances++;
                            if (took > longest) {
                                longest = took;
                                longestWhere = member.getKey() + " into generation " + e.generation() + " of " + e.group();
                            }
                            if (took > REBALANCE_LIMIT_MS) {
                                problems.add(member.getKey() + ": rebalance into generation " + e.generation() + " of "
                                    + e.group() + " took " + took + " ms, more than " + REBALANCE_LIMIT_MS);
                            }
                            pendingSince = -1;
                        } else if (startedAt >= 0) {
                            longestJoin = Math.max(longestJoin, e.at() - startedAt);
                            startedAt = -1;
                        }
                    }
                    case "closing" -> pendingSince = -1;
                    case "commit-failed" -> commitFailures.merge(e.extra(), 1, Integer::sum);
                    case "error", "malformed" -> problems.add(member.getKey() + ": " + e.type() + " " + e.extra());
                    default -> { }
                }
            }
        }

        // UNKNOWN_MEMBER_ID in a member's coordinator log: a new assignment must follow in time.
        int unknownMember = 0;
        long longestUnknown = 0;
        Map<String, List<Line>> byChild = new HashMap<>();
        lines.forEach(line -> byChild.computeIfAbsent(line.child(), c -> new ArrayList<>()).add(line));
        for (List<Line> childLines : byChild.values()) {
            for (int i = 0; i < childLines.size(); i++) {
                Line line = childLines.get(i);
                if (line.text().startsWith("EV ") || !UNKNOWN_MEMBER.matcher(line.text()).find()) {
                    continue;
                }
                Matcher client = CLIENT_ID.matcher(line.text());
                String name = client.find() ? client.group(1) : "?";
                unknownMember++;
                Long recoveredAt = null;
                boolean ended = false;
                for (int j = i + 1; j < childLines.size() && recoveredAt == null && !ended; j++) {
                    String[] f = childLines.get(j).text().split(" ");
                    if (f.length == 9 && f[0].equals("EV") && f[2].equals(name)) {
                        if (f[3].equals("assigned")) {
                            recoveredAt = Long.parseLong(f[1]);
                        } else if (f[3].equals("closing")) {
                            ended = true;
                        }
                    }
                }
                if (recoveredAt != null) {
                    long took = Math.max(0, recoveredAt - line.at());
                    longestUnknown = Math.max(longestUnknown, took);
                    if (took > REBALANCE_LIMIT_MS) {
                        problems.add(name + ": assigned again " + took + " ms after UNKNOWN_MEMBER_ID: " + line.text());
                    }
                } else if (!ended && live.containsKey(name)) {
                    problems.add(name + ": never assigned again after UNKNOWN_MEMBER_ID: " + line.text());
                }
            }
        }

        System.out.printf("churn: %d groups on %d partitions, %d consumers to start with; %d joined, %d left,"
            + " %d children killed (%d consumers, replaced), %d records produced%n",
            GROUPS, PARTITIONS, CHILDREN * MEMBERS_PER_CHILD, joins, leaves, kills, killedMembers, produced);
        generationCounts.forEach((group, counts) -> System.out.printf(
            "churn: %s: %d generations reported (%d with every member reporting), last generation %d%n",
            group, counts[0], counts[1], counts[2]));
        System.out.printf("churn: %d rebalances measured, longest %d ms (%s; limit %d ms = 2 x session.timeout.ms)%n",
            rebalances, longest, longestWhere, REBALANCE_LIMIT_MS);
        System.out.printf("churn: longest join (consumer started to first assignment) %d ms%n", longestJoin);
        System.out.printf("churn: partitions double-owned within a generation: %d%n", doubleOwned);
        System.out.printf("churn: UNKNOWN_MEMBER_ID log lines: %d (longest until assigned again: %d ms)%n",
            unknownMember, longestUnknown);
        System.out.printf("churn: failed commits: %s%n", commitFailures.isEmpty() ? "none" : commitFailures);
    }

    private static Map<String, Set<Integer>> decode(String table) {
        Map<String, Set<Integer>> shares = new TreeMap<>();
        if (table.equals("none") || table.equals("-")) {
            return shares;
        }
        String text = new String(Base64.getDecoder().decode(table), StandardCharsets.UTF_8);
        for (String row : text.split("\n")) {
            if (row.isEmpty()) {
                continue;
            }
            int eq = row.lastIndexOf('=');
            String partitions = row.substring(eq + 1);
            shares.put(row.substring(0, eq), partitions.equals("-") ? Set.of()
                : Arrays.stream(partitions.split(",")).map(Integer::valueOf)
                    .collect(Collectors.toCollection(TreeSet::new)));
        }
        return shares;
    }

    private static String describe(List<Event> reports) {
        return reports.stream().map(e -> e.name() + "=" + e.partitions() + " " + decode(e.extra()))
            .collect(Collectors.joining("; "));
    }

    private static Path writeTranscript(Broker broker, MemberProcesses processes) throws IOException {
        Path file = Path.of("target", "churn-" + broker.kind().name().toLowerCase() + ".log");
        Files.createDirectories(file.getParent());
        List<String> text = processes.lines().stream()
            .sorted(Comparator.comparingLong(Line::at))
            .map(line -> line.at() + " " + line.child() + "| " + line.text()).toList();
        Files.write(file, text, StandardCharsets.UTF_8);
        return file;
    }
}
