"""Apache Kafka's kafka-configs (ConfigCommand, 4.4.0) against the broker: a topic's dynamic
configs set, described, deleted and refused; the cluster-wide broker default set and described;
compared with Kafka 4.4.0's own output (golden/configs-*.txt, recorded as test_kafka_tools.py
describes). The steps of one session, in file order, on the topic `cfg`.
"""

from test_kafka_tools import TOPICS, check, eventually

CONFIGS = "org.apache.kafka.tools.ConfigCommand"


def configs(tool, *args):
    return tool(CONFIGS, *args)


def test_topic_configs_round_trip(tool):
    """--alter --add-config on a topic, --describe (with synonyms from the broker's defaults),
    --delete-config, and a value Kafka's validation refuses (segment.bytes below 1 MiB)."""
    check("configs-create-topic", tool(TOPICS, "--create", "--topic", "cfg", "--partitions", "1",
                                       "--replication-factor", "1"))
    check("configs-topic-add", configs(tool, "--entity-type", "topics", "--entity-name", "cfg", "--alter",
                                       "--add-config", "retention.ms=86400000,cleanup.policy=compact"))
    described = eventually("the configs are described", lambda: (
        lambda done: done if "retention.ms=86400000" in done.stdout else None)(
            configs(tool, "--entity-type", "topics", "--entity-name", "cfg", "--describe")))
    check("configs-topic-describe", described)
    check("configs-topic-delete", configs(tool, "--entity-type", "topics", "--entity-name", "cfg", "--alter",
                                          "--delete-config", "retention.ms"))
    described = eventually("retention.ms is gone", lambda: (
        lambda done: done if "retention.ms" not in done.stdout else None)(
            configs(tool, "--entity-type", "topics", "--entity-name", "cfg", "--describe")))
    check("configs-topic-describe-after-delete", described)
    check("configs-topic-invalid", configs(tool, "--entity-type", "topics", "--entity-name", "cfg", "--alter",
                                           "--add-config", "segment.bytes=1000"))
    check("configs-topic-unknown", configs(tool, "--entity-type", "topics", "--entity-name", "missing",
                                           "--describe"))


def test_broker_default_round_trip(tool):
    """--entity-type brokers --entity-default: a cluster-wide dynamic default set, described and
    deleted."""
    check("configs-brokers-default-add", configs(tool, "--entity-type", "brokers", "--entity-default", "--alter",
                                                 "--add-config", "log.retention.ms=604800000"))
    described = eventually("the default is described", lambda: (
        lambda done: done if "log.retention.ms=604800000" in done.stdout else None)(
            configs(tool, "--entity-type", "brokers", "--entity-default", "--describe")))
    check("configs-brokers-default-describe", described)
    check("configs-brokers-default-delete", configs(tool, "--entity-type", "brokers", "--entity-default", "--alter",
                                                    "--delete-config", "log.retention.ms"))
    described = eventually("the default is gone", lambda: (
        lambda done: done if "log.retention.ms" not in done.stdout else None)(
            configs(tool, "--entity-type", "brokers", "--entity-default", "--describe")))
    check("configs-brokers-default-describe-after-delete", described)


def test_remote_storage_is_refused(tool):
    """remote.storage.enable=true on a broker without tiered storage: Kafka refuses it, when a
    topic is created with it and when an existing topic is altered to it."""
    created = tool(TOPICS, "--create", "--topic", "tiered", "--partitions", "1", "--replication-factor", "1",
                   "--config", "remote.storage.enable=true")
    check("configs-remote-storage-create", created)
    assert "Tiered Storage functionality is disabled in the broker" in created.stdout + created.stderr
    check("configs-remote-storage-topic", tool(TOPICS, "--create", "--topic", "not-tiered", "--partitions", "1",
                                               "--replication-factor", "1"))
    altered = configs(tool, "--entity-type", "topics", "--entity-name", "not-tiered", "--alter",
                      "--add-config", "remote.storage.enable=true")
    check("configs-remote-storage-alter", altered)
    assert "Tiered Storage functionality is disabled in the broker" in altered.stdout + altered.stderr
