#!/usr/bin/env python3
"""bench/tally.py: the Python half of bench/run.sh.

  tally.py parse producer|consumer|e2e|native FILE
      Reads one client's output (Kafka's ProducerPerformance, ConsumerPerformance,
      EndToEndLatency, or bench-client's RESULT line) and prints its figures as key=value lines.
  tally.py report RUN_DIR --name NAME --to DIR [--note TEXT]...
      Reads every RUN_DIR/runs/<durability>/<workload>/<run>-<broker>/result.kv and
      RUN_DIR/machine.kv, and writes DIR/NAME.md (medians per workload and broker, Strand/Kafka
      ratios, start-up, the disk's synced-write rate, failures; the three-node cluster workloads,
      durability "cluster-...", in a section of their own), DIR/NAME.csv (every measurement) and
      DIR/NAME.png (the ratios as a chart; needs matplotlib).

Standard library only, except for the chart.
"""

import argparse
import csv
import re
import statistics
import sys
from pathlib import Path

# --- parsing the clients' output ------------------------------------------------------------------


def parse_producer(text):
    """ProducerPerformance: the steady-state summary (after --warmup-records) if printed, else the
    total one; batch-size-avg and records-per-request-avg from --print-metrics."""
    summary = re.compile(
        r"^(\d+)( steady state)? records sent, ([\d.]+) records/sec \(([\d.]+) MB/sec\), "
        r"([\d.]+) ms avg latency, ([\d.]+) ms max latency, (\d+) ms 50th, (\d+) ms 95th, "
        r"(\d+) ms 99th, (\d+) ms 99.9th",
        re.M,
    )
    found = summary.findall(text)
    if not found:
        raise ValueError("no ProducerPerformance summary line")
    steady = [f for f in found if f[1]]
    line = (steady or found)[-1]
    out = {
        "measured_records": line[0],
        "records_per_s": line[2],
        "mib_per_s": line[3],
        "avg_ms": line[4],
        "max_ms": line[5],
        "p50_ms": line[6],
        "p99_ms": line[8],
        "p999_ms": line[9],
    }
    for metric, key in (("batch-size-avg", "batch_bytes_avg"), ("records-per-request-avg", "records_per_request")):
        m = re.search(r"^producer-metrics:" + metric + r":\{[^}]*\}\s*:\s*([\d.eE+-]+)", text, re.M)
        if m:
            out[key] = m.group(1)
    return out


def parse_consumer(text):
    """ConsumerPerformance's CSV line; the fetch rates exclude the group join."""
    lines = [line for line in text.splitlines() if line.strip()]
    for i, line in enumerate(lines):
        if line.startswith("start.time"):
            header = [h.strip() for h in line.split(",")]
            values = [v.strip() for v in lines[i + 1].split(",")]
            row = dict(zip(header, values))
            return {
                "measured_records": row["data.consumed.in.nMsg"],
                "records_per_s": row["fetch.nMsg.sec"],
                "mib_per_s": row["fetch.MB.sec"],
                "rebalance_ms": row["rebalance.time.ms"],
                "fetch_ms": row["fetch.time.ms"],
            }
    raise ValueError("no ConsumerPerformance header line")


def parse_e2e(text):
    """EndToEndLatency: the average (fractional ms) and its whole-millisecond percentiles."""
    avg = re.search(r"^Avg latency: ([\d.]+) ms", text, re.M)
    pct = re.search(r"^Percentiles: 50th = (\d+), 99th = (\d+), 99.9th = (\d+)", text, re.M)
    if not avg or not pct:
        raise ValueError("no EndToEndLatency summary")
    return {"avg_ms": avg.group(1), "p50_ms": pct.group(1), "p99_ms": pct.group(2), "p999_ms": pct.group(3)}


def parse_native(text):
    """bench-client's `RESULT k=v ...` line; its getrusage CPU time is the client's."""
    lines = [line for line in text.splitlines() if line.startswith("RESULT ")]
    if not lines:
        raise ValueError("no RESULT line")
    fields = dict(pair.split("=", 1) for pair in lines[-1].split()[1:])
    keep = ["avg_ms", "p50_ms", "p99_ms", "p999_ms", "max_ms"]
    if "mib_per_s" in fields:
        # A produce run; an e2e run's records/s is only 1 / its average latency.
        keep += ["records_per_s", "mib_per_s"]
    out = {k: v for k, v in fields.items() if k in keep}
    if "first_record_ms" in fields:
        # A consume run: its rate is timed from the first record (consumer-perf's fetch rate).
        out["fetch_ms"] = "%.1f" % (float(fields["seconds"]) * 1e3)
    out["measured_records"] = fields["records"]
    out["client_cpu_s"] = "%.2f" % (float(fields["client_user_s"]) + float(fields["client_sys_s"]))
    return out


PARSERS = {"producer": parse_producer, "consumer": parse_consumer, "e2e": parse_e2e, "native": parse_native}

# --- the report -------------------------------------------------------------------------------------

# Numeric figures, in the CSV's column order after the identifying ones.
NUMERIC = [
    "records_per_s", "mib_per_s", "avg_ms", "p50_ms", "p99_ms", "p999_ms", "max_ms",
    "broker_cpu_s", "broker_peak_rss_kib", "client_cpu_s", "client_wall_s",
    "first_ack_ms", "port_open_ms", "batch_bytes_avg", "records_per_request", "rebalance_ms", "fetch_ms",
    "measured_records", "machine_busy_pct",
]
IDENT = ["durability", "nodes", "workload", "kind", "record_size", "partitions", "acks", "profile", "records", "run", "broker", "status"]


def is_cluster(durability):
    """A three-node workload: its durability is "cluster-pagecache" or "cluster-fsync"."""
    return durability.startswith("cluster-")


def read_kv(path):
    out = {}
    for line in Path(path).read_text(errors="replace").splitlines():
        if "=" in line:
            key, value = line.split("=", 1)
            # Several lines with one key (a later parse overriding the shell's figure): the last wins.
            out[key] = value.strip()
    return out


def number(value):
    try:
        return float(value)
    except (TypeError, ValueError):
        return None


def median_of(rows, key):
    values = [number(r.get(key)) for r in rows]
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else None


def fmt(value, digits=None):
    if value is None:
        return "–"
    if digits is None:
        digits = 0 if abs(value) >= 100 else 1 if abs(value) >= 10 else 2 if abs(value) >= 1 else 3
    return f"{value:,.{digits}f}"


def ratio(strand, kafka):
    if strand is None or kafka is None or kafka == 0:
        return None
    return strand / kafka


def fmt_ratio(value):
    return "–" if value is None else f"{value:.2f}x"


KIND_LABEL = {
    "produce": "producer-perf",
    "consume": "consumer-perf",
    "e2e": "EndToEndLatency",
    "native-produce": "librdkafka produce",
    "native-e2e": "librdkafka e2e",
    "native-consume": "librdkafka consume",
}


def label(row):
    size = "1 KiB" if row["record_size"] == "1024" else row["record_size"] + " B"
    parts = f"{row['partitions']}p"
    text = f"{KIND_LABEL.get(row['kind'], row['kind'])}, {size}, {parts}"
    if "consume" not in row["kind"]:
        text += f", acks={row['acks']}"
    if row["kind"] == "produce":
        text += ", " + row["profile"]
    return text


def dd_rates(machine):
    """The dd figures: per block size, the median MB/s and syncs/s over the attempts."""
    sizes = {}
    for key, value in machine.items():
        m = re.fullmatch(r"dd_(\w+?)_([\d.]+)", key)
        if not m or "/" not in value:
            continue
        nbytes, seconds = (number(v) for v in value.split("/"))
        if nbytes and seconds:
            sizes.setdefault(m.group(1), []).append((nbytes, seconds))
    out = []
    for size, samples in sizes.items():
        block = int(size[:-1]) * (1024 if size.endswith("K") else 1024 * 1024)
        mbps = statistics.median(b / s / 1e6 for b, s in samples)
        out.append((block, size, mbps, mbps * 1e6 / block))
    return sorted(out)


def report(run_dir, name, to, notes=()):
    run_dir = Path(run_dir)
    machine = read_kv(run_dir / "machine.kv") if (run_dir / "machine.kv").exists() else {}
    rows = [read_kv(p) for p in sorted(run_dir.glob("runs/*/*/*/result.kv"))]
    if not rows:
        sys.exit(f"tally: no result.kv under {run_dir}/runs")
    to = Path(to)
    to.mkdir(parents=True, exist_ok=True)

    with open(to / f"{name}.csv", "w", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(IDENT + NUMERIC + ["error"])
        for r in rows:
            writer.writerow([r.get(k, "") for k in IDENT + NUMERIC] + [r.get("error", "")])

    # Workloads in the order they ran, each with its Kafka and Strand medians.
    order, groups = [], {}
    kinds = ["produce", "native-produce", "consume", "native-consume", "e2e", "native-e2e"]

    def place(r):
        kind = kinds.index(r["kind"]) if r["kind"] in kinds else len(kinds)
        return (is_cluster(r["durability"]), r["durability"].removeprefix("cluster-") != "pagecache", kind, -int(r["record_size"]), int(r["partitions"]),
                r["acks"] != "1", r["profile"] != "default", r["run"], r["broker"])

    for r in sorted(rows, key=place):
        key = (r["durability"], r["workload"])
        if key not in groups:
            order.append(key)
            groups[key] = {"kafka": [], "strand": [], "row": r}
        groups[key][r["broker"]].append(r)

    def med(key, broker, metric):
        ok = [r for r in groups[key][broker] if r.get("status") == "ok"]
        return median_of(ok, metric)

    md = []
    md.append(f"# Strand and Apache Kafka 4.4.0 side by side: {name}\n")
    mode = machine.get("mode", "?")
    md.append(
        f"`bench/run.sh`{'' if mode == 'full' else ' --quick'} ({mode} mode, {machine.get('runs', '?')} run(s) per workload "
        f"and broker, alternating Kafka and Strand, each on a fresh data directory; medians). Started "
        f"{machine.get('started', '?')}, finished {machine.get('finished', '?')}. Method: `bench/README.md`.\n"
    )
    md.append(
        f"Machine: {machine.get('cpu', '?')}, {machine.get('cores', '?')} cores, {machine.get('memory_gib', '?')} GiB, "
        f"Linux {machine.get('kernel', '?')}, {machine.get('filesystem', '?')}; {machine.get('java', '?')}; "
        f"Strand at {machine.get('strand_commit', '?')}. Broker and clients share the cores.\n"
    )
    md.append(
        "Durability: **pagecache** = acknowledged once in the page cache (Kafka's default; Strand with "
        "`log.flush.on.acks.all=false`); **fsync** = `fdatasync` before acknowledging acks=all (Kafka with "
        "`log.flush.interval.messages=1`; Strand's default, `log.flush.on.acks.all=true`). "
        f"Producer profiles: **default** = Kafka 4.4's client defaults (batch.size=16384, linger.ms=5); "
        f"**throughput** = batch.size=262144, linger.ms={machine.get('throughput_linger_ms', '?')}.\n"
    )

    for note in notes:
        md.append(note + "\n")

    # --- headline against the issue's targets
    def ratios_of(pred, metric):
        out = []
        for key in order:
            r = groups[key]["row"]
            if pred(key, r):
                value = ratio(med(key, "strand", metric), med(key, "kafka", metric))
                if value is not None:
                    out.append(value)
        return out

    def summary(values):
        if not values:
            return "–"
        return f"median {fmt_ratio(statistics.median(values))} (range {fmt_ratio(min(values))} to {fmt_ratio(max(values))}, {len(values)} workloads)"

    def is_(durability, *kinds):
        return lambda key, r: key[0] == durability and r["kind"] in kinds

    def start_ratio(cluster):
        starts = {b: [number(r.get("first_ack_ms")) for r in rows
                      if r["broker"] == b and number(r.get("first_ack_ms")) and is_cluster(r["durability"]) == cluster]
                  for b in ("kafka", "strand")}
        return ratio(
            statistics.median(starts["strand"]) if starts["strand"] else None,
            statistics.median(starts["kafka"]) if starts["kafka"] else None,
        )

    single_node = [key for key in order if not is_cluster(key[0])]
    cluster = [key for key in order if is_cluster(key[0])]
    md.append("## Against the issue's targets (Strand/Kafka)\n")
    md.append("| measure | target | measured |")
    md.append("|---|---|---|")
    md.append(f"| producer records/s, pagecache (producer-perf and librdkafka) | >= 1.5x | {summary(ratios_of(is_('pagecache', 'produce', 'native-produce'), 'records_per_s'))} |")
    md.append(f"| consumer records/s (consumer-perf's fetch rate, and librdkafka) | >= 1.5x | {summary(ratios_of(is_('pagecache', 'consume', 'native-consume'), 'records_per_s'))} |")
    md.append(f"| end-to-end p99 latency, pagecache (librdkafka e2e, µs resolution) | <= 0.5x | {summary(ratios_of(is_('pagecache', 'native-e2e'), 'p99_ms'))} |")
    md.append(f"| end-to-end p99 latency, pagecache (EndToEndLatency, whole ms) | <= 0.5x | {summary(ratios_of(is_('pagecache', 'e2e'), 'p99_ms'))} |")
    md.append(f"| broker peak RSS, every single-node workload | <= 0.1x | {summary(ratios_of(lambda k, r: not is_cluster(k[0]), 'broker_peak_rss_kib'))} |")
    md.append(f"| start-up: process start to first acknowledged produce, every single-node start | <= 0.05x | {fmt_ratio(start_ratio(False))} |")
    md.append(f"| producer records/s, fsync, acks=all | >= 2x | {summary(ratios_of(is_('fsync', 'produce', 'native-produce'), 'records_per_s'))} |")
    target_key = ("fsync", "produce-1024B-8p-acksall-default")
    dd = dd_rates(machine)
    if target_key in groups:
        strand_mib = med(target_key, "strand", "mib_per_s")
        batch = med(target_key, "strand", "batch_bytes_avg")
        text = "–"
        if strand_mib is not None and batch and dd:
            block, size, mbps, _ = min(dd, key=lambda d: abs(d[0] - batch))
            share = strand_mib * 1048576 / 1e6 / mbps
            text = (f"{share:.0%} (Strand {fmt(strand_mib * 1.048576)} MB/s with {fmt(batch / 1024)} KiB batches; "
                    f"dd oflag=dsync bs={size}: {fmt(mbps)} MB/s)")
        ratio_text = fmt_ratio(ratio(med(target_key, "strand", "records_per_s"), med(target_key, "kafka", "records_per_s")))
        md.append(f"| fsync, 1 KiB, 8 partitions, acks=all (producer-perf default): Strand/Kafka | >= 2x | {ratio_text} |")
        md.append(f"| the same: Strand's MB/s over the disk's dsync rate at its batch size | >= 80% | {text} |")
    if cluster:
        md.append(f"| cluster (3 nodes, RF 3, min.insync.replicas=2, acks=all): producer records/s, pagecache (producer-perf and librdkafka) | >= 1.5x | {summary(ratios_of(is_('cluster-pagecache', 'produce', 'native-produce'), 'records_per_s'))} |")
        md.append(f"| cluster: consumer records/s (consumer-perf's fetch rate, and librdkafka) | >= 1.5x | {summary(ratios_of(is_('cluster-pagecache', 'consume', 'native-consume'), 'records_per_s'))} |")
        md.append(f"| cluster: end-to-end p99 latency, pagecache, acks=all (librdkafka e2e) | <= 0.5x | {summary(ratios_of(is_('cluster-pagecache', 'native-e2e'), 'p99_ms'))} |")
        md.append(f"| cluster: producer records/s, fsync, acks=all | >= 2x | {summary(ratios_of(is_('cluster-fsync', 'produce', 'native-produce'), 'records_per_s'))} |")
        md.append(f"| cluster: peak RSS, the sum over the three nodes, every cluster workload | <= 0.1x | {summary(ratios_of(lambda k, r: is_cluster(k[0]), 'broker_peak_rss_kib'))} |")
        md.append(f"| cluster: start-up, the three processes' start to the first acknowledged acks=all produce (auto-created RF-3 topic), every start | <= 0.05x | {fmt_ratio(start_ratio(True))} |")
    md.append("")

    def throughput_table(keys):
        md.append("| durability | workload | records | records/s Kafka | records/s Strand | ratio | MiB/s Kafka | MiB/s Strand | avg ms Kafka | avg ms Strand | p50 ms K / S | p99 ms Kafka | p99 ms Strand | ratio | p99.9 ms K / S |")
        md.append("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
        for key in keys:
            r = groups[key]["row"]
            k = {m: med(key, "kafka", m) for m in NUMERIC}
            s = {m: med(key, "strand", m) for m in NUMERIC}
            md.append(
                f"| {key[0].removeprefix('cluster-')} | {label(r)} | {int(r['records']):,} | {fmt(k['records_per_s'])} | {fmt(s['records_per_s'])} | "
                f"{fmt_ratio(ratio(s['records_per_s'], k['records_per_s']))} | {fmt(k['mib_per_s'])} | {fmt(s['mib_per_s'])} | "
                f"{fmt(k['avg_ms'])} | {fmt(s['avg_ms'])} | {fmt(k['p50_ms'])} / {fmt(s['p50_ms'])} | "
                f"{fmt(k['p99_ms'])} | {fmt(s['p99_ms'])} | {fmt_ratio(ratio(s['p99_ms'], k['p99_ms']))} | "
                f"{fmt(k['p999_ms'])} / {fmt(s['p999_ms'])} |"
            )
        md.append("")

    def resources_table(keys, what):
        md.append(f"| durability | workload | broker CPU s{what} Kafka | broker CPU s{what} Strand | ratio | peak RSS MiB{what} Kafka | peak RSS MiB{what} Strand | ratio | client CPU s K / S | client cores K / S | avg batch KiB K / S | ok runs K, S |")
        md.append("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
        for key in keys:
            r = groups[key]["row"]
            k = {m: med(key, "kafka", m) for m in NUMERIC}
            s = {m: med(key, "strand", m) for m in NUMERIC}

            def cores(x):
                return None if x["client_cpu_s"] is None or not x["client_wall_s"] else x["client_cpu_s"] / x["client_wall_s"]

            def mib(x):
                return None if x is None else x / 1024

            def kib(x):
                return None if x is None else x / 1024

            ok_k = sum(1 for x in groups[key]["kafka"] if x.get("status") == "ok")
            ok_s = sum(1 for x in groups[key]["strand"] if x.get("status") == "ok")
            md.append(
                f"| {key[0].removeprefix('cluster-')} | {label(r)} | {fmt(k['broker_cpu_s'])} | {fmt(s['broker_cpu_s'])} | "
                f"{fmt_ratio(ratio(s['broker_cpu_s'], k['broker_cpu_s']))} | {fmt(mib(k['broker_peak_rss_kib']))} | "
                f"{fmt(mib(s['broker_peak_rss_kib']))} | {fmt_ratio(ratio(s['broker_peak_rss_kib'], k['broker_peak_rss_kib']))} | "
                f"{fmt(k['client_cpu_s'])} / {fmt(s['client_cpu_s'])} | {fmt(cores(k))} / {fmt(cores(s))} | "
                f"{fmt(kib(k['batch_bytes_avg']))} / {fmt(kib(s['batch_bytes_avg']))} | "
                f"{ok_k}/{len(groups[key]['kafka'])}, {ok_s}/{len(groups[key]['strand'])} |"
            )
        md.append("")

    def startup_table(durabilities):
        md.append("| durability | Kafka median (min to max, starts) | Strand median (min to max, starts) | ratio | port accepting, median K / S |")
        md.append("|---|---:|---:|---:|---:|")
        for durability in durabilities:
            cells, medians = [], []
            for broker in ("kafka", "strand"):
                values = [number(r.get("first_ack_ms")) for r in rows if r["broker"] == broker and r["durability"] == durability]
                values = [v for v in values if v is not None]
                if values:
                    medians.append(statistics.median(values))
                    cells.append(f"{fmt(statistics.median(values))} ({fmt(min(values))} to {fmt(max(values))}, {len(values)})")
                else:
                    medians.append(None)
                    cells.append("–")
            ports = [median_of([r for r in rows if r["broker"] == b and r["durability"] == durability], "port_open_ms") for b in ("kafka", "strand")]
            if any(c != "–" for c in cells):
                md.append(f"| {durability.removeprefix('cluster-')} | {cells[0]} | {cells[1]} | {fmt_ratio(ratio(medians[1], medians[0]))} | "
                          f"{fmt(ports[0])} / {fmt(ports[1])} |")
        md.append("")

    if single_node:
        md.append("## Throughput and latency (medians; ratio = Strand/Kafka)\n")
        md.append("Producer latencies are the tools' send-to-acknowledgement times (producer-perf reports whole "
                  "milliseconds for percentiles, over its steady-state records after a 10% warm-up); end-to-end "
                  "latencies are send to consume of one record at a time. MiB = 2^20 bytes.\n")
        throughput_table(single_node)

        md.append("## Resources (medians; ratio = Strand/Kafka)\n")
        md.append("Broker CPU: user+system seconds of the broker process during the measured client run. Peak RSS: "
                  "the broker's VmHWM at the end of the run (start-up included). Client CPU: the client process's "
                  "user+system seconds (JVM tools: the shell's `time`; librdkafka: its own `getrusage`); client "
                  "cores = client CPU / client wall time, near 1 or more means the run is client-bound on these 2 cores.\n")
        resources_table(single_node, "")

        md.append("## Start-up: process start to the first acknowledged produce\n")
        md.append("Measured at every broker start by `bench-client first-ack` (acks=all, to a topic the produce "
                  "auto-creates); Kafka's one-off `kafka-storage format` is not counted. Milliseconds.\n")
        startup_table(("pagecache", "fsync"))

    if cluster:
        md.append("## Cluster: three nodes of each, replication factor 3, min.insync.replicas=2, acks=all\n")
        md.append("Three Kafka nodes and three Strand nodes on this machine, each node broker and controller (KRaft "
                  "combined mode), one broker's three at a time; every topic has 3 replicas (`--replication-factor 3`, "
                  "`default.replication.factor=3`) and the brokers' `min.insync.replicas=2`; every producer sends "
                  "acks=all, and the consumers' topics are filled with acks=all. The clients bootstrap from all three "
                  "nodes; each measurement starts once every partition has a leader and all three replicas in its ISR. "
                  "Durability as above, on every node (with fsync, followers sync what they fetched as well: Kafka "
                  "flushes every append, Strand syncs before its next fetch). Medians; ratio = Strand/Kafka.\n")
        throughput_table(cluster)
        md.append("Resources of the cluster: broker CPU is the sum of the three nodes' CPU seconds during the "
                  "measured client run; peak RSS is the sum of the three nodes' peaks (VmHWM, start-up included), "
                  "which need not have been at the same moment.\n")
        resources_table(cluster, " (3 nodes)")
        md.append("Start-up of the cluster: from starting the three processes (together) to the first acknowledged "
                  "acks=all produce to a topic that produce auto-creates with 3 replicas (`default.replication.factor=3`; "
                  "min.insync.replicas=2, so two nodes must have it); port accepting: the last node's. Kafka's "
                  "`kafka-storage format` of the three nodes is not counted. Milliseconds.\n")
        startup_table(("cluster-pagecache", "cluster-fsync"))

    # --- the disk
    if dd:
        md.append("## The disk's synced-write rate (`dd if=/dev/zero oflag=dsync`, median of all attempts: 3 per block size before the workloads and 3 after)\n")
        md.append("| block size | MB/s | syncs/s |")
        md.append("|---:|---:|---:|")
        for block, size, mbps, syncs in dd:
            md.append(f"| {size} | {fmt(mbps)} | {fmt(syncs)} |")
        md.append("")

    # --- a busy machine
    busy = [r for r in rows if (number(r.get("machine_busy_pct")) or 0) > 20]
    if busy:
        md.append("## Measurements started on a busy machine\n")
        md.append("Other processes kept more than 20% of the CPU busy just before these started (the harness "
                  "waited as long as it was allowed to); their figures are less reliable.\n")
        if len(busy) <= 10:
            for r in busy:
                md.append(f"- {r['durability']} / {label(r)}, run {r['run']}, {r['broker']}: {r['machine_busy_pct']}% busy")
        else:
            for broker in ("kafka", "strand"):
                mine = [r for r in rows if r["broker"] == broker]
                hit = [number(r["machine_busy_pct"]) for r in busy if r["broker"] == broker]
                if hit:
                    md.append(f"- {broker}: {len(hit)} of {len(mine)} measurements (busy {fmt(min(hit), 0)}% to "
                              f"{fmt(max(hit), 0)}%, median {fmt(statistics.median(hit), 0)}%)")
            md.append("\nThe CSV has the reading of every measurement (`machine_busy_pct`).")
        md.append("")

    # --- failures
    failures = [r for r in rows if r.get("status") != "ok"]
    md.append("## Failures\n")
    if not failures:
        md.append("None: every measurement completed.\n")
    else:
        for r in failures:
            md.append(f"- {r['durability']} / {label(r)}, run {r['run']}, {r['broker']}: `{r.get('error', 'no error text')}`")
        md.append("")

    chart = to / f"{name}.png"
    if draw_chart(order, groups, med, chart):
        md.insert(4, f"![Strand/Kafka ratios]({chart.name})\n")
    (to / f"{name}.md").write_text("\n".join(md) + "\n")


def draw_chart(order, groups, med, path):
    """Four panels of Strand/Kafka ratios per workload, log scale, 1.0 marked."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        import matplotlib.ticker
    except ImportError:
        print("tally: matplotlib is not installed; no chart", file=sys.stderr)
        return False
    panels = [
        ("records/s (higher is better)", "records_per_s"),
        ("p99 latency (lower is better)", "p99_ms"),
        ("broker CPU seconds (lower is better)", "broker_cpu_s"),
        ("broker peak RSS (lower is better)", "broker_peak_rss_kib"),
    ]
    labels = [f"{key[0]}: {label(groups[key]['row'])}" for key in order]
    fig, axes = plt.subplots(1, len(panels), figsize=(22, 0.32 * len(order) + 2), sharey=True)
    for ax, (title, metric) in zip(axes, panels):
        values = [ratio(med(key, "strand", metric), med(key, "kafka", metric)) for key in order]
        # A ratio of 0 (Strand's CPU seconds rounded to 0.00 on a tiny run) has no place on a log scale.
        values = [v if v is not None and v > 0 else None for v in values]
        ys = list(range(len(order)))
        known = [v for v in values if v is not None]
        # Bars grow from 1.0 (equal) towards the ratio, on a log scale.
        ax.barh(ys, [(v - 1) if v is not None else 0 for v in values], left=1.0,
                color=["tab:green" if v is not None and ((v >= 1) == (metric == "records_per_s")) else "tab:red" for v in values])
        ax.axvline(1.0, color="black", linewidth=0.8)
        ax.set_xscale("log")
        low = min([0.1] + [v / 1.5 for v in known])
        high = max([10.0] + [v * 1.5 for v in known])
        ax.set_xlim(low, high)
        ax.xaxis.set_major_formatter(matplotlib.ticker.FuncFormatter(lambda x, _: f"{x:g}x"))
        ax.set_title(title, fontsize=10)
        ax.set_xlabel("Strand / Kafka (log scale)")
        ax.grid(axis="x", which="major", linewidth=0.3)
        for y, v in zip(ys, values):
            if v is not None:
                ax.text(v, y, f" {v:.2f} " if v >= 1 else f" {v:.2f} ", va="center", fontsize=7,
                        ha="left" if v >= 1 else "right")
    axes[0].set_yticks(range(len(order)))
    axes[0].set_yticklabels(labels, fontsize=8)
    axes[0].invert_yaxis()
    fig.suptitle("Strand relative to Apache Kafka 4.4.0 (medians, same machine, same clients)")
    fig.tight_layout()
    fig.savefig(path, dpi=80)
    return True


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("parse")
    p.add_argument("tool", choices=sorted(PARSERS))
    p.add_argument("file")
    r = sub.add_parser("report")
    r.add_argument("run_dir")
    r.add_argument("--name", required=True)
    r.add_argument("--to", required=True)
    r.add_argument("--note", action="append", default=[], help="a paragraph to add under the header")
    args = parser.parse_args()
    if args.command == "parse":
        try:
            figures = PARSERS[args.tool](Path(args.file).read_text(errors="replace"))
        except (ValueError, KeyError, IndexError) as e:
            print(f"error=could not read the {args.tool} output: {e}")
            return 1
        for key, value in figures.items():
            print(f"{key}={value}")
        return 0
    report(args.run_dir, args.name, args.to, args.note)
    return 0


if __name__ == "__main__":
    sys.exit(main())
