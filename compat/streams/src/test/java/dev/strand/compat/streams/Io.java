package dev.strand.compat.streams;

import static org.junit.jupiter.api.Assertions.fail;

import dev.strand.compat.Broker;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.Predicate;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.StringSerializer;

/** The test's own clients: topics, an acks=all producer, a read_committed reader, topic configs. */
final class Io {
    static final Duration PATIENCE = Duration.ofSeconds(60);
    private static final Duration POLL = Duration.ofMillis(100);

    private Io() {}

    static Admin admin(Broker broker) {
        return admin(broker.bootstrap());
    }

    static Admin admin(String bootstrap) {
        return Admin.create(Map.of(
            AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
            AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 30000));
    }

    static void createTopics(Broker broker, int partitions, String... names) throws Exception {
        createTopics(broker.bootstrap(), partitions, (short) 1, Map.of(), names);
    }

    static void createTopics(String bootstrap, int partitions, short replicas, Map<String, String> configs,
        String... names) throws Exception {
        List<NewTopic> topics = new ArrayList<>();
        for (String name : names) {
            topics.add(new NewTopic(name, partitions, replicas).configs(configs));
        }
        try (Admin admin = admin(bootstrap)) {
            admin.createTopics(topics).all().get(30, TimeUnit.SECONDS);
        }
    }

    /** Sends every record with acks=all and waits for all of them. */
    static void produce(Broker broker, List<ProducerRecord<String, String>> records) throws Exception {
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(Map.of(
            ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrap(),
            ProducerConfig.ACKS_CONFIG, "all",
            ProducerConfig.LINGER_MS_CONFIG, 5), new StringSerializer(), new StringSerializer())) {
            List<java.util.concurrent.Future<?>> sent = new ArrayList<>();
            for (ProducerRecord<String, String> record : records) {
                sent.add(producer.send(record));
            }
            for (java.util.concurrent.Future<?> future : sent) {
                future.get(30, TimeUnit.SECONDS);
            }
        }
    }

    /**
     * Reads {@code topic} from the beginning as a read_committed consumer (no group) until
     * {@code done} holds for everything read so far, then returns it in partition, offset order;
     * {@code healthy} is checked on every poll (an application that died fails the read at once).
     */
    static <K, V> List<ConsumerRecord<K, V>> readUntil(Broker broker, String topic, Deserializer<K> keys,
        Deserializer<V> values, Predicate<List<ConsumerRecord<K, V>>> done, Runnable healthy) {
        return readUntil(broker.bootstrap(), topic, keys, values, done, healthy);
    }

    static <K, V> List<ConsumerRecord<K, V>> readUntil(String bootstrap, String topic, Deserializer<K> keys,
        Deserializer<V> values, Predicate<List<ConsumerRecord<K, V>>> done, Runnable healthy) {
        List<ConsumerRecord<K, V>> read = new ArrayList<>();
        try (KafkaConsumer<K, V> consumer = new KafkaConsumer<>(Map.of(
            ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
            ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed",
            ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false), keys, values)) {
            List<TopicPartition> partitions = new ArrayList<>();
            consumer.partitionsFor(topic, PATIENCE).forEach(p -> partitions.add(new TopicPartition(topic, p.partition())));
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            long deadline = System.nanoTime() + PATIENCE.toNanos();
            while (!done.test(read)) {
                healthy.run();
                if (System.nanoTime() > deadline) {
                    fail("reading " + topic + ": not done after " + PATIENCE.toSeconds() + " s; read " + read.size()
                        + " records: " + read);
                }
                consumer.poll(POLL).forEach(read::add);
            }
        }
        read.sort((a, b) -> a.partition() != b.partition() ? Integer.compare(a.partition(), b.partition())
            : Long.compare(a.offset(), b.offset()));
        return read;
    }

    /** Polls {@code condition} every 100 ms until it holds, failing with {@code what} after PATIENCE. */
    static void await(String what, BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + PATIENCE.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                fail("not after " + PATIENCE.toSeconds() + " s: " + what);
            }
            Thread.sleep(POLL.toMillis());
        }
    }

    /** Application {@code app}'s internal topics: {@code <app>-...-changelog} and {@code -repartition}. */
    static Set<String> internalTopics(Broker broker, String app) throws Exception {
        String prefix = app + "-";
        try (Admin admin = admin(broker)) {
            Set<String> names = new java.util.TreeSet<>();
            for (String name : admin.listTopics().names().get(30, TimeUnit.SECONDS)) {
                if (name.startsWith(prefix) && (name.endsWith("-changelog") || name.endsWith("-repartition"))) {
                    names.add(name);
                }
            }
            return names;
        }
    }

    /** {@code topic -> cleanup.policy} for each topic. */
    static Map<String, String> cleanupPolicies(Broker broker, Set<String> topics) throws Exception {
        List<ConfigResource> resources = new ArrayList<>();
        for (String topic : topics) {
            resources.add(new ConfigResource(ConfigResource.Type.TOPIC, topic));
        }
        Map<String, String> policies = new TreeMap<>();
        try (Admin admin = admin(broker)) {
            Map<ConfigResource, Config> configs = admin.describeConfigs(resources).all().get(30, TimeUnit.SECONDS);
            configs.forEach((resource, config) -> {
                ConfigEntry entry = config.get("cleanup.policy");
                policies.put(resource.name(), entry == null ? null : entry.value());
            });
        }
        return policies;
    }

    /**
     * {@code topic -> the configs set on it} (source DYNAMIC_TOPIC_CONFIG: what Kafka Streams asked
     * for when it created its internal topics), and for each repartition topic whether a partition's
     * log start offset has moved (Streams purges what it consumed with DeleteRecords).
     */
    static Map<String, String> brokerSide(Broker broker, String app) throws Exception {
        Set<String> topics = internalTopics(broker, app);
        List<ConfigResource> resources = new ArrayList<>();
        for (String topic : topics) {
            resources.add(new ConfigResource(ConfigResource.Type.TOPIC, topic));
        }
        Map<String, String> side = new TreeMap<>();
        try (Admin admin = admin(broker)) {
            admin.describeConfigs(resources).all().get(30, TimeUnit.SECONDS).forEach((resource, config) -> {
                Map<String, String> set = new TreeMap<>();
                for (ConfigEntry entry : config.entries()) {
                    if (entry.source() == ConfigEntry.ConfigSource.DYNAMIC_TOPIC_CONFIG) {
                        set.put(entry.name(), entry.value());
                    }
                }
                side.put(resource.name() + " configs", set.toString());
            });
        }
        return side;
    }

    /** Waits until Streams has purged some of every repartition topic of {@code app}. */
    static void awaitRepartitionPurged(Broker broker, String app) throws Exception {
        try (Admin admin = admin(broker)) {
            for (String topic : internalTopics(broker, app)) {
                if (!topic.endsWith("-repartition")) {
                    continue;
                }
                await(topic + " purged by Streams (a log start offset above 0)", () -> {
                    try {
                        Map<TopicPartition, org.apache.kafka.clients.admin.OffsetSpec> earliest = new TreeMap<>(
                            (a, b) -> Integer.compare(a.partition(), b.partition()));
                        int partitions = admin.describeTopics(List.of(topic)).allTopicNames().get(30, TimeUnit.SECONDS)
                            .get(topic).partitions().size();
                        for (int p = 0; p < partitions; p++) {
                            earliest.put(new TopicPartition(topic, p), org.apache.kafka.clients.admin.OffsetSpec.earliest());
                        }
                        return admin.listOffsets(earliest).all().get(30, TimeUnit.SECONDS).values().stream()
                            .anyMatch(info -> info.offset() > 0);
                    } catch (Exception e) {
                        throw new IllegalStateException(e);
                    }
                });
            }
        }
    }

    /** $TMPDIR like the launchers (java.io.tmpdir ignores it), else java.io.tmpdir. */
    static Path tempRoot() {
        String tmpdir = System.getenv("TMPDIR");
        return Path.of(tmpdir != null && !tmpdir.isEmpty() ? tmpdir : System.getProperty("java.io.tmpdir"));
    }
}
