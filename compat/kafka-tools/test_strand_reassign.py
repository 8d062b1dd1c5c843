"""`strand reassign-partitions` (Strand's kafka-reassign-partitions.sh) run with the steps of
test_kafka_tools_reassign.py on a three-node cluster of its own (Strand, or Apache Kafka 4.4.0
with STRAND_COMPAT_BROKER=kafka), each step's exit status and masked stdout compared with the same
golden files (Kafka's tool against Kafka), and --generate's random proposal checked for validity.
"""

import pytest

from conftest import MixedTool
# The steps, in the order they run.
from test_kafka_tools_reassign import REASSIGN, files, running_cluster  # noqa: F401
from test_kafka_tools_reassign import (test_setup, test_list_none, test_generate,  # noqa: F401, I001
                                       test_execute_then_verify, test_throttled_move_then_cancel,
                                       test_execute_refusals, test_command_line_refusals)


@pytest.fixture(scope="module")
def cluster():
    yield from running_cluster("strand-reassign")


@pytest.fixture(scope="module")
def tool(cluster):
    return MixedTool(cluster, {REASSIGN: "reassign-partitions"})
