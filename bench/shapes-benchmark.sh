#!/usr/bin/env bash
# Query shapes nobody tuned for, drawn by the differential test's grammar with a fixed seed, tradestore vs DuckDB
# (ENUM symbol columns) on the same generated trades, answers compared before timing
# (io.tradestore.bench.ShapesBenchmark; `tradestore bench` runs the same shapes as its `shapes` step).
# Usage: flock /tmp/tradestore-bench.lock bench/shapes-benchmark.sh [--rows 50000000] [--threads 2] [--runs 7]
#        [--warmups 5] [--warmup-ms 2000] [--out docs/benchmarks.md] [--dir /path/for/store] [--segment-rows N]
#        [--seed N] [--floor-mib 2048] [--shape-seed 27] [--shape-count 24] [--hand-written] [--list]
# --seed seeds the data, --shape-seed the shapes (which also depend on the data: literals are drawn from a sample of
# its rows); --hand-written runs a fixed list of 31 hand-written shapes instead; --list prints the drawn shapes
# without loading anything.
# Prints progress on stderr and the Markdown report on stdout. TRADESTORE_BENCH_HEAP sets -Xmx (default 4g).
# Runs from the bench module's shaded jar (as bin/tradestore bench does), so it needs no Maven dependency plugin.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$here"
mvn -B -q -o -DskipTests -Dcheckstyle.skip -pl bench -am package >&2
source bench/jvm-flags.sh
exec java -Xmx"${TRADESTORE_BENCH_HEAP:-4g}" "${CHRONICLE_FLAGS[@]}" -XX:+UseG1GC -Dtradestore.boundsChecks=false \
  -cp "bench/target/tradestore-bench.jar" io.tradestore.bench.ShapesBenchmark "$@"
