"""A three-node Strand cluster for the console suite: each node broker and controller, a Kafka
listener, a CONTROLLER listener and an HTTP listener (the console) on free loopback ports, data in
a temporary run directory deleted by stop(). Strand only: Kafka has no built-in console."""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "python"))
from compat_broker import REPO, _cluster_id, _from_repo, _kill_with_parent  # noqa: E402

NODES = 3
START_TIMEOUT_S = 60
STOP_GRACE_S = 15


def _free_ports(count: int) -> list[int]:
    sockets = []
    try:
        for _ in range(count):
            s = socket.socket()
            s.bind(("127.0.0.1", 0))
            sockets.append(s)
        return [s.getsockname()[1] for s in sockets]
    finally:
        for s in sockets:
            s.close()


@dataclass
class Node:
    node_id: int
    port: int
    controller_port: int
    http_port: int
    process: subprocess.Popen | None = field(default=None, repr=False)

    @property
    def http_url(self) -> str:
        return f"http://127.0.0.1:{self.http_port}"


@dataclass
class Cluster:
    run_dir: Path
    nodes: list[Node]

    @property
    def bootstrap(self) -> str:
        return ",".join(f"127.0.0.1:{n.port}" for n in self.nodes)

    @classmethod
    def start(cls) -> "Cluster":
        run_dir = Path(tempfile.mkdtemp(prefix="strand-compat-console-"))
        ports = _free_ports(3 * NODES)
        nodes = [Node(i + 1, ports[3 * i], ports[3 * i + 1], ports[3 * i + 2]) for i in range(NODES)]
        cluster = cls(run_dir, nodes)
        try:
            cluster._launch(_cluster_id())
            cluster._await_ready()
        except BaseException:
            cluster.stop()
            raise
        return cluster

    def _launch(self, cluster_id: str) -> None:
        binary = _from_repo(os.environ.get("STRAND_BIN", "target/release/strand"))
        voters = ",".join(f"{n.node_id}@127.0.0.1:{n.controller_port}" for n in self.nodes)
        for node in self.nodes:
            data = self.run_dir / f"node{node.node_id}"
            data.mkdir()
            settings = {
                "node.id": node.node_id,
                "process.roles": "broker,controller",
                "listeners": f"PLAINTEXT://127.0.0.1:{node.port},CONTROLLER://127.0.0.1:{node.controller_port}",
                "advertised.listeners": f"PLAINTEXT://127.0.0.1:{node.port}",
                "listener.security.protocol.map": "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT",
                "controller.listener.names": "CONTROLLER",
                "controller.quorum.voters": voters,
                "cluster.id": cluster_id,
                "log.dirs": str(data / "logs"),
                "http.listeners": node.http_url,
                "group.initial.rebalance.delay.ms": 0,
                "broker.session.timeout.ms": 2000,
                "broker.heartbeat.interval.ms": 250,
            }
            command = [str(binary), "server"]
            for key, value in settings.items():
                command += ["--override", f"{key}={value}"]
            with open(data.with_suffix(".stderr"), "wb") as err:
                node.process = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=err, stderr=err,
                                                preexec_fn=_kill_with_parent)

    def _await_ready(self) -> None:
        from kafka import KafkaAdminClient

        deadline = time.monotonic() + START_TIMEOUT_S
        last = None
        while time.monotonic() < deadline:
            for node in self.nodes:
                if node.process.poll() is not None:
                    raise RuntimeError(f"node {node.node_id} exited:\n{self.log(node.node_id)}")
            try:
                admin = KafkaAdminClient(bootstrap_servers=self.bootstrap, request_timeout_ms=3000,
                                         reconnect_backoff_max_ms=200)
                try:
                    if len(admin.describe_cluster()["brokers"]) == NODES:
                        return
                finally:
                    admin.close()
            except Exception as e:  # noqa: BLE001 - any failure means not ready yet
                last = e
            time.sleep(0.2)
        raise RuntimeError(f"the cluster was not ready in {START_TIMEOUT_S} s ({last!r}):\n{self.log(1)}")

    def log(self, node_id: int) -> str:
        path = self.run_dir / f"node{node_id}.stderr"
        return "\n".join(path.read_text(errors="replace").splitlines()[-40:]) if path.exists() else ""

    def stop(self) -> None:
        for node in self.nodes:
            if node.process is not None and node.process.poll() is None:
                node.process.send_signal(signal.SIGTERM)
        for node in self.nodes:
            if node.process is None:
                continue
            try:
                node.process.wait(STOP_GRACE_S)
            except subprocess.TimeoutExpired:
                node.process.kill()
                node.process.wait()
        shutil.rmtree(self.run_dir, ignore_errors=True)
