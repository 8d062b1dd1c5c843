"""Fixtures of the console suite: one three-node cluster and one headless chromium for the module,
and the directory the screenshots go to (STRAND_CONSOLE_SCREENSHOTS, default
target/console-screenshots: an artifact, never committed)."""

import os
import signal
from pathlib import Path

import pytest

from cluster import REPO, Cluster
from webdriver import Browser


def _interrupt(signum, frame):
    raise KeyboardInterrupt(f"signal {signum}")


@pytest.fixture(scope="session")
def cluster():
    if os.environ.get("STRAND_COMPAT_BROKER", "strand") != "strand":
        pytest.skip("the console is Strand's own")
    signal.signal(signal.SIGTERM, _interrupt)
    started = Cluster.start()
    try:
        yield started
    finally:
        started.stop()


@pytest.fixture(scope="session")
def browser():
    opened = Browser()
    try:
        yield opened
    finally:
        opened.close()


@pytest.fixture(scope="session")
def shots() -> Path:
    directory = Path(os.environ.get("STRAND_CONSOLE_SCREENSHOTS") or REPO / "target" / "console-screenshots")
    directory.mkdir(parents=True, exist_ok=True)
    return directory
