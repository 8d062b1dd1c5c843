package dev.strand.compat.streams;

import java.time.Duration;
import java.util.Properties;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.kstream.Materialized;
import org.apache.kafka.streams.kstream.Produced;

/**
 * The per-key count the exactly-once scenarios run, and a child JVM running it
 * ({@code CountingMember <bootstrap> <application id> <input> <output> <guarantee>}) for
 * {@link InstanceKillTest} to kill: it prints {@code STATE_DIR <path>} and then {@code RUNNING},
 * and runs until it is killed.
 */
public final class CountingMember {
    /** A transaction of a killed member is aborted by the broker after this long. */
    static final Duration TRANSACTION_TIMEOUT = Duration.ofSeconds(5);

    private CountingMember() {}

    /** input (String, String) grouped by key, counted into store {@code per-key}, each update to output. */
    static Topology topology(String input, String output) {
        StreamsBuilder builder = new StreamsBuilder();
        builder.<String, String>stream(input)
            .groupByKey()
            .count(Materialized.as("per-key"))
            .toStream()
            .to(output, Produced.with(Serdes.String(), Serdes.Long()));
        return builder.build();
    }

    /** The configs both the child and its successor run with. */
    static Properties overrides() {
        Properties overrides = new Properties();
        overrides.put(StreamsConfig.producerPrefix(ProducerConfig.TRANSACTION_TIMEOUT_CONFIG),
            (int) TRANSACTION_TIMEOUT.toMillis());
        return overrides;
    }

    public static void main(String[] args) throws Exception {
        App app = App.start(args[0], args[1], args[4], topology(args[2], args[3]), overrides());
        System.out.println("STATE_DIR " + app.stateDir());
        app.awaitRunning(Io.PATIENCE);
        System.out.println("RUNNING");
        System.out.flush();
        // Until killed (an error shuts the instance down; the test sees no progress and fails).
        Thread.currentThread().join();
    }
}
