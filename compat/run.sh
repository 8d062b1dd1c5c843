#!/usr/bin/env bash
# Runs the compatibility suites (compat/README.md): real Kafka clients and Kafka's own tools against
# a broker each suite starts for itself.
#
# Usage: compat/run.sh [SUITE...]   SUITE: java spring streams go python node kafka-tools security nemesis
#                                          console (default: all, in that order; streams: Kafka Streams on
#                                          Strand and on Kafka 4.4 side by side; security: TLS and SASL,
#                                          security/README.md; nemesis: the fault harness's smoke,
#                                          tools/nemesis/README.md, Strand only; console: the web console in
#                                          headless chromium, Strand only, installs Debian's chromium and
#                                          chromium-driver when missing)
#
#   STRAND_COMPAT_BROKER=strand (default)  build target/debug/strand (cargo build -p strand-cli) and
#                                          test it
#   STRAND_COMPAT_PROFILE=release          build and test target/release/strand instead (the suites
#                                          take as long with either: their time is the clients'
#                                          JVMs and waits, not the broker's CPU; the debug build
#                                          adds overflow checks and debug assertions and, after
#                                          cargo test, saves CI a second build of every dependency)
#   STRAND_BIN=PATH                        test this strand binary (built as above all the same)
#   STRAND_COMPAT_BROKER=kafka             test Apache Kafka 4.4.0 instead (the oracle)
#   STRAND_COMPAT_SUITE_TIMEOUT_S          one suite's limit, installation excluded (default 600)
#   STRAND_COMPAT_UPDATE_GOLDEN=1          kafka-tools: record Kafka's output as the golden files
#   STRAND_COMPAT_STREAMS_REFERENCE=0      streams: run on Strand alone, without Kafka's reference run
#
# Steps: build Strand (unless kafka), fetch Kafka's jars (compat/kafka/fetch-jars.sh), then for each
# suite in turn (2 cores: never two at once) install its dependencies and run it. Prints a line per
# suite and a closing `compat: N passed, M failed` (N, M count suites); exits 1 if any failed.
set -uo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/.." && pwd)"
all_suites=(java spring streams go python node kafka-tools security nemesis console)
# Suites that run only when named.
extra_suites=()
suite_timeout="${STRAND_COMPAT_SUITE_TIMEOUT_S:-600}"
export STRAND_COMPAT_BROKER="${STRAND_COMPAT_BROKER:-strand}"
python="${PYTHON:-python3}"
case "${STRAND_COMPAT_PROFILE:=debug}" in
  debug) profile_flag=() ;;
  release) profile_flag=(--release) ;;
  *) printf 'compat: STRAND_COMPAT_PROFILE must be debug or release, not %s\n' "$STRAND_COMPAT_PROFILE" >&2; exit 2 ;;
esac
# Every launcher (Java, Go, Python, Node, the security runner, the console's cluster) runs $STRAND_BIN.
export STRAND_BIN="${STRAND_BIN:-$repo/target/$STRAND_COMPAT_PROFILE/strand}"

log() { printf 'compat: %s\n' "$*" >&2; }

case "$STRAND_COMPAT_BROKER" in
  strand | kafka) ;;
  *) log "STRAND_COMPAT_BROKER must be 'strand' or 'kafka', not '$STRAND_COMPAT_BROKER'"; exit 2 ;;
esac
# The fault harness starts strand processes itself: no Kafka run of it yet (issue 20). Kafka has
# no web console.
if [[ $STRAND_COMPAT_BROKER == kafka ]]; then
  for i in "${!all_suites[@]}"; do [[ ${all_suites[i]} == nemesis || ${all_suites[i]} == console ]] && unset 'all_suites[i]'; done
  all_suites=("${all_suites[@]}")
fi

suites=()
for suite in "${@:-${all_suites[@]}}"; do
  case " ${all_suites[*]} ${extra_suites[*]} " in
    *" $suite "*) suites+=("$suite") ;;
    *) log "unknown suite '$suite' (suites: ${all_suites[*]} ${extra_suites[*]})"; exit 2 ;;
  esac
done

declare -A result detail
passed=0
failed=0
record() { # SUITE PASS|FAIL DETAIL
  result[$1]=$2
  detail[$1]=$3
  if [[ $2 == PASS ]]; then passed=$((passed + 1)); else failed=$((failed + 1)); fi
}

summary() {
  echo
  echo "compat summary (broker: $STRAND_COMPAT_BROKER)"
  local suite
  for suite in "${suites[@]}"; do
    printf '  %-4s %-12s %s\n' "${result[$suite]:-SKIP}" "$suite" "${detail[$suite]:-not run}"
  done
  echo "compat: $passed passed, $failed failed"
  [[ $failed -eq 0 ]]
}

fail_all() { # DETAIL: a shared prerequisite failed, so every suite did
  local suite
  for suite in "${suites[@]}"; do record "$suite" FAIL "$1"; done
  summary
  exit 1
}

# --- shared prerequisites -------------------------------------------------------------------------
# The kafka-tools suite runs `strand topics` against either broker.
if [[ $STRAND_COMPAT_BROKER == strand || " ${suites[*]} " == *" kafka-tools "* ]]; then
  log "building strand (cargo build ${profile_flag[*]} -p strand-cli)"
  (cd "$repo" && cargo build "${profile_flag[@]}" -p strand-cli) || fail_all "cargo build ${profile_flag[*]} -p strand-cli failed"
fi
# Kafka's jars: the oracle broker and the kafka-tools suite run from them.
"$repo/compat/kafka/fetch-jars.sh" || fail_all "compat/kafka/fetch-jars.sh failed"

# --- per suite ------------------------------------------------------------------------------------
need() { command -v "$1" > /dev/null || { echo "$1 not found on PATH" >&2; return 1; }; }

python_venv() {
  need "$python" || return 1
  local venv="$here/python/.venv"
  if [[ ! -x $venv/bin/python ]]; then
    "$python" -m venv "$venv" || return 1
  fi
  "$venv/bin/python" -m pip install --quiet --disable-pip-version-check -r "$here/python/requirements.txt"
}

install() { # SUITE: fetch what it needs
  case $1 in
    java | spring | streams) need mvn && need java && mvn -B -ntp -q -Dstyle.color=never -f "$here/$1/pom.xml" test-compile 2>&1 | decolor ;;
    go) need go && (cd "$here/go" && go mod download) ;;
    python | kafka-tools) need java && python_venv ;;
    node) need node && need npm && (cd "$here/node" && npm ci --no-audit --no-fund --loglevel=error) ;;
    # Every client of the matrix: the Python venv, the go suite's modules, the node suite's kafkajs.
    security) need java && need openssl && python_venv && install go && install node ;;
    # The harness (the profile of the strand it drives) and its franz-go workload.
    nemesis) need go && (cd "$repo/tools/nemesis/workload" && go build -o "$repo/target/nemesis-workload" .) &&
      (cd "$repo" && cargo build "${profile_flag[@]}" -p strand-nemesis) ;;
    console) browser_packages && python_venv ;;
  esac
}

# Debian's chromium and chromium-driver (the console suite's browser), installed once: apt-get as
# root, else through sudo.
browser_packages() {
  command -v chromium > /dev/null && command -v chromedriver > /dev/null && return 0
  local apt=(apt-get install -y --no-install-recommends chromium chromium-driver)
  if [[ $(id -u) -eq 0 ]]; then "${apt[@]}" || { apt-get update && "${apt[@]}"; }
  else sudo "${apt[@]}" || { sudo apt-get update && sudo "${apt[@]}"; }
  fi
}

# Debian's Maven writes colour escapes even with -B and style.color=never.
decolor() { sed -u $'s/\e\\[[0-9;]*m//g'; }

run() { # SUITE: its test command, run from its directory (pipefail: a pipeline fails with its command)
  case $1 in
    java | spring | streams) cd "$here/$1" && mvn -B -ntp -Dstyle.color=never test 2>&1 | decolor ;;
    # go test's own -timeout panics without cleanup: let run.sh's SIGTERM come first.
    go) cd "$here/go" && exec go test -count=1 -timeout "$((suite_timeout + 60))s" -v ./... ;;
    python) cd "$here/python" && exec .venv/bin/python -m pytest -v ;;
    node) cd "$here/node" && exec node --test --test-concurrency=1 ;;
    kafka-tools) cd "$here/kafka-tools" && exec ../python/.venv/bin/python -m pytest -v ;;
    # Screenshots of every page go to target/console-screenshots (STRAND_CONSOLE_SCREENSHOTS).
    console) cd "$here/console" && exec ../python/.venv/bin/python -m pytest -v ;;
    security) cd "$here/security" && exec ../python/.venv/bin/python -u run.py ;;
    # Every fault kind once, zero anomalies required (STRAND_NEMESIS_SEED picks another schedule).
    nemesis) cd "$here/.." && exec "target/$STRAND_COMPAT_PROFILE/nemesis" run --smoke --txn --seed "${STRAND_NEMESIS_SEED:-1}" \
      --bin "$STRAND_BIN" --workload target/nemesis-workload ;;
  esac
}

# Every launcher makes its broker's run directory under $TMPDIR: one scratch directory per run,
# deleted at the end, so nothing is left in /tmp even when a suite is killed.
scratch="$(mktemp -d "${TMPDIR:-/tmp}/strand-compat-run.XXXXXX")"
export TMPDIR="$scratch"
current_group=""
cleanup() {
  # On Ctrl-C or SIGTERM, stop the running suite's whole process group (its broker included).
  if [[ -n $current_group ]]; then
    kill -TERM -- "-$current_group" 2> /dev/null
    sleep 2
    kill -KILL -- "-$current_group" 2> /dev/null
  fi
  rm -rf "$scratch"
}
trap 'cleanup' EXIT
trap 'log interrupted; exit 130' INT TERM

for suite in "${suites[@]}"; do
  echo
  echo "=== compat $suite (broker: $STRAND_COMPAT_BROKER) ==="
  if ! install "$suite"; then
    record "$suite" FAIL "installing its dependencies failed"
    continue
  fi
  start=$SECONDS
  # timeout leads a process group of its own holding the suite and the broker it starts; on
  # expiry it signals the whole group.
  timeout -k 10 "$suite_timeout" bash -c "set -o pipefail; $(declare -f run decolor); here='$here' suite_timeout='$suite_timeout' STRAND_COMPAT_PROFILE='$STRAND_COMPAT_PROFILE' run '$suite'" &
  current_group=$!
  wait "$current_group"
  status=$?
  elapsed=$((SECONDS - start))
  # A suite must stop its broker itself. After a timeout, its processes get 15 s to finish their
  # shutdown hooks (stopping the broker, deleting its files); anything left then is reported and killed.
  grace_end=$((SECONDS + 15))
  while leftovers="$(pgrep -g "$current_group" -a 2> /dev/null)" && [[ -n $leftovers ]] && ((SECONDS < grace_end)); do
    sleep 0.2
  done
  if [[ -n $leftovers ]]; then
    log "$suite left processes behind, killing them:"
    printf '%s\n' "$leftovers" >&2
    kill -KILL -- "-$current_group" 2> /dev/null
    [[ $status -eq 0 ]] && status=1
  fi
  current_group=""
  if [[ $status -eq 0 ]]; then
    record "$suite" PASS "${elapsed} s"
  elif [[ $status -eq 124 || $status -eq 137 ]]; then
    record "$suite" FAIL "${elapsed} s, timed out after ${suite_timeout} s"
  else
    record "$suite" FAIL "${elapsed} s, exit status $status"
  fi
done

summary
