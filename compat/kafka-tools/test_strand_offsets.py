"""`strand get-offsets` and `strand delete-records` (Strand's kafka-get-offsets.sh and
kafka-delete-records.sh) run with the steps of test_kafka_tools_offsets.py on a broker of its own
(Strand, or Apache Kafka 4.4.0 with STRAND_COMPAT_BROKER=kafka): every get-offsets and
delete-records step is `strand`'s, the others (topics, console producer) Kafka's own tools, and
each step's exit status and stdout are compared with the same golden files (what Kafka's tool
printed against Kafka). The strand binary is STRAND_BIN, else target/release/strand.
"""

import pytest

from conftest import MixedTool, running_broker
# The steps, in the order they run.
from test_kafka_tools_offsets import (  # noqa: F401
    DELETE_RECORDS,
    GET_OFFSETS,
    test_topics_are_written,
    test_latest_and_earliest,
    test_filters,
    test_by_time,
    test_tiered_specs,
    test_refusals,
    test_delete_records,
    test_delete_records_refusals,
)


@pytest.fixture(scope="module")
def own_broker():
    yield from running_broker("strand-offsets")


@pytest.fixture(scope="module")
def tool(own_broker):
    return MixedTool(own_broker, {GET_OFFSETS: "get-offsets", DELETE_RECORDS: "delete-records"})
