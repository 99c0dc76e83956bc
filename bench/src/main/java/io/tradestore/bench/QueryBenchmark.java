package io.tradestore.bench;

import java.io.IOException;
import java.io.PrintStream;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;

import org.duckdb.DuckDBAppender;
import org.duckdb.DuckDBConnection;

import io.tradestore.core.Store;
import io.tradestore.core.TableWriter;
import io.tradestore.core.flyweight.TradesSchema;
import io.tradestore.core.memory.NativeMemory;
import io.tradestore.core.schema.Layout;
import io.tradestore.core.schema.PartitionBy;
import io.tradestore.core.schema.Schema;
import io.tradestore.query.QueryEngine;
import io.tradestore.query.QueryResult;
import io.tradestore.query.ResultColumn;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * The eight reference queries of the store-query issue, tradestore against DuckDB on the same generated trades at the
 * same thread count, with the memory-bandwidth floor measured in the same run. Every query's answers are compared (a
 * mismatch fails the run); timings are medians of several runs after warm-up, with min and max, and the ratio
 * DuckDB / tradestore per query. Prints a Markdown report and can write it into docs/benchmarks.md.
 *
 * <pre>
 * bench/query-benchmark.sh [--rows 50000000] [--threads 2] [--runs 7] [--warmups 5] [--warmup-ms 2000] \
 *     [--out docs/benchmarks.md]
 * </pre>
 *
 * Usable from other code (a later {@code tradestore bench}) through {@link #run(Options, PrintStream)}.
 */
public final class QueryBenchmark {
    /** Marks the start of the generated section in docs/benchmarks.md. */
    public static final String SECTION_START = "<!-- queries-vs-duckdb:start -->";
    /** Marks its end. */
    public static final String SECTION_END = "<!-- queries-vs-duckdb:end -->";
    private static final int BATCH = 1 << 16;
    /** Bytes per row query 1 reads: side (1) + price (8) + quantity (8). */
    private static final int Q1_BYTES_PER_ROW = 17;
    /** Milliseconds of quiet before each timed run ({@link #settle()}). */
    private static final long SETTLE_MS = 20;
    /**
     * Back-to-back unmeasured runs per query and system before the timed ones, ms. A query of a few milliseconds runs
     * only a dozen times in the alternating warm-ups, so without these its first measured runs are still the JIT's
     * interpreted or first-tier code: {@code ReferenceQueryProbe --store /tmp/tradestore-bench-50m --queries 3,6,7,8
     * --threads 2 --runs 15 --warmups N} gave medians of 1.16-2.25 ms with 5 warm-ups, 0.24-0.52 ms with 1,000 and
     * 0.15-0.18 ms (queries 3, 7, 8) with 5,000, which is how a server that has
     * answered a few thousand queries runs them. DuckDB gets the same time.
     */
    public static final long DEFAULT_WARMUP_MS = 2000;

    private QueryBenchmark() {
    }

    /**
     * What to run.
     *
     * @param rows        trades to generate.
     * @param threads     engine threads and DuckDB threads.
     * @param runs        measured runs per query and system.
     * @param warmups     unmeasured runs first, alternating like the measured ones.
     * @param warmupMs    then each system runs the query back to back, unmeasured, for this long ({@link
     *                    #DEFAULT_WARMUP_MS}).
     * @param segmentRows rows per tradestore segment (0: the schema's default).
     * @param seed        generator seed.
     * @param dir         where the store goes (null: a temporary directory, deleted afterwards).
     * @param out         a Markdown file whose "Queries vs DuckDB" section is replaced by the report, or null.
     * @param floorBytes  size of the memory-bandwidth probe.
     */
    public record Options(long rows, int threads, int runs, int warmups, long warmupMs, int segmentRows, long seed,
        Path dir, Path out, long floorBytes) {
        /**
         * @return the defaults: 50M rows, 2 threads, 7 runs after 5 warm-ups and 2 s of back-to-back runs per system, 2
         * GiB bandwidth probe.
         */
        public static Options defaults() {
            return parse();
        }

        /**
         * Parses the command line of {@link Cli}: {@code --rows N --threads N --runs N --warmups N --warmup-ms N
         * --segment-rows N --seed N --dir D --out F --floor-mib N}.
         *
         * @param args command-line arguments.
         * @return the options.
         * @throws picocli.CommandLine.ParameterException on bad usage.
         */
        public static Options parse(final String... args) {
            return BenchCli.parse(new Cli(), args).options();
        }
    }

    /** The command line: the options {@code tradestore bench} has too, and where the report goes. */
    @Command(name = "bench/query-benchmark.sh", mixinStandardHelpOptions = true,
        description =
            {"The eight reference queries, tradestore against DuckDB on the same generated trades at the same thread "
            + "count, with the"
            + " memory-bandwidth floor measured in the same run; every answer is compared and a mismatch fails the run "
            + "(exit 1).",
            "Prints progress on stderr and the Markdown report on stdout."})
    static final class Cli extends ScenarioOptions implements Callable<Integer> {
        @Option(names = "--out", paramLabel = "FILE",
            description = "a Markdown file whose \"Queries vs DuckDB\" section the report replaces"
            + " (default: none)")
        Path out;

        Options options() {
            return queryOptions(dir, out);
        }

        @Override
        public Integer call() throws Exception {
            System.out.println(run(options(), System.err).markdown());
            return 0;
        }
    }

    /**
     * One reference query in both languages.
     *
     * @param number 1..8 as in the store-query issue.
     * @param title  what it asks.
     * @param json   the tradestore query.
     * @param sql    the DuckDB query (same output names, same order).
     */
    public record BenchQuery(int number, String title, String json, String sql) {
    }

    /**
     * Timings of one query.
     *
     * @param query    the query.
     * @param engineMs tradestore run times, sorted.
     * @param duckMs   DuckDB run times, sorted.
     * @param rows     rows in the answer.
     */
    public record Timing(BenchQuery query, double[] engineMs, double[] duckMs, int rows) {
        /** @return tradestore median in ms. */
        public double engineMedian() {
            return median(engineMs);
        }

        /** @return DuckDB median in ms. */
        public double duckMedian() {
            return median(duckMs);
        }
    }

    /**
     * What a run measured.
     *
     * @param options      the options.
     * @param floor1       memory bandwidth, one thread, bytes/s.
     * @param floorN       memory bandwidth, {@code threads} threads, bytes/s.
     * @param timings      per query.
     * @param loadSeconds  generation and load time of both systems.
     * @param duckVersion  DuckDB's version string.
     * @param loadAverage  the machine's load averages after the run (/proc/loadavg), a noise indicator.
     * @param markdown     the report.
     */
    public record Report(Options options, double floor1, double floorN, List<Timing> timings, double loadSeconds,
        String duckVersion,
                         String loadAverage, String markdown) {
    }

    /**
     * Command-line entry; exits 1 when the run fails (a result mismatch included), 2 on bad usage.
     *
     * @param args see {@link Cli}, or {@code --help}.
     */
    public static void main(final String[] args) {
        BenchCli.exit(new Cli(), args);
    }

    /** @return the eight reference queries for the data this generator makes. */
    static List<BenchQuery> queries(final BenchTrades gen) {
        return queries(BenchTrades.instrument(gen.instrumentOfRank(10)), gen.clientOfRank(10));
    }

    /**
     * The eight reference queries over a {@code trades} table of the default schema.
     *
     * @param inst   the instrument queries 3 and 6 select (a moderately popular one).
     * @param client the client query 7 selects.
     * @return the queries, numbered 1..8.
     */
    public static List<BenchQuery> queries(final String inst, final long client) {
        final List<BenchQuery> q = new ArrayList<>();
        q.add(new BenchQuery(1, "buy/sell notional: sum(price*quantity) by side",
            "{\"table\":\"trades\",\"groupBy\":[\"side\"],\"aggs\":[{\"name\":\"notional\",\"op\":\"sum\",\"col\":\"pr"
            + "ice*quantity\"}],"
                + "\"orderBy\":[{\"col\":\"side\"}]}",
            "SELECT side, sum(price * quantity) AS notional FROM trades GROUP BY side ORDER BY side"));
        q.add(new BenchQuery(2, "VWAP, volume, count per instrument, top 10 by volume",
            "{\"table\":\"trades\",\"groupBy\":[\"instrument\"],\"aggs\":[{\"name\":\"vwap\",\"op\":\"vwap\"},"
                + "{\"name\":\"volume\",\"op\":\"sum\",\"col\":\"quantity\"},{\"name\":\"n\",\"op\":\"count\"}],"
                + "\"orderBy\":[{\"col\":\"volume\",\"desc\":true}],\"limit\":10}",
            "SELECT instrument, sum(price * quantity) / sum(quantity) AS vwap, sum(quantity) AS volume, count(*) AS n "
            + "FROM trades "
                + "GROUP BY instrument ORDER BY volume DESC LIMIT 10"));
        q.add(new BenchQuery(3, "one instrument, two hours: count, volume, min/max price",
            "{\"table\":\"trades\",\"time\":{\"from\":\"2026-11-17T10:00:00Z\",\"to\":\"2026-11-17T12:00:00Z\"},"
                + "\"filter\":{\"op\":\"eq\",\"col\":\"instrument\",\"value\":\"" + inst + "\"},"
                + "\"aggs\":[{\"name\":\"n\",\"op\":\"count\"},{\"name\":\"volume\",\"op\":\"sum\",\"col\":\"quantity"
                + "\"},"
                + "{\"name\":\"lo\",\"op\":\"min\",\"col\":\"price\"},{\"name\":\"hi\",\"op\":\"max\",\"col\":\"price"
                + "\"}]}",
            "SELECT count(*) AS n, sum(quantity) AS volume, min(price) AS lo, max(price) AS hi FROM trades WHERE "
            + "instrument = '" + inst
                + "' AND ts >= TIMESTAMP '2026-11-17 10:00:00' AND ts < TIMESTAMP '2026-11-17 12:00:00'"));
        q.add(new BenchQuery(4, "count and volume by venue and side",
            "{\"table\":\"trades\",\"groupBy\":[\"venue\",\"side\"],\"aggs\":[{\"name\":\"n\",\"op\":\"count\"},"
                + "{\"name\":\"volume\",\"op\":\"sum\",\"col\":\"quantity\"}],\"orderBy\":[{\"col\":\"venue\"},{\"col"
                + "\":\"side\"}]}",
            "SELECT venue, side, count(*) AS n, sum(quantity) AS volume FROM trades GROUP BY venue, side ORDER BY "
            + "venue, side"));
        q.add(new BenchQuery(5, "top 10 clients by notional",
            "{\"table\":\"trades\",\"groupBy\":[\"client_id\"],\"aggs\":[{\"name\":\"notional\",\"op\":\"sum\",\"col\""
            + ":\"price*quantity\"}],"
                + "\"orderBy\":[{\"col\":\"notional\",\"desc\":true}],\"limit\":10}",
            "SELECT client_id, sum(price * quantity) AS notional FROM trades GROUP BY client_id ORDER BY notional DESC "
            + "LIMIT 10"));
        q.add(new BenchQuery(6, "1-minute OHLC bars with volume, one instrument, one day",
            "{\"table\":\"trades\",\"time\":{\"from\":\"2026-11-17T00:00:00Z\",\"to\":\"2026-11-18T00:00:00Z\"},"
                + "\"filter\":{\"op\":\"eq\",\"col\":\"instrument\",\"value\":\"" + inst + "\"},"
                + "\"groupBy\":[{\"bucket\":\"1m\",\"col\":\"ts\",\"as\":\"minute\"}],"
                + "\"aggs\":[{\"name\":\"open\",\"op\":\"first\",\"col\":\"price\"},{\"name\":\"high\",\"op\":\"max\","
                + "\"col\":\"price\"},"
                + "{\"name\":\"low\",\"op\":\"min\",\"col\":\"price\"},{\"name\":\"close\",\"op\":\"last\",\"col\":\"p"
                + "rice\"},"
                + "{\"name\":\"volume\",\"op\":\"sum\",\"col\":\"quantity\"}],\"orderBy\":[{\"col\":\"minute\"}]}",
            "SELECT epoch_us(time_bucket(INTERVAL 1 MINUTE, ts)) * 1000 AS minute, arg_min(price, ts) AS open, "
            + "max(price) AS high, "
                + "min(price) AS low, arg_max(price, ts) AS close, sum(quantity) AS volume FROM trades WHERE "
                + "instrument = '" + inst
                + "' AND ts >= TIMESTAMP '2026-11-17 00:00:00' AND ts < TIMESTAMP '2026-11-18 00:00:00' GROUP BY 1 "
                + "ORDER BY 1"));
        q.add(new BenchQuery(7, "count and volume for one client",
            "{\"table\":\"trades\",\"filter\":{\"op\":\"eq\",\"col\":\"client_id\",\"value\":" + client + "},"
                + "\"aggs\":[{\"name\":\"n\",\"op\":\"count\"},{\"name\":\"volume\",\"op\":\"sum\",\"col\":\"quantity"
                + "\"}]}",
            "SELECT count(*) AS n, sum(quantity) AS volume FROM trades WHERE client_id = " + client));
        q.add(new BenchQuery(8, "count, volume, min(ts), max(ts) over everything",
            "{\"table\":\"trades\",\"aggs\":[{\"name\":\"n\",\"op\":\"count\"},{\"name\":\"volume\",\"op\":\"sum\",\"c"
            + "ol\":\"quantity\"},"
                + "{\"name\":\"first_ts\",\"op\":\"min\",\"col\":\"ts\"},{\"name\":\"last_ts\",\"op\":\"max\",\"col\":"
                + "\"ts\"}]}",
            "SELECT count(*) AS n, sum(quantity) AS volume, epoch_us(min(ts)) * 1000 AS first_ts, epoch_us(max(ts)) * "
            + "1000 AS last_ts "
                + "FROM trades"));
        return q;
    }

    /**
     * Runs the benchmark.
     *
     * @param o        options.
     * @param progress where progress lines go.
     * @return the report.
     * @throws Exception when loading or a query fails, or when the answers differ.
     */
    public static Report run(final Options o, final PrintStream progress) throws Exception {
        final Path dir = o.dir != null ? o.dir : Files.createTempDirectory("tradestore-qbench");
        Files.createDirectories(dir);
        try (Connection duck = DriverManager.getConnection("jdbc:duckdb:")) {
            try (Statement st = duck.createStatement()) {
                st.execute("SET threads=" + o.threads);
            }
            final String duckVersion = BenchCommand.scalar(duck, "SELECT version()");
            progress.printf("[1/3] memory-bandwidth floor (%d MiB, 1 and %d threads)%n", o.floorBytes >> 20, o.threads);
            final double floor1 = MemoryBandwidth.measure(o.floorBytes, 1, 3);
            final double floorN = MemoryBandwidth.measure(o.floorBytes, o.threads, 3);
            progress.printf("      %.1f GB/s on 1 thread, %.1f GB/s on %d%n", floor1 / 1e9, floorN / 1e9, o.threads);
            progress.printf("[2/3] generating %,d trades into tradestore (%s) and DuckDB%n", o.rows, dir);
            final long t0 = System.nanoTime();
            final BenchTrades gen = new BenchTrades(o.rows, o.seed);
            final List<BenchQuery> queries = queries(gen);
            try (Store store = Store.open(dir)) {
                load(store, duck, gen, o, progress);
                final double loadSeconds = (System.nanoTime() - t0) / 1e9;
                progress.printf("      loaded in %.1f s%n", loadSeconds);
                progress.printf("[3/3] queries%n");
                final List<Timing> timings = measure(store, duck, queries, o, progress);
                // the floor again after the queries: on a shared machine the best of both is the closer estimate
                progress.printf("      floor again: ");
                final double floor1b = MemoryBandwidth.measure(o.floorBytes, 1, 3);
                final double floorNb = MemoryBandwidth.measure(o.floorBytes, o.threads, 3);
                progress.printf("%.1f GB/s on 1 thread, %.1f GB/s on %d%n", floor1b / 1e9, floorNb / 1e9, o.threads);
                final Report partial =
                    new Report(o, Math.max(floor1, floor1b), Math.max(floorN, floorNb), timings, loadSeconds,
                    duckVersion,
                    loadAverage(), "");
                final String md = markdown(partial);
                if (o.out != null) {
                    writeSection(o.out, md);
                    progress.printf("wrote the \"Queries vs DuckDB\" section of %s%n", o.out);
                }
                return new Report(o, partial.floor1(), partial.floorN(), timings, loadSeconds, duckVersion,
                    partial.loadAverage(), md);
            }
        } finally {
            if (o.dir == null) {
                BenchCommand.deleteTree(dir);
            }
        }
    }

    /**
     * Checks every query's answers against DuckDB (a mismatch throws), then times both systems on each query.
     *
     * @param store    a store with a {@code trades} table.
     * @param duck     a DuckDB connection with the same trades in table {@code trades} and {@code threads} set.
     * @param queries  the queries.
     * @param o        runs, warm-ups and threads.
     * @param progress where progress lines go.
     * @return the timings, in query order.
     * @throws SQLException when DuckDB fails.
     */
    public static List<Timing> measure(final Store store, final Connection duck, final List<BenchQuery> queries,
        final Options o,
                                       final PrintStream progress) throws SQLException {
        final List<Timing> timings = new ArrayList<>();
        try (QueryEngine engine = new QueryEngine(store, o.threads)) {
            progress.printf("      checking the answers of %d queries against DuckDB%n", queries.size());
            for (final BenchQuery q : queries) {
                compare(q, engine.execute(q.json()), duck);
            }
            for (final BenchQuery q : queries) {
                progress.printf(Locale.ROOT, "      query %d: %s (%d warm-ups, %.1f s back to back, %d runs each)%n",
                    q.number(), q.title(),
                    o.warmups, o.warmupMs / 1e3, o.runs);
                timings.add(time(q, engine, duck, o));
            }
        }
        return timings;
    }

    /**
     * @return rows of the batch from {@code done} on to reserve next: the rest, or on a partitioned table the run of
     *     one period (after telling the writer its period).
     */
    private static int periodRun(final TableWriter w, final BenchTrades.Batch b, final int done, final PartitionBy by) {
        if (by == PartitionBy.NONE) {
            return b.size - done;
        }
        final long first = b.tsMicros[done] * 1_000L;
        w.partition(first);
        final long lo = by.floor(first);
        final long hi = by.next(lo);
        int n = 1;
        while (done + n < b.size && b.tsMicros[done + n] * 1_000L >= lo && b.tsMicros[done + n] * 1_000L < hi) {
            n++;
        }
        return n;
    }

    /**
     * Generates the trades into a new {@code trades} table of the store and into DuckDB (appender, VARCHAR symbols),
     * then gives DuckDB's table ENUM symbol columns ({@link DuckEnums}).
     */
    static void load(final Store store, final Connection duck, final BenchTrades gen, final Options o,
        final PrintStream progress)
        throws SQLException {
        load(store, duck, gen, o, PartitionBy.NONE, progress);
    }

    /** As above, into a table partitioned by {@code by}. */
    static void load(final Store store, final Connection duck, final BenchTrades gen, final Options o,
        final PartitionBy by, final PrintStream progress)
        throws SQLException {
        final Schema schema = (o.segmentRows > 0
            ? TradesSchema.SCHEMA.with("trades", Layout.COLUMN, o.segmentRows,
            Math.min(o.segmentRows, TradesSchema.SCHEMA.blockRows()))
            : TradesSchema.SCHEMA).with(by);
        try (Statement st = duck.createStatement()) {
            st.execute("CREATE TABLE trades (trade_id BIGINT, ts TIMESTAMP, client_id BIGINT, venue VARCHAR, "
                + "instrument VARCHAR, side VARCHAR, "
                + "price DECIMAL(18,6), quantity BIGINT)");
        }
        final int cTrade = schema.indexOf("trade_id");
        final int cTs = schema.indexOf("ts");
        final int cClient = schema.indexOf("client_id");
        final int cVenue = schema.indexOf("venue");
        final int cInst = schema.indexOf("instrument");
        final int cSide = schema.indexOf("side");
        final int cPrice = schema.indexOf("price");
        final int cQty = schema.indexOf("quantity");
        final String[] instruments = new String[BenchTrades.INSTRUMENTS];
        for (int i = 0; i < instruments.length; i++) {
            instruments[i] = BenchTrades.instrument(i);
        }
        final String[] sides = {"B", "S"};
        try (TableWriter w = store.createTable(schema).writer();
             DuckDBAppender a = duck.unwrap(DuckDBConnection.class)
                 .createAppender(DuckDBConnection.DEFAULT_SCHEMA, "trades")) {
            final int[] venueCode = new int[BenchTrades.VENUES.length];
            for (int v = 0; v < venueCode.length; v++) {
                venueCode[v] = w.dictionary(cVenue).intern(BenchTrades.VENUES[v]);
            }
            final int[] instCode = new int[instruments.length];
            for (int i = 0; i < instCode.length; i++) {
                instCode[i] = w.dictionary(cInst).intern(instruments[i]);
            }
            final int shift = schema.segmentShift();
            final long mask = schema.segmentRows() - 1;
            final BenchTrades.Batch b = new BenchTrades.Batch(BATCH);
            long reported = 0;
            while (gen.fill(b) > 0) {
                int done = 0;
                while (done < b.size) {
                    final int n = w.reserve(periodRun(w, b, done, by));
                    final long start = w.pendingRows() - n;
                    final int seg = (int) (start >>> shift);
                    final long in = start & mask;
                    final long aTrade = w.columnAddress(seg, cTrade) + in * w.columnStride(cTrade);
                    final long aTs = w.columnAddress(seg, cTs) + in * w.columnStride(cTs);
                    final long aClient = w.columnAddress(seg, cClient) + in * w.columnStride(cClient);
                    final long aVenue = w.columnAddress(seg, cVenue) + in * w.columnStride(cVenue);
                    final long aInst = w.columnAddress(seg, cInst) + in * w.columnStride(cInst);
                    final long aSide = w.columnAddress(seg, cSide) + in * w.columnStride(cSide);
                    final long aPrice = w.columnAddress(seg, cPrice) + in * w.columnStride(cPrice);
                    final long aQty = w.columnAddress(seg, cQty) + in * w.columnStride(cQty);
                    for (int k = 0; k < n; k++) {
                        final int i = done + k;
                        NativeMemory.putLong(aTrade + k * (long) w.columnStride(cTrade), b.tradeId[i]);
                        NativeMemory.putLong(aTs + k * (long) w.columnStride(cTs), b.tsMicros[i] * 1_000L);
                        NativeMemory.putLong(aClient + k * (long) w.columnStride(cClient), b.clientId[i]);
                        NativeMemory.putInt(aVenue + k * (long) w.columnStride(cVenue), venueCode[b.venue[i]]);
                        NativeMemory.putInt(aInst + k * (long) w.columnStride(cInst), instCode[b.instrument[i]]);
                        NativeMemory.putByte(aSide + k * (long) w.columnStride(cSide), b.side[i]);
                        NativeMemory.putLong(aPrice + k * (long) w.columnStride(cPrice), b.price[i]);
                        NativeMemory.putLong(aQty + k * (long) w.columnStride(cQty), b.quantity[i]);
                    }
                    done += n;
                }
                w.commit();
                for (int i = 0; i < b.size; i++) {
                    a.beginRow();
                    a.append(b.tradeId[i]);
                    a.appendEpochMicros(b.tsMicros[i]);
                    a.append(b.clientId[i]);
                    a.append(BenchTrades.VENUES[b.venue[i]]);
                    a.append(instruments[b.instrument[i]]);
                    a.append(sides[b.side[i] == 'B' ? 0 : 1]);
                    a.append(BigDecimal.valueOf(b.price[i], 6));
                    a.append(b.quantity[i]);
                    a.endRow();
                }
                if (gen.generated() - reported >= 5_000_000) {
                    reported = gen.generated();
                    progress.printf("      %,d rows%n", reported);
                }
            }
        }
        try (Statement st = duck.createStatement()) {
            st.execute("CHECKPOINT");
        }
        DuckEnums.apply(duck);
    }

    /**
     * Times one query on both systems, its answers already compared: alternating warm-ups, then each system back to
     * back for {@link Options#warmupMs()}, then alternating measured runs (each after {@link #settle()}).
     *
     * @throws IllegalStateException when a run's row counts differ.
     */
    static Timing time(final BenchQuery q, final QueryEngine engine, final Connection duck,
        final Options o) throws SQLException {
        final double[] e = new double[o.runs];
        final double[] d = new double[o.runs];
        int rows = 0;
        // the alternating warm-ups first, then each system on its own, back to back, for the same time
        for (int run = -o.warmups; run < 0; run++) {
            engine.execute(q.json());
            settle();
            duckRows(duck, q.sql());
            settle();
        }
        for (final long end = System.nanoTime() + o.warmupMs * 1_000_000L; System.nanoTime() < end;) {
            engine.execute(q.json());
        }
        for (final long end = System.nanoTime() + o.warmupMs * 1_000_000L; System.nanoTime() < end;) {
            duckRows(duck, q.sql());
        }
        for (int run = 0; run < o.runs; run++) {
            settle();
            long t0 = System.nanoTime();
            final QueryResult r = engine.execute(q.json());
            rows = r.rowCount();
            final double em = (System.nanoTime() - t0) / 1e6;
            settle();
            t0 = System.nanoTime();
            final int dr = duckRows(duck, q.sql()).size();
            final double dm = (System.nanoTime() - t0) / 1e6;
            if (dr != rows) {
                throw new IllegalStateException("query " + q.number() + ": tradestore gave " + rows + " rows, DuckDB "
                    + dr);
            }
            e[run] = em;
            d[run] = dm;
        }
        Arrays.sort(e);
        Arrays.sort(d);
        return new Timing(q, e, d, rows);
    }

    /**
     * A pause before each timed run, the same for both systems: the other system's worker threads may still be busy
     * for a moment after its answer (DuckDB's scheduler lets its threads linger), and a query of a few milliseconds
     * started at once shares the two cores with them.
     */
    private static void settle() {
        try {
            Thread.sleep(SETTLE_MS);
        } catch (final InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** @return DuckDB's rows (each value read, so the work is done). */
    private static List<Object[]> duckRows(final Connection duck, final String sql) throws SQLException {
        final List<Object[]> rows = new ArrayList<>();
        try (Statement st = duck.createStatement(); ResultSet rs = st.executeQuery(sql)) {
            final int n = rs.getMetaData().getColumnCount();
            while (rs.next()) {
                final Object[] row = new Object[n];
                for (int c = 0; c < n; c++) {
                    row[c] = rs.getObject(c + 1);
                }
                rows.add(row);
            }
        }
        return rows;
    }

    /**
     * Compares tradestore's answer to DuckDB's: same rows in the same order, columns matched by name; exact for
     * integers, decimals, timestamps and strings (DuckDB's ENUM symbols come back as strings), relative 1e-9 for
     * doubles, and for a column the engine marks approximate (percentiles) within the relative error it states
     * ({@link ResultColumn#relativeError()}; DuckDB's {@code quantile_disc} is the same nearest rank, exactly).
     *
     * @throws IllegalStateException on a mismatch, with both answers.
     */
    static void compare(final BenchQuery q, final QueryResult r, final Connection duck) throws SQLException {
        final List<String> names = new ArrayList<>();
        final List<Object[]> expected;
        try (Statement st = duck.createStatement(); ResultSet rs = st.executeQuery(q.sql())) {
            final ResultSetMetaData md = rs.getMetaData();
            for (int c = 1; c <= md.getColumnCount(); c++) {
                names.add(md.getColumnLabel(c));
            }
            expected = new ArrayList<>();
            while (rs.next()) {
                final Object[] row = new Object[names.size()];
                for (int c = 0; c < row.length; c++) {
                    row[c] = rs.getObject(c + 1);
                }
                expected.add(row);
            }
        }
        final StringBuilder problems = new StringBuilder();
        final int[] at = new int[names.size()];
        for (int c = 0; c < at.length; c++) {
            at[c] = -1;
            for (int k = 0; k < r.columns().size(); k++) {
                if (r.columns().get(k).name().equals(names.get(c))) {
                    at[c] = k;
                }
            }
            if (at[c] < 0) {
                problems.append("column ").append(names.get(c)).append(" missing from ").append(r.columns())
                    .append('\n');
            }
        }
        if (problems.length() == 0 && r.rowCount() != expected.size()) {
            problems.append("rows: DuckDB ").append(expected.size()).append(", tradestore ").append(r.rowCount())
                .append('\n');
        }
        if (problems.length() == 0) {
            for (int row = 0; row < expected.size(); row++) {
                for (int c = 0; c < at.length; c++) {
                    final Object e = expected.get(row)[c];
                    final Object a = r.value(row, at[c]);
                    final ResultColumn col = r.columns().get(at[c]);
                    if (!same(e, a, col.approximate() ? col.relativeError() : 0)) {
                        problems.append("row ").append(row).append(' ').append(names.get(c)).append(": DuckDB ")
                            .append(e).append(", tradestore ")
                            .append(a).append('\n');
                    }
                }
            }
        }
        if (problems.length() > 0) {
            throw new IllegalStateException("query " + q.number() + " answers differ:\n" + problems + "json: " + q
                .json() + "\nsql:  " + q.sql());
        }
    }

    static boolean same(final Object e, final Object a) {
        return same(e, a, 0);
    }

    /**
     * @param tolerance the relative error an approximate column states (percentiles: 1e-3), 0 for exact ones.
     * @return whether DuckDB's value {@code e} and tradestore's {@code a} agree.
     */
    static boolean same(final Object e, final Object a, final double tolerance) {
        if (e == null || a == null) {
            return e == a;
        }
        if (e instanceof String || a instanceof String) {
            return e.toString().equals(a.toString());
        }
        if (e instanceof Double || a instanceof Double || e instanceof Float || a instanceof Float) {
            final double x = ((Number) e).doubleValue();
            final double y = ((Number) a).doubleValue();
            return Math.abs(x - y) <= Math.max(1e-9, tolerance) * Math.max(Math.abs(x), Math.abs(y));
        }
        return decimal(e).compareTo(decimal(a)) == 0;
    }

    private static BigDecimal decimal(final Object v) {
        if (v instanceof BigDecimal) {
            return (BigDecimal) v;
        }
        if (v instanceof BigInteger) {
            return new BigDecimal((BigInteger) v);
        }
        return BigDecimal.valueOf(((Number) v).longValue());
    }

    static double median(final double[] sorted) {
        final int n = sorted.length;
        return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
    }

    /** @return the report as Markdown. */
    static String markdown(final Report r) {
        final Options o = r.options();
        final StringBuilder sb = new StringBuilder();
        sb.append("## Queries vs DuckDB\n\n");
        sb.append(String.format(Locale.ROOT,
            "Measured %s on %s; %,d trades (BenchTrades seed %d), %d threads for both systems "
                + "(`SET threads=%d`, `new QueryEngine(store, %d)`), median of %d runs after %d alternating warm-ups "
                + "and %.1f s of back-to-back "
                + "runs per system, with min and max. "
                + "DuckDB %s (duckdb_jdbc, in-memory database); " + DuckEnums.sentence() + ". "
                + "Answers of every query were compared and agreed.%n%n",
            Instant.now().toString().substring(0, 16) + "Z", machine(), o.rows(), o.seed(), o.threads(), o.threads(),
            o.threads(), o.runs(),
            o.warmups(), o.warmupMs() / 1e3, r.duckVersion()));
        sb.append(String.format(Locale.ROOT,
            "Memory-bandwidth floor (off-heap sum of %d MiB of longs, best of passes before and after the "
                + "queries): %.1f GB/s on 1 thread, %.1f GB/s on %d. Load average after the run: %s (the machine is "
                + "shared; "
                + "min–max show the noise).%n%n", o.floorBytes() >> 20, r.floor1() / 1e9, r.floorN() / 1e9, o.threads(),
                r.loadAverage()));
        sb.append("| # | query | tradestore ms median (min–max) | DuckDB ms median (min–max) | DuckDB / tradestore, "
            + "medians | best runs |\n");
        sb.append("|---|---|---:|---:|---:|---:|\n");
        for (final Timing t : r.timings()) {
            sb.append(String.format(Locale.ROOT, "| %d | %s | %s (%s–%s) | %s (%s–%s) | %.1fx | %.1fx |%n",
                t.query().number(), t.query().title(),
                ms(t.engineMedian()), ms(t.engineMs()[0]), ms(t.engineMs()[t.engineMs().length - 1]),
                ms(t.duckMedian()), ms(t.duckMs()[0]),
                ms(t.duckMs()[t.duckMs().length - 1]), t.duckMedian() / t.engineMedian(),
                t.duckMs()[0] / t.engineMs()[0]));
        }
        final Timing q1 = r.timings().get(0);
        final double bytes = (double) o.rows() * Q1_BYTES_PER_ROW;
        final double floor = Math.max(r.floor1(), r.floorN());
        final double floorMs = bytes / floor * 1e3;
        sb.append(String.format(Locale.ROOT,
            "%nQuery 1 reads %.2f GB (side 1 + price 8 + quantity 8 bytes a row): the floor at %.1f GB/s is "
                + "%s ms; tradestore's median is %.2fx of floor (%.1f GB/s, best run %.2fx).%n", bytes / 1e9,
                floor / 1e9, ms(floorMs),
            q1.engineMedian() / floorMs, bytes / (q1.engineMedian() / 1e3) / 1e9, q1.engineMs()[0] / floorMs));
        sb.append(String.format(Locale.ROOT,
            "%nData generation and load of both systems took %.1f s. Reproduce with:%n%n```%n"
                + "flock /tmp/tradestore-bench.lock bench/query-benchmark.sh --rows %d --threads %d --runs %d "
                + "--warmups %d --warmup-ms %d%n```%n",
            r.loadSeconds(), o.rows(), o.threads(), o.runs(), o.warmups(), o.warmupMs()));
        return sb.toString();
    }

    /** @return the load averages of this machine, or "unknown". */
    static String loadAverage() {
        try {
            final String[] f = Files.readString(Paths.get("/proc/loadavg")).trim().split(" ");
            return f[0] + " " + f[1] + " " + f[2];
        } catch (final IOException | RuntimeException e) {
            return "unknown";
        }
    }

    private static String ms(final double v) {
        return v >= 100 ? String.format(Locale.ROOT, "%.0f", v) : v >= 10 ? String.format(Locale.ROOT, "%.1f", v)
            : String.format(Locale.ROOT, "%.2f", v);
    }

    /** @return CPU model, cores, memory and JDK of this machine. */
    static String machine() {
        String cpu = System.getProperty("os.arch");
        long memKb = 0;
        try {
            for (final String line : Files.readAllLines(Paths.get("/proc/cpuinfo"))) {
                if (line.startsWith("model name")) {
                    cpu = line.substring(line.indexOf(':') + 1).trim();
                    break;
                }
            }
            for (final String line : Files.readAllLines(Paths.get("/proc/meminfo"))) {
                if (line.startsWith("MemTotal:")) {
                    memKb = Long.parseLong(line.replaceAll("[^0-9]", ""));
                }
            }
        } catch (final IOException | RuntimeException e) {
            // not Linux: keep what the JVM knows
        }
        return String.format(Locale.ROOT, "%s, %d cores, %s, %s %s (%s)", cpu,
            Runtime.getRuntime().availableProcessors(),
            memKb > 0 ? String.format(Locale.ROOT, "%.0f GiB", memKb / 1048576.0) : "memory unknown",
            System.getProperty("java.vm.name"),
            System.getProperty("java.version"), System.getProperty("os.name"));
    }

    /** Replaces (or appends) the generated section of a Markdown file. */
    static void writeSection(final Path file, final String markdown) throws IOException {
        MarkdownSection.write(file, SECTION_START, SECTION_END, markdown);
    }

}
