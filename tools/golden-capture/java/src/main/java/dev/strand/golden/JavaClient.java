package dev.strand.golden;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.Future;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.FeatureUpdate;
import org.apache.kafka.clients.admin.NewPartitions;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.RecordsToDelete;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerGroupMetadata;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * Drives the official Java client (producer, transactional producer, classic and
 * KIP-848 consumers, Admin) against a broker so that the recording proxy in front
 * of it can capture golden wire frames.
 *
 * <p>Usage: {@code JavaClient <bootstrap>}. Exits non-zero if a required step fails;
 * optional admin calls only log their failure (their frames are still useful).
 */
public final class JavaClient {
    private static final String TOPIC = "golden-java";
    private static final String SCRATCH = "golden-java-scratch";
    private static final String TXN_ID_V1 = "golden-java-txn-v1";
    private static final String TXN_ID_V2 = "golden-java-txn-v2";
    private static final String CLASSIC_GROUP = "golden-java-classic";
    private static final String CONSUMER_GROUP = "golden-java-kip848";
    private static final Duration POLL_DEADLINE = Duration.ofSeconds(40);

    private final String bootstrap;

    private JavaClient(String bootstrap) {
        this.bootstrap = bootstrap;
    }

    public static void main(String[] args) throws Exception {
        if (args.length != 1) {
            System.err.println("usage: JavaClient <bootstrap>");
            System.exit(2);
        }
        new JavaClient(args[0]).run();
        log("done");
    }

    private static void log(String msg) {
        System.out.println("[java] " + msg);
        System.out.flush();
    }

    private Properties common(String clientId) {
        Properties p = new Properties();
        p.put("bootstrap.servers", bootstrap);
        p.put("client.id", clientId);
        p.put("request.timeout.ms", "10000");
        p.put("reconnect.backoff.ms", "50");
        p.put("reconnect.backoff.max.ms", "500");
        p.put("retry.backoff.ms", "50");
        p.put("retry.backoff.max.ms", "500");
        return p;
    }

    private void run() throws Exception {
        Properties ap = common("golden-java-admin");
        ap.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, "20000");
        try (Admin admin = Admin.create(ap)) {
            setUpTopics(admin);

            int expected = 0;
            expected += produce("golden-java-gzip", "gzip", true, 10, 0);
            expected += produce("golden-java-zstd", "zstd", true, 10, 10);
            expected += produce("golden-java-plain", "none", false, 5, 20);

            // The storage was formatted with transaction.version=1, so this producer
            // uses the classic protocol: AddPartitionsToTxn, AddOffsetsToTxn,
            // TxnOffsetCommit, EndTxn.
            expected += transactional(TXN_ID_V1, "gzip", 100);
            // Upgrade to transaction.version=2 (KIP-890) and run a second producer,
            // which then relies on implicit partition registration.
            optional("UpdateFeatures transaction.version=2", () -> admin.updateFeatures(
                    Map.of("transaction.version", new FeatureUpdate((short) 2, FeatureUpdate.UpgradeType.UPGRADE)))
                    .all().get());
            expected += transactional(TXN_ID_V2, "zstd", 200);

            consume("golden-java-classic-consumer", CLASSIC_GROUP, "classic", expected);
            consume("golden-java-kip848-consumer", CONSUMER_GROUP, "consumer", expected);

            inspect(admin);
        }
    }

    private void setUpTopics(Admin admin) throws Exception {
        admin.createTopics(List.of(new NewTopic(TOPIC, 3, (short) 1), new NewTopic(SCRATCH, 1, (short) 1)))
                .all().get();
        log("created topics " + TOPIC + ", " + SCRATCH);
        log("topics: " + admin.listTopics().names().get());
        log("describe: " + admin.describeTopics(List.of(TOPIC)).allTopicNames().get().get(TOPIC).partitions().size()
                + " partitions");
        log("cluster: " + admin.describeCluster().clusterId().get() + " nodes=" + admin.describeCluster().nodes().get());
        ConfigResource topicRes = new ConfigResource(ConfigResource.Type.TOPIC, TOPIC);
        optional("DescribeConfigs", () -> admin.describeConfigs(List.of(topicRes)).all().get());
        optional("IncrementalAlterConfigs", () -> admin.incrementalAlterConfigs(Map.of(topicRes, List.of(
                new AlterConfigOp(new ConfigEntry("retention.ms", "86400000"), AlterConfigOp.OpType.SET))))
                .all().get());
        optional("CreatePartitions", () -> admin.createPartitions(Map.of(SCRATCH, NewPartitions.increaseTo(2)))
                .all().get());
        optional("DescribeFeatures", () -> admin.describeFeatures().featureMetadata().get());
    }

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    /** Builds record {@code i}: keyed, with headers; a few edge cases sprinkled in. */
    private static ProducerRecord<byte[], byte[]> record(String topic, int i, String codec) {
        byte[] key = i % 7 == 3 ? null : utf8("java-key-" + i);
        byte[] value = i % 9 == 8 ? null : utf8("java value " + i + " codec=" + codec + " " + "x".repeat(i % 5 * 10));
        ProducerRecord<byte[], byte[]> r = new ProducerRecord<>(topic, i % 3, key, value);
        r.headers().add(new RecordHeader("client", utf8("java")));
        r.headers().add(new RecordHeader("seq", ByteBuffer.allocate(4).putInt(i).array()));
        if (i % 4 == 0) {
            r.headers().add(new RecordHeader("empty", new byte[0]));
        }
        if (i % 6 == 0) {
            r.headers().add(new RecordHeader("null-value", null));
        }
        return r;
    }

    private Properties producerProps(String clientId, String codec, boolean idempotent) {
        Properties p = common(clientId);
        p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        p.put(ProducerConfig.COMPRESSION_TYPE_CONFIG, codec);
        p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, Boolean.toString(idempotent));
        p.put(ProducerConfig.ACKS_CONFIG, idempotent ? "all" : "1");
        p.put(ProducerConfig.LINGER_MS_CONFIG, "20");
        p.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, "30000");
        return p;
    }

    private int produce(String clientId, String codec, boolean idempotent, int n, int first) throws Exception {
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(producerProps(clientId, codec, idempotent))) {
            List<Future<RecordMetadata>> acks = new ArrayList<>();
            for (int i = first; i < first + n; i++) {
                acks.add(producer.send(record(TOPIC, i, codec)));
            }
            producer.flush();
            for (Future<RecordMetadata> f : acks) {
                f.get();
            }
        }
        log("produced " + n + " records (" + codec + ", idempotent=" + idempotent + ")");
        return n;
    }

    /** One committed transaction (with offsets sent to the transaction) and one aborted one. */
    private int transactional(String txnId, String codec, int first) throws Exception {
        Properties p = producerProps(txnId, codec, true);
        p.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, txnId);
        p.put(ProducerConfig.TRANSACTION_TIMEOUT_CONFIG, "20000");
        int committed = 6;
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(p)) {
            producer.initTransactions();
            producer.beginTransaction();
            for (int i = first; i < first + committed; i++) {
                producer.send(record(TOPIC, i, codec));
            }
            producer.sendOffsetsToTransaction(
                    Map.of(new TopicPartition(TOPIC, 0), new OffsetAndMetadata(0, "txn-meta")),
                    new ConsumerGroupMetadata(txnId + "-group"));
            producer.commitTransaction();
            producer.beginTransaction();
            for (int i = first + 50; i < first + 53; i++) {
                producer.send(record(TOPIC, i, codec));
            }
            producer.flush();
            producer.abortTransaction();
        }
        log("transactional producer " + txnId + ": committed " + committed + ", aborted 3");
        return committed;
    }

    private void consume(String clientId, String group, String protocol, int expected) throws Exception {
        Properties p = common(clientId);
        p.put(ConsumerConfig.GROUP_ID_CONFIG, group);
        p.put(ConsumerConfig.GROUP_PROTOCOL_CONFIG, protocol);
        p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        p.put(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, "200");
        if (protocol.equals("classic")) {
            p.put(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG, "6000");
            p.put(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG, "500");
        }
        int seen = 0;
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(p)) {
            consumer.subscribe(List.of(TOPIC));
            long deadline = System.nanoTime() + POLL_DEADLINE.toNanos();
            while (seen < expected && System.nanoTime() < deadline) {
                ConsumerRecords<byte[], byte[]> records = consumer.poll(Duration.ofMillis(200));
                for (ConsumerRecord<byte[], byte[]> r : records) {
                    seen++;
                }
            }
            if (seen < expected) {
                throw new IllegalStateException(group + ": consumed " + seen + " of " + expected + " records");
            }
            consumer.commitSync();
            Set<TopicPartition> assignment = consumer.assignment();
            log(group + " (" + protocol + "): consumed " + seen + ", committed " + consumer.committed(assignment));
            log("beginning " + consumer.beginningOffsets(assignment) + " end " + consumer.endOffsets(assignment));
            Map<TopicPartition, Long> ts = new HashMap<>();
            for (TopicPartition tp : assignment) {
                ts.put(tp, 0L);
            }
            log("offsetsForTimes " + consumer.offsetsForTimes(ts));
        }
    }

    private void inspect(Admin admin) throws Exception {
        log("groups: " + admin.listGroups().all().get());
        log("consumer groups: " + admin.listConsumerGroups().all().get());
        admin.describeConsumerGroups(List.of(CLASSIC_GROUP, CONSUMER_GROUP)).all().get()
                .forEach((g, d) -> log("group " + g + " type=" + d.type() + " state=" + d.groupState()));
        log("offsets " + CLASSIC_GROUP + ": "
                + admin.listConsumerGroupOffsets(CLASSIC_GROUP).partitionsToOffsetAndMetadata().get());
        Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
        Map<TopicPartition, OffsetSpec> earliest = new HashMap<>();
        Map<TopicPartition, OffsetSpec> maxTs = new HashMap<>();
        for (int i = 0; i < 3; i++) {
            latest.put(new TopicPartition(TOPIC, i), OffsetSpec.latest());
            earliest.put(new TopicPartition(TOPIC, i), OffsetSpec.earliest());
            maxTs.put(new TopicPartition(TOPIC, i), OffsetSpec.maxTimestamp());
        }
        log("latest " + admin.listOffsets(latest).all().get());
        log("earliest " + admin.listOffsets(earliest).all().get());
        optional("ListOffsets max timestamp", () -> admin.listOffsets(maxTs).all().get());
        TopicPartition tp0 = new TopicPartition(TOPIC, 0);
        optional("DescribeProducers", () -> admin.describeProducers(List.of(tp0)).all().get());
        optional("ListTransactions", () -> admin.listTransactions().all().get());
        optional("DescribeTransactions", () -> admin.describeTransactions(List.of(TXN_ID_V1, TXN_ID_V2))
                .all().get());
        optional("DescribeLogDirs", () -> admin.describeLogDirs(List.of(1)).allDescriptions().get());
        optional("DeleteRecords", () -> admin.deleteRecords(Map.of(new TopicPartition(SCRATCH, 0),
                RecordsToDelete.beforeOffset(0))).all().get());
        optional("DescribeAcls (no authorizer)", () -> admin.describeAcls(
                org.apache.kafka.common.acl.AclBindingFilter.ANY).values().get());
        optional("DeleteGroups", () -> admin.deleteConsumerGroups(List.of(TXN_ID_V1 + "-group")).all().get());
        admin.deleteTopics(List.of(SCRATCH)).all().get();
        log("deleted topic " + SCRATCH);
    }

    private static void optional(String what, Callable<?> call) {
        try {
            Object r = call.call();
            log(what + ": ok" + (r == null ? "" : " " + abbreviate(r.toString())));
        } catch (Exception e) {
            log(what + ": failed (" + e + ")");
        }
    }

    private static String abbreviate(String s) {
        return s.length() > 200 ? s.substring(0, 200) + "..." : s;
    }
}
