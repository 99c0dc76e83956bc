package io.tradestore.bench;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;

import io.tradestore.core.Store;
import io.tradestore.core.flyweight.TradesSchema;
import io.tradestore.core.ingest.CsvLoader;
import io.tradestore.core.ingest.LoadOptions;
import io.tradestore.core.ingest.LoadResult;
import io.tradestore.core.sample.TradeGenerator;
import io.tradestore.core.schema.Schema;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * CSV load scenario: the same generated trades CSV loaded by tradestore ({@link CsvLoader}) and by DuckDB
 * ({@code CREATE TABLE AS SELECT * FROM read_csv(...)} through duckdb_jdbc, in memory) with the same thread count,
 * the file in the page cache, alternating runs; prints every run, the medians and the ratio.
 *
 * <pre>
 * flock /tmp/tradestore-bench.lock mvn -B -o -q -pl bench -am verify -DskipTests -Pload-bench \
 *     -Dload.args="--rows 50000000 --threads 2 --runs 5 --file /tmp/trades-50m.csv --store /tmp/loadbench"
 * </pre>
 */
@Command(name = "LoadBenchmark", mixinStandardHelpOptions = true,
    description =
        {"The same generated trades CSV loaded by tradestore and by DuckDB read_csv with the same thread count, the "
        + "file in the"
        + " page cache, alternating runs; prints every run, the medians and the ratio."})
public final class LoadBenchmark implements Callable<Integer> {
    private static final com.sun.management.OperatingSystemMXBean OS =
        (com.sun.management.OperatingSystemMXBean) java.lang.management.ManagementFactory.getOperatingSystemMXBean();

    @Option(names = "--rows", paramLabel = "N", converter = BenchCli.Rows.class,
        description = "trades in the CSV (default: ${DEFAULT-VALUE})")
    long rows = 50_000_000L;

    @Option(names = "--threads", paramLabel = "N", converter = BenchCli.Count.class,
        description = "loader threads of both systems"
        + " (default: ${DEFAULT-VALUE})")
    int threads = 2;

    @Option(names = "--runs", paramLabel = "N", converter = BenchCli.Count.class,
        description = "loads per system (default: ${DEFAULT-VALUE})")
    int runs = 3;

    @Option(names = "--seed", paramLabel = "N",
        description = "seed of the generated trades (default: ${DEFAULT-VALUE})")
    long seed = 42;

    @Option(names = "--file", paramLabel = "CSV",
        description = "the CSV, generated when missing (default: /tmp/trades-ROWS.csv)")
    Path csv;

    @Option(names = "--store", paramLabel = "DIR",
        description = "where each run's store goes, deleted after it (default: ${DEFAULT-VALUE})")
    Path store = Paths.get("/tmp/tradestore-loadbench");

    @Option(names = "--no-duckdb", description = "load with tradestore only")
    boolean noDuckdb;

    @Option(names = "--thread-times",
        description = "print the CPU and run-queue time of each thread group per tradestore load (from /proc)")
    boolean threadTimes;

    LoadBenchmark() {
    }

    private static String loadAverage() {
        try {
            return Files.readString(Paths.get("/proc/loadavg")).trim();
        } catch (final IOException e) {
            return "?";
        }
    }

    /**
     * Runs the scenario; exits 1 when it fails, 2 on bad usage.
     *
     * @param args see the options, or {@code --help}.
     */
    public static void main(final String[] args) {
        BenchCli.exit(new LoadBenchmark(), args);
    }

    @Override
    public Integer call() throws Exception {
        final Path file = csv != null ? csv : Paths.get("/tmp/trades-" + rows + ".csv");
        if (!Files.exists(file)) {
            final long t0 = System.nanoTime();
            final long bytes = TradeGenerator.writeCsv(file, rows, seed);
            final double s = (System.nanoTime() - t0) / 1e9;
            System.out.printf(Locale.ROOT, "generated %,d rows (%,d bytes) in %.2f s: %.2f M rows/s%n", rows, bytes, s,
                rows / s / 1e6);
        }
        final long bytes = Files.size(file);
        System.out.printf(Locale.ROOT, "file %s: %,d bytes; threads=%d; cores=%d; java %s%n", file, bytes, threads,
            Runtime.getRuntime().availableProcessors(), System.getProperty("java.version"));
        warm(file);
        final List<Double> ours = new ArrayList<>();
        final List<Double> theirs = new ArrayList<>();
        final List<Double> oursCpu = new ArrayList<>();
        final List<Double> theirsCpu = new ArrayList<>();
        long loaded = 0;
        for (int run = 0; run < runs; run++) {
            final Path dir = store.resolve("run" + run);
            BenchCommand.deleteTree(dir);
            System.out.println("load average before run " + run + ": " + loadAverage());
            final ThreadTimes times = threadTimes ? ThreadTimes.start() : null;
            final long c0 = OS.getProcessCpuTime();
            final long t0 = System.nanoTime();
            final LoadResult r = tradestoreLoad(dir, TradesSchema.SCHEMA, file, threads);
            final double s = (System.nanoTime() - t0) / 1e9;
            final double cpu = (OS.getProcessCpuTime() - c0) / 1e9;
            if (times != null) {
                System.out.print(times.stop());
            }
            loaded = r.rowsLoaded();
            ours.add(s);
            oursCpu.add(cpu);
            System.out.printf(Locale.ROOT,
                "run %d tradestore: %,d rows in %.3f s: %.2f M rows/s, %.0f MB/s; cpu %.2f s (%.0f ns/row)%n",
                run, r.rowsLoaded(), s, r.rowsLoaded() / s / 1e6, bytes / s / 1e6, cpu, cpu * 1e9 / r.rowsLoaded());
            BenchCommand.deleteTree(dir);
            if (!noDuckdb) {
                final long dc0 = OS.getProcessCpuTime();
                final double d = duckdb(file, threads);
                final double dcpu = (OS.getProcessCpuTime() - dc0) / 1e9;
                theirs.add(d);
                theirsCpu.add(dcpu);
                System.out.printf(Locale.ROOT,
                    "run %d duckdb:     %,d rows in %.3f s: %.2f M rows/s, %.0f MB/s; cpu %.2f s (%.0f ns/row)%n",
                    run, loaded, d, loaded / d / 1e6, bytes / d / 1e6, dcpu, dcpu * 1e9 / loaded);
            }
        }
        final double m = median(ours);
        final double mc = median(oursCpu);
        System.out.printf(Locale.ROOT,
            "median tradestore: %.3f s, %.2f M rows/s, %.0f MB/s; cpu %.2f s = %.0f ns/row (runs %s)%n", m,
            loaded / m / 1e6, bytes / m / 1e6, mc, mc * 1e9 / loaded, ours);
        if (!noDuckdb) {
            final double d = median(theirs);
            final double dc = median(theirsCpu);
            System.out.printf(Locale.ROOT,
                "median duckdb:     %.3f s, %.2f M rows/s, %.0f MB/s; cpu %.2f s = %.0f ns/row (runs %s)%n", d,
                loaded / d / 1e6, bytes / d / 1e6, dc, dc * 1e9 / loaded, theirs);
            System.out.printf(Locale.ROOT, "ratio: tradestore is %.2fx DuckDB's rows/s (wall), %.2fx per cpu-second%n",
                d / m, dc / mc);
        }
        System.out.println("load average at the end: " + loadAverage());
        return 0;
    }

    private static double duckdb(final Path file, final int threads) throws SQLException {
        try (Connection c = DriverManager.getConnection("jdbc:duckdb:"); Statement st = c.createStatement()) {
            st.execute("SET threads=" + threads);
            return duckdbLoad(c, file, null);
        }
    }

    /** DuckDB column types of the default trades schema for {@code read_csv(..., columns=...)}. */
    static final String DUCKDB_TRADES_COLUMNS =
        "{'trade_id':'BIGINT','ts':'TIMESTAMP','client_id':'BIGINT','venue':'VARCHAR',"
        + "'instrument':'VARCHAR','side':'VARCHAR','price':'DECIMAL(18,6)','quantity':'BIGINT'}";

    /**
     * Loads a CSV file into table {@code trades} of a DuckDB connection ({@code CREATE TABLE trades AS SELECT * FROM
     * read_csv(...)}), dropping an existing one first (untimed).
     *
     * @param c       the connection (its thread count set by the caller).
     * @param file    the CSV file.
     * @param columns a DuckDB struct of column types, or null to let read_csv detect them.
     * @return seconds the load took.
     * @throws SQLException when DuckDB fails.
     */
    static double duckdbLoad(final Connection c, final Path file, final String columns) throws SQLException {
        try (Statement st = c.createStatement()) {
            st.execute("DROP TABLE IF EXISTS trades");
            final long t0 = System.nanoTime();
            st.execute("CREATE TABLE trades AS SELECT * FROM read_csv('" + file.toString().replace("'", "''") + "'"
                + (columns == null ? "" : ", header=true, columns=" + columns) + ")");
            final double s = (System.nanoTime() - t0) / 1e9;
            try (ResultSet rs = st.executeQuery("SELECT count(*) FROM trades")) {
                rs.next();
                if (rs.getLong(1) <= 0) {
                    throw new IllegalStateException("duckdb loaded nothing");
                }
            }
            return s;
        }
    }

    /**
     * Loads a CSV file into a fresh store with tradestore's loader.
     *
     * @param dir     the store directory (must not hold the table yet).
     * @param schema  the table's schema.
     * @param file    the CSV file.
     * @param threads parser threads.
     * @return what the loader reports (its elapsed time included).
     */
    static LoadResult tradestoreLoad(final Path dir, final Schema schema, final Path file, final int threads) {
        try (Store store = Store.open(dir)) {
            return CsvLoader.load(store.openOrCreate(schema), List.of(file),
                LoadOptions.defaults().withThreads(threads), null);
        }
    }

    static void warm(final Path file) throws IOException {
        final byte[] buf = new byte[1 << 20];
        try (InputStream in = Files.newInputStream(file)) {
            while (in.read(buf) >= 0) {
                // read through so the file sits in the page cache
            }
        }
    }

    static double median(final List<Double> xs) {
        final double[] a = xs.stream().mapToDouble(Double::doubleValue).toArray();
        Arrays.sort(a);
        return a.length % 2 == 1 ? a[a.length / 2] : (a[a.length / 2 - 1] + a[a.length / 2]) / 2;
    }
}
