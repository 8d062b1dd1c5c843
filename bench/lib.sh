# bench/lib.sh: the functions bench/run.sh uses (sourced, not run): start and stop each broker (one
# node, or a cluster of three) on fresh data directories and free loopback ports, measure its
# start-up (process start to the first acknowledged produce), its CPU time and peak resident
# memory, and run the clients of one workload. Every function reads the settings run.sh sets (repo, here, java, libs, strand_bin,
# client_bin, tmp_root, out, clock_ticks, client_limit_s, quiet_busy_pct, quiet_wait_s,
# quiet_budget_s, throughput_linger_ms) and writes what it measured as key=value lines.
# shellcheck shell=bash disable=SC2154

# --- small helpers --------------------------------------------------------------------------------

log() { printf '%s bench: %s\n' "$(date +%T)" "$*" >&2; }

# N distinct free TCP ports on 127.0.0.1, one a line (all bound at once, by the kernel's choice,
# then released).
free_ports() { # N
  python3 -c 'import socket, sys
socks = [socket.socket() for _ in range(int(sys.argv[1]))]
for s in socks: s.bind(("127.0.0.1", 0))
print("\n".join(str(s.getsockname()[1]) for s in socks))' "$1"
}

# utime + stime of a process, in seconds (fields 14 and 15 of /proc/PID/stat, after the command
# name, which may itself hold spaces).
cpu_seconds_of() {
  local stat ticks
  stat="$(cat "/proc/$1/stat" 2> /dev/null)" || { echo NA; return; }
  stat="${stat##*) }"
  read -r -a fields <<< "$stat"
  # After "pid (comm) ", state is field 3, so utime (14) and stime (15) are at 11 and 12 here.
  ticks=$((fields[11] + fields[12]))
  awk -v t="$ticks" -v hz="$clock_ticks" 'BEGIN { printf "%.2f", t / hz }'
}

# Peak resident set size of a process so far (VmHWM), in KiB.
peak_rss_kib_of() {
  awk '/^VmHWM:/ { print $2; found = 1 } END { if (!found) print "NA" }' "/proc/$1/status" 2> /dev/null || echo NA
}

# The sum of a figure (cpu_seconds_of, peak_rss_kib_of) over processes: a cluster's nodes. NA if
# any of them has exited.
sum_of() { # FUNCTION PID...
  local fn="$1" pid value total=0
  shift
  for pid in "$@"; do
    value="$("$fn" "$pid")"
    [[ $value == NA ]] && { echo NA; return; }
    total="$(awk -v a="$total" -v b="$value" 'BEGIN { print a + b }')"
  done
  echo "$total"
}

# The share of the machine's CPU time that was busy over one second, in percent (/proc/stat).
busy_pct() {
  local a b
  a="$(head -n 1 /proc/stat)"
  sleep 1
  b="$(head -n 1 /proc/stat)"
  awk -v a="$a" -v b="$b" 'BEGIN {
    # cpu user nice system idle iowait irq softirq steal (guest time is inside user already)
    split(a, x); split(b, y); total = 0
    for (i = 2; i <= 9; i++) total += y[i] - x[i]
    idle = (y[5] - x[5]) + (y[6] - x[6])
    printf "%.0f\n", (total > 0 ? 100 * (total - idle) / total : 0)
  }'
}

# Waits (up to quiet_wait_s, while quiet_budget_s lasts) until the machine is quiet: nothing of
# ours runs between two measurements, so busy CPU then is someone else's (a build, another
# benchmark) and would skew the next one. Writes the last reading as machine_busy_pct to KV.
quiet_waited_s=0
wait_quiet() { # KV
  local busy waited=0
  busy="$(busy_pct)"
  while ((busy > quiet_busy_pct && waited < quiet_wait_s && quiet_waited_s < quiet_budget_s)); do
    ((waited == 0)) && log "  the machine is ${busy}% busy with other work; waiting up to ${quiet_wait_s} s for it to settle"
    sleep 4
    waited=$((waited + 5))
    quiet_waited_s=$((quiet_waited_s + 5))
    busy="$(busy_pct)"
  done
  echo "machine_busy_pct=$busy" >> "$1"
}

# Runs a command, its stdout and stderr to files, with a time limit; writes the children's CPU
# seconds and the wall time as key=value lines to the given file. Returns the command's status.
#   timed KV_FILE STDOUT STDERR LIMIT_S COMMAND...
timed() {
  local kv="$1" out="$2" err="$3" limit="$4" status times
  shift 4
  local TIMEFORMAT='%3U %3S %3R'
  times="$({ time timeout --kill-after=10 "$limit" "$@" > "$out" 2> "$err"; } 2>&1)" && status=0 || status=$?
  # `time` reports on the last line; anything before it came from the shell itself.
  read -r user sys real <<< "$(tail -n 1 <<< "$times")"
  printf 'client_cpu_s=%s\nclient_wall_s=%s\n' "$(awk -v u="$user" -v s="$sys" 'BEGIN { printf "%.2f", u + s }')" "$real" >> "$kv"
  return "$status"
}

# The last lines of a file on one line, tabs and newlines flattened (for error=... values).
tail_line() {
  tail -n "${2:-5}" "$1" 2> /dev/null | tr '\t\n' '  ' | cut -c1-600
}

# --- Java: Kafka's broker and tools -----------------------------------------------------------------

# What kafka-server-start.sh runs by default, into the array broker_java: kafka-run-class.sh with a
# 1 GiB heap, G1 and its flags, JMX on, the GC log (-loggc), the log directory and logging.
kafka_broker_java() { # RUN_DIR
  local dir="$1"
  broker_java=("$java" -Xmx1G -Xms1G
    -server -XX:+UseG1GC -XX:MaxGCPauseMillis=20 -XX:InitiatingHeapOccupancyPercent=35
    -XX:+ExplicitGCInvokesConcurrent -Djava.awt.headless=true
    "-Xlog:gc*:file=$dir/kafkaServer-gc.log:time,tags:filecount=10,filesize=100M"
    -Dcom.sun.management.jmxremote=true -Dcom.sun.management.jmxremote.authenticate=false
    -Dcom.sun.management.jmxremote.ssl=false
    "-Dkafka.logs.dir=$dir" "-Dlog4j2.configurationFile=$here/kafka/log4j2.properties"
    -cp "$libs/*")
}

# Kafka's tools as bin/kafka-*-perf-test.sh run them (512 MiB heap, the same G1 flags), logging
# warnings to stderr (compat/kafka/log4j2.properties, like Kafka's tools-log4j2), into the array
# tool_java; the class and its arguments follow.
# Builds (or takes STRAND_BIN) Strand and the native client, fetches Kafka's jars and finds its
# java: sets strand_bin and client_bin. Needs $repo, $here and log().
build_bench_binaries() {
  if [[ -n ${STRAND_BIN:-} ]]; then
    strand_bin="$STRAND_BIN"
  else
    log "building strand (cargo build --release --bin strand --target-dir target/bench)"
    (cd "$repo" && cargo build --release --bin strand --target-dir "$repo/target/bench")
    strand_bin="$repo/target/bench/release/strand"
  fi
  log "building the native client (bench/client, librdkafka with OpenSSL)"
  cargo build --release --manifest-path "$here/client/Cargo.toml" --target-dir "$repo/target/bench-client"
  client_bin="$repo/target/bench-client/release/bench-client"
  "$repo/compat/kafka/fetch-jars.sh" >&2
  kafka_tool_java
}

kafka_tool_java() {
  tool_java=("$java" -Xmx512M -server -XX:+UseG1GC -XX:MaxGCPauseMillis=20
    -XX:InitiatingHeapOccupancyPercent=35 -XX:+ExplicitGCInvokesConcurrent -Djava.awt.headless=true
    "-Dlog4j2.configurationFile=$repo/compat/kafka/log4j2.properties" -cp "$libs/*")
}

# --- brokers --------------------------------------------------------------------------------------

# Starts BROKER (kafka|strand) with DURABILITY (pagecache|fsync) as NODES nodes (1, or 3 for a
# cluster: each broker and controller, KRaft combined mode, the same cluster id, replication
# factor 3 and min.insync.replicas=2 for every topic) on fresh data directories under RUN_DIR
# (RUN_DIR itself for one node, RUN_DIR/node-N for each of a cluster's) and waits for the first
# acknowledged produce (acks=all, to a topic it auto-creates, with as many replicas as nodes).
# Sets broker_pids (one per node, in node order) and bootstrap (every node's client address);
# writes first_ack_ms (and port_open_ms, when the last node's port accepted) to KV. Returns
# non-zero (error=... in KV) if it does not start.
start_broker() { # BROKER DURABILITY RUN_DIR KV NODES
  local broker="$1" durability="$2" dir="$3" kv="$4" nodes="${5:-1}" started i
  local ports=() voters=() node_dirs=() id voters_csv replication=1 min_isr=1 command=()
  # A client port and a controller port per node (Strand's single node, which has no controller
  # listener, leaves its second one unused).
  mapfile -t ports < <(free_ports $((2 * nodes)))
  id="$(cluster_id)"
  bootstrap=
  for ((i = 1; i <= nodes; i++)); do
    voters+=("$i@127.0.0.1:${ports[2 * i - 1]}")
    bootstrap+="${bootstrap:+,}127.0.0.1:${ports[2 * i - 2]}"
    if ((nodes == 1)); then node_dirs+=("$dir"); else node_dirs+=("$dir/node-$i"); fi
    mkdir -p "${node_dirs[i - 1]}/data"
  done
  voters_csv="$(IFS=,; echo "${voters[*]}")"
  if ((nodes > 1)); then replication=3 min_isr=2; fi
  if [[ $broker == kafka ]]; then
    local formats=() node_dir
    for ((i = 1; i <= nodes; i++)); do
      node_dir="${node_dirs[i - 1]}"
      sed -e "s|@NODE_ID@|$i|g" -e "s|@VOTERS@|$voters_csv|g" -e "s|@PORT@|${ports[2 * i - 2]}|g" \
        -e "s|@CONTROLLER_PORT@|${ports[2 * i - 1]}|g" -e "s|@LOG_DIRS@|$node_dir/data|g" \
        -e "s|@REPLICATION_FACTOR@|$replication|g" -e "s|@MIN_ISR@|$min_isr|g" \
        "$here/kafka/server.properties" > "$node_dir/server.properties"
      if [[ $durability == fsync ]]; then
        printf '# fsync before acknowledging: flush after every append.\nlog.flush.interval.messages=1\n' \
          >> "$node_dir/server.properties"
      fi
      # The one-off format step (kafka-storage.sh), every node with the same cluster id, the
      # nodes side by side; not counted in the start-up time.
      "${tool_java[@]}" kafka.tools.StorageTool format -t "$id" -c "$node_dir/server.properties" \
        > "$node_dir/format.log" 2>&1 &
      formats+=($!)
    done
    local formatted=1
    for ((i = 1; i <= nodes; i++)); do
      if ! wait "${formats[i - 1]}"; then
        echo "error=kafka storage format failed (node $i of $nodes): $(tail_line "${node_dirs[i - 1]}/format.log")" >> "$kv"
        formatted=0
      fi
    done
    ((formatted)) || return 1
  fi
  started="$(date +%s%N)"
  broker_pids=()
  for ((i = 1; i <= nodes; i++)); do
    broker_command "$broker" "$durability" "$i" "$nodes" "${node_dirs[i - 1]}" "${ports[2 * i - 2]}" \
      "${ports[2 * i - 1]}" "$voters_csv" "$id" "$replication" "$min_isr"
    printf '%q ' "${command[@]}" > "${node_dirs[i - 1]}/broker.command"
    "${command[@]}" < /dev/null > "${node_dirs[i - 1]}/broker.stdout" 2> "${node_dirs[i - 1]}/broker.stderr" &
    broker_pids+=($!)
  done
  if ! "$client_bin" first-ack --bootstrap "$bootstrap" --topic bench-startup \
    --since-unix-ns "$started" --timeout-s $((nodes > 1 ? 180 : 120)) > "$dir/first-ack.out" 2> "$dir/first-ack.err"; then
    local why
    why="$broker did not acknowledge a produce after start: $(tail_line "$dir/first-ack.err" 2)"
    for ((i = 1; i <= nodes; i++)); do
      if ((nodes > 1)); then why+=" | node $i:"; else why+=" |"; fi
      why+=" $(tail_line "${node_dirs[i - 1]}/broker.stderr" 3)"
    done
    echo "error=$why" >> "$kv"
    stop_broker
    return 1
  fi
  result_fields "$dir/first-ack.out" first_ack_ms port_open_ms >> "$kv"
}

# One node's command line, into the array command: Kafka's JVM with the node's server.properties
# (written by start_broker), or `strand server` with the node's settings as overrides.
#   broker_command BROKER DURABILITY NODE_ID NODES NODE_DIR PORT CONTROLLER_PORT VOTERS CLUSTER_ID
#                  REPLICATION_FACTOR MIN_ISR
broker_command() {
  local broker="$1" durability="$2" node="$3" nodes="$4" node_dir="$5" port="$6" controller_port="$7"
  local voters_csv="$8" id="$9" replication="${10}" min_isr="${11}"
  if [[ $broker == kafka ]]; then
    kafka_broker_java "$node_dir"
    command=("${broker_java[@]}" kafka.Kafka "$node_dir/server.properties")
    return
  fi
  local listener="PLAINTEXT://127.0.0.1:$port"
  # http.listeners= : without a file every node would serve HTTP on localhost:8080.
  command=("$strand_bin" server --override "node.id=$node" --override "http.listeners=")
  if ((nodes == 1)); then
    command+=(--override "listeners=$listener")
  else
    # As crates/cli/tests/common/cluster.rs and config/three-nodes/ start a cluster: every node
    # broker and controller, the quorum over the CONTROLLER listeners, one cluster id.
    command+=(--override "process.roles=broker,controller"
      --override "listeners=$listener,CONTROLLER://127.0.0.1:$controller_port"
      --override controller.listener.names=CONTROLLER
      --override "controller.quorum.voters=$voters_csv" --override "cluster.id=$id"
      --override "default.replication.factor=$replication" --override "min.insync.replicas=$min_isr")
  fi
  command+=(--override "advertised.listeners=$listener"
    --override "log.dirs=$node_dir/data"
    --override group.initial.rebalance.delay.ms=0)
  if [[ $durability == pagecache ]]; then
    # Strand fsyncs before acknowledging acks=all by default; Kafka by default does not.
    command+=(--override log.flush.on.acks.all=false)
  fi
}

# A Kafka cluster id: 22 characters of URL-safe base64 of 16 random bytes, not starting with '-'
# (a command line would take it for an option; Kafka's own Uuid.randomUuid avoids it too).
cluster_id() {
  local id=-
  while [[ $id == -* ]]; do id="$(head -c 16 /dev/urandom | base64 | tr '+/' '-_' | cut -c1-22)"; done
  echo "$id"
}

# Stops the broker, every node of a cluster, with SIGKILL: its data is deleted next, so a clean
# shutdown (several seconds for Kafka) would only lengthen the run.
stop_broker() {
  local pid
  for pid in "${broker_pids[@]}"; do kill -KILL "$pid" 2> /dev/null || true; done
  for pid in "${broker_pids[@]}"; do wait "$pid" 2> /dev/null || true; done
  broker_pids=()
}

# Picks KEY=VALUE pairs named by KEYS out of a tool's `RESULT k=v ...` line, one per line.
result_fields() { # FILE KEYS...
  local file="$1" line pair
  shift
  line="$(grep '^RESULT ' "$file" | tail -n 1)"
  for pair in ${line#RESULT }; do
    for key in "$@"; do
      if [[ $pair == "$key="* ]]; then echo "$pair"; fi
    done
  done
  return 0
}

# --- clients --------------------------------------------------------------------------------------

# Creates the workload's topic with one replica per node (min.insync.replicas is the brokers'
# setting); on a cluster, waits until every partition has a leader and all its replicas in sync.
create_topic() { # TOPIC PARTITIONS DIR KV
  local replicas=${#broker_pids[@]}
  if ! "${tool_java[@]}" org.apache.kafka.tools.TopicCommand --bootstrap-server "$bootstrap" --create \
    --topic "$1" --partitions "$2" --replication-factor "$replicas" > "$3/create-topic.out" 2>&1; then
    echo "error=creating the topic failed: $(tail_line "$3/create-topic.out")" >> "$4"
    return 1
  fi
  ((replicas > 1)) || return 0
  if ! "$client_bin" topic-ready --bootstrap "$bootstrap" --topic "$1" --partitions "$2" --replicas "$replicas" \
    --timeout-s 60 > "$3/topic-ready.out" 2> "$3/topic-ready.err"; then
    echo "error=the topic's replicas did not all get in sync: $(tail_line "$3/topic-ready.err" 2)" >> "$4"
    return 1
  fi
  result_fields "$3/topic-ready.out" ready_ms | sed 's/^/topic_/' >> "$4"
}

# Producer settings of a profile: Kafka 4.4's client defaults, or the throughput profile.
producer_props() { # ACKS PROFILE
  local props=("acks=$1" "bootstrap.servers=$bootstrap")
  [[ $2 == throughput ]] && props+=(batch.size=262144 "linger.ms=$throughput_linger_ms")
  echo "${props[@]}"
}

# Fills a consumer workload's topic before the measured read (producer-perf, the throughput
# profile, the workload's acks: 1 on one node, all on a cluster, so that every replica has the
# records before the read), then takes the broker's CPU reading the read is measured from.
fill_topic() { # TOPIC SIZE RECORDS ACKS DIR KV
  # shellcheck disable=SC2046 # producer_props are separate words
  if ! "${tool_java[@]}" org.apache.kafka.tools.ProducerPerformance --topic "$1" --num-records "$3" \
    --record-size "$2" --throughput -1 --command-property $(producer_props "$4" throughput) \
    > "$5/fill.out" 2> "$5/fill.err"; then
    echo "error=filling the topic failed: $(tail_line "$5/fill.err")" >> "$6"
    return 1
  fi
  broker_cpu_before="$(sum_of cpu_seconds_of "${broker_pids[@]}")"
}

# Runs one workload's measured client against the running broker, writing its results to KV.
#   run_client KIND SIZE PARTITIONS ACKS PROFILE RECORDS DIR KV
run_client() {
  local kind="$1" size="$2" partitions="$3" acks="$4" profile="$5" records="$6" dir="$7" kv="$8"
  local topic=bench status=0 parser
  case "$kind" in
    produce)
      # shellcheck disable=SC2046 # producer_props are separate words
      timed "$kv" "$dir/client.out" "$dir/client.err" "$client_limit_s" \
        "${tool_java[@]}" org.apache.kafka.tools.ProducerPerformance --topic "$topic" --num-records "$records" \
        --record-size "$size" --throughput -1 --warmup-records "$((records / 10))" --print-metrics \
        --command-property $(producer_props "$acks" "$profile") || status=$?
      parser=producer
      ;;
    consume)
      fill_topic "$topic" "$size" "$records" "$acks" "$dir" "$kv" || return 1
      timed "$kv" "$dir/client.out" "$dir/client.err" "$client_limit_s" \
        "${tool_java[@]}" org.apache.kafka.tools.ConsumerPerformance --bootstrap-server "$bootstrap" \
        --topic "$topic" --num-records "$records" --timeout 60000 --group "bench-$RANDOM" || status=$?
      parser=consumer
      ;;
    e2e)
      timed "$kv" "$dir/client.out" "$dir/client.err" "$client_limit_s" \
        "${tool_java[@]}" org.apache.kafka.tools.EndToEndLatency "$bootstrap" "$topic" "$records" "$acks" "$size" \
        || status=$?
      parser=e2e
      ;;
    native-consume)
      fill_topic "$topic" "$size" "$records" "$acks" "$dir" "$kv" || return 1
      timed "$kv" "$dir/client.out" "$dir/client.err" "$client_limit_s" \
        "$client_bin" consume --bootstrap "$bootstrap" --topic "$topic" --records "$records" \
        --partitions "$partitions" || status=$?
      parser=native
      ;;
    native-produce | native-e2e)
      timed "$kv" "$dir/client.out" "$dir/client.err" "$client_limit_s" \
        "$client_bin" "${kind#native-}" --bootstrap "$bootstrap" --topic "$topic" --records "$records" \
        --record-size "$size" --acks "$acks" || status=$?
      # Its RESULT line's getrusage CPU time replaces the shell's figure (the same process).
      parser=native
      ;;
    *)
      echo "error=unknown workload kind $kind" >> "$kv"
      return 1
      ;;
  esac
  if [[ $status != 0 ]]; then
    echo "error=$kind client exited with status $status: $(tail_line "$dir/client.err" 4) $(tail_line "$dir/client.out" 2)" >> "$kv"
    return 1
  fi
  python3 "$here/tally.py" parse "$parser" "$dir/client.out" >> "$kv"
}

# One measurement: a fresh broker (one node, or three for a "cluster-" durability), the workload's
# topic, the measured client, the broker's CPU seconds during the client's run and its peak RSS
# (a cluster's: the sums over its three nodes), then the broker stopped and its data deleted.
# Every figure goes to RUN_DIR/result.kv, with status=ok or status=fail and error=...
#   measure DURABILITY WORKLOAD KIND SIZE PARTITIONS ACKS PROFILE RECORDS RUN BROKER
measure() {
  local durability="$1" workload="$2" kind="$3" size="$4" partitions="$5" acks="$6" profile="$7"
  local records="$8" run="$9" broker="${10}"
  local dir="$out/runs/$durability/$workload/$run-$broker"
  local kv="$dir/result.kv" ok=1 nodes=1
  [[ $durability == cluster-* ]] && nodes=3
  mkdir -p "$dir"
  printf 'durability=%s\nworkload=%s\nkind=%s\nrecord_size=%s\npartitions=%s\nacks=%s\nprofile=%s\nrecords=%s\nrun=%s\nbroker=%s\nnodes=%s\n' \
    "$durability" "$workload" "$kind" "$size" "$partitions" "$acks" "$profile" "$records" "$run" "$broker" "$nodes" > "$kv"
  log "$durability $workload run $run: $broker"
  wait_quiet "$kv"
  local data_parent
  data_parent="$(mktemp -d "$tmp_root/$broker.XXXXXX")"
  if start_broker "$broker" "${durability#cluster-}" "$data_parent" "$kv" "$nodes"; then
    if ! create_topic bench "$partitions" "$dir" "$kv"; then
      ok=0
    else
      broker_cpu_before="$(sum_of cpu_seconds_of "${broker_pids[@]}")"
      run_client "$kind" "$size" "$partitions" "$acks" "$profile" "$records" "$dir" "$kv" || ok=0
      local cpu_after i
      cpu_after="$(sum_of cpu_seconds_of "${broker_pids[@]}")"
      if [[ $cpu_after == NA ]]; then
        if ((nodes == 1)); then
          echo "error=the broker exited during the workload: $(tail_line "$data_parent/broker.stderr" 4)" >> "$kv"
        else
          for ((i = 1; i <= nodes; i++)); do
            [[ -d /proc/${broker_pids[i - 1]} ]] && continue
            echo "error=node $i of the broker exited during the workload: $(tail_line "$data_parent/node-$i/broker.stderr" 4)" >> "$kv"
            break
          done
        fi
        ok=0
      else
        echo "broker_cpu_s=$(awk -v a="$cpu_after" -v b="$broker_cpu_before" 'BEGIN { printf "%.2f", a - b }')" >> "$kv"
        echo "broker_peak_rss_kib=$(sum_of peak_rss_kib_of "${broker_pids[@]}")" >> "$kv"
      fi
    fi
    stop_broker
  else
    ok=0
  fi
  # Keep the brokers' own output with the results (a cluster's nodes as node-N-FILE); the data goes.
  local node_dir prefix file
  for node_dir in "$data_parent" "$data_parent"/node-*; do
    [[ -d $node_dir ]] || continue
    prefix=
    [[ $node_dir == "$data_parent" ]] || prefix="$(basename "$node_dir")-"
    for file in broker.command server.properties; do
      [[ -f $node_dir/$file ]] && cp "$node_dir/$file" "$dir/$prefix$file"
    done
    for file in broker.stdout broker.stderr format.log kafkaServer-gc.log; do
      [[ -f $node_dir/$file ]] && gzip -c "$node_dir/$file" > "$dir/$prefix$file.gz"
    done
  done
  for file in first-ack.out first-ack.err; do
    [[ -f $data_parent/$file ]] && gzip -c "$data_parent/$file" > "$dir/$file.gz"
  done
  rm -rf "$data_parent"
  if ((ok)); then
    echo status=ok >> "$kv"
  else
    grep -q '^error=' "$kv" || echo "error=(no error text; see $dir)" >> "$kv"
    echo status=fail >> "$kv"
  fi
  ((ok)) || log "  FAILED: $(grep '^error=' "$kv" | head -n 1)"
}

# The disk's synced-write rate: dd with O_DSYNC at block sizes around a group commit's size.
measure_disk() { # KV_FILE ROUND
  local kv="$1" round="$2" file="$tmp_root/dd.bin" bs count line
  for bs in 4K 16K 64K 256K 1M; do
    case $bs in
      4K) count=500 ;; 16K) count=500 ;; 64K) count=300 ;; 256K) count=150 ;; 1M) count=60 ;;
    esac
    for attempt in 1 2 3; do
      line="$(dd if=/dev/zero of="$file" bs="$bs" count="$count" oflag=dsync 2>&1 | tail -n 1)"
      # "N bytes (...) copied, S s, R MB/s": keep bytes and seconds.
      echo "dd_${bs}_${round}.${attempt}=$(awk '{ print $1 "/" $(NF-3) }' <<< "$line")" >> "$kv"
      rm -f "$file"
    done
  done
}
