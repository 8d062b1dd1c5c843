#!/usr/bin/env bash
# Regenerates crates/protocol/src/messages from Apache Kafka's JSON message schemas.
#
# The schemas ship as resources inside the Kafka jars on Maven Central; this fetches the jars of
# one released Kafka with Maven, extracts the JSON into .codegen/ (ignored by git), runs the
# generator and formats its output. The generated Rust is committed; the JSON never is.
set -euo pipefail
KAFKA_VERSION="${KAFKA_VERSION:-4.4.0}"
root="$(cd "$(dirname "$0")/.." && pwd)"
work="$root/.codegen"
jars="$work/jars"
schemas="$work/schemas"
rm -rf "$schemas"
mkdir -p "$jars" "$schemas"

# artifact -> schema component (a directory name the generator knows)
declare -A components=(
  [kafka-clients]=clients
  [kafka-metadata]=metadata
  [kafka-raft]=raft
  [kafka-group-coordinator]=group-coordinator
  [kafka-transaction-coordinator]=transaction-coordinator
  [kafka-share-coordinator]=share-coordinator
)
for artifact in "${!components[@]}"; do
  jar="$jars/$artifact-$KAFKA_VERSION.jar"
  if [ ! -f "$jar" ]; then
    mvn -q dependency:copy -Dartifact="org.apache.kafka:$artifact:$KAFKA_VERSION" -DoutputDirectory="$jars"
  fi
  dest="$schemas/${components[$artifact]}"
  mkdir -p "$dest"
  unzip -q -j -o "$jar" 'common/message/*.json' 'common/metadata/*.json' -d "$dest" 2>/dev/null || true
  count=$(find "$dest" -name '*.json' | wc -l)
  [ "$count" -gt 0 ] || { echo "no schemas found in $jar" >&2; exit 1; }
done

out="$root/crates/protocol/src/messages"
cargo run -q -p xtask -- codegen --schemas "$schemas" --out "$out"
rustfmt --edition 2024 --config-path "$root/rustfmt.toml" "$out"/*.rs
echo "schemas of Kafka $KAFKA_VERSION: $(find "$schemas" -name '*.json' | wc -l) files"
