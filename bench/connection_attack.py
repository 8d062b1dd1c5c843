#!/usr/bin/env python3
"""Connection attack on one `strand` node (issue 15, finding 3): idle connections and tricklers.

Starts `strand server` on a free loopback port with a fresh data directory (plus any
`--override`s), then:

1. baseline: a normal client sends `--samples` requests (ApiVersions and Metadata, alternating,
   one at a time) and records each round trip;
2. attack: opens `--idle` connections that send nothing, and `--tricklers` connections that each
   declare a `--declared-mib` frame, send `--fast-mib` MiB of it at once, then one byte per
   trickler per second;
3. during the attack: the normal client measures again (a fresh connection, as a new client
   would), and the node's resident memory is sampled every 100 ms;
4. `--hold-s` seconds after the last connection opened: how many idle and trickling connections the node has closed.

Prints one Markdown table row per run (p50/p99 before and during, peak RSS growth, closures) and
writes the row to `--out` if given. Not a test: never run by test.sh or CI.

    bench/connection_attack.py --strand target/release/strand
    bench/connection_attack.py --strand target/release/strand --fast-mib 8 \
        --override queued.max.request.bytes=268435456
"""

from __future__ import annotations

import argparse
import os
import resource
import select
import socket
import struct
import subprocess
import sys
import tempfile
import threading
import time

MIB = 1 << 20


def frame(api_key: int, version: int, correlation_id: int, body: bytes) -> bytes:
    """A request frame with a v1 header (client id "bench")."""
    header = struct.pack(">hhih", api_key, version, correlation_id, 5) + b"bench"
    payload = header + body
    return struct.pack(">i", len(payload)) + payload


API_VERSIONS_V0 = lambda cid: frame(18, 0, cid, b"")  # noqa: E731
METADATA_V1_ALL = lambda cid: frame(3, 1, cid, struct.pack(">i", -1))  # noqa: E731


def read_exact(sock: socket.socket, n: int) -> bytes:
    out = bytearray()
    while len(out) < n:
        chunk = sock.recv(n - len(out))
        if not chunk:
            raise ConnectionError("closed by the server")
        out += chunk
    return bytes(out)


def round_trips(address: tuple[str, int], samples: int) -> list[float]:
    """Round-trip times (ms) of `samples` requests on one fresh connection."""
    times = []
    with socket.create_connection(address, timeout=60) as sock:
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        for i in range(samples):
            request = API_VERSIONS_V0(i) if i % 2 == 0 else METADATA_V1_ALL(i)
            start = time.perf_counter()
            sock.sendall(request)
            (size,) = struct.unpack(">i", read_exact(sock, 4))
            read_exact(sock, size)
            times.append((time.perf_counter() - start) * 1000)
    return times


def percentile(values: list[float], p: float) -> float:
    """Nearest rank."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * p))]


def rss_kib(pid: int, field: str = "VmRSS") -> int:
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    return 0


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_strand(binary: str, data: str, overrides: list[str]) -> tuple[subprocess.Popen, tuple[str, int]]:
    port = free_port()
    args = [binary, "server", "--override", f"log.dirs={data}",
            "--override", f"listeners=PLAINTEXT://127.0.0.1:{port}",
            "--override", f"advertised.listeners=PLAINTEXT://127.0.0.1:{port}",
            "--override", "http.listeners="]
    for override in overrides:
        args += ["--override", override]
    log = open(os.path.join(data, "..", "strand.log"), "w")
    process = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=log, env={**os.environ, "RUST_LOG": "warn"})
    address = ("127.0.0.1", port)
    deadline = time.time() + 60
    while time.time() < deadline:
        try:
            round_trips(address, 1)
            return process, address
        except OSError:
            time.sleep(0.1)
    process.kill()
    sys.exit(f"strand did not start on {address}")


def closed(sockets: list[socket.socket]) -> int:
    """How many of `sockets` the server has closed (readable with end of stream, or reset)."""
    poller = select.poll()
    by_fd = {sock.fileno(): sock for sock in sockets}
    for fd in by_fd:
        poller.register(fd, select.POLLIN)
    count = 0
    for fd, events in poller.poll(0):
        try:
            if events & (select.POLLERR | select.POLLHUP) or by_fd[fd].recv(1, socket.MSG_PEEK) == b"":
                count += 1
        except OSError:
            count += 1
    return count


def trickle(tricklers: list[socket.socket], stop: threading.Event) -> None:
    while not stop.wait(1.0):
        for sock in tricklers:
            try:
                sock.send(b"\0")
            except OSError:
                pass


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--strand", default="target/release/strand")
    parser.add_argument("--override", action="append", default=[], dest="overrides")
    parser.add_argument("--idle", type=int, default=5000)
    parser.add_argument("--tricklers", type=int, default=200)
    parser.add_argument("--declared-mib", type=int, default=100)
    parser.add_argument("--fast-mib", type=float, default=0.0, help="MiB each trickler sends at once")
    parser.add_argument("--samples", type=int, default=2000)
    parser.add_argument("--hold-s", type=float, default=40.0,
                        help="seconds from the last connection opened to counting closures")
    parser.add_argument("--label", default="")
    parser.add_argument("--out")
    args = parser.parse_args()

    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    root = tempfile.mkdtemp(prefix="strand-attack-")
    data = os.path.join(root, "data")
    os.mkdir(data)
    process, address = start_strand(args.strand, data, args.overrides)
    try:
        round_trips(address, 200)  # warm up
        before = round_trips(address, args.samples)
        rss_before = rss_kib(process.pid)

        attack_start = time.time()
        idle = [socket.create_connection(address) for _ in range(args.idle)]
        tricklers = []
        fast = b"\0" * int(args.fast_mib * MIB)
        for _ in range(args.tricklers):
            sock = socket.create_connection(address)
            sock.setblocking(False)
            try:
                sock.send(struct.pack(">i", args.declared_mib * MIB))
                sent = 0
                while sent < len(fast):
                    sent += sock.send(fast[sent:])
            except (BlockingIOError, OSError):
                pass  # the node stopped reading: the rest stays unsent
            tricklers.append(sock)
        opened_s = time.time() - attack_start
        stop = threading.Event()
        threading.Thread(target=trickle, args=(tricklers, stop), daemon=True).start()

        peak = [rss_before]

        def sample() -> None:
            while not stop.wait(0.1):
                peak[0] = max(peak[0], rss_kib(process.pid))

        threading.Thread(target=sample, daemon=True).start()
        during = round_trips(address, args.samples)
        remaining = args.hold_s - (time.time() - attack_start - opened_s)
        if remaining > 0:
            time.sleep(remaining)
        idle_closed, tricklers_closed = closed(idle), closed(tricklers)
        stop.set()
        hwm = rss_kib(process.pid, "VmHWM")
    finally:
        process.kill()
        process.wait()

    row = (
        f"| {args.label} | {' '.join(args.overrides) or 'defaults'} | {args.idle} idle + {args.tricklers} x "
        f"{args.declared_mib} MiB ({args.fast_mib:g} MiB at once) opened in {opened_s:.1f} s "
        f"| {percentile(before, 0.5):.2f} / {percentile(before, 0.99):.2f} "
        f"| {percentile(during, 0.5):.2f} / {percentile(during, 0.99):.2f} "
        f"| {rss_before / 1024:.0f} → peak {peak[0] / 1024:.0f} (HWM {hwm / 1024:.0f}) "
        f"| {idle_closed} / {tricklers_closed} after {args.hold_s:g} s |"
    )
    header = (
        "| run | settings | attack | normal p50 / p99 ms before | during | RSS MiB | closed idle / tricklers |\n"
        "|---|---|---|---|---|---|---|"
    )
    print(header)
    print(row)
    if args.out:
        new = not os.path.exists(args.out)
        with open(args.out, "a") as out:
            if new:
                out.write(header + "\n")
            out.write(row + "\n")


if __name__ == "__main__":
    main()
