#!/usr/bin/env bash
# Runs io.tradestore.bench.RetentionBenchmark (dropping the oldest day: tradestore against DuckDB) with the chronicle
# JVM flags, from the bench jar (it carries DuckDB). Build first:
#   mvn -B -o -pl bench -am package -DskipTests
# Only under the machine's benchmark lock:
#   flock /tmp/tradestore-bench.lock bench/retention-bench.sh --rows 50000000 --report docs/benchmarks.md
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
source "$here/bench/jvm-flags.sh"
exec java "${CHRONICLE_FLAGS[@]}" -Xmx4g -XX:+UseG1GC ${BENCH_JAVA_OPTS:-} \
  -cp "$here/bench/target/tradestore-bench.jar" io.tradestore.bench.RetentionBenchmark "$@"
