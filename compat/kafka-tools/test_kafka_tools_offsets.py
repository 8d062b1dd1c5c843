"""Apache Kafka's kafka-get-offsets (GetOffsetShell, 4.4.0), then kafka-delete-records
(DeleteRecordsCommand), on a broker of its own: the latest and
earliest offsets of every partition of a topic, the partitions chosen by --topic (a regular
expression) with --partitions, or by --topic-partitions rules; offsets by time (a time before
every record, one after all of them: no line), max-timestamp, and the refusals (no match, a
malformed time, --topic-partitions with --topic); records deleted before an offset, before the high
watermark (-1) and past the end (an error line), and the offset files Kafka's tool refuses (a
partition twice, not JSON, another version). Each step's exit status and stdout are compared
with golden/offsets-*.txt, Kafka 4.4.0's output against the Kafka broker (record them again with
STRAND_COMPAT_BROKER=kafka STRAND_COMPAT_UPDATE_GOLDEN=1 compat/run.sh kafka-tools); the refusals'
stderr line too. test_strand_offsets.py runs the same steps with `strand get-offsets` and
`strand delete-records`.

The records are placed by their keys (the console producer's murmur2 partitioner), the same way
on any broker: topic `offsets` (3 partitions) gets 9 records, `offsets-other` 2, `single` 1.
"""

import json
import subprocess

import pytest

from conftest import Tool, running_broker
from test_kafka_tools import check

TOPICS = "org.apache.kafka.tools.TopicCommand"
PRODUCER = "org.apache.kafka.tools.ConsoleProducer"
GET_OFFSETS = "org.apache.kafka.tools.GetOffsetShell"
DELETE_RECORDS = "org.apache.kafka.tools.DeleteRecordsCommand"


@pytest.fixture(scope="module")
def own_broker():
    yield from running_broker("get-offsets")


@pytest.fixture(scope="module")
def tool(own_broker):
    return Tool(own_broker)


def produce(tool, topic, lines):
    done = tool(PRODUCER, "--topic", topic, "--reader-property", "parse.key=true",
                "--reader-property", "key.separator=:", input="".join(f"{line}\n" for line in lines))
    assert (done.returncode, done.stdout) == (0, ""), done.stderr


def offsets(tool, *args):
    return tool(GET_OFFSETS, *args)


def test_topics_are_written(tool):
    """The three topics, and their records, placed by key."""
    for topic, partitions in (("offsets", 3), ("offsets-other", 1), ("single", 1)):
        done = tool(TOPICS, "--create", "--topic", topic, "--partitions", str(partitions), "--replication-factor", "1")
        assert done.returncode == 0, done.stderr
    produce(tool, "offsets", [f"k{i}:record {i}" for i in range(9)])
    produce(tool, "offsets-other", ["a:one", "b:two"])
    produce(tool, "single", ["only:one"])


def test_latest_and_earliest(tool):
    """The log end offset of each partition (the default), then the start offsets, by name and by
    number; every topic with no filter."""
    check("offsets-latest", offsets(tool, "--topic", "offsets"))
    check("offsets-earliest", offsets(tool, "--topic", "offsets", "--time", "earliest"))
    check("offsets-earliest-number", offsets(tool, "--topic", "offsets", "--time", "-2"))
    check("offsets-all-topics", offsets(tool))
    check("offsets-all-topics-no-internal", offsets(tool, "--exclude-internal-topics"))


def test_filters(tool):
    """--topic is a regular expression matched whole; --partitions picks ids; --topic-partitions
    rules: a number, N-M (upper exclusive), N-, -M, a topic alone, an empty topic for any."""
    check("offsets-regex-partitions", offsets(tool, "--topic", "offsets.*", "--partitions", "0,2"))
    check("offsets-rules", offsets(tool, "--topic-partitions", "offsets:1-,single"))
    check("offsets-rules-ranges", offsets(tool, "--topic-partitions", "offsets:-2,offsets-other:0-1"))
    check("offsets-rules-any-topic", offsets(tool, "--topic-partitions", ":0"))
    check("offsets-prefix-is-not-a-match", offsets(tool, "--topic", "offset"))


def test_by_time(tool):
    """A time before every record gives each partition's first offset; one after all of them
    gives no offset, so no line; max-timestamp of a one-record partition is that record."""
    check("offsets-time-zero", offsets(tool, "--topic", "offsets", "--time", "0"))
    check("offsets-time-future", offsets(tool, "--topic", "offsets", "--time", "99999999999999"))
    check("offsets-max-timestamp", offsets(tool, "--topic", "single", "--time", "max-timestamp"))


def test_tiered_specs(tool):
    """Without tiered storage: earliest-local is the log start, latest-tiered and
    earliest-pending-upload (KIP-1023) have no offset, by name and by number."""
    check("offsets-earliest-local", offsets(tool, "--topic", "offsets", "--time", "earliest-local"))
    check("offsets-latest-tiered", offsets(tool, "--topic", "offsets", "--time", "-5"))
    check("offsets-earliest-pending-upload", offsets(tool, "--topic", "offsets", "--time", "earliest-pending-upload"))
    check("offsets-earliest-pending-upload-number", offsets(tool, "--topic", "offsets", "--time", "-6"))


def test_refusals(tool):
    """Kafka's refusals: exit 1, nothing on stdout, the reason on stderr."""
    cases = {
        "offsets-no-match": ((("--topic", "nothing-like-this")),
                             "Error occurred: Could not match any topic-partitions with the specified filters"),
        "offsets-malformed-time": (("--topic", "offsets", "--time", "yesterday"),
                                   "Error occurred: Malformed time argument yesterday. Please use -1 or latest / -2 "
                                   "or earliest / -3 or max-timestamp / -4 or earliest-local / -5 or latest-tiered / -6 or "
                                   "earliest-pending-upload, "
                                   "or a specified long format timestamp"),
        "offsets-rules-with-topic": (("--topic-partitions", "offsets", "--topic", "offsets"),
                                     "Error occurred: --topic-partitions cannot be used with --topic or --partitions"),
    }
    for name, (args, reason) in cases.items():
        done = offsets(tool, *args)
        check(name, done)
        assert done.stderr.splitlines()[0] == reason, done.stderr


def delete_records(tool, directory, partitions, version=1, text=None):
    """kafka-delete-records with an offset file of (topic, partition, offset) entries."""
    path = directory / "offsets.json"
    entries = [{"topic": t, "partition": p, "offset": o} for t, p, o in partitions]
    path.write_text(text if text is not None else json.dumps({"partitions": entries, "version": version}))
    return tool(DELETE_RECORDS, "--offset-json-file", str(path))


def sorted_partitions(done):
    """Kafka's tool prints the partitions in the order of an immutable map, which changes from run
    to run: the lines after the two headers are compared sorted."""
    lines = done.stdout.splitlines(keepends=True)
    return subprocess.CompletedProcess(done.args, done.returncode, "".join(lines[:2] + sorted(lines[2:])), done.stderr)


def test_delete_records(tool, tmp_path):
    """Each partition's new low watermark; -1 deletes up to the high watermark; past the end is the
    partition's error line; get-offsets --time earliest shows the new starts."""
    check("delete-records", sorted_partitions(delete_records(tool, tmp_path, [("offsets", 0, 1), ("offsets", 1, -1), ("offsets", 2, 1),
                                                             ("offsets-other", 0, 1)])))
    check("delete-records-earliest-after", offsets(tool, "--topic", "offsets.*", "--time", "earliest"))
    check("delete-records-past-the-end",
          sorted_partitions(delete_records(tool, tmp_path, [("offsets", 0, 100), ("single", 0, 0)])))


def test_delete_records_refusals(tool, tmp_path):
    """Offset files Kafka's tool refuses before asking anything: exit 1, the reason on stderr."""
    cases = {
        "delete-records-duplicate": (dict(partitions=[("offsets", 0, 1), ("offsets", 0, 2)]),
                                     "Offset json file contains duplicate topic partitions: offsets-0"),
        "delete-records-not-json": (dict(partitions=[], text="{not json"), "The input string is not a valid JSON"),
        "delete-records-version-2": (dict(partitions=[("offsets", 0, 1)], version=2),
                                     "Not supported version field value 2"),
    }
    for name, (file, reason) in cases.items():
        done = delete_records(tool, tmp_path, **file)
        check(name, done)
        assert done.stderr.splitlines()[0] == reason, done.stderr
