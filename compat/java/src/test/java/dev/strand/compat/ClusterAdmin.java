package dev.strand.compat;

import static org.junit.jupiter.api.Assertions.fail;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.TopicPartitionInfo;

/** What the multi-node tests ask a {@link Cluster} through an {@link Admin}: topic waits and lookups. */
final class ClusterAdmin {
    /** How long a wait for partitions may take. */
    static final Duration DEADLINE = Duration.ofSeconds(30);

    private ClusterAdmin() {
    }

    /** Polls describeTopics until every partition of {@code topics} satisfies {@code done}; fails with the nodes' log tails. */
    static void awaitPartitions(Admin admin, Cluster cluster, List<String> topics, String what,
                                Predicate<TopicPartitionInfo> done) throws Exception {
        long deadline = System.nanoTime() + DEADLINE.toNanos();
        String last = "";
        while (true) {
            try {
                Map<String, TopicDescription> described = admin.describeTopics(topics).allTopicNames()
                    .get(Clients.WAIT.toSeconds(), TimeUnit.SECONDS);
                List<String> pending = described.values().stream()
                    .flatMap(d -> d.partitions().stream().filter(done.negate())
                        .map(p -> d.name() + "-" + p.partition() + " leader " + (p.leader() == null ? "none" : p.leader().id())
                            + " isr " + ids(p.isr())))
                    .toList();
                if (pending.isEmpty()) {
                    return;
                }
                last = pending.size() + " partitions not yet: " + pending.subList(0, Math.min(10, pending.size()));
            } catch (ExecutionException e) {
                last = e.toString();
            }
            if (System.nanoTime() >= deadline) {
                fail(what + ": not within " + DEADLINE.toSeconds() + " s (" + topics + "): " + last + "\n" + cluster.tails());
            }
            Thread.sleep(100);
        }
    }

    static TopicDescription describeTopic(Admin admin, String name) throws Exception {
        return admin.describeTopics(List.of(name)).allTopicNames().get(Clients.WAIT.toSeconds(), TimeUnit.SECONDS).get(name);
    }

    /** The quorum's leader (DescribeQuorum), for the printed figures; null if the broker does not say. */
    static Integer activeController(Admin admin) {
        try {
            return admin.describeMetadataQuorum().quorumInfo().get(Clients.WAIT.toSeconds(), TimeUnit.SECONDS).leaderId();
        } catch (Exception e) {
            return null;
        }
    }

    static String controllerNote(int node, Integer controller) {
        if (controller == null) {
            return ", active controller unknown";
        }
        return controller == node ? " and the active controller" : "; node " + controller + " is the active controller";
    }

    static Set<Integer> ids(Iterable<Node> nodes) {
        Set<Integer> ids = new TreeSet<>();
        nodes.forEach(node -> ids.add(node.id()));
        return ids;
    }
}
