#!/usr/bin/env bash
# Runs Kafka's own command-line tools (as shipped in kafka-tools) against a
# broker so that the golden-capture recording proxy in front of it sees their
# frames. The classes are the ones behind kafka-topics.sh,
# kafka-console-producer.sh, kafka-console-consumer.sh,
# kafka-consumer-groups.sh and kafka-get-offsets.sh.
#
# Usage: run.sh <bootstrap> <kafka-libs-dir>
set -euo pipefail

if [ $# -ne 2 ]; then
  echo "usage: $0 <bootstrap> <kafka-libs-dir>" >&2
  exit 2
fi
BOOTSTRAP=$1
LIBS=$2
HERE=$(cd "$(dirname "$0")" && pwd)
TOPIC=golden-java-tools
GROUP=golden-java-tools-group
N=20

kafka() {
  local cls=$1
  shift
  echo "[java-tools] ${cls##*.} $*"
  java -Xshare:auto -XX:TieredStopAtLevel=1 -Xmx256m \
    -Dlog4j2.configurationFile="$HERE/log4j2.properties" \
    -cp "$LIBS/*" "$cls" "$@"
}

kafka org.apache.kafka.tools.TopicCommand --bootstrap-server "$BOOTSTRAP" \
  --create --topic "$TOPIC" --partitions 3 --replication-factor 1
kafka org.apache.kafka.tools.TopicCommand --bootstrap-server "$BOOTSTRAP" --describe --topic "$TOPIC"
kafka org.apache.kafka.tools.TopicCommand --bootstrap-server "$BOOTSTRAP" --list

# headers <TAB> key <TAB> value; uncompressed, acks=all.
for i in $(seq 0 $((N - 1))); do
  printf 'client:java-tools,seq:%d\tjava-tools-key-%d\tjava-tools value %d, uncompressed\n' "$i" "$i" "$i"
done | kafka org.apache.kafka.tools.ConsoleProducer --bootstrap-server "$BOOTSTRAP" --topic "$TOPIC" \
  --compression-codec none --request-required-acks all \
  --reader-property parse.key=true --reader-property parse.headers=true \
  --command-property linger.ms=20

kafka org.apache.kafka.tools.consumer.ConsoleConsumer --bootstrap-server "$BOOTSTRAP" --topic "$TOPIC" \
  --group "$GROUP" --from-beginning --max-messages "$N" --timeout-ms 30000 \
  --formatter-property print.key=true --formatter-property print.headers=true \
  --formatter-property print.partition=true --formatter-property print.offset=true \
  --command-property fetch.max.wait.ms=200

kafka org.apache.kafka.tools.consumer.group.ConsumerGroupCommand --bootstrap-server "$BOOTSTRAP" --list
kafka org.apache.kafka.tools.consumer.group.ConsumerGroupCommand --bootstrap-server "$BOOTSTRAP" \
  --describe --group "$GROUP"
kafka org.apache.kafka.tools.consumer.group.ConsumerGroupCommand --bootstrap-server "$BOOTSTRAP" \
  --describe --group "$GROUP" --state
kafka org.apache.kafka.tools.GetOffsetShell --bootstrap-server "$BOOTSTRAP" --topic "$TOPIC" --time -1
kafka org.apache.kafka.tools.GetOffsetShell --bootstrap-server "$BOOTSTRAP" --topic "$TOPIC" --time -2
echo "[java-tools] done"
