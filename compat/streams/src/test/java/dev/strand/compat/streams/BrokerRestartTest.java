package dev.strand.compat.streams;

import dev.strand.compat.Broker;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.serialization.LongDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The broker is killed (SIGKILL) and restarted under a running exactly-once application while
 * records flow in ({@link Feeder}): its open transaction, its group and its producer state must come
 * back so that every key's outputs are still exactly 1, 2, ..., its acknowledged record count.
 */
@ExtendWith(Brokers.Extension.class)
class BrokerRestartTest {
    private static final int PARTITIONS = 3;
    private static final int KEYS = 12;
    private static final int STEP = 1_000;
    private static final int STEPS = 3;

    /** Keys whose outputs were not exactly 1..n, with what they were. */
    record Output(List<String> anomalies) {}

    @ParameterizedTest
    @ValueSource(strings = {"exactly_once_v2"})
    void brokerKilled(String guarantee, Brokers brokers) {
        String app = "broker-restart-" + guarantee.replace('_', '-');
        Map<String, Long> totals = new TreeMap<>();
        for (int i = 0; i < STEP * STEPS; i++) {
            totals.merge(key(i), 1L, Long::sum);
        }
        Matrix.check("broker-kill-restart", guarantee, brokers, new Output(List.of()),
            broker -> run(broker, app, guarantee, totals));
    }

    private static String key(int i) {
        return "key-" + (i % KEYS);
    }

    private static Matrix.Observation<Output> run(Broker broker, String app, String guarantee, Map<String, Long> totals)
        throws Exception {
        String input = app + "-input";
        String output = app + "-counts";
        Io.createTopics(broker, PARTITIONS, input, output);
        try (App instance = App.start(broker, app, guarantee, CountingMember.topology(input, output));
            Feeder feeder = new Feeder(broker, input, BrokerRestartTest::key)) {
            instance.awaitRunning(Io.PATIENCE);
            int fed = feeder.allow(STEP);
            Io.await(fed + " records acknowledged", () -> feeder.acknowledged() >= fed);
            // Some of the next step is in flight (sent, processed, in an open transaction) when the broker dies.
            int next = feeder.allow(STEP);
            Io.await("records of the next step acknowledged", () -> feeder.acknowledged() > fed);
            broker.restart(Broker.Stop.KILL);
            Io.await(next + " records acknowledged", () -> feeder.acknowledged() >= next);
            int last = feeder.allow(STEP);
            Io.await(last + " records acknowledged", () -> feeder.acknowledged() >= last);
            List<ConsumerRecord<String, Long>> read = Io.readUntil(broker, output, new StringDeserializer(),
                new LongDeserializer(), got -> WordCountTest.reachedTotals(got, totals), () -> {
                    instance.checkHealthy();
                    feeder.checkHealthy();
                });
            return new Matrix.Observation<>(new Output(RebalanceTest.anomalies(read, totals)), Io.brokerSide(broker, app));
        }
    }
}
