package dev.strand.compat.streams;

import dev.strand.compat.Broker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.LongDeserializer;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.kstream.Materialized;
import org.apache.kafka.streams.kstream.Produced;
import org.apache.kafka.streams.kstream.Suppressed;
import org.apache.kafka.streams.kstream.TimeWindows;
import org.apache.kafka.streams.state.WindowStore;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A windowed count (tumbling windows of 10 s, no grace) whose results are held back by
 * {@code suppress(untilWindowCloses)}: once a later record closes the windows, exactly one final
 * count per key and window reaches the output, nothing for the window still open.
 */
@ExtendWith(Brokers.Extension.class)
class WindowedSuppressTest {
    private static final long WINDOW_MS = 10_000;
    private static final int EVENTS = 60;

    /** The final counts as {@code key@windowStart=count} (window start relative to the first event), sorted. */
    record Output(List<String> finals, Map<String, String> internalTopics) {}

    @ParameterizedTest
    @ValueSource(strings = {"exactly_once_v2", "at_least_once"})
    void suppressedWindows(String guarantee, Brokers brokers) {
        String app = "windows-" + guarantee.replace('_', '-');
        Map<String, Long> counts = new TreeMap<>();
        for (int i = 0; i < EVENTS; i++) {
            counts.merge(key(i) + "@" + (offsetMs(i) / WINDOW_MS * WINDOW_MS), 1L, Long::sum);
        }
        List<String> finals = new ArrayList<>();
        counts.forEach((window, count) -> finals.add(window + "=" + count));
        Map<String, String> internal = new TreeMap<>(Map.of(
            app + "-window-counts-changelog", "compact,delete",
            app + "-final-store-changelog", "compact"));
        Matrix.check("windowed-suppress", guarantee, brokers, new Output(finals, internal),
            broker -> run(broker, app, guarantee, finals.size()));
    }

    /** Event i's key: five keys, unevenly. */
    private static String key(int i) {
        return "k" + (i * i % 5);
    }

    /** Event i's time after the first window's start: a bit over a second apart, 7 windows. */
    private static long offsetMs(int i) {
        return i * 1_100L;
    }

    private static Matrix.Observation<Output> run(Broker broker, String app, String guarantee, int expected) throws Exception {
        String input = app + "-events";
        String output = app + "-finals";
        Io.createTopics(broker, 1, input, output);
        // Recent times (the broker's retention keeps them), aligned to the window size.
        long base = (System.currentTimeMillis() - 600_000) / WINDOW_MS * WINDOW_MS;
        StreamsBuilder builder = new StreamsBuilder();
        builder.<String, String>stream(input)
            .groupByKey()
            .windowedBy(TimeWindows.ofSizeAndGrace(Duration.ofMillis(WINDOW_MS), Duration.ZERO))
            .count(Materialized.<String, Long, WindowStore<Bytes, byte[]>>as("window-counts")
                .withKeySerde(Serdes.String()).withValueSerde(Serdes.Long()))
            .suppress(Suppressed.untilWindowCloses(Suppressed.BufferConfig.unbounded()).withName("final"))
            .toStream()
            .map((window, count) -> KeyValue.pair(window.key() + "@" + (window.window().start() - base), count))
            .to(output, Produced.with(Serdes.String(), Serdes.Long()));
        try (App instance = App.start(broker, app, guarantee, builder.build())) {
            instance.awaitRunning(Io.PATIENCE);
            List<ProducerRecord<String, String>> records = new ArrayList<>();
            for (int i = 0; i < EVENTS; i++) {
                records.add(new ProducerRecord<>(input, 0, base + offsetMs(i), key(i), "event-" + i));
            }
            // Stream time jumps past every window above: they close, this one's stays open.
            records.add(new ProducerRecord<>(input, 0, base + offsetMs(EVENTS) + 5 * WINDOW_MS, "k0", "closer"));
            Io.produce(broker, records);
            List<ConsumerRecord<String, Long>> read = Io.readUntil(broker, output, new StringDeserializer(),
                new LongDeserializer(), got -> got.size() >= expected, instance::checkHealthy);
            List<String> finals = new ArrayList<>();
            for (ConsumerRecord<String, Long> record : read) {
                finals.add(record.key() + "=" + record.value());
            }
            finals.sort(null);
            Map<String, String> policies = new TreeMap<>(Io.cleanupPolicies(broker, Io.internalTopics(broker, app)));
            return new Matrix.Observation<>(new Output(finals, policies), Io.brokerSide(broker, app));
        }
    }
}
