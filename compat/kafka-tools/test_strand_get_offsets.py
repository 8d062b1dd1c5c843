"""`strand get-offsets` (Strand's kafka-get-offsets.sh) run with the steps of
test_kafka_tools_offsets.py on a broker of its own (Strand, or Apache Kafka 4.4.0 with
STRAND_COMPAT_BROKER=kafka): every get-offsets step is `strand get-offsets`, the others (topics,
console producer) Kafka's own tools, and each step's exit status and stdout are compared with the
same golden files (what Kafka's tool printed against Kafka). The strand binary is STRAND_BIN, else
target/release/strand.
"""

import pytest

from conftest import MixedTool, running_broker
# The steps, in the order they run.
from test_kafka_tools_offsets import (  # noqa: F401
    GET_OFFSETS,
    test_topics_are_written,
    test_latest_and_earliest,
    test_filters,
    test_by_time,
    test_tiered_specs,
    test_refusals,
)


@pytest.fixture(scope="module")
def own_broker():
    yield from running_broker("strand-get-offsets")


@pytest.fixture(scope="module")
def tool(own_broker):
    return MixedTool(own_broker, {GET_OFFSETS: "get-offsets"})
