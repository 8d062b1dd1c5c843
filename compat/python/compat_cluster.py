"""A cluster of its own for the suites that need several brokers: the Python twin of
compat/java/.../Cluster.java.

`size` nodes, each broker and controller (KRaft combined mode) of a static quorum, on free
loopback ports, with a data dir and stdout/stderr of their own under one run directory
($TMPDIR/strand-compat-cluster-<name>-XXXX/node-<id>/). Strand or Apache Kafka 4.4.0 as
STRAND_COMPAT_BROKER says. Kafka's nodes get compat/broker/kafka-server.properties with the keys
that differ in a cluster replaced (node id, voters, the internal topics' replication back to
Kafka's defaults) and their storage formatted with one cluster id; Strand's get the same
settings as --overrides and format their empty data dirs themselves with `cluster.id`.

`Cluster.start()` returns once every node's DescribeCluster (kafka-python's) lists all of them
unfenced, or raises
BrokerNotReady with the nodes' output; `stop()` sends SIGTERM to all, SIGKILL after 15 s, and
deletes the run directory (kept with STRAND_COMPAT_KEEP_DIR=1).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from compat_broker import (REPO, STOP_GRACE_S, TAIL_LINES, BrokerNotReady, _accepts, _free_port,
                           _from_repo, _kill_with_parent, java_command)

CLUSTER_ID = "MkU3OEVBNTcwNTJENDM2Qg"
SESSION_TIMEOUT_MS = 2000
HEARTBEAT_INTERVAL_MS = 250


@dataclass
class Node:
    id: int
    port: int
    controller_port: int
    dir: Path
    command: list[str] = field(default_factory=list)
    process: subprocess.Popen | None = field(default=None, repr=False)

    @property
    def bootstrap(self) -> str:
        return f"127.0.0.1:{self.port}"

    def launch(self) -> None:
        with open(self.dir / "stdout", "ab") as out, open(self.dir / "stderr", "ab") as err:
            self.process = subprocess.Popen(self.command, stdin=subprocess.DEVNULL, stdout=out, stderr=err,
                                            preexec_fn=_kill_with_parent)

    def tail(self, name: str) -> str:
        try:
            lines = (self.dir / name).read_text(errors="replace").splitlines(keepends=True)
        except OSError as e:
            return f"(unreadable: {e})\n"
        return "".join(lines[-TAIL_LINES:])


@dataclass
class Cluster:
    kind: str
    run_dir: Path
    nodes: list[Node]

    @property
    def bootstrap(self) -> str:
        """Node 1's address: the tools' --bootstrap-server."""
        return self.nodes[0].bootstrap

    @property
    def bootstrap_controller(self) -> str:
        return f"127.0.0.1:{self.nodes[0].controller_port}"

    @classmethod
    def start(cls, name: str, size: int = 3) -> "Cluster":
        kind = os.environ.get("STRAND_COMPAT_BROKER", "strand")
        if kind not in ("strand", "kafka"):
            raise ValueError(f"STRAND_COMPAT_BROKER must be 'strand' or 'kafka', not {kind!r}")
        run_dir = Path(tempfile.mkdtemp(prefix=f"strand-compat-cluster-{name}-"))
        ports: set[int] = set()

        def unique_port() -> int:
            while True:
                port = _free_port()
                if port not in ports:
                    ports.add(port)
                    return port

        nodes = []
        for node_id in range(1, size + 1):
            node_dir = run_dir / f"node-{node_id}"
            (node_dir / "data").mkdir(parents=True)
            nodes.append(Node(node_id, unique_port(), unique_port(), node_dir))
        cluster = cls(kind, run_dir, nodes)
        voters = ",".join(f"{n.id}@127.0.0.1:{n.controller_port}" for n in nodes)
        try:
            for node in nodes:
                node.command = cluster._strand_command(node, voters) if kind == "strand" else \
                    cluster._kafka_command(node, voters)
            for node in nodes:
                node.launch()
            timeout = float(os.environ.get("STRAND_COMPAT_START_TIMEOUT_S") or (30 if kind == "strand" else 120))
            for node in nodes:
                cluster._await_serving(node, timeout)
        except BaseException:
            cluster.stop()
            raise
        return cluster

    def _strand_command(self, node: Node, voters: str) -> list[str]:
        binary = _from_repo(os.environ.get("STRAND_BIN", "target/release/strand"))
        settings = [
            f"node.id={node.id}",
            "process.roles=broker,controller",
            f"listeners=PLAINTEXT://127.0.0.1:{node.port},CONTROLLER://127.0.0.1:{node.controller_port}",
            f"advertised.listeners=PLAINTEXT://127.0.0.1:{node.port}",
            "listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT",
            "controller.listener.names=CONTROLLER",
            f"controller.quorum.voters={voters}",
            f"cluster.id={CLUSTER_ID}",
            f"log.dirs={node.dir / 'data'}",
            f"broker.session.timeout.ms={SESSION_TIMEOUT_MS}",
            f"broker.heartbeat.interval.ms={HEARTBEAT_INTERVAL_MS}",
            "group.initial.rebalance.delay.ms=0",
            # No metrics listener: the nodes would all take the default localhost:8080.
            "http.listeners=",
        ]
        return [str(binary), "server"] + [arg for s in settings for arg in ("--override", s)]

    def _kafka_command(self, node: Node, voters: str) -> list[str]:
        replaced = {
            "node.id": str(node.id),
            "controller.quorum.voters": voters,
            "broker.session.timeout.ms": str(SESSION_TIMEOUT_MS),
            "broker.heartbeat.interval.ms": str(HEARTBEAT_INTERVAL_MS),
            # Kafka's own defaults, which the one-node template lowers to 1.
            "offsets.topic.replication.factor": "3",
            "transaction.state.log.replication.factor": "3",
            "transaction.state.log.min.isr": "2",
            "share.coordinator.state.topic.replication.factor": "3",
            "share.coordinator.state.topic.min.isr": "2",
        }
        template = (REPO / "compat/broker/kafka-server.properties").read_text() \
            .replace("@PORT@", str(node.port)).replace("@CONTROLLER_PORT@", str(node.controller_port)) \
            .replace("@LOG_DIRS@", str(node.dir / "data"))
        lines = [line for line in template.split("\n")
                 if line.startswith("#") or "=" not in line or line.split("=", 1)[0].strip() not in replaced]
        lines.append(f"# compat_cluster.py: node {node.id} of a cluster")
        lines.extend(f"{key}={value}" for key, value in replaced.items())
        properties = node.dir / "server.properties"
        properties.write_text("\n".join(lines) + "\n")
        fmt = java_command(short_lived=True) + ["kafka.tools.StorageTool", "format", "-t", CLUSTER_ID, "-c",
                                                str(properties)]
        done = subprocess.run(fmt, stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=60)
        if done.returncode != 0:
            raise BrokerNotReady(f"compat: formatting Kafka's storage failed: {' '.join(fmt)}\n{done.stdout}{done.stderr}")
        return java_command() + ["kafka.Kafka", str(properties)]

    def _await_serving(self, node: Node, timeout_s: float) -> None:
        """Waits until the node's port accepts and its Metadata lists every node."""
        from kafka import KafkaAdminClient

        deadline = time.monotonic() + timeout_s
        while not _accepts(node.port):
            self._check_alive(node)
            if time.monotonic() > deadline:
                raise self._not_ready(node, f"was not ready after {timeout_s:g} s (its port never accepted)")
            time.sleep(0.1)
        last: Exception | None = None
        while time.monotonic() < deadline:
            self._check_alive(node)
            try:
                admin = KafkaAdminClient(bootstrap_servers=node.bootstrap, request_timeout_ms=3000,
                                         bootstrap_timeout_ms=3000, reconnect_backoff_max_ms=200)
                try:
                    brokers = admin.describe_cluster()["brokers"]
                    listed = {b["broker_id"] for b in brokers if not b.get("is_fenced")}
                finally:
                    admin.close()
                if listed >= {n.id for n in self.nodes}:
                    return
                last = RuntimeError(f"Metadata listed {sorted(listed)}")
            except Exception as e:  # noqa: BLE001 - any failure means "not ready yet"
                last = e
            time.sleep(0.2)
        raise self._not_ready(node, f"did not list every node within {timeout_s:g} s ({last})")

    def _check_alive(self, node: Node) -> None:
        if node.process is not None and node.process.poll() is not None:
            raise self._not_ready(node, f"exited with status {node.process.returncode} before it was ready")

    def _not_ready(self, node: Node, what: str) -> BrokerNotReady:
        tails = "".join(f"--- node {n.id}: last {TAIL_LINES} lines of stderr ---\n{n.tail('stderr')}"
                        f"--- node {n.id}: last {TAIL_LINES} lines of stdout ---\n{n.tail('stdout')}"
                        for n in self.nodes)
        return BrokerNotReady(f"compat: {self.kind} node {node.id} {what}\ncommand: {' '.join(node.command)}\n{tails}")

    def stop(self) -> None:
        """Stops every node (SIGTERM to all, SIGKILL after 15 s) and deletes the run directory."""
        running = [n for n in self.nodes if n.process is not None and n.process.poll() is None]
        for node in running:
            node.process.terminate()
        deadline = time.monotonic() + STOP_GRACE_S
        for node in running:
            try:
                node.process.wait(max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                node.process.kill()
                node.process.wait()
        if os.environ.get("STRAND_COMPAT_KEEP_DIR") == "1":
            print(f"compat: cluster run directory kept: {self.run_dir}")
        else:
            shutil.rmtree(self.run_dir, ignore_errors=True)
