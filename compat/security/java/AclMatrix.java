// The ACL matrix (issue 18) with kafka-clients 4.4.0: for each API group an allowed principal
// (alice, granted by bindings) and a denied one (bob, granted nothing), asserting the exception
// (so the error code) each gets, and what Metadata leaves out; PREFIXED, LITERAL `*` and `User:*`
// bindings; a DENY beating an ALLOW; a super user (admin); allow.everyone.if.no.acl.found both
// ways (the acl group's broker says false, the aclopen group's true). SASL PLAIN users over
// SASL_PLAINTEXT; every resource is named java-*, so other clients' runs do not interfere.
//
// Run by ../run.py as a single-file program, like SecurityMatrix.java; each case appends its
// outcome to the results file, and the exit status is 1 if any failed.

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.DescribeClusterOptions;
import org.apache.kafka.clients.admin.NewPartitions;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.RecordsToDelete;
import org.apache.kafka.clients.admin.ScramCredentialInfo;
import org.apache.kafka.clients.admin.ScramMechanism;
import org.apache.kafka.clients.admin.UserScramCredentialUpsertion;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.ElectionType;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.acl.AccessControlEntry;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclBindingFilter;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.acl.AclPermissionType;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.errors.ClusterAuthorizationException;
import org.apache.kafka.common.errors.ElectionNotNeededException;
import org.apache.kafka.common.errors.GroupAuthorizationException;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.errors.TransactionalIdAuthorizationException;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourcePattern;
import org.apache.kafka.common.resource.ResourceType;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

public class AclMatrix {
    static final String CLIENT = "kafka-clients";
    static final String P = "java";
    static JsonNode config;
    static int failures;

    interface Case {
        void run() throws Exception;
    }

    interface Call {
        void call() throws Exception;
    }

    public static void main(String[] args) throws Exception {
        config = new ObjectMapper().readTree(Path.of(System.getenv("STRAND_SEC_CONFIG")).toFile());
        boolean ready = run("acl-setup", () -> setUp("acl"));
        String b = ready ? listener("acl") : null;
        String a = P + "-a-1";
        run("acl-produce", () -> {
            produce(b, "alice", a);
            expect(TopicAuthorizationException.class, () -> produce(b, "bob", a));
        });
        run("acl-produce-deny-beats-allow", () ->
                expect(TopicAuthorizationException.class, () -> produce(b, "alice", P + "-a-denied")));
        run("acl-consume-group", () -> {
            consume(b, "alice", P + "-g", a);
            // The topics are checked first (Metadata), then the group.
            expect(TopicAuthorizationException.class, () -> consume(b, "bob", P + "-g", a));
            expect(GroupAuthorizationException.class, () -> consume(b, "bob", P + "-g", P + "-open-1"));
        });
        run("acl-fetch-assigned", () -> expect(TopicAuthorizationException.class, () -> consume(b, "bob", null, a)));
        run("acl-metadata", () -> {
            try (Admin alice = admin(b, "alice"); Admin bob = admin(b, "bob")) {
                Set<String> seen = mine(alice.listTopics().names().get(30, TimeUnit.SECONDS));
                check(seen.containsAll(List.of(a, P + "-open-1")) && !seen.contains(P + "-b-1"), "alice lists " + seen);
                seen = mine(bob.listTopics().names().get(30, TimeUnit.SECONDS));
                check(seen.equals(Set.of(P + "-open-1")), "bob lists " + seen);
                // Never revealed: a topic that exists and one that does not, alike.
                for (String topic : List.of(P + "-b-1", P + "-nowhere")) {
                    expect(TopicAuthorizationException.class,
                            () -> bob.describeTopics(List.of(topic)).allTopicNames().get(30, TimeUnit.SECONDS));
                }
            }
        });
        run("acl-topic-admin", () -> {
            try (Admin alice = admin(b, "alice"); Admin bob = admin(b, "bob")) {
                alice.createTopics(List.of(new NewTopic(P + "-a-new", 1, (short) 1))).all().get(30, TimeUnit.SECONDS);
                expect(TopicAuthorizationException.class, () -> bob.createTopics(
                        List.of(new NewTopic(P + "-b-new", 1, (short) 1))).all().get(30, TimeUnit.SECONDS));
                alice.createPartitions(Map.of(P + "-a-new", NewPartitions.increaseTo(2))).all().get(30, TimeUnit.SECONDS);
                expect(TopicAuthorizationException.class, () -> bob.createPartitions(
                        Map.of(P + "-a-new", NewPartitions.increaseTo(3))).all().get(30, TimeUnit.SECONDS));
                expect(TopicAuthorizationException.class,
                        () -> bob.deleteTopics(List.of(P + "-a-new")).all().get(30, TimeUnit.SECONDS));
                alice.deleteTopics(List.of(P + "-a-new")).all().get(30, TimeUnit.SECONDS);
            }
        });
        run("acl-configs", () -> {
            try (Admin alice = admin(b, "alice"); Admin bob = admin(b, "bob")) {
                ConfigResource topic = new ConfigResource(ConfigResource.Type.TOPIC, a);
                ConfigResource broker = new ConfigResource(ConfigResource.Type.BROKER, "1");
                alice.describeConfigs(List.of(topic, broker)).all().get(30, TimeUnit.SECONDS);
                AlterConfigOp retention = new AlterConfigOp(new ConfigEntry("retention.ms", "3600000"), AlterConfigOp.OpType.SET);
                alice.incrementalAlterConfigs(Map.of(topic, List.of(retention))).all().get(30, TimeUnit.SECONDS);
                expect(TopicAuthorizationException.class,
                        () -> bob.describeConfigs(List.of(topic)).all().get(30, TimeUnit.SECONDS));
                expect(TopicAuthorizationException.class, () -> bob.incrementalAlterConfigs(
                        Map.of(topic, List.of(retention))).all().get(30, TimeUnit.SECONDS));
                expect(ClusterAuthorizationException.class,
                        () -> bob.describeConfigs(List.of(broker)).all().get(30, TimeUnit.SECONDS));
            }
        });
        run("acl-transactions", () -> {
            transaction(b, "alice", P + "-tx-1", a);
            expect(TransactionalIdAuthorizationException.class, () -> transaction(b, "bob", P + "-tx-2", a));
        });
        run("acl-delete-records", () -> {
            try (Admin alice = admin(b, "alice"); Admin bob = admin(b, "bob")) {
                Map<TopicPartition, RecordsToDelete> first = Map.of(new TopicPartition(a, 0), RecordsToDelete.beforeOffset(1));
                alice.deleteRecords(first).all().get(30, TimeUnit.SECONDS);
                expect(TopicAuthorizationException.class, () -> bob.deleteRecords(first).all().get(30, TimeUnit.SECONDS));
            }
        });
        run("acl-elections-reassignments", () -> {
            try (Admin alice = admin(b, "alice"); Admin bob = admin(b, "bob")) {
                Set<TopicPartition> partition = Set.of(new TopicPartition(a, 0));
                Map<TopicPartition, Optional<Throwable>> elected =
                        alice.electLeaders(ElectionType.PREFERRED, partition).partitions().get(30, TimeUnit.SECONDS);
                check(elected.values().stream().allMatch(e -> e.isPresent() && e.get() instanceof ElectionNotNeededException),
                        "alice's election: " + elected);
                expect(ClusterAuthorizationException.class,
                        () -> bob.electLeaders(ElectionType.PREFERRED, partition).partitions().get(30, TimeUnit.SECONDS));
                alice.listPartitionReassignments().reassignments().get(30, TimeUnit.SECONDS);
                expect(ClusterAuthorizationException.class,
                        () -> bob.listPartitionReassignments().reassignments().get(30, TimeUnit.SECONDS));
            }
        });
        run("acl-cluster-log-dirs", () -> {
            try (Admin alice = admin(b, "alice"); Admin bob = admin(b, "bob")) {
                DescribeClusterOptions withOperations = new DescribeClusterOptions().includeAuthorizedOperations(true);
                Set<AclOperation> ops = alice.describeCluster(withOperations).authorizedOperations().get(30, TimeUnit.SECONDS);
                check(ops.containsAll(List.of(AclOperation.ALTER, AclOperation.DESCRIBE)), "alice's cluster operations " + ops);
                ops = bob.describeCluster(withOperations).authorizedOperations().get(30, TimeUnit.SECONDS);
                check(ops.isEmpty(), "bob's cluster operations " + ops);
                alice.describeLogDirs(List.of(1)).allDescriptions().get(30, TimeUnit.SECONDS);
                expect(ClusterAuthorizationException.class,
                        () -> bob.describeLogDirs(List.of(1)).allDescriptions().get(30, TimeUnit.SECONDS));
            }
        });
        run("acl-scram-credentials", () -> {
            try (Admin alice = admin(b, "alice"); Admin bob = admin(b, "bob")) {
                alice.describeUserScramCredentials().all().get(30, TimeUnit.SECONDS);
                expect(ClusterAuthorizationException.class,
                        () -> bob.describeUserScramCredentials().all().get(30, TimeUnit.SECONDS));
                expect(ClusterAuthorizationException.class, () -> bob.alterUserScramCredentials(List.of(
                        new UserScramCredentialUpsertion("carol", new ScramCredentialInfo(ScramMechanism.SCRAM_SHA_256, 8192),
                                "carol-secret"))).all().get(30, TimeUnit.SECONDS));
            }
        });
        run("acl-super-user", () -> {
            produce(b, "admin", P + "-b-1");
            expect(TopicAuthorizationException.class, () -> produce(b, "alice", P + "-b-1"));
        });
        boolean open = run("aclopen-setup", () -> setUp("aclopen"));
        run("acl-allow-everyone-if-no-acl", () -> {
            String o = open ? listener("aclopen") : listener("acl");
            produce(o, "bob", P + "-b-1");
            expect(TopicAuthorizationException.class, () -> produce(o, "bob", a));
        });
        System.exit(failures == 0 ? 0 : 1);
    }

    /**
     * Topics java-a-1, java-a-denied, java-b-1 (no binding), java-open-1, and the bindings: alice
     * ALL on topics PREFIXED java-a but a DENY of WRITE on java-a-denied; User:* READ on
     * PREFIXED java-open; alice READ on every group (LITERAL *); alice WRITE on transactional ids
     * PREFIXED java-tx; alice ALTER, DESCRIBE, ALTER_CONFIGS, DESCRIBE_CONFIGS on the cluster.
     * Waits until bob is refused and alice allowed, the bindings being in the broker's image.
     */
    static void setUp(String group) throws Exception {
        String bootstrap = listener(group);
        try (Admin admin = admin(bootstrap, "admin")) {
            List<NewTopic> topics = new ArrayList<>();
            for (String t : List.of("-a-1", "-a-denied", "-b-1", "-open-1")) {
                topics.add(new NewTopic(P + t, 1, (short) 1));
            }
            for (var created : admin.createTopics(topics).values().values()) {
                try {
                    created.get(30, TimeUnit.SECONDS);
                } catch (ExecutionException e) {
                    // A second run against the same brokers (STRAND_SEC_HOLD).
                    if (!(e.getCause() instanceof TopicExistsException)) {
                        throw e;
                    }
                }
            }
            List<AclBinding> bindings = new ArrayList<>();
            bindings.add(allow(ResourceType.TOPIC, P + "-a", PatternType.PREFIXED, "User:alice", AclOperation.ALL));
            bindings.add(new AclBinding(new ResourcePattern(ResourceType.TOPIC, P + "-a-denied", PatternType.LITERAL),
                    new AccessControlEntry("User:alice", "*", AclOperation.WRITE, AclPermissionType.DENY)));
            bindings.add(allow(ResourceType.TOPIC, P + "-open", PatternType.PREFIXED, "User:*", AclOperation.READ));
            bindings.add(allow(ResourceType.GROUP, "*", PatternType.LITERAL, "User:alice", AclOperation.READ));
            bindings.add(allow(ResourceType.TRANSACTIONAL_ID, P + "-tx", PatternType.PREFIXED, "User:alice", AclOperation.WRITE));
            for (AclOperation op : List.of(AclOperation.ALTER, AclOperation.DESCRIBE, AclOperation.ALTER_CONFIGS,
                    AclOperation.DESCRIBE_CONFIGS)) {
                bindings.add(allow(ResourceType.CLUSTER, "kafka-cluster", PatternType.LITERAL, "User:alice", op));
            }
            admin.createAcls(bindings).all().get(30, TimeUnit.SECONDS);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            while (admin.describeAcls(AclBindingFilter.ANY).values().get(30, TimeUnit.SECONDS).size() < bindings.size()) {
                check(System.nanoTime() < deadline, "the bindings never showed");
                Thread.sleep(100);
            }
        }
    }

    static AclBinding allow(ResourceType type, String name, PatternType pattern, String principal, AclOperation op) {
        return new AclBinding(new ResourcePattern(type, name, pattern), new AccessControlEntry(principal, "*", op,
                AclPermissionType.ALLOW));
    }

    static Set<String> mine(Collection<String> topics) {
        return Set.copyOf(topics.stream().filter(t -> t.startsWith(P + "-")).toList());
    }

    static boolean run(String name, Case c) throws Exception {
        String outcome = "PASS";
        String detail = "";
        long start = System.nanoTime();
        try {
            c.run();
        } catch (Throwable t) {
            failures++;
            outcome = "FAIL";
            StringWriter trace = new StringWriter();
            t.printStackTrace(new PrintWriter(trace));
            System.out.println(trace);
            detail = (t instanceof IllegalStateException ? t.getMessage() : String.valueOf(t)).replaceAll("\\s+", " ");
        }
        System.out.printf("%s %s %s (%d ms)%n", CLIENT, name, outcome, TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start));
        Files.writeString(Path.of(config.get("results").asText()),
                String.join("\t", CLIENT, name, outcome, detail.length() > 300 ? detail.substring(0, 300) : detail) + "\n",
                StandardCharsets.UTF_8, StandardOpenOption.APPEND);
        return outcome.equals("PASS");
    }

    static void check(boolean ok, String what) {
        if (!ok) {
            throw new AssertionError(what);
        }
    }

    /** `call` fails with `expected` (however wrapped). */
    static void expect(Class<? extends Throwable> expected, Call call) throws Exception {
        try {
            call.call();
        } catch (Throwable t) {
            Throwable cause = t;
            while (cause != null && !expected.isInstance(cause)) {
                cause = cause.getCause();
            }
            if (cause == null) {
                throw new AssertionError("expected " + expected.getSimpleName() + ", got " + t, t);
            }
            return;
        }
        throw new AssertionError("expected " + expected.getSimpleName() + ", but it succeeded");
    }

    static String listener(String group) {
        JsonNode g = config.get("groups").get(group);
        if (!g.get("error").isNull()) {
            throw new IllegalStateException("the " + group + " group's broker did not start: " + g.get("error_line").asText());
        }
        return g.get("listeners").get("SASL_PLAINTEXT").asText();
    }

    static Properties as(String bootstrap, String user) {
        Properties p = new Properties();
        p.put("bootstrap.servers", bootstrap);
        p.put("security.protocol", "SASL_PLAINTEXT");
        p.put("sasl.mechanism", "PLAIN");
        p.put("sasl.jaas.config", "org.apache.kafka.common.security.plain.PlainLoginModule required username=\"" + user
                + "\" password=\"" + config.get("acl_users").get(user).asText() + "\";");
        p.put("request.timeout.ms", "10000");
        p.put("default.api.timeout.ms", "15000");
        return p;
    }

    static Admin admin(String bootstrap, String user) {
        return Admin.create(as(bootstrap, user));
    }

    /** One record to partition 0 of `topic`, not idempotent (no IDEMPOTENT_WRITE question). */
    static void produce(String bootstrap, String user, String topic) throws Exception {
        Properties p = as(bootstrap, user);
        p.put("enable.idempotence", "false");
        p.put("acks", "all");
        p.put("max.block.ms", "15000");
        p.put("delivery.timeout.ms", "15000");
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(p, new StringSerializer(), new StringSerializer())) {
            producer.send(new ProducerRecord<>(topic, 0, null, "by-" + user)).get(30, TimeUnit.SECONDS);
        }
    }

    /** A transaction writing one record, committed. */
    static void transaction(String bootstrap, String user, String id, String topic) throws Exception {
        Properties p = as(bootstrap, user);
        p.put("transactional.id", id);
        p.put("max.block.ms", "15000");
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(p, new StringSerializer(), new StringSerializer())) {
            producer.initTransactions();
            producer.beginTransaction();
            producer.send(new ProducerRecord<>(topic, 0, null, "txn-" + user)).get(30, TimeUnit.SECONDS);
            producer.commitTransaction();
        }
    }

    /** Reads partition 0 of `topic` from the start until a record arrives: subscribed in `group`, or assigned without one. */
    static void consume(String bootstrap, String user, String group, String topic) throws Exception {
        Properties p = as(bootstrap, user);
        if (group != null) {
            p.put("group.id", group);
        }
        p.put("auto.offset.reset", "earliest");
        p.put("enable.auto.commit", "false");
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(p, new StringDeserializer(), new StringDeserializer())) {
            if (group != null) {
                consumer.subscribe(List.of(topic));
            } else {
                consumer.assign(List.of(new TopicPartition(topic, 0)));
            }
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            while (true) {
                ConsumerRecords<String, String> records = consumer.poll(Duration.ofMillis(500));
                if (!records.isEmpty()) {
                    return;
                }
                check(System.nanoTime() < deadline, user + " read nothing from " + topic);
            }
        }
    }
}
