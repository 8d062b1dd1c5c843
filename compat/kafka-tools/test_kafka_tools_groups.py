"""Consumer groups through Apache Kafka's own tools (issue 5): kafka-console-consumer --group reading
what kafka-console-producer wrote and resuming from the group's commit, then kafka-consumer-groups
--list, --describe (offsets, lag, members, state), --reset-offsets (--dry-run, --to-earliest,
--shift-by, --to-datetime), --delete, also their errors while the group is active.

As in test_kafka_tools.py, stdout and the exit status are compared with golden/groups-*.txt, Kafka
4.4.0's own output against the Kafka broker; record them again with
STRAND_COMPAT_BROKER=kafka STRAND_COMPAT_UPDATE_GOLDEN=1 compat/run.sh kafka-tools. Before the
comparison both sides are normalised: member ids (`console-consumer-<uuid>`) become
`console-consumer-<ID>`, the broker's port `<PORT>`, and runs of spaces (kafka-consumer-groups pads
its columns to the widest value) one space, with none at a line's end. Lines of the console
consumer reading several partitions are sorted (the order of partitions between fetches is not
fixed).

The tests are steps of one session and run in file order, on topic `orders` (3 partitions) and
group `cg`. This file's name sorts after test_kafka_tools.py on purpose: that file's `kafka-topics
--list` expects no other topic, internal ones included, and a group creates __consumer_offsets.
"""

import datetime
import os
import re
import signal
import subprocess
import time
from pathlib import Path

import pytest

from compat_broker import java_command

GOLDEN = Path(__file__).resolve().parent / "golden"
UPDATE = os.environ.get("STRAND_COMPAT_UPDATE_GOLDEN") == "1"
TOPICS = "org.apache.kafka.tools.TopicCommand"
PRODUCER = "org.apache.kafka.tools.ConsoleProducer"
CONSUMER = "org.apache.kafka.tools.consumer.ConsoleConsumer"
GROUPS = "org.apache.kafka.tools.consumer.group.ConsumerGroupCommand"
WAIT_S = 15

# Shared between the steps of the session.
session = {}


def normalised(stdout, sort_lines=False):
    text = re.sub(r"console-consumer-[0-9A-Za-z_-]+", "console-consumer-<ID>", stdout)
    text = re.sub(r"127\.0\.0\.1:\d+", "127.0.0.1:<PORT>", text)
    lines = [re.sub(r" +", " ", line).rstrip() for line in text.split("\n")]
    if sort_lines:
        lines = sorted(line for line in lines if line) + [""]
    return "\n".join(lines)


def check(name, done, sort_lines=False):
    """Compares exit status and normalised stdout with golden/groups-NAME.txt (or records them)."""
    actual = f"exit: {done.returncode}\n{normalised(done.stdout, sort_lines)}"
    path = GOLDEN / f"groups-{name}.txt"
    if UPDATE:
        if os.environ.get("STRAND_COMPAT_BROKER") != "kafka":
            pytest.fail("golden files record Kafka's output: update them with STRAND_COMPAT_BROKER=kafka")
        path.write_text(actual)
        return
    expected = path.read_text()
    assert actual == expected, f"{name}: output differs from Kafka 4.4.0's (golden/groups-{name}.txt; in the " \
                               f"diff below '-' is Kafka's line, '+' this broker's)\n--- stderr ---\n{done.stderr}"


def eventually(what, probe):
    """Repeats probe() (each a tool run, a second or so) until it returns a true value."""
    deadline = time.monotonic() + WAIT_S
    while True:
        result = probe()
        if result:
            return result
        assert time.monotonic() < deadline, f"{what} within {WAIT_S} s"


def produce(tool, lines):
    """kafka-console-producer with keys (key:value lines): the keys place the records, the same way
    on any broker (the client's murmur2 partitioner)."""
    done = tool(PRODUCER, "--topic", "orders", "--reader-property", "parse.key=true",
                "--reader-property", "key.separator=:", input="".join(f"{line}\n" for line in lines))
    assert (done.returncode, done.stdout) == (0, ""), done.stderr


def describe(tool, *args):
    return tool(GROUPS, "--describe", "--group", "cg", *args)


def test_console_consumer_with_a_group(tool):
    """kafka-console-consumer --group cg --from-beginning reads all that kafka-console-producer
    wrote to the three partitions, and (auto-commit on close) commits it: --list shows the group."""
    done = tool(TOPICS, "--create", "--topic", "orders", "--partitions", "3", "--replication-factor", "1")
    assert done.returncode == 0, done.stderr
    produce(tool, [f"k{i}:order {i}" for i in range(1, 10)])
    consumed = tool(CONSUMER, "--topic", "orders", "--group", "cg", "--from-beginning", "--max-messages", "9",
                    "--timeout-ms", str(WAIT_S * 1000), "--formatter-property", "print.partition=true",
                    "--formatter-property", "print.offset=true")
    check("console-consumer-from-beginning", consumed, sort_lines=True)
    assert "Processed a total of 9 messages" in consumed.stderr
    check("list", tool(GROUPS, "--list"))


def test_describe_shows_committed_offsets_and_lag(tool):
    """After three more records, --describe --group cg (no member) shows each partition's committed
    offset, log end offset and lag, '-' for the member columns; --state shows it Empty."""
    # --to-datetime later resets to the first record written after this instant.
    session["between_batches"] = datetime.datetime.now(datetime.timezone.utc)
    produce(tool, [f"k{i}:order {i}" for i in range(10, 13)])
    described = describe(tool)
    check("describe-lag", described)
    assert "Consumer group 'cg' has no active members." in described.stderr
    check("describe-state-empty", describe(tool, "--state"))


def test_console_consumer_resumes_from_the_commit(tool):
    """kafka-console-consumer --group cg (no --from-beginning) resumes at the committed offsets: it
    prints exactly the three records written since."""
    consumed = tool(CONSUMER, "--topic", "orders", "--group", "cg", "--max-messages", "3",
                    "--timeout-ms", str(WAIT_S * 1000), "--formatter-property", "print.partition=true",
                    "--formatter-property", "print.offset=true")
    check("console-consumer-resumes", consumed, sort_lines=True)
    assert "Processed a total of 3 messages" in consumed.stderr


def test_describe_an_active_group(tool):
    """With a console consumer running in cg: --describe shows its CONSUMER-ID, HOST and CLIENT-ID on
    every partition; --members --verbose its assignment; --state Stable with the range assignor;
    --reset-offsets and --delete refuse an active group."""
    member = subprocess.Popen(java_command(short_lived=True) + [
        CONSUMER, "--bootstrap-server", tool.broker.bootstrap, "--topic", "orders", "--group", "cg"],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        eventually("the console consumer is cg's member with all three partitions",
                   lambda: re.search(r"^cg console-consumer-<ID> \S+ console-consumer 3$",
                                     normalised(describe(tool, "--members").stdout), re.M))
        check("describe-active", describe(tool))
        check("describe-members-verbose", describe(tool, "--members", "--verbose"))
        check("describe-state-stable", describe(tool, "--state"))
        check("reset-active", tool(GROUPS, "--reset-offsets", "--group", "cg", "--topic", "orders",
                                   "--to-earliest", "--execute"))
        check("delete-active", tool(GROUPS, "--delete", "--group", "cg"))
    finally:
        member.send_signal(signal.SIGTERM)  # its shutdown hook closes the consumer: it leaves cg
        _, stderr = member.communicate(timeout=30)
    assert member.returncode == 128 + signal.SIGTERM, stderr
    eventually("cg empty once its member left", lambda: " Empty " in normalised(describe(tool, "--state").stdout))


def test_reset_offsets(tool):
    """--reset-offsets on the inactive group: --dry-run prints the new offsets and changes nothing;
    --execute --to-earliest, --shift-by 2 and --to-datetime (the first record after an instant; a
    partition with none falls back to its end) move them, as --describe then shows."""
    reset = ("--reset-offsets", "--group", "cg", "--topic", "orders")
    check("reset-dry-run", tool(GROUPS, *reset, "--to-earliest", "--dry-run"))
    check("describe-after-dry-run", describe(tool))
    check("reset-to-earliest", tool(GROUPS, *reset, "--to-earliest", "--execute"))
    check("reset-shift-by-2", tool(GROUPS, *reset, "--shift-by", "2", "--execute"))
    instant = session["between_batches"]
    check("reset-to-datetime", tool(GROUPS, *reset, "--to-datetime",
                                    instant.strftime("%Y-%m-%dT%H:%M:%S.") + f"{instant.microsecond // 1000:03d}Z",
                                    "--execute"))
    check("describe-after-reset", describe(tool))


def test_delete_the_group(tool):
    """--delete removes the group: --list no longer shows it; deleting or describing it again fails
    (the tool prints the error and still exits 0)."""
    check("delete", tool(GROUPS, "--delete", "--group", "cg"))
    check("list-after-delete", tool(GROUPS, "--list"))
    check("delete-again", tool(GROUPS, "--delete", "--group", "cg"))
    check("describe-deleted", describe(tool))
