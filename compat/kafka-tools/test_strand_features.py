"""`strand features` (Strand's kafka-features.sh) run with the steps of test_kafka_tools_features.py
on a broker of its own (Strand, or Apache Kafka 4.4.0 with STRAND_COMPAT_BROKER=kafka), through
both listeners: each step's exit status and stdout compared with the same golden files (Kafka's
tool against Kafka), with the same normalisation.
"""

import pytest

from conftest import MixedTool, running_broker
# The steps, in the order they run.
from test_kafka_tools_features import (  # noqa: F401
    FEATURES,
    test_describe,
    test_refusals,
    test_downgrade_disable_upgrade,
    test_kraft_version_upgrade,
)


@pytest.fixture(scope="module")
def own_broker():
    yield from running_broker("strand-features")


@pytest.fixture(scope="module")
def tool(own_broker):
    return MixedTool(own_broker, {FEATURES: "features"})
