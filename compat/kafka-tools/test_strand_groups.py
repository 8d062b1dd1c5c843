"""`strand consumer-groups` (Strand's kafka-consumer-groups.sh) run with the sequence of
test_kafka_tools_groups.py on a broker of its own (Strand, or Apache Kafka 4.4.0 with
STRAND_COMPAT_BROKER=kafka): every kafka-consumer-groups step is `strand consumer-groups`, every
other step (topics, console producer and consumer) Kafka's own tool, and each step's exit status
and stdout are compared with the same golden files (what Kafka's tool printed against Kafka), with
the same normalisation. The strand binary is STRAND_BIN, else target/release/strand.
"""

import pytest

from conftest import MixedTool, running_broker
# The steps, in the order they run (pytest runs a module's tests in the order they appear).
from test_kafka_tools_groups import (  # noqa: F401
    GROUPS,
    test_console_consumer_with_a_group,
    test_describe_shows_committed_offsets_and_lag,
    test_console_consumer_resumes_from_the_commit,
    test_describe_an_active_group,
    test_reset_offsets,
    test_delete_the_group,
)


@pytest.fixture(scope="module")
def own_broker():
    yield from running_broker("strand-groups")


@pytest.fixture(scope="module")
def tool(own_broker):
    return MixedTool(own_broker, {GROUPS: "consumer-groups"})
