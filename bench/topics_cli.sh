#!/usr/bin/env bash
# bench/topics_cli.sh: how long `strand topics --list` and `--describe` take on a cluster of 1,000
# topics (issue 21's target: under 100 ms each), beside Kafka 4.4's own kafka-topics (TopicCommand
# on a JVM, as bin/kafka-topics.sh of a Kafka install runs it) against the same broker.
#
# Usage: bench/topics_cli.sh [TOPICS] [RUNS]      (defaults: 1000 topics, 5 runs of each command)
#   STRAND_BIN   the strand binary (default target/release/strand; build it with
#                cargo build --release -p strand-cli)
#
# Starts one Strand node (one partition per topic) on a free port with a temporary data dir,
# creates the topics with `strand topics --create`, checks that both tools print the same bytes,
# then times each tool RUNS times (wall clock, process start to exit) and prints the medians. It
# writes nothing under bench/results: paste the printed table into a report.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/.." && pwd)"
topics="${1:-1000}"
runs="${2:-5}"
strand="${STRAND_BIN:-$repo/target/release/strand}"
libs="$repo/target/kafka-libs"
[[ -x $strand ]] || { echo "no $strand: cargo build --release -p strand-cli" >&2; exit 1; }
[[ -d $libs ]] || "$repo/compat/kafka/fetch-jars.sh"

port="$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
data="$(mktemp -d)"
"$strand" server --override "log.dirs=$data" --override "listeners=PLAINTEXT://127.0.0.1:$port" \
  --override "advertised.listeners=PLAINTEXT://127.0.0.1:$port" --override "http.listeners=" 2> "$data.log" &
server=$!
trap 'kill "$server" 2> /dev/null; wait "$server" 2> /dev/null; rm -rf "$data" "$data.log"' EXIT
bootstrap="127.0.0.1:$port"
until "$strand" topics --bootstrap-server "$bootstrap" --list > /dev/null 2>&1; do sleep 0.1; done

echo "creating $topics topics" >&2
for ((i = 0; i < topics; i++)); do
  "$strand" topics --bootstrap-server "$bootstrap" --create --topic "topic-$i" --partitions 1 > /dev/null
done

kafka_topics() {
  java -XX:TieredStopAtLevel=1 -XX:+UseSerialGC -Dlog4j2.configurationFile="$repo/compat/kafka/log4j2.properties" \
    -cp "$libs/*" org.apache.kafka.tools.TopicCommand --bootstrap-server "$bootstrap" "$@"
}
strand_topics() { "$strand" topics --bootstrap-server "$bootstrap" "$@"; }

# The median wall time of RUNS runs of a command, in milliseconds.
median_ms() {
  local times=() start end
  for ((r = 0; r < runs; r++)); do
    start="$(date +%s%N)"
    "$@" > /dev/null 2>&1
    end="$(date +%s%N)"
    times+=("$(((end - start) / 1000000))")
  done
  printf '%s\n' "${times[@]}" | sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'
}

for action in --list --describe; do
  if ! cmp -s <(strand_topics "$action") <(kafka_topics "$action" 2> /dev/null); then
    echo "strand topics $action and Kafka's tool print different bytes" >&2
    exit 1
  fi
done

echo "| command ($topics topics, median of $runs) | strand topics | Kafka 4.4 kafka-topics |"
echo "|---|---|---|"
for action in --list --describe; do
  echo "| \`$action\` | $(median_ms strand_topics "$action") ms | $(median_ms kafka_topics "$action") ms |"
done
