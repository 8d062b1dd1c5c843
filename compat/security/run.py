"""The security suite's runner (compat/run.sh security; compat/security/README.md).

Makes the test certificates, starts one broker per mechanism group (brokers.py), writes what the
clients need to <run dir>/security.json (STRAND_SEC_CONFIG), then runs each client's tests in turn
against the same brokers. Every test case appends `client<TAB>case<TAB>PASS|FAIL<TAB>detail` to the
results file named there; the runner prints them as a client x case matrix at the end. Exit status
0 only if every group's broker started and every client's test run passed.

STRAND_SEC_CLIENTS=python,go,node,java  runs only these (default: all).
STRAND_SEC_HOLD=1  starts the brokers, prints the config's path and waits until interrupted (run a
                   client's tests by hand with STRAND_SEC_CONFIG=<that path>).
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import brokers  # noqa: E402
import certs  # noqa: E402
import oidc  # noqa: E402
from compat_broker import REPO, java_command  # noqa: E402

CLIENT_TIMEOUT_S = 240


def _interrupt(signum, frame):
    raise KeyboardInterrupt(f"signal {signum}")


def clients(config_path: Path) -> list[tuple[str, list[str], Path]]:
    python = str(REPO / "compat/python/.venv/bin/python")
    return [
        ("python", [python, "-m", "pytest", "-v", "-p", "no:cacheprovider", "python"], HERE),
        ("go", ["go", "test", "-count=1", "-tags", "security", f"-timeout={CLIENT_TIMEOUT_S + 30}s", "-v", "./security/"],
         REPO / "compat/go"),
        ("node", ["node", "--test", "--test-concurrency=1", str(HERE / "node/kafkajs.security.js")], HERE / "node"),
        ("java", java_command(short_lived=True) + [str(HERE / "java/SecurityMatrix.java")], HERE / "java"),
        ("java", java_command(short_lived=True) + [str(HERE / "java/AclMatrix.java")], HERE / "java"),
        ("java", java_command(short_lived=True) + [str(HERE / "java/DelegationTokenMatrix.java")], HERE / "java"),
    ]


def print_matrix(results_path: Path) -> None:
    rows: dict[str, dict[str, str]] = {}
    cases: list[str] = []
    details = []
    if results_path.exists():
        for line in results_path.read_text().splitlines():
            client, case, outcome, detail = (line.split("\t", 3) + ["", "", "", ""])[:4]
            rows.setdefault(client, {})[case] = outcome
            if case not in cases:
                cases.append(case)
            if outcome != "PASS":
                details.append(f"  {client} {case}: {detail[:200]}")
    print("\nsecurity matrix (client x case)")
    width = max([len(c) for c in rows] + [6])
    print(" " * (width + 3) + " ".join(f"{c:>{max(len(c), 4)}}" for c in cases))
    for client, outcomes in rows.items():
        cells = " ".join(f"{outcomes.get(c, '-'):>{max(len(c), 4)}}" for c in cases)
        print(f"  {client:<{width + 1}}{cells}")
    if details:
        # Cases that failed because their group's broker did not start: one line per group.
        unstarted: dict[str, int] = {}
        print("failures:")
        for line in details:
            reason = line.split(": ", 1)[1]
            if "broker did not start" in reason:
                unstarted[reason] = unstarted.get(reason, 0) + 1
            else:
                print(line)
        for reason, count in unstarted.items():
            print(f"  {count} cases: {reason}")


def main() -> int:
    signal.signal(signal.SIGTERM, _interrupt)
    kind = os.environ.get("STRAND_COMPAT_BROKER", "strand")
    wanted = set(filter(None, os.environ.get("STRAND_SEC_CLIENTS", "python,go,node,java").split(",")))
    base = Path(tempfile.mkdtemp(prefix="strand-compat-security-"))
    group_brokers: list[brokers.GroupBroker] = []
    provider = None
    status = 0
    try:
        started = time.monotonic()
        paths = certs.generate(base / "certs")
        provider = oidc.Provider(base / "oidc", paths).start()
        paths.update({"oidc.jwks_url": provider.jwks_url, "oidc.token_url": provider.token_url,
                      "oidc.issuer": provider.issuer, "oidc.audience": oidc.AUDIENCE})
        group_brokers = brokers.start_all(kind, paths, base)
        print(f"security: certificates and {len(group_brokers)} brokers in {time.monotonic() - started:.1f} s")
        results = base / "results.tsv"
        results.touch()
        config = {
            "broker": kind,
            "certs": paths,
            "users": {k: {"user": u, "password": p} for k, (u, p) in brokers.USERS.items()},
            "groups": {b.group: {"listeners": b.addresses(), "error": b.error, "error_line": b.error_line}
                       for b in group_brokers},
            "acl_users": brokers.ACL_USERS,
            # Signed by the provider for the jwks group: each client presents these.
            "jwks_tokens": {
                "valid": provider.token(brokers.USERS["oauth"][0]),
                "expired": provider.token(brokers.USERS["oauth"][0], lifetime_s=-60),
                "untrusted-key": provider.token(brokers.USERS["oauth"][0], key="intruder"),
                "wrong-audience": provider.token(brokers.USERS["oauth"][0], audience="someone-else"),
            },
            "reauth_ms": brokers.REAUTH_MS,
            "results": str(results),
            "kafka_libs": str(REPO / os.environ.get("STRAND_KAFKA_LIBS", "target/kafka-libs")),
        }
        config_path = base / "security.json"
        config_path.write_text(json.dumps(config, indent=2))
        for b in group_brokers:
            if b.error:
                status = 1
                print(f"security: the {b.group} group's broker did not start; its tests fail with:\n{b.error}")
        env = dict(os.environ, STRAND_SEC_CONFIG=str(config_path))
        if os.environ.get("STRAND_SEC_HOLD") == "1":
            print(f"security: holding; STRAND_SEC_CONFIG={config_path}", flush=True)
            signal.pause()
        for name, command, cwd in clients(config_path):
            if name not in wanted:
                continue
            print(f"\n=== security: {name} ===", flush=True)
            t0 = time.monotonic()
            try:
                done = subprocess.run(command, cwd=cwd, env=env, stdin=subprocess.DEVNULL, timeout=CLIENT_TIMEOUT_S)
                rc = done.returncode
            except subprocess.TimeoutExpired:
                rc = "timed out"
            print(f"=== security: {name}: exit {rc} in {time.monotonic() - t0:.1f} s ===", flush=True)
            if rc != 0:
                status = 1
        print_matrix(results)
    finally:
        for b in group_brokers:
            b.stop()
        if provider is not None:
            provider.stop()
        if os.environ.get("STRAND_COMPAT_KEEP_DIR") == "1":
            print(f"security: run directory kept: {base}")
        else:
            shutil.rmtree(base, ignore_errors=True)
    return status


if __name__ == "__main__":
    sys.exit(main())
