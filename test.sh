#!/usr/bin/env bash
# Runs every test Strand has: formatting and lints, then unit, boundary, property, cross-check,
# golden-frame and fuzz-corpus tests. Installs nothing beyond what cargo fetches itself (the
# compatibility suites, which need client libraries, arrive with the broker).
set -euo pipefail
cd "$(dirname "$0")"
cargo fmt --all --check
cargo clippy --workspace --all-targets -- -D warnings
cargo test --workspace
