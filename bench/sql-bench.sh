#!/usr/bin/env bash
# Runs io.tradestore.bench.SqlBenchmark with the chronicle JVM flags. Build first:
#   mvn -B -o -pl store-server,bench -am package -DskipTests
# Full-size runs only under the machine's benchmark lock:
#   flock /tmp/tradestore-bench.lock bench/sql-bench.sh --store /tmp/tradestore-bench-10m --rows 10000000
# The server runs with the heap settings of `bin/tradestore serve` (G1, a heap floor of 4% of RAM; see there).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
source "$here/bench/jvm-flags.sh"
exec java "${CHRONICLE_FLAGS[@]}" -Xmx2g -XX:+UseG1GC -XX:InitialRAMPercentage=4 ${BENCH_JAVA_OPTS:-} \
  -cp "$here/bench/target/tradestore-bench.jar" io.tradestore.bench.SqlBenchmark "$@"
