"""Apache Kafka's kafka-metadata-quorum (MetadataQuorumCommand, 4.4.0) and kafka-features
(FeatureCommand) and kafka-configs' broker configs against the broker, through its broker listener (--bootstrap-server) and its
CONTROLLER listener (--bootstrap-controller, KIP-919): `describe --status` and `describe
--replication` compared with Kafka 4.4.0's output (golden/quorum-*.txt, recorded as
test_kafka_tools.py describes) once the values that differ between runs (cluster id, epoch, high
watermark, log end offsets, times, ports) are masked: the same lines, fields and columns.
"""

import os
import re

import pytest

from test_kafka_tools import UPDATE, GOLDEN, check, eventually

QUORUM = "org.apache.kafka.tools.MetadataQuorumCommand"
FEATURES = "org.apache.kafka.tools.FeatureCommand"
CONFIGS = "org.apache.kafka.tools.ConfigCommand"


def masked_status(stdout):
    """`describe --status`: the run's values masked, Kafka's layout kept."""
    stdout = re.sub(r"^(ClusterId|LeaderEpoch|HighWatermark):(\s+)\S+$", r"\1:\2<\1>", stdout, flags=re.M)
    return re.sub(r"127\.0\.0\.1:\d+", "127.0.0.1:<PORT>", stdout)


def masked_replication(stdout):
    """`describe --replication`: a tab-separated table padded to its widest cell; the cells are
    compared stripped, the log end offset and the times masked."""
    rows = []
    for line in stdout.splitlines():
        cells = [cell.strip() for cell in line.split("\t")]
        if cells and cells[0].isdigit():
            cells[2] = "<OFFSET>"
            cells[4:6] = ["<TIME>" if re.fullmatch(r"\d{13}", c) else c for c in cells[4:6]]
        rows.append("|".join(cells))
    return "\n".join(rows) + "\n"


def check_masked(name, done, mask):
    """Compares exit status and masked stdout with golden/NAME.txt (recorded from Kafka)."""
    actual = f"exit: {done.returncode}\n{mask(done.stdout)}"
    path = GOLDEN / f"{name}.txt"
    if UPDATE:
        if os.environ.get("STRAND_COMPAT_BROKER") != "kafka":
            pytest.fail("golden files record Kafka's output: update them with STRAND_COMPAT_BROKER=kafka")
        path.write_text(actual)
        return
    assert actual == path.read_text(), f"{name}: differs from Kafka 4.4.0's (golden/{name}.txt)\n" \
                                       f"--- stdout ---\n{done.stdout}--- stderr ---\n{done.stderr}"


@pytest.mark.parametrize("controller", [False, True], ids=["bootstrap-server", "bootstrap-controller"])
def test_describe_status(tool, controller):
    """describe --status: cluster id, leader, epoch, high watermark, lag, voters with their
    CONTROLLER endpoints, observers."""
    done = eventually("the quorum is described", lambda: (lambda d: d if d.returncode == 0 else None)(
        tool(QUORUM, "describe", "--status", controller=controller)))
    check_masked("quorum-describe-status", done, masked_status)


@pytest.mark.parametrize("controller", [False, True], ids=["bootstrap-server", "bootstrap-controller"])
def test_describe_replication(tool, controller):
    """describe --replication: one row per voter and observer, Kafka's columns."""
    done = tool(QUORUM, "describe", "--replication", controller=controller)
    check_masked("quorum-describe-replication", done, masked_replication)


@pytest.mark.parametrize("controller", [False, True], ids=["bootstrap-server", "bootstrap-controller"])
def test_remove_controller_is_refused(tool, controller):
    """remove-controller on a static quorum: UNSUPPORTED_VERSION (Strand's message says why; the
    exception class and exit status are Kafka's)."""
    done = tool(QUORUM, "remove-controller", "--controller-id", "1", "--controller-directory-id",
                "pqsDeZ4yR1y2LHAaIyqkkQ", controller=controller)
    assert done.returncode == 1, done
    assert done.stderr.startswith("org.apache.kafka.common.errors.UnsupportedVersionException: Cluster doesn't "
                                  "support removing voter because "), done.stderr


def test_features_describe_on_the_controller(tool):
    """kafka-features --bootstrap-controller describe: the finalized features from the controller's
    ApiVersions, the lines Kafka prints (Strand finalizes fewer features: compared line by line
    for the ones both print, the epoch masked)."""
    features = {}
    for controller in (False, True):
        done = tool(FEATURES, "describe", controller=controller)
        assert done.returncode == 0, done
        lines = [re.sub(r"Epoch: \d+", "Epoch: <EPOCH>", line) for line in done.stdout.splitlines()]
        features[controller] = lines
        for line in lines:
            assert re.fullmatch(r"Feature: \S+\s+SupportedMinVersion: \S+\s+SupportedMaxVersion: \S+\s+"
                                r"FinalizedVersionLevel: \S+\s+Epoch: <EPOCH>", line), line
    assert features[True] == features[False], "both listeners report the same features"
    metadata_version = [line for line in features[True] if line.startswith("Feature: metadata.version ")]
    assert len(metadata_version) == 1, features[True]
    assert "FinalizedVersionLevel: 4.4-IV2" in metadata_version[0]


def test_configs_describe_brokers_on_the_controller(tool):
    """kafka-configs --bootstrap-controller --describe --entity-type brokers: the controllers
    from DescribeCluster, then each one's dynamic configs and the cluster-wide defaults, as Kafka's."""
    check("quorum-configs-brokers", tool(CONFIGS, "--describe", "--entity-type", "brokers", controller=True))


def test_configs_alter_brokers_on_the_controller(tool):
    """kafka-configs --bootstrap-controller --alter (IncrementalAlterConfigs on the CONTROLLER
    listener, decided by the active controller): a broker's own value and the cluster default of
    log.retention.ms set, described with their synonyms, and deleted again, as Kafka's."""
    def configs(*args):
        return tool(CONFIGS, "--entity-type", "brokers", *args, controller=True)

    check("quorum-configs-broker-add", configs("--entity-name", "1", "--alter", "--add-config",
                                               "log.retention.ms=3600000"))
    check("quorum-configs-broker-describe", configs("--entity-name", "1", "--describe"))
    check("quorum-configs-default-add", configs("--entity-default", "--alter", "--add-config",
                                                "log.retention.ms=7200000"))
    check("quorum-configs-brokers-both", configs("--describe"))
    check("quorum-configs-broker-delete", configs("--entity-name", "1", "--alter", "--delete-config",
                                                  "log.retention.ms"))
    check("quorum-configs-default-delete", configs("--entity-default", "--alter", "--delete-config",
                                                   "log.retention.ms"))
    check("quorum-configs-brokers", configs("--describe"))
