package dev.strand.compat.streams;

import dev.strand.compat.Broker;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.serialization.LongDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.ThreadMetadata;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Two instances of one application ({@code num.standby.replicas=1}) rebalance while processing a
 * per-key count, under a steady input ({@link Feeder}): the first runs alone, the second joins and
 * takes over some tasks, each keeping a standby of the other's, then the first leaves (LeaveGroup)
 * and the second takes them all, from its standbys' copy of the changelog. Every key's outputs must be exactly 1, 2, ..., its acknowledged record count: nothing
 * lost, nothing counted twice.
 */
@ExtendWith(Brokers.Extension.class)
class RebalanceTest {
    private static final int PARTITIONS = 4;
    private static final int KEYS = 16;
    /** Records fed around each step of the scenario, so each step happens while records flow. */
    private static final int STEP = 2_000;
    private static final int STEPS = 4;

    /**
     * Keys whose outputs were not exactly 1..n (with what they were), whether both instances held
     * tasks at once, and how many tasks the remaining instance held at the end.
     */
    record Output(List<String> anomalies, boolean sharedTasks, int tasksOfSurvivor) {}

    @ParameterizedTest
    @CsvSource({"exactly_once_v2, classic", "exactly_once_v2, streams"})
    void twoInstances(String guarantee, String protocol, Brokers brokers) {
        String app = "rebalance-" + guarantee.replace('_', '-') + ("streams".equals(protocol) ? "-streams" : "");
        Map<String, Long> totals = new TreeMap<>();
        for (int i = 0; i < STEP * STEPS; i++) {
            totals.merge(key(i), 1L, Long::sum);
        }
        String scenario = "streams".equals(protocol) ? "two-instance-streams" : "two-instance-rebalance";
        Matrix.check(scenario, guarantee, brokers, new Output(List.of(), true, PARTITIONS),
            broker -> run(broker, app, guarantee, protocol, totals));
    }

    private static String key(int i) {
        return "key-" + (i % KEYS);
    }

    private static int activeTasks(App instance) {
        int tasks = 0;
        for (ThreadMetadata thread : instance.streams().metadataForLocalThreads()) {
            tasks += thread.activeTasks().size();
        }
        return tasks;
    }

    /** Keys whose outputs in {@code read} are not exactly 1, 2, ..., their total, with what they were. */
    static List<String> anomalies(List<ConsumerRecord<String, Long>> read, Map<String, Long> totals) {
        Map<String, List<Long>> counts = new TreeMap<>();
        for (ConsumerRecord<String, Long> record : read) {
            counts.computeIfAbsent(record.key(), k -> new ArrayList<>()).add(record.value());
        }
        List<String> anomalies = new ArrayList<>();
        for (Map.Entry<String, Long> total : totals.entrySet()) {
            List<Long> updates = counts.getOrDefault(total.getKey(), List.of());
            List<Long> expected = new ArrayList<>();
            for (long n = 1; n <= total.getValue(); n++) {
                expected.add(n);
            }
            if (!updates.equals(expected)) {
                anomalies.add(total.getKey() + ": expected 1.." + total.getValue() + ", got " + updates.size()
                    + " updates " + updates);
            }
        }
        return anomalies;
    }

    private static int standbyTasks(App instance) {
        int tasks = 0;
        for (ThreadMetadata thread : instance.streams().metadataForLocalThreads()) {
            tasks += thread.standbyTasks().size();
        }
        return tasks;
    }

    private static void awaitFed(Feeder feeder, int target) throws InterruptedException {
        Io.await(target + " records acknowledged", () -> feeder.acknowledged() >= target);
    }

    private static Matrix.Observation<Output> run(Broker broker, String app, String guarantee, String protocol,
        Map<String, Long> totals)
        throws Exception {
        String input = app + "-input";
        String output = app + "-counts";
        Io.createTopics(broker, PARTITIONS, input, output);
        // Each instance keeps a standby of the other's tasks: the survivor takes them over warm. (A
        // streams group's standbys are the broker's group.streams.num.standby.replicas, 1 on both.)
        Properties standby = App.protocol(protocol);
        if ("classic".equals(protocol)) {
            standby.put(StreamsConfig.NUM_STANDBY_REPLICAS_CONFIG, 1);
        }
        App first = App.start(broker, app, guarantee, CountingMember.topology(input, output), standby);
        App second = null;
        try (Feeder feeder = new Feeder(broker, input, RebalanceTest::key)) {
            first.awaitRunning(Io.PATIENCE);
            awaitFed(feeder, feeder.allow(STEP));
            int fed = feeder.allow(STEP);
            App joined = App.start(broker, app, guarantee, CountingMember.topology(input, output), standby);
            second = joined;
            Io.await("both instances own active tasks and standbys of the other's", () -> {
                first.checkHealthy();
                joined.checkHealthy();
                return activeTasks(first) > 0 && activeTasks(joined) > 0
                    && activeTasks(first) + activeTasks(joined) == PARTITIONS
                    && standbyTasks(first) == activeTasks(joined) && standbyTasks(joined) == activeTasks(first);
            });
            awaitFed(feeder, fed);
            fed = feeder.allow(STEP);
            first.closeLeavingGroup();
            Io.await("the remaining instance owns every task", () -> {
                joined.checkHealthy();
                return activeTasks(joined) == PARTITIONS;
            });
            int survivorTasks = activeTasks(joined);
            awaitFed(feeder, fed);
            awaitFed(feeder, feeder.allow(STEP));
            List<ConsumerRecord<String, Long>> read = Io.readUntil(broker, output, new StringDeserializer(),
                new LongDeserializer(), got -> WordCountTest.reachedTotals(got, totals), () -> {
                    joined.checkHealthy();
                    feeder.checkHealthy();
                });
            return new Matrix.Observation<>(new Output(anomalies(read, totals), true, survivorTasks), Io.brokerSide(broker, app));
        } finally {
            first.close();
            if (second != null) {
                second.close();
            }
        }
    }
}
