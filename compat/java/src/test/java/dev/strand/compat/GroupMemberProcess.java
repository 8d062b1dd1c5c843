package dev.strand.compat;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Collectors;
import org.apache.kafka.clients.consumer.CommitFailedException;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerGroupMetadata;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.RangeAssignor;
import org.apache.kafka.common.Cluster;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.RebalanceInProgressException;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.StringDeserializer;

/**
 * A child JVM hosting consumers of classic groups, for the tests that kill group members with
 * SIGKILL ({@link GroupLivenessTest}, {@link ChurnTest}); {@link MemberProcesses} starts it with the
 * test classpath and talks to it.
 *
 * <p>Arguments: the bootstrap address, then {@code key=value} consumer settings for every consumer
 * it hosts. Commands on stdin, one a line:
 * <pre>
 *   start NAME GROUP TOPIC   a consumer with client.id NAME subscribes to TOPIC in GROUP, then polls
 *                            (100 ms) and commitSyncs after every non-empty poll until closed
 *   close NAME               closes it (the classic protocol's LeaveGroup), on its own thread
 *   exit                     closes them all and exits (so does the end of stdin: the test is gone)
 * </pre>
 * Events on stdout, one a line, fields separated by a space:
 * <pre>
 *   EV epochMillis NAME TYPE GROUP GENERATION MEMBER_ID PARTITIONS ASSIGNMENT
 * </pre>
 * TYPE is {@code started}, {@code assigned}, {@code revoked}, {@code lost}, {@code commit-failed},
 * {@code error}, {@code closing} or {@code closed}; PARTITIONS the partition numbers (comma
 * separated, {@code -} for none: for {@code assigned} the whole new assignment); ASSIGNMENT, on
 * {@code assigned} only, the leader's whole assignment of that generation as
 * {@link RecordingRangeAssignor} sent it, base64 of {@code memberId=p,p,...} lines. The consumer
 * coordinator's own log lines (slf4j-simple, at the level the command line sets) are written to
 * stdout too, between the events, so that a test can see errors such as UNKNOWN_MEMBER_ID.
 */
public final class GroupMemberProcess {
    private static final Map<String, Member> MEMBERS = new ConcurrentHashMap<>();

    private GroupMemberProcess() {}

    public static void main(String[] args) throws Exception {
        String bootstrap = args[0];
        Map<String, Object> settings = new HashMap<>();
        for (int i = 1; i < args.length; i++) {
            String[] pair = args[i].split("=", 2);
            settings.put(pair[0], pair[1]);
        }
        BufferedReader commands = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        String line;
        while ((line = commands.readLine()) != null) {
            String[] words = line.trim().split(" ");
            switch (words[0]) {
                case "start" -> {
                    Member member = new Member(words[1], words[2], words[3], bootstrap, settings);
                    MEMBERS.put(member.name, member);
                    member.thread.start();
                }
                case "close" -> {
                    // The member's own thread closes it, so that this loop takes the next command at once.
                    Member member = MEMBERS.remove(words[1]);
                    if (member != null) {
                        member.requestClose();
                    }
                }
                case "exit" -> {
                    closeAll();
                    System.exit(0);
                }
                default -> throw new IllegalArgumentException("unknown command: " + line);
            }
        }
        closeAll();
        System.exit(0);
    }

    private static void closeAll() throws InterruptedException {
        List<Member> members = new ArrayList<>(MEMBERS.values());
        MEMBERS.clear();
        members.forEach(Member::requestClose);
        for (Member member : members) {
            member.thread.join(20_000);
        }
    }

    static synchronized void event(String name, String type, String group, ConsumerGroupMetadata metadata,
            Collection<TopicPartition> partitions, String assignment) {
        System.out.println("EV " + System.currentTimeMillis() + " " + name + " " + type + " " + group + " "
            + (metadata == null ? -1 : metadata.generationId()) + " "
            + (metadata == null || metadata.memberId().isEmpty() ? "-" : metadata.memberId()) + " "
            + partitionList(partitions) + " " + (assignment == null ? "-" : assignment));
        System.out.flush();
    }

    private static String partitionList(Collection<TopicPartition> partitions) {
        if (partitions == null || partitions.isEmpty()) {
            return "-";
        }
        return partitions.stream().map(TopicPartition::partition).collect(Collectors.toCollection(TreeSet::new))
            .stream().map(String::valueOf).collect(Collectors.joining(","));
    }

    /** One consumer on a thread of its own. */
    private static final class Member implements ConsumerRebalanceListener {
        final String name;
        final String group;
        final String topic;
        final KafkaConsumer<String, String> consumer;
        final Thread thread;
        private volatile boolean closing;

        Member(String name, String group, String topic, String bootstrap, Map<String, Object> settings) {
            this.name = name;
            this.group = group;
            this.topic = topic;
            Map<String, Object> config = new HashMap<>(settings);
            config.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
            config.put(ConsumerConfig.GROUP_ID_CONFIG, group);
            config.put(ConsumerConfig.CLIENT_ID_CONFIG, name);
            config.put(ConsumerConfig.GROUP_PROTOCOL_CONFIG, "classic");
            config.put(ConsumerConfig.PARTITION_ASSIGNMENT_STRATEGY_CONFIG, RecordingRangeAssignor.class.getName());
            config.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
            config.putIfAbsent(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
            config.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class);
            config.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class);
            this.consumer = new KafkaConsumer<>(config);
            this.thread = new Thread(this::run, "member-" + name);
        }

        void requestClose() {
            closing = true;
            consumer.wakeup();
        }

        private void run() {
            consumer.subscribe(List.of(topic), this);
            event(name, "started", group, null, null, null);
            while (!closing) {
                try {
                    ConsumerRecords<String, String> records = consumer.poll(Duration.ofMillis(100));
                    if (!records.isEmpty()) {
                        consumer.commitSync();
                    }
                } catch (WakeupException e) {
                    // close requested
                } catch (CommitFailedException | RebalanceInProgressException e) {
                    event(name, "commit-failed", group, consumer.groupMetadata(), null, e.getClass().getSimpleName());
                } catch (RuntimeException e) {
                    event(name, "error", group, null, null,
                        e.getClass().getSimpleName() + ":" + String.valueOf(e.getMessage()).replaceAll("\\s", "_"));
                }
            }
            event(name, "closing", group, consumer.groupMetadata(), null, null);
            try {
                consumer.close(Duration.ofSeconds(10));
            } catch (RuntimeException e) {
                event(name, "error", group, null, null, e.getClass().getSimpleName());
            }
            event(name, "closed", group, null, null, null);
        }

        @Override
        public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
            event(name, "revoked", group, consumer.groupMetadata(), partitions, null);
        }

        @Override
        public void onPartitionsLost(Collection<TopicPartition> partitions) {
            event(name, "lost", group, consumer.groupMetadata(), partitions, null);
        }

        @Override
        public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
            // The assignor's onAssignment ran just before, on this thread.
            String assignment = RecordingRangeAssignor.LAST.get();
            RecordingRangeAssignor.LAST.remove();
            event(name, "assigned", group, consumer.groupMetadata(), consumer.assignment(), assignment);
        }
    }

    /**
     * The range assignor, with the leader's whole assignment of the generation put in every
     * member's assignment user data: each member can then report what the leader gave everybody,
     * and the test can check that the coordinator handed every member the same leader's assignment.
     */
    public static final class RecordingRangeAssignor extends RangeAssignor {
        /** The whole assignment the last onAssignment on this thread received (base64). */
        static final ThreadLocal<String> LAST = new ThreadLocal<>();

        @Override
        public String name() {
            return "compat-recording-range";
        }

        @Override
        public GroupAssignment assign(Cluster metadata, GroupSubscription subscriptions) {
            GroupAssignment assignment = super.assign(metadata, subscriptions);
            StringBuilder table = new StringBuilder();
            assignment.groupAssignment().forEach((member, share) ->
                table.append(member).append('=').append(partitionList(share.partitions())).append('\n'));
            byte[] bytes = table.toString().getBytes(StandardCharsets.UTF_8);
            Map<String, Assignment> recorded = new HashMap<>();
            assignment.groupAssignment().forEach((member, share) ->
                recorded.put(member, new Assignment(share.partitions(), ByteBuffer.wrap(bytes))));
            return new GroupAssignment(recorded);
        }

        @Override
        public void onAssignment(Assignment assignment, ConsumerGroupMetadata metadata) {
            ByteBuffer data = assignment.userData();
            if (data == null) {
                LAST.set("none");
                return;
            }
            byte[] bytes = new byte[data.remaining()];
            data.duplicate().get(bytes);
            LAST.set(Base64.getEncoder().encodeToString(bytes));
        }
    }
}
