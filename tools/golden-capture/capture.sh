#!/usr/bin/env bash
# Captures golden Kafka wire frames from real clients talking to a real Apache
# Kafka broker, end to end:
#
#   1. fetches/builds everything (Kafka broker + tools jars from Maven Central,
#      the Java client, a Python venv with confluent-kafka, the Go clients,
#      kafkajs) into tools/golden-capture/.work and the clients' own
#      git-ignored build directories;
#   2. formats and starts a single-node KRaft broker (combined mode) on free
#      loopback ports, advertising the recording proxy as its PLAINTEXT
#      listener so that every client connection goes through the proxy;
#   3. for each client: starts proxy.py, runs the client, stops the proxy;
#   4. stops the broker and turns the recordings into
#      crates/protocol/tests/data/golden/<client>/ with select_golden.py.
#
# Everything it started is stopped on exit, including on failure or Ctrl-C.
# This is a developer tool, not part of CI. Needs: java 17+, mvn, go, python3,
# node + npm, and access to Maven Central, PyPI, the Go module proxy and npm.
#
# Usage: tools/golden-capture/capture.sh [CLIENT...]
#   CLIENT: java java-tools librdkafka sarama franz-go kafkajs (default: all).
#   Only the named clients' golden directories are replaced; a client that
#   fails leaves its previous golden directory untouched (exit status 1).
# Environment:
#   KEEP_RUN_DIR=1   keep the temporary run directory (broker log, raw
#                    recordings, client logs) even on success.
#   CLIENT_TIMEOUT   seconds one client may run (default 240).
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
GOLDEN=$REPO/crates/protocol/tests/data/golden
WORK=$HERE/.work
LIBS=$WORK/kafka-libs
BIN=$WORK/bin
VENV=$WORK/venv
ALL_CLIENTS=(java java-tools librdkafka sarama franz-go kafkajs)
CLIENT_TIMEOUT=${CLIENT_TIMEOUT:-240}
KAFKA_VERSION=$(sed -n 's:.*<kafka.version>\(.*\)</kafka.version>.*:\1:p' "$HERE/pom.xml")

log() { printf '[capture] %s\n' "$*" >&2; }
die() {
  log "error: $*"
  exit 1
}

# ---------------------------------------------------------------- arguments
if [ $# -eq 0 ]; then
  CLIENTS=("${ALL_CLIENTS[@]}")
else
  CLIENTS=()
  for c in "$@"; do
    case " ${ALL_CLIENTS[*]} " in
      *" $c "*) CLIENTS+=("$c") ;;
      *) die "unknown client '$c' (known: ${ALL_CLIENTS[*]})" ;;
    esac
  done
fi
wants() { case " ${CLIENTS[*]} " in *" $1 "*) return 0 ;; *) return 1 ;; esac }

for tool in java mvn python3 timeout; do
  command -v "$tool" >/dev/null || die "$tool not found"
done
if wants sarama || wants franz-go; then command -v go >/dev/null || die "go not found"; fi
if wants kafkajs; then command -v npm >/dev/null || die "npm not found"; fi

# ------------------------------------------------------- process bookkeeping
RUN=$(mktemp -d "${TMPDIR:-/tmp}/golden-capture.XXXXXX")
BROKER_PID=""
PROXY_PID=""
CLIENT_PID=""
SUCCESS=0

# stop_pid PID NAME GRACE_SECONDS: SIGTERM, wait for exit, SIGKILL after grace.
stop_pid() {
  local pid=$1 name=$2 grace=$3 i
  [ -n "$pid" ] || return 0
  if kill -0 "$pid" 2>/dev/null; then
    kill -TERM "$pid" 2>/dev/null || true
    for ((i = 0; i < grace * 10; i++)); do
      kill -0 "$pid" 2>/dev/null || break
      sleep 0.1
    done
    if kill -0 "$pid" 2>/dev/null; then
      log "$name (pid $pid) did not stop in ${grace}s, killing it"
      kill -KILL "$pid" 2>/dev/null || true
    fi
  fi
  wait "$pid" 2>/dev/null || true
}

cleanup() {
  local rc=$?
  trap - EXIT INT TERM
  # CLIENT_PID is a `timeout` process leading its own process group: TERM
  # reaches the client and anything it started.
  stop_pid "$CLIENT_PID" client 10
  stop_pid "$PROXY_PID" proxy 10
  stop_pid "$BROKER_PID" broker 30
  if [ "$SUCCESS" = 1 ] && [ -z "${KEEP_RUN_DIR:-}" ]; then
    rm -rf "$RUN"
  else
    log "run directory kept: $RUN (broker/server.log, raw/, logs/)"
  fi
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# wait_for DESCRIPTION TIMEOUT_SECONDS PID COMMAND...: polls COMMAND until it
# succeeds; fails early if PID (the process being waited on) dies.
wait_for() {
  local what=$1 limit=$2 pid=$3 i
  shift 3
  for ((i = 0; i < limit * 10; i++)); do
    if "$@"; then return 0; fi
    kill -0 "$pid" 2>/dev/null || die "$what: process $pid exited"
    sleep 0.1
  done
  die "$what: not ready after ${limit}s"
}

# ------------------------------------------------------------------- build
# quiet LOGFILE COMMAND...: runs COMMAND with its output in LOGFILE, shown if it fails.
quiet() {
  local logfile=$1
  shift
  "$@" >"$logfile" 2>&1 || {
    tail -n 40 "$logfile" >&2
    die "failed: $* (full log: $logfile)"
  }
}

prepare() {
  mkdir -p "$RUN/logs" "$BIN"
  log "fetching Kafka $KAFKA_VERSION broker and tools jars"
  rm -rf "$LIBS"
  quiet "$RUN/logs/mvn-kafka.log" mvn -B -f "$HERE/pom.xml" dependency:copy-dependencies \
    -DincludeScope=runtime -DoutputDirectory="$LIBS"
  [ -f "$LIBS/kafka-clients-$KAFKA_VERSION.jar" ] || die "kafka-clients-$KAFKA_VERSION.jar missing in $LIBS"

  if wants java; then
    log "building the Java client"
    quiet "$RUN/logs/mvn-java.log" mvn -B -f "$HERE/java/pom.xml" package dependency:build-classpath \
      -DskipTests -Dmdep.outputFile="$HERE/java/target/classpath.txt"
  fi
  if wants librdkafka; then
    log "installing confluent-kafka into $VENV"
    [ -x "$VENV/bin/python" ] || python3 -m venv "$VENV"
    "$VENV/bin/pip" install -q -r "$HERE/librdkafka/requirements.txt"
  fi
  if wants sarama; then
    log "building the sarama client"
    (cd "$HERE/sarama" && GOFLAGS=-mod=readonly go build -o "$BIN/sarama-client" .)
  fi
  if wants franz-go; then
    log "building the franz-go client"
    (cd "$HERE/franz-go" && GOFLAGS=-mod=readonly go build -o "$BIN/franz-go-client" .)
  fi
  if wants kafkajs; then
    log "installing kafkajs"
    (cd "$HERE/kafkajs" && npm ci --no-audit --no-fund --loglevel=error >/dev/null)
  fi
}

# Prints a JSON object: client -> version string, for the clients being captured.
client_versions_json() {
  local c
  for c in "${CLIENTS[@]}"; do
    case $c in
      java) echo "java=org.apache.kafka:kafka-clients $KAFKA_VERSION" ;;
      java-tools) echo "java-tools=org.apache.kafka:kafka-tools $KAFKA_VERSION" ;;
      librdkafka) echo "librdkafka=$("$VENV/bin/python" -c \
        'import confluent_kafka as c; print(f"confluent-kafka {c.__version__} (librdkafka {c.libversion()[0]})")')" ;;
      sarama) echo "sarama=$(cd "$HERE/sarama" && go list -m -f '{{.Path}} {{.Version}}' github.com/IBM/sarama)" ;;
      franz-go) echo "franz-go=$(cd "$HERE/franz-go" && go list -m -f '{{.Path}} {{.Version}}' \
        github.com/twmb/franz-go github.com/twmb/franz-go/pkg/kadm | paste -sd, | sed 's/,/, /')" ;;
      kafkajs) echo "kafkajs=kafkajs $(node -p 'require(process.argv[1]).version' \
        "$HERE/kafkajs/node_modules/kafkajs/package.json")" ;;
    esac
  done | python3 -c 'import json, sys; print(json.dumps(dict(l.rstrip("\n").split("=", 1) for l in sys.stdin)))'
}

# ------------------------------------------------------------------ broker
free_ports() {
  python3 - "$1" <<'EOF'
import socket, sys
socks = []
for _ in range(int(sys.argv[1])):
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    socks.append(s)
print(" ".join(str(s.getsockname()[1]) for s in socks))
for s in socks:
    s.close()
EOF
}

start_broker() {
  local dir=$RUN/broker cluster_id
  mkdir -p "$dir/data"
  read -r CONTROLLER_PORT BROKER_PORT INTERNAL_PORT PROXY_PORT <<<"$(free_ports 4)"
  # Clients only ever learn the PLAINTEXT listener, advertised as the proxy.
  # Broker-internal traffic (transaction markers, AddPartitionsToTxn
  # verification) uses the INTERNAL listener directly and is not recorded.
  cat >"$dir/server.properties" <<EOF
process.roles=broker,controller
node.id=1
controller.quorum.voters=1@127.0.0.1:$CONTROLLER_PORT
listeners=PLAINTEXT://127.0.0.1:$BROKER_PORT,INTERNAL://127.0.0.1:$INTERNAL_PORT,CONTROLLER://127.0.0.1:$CONTROLLER_PORT
advertised.listeners=PLAINTEXT://127.0.0.1:$PROXY_PORT,INTERNAL://127.0.0.1:$INTERNAL_PORT
listener.security.protocol.map=PLAINTEXT:PLAINTEXT,INTERNAL:PLAINTEXT,CONTROLLER:PLAINTEXT
inter.broker.listener.name=INTERNAL
controller.listener.names=CONTROLLER
log.dirs=$dir/data
num.partitions=1
offsets.topic.replication.factor=1
offsets.topic.num.partitions=3
transaction.state.log.replication.factor=1
transaction.state.log.min.isr=1
transaction.state.log.num.partitions=3
share.coordinator.state.topic.replication.factor=1
share.coordinator.state.topic.min.isr=1
group.initial.rebalance.delay.ms=0
group.consumer.heartbeat.interval.ms=500
group.consumer.min.heartbeat.interval.ms=500
EOF
  cluster_id=$(python3 -c 'import base64, uuid; print(base64.urlsafe_b64encode(uuid.uuid4().bytes).decode().rstrip("="))')
  log "formatting storage (cluster $cluster_id, transaction.version=1)"
  # transaction.version starts at 1 so the Java client exercises the classic
  # transaction protocol (AddPartitionsToTxn); it then upgrades the feature to 2.
  java -Dlog4j2.configurationFile="$HERE/broker-log4j2.properties" -Dkafka.logs.dir="$dir" \
    -cp "$LIBS/*" kafka.tools.StorageTool format -t "$cluster_id" -c "$dir/server.properties" \
    --feature transaction.version=1 >"$dir/format.log" 2>&1 || {
    cat "$dir/format.log" >&2
    die "storage format failed"
  }
  log "starting broker: PLAINTEXT 127.0.0.1:$BROKER_PORT (advertised as proxy 127.0.0.1:$PROXY_PORT), controller :$CONTROLLER_PORT, internal :$INTERNAL_PORT"
  java -Xms256m -Xmx1g -XX:+UseG1GC \
    -Dlog4j2.configurationFile="$HERE/broker-log4j2.properties" -Dkafka.logs.dir="$dir" \
    -cp "$LIBS/*" kafka.Kafka "$dir/server.properties" >"$dir/stdout.log" 2>&1 &
  BROKER_PID=$!
  wait_for "broker startup" 120 "$BROKER_PID" grep -qs 'Kafka Server started' "$dir/server.log"
  wait_for "broker listener" 30 "$BROKER_PID" python3 -c \
    "import socket; socket.create_connection(('127.0.0.1', $BROKER_PORT), 1).close()"
  log "broker is up (pid $BROKER_PID)"
}

# ----------------------------------------------------------------- clients
run_client() {
  local c=$1 raw=$RUN/raw/$1 ready=$RUN/proxy-$1.ready clog=$RUN/logs/$1.log rc=0
  local bootstrap=127.0.0.1:$PROXY_PORT
  local -a cmd
  case $c in
    java) cmd=(java -Dorg.slf4j.simpleLogger.defaultLogLevel=warn
      -cp "$HERE/java/target/classes:$(cat "$HERE/java/target/classpath.txt")"
      dev.strand.golden.JavaClient "$bootstrap") ;;
    java-tools) cmd=("$HERE/java-tools/run.sh" "$bootstrap" "$LIBS") ;;
    librdkafka) cmd=("$VENV/bin/python" "$HERE/librdkafka/client.py" "$bootstrap") ;;
    sarama) cmd=("$BIN/sarama-client" "$bootstrap") ;;
    franz-go) cmd=("$BIN/franz-go-client" "$bootstrap") ;;
    kafkajs) cmd=(node "$HERE/kafkajs/client.js" "$bootstrap") ;;
  esac
  mkdir -p "$raw" "$RUN/logs"
  python3 "$HERE/proxy.py" --listen-port "$PROXY_PORT" --upstream-port "$BROKER_PORT" \
    --out "$raw" --ready-file "$ready" 2>"$RUN/logs/proxy-$c.log" &
  PROXY_PID=$!
  wait_for "proxy for $c" 20 "$PROXY_PID" test -f "$ready"
  log "running $c"
  timeout -k 10 "$CLIENT_TIMEOUT" "${cmd[@]}" >"$clog" 2>&1 &
  CLIENT_PID=$!
  wait "$CLIENT_PID" || rc=$?
  CLIENT_PID=""
  stop_pid "$PROXY_PID" proxy 10
  PROXY_PID=""
  if [ "$rc" -ne 0 ]; then
    log "$c FAILED (exit $rc); last lines of $clog:"
    tail -n 25 "$clog" | sed 's/^/    /' >&2
    return 1
  fi
  log "$c ok ($(grep -c '"event": "request"' "$raw/index.jsonl" || true) requests recorded)"
}

# -------------------------------------------------------------------- main
START=$SECONDS
prepare
start_broker
OK_CLIENTS=()
FAILED=()
for c in "${CLIENTS[@]}"; do
  if run_client "$c"; then OK_CLIENTS+=("$c"); else FAILED+=("$c"); fi
done
log "stopping broker"
stop_pid "$BROKER_PID" broker 30
BROKER_PID=""

if [ ${#OK_CLIENTS[@]} -gt 0 ]; then
  log "selecting golden frames into $GOLDEN"
  python3 "$HERE/select_golden.py" \
    --raw "$RUN/raw" --out "$GOLDEN" \
    --schemas-jar "$LIBS/kafka-clients-$KAFKA_VERSION.jar" \
    --clients "$(IFS=,; echo "${OK_CLIENTS[*]}")" \
    --kafka-version "$KAFKA_VERSION" \
    --client-versions "$(client_versions_json)"
  log "golden directory: $(find "$GOLDEN" -type f | wc -l) files, $(du -s --apparent-size --block-size=1 "$GOLDEN" | cut -f1) bytes"
fi
log "finished in $((SECONDS - START))s"
if [ ${#FAILED[@]} -gt 0 ]; then
  die "clients that failed: ${FAILED[*]} (their golden directories were left as they were)"
fi
SUCCESS=1
