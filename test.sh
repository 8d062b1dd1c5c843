#!/usr/bin/env bash
# Runs every test Strand has: formatting and lints, then unit, boundary, property, cross-check,
# golden-frame, fuzz-corpus and Kafka-tool compatibility tests. Installs nothing beyond what cargo
# fetches itself and Apache Kafka's jars from Maven Central (the compatibility suites that need
# client libraries arrive with the broker).
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
