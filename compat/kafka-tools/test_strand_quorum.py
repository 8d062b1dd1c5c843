"""`strand metadata-quorum` (Strand's kafka-metadata-quorum.sh) run with the describe and
remove-controller steps of test_kafka_tools_quorum.py against this suite's broker (Strand, or
Apache Kafka 4.4.0 with STRAND_COMPAT_BROKER=kafka), through both listeners: each step's exit
status and stdout compared with the same golden files (Kafka's tool against Kafka), with the same
masking.
"""

import pytest

from conftest import MixedTool
# The steps, in the order they run.
from test_kafka_tools_quorum import (  # noqa: F401
    QUORUM,
    test_describe_status,
    test_describe_replication,
    test_remove_controller_is_refused,
)


@pytest.fixture
def tool(broker):
    return MixedTool(broker, {QUORUM: "metadata-quorum"})
