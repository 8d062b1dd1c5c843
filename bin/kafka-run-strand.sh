#!/bin/sh
# What every bin/kafka-*.sh shim runs (as Kafka's kafka-run-class.sh): `strand ARGS...`, taking
# $STRAND_BIN if set, else this repository's target/release/strand if built, else a strand
# installed beside these scripts, else the strand on PATH.
here=$(dirname "$0")
for candidate in "${STRAND_BIN:-}" "$here/../target/release/strand" "$here/strand"; do
  if [ -n "$candidate" ] && [ -x "$candidate" ]; then exec "$candidate" "$@"; fi
done
if command -v strand > /dev/null 2>&1; then exec strand "$@"; fi
echo "strand not found: run 'cargo build --release' in $here/.., or put strand on PATH" >&2
exit 127
