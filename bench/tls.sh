#!/usr/bin/env bash
# bench/tls.sh: Strand side by side with Apache Kafka 4.4.0 over PLAINTEXT, SSL and SASL_SSL
# (SCRAM-SHA-512) listeners of one broker (issue 17; method in bench/README.md, "TLS and SASL").
# Each run starts each broker once (Kafka then Strand, a fresh data directory, one node) with the
# three listeners and, on each listener in turn: librdkafka produce (1 KiB records, 8 partitions,
# acks=all), librdkafka consume of what was produced, then many short connections (TLS handshake,
# ApiVersions, SCRAM for SASL_SSL: bench/handshakes.py). Certificates are made at run time.
#
# Usage: bench/tls.sh [--runs N] [--only REGEX] [--records N] [--connections N] [--pin]
#                     [--results DIR] [--date YYYY-MM-DD]
#   --runs N         runs per broker (default 3); medians over them
#   --only REGEX     only the measurements whose "kind-PROTOCOL" id matches (grep -E), e.g.
#                    'produce|handshakes-SSL'; kinds: produce, consume, handshakes
#   --records N      records per produce and consume (default 400000)
#   --connections N  connections per handshake measurement (default 2000, after 200 unmeasured)
#   --pin            the broker on CPU 0, every client on CPU 1 (taskset), for both brokers: each
#                    side gets a core of its own instead of sharing both (report DATE-tls-pinned.md)
#   --results DIR    where the report goes (default bench/results), as DATE-tls.md
# Environment: STRAND_BIN (skip the build), JAVA_HOME, TMPDIR, STRAND_BENCH_QUIET_WAIT_S and
#   STRAND_BENCH_QUIET_BUDGET_S (wait for a quiet machine: up to 60 s each time, 600 s in all).
# Raw output stays in target/bench-runs/<timestamp>-tls/.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/.." && pwd)"
# shellcheck source=bench/lib.sh
source "$here/lib.sh"

runs=3 only= records=400000 connections=2000 results="$here/results" date="$(date +%F)" pin=0
while (($#)); do
  case "$1" in
    --runs) runs="$2"; shift ;;
    --only) only="$2"; shift ;;
    --records) records="$2"; shift ;;
    --connections) connections="$2"; shift ;;
    --pin) pin=1 ;;
    --results) results="$2"; shift ;;
    --date) date="$2"; shift ;;
    -h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) echo "bench: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
  shift
done
protocols=(PLAINTEXT SSL SASL_SSL)
client_limit_s=300 quiet_busy_pct=20 quiet_wait_s="${STRAND_BENCH_QUIET_WAIT_S:-60}" quiet_budget_s="${STRAND_BENCH_QUIET_BUDGET_S:-600}"
selected() { [[ -z $only ]] || grep -qE -- "$only" <<< "$1"; }
# With --pin: what runs the broker (CPU 0) and every client (CPU 1); nothing without.
broker_cpu=() client_cpu=()
if ((pin)); then broker_cpu=(taskset -c 0) client_cpu=(taskset -c 1); fi

java="${JAVA_HOME:+$JAVA_HOME/bin/}java"
libs="$repo/target/kafka-libs"
clock_ticks="$(getconf CLK_TCK)"
out="$repo/target/bench-runs/$(date +%Y%m%d-%H%M%S)-tls"
mkdir -p "$out"
build_bench_binaries

tmp_root="$(mktemp -d "${TMPDIR:-/tmp}/strand-bench-tls.XXXXXX")"
broker_pids=()
cleanup() {
  stop_broker
  rm -rf "$tmp_root"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# Certificates (a CA and the broker's, RSA 2048, valid two days), as the security compat suite
# makes them; a SCRAM password of this run.
certs="$tmp_root/certs"
python3 -c 'import sys; from pathlib import Path; sys.path.insert(0, sys.argv[1]); import certs; certs.generate(Path(sys.argv[2]))' \
  "$repo/compat/security" "$certs" > /dev/null
scram_password="$(head -c 18 /dev/urandom | base64 | tr '+/' '-_')"
declare -A client_settings=(
  [PLAINTEXT]=""
  [SSL]="security.protocol=SSL ssl.ca.location=$certs/ca.pem"
  [SASL_SSL]="security.protocol=SASL_SSL ssl.ca.location=$certs/ca.pem sasl.mechanisms=SCRAM-SHA-512 sasl.username=bench sasl.password=$scram_password"
)
client_sets() { local s; for s in ${client_settings[$1]}; do printf -- '--set\n%s\n' "$s"; done; }

{
  echo "runs=$runs"
  echo "records=$records"
  echo "connections=$connections"
  echo "started=$(date -Is)"
  echo "pinned=$pin"
  echo "loadavg_start=$(cut -d' ' -f1-3 /proc/loadavg)"
  echo "cpu=$(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo)"
  echo "cores=$(nproc)"
  echo "memory_gib=$(awk '/^MemTotal:/ { printf "%.0f", $2 / 1048576 }' /proc/meminfo)"
  echo "kernel=$(uname -r)"
  echo "java=$("$java" -version 2>&1 | head -n 1)"
  echo "openssl=$(openssl version)"
  echo "python=$(python3 -c 'import ssl, sys; print(sys.version.split()[0], ssl.OPENSSL_VERSION)')"
  echo "strand_commit=$(git -C "$repo" rev-parse --short HEAD 2> /dev/null || echo unknown)"
} > "$out/machine.kv"

# server.properties of one broker: bench/kafka/server.properties, one node, with the three client
# listeners and the security settings (Kafka's names, read by both brokers).
write_properties() { # BROKER DIR PLAINTEXT_PORT SSL_PORT SASL_SSL_PORT CONTROLLER_PORT
  local listeners="PLAINTEXT://127.0.0.1:$3,SSL://127.0.0.1:$4,SASL_SSL://127.0.0.1:$5"
  sed -e "s|@NODE_ID@|1|g" -e "s|@VOTERS@|1@127.0.0.1:$6|g" -e "s|@LOG_DIRS@|$2/data|g" \
    -e "s|@REPLICATION_FACTOR@|1|g" -e "s|@MIN_ISR@|1|g" \
    -e '/^listeners=/d' -e '/^advertised.listeners=/d' -e '/^listener.security.protocol.map=/d' \
    "$here/kafka/server.properties" > "$2/server.properties"
  cat >> "$2/server.properties" << EOF
# bench/tls.sh: three client listeners
listeners=$listeners,CONTROLLER://127.0.0.1:$6
advertised.listeners=$listeners
listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT,SSL:SSL,SASL_SSL:SASL_SSL
ssl.keystore.type=PEM
ssl.keystore.location=$certs/server-keystore.pem
sasl.enabled.mechanisms=SCRAM-SHA-512
listener.name.sasl_ssl.sasl.enabled.mechanisms=SCRAM-SHA-512
listener.name.sasl_ssl.scram-sha-512.sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required;
EOF
  if [[ $1 == strand ]]; then
    # Acknowledge acks=all once in the page cache, as Kafka does by default (the pagecache profile).
    echo "log.flush.on.acks.all=false" >> "$2/server.properties"
  fi
}

# Formats and starts BROKER in DIR; sets broker_pids and addr[PROTOCOL]. Returns non-zero
# (error=... in KV) if it does not start.
declare -A addr
start_tls_broker() { # BROKER DIR KV
  local broker="$1" dir="$2" kv="$3" ports id started format=()
  mapfile -t ports < <(free_ports 4)
  mkdir -p "$dir/data"
  write_properties "$broker" "$dir" "${ports[@]}"
  addr=([PLAINTEXT]="127.0.0.1:${ports[0]}" [SSL]="127.0.0.1:${ports[1]}" [SASL_SSL]="127.0.0.1:${ports[2]}")
  id="$(cluster_id)"
  if [[ $broker == kafka ]]; then format=("${tool_java[@]}" kafka.tools.StorageTool); else format=("$strand_bin" storage); fi
  if ! "${format[@]}" format -t "$id" -c "$dir/server.properties" \
    --add-scram "SCRAM-SHA-512=[name=bench,password=$scram_password]" > "$dir/format.log" 2>&1; then
    echo "error=$broker storage format failed: $(tail_line "$dir/format.log")" >> "$kv"
    return 1
  fi
  if [[ $broker == kafka ]]; then
    kafka_broker_java "$dir"
    command=("${broker_cpu[@]}" "${broker_java[@]}" kafka.Kafka "$dir/server.properties")
  else
    command=("${broker_cpu[@]}" "$strand_bin" server "$dir/server.properties")
  fi
  started="$(date +%s%N)"
  "${command[@]}" < /dev/null > "$dir/broker.stdout" 2> "$dir/broker.stderr" &
  broker_pids=($!)
  if ! "${client_cpu[@]}" "$client_bin" first-ack --bootstrap "${addr[PLAINTEXT]}" --topic bench-startup --since-unix-ns "$started" \
    --timeout-s 120 > "$dir/first-ack.out" 2> "$dir/first-ack.err"; then
    echo "error=$broker did not start: $(tail_line "$dir/first-ack.err" 2) | $(tail_line "$dir/broker.stderr" 3)" >> "$kv"
    stop_broker
    return 1
  fi
  result_fields "$dir/first-ack.out" first_ack_ms >> "$kv"
}

# One measurement: KIND (produce, consume, handshakes) over PROTOCOL; its RESULT fields, the
# client's and the broker's CPU seconds to DIR/KIND-PROTOCOL.kv.
measure_tls() { # BROKER RUN KIND PROTOCOL DIR
  local broker="$1" run="$2" kind="$3" protocol="$4" dir="$5" kv before status=0 cmd=()
  kv="$dir/$kind-$protocol.kv"
  printf 'broker=%s\nrun=%s\nkind=%s\nprotocol=%s\n' "$broker" "$run" "$kind" "$protocol" > "$kv"
  mapfile -t sets < <(client_sets "$protocol")
  case "$kind" in
    produce) cmd=("${client_cpu[@]}" "$client_bin" produce --bootstrap "${addr[$protocol]}" --topic "bench-$protocol" \
      --records "$records" --record-size 1024 --acks all "${sets[@]}") ;;
    consume) cmd=("${client_cpu[@]}" "$client_bin" consume --bootstrap "${addr[$protocol]}" --topic "bench-$protocol" \
      --records "$records" --partitions 8 "${sets[@]}") ;;
    handshakes)
      "${client_cpu[@]}" python3 "$here/handshakes.py" --bootstrap "${addr[$protocol]}" --protocol "$protocol" --ca "$certs/ca.pem" \
        --password "$scram_password" --connections 200 > "$dir/$kind-$protocol.warmup" 2>&1 || true
      cmd=("${client_cpu[@]}" python3 "$here/handshakes.py" --bootstrap "${addr[$protocol]}" --protocol "$protocol"
        --ca "$certs/ca.pem" --password "$scram_password" --connections "$connections") ;;
  esac
  log "  run $run $broker: $kind over $protocol"
  wait_quiet "$kv"
  before="$(cpu_seconds_of "${broker_pids[0]}")"
  timed "$kv" "$dir/$kind-$protocol.out" "$dir/$kind-$protocol.err" "$client_limit_s" "${cmd[@]}" || status=$?
  echo "broker_cpu_s=$(awk -v a="$before" -v b="$(cpu_seconds_of "${broker_pids[0]}")" 'BEGIN { printf "%.2f", b - a }')" >> "$kv"
  if ((status)); then
    echo "error=$kind over $protocol exited with $status: $(tail_line "$dir/$kind-$protocol.err" 3)" >> "$kv"
    return 1
  fi
  result_fields "$dir/$kind-$protocol.out" records_per_s mib_per_s p50_ms p99_ms p999_ms per_s tls \
    client_user_s client_sys_s >> "$kv"
}

set +e
for ((run = 1; run <= runs; run++)); do
  # The protocols' order turns with each run, so that no one of them always meets a cold JVM.
  order=("${protocols[@]:$(((run - 1) % 3))}" "${protocols[@]:0:$(((run - 1) % 3))}")
  for broker in kafka strand; do
    dir="$out/runs/$run-$broker"
    mkdir -p "$dir"
    log "run $run: $broker (order ${order[*]})"
    if ! start_tls_broker "$broker" "$dir" "$dir/broker.kv"; then
      log "  $(grep '^error=' "$dir/broker.kv")"
      continue
    fi
    for protocol in "${order[@]}"; do
      selected "produce-$protocol" || selected "consume-$protocol" || continue
      "${tool_java[@]}" org.apache.kafka.tools.TopicCommand --bootstrap-server "${addr[PLAINTEXT]}" --create \
        --topic "bench-$protocol" --partitions 8 --replication-factor 1 > "$dir/create-$protocol.out" 2>&1
      # Unmeasured warm-up: a tenth of the records over this listener, to a topic of its own.
      mapfile -t sets < <(client_sets "$protocol")
      "${client_cpu[@]}" "$client_bin" produce --bootstrap "${addr[$protocol]}" --topic "warmup-$protocol" --records $((records / 10)) \
        --record-size 1024 --acks all "${sets[@]}" > "$dir/warmup-$protocol.out" 2>&1
    done
    for kind in produce consume handshakes; do
      for protocol in "${order[@]}"; do
        # A consume reads what the produce wrote: it needs that produce.
        selected "$kind-$protocol" || { [[ $kind == produce ]] && selected "consume-$protocol"; } || continue
        measure_tls "$broker" "$run" "$kind" "$protocol" "$dir" || log "  $(grep '^error=' "$dir/$kind-$protocol.kv")"
      done
    done
    echo "peak_rss_kib=$(peak_rss_kib_of "${broker_pids[0]}")" >> "$dir/broker.kv"
    stop_broker
    rm -rf "$dir/data"
  done
done
printf 'finished=%s\nloadavg_finish=%s\n' "$(date -Is)" "$(cut -d' ' -f1-3 /proc/loadavg)" >> "$out/machine.kv"
set -e

mkdir -p "$results"
report="$results/$date-tls.md"
if ((pin)); then report="$results/$date-tls-pinned.md"; fi
python3 "$here/tls_report.py" "$out" > "$report"
log "report: $report (raw output in $out)"
