#!/usr/bin/env bash
# Copies Apache Kafka's runtime classpath (see pom.xml) to <repo>/target/kafka-libs, where the
# compatibility tests run Kafka's own tools against Strand's files. Idempotent: does nothing when
# the expected jars are already there. Prints one line on success. Needs Maven and a JDK 17+.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
libs="$repo/target/kafka-libs"
# The core jar, the jar holding DumpLogSegments, and the logging binding pom.xml adds.
expected=(kafka_2.13-4.4.0.jar kafka-tools-4.4.0.jar log4j-slf4j-impl-2.25.5.jar)

missing() {
    local jar
    for jar in "${expected[@]}"; do
        [[ -f "$libs/$jar" ]] || echo "$jar"
    done
}

if [[ -z "$(missing)" ]]; then
    echo "kafka-libs: $libs already has ${expected[0]}"
    exit 0
fi

mkdir -p "$libs"
# Maven writes colour escapes even with -q -B; keep its output for the failure case only.
if ! mvn_output="$(mvn -q -B -f "$here/pom.xml" dependency:copy-dependencies \
    -DincludeScope=runtime -DoutputDirectory="$libs" 2>&1)"; then
    printf '%s\n' "$mvn_output" >&2
    echo "kafka-libs: mvn dependency:copy-dependencies failed" >&2
    exit 1
fi

if [[ -n "$(missing)" ]]; then
    echo "kafka-libs: still missing from $libs after mvn: $(missing | tr '\n' ' ')" >&2
    exit 1
fi
echo "kafka-libs: copied $(find "$libs" -name '*.jar' | wc -l) jars to $libs"
