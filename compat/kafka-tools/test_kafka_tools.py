"""Apache Kafka's own command-line tools (the 4.4.0 classes from Maven Central) with the seeds'
commands: kafka-topics --create/--list/--describe/--alter/--delete, kafka-console-producer, then
kafka-console-consumer --partition 0 --offset earliest (group-based consumption is issue 5).

What a tool prints on stdout, and its exit status, is compared with golden/*.txt: Kafka 4.4.0's own
output, recorded against the Kafka broker (topic ids masked as <TOPIC_ID>). To record them again:
STRAND_COMPAT_BROKER=kafka STRAND_COMPAT_UPDATE_GOLDEN=1 compat/run.sh kafka-tools.

The tests are steps of one session and run in file order: `first` is created by the first test and
deleted by the last, and `--list` is checked while `first` is the only topic.
"""

import os
import re
import time
from pathlib import Path

import pytest

GOLDEN = Path(__file__).resolve().parent / "golden"
UPDATE = os.environ.get("STRAND_COMPAT_UPDATE_GOLDEN") == "1"
TOPICS = "org.apache.kafka.tools.TopicCommand"
PRODUCER = "org.apache.kafka.tools.ConsoleProducer"
CONSUMER = "org.apache.kafka.tools.consumer.ConsoleConsumer"
WAIT_S = 15


def masked(stdout):
    return re.sub(r"TopicId: [A-Za-z0-9_-]{22}", "TopicId: <TOPIC_ID>", stdout)


def check(name, done):
    """Compares exit status and stdout with golden/NAME.txt (or records them, see the module doc)."""
    actual = f"exit: {done.returncode}\n{masked(done.stdout)}"
    path = GOLDEN / f"{name}.txt"
    if UPDATE:
        if os.environ.get("STRAND_COMPAT_BROKER") != "kafka":
            pytest.fail("golden files record Kafka's output: update them with STRAND_COMPAT_BROKER=kafka")
        path.write_text(actual)
        return
    expected = path.read_text()
    assert actual == expected, f"{name}: output differs from Kafka 4.4.0's (golden/{name}.txt; in the diff " \
                               f"below '-' is Kafka's line, '+' this broker's)\n--- stderr ---\n{done.stderr}"


def eventually(what, probe):
    """Repeats probe() until it returns a true value: a metadata change reaches the broker's
    metadata a moment after the controller commits it."""
    deadline = time.monotonic() + WAIT_S
    while True:
        result = probe()
        if result:
            return result
        assert time.monotonic() < deadline, f"{what} within {WAIT_S} s"
        time.sleep(0.1)


def test_create_first(tool):
    """kafka-topics --create --topic first --partitions 3 --replication-factor 1, then again (exists)."""
    check("create-first", tool(TOPICS, "--create", "--topic", "first", "--partitions", "3",
                               "--replication-factor", "1"))
    check("create-first-again", tool(TOPICS, "--create", "--topic", "first", "--partitions", "3",
                                     "--replication-factor", "1"))


def test_list(tool):
    """kafka-topics --list shows exactly the one topic (no internal topic exists yet)."""
    check("list", tool(TOPICS, "--list"))


def test_describe(tool):
    """kafka-topics --describe: the topic line and one line per partition (Leader, Replicas, Isr,
    Elr, LastKnownElr), as Kafka 4.4 prints them."""
    check("describe-first", tool(TOPICS, "--describe", "--topic", "first"))


def test_alter_to_the_same_count_fails(tool):
    """kafka-topics --alter --partitions 3 on a 3-partition topic fails: INVALID_PARTITIONS, Kafka's message."""
    check("alter-first-3", tool(TOPICS, "--alter", "--topic", "first", "--partitions", "3"))
    check("alter-first-2", tool(TOPICS, "--alter", "--topic", "first", "--partitions", "2"))


def test_alter_to_more_partitions(tool):
    """kafka-topics --alter --partitions 5 succeeds silently; --describe then shows 5 partitions."""
    check("alter-first-5", tool(TOPICS, "--alter", "--topic", "first", "--partitions", "5"))
    described = eventually("--describe shows 5 partitions", lambda: (
        lambda done: done if "PartitionCount: 5" in done.stdout else None)(tool(TOPICS, "--describe", "--topic", "first")))
    check("describe-first-5", described)


def test_console_producer_then_consumer(tool):
    """kafka-console-producer reads lines from stdin; kafka-console-consumer --partition 0 --offset
    earliest --max-messages N prints exactly them, and from an offset with keys and offsets."""
    check("create-lines", tool(TOPICS, "--create", "--topic", "lines", "--partitions", "1",
                               "--replication-factor", "1"))
    produced = tool(PRODUCER, "--topic", "lines", "--reader-property", "parse.key=true",
                    "--reader-property", "key.separator=:", input="a:one\nb:two\nc:three\n")
    check("console-producer", produced)

    consumed = tool(CONSUMER, "--topic", "lines", "--partition", "0", "--offset", "earliest",
                    "--max-messages", "3", "--timeout-ms", str(WAIT_S * 1000))
    check("console-consumer-earliest", consumed)
    assert "Processed a total of 3 messages" in consumed.stderr

    from_offset = tool(CONSUMER, "--topic", "lines", "--partition", "0", "--offset", "1", "--max-messages", "2",
                       "--timeout-ms", str(WAIT_S * 1000), "--formatter-property", "print.key=true",
                       "--formatter-property", "print.offset=true", "--formatter-property", "print.partition=true")
    check("console-consumer-offset-1", from_offset)
    assert "Processed a total of 2 messages" in from_offset.stderr


def test_delete_first(tool):
    """kafka-topics --delete removes the topic; describing or deleting it again fails."""
    check("delete-first", tool(TOPICS, "--delete", "--topic", "first"))
    eventually("first no longer listed", lambda: "first" not in tool(TOPICS, "--list").stdout.split())
    check("describe-deleted", tool(TOPICS, "--describe", "--topic", "first"))
    check("delete-deleted", tool(TOPICS, "--delete", "--topic", "first"))
    check("list-after-delete", tool(TOPICS, "--list"))
