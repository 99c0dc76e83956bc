#!/usr/bin/env bash
# Runs io.tradestore.bench.HttpBenchmark with the chronicle JVM flags. Build first:
#   mvn -B -o -pl store-server,bench -am package -DskipTests
# Full-size runs only under the machine's benchmark lock:
#   flock /tmp/tradestore-bench.lock bench/http-bench.sh --store /tmp/tradestore-bench-50m --rows 50000000
# The server runs with the heap settings of `bin/tradestore serve` (G1, a heap floor of 4% of RAM; see there).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
source "$here/bench/jvm-flags.sh"
exec java "${CHRONICLE_FLAGS[@]}" -Xmx2g -XX:+UseG1GC -XX:InitialRAMPercentage=4 ${BENCH_JAVA_OPTS:-} \
  -cp "$here/store-server/target/tradestore.jar:$here/bench/target/classes" io.tradestore.bench.HttpBenchmark "$@"
