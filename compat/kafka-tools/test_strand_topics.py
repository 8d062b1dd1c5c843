"""`strand topics` (Strand's kafka-topics.sh) run with the seeds' sequence of test_kafka_tools.py
(and `strand console-producer` / `console-consumer` with its console steps)
against this suite's broker (Strand, or Apache Kafka 4.4.0 with STRAND_COMPAT_BROKER=kafka), its
exit status and stdout compared with the same golden files: what Kafka's own tool printed, with
the same normalisation (topic ids masked). The strand binary is STRAND_BIN, else
target/release/strand (run.sh builds it for this suite whatever the broker).

The sequence runs on a broker of its own (module scope): the session's broker has the topics of
the other files by then, and `--list` must see only this sequence's.
"""

import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "python"))

from conftest import STRAND, running_broker  # noqa: E402
from test_kafka_tools import check, eventually  # noqa: E402


@pytest.fixture(scope="module")
def own_broker():
    yield from running_broker("strand-topics")


@pytest.fixture(scope="module")
def topics(own_broker):
    def run(*args):
        command = [str(STRAND), "topics", "--bootstrap-server", own_broker.bootstrap, *args]
        return subprocess.run(command, capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL)
    return run


def test_strand_topics_prints_what_kafka_topics_prints(topics):
    """create, create again, list, describe, alter (same count, fewer, more), describe, delete,
    describe and delete the deleted topic, list: every step's exit status and stdout as Kafka's."""
    create = ["--create", "--topic", "first", "--partitions", "3", "--replication-factor", "1"]
    check("create-first", topics(*create))
    check("create-first-again", topics(*create))
    check("list", topics("--list"))
    check("describe-first", topics("--describe", "--topic", "first"))
    check("alter-first-3", topics("--alter", "--topic", "first", "--partitions", "3"))
    check("alter-first-2", topics("--alter", "--topic", "first", "--partitions", "2"))
    check("alter-first-5", topics("--alter", "--topic", "first", "--partitions", "5"))
    described = eventually("--describe shows 5 partitions", lambda: (
        lambda done: done if "PartitionCount: 5" in done.stdout else None)(topics("--describe", "--topic", "first")))
    check("describe-first-5", described)
    check("create-lines", topics("--create", "--topic", "lines", "--partitions", "1", "--replication-factor", "1"))
    check("delete-first", topics("--delete", "--topic", "first"))
    eventually("first no longer listed", lambda: "first" not in topics("--list").stdout.split())
    check("describe-deleted", topics("--describe", "--topic", "first"))
    check("delete-deleted", topics("--delete", "--topic", "first"))
    check("list-after-delete", topics("--list"))


def test_strand_topics_and_kafka_topics_agree_on_many_topics(own_broker, topics):
    """With a dozen topics (configs overridden on some, names Java hashes into one bucket), Kafka's
    tool and strand print the same bytes for the read commands, on the same cluster state: the
    order of --describe is that of Kafka's HashMaps."""
    from conftest import Tool
    kafka = Tool(own_broker)
    names = ["orders", "payments", "Aa", "BB", "a.b", "x_y", *[f"t{i}" for i in range(6)]]
    for name in names:
        extra = ["--config", "retention.ms=1000", "--config", "cleanup.policy=compact"] if name in ("BB", "t3") else []
        done = topics("--create", "--topic", name, "--partitions", "2", *extra)
        assert done.returncode == 0, done.stdout + done.stderr
    eventually("every topic listed", lambda: set(names) <= set(topics("--list").stdout.split()))
    for args in (["--list"], ["--list", "--exclude-internal"], ["--describe"], ["--describe", "--topic", "t.*,orders"],
                 ["--describe", "--topics-with-overrides"], ["--describe", "--under-replicated-partitions"],
                 ["--describe", "--unavailable-partitions"], ["--describe", "--at-min-isr-partitions"]):
        expected = kafka("org.apache.kafka.tools.TopicCommand", *args)
        actual = topics(*args)
        assert (actual.returncode, actual.stdout) == (expected.returncode, expected.stdout), \
            f"{args}: strand differs from Kafka's tool\n--- kafka\n{expected.stdout}\n--- strand\n{actual.stdout}"


def test_strand_console_tools_print_what_kafka_s_print(own_broker):
    """strand console-producer (keyed lines) and console-consumer (--offset earliest, then from
    offset 1 with keys, partitions and offsets): exit status and stdout as Kafka's tools."""
    def strand(tool, *args, input=None):
        command = [str(STRAND), tool, "--bootstrap-server", own_broker.bootstrap, *args]
        return subprocess.run(command, input=input, capture_output=True, text=True, timeout=60,
                              stdin=None if input is not None else subprocess.DEVNULL)
    created = strand("topics", "--create", "--topic", "console", "--partitions", "1", "--replication-factor", "1")
    assert created.returncode == 0, created.stdout + created.stderr
    check("console-producer", strand("console-producer", "--topic", "console", "--reader-property", "parse.key=true",
                                     "--reader-property", "key.separator=:", input="a:one\nb:two\nc:three\n"))
    consumed = strand("console-consumer", "--topic", "console", "--partition", "0", "--offset", "earliest",
                      "--max-messages", "3", "--timeout-ms", "15000")
    check("console-consumer-earliest", consumed)
    assert "Processed a total of 3 messages" in consumed.stderr
    from_offset = strand("console-consumer", "--topic", "console", "--partition", "0", "--offset", "1",
                         "--max-messages", "2", "--timeout-ms", "15000", "--formatter-property", "print.key=true",
                         "--formatter-property", "print.offset=true", "--formatter-property", "print.partition=true")
    check("console-consumer-offset-1", from_offset)
