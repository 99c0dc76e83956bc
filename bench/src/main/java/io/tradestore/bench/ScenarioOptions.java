package io.tradestore.bench;

import java.nio.file.Path;

import picocli.CommandLine.Option;

/**
 * The options {@code tradestore bench} and the query benchmark share (picocli reads them from this superclass of both
 * commands): the data, the threads of both systems, the runs and warm-ups of each query, the work directory and the
 * memory-bandwidth probe's size.
 */
class ScenarioOptions {
    @Option(names = "--rows", paramLabel = "N", converter = BenchCli.Rows.class,
        description = "trades to generate (default: ${DEFAULT-VALUE};"
        + " 50_000_000 also reads)")
    long rows = 50_000_000L;

    @Option(names = "--threads", paramLabel = "N", converter = BenchCli.Count.class,
        description = "threads for tradestore and DuckDB alike"
        + " (default: ${DEFAULT-VALUE})")
    int threads = 2;

    @Option(names = "--runs", paramLabel = "N", converter = BenchCli.Count.class,
        description = "measured runs per query and system, each"
        + " after 20 ms of quiet (default: ${DEFAULT-VALUE})")
    int runs = 7;

    @Option(names = "--warmups", paramLabel = "N", converter = BenchCli.NonNegative.class,
        description = "unmeasured runs per query and"
        + " system first, alternating like the measured ones (default: ${DEFAULT-VALUE})")
    int warmups = 5;

    @Option(names = "--warmup-ms", paramLabel = "MS", converter = BenchCli.Millis.class,
        description = "then each system runs the query back"
        + " to back, unmeasured, for this long (default: ${DEFAULT-VALUE})")
    long warmupMs = QueryBenchmark.DEFAULT_WARMUP_MS;

    @Option(names = "--segment-rows", paramLabel = "N", converter = BenchCli.SegmentRows.class,
        description = "rows per tradestore segment, a"
        + " power of two (default: the schema's; small values for smoke runs)")
    int segmentRows;

    @Option(names = "--seed", paramLabel = "N", description = "seed of the generated data (default: ${DEFAULT-VALUE})")
    long seed = 42;

    @Option(names = "--dir", paramLabel = "DIR",
        description = "work directory for the stores (and the CSV and DuckDB's spill files); kept"
        + " when given (default: a temporary directory, deleted afterwards)")
    Path dir;

    @Option(names = "--floor-mib", paramLabel = "N", converter = BenchCli.Count.class,
        description = "size of the memory-bandwidth probe"
        + " in MiB (default: ${DEFAULT-VALUE})")
    int floorMib = 2048;

    /**
     * The query benchmark's options for these.
     *
     * @param storeDir where the store goes (null: a temporary directory).
     * @param out      a Markdown file to write the report into, or null.
     * @return the options.
     */
    QueryBenchmark.Options queryOptions(final Path storeDir, final Path out) {
        return new QueryBenchmark.Options(rows, threads, runs, warmups, warmupMs, segmentRows, seed, storeDir, out,
            (long) floorMib << 20);
    }
}
