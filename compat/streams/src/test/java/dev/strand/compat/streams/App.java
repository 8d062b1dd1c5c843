package dev.strand.compat.streams;

import static org.junit.jupiter.api.Assertions.fail;

import dev.strand.compat.Broker;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.CloseOptions;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.errors.StreamsUncaughtExceptionHandler;

/**
 * One Kafka Streams instance of a scenario: the classic rebalance protocol unless
 * {@link #protocol} says {@code streams} (KIP-1071), one stream thread, record caches off (every
 * update reaches the output), commits and repartition purges every 100 ms, classic sessions of 6 s
 * (the lowest {@code group.min.session.timeout.ms} allows on both brokers; a streams group's
 * session and heartbeat are the broker's {@code group.streams.*}), its own state directory. The
 * first uncaught exception shuts the instance down and fails whoever waits on it.
 */
final class App implements AutoCloseable {
    private static final Duration CLOSE_TIMEOUT = Duration.ofSeconds(30);

    private final KafkaStreams streams;
    private final Path stateDir;
    private final AtomicReference<Throwable> error = new AtomicReference<>();
    private final Object stateChanged = new Object();
    private volatile KafkaStreams.State state = KafkaStreams.State.CREATED;

    private App(Topology topology, Properties config, Path stateDir) {
        this.stateDir = stateDir;
        this.streams = new KafkaStreams(topology, config);
        streams.setUncaughtExceptionHandler(exception -> {
            error.compareAndSet(null, exception);
            return StreamsUncaughtExceptionHandler.StreamThreadExceptionResponse.SHUTDOWN_CLIENT;
        });
        streams.setStateListener((now, before) -> {
            synchronized (stateChanged) {
                state = now;
                stateChanged.notifyAll();
            }
        });
    }

    /** The overrides that select {@code group.protocol} ({@code classic} or {@code streams}). */
    static Properties protocol(String protocol) {
        Properties properties = new Properties();
        properties.put(StreamsConfig.GROUP_PROTOCOL_CONFIG, protocol);
        return properties;
    }

    /** Starts an instance of application {@code applicationId} on {@code broker}. */
    static App start(Broker broker, String applicationId, String guarantee, Topology topology) throws IOException {
        return start(broker, applicationId, guarantee, topology, new Properties());
    }

    /** The same, with {@code overrides} on top of the scenario defaults. */
    static App start(Broker broker, String applicationId, String guarantee, Topology topology, Properties overrides)
        throws IOException {
        return start(broker.bootstrap(), applicationId, guarantee, topology, overrides);
    }

    /** The same against {@code bootstrap} (a child JVM has no {@link Broker}). */
    static App start(String bootstrap, String applicationId, String guarantee, Topology topology, Properties overrides)
        throws IOException {
        Path stateDir = Files.createTempDirectory(Io.tempRoot(), "strand-compat-streams-state-");
        Properties config = new Properties();
        config.put(StreamsConfig.APPLICATION_ID_CONFIG, applicationId);
        config.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        config.put(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, guarantee);
        config.put(StreamsConfig.STATE_DIR_CONFIG, stateDir.toString());
        config.put(StreamsConfig.NUM_STREAM_THREADS_CONFIG, 1);
        config.put(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG, 100);
        config.put(StreamsConfig.STATESTORE_CACHE_MAX_BYTES_CONFIG, 0);
        config.put(StreamsConfig.REPARTITION_PURGE_INTERVAL_MS_CONFIG, 100);
        config.put(StreamsConfig.DEFAULT_KEY_SERDE_CLASS_CONFIG, Serdes.StringSerde.class);
        config.put(StreamsConfig.DEFAULT_VALUE_SERDE_CLASS_CONFIG, Serdes.StringSerde.class);
        if (!"streams".equals(overrides.getProperty(StreamsConfig.GROUP_PROTOCOL_CONFIG))) {
            config.put(StreamsConfig.consumerPrefix(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG), 6000);
            config.put(StreamsConfig.consumerPrefix(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG), 1000);
        }
        config.put(StreamsConfig.consumerPrefix(ConsumerConfig.METADATA_MAX_AGE_CONFIG), 1000);
        config.put(StreamsConfig.RETRY_BACKOFF_MS_CONFIG, 100);
        config.putAll(overrides);
        App app = new App(topology, config, stateDir);
        app.streams.start();
        return app;
    }

    Path stateDir() {
        return stateDir;
    }

    KafkaStreams streams() {
        return streams;
    }

    /** Waits until the instance is RUNNING; fails with its error if it stopped or the time ran out. */
    App awaitRunning(Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        synchronized (stateChanged) {
            while (state != KafkaStreams.State.RUNNING) {
                checkHealthy();
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    fail("the Streams instance was not RUNNING after " + timeout.toSeconds() + " s (state " + state + ")");
                }
                stateChanged.wait(Math.max(1, left / 1_000_000));
            }
        }
        return this;
    }

    /** Throws if the instance met an uncaught exception or stopped. */
    void checkHealthy() {
        Throwable failure = error.get();
        if (failure != null) {
            throw new AssertionError("the Streams instance failed: " + failure, failure);
        }
        if (state == KafkaStreams.State.ERROR || state == KafkaStreams.State.PENDING_ERROR) {
            throw new AssertionError("the Streams instance is in state " + state);
        }
    }

    /** Closes the instance leaving its group (the next member gets its tasks without a session timeout). */
    void closeLeavingGroup() {
        streams.close(CloseOptions.groupMembershipOperation(CloseOptions.GroupMembershipOperation.LEAVE_GROUP)
            .withTimeout(CLOSE_TIMEOUT));
    }

    @Override
    public void close() {
        streams.close(CLOSE_TIMEOUT);
        try (Stream<Path> paths = Files.walk(stateDir)) {
            paths.sorted(Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
        } catch (IOException e) {
            System.err.println("compat: could not delete " + stateDir + ": " + e);
        }
    }
}
