package dev.strand.compat;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.DescribeClusterOptions;
import org.apache.kafka.common.Node;

/**
 * A cluster of its own for one test class: {@code size} nodes, each broker and controller (KRaft
 * combined mode), the controllers forming a static quorum ({@code controller.quorum.voters}), on
 * free loopback ports, each with a data dir and stdout/stderr of its own under one temporary run
 * directory ({@code $TMPDIR/strand-compat-cluster-XXXX/node-<id>/}). Strand or Apache Kafka 4.4.0 as
 * {@code STRAND_COMPAT_BROKER} says, like {@link Broker}, whose helpers it shares.
 *
 * <p>Brokers are fenced after {@link #SESSION_TIMEOUT_MS} without a heartbeat (every {@link
 * #HEARTBEAT_INTERVAL_MS}), lowered from Kafka's 9 s and 2 s so that a killed broker's leaderships
 * move within a test's patience. Kafka's nodes get the shared {@code compat/broker/kafka-server.properties}
 * with the keys that differ in a cluster replaced (node id, voters, the internal topics'
 * replication, which it lowers to 1) and their storage formatted with one cluster id; Strand's get the
 * same node settings as {@code --override}s, format their empty data dirs themselves with {@code
 * cluster.id}, and replicate the internal topics 3 ways by default as members of a multi-voter quorum.
 *
 * <p>{@link #start} returns once every node serves Metadata listing all of them; {@link #kill} is
 * SIGKILL; {@link #restart} runs a stopped node's command again over its data dir; {@link #close}
 * stops every node (SIGTERM to all at once, SIGKILL after {@link #STOP_GRACE}) and deletes the run
 * directory (kept with {@code STRAND_COMPAT_KEEP_DIR=1}). A JVM shutdown hook kills whatever is still
 * running if the test JVM is told to stop.
 */
final class Cluster implements AutoCloseable {
    static final int SESSION_TIMEOUT_MS = 2000;
    static final int HEARTBEAT_INTERVAL_MS = 250;
    /** The cluster id every node is formatted with (Kafka's base64 form of a UUID). */
    static final String CLUSTER_ID = "MkU3OEVBNTcwNTJENDM2Qg";

    private static final Duration STOP_GRACE = Duration.ofSeconds(5);
    private static final int TAIL_LINES = 40;

    /** One node: its ports, its directory and, while it runs, its process. */
    final class Member {
        final int id;
        final int port;
        final int controllerPort;
        final Path dir;
        List<String> command;
        Process process;

        private Member(int id, int port, int controllerPort, Path dir) {
            this.id = id;
            this.port = port;
            this.controllerPort = controllerPort;
            this.dir = dir;
        }

        String bootstrap() {
            return "127.0.0.1:" + port;
        }

        boolean running() {
            return process != null && process.isAlive();
        }

        private void launch() throws IOException {
            process = new ProcessBuilder(command)
                .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
                .redirectOutput(ProcessBuilder.Redirect.appendTo(dir.resolve("stdout").toFile()))
                .redirectError(ProcessBuilder.Redirect.appendTo(dir.resolve("stderr").toFile()))
                .start();
        }

        private String tail(String file, int lines) {
            try {
                List<String> all = Files.readAllLines(dir.resolve(file), StandardCharsets.UTF_8);
                return String.join("\n", all.subList(Math.max(0, all.size() - lines), all.size())) + "\n";
            } catch (IOException e) {
                return "(unreadable: " + e + ")\n";
            }
        }
    }

    private final Broker.Kind kind;
    private final Path runDir;
    private final List<Member> members = new ArrayList<>();
    private final Thread shutdownHook;

    private Cluster(Broker.Kind kind, Path runDir) {
        this.kind = kind;
        this.runDir = runDir;
        this.shutdownHook = new Thread(() -> {
            for (Member member : members) {
                if (member.process != null) {
                    member.process.destroyForcibly();
                }
            }
            if (!keepDir()) {
                for (Member member : members) {
                    if (member.process != null) {
                        try {
                            member.process.waitFor(5, TimeUnit.SECONDS);
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                        }
                    }
                }
                Broker.deleteTree(runDir);
            }
        });
    }

    /** Starts {@code size} nodes (ids 1..size) and waits until each serves Metadata listing all. */
    static Cluster start(int size) throws Exception {
        return start(size, id -> Map.of());
    }

    /**
     * As {@link #start(int)}, node {@code id} also with the settings {@code nodeSettings.apply(id)}
     * ({@code broker.rack}, say), on Strand and Kafka alike.
     */
    static Cluster start(int size, java.util.function.IntFunction<Map<String, String>> nodeSettings) throws Exception {
        return start(Broker.kindFromEnv(), size, nodeSettings);
    }

    /** As {@link #start(int, java.util.function.IntFunction)}, of {@code kind} whatever the environment says. */
    static Cluster start(Broker.Kind kind, int size, java.util.function.IntFunction<Map<String, String>> nodeSettings)
            throws Exception {
        Path repo = Broker.repoRoot();
        Cluster cluster = new Cluster(kind, Files.createTempDirectory(Broker.tempRoot(), "strand-compat-cluster-"));
        Runtime.getRuntime().addShutdownHook(cluster.shutdownHook);
        try {
            Set<Integer> ports = new HashSet<>();
            for (int id = 1; id <= size; id++) {
                Path dir = Files.createDirectories(cluster.runDir.resolve("node-" + id).resolve("data")).getParent();
                cluster.members.add(cluster.new Member(id, uniquePort(ports), uniquePort(ports), dir));
            }
            String voters = cluster.members.stream()
                .map(m -> m.id + "@127.0.0.1:" + m.controllerPort)
                .collect(Collectors.joining(","));
            for (Member member : cluster.members) {
                Map<String, String> own = nodeSettings.apply(member.id);
                member.command = cluster.kind == Broker.Kind.STRAND
                    ? strandCommand(repo, member, voters, own)
                    : kafkaCommand(repo, member, voters, own);
            }
            if (cluster.kind == Broker.Kind.KAFKA) {
                formatKafkaStorage(repo, cluster.members);
            }
            // Every voter must run before any can serve: launch all, then wait for each.
            for (Member member : cluster.members) {
                member.launch();
            }
            Duration timeout = Broker.startTimeout(cluster.kind);
            for (Member member : cluster.members) {
                cluster.awaitServing(member, cluster.ids(), timeout);
            }
            return cluster;
        } catch (Exception | Error e) {
            cluster.close();
            throw e;
        }
    }

    Broker.Kind kind() {
        return kind;
    }

    /** Every node's address, for {@code bootstrap.servers}: clients find a live one when one is down. */
    String bootstrap() {
        return members.stream().map(Member::bootstrap).collect(Collectors.joining(","));
    }

    /** The node ids, 1..size. */
    Set<Integer> ids() {
        return members.stream().map(m -> m.id).collect(Collectors.toCollection(TreeSet::new));
    }

    Member member(int id) {
        return members.get(id - 1);
    }

    /** SIGKILL node {@code id} and wait for its exit; returns {@link System#nanoTime()} once it is gone. */
    long kill(int id) throws Exception {
        Member member = member(id);
        if (!member.running()) {
            throw new IllegalStateException("node " + id + " is not running");
        }
        member.process.destroyForcibly();
        if (!member.process.waitFor(STOP_GRACE.toSeconds(), TimeUnit.SECONDS)) {
            throw new IllegalStateException("node " + id + " did not exit after SIGKILL");
        }
        long dead = System.nanoTime();
        mark(member, "--- compat: node " + id + " killed with SIGKILL at " + Instant.now() + " (exit status "
            + member.process.exitValue() + ") ---\n");
        return dead;
    }

    /**
     * Starts stopped node {@code id} again with the same command, ports and data dir, and waits
     * until it serves Metadata that lists it.
     */
    void restart(int id) throws Exception {
        Member member = member(id);
        if (member.running()) {
            throw new IllegalStateException("node " + id + " is still running");
        }
        mark(member, "--- compat: node " + id + " restarted at " + Instant.now() + " ---\n");
        member.launch();
        awaitServing(member, Set.of(id), Broker.startTimeout(kind));
    }

    /** The last lines of every node's stderr (Strand logs there) and stdout, for failure messages. */
    String tails() {
        StringBuilder out = new StringBuilder();
        for (Member member : members) {
            out.append("--- node ").append(member.id).append(member.running() ? "" : " (not running)")
                .append(": last ").append(TAIL_LINES).append(" lines of stderr (").append(member.dir.resolve("stderr"))
                .append(") ---\n").append(member.tail("stderr", TAIL_LINES))
                .append("--- node ").append(member.id).append(": last ").append(TAIL_LINES).append(" lines of stdout ---\n")
                .append(member.tail("stdout", TAIL_LINES));
        }
        return out.toString();
    }

    @Override
    public void close() {
        for (Member member : members) {
            if (member.running()) {
                member.process.destroy();
            }
        }
        long deadline = System.nanoTime() + STOP_GRACE.toNanos();
        for (Member member : members) {
            if (member.process == null) {
                continue;
            }
            try {
                long left = Math.max(0, deadline - System.nanoTime());
                if (!member.process.waitFor(left, TimeUnit.NANOSECONDS)) {
                    System.err.println("compat: cluster node " + member.id + " did not stop within "
                        + STOP_GRACE.toSeconds() + " s of SIGTERM; killing it");
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            member.process.descendants().forEach(ProcessHandle::destroyForcibly);
            member.process.destroyForcibly();
            try {
                member.process.waitFor(STOP_GRACE.toSeconds(), TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        if (keepDir()) {
            System.err.println("compat: cluster run directory kept: " + runDir);
        } else {
            Broker.deleteTree(runDir);
        }
        try {
            Runtime.getRuntime().removeShutdownHook(shutdownHook);
        } catch (IllegalStateException e) {
            // The JVM is already shutting down: the hook runs anyway, and finds nothing to do.
        }
    }

    /**
     * Waits until {@code member}'s port accepts connections and an admin client bootstrapped on it
     * alone gets a cluster description listing every node in {@code expected}.
     */
    private void awaitServing(Member member, Set<Integer> expected, Duration timeout) throws Exception {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!Broker.accepts(member.port)) {
            checkAlive(member);
            if (System.nanoTime() >= deadline) {
                throw notReady(member, "was not ready after " + timeout.toSeconds() + " s (its port never accepted a connection)");
            }
            Thread.sleep(100);
        }
        String last = "";
        try (Admin admin = Admin.create(Map.<String, Object>of(
                AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, member.bootstrap(),
                AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 2000,
                AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 3000,
                AdminClientConfig.RECONNECT_BACKOFF_MS_CONFIG, 100,
                AdminClientConfig.RECONNECT_BACKOFF_MAX_MS_CONFIG, 200,
                AdminClientConfig.RETRY_BACKOFF_MS_CONFIG, 100,
                AdminClientConfig.RETRY_BACKOFF_MAX_MS_CONFIG, 200))) {
            while (System.nanoTime() < deadline) {
                checkAlive(member);
                try {
                    Set<Integer> listed = admin.describeCluster(new DescribeClusterOptions().timeoutMs(2000)).nodes()
                        .get(3, TimeUnit.SECONDS).stream().map(Node::id).collect(Collectors.toCollection(TreeSet::new));
                    if (listed.containsAll(expected)) {
                        return;
                    }
                    last = "it listed nodes " + listed;
                } catch (Exception e) {
                    last = e.toString();
                }
                Thread.sleep(100);
            }
        }
        throw notReady(member, "did not list nodes " + expected + " within " + timeout.toSeconds() + " s (" + last + ")");
    }

    private void checkAlive(Member member) {
        if (!member.running()) {
            throw notReady(member, "exited with status " + member.process.exitValue() + " before it was ready");
        }
    }

    private IllegalStateException notReady(Member member, String what) {
        return new IllegalStateException("compat: " + kind.name().toLowerCase() + " cluster node " + member.id + " " + what
            + "\ncommand: " + String.join(" ", member.command) + "\n" + tails());
    }

    private static void mark(Member member, String marker) throws IOException {
        for (String file : List.of("stdout", "stderr")) {
            Files.writeString(member.dir.resolve(file), marker, StandardOpenOption.CREATE, StandardOpenOption.APPEND);
        }
    }

    private static List<String> strandCommand(Path repo, Member member, String voters, Map<String, String> own) {
        String bin = System.getenv().getOrDefault("STRAND_BIN", "target/release/strand");
        List<String> command = new ArrayList<>(List.of(repo.resolve(bin).toString(), "server"));
        for (String setting : List.of(
                "node.id=" + member.id,
                "process.roles=broker,controller",
                "listeners=PLAINTEXT://127.0.0.1:" + member.port + ",CONTROLLER://127.0.0.1:" + member.controllerPort,
                "advertised.listeners=PLAINTEXT://127.0.0.1:" + member.port,
                "controller.listener.names=CONTROLLER",
                "controller.quorum.voters=" + voters,
                "cluster.id=" + CLUSTER_ID,
                "log.dirs=" + member.dir.resolve("data"),
                "broker.session.timeout.ms=" + SESSION_TIMEOUT_MS,
                "broker.heartbeat.interval.ms=" + HEARTBEAT_INTERVAL_MS,
                // As the suite's single broker is started (compat/README.md, the launcher contract).
                "group.initial.rebalance.delay.ms=0",
                "group.consumer.heartbeat.interval.ms=500",
                "group.consumer.min.heartbeat.interval.ms=500",
                // No metrics listener: three nodes would all take the default localhost:8080.
                "http.listeners=")) {
            command.add("--override");
            command.add(setting);
        }
        own.forEach((key, value) -> command.addAll(List.of("--override", key + "=" + value)));
        return command;
    }

    /** What node {@code id} has written to its stderr so far (Strand logs there). */
    String stderr(int id) throws IOException {
        return Files.readString(member(id).dir.resolve("stderr"), StandardCharsets.UTF_8);
    }

    /**
     * Writes the node's server.properties: the shared one-node template with its placeholders
     * substituted and the keys a cluster needs otherwise replaced.
     */
    private static List<String> kafkaCommand(Path repo, Member member, String voters, Map<String, String> own)
            throws IOException {
        Map<String, String> cluster = new LinkedHashMap<>();
        cluster.put("node.id", Integer.toString(member.id));
        cluster.put("controller.quorum.voters", voters);
        cluster.put("broker.session.timeout.ms", Integer.toString(SESSION_TIMEOUT_MS));
        cluster.put("broker.heartbeat.interval.ms", Integer.toString(HEARTBEAT_INTERVAL_MS));
        // Kafka's own defaults, which the one-node template lowers to 1.
        cluster.put("offsets.topic.replication.factor", "3");
        cluster.put("transaction.state.log.replication.factor", "3");
        cluster.put("transaction.state.log.min.isr", "2");
        cluster.put("share.coordinator.state.topic.replication.factor", "3");
        cluster.put("share.coordinator.state.topic.min.isr", "2");
        cluster.putAll(own);
        String template = Files.readString(repo.resolve("compat/broker/kafka-server.properties"))
            .replace("@PORT@", Integer.toString(member.port))
            .replace("@CONTROLLER_PORT@", Integer.toString(member.controllerPort))
            .replace("@LOG_DIRS@", member.dir.resolve("data").toString());
        StringBuilder properties = new StringBuilder();
        for (String line : template.split("\n", -1)) {
            int eq = line.indexOf('=');
            boolean replaced = !line.startsWith("#") && eq > 0 && cluster.containsKey(line.substring(0, eq).trim());
            if (!replaced) {
                properties.append(line).append('\n');
            }
        }
        properties.append("# compat/java Cluster: node ").append(member.id).append(" of a cluster\n");
        cluster.forEach((key, value) -> properties.append(key).append('=').append(value).append('\n'));
        Files.writeString(member.dir.resolve("server.properties"), properties);
        List<String> command = new ArrayList<>(Broker.javaCommand(repo));
        command.addAll(List.of("kafka.Kafka", member.dir.resolve("server.properties").toString()));
        return command;
    }

    /** Formats every node's log dir with the same cluster id, the nodes in parallel. */
    private static void formatKafkaStorage(Path repo, List<Member> members) throws Exception {
        List<Process> formats = new ArrayList<>();
        List<List<String>> commands = new ArrayList<>();
        for (Member member : members) {
            List<String> format = new ArrayList<>(Broker.javaCommand(repo));
            format.addAll(List.of("kafka.tools.StorageTool", "format", "-t", CLUSTER_ID,
                "-c", member.dir.resolve("server.properties").toString()));
            commands.add(format);
            formats.add(new ProcessBuilder(format)
                .redirectErrorStream(true)
                .redirectOutput(member.dir.resolve("format.log").toFile())
                .start());
        }
        for (int i = 0; i < formats.size(); i++) {
            Process formatting = formats.get(i);
            if (!formatting.waitFor(60, TimeUnit.SECONDS) || formatting.exitValue() != 0) {
                formats.forEach(Process::destroyForcibly);
                throw new IllegalStateException("compat: formatting Kafka's storage failed: " + String.join(" ", commands.get(i))
                    + "\n" + Files.readString(members.get(i).dir.resolve("format.log")));
            }
        }
    }

    private static int uniquePort(Set<Integer> taken) throws IOException {
        int port = Broker.freePort();
        while (!taken.add(port)) {
            port = Broker.freePort();
        }
        return port;
    }

    private static boolean keepDir() {
        return "1".equals(System.getenv("STRAND_COMPAT_KEEP_DIR"));
    }
}
