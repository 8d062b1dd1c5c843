#!/usr/bin/env bash
# Runs every test Strand has: formatting and lints; unit, boundary, property, cross-check,
# golden-frame, fuzz-corpus, Kafka-tool and end-to-end tests (cargo); then the compatibility
# suites with real clients (compat/run.sh: Java kafka-clients, sarama, franz-go, confluent-kafka,
# kafka-python, kafkajs, Kafka's own CLI tools), installing their libraries from Maven Central,
# the Go module proxy, PyPI and npm.
set -euo pipefail
cd "$(dirname "$0")"
cargo fmt --all --check
cargo clippy --workspace --all-targets -- -D warnings
# Apache Kafka's jars (Maven Central), for the tests that run Kafka's own tools on Strand's files.
compat/kafka/fetch-jars.sh
mkdir -p target
cargo test --workspace 2>&1 | tee target/test-output.log
# One closing line over every test binary (cargo's own last line is the doc-tests' count).
awk '/^test result:/ { passed += $4; failed += $6 } END { printf "%d passed, %d failed\n", passed, failed }' \
  target/test-output.log
# Real Kafka clients against a real strand, one suite at a time.
compat/run.sh
