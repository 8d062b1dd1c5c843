package dev.strand.compat.streams;

import dev.strand.compat.Broker;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.streams.StoreQueryParameters;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.errors.InvalidStateStoreException;
import org.apache.kafka.streams.kstream.KTable;
import org.apache.kafka.streams.kstream.Materialized;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.QueryableStoreTypes;
import org.apache.kafka.streams.state.ReadOnlyKeyValueStore;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A stream-table left join: clicks joined with the users table (materialised, read back through an
 * interactive query before each wave of clicks, so the join sees a known table), then some users
 * move and an unknown one appears, and more clicks join with the updated table.
 */
@ExtendWith(Brokers.Extension.class)
class StreamTableJoinTest {
    private static final int USERS = 10;
    private static final int CLICKS = 30;

    /** The joined values in output order (one partition), and the internal topics' cleanup.policy. */
    record Output(List<String> joined, Map<String, String> internalTopics) {}

    @ParameterizedTest
    @ValueSource(strings = {"exactly_once_v2", "at_least_once"})
    void streamTableJoin(String guarantee, Brokers brokers) {
        String app = "join-" + guarantee.replace('_', '-');
        Map<String, String> regions = new TreeMap<>();
        for (int u = 0; u < USERS; u++) {
            regions.put("u" + u, "region-" + (u % 3));
        }
        List<String> joined = new ArrayList<>();
        for (int c = 0; c < CLICKS; c++) {
            joined.add(click(c) + "@" + regions.get(user(c)));
        }
        Map<String, String> moved = moves();
        Map<String, String> later = new TreeMap<>(regions);
        later.putAll(moved);
        for (int c = CLICKS; c < 2 * CLICKS; c++) {
            joined.add(click(c) + "@" + later.get(user(c)));
        }
        Map<String, String> internal = new TreeMap<>(Map.of(app + "-users-changelog", "compact"));
        Matrix.check("stream-table-join", guarantee, brokers, new Output(joined, internal),
            broker -> run(broker, app, guarantee, regions, moved, later));
    }

    /** Click c's user: u0..u11, of which u10 and u11 are not in the table at first. */
    private static String user(int c) {
        return "u" + (c * 7 % 12);
    }

    private static String click(int c) {
        return "page-" + c;
    }

    private static Map<String, String> moves() {
        Map<String, String> moved = new TreeMap<>();
        for (int u = 0; u < 5; u++) {
            moved.put("u" + u, "moved-" + u);
        }
        moved.put("u10", "region-new");
        return moved;
    }

    private static Matrix.Observation<Output> run(Broker broker, String app, String guarantee, Map<String, String> regions,
        Map<String, String> moved, Map<String, String> later) throws Exception {
        String users = app + "-user-regions";
        String clicks = app + "-clicks";
        String output = app + "-enriched";
        Io.createTopics(broker, 1, users, clicks, output);
        StreamsBuilder builder = new StreamsBuilder();
        KTable<String, String> table = builder.table(users, Materialized.as("users"));
        builder.<String, String>stream(clicks)
            .leftJoin(table, (page, region) -> page + "@" + region)
            .to(output);
        Io.produce(broker, table(users, regions));
        try (App instance = App.start(broker, app, guarantee, builder.build())) {
            instance.awaitRunning(Io.PATIENCE);
            awaitTable(instance, regions);
            Io.produce(broker, clicks(clicks, 0, CLICKS));
            Io.readUntil(broker, output, new StringDeserializer(), new StringDeserializer(),
                got -> got.size() >= CLICKS, instance::checkHealthy);
            Io.produce(broker, table(users, moved));
            awaitTable(instance, later);
            Io.produce(broker, clicks(clicks, CLICKS, 2 * CLICKS));
            List<ConsumerRecord<String, String>> read = Io.readUntil(broker, output, new StringDeserializer(),
                new StringDeserializer(), got -> got.size() >= 2 * CLICKS, instance::checkHealthy);
            List<String> joined = new ArrayList<>();
            read.forEach(record -> joined.add(record.value()));
            Map<String, String> policies = new TreeMap<>(Io.cleanupPolicies(broker, Io.internalTopics(broker, app)));
            return new Matrix.Observation<>(new Output(joined, policies), Io.brokerSide(broker, app));
        }
    }

    private static List<ProducerRecord<String, String>> table(String topic, Map<String, String> rows) {
        List<ProducerRecord<String, String>> records = new ArrayList<>();
        rows.forEach((user, region) -> records.add(new ProducerRecord<>(topic, user, region)));
        return records;
    }

    private static List<ProducerRecord<String, String>> clicks(String topic, int from, int to) {
        List<ProducerRecord<String, String>> records = new ArrayList<>();
        for (int c = from; c < to; c++) {
            records.add(new ProducerRecord<>(topic, user(c), click(c)));
        }
        return records;
    }

    /** Waits until an interactive query of the users store returns exactly {@code rows}. */
    private static void awaitTable(App instance, Map<String, String> rows) throws InterruptedException {
        Io.await("the users store holds " + rows, () -> {
            instance.checkHealthy();
            try {
                ReadOnlyKeyValueStore<String, String> store = instance.streams().store(
                    StoreQueryParameters.fromNameAndType("users", QueryableStoreTypes.keyValueStore()));
                Map<String, String> held = new TreeMap<>();
                try (KeyValueIterator<String, String> all = store.all()) {
                    all.forEachRemaining(entry -> held.put(entry.key, entry.value));
                }
                return held.equals(rows);
            } catch (InvalidStateStoreException e) {
                return false;
            }
        });
    }
}
