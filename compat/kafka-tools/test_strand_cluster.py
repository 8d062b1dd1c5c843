"""`strand cluster` (Strand's kafka-cluster.sh) run with the steps of test_kafka_tools_cluster.py
against this suite's broker (Strand, or Apache Kafka 4.4.0 with STRAND_COMPAT_BROKER=kafka), each
step's exit status and stdout compared with the same golden files (Kafka's tool against Kafka);
and `api-versions`, whose version ranges are the broker's own, compared with what Kafka's tool
prints against the same broker, through both listeners.
"""

import subprocess

import pytest

from conftest import STRAND
# The steps, in the order they run.
from test_kafka_tools_cluster import (  # noqa: F401
    LISTENERS,
    kafka_cluster,
    test_unregister_an_unknown_broker,
    test_cluster_id,
    test_list_endpoints,
)


def strand_cluster(broker):
    def run(command, *args, controller=False):
        bootstrap = ["--bootstrap-controller", broker.bootstrap_controller] if controller else [
            "--bootstrap-server", broker.bootstrap]
        return subprocess.run([str(STRAND), "cluster", command, *bootstrap, *args], capture_output=True, text=True,
                              timeout=60, stdin=subprocess.DEVNULL)
    return run


@pytest.fixture
def cluster(tool):
    return strand_cluster(tool.broker)


@LISTENERS
def test_api_versions_print_what_kafka_s_tool_prints(tool, controller):
    """Each node's API versions, UNSUPPORTED ones included, and the usable version: the same text
    as Kafka 4.4's tool against the same node."""
    kafka = kafka_cluster(tool.broker)("api-versions", controller=controller)
    strand = strand_cluster(tool.broker)("api-versions", controller=controller)
    assert kafka.returncode == 0, kafka.stderr
    assert (strand.returncode, strand.stdout) == (0, kafka.stdout), strand.stderr
