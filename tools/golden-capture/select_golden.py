#!/usr/bin/env python3
"""Turns raw proxy recordings into the golden frame set.

Input: RAW/<client>/{index.jsonl,frames/} as written by proxy.py, one
directory per client run.  Output: OUT/<client>/NNN-<key>-<Name>-v<ver>.{request,response}.bin
plus OUT/manifest.json.

Selection, per client and per (api_key, api_version):
  * only complete request/response pairs (acks=0 produces have no response);
  * pairs where either frame is larger than --max-frame bytes are skipped;
  * at most --per-version pairs, the earliest ones, except that for Produce
    (request side) and Fetch (response side) pairs that carry records come
    first, and the second pick prefers a different record-batch shape
    (compression codec / transactional / control) than the first.
NNN numbers the kept pairs of one client in capture order.

Every kept frame is decoded with the schema-driven decoder in kafka_schema.py
(schemas taken from the kafka-clients jar given by --schemas-jar) and must be
consumed exactly; a frame that does not decode fails the run.  The client
directories given are replaced only after everything has been selected and
checked.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
from collections import OrderedDict
from dataclasses import dataclass, field

from kafka_schema import DecodeError, Schemas, decode_frame

PRODUCE, FETCH = 0, 1
CLIENT_ORDER = ["java", "java-tools", "librdkafka", "sarama", "franz-go", "kafkajs"]


@dataclass
class Pair:
    seq: int
    conn: int
    api_key: int
    api_version: int
    correlation_id: int
    client_id: str | None
    request: bytes
    response: bytes
    request_batches: list = field(default_factory=list)
    response_batches: list = field(default_factory=list)
    notes: list = field(default_factory=list)

    def record_batches(self) -> list:
        return self.request_batches if self.api_key == PRODUCE else self.response_batches

    def carries_records(self) -> bool:
        return any(b.records > 0 and not b.truncated for b in self.record_batches())

    def batch_shape(self) -> frozenset:
        return frozenset(
            (b.compression, b.transactional, b.control) for b in self.record_batches() if not b.truncated
        )


def load_pairs(raw_dir: str) -> tuple[list[Pair], dict]:
    requests: dict[int, dict] = {}
    responded: set[int] = set()
    stats = {"requests": 0, "responses": 0, "unanswered": 0, "orphan_responses": 0, "connections": 0}
    with open(os.path.join(raw_dir, "index.jsonl")) as f:
        for line in f:
            e = json.loads(line)
            ev = e["event"]
            if ev == "request":
                requests[e["seq"]] = e
                stats["requests"] += 1
            elif ev == "response":
                responded.add(e["seq"])
                stats["responses"] += 1
            elif ev == "unanswered":
                stats["unanswered"] += 1
            elif ev == "orphan-response":
                stats["orphan_responses"] += 1
            elif ev == "open":
                stats["connections"] += 1
    frames = os.path.join(raw_dir, "frames")
    pairs = []
    for seq in sorted(responded):
        e = requests[seq]
        with open(os.path.join(frames, f"{seq:06d}.request.bin"), "rb") as fh:
            req = fh.read()
        with open(os.path.join(frames, f"{seq:06d}.response.bin"), "rb") as fh:
            resp = fh.read()
        pairs.append(
            Pair(seq, e["conn"], e["api_key"], e["api_version"], e["correlation_id"], e.get("client_id"), req, resp)
        )
    return pairs, stats


def choose(group: list[Pair], api_key: int, limit: int) -> list[Pair]:
    if api_key not in (PRODUCE, FETCH):
        return group[:limit]
    chosen: list[Pair] = []
    with_records = [p for p in group if p.carries_records()]
    if with_records:
        chosen.append(with_records[0])
        rest = with_records[1:]
        different = [p for p in rest if p.batch_shape() != with_records[0].batch_shape()]
        for p in different + rest:
            if len(chosen) >= limit:
                break
            if p not in chosen:
                chosen.append(p)
    for p in group:
        if len(chosen) >= limit:
            break
        if p not in chosen:
            chosen.append(p)
    return sorted(chosen, key=lambda p: p.seq)


def select_client(schemas: Schemas, client: str, raw_dir: str, args) -> tuple[list[Pair], dict]:
    pairs, stats = load_pairs(raw_dir)
    too_big = [p for p in pairs if len(p.request) > args.max_frame or len(p.response) > args.max_frame]
    stats["pairs"] = len(pairs)
    stats["skipped_too_big"] = len(too_big)
    candidates = [p for p in pairs if p not in too_big]
    # Decode Produce/Fetch candidates up front: selection looks at their batches.
    for p in candidates:
        if p.api_key in (PRODUCE, FETCH):
            try:
                p.request_batches = decode_frame(schemas, "request", p.api_key, p.api_version, p.request).batches
                p.response_batches = decode_frame(schemas, "response", p.api_key, p.api_version, p.response).batches
            except DecodeError:
                pass  # reported below if the pair gets selected
    groups: "OrderedDict[tuple[int, int], list[Pair]]" = OrderedDict()
    for p in candidates:
        groups.setdefault((p.api_key, p.api_version), []).append(p)
    selected = sorted((p for (k, _), g in groups.items() for p in choose(g, k, args.per_version)), key=lambda p: p.seq)
    failures = []
    for p in selected:
        for kind, payload in (("request", p.request), ("response", p.response)):
            try:
                d = decode_frame(schemas, kind, p.api_key, p.api_version, payload)
            except DecodeError as e:
                failures.append(f"{client} seq {p.seq} {schemas.api_name(p.api_key)} v{p.api_version} {kind}: {e}")
                continue
            if d.note:
                p.notes.append(d.note)
            if kind == "request":
                p.request_batches = d.batches
            else:
                p.response_batches = d.batches
    stats["decode_failures"] = failures
    return selected, stats


def stem(schemas: Schemas, index: int, p: Pair) -> str:
    return f"{index:03d}-{p.api_key}-{schemas.api_name(p.api_key)}-v{p.api_version}"


def write_manifest(path: str, kafka_version: str, client_versions: dict, frames: list) -> None:
    """JSON with one frame entry per line: compact and diff-friendly."""
    with open(path, "w") as fh:
        fh.write("{\n")
        fh.write(f' "kafka_version": {json.dumps(kafka_version)},\n')
        fh.write(f' "client_versions": {json.dumps(client_versions, sort_keys=True)},\n')
        fh.write(' "frames": [\n')
        fh.write(",\n".join("  " + json.dumps(e, sort_keys=True) for e in frames))
        fh.write("\n ]\n}\n")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--raw", required=True, help="directory holding one raw recording per client")
    ap.add_argument("--out", required=True, help="golden directory")
    ap.add_argument("--schemas-jar", required=True, help="kafka-clients jar with common/message/*.json")
    ap.add_argument("--clients", required=True, help="comma-separated client names (raw sub-directories)")
    ap.add_argument("--per-version", type=int, default=2)
    ap.add_argument("--max-frame", type=int, default=64 * 1024)
    ap.add_argument("--max-total", type=int, default=3 * 1024 * 1024)
    ap.add_argument("--kafka-version", default="")
    ap.add_argument("--client-versions", default="{}", help="JSON object client -> version string")
    args = ap.parse_args()

    schemas = Schemas(args.schemas_jar)
    clients = [c for c in args.clients.split(",") if c]
    client_versions = json.loads(args.client_versions)
    os.makedirs(args.out, exist_ok=True)
    staging = tempfile.mkdtemp(prefix=".staging-", dir=args.out)
    manifest = []
    failures = []
    summary = {}
    try:
        for client in clients:
            raw_dir = os.path.join(args.raw, client)
            selected, stats = select_client(schemas, client, raw_dir, args)
            failures += stats.pop("decode_failures")
            summary[client] = stats
            cdir = os.path.join(staging, client)
            os.makedirs(cdir)
            for i, p in enumerate(selected):
                s = stem(schemas, i, p)
                with open(os.path.join(cdir, s + ".request.bin"), "wb") as fh:
                    fh.write(p.request)
                with open(os.path.join(cdir, s + ".response.bin"), "wb") as fh:
                    fh.write(p.response)
                entry = {
                    "client": client,
                    "stem": s,
                    "api_key": p.api_key,
                    "api_name": schemas.api_name(p.api_key),
                    "api_version": p.api_version,
                    "request_header_version": schemas.request_header_version(p.api_key, p.api_version),
                    "response_header_version": schemas.response_header_version(p.api_key, p.api_version),
                    "correlation_id": p.correlation_id,
                    "client_id": p.client_id,
                    "request_size": len(p.request),
                    "response_size": len(p.response),
                }
                if p.request_batches:
                    entry["request_record_batches"] = [b.label() for b in p.request_batches]
                if p.response_batches:
                    entry["response_record_batches"] = [b.label() for b in p.response_batches]
                if p.notes:
                    entry["notes"] = sorted(set(p.notes))
                manifest.append(entry)
        if failures:
            print("frames that do not decode against the Kafka schemas:", file=sys.stderr)
            for f in failures:
                print("  " + f, file=sys.stderr)
            return 1
        # Merge with the existing manifest: clients not re-captured keep their entries.
        merged_frames, merged_versions = [], {}
        old_path = os.path.join(args.out, "manifest.json")
        if os.path.exists(old_path):
            with open(old_path) as fh:
                old = json.load(fh)
            merged_frames = [e for e in old.get("frames", []) if e["client"] not in clients]
            merged_versions = {k: v for k, v in old.get("client_versions", {}).items() if k not in clients}
        merged_versions.update(client_versions)
        order = {c: i for i, c in enumerate(CLIENT_ORDER)}
        merged_frames = sorted(
            merged_frames + manifest, key=lambda e: (order.get(e["client"], len(order)), e["client"], e["stem"])
        )
        total = sum(e["request_size"] + e["response_size"] for e in merged_frames)
        if total > args.max_total:
            print(f"golden set would hold {total} bytes of frames, over the {args.max_total} limit", file=sys.stderr)
            return 1
        write_manifest(os.path.join(staging, "manifest.json"), args.kafka_version, merged_versions, merged_frames)
        # Replace the client directories and the manifest; keep anything else (README.md).
        for client in clients:
            dest = os.path.join(args.out, client)
            if os.path.exists(dest):
                shutil.rmtree(dest)
            os.rename(os.path.join(staging, client), dest)
        os.replace(os.path.join(staging, "manifest.json"), os.path.join(args.out, "manifest.json"))
    finally:
        shutil.rmtree(staging, ignore_errors=True)

    # Human-readable summary.
    print(f"{'client':<11} {'api':<31} versions (pairs)")
    by_client: dict[str, "OrderedDict[str, list]"] = {}
    for e in manifest:
        apis = by_client.setdefault(e["client"], OrderedDict())
        apis.setdefault((e["api_key"], e["api_name"]), []).append(e["api_version"])
    for client in clients:
        for (key, name), versions in sorted(by_client.get(client, {}).items()):
            counts = OrderedDict()
            for v in versions:
                counts[v] = counts.get(v, 0) + 1
            vs = ", ".join(f"v{v} ({n})" for v, n in sorted(counts.items()))
            print(f"{client:<11} {key:>2} {name:<28} {vs}")
    for client in clients:
        st = summary[client]
        print(
            f"{client}: {st['connections']} connections, {st['requests']} requests, {st['pairs']} pairs, "
            f"{st['unanswered']} unanswered, {st['orphan_responses']} orphan responses, "
            f"{st['skipped_too_big']} pairs over the frame limit"
        )
    total = sum(e["request_size"] + e["response_size"] for e in manifest)
    print(f"kept {len(manifest)} pairs, {total} bytes of frames")
    return 0


if __name__ == "__main__":
    sys.exit(main())
