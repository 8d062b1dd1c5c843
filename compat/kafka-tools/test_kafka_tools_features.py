"""Apache Kafka's kafka-features (FeatureCommand, 4.4.0) through the broker listener
(--bootstrap-server, forwarded to the active controller) and the CONTROLLER listener
(--bootstrap-controller, KIP-919): describe, then a sequence of downgrades, disabling and upgrades
with the refusals Kafka's FeatureControlManager gives (an upgrade that is a downgrade, a level no
node supports, metadata.version downgrades safe and unsafe, a downgrade to a newer level, an
unknown feature, a release version), each compared with Kafka 4.4.0's output (golden/features-*.txt,
recorded as test_kafka_tools.py describes; both listeners print the same).

`describe` (against Strand; against Kafka, as recorded) is compared line by line for the features
Strand implements (every one Kafka 4.4 finalizes); share.version is supported and finalized at level 1 only (Kafka: 2), so its line is
compared with those two levels lowered. The sequence leaves the levels as it found them (the groups suite needs group.version 1).
"""

import os
import re

import pytest

from test_kafka_tools import GOLDEN, UPDATE, check, eventually

FEATURES = "org.apache.kafka.tools.FeatureCommand"
# Kafka 4.4 features Strand does not implement: Kafka's describe prints them, Strand's does not.
UNIMPLEMENTED = ()
# Features Strand implements below Kafka 4.4's top level: (feature, Kafka's level, Strand's).
PARTIAL = (("share.version", 2, 1),)
LISTENERS = pytest.mark.parametrize("controller", [False, True], ids=["bootstrap-server", "bootstrap-controller"])


def check_describe(name, done):
    """describe against golden/NAME.txt with the epoch masked and the unimplemented features' lines
    of Kafka's output left out."""
    lines = [re.sub(r"Epoch: \d+", "Epoch: <EPOCH>", line) for line in done.stdout.splitlines()]
    actual = [f"exit: {done.returncode}", *lines]
    path = GOLDEN / f"{name}.txt"
    if UPDATE:
        if os.environ.get("STRAND_COMPAT_BROKER") != "kafka":
            pytest.fail("golden files record Kafka's output: update them with STRAND_COMPAT_BROKER=kafka")
        path.write_text("\n".join(actual) + "\n")
        return
    expected = path.read_text().splitlines()
    if os.environ.get("STRAND_COMPAT_BROKER") == "kafka":
        assert actual == expected, f"{name}: differs from Kafka 4.4.0's (golden/{name}.txt)\n{done.stderr}"
        return
    implemented = [lowered(line) for line in expected if not any(line.startswith(f"Feature: {f} ") for f in UNIMPLEMENTED)]
    assert len(expected) - len(implemented) == len(UNIMPLEMENTED), expected
    assert actual == implemented, f"{name}: differs from Kafka 4.4.0's (golden/{name}.txt)\n{done.stderr}"


def lowered(line):
    """Kafka's describe line of a PARTIAL feature as Strand prints it: its supported and finalized
    levels at Strand's top level (same width, so the padding holds)."""
    for feature, kafka, strand in PARTIAL:
        if line.startswith(f"Feature: {feature} "):
            for field in ("SupportedMaxVersion", "FinalizedVersionLevel"):
                line = line.replace(f"{field}: {kafka} ", f"{field}: {strand} ")
    return line


@LISTENERS
def test_describe(tool, controller):
    """describe: each supported feature's range and finalized level; kraft.version 0 for a static
    quorum (controller.quorum.voters)."""
    check_describe("features-describe", tool(FEATURES, "describe", controller=controller))


@LISTENERS
def test_refusals(tool, controller):
    """Refused updates leave every level as it was; Kafka's messages and exit status."""
    def features(*args):
        return tool(FEATURES, *args, controller=controller)

    check("features-downgrade-metadata-refused", features("downgrade", "--metadata", "4.3-IV0"))
    check("features-downgrade-metadata-unsafe-refused", features("downgrade", "--metadata", "4.4-IV1", "--unsafe"))
    check("features-upgrade-to-lower-refused", features("upgrade", "--feature", "transaction.version=1"))
    check("features-upgrade-unsupported-level", features("upgrade", "--feature", "group.version=2"))
    check("features-upgrade-unsupported-metadata", features("upgrade", "--metadata", "4.5-IV0"))
    check("features-disable-unknown", features("disable", "--feature", "foo.version"))
    check("features-disable-metadata-refused", features("disable", "--feature", "metadata.version"))
    check("features-downgrade-release-refused", features("downgrade", "--release-version", "3.9-IV0", "--dry-run"))
    check_describe("features-describe", features("describe"))


@LISTENERS
def test_downgrade_disable_upgrade(tool, controller):
    """A dry run, a safe downgrade, disabling, a refused downgrade to a newer level and upgrades
    back, each shown by the next describe."""
    def features(*args):
        return tool(FEATURES, *args, controller=controller)

    check("features-downgrade-dry-run", features("downgrade", "--feature", "transaction.version=1", "--dry-run"))
    check_describe("features-describe", features("describe"))
    check("features-downgrade", features("downgrade", "--feature", "transaction.version=1"))
    check_describe("features-describe-after-downgrade", features("describe"))
    check("features-disable", features("disable", "--feature", "group.version"))
    check("features-downgrade-to-newer-refused", features("downgrade", "--feature", "group.version=1"))
    check_describe("features-describe-after-disable", features("describe"))
    check("features-upgrade", features("upgrade", "--feature", "transaction.version=2", "--feature", "group.version=1"))
    check_describe("features-describe", features("describe"))


@LISTENERS
def test_kraft_version_upgrade(tool, controller):
    """kraft.version 1 makes a static quorum's voters changeable (KIP-853): the dry run passes once
    the voter has told its leader (itself) about itself, as Kafka 4.4's; a downgrade to the current
    level is a no-op. Dry runs only: the level stays 0 (the real upgrade, irreversible, is
    crates/cli/tests/e2e_cluster_kraft_upgrade.rs)."""
    def dry_run():
        done = tool(FEATURES, "upgrade", "--feature", "kraft.version=1", "--dry-run", controller=controller)
        return done if done.returncode == 0 else None

    done = eventually("the dry run passes", dry_run)
    assert done.stdout == "kraft.version can be upgraded to 1.\n", done
    unchanged = tool(FEATURES, "downgrade", "--feature", "kraft.version=0", "--dry-run", controller=controller)
    assert (unchanged.returncode, unchanged.stdout) == (0, "kraft.version can be downgraded to 0.\n"), unchanged
