package dev.strand.compat.streams;

import dev.strand.compat.Broker;
import dev.strand.compat.StreamsCluster;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.serialization.LongDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.streams.StreamsConfig;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Issue 25's exactly-once run on a three-node cluster of its own (each broker's kind): every topic
 * replicated 3 ways with {@code min.insync.replicas=2}, the internal ones too; while records flow,
 * the leader of the changelog's partition 0 is killed with SIGKILL (and later restarted). Every
 * key's outputs must be exactly 1, 2, ..., its acknowledged record count.
 */
@ExtendWith(Brokers.Extension.class)
class ChangelogLeaderKillTest {
    private static final int PARTITIONS = 3;
    private static final int KEYS = 12;
    private static final int STEP = 1_000;
    private static final int STEPS = 3;
    private static final Map<String, String> REPLICATED = Map.of("min.insync.replicas", "2");

    /** Keys whose outputs were not exactly 1..n, with what they were. */
    record Output(List<String> anomalies) {}

    @ParameterizedTest
    @ValueSource(strings = {"exactly_once_v2"})
    void changelogLeaderKilled(String guarantee, Brokers brokers) {
        String app = "leader-kill-" + guarantee.replace('_', '-');
        Map<String, Long> totals = new TreeMap<>();
        for (int i = 0; i < STEP * STEPS; i++) {
            totals.merge(key(i), 1L, Long::sum);
        }
        Matrix.check("changelog-leader-kill", guarantee, brokers, new Output(List.of()),
            broker -> run(broker.kind(), app, guarantee, totals));
    }

    private static String key(int i) {
        return "key-" + (i % KEYS);
    }

    private static int leaderOf(String bootstrap, String topic) throws Exception {
        try (Admin admin = Io.admin(bootstrap)) {
            return admin.describeTopics(List.of(topic)).allTopicNames().get(30, TimeUnit.SECONDS).get(topic)
                .partitions().get(0).leader().id();
        }
    }

    private static Matrix.Observation<Output> run(Broker.Kind kind, String app, String guarantee,
        Map<String, Long> totals) throws Exception {
        String input = app + "-input";
        String output = app + "-counts";
        String changelog = app + "-per-key-changelog";
        try (StreamsCluster cluster = StreamsCluster.start(kind, 3)) {
            String bootstrap = cluster.bootstrap();
            Io.createTopics(bootstrap, PARTITIONS, (short) 3, REPLICATED, input, output);
            Properties replicated = CountingMember.overrides();
            replicated.put(StreamsConfig.REPLICATION_FACTOR_CONFIG, 3);
            replicated.put(StreamsConfig.topicPrefix("min.insync.replicas"), 2);
            try (App instance = App.start(bootstrap, app, guarantee, CountingMember.topology(input, output), replicated);
                Feeder feeder = new Feeder(bootstrap, input, ChangelogLeaderKillTest::key)) {
                instance.awaitRunning(Io.PATIENCE);
                int fed = feeder.allow(STEP);
                Io.await(fed + " records acknowledged", () -> feeder.acknowledged() >= fed);
                int next = feeder.allow(STEP);
                Io.await("records of the next step acknowledged", () -> feeder.acknowledged() > fed);
                int victim = leaderOf(bootstrap, changelog);
                cluster.kill(victim);
                Io.await(next + " records acknowledged", () -> feeder.acknowledged() >= next);
                int last = feeder.allow(STEP);
                Io.await(last + " records acknowledged", () -> feeder.acknowledged() >= last);
                cluster.restart(victim);
                List<ConsumerRecord<String, Long>> read = Io.readUntil(bootstrap, output, new StringDeserializer(),
                    new LongDeserializer(), got -> WordCountTest.reachedTotals(got, totals), () -> {
                        instance.checkHealthy();
                        feeder.checkHealthy();
                    });
                return new Matrix.Observation<>(new Output(RebalanceTest.anomalies(read, totals)), Map.of());
            } catch (Exception | AssertionError e) {
                throw new AssertionError(e.getMessage() + "\n" + cluster.tails(), e);
            }
        }
    }
}
