"""Apache Kafka's kafka-leader-election (LeaderElectionCommand, 4.4.0) on a broker of its own:
preferred and unclean elections of partitions whose leader is already the preferred one (no
line for all partitions, "Valid replica already elected" for named ones), from --topic and
--partition or a JSON file, an unknown topic's error, and the refusals of a wrong command line;
each step's exit status and stdout compared with golden/elect-*.txt, Kafka 4.4.0's output
against the Kafka broker (record them again with STRAND_COMPAT_BROKER=kafka
STRAND_COMPAT_UPDATE_GOLDEN=1 compat/run.sh kafka-tools), and the first line of stderr where the
tool fails. test_strand_elections.py runs the same steps with `strand leader-election`.
"""

import json

import pytest

from conftest import Tool, running_broker
from test_kafka_tools import check

TOPICS = "org.apache.kafka.tools.TopicCommand"
ELECTION = "org.apache.kafka.tools.LeaderElectionCommand"


@pytest.fixture(scope="module")
def own_broker():
    yield from running_broker("elections")


@pytest.fixture(scope="module")
def tool(own_broker):
    return Tool(own_broker)


def test_elections(tool, tmp_path):
    done = tool(TOPICS, "--create", "--topic", "elect", "--partitions", "12", "--replication-factor", "1")
    assert done.returncode == 0, done.stderr
    check("elect-all-preferred", tool(ELECTION, "--election-type", "preferred", "--all-topic-partitions"))
    check("elect-one-preferred", tool(ELECTION, "--election-type", "PREFERRED", "--topic", "elect", "--partition", "1"))
    check("elect-one-unclean", tool(ELECTION, "--election-type", "unclean", "--topic", "elect", "--partition", "2"))
    path = tmp_path / "election.json"
    path.write_text(json.dumps({"partitions": [{"topic": "elect", "partition": p} for p in (11, 0, 7, 3, 10)]}))
    check("elect-file", tool(ELECTION, "--election-type", "preferred", "--path-to-json-file", str(path)))


def test_election_refusals(tool):
    cases = {
        "elect-unknown-topic": (("--election-type", "preferred", "--topic", "nope", "--partition", "0"),
                                "1 replica(s) could not be elected"),
        "elect-no-type": (("--topic", "elect", "--partition", "0"), "Missing required option(s): election-type"),
        "elect-two-sources": (("--election-type", "preferred", "--topic", "elect", "--partition", "0",
                               "--all-topic-partitions"),
                              "One and only one of the following options is required: topic, all-topic-partitions, "
                              "path-to-json-file"),
    }
    for name, (args, reason) in cases.items():
        done = tool(ELECTION, *args)
        check(name, done)
        assert done.stderr.splitlines()[0] == reason, done.stderr
