package dev.strand.compat.streams;

import dev.strand.compat.Broker;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.LongDeserializer;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.ThreadMetadata;
import org.apache.kafka.streams.kstream.Materialized;
import org.apache.kafka.streams.kstream.Produced;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Two instances of one application rebalance while processing a per-key count: the first runs alone,
 * the second joins while records arrive and takes over some tasks, then the first leaves and the
 * second takes them all back, restoring their counts from the changelog. Every key's outputs must be
 * exactly 1, 2, ..., its record count: nothing lost, nothing counted twice.
 */
@ExtendWith(Brokers.Extension.class)
class RebalanceTest {
    private static final int PARTITIONS = 4;
    private static final int KEYS = 16;
    private static final int BATCH = 100;
    private static final int BATCHES = 4;

    /** Per key its count updates in output order; whether the second instance got tasks while both ran. */
    record Output(Map<String, List<Long>> counts, boolean sharedTasks, int tasksOfSurvivor) {}

    @ParameterizedTest
    @ValueSource(strings = {"exactly_once_v2"})
    void twoInstances(String guarantee, Brokers brokers) {
        String app = "rebalance-" + guarantee.replace('_', '-');
        Map<String, Long> totals = new TreeMap<>();
        for (int i = 0; i < BATCH * BATCHES; i++) {
            totals.merge(key(i), 1L, Long::sum);
        }
        Map<String, List<Long>> counts = new TreeMap<>();
        totals.forEach((key, total) -> {
            List<Long> updates = new ArrayList<>();
            for (long n = 1; n <= total; n++) {
                updates.add(n);
            }
            counts.put(key, updates);
        });
        Matrix.check("two-instance-rebalance", guarantee, brokers, new Output(counts, true, PARTITIONS),
            broker -> run(broker, app, guarantee, totals));
    }

    private static String key(int i) {
        return "key-" + (i % KEYS);
    }

    private static List<ProducerRecord<String, String>> batch(String topic, int number) {
        List<ProducerRecord<String, String>> records = new ArrayList<>();
        for (int i = number * BATCH; i < (number + 1) * BATCH; i++) {
            records.add(new ProducerRecord<>(topic, key(i), "value-" + i));
        }
        return records;
    }

    private static int activeTasks(App instance) {
        int tasks = 0;
        for (ThreadMetadata thread : instance.streams().metadataForLocalThreads()) {
            tasks += thread.activeTasks().size();
        }
        return tasks;
    }

    private static Matrix.Observation<Output> run(Broker broker, String app, String guarantee, Map<String, Long> totals)
        throws Exception {
        String input = app + "-input";
        String output = app + "-counts";
        Io.createTopics(broker, PARTITIONS, input, output);
        StreamsBuilder builder = new StreamsBuilder();
        builder.<String, String>stream(input)
            .groupByKey()
            .count(Materialized.as("per-key"))
            .toStream()
            .to(output, Produced.with(Serdes.String(), Serdes.Long()));
        boolean shared;
        int survivorTasks;
        App first = App.start(broker, app, guarantee, builder.build());
        App second = null;
        try {
            first.awaitRunning(Io.PATIENCE);
            Io.produce(broker, batch(input, 0));
            second = App.start(broker, app, guarantee, builder.build());
            Io.produce(broker, batch(input, 1));
            App joined = second;
            Io.await("both instances own active tasks", () -> {
                first.checkHealthy();
                joined.checkHealthy();
                return activeTasks(first) > 0 && activeTasks(joined) > 0
                    && activeTasks(first) + activeTasks(joined) == PARTITIONS;
            });
            shared = true;
            Io.produce(broker, batch(input, 2));
            first.closeLeavingGroup();
            Io.produce(broker, batch(input, 3));
            Io.await("the remaining instance owns every task", () -> {
                joined.checkHealthy();
                return activeTasks(joined) == PARTITIONS;
            });
            survivorTasks = activeTasks(joined);
            List<ConsumerRecord<String, Long>> read = Io.readUntil(broker, output, new StringDeserializer(),
                new LongDeserializer(), got -> WordCountTest.reachedTotals(got, totals), joined::checkHealthy);
            Map<String, List<Long>> counts = new TreeMap<>();
            for (ConsumerRecord<String, Long> record : read) {
                counts.computeIfAbsent(record.key(), k -> new ArrayList<>()).add(record.value());
            }
            return new Matrix.Observation<>(new Output(counts, shared, survivorTasks), Io.brokerSide(broker, app));
        } finally {
            first.close();
            if (second != null) {
                second.close();
            }
        }
    }
}
