"""Apache Kafka's kafka-cluster (ClusterTool, 4.4.0) against the one-node broker, through its broker
listener (--bootstrap-server) and its CONTROLLER listener (--bootstrap-controller, KIP-919):
`cluster-id`, `list-endpoints` (brokers, fenced ones included, or controllers) and `unregister` of
a broker id nobody registered, refused with Kafka's error; compared with Kafka 4.4.0's own output
(golden/cluster-*.txt, recorded as test_kafka_tools.py describes; the cluster id and ports
masked). Unregistering a real broker is exercised on a three-node cluster
(crates/cli/tests/e2e_cluster_membership.rs). test_strand_cluster.py runs the same steps with
`strand cluster`.
"""

import re
import subprocess

import pytest

from compat_broker import java_command
from test_kafka_tools import check

CLUSTER = "org.apache.kafka.tools.ClusterTool"
LISTENERS = pytest.mark.parametrize("controller", [False, True], ids=["bootstrap-server", "bootstrap-controller"])


def kafka_cluster(broker):
    """kafka-cluster COMMAND --bootstrap-server|--bootstrap-controller ... ARGS (the subcommand first)."""
    def run(command, *args, controller=False):
        bootstrap = ["--bootstrap-controller", broker.bootstrap_controller] if controller else [
            "--bootstrap-server", broker.bootstrap]
        return subprocess.run(java_command(short_lived=True) + [CLUSTER, command, *bootstrap, *args],
                              capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL)
    return run


@pytest.fixture
def cluster(tool):
    return kafka_cluster(tool.broker)


def masked(done):
    """The run's cluster id and ports masked."""
    stdout = re.sub(r"^Cluster ID: \S+$", "Cluster ID: <CLUSTER_ID>", done.stdout, flags=re.M)
    stdout = re.sub(r"^(\d+\s+127\.0\.0\.1\s+)\d+( +)", lambda m: m.group(1) + "<PORT>" + " " * (
        len(m.group(0)) - len(m.group(1)) - len("<PORT>")), stdout, flags=re.M)
    return subprocess.CompletedProcess(done.args, done.returncode, stdout, done.stderr)


def test_unregister_an_unknown_broker(cluster):
    done = cluster("unregister", "--id", "99")
    check("cluster-unregister-unknown", done)
    assert "Broker ID 99 is not currently registered" in done.stdout + done.stderr, done.stderr


@LISTENERS
def test_cluster_id(cluster, controller):
    check("cluster-id", masked(cluster("cluster-id", controller=controller)))


@LISTENERS
def test_list_endpoints(cluster, controller):
    """The brokers with their state, or the controllers; --include-fenced-brokers (none fenced)."""
    check("cluster-list-endpoints-controllers" if controller else "cluster-list-endpoints",
          masked(cluster("list-endpoints", controller=controller)))
    if not controller:
        check("cluster-list-endpoints", masked(cluster("list-endpoints", "--include-fenced-brokers")))
