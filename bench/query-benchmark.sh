#!/usr/bin/env bash
# The eight reference queries, tradestore vs DuckDB on the same generated trades (io.tradestore.bench.QueryBenchmark).
# Usage: flock /tmp/tradestore-bench.lock bench/query-benchmark.sh [--rows 50000000] [--threads 2] [--runs 7] [--warmups 5]
#        [--out docs/benchmarks.md] [--dir /path/for/store] [--segment-rows N] [--seed N] [--floor-mib 2048]
# Prints progress on stderr and the Markdown report on stdout. TRADESTORE_BENCH_HEAP sets -Xmx (default 4g).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$here"
mvn -B -q -o -DskipTests -Dcheckstyle.skip -pl bench -am package dependency:build-classpath \
  -Dmdep.outputFile=target/classpath.txt -Dmdep.includeScope=runtime >&2
source bench/jvm-flags.sh
exec java -Xmx"${TRADESTORE_BENCH_HEAP:-4g}" "${CHRONICLE_FLAGS[@]}" -Dtradestore.boundsChecks=false \
  -cp "bench/target/classes:$(cat bench/target/classpath.txt)" io.tradestore.bench.QueryBenchmark "$@"
