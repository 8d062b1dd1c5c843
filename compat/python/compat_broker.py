"""Starts and stops the broker a Python compatibility suite runs against.

As compat/README.md ("The launcher contract") says: Strand (STRAND_COMPAT_BROKER=strand, the
default) or Apache Kafka 4.4.0 from target/kafka-libs (kafka), on free loopback ports, with a fresh
temporary run directory holding its data dir and its stdout/stderr. `Broker.start()` returns once
the port accepts connections and a Metadata request lists a broker, or raises `BrokerNotReady`
carrying the broker's stderr; `Broker.stop()` sends SIGTERM, then SIGKILL after 15 s, and deletes
the run directory. The pytest fixtures in conftest.py (here and in compat/kafka-tools/) wrap it.
"""

from __future__ import annotations

import base64
import ctypes
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

NODE_ID = 1
REPO = Path(__file__).resolve().parents[2]
STOP_GRACE_S = 15
TAIL_LINES = 60


class BrokerNotReady(RuntimeError):
    """The broker exited or did not serve Metadata in time; the message has its stderr."""


def _kill_with_parent() -> None:
    """In the child before exec: the kernel kills it if the test process dies without stop()."""
    PR_SET_PDEATHSIG = 1
    ctypes.CDLL("libc.so.6", use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL)


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _accepts(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=0.2):
            return True
    except OSError:
        return False


def _cluster_id() -> str:
    """A random Kafka Uuid in base64; like Kafka's Uuid.randomUuid, never starting with '-'."""
    while True:
        cluster_id = base64.urlsafe_b64encode(os.urandom(16)).decode().rstrip("=")
        if not cluster_id.startswith("-"):
            return cluster_id


def _from_repo(path: str) -> Path:
    p = Path(path)
    return p if p.is_absolute() else REPO / p


def java_command(short_lived: bool = False) -> list[str]:
    """`java` with Kafka's jars on the class path and Kafka's logging at WARN on stderr.

    short_lived: for a tool that runs for a second or two; C1 only and the serial collector
    start it about a third faster. The broker gets a fixed heap instead.
    """
    java_home = os.environ.get("JAVA_HOME")
    java = str(Path(java_home) / "bin" / "java") if java_home else "java"
    libs = _from_repo(os.environ.get("STRAND_KAFKA_LIBS", "target/kafka-libs"))
    options = ["-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC"] if short_lived else ["-Xms256m", "-Xmx1g"]
    return [java, *options, f"-Dlog4j2.configurationFile={REPO / 'compat/kafka/log4j2.properties'}",
            "-cp", f"{libs}/*"]


def metadata_lists_a_broker(bootstrap: str) -> None:
    """The default readiness probe: kafka-python's describe_cluster, a Metadata request, lists a
    broker. (Pure Python: a librdkafka problem then fails librdkafka's tests, not the whole suite.)"""
    from kafka import KafkaAdminClient

    admin = KafkaAdminClient(bootstrap_servers=bootstrap, request_timeout_ms=3000, bootstrap_timeout_ms=3000,
                             reconnect_backoff_max_ms=200)
    try:
        if not admin.describe_cluster()["brokers"]:
            raise RuntimeError("Metadata listed no broker")
    finally:
        admin.close()


@dataclass
class Broker:
    kind: str
    port: int
    run_dir: Path
    command: list[str]
    process: subprocess.Popen | None = field(default=None, repr=False)
    probe: Callable[["Broker"], None] | None = field(default=None, repr=False)
    # The CONTROLLER listener's port: Kafka's always has one; Strand's only when asked for.
    controller_port: int | None = None
    # Strand's http.listeners port (metrics and the REST gateway), when asked for.
    http_port: int | None = None

    @property
    def bootstrap(self) -> str:
        return f"127.0.0.1:{self.port}"

    @property
    def http_url(self) -> str:
        return f"http://127.0.0.1:{self.http_port}"

    @property
    def bootstrap_controller(self) -> str:
        return f"127.0.0.1:{self.controller_port}"

    @classmethod
    def start(cls, suite: str, probe: Callable[["Broker"], None] | None = None,
              controller: bool = False, http: bool = False) -> "Broker":
        """Starts the broker; suite names the run directory. probe(broker) must send a Metadata
        request with the suite's own client and raise unless it lists a broker (default:
        metadata_lists_a_broker, through kafka-python). controller: Strand too gets a CONTROLLER
        listener (as Kafka's template has), at `bootstrap_controller`."""
        kind = os.environ.get("STRAND_COMPAT_BROKER", "strand")
        if kind not in ("strand", "kafka"):
            raise ValueError(f"STRAND_COMPAT_BROKER must be 'strand' or 'kafka', not {kind!r}")
        run_dir = Path(tempfile.mkdtemp(prefix=f"strand-compat-{suite}-"))
        data_dir = run_dir / "data"
        data_dir.mkdir()
        port = _free_port()
        broker = cls(kind, port, run_dir, [])
        if controller or kind == "kafka":
            broker.controller_port = _free_port()
            while broker.controller_port == port:
                broker.controller_port = _free_port()
        if http and kind == "strand":
            broker.http_port = _free_port()
            while broker.http_port in (port, broker.controller_port):
                broker.http_port = _free_port()
        broker.probe = probe or (lambda b: metadata_lists_a_broker(b.bootstrap))
        try:
            broker.command = broker._strand_command(data_dir) if kind == "strand" else broker._kafka_command(data_dir)
            broker._launch()
            broker._await_ready(float(os.environ.get("STRAND_COMPAT_START_TIMEOUT_S") or (20 if kind == "strand" else 90)))
        except BaseException:
            broker.stop()
            raise
        return broker

    def _strand_command(self, data_dir: Path) -> list[str]:
        binary = _from_repo(os.environ.get("STRAND_BIN", "target/release/strand"))
        listener = f"PLAINTEXT://127.0.0.1:{self.port}"
        listeners, controller = listener, []
        if self.controller_port is not None:
            address = f"127.0.0.1:{self.controller_port}"
            listeners = f"{listener},CONTROLLER://{address}"
            controller = ["--override", "listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT",
                          "--override", "controller.listener.names=CONTROLLER",
                          "--override", f"controller.quorum.voters={NODE_ID}@{address}"]
        return [str(binary), "server",
                "--override", f"node.id={NODE_ID}",
                "--override", f"listeners={listeners}",
                *controller,
                "--override", f"advertised.listeners={listener}",
                "--override", f"log.dirs={data_dir}",
                "--override", f"http.listeners={self.http_url if self.http_port else ''}",
                "--override", "group.initial.rebalance.delay.ms=0",
                "--override", "group.consumer.heartbeat.interval.ms=500",
                "--override", "group.consumer.min.heartbeat.interval.ms=500"]

    def _kafka_command(self, data_dir: Path) -> list[str]:
        """Writes server.properties from the shared template and formats the data dir."""
        controller_port = self.controller_port
        template = (REPO / "compat/broker/kafka-server.properties").read_text()
        properties = self.run_dir / "server.properties"
        properties.write_text(template.replace("@PORT@", str(self.port))
                              .replace("@CONTROLLER_PORT@", str(controller_port))
                              .replace("@LOG_DIRS@", str(data_dir)))
        java = java_command()
        fmt = java_command(short_lived=True) + ["kafka.tools.StorageTool", "format", "-t", _cluster_id(), "-c", str(properties)]
        done = subprocess.run(fmt, stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=60)
        if done.returncode != 0:
            raise BrokerNotReady(f"compat: formatting Kafka's storage failed: {' '.join(fmt)}\n{done.stdout}{done.stderr}")
        return java + ["kafka.Kafka", str(properties)]

    def _launch(self) -> None:
        with open(self.run_dir / "broker.stdout", "wb") as out, open(self.run_dir / "broker.stderr", "wb") as err:
            try:
                self.process = subprocess.Popen(self.command, stdin=subprocess.DEVNULL, stdout=out, stderr=err,
                                                preexec_fn=_kill_with_parent)
            except OSError as e:
                raise BrokerNotReady(f"compat: cannot start {self.kind} broker {self.command[0]}: {e}") from e

    def _await_ready(self, timeout_s: float) -> None:
        deadline = time.monotonic() + timeout_s
        while not _accepts(self.port):
            self._check_alive()
            if time.monotonic() > deadline:
                raise self._not_ready(f"was not ready after {timeout_s:g} s (its port never accepted a connection)")
            time.sleep(0.1)
        last_error: Exception | None = None
        while time.monotonic() < deadline:
            self._check_alive()
            try:
                self.probe(self)
                return
            except Exception as e:  # noqa: BLE001 - any failure means "not ready yet"
                last_error = e
                time.sleep(0.1)
        raise self._not_ready(f"was not ready after {timeout_s:g} s (port open, Metadata failed: {last_error})")

    def _check_alive(self) -> None:
        if self.process.poll() is not None:
            raise self._not_ready(f"exited with status {self.process.returncode} before it was ready")

    def _not_ready(self, what: str) -> BrokerNotReady:
        return BrokerNotReady(
            f"compat: {self.kind} broker {what}\ncommand: {' '.join(self.command)}\n"
            f"--- last {TAIL_LINES} lines of its stderr ---\n{self._tail('broker.stderr')}"
            f"--- last {TAIL_LINES} lines of its stdout ---\n{self._tail('broker.stdout')}")

    def _tail(self, name: str) -> str:
        try:
            lines = (self.run_dir / name).read_text(errors="replace").splitlines(keepends=True)
        except OSError as e:
            return f"(unreadable: {e})\n"
        return "".join(lines[-TAIL_LINES:])

    def stop(self) -> None:
        """Stops the broker and deletes the run directory (kept with STRAND_COMPAT_KEEP_DIR=1). Idempotent."""
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(STOP_GRACE_S)
            except subprocess.TimeoutExpired:
                print(f"compat: broker did not stop within {STOP_GRACE_S} s of SIGTERM; killing it")
                self.process.kill()
                self.process.wait()
        if os.environ.get("STRAND_COMPAT_KEEP_DIR") == "1":
            print(f"compat: broker run directory kept: {self.run_dir}")
        else:
            shutil.rmtree(self.run_dir, ignore_errors=True)
