#!/usr/bin/env python3
"""REST produce throughput: records per second through Strand's REST gateway (Confluent v3).

Usage: bench/rest_produce.py HTTP_URL [RECORDS] [VALUE_BYTES] [PARTITIONS]
       (defaults: 100000 records of 1024 bytes, 1 partition)

Against a running node with http.listeners on (for example `strand server --override
http.listeners=http://127.0.0.1:8080`), it creates a topic `rest-bench-<pid>`, then sends every
record as STRING values in one chunked POST .../records (the streaming mode: concatenated JSON
records, 100 per chunk) and reads the delivery reports, one per record. It prints the records
reported with error_code 200, the time from the first byte sent to the last report read, and
records/s and MB/s of values. Python's standard library only. A report holds about 200 bytes:
past about 150,000 records the gateway waits for the client to read (this client reads once the
body is sent), so send more in several runs.
"""

import http.client
import json
import os
import sys
import time
from urllib.parse import urlparse


def call(conn, method, path, body=None):
    conn.request(method, path, body=json.dumps(body) if body is not None else None,
                 headers={"Content-Type": "application/json"})
    response = conn.getresponse()
    return response.status, json.loads(response.read() or b"null")


def main() -> None:
    url = urlparse(sys.argv[1])
    records = int(sys.argv[2]) if len(sys.argv) > 2 else 100_000
    size = int(sys.argv[3]) if len(sys.argv) > 3 else 1024
    partitions = int(sys.argv[4]) if len(sys.argv) > 4 else 1
    conn = http.client.HTTPConnection(url.hostname, url.port or 80, timeout=300)
    status, clusters = call(conn, "GET", "/v3/clusters")
    assert status == 200, clusters
    base = f"/v3/clusters/{clusters['data'][0]['cluster_id']}"
    topic = f"rest-bench-{os.getpid()}"
    status, created = call(conn, "POST", f"{base}/topics", {"topic_name": topic, "partitions_count": partitions})
    assert status == 201, created
    line = json.dumps({"value": {"type": "STRING", "data": "x" * size}}).encode()

    def chunks():
        for start in range(0, records, 100):
            yield line * min(100, records - start)

    started = time.monotonic()
    conn.request("POST", f"{base}/topics/{topic}/records", body=chunks(), encode_chunked=True,
                 headers={"Content-Type": "application/json", "Transfer-Encoding": "chunked"})
    answer = conn.getresponse().read()
    elapsed = time.monotonic() - started
    ok = answer.count(b'"error_code":200')
    print(f"{ok}/{records} records of {size} B to {partitions} partition(s) in {elapsed:.2f} s: "
          f"{ok / elapsed:,.0f} records/s, {ok * size / elapsed / 1e6:.1f} MB/s")


if __name__ == "__main__":
    main()
