package dev.strand.compat;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Broker-side compression (issue 19): a topic whose compression.type differs from the producer's
 * codec stores the records recompressed, and kafka-clients reads them back intact. The consumer's
 * bytes-consumed-total counts the stored batch bytes, which shows the codec the broker wrote.
 */
@ExtendWith(BrokerExtension.class)
class BrokerCompressionTest {
    private static final int COUNT = 20;
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

    /** Each target codec, from a producer writing another, reads back record for record. */
    @ParameterizedTest(name = "topic compression.type={0}")
    @ValueSource(strings = {"uncompressed", "gzip", "snappy", "lz4", "zstd"})
    void recompressedBatchesReadBack(String target) throws Exception {
        String topic = Clients.topic("recompress-" + target);
        Clients.createTopic(admin, new NewTopic(topic, 1, (short) 1).configs(Map.of("compression.type", target)));
        String sent = target.equals("uncompressed") ? "gzip" : "none";
        long valueBytes = 0;
        try (KafkaProducer<byte[], byte[]> producer = Clients.bytesProducer(broker, Map.of(
                ProducerConfig.COMPRESSION_TYPE_CONFIG, sent, ProducerConfig.LINGER_MS_CONFIG, 50))) {
            for (int i = 0; i < COUNT; i++) {
                byte[] key = i % 4 == 0 ? null : ("k" + i).getBytes(StandardCharsets.UTF_8);
                RecordHeaders headers = new RecordHeaders();
                headers.add("target", target.getBytes(StandardCharsets.UTF_8));
                byte[] value = value(target, i);
                valueBytes += value.length;
                producer.send(new ProducerRecord<>(topic, 0, 1_700_000_000_000L + i, key, value, headers));
            }
            producer.flush();
        }
        try (KafkaConsumer<byte[], byte[]> consumer = Clients.bytesConsumer(broker)) {
            TopicPartition partition = new TopicPartition(topic, 0);
            consumer.assign(List.of(partition));
            consumer.seekToBeginning(List.of(partition));
            List<ConsumerRecord<byte[], byte[]>> records = Clients.pollExactly(consumer, COUNT);
            for (int i = 0; i < COUNT; i++) {
                ConsumerRecord<byte[], byte[]> record = records.get(i);
                assertEquals(i, record.offset());
                assertEquals(1_700_000_000_000L + i, record.timestamp());
                assertArrayEquals(value(target, i), record.value(), "value " + i);
                if (i % 4 == 0) {
                    assertNull(record.key());
                } else {
                    assertArrayEquals(("k" + i).getBytes(StandardCharsets.UTF_8), record.key());
                }
                assertArrayEquals(target.getBytes(StandardCharsets.UTF_8), record.headers().lastHeader("target").value());
            }
        }
        long stored = partitionBytes(topic);
        String shown = "stored " + stored + " bytes for " + valueBytes + " value bytes";
        if (target.equals("uncompressed")) {
            assertTrue(stored > valueBytes, shown);
        } else {
            assertTrue(stored < valueBytes / 4, shown);
        }
    }

    /** A compressible value: every codec shrinks it well below a quarter. */
    private static byte[] value(String target, int i) {
        return (target + " value " + i + " ").repeat(100).getBytes(StandardCharsets.UTF_8);
    }

    /** The partition's bytes in its log dir, as describeLogDirs reports them. */
    private static long partitionBytes(String topic) throws Exception {
        int node = admin.describeCluster().nodes().get().iterator().next().id();
        var dirs = admin.describeLogDirs(List.of(node)).allDescriptions().get().get(node);
        return dirs.values().stream()
            .map(dir -> dir.replicaInfos().get(new TopicPartition(topic, 0)))
            .filter(java.util.Objects::nonNull)
            .mapToLong(org.apache.kafka.clients.admin.ReplicaInfo::size)
            .sum();
    }
}
