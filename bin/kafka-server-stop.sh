#!/bin/sh
# Kafka's kafka-server-stop.sh: sends SIGTERM ($SIGNAL if set) to every `strand server` process
# of this machine, or with --process-role=broker|controller only those whose process.roles holds
# that role, with --node-id=N only node N (read, as Kafka's script does, from the server's
# properties file and its --override flags; without a file, strand's one-node defaults).
# "No kafka server to stop" and exit 1 when none matches.
signal=${SIGNAL:-TERM}
role=
node=
for arg in "$@"; do
  case $arg in
    --process-role=*) role=${arg#--process-role=} ;;
    --node-id=*) node=${arg#--node-id=} ;;
    *) echo "USAGE: $0 [--process-role=broker|controller] [--node-id=N]" >&2; exit 1 ;;
  esac
done

# setting KEY FILE ARGS...: KEY's value in FILE, then in the --override flags (the last wins).
setting() {
  key=$1 file=$2
  shift 2
  value=
  if [ -n "$file" ] && [ -r "$file" ]; then
    value=$(sed -n "s/^[[:space:]]*$key[[:space:]]*[=:][[:space:]]*//p" "$file" | tail -n 1)
  fi
  while [ $# -gt 0 ]; do
    if [ "$1" = "--override" ]; then
      case $2 in "$key="*) value=${2#"$key="} ;; esac
    fi
    shift
  done
  printf '%s' "$value"
}

pids=
for proc in /proc/[0-9]*; do
  [ -r "$proc/cmdline" ] || continue
  # The process's arguments, one a line (none holds a newline in practice).
  args=$(tr '\0' '\n' < "$proc/cmdline" 2> /dev/null) || continue
  exe=$(printf '%s\n' "$args" | sed -n 1p)
  [ "$(basename "$exe")" = strand ] && [ "$(printf '%s\n' "$args" | sed -n 2p)" = server ] || continue
  file=$(printf '%s\n' "$args" | sed -n 3p)
  case $file in
    --override | "") file= ;;
    /*) ;;
    *) file="$proc/cwd/$file" ;;
  esac
  # shellcheck disable=SC2046 # one argument a line
  set -f
  IFS='
'
  set -- $(printf '%s\n' "$args" | sed 1,2d)
  unset IFS
  set +f
  defaults_roles=broker,controller defaults_node=1
  [ -n "$file" ] && defaults_roles= defaults_node=
  roles=$(setting process.roles "$file" "$@")
  id=$(setting node.id "$file" "$@")
  roles=${roles:-$defaults_roles}
  id=${id:-$defaults_node}
  if [ -n "$role" ]; then
    case ",$(printf '%s' "$roles" | tr -d ' ')," in *",$role,"*) ;; *) continue ;; esac
  fi
  if [ -n "$node" ] && [ "$id" != "$node" ]; then continue; fi
  pids="$pids ${proc#/proc/}"
done

if [ -z "$pids" ]; then
  echo "No kafka server to stop"
  exit 1
fi
# shellcheck disable=SC2086 # one pid a word
kill -s "$signal" $pids
