#!/usr/bin/env bash
# bench/cleaner.sh: the log cleaner's throughput (MiB/s of log rewritten by one pass) and produce
# throughput into a compacted partition with the cleaner off, on, and holding the partition's lock
# for its whole pass (the reference), for issue 8. Strand alone, no Kafka; method in the doc of
# crates/replication/benches/cleaner.rs. Writes bench/results/<date>-cleaner.md.
#
# Usage: bench/cleaner.sh [--results DIR] [--date YYYY-MM-DD] [BENCH OPTIONS...]
#   --results DIR  where the report goes (default: bench/results)
#   --date DATE    the report's name, DATE-cleaner.md (default: today)
#   BENCH OPTIONS  passed to the benchmark: --runs N (produce runs of each mode, default 5),
#                  --clean-runs N (3), --clean-mib N (256), --prefill-mib N (256),
#                  --produce-mib N (1024), --segment-mib N (32), --keys N (100000),
#                  --value-bytes N (1024), --batch-records N (16), --dir DIR (data directories),
#                  --quiet-wait-s N (before each measurement, wait up to N s, default 60, while
#                  other processes keep more than 20% of the CPU busy)
# Environment: CARGO_TARGET_DIR (default target/bench, as bench/run.sh builds).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/.." && pwd)"
results="$here/results"
date="$(date +%F)"
options=()
while (($#)); do
  case "$1" in
    --results) results="$2"; shift ;;
    --date) date="$2"; shift ;;
    -h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) options+=("$1") ;;
  esac
  shift
done
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$repo/target/bench}"
command="bench/cleaner.sh${options[*]:+ ${options[*]}}"

cd "$repo"
figures="$(mktemp)"
trap 'rm -f "$figures"' EXIT
started="$(date -Is)"
load_before="$(cut -d' ' -f1-3 /proc/loadavg)"
cargo bench -p strand-replication --bench cleaner -- "${options[@]}" > "$figures"
load_after="$(cut -d' ' -f1-3 /proc/loadavg)"

mkdir -p "$results"
report="$results/$date-cleaner.md"
{
  echo "# The log cleaner: its throughput, and produce beside it: $date"
  echo
  echo "\`$command\` (method: the doc of \`crates/replication/benches/cleaner.rs\`). Started $started, finished $(date -Is)."
  echo
  echo "Machine: $(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo), $(nproc) cores," \
    "$(awk '/^MemTotal:/ { printf "%.0f", $2 / 1048576 }' /proc/meminfo) GiB, Linux $(uname -r)," \
    "$(df -T "${TMPDIR:-/tmp}" | awk 'NR == 2 { print $2 " on " $1 }'); Strand at" \
    "$(git rev-parse --short HEAD)$(git diff --quiet HEAD -- crates 2> /dev/null || echo ' (crates/ modified)')." \
    "Load average (1, 5, 15 min) before: $load_before; after: $load_after."
  echo
  cat "$figures"
} > "$report"
echo "wrote $report"
