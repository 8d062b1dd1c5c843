package dev.strand.compat;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndTimestamp;
import org.apache.kafka.clients.consumer.OffsetOutOfRangeException;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** kafka-clients' consumer without a group: assign, seek, seekToBeginning/End, offsetsForTimes. */
@ExtendWith(BrokerExtension.class)
class ConsumerTest {
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

    /** seek(n) on an assigned partition reads exactly the records from offset n on. */
    @Test
    void assignAndSeekReadFromTheGivenOffset() throws Exception {
        TopicPartition partition = topicWith(10);
        try (KafkaConsumer<String, String> consumer = Clients.consumer(broker, Map.of())) {
            consumer.assign(List.of(partition));
            consumer.seek(partition, 6);
            List<ConsumerRecord<String, String>> records = Clients.pollExactly(consumer, 4);
            for (int i = 0; i < 4; i++) {
                assertEquals(6 + i, records.get(i).offset());
                assertEquals("m" + (6 + i), records.get(i).value());
            }
            assertEquals(10, consumer.position(partition));
            consumer.seek(partition, 2);
            assertEquals("m2", Clients.pollExactly(consumer, 8).get(0).value());
        }
    }

    /** seekToBeginning reads every record; seekToEnd and beginning/endOffsets agree with what was written. */
    @Test
    void seekToBeginningAndEnd() throws Exception {
        TopicPartition partition = topicWith(7);
        try (KafkaConsumer<String, String> consumer = Clients.consumer(broker, Map.of())) {
            consumer.assign(List.of(partition));
            assertEquals(Map.of(partition, 0L), consumer.beginningOffsets(List.of(partition)));
            assertEquals(Map.of(partition, 7L), consumer.endOffsets(List.of(partition)));
            consumer.seekToEnd(List.of(partition));
            assertEquals(7, consumer.position(partition));
            consumer.seekToBeginning(List.of(partition));
            assertEquals(0, consumer.position(partition));
            List<ConsumerRecord<String, String>> records = Clients.pollExactly(consumer, 7);
            for (int i = 0; i < 7; i++) {
                assertEquals(i, records.get(i).offset());
                assertEquals("m" + i, records.get(i).value());
            }
        }
    }

    /**
     * The seeds' "consume from one hour ago": offsetsForTimes(now - 1h) finds the first record
     * stamped at or after that time; reading from there yields exactly the last hour's records.
     */
    @Test
    void offsetsForTimesFindsTheFirstRecordOfTheLastHour() throws Exception {
        String topic = Clients.topic("times");
        Clients.createTopic(admin, topic, 1);
        TopicPartition partition = new TopicPartition(topic, 0);
        long now = System.currentTimeMillis();
        long[] ages = {
            Duration.ofHours(3).toMillis(), Duration.ofHours(2).toMillis(), Duration.ofMinutes(61).toMillis(),
            Duration.ofMinutes(59).toMillis(), Duration.ofMinutes(30).toMillis(), Duration.ofMinutes(1).toMillis()};
        try (KafkaProducer<String, String> producer = Clients.producer(broker, Map.of())) {
            for (int i = 0; i < ages.length; i++) {
                producer.send(new ProducerRecord<>(topic, 0, now - ages[i], null, "t" + i)).get();
            }
        }
        try (KafkaConsumer<String, String> consumer = Clients.consumer(broker, Map.of())) {
            long hourAgo = now - Duration.ofHours(1).toMillis();
            Map<TopicPartition, OffsetAndTimestamp> found = consumer.offsetsForTimes(Map.of(partition, hourAgo));
            OffsetAndTimestamp first = found.get(partition);
            assertNotNull(first, "a record in the last hour");
            assertEquals(3, first.offset());
            assertEquals(now - ages[3], first.timestamp());

            consumer.assign(List.of(partition));
            consumer.seek(partition, first.offset());
            List<ConsumerRecord<String, String>> records = Clients.pollExactly(consumer, 3);
            assertEquals(List.of("t3", "t4", "t5"), records.stream().map(ConsumerRecord::value).toList());
            assertEquals(now - ages[5], records.get(2).timestamp());

            assertEquals(0, consumer.offsetsForTimes(Map.of(partition, 0L)).get(partition).offset());
            Map<TopicPartition, OffsetAndTimestamp> future =
                consumer.offsetsForTimes(Map.of(partition, now + Duration.ofHours(1).toMillis()));
            assertNull(future.get(partition), "no record after now + 1h");
        }
    }

    /** With auto.offset.reset=none, a position past the end fails the poll with OFFSET_OUT_OF_RANGE. */
    @Test
    void seekPastTheEndIsOutOfRange() throws Exception {
        TopicPartition partition = topicWith(3);
        try (KafkaConsumer<String, String> consumer = Clients.consumer(broker, Map.of())) {
            consumer.assign(List.of(partition));
            consumer.seek(partition, 100);
            OffsetOutOfRangeException failure = assertThrows(OffsetOutOfRangeException.class, () -> {
                long deadline = System.nanoTime() + Clients.WAIT.toNanos();
                while (System.nanoTime() < deadline) {
                    consumer.poll(Duration.ofMillis(200));
                }
            });
            assertEquals(Map.of(partition, 100L), failure.offsetOutOfRangePartitions());
        }
    }

    /** One consumer assigned several partitions gets each partition's records in offset order. */
    @Test
    void assignSeveralPartitions() throws Exception {
        String topic = Clients.topic("multi");
        Clients.createTopic(admin, topic, 3);
        try (KafkaProducer<String, String> producer = Clients.producer(broker, Map.of())) {
            for (int i = 0; i < 12; i++) {
                producer.send(new ProducerRecord<>(topic, i % 3, null, "p" + (i % 3) + "-" + (i / 3))).get();
            }
        }
        List<TopicPartition> partitions =
            List.of(new TopicPartition(topic, 0), new TopicPartition(topic, 1), new TopicPartition(topic, 2));
        try (KafkaConsumer<String, String> consumer = Clients.consumer(broker, Map.of())) {
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            Map<Integer, List<String>> byPartition = new HashMap<>();
            for (ConsumerRecord<String, String> record : Clients.pollExactly(consumer, 12)) {
                byPartition.computeIfAbsent(record.partition(), p -> new java.util.ArrayList<>()).add(record.value());
            }
            for (int p = 0; p < 3; p++) {
                assertEquals(List.of("p" + p + "-0", "p" + p + "-1", "p" + p + "-2", "p" + p + "-3"), byPartition.get(p));
            }
        }
    }

    /** A one-partition topic holding records m0..m(count-1). */
    private static TopicPartition topicWith(int count) throws Exception {
        String topic = Clients.topic("consume");
        Clients.createTopic(admin, topic, 1);
        try (KafkaProducer<String, String> producer = Clients.producer(broker, Map.of())) {
            List<java.util.concurrent.Future<org.apache.kafka.clients.producer.RecordMetadata>> sent = new java.util.ArrayList<>();
            for (int i = 0; i < count; i++) {
                sent.add(producer.send(new ProducerRecord<>(topic, 0, null, "m" + i)));
            }
            for (int i = 0; i < count; i++) {
                assertEquals(i, sent.get(i).get().offset());
            }
        }
        return new TopicPartition(topic, 0);
    }
}
