"""Connection set-up rate of one broker listener, for bench/tls.sh: many short connections, each
connect, TLS handshake (SSL, SASL_SSL), ApiVersions, then for SASL_SSL the SCRAM exchange
(SaslHandshake v1, two SaslAuthenticate v1 round trips, the server's signature checked), and close.

Every connection is new and makes a full handshake (each worker has one SSLContext and never
offers a session ticket back), verifying the broker's certificate against --ca as a client does.
The client's PBKDF2 of the password is computed once per salt and iteration count and reused, so
the client's own cost stays off the 2 shared cores (a real client computes it every time; the
broker never does, it keeps the stored and server keys).

Prints one line: RESULT connections=N seconds=S per_s=R p50_ms=.. p99_ms=.. max_ms=.. tls=VERSION/CIPHER
"""

from __future__ import annotations

import argparse
import base64
import hashlib
import hmac
import multiprocessing
import os
import socket
import ssl
import struct
import sys
import time

API_VERSIONS, SASL_HANDSHAKE, SASL_AUTHENTICATE = 18, 17, 36


def request(sock, key: int, version: int, correlation: int, body: bytes) -> bytes:
    """Sends a request with header v1 (non-flexible versions only) and returns the response body."""
    client_id = b"bench-handshakes"
    header = struct.pack(">hhih", key, version, correlation, len(client_id)) + client_id
    sock.sendall(struct.pack(">i", len(header) + len(body)) + header + body)
    size = struct.unpack(">i", read_exactly(sock, 4))[0]
    response = read_exactly(sock, size)
    if struct.unpack(">i", response[:4])[0] != correlation:
        raise RuntimeError("correlation id mismatch")
    return response[4:]


def read_exactly(sock, n: int) -> bytes:
    chunks = []
    while n:
        chunk = sock.recv(n)
        if not chunk:
            raise RuntimeError("connection closed by the broker")
        chunks.append(chunk)
        n -= len(chunk)
    return b"".join(chunks)


def error_code(body: bytes) -> int:
    return struct.unpack(">h", body[:2])[0]


class Scram:
    """SCRAM-SHA-512 client (RFC 5802, as Kafka's ScramSaslClient), caching the salted password."""

    def __init__(self, user: str, password: str):
        self.user, self.password, self.salted = user, password.encode(), {}

    def authenticate(self, sock, correlation: int) -> None:
        body = request(sock, SASL_HANDSHAKE, 1, correlation, struct.pack(">h", 13) + b"SCRAM-SHA-512")
        if error_code(body):
            raise RuntimeError(f"SaslHandshake error {error_code(body)}")
        nonce = base64.b64encode(os.urandom(24)).decode()
        first_bare = f"n={self.user},r={nonce}"
        server_first = self.exchange(sock, correlation + 1, f"n,,{first_bare}")
        fields = dict(item.split("=", 1) for item in server_first.split(","))
        if not fields["r"].startswith(nonce):
            raise RuntimeError("server nonce does not extend the client's")
        salt, iterations = base64.b64decode(fields["s"]), int(fields["i"])
        salted = self.salted.get((salt, iterations))
        if salted is None:
            salted = hashlib.pbkdf2_hmac("sha512", self.password, salt, iterations)
            self.salted[(salt, iterations)] = salted
        client_key = hmac.digest(salted, b"Client Key", "sha512")
        stored_key = hashlib.sha512(client_key).digest()
        without_proof = f"c=biws,r={fields['r']}"
        auth_message = f"{first_bare},{server_first},{without_proof}".encode()
        signature = hmac.digest(stored_key, auth_message, "sha512")
        proof = bytes(a ^ b for a, b in zip(client_key, signature))
        server_final = self.exchange(sock, correlation + 2, f"{without_proof},p={base64.b64encode(proof).decode()}")
        server_key = hmac.digest(salted, b"Server Key", "sha512")
        expected = base64.b64encode(hmac.digest(server_key, auth_message, "sha512")).decode()
        if server_final != f"v={expected}":
            raise RuntimeError(f"bad server signature: {server_final}")

    @staticmethod
    def exchange(sock, correlation: int, message: str) -> str:
        data = message.encode()
        body = request(sock, SASL_AUTHENTICATE, 1, correlation, struct.pack(">i", len(data)) + data)
        code = error_code(body)
        length = struct.unpack(">h", body[2:4])[0]
        offset = 4 + max(length, 0)
        if code:
            raise RuntimeError(f"SaslAuthenticate error {code}: {body[4:offset].decode(errors='replace')}")
        size = struct.unpack(">i", body[offset:offset + 4])[0]
        return body[offset + 4:offset + 4 + size].decode()


def worker(args, count: int, results) -> None:
    try:
        results.put(connect_many(args, count))
    except Exception as e:  # noqa: BLE001 - reported by main
        results.put((None, f"{type(e).__name__}: {e}"))


def connect_many(args, count: int) -> tuple[list[float], str]:
    host, port = args.bootstrap.rsplit(":", 1)
    context = None
    if args.protocol in ("SSL", "SASL_SSL"):
        context = ssl.create_default_context(cafile=args.ca)
        context.options |= ssl.OP_NO_TICKET
    scram = Scram(args.user, args.password) if args.protocol == "SASL_SSL" else None
    latencies, tls = [], ""
    for _ in range(count):
        started = time.perf_counter()
        raw = socket.create_connection((host, int(port)))
        raw.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        sock = context.wrap_socket(raw, server_hostname=host) if context else raw
        try:
            if context and not tls:
                tls = f"{sock.version()}/{sock.cipher()[0]}"
            body = request(sock, API_VERSIONS, 0, 1, b"")
            if error_code(body):
                raise RuntimeError(f"ApiVersions error {error_code(body)}")
            if scram:
                scram.authenticate(sock, 2)
        finally:
            sock.close()
        latencies.append(time.perf_counter() - started)
    return latencies, tls


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bootstrap", required=True)
    parser.add_argument("--protocol", choices=["PLAINTEXT", "SSL", "SASL_SSL"], required=True)
    parser.add_argument("--ca")
    parser.add_argument("--user", default="bench")
    parser.add_argument("--password", default="")
    parser.add_argument("--connections", type=int, default=2000)
    parser.add_argument("--workers", type=int, default=4, help="client processes, connecting side by side")
    args = parser.parse_args()
    results = multiprocessing.Queue()
    share = [args.connections // args.workers + (i < args.connections % args.workers) for i in range(args.workers)]
    processes = [multiprocessing.Process(target=worker, args=(args, n, results)) for n in share]
    started = time.perf_counter()
    for p in processes:
        p.start()
    gathered = [results.get() for _ in processes]
    seconds = time.perf_counter() - started
    for p in processes:
        p.join()
    failed = [message for part, message in gathered if part is None]
    if failed:
        print(f"handshakes: {failed[0]}", file=sys.stderr)
        return 1
    latencies = sorted(x for part, _ in gathered for x in part)
    tls = next((t for _, t in gathered if t), "none")

    def pct(p: float) -> float:
        return latencies[min(len(latencies) - 1, int(p * len(latencies)))] * 1e3

    print(f"RESULT connections={len(latencies)} seconds={seconds:.3f} per_s={len(latencies) / seconds:.1f} "
          f"p50_ms={pct(0.5):.2f} p99_ms={pct(0.99):.2f} max_ms={latencies[-1] * 1e3:.2f} tls={tls}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
