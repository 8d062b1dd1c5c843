package dev.strand.compat;

import java.util.Map;

/**
 * The Java suite's three-node {@link Cluster} (compiled in from compat/java) for the streams suite's
 * package: start one of a given kind, kill and restart its nodes, close it.
 */
public final class StreamsCluster implements AutoCloseable {
    private final Cluster cluster;

    private StreamsCluster(Cluster cluster) {
        this.cluster = cluster;
    }

    /** {@code size} nodes of {@code kind}, each broker and controller, serving once this returns. */
    public static StreamsCluster start(Broker.Kind kind, int size) throws Exception {
        return new StreamsCluster(Cluster.start(kind, size, id -> Map.of()));
    }

    /** Every node's address. */
    public String bootstrap() {
        return cluster.bootstrap();
    }

    /** SIGKILL node {@code id}, returning once it is gone. */
    public void kill(int id) throws Exception {
        cluster.kill(id);
    }

    /** Starts killed node {@code id} again on its data dir; returns once it serves. */
    public void restart(int id) throws Exception {
        cluster.restart(id);
    }

    /** The last lines of every node's output, for failure messages. */
    public String tails() {
        return cluster.tails();
    }

    @Override
    public void close() {
        cluster.close();
    }
}
