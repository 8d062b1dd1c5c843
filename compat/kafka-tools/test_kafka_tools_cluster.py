"""Apache Kafka's kafka-cluster (ClusterTool, 4.4.0) against the one-node broker: `unregister` of a
broker id nobody registered, refused with Kafka's error; compared with Kafka 4.4.0's own output
(golden/cluster-*.txt, recorded as test_kafka_tools.py describes). Unregistering a real broker is exercised on a three-node cluster (crates/cli/tests/e2e_cluster_membership.rs).
"""

import subprocess

from compat_broker import java_command
from test_kafka_tools import check

CLUSTER = "org.apache.kafka.tools.ClusterTool"


def cluster_tool(tool, command, *args):
    """kafka-cluster COMMAND --bootstrap-server ... ARGS (the subcommand comes first)."""
    return subprocess.run(java_command(short_lived=True) + [CLUSTER, command, "--bootstrap-server",
                                                             tool.broker.bootstrap, *args],
                          capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL)


def test_unregister_an_unknown_broker(tool):
    done = cluster_tool(tool, "unregister", "--id", "99")
    check("cluster-unregister-unknown", done)
    assert "Broker ID 99 is not currently registered" in done.stdout + done.stderr, done.stderr
