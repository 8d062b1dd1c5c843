"""`strand configs` (Strand's kafka-configs.sh) against this suite's broker (Strand, or Apache
Kafka 4.4.0 with STRAND_COMPAT_BROKER=kafka): the sequences of test_kafka_tools_configs.py,
_quotas.py and _scram.py compared with the same golden files (what Kafka's own tool printed),
then Kafka's tool and strand run side by side on the same cluster state for the read commands,
whose orders are those of Kafka's hash maps (topics, brokers, quota entities and values).

On a broker of its own (module scope): the other files' topics and quotas would change what the
describes list.
"""

import subprocess

import pytest
from conftest import STRAND, Tool, running_broker
from test_kafka_tools import check, eventually

CONFIGS = "org.apache.kafka.tools.ConfigCommand"


@pytest.fixture(scope="module")
def own_broker():
    yield from running_broker("strand-configs")


@pytest.fixture(scope="module")
def strand(own_broker):
    def run(tool, *args):
        command = [str(STRAND), tool, "--bootstrap-server", own_broker.bootstrap, *args]
        return subprocess.run(command, capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL)
    return run


def configs_when(strand, needle, present, *args):
    """strand configs ARGS once `needle` is (or is no longer) in its stdout."""
    def attempt():
        done = strand("configs", *args)
        return done if (needle in done.stdout) == present else None
    return eventually(f"{needle} {'present' if present else 'gone'}", attempt)


def test_strand_configs_prints_what_kafka_configs_prints(strand):
    """A topic's configs, the broker default, quotas and SCRAM credentials: every step's exit
    status and stdout as Kafka's tool printed them."""
    check("configs-create-topic", strand("topics", "--create", "--topic", "cfg", "--partitions", "1",
                                         "--replication-factor", "1"))
    topic = ["--entity-type", "topics", "--entity-name", "cfg"]
    check("configs-topic-add", strand("configs", *topic, "--alter", "--add-config",
                                      "retention.ms=86400000,cleanup.policy=compact"))
    check("configs-topic-describe", configs_when(strand, "retention.ms=86400000", True, *topic, "--describe"))
    check("configs-topic-delete", strand("configs", *topic, "--alter", "--delete-config", "retention.ms"))
    check("configs-topic-describe-after-delete", configs_when(strand, "retention.ms", False, *topic, "--describe"))
    check("configs-topic-invalid", strand("configs", *topic, "--alter", "--add-config", "segment.bytes=1000"))
    check("configs-topic-unknown", strand("configs", "--entity-type", "topics", "--entity-name", "missing",
                                          "--describe"))
    default = ["--entity-type", "brokers", "--entity-default"]
    check("configs-brokers-default-add", strand("configs", *default, "--alter", "--add-config",
                                                "log.retention.ms=604800000"))
    check("configs-brokers-default-describe", configs_when(strand, "log.retention.ms=604800000", True, *default,
                                                           "--describe"))
    check("configs-brokers-default-delete", strand("configs", *default, "--alter", "--delete-config",
                                                   "log.retention.ms"))
    check("configs-brokers-default-describe-after-delete", configs_when(strand, "log.retention.ms", False, *default,
                                                                        "--describe"))
    carol = ["--entity-type", "users", "--entity-name", "carol"]
    app = ["--entity-type", "clients", "--entity-name", "app"]
    check("quotas-user-add", strand("configs", *carol, "--alter", "--add-config",
                                    "producer_byte_rate=1024,consumer_byte_rate=2048"))
    check("quotas-client-add", strand("configs", *app, "--alter", "--add-config",
                                      "request_percentage=50,controller_mutation_rate=10"))
    check("quotas-user-describe", configs_when(strand, "producer_byte_rate", True, *carol, "--describe"))
    check("quotas-client-describe", strand("configs", *app, "--describe"))
    alice = ["--entity-type", "users", "--entity-name", "alice"]
    check("scram-add", strand("configs", *alice, "--alter", "--add-config",
                              "SCRAM-SHA-512=[iterations=8192,password=alice-secret]"))
    check("scram-describe-alice", configs_when(strand, "SCRAM-SHA-512", True, *alice, "--describe"))


def test_strand_configs_and_kafka_configs_agree(own_broker, strand):
    """With topics, overrides, quotas of several entities and a SCRAM user, Kafka's tool and strand
    print the same bytes for every read command, on the same cluster state."""
    kafka = Tool(own_broker)
    for name in ["orders", "payments", "Aa", "BB", "x_y", "t1", "t2"]:
        done = strand("topics", "--create", "--topic", name, "--partitions", "1", "--config", "retention.ms=5000")
        assert done.returncode == 0, done.stdout + done.stderr
    for entity, config in ((["--entity-type", "users", "--entity-default"], "consumer_byte_rate=100000"),
                           (["--entity-type", "users", "--entity-name", "dave"], "producer_byte_rate=1,request_percentage=5"),
                           (["--entity-type", "clients", "--entity-default"], "producer_byte_rate=300"),
                           (["--entity-type", "ips", "--entity-name", "127.0.0.1"], "connection_creation_rate=100"),
                           (["--entity-type", "ips", "--entity-default"], "connection_creation_rate=1000")):
        done = strand("configs", *entity, "--alter", "--add-config", config)
        assert done.returncode == 0, done.stdout + done.stderr
    eventually("every quota described", lambda: "dave" in strand("configs", "--entity-type", "users",
                                                                 "--describe").stdout)
    for args in (["--entity-type", "topics", "--describe"], ["--entity-type", "brokers", "--describe"],
                 ["--entity-type", "users", "--describe"], ["--entity-type", "clients", "--describe"],
                 ["--entity-type", "ips", "--describe"], ["--entity-type", "users", "--entity-name", "dave",
                                                          "--describe"],
                 ["--topic", "BB", "--describe"], ["--broker-defaults", "--describe"]):
        expected = kafka(CONFIGS, *args)
        actual = strand("configs", *args)
        assert (actual.returncode, actual.stdout) == (expected.returncode, expected.stdout), \
            f"{args}: strand differs from Kafka's tool\n--- kafka\n{expected.stdout}\n--- strand\n{actual.stdout}"
