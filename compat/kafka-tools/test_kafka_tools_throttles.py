"""Apache Kafka's kafka-reassign-partitions (ReassignPartitionsCommand, 4.4.0) with --throttle and
--replica-alter-log-dirs-throttle against the one-node broker, and kafka-configs showing and
refusing the throttle configs it sets; compared with Kafka 4.4.0's own output
(golden/throttles-*.txt, recorded as test_kafka_tools.py describes). A one-node reassignment moves
nothing: what is compared is how the tool sets the brokers' rates and the topic's throttled
replicas lists, how the broker describes them, and how --verify clears them. That a throttle holds
a copy to its rate is exercised on three nodes (crates/cli/tests/e2e_cluster_throttles.rs).
"""

import json
import re
import subprocess
import tempfile

from test_kafka_tools import TOPICS, check, eventually

REASSIGN = "org.apache.kafka.tools.reassign.ReassignPartitionsCommand"
CONFIGS = "org.apache.kafka.tools.ConfigCommand"


def log_dirs_masked(done):
    """The tool prints the current assignment with each replica's log dir, a temporary path."""
    stdout = re.sub(r'"log_dirs":\[[^]]*\]', '"log_dirs":[<LOG_DIR>]', done.stdout)
    return subprocess.CompletedProcess(done.args, done.returncode, stdout, done.stderr)


def test_throttled_reassignment_round_trip(tool):
    """--execute --throttle (and a log-dir throttle with no log-dir move), the broker's and the
    topic's configs described, --verify clearing them, then described again."""
    check("throttles-create-topic", tool(TOPICS, "--create", "--topic", "thr", "--partitions", "1",
                                         "--replication-factor", "1"))
    with tempfile.NamedTemporaryFile("w", suffix=".json") as plan:
        json.dump({"version": 1, "partitions": [{"topic": "thr", "partition": 0, "replicas": [1]}]}, plan)
        plan.flush()
        executed = tool(REASSIGN, "--execute", "--reassignment-json-file", plan.name, "--throttle", "500000",
                        "--replica-alter-log-dirs-throttle", "400000")
        check("throttles-execute", log_dirs_masked(executed))
        described = eventually("the rates are described", lambda: (
            lambda done: done if "leader.replication.throttled.rate=500000" in done.stdout else None)(
                tool(CONFIGS, "--entity-type", "brokers", "--entity-name", "1", "--describe")))
        check("throttles-broker-describe", described)
        described = eventually("the lists are described", lambda: (
            lambda done: done if "leader.replication.throttled.replicas=0:1" in done.stdout else None)(
                tool(CONFIGS, "--entity-type", "topics", "--entity-name", "thr", "--describe")))
        check("throttles-topic-describe", described)
        verified = eventually("the reassignment is complete", lambda: (
            lambda done: done if "is completed" in done.stdout else None)(
                tool(REASSIGN, "--verify", "--reassignment-json-file", plan.name)))
        check("throttles-verify", verified)
    described = eventually("the rates are gone", lambda: (
        lambda done: done if "throttled.rate" not in done.stdout else None)(
            tool(CONFIGS, "--entity-type", "brokers", "--entity-name", "1", "--describe")))
    check("throttles-broker-describe-after-verify", described)
    described = eventually("the lists are gone", lambda: (
        lambda done: done if "throttled.replicas" not in done.stdout else None)(
            tool(CONFIGS, "--entity-type", "topics", "--entity-name", "thr", "--describe")))
    check("throttles-topic-describe-after-verify", described)


def test_throttle_rates_are_validated(tool):
    """A negative rate is refused, as Kafka's `atLeast(0)` refuses it; the cluster-wide default
    takes a rate and gives it back."""
    check("throttles-negative-rate", tool(CONFIGS, "--entity-type", "brokers", "--entity-name", "1", "--alter",
                                          "--add-config", "leader.replication.throttled.rate=-1"))
    check("throttles-default-add", tool(CONFIGS, "--entity-type", "brokers", "--entity-default", "--alter",
                                        "--add-config", "follower.replication.throttled.rate=1000000"))
    described = eventually("the default is described", lambda: (
        lambda done: done if "follower.replication.throttled.rate=1000000" in done.stdout else None)(
            tool(CONFIGS, "--entity-type", "brokers", "--entity-default", "--describe")))
    check("throttles-default-describe", described)
    check("throttles-default-delete", tool(CONFIGS, "--entity-type", "brokers", "--entity-default", "--alter",
                                           "--delete-config", "follower.replication.throttled.rate"))
