#!/usr/bin/env bash
# bench/run.sh: Strand side by side with Apache Kafka 4.4.0 on this machine (issue 9; method in
# bench/README.md). Builds Strand (release) and the native client, gets Kafka's jars, measures the
# disk's synced-write rate, then runs every workload against one broker at a time, alternating
# Kafka and Strand, each on a fresh data directory and free loopback ports, and writes the medians
# and Strand/Kafka ratios as markdown, CSV and a PNG chart.
#
# Usage: bench/run.sh [--quick] [--runs N] [--only REGEX] [--records-percent P] [--results DIR]
#                     [--date YYYY-MM-DD]
#   (default)      full mode: every workload, 3 runs each (about 1.5 hours on 2 cores for the
#                  single-node ones, more for the three-node cluster's)
#   --quick        a subset, a tenth of the records, 1 run (a few minutes): for development
#   --runs N       runs per workload and broker (medians are taken over them)
#   --only REGEX   only the workloads whose "durability/workload" id matches (grep -E); the
#                  three-node cluster's are "cluster-pagecache/..." and "cluster-fsync/...",
#                  so --only cluster runs only them, --only '^(pagecache|fsync)/' none of them
#   --records-percent P   P% of the full mode's record counts (default 100, quick mode 10)
#   --results DIR  where the report goes (default: bench/results in full mode, the run's
#                  directory under target/bench-runs/ otherwise)
#   --date DATE    the report's name, DATE.md/.csv/.png (default: today)
# Environment: STRAND_BIN (use this binary, skip the build; STRAND_BENCH_LABEL says in the report
#   what it was built from), JAVA_HOME, TMPDIR (data directories),
#   STRAND_BENCH_QUIET_WAIT_S, STRAND_BENCH_QUIET_BUDGET_S (how long to wait for a quiet machine
#   before each measurement, and in all: default 60 s each and 600 s in all in full mode, none in
#   quick mode).
# Raw output of every run stays in target/bench-runs/<timestamp>/.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/.." && pwd)"
# shellcheck source=bench/lib.sh
source "$here/lib.sh"

quick=0
percent=
runs=
only=
results=
date="$(date +%F)"
while (($#)); do
  case "$1" in
    --quick) quick=1 ;;
    --runs) runs="$2"; shift ;;
    --only) only="$2"; shift ;;
    --records-percent) percent="$2"; shift ;;
    --results) results="$2"; shift ;;
    --date) date="$2"; shift ;;
    -h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) echo "bench: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
  shift
done
runs="${runs:-$((quick ? 1 : 3))}"
percent="${percent:-$((quick ? 10 : 100))}"

# --- record counts ----------------------------------------------------------------------------------
# Sized so that each Kafka run lasts some seconds on a 2-core machine; quick mode takes a tenth.
scale() { echo $(($1 * percent / 100)); }
declare -A records=(
  [produce.1024]="$(scale 400000)" [produce.100]="$(scale 2000000)"
  [produce-fsync.1024]="$(scale 50000)" [produce-fsync.100]="$(scale 200000)"
  [consume.1024]="$(scale 500000)"
  [e2e.1024]="$(scale 5000)" [e2e-fsync.1024]="$(scale 3000)"
  # The cluster: every record is written three times by brokers sharing the same 2 cores.
  [cluster-produce.1024]="$(scale 200000)" [cluster-produce-fsync.1024]="$(scale 30000)"
  [cluster-consume.1024]="$(scale 250000)"
  [cluster-e2e.1024]="$(scale 3000)" [cluster-e2e-fsync.1024]="$(scale 2000)"
)
# linger.ms of the throughput profile (batch.size=262144): long enough for a batch to fill at the
# rates seen here, short enough not to dominate the latency of a partly filled one.
throughput_linger_ms=10
# No client run may take longer than this.
client_limit_s=300
# Before each measurement, wait (up to quiet_wait_s, and up to quiet_budget_s over the whole run)
# while other processes keep more than quiet_busy_pct of the CPU busy; the reading is reported
# with each measurement.
quiet_busy_pct=20
quiet_wait_s="${STRAND_BENCH_QUIET_WAIT_S:-$((quick ? 0 : 60))}"
quiet_budget_s="${STRAND_BENCH_QUIET_BUDGET_S:-600}"

# --- workloads --------------------------------------------------------------------------------------
# One line each: durability kind record_size partitions acks profile records
workloads=()
add() { workloads+=("$*"); }
for durability in pagecache fsync; do
  for size in 1024 100; do
    for partitions in 1 8; do
      for acks in 1 all; do
        [[ $durability == fsync && $acks == 1 ]] && continue # only acks=all waits for the fsync
        for profile in default throughput; do
          if [[ $durability == fsync ]]; then n="${records[produce-fsync.$size]}"; else n="${records[produce.$size]}"; fi
          add "$durability produce $size $partitions $acks $profile $n"
        done
      done
    done
  done
  for acks in 1 all; do
    [[ $durability == fsync && $acks == 1 ]] && continue
    for size in 1024 100; do
      if [[ $durability == fsync ]]; then n="${records[produce-fsync.$size]}"; else n="${records[produce.$size]}"; fi
      add "$durability native-produce $size 8 $acks default $n"
    done
    if [[ $durability == fsync ]]; then n="${records[e2e-fsync.1024]}"; else n="${records[e2e.1024]}"; fi
    add "$durability e2e 1024 1 $acks default $n"
    add "$durability native-e2e 1024 1 $acks default $n"
  done
done
for kind in consume native-consume; do
  for partitions in 1 8; do
    add "pagecache $kind 1024 $partitions 1 default ${records[consume.1024]}"
  done
done
# The cluster: three nodes of each broker, every topic with 3 replicas and min.insync.replicas=2,
# every producer acks=all (the consumers' topics are filled with acks=all too).
for durability in cluster-pagecache cluster-fsync; do
  suffix=
  [[ $durability == cluster-fsync ]] && suffix=-fsync
  for profile in default throughput; do
    add "$durability produce 1024 8 all $profile ${records[cluster-produce$suffix.1024]}"
  done
  add "$durability native-produce 1024 8 all default ${records[cluster-produce$suffix.1024]}"
  if [[ $durability == cluster-pagecache ]]; then
    for kind in consume native-consume; do
      add "$durability $kind 1024 8 all default ${records[cluster-consume.1024]}"
    done
  fi
  for kind in e2e native-e2e; do
    add "$durability $kind 1024 1 all default ${records[cluster-e2e$suffix.1024]}"
  done
done

workload_id() { # KIND SIZE PARTITIONS ACKS PROFILE
  echo "$1-${2}B-${3}p-acks$4-$5"
}

if ((quick)); then
  quick_set=(
    pagecache/produce-1024B-1p-acks1-default pagecache/produce-1024B-8p-acksall-throughput
    pagecache/consume-1024B-8p-acks1-default pagecache/native-consume-1024B-8p-acks1-default
    pagecache/e2e-1024B-1p-acks1-default
    pagecache/native-produce-1024B-8p-acksall-default pagecache/native-e2e-1024B-1p-acks1-default
    fsync/produce-1024B-8p-acksall-default fsync/native-produce-1024B-8p-acksall-default
  )
fi
selected=()
for line in "${workloads[@]}"; do
  read -r durability kind size partitions acks profile n <<< "$line"
  id="$durability/$(workload_id "$kind" "$size" "$partitions" "$acks" "$profile")"
  if ((quick)) && [[ " ${quick_set[*]} " != *" $id "* ]]; then continue; fi
  if [[ -n $only ]] && ! grep -qE -- "$only" <<< "$id"; then continue; fi
  selected+=("$line")
done
((${#selected[@]})) || { echo "bench: no workload selected" >&2; exit 2; }

# --- prerequisites ----------------------------------------------------------------------------------
java="${JAVA_HOME:+$JAVA_HOME/bin/}java"
libs="$repo/target/kafka-libs"
clock_ticks="$(getconf CLK_TCK)"
stamp="$(date +%Y%m%d-%H%M%S)"
out="$repo/target/bench-runs/$stamp"
mkdir -p "$out"
if [[ -z $results ]]; then
  if ((quick)) || [[ -n $only ]]; then results="$out"; else results="$here/results"; fi
fi

build_bench_binaries

# The report's chart needs matplotlib: a virtualenv under target/, made once.
venv="$repo/target/bench-venv"
if [[ ! -x $venv/bin/python ]] || ! "$venv/bin/python" -c 'import matplotlib' 2> /dev/null; then
  log "installing matplotlib into $venv"
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet --disable-pip-version-check -r "$here/requirements.txt" >&2 \
    || log "matplotlib could not be installed: the report will have no chart"
fi

tmp_root="$(mktemp -d "${TMPDIR:-/tmp}/strand-bench.XXXXXX")"
broker_pids=()
cleanup() {
  stop_broker
  rm -rf "$tmp_root"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# --- the machine and the disk -----------------------------------------------------------------------
{
  echo "mode=$( ((quick)) && echo quick || echo full)"
  echo "runs=$runs"
  echo "started=$(date -Is)"
  echo "cpu=$(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo)"
  echo "cores=$(nproc)"
  echo "memory_gib=$(awk '/^MemTotal:/ { printf "%.0f", $2 / 1048576 }' /proc/meminfo)"
  echo "kernel=$(uname -r)"
  echo "filesystem=$(df -T "$tmp_root" | awk 'NR == 2 { print $2 " on " $1 }')"
  echo "java=$("$java" -version 2>&1 | head -n 1)"
  if [[ -n ${STRAND_BIN:-} ]]; then
    echo "strand_commit=${STRAND_BENCH_LABEL:-the binary $STRAND_BIN}"
  else
    echo "strand_commit=$(git -C "$repo" rev-parse --short HEAD 2> /dev/null || echo unknown)$(git -C "$repo" diff --quiet HEAD -- crates 2> /dev/null || echo ' (crates/ modified)')"
  fi
  echo "throughput_linger_ms=$throughput_linger_ms"
} > "$out/machine.kv"
log "measuring the disk's synced writes (dd oflag=dsync)"
wait_quiet "$out/machine.kv"
measure_disk "$out/machine.kv" 1

# --- the workloads ----------------------------------------------------------------------------------
# A failed measurement is recorded (status=fail, error=...) and the run goes on.
set +e
total=$((${#selected[@]} * runs * 2))
log "${#selected[@]} workloads x $runs runs x 2 brokers = $total measurements; raw output in $out"
for line in "${selected[@]}"; do
  read -r durability kind size partitions acks profile n <<< "$line"
  workload="$(workload_id "$kind" "$size" "$partitions" "$acks" "$profile")"
  for ((run = 1; run <= runs; run++)); do
    for broker in kafka strand; do
      measure "$durability" "$workload" "$kind" "$size" "$partitions" "$acks" "$profile" "$n" "$run" "$broker"
    done
  done
done
# The disk once more: its rate drifts (a virtual disk shares its host), so the report takes the
# median over both.
measure_disk "$out/machine.kv" 2
echo "finished=$(date -Is)" >> "$out/machine.kv"

# --- the report -------------------------------------------------------------------------------------
python="$venv/bin/python"
[[ -x $python ]] || python=python3
mkdir -p "$results"
"$python" "$here/tally.py" report "$out" --name "$date" --to "$results"
log "report: $results/$date.md"
