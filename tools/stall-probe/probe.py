#!/usr/bin/env python3
"""Stall probe (issue 15, finding 2): does one large request hold up other clients?

Starts one `strand` node on a free loopback port over a temporary directory, creates topic
`probe` (1 partition), then measures, each on a connection and in a process of its own, the latency of a
Metadata request (v1, topic `probe`) and of an acks=1 Produce of one small record (v3), each sent
back to back, and of a consumer's sessionless Fetch (v11) of that partition from offset 0 (its
first batch only, `partition_max_bytes` 1; it takes the fetch-session cache's lock, as every
Fetch from v7 does). First `--idle` seconds with nothing else going on, then `--attack` seconds while
another connection (in another process) sends one kind of large request over and over:

  delete  DeleteTopics v3 naming 200,000 unknown topics (about 4.4 MB)
  create  CreateTopics v4 of 100,000 names, each twice, no partitions (about 4 MB)
  fetch   Fetch v11 at session epoch 0 (opening a session) of 100,000 partitions (about 3 MB)
  flood   CreateTopics v4 of new topics, `--flood-topics` per request (default 1,000) of
          `--flood-partitions` partitions each (default 1): every request really creates them,
          with names never used before (`--flood-clients` connections send them at once)

and prints p50 / p99 / max of both probes in both windows, and how long each large request took.
Raw Kafka frames, standard library only: no client library needed.

A measurement, not a test: never run by test.sh or CI. See README.md in this directory.
"""

from __future__ import annotations

import argparse
import os
import socket
import struct
import subprocess
import sys
import multiprocessing
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
TOPIC = "probe"


# --- wire -------------------------------------------------------------------------------------

def _crc32c_table() -> list[int]:
    table = []
    for n in range(256):
        c = n
        for _ in range(8):
            c = (c >> 1) ^ 0x82F63B78 if c & 1 else c >> 1
        table.append(c)
    return table


CRC_TABLE = _crc32c_table()


def crc32c(data: bytes) -> int:
    c = 0xFFFFFFFF
    for b in data:
        c = CRC_TABLE[(c ^ b) & 0xFF] ^ (c >> 8)
    return c ^ 0xFFFFFFFF


def string(s: str) -> bytes:
    b = s.encode()
    return struct.pack(">h", len(b)) + b


def array(items: list[bytes]) -> bytes:
    return struct.pack(">i", len(items)) + b"".join(items)


def varint(n: int) -> bytes:
    z = (n << 1) ^ (n >> 63)
    out = bytearray()
    while z >= 0x80:
        out.append((z & 0x7F) | 0x80)
        z >>= 7
    out.append(z)
    return bytes(out)


def record_batch(value: bytes) -> bytes:
    now = int(time.time() * 1000)
    record = b"\x00" + varint(0) + varint(0) + varint(-1) + varint(len(value)) + value + varint(0)
    record = varint(len(record)) + record
    after_crc = struct.pack(">hiqqqhii", 0, 0, now, now, -1, -1, -1, 1) + record
    header = struct.pack(">ibI", -1, 2, crc32c(after_crc))
    body = header + after_crc
    return struct.pack(">qi", 0, len(body)) + body


class Connection:
    def __init__(self, port: int, client_id: str) -> None:
        self.sock = socket.create_connection(("127.0.0.1", port))
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.client_id = client_id
        self.correlation = 0

    def call(self, api_key: int, version: int, body: bytes) -> bytes:
        self.correlation += 1
        header = struct.pack(">hhi", api_key, version, self.correlation) + string(self.client_id)
        frame = header + body
        self.sock.sendall(struct.pack(">i", len(frame)) + frame)
        size = struct.unpack(">i", self._read(4))[0]
        response = self._read(size)
        assert struct.unpack(">i", response[:4])[0] == self.correlation
        return response[4:]

    def _read(self, n: int) -> bytes:
        chunks, left = [], n
        while left:
            chunk = self.sock.recv(min(left, 1 << 20))
            if not chunk:
                raise ConnectionError("closed")
            chunks.append(chunk)
            left -= len(chunk)
        return b"".join(chunks)


def metadata_v1(topic: str) -> bytes:
    return array([string(topic)])


def produce_v3(topic: str, value: bytes) -> bytes:
    records = record_batch(value)
    partition = struct.pack(">i", 0) + struct.pack(">i", len(records)) + records
    topic_data = string(topic) + array([partition])
    return struct.pack(">hhi", -1, 1, 30_000) + array([topic_data])


def create_topics_v4(names: list[str], partitions: int) -> bytes:
    topics = [string(n) + struct.pack(">ih", partitions, 1) + array([]) + array([]) for n in names]
    return array(topics) + struct.pack(">ib", 30_000, 0)


def create_topics_v4_errors(response: bytes) -> dict[int, int]:
    """How many topics of a CreateTopics v4 response got each error code."""
    pos, errors = 4, {}
    (count,) = struct.unpack_from(">i", response, pos)
    pos += 4
    for _ in range(count):
        (size,) = struct.unpack_from(">h", response, pos)
        pos += 2 + size
        (code, size) = struct.unpack_from(">hh", response, pos)
        pos += 4 + max(size, 0)
        errors[code] = errors.get(code, 0) + 1
    return errors


def delete_topics_v3(names: list[str]) -> bytes:
    return array([string(n) for n in names]) + struct.pack(">i", 30_000)


def fetch_v11(topic: str, partitions: int, session_epoch: int, partition_max_bytes: int = 1 << 20) -> bytes:
    """A fetch of `partitions` partitions from offset 0 that does not wait, sessionless (epoch
    -1) or opening a session (epoch 0)."""
    parts = [struct.pack(">iiqqi", p, -1, 0, -1, partition_max_bytes) for p in range(partitions)]
    topics = array([string(topic) + array(parts)])
    head = struct.pack(">iiiibii", -1, 0, 1, 1 << 20, 0, 0, session_epoch)
    return head + topics + array([]) + string("")


def alter_client_quotas_v0(client_id: str, quotas: dict[str, float]) -> bytes:
    """AlterClientQuotas v0 setting `quotas` for the client id `client_id`."""
    entity = array([string("client-id") + string(client_id)])
    ops = array([string(k) + struct.pack(">db", v, 0) for k, v in quotas.items()])
    return array([entity + ops]) + struct.pack(">b", 0)


class Flood:
    """CreateTopics requests of topics never created before: request `n` of attacking connection `c`
    names `flood-c<c>-<n>-<i>`."""

    def __init__(self, topics: int, partitions: int) -> None:
        self.topics, self.partitions, self.sent, self.prefix = topics, partitions, 0, ""

    def __call__(self) -> tuple[int, int, bytes]:
        n, self.sent = self.sent, self.sent + 1
        names = [f"flood-{self.prefix}{n:05d}-{i:05d}" for i in range(self.topics)]
        return 19, 4, create_topics_v4(names, self.partitions)


ATTACKS = {
    "delete": lambda: (20, 3, delete_topics_v3([f"unknown-topic-{i:06d}" for i in range(200_000)])),
    "create": lambda: (19, 4, create_topics_v4([f"dup-{i // 2:06d}" for i in range(200_000)], 0)),
    "fetch": lambda: (1, 11, fetch_v11(TOPIC, 100_000, 0)),
    "flood": None,
}


# --- node -------------------------------------------------------------------------------------

def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start(binary: str, data: str, port: int, log: str | None) -> subprocess.Popen:
    overrides = [f"log.dirs={data}", f"listeners=PLAINTEXT://127.0.0.1:{port}",
                 f"advertised.listeners=PLAINTEXT://127.0.0.1:{port}", "http.listeners="]
    args = [binary, "server"] + [a for o in overrides for a in ("--override", o)]
    stderr = open(log, "w") if log else subprocess.DEVNULL
    node = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=stderr)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            Connection(port, "ready").call(3, 1, metadata_v1(TOPIC))
            return node
        except OSError:
            time.sleep(0.1)
    node.kill()
    raise SystemExit("strand did not start")


# --- measurement ------------------------------------------------------------------------------

PROBES = {
    "metadata": lambda: (3, 1, metadata_v1(TOPIC)),
    "produce": lambda: (0, 3, produce_v3(TOPIC, b"x" * 100)),
    "fetch": lambda: (1, 11, fetch_v11(TOPIC, 1, -1, partition_max_bytes=1)),
}


def probe(port: int, name: str, interval: float, stop, results) -> None:
    """One probe, in a process of its own (so no other probe's or the attacker's Python holds
    the interpreter lock while its answer waits to be read): its request every `interval`
    seconds (back to back if 0) until `stop` is set, then its samples, (start, latency) pairs,
    into `results`."""
    api, version, body = PROBES[name]()
    conn = Connection(port, name)
    samples = []
    next_at = time.monotonic()
    while not stop.is_set():
        started = time.monotonic()
        conn.call(api, version, body)
        samples.append((started, time.monotonic() - started))
        next_at += interval
        delay = next_at - time.monotonic()
        if delay > 0:
            time.sleep(delay)
        else:
            next_at = time.monotonic()
    results.put((name, samples))


def hosted_time(data: str, expected: int, since: float) -> str:
    """When the node held a directory for each of `expected` flood partitions (polled every
    50 ms, for at most 300 s), in seconds since `since`, and the creation rate that makes."""
    deadline = time.monotonic() + 300
    while True:
        count = sum(1 for name in os.listdir(data) if name.startswith("flood-"))
        now = time.monotonic()
        if count >= expected or now > deadline:
            rate = count / max(now - since, 1e-9)
            return f"{count} partition directories after {now - since:.2f} s ({rate:.0f} partitions/s)"
        time.sleep(0.05)


def percentiles(latencies: list[float]) -> str:
    if not latencies:
        return "no samples"
    ordered = sorted(latencies)
    pick = lambda q: ordered[min(len(ordered) - 1, int(q * len(ordered)))] * 1000
    return f"n={len(ordered):6d}  p50={pick(0.5):8.2f} ms  p99={pick(0.99):8.2f} ms  max={ordered[-1] * 1000:8.2f} ms"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--binary", default=str(REPO / "target/release/strand"))
    parser.add_argument("--attack", choices=sorted(ATTACKS), default="delete")
    parser.add_argument("--idle", type=float, default=5.0, help="seconds of baseline")
    parser.add_argument("--seconds", type=float, default=10.0, help="seconds under attack")
    parser.add_argument("--flood-topics", type=int, default=1_000, help="topics per flood request")
    parser.add_argument("--flood-partitions", type=int, default=1, help="partitions per flood topic")
    parser.add_argument("--flood-clients", type=int, default=1, help="connections sending flood requests")
    parser.add_argument("--flood-requests", type=int, default=0,
                        help="stop after this many flood requests in all (0: send until --seconds pass); "
                             "the run then also reports when every flood partition's directory existed")
    parser.add_argument("--attacker-quota", action="append", default=[], metavar="KEY=VALUE",
                        help="a client quota for the attacking connections' client id `attacker` "
                             "(e.g. request_percentage=10, controller_mutation_rate=100); repeatable")
    parser.add_argument("--probe-interval-ms", type=float, default=1.0,
                        help="each probe sends its request this often (0: back to back, which on a machine of "
                             "few cores makes the probes themselves the load)")
    parser.add_argument("--prebuilt", type=int, default=100,
                        help="flood requests each attacking connection builds before the attack (more are built "
                             "during it if it sends them all)")
    parser.add_argument("--samples", help="file for every probe sample: probe, start (s since the attack began), ms")
    parser.add_argument("--log", help="file for the node's log (its RUST_LOG is this one's)")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory(prefix="stall-probe-") as data:
        port = free_port()
        node = start(args.binary, data, port, args.log)
        try:
            setup = Connection(port, "setup")
            setup.call(19, 4, create_topics_v4([TOPIC], 1))
            if args.attacker_quota:
                quotas = {k: float(v) for k, v in (q.split("=", 1) for q in args.attacker_quota)}
                answer = setup.call(49, 0, alter_client_quotas_v0("attacker", quotas))
                (code,) = struct.unpack_from(">h", answer, 8)
                if code != 0:
                    raise SystemExit(f"AlterClientQuotas failed: error code {code}")
                print(f"attacker quotas: {quotas}")
            if args.attack == "flood":
                next_request = Flood(args.flood_topics, args.flood_partitions)
                clients = args.flood_clients
            else:
                fixed = ATTACKS[args.attack]()
                next_request, clients = (lambda: fixed), 1
            body = next_request()[2]
            print(f"attack {args.attack}: {len(body) / 1e6:.1f} MB per request, {clients} client(s), binary {args.binary}")
            context = multiprocessing.get_context("fork")
            stop, results = context.Event(), context.Queue()
            interval = args.probe_interval_ms / 1000
            probes = [context.Process(target=probe, args=(port, name, interval, stop, results)) for name in PROBES]
            for p in probes:
                p.start()
            time.sleep(args.idle)
            attack_start = time.monotonic()
            cap = args.flood_requests if args.attack == "flood" else 0
            sent = context.Value("i", 0)

            def take() -> bool:
                with sent.get_lock():
                    if cap and sent.value >= cap:
                        return False
                    sent.value += 1
                    return True

            def attack(index: int, answers) -> None:
                """One attacking connection, in a process of its own; its request durations and
                the error codes of the topics it created into `answers`."""
                if args.attack == "flood":
                    next_request.prefix = f"c{index}-"
                # Built before and read after the attack, so the attacker's own CPU (on this
                # machine, not the node's in real life) does not compete with the node's.
                flood = args.attack == "flood"
                ready = [next_request() for _ in range(args.prebuilt if flood else 1)]
                attacker = Connection(port, "attacker")
                durations, responses = [], []
                while (cap or time.monotonic() - attack_start < args.seconds) and take():
                    if not flood:
                        api, version, body = ready[0]
                    else:
                        api, version, body = ready.pop(0) if ready else next_request()
                    started = time.monotonic()
                    response = attacker.call(api, version, body)
                    durations.append(time.monotonic() - started)
                    if api == 19:
                        responses.append(response)
                errors = {}
                for response in responses:
                    for code, n in create_topics_v4_errors(response).items():
                        errors[code] = errors.get(code, 0) + n
                answers.put((durations, errors))

            answers = context.Queue()
            attackers = [context.Process(target=attack, args=(i, answers)) for i in range(clients)]
            for t in attackers:
                t.start()
            durations, errors = [], {}
            for _ in attackers:
                some, codes = answers.get()
                durations += some
                for code, n in codes.items():
                    errors[code] = errors.get(code, 0) + n
            for t in attackers:
                t.join()
            attack_end = time.monotonic()
            if cap:
                expected = cap * args.flood_topics * args.flood_partitions
                hosted = hosted_time(data, expected, attack_start)
                print(f"flood: {expected} partitions requested; last response after {attack_end - attack_start:.2f} s; "
                      f"{hosted}")
            stop.set()
            collected = dict(results.get() for _ in probes)
            for p in probes:
                p.join()
            if args.samples:
                with open(args.samples, "w") as out:
                    for label in PROBES:
                        for started, latency in collected[label]:
                            out.write(f"{label} {started - attack_start:.6f} {latency * 1000:.3f}\n")
            for label in PROBES:
                samples = collected[label]
                idle = [l for s, l in samples if s < attack_start]
                busy = [l for s, l in samples if attack_start <= s < attack_end]
                print(f"{label:9s} idle   {percentiles(idle)}")
                print(f"{label:9s} attack {percentiles(busy)}")
            print(f"attack requests: {len(durations)}, each {percentiles(durations)}")
            if errors:
                print(f"attack topics by error code: {dict(sorted(errors.items()))}")
        finally:
            node.terminate()
            node.wait(timeout=30)


if __name__ == "__main__":
    main()
