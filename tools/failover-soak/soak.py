#!/usr/bin/env python3
"""Failover soak for a three-node Strand cluster (issue 6, "Done when").

Starts three `strand` nodes (each broker and controller) on free loopback ports, creates topic
`soak` (3 partitions, replication factor 3, min.insync.replicas=2), and produces sequence-numbered
records with acks=all and idempotence from a background thread, keeping every delivery report.
Then, for each round: finds the leader of partition 0 (with --kill-controller: the active
controller and a partition it leads), kill -9s it, measures the time from the kill to the first
acknowledgement of a record produced (produce() called) after the kill to that partition and to
any partition, restarts the node over its data directory and waits until it is
back in the ISR of every partition. At the end it stops producing, flushes, reads every partition
from the beginning to its high watermark and compares: acknowledged records missing from the log
(must be 0), duplicated acknowledged values (must be 0 with idempotence), sequence numbers out of
order per partition.

A soak, not a test: never run by test.sh or .ci/run. See README.md in this directory.
"""

from __future__ import annotations

import argparse
import ctypes
import datetime as dt
import os
import platform
import signal
import socket
import statistics
import subprocess
import sys
import threading
import time
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path

from confluent_kafka import OFFSET_BEGINNING, Consumer, KafkaError, KafkaException, Producer, TopicPartition
from confluent_kafka import libversion as rdkafka_version
from confluent_kafka import version as client_version
from confluent_kafka.admin import AdminClient, NewTopic

REPO = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent
TOPIC = "soak"
PARTITIONS = 3
STUCK_S = 30.0  # a failover slower than this is a failure, as the brief says


def log(msg: str) -> None:
    print(f"[{dt.datetime.now().strftime('%H:%M:%S.%f')[:-3]}] {msg}", file=sys.stderr, flush=True)


def _die_with_parent() -> None:
    """In the child before exec: the kernel kills the node if this script dies without cleanup."""
    ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG


def free_ports(count: int) -> list[int]:
    """`count` distinct loopback ports free now, all held at once so none repeats."""
    socks = []
    try:
        for _ in range(count):
            s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            s.bind(("127.0.0.1", 0))
            socks.append(s)
        return [s.getsockname()[1] for s in socks]
    finally:
        for s in socks:
            s.close()


# ---------------------------------------------------------------------------------------------
# The cluster


@dataclass
class Node:
    node_id: int
    port: int
    controller_port: int
    data: Path
    log_path: Path
    proc: subprocess.Popen | None = None
    starts: int = 0

    def log_size(self) -> int:
        try:
            return self.log_path.stat().st_size
        except FileNotFoundError:
            return 0


class Cluster:
    def __init__(self, binary: Path, run_dir: Path, session_ms: int, heartbeat_ms: int, extra: list[str]):
        self.binary = binary
        self.run_dir = run_dir
        self.session_ms = session_ms
        self.heartbeat_ms = heartbeat_ms
        self.extra = extra
        self.cluster_id = subprocess.check_output([str(binary), "storage", "random-uuid"], text=True).strip()
        ports = free_ports(6)
        self.nodes = {
            i + 1: Node(
                node_id=i + 1,
                port=ports[i],
                controller_port=ports[3 + i],
                data=run_dir / f"node-{i + 1}" / "data",
                log_path=run_dir / f"node-{i + 1}" / "strand.log",
            )
            for i in range(3)
        }
        for n in self.nodes.values():
            n.data.mkdir(parents=True, exist_ok=True)

    @property
    def bootstrap(self) -> str:
        return ",".join(f"127.0.0.1:{n.port}" for n in self.nodes.values())

    def overrides(self, n: Node) -> list[str]:
        voters = ",".join(f"{m.node_id}@127.0.0.1:{m.controller_port}" for m in self.nodes.values())
        return [
            f"node.id={n.node_id}",
            "process.roles=broker,controller",
            f"listeners=PLAINTEXT://127.0.0.1:{n.port},CONTROLLER://127.0.0.1:{n.controller_port}",
            f"advertised.listeners=PLAINTEXT://127.0.0.1:{n.port}",
            "controller.listener.names=CONTROLLER",
            f"controller.quorum.voters={voters}",
            f"cluster.id={self.cluster_id}",
            f"log.dirs={n.data}",
            "http.listeners=",  # else every node would want localhost:8080
            f"broker.session.timeout.ms={self.session_ms}",
            f"broker.heartbeat.interval.ms={self.heartbeat_ms}",
            *self.extra,
        ]

    def spawn(self, node_id: int) -> int:
        """Starts node `node_id`; returns the offset in its log where this run's output begins."""
        n = self.nodes[node_id]
        assert n.proc is None or n.proc.poll() is not None, f"node {node_id} still runs"
        n.starts += 1
        start = n.log_size()
        with open(n.log_path, "ab") as f:
            f.write(f"==== soak: start #{n.starts} of node {node_id} at {dt.datetime.now().isoformat()} ====\n".encode())
            args = [str(self.binary), "server"]
            for o in self.overrides(n):
                args += ["--override", o]
            env = dict(os.environ, RUST_LOG=os.environ.get("STRAND_SOAK_RUST_LOG", "info,openraft=warn"))
            n.proc = subprocess.Popen(
                args, stdout=f, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, env=env,
                preexec_fn=_die_with_parent,
            )
        return start

    def wait_listening(self, node_id: int, since: int, timeout: float) -> float:
        """Waits for `listening on PLAINTEXT://` in the node's log after offset `since`."""
        n = self.nodes[node_id]
        t0 = time.monotonic()
        while time.monotonic() - t0 < timeout:
            if n.proc.poll() is not None:
                raise RuntimeError(f"node {node_id} exited with {n.proc.returncode}; see {n.log_path}")
            with open(n.log_path, "rb") as f:
                f.seek(since)
                if b"listening on PLAINTEXT://" in f.read():
                    return time.monotonic() - t0
            time.sleep(0.05)
        raise TimeoutError(f"node {node_id} did not listen within {timeout}s; see {n.log_path}")

    def start_all(self, timeout: float = 90) -> None:
        since = {i: self.spawn(i) for i in self.nodes}  # every voter before any can serve
        for i in self.nodes:
            self.wait_listening(i, since[i], timeout)

    def kill(self, node_id: int) -> float:
        """kill -9; returns the monotonic time just before the signal."""
        n = self.nodes[node_id]
        t = time.monotonic()
        n.proc.send_signal(signal.SIGKILL)
        n.proc.wait()
        return t

    def alive(self, node_id: int) -> bool:
        p = self.nodes[node_id].proc
        return p is not None and p.poll() is None

    def active_controller(self) -> int | None:
        """The node whose log last said it became the active controller without saying it stopped."""
        for n in self.nodes.values():
            if not self.alive(n.node_id):
                continue
            last = None
            with open(n.log_path, "rb") as f:
                for line in f:
                    if b"active controller" in line:
                        last = line
                    elif line.startswith(b"==== soak: start"):
                        last = None
            if last is not None and b" is the active controller" in last:
                return n.node_id
        return None

    def stop_all(self) -> None:
        for n in self.nodes.values():
            if n.proc is not None and n.proc.poll() is None:
                n.proc.send_signal(signal.SIGTERM)
        for n in self.nodes.values():
            if n.proc is not None:
                try:
                    n.proc.wait(timeout=20)
                except subprocess.TimeoutExpired:
                    n.proc.kill()
                    n.proc.wait()


# ---------------------------------------------------------------------------------------------
# Metadata


def topic_state(admin: AdminClient, timeout: float = 2.0) -> dict[int, tuple[int, list[int], list[int]]] | None:
    """partition -> (leader, replicas, isr) of TOPIC, fresh from a Metadata request."""
    try:
        md = admin.list_topics(topic=TOPIC, timeout=timeout)
    except KafkaException:
        return None
    t = md.topics.get(TOPIC)
    if t is None or t.error is not None:
        return None
    return {p: (pm.leader, sorted(pm.replicas), sorted(pm.isrs)) for p, pm in t.partitions.items()}


def wait_for(what: str, timeout: float, check, poll: float = 0.1):
    t0 = time.monotonic()
    while True:
        v = check()
        if v:
            return v, time.monotonic() - t0
        if time.monotonic() - t0 > timeout:
            raise TimeoutError(f"{what}: not within {timeout}s")
        time.sleep(poll)


def full_isr(state) -> bool:
    return bool(state) and len(state) == PARTITIONS and all(
        leader >= 0 and len(isr) == 3 for leader, _, isr in state.values()
    )


# ---------------------------------------------------------------------------------------------
# The producer


@dataclass
class Ack:
    seq: int
    partition: int
    offset: int
    sent: float  # monotonic time of the produce() call
    acked: float  # monotonic time the delivery report was served


@dataclass
class ProducerStats:
    acks: list[Ack] = field(default_factory=list)
    failed: list[tuple[int, int, str, float]] = field(default_factory=list)  # seq, partition, error, time
    errors: list[tuple[float, str]] = field(default_factory=list)  # error_cb
    fatal: list[tuple[float, str]] = field(default_factory=list)
    produced: int = 0
    buffer_full: int = 0
    restarts: int = 0


class SoakProducer:
    def __init__(self, bootstrap: str, rate: int, conf_extra: dict[str, str]):
        self.bootstrap = bootstrap
        self.rate = rate
        self.conf = {
            "bootstrap.servers": bootstrap,
            "acks": "all",
            "enable.idempotence": True,
            "linger.ms": 2,
            "message.timeout.ms": 30000,
            "client.id": "failover-soak",
            **conf_extra,
        }
        self.stats = ProducerStats()
        self.failed_sent: list[float] = []
        self.sent_all: dict[int, float] = {}  # seq -> time of its produce() call, once reported
        self.lock = threading.Lock()
        self.stop = threading.Event()
        self.sent_at: dict[int, float] = {}
        self.t0 = time.monotonic()
        self.thread = threading.Thread(target=self._run, name="producer", daemon=True)
        self.producer = self._new_producer()

    def _new_producer(self) -> Producer:
        return Producer({**self.conf, "error_cb": self._on_error})

    def _on_error(self, err: KafkaError) -> None:
        now = time.monotonic()
        with self.lock:
            self.stats.errors.append((now, str(err)))
            if err.fatal():
                self.stats.fatal.append((now, str(err)))

    def _on_delivery(self, err, msg) -> None:
        now = time.monotonic()
        seq = int(msg.value())
        with self.lock:
            sent = self.sent_at.pop(seq)
            self.sent_all[seq] = sent
            if err is None:
                self.stats.acks.append(Ack(seq, msg.partition(), msg.offset(), sent, now))
            else:
                self.stats.failed.append((seq, msg.partition(), str(err), now))
                self.failed_sent.append(sent)

    def start(self) -> None:
        self.thread.start()

    def _run(self) -> None:
        seq = 0
        interval = 1.0 / self.rate
        next_at = time.monotonic()
        while not self.stop.is_set():
            with self.lock:
                fatal = bool(self.stats.fatal) and self.stats.restarts < len(self.stats.fatal)
            if fatal:
                # A fatal idempotence error ends this producer; its undelivered records fail.
                # Start over with a new producer id so the soak can go on (and report it).
                log("producer: fatal error, flushing and recreating the producer")
                self.producer.flush(35)
                self.producer = self._new_producer()
                with self.lock:
                    self.stats.restarts += 1
            now = time.monotonic()
            if now < next_at:
                self.producer.poll(next_at - now)
                continue
            next_at += interval
            if next_at < now - 1.0:  # do not burst to catch up after a long stall
                next_at = now
            value = str(seq).encode()
            with self.lock:
                self.sent_at[seq] = time.monotonic()
            try:
                self.producer.produce(TOPIC, value=value, partition=seq % PARTITIONS, on_delivery=self._on_delivery)
            except BufferError:
                with self.lock:
                    self.sent_at.pop(seq, None)
                    self.stats.buffer_full += 1
                self.producer.poll(0.05)
                continue
            except KafkaException as e:  # fatal state: produce() refuses
                with self.lock:
                    self.sent_at.pop(seq, None)
                    if not self.stats.fatal:
                        self.stats.fatal.append((time.monotonic(), f"produce(): {e}"))
                self.producer.poll(0.05)
                continue
            with self.lock:
                self.stats.produced += 1
            seq += 1
            self.producer.poll(0)
        self.next_seq = seq

    def finish(self, timeout: float = 60) -> int:
        self.stop.set()
        self.thread.join()
        return self.producer.flush(timeout)

    def snapshot_acks_since(self, index: int) -> list[Ack]:
        with self.lock:
            return self.stats.acks[index:]

    def ack_count(self) -> int:
        with self.lock:
            return len(self.stats.acks)


# ---------------------------------------------------------------------------------------------
# One round


@dataclass
class Round:
    number: int
    killed: int
    was_controller: bool
    kill_time: float
    wall: str
    new_leader: int | None = None
    leader_moved_s: float | None = None
    first_p0_ack_s: float | None = None
    first_any_ack_s: float | None = None
    listening_s: float | None = None
    rejoin_s: float | None = None
    failed: int = 0  # delivery failures of records sent between this kill and the next
    problems: list[str] = field(default_factory=list)
    partition: int = 0  # the partition measured: 0, or one the active controller led
    log_offsets: dict[int, tuple[int, int]] = field(default_factory=dict)


def target_partition(cluster: Cluster, admin: AdminClient, args) -> tuple[int, int, int | None]:
    """The partition a round measures, its leader and the active controller: partition 0, or with
    --kill-controller a partition the active controller leads (waiting for one)."""
    def pick():
        state = topic_state(admin)
        controller = cluster.active_controller()
        if not state:
            return None
        if not args.kill_controller:
            return (0, state[0][0], controller) if state[0][0] >= 0 else None
        led = sorted(p for p, (leader, _, _) in state.items() if leader == controller)
        return (led[0], controller, controller) if led and controller is not None else None
    what = "a partition led by the active controller" if args.kill_controller else "a leader for partition 0"
    found, _ = wait_for(what, 60, pick)
    return found


def run_round(number: int, cluster: Cluster, admin: AdminClient, prod: SoakProducer, args) -> Round:
    target, leader, controller = target_partition(cluster, admin, args)
    log_start = {i: n.log_size() for i, n in cluster.nodes.items()}
    ack_index = prod.ack_count()
    kill_time = cluster.kill(leader)
    r = Round(number, leader, controller == leader, kill_time, dt.datetime.now().strftime("%H:%M:%S"))
    r.partition = target
    log(f"round {number}: killed node {leader} (leader of partition {target}"
        f"{', active controller' if r.was_controller else ''})")

    # Until the first post-kill acknowledgement on partition 0 (or the deadline), watch the leader
    # in the metadata and the delivery reports.
    deadline = kill_time + args.failover_deadline
    seen = ack_index
    while time.monotonic() < deadline and (r.first_p0_ack_s is None or r.leader_moved_s is None):
        for a in prod.snapshot_acks_since(seen):
            seen += 1
            if a.sent <= kill_time:
                continue
            if r.first_any_ack_s is None:
                r.first_any_ack_s = a.acked - kill_time
            if a.partition == target and r.first_p0_ack_s is None:
                r.first_p0_ack_s = a.acked - kill_time
        if r.leader_moved_s is None:
            s = topic_state(admin, timeout=1.0)
            if s and s[target][0] >= 0 and s[target][0] != leader:
                r.leader_moved_s = time.monotonic() - kill_time
                r.new_leader = s[target][0]
        time.sleep(0.02)
    if r.first_p0_ack_s is None:
        r.problems.append(f"no acks=all write to partition {target} acknowledged within {args.failover_deadline:.0f}s of the kill")
    elif r.first_p0_ack_s > STUCK_S:
        r.problems.append(f"failover took {r.first_p0_ack_s:.1f}s (> {STUCK_S:.0f}s)")
    if r.leader_moved_s is None:
        r.problems.append(f"metadata never showed a new leader for partition {target}")

    time.sleep(args.down_s)
    since = cluster.spawn(leader)
    t_restart = time.monotonic()
    try:
        r.listening_s = cluster.wait_listening(leader, since, args.rejoin_deadline)
        _, _ = wait_for(
            f"node {leader} back in every ISR",
            max(1.0, args.rejoin_deadline - (time.monotonic() - t_restart)),
            lambda: (lambda s: full_isr(s) and all(leader in isr for _, _, isr in s.values()))(topic_state(admin)),
            poll=0.2,
        )
        r.rejoin_s = time.monotonic() - t_restart
    except (TimeoutError, RuntimeError) as e:
        r.problems.append(f"rejoin: {e}; metadata: {topic_state(admin)}")
    # Steady state before the next kill: acknowledgements flowing on partition 0 again.
    n0 = prod.ack_count()
    try:
        wait_for("acks after rejoin", 30, lambda: any(a.partition == target for a in prod.snapshot_acks_since(n0)), poll=0.05)
    except TimeoutError as e:
        r.problems.append(f"after rejoin: {e}")
    time.sleep(args.settle_s)
    r.log_offsets = {i: (log_start[i], n.log_size()) for i, n in cluster.nodes.items()}
    fmt = lambda v: "-" if v is None else f"{v:.3f}s"
    log(
        f"round {number}: p{target} ack after {fmt(r.first_p0_ack_s)}, any ack after {fmt(r.first_any_ack_s)}, "
        f"leader moved to {r.new_leader} after {fmt(r.leader_moved_s)}, rejoined after {fmt(r.rejoin_s)}"
        + (f"; PROBLEMS: {r.problems}" if r.problems else "")
    )
    return r


# ---------------------------------------------------------------------------------------------
# Verification


@dataclass
class Verdict:
    hw: dict[int, tuple[int, int]]
    consumed: int
    acked: int
    lost: list[Ack]
    moved: list[tuple[Ack, int, int]]  # acked at (p, o) but found elsewhere
    dup_acked: dict[int, int]  # seq -> copies in the log, for acknowledged seqs with > 1 copy
    dup_any: int
    out_of_order: dict[int, int]
    unacked_present: int
    foreign: int
    dup_runs: list[tuple[int, int, int, int, list[int]]]  # partition, first seq, last seq, copies, first offsets
    records: dict[int, list[tuple[int, int]]]  # partition -> [(offset, seq)]


def read_all(bootstrap: str) -> tuple[dict[int, list[tuple[int, int]]], dict[int, tuple[int, int]]]:
    c = Consumer({
        "bootstrap.servers": bootstrap,
        "group.id": "failover-soak-verify",
        "enable.auto.commit": False,
        "auto.offset.reset": "earliest",
        "enable.partition.eof": True,
    })
    try:
        hw = {p: c.get_watermark_offsets(TopicPartition(TOPIC, p), timeout=30) for p in range(PARTITIONS)}
        c.assign([TopicPartition(TOPIC, p, OFFSET_BEGINNING) for p in range(PARTITIONS)])
        records: dict[int, list[tuple[int, int]]] = defaultdict(list)
        done = {p for p in range(PARTITIONS) if hw[p][1] <= hw[p][0]}
        t0 = time.monotonic()
        while len(done) < PARTITIONS:
            if time.monotonic() - t0 > 300:
                raise TimeoutError(f"consuming did not reach the high watermarks {hw}; done {done}")
            msgs = c.consume(1000, timeout=1.0)
            for m in msgs:
                if m.error():
                    if m.error().code() == KafkaError._PARTITION_EOF:
                        if m.offset() >= hw[m.partition()][1]:
                            done.add(m.partition())
                        continue
                    raise KafkaException(m.error())
                records[m.partition()].append((m.offset(), m.value()))
                if m.offset() + 1 >= hw[m.partition()][1]:
                    done.add(m.partition())
        return records, hw
    finally:
        c.close()


def verify(bootstrap: str, stats: ProducerStats) -> Verdict:
    records, hw = read_all(bootstrap)
    at: dict[tuple[int, int], int] = {}
    where: dict[int, list[tuple[int, int]]] = defaultdict(list)
    foreign = 0
    out_of_order: dict[int, int] = {}
    parsed: dict[int, list[tuple[int, int]]] = {}
    for p, recs in records.items():
        # Ordering is judged on first copies only (duplicates are counted apart): a record whose
        # first copy comes after the first copy of a higher sequence number is out of order.
        last = -1
        bad = 0
        parsed[p] = []
        for off, value in recs:
            try:
                seq = int(value)
            except (TypeError, ValueError):
                foreign += 1
                continue
            parsed[p].append((off, seq))
            at[(p, off)] = seq
            first = not where[seq]
            where[seq].append((p, off))
            if first:
                if seq < last:
                    bad += 1
                last = max(last, seq)
        out_of_order[p] = bad
    lost, moved = [], []
    for a in stats.acks:
        found = at.get((a.partition, a.offset))
        if found == a.seq:
            continue
        if where.get(a.seq):
            p, o = where[a.seq][0]
            moved.append((a, p, o))
        else:
            lost.append(a)
    acked_seqs = {a.seq for a in stats.acks}
    dup_acked = {s: len(where[s]) for s in acked_seqs if len(where.get(s, [])) > 1}
    dup_any = sum(len(v) - 1 for v in where.values() if len(v) > 1)
    unacked_present = sum(1 for s in where if s not in acked_seqs)
    # Runs of consecutive duplicated sequence numbers (same partition, step PARTITIONS).
    dup_runs: list[tuple[int, int, int, int, list[int]]] = []
    for seq in sorted(s for s, v in where.items() if len(v) > 1):
        p = where[seq][0][0]
        copies = len(where[seq])
        if dup_runs and dup_runs[-1][0] == p and dup_runs[-1][2] == seq - PARTITIONS and dup_runs[-1][3] == copies:
            run = dup_runs[-1]
            dup_runs[-1] = (p, run[1], seq, copies, run[4])
        else:
            dup_runs.append((p, seq, seq, copies, [o for _, o in where[seq]]))
    return Verdict(
        hw=hw, consumed=sum(len(v) for v in records.values()), acked=len(stats.acks), lost=lost, moved=moved,
        dup_acked=dup_acked, dup_any=dup_any, out_of_order=out_of_order, unacked_present=unacked_present,
        foreign=foreign, dup_runs=dup_runs, records=parsed,
    )


def dump_raw(run_dir: Path, stats: ProducerStats, v: Verdict | None, t0: float, rounds: list["Round"]) -> None:
    """CSV files for a post-mortem; times in seconds since the producer started."""
    with open(run_dir / "acks.csv", "w") as f:
        f.write("seq,partition,offset,sent_s,acked_s\n")
        for a in stats.acks:
            f.write(f"{a.seq},{a.partition},{a.offset},{a.sent - t0:.4f},{a.acked - t0:.4f}\n")
    with open(run_dir / "failed.csv", "w") as f:
        f.write("seq,partition,error,reported_s\n")
        for seq, p, e, t in stats.failed:
            f.write(f"{seq},{p},\"{e}\",{t - t0:.4f}\n")
    with open(run_dir / "rounds.csv", "w") as f:
        f.write("round,killed,kill_s\n")
        for r in rounds:
            f.write(f"{r.number},{r.killed},{r.kill_time - t0:.4f}\n")
    if v is not None:
        with open(run_dir / "log.csv", "w") as f:
            f.write("partition,offset,seq\n")
            for p in sorted(v.records):
                for off, seq in v.records[p]:
                    f.write(f"{p},{off},{seq}\n")


# ---------------------------------------------------------------------------------------------
# Report


def _v(version) -> str:
    """confluent_kafka.version() / libversion(): a (string, int) tuple, or a string in some builds."""
    return version[0] if isinstance(version, tuple) else str(version)


def pct(values: list[float], q: float) -> float:
    """Nearest-rank percentile."""
    s = sorted(values)
    k = max(0, min(len(s) - 1, int(-(-q * len(s) // 1)) - 1))
    return s[k]


def summary(values: list[float]) -> str:
    if not values:
        return "n/a"
    return (f"median {statistics.median(values):.3f} s, p90 {pct(values, 0.9):.3f} s, "
            f"max {max(values):.3f} s, min {min(values):.3f} s (n={len(values)})")


def sh(cmd: list[str]) -> str:
    try:
        return subprocess.check_output(cmd, text=True, stderr=subprocess.DEVNULL, cwd=REPO).strip()
    except (OSError, subprocess.CalledProcessError):
        return "?"


def machine() -> dict[str, str]:
    cpu = "?"
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    mem = "?"
    try:
        for line in open("/proc/meminfo"):
            if line.startswith("MemTotal"):
                mem = f"{int(line.split()[1]) // 1024} MiB"
                break
    except OSError:
        pass
    return {"nproc": sh(["nproc"]), "uname": sh(["uname", "-srvmo"]), "cpu": cpu, "memory": mem,
            "python": platform.python_version()}


def report(args, cluster: Cluster, rounds: list[Round], prod: SoakProducer, v: Verdict | None, meta: dict,
           aborted: str | None) -> str:
    st = prod.stats
    p0 = [r.first_p0_ack_s for r in rounds if r.first_p0_ack_s is not None]
    anyp = [r.first_any_ack_s for r in rounds if r.first_any_ack_s is not None]
    moved = [r.leader_moved_s for r in rounds if r.leader_moved_s is not None]
    rejoin = [r.rejoin_s for r in rounds if r.rejoin_s is not None]
    f = lambda x: "-" if x is None else f"{x:.3f}"
    out = []
    out.append(f"# Strand failover soak, {meta['started']}\n")
    victim = ("the active controller (measured on a partition it led)" if args.kill_controller
              else f"the leader of `{TOPIC}`-0")
    out.append(f"{len(rounds)} kill -9 rounds of {victim} on a 3-node cluster "
               f"(every node broker and controller), acks=all idempotent production throughout.\n")
    if aborted:
        out.append(f"**Run aborted:** {aborted}\n")
    out.append("## Result\n")
    lost = len(v.lost) if v else "not verified"
    dups = len(v.dup_acked) if v else "not verified"
    out.append("| | |\n|---|---|")
    out.append(f"| Failover, kill → first acks=all write acknowledged on the partition it led | {summary(p0)} |")
    out.append(f"| Failover, kill → first acks=all write acknowledged on any partition | {summary(anyp)} |")
    ctl = [r.first_p0_ack_s for r in rounds if r.was_controller and r.first_p0_ack_s is not None]
    other = [r.first_p0_ack_s for r in rounds if not r.was_controller and r.first_p0_ack_s is not None]
    out.append(f"| … of which rounds where the killed leader was also the active controller | {summary(ctl)} |")
    out.append(f"| … of which rounds where it was not | {summary(other)} |")
    out.append(f"| Kill → metadata shows a new leader for that partition | {summary(moved)} |")
    out.append(f"| Restart → node back in the ISR of every partition | {summary(rejoin)} |")
    out.append(f"| Acknowledged-then-lost records | **{lost}** |")
    out.append(f"| Acknowledged records duplicated in the log | **{dups}** |")
    if v:
        out.append(f"| Acknowledged records found at another offset than acknowledged | {len(v.moved)} |")
        out.append(f"| Out-of-order sequence numbers per partition | {v.out_of_order} |")
        out.append(f"| Records acknowledged | {v.acked} |")
        out.append(f"| Records in the log (consumed up to the high watermarks) | {v.consumed} |")
        out.append(f"| Records in the log never acknowledged (failed or timed-out reports) | {v.unacked_present} |")
        out.append(f"| Duplicate copies of any value in the log | {v.dup_any} |")
    out.append(f"| Records produced / delivery failures / still queued at the end | "
               f"{st.produced} / {len(st.failed)} / {meta.get('unflushed', '?')} |")
    out.append(f"| Fatal producer errors (producer recreated) | {len(st.fatal)} |")
    out.append(f"| Rounds with problems | {sum(1 for r in rounds if r.problems)} |")
    out.append("")
    out.append("Failover is measured from just before `kill -9` of the leader of the measured partition (0, or "
               "with `--kill-controller` one the active controller led) to the first delivery "
               "report acknowledging a record whose `produce()` call was made after the kill (and, second row, "
               "such a record on any partition). Delivery reports are served by the producer thread's "
               "`poll()`, so times carry a few ms of client-side latency; the producer sends about "
               f"{args.rate} records/s round-robin over the 3 partitions.\n")

    out.append("## Rounds\n")
    out.append("| # | time | killed | was active controller | partition | its new leader | leader in metadata (s) | "
               "first ack on it (s) | first ack any partition (s) | restart → listening (s) | restart → in all ISRs (s) | "
               "delivery failures | problems |")
    out.append("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for r in rounds:
        out.append(f"| {r.number} | {r.wall} | {r.killed} | {'yes' if r.was_controller else 'no'} | {r.partition} | "
                   f"{r.new_leader if r.new_leader is not None else '-'} | {f(r.leader_moved_s)} | "
                   f"{f(r.first_p0_ack_s)} | {f(r.first_any_ack_s)} | {f(r.listening_s)} | {f(r.rejoin_s)} | {r.failed} | "
                   f"{'; '.join(r.problems) or ''} |")
    out.append("")

    if v and v.dup_runs:
        out.append("## Duplicates in the log\n")
        out.append("Runs of consecutive sequence numbers of one partition that appear more than once; "
                   "`round` is the round during which the first of them was produced (0: before the first kill).\n")
        out.append("| partition | sequence numbers | records | copies each | offsets of the first one's copies | produced in round | acknowledged |")
        out.append("|---|---|---|---|---|---|---|")
        with prod.lock:
            acked_at = {a.seq: a for a in st.acks}
        kills = [(r.kill_time, r.number) for r in rounds]
        def round_of(t):
            n = 0
            for kt, num in kills:
                if t >= kt:
                    n = num
            return n
        for p, a, b, copies, offs in v.dup_runs[:40]:
            n = (b - a) // PARTITIONS + 1
            rnd = round_of(prod.sent_all[a]) if a in prod.sent_all else "?"
            acked = sum(1 for q in range(a, b + 1, PARTITIONS) if q in acked_at)
            out.append(f"| {p} | {a}–{b} | {n} | {copies} | {', '.join(map(str, offs[:8]))} | {rnd} | {acked}/{n} |")
        if len(v.dup_runs) > 40:
            out.append(f"| … | {len(v.dup_runs) - 40} more runs | | | | | |")
        out.append("")
    if v and (v.lost or v.moved or v.dup_acked or any(v.out_of_order.values())):
        out.append("## Verification failures\n")
        for a in v.lost[:50]:
            out.append(f"- lost: seq {a.seq} acknowledged at {TOPIC}-{a.partition}@{a.offset}")
        for a, p, o in v.moved[:50]:
            out.append(f"- moved: seq {a.seq} acknowledged at {TOPIC}-{a.partition}@{a.offset}, found at {p}@{o}")
        for s, n in list(v.dup_acked.items())[:50]:
            out.append(f"- duplicated: seq {s} appears {n} times")
        out.append("")
    if st.failed:
        out.append("## Delivery failures (by error)\n")
        for e, n in Counter(e for _, _, e, _ in st.failed).most_common():
            out.append(f"- {n} × {e}")
        out.append("")
    if st.errors:
        out.append("## Client error callbacks (by message)\n")
        for e, n in Counter(e for _, e in st.errors).most_common(15):
            out.append(f"- {n} × {e}")
        out.append("")

    out.append("## Settings\n")
    out.append(f"- Strand: `{meta['binary']}` (built {meta['binary_mtime']}), repository at {meta['git']}")
    out.append(f"- Cluster: 3 nodes, `process.roles=broker,controller`, static quorum of 3 voters, loopback; "
               f"`broker.session.timeout.ms={args.session_ms}`, `broker.heartbeat.interval.ms={args.heartbeat_ms}`"
               + (f", extra: `{' '.join(args.override)}`" if args.override else "")
               + "; everything else at Strand's defaults (Kafka's).")
    out.append(f"- Topic `{TOPIC}`: {PARTITIONS} partitions, replication factor 3, `min.insync.replicas=2`.")
    out.append(f"- Producer: confluent-kafka {_v(client_version())} (librdkafka {_v(rdkafka_version())}), "
               + ", ".join(f"`{k}={v}`" for k, v in prod.conf.items() if k != "bootstrap.servers")
               + f", explicit partition = seq mod 3, ~{args.rate} records/s.")
    out.append(f"- Rounds: {args.rounds}; node down for {args.down_s}s after the failover is observed; "
               f"failover deadline {args.failover_deadline}s, rejoin deadline {args.rejoin_deadline}s, "
               f"settle {args.settle_s}s after rejoin.")
    out.append("- Verification: one consumer, `assign` every partition at OFFSET_BEGINNING, default isolation, "
               "up to each partition's high watermark.")
    m = meta["machine"]
    out.append(f"- Machine: nproc {m['nproc']}, {m['cpu']}, {m['memory']}, `{m['uname']}`, Python {m['python']}; "
               f"load average at start {meta['load_start']}, at end {meta.get('load_end', '?')}. The machine "
               "is shared (other builds were running), so timings include that noise.")
    out.append(f"- Wall time: {meta.get('elapsed', '?')}; node logs: `{meta['run_dir']}`.")
    if meta.get("failing_logs"):
        out.append(f"- Log excerpts of rounds with problems: `{meta['failing_logs']}`.")
    out.append("")
    return "\n".join(out)


def save_failing_logs(cluster: Cluster, rounds: list[Round], run_dir: Path) -> Path | None:
    bad = [r for r in rounds if r.problems]
    if not bad:
        return None
    dest = run_dir / "failing-rounds"
    dest.mkdir(exist_ok=True)
    for r in bad:
        for i, (a, b) in r.log_offsets.items():
            with open(cluster.nodes[i].log_path, "rb") as src:
                src.seek(a)
                data = src.read(b - a)
            (dest / f"round-{r.number:02d}-node-{i}.log").write_bytes(data)
    return dest


# ---------------------------------------------------------------------------------------------


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rounds", type=int, default=20)
    ap.add_argument("--kill-controller", action="store_true",
                    help="kill the active controller each round, measuring a partition it leads")
    ap.add_argument("--session-ms", type=int, default=2000, help="broker.session.timeout.ms")
    ap.add_argument("--heartbeat-ms", type=int, default=250, help="broker.heartbeat.interval.ms")
    ap.add_argument("--override", action="append", default=[], help="extra strand --override key=value")
    ap.add_argument("--rate", type=int, default=300, help="records per second")
    ap.add_argument("--down-s", type=float, default=1.0, help="time the killed node stays down after failover")
    ap.add_argument("--settle-s", type=float, default=2.0)
    ap.add_argument("--failover-deadline", type=float, default=60.0)
    ap.add_argument("--rejoin-deadline", type=float, default=120.0)
    ap.add_argument("--binary", type=Path, default=REPO / "target/release/strand")
    ap.add_argument("--build", action="store_true", help="run cargo build --release -p strand-cli even if the binary exists")
    ap.add_argument("--rev", help="build and use a clean snapshot of this git revision (git archive into "
                    "target/failover-soak/src-<rev>, CARGO_TARGET_DIR=target/failover-soak/cargo-target), so "
                    "uncommitted work in the tree does not leak into the measurement")
    ap.add_argument("--label", default="", help="suffix of the results file name: results/<date>[-label].md")
    ap.add_argument("--no-results", action="store_true", help="print the report only")
    ap.add_argument("--keep-data", action="store_true", help="keep the nodes' data dirs")
    args = ap.parse_args()

    source = "working tree"
    if args.rev:
        rev = sh(["git", "rev-parse", "--short", args.rev])
        src = REPO / "target" / "failover-soak" / f"src-{rev}"
        if not src.exists():
            src.mkdir(parents=True)
            archive = subprocess.Popen(["git", "archive", rev], cwd=REPO, stdout=subprocess.PIPE)
            subprocess.run(["tar", "-x", "-C", str(src)], stdin=archive.stdout, check=True)
            archive.wait()
        target = REPO / "target" / "failover-soak" / "cargo-target"
        log(f"building {rev} in {src}")
        subprocess.run(["cargo", "build", "--release", "-p", "strand-cli"], cwd=src, check=True,
                       env=dict(os.environ, CARGO_TARGET_DIR=str(target)))
        args.binary = target / "release" / "strand"
        source = f"clean snapshot of {rev}"
    elif args.build or not args.binary.exists():
        log("building: cargo build --release -p strand-cli")
        subprocess.run(["cargo", "build", "--release", "-p", "strand-cli"], cwd=REPO, check=True)
    started = dt.datetime.now()
    run_dir = REPO / "target" / "failover-soak" / started.strftime("%Y%m%d-%H%M%S")
    run_dir.mkdir(parents=True)
    dirty = sh(["git", "status", "--porcelain", "--untracked-files=no", "--", "crates", "Cargo.lock"])
    meta = {
        "started": started.strftime("%Y-%m-%d %H:%M"),
        "binary": os.path.relpath(args.binary, REPO),
        "binary_mtime": dt.datetime.fromtimestamp(args.binary.stat().st_mtime).strftime("%Y-%m-%d %H:%M:%S"),
        "git": (source if args.rev else sh(["git", "rev-parse", "--short", "HEAD"])
                + (" with uncommitted changes under crates/ (the binary may include them)"
                   if dirty and not args.rev else "")),
        "machine": machine(),
        "load_start": " ".join(open("/proc/loadavg").read().split()[:3]),
        "run_dir": os.path.relpath(run_dir, REPO),
    }
    cluster = Cluster(args.binary, run_dir, args.session_ms, args.heartbeat_ms, args.override)
    rounds: list[Round] = []
    prod = None
    verdict = None
    aborted = None
    admin = None
    t_start = time.monotonic()
    try:
        log(f"starting 3 nodes (PLAINTEXT {cluster.bootstrap}), logs in {run_dir}")
        cluster.start_all()
        admin = AdminClient({"bootstrap.servers": cluster.bootstrap})
        fs = admin.create_topics([NewTopic(TOPIC, PARTITIONS, 3, config={"min.insync.replicas": "2"})],
                                 request_timeout=30)
        fs[TOPIC].result(60)
        wait_for("topic with full ISRs", 60, lambda: full_isr(topic_state(admin)))
        log(f"topic {TOPIC}: {topic_state(admin)}")
        prod = SoakProducer(cluster.bootstrap, args.rate, {})
        prod.start()
        wait_for("first acks", 30, lambda: prod.ack_count() > 0)
        time.sleep(args.settle_s)
        for i in range(1, args.rounds + 1):
            r = run_round(i, cluster, admin, prod, args)
            rounds.append(r)
            down = [n for n in cluster.nodes if not cluster.alive(n)]
            if down:
                aborted = f"round {i}: node(s) {down} not running after the round; stopping"
                log(aborted)
                break
            if r.rejoin_s is None:
                aborted = f"round {i}: node {r.killed} did not rejoin every ISR; stopping the kills"
                log(aborted)
                break
        log("stopping the producer and flushing")
        meta["unflushed"] = prod.finish(60)
        log("reading every partition back")
        verdict = verify(cluster.bootstrap, prod.stats)
    except Exception as e:  # report what we have
        aborted = f"{type(e).__name__}: {e}"
        log(f"ABORTED: {aborted}")
        if prod is not None and not prod.stop.is_set():
            meta["unflushed"] = prod.finish(30)
    finally:
        meta["elapsed"] = f"{(time.monotonic() - t_start) / 60:.1f} min"
        meta["load_end"] = " ".join(open("/proc/loadavg").read().split()[:3])
        admin = None  # destroy the client before its brokers go
        if prod is not None:
            prod.producer = None
        cluster.stop_all()
    if prod is not None:
        kills = [r.kill_time for r in rounds] + [float("inf")]
        for r, end in zip(rounds, kills[1:]):
            r.failed = sum(1 for t in prod.failed_sent if r.kill_time <= t < end)
        dump_raw(run_dir, prod.stats, verdict, prod.t0, rounds)
    failing = save_failing_logs(cluster, rounds, run_dir)
    if failing:
        meta["failing_logs"] = os.path.relpath(failing, REPO)
    if prod is None:
        return 2
    text = report(args, cluster, rounds, prod, verdict, meta, aborted)
    print(text)
    if not args.keep_data:
        for n in cluster.nodes.values():
            subprocess.run(["rm", "-rf", str(n.data)])
    if not args.no_results:
        results = HERE / "results"
        results.mkdir(exist_ok=True)
        name = started.strftime("%Y-%m-%d") + (f"-{args.label}" if args.label else "") + ".md"
        (results / name).write_text(text)
        log(f"report written to {os.path.relpath(results / name, REPO)}")
    ok = (verdict is not None and not verdict.lost and not verdict.dup_acked and not verdict.moved
          and not any(verdict.out_of_order.values()) and not aborted and not any(r.problems for r in rounds))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
