#!/usr/bin/env bash
# The storage-layouts benchmark (docs/benchmarks.md, "Storage layouts"): 50M trades as Java objects, off-heap ROW
# flyweights and the COLUMN layout, the memory-bandwidth floor and single-writer append throughput, in one run; then
# the off-heap variants once more in a JVM limited to a 64 MB heap, to show they hold 50M trades without heap.
#   bench/run-layouts.sh [ROWS] [extra LayoutsBenchmark options, e.g. --dir /path/on/disk]
# Every run holds /tmp/tradestore-bench.lock so that only one benchmark runs on the machine at a time.
set -euo pipefail
cd "$(dirname "$0")/.."
ROWS="${1:-50000000}"
shift || true
mvn -B -o -q -pl bench -am package -DskipTests
# the bench module's shaded jar: LayoutsBenchmark's options need picocli, which store-core's classpath lacks
CP="bench/target/tradestore-bench.jar"
source bench/jvm-flags.sh
FLAGS=("${CHRONICLE_FLAGS[@]}" -Dtradestore.boundsChecks=false -XX:+UseG1GC)
echo "== all variants, -Xmx8g (the Java-objects variant needs the heap)"
flock /tmp/tradestore-bench.lock java "${FLAGS[@]}" -Xmx8g -cp "$CP" io.tradestore.bench.LayoutsBenchmark --rows "$ROWS" "$@"
echo
echo "== off-heap variants only, -Xmx64m"
flock /tmp/tradestore-bench.lock java "${FLAGS[@]}" -Xms64m -Xmx64m -cp "$CP" io.tradestore.bench.LayoutsBenchmark --rows "$ROWS" \
  --variants floor,row,column "$@"
