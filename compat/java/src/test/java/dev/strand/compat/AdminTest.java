package dev.strand.compat;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.CreateTopicsOptions;
import org.apache.kafka.clients.admin.CreateTopicsResult;
import org.apache.kafka.clients.admin.DescribeClusterResult;
import org.apache.kafka.clients.admin.ListOffsetsResult;
import org.apache.kafka.clients.admin.NewPartitions;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.TopicCollection;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.TopicPartitionInfo;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.errors.InvalidConfigurationException;
import org.apache.kafka.common.errors.InvalidPartitionsException;
import org.apache.kafka.common.errors.InvalidReplicationFactorException;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.errors.UnknownTopicIdException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** AdminClient: topics (create, describe, partitions, delete), topic configs, offsets, the cluster. */
@ExtendWith(BrokerExtension.class)
class AdminTest {
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

    /** createTopics with partitions and configs; the result and describeTopics report what was made. */
    @Test
    void createTopicWithPartitionsAndConfigs() throws Exception {
        String topic = Clients.topic("created");
        NewTopic request = new NewTopic(topic, 3, (short) 1)
            .configs(Map.of("retention.ms", "3600000", "cleanup.policy", "compact"));
        CreateTopicsResult created = admin.createTopics(List.of(request));
        assertEquals(3, wait(created.numPartitions(topic)));
        assertEquals(1, wait(created.replicationFactor(topic)));
        Uuid topicId = wait(created.topicId(topic));
        assertNotEquals(Uuid.ZERO_UUID, topicId);
        Config returned = wait(created.config(topic));
        assertEquals("3600000", returned.get("retention.ms").value());
        assertEquals("compact", returned.get("cleanup.policy").value());

        TopicDescription description = Clients.awaitTopic(admin, topic, 3);
        assertEquals(topic, description.name());
        assertEquals(topicId, description.topicId());
        assertFalse(description.isInternal());
        assertEquals(3, description.partitions().size());
        for (int p = 0; p < 3; p++) {
            TopicPartitionInfo partition = description.partitions().get(p);
            assertEquals(p, partition.partition());
            assertEquals(Broker.NODE_ID, partition.leader().id());
            assertEquals(List.of(Broker.NODE_ID), partition.replicas().stream().map(Node::id).toList());
            assertEquals(List.of(Broker.NODE_ID), partition.isr().stream().map(Node::id).toList());
        }
        // By id the client asks Metadata (no ELR fields); by name DescribeTopicPartitions: compare the common part.
        TopicDescription byId = wait(admin.describeTopics(TopicCollection.ofTopicIds(List.of(topicId)))
            .allTopicIds()).get(topicId);
        assertEquals(topic, byId.name());
        assertEquals(3, byId.partitions().size());
        assertEquals(Broker.NODE_ID, byId.partitions().get(2).leader().id());

        ConfigEntry retention = topicConfig(topic, "retention.ms");
        assertEquals("3600000", retention.value());
        assertEquals(ConfigEntry.ConfigSource.DYNAMIC_TOPIC_CONFIG, retention.source());
        assertTrue(wait(admin.listTopics().names()).contains(topic));
    }

    /** CreateTopics errors: TOPIC_ALREADY_EXISTS, INVALID_REPLICATION_FACTOR, INVALID_CONFIG; validateOnly creates nothing. */
    @Test
    void createTopicErrors() throws Exception {
        String topic = Clients.topic("dup");
        Clients.createTopic(admin, topic, 1);
        assertCause(TopicExistsException.class, admin.createTopics(List.of(new NewTopic(topic, 1, (short) 1))).all());
        assertCause(InvalidReplicationFactorException.class,
            admin.createTopics(List.of(new NewTopic(Clients.topic("rf3"), 1, (short) 3))).all());
        assertCause(InvalidConfigurationException.class, admin.createTopics(List.of(
            new NewTopic(Clients.topic("badconfig"), 1, (short) 1).configs(Map.of("retention.ms", "soon")))).all());

        String validated = Clients.topic("validate-only");
        admin.createTopics(List.of(new NewTopic(validated, 2, (short) 1)), new CreateTopicsOptions().validateOnly(true))
            .all().get(Clients.WAIT.toSeconds(), TimeUnit.SECONDS);
        assertFalse(wait(admin.listTopics().names()).contains(validated), "validateOnly created the topic");
    }

    /** createPartitions adds partitions; the same count or fewer fails with INVALID_PARTITIONS. */
    @Test
    void createPartitionsOnlyIncreases() throws Exception {
        String topic = Clients.topic("grow");
        Clients.createTopic(admin, topic, 2);
        wait(admin.createPartitions(Map.of(topic, NewPartitions.increaseTo(4))).all());
        TopicDescription grown = Clients.awaitTopic(admin, topic, 4);
        assertEquals(Broker.NODE_ID, grown.partitions().get(3).leader().id());

        assertCause(InvalidPartitionsException.class,
            admin.createPartitions(Map.of(topic, NewPartitions.increaseTo(4))).all());
        assertCause(InvalidPartitionsException.class,
            admin.createPartitions(Map.of(topic, NewPartitions.increaseTo(3))).all());
        assertEquals(4, describe(topic).partitions().size());

        try (KafkaProducer<String, String> producer = Clients.producer(broker, Map.of())) {
            assertEquals(0, producer.send(new ProducerRecord<>(topic, 3, null, "new partition")).get().offset());
        }
    }

    /** deleteTopics by name and by id; the topic disappears; deleting an unknown topic fails. */
    @Test
    void deleteTopicsByNameAndId() throws Exception {
        String byName = Clients.topic("delete-name");
        String byId = Clients.topic("delete-id");
        Clients.createTopic(admin, byName, 1);
        Clients.createTopic(admin, byId, 1);
        Uuid id = describe(byId).topicId();

        wait(admin.deleteTopics(List.of(byName)).all());
        wait(admin.deleteTopics(TopicCollection.ofTopicIds(List.of(id))).all());
        awaitGone(Set.of(byName, byId));
        assertCause(UnknownTopicOrPartitionException.class, admin.describeTopics(List.of(byName)).allTopicNames());
        assertCause(UnknownTopicOrPartitionException.class, admin.deleteTopics(List.of(byName)).all());
        assertCause(UnknownTopicIdException.class, admin.deleteTopics(TopicCollection.ofTopicIds(List.of(id))).all());

        // The name can be used again, for a new topic with a new id.
        Clients.createTopic(admin, byId, 2);
        TopicDescription again = describe(byId);
        assertEquals(2, again.partitions().size());
        assertNotEquals(id, again.topicId());
    }

    /** incrementalAlterConfigs SET, APPEND and DELETE on a topic, as describeConfigs then reports them. */
    @Test
    void describeAndAlterTopicConfigs() throws Exception {
        String topic = Clients.topic("configs");
        Clients.createTopic(admin, topic, 1);
        ConfigEntry retention = topicConfig(topic, "retention.ms");
        assertEquals("604800000", retention.value());
        assertEquals(ConfigEntry.ConfigSource.DEFAULT_CONFIG, retention.source());
        assertEquals("delete", topicConfig(topic, "cleanup.policy").value());

        ConfigResource resource = new ConfigResource(ConfigResource.Type.TOPIC, topic);
        wait(admin.incrementalAlterConfigs(Map.of(resource, List.of(
            new AlterConfigOp(new ConfigEntry("retention.ms", "60000"), AlterConfigOp.OpType.SET),
            new AlterConfigOp(new ConfigEntry("cleanup.policy", "compact"), AlterConfigOp.OpType.APPEND)))).all());
        ConfigEntry altered = topicConfig(topic, "retention.ms");
        assertEquals("60000", altered.value());
        assertEquals(ConfigEntry.ConfigSource.DYNAMIC_TOPIC_CONFIG, altered.source());
        assertEquals("delete,compact", topicConfig(topic, "cleanup.policy").value());

        wait(admin.incrementalAlterConfigs(Map.of(resource, List.of(
            new AlterConfigOp(new ConfigEntry("retention.ms", null), AlterConfigOp.OpType.DELETE)))).all());
        ConfigEntry restored = topicConfig(topic, "retention.ms");
        assertEquals("604800000", restored.value());
        assertEquals(ConfigEntry.ConfigSource.DEFAULT_CONFIG, restored.source());

        assertCause(InvalidConfigurationException.class, admin.incrementalAlterConfigs(Map.of(resource, List.of(
            new AlterConfigOp(new ConfigEntry("retention.ms", "soon"), AlterConfigOp.OpType.SET)))).all());
        assertEquals("604800000", topicConfig(topic, "retention.ms").value());
    }

    /** describeConfigs for the broker reports its node id and Kafka's defaults. */
    @Test
    void describeBrokerConfigs() throws Exception {
        ConfigResource resource = new ConfigResource(ConfigResource.Type.BROKER, Integer.toString(Broker.NODE_ID));
        Config config = wait(admin.describeConfigs(List.of(resource)).all()).get(resource);
        assertEquals(Integer.toString(Broker.NODE_ID), config.get("node.id").value());
        assertEquals("1048588", config.get("message.max.bytes").value());
        assertEquals(ConfigEntry.ConfigSource.DEFAULT_CONFIG, config.get("message.max.bytes").source());
        assertEquals("1", config.get("num.partitions").value());
    }

    /** describeCluster: one node, 127.0.0.1 and the suite's port, a cluster id. */
    @Test
    void describeCluster() throws Exception {
        DescribeClusterResult cluster = admin.describeCluster();
        Collection<Node> nodes = wait(cluster.nodes());
        assertEquals(1, nodes.size());
        Node node = nodes.iterator().next();
        assertEquals(Broker.NODE_ID, node.id());
        assertEquals("127.0.0.1", node.host());
        assertEquals(broker.port(), node.port());
        String clusterId = wait(cluster.clusterId());
        assertNotNull(clusterId);
        assertEquals(22, clusterId.length(), "a Kafka cluster id is a base64 UUID: " + clusterId);
        assertEquals(Broker.NODE_ID, wait(cluster.controller()).id());
    }

    /** listOffsets: earliest, latest, max timestamp and by timestamp. */
    @Test
    void listOffsets() throws Exception {
        String topic = Clients.topic("offsets");
        Clients.createTopic(admin, topic, 1);
        TopicPartition partition = new TopicPartition(topic, 0);
        long base = System.currentTimeMillis() - 60_000;
        long[] timestamps = {base, base + 3000, base + 1000, base + 2000};
        try (KafkaProducer<String, String> producer = Clients.producer(broker, Map.of())) {
            for (long timestamp : timestamps) {
                producer.send(new ProducerRecord<>(topic, 0, timestamp, null, "at " + timestamp)).get();
            }
        }
        assertEquals(0, listOffset(partition, OffsetSpec.earliest()).offset());
        assertEquals(4, listOffset(partition, OffsetSpec.latest()).offset());
        ListOffsetsResult.ListOffsetsResultInfo max = listOffset(partition, OffsetSpec.maxTimestamp());
        assertEquals(1, max.offset());
        assertEquals(base + 3000, max.timestamp());
        ListOffsetsResult.ListOffsetsResultInfo at = listOffset(partition, OffsetSpec.forTimestamp(base + 1500));
        assertEquals(1, at.offset());
        assertEquals(base + 3000, at.timestamp());
        assertEquals(Optional.of(0), at.leaderEpoch());
    }

    private static ListOffsetsResult.ListOffsetsResultInfo listOffset(TopicPartition partition, OffsetSpec spec)
            throws Exception {
        return wait(admin.listOffsets(Map.of(partition, spec)).partitionResult(partition));
    }

    private static TopicDescription describe(String topic) throws Exception {
        return wait(admin.describeTopics(List.of(topic)).allTopicNames()).get(topic);
    }

    private static ConfigEntry topicConfig(String topic, String name) throws Exception {
        ConfigResource resource = new ConfigResource(ConfigResource.Type.TOPIC, topic);
        ConfigEntry entry = wait(admin.describeConfigs(List.of(resource)).all()).get(resource).get(name);
        assertNotNull(entry, topic + " has no config " + name);
        return entry;
    }

    /** Topic deletion reaches the broker's metadata after the controller commits it; wait for that. */
    private static void awaitGone(Set<String> topics) throws Exception {
        long deadline = System.nanoTime() + Clients.WAIT.toNanos();
        Set<String> listed;
        do {
            listed = wait(admin.listTopics().names());
            if (listed.stream().noneMatch(topics::contains)) {
                return;
            }
            Thread.sleep(50);
        } while (System.nanoTime() < deadline);
        throw new AssertionError("deleted topics still listed: " + listed);
    }

    private static void assertCause(Class<? extends Throwable> expected, Future<?> future) {
        ExecutionException failure = assertThrows(ExecutionException.class,
            () -> future.get(Clients.WAIT.toSeconds(), TimeUnit.SECONDS));
        assertInstanceOf(expected, failure.getCause(), failure.getCause().toString());
    }

    private static <T> T wait(Future<T> future) throws Exception {
        return future.get(Clients.WAIT.toSeconds(), TimeUnit.SECONDS);
    }
}
