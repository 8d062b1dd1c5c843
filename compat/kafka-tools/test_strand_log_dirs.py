"""`strand log-dirs` (Strand's kafka-log-dirs.sh) beside Apache Kafka's kafka-log-dirs
(LogDirsCommand, 4.4.0) against the same broker (Strand, or Apache Kafka 4.4.0 with
STRAND_COMPAT_BROKER=kafka): the sizes are the broker's own, so the two tools' output is compared
byte for byte rather than with a recording: every topic, a --topic-list, a --broker-list, and a
broker that does not exist.
"""

import subprocess

import pytest

from conftest import STRAND, Tool, running_broker

TOPICS = "org.apache.kafka.tools.TopicCommand"
PRODUCER = "org.apache.kafka.tools.ConsoleProducer"
LOG_DIRS = "org.apache.kafka.tools.LogDirsCommand"


@pytest.fixture(scope="module")
def own_broker():
    yield from running_broker("strand-log-dirs")


def test_strand_log_dirs_prints_what_kafka_s_tool_prints(own_broker):
    kafka = Tool(own_broker)
    for topic, partitions in (("dirs", 20), ("other", 1)):
        done = kafka(TOPICS, "--create", "--topic", topic, "--partitions", str(partitions), "--replication-factor", "1")
        assert done.returncode == 0, done.stderr
    done = kafka(PRODUCER, "--topic", "dirs", "--reader-property", "parse.key=true", "--reader-property",
                 "key.separator=:", input="".join(f"k{i}:record {i}\n" for i in range(30)))
    assert done.returncode == 0, done.stderr

    for args in (["--describe"], ["--describe", "--topic-list", "dirs,missing"], ["--describe", "--broker-list", "1"],
                 ["--describe", "--broker-list", "5,1,7"]):
        expected = kafka(LOG_DIRS, *args)
        actual = subprocess.run([str(STRAND), "log-dirs", "--bootstrap-server", own_broker.bootstrap, *args],
                                capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL)
        assert (actual.returncode, actual.stdout) == (expected.returncode, expected.stdout), \
            f"{args}\n--- kafka\n{expected.stdout}{expected.stderr}\n--- strand\n{actual.stdout}{actual.stderr}"
        if expected.returncode != 0:
            assert actual.stderr.splitlines()[0] == expected.stderr.splitlines()[0], (expected.stderr, actual.stderr)
