package dev.strand.compat;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** kafka-clients' producer: sync and async sends, acks, codecs, idempotence, a broker-side size limit. */
@ExtendWith(BrokerExtension.class)
class ProducerTest {
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

    /** A sync send returns the record's partition and consecutive offsets; the records read back intact. */
    @Test
    void syncSendReturnsConsecutiveOffsets() throws Exception {
        String topic = Clients.topic("sync");
        Clients.createTopic(admin, topic, 1);
        try (KafkaProducer<String, String> producer = Clients.producer(broker, Map.of())) {
            for (int i = 0; i < 5; i++) {
                RecordHeaders headers = new RecordHeaders();
                headers.add("n", Integer.toString(i).getBytes(StandardCharsets.UTF_8));
                RecordMetadata metadata = producer.send(
                    new ProducerRecord<>(topic, null, "key-" + i, "value-" + i, headers)).get();
                assertEquals(topic, metadata.topic());
                assertEquals(0, metadata.partition());
                assertEquals(i, metadata.offset());
                assertTrue(metadata.hasTimestamp());
            }
        }
        List<ConsumerRecord<String, String>> records = readAll(topic, 0, 5);
        for (int i = 0; i < 5; i++) {
            ConsumerRecord<String, String> record = records.get(i);
            assertEquals(i, record.offset());
            assertEquals("key-" + i, record.key());
            assertEquals("value-" + i, record.value());
            assertArrayEquals(Integer.toString(i).getBytes(StandardCharsets.UTF_8), record.headers().lastHeader("n").value());
        }
    }

    /** Every async send completes its callback once, without error, and per partition in send order. */
    @Test
    void asyncSendCompletesEveryCallbackInOrder() throws Exception {
        String topic = Clients.topic("async");
        int partitions = 3;
        int perPartition = 10;
        Clients.createTopic(admin, topic, partitions);
        Map<Integer, List<Long>> offsetsByPartition = new ConcurrentHashMap<>();
        List<Exception> errors = new CopyOnWriteArrayList<>();
        CountDownLatch done = new CountDownLatch(partitions * perPartition);
        try (KafkaProducer<String, String> producer = Clients.producer(broker, Map.of(ProducerConfig.LINGER_MS_CONFIG, 5))) {
            for (int i = 0; i < partitions * perPartition; i++) {
                producer.send(new ProducerRecord<>(topic, i % partitions, null, "v" + i), (metadata, exception) -> {
                    if (exception != null) {
                        errors.add(exception);
                    } else {
                        offsetsByPartition.computeIfAbsent(metadata.partition(), p -> new CopyOnWriteArrayList<>())
                            .add(metadata.offset());
                    }
                    done.countDown();
                });
            }
            producer.flush();
            assertTrue(done.await(Clients.WAIT.toSeconds(), TimeUnit.SECONDS), "every callback ran");
        }
        assertEquals(List.of(), errors);
        for (int p = 0; p < partitions; p++) {
            assertEquals(range(0, perPartition), offsetsByPartition.get(p), "offsets acknowledged on partition " + p);
        }
        for (int p = 0; p < partitions; p++) {
            List<ConsumerRecord<String, String>> records = readAll(topic, p, perPartition);
            for (int k = 0; k < perPartition; k++) {
                assertEquals("v" + (k * partitions + p), records.get(k).value());
            }
        }
    }

    /**
     * acks=0, 1 and all all store the records; acks=0 is answered by nobody, so the client reports
     * offset -1, while acks=1 and all return the real offsets.
     */
    @ParameterizedTest(name = "acks={0}")
    @ValueSource(strings = {"0", "1", "all"})
    void everyAcksSettingStoresTheRecords(String acks) throws Exception {
        String topic = Clients.topic("acks" + acks);
        Clients.createTopic(admin, topic, 1);
        Map<String, Object> config = Map.of(
            ProducerConfig.ACKS_CONFIG, acks,
            // Idempotence needs acks=all; the other settings must turn it off explicitly.
            ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, acks.equals("all"));
        try (KafkaProducer<String, String> producer = Clients.producer(broker, config)) {
            for (int i = 0; i < 10; i++) {
                RecordMetadata metadata = producer.send(new ProducerRecord<>(topic, "r" + i)).get();
                assertEquals(acks.equals("0") ? -1L : (long) i, metadata.offset());
            }
        }
        List<ConsumerRecord<String, String>> records = readAll(topic, 0, 10);
        for (int i = 0; i < 10; i++) {
            assertEquals(i, records.get(i).offset());
            assertEquals("r" + i, records.get(i).value());
        }
    }

    /** Batches in each codec are accepted and read back byte for byte, keys, nulls and headers included. */
    @ParameterizedTest(name = "compression.type={0}")
    @ValueSource(strings = {"none", "gzip", "snappy", "lz4", "zstd"})
    void everyCodecRoundTrips(String codec) throws Exception {
        String topic = Clients.topic("codec-" + codec);
        Clients.createTopic(admin, topic, 1);
        int count = 50;
        List<byte[]> values = new ArrayList<>();
        try (KafkaProducer<byte[], byte[]> producer = Clients.bytesProducer(broker, Map.of(
                ProducerConfig.COMPRESSION_TYPE_CONFIG, codec,
                ProducerConfig.LINGER_MS_CONFIG, 20))) {
            List<java.util.concurrent.Future<RecordMetadata>> sent = new ArrayList<>();
            for (int i = 0; i < count; i++) {
                byte[] value = (codec + " record " + i + " ").repeat(20 + i).getBytes(StandardCharsets.UTF_8);
                values.add(value);
                byte[] key = i % 5 == 0 ? null : ("k" + i).getBytes(StandardCharsets.UTF_8);
                RecordHeaders headers = new RecordHeaders();
                headers.add("codec", codec.getBytes(StandardCharsets.UTF_8));
                sent.add(producer.send(new ProducerRecord<>(topic, 0, null, key, value, headers)));
            }
            producer.flush();
            for (int i = 0; i < count; i++) {
                assertEquals(i, sent.get(i).get().offset());
            }
        }
        try (KafkaConsumer<byte[], byte[]> consumer = Clients.bytesConsumer(broker)) {
            TopicPartition partition = new TopicPartition(topic, 0);
            consumer.assign(List.of(partition));
            consumer.seekToBeginning(List.of(partition));
            List<ConsumerRecord<byte[], byte[]>> records = Clients.pollExactly(consumer, count);
            for (int i = 0; i < count; i++) {
                ConsumerRecord<byte[], byte[]> record = records.get(i);
                assertEquals(i, record.offset());
                assertArrayEquals(values.get(i), record.value(), "value " + i);
                if (i % 5 == 0) {
                    assertNull(record.key());
                } else {
                    assertArrayEquals(("k" + i).getBytes(StandardCharsets.UTF_8), record.key());
                }
                assertArrayEquals(codec.getBytes(StandardCharsets.UTF_8), record.headers().lastHeader("codec").value());
            }
        }
    }

    /**
     * The default producer (idempotent, acks=all, retries unbounded, 5 requests in flight) with tiny
     * batches: every record is stored exactly once, in send order, and a second idempotent producer
     * (a fresh producer id starting at sequence 0) appends after it.
     */
    @Test
    void idempotentProducerStoresEachRecordOnceInOrder() throws Exception {
        String topic = Clients.topic("idempotent");
        Clients.createTopic(admin, topic, 1);
        int count = 300;
        Map<String, Object> config = Map.of(
            ProducerConfig.BATCH_SIZE_CONFIG, 256,
            ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, 5,
            ProducerConfig.RETRIES_CONFIG, Integer.MAX_VALUE);
        for (int round = 0; round < 2; round++) {
            List<Long> acked = new CopyOnWriteArrayList<>();
            List<Exception> errors = new CopyOnWriteArrayList<>();
            try (KafkaProducer<String, String> producer = Clients.producer(broker, config)) {
                for (int i = 0; i < count; i++) {
                    producer.send(new ProducerRecord<>(topic, 0, null, round + ":" + i), (metadata, exception) -> {
                        if (exception != null) {
                            errors.add(exception);
                        } else {
                            acked.add(metadata.offset());
                        }
                    });
                }
                producer.flush();
                assertEquals(0.0, metric(producer, "record-error-total"), "record-error-total");
            }
            assertEquals(List.of(), errors);
            assertEquals(range(round * count, count), acked, "offsets acknowledged in round " + round);
        }
        List<ConsumerRecord<String, String>> records = readAll(topic, 0, 2 * count);
        for (int i = 0; i < 2 * count; i++) {
            assertEquals(i, records.get(i).offset());
            assertEquals((i / count) + ":" + (i % count), records.get(i).value());
        }
    }

    /** A record over the broker's message.max.bytes (default 1 MiB) fails with MESSAGE_TOO_LARGE and is not stored. */
    @Test
    void recordOverMessageMaxBytesIsRejected() throws Exception {
        String topic = Clients.topic("too-large");
        Clients.createTopic(admin, topic, 1);
        try (KafkaProducer<String, String> producer = Clients.producer(broker, Map.of(
                ProducerConfig.MAX_REQUEST_SIZE_CONFIG, 4 << 20,
                ProducerConfig.BUFFER_MEMORY_CONFIG, 16 << 20))) {
            String big = "x".repeat((1 << 20) + 1024);
            ExecutionException failure = assertThrows(ExecutionException.class,
                () -> producer.send(new ProducerRecord<>(topic, 0, null, big)).get());
            assertInstanceOf(RecordTooLargeException.class, failure.getCause());
            RecordMetadata small = producer.send(new ProducerRecord<>(topic, 0, null, "small")).get();
            assertEquals(0, small.offset(), "the rejected record took no offset");
        }
        TopicPartition partition = new TopicPartition(topic, 0);
        long end = admin.listOffsets(Map.of(partition, OffsetSpec.latest())).partitionResult(partition)
            .get(Clients.WAIT.toSeconds(), TimeUnit.SECONDS).offset();
        assertEquals(1, end);
    }

    private static List<ConsumerRecord<String, String>> readAll(String topic, int partition, int count) {
        try (KafkaConsumer<String, String> consumer = Clients.consumer(broker, Map.of())) {
            TopicPartition tp = new TopicPartition(topic, partition);
            consumer.assign(List.of(tp));
            consumer.seekToBeginning(List.of(tp));
            return Clients.pollExactly(consumer, count);
        }
    }

    private static double metric(KafkaProducer<?, ?> producer, String name) {
        return producer.metrics().entrySet().stream()
            .filter(e -> e.getKey().name().equals(name) && e.getKey().group().equals("producer-metrics"))
            .map(e -> ((Number) e.getValue().metricValue()).doubleValue())
            .findFirst()
            .orElseThrow(() -> new AssertionError("no producer metric " + name));
    }

    private static List<Long> range(long start, int count) {
        List<Long> offsets = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            offsets.add(start + i);
        }
        return offsets;
    }
}
