"""The report of bench/tls.sh: reads a run directory (machine.kv, runs/<run>-<broker>/*.kv and
server.properties) and prints markdown: medians over the runs, Strand/Kafka ratios per protocol,
each broker's TLS and SASL cost (throughput over its PLAINTEXT throughput), handshakes per second,
and the exact broker configurations.

Usage: python3 bench/tls_report.py RUN_DIR [RUN_DIR...] > report.md
  (several run directories of the same code and settings pool their runs, numbered in order)
"""

from __future__ import annotations

import statistics
import sys
from pathlib import Path

PROTOCOLS = ["PLAINTEXT", "SSL", "SASL_SSL"]
BROKERS = ["kafka", "strand"]


def read_kv(path: Path) -> dict[str, str]:
    values = {}
    for line in path.read_text().splitlines():
        key, sep, value = line.partition("=")
        if sep:
            values[key] = value
    return values


def median(values: list[float]) -> float | None:
    return statistics.median(values) if values else None


def fmt(value: float | None, digits: int = 1) -> str:
    return "n/a" if value is None else f"{value:,.{digits}f}"


def ratio(a: float | None, b: float | None) -> str:
    return "n/a" if a is None or not b else f"{a / b:.2f}"


def main() -> int:
    run_dirs = [Path(a) for a in sys.argv[1:]]
    run_dir = run_dirs[0]
    machine = read_kv(run_dir / "machine.kv")
    machine["finished"] = read_kv(run_dirs[-1] / "machine.kv").get("finished", "?")
    loads = [(kv.get("loadavg_start", "?"), kv.get("loadavg_finish", "?"))
             for kv in (read_kv(d / "machine.kv") for d in run_dirs)]
    pinned = {read_kv(d / "machine.kv").get("pinned", "0") for d in run_dirs}
    rows, brokers, offset = [], {}, 0
    for d in run_dirs:
        runs_here = int(read_kv(d / "machine.kv").get("runs", 0))
        for p in sorted(d.glob("runs/*/*.kv")):
            kv = read_kv(p)
            run, broker = p.parent.name.split("-", 1)
            if p.name == "broker.kv":
                brokers[f"{int(run) + offset}-{broker}"] = kv
            else:
                kv["run"] = str(int(kv["run"]) + offset)
                rows.append(kv)
        offset += runs_here
    machine["runs"] = str(offset)
    if len(run_dirs) > 1:
        machine["runs"] += f" ({len(run_dirs)} invocations of bench/tls.sh pooled)"
    ok = [r for r in rows if "error" not in r]

    def values(broker: str, kind: str, protocol: str, key: str) -> list[float]:
        return [float(r[key]) for r in ok if r["broker"] == broker and r["kind"] == kind
                and r["protocol"] == protocol and key in r]

    def med(broker, kind, protocol, key):
        return median(values(broker, kind, protocol, key))

    out = []
    w = out.append
    w(f"# TLS and SASL: Strand and Apache Kafka 4.4.0 ({machine.get('started', '?')[:10]})\n")
    w("Produced by `bench/tls.sh` (method in `bench/README.md`, \"TLS and SASL\"). One node of each broker, "
      "one at a time, Kafka then Strand in each run, each with PLAINTEXT, SSL and SASL_SSL (SCRAM-SHA-512) "
      "client listeners; the same librdkafka client (`bench-client`) and the same handshake client "
      "(`bench/handshakes.py`) against both.\n")
    w(f"- runs: {machine.get('runs')} per broker (medians over the runs that succeeded); "
      f"{int(machine.get('records', 0)):,} records of 1 KiB per produce and per consume; "
      f"{int(machine.get('connections', 0)):,} connections per handshake measurement")
    w(f"- machine: {machine.get('cpu')}, {machine.get('cores')} cores, {machine.get('memory_gib')} GiB, "
      f"Linux {machine.get('kernel')}")
    w(f"- {machine.get('java')}; {machine.get('openssl')}; Python {machine.get('python')}")
    w(f"- Strand commit {machine.get('strand_commit')}; started {machine.get('started')}, "
      f"finished {machine.get('finished')}")
    w("- load average (1, 5, 15 min) at each invocation's start and finish: "
      + "; ".join(f"{a} / {b}" for a, b in loads))
    if pinned == {"1"}:
        w("- **pinned** (`--pin`): each broker on CPU 0, every client on CPU 1 (`taskset`); other work on "
          "the machine is not pinned")
    elif "1" in pinned:
        w("- **mixed**: some invocations pinned (`--pin`), some not")
    w("")

    w("## Issue 17's targets\n")
    w("| target | Kafka | Strand | met |")
    w("|---|---|---|---|")
    for p in ["SSL", "SASL_SSL"]:
        k, s = med("kafka", "produce", p, "records_per_s"), med("strand", "produce", p, "records_per_s")
        met = "n/a" if k is None or s is None else ("yes" if s / k >= 1.5 else "**no**")
        w(f"| {p} produce throughput, Strand/Kafka >= 1.5 | {fmt(k, 0)} rec/s | {fmt(s, 0)} rec/s "
          f"({ratio(s, k)}x) | {met} |")
    for p in ["SSL", "SASL_SSL"]:
        for kind in ["produce", "consume"]:
            costs = [None if med(b, kind, p, "records_per_s") is None or not med(b, kind, "PLAINTEXT", "records_per_s")
                     else med(b, kind, p, "records_per_s") / med(b, kind, "PLAINTEXT", "records_per_s")
                     for b in BROKERS]
            met = "n/a" if None in costs else ("yes" if costs[1] >= costs[0] else "**no**")
            w(f"| {kind} {p}/PLAINTEXT, Strand's >= Kafka's | {fmt(costs[0], 2)} | {fmt(costs[1], 2)} | {met} |")
    w("")

    w("## Throughput: librdkafka produce, 1 KiB records, 8 partitions, acks=all\n")
    w("| protocol | Kafka rec/s | Strand rec/s | Kafka MiB/s | Strand MiB/s | Strand/Kafka | Kafka p99 ms | "
      "Strand p99 ms | Kafka broker CPU s | Strand broker CPU s | runs (K/S) |")
    w("|---|---|---|---|---|---|---|---|---|---|---|")
    for p in PROTOCOLS:
        k, s = med("kafka", "produce", p, "records_per_s"), med("strand", "produce", p, "records_per_s")
        w(f"| {p} | {fmt(k, 0)} | {fmt(s, 0)} | {fmt(med('kafka', 'produce', p, 'mib_per_s'))} | "
          f"{fmt(med('strand', 'produce', p, 'mib_per_s'))} | **{ratio(s, k)}** | "
          f"{fmt(med('kafka', 'produce', p, 'p99_ms'))} | {fmt(med('strand', 'produce', p, 'p99_ms'))} | "
          f"{fmt(med('kafka', 'produce', p, 'broker_cpu_s'), 2)} | "
          f"{fmt(med('strand', 'produce', p, 'broker_cpu_s'), 2)} | "
          f"{len(values('kafka', 'produce', p, 'records_per_s'))}/{len(values('strand', 'produce', p, 'records_per_s'))} |")
    w("\np99: send to acknowledgement of each record, as librdkafka sees it (at full throttle mostly time "
      "queued in the client). Broker CPU s: the broker process's CPU seconds during the client run.\n")

    w("## Throughput: librdkafka consume of the same records (8 partitions, assigned, from the start)\n")
    w("| protocol | Kafka rec/s | Strand rec/s | Kafka MiB/s | Strand MiB/s | Strand/Kafka | runs (K/S) |")
    w("|---|---|---|---|---|---|---|")
    for p in PROTOCOLS:
        k, s = med("kafka", "consume", p, "records_per_s"), med("strand", "consume", p, "records_per_s")
        w(f"| {p} | {fmt(k, 0)} | {fmt(s, 0)} | {fmt(med('kafka', 'consume', p, 'mib_per_s'))} | "
          f"{fmt(med('strand', 'consume', p, 'mib_per_s'))} | **{ratio(s, k)}** | "
          f"{len(values('kafka', 'consume', p, 'records_per_s'))}/{len(values('strand', 'consume', p, 'records_per_s'))} |")
    w("")

    w("## Cost of TLS and SASL: throughput over the same broker's PLAINTEXT throughput\n")
    w("1.00 is free; lower is dearer. The target: Strand's no worse (no lower) than Kafka's.\n")
    w("| measurement | Kafka SSL/PLAINTEXT | Strand SSL/PLAINTEXT | Kafka SASL_SSL/PLAINTEXT | "
      "Strand SASL_SSL/PLAINTEXT |")
    w("|---|---|---|---|---|")
    for kind in ["produce", "consume"]:
        cells = []
        for p in ["SSL", "SASL_SSL"]:
            for b in BROKERS:
                cells.append(ratio(med(b, kind, p, "records_per_s"), med(b, kind, "PLAINTEXT", "records_per_s")))
        w(f"| {kind} | {cells[0]} | {cells[1]} | {cells[2]} | {cells[3]} |")
    w("")

    w("## Where the CPU goes: CPU ms per MiB, the brokers' and the client's\n")
    w("Broker CPU ms per MiB moved (its CPU seconds during the client run over the MiB produced or "
      "consumed): the brokers' own cost of each protocol, whatever limits the rate. Client ms/MiB and "
      "cores: the librdkafka client's CPU seconds over the MiB and over its wall time; broker and "
      "client share the cores (unless pinned), and librdkafka encrypts and decrypts each broker "
      "connection on one thread of its own.\n")
    w("| kind | protocol | Kafka broker ms/MiB | Strand broker ms/MiB | Kafka client ms/MiB | "
      "Strand client ms/MiB | Kafka client cores | Strand client cores |")
    w("|---|---|---|---|---|---|---|---|")

    def per(broker, kind, p, num, den, scale):
        pairs = [(float(r[num]), float(r[den])) for r in ok if r["broker"] == broker and r["kind"] == kind
                 and r["protocol"] == p and num in r and den in r and float(r[den]) > 0]
        return median([scale * a / b for a, b in pairs])

    mib = int(machine.get("records", 0)) * 1024 / 2**20 or 1
    for kind in ["produce", "consume"]:
        for p in PROTOCOLS:
            w(f"| {kind} | {p} | {fmt(med('kafka', kind, p, 'broker_cpu_s') and med('kafka', kind, p, 'broker_cpu_s') * 1e3 / mib, 2)} | "
              f"{fmt(med('strand', kind, p, 'broker_cpu_s') and med('strand', kind, p, 'broker_cpu_s') * 1e3 / mib, 2)} | "
              f"{fmt(med('kafka', kind, p, 'client_cpu_s') and med('kafka', kind, p, 'client_cpu_s') * 1e3 / mib, 2)} | "
              f"{fmt(med('strand', kind, p, 'client_cpu_s') and med('strand', kind, p, 'client_cpu_s') * 1e3 / mib, 2)} | "
              f"{fmt(per('kafka', kind, p, 'client_cpu_s', 'client_wall_s', 1), 2)} | "
              f"{fmt(per('strand', kind, p, 'client_cpu_s', 'client_wall_s', 1), 2)} |")
    w("")

    w("What TLS adds per MiB, each broker's own CPU (its SSL or SASL_SSL ms/MiB less its PLAINTEXT "
      "ms/MiB; lower is cheaper), beside the client's on the same broker: the CPU side of the cost "
      "of TLS, which the throughput ratios above mix with whichever side limits the rate.\n")
    w("| kind | protocol | Kafka broker +ms/MiB | Strand broker +ms/MiB | client +ms/MiB with Kafka | "
      "client +ms/MiB with Strand |")
    w("|---|---|---|---|---|---|")
    for kind in ["produce", "consume"]:
        for p in ["SSL", "SASL_SSL"]:
            cells = []
            for key in ["broker_cpu_s", "client_cpu_s"]:
                for b in BROKERS:
                    tls, plain = med(b, kind, p, key), med(b, kind, "PLAINTEXT", key)
                    cells.append(None if tls is None or plain is None else (tls - plain) * 1e3 / mib)
            w(f"| {kind} | {p} | " + " | ".join(fmt(c, 2) for c in cells) + " |")
    w("")

    w("## Connection set-up: new connections per second\n")
    w("Each connection: TCP connect, the TLS handshake (a full one: no session resumption), ApiVersions v0, "
      "for SASL_SSL the SCRAM-SHA-512 exchange (SaslHandshake v1, two SaslAuthenticate v1), close; four "
      "client processes side by side. p50/p99: one connection's set-up time.\n")
    w("| protocol | Kafka conn/s | Strand conn/s | Strand/Kafka | Kafka p50 / p99 ms | Strand p50 / p99 ms | "
      "Kafka broker CPU ms/conn | Strand broker CPU ms/conn | TLS (Kafka / Strand) |")
    w("|---|---|---|---|---|---|---|---|---|")
    def per_conn(broker, p):
        connections = int(machine.get("connections", 0)) or 1
        return median([1e3 * float(r["broker_cpu_s"]) / connections for r in ok if r["broker"] == broker
                       and r["kind"] == "handshakes" and r["protocol"] == p and "broker_cpu_s" in r])

    for p in PROTOCOLS:
        k, s = med("kafka", "handshakes", p, "per_s"), med("strand", "handshakes", p, "per_s")
        tls = [next((r.get("tls", "") for r in ok if r["broker"] == b and r["kind"] == "handshakes"
                     and r["protocol"] == p), "") for b in BROKERS]
        w(f"| {p} | {fmt(k, 0)} | {fmt(s, 0)} | **{ratio(s, k)}** | "
          f"{fmt(med('kafka', 'handshakes', p, 'p50_ms'), 2)} / {fmt(med('kafka', 'handshakes', p, 'p99_ms'), 2)} | "
          f"{fmt(med('strand', 'handshakes', p, 'p50_ms'), 2)} / {fmt(med('strand', 'handshakes', p, 'p99_ms'), 2)} | "
          f"{fmt(per_conn('kafka', p), 3)} | {fmt(per_conn('strand', p), 3)} | {' / '.join(tls)} |")
    w("")

    w("## Every measurement\n")
    w("| run | broker | kind | protocol | rec/s or conn/s | p99 ms | client CPU s | broker CPU s | machine busy % "
      "before | error |")
    w("|---|---|---|---|---|---|---|---|---|---|")
    for r in sorted(rows, key=lambda r: (int(r["run"]), r["broker"], r["kind"], r["protocol"])):
        rate = r.get("records_per_s") or r.get("per_s") or ""
        w(f"| {r['run']} | {r['broker']} | {r['kind']} | {r['protocol']} | {rate} | {r.get('p99_ms', '')} | "
          f"{r.get('client_cpu_s', '')} | {r.get('broker_cpu_s', '')} | {r.get('machine_busy_pct', '')} | "
          f"{r.get('error', '')} |")
    w("")
    w("| run-broker | start to first acknowledged produce ms | peak RSS MiB | error |")
    w("|---|---|---|---|")
    for name, b in brokers.items():
        rss = b.get("peak_rss_kib")
        rss = f"{int(rss) / 1024:.0f}" if rss and rss.isdigit() else ""
        w(f"| {name} | {b.get('first_ack_ms', '')} | {rss} | {b.get('error', '')} |")
    w("")

    w("## The configurations\n")
    for broker in BROKERS:
        props = sorted(run_dir.glob(f"runs/*-{broker}/server.properties"))
        if not props:
            continue
        w(f"{broker}'s `server.properties` (run {props[0].parent.name.split('-')[0]}; ports, paths and "
          "the data directory change every run):\n")
        w("```properties")
        w(props[0].read_text().rstrip())
        w("```\n")
    w("Storage formatted with `--add-scram 'SCRAM-SHA-512=[name=bench,password=<random per run>]'` "
      "(Kafka's default 4096 iterations). Certificates: `compat/security/certs.py`, made with openssl at "
      "the start of the run (RSA 2048 CA and broker key, SAN 127.0.0.1, valid two days), deleted at the end.\n")
    w("Client settings (librdkafka, besides `bootstrap.servers` and `acks=all` for the producer): SSL "
      "`security.protocol=SSL ssl.ca.location=ca.pem`; SASL_SSL the same with `security.protocol=SASL_SSL "
      "sasl.mechanisms=SCRAM-SHA-512 sasl.username=bench sasl.password=...`; librdkafka's defaults otherwise "
      "(`ssl.endpoint.identification.algorithm=https`, the broker's certificate checked).")
    print("\n".join(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
