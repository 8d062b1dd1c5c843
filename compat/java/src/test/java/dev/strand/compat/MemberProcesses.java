package dev.strand.compat;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

/**
 * Child JVMs running {@link GroupMemberProcess}, each hosting consumers that the test starts and
 * closes through the child's stdin, or kills all at once with SIGKILL. Every line a child writes is
 * kept: its events parsed as {@link Event}s, the rest (the consumer coordinator's log) as
 * {@link Line}s stamped when they arrived. Closing stops the children that are still running.
 */
final class MemberProcesses implements AutoCloseable {
    /** One event line of a child (see {@link GroupMemberProcess}). */
    record Event(long at, String child, String name, String type, String group, int generation, String memberId,
            Set<Integer> partitions, String extra) {}

    /** Any line a child wrote, in the order the children's lines arrived. */
    record Line(long at, String child, String text) {}

    private static final Duration EXIT_WAIT = Duration.ofSeconds(25);

    private final Broker broker;
    private final Map<String, Object> settings;
    private final List<Child> children = new ArrayList<>();
    private final List<Event> events = new ArrayList<>();
    private final List<Line> lines = new ArrayList<>();

    /** Consumers in every child get {@code settings} (on top of GroupMemberProcess's own). */
    MemberProcesses(Broker broker, Map<String, Object> settings) {
        this.broker = broker;
        this.settings = settings;
    }

    /** A child JVM, named {@code id} in events and lines. */
    final class Child {
        final String id;
        private final Process process;
        private final Writer stdin;
        private final Thread reader;

        private Child(String id) throws IOException {
            this.id = id;
            List<String> command = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                // Small and quick to start: several of these share 2 cores with the broker.
                "-Xmx192m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
                // The coordinator's INFO lines (joins, syncs, errors such as UNKNOWN_MEMBER_ID) on stdout.
                "-Dorg.slf4j.simpleLogger.logFile=System.out",
                "-Dorg.slf4j.simpleLogger.log.org.apache.kafka.clients.consumer.internals.ConsumerCoordinator=info",
                "-cp", System.getProperty("java.class.path"),
                GroupMemberProcess.class.getName(), broker.bootstrap()));
            settings.forEach((key, value) -> command.add(key + "=" + value));
            this.process = new ProcessBuilder(command).redirectErrorStream(true).start();
            this.stdin = new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8);
            this.reader = new Thread(this::read, "child-" + id);
            reader.setDaemon(true);
            reader.start();
        }

        /** Sends one command line (start, close, exit). */
        synchronized void send(String command) throws IOException {
            stdin.write(command + "\n");
            stdin.flush();
        }

        /** SIGKILL; returns once the process is gone, at the time it was seen gone (epoch ms). */
        long kill() throws InterruptedException {
            process.destroyForcibly();
            if (!process.waitFor(10, TimeUnit.SECONDS)) {
                throw new IllegalStateException("child " + id + " still running 10 s after SIGKILL");
            }
            return System.currentTimeMillis();
        }

        boolean alive() {
            return process.isAlive();
        }

        private void read() {
            try (BufferedReader out = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                String text;
                while ((text = out.readLine()) != null) {
                    long now = System.currentTimeMillis();
                    Event event = text.startsWith("EV ") ? parse(id, text) : null;
                    synchronized (MemberProcesses.this) {
                        lines.add(new Line(now, id, text));
                        if (event != null) {
                            events.add(event);
                        }
                        MemberProcesses.this.notifyAll();
                    }
                }
            } catch (IOException e) {
                // the child is gone
            }
        }

        private void stop() {
            try {
                if (process.isAlive()) {
                    send("exit");
                }
            } catch (IOException e) {
                // it is exiting anyway
            }
        }

        private void awaitExit(long deadlineNanos) throws InterruptedException {
            long left = deadlineNanos - System.nanoTime();
            if (!process.waitFor(Math.max(0, left), TimeUnit.NANOSECONDS)) {
                process.destroyForcibly();
                process.waitFor(10, TimeUnit.SECONDS);
            }
            reader.join(5_000);
        }
    }

    /** Starts a child JVM; its consumers are started with {@link Child#send}. */
    Child start(String id) throws IOException {
        Child child = new Child(id);
        synchronized (this) {
            children.add(child);
        }
        return child;
    }

    /** Every event so far, in arrival order. */
    synchronized List<Event> events() {
        return new ArrayList<>(events);
    }

    /** Every line so far, in arrival order. */
    synchronized List<Line> lines() {
        return new ArrayList<>(lines);
    }

    /** Waits (until timeout) until there are {@code count} events at least. */
    synchronized void awaitEvents(int count, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        long left;
        while (events.size() < count && (left = deadline - System.nanoTime()) > 0) {
            TimeUnit.NANOSECONDS.timedWait(this, left);
        }
    }

    /** The last {@code count} lines, for a failure message. */
    synchronized String tail(int count) {
        return lines.subList(Math.max(0, lines.size() - count), lines.size()).stream()
            .map(line -> line.child() + "| " + line.text()).collect(Collectors.joining("\n"));
    }

    /** Asks every running child to close its consumers and exit; kills those that do not. */
    @Override
    public void close() throws InterruptedException {
        List<Child> all;
        synchronized (this) {
            all = new ArrayList<>(children);
        }
        all.forEach(Child::stop);
        long deadline = System.nanoTime() + EXIT_WAIT.toNanos();
        for (Child child : all) {
            child.awaitExit(deadline);
        }
    }

    /** The event a line holds; one of type {@code malformed} (a test failure) if it holds none. */
    private static Event parse(String child, String text) {
        String[] f = text.split(" ");
        if (f.length != 9 || !f[1].matches("[0-9]+") || !f[5].matches("-?[0-9]+") || !f[7].matches("-|[0-9]+(,[0-9]+)*")) {
            return new Event(System.currentTimeMillis(), child, "?", "malformed", "?", -1, "-", Set.of(), text);
        }
        Set<Integer> partitions = f[7].equals("-") ? Set.of()
            : Arrays.stream(f[7].split(",")).map(Integer::valueOf).collect(Collectors.toCollection(TreeSet::new));
        return new Event(Long.parseLong(f[1]), child, f[2], f[3], f[4], Integer.parseInt(f[5]), f[6], partitions, f[8]);
    }
}
