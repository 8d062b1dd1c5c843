package dev.strand.compat.streams;

import static org.junit.jupiter.api.Assertions.fail;

import dev.strand.compat.Broker;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Runs one scenario on every broker of the run and compares: each broker's output must equal the
 * expected output the test computed, and the outputs of all brokers must be equal record for record
 * (the scenarios normalise where Kafka leaves the order open). Prints one {@code streams-matrix:}
 * line per broker (scenario, guarantee, broker, PASS/FAIL, seconds) and appends it to
 * {@code target/streams-matrix.txt}.
 */
final class Matrix {
    private static final Path REPORT = Path.of("target", "streams-matrix.txt");

    /** One scenario run on one broker: it returns its normalised output or throws. */
    @FunctionalInterface
    interface Scenario<T> {
        Observation<T> run(Broker broker) throws Exception;
    }

    /**
     * What a run produced: {@code output}, compared with the expected output and across brokers, and
     * {@code brokerSide}, what the broker holds afterwards that the test cannot predict exactly (the
     * topic configs Kafka Streams chose), compared across brokers only.
     */
    record Observation<T>(T output, Map<String, String> brokerSide) {}

    private record Outcome<T>(Broker.Kind kind, Observation<T> output, Throwable failure, double seconds) {}

    private Matrix() {}

    static <T> void check(String scenario, String guarantee, Brokers brokers, T expected, Scenario<T> run) {
        List<Outcome<T>> outcomes = new ArrayList<>();
        for (Broker broker : brokers.all()) {
            long start = System.nanoTime();
            Observation<T> output = null;
            Throwable failure = null;
            try {
                output = run.run(broker);
                if (!Objects.equals(expected, output.output())) {
                    failure = new AssertionError("output differs from the expected output\nexpected: " + expected
                        + "\nactual:   " + output.output());
                }
            } catch (Exception | AssertionError e) {
                failure = e;
            }
            Outcome<T> outcome = new Outcome<>(broker.kind(), output, failure, (System.nanoTime() - start) / 1e9);
            outcomes.add(outcome);
            if (output != null) {
                System.out.println("streams-observed: " + scenario + " " + guarantee + " "
                    + broker.kind().name().toLowerCase() + " " + output.brokerSide());
            }
            report(String.format("streams-matrix: %-22s %-16s %-6s %s %6.1f s%s", scenario, guarantee,
                broker.kind().name().toLowerCase(), failure == null ? "PASS" : "FAIL", outcome.seconds(),
                failure == null ? "" : "  (" + firstLine(failure) + ")"));
        }
        StringBuilder problems = new StringBuilder();
        for (Outcome<T> outcome : outcomes) {
            if (outcome.failure() != null) {
                problems.append("\n--- ").append(outcome.kind()).append(": ").append(stackTrace(outcome.failure()));
            }
        }
        Outcome<T> first = outcomes.get(0);
        for (Outcome<T> other : outcomes.subList(1, outcomes.size())) {
            if (first.failure() == null && other.failure() == null && !Objects.equals(first.output(), other.output())) {
                problems.append("\n--- outputs differ between ").append(first.kind()).append(" and ").append(other.kind())
                    .append("\n").append(first.kind()).append(": ").append(first.output())
                    .append("\n").append(other.kind()).append(": ").append(other.output());
            }
        }
        if (problems.length() > 0) {
            fail(scenario + " (" + guarantee + "):" + problems);
        }
    }

    private static String firstLine(Throwable failure) {
        String message = String.valueOf(failure.getMessage());
        int newline = message.indexOf('\n');
        String line = failure.getClass().getSimpleName() + ": " + (newline < 0 ? message : message.substring(0, newline));
        return line.length() > 160 ? line.substring(0, 160) + "..." : line;
    }

    private static String stackTrace(Throwable failure) {
        java.io.StringWriter out = new java.io.StringWriter();
        failure.printStackTrace(new java.io.PrintWriter(out));
        return out.toString();
    }

    private static synchronized void report(String line) {
        System.out.println(line);
        try {
            Files.createDirectories(REPORT.getParent());
            Files.writeString(REPORT, line + "\n", StandardCharsets.UTF_8, StandardOpenOption.CREATE, StandardOpenOption.APPEND);
        } catch (IOException e) {
            System.err.println("streams-matrix: could not write " + REPORT + ": " + e);
        }
    }
}
