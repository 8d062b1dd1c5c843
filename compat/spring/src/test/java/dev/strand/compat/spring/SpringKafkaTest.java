package dev.strand.compat.spring;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

import dev.strand.compat.Broker;
import dev.strand.compat.BrokerExtension;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.kafka.annotation.KafkaListener;
import org.springframework.kafka.config.KafkaListenerEndpointRegistry;
import org.springframework.kafka.core.DefaultKafkaProducerFactory;
import org.springframework.kafka.core.KafkaTemplate;
import org.springframework.kafka.listener.ConcurrentMessageListenerContainer;
import org.springframework.kafka.listener.MessageListenerContainer;
import org.springframework.kafka.support.Acknowledgment;
import org.springframework.kafka.support.SendResult;

/**
 * Spring Kafka as the seeds use it: a Spring Boot application whose {@code @KafkaListener} takes
 * the {@link ConsumerRecord} and an {@link Acknowledgment} and acknowledges each record, with
 * {@code spring.kafka.listener.ack-mode=MANUAL_IMMEDIATE} (each acknowledgment is a synchronous
 * OffsetCommit from the consumer thread), and the auto-configured {@link KafkaTemplate} sending.
 *
 * <p>The listener runs two consumers ({@code concurrency = "2"}) in one classic group over three
 * partitions. The application is started, stopped and started again against the suite's broker
 * with the same group id; the second run must receive exactly what was written while it was down.
 */
@ExtendWith(BrokerExtension.class)
class SpringKafkaTest {
    /** Longest wait for anything the broker and the application should do promptly. */
    private static final Duration WAIT = Duration.ofSeconds(30);
    private static final int PARTITIONS = 3;
    private static final String LISTENER_ID = "compat-listener";

    private static Broker broker;
    private static Admin admin;

    @BeforeAll
    static void connect(Broker started) {
        broker = started;
        admin = Admin.create(Map.<String, Object>of(
            AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrap(),
            AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 5000,
            AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 10000));
    }

    @AfterAll
    static void disconnect() {
        if (admin != null) {
            admin.close();
        }
    }

    /**
     * Every record the KafkaTemplate sent arrives exactly once, in offset order within each
     * partition; the committed offsets end at the end offsets; a restarted application with the
     * same group id receives only the records written after the first one stopped.
     */
    @Test
    void manualImmediateAcknowledgesEachRecordOnceAndARestartResumes() throws Exception {
        String topic = "spring-" + UUID.randomUUID().toString().substring(0, 8);
        String group = "g-" + topic;
        admin.createTopics(List.of(new NewTopic(topic, PARTITIONS, (short) 1))).all().get(WAIT.toSeconds(), TimeUnit.SECONDS);
        awaitLeaders(topic);

        Map<Integer, List<String>> sentFirst;
        try (ConfigurableApplicationContext app = startApplication(topic, group)) {
            awaitBothConsumersAssigned(app);
            @SuppressWarnings("unchecked")
            KafkaTemplate<String, String> template = app.getBean(KafkaTemplate.class);
            sentFirst = send(template, topic, 0, 60);
            Received received = app.getBean(Received.class);
            awaitCount(received, 60);
            assertExactlyOnceInOrder(sentFirst, received);
            awaitCommittedAtEnd(topic, group);
        }

        // Written while no member of the group is running.
        Map<Integer, List<String>> sentSecond;
        DefaultKafkaProducerFactory<String, String> factory = new DefaultKafkaProducerFactory<>(producerConfig());
        try {
            sentSecond = send(new KafkaTemplate<>(factory), topic, 60, 90);
        } finally {
            factory.destroy();
        }

        try (ConfigurableApplicationContext app = startApplication(topic, group)) {
            Received received = app.getBean(Received.class);
            awaitCount(received, 30);
            awaitCommittedAtEnd(topic, group);
            assertExactlyOnceInOrder(sentSecond, received);
        }
    }

    // --- the application ------------------------------------------------------------------------------

    /** The application under test: Boot's Kafka auto-configuration plus one listener bean. */
    @SpringBootConfiguration
    @EnableAutoConfiguration
    static class ListenerApplication {
        @Bean
        Received received() {
            return new Received();
        }

        @Bean
        RecordListener recordListener(Received received) {
            return new RecordListener(received);
        }
    }

    /** The seeds' listener shape: the record and its acknowledgment, acknowledged once processed. */
    static class RecordListener {
        private final Received received;

        RecordListener(Received received) {
            this.received = received;
        }

        @KafkaListener(id = LISTENER_ID, topics = "${compat.topic}", groupId = "${compat.group}", concurrency = "2")
        public void listen(ConsumerRecord<String, String> record, Acknowledgment acknowledgment) {
            received.records.add(record);
            acknowledgment.acknowledge();
        }
    }

    /** What one application run's listener received, in arrival order (from both consumer threads). */
    static class Received {
        final List<ConsumerRecord<String, String>> records = new CopyOnWriteArrayList<>();
    }

    private static ConfigurableApplicationContext startApplication(String topic, String group) {
        return new SpringApplicationBuilder(ListenerApplication.class)
            .properties(
                "spring.main.banner-mode=off",
                "spring.kafka.bootstrap-servers=" + broker.bootstrap(),
                "spring.kafka.listener.ack-mode=MANUAL_IMMEDIATE",
                "spring.kafka.consumer.auto-offset-reset=earliest",
                "spring.kafka.consumer.enable-auto-commit=false",
                "spring.kafka.consumer.properties.fetch.max.wait.ms=100",
                "spring.kafka.producer.acks=all",
                "compat.topic=" + topic,
                "compat.group=" + group)
            .run();
    }

    // --- steps and checks -------------------------------------------------------------------------------

    /** Both listener consumers hold partitions (2 and 1): the group has settled on its two members. */
    private static void awaitBothConsumersAssigned(ConfigurableApplicationContext app) {
        MessageListenerContainer container = app.getBean(KafkaListenerEndpointRegistry.class).getListenerContainer(LISTENER_ID);
        List<? extends MessageListenerContainer> consumers = ((ConcurrentMessageListenerContainer<?, ?>) container).getContainers();
        Supplier<List<Set<Integer>>> assignments = () -> consumers.stream()
            .map(c -> c.getAssignedPartitions() == null ? Set.<Integer>of()
                : c.getAssignedPartitions().stream().map(TopicPartition::partition).collect(Collectors.toSet()))
            .toList();
        await("both listener consumers assigned, all " + PARTITIONS + " partitions once", () -> {
            List<Set<Integer>> shares = assignments.get();
            Set<Integer> union = shares.stream().flatMap(Set::stream).collect(Collectors.toSet());
            int total = shares.stream().mapToInt(Set::size).sum();
            return shares.size() == 2 && shares.stream().noneMatch(Set::isEmpty)
                && total == PARTITIONS && union.size() == PARTITIONS;
        }, () -> "assignments " + assignments.get());
    }

    /** Sends v{from}..v{to-1} with keys k{i}; returns each partition's values in offset order. */
    private static Map<Integer, List<String>> send(KafkaTemplate<String, String> template, String topic, int from, int to)
            throws Exception {
        Map<Integer, Map<Long, String>> byPartition = new TreeMap<>();
        for (int i = from; i < to; i++) {
            SendResult<String, String> result = template.send(topic, "k" + i, "v" + i).get(WAIT.toSeconds(), TimeUnit.SECONDS);
            byPartition.computeIfAbsent(result.getRecordMetadata().partition(), p -> new TreeMap<>())
                .put(result.getRecordMetadata().offset(), "v" + i);
        }
        Map<Integer, List<String>> values = new TreeMap<>();
        byPartition.forEach((partition, offsets) -> values.put(partition, new ArrayList<>(offsets.values())));
        return values;
    }

    private static void awaitCount(Received received, int count) {
        await(count + " records received", () -> received.records.size() >= count,
            () -> received.records.size() + " received");
    }

    /** Each partition's records arrived once each, in the order they were written. */
    private static void assertExactlyOnceInOrder(Map<Integer, List<String>> sent, Received received) {
        Map<Integer, List<String>> got = new TreeMap<>();
        for (ConsumerRecord<String, String> record : received.records) {
            got.computeIfAbsent(record.partition(), p -> new ArrayList<>()).add(record.value());
        }
        assertEquals(sent, got, "values received per partition, in arrival order");
    }

    /** listConsumerGroupOffsets reaches the end offsets of every partition (the last ack's commit). */
    private static void awaitCommittedAtEnd(String topic, String group) throws Exception {
        Map<TopicPartition, OffsetSpec> latest = IntStream.range(0, PARTITIONS).boxed()
            .collect(Collectors.toMap(p -> new TopicPartition(topic, p), p -> OffsetSpec.latest()));
        Map<TopicPartition, Long> end = new HashMap<>();
        admin.listOffsets(latest).all().get(WAIT.toSeconds(), TimeUnit.SECONDS)
            .forEach((partition, info) -> end.put(partition, info.offset()));
        Map<TopicPartition, Long> committed = new HashMap<>();
        await("committed offsets equal to the end offsets " + end, () -> {
            committed.clear();
            try {
                Map<TopicPartition, OffsetAndMetadata> offsets = admin.listConsumerGroupOffsets(group)
                    .partitionsToOffsetAndMetadata().get(WAIT.toSeconds(), TimeUnit.SECONDS);
                offsets.forEach((partition, offset) -> committed.put(partition, offset == null ? null : offset.offset()));
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
            return committed.equals(end);
        }, () -> "committed " + committed);
    }

    private static void awaitLeaders(String topic) {
        await("topic " + topic + " with " + PARTITIONS + " led partitions", () -> {
            try {
                return admin.describeTopics(List.of(topic)).allTopicNames().get(WAIT.toSeconds(), TimeUnit.SECONDS)
                    .get(topic).partitions().stream().filter(p -> p.leader() != null).count() == PARTITIONS;
            } catch (Exception e) {
                return false;
            }
        }, () -> "not yet");
    }

    private static Map<String, Object> producerConfig() {
        return Map.of(
            ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrap(),
            ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class,
            ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class,
            ProducerConfig.ACKS_CONFIG, "all");
    }

    private static void await(String what, BooleanSupplier done, Supplier<String> state) {
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (!done.getAsBoolean()) {
            if (System.nanoTime() >= deadline) {
                fail(what + ": not reached within " + WAIT.toSeconds() + " s; " + state.get());
            }
            try {
                Thread.sleep(50);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError("interrupted", e);
            }
        }
    }
}
