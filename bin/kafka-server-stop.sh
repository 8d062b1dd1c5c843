#!/bin/sh
# Kafka's kafka-server-stop.sh: sends SIGTERM ($SIGNAL if set) to every `strand server` process
# of this machine; with --node-id=N only to node N, with --process-role=ROLE only to nodes whose
# process.roles is ROLE (as Kafka, exactly: `broker` leaves `broker,controller` nodes running;
# --node-id wins when both are given). The id and roles are read, as Kafka's script reads them,
# from the server's properties file and its --override flags (no file: strand's one-node
# defaults). "No kafka server to stop" and exit 1 when no server runs at all.
signal=${SIGNAL:-TERM}
signal=${signal#SIG}
role=
node=
for arg in "$@"; do
  case $arg in
    --process-role=*) role=${arg#--process-role=} ;;
    --node-id=*) node=${arg#--node-id=} ;;
    *) echo "USAGE: $0 [--process-role=broker|controller|broker,controller] [--node-id=N]" >&2; exit 1 ;;
  esac
done
if [ -n "$node" ] && [ -n "$role" ]; then
  echo "When both node-id and process-role are provided, the value for node-id will take precedence"
  role=
fi

# setting KEY FILE ARGS...: KEY's value in FILE (Java properties: `=`, `:` or blanks between key
# and value; CR line ends), then in ARGS' --override flags; the last one wins.
setting() {
  key=$1 file=$2
  shift 2
  value=
  if [ -n "$file" ] && [ -r "$file" ]; then
    pattern=$(printf '%s' "$key" | sed 's/\./\\./g')
    value=$(tr -d '\r' < "$file" | sed -n "s/^[[:space:]]*$pattern[[:space:]]*[=:[:space:]][[:space:]]*//p" | tail -n 1)
  fi
  while [ $# -gt 0 ]; do
    case $1 in
      --override) shift; case ${1-} in "$key="*) value=${1#"$key="} ;; esac ;;
      --override="$key="*) value=${1#"--override=$key="} ;;
    esac
    [ $# -gt 0 ] && shift
  done
  printf '%s' "$value" | sed 's/[[:space:]]*$//'
}

found=
pids=
for proc in /proc/[0-9]*; do
  # The executable's name, read without a fork: only strand's arguments are read further.
  comm=
  read -r comm < "$proc/comm" 2> /dev/null || continue
  [ "$comm" = strand ] || continue
  # The process's arguments, one a line (none holds a newline in practice).
  args=$(tr '\0' '\n' < "$proc/cmdline" 2> /dev/null) || continue
  exe=$(printf '%s\n' "$args" | sed -n 1p)
  [ "$(basename "$exe")" = strand ] && [ "$(printf '%s\n' "$args" | sed -n 2p)" = server ] || continue
  found=yes
  set -f
  IFS='
'
  # shellcheck disable=SC2046 # one argument a line
  set -- $(printf '%s\n' "$args" | sed 1,2d)
  unset IFS
  set +f
  # The properties file: the first argument that is no --override flag nor its value.
  file=
  skip=
  for arg in "$@"; do
    if [ -n "$skip" ]; then skip=; continue; fi
    case $arg in
      --override) skip=yes ;;
      --override=*) ;;
      *) file=$arg; break ;;
    esac
  done
  case $file in
    "" | /*) ;;
    *) file="$proc/cwd/$file" ;;
  esac
  roles=$(setting process.roles "$file" "$@")
  id=$(setting node.id "$file" "$@")
  if [ -z "$file" ]; then
    roles=${roles:-broker,controller}
    id=${id:-1}
  fi
  if [ -n "$node" ] && [ "$id" != "$node" ]; then continue; fi
  if [ -n "$role" ] && [ "$(printf '%s' "$roles" | tr -d ' ')" != "$role" ]; then continue; fi
  pids="$pids ${proc#/proc/}"
done

if [ -z "$found" ]; then
  echo "No kafka server to stop"
  exit 1
fi
if [ -n "$pids" ]; then
  # shellcheck disable=SC2086 # one pid a word
  kill -s "$signal" $pids
fi
