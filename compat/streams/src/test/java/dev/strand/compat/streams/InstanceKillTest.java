package dev.strand.compat.streams;

import dev.strand.compat.Broker;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.serialization.LongDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * An exactly-once instance in a child JVM ({@link CountingMember}) is killed with SIGKILL while
 * records flow and its transaction is open; a new instance with an empty state directory takes over
 * once the broker has expired the dead member's session, restores the counts from the changelog
 * (past the dead member's transaction, which the broker aborts after its timeout) and counts on:
 * every key's outputs must be exactly 1, 2, ..., its acknowledged record count.
 */
@ExtendWith(Brokers.Extension.class)
class InstanceKillTest {
    private static final int PARTITIONS = 3;
    private static final int KEYS = 12;
    private static final int STEP = 1_000;
    private static final int STEPS = 3;

    /** Keys whose outputs were not exactly 1..n, with what they were. */
    record Output(List<String> anomalies) {}

    @ParameterizedTest
    @ValueSource(strings = {"exactly_once_v2"})
    void instanceKilled(String guarantee, Brokers brokers) {
        String app = "instance-kill-" + guarantee.replace('_', '-');
        Map<String, Long> totals = new TreeMap<>();
        for (int i = 0; i < STEP * STEPS; i++) {
            totals.merge(key(i), 1L, Long::sum);
        }
        Matrix.check("instance-kill-restore", guarantee, brokers, new Output(List.of()),
            broker -> run(broker, app, guarantee, totals));
    }

    private static String key(int i) {
        return "key-" + (i % KEYS);
    }

    /** The child JVM: its output lines, and the state directory it reported. */
    private static final class Child implements AutoCloseable {
        private final Process process;
        private final List<String> lines = new ArrayList<>();

        Child(Broker broker, String app, String input, String output, String guarantee) throws IOException {
            process = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
                "-cp", System.getProperty("java.class.path"),
                CountingMember.class.getName(), broker.bootstrap(), app, input, output, guarantee)
                .redirectErrorStream(true).start();
            Thread reader = new Thread(() -> {
                try (BufferedReader out = new BufferedReader(
                    new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                    String line;
                    while ((line = out.readLine()) != null) {
                        synchronized (lines) {
                            lines.add(line);
                        }
                    }
                } catch (IOException e) {
                    // the child is gone
                }
            }, "child-" + app);
            reader.setDaemon(true);
            reader.start();
        }

        boolean printed(String line) {
            synchronized (lines) {
                if (!process.isAlive() && !lines.contains(line)) {
                    throw new AssertionError("the child exited (" + process.exitValue() + "):\n" + String.join("\n", lines));
                }
                return lines.contains(line);
            }
        }

        Path stateDir() {
            synchronized (lines) {
                return lines.stream().filter(l -> l.startsWith("STATE_DIR ")).map(l -> Path.of(l.substring(10)))
                    .findFirst().orElse(null);
            }
        }

        void kill() throws InterruptedException {
            process.destroyForcibly();
            if (!process.waitFor(10, TimeUnit.SECONDS)) {
                throw new IllegalStateException("the child still runs 10 s after SIGKILL");
            }
        }

        @Override
        public void close() throws InterruptedException {
            kill();
            Path stateDir = stateDir();
            if (stateDir != null) {
                try (Stream<Path> paths = Files.walk(stateDir)) {
                    paths.sorted(Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
                } catch (IOException e) {
                    System.err.println("compat: could not delete " + stateDir + ": " + e);
                }
            }
        }
    }

    private static Matrix.Observation<Output> run(Broker broker, String app, String guarantee, Map<String, Long> totals)
        throws Exception {
        String input = app + "-input";
        String output = app + "-counts";
        Io.createTopics(broker, PARTITIONS, input, output);
        try (Child child = new Child(broker, app, input, output, guarantee);
            Feeder feeder = new Feeder(broker, input, InstanceKillTest::key)) {
            Io.await("the child instance RUNNING", () -> child.printed("RUNNING"));
            int fed = feeder.allow(STEP);
            Io.await(fed + " records acknowledged", () -> feeder.acknowledged() >= fed);
            // Some of the next step is in flight (sent, processed, in an open transaction) when it dies.
            int next = feeder.allow(STEP);
            Io.await("records of the next step acknowledged", () -> feeder.acknowledged() > fed);
            child.kill();
            try (App successor = App.start(broker, app, guarantee, CountingMember.topology(input, output),
                CountingMember.overrides())) {
                Io.await(next + " records acknowledged", () -> feeder.acknowledged() >= next);
                int last = feeder.allow(STEP);
                Io.await(last + " records acknowledged", () -> feeder.acknowledged() >= last);
                List<ConsumerRecord<String, Long>> read = Io.readUntil(broker, output, new StringDeserializer(),
                    new LongDeserializer(), got -> WordCountTest.reachedTotals(got, totals), () -> {
                        successor.checkHealthy();
                        feeder.checkHealthy();
                    });
                return new Matrix.Observation<>(new Output(RebalanceTest.anomalies(read, totals)),
                    Io.brokerSide(broker, app));
            }
        }
    }
}
