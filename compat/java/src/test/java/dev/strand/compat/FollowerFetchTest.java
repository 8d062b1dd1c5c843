package dev.strand.compat;

import static dev.strand.compat.ClusterAdmin.awaitPartitions;
import static dev.strand.compat.ClusterAdmin.describeTopic;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.Metric;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Racks and fetching from followers (KIP-392) through kafka-clients 4.4, on a three-node cluster
 * of its own ({@link Cluster}) whose node {@code n} has {@code broker.rack=rack-n} and Kafka's
 * {@code RackAwareReplicaSelector}.
 *
 * <p>describeCluster and describeTopics show each node's rack. A consumer with {@code client.rack}
 * set to a follower's rack reads every record of a replicated partition; that they came from the
 * follower is shown twice: by the consumer's own per-node metrics (the follower's connection
 * carried the record bytes, the leader's did not), and, on Strand, by the follower's log line
 * for consumer fetches it served.
 */
class FollowerFetchTest {
    private static final int NODES = 3;
    private static final int RECORDS = 200;
    private static final int VALUE_BYTES = 1000;
    private static final String SELECTOR = "org.apache.kafka.common.replica.RackAwareReplicaSelector";

    private static Cluster cluster;
    private static Admin admin;

    @BeforeAll
    static void startCluster() throws Exception {
        cluster = Cluster.start(NODES, id -> Map.of("broker.rack", rack(id), "replica.selector.class", SELECTOR));
        admin = Clients.admin(cluster.bootstrap());
    }

    @AfterAll
    static void stopCluster() {
        try {
            if (admin != null) {
                admin.close(Duration.ofSeconds(2));
            }
        } finally {
            if (cluster != null) {
                cluster.close();
            }
        }
    }

    private static String rack(int id) {
        return "rack-" + id;
    }

    /** describeCluster and describeTopics name each node's rack as it was configured. */
    @Test
    void racksAreShown() throws Exception {
        Map<Integer, String> racks = new TreeMap<>();
        for (Node node : admin.describeCluster().nodes().get(Clients.WAIT.toSeconds(), TimeUnit.SECONDS)) {
            racks.put(node.id(), node.rack());
        }
        assertEquals(Map.of(1, rack(1), 2, rack(2), 3, rack(3)), racks, "describeCluster");
        String topic = Clients.topic("racks");
        admin.createTopics(List.of(new NewTopic(topic, 1, (short) NODES))).all()
            .get(Clients.WAIT.toSeconds(), TimeUnit.SECONDS);
        awaitPartitions(admin, cluster, List.of(topic), "a leader", p -> p.leader() != null);
        for (Node replica : describeTopic(admin, topic).partitions().get(0).replicas()) {
            assertEquals(rack(replica.id()), replica.rack(), "describeTopics replica " + replica.id());
        }
    }

    /**
     * A consumer in a follower's rack reads all {@value #RECORDS} records of a partition replicated
     * to every node; the record bytes arrive over its connection to that follower.
     */
    @Test
    void aConsumerReadsFromTheFollowerInItsRack() throws Exception {
        String topic = Clients.topic("follower-fetch");
        admin.createTopics(List.of(new NewTopic(topic, 1, (short) NODES))).all()
            .get(Clients.WAIT.toSeconds(), TimeUnit.SECONDS);
        awaitPartitions(admin, cluster, List.of(topic), "a leader and an ISR of 3",
            p -> p.leader() != null && p.isr().size() == NODES);
        TopicDescription described = describeTopic(admin, topic);
        int leader = described.partitions().get(0).leader().id();
        int follower = described.partitions().get(0).replicas().stream().mapToInt(Node::id)
            .filter(id -> id != leader).min().orElseThrow();

        String value = "v".repeat(VALUE_BYTES);
        try (KafkaProducer<String, String> producer =
                 Clients.producer(cluster.bootstrap(), Map.of(ProducerConfig.ACKS_CONFIG, "all"))) {
            for (int i = 0; i < RECORDS; i++) {
                producer.send(new ProducerRecord<>(topic, 0, null, i + ":" + value));
            }
            producer.flush();
        }

        TopicPartition tp = new TopicPartition(topic, 0);
        try (KafkaConsumer<String, String> consumer = Clients.consumer(cluster.bootstrap(),
                 Map.of(ConsumerConfig.CLIENT_RACK_CONFIG, rack(follower),
                     ConsumerConfig.MAX_PARTITION_FETCH_BYTES_CONFIG, 64 * 1024))) {
            consumer.assign(List.of(tp));
            consumer.seekToBeginning(List.of(tp));
            List<ConsumerRecord<String, String>> records = Clients.pollExactly(consumer, RECORDS);
            for (int i = 0; i < RECORDS; i++) {
                assertEquals(i, records.get(i).offset());
                assertEquals(i + ":" + value, records.get(i).value());
            }
            double fromFollower = incomingBytes(consumer, follower);
            double fromLeader = incomingBytes(consumer, leader);
            System.out.printf("follower fetch (%s): leader %d, follower %d (%s); bytes received from the follower %.0f,"
                + " from the leader %.0f%n", cluster.kind().name().toLowerCase(), leader, follower, rack(follower),
                fromFollower, fromLeader);
            assertTrue(fromFollower >= RECORDS * VALUE_BYTES, "the records came over the follower's connection: "
                + fromFollower + " bytes");
            assertTrue(fromLeader < RECORDS * VALUE_BYTES / 2, "the leader sent few bytes: " + fromLeader);
        }
        if (cluster.kind() == Broker.Kind.STRAND) {
            String log = cluster.stderr(follower);
            assertTrue(log.contains("serving consumer fetches of " + topic + "-0 from this follower"),
                "node " + follower + "'s log names the consumer fetches it served:\n" + cluster.tails());
        }
    }

    /** The consumer's {@code incoming-byte-total} on its connection to node {@code id}. */
    private static double incomingBytes(KafkaConsumer<?, ?> consumer, int id) {
        for (Map.Entry<MetricName, ? extends Metric> entry : consumer.metrics().entrySet()) {
            MetricName name = entry.getKey();
            if (name.group().equals("consumer-node-metrics") && name.name().equals("incoming-byte-total")
                    && ("node-" + id).equals(name.tags().get("node-id"))) {
                return ((Number) entry.getValue().metricValue()).doubleValue();
            }
        }
        return 0;
    }
}
