"""pytest fixtures for the Kafka tools suite: one broker for the session, started by the Python
suite's launcher (compat/python/compat_broker.py), and a runner for Kafka's CLI tool classes."""

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "python"))

from compat_broker import REPO, Broker, BrokerNotReady, java_command  # noqa: E402

# The strand binary the test_strand_* files run: STRAND_BIN, else target/release/strand.
STRAND = Path(os.environ.get("STRAND_BIN", "target/release/strand"))
STRAND = STRAND if STRAND.is_absolute() else REPO / STRAND


def _interrupt(signum, frame):
    # run.sh's timeout sends SIGTERM: unwind like Ctrl-C so the broker fixture's teardown runs.
    raise KeyboardInterrupt(f"signal {signum}")


def list_topics(broker):
    """Readiness probe with this suite's own client: `kafka-topics --list` (a Metadata request
    from Kafka's admin client), with the admin client's timeouts lowered so an unanswered request
    fails in seconds."""
    config = broker.run_dir / "probe-admin.properties"
    config.write_text("request.timeout.ms=2000\ndefault.api.timeout.ms=3000\n")
    done = subprocess.run(java_command(short_lived=True) + [
        "org.apache.kafka.tools.TopicCommand", "--bootstrap-server", broker.bootstrap,
        "--command-config", str(config), "--list"], stdin=subprocess.DEVNULL, capture_output=True, text=True,
        timeout=15)
    if done.returncode != 0:
        raise RuntimeError(f"kafka-topics --list exited with {done.returncode}: {done.stdout}{done.stderr}".strip())


def running_broker(name):
    """A broker named `name` (with its CONTROLLER listener) for the span of a fixture: started,
    yielded, stopped. Files whose sequence needs a cluster state of its own use one per module."""
    try:
        started = Broker.start(name, probe=list_topics, controller=True)
    except BrokerNotReady as e:
        pytest.exit(str(e), returncode=1)
    try:
        yield started
    finally:
        started.stop()


@pytest.fixture(scope="session")
def broker():
    """The broker every test talks to; started once, stopped at the end of the session."""
    signal.signal(signal.SIGTERM, _interrupt)
    yield from running_broker("kafka-tools")


class Tool:
    """Runs one of Kafka's tool classes (`java -cp 'target/kafka-libs/*' CLASS --bootstrap-server ...`)."""

    def __init__(self, broker):
        self.broker = broker

    def __call__(self, tool_class, *args, input=None, timeout=60, controller=False):
        """controller: `--bootstrap-controller` the broker's CONTROLLER listener instead."""
        bootstrap = ["--bootstrap-controller", self.broker.bootstrap_controller] if controller else [
            "--bootstrap-server", self.broker.bootstrap]
        command = java_command(short_lived=True) + [tool_class, *bootstrap, *args]
        return subprocess.run(command, input=input, capture_output=True, text=True, timeout=timeout,
                              stdin=None if input is not None else subprocess.DEVNULL)


@pytest.fixture(scope="session")
def tool(broker):
    return Tool(broker)


class MixedTool:
    """Kafka's tool classes, but the `strand` subcommand `strand_tools` names for a class."""

    def __init__(self, broker, strand_tools):
        self.broker = broker
        self.kafka = Tool(broker)
        self.strand_tools = strand_tools

    def __call__(self, tool_class, *args, input=None, timeout=60, controller=False):
        subcommand = self.strand_tools.get(tool_class)
        if subcommand is None:
            return self.kafka(tool_class, *args, input=input, timeout=timeout, controller=controller)
        bootstrap = ["--bootstrap-controller", self.broker.bootstrap_controller] if controller else [
            "--bootstrap-server", self.broker.bootstrap]
        command = [str(STRAND), subcommand, *bootstrap, *args]
        return subprocess.run(command, capture_output=True, text=True, timeout=timeout,
                              input=input, stdin=None if input is not None else subprocess.DEVNULL)
