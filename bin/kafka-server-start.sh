#!/bin/sh
# Kafka's kafka-server-start.sh: `strand server server.properties [--override key=value]...`.
# With -daemon it runs in the background, as Kafka's does, its output in $LOG_DIR/NAME.out and
# its pid in $LOG_DIR/NAME.pid, NAME being the properties file's name without .properties and
# LOG_DIR, as in Kafka, the logs directory beside these scripts unless set. (Kafka's writes
# kafkaServer.out and no pid file: here several nodes can share one LOG_DIR.)
if [ $# -lt 1 ]; then
  echo "USAGE: $0 [-daemon] server.properties [--override property=value]*"
  exit 1
fi
here=$(dirname "$0")
if [ "$1" != "-daemon" ]; then
  exec "$here/kafka-run-strand.sh" server "$@"
fi
shift
log_dir=${LOG_DIR:-"$here/../logs"}
mkdir -p "$log_dir" || exit 1
name=$(basename "${1:-server}" .properties)
nohup "$here/kafka-run-strand.sh" server "$@" > "$log_dir/$name.out" 2>&1 < /dev/null &
echo $! > "$log_dir/$name.pid"
