package dev.strand.compat;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

/** Client factories with timeouts lowered for a loopback broker, and small shared test steps. */
final class Clients {
    /** Longest wait for anything the broker should do at once (an ack, a fetch, a metadata change). */
    static final Duration WAIT = Duration.ofSeconds(15);

    private Clients() {}

    /** A topic name no other test uses. */
    static String topic(String prefix) {
        return prefix + "-" + UUID.randomUUID().toString().substring(0, 8);
    }

    static Admin admin(Broker broker) {
        return admin(broker.bootstrap());
    }

    /** An admin client for {@code bootstrap.servers} (several brokers: {@link Cluster#bootstrap()}). */
    static Admin admin(String bootstrap) {
        return Admin.create(Map.<String, Object>of(
            AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
            AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 5000,
            AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 10000));
    }

    static KafkaProducer<String, String> producer(Broker broker, Map<String, Object> overrides) {
        return producer(broker.bootstrap(), overrides);
    }

    static KafkaProducer<String, String> producer(String bootstrap, Map<String, Object> overrides) {
        Map<String, Object> config = new HashMap<>();
        config.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        config.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class);
        config.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class);
        config.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, 10000);
        config.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, 5000);
        config.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 10000);
        config.putAll(overrides);
        return new KafkaProducer<>(config);
    }

    static KafkaConsumer<String, String> consumer(Broker broker, Map<String, Object> overrides) {
        return consumer(broker.bootstrap(), overrides);
    }

    static KafkaConsumer<String, String> consumer(String bootstrap, Map<String, Object> overrides) {
        Map<String, Object> config = new HashMap<>(consumerConfig(bootstrap));
        config.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class);
        config.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class);
        config.putAll(overrides);
        return new KafkaConsumer<>(config);
    }

    static KafkaConsumer<byte[], byte[]> bytesConsumer(Broker broker) {
        Map<String, Object> config = new HashMap<>(consumerConfig(broker.bootstrap()));
        config.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
        config.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
        return new KafkaConsumer<>(config);
    }

    static KafkaProducer<byte[], byte[]> bytesProducer(Broker broker, Map<String, Object> overrides) {
        Map<String, Object> config = new HashMap<>();
        config.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrap());
        config.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class);
        config.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class);
        config.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, 10000);
        config.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, 5000);
        config.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 10000);
        config.putAll(overrides);
        return new KafkaProducer<>(config);
    }

    /** Consumers here never join a group (groups are issue 5): assign, no commits. */
    private static Map<String, Object> consumerConfig(String bootstrap) {
        return Map.of(
            ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
            ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false,
            ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "none",
            ConsumerConfig.REQUEST_TIMEOUT_MS_CONFIG, 5000,
            ConsumerConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 10000,
            ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, 100);
    }

    static void createTopic(Admin admin, String topic, int partitions) throws Exception {
        createTopic(admin, new NewTopic(topic, partitions, (short) 1));
    }

    /** Creates the topic and waits until the broker's metadata shows it ({@link #awaitTopic}). */
    static void createTopic(Admin admin, NewTopic topic) throws Exception {
        admin.createTopics(List.of(topic)).all().get(WAIT.toSeconds(), TimeUnit.SECONDS);
        awaitTopic(admin, topic.name(), topic.numPartitions());
    }

    /**
     * Waits until describeTopics shows the topic with {@code partitions} partitions, each with a
     * leader: the controller answers CreateTopics and CreatePartitions once the change is
     * committed, and the broker's metadata has it a moment later.
     */
    static TopicDescription awaitTopic(Admin admin, String topic, int partitions) throws Exception {
        long deadline = System.nanoTime() + WAIT.toNanos();
        String last = "unknown topic";
        while (System.nanoTime() < deadline) {
            try {
                TopicDescription description = admin.describeTopics(List.of(topic)).allTopicNames()
                    .get(WAIT.toSeconds(), TimeUnit.SECONDS).get(topic);
                if (description.partitions().size() == partitions
                        && description.partitions().stream().allMatch(p -> p.leader() != null)) {
                    return description;
                }
                last = description.toString();
            } catch (ExecutionException e) {
                if (!(e.getCause() instanceof UnknownTopicOrPartitionException)) {
                    throw e;
                }
            }
            Thread.sleep(50);
        }
        throw new AssertionError("topic " + topic + " never showed " + partitions + " led partitions; last: " + last);
    }

    /**
     * Polls until exactly {@code count} records have arrived (failing after {@link #WAIT}), then
     * polls once more briefly to check that nothing beyond them arrives.
     */
    static <K, V> List<ConsumerRecord<K, V>> pollExactly(KafkaConsumer<K, V> consumer, int count) {
        List<ConsumerRecord<K, V>> records = new ArrayList<>();
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (records.size() < count && System.nanoTime() < deadline) {
            consumer.poll(Duration.ofMillis(200)).forEach(records::add);
        }
        consumer.poll(Duration.ofMillis(200)).forEach(records::add);
        assertEquals(count, records.size(), "records consumed");
        return records;
    }
}
