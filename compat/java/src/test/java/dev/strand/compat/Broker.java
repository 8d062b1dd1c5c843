package dev.strand.compat;

import java.io.File;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.ListTopicsOptions;
import org.apache.kafka.common.Uuid;

/**
 * One broker process for the suite, started as compat/README.md ("The launcher contract") says:
 * Strand ({@code STRAND_COMPAT_BROKER=strand}, the default) or Apache Kafka 4.4.0 from
 * {@code target/kafka-libs} ({@code kafka}), on free loopback ports, with a fresh temporary run
 * directory holding its data dir and its stdout/stderr. {@link #start()} returns once the port
 * accepts connections and a Metadata request succeeds, or throws with the broker's stderr;
 * {@link #restart} stops it (cleanly or with SIGKILL) and starts it again on the same data dir;
 * {@link #close()} stops the process (SIGTERM, then SIGKILL) and deletes the run directory.
 */
public final class Broker implements AutoCloseable {
    /** Which broker the suite runs against. */
    public enum Kind { STRAND, KAFKA }

    /** The node id both brokers are started with. */
    public static final int NODE_ID = 1;

    private static final Duration STOP_GRACE = Duration.ofSeconds(15);
    private static final int STDERR_TAIL_LINES = 60;

    private final Kind kind;
    private final int port;
    private final Path runDir;
    private final List<String> command;
    private Process process;

    private Broker(Kind kind, int port, Path runDir, List<String> command) {
        this.kind = kind;
        this.port = port;
        this.runDir = runDir;
        this.command = command;
    }

    public Kind kind() {
        return kind;
    }

    public int port() {
        return port;
    }

    /** {@code 127.0.0.1:<port>}, for {@code bootstrap.servers}. */
    public String bootstrap() {
        return "127.0.0.1:" + port;
    }

    /** Starts the broker selected by the environment and waits until it serves Metadata. */
    public static Broker start() throws Exception {
        return start(kindFromEnv());
    }

    /** Starts the given broker, whatever the environment selects (compat/streams runs both). */
    public static Broker start(Kind kind) throws Exception {
        Path repo = repoRoot();
        Path runDir = Files.createTempDirectory(tempRoot(), "strand-compat-java-");
        Path dataDir = Files.createDirectory(runDir.resolve("data"));
        int port = freePort();
        List<String> command;
        try {
            command = kind == Kind.STRAND ? strandCommand(repo, port, dataDir) : kafkaCommand(repo, runDir, port, dataDir);
        } catch (Exception e) {
            deleteTree(runDir);
            throw e;
        }
        Broker broker = new Broker(kind, port, runDir, command);
        try {
            broker.launch();
            broker.awaitReady(startTimeout(kind));
            return broker;
        } catch (Exception | Error e) {
            broker.close();
            throw e;
        }
    }

    /** How {@link #restart} stops the broker. */
    public enum Stop {
        /** SIGTERM, and the broker must exit within 15 s. */
        CLEAN,
        /** SIGKILL: no shutdown at all. */
        KILL
    }

    /**
     * Stops the broker and starts the same command again: the same ports and data dir (Kafka's
     * storage stays formatted), its output appended to the same files. Returns once it serves
     * Metadata again, or throws like {@link #start()}.
     */
    public void restart(Stop how) throws Exception {
        if (how == Stop.KILL) {
            process.destroyForcibly();
        } else {
            process.destroy();
        }
        if (!process.waitFor(STOP_GRACE.toSeconds(), TimeUnit.SECONDS)) {
            stop(process);
            throw new IllegalStateException("compat: broker did not exit within " + STOP_GRACE.toSeconds() + " s of "
                + (how == Stop.KILL ? "SIGKILL" : "SIGTERM"));
        }
        String marker = "--- compat: broker restarted after " + how + " (exit status " + process.exitValue() + ") ---\n";
        for (String file : List.of("broker.stdout", "broker.stderr")) {
            Files.writeString(runDir.resolve(file), marker, StandardOpenOption.CREATE, StandardOpenOption.APPEND);
        }
        launch();
        awaitReady(startTimeout(kind));
    }

    @Override
    public void close() {
        if (process != null) {
            stop(process);
        }
        if (!"1".equals(System.getenv("STRAND_COMPAT_KEEP_DIR"))) {
            deleteTree(runDir);
        } else {
            System.err.println("compat: broker run directory kept: " + runDir);
        }
    }

    private void launch() throws IOException {
        ProcessBuilder builder = new ProcessBuilder(command)
            .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
            .redirectOutput(ProcessBuilder.Redirect.appendTo(runDir.resolve("broker.stdout").toFile()))
            .redirectError(ProcessBuilder.Redirect.appendTo(runDir.resolve("broker.stderr").toFile()));
        process = builder.start();
        Process started = process;
        // If the JVM is told to stop (Ctrl-C, run.sh's timeout), leave neither the broker nor its
        // files behind. After close() this finds nothing to do.
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            started.descendants().forEach(ProcessHandle::destroyForcibly);
            started.destroyForcibly();
            if (!"1".equals(System.getenv("STRAND_COMPAT_KEEP_DIR"))) {
                try {
                    started.waitFor(5, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                deleteTree(runDir);
            }
        }));
    }

    private void awaitReady(Duration timeout) throws Exception {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!accepts(port)) {
            checkAlive();
            if (System.nanoTime() >= deadline) {
                throw notReady("was not ready after " + timeout.toSeconds() + " s (its port never accepted a connection)");
            }
            Thread.sleep(100);
        }
        String lastError = "";
        try (Admin admin = Admin.create(adminConfig())) {
            while (System.nanoTime() < deadline) {
                checkAlive();
                try {
                    // listTopics is a Metadata request; the admin client's own bootstrap Metadata
                    // must list a broker before it sends it.
                    admin.listTopics(new ListTopicsOptions().timeoutMs(2000)).names().get(3, TimeUnit.SECONDS);
                    return;
                } catch (Exception e) {
                    lastError = e.toString();
                    Thread.sleep(100);
                }
            }
        }
        throw notReady("was not ready after " + timeout.toSeconds() + " s (port open, Metadata failed: " + lastError + ")");
    }

    private void checkAlive() {
        if (!process.isAlive()) {
            throw notReady("exited with status " + process.exitValue() + " before it was ready");
        }
    }

    private IllegalStateException notReady(String what) {
        return new IllegalStateException(
            "compat: " + kind.name().toLowerCase() + " broker " + what + "\ncommand: " + String.join(" ", command)
                + "\n--- last " + STDERR_TAIL_LINES + " lines of its stderr ---\n" + tail("broker.stderr")
                + "--- last " + STDERR_TAIL_LINES + " lines of its stdout ---\n" + tail("broker.stdout"));
    }

    private String tail(String file) {
        try {
            List<String> lines = Files.readAllLines(runDir.resolve(file), StandardCharsets.UTF_8);
            StringBuilder out = new StringBuilder();
            for (String line : lines.subList(Math.max(0, lines.size() - STDERR_TAIL_LINES), lines.size())) {
                out.append(line).append('\n');
            }
            return out.toString();
        } catch (IOException e) {
            return "(unreadable: " + e + ")\n";
        }
    }

    private Map<String, Object> adminConfig() {
        return Map.of(
            AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap(),
            AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 2000,
            AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 3000,
            AdminClientConfig.RECONNECT_BACKOFF_MS_CONFIG, 100,
            AdminClientConfig.RECONNECT_BACKOFF_MAX_MS_CONFIG, 200,
            AdminClientConfig.RETRY_BACKOFF_MS_CONFIG, 100,
            AdminClientConfig.RETRY_BACKOFF_MAX_MS_CONFIG, 200);
    }

    private static List<String> strandCommand(Path repo, int port, Path dataDir) {
        String bin = System.getenv().getOrDefault("STRAND_BIN", "target/release/strand");
        String listener = "PLAINTEXT://127.0.0.1:" + port;
        return List.of(repo.resolve(bin).toString(), "server",
            "--override", "node.id=" + NODE_ID,
            "--override", "listeners=" + listener,
            "--override", "advertised.listeners=" + listener,
            "--override", "log.dirs=" + dataDir,
            "--override", "group.initial.rebalance.delay.ms=0",
            "--override", "group.consumer.heartbeat.interval.ms=500",
            "--override", "group.consumer.min.heartbeat.interval.ms=500",
            "--override", "group.share.record.lock.duration.ms=3000",
            "--override", "group.share.min.record.lock.duration.ms=1000",
            "--override", "group.share.heartbeat.interval.ms=1000",
            "--override", "group.share.min.heartbeat.interval.ms=1000",
            "--override", "group.streams.heartbeat.interval.ms=1000",
            "--override", "group.streams.min.heartbeat.interval.ms=1000",
            "--override", "group.streams.num.standby.replicas=1",
            "--override", "http.listeners=");
    }

    /** Writes server.properties from the shared template and formats the data dir. */
    private static List<String> kafkaCommand(Path repo, Path runDir, int port, Path dataDir) throws Exception {
        int controllerPort = freePort();
        while (controllerPort == port) {
            controllerPort = freePort();
        }
        String template = Files.readString(repo.resolve("compat/broker/kafka-server.properties"));
        Path properties = runDir.resolve("server.properties");
        Files.writeString(properties, template
            .replace("@PORT@", Integer.toString(port))
            .replace("@CONTROLLER_PORT@", Integer.toString(controllerPort))
            .replace("@LOG_DIRS@", dataDir.toString()));
        List<String> java = javaCommand(repo);
        List<String> format = new ArrayList<>(java);
        format.addAll(List.of("kafka.tools.StorageTool", "format", "-t", Uuid.randomUuid().toString(),
            "-c", properties.toString()));
        Path formatLog = runDir.resolve("format.log");
        Process formatting = new ProcessBuilder(format)
            .redirectErrorStream(true)
            .redirectOutput(formatLog.toFile())
            .start();
        if (!formatting.waitFor(60, TimeUnit.SECONDS) || formatting.exitValue() != 0) {
            formatting.destroyForcibly();
            throw new IllegalStateException("compat: formatting Kafka's storage failed: " + String.join(" ", format)
                + "\n" + Files.readString(formatLog));
        }
        List<String> command = new ArrayList<>(java);
        command.addAll(List.of("kafka.Kafka", properties.toString()));
        return command;
    }

    static List<String> javaCommand(Path repo) {
        String javaHome = System.getenv("JAVA_HOME");
        String java = javaHome == null || javaHome.isEmpty() ? "java" : Path.of(javaHome, "bin", "java").toString();
        String libs = System.getenv().getOrDefault("STRAND_KAFKA_LIBS", "target/kafka-libs");
        return List.of(java, "-Xms256m", "-Xmx1g",
            "-Dlog4j2.configurationFile=" + repo.resolve("compat/kafka/log4j2.properties"),
            "-cp", repo.resolve(libs) + File.separator + "*");
    }

    private static void stop(Process process) {
        if (process.isAlive()) {
            process.destroy();
            try {
                if (!process.waitFor(STOP_GRACE.toSeconds(), TimeUnit.SECONDS)) {
                    System.err.println("compat: broker did not stop within " + STOP_GRACE.toSeconds() + " s of SIGTERM; killing it");
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        process.descendants().forEach(ProcessHandle::destroyForcibly);
        process.destroyForcibly();
        try {
            process.waitFor(STOP_GRACE.toSeconds(), TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    static boolean accepts(int port) {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress("127.0.0.1", port), 200);
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket()) {
            socket.setReuseAddress(false);
            socket.bind(new InetSocketAddress("127.0.0.1", 0));
            return socket.getLocalPort();
        }
    }

    static Kind kindFromEnv() {
        String value = System.getenv().getOrDefault("STRAND_COMPAT_BROKER", "strand");
        switch (value) {
            case "strand":
                return Kind.STRAND;
            case "kafka":
                return Kind.KAFKA;
            default:
                throw new IllegalArgumentException("STRAND_COMPAT_BROKER must be 'strand' or 'kafka', not '" + value + "'");
        }
    }

    static Duration startTimeout(Kind kind) {
        String value = System.getenv("STRAND_COMPAT_START_TIMEOUT_S");
        if (value != null && !value.isEmpty()) {
            return Duration.ofSeconds(Long.parseLong(value));
        }
        return kind == Kind.STRAND ? Duration.ofSeconds(20) : Duration.ofSeconds(90);
    }

    /** $TMPDIR like the other launchers (java.io.tmpdir ignores it), else java.io.tmpdir. */
    static Path tempRoot() {
        String tmpdir = System.getenv("TMPDIR");
        return Path.of(tmpdir != null && !tmpdir.isEmpty() ? tmpdir : System.getProperty("java.io.tmpdir"));
    }

    static Path repoRoot() throws IOException {
        String configured = System.getProperty("strand.compat.repo");
        Path repo = configured != null ? Path.of(configured) : Path.of("..", "..");
        return repo.toRealPath();
    }

    static void deleteTree(Path root) {
        if (!Files.exists(root)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(root)) {
            paths.sorted(Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
        } catch (IOException e) {
            System.err.println("compat: could not delete " + root + ": " + e);
        }
    }
}
