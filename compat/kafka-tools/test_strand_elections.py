"""`strand leader-election` (Strand's kafka-leader-election.sh) run with the steps of
test_kafka_tools_elections.py on a broker of its own (Strand, or Apache Kafka 4.4.0 with
STRAND_COMPAT_BROKER=kafka), each step's exit status and stdout compared with the same golden
files (Kafka's tool against Kafka).
"""

import pytest

from conftest import MixedTool, running_broker
# The steps, in the order they run.
from test_kafka_tools_elections import ELECTION, test_elections, test_election_refusals  # noqa: F401


@pytest.fixture(scope="module")
def own_broker():
    yield from running_broker("strand-elections")


@pytest.fixture(scope="module")
def tool(own_broker):
    return MixedTool(own_broker, {ELECTION: "leader-election"})
