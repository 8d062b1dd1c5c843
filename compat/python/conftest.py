"""pytest fixtures for the Python compatibility suite: one broker for the session (compat_broker)."""

import signal
import uuid

import pytest

from compat_broker import Broker, BrokerNotReady


def _interrupt(signum, frame):
    # run.sh's timeout sends SIGTERM: unwind like Ctrl-C so the broker fixture's teardown runs.
    raise KeyboardInterrupt(f"signal {signum}")


@pytest.fixture(scope="session")
def broker():
    """The broker every test talks to; started once, stopped at the end of the session."""
    signal.signal(signal.SIGTERM, _interrupt)
    try:
        started = Broker.start("python")
    except BrokerNotReady as e:
        pytest.exit(str(e), returncode=1)
    try:
        yield started
    finally:
        started.stop()


@pytest.fixture
def topic_name():
    """Makes topic names no other test uses."""
    return lambda prefix: f"{prefix}-{uuid.uuid4().hex[:8]}"
