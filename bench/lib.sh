# bench/lib.sh: the functions bench/run.sh uses (sourced, not run): start and stop each broker on a
# fresh data directory and free loopback ports, measure its start-up (process start to the first
# acknowledged produce), its CPU time and peak resident memory, and run the clients of one
# workload. Every function reads the settings run.sh sets (repo, here, java, libs, strand_bin,
# client_bin, tmp_root, out, clock_ticks, client_limit_s, quiet_busy_pct, quiet_wait_s,
# quiet_budget_s, throughput_linger_ms) and writes what it measured as key=value lines.
# shellcheck shell=bash disable=SC2154

# --- small helpers --------------------------------------------------------------------------------

log() { printf '%s bench: %s\n' "$(date +%T)" "$*" >&2; }

# A free TCP port on 127.0.0.1 (bound and released by the kernel's choice).
free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
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
kafka_tool_java() {
  tool_java=("$java" -Xmx512M -server -XX:+UseG1GC -XX:MaxGCPauseMillis=20
    -XX:InitiatingHeapOccupancyPercent=35 -XX:+ExplicitGCInvokesConcurrent -Djava.awt.headless=true
    "-Dlog4j2.configurationFile=$repo/compat/kafka/log4j2.properties" -cp "$libs/*")
}

# --- brokers --------------------------------------------------------------------------------------

# Starts BROKER (kafka|strand) with DURABILITY (pagecache|fsync) on a fresh data directory under
# RUN_DIR and waits for the first acknowledged produce. Sets broker_pid and broker_port; writes
# first_ack_ms (and port_open_ms) to KV. Returns non-zero (error=... in KV) if it does not start.
start_broker() { # BROKER DURABILITY RUN_DIR KV
  local broker="$1" durability="$2" dir="$3" kv="$4" data="$3/data" started
  mkdir -p "$data"
  broker_port="$(free_port)"
  local command=()
  if [[ $broker == kafka ]]; then
    local controller_port
    controller_port="$(free_port)"
    while [[ $controller_port == "$broker_port" ]]; do controller_port="$(free_port)"; done
    sed -e "s|@PORT@|$broker_port|g" -e "s|@CONTROLLER_PORT@|$controller_port|g" -e "s|@LOG_DIRS@|$data|g" \
      "$here/kafka/server.properties" > "$dir/server.properties"
    if [[ $durability == fsync ]]; then
      printf '# fsync before acknowledging: flush after every append.\nlog.flush.interval.messages=1\n' \
        >> "$dir/server.properties"
    fi
    # The one-off format step (kafka-storage.sh), not counted in the start-up time.
    if ! "${tool_java[@]}" kafka.tools.StorageTool format -t "$(cluster_id)" \
      -c "$dir/server.properties" > "$dir/format.log" 2>&1; then
      echo "error=kafka storage format failed: $(tail_line "$dir/format.log")" >> "$kv"
      return 1
    fi
    kafka_broker_java "$dir"
    command=("${broker_java[@]}" kafka.Kafka "$dir/server.properties")
  else
    local listener="PLAINTEXT://127.0.0.1:$broker_port"
    command=("$strand_bin" server
      --override node.id=1
      --override "listeners=$listener" --override "advertised.listeners=$listener"
      --override "log.dirs=$data"
      --override group.initial.rebalance.delay.ms=0)
    if [[ $durability == pagecache ]]; then
      # Strand fsyncs before acknowledging acks=all by default; Kafka by default does not.
      command+=(--override log.flush.on.acks.all=false)
    fi
  fi
  printf '%q ' "${command[@]}" > "$dir/broker.command"
  started="$(date +%s%N)"
  "${command[@]}" < /dev/null > "$dir/broker.stdout" 2> "$dir/broker.stderr" &
  broker_pid=$!
  if ! "$client_bin" first-ack --bootstrap "127.0.0.1:$broker_port" --topic bench-startup \
    --since-unix-ns "$started" --timeout-s 120 > "$dir/first-ack.out" 2> "$dir/first-ack.err"; then
    echo "error=$broker did not acknowledge a produce after start: $(tail_line "$dir/first-ack.err" 2) | $(tail_line "$dir/broker.stderr" 3)" >> "$kv"
    stop_broker
    return 1
  fi
  result_fields "$dir/first-ack.out" first_ack_ms port_open_ms >> "$kv"
}

# A Kafka cluster id: 22 characters of URL-safe base64 of 16 random bytes, not starting with '-'
# (a command line would take it for an option; Kafka's own Uuid.randomUuid avoids it too).
cluster_id() {
  local id=-
  while [[ $id == -* ]]; do id="$(head -c 16 /dev/urandom | base64 | tr '+/' '-_' | cut -c1-22)"; done
  echo "$id"
}

# Stops the broker with SIGKILL: its data is deleted next, so a clean shutdown (several seconds
# for Kafka) would only lengthen the run.
stop_broker() {
  [[ -n ${broker_pid:-} ]] || return 0
  kill -KILL "$broker_pid" 2> /dev/null || true
  wait "$broker_pid" 2> /dev/null || true
  broker_pid=
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

create_topic() { # TOPIC PARTITIONS DIR
  "${tool_java[@]}" org.apache.kafka.tools.TopicCommand --bootstrap-server "127.0.0.1:$broker_port" --create \
    --topic "$1" --partitions "$2" --replication-factor 1 > "$3/create-topic.out" 2>&1
}

# Producer settings of a profile: Kafka 4.4's client defaults, or the throughput profile.
producer_props() { # ACKS PROFILE
  local props=("acks=$1" "bootstrap.servers=127.0.0.1:$broker_port")
  [[ $2 == throughput ]] && props+=(batch.size=262144 "linger.ms=$throughput_linger_ms")
  echo "${props[@]}"
}

# Fills a consumer workload's topic before the measured read (producer-perf, the throughput
# profile, acks=1), then takes the broker's CPU reading the read is measured from.
fill_topic() { # TOPIC SIZE RECORDS DIR KV
  # shellcheck disable=SC2046 # producer_props are separate words
  if ! "${tool_java[@]}" org.apache.kafka.tools.ProducerPerformance --topic "$1" --num-records "$3" \
    --record-size "$2" --throughput -1 --command-property $(producer_props 1 throughput) \
    > "$4/fill.out" 2> "$4/fill.err"; then
    echo "error=filling the topic failed: $(tail_line "$4/fill.err")" >> "$5"
    return 1
  fi
  broker_cpu_before="$(cpu_seconds_of "$broker_pid")"
}

# Runs one workload's measured client against the running broker, writing its results to KV.
#   run_client KIND SIZE PARTITIONS ACKS PROFILE RECORDS DIR KV
run_client() {
  local kind="$1" size="$2" partitions="$3" acks="$4" profile="$5" records="$6" dir="$7" kv="$8"
  local topic=bench status=0 parser
  local bootstrap="127.0.0.1:$broker_port"
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
      fill_topic "$topic" "$size" "$records" "$dir" "$kv" || return 1
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
      fill_topic "$topic" "$size" "$records" "$dir" "$kv" || return 1
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

# One measurement: a fresh broker, the workload's topic, the measured client, the broker's CPU
# seconds during the client's run and its peak RSS, then the broker stopped and its data deleted.
# Every figure goes to RUN_DIR/result.kv, with status=ok or status=fail and error=...
#   measure DURABILITY WORKLOAD KIND SIZE PARTITIONS ACKS PROFILE RECORDS RUN BROKER
measure() {
  local durability="$1" workload="$2" kind="$3" size="$4" partitions="$5" acks="$6" profile="$7"
  local records="$8" run="$9" broker="${10}"
  local dir="$out/runs/$durability/$workload/$run-$broker"
  local kv="$dir/result.kv" ok=1
  mkdir -p "$dir"
  printf 'durability=%s\nworkload=%s\nkind=%s\nrecord_size=%s\npartitions=%s\nacks=%s\nprofile=%s\nrecords=%s\nrun=%s\nbroker=%s\n' \
    "$durability" "$workload" "$kind" "$size" "$partitions" "$acks" "$profile" "$records" "$run" "$broker" > "$kv"
  log "$durability $workload run $run: $broker"
  wait_quiet "$kv"
  local data_parent
  data_parent="$(mktemp -d "$tmp_root/$broker.XXXXXX")"
  if start_broker "$broker" "$durability" "$data_parent" "$kv"; then
    cp "$data_parent/broker.command" "$dir/" 2> /dev/null || true
    if ! create_topic bench "$partitions" "$dir"; then
      echo "error=creating the topic failed: $(tail_line "$dir/create-topic.out")" >> "$kv"
      ok=0
    else
      broker_cpu_before="$(cpu_seconds_of "$broker_pid")"
      run_client "$kind" "$size" "$partitions" "$acks" "$profile" "$records" "$dir" "$kv" || ok=0
      local cpu_after
      cpu_after="$(cpu_seconds_of "$broker_pid")"
      if [[ $cpu_after == NA ]]; then
        echo "error=the broker exited during the workload: $(tail_line "$data_parent/broker.stderr" 4)" >> "$kv"
        ok=0
      else
        echo "broker_cpu_s=$(awk -v a="$cpu_after" -v b="$broker_cpu_before" 'BEGIN { printf "%.2f", a - b }')" >> "$kv"
        echo "broker_peak_rss_kib=$(peak_rss_kib_of "$broker_pid")" >> "$kv"
      fi
    fi
    stop_broker
  else
    ok=0
  fi
  # Keep the broker's own output with the results; the data goes.
  for file in broker.stdout broker.stderr format.log first-ack.out first-ack.err kafkaServer-gc.log; do
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
