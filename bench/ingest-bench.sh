#!/usr/bin/env bash
# Runs io.tradestore.bench.IngestBenchmark (line protocol over HTTP against the CSV loader, and under a query load)
# with the chronicle JVM flags, as the server runs. Build first:
#   mvn -B -o -pl store-server,bench -am package -DskipTests
# Only under the machine's benchmark lock:
#   flock /tmp/tradestore-bench.lock bench/ingest-bench.sh --rows 4000000 --seconds 20
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
source "$here/bench/jvm-flags.sh"
exec java "${CHRONICLE_FLAGS[@]}" -Xmx4g -XX:+UseG1GC ${BENCH_JAVA_OPTS:-} \
  -cp "$here/store-server/target/tradestore.jar:$here/bench/target/classes" io.tradestore.bench.IngestBenchmark "$@"
