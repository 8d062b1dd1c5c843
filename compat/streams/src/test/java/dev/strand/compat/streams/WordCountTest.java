package dev.strand.compat.streams;

import dev.strand.compat.Broker;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.LongDeserializer;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.kstream.Grouped;
import org.apache.kafka.streams.kstream.KStream;
import org.apache.kafka.streams.kstream.Materialized;
import org.apache.kafka.streams.kstream.Produced;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Word count: lines split into words, regrouped by word (a repartition topic), counted in a state
 * store (its changelog topic compacted), every count update written to the output; halfway the
 * instance stops and a new one, its state directory empty, restores the store from the changelog.
 * Each word's outputs must be exactly 1, 2, ..., its count (no update lost or repeated), the internal
 * topics must exist with Kafka Streams' cleanup policies, and the repartition topic gets purged.
 * Under the streams rebalance protocol (KIP-1071) the broker creates the internal topics from the
 * topology the member sends and assigns its tasks.
 */
@ExtendWith(Brokers.Extension.class)
class WordCountTest {
    private static final String[] VOCABULARY = ("alpha bravo charlie delta echo foxtrot golf hotel india juliett "
        + "kilo lima mike november oscar papa quebec romeo sierra tango").split(" ");
    private static final int LINES = 300;

    /** Per word its count updates in output order, and the application's internal topics' cleanup.policy. */
    record Output(Map<String, List<Long>> counts, Map<String, String> internalTopics) {}

    @ParameterizedTest
    @CsvSource({"exactly_once_v2, classic", "at_least_once, classic", "exactly_once_v2, streams"})
    void wordCount(String guarantee, String protocol, Brokers brokers) {
        String app = "wordcount-" + guarantee.replace('_', '-') + ("streams".equals(protocol) ? "-streams" : "");
        List<String> lines = lines();
        Map<String, List<Long>> counts = new TreeMap<>();
        Map<String, Long> totals = totals(lines);
        totals.forEach((word, total) -> {
            List<Long> updates = new ArrayList<>();
            for (long i = 1; i <= total; i++) {
                updates.add(i);
            }
            counts.put(word, updates);
        });
        Map<String, String> internal = new TreeMap<>(Map.of(
            app + "-by-word-repartition", "delete",
            app + "-counts-changelog", "compact"));
        String scenario = "streams".equals(protocol) ? "wordcount-streams" : "wordcount";
        Matrix.check(scenario, guarantee, brokers, new Output(counts, internal),
            broker -> run(broker, app, guarantee, protocol, lines, totals));
    }

    private static Matrix.Observation<Output> run(Broker broker, String app, String guarantee, String protocol,
        List<String> lines, Map<String, Long> totals)
        throws Exception {
        String input = app + "-lines";
        String output = app + "-counts";
        Io.createTopics(broker, 3, input, output);
        StreamsBuilder builder = new StreamsBuilder();
        KStream<String, String> text = builder.stream(input);
        text.flatMapValues(line -> Arrays.asList(line.split(" ")))
            .groupBy((key, word) -> word, Grouped.as("by-word"))
            .count(Materialized.as("counts"))
            .toStream()
            .to(output, Produced.with(Serdes.String(), Serdes.Long()));
        // First half on one instance; then it stops and a new one with an empty state directory
        // restores the counts from the changelog and counts the second half on top of them.
        int half = lines.size() / 2;
        Map<String, Long> halfway = totals(lines.subList(0, half));
        try (App instance = App.start(broker, app, guarantee, builder.build(), App.protocol(protocol))) {
            instance.awaitRunning(Io.PATIENCE);
            Io.produce(broker, records(input, lines, 0, half));
            Io.readUntil(broker, output, new StringDeserializer(), new LongDeserializer(),
                got -> reachedTotals(got, halfway), instance::checkHealthy);
            instance.closeLeavingGroup();
        }
        try (App instance = App.start(broker, app, guarantee, builder.build(), App.protocol(protocol))) {
            instance.awaitRunning(Io.PATIENCE);
            Io.produce(broker, records(input, lines, half, lines.size()));
            List<ConsumerRecord<String, Long>> read = Io.readUntil(broker, output, new StringDeserializer(),
                new LongDeserializer(), got -> reachedTotals(got, totals), instance::checkHealthy);
            Map<String, List<Long>> counts = new TreeMap<>();
            for (ConsumerRecord<String, Long> record : read) {
                counts.computeIfAbsent(record.key(), k -> new ArrayList<>()).add(record.value());
            }
            Io.awaitRepartitionPurged(broker, app);
            Set<String> internalTopics = Io.internalTopics(broker, app);
            Map<String, String> policies = new TreeMap<>(Io.cleanupPolicies(broker, internalTopics));
            return new Matrix.Observation<>(new Output(counts, policies), Io.brokerSide(broker, app));
        }
    }

    private static List<ProducerRecord<String, String>> records(String topic, List<String> lines, int from, int to) {
        List<ProducerRecord<String, String>> records = new ArrayList<>();
        for (int i = from; i < to; i++) {
            records.add(new ProducerRecord<>(topic, "line-" + i, lines.get(i)));
        }
        return records;
    }

    static Map<String, Long> totals(List<String> lines) {
        Map<String, Long> totals = new TreeMap<>();
        for (String line : lines) {
            for (String word : line.split(" ")) {
                totals.merge(word, 1L, Long::sum);
            }
        }
        return totals;
    }

    static boolean reachedTotals(List<ConsumerRecord<String, Long>> read, Map<String, Long> totals) {
        Map<String, Long> latest = new TreeMap<>();
        for (ConsumerRecord<String, Long> record : read) {
            latest.merge(record.key(), record.value(), Math::max);
        }
        return latest.equals(totals);
    }

    private static List<String> lines() {
        Random random = new Random(25);
        List<String> lines = new ArrayList<>();
        for (int i = 0; i < LINES; i++) {
            StringBuilder line = new StringBuilder();
            int words = 1 + random.nextInt(6);
            for (int w = 0; w < words; w++) {
                line.append(w == 0 ? "" : " ").append(VOCABULARY[random.nextInt(VOCABULARY.length)]);
            }
            lines.add(line.toString());
        }
        return lines;
    }
}
