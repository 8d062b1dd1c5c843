#!/usr/bin/env python3
"""Recording TCP proxy for the Kafka wire protocol.

Listens on 127.0.0.1:<listen-port>, forwards every connection to the broker at
127.0.0.1:<upstream-port> and records every frame that passes through.

Both directions are split into Kafka frames (int32 big-endian size prefix,
then the payload).  For a request the proxy reads the header prefix
(int16 api_key, int16 api_version, int32 correlation_id, and the client_id
string when present); for a response it reads the correlation id (the first
four bytes of the payload) and pairs it with the outstanding request of the
same connection.  Requests that never get a response (Produce with acks=0, or
requests still in flight when a connection closes) stay unpaired.

Output, in --out DIR:
  frames/<seq>.request.bin   request payload (no size prefix)
  frames/<seq>.response.bin  response payload (no size prefix)
  index.jsonl                one JSON object per event, in the order seen:
      {"event": "request",  "seq", "conn", "api_key", "api_version",
       "correlation_id", "client_id", "size", "t"}
      {"event": "response", "seq", "conn", "correlation_id", "size", "t"}
      {"event": "open"|"close", "conn", "t", ...}
      {"event": "orphan-response", ...}   response with no matching request
      {"event": "unanswered", "seq", ...} request still pending at close

`seq` numbers requests in the order the proxy received them, over all
connections of this proxy run.

The proxy writes --ready-file once it accepts connections, and on SIGTERM or
SIGINT it closes every connection, records what was unanswered and exits 0.
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import json
import os
import signal
import struct
import sys
import time

MAX_FRAME = 256 * 1024 * 1024  # sanity bound; real frames are far smaller


class Recorder:
    def __init__(self, out_dir: str) -> None:
        self.frames_dir = os.path.join(out_dir, "frames")
        os.makedirs(self.frames_dir, exist_ok=True)
        self.index = open(os.path.join(out_dir, "index.jsonl"), "a", buffering=1)
        self.seq = itertools.count()

    def event(self, **fields) -> None:
        fields.setdefault("t", round(time.time(), 6))
        self.index.write(json.dumps(fields, sort_keys=True) + "\n")

    def write_frame(self, seq: int, kind: str, payload: bytes) -> None:
        path = os.path.join(self.frames_dir, f"{seq:06d}.{kind}.bin")
        with open(path, "wb") as f:
            f.write(payload)

    def close(self) -> None:
        self.index.close()


def parse_request_header(payload: bytes):
    """Return (api_key, api_version, correlation_id, client_id) or None."""
    if len(payload) < 8:
        return None
    api_key, api_version, corr = struct.unpack_from(">hhi", payload, 0)
    client_id = None
    # Request header v1 and v2 both carry client_id as a classic (int16
    # length) nullable string; only header v0 (long gone) lacks it.
    if len(payload) >= 10:
        (n,) = struct.unpack_from(">h", payload, 8)
        if 0 <= n <= len(payload) - 10:
            client_id = payload[10 : 10 + n].decode("utf-8", "replace")
    return api_key, api_version, corr, client_id


class Connection:
    def __init__(self, proxy: "Proxy", conn_id: int) -> None:
        self.proxy = proxy
        self.id = conn_id
        self.pending: dict[int, int] = {}  # correlation id -> seq
        self.writers: list[asyncio.StreamWriter] = []

    def on_request(self, payload: bytes) -> None:
        rec = self.proxy.recorder
        hdr = parse_request_header(payload)
        if hdr is None:
            rec.event(event="malformed-request", conn=self.id, size=len(payload))
            return
        api_key, api_version, corr, client_id = hdr
        seq = next(rec.seq)
        rec.write_frame(seq, "request", payload)
        rec.event(
            event="request",
            seq=seq,
            conn=self.id,
            api_key=api_key,
            api_version=api_version,
            correlation_id=corr,
            client_id=client_id,
            size=len(payload),
        )
        if corr in self.pending:
            rec.event(event="duplicate-correlation-id", conn=self.id, correlation_id=corr)
        self.pending[corr] = seq

    def on_response(self, payload: bytes) -> None:
        rec = self.proxy.recorder
        if len(payload) < 4:
            rec.event(event="malformed-response", conn=self.id, size=len(payload))
            return
        (corr,) = struct.unpack_from(">i", payload, 0)
        seq = self.pending.pop(corr, None)
        if seq is None:
            rec.event(event="orphan-response", conn=self.id, correlation_id=corr, size=len(payload))
            return
        rec.write_frame(seq, "response", payload)
        rec.event(event="response", seq=seq, conn=self.id, correlation_id=corr, size=len(payload))

    async def pump(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, on_frame) -> None:
        while True:
            try:
                size_bytes = await reader.readexactly(4)
            except (asyncio.IncompleteReadError, ConnectionError):
                return
            (size,) = struct.unpack(">i", size_bytes)
            if size < 0 or size > MAX_FRAME:
                self.proxy.recorder.event(event="bad-frame-size", conn=self.id, size=size)
                return
            try:
                payload = await reader.readexactly(size)
            except (asyncio.IncompleteReadError, ConnectionError):
                return
            # Record before forwarding: the request must be registered as
            # pending before the broker can possibly answer it.
            on_frame(payload)
            writer.write(size_bytes + payload)
            try:
                await writer.drain()
            except ConnectionError:
                return

    async def run(self, client_reader, client_writer) -> None:
        rec = self.proxy.recorder
        peer = client_writer.get_extra_info("peername")
        rec.event(event="open", conn=self.id, peer=str(peer))
        self.writers.append(client_writer)
        try:
            up_reader, up_writer = await asyncio.open_connection(
                self.proxy.upstream_host, self.proxy.upstream_port
            )
        except OSError as e:
            rec.event(event="upstream-connect-failed", conn=self.id, error=str(e))
            client_writer.close()
            return
        self.writers.append(up_writer)
        tasks = [
            asyncio.create_task(self.pump(client_reader, up_writer, self.on_request)),
            asyncio.create_task(self.pump(up_reader, client_writer, self.on_response)),
        ]
        try:
            await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for t in tasks:
                t.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
            self.close()

    def close(self) -> None:
        rec = self.proxy.recorder
        for w in self.writers:
            try:
                w.close()
            except Exception:
                pass
        self.writers.clear()
        for corr, seq in sorted(self.pending.items(), key=lambda kv: kv[1]):
            rec.event(event="unanswered", conn=self.id, seq=seq, correlation_id=corr)
        self.pending.clear()
        if self.id in self.proxy.connections:
            del self.proxy.connections[self.id]
            rec.event(event="close", conn=self.id)


class Proxy:
    def __init__(self, args) -> None:
        self.upstream_host = "127.0.0.1"
        self.upstream_port = args.upstream_port
        self.recorder = Recorder(args.out)
        self.conn_ids = itertools.count(1)
        self.connections: dict[int, Connection] = {}

    async def handle(self, reader, writer) -> None:
        conn = Connection(self, next(self.conn_ids))
        self.connections[conn.id] = conn
        try:
            await conn.run(reader, writer)
        except asyncio.CancelledError:
            pass  # proxy shutting down


async def main_async(args) -> int:
    proxy = Proxy(args)
    server = await asyncio.start_server(proxy.handle, "127.0.0.1", args.listen_port)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    if args.ready_file:
        with open(args.ready_file, "w") as f:
            f.write(f"{os.getpid()}\n")
    print(
        f"proxy: 127.0.0.1:{args.listen_port} -> 127.0.0.1:{args.upstream_port}, recording to {args.out}",
        file=sys.stderr,
        flush=True,
    )
    await stop.wait()
    server.close()
    for conn in list(proxy.connections.values()):
        conn.close()
    await asyncio.sleep(0)  # let cancelled pumps unwind
    proxy.recorder.close()
    return 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--listen-port", type=int, required=True)
    ap.add_argument("--upstream-port", type=int, required=True)
    ap.add_argument("--out", required=True, help="directory for frames/ and index.jsonl")
    ap.add_argument("--ready-file", help="written once the proxy accepts connections")
    args = ap.parse_args()
    return asyncio.run(main_async(args))


if __name__ == "__main__":
    sys.exit(main())
