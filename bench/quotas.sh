#!/usr/bin/env bash
# bench/quotas.sh: client quota fairness (issue 18): one tenant producing as fast as it can with
# a `producer_byte_rate` quota beside a second tenant producing at a steady rate, on one node
# (Strand, and Apache Kafka 4.4.0 side by side). Reports the throttled tenant's rate against its
# quota and the other tenant's p99 latency beside it against running alone.
#
# Usage: bench/quotas.sh [--brokers "strand kafka"] [--quota-mib N] [--seconds S] [--results DIR]
#   --brokers LIST   which brokers, in order (default: strand kafka)
#   --quota-mib N    the throttled tenant's producer_byte_rate in MiB/s (default 10)
#   --seconds S      how long the other tenant runs, alone and beside the throttled one; the
#                    throttled one's rate is measured over that stretch (default 60)
#   --results DIR    where quotas-<date>.md goes (default bench/results)
# Environment: STRAND_BIN (skip the build), JAVA_HOME, TMPDIR.
#
# Per broker, on a fresh node (bench/lib.sh's start_broker, the pagecache profile):
#  1. the quota is set with Kafka's kafka-configs (ConfigCommand) for client id `throttled`;
#  2. alone: the other tenant (client id `steady`, Kafka's ProducerPerformance, 1 KiB records at
#     2000 records/s, acks=all) runs S seconds; its p99 is the baseline;
#  3. together: the throttled tenant (ProducerPerformance, 1 KiB records, --throughput -1) starts;
#     15 s later (its first quota window's burst spent: Kafka lets a fresh client send up to a
#     whole window's quota at once) the other tenant runs S seconds again. The throttled rate is
#     the mean of ProducerPerformance's 5-second reports over those S seconds.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/.." && pwd)"
# shellcheck source=bench/lib.sh
source "$here/lib.sh"

brokers="strand kafka" quota_mib=10 seconds=60 results="$here/results"
while (($#)); do
  case "$1" in
    --brokers) brokers="$2"; shift ;;
    --quota-mib) quota_mib="$2"; shift ;;
    --seconds) seconds="$2"; shift ;;
    --results) results="$2"; shift ;;
    -h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) echo "bench: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
  shift
done
warm_up_s=15 steady_rate=2000 record_size=1024
quota_bytes=$((quota_mib * 1024 * 1024))

java="${JAVA_HOME:+$JAVA_HOME/bin/}java"
libs="$repo/target/kafka-libs"
clock_ticks="$(getconf CLK_TCK)"
out="$repo/target/bench-runs/$(date +%Y%m%d-%H%M%S)-quotas"
mkdir -p "$out"
build_bench_binaries

tmp_root="$(mktemp -d "${TMPDIR:-/tmp}/strand-bench-quotas.XXXXXX")"
broker_pids=()
cleanup() {
  stop_broker
  rm -rf "$tmp_root"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# ProducerPerformance as one tenant: client id, topic, records, throughput (-1: as fast as it can).
perf() { # CLIENT_ID TOPIC RECORDS THROUGHPUT
  "${tool_java[@]}" org.apache.kafka.tools.ProducerPerformance --topic "$2" --num-records "$3" \
    --record-size "$record_size" --throughput "$4" \
    --command-property "bootstrap.servers=$bootstrap" "client.id=$1" acks=all
}

# The p99 of a ProducerPerformance run's summary line ("..., 12 ms 99th, ...").
p99_of() { grep -oE '[0-9.]+ ms 99th' "$1" | tail -n 1 | cut -d' ' -f1; }

# The mean rate (MiB/s) of the 5-second reports of FILE whose end falls in (FROM_S, TO_S] after
# the run's start (the first report ends at 5 s).
rate_between() { # FILE FROM_S TO_S
  awk -v from="$2" -v to="$3" '/records\/sec \(/ && !/99th/ {
      n++; t = n * 5
      if (t > from && t <= to) { r = $0; sub(/.*\(/, "", r); sub(/ MB\/sec.*/, "", r); sum += r; k++ }
    } END { if (k) printf "%.2f", sum / k; else print "NA" }' "$1"
}

report="$results/quotas-$(date +%F).md"
{
  echo "# Client quota fairness, $(date +%F)"
  echo
  echo "bench/quotas.sh: one node, the pagecache profile. Throttled tenant: ProducerPerformance, 1 KiB"
  echo "records, as fast as it can, \`producer_byte_rate\`=${quota_mib} MiB/s (${quota_bytes} B/s) for its client id;"
  echo "its rate is the mean of its 5-second reports over the ${seconds} s the other tenant runs, after a"
  echo "${warm_up_s} s warm-up. Other tenant: ProducerPerformance, 1 KiB records at ${steady_rate} records/s,"
  echo "acks=all, no quota, ${seconds} s alone then ${seconds} s beside the throttled one."
  echo "Machine: $(nproc) cores, $(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo);"
  echo "Strand $(git -C "$repo" rev-parse --short HEAD 2> /dev/null || echo unknown)."
  echo
  echo "| broker | throttled MiB/s | of quota | other p99 alone ms | other p99 beside ms | ratio |"
  echo "|---|---|---|---|---|---|"
} > "$out/report.md"

steady_records=$((steady_rate * seconds))
throttled_records=$(((seconds + warm_up_s + 30) * quota_bytes / record_size))
for broker in $brokers; do
  dir="$tmp_root/$broker" kv="$out/$broker.kv"
  mkdir -p "$dir"
  log "$broker: starting"
  start_broker "$broker" pagecache "$dir" "$kv" 1 || { cat "$kv" >&2; exit 1; }
  create_topic throttled 1 "$dir" "$kv"
  create_topic steady 1 "$dir" "$kv"
  "${tool_java[@]}" org.apache.kafka.tools.ConfigCommand --bootstrap-server "$bootstrap" \
    --entity-type clients --entity-name throttled --alter --add-config "producer_byte_rate=$quota_bytes" \
    > "$out/$broker-configs.out" 2>&1
  log "$broker: the other tenant alone, ${seconds} s"
  perf steady steady "$steady_records" "$steady_rate" > "$out/$broker-alone.out" 2>&1
  log "$broker: the throttled tenant, then the other beside it after ${warm_up_s} s"
  perf throttled throttled "$throttled_records" -1 > "$out/$broker-throttled.out" 2>&1 &
  throttled_pid=$!
  sleep "$warm_up_s"
  perf steady steady "$steady_records" "$steady_rate" > "$out/$broker-beside.out" 2>&1
  wait "$throttled_pid" || true
  stop_broker
  rate="$(rate_between "$out/$broker-throttled.out" "$warm_up_s" $((warm_up_s + seconds)))"
  alone="$(p99_of "$out/$broker-alone.out")" beside="$(p99_of "$out/$broker-beside.out")"
  awk -v b="$broker" -v r="$rate" -v q="$quota_mib" -v a="$alone" -v s="$beside" 'BEGIN {
      # ProducerPerformance reports MB/sec as MiB/s (bytes / 1024 / 1024).
      printf "| %s | %s | %.1f%% | %s | %s | %.2f |\n", b, r, 100 * r / q, a, s, (a > 0 ? s / a : 0)
    }' >> "$out/report.md"
  log "$broker: throttled $rate MiB/s (quota $quota_mib), other tenant p99 $alone ms alone, $beside ms beside"
done
mkdir -p "$results"
cp "$out/report.md" "$report"
cat "$report"
