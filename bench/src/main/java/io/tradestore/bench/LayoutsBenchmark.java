package io.tradestore.bench;

import java.io.IOException;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.math.BigInteger;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.DoubleSummaryStatistics;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.Callable;

import io.tradestore.core.Store;
import io.tradestore.core.Table;
import io.tradestore.core.TableReader;
import io.tradestore.core.TableSnapshot;
import io.tradestore.core.TableWriter;
import io.tradestore.core.flyweight.TradeFlyweight;
import io.tradestore.core.flyweight.TradesSchema;
import io.tradestore.core.memory.NativeMemory;
import io.tradestore.core.schema.Layout;
import io.tradestore.core.schema.Schema;
import io.tradestore.core.segment.Segment;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import static io.tradestore.bench.LayoutsPrinter.print;
import static io.tradestore.bench.RunGauges.best;
import static io.tradestore.bench.RunGauges.directoryBytes;
import static io.tradestore.bench.RunGauges.gc;
import static io.tradestore.bench.RunGauges.heapAfterGc;
import static io.tradestore.bench.RunGauges.machine;
import static io.tradestore.bench.RunGauges.processCpuNs;

/**
 * The classic storage-layout comparison on N trades (default 50,000,000) in one run: an array of Java objects, the
 * off-heap {@code ROW} layout (an array of structs behind a flyweight) and the {@code COLUMN} layout. For each: build
 * time (for the stores: single-writer append through {@link TradeFlyweight} with a commit every 1M rows), the buy and
 * sell notional (sum of price * quantity by side, exact in 128 bits), bytes per trade, GC count and pause time, heap
 * used. The memory-bandwidth floor (summing a large off-heap long array on 1 and 2 threads) is measured in the same
 * run, and every scan is reported as a multiple of the floor's time for the bytes it touches.
 *
 * <p>Run it with {@code bench/run-layouts.sh} (see docs/benchmarks.md). Options: {@code --rows N},
 * {@code --dir PATH} (where the stores go; deleted afterwards), {@code --variants objects,row,column,floor},
 * {@code --reps N} (scan repetitions; the median is reported), {@code --segment-rows N}, {@code --floor-mib N},
 * {@code --append-runs N} (repetitions of the COLUMN append after its build, see {@link #appendRuns}; 0 skips them).
 */
public final class LayoutsBenchmark {
    /** Rows per exact-sum batch: every product is below 2^44, so a batch sum stays below 2^60. */
    static final int BATCH = 1 << 16;
    /** Keeps the read-only pass from being optimised away. */
    private static volatile long readSink;
    static final long T0 = 1_795_000_000_000_000_000L;
    static final int VENUES = 8;
    static final int INSTRUMENTS = 500;
    static final long COMMIT_ROWS = 1_000_000;
    /** What a run can measure, in the order it does. */
    static final List<String> VARIANTS = List.of("floor", "objects", "row", "column");
    private static final String[] VENUE_NAMES = {"XLON", "XPAR", "XETR", "XAMS", "XMIL", "XMAD", "XSWX", "XSTO"};

    private LayoutsBenchmark() {
    }

    /** One trade as a plain Java object (the baseline). */
    static final class Trade {
        final long tradeId;
        final long ts;
        final long clientId;
        final String venue;
        final String instrument;
        final char side;
        final long price;
        final long quantity;

        Trade(final long tradeId, final long ts, final long clientId, final String venue, final String instrument,
            final char side,
              final long price, final long quantity) {
            this.tradeId = tradeId;
            this.ts = ts;
            this.clientId = clientId;
            this.venue = venue;
            this.instrument = instrument;
            this.side = side;
            this.price = price;
            this.quantity = quantity;
        }
    }

    /** Options of a run. */
    static final class Options {
        @Option(names = "--rows", paramLabel = "N", converter = BenchCli.Rows.class,
            description = "trades (default: ${DEFAULT-VALUE})")
        long rows = 50_000_000L;

        @Option(names = "--dir", paramLabel = "PATH",
            description = "where the stores go, deleted afterwards (default: a temporary directory)")
        Path dir;

        @Option(names = "--variants", paramLabel = "V", split = ",", converter = Variant.class,
            description = "what to measure: objects, row,"
            + " column, floor (default: all)")
        Set<String> variants = new LinkedHashSet<>(VARIANTS);

        @Option(names = "--reps", paramLabel = "N", converter = BenchCli.NonNegative.class,
            description = "scan repetitions, the median"
            + " reported (default: ${DEFAULT-VALUE})")
        int reps = 5;

        @Option(names = "--segment-rows", paramLabel = "N", converter = BenchCli.SegmentRows.class,
            description = "rows per segment, a power"
            + " of two (default: ${DEFAULT-VALUE})")
        int segmentRows = Schema.DEFAULT_SEGMENT_ROWS;

        @Option(names = "--floor-mib", paramLabel = "N", converter = BenchCli.Count.class,
            description = "size of the memory-bandwidth probe"
            + " in MiB (default: ${DEFAULT-VALUE})")
        int floorMib = 1024;

        @Option(names = "--append-runs", paramLabel = "N", converter = BenchCli.NonNegative.class,
            description = "repetitions of the COLUMN"
            + " append after its build, 0 for none (default: ${DEFAULT-VALUE})")
        int appendRuns = 5;

        /**
         * Parses a command line.
         *
         * @param args arguments.
         * @return the options.
         * @throws picocli.CommandLine.ParameterException on bad usage.
         */
        static Options parse(final String... args) {
            return BenchCli.parse(new Cli(), args).options;
        }
    }

    /** A variant of {@link #VARIANTS}. */
    static final class Variant extends BenchCli.OneOf {
        Variant() {
            super(VARIANTS, "variants");
        }
    }

    /** The command line. */
    @Command(name = "LayoutsBenchmark", mixinStandardHelpOptions = true,
        description =
            {"The storage-layout comparison: N trades as Java objects, in the off-heap ROW layout and in the COLUMN "
            + "layout; build"
            + " time, buy and sell notional scans against the memory-bandwidth floor, bytes per trade, GCs. "
            + "bench/run-layouts.sh runs it."})
    static final class Cli implements Callable<Integer> {
        @Mixin
        Options options = new Options();

        @Override
        public Integer call() throws IOException {
            print(run(options, System.out), System.out);
            return 0;
        }
    }

    /** What one variant measured. */
    static final class Result {
        final String name;
        double buildMs = Double.NaN;
        double scanMs = Double.NaN;
        double bytesTouchedPerRow;
        double bytesPerTrade;
        long gcCount;
        long gcMs;
        long heapUsed;
        BigInteger buy = BigInteger.ZERO;
        BigInteger sell = BigInteger.ZERO;
        /**
         * Whether this variant only reads the bytes (no notional: left out of the check that every variant's sums
         * agree).
         */
        boolean readOnly;
        double segmentWaitMs = Double.NaN;
        double buildCpuMs = Double.NaN;
        /** CPU time of the whole process over the build (writer, background segment creation, JIT, GC), ms. */
        double buildProcessCpuMs = Double.NaN;
        /** The floor measured just before this variant's scans (same machine conditions): 1 and 2 threads, GB/s. */
        double[] localFloor;

        Result(final String name) {
            this.name = name;
        }
    }

    /** Everything a run measured. */
    static final class Report {
        final List<Result> results = new ArrayList<>();
        double floor1GBps = Double.NaN;
        double floor2GBps = Double.NaN;
        double firstTouchGBps = Double.NaN;
        long rows;
        /** The repeated COLUMN appends ({@link #appendRuns}), in run order; empty when not run. */
        final List<AppendRun> appends = new ArrayList<>();
    }

    /**
     * One timed append ({@link #measureAppend}): wall, writer thread CPU, process CPU and the writer's waits, ms; the
     * collections during it and their time.
     */
    static final class AppendRun {
        final double ms;
        final double writerCpuMs;
        final double processCpuMs;
        final double waitMs;
        final long gcCount;
        final long gcMs;

        AppendRun(final double ms, final double writerCpuMs, final double processCpuMs, final double waitMs,
            final long gcCount,
                  final long gcMs) {
            this.ms = ms;
            this.writerCpuMs = writerCpuMs;
            this.processCpuMs = processCpuMs;
            this.waitMs = waitMs;
            this.gcCount = gcCount;
            this.gcMs = gcMs;
        }
    }

    /**
     * Runs the benchmark; exits 1 when it fails, 2 on bad usage.
     *
     * @param args options, see the class comment, or {@code --help}.
     */
    public static void main(final String[] args) {
        BenchCli.exit(new Cli(), args);
    }

    static Report run(final Options o, final PrintStream out) throws IOException {
        final Report report = new Report();
        report.rows = o.rows;
        final Path dir = o.dir != null ? o.dir : Files.createTempDirectory("tradestore-layouts");
        Files.createDirectories(dir);
        out.printf(Locale.ROOT, "layouts benchmark: %,d trades, store in %s, %s%n", o.rows, dir, machine());
        final BandwidthFloor floor = o.variants.contains("floor") ? new BandwidthFloor(o, report) : null;
        try {
            if (floor != null) {
                out.printf(Locale.ROOT, "first touch of fresh memory (allocate + zero %d MiB): %.2f GB/s%n", o.floorMib,
                    report.firstTouchGBps);
                floor.measure(o, report, out, "at start");
            }
            if (o.variants.contains("objects")) {
                objects(o, floor, report, out);
            }
            if (o.variants.contains("row")) {
                store(o, Layout.ROW, dir, floor, report, out);
            }
            if (o.variants.contains("column")) {
                store(o, Layout.COLUMN, dir, floor, report, out);
                appendRuns(o, dir, report, out);
            }
        } finally {
            if (floor != null) {
                floor.close();
            }
            if (o.dir == null) {
                BenchCommand.deleteTree(dir);
            }
        }
        for (final Result r : report.results) {
            if (!r.readOnly
                && (!r.buy.equals(report.results.get(0).buy) || !r.sell.equals(report.results.get(0).sell))) {
                throw new IllegalStateException("variants disagree: " + r.name + " buy=" + r.buy + " sell=" + r.sell
                    + " but "
                    + report.results.get(0).name + " buy=" + report.results.get(0).buy + " sell=" + report.results
                    .get(0).sell);
            }
        }
        return report;
    }

    // ---------------------------------------------------------------- data: every field a function of the row number

    static long mix(final long i) {
        long z = i * 0x9E3779B97F4A7C15L + 0x632BE59BD9B4E019L;
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }

    static long clientId(final long h) {
        return h & 0xFFFF;
    }

    static int venue(final long h) {
        return (int) ((h >>> 16) & (VENUES - 1));
    }

    static int instrument(final long h) {
        return (int) (((h >>> 19) & 0x3FF) % INSTRUMENTS);
    }

    static char side(final long h) {
        return ((h >>> 29) & 1) == 0 ? 'B' : 'S';
    }

    /** Price mantissa at scale 6: 10.000000 to 999.999999, below 2^30. */
    static long price(final long h) {
        return 10_000_000L + ((h >>> 30) & 0x3FFFFFFFL) % 990_000_000L;
    }

    /** Quantity 1 to 10,000, below 2^14. */
    static long quantity(final long h) {
        return 1 + ((h >>> 50) % 10_000);
    }

    /** @param i trade number. @return its timestamp: one trade a microsecond from {@link #T0}. */
    static long ts(final long i) {
        return T0 + i * 1_000L;
    }

    /** @param w a writer of the trades table. @return the dictionary code of each venue name, by venue index. */
    static int[] venueCodes(final TableWriter w) {
        final int[] codes = new int[VENUES];
        for (int v = 0; v < VENUES; v++) {
            codes[v] = w.dictionary(TradeFlyweight.VENUE_INDEX).intern(VENUE_NAMES[v]);
        }
        return codes;
    }

    /**
     * @param w a writer of the trades table. @return the dictionary code of each instrument name, by instrument index.
     */
    static int[] instrumentCodes(final TableWriter w) {
        final int[] codes = new int[INSTRUMENTS];
        for (int i = 0; i < INSTRUMENTS; i++) {
            codes[i] = w.dictionary(TradeFlyweight.INSTRUMENT_INDEX).intern(instrumentName(i));
        }
        return codes;
    }

    static String instrumentName(final int i) {
        return String.format(Locale.ROOT, "SYM%03d", i);
    }

    // ---------------------------------------------------------------- Java objects

    private static void objects(final Options o, final BandwidthFloor floor, final Report report,
        final PrintStream out) {
        if (o.rows > Integer.MAX_VALUE - 8) {
            throw new IllegalArgumentException("--rows " + o.rows + " is too many for one Java array");
        }
        final Result r = new Result("Java objects (Trade[])");
        final String[] venues = VENUE_NAMES.clone();
        final String[] instruments = new String[INSTRUMENTS];
        for (int i = 0; i < INSTRUMENTS; i++) {
            instruments[i] = instrumentName(i);
        }
        final long heapBefore = heapAfterGc();
        final long[] gc0 = gc();
        final long t0 = System.nanoTime();
        Trade[] trades = new Trade[(int) o.rows];
        for (int i = 0; i < trades.length; i++) {
            final long h = mix(i);
            trades[i] = new Trade(i, ts(i), clientId(h), venues[venue(h)], instruments[instrument(h)], side(h),
                price(h),
                quantity(h));
        }
        r.buildMs = (System.nanoTime() - t0) / 1e6;
        final long[] gc1 = gc();
        r.gcCount = gc1[0] - gc0[0];
        r.gcMs = gc1[1] - gc0[1];
        r.heapUsed = heapAfterGc();
        r.bytesPerTrade = (r.heapUsed - heapBefore) / (double) o.rows;
        r.bytesTouchedPerRow = r.bytesPerTrade;
        if (floor != null) {
            r.localFloor = floor.measure(o, report, out, "before the objects scan");
        }
        final double[] times = new double[o.reps + 2];
        final long[] acc = new long[4];
        for (int rep = 0; rep < times.length; rep++) {
            Arrays.fill(acc, 0);
            final long t = System.nanoTime();
            scanObjects(trades, acc);
            times[rep] = (System.nanoTime() - t) / 1e6;
        }
        r.scanMs = best(times);
        setSums(r, acc);
        final long[] gc2 = gc();
        out.printf(Locale.ROOT,
            "objects: built in %.0f ms (%d GCs, %d ms), %.1f bytes/trade on the heap, heap %d MB, scan %.1f ms"
            + " (%d GCs during scans)%n", r.buildMs, r.gcCount, r.gcMs, r.bytesPerTrade, r.heapUsed >> 20, r.scanMs,
            gc2[0] - gc1[0]);
        trades = null;
        report.results.add(r);
    }

    /** Sums price * quantity by side, branch-free, exact: acc = {buyLo, buyHi, sellLo, sellHi}. */
    static void scanObjects(final Trade[] trades, final long[] acc) {
        for (int start = 0; start < trades.length; start += BATCH) {
            final int end = Math.min(trades.length, start + BATCH);
            long total = 0;
            long sell = 0;
            for (int i = start; i < end; i++) {
                final Trade t = trades[i];
                final long p = t.price * t.quantity;
                total += p;
                sell += p & -((t.side >>> 4) & 1);
            }
            addBatch(acc, total - sell, sell);
        }
    }

    static void addBatch(final long[] acc, final long buy, final long sell) {
        acc[0] += buy;
        if (Long.compareUnsigned(acc[0], buy) < 0) {
            acc[1]++;
        }
        acc[2] += sell;
        if (Long.compareUnsigned(acc[2], sell) < 0) {
            acc[3]++;
        }
    }

    private static void setSums(final Result r, final long[] acc) {
        r.buy = unsigned128(acc[1], acc[0]);
        r.sell = unsigned128(acc[3], acc[2]);
    }

    private static BigInteger unsigned128(final long hi, final long lo) {
        return BigInteger.valueOf(hi).shiftLeft(64).add(new BigInteger(Long.toUnsignedString(lo)));
    }

    // ---------------------------------------------------------------- off-heap stores

    private static void store(final Options o, final Layout layout, final Path root, final BandwidthFloor floor,
        final Report report,
                              final PrintStream out)
        throws IOException {
        final Schema schema =
            TradesSchema.SCHEMA.with("trades_" + layout.name().toLowerCase(Locale.ROOT), layout, o.segmentRows,
            Math.min(Schema.DEFAULT_BLOCK_ROWS, o.segmentRows));
        final Path dir = root.resolve(schema.name());
        final Result fly = new Result(layout + " flyweight");
        final Result kernel =
            new Result(layout + (layout == Layout.ROW ? " kernel (base + row * 56)" : " kernel (3 columns)"));
        final Result kernel2 = new Result(layout + " kernel, 2 threads");
        // COLUMN only: the three columns merely read (summed), no product: what reading the kernel's bytes costs in
        // this layout
        final Result read2 =
            layout == Layout.COLUMN ? new Result(layout + " columns read only (no product), 2 threads") : null;
        // the results of the scans of the flyweight's table, which share its storage figures
        final List<Result> scans = read2 == null ? List.of(kernel, kernel2) : List.of(kernel, kernel2, read2);
        try (Store store = Store.open(dir)) {
            final Table table = store.createTable(schema);
            final AppendRun build = measureAppend(table, o.rows);
            fly.buildMs = build.ms;
            fly.buildCpuMs = build.writerCpuMs;
            fly.buildProcessCpuMs = build.processCpuMs;
            fly.segmentWaitMs = build.waitMs;
            fly.gcCount = build.gcCount;
            fly.gcMs = build.gcMs;
            final long[] gc1 = gc();
            fly.bytesPerTrade = directoryBytes(store.directory().resolve(schema.name())) / (double) o.rows;
            try (TableReader reader = table.reader()) {
                final TableSnapshot snap = reader.snapshot();
                fly.heapUsed = heapAfterGc();
                if (floor != null) {
                    fly.localFloor = floor.measure(o, report, out, "before the " + layout + " scans");
                }
                fly.bytesTouchedPerRow = layout == Layout.ROW ? schema.rowLength() : 17;
                final long[] acc = new long[4];
                final double[] tf = new double[o.reps + 2];
                final double[] tk = new double[o.reps + 2];
                final double[] tk2 = new double[o.reps + 2];
                final double[] tr2 = new double[o.reps + 2];
                for (int rep = 0; rep < tf.length; rep++) {
                    Arrays.fill(acc, 0);
                    long t = System.nanoTime();
                    scanFlyweight(snap, acc);
                    tf[rep] = (System.nanoTime() - t) / 1e6;
                    setSums(fly, acc);
                    Arrays.fill(acc, 0);
                    t = System.nanoTime();
                    scanKernel(snap, 0, snap.segmentCount(), acc);
                    tk[rep] = (System.nanoTime() - t) / 1e6;
                    setSums(kernel, acc);
                    t = System.nanoTime();
                    final long[] both = twoThreads(snap, LayoutsBenchmark::scanKernel);
                    tk2[rep] = (System.nanoTime() - t) / 1e6;
                    setSums(kernel2, both);
                    if (read2 != null) {
                        t = System.nanoTime();
                        readSink += twoThreads(snap, LayoutsBenchmark::readColumns)[0];
                        tr2[rep] = (System.nanoTime() - t) / 1e6;
                    }
                }
                fly.scanMs = best(tf);
                kernel.scanMs = best(tk);
                kernel2.scanMs = best(tk2);
                if (read2 != null) {
                    read2.scanMs = best(tr2);
                    read2.readOnly = true;
                }
                final long[] gc2 = gc();
                kernel.gcCount = gc2[0] - gc1[0];
                kernel.gcMs = gc2[1] - gc1[1];
                for (final Result r : scans) {
                    r.localFloor = fly.localFloor;
                    r.bytesTouchedPerRow = fly.bytesTouchedPerRow;
                    r.heapUsed = fly.heapUsed;
                    r.bytesPerTrade = fly.bytesPerTrade;
                }
            }
        } finally {
            BenchCommand.deleteTree(dir);
        }
        out.printf(Locale.ROOT,
            "%s: appended %,d rows in %.0f ms (%.1f M rows/s end to end; %.0f ms waiting for segment creation,"
                + " so %.1f M rows/s on the writer's own path; writer thread CPU %.0f ms = %.1f M rows per CPU second; "
                + "process CPU %.0f ms;"
                + " %d GCs, %d ms),"
                + " %.1f bytes/trade on disk, heap %d MB; scans: flyweight %.1f ms, kernel %.1f ms, kernel 2 threads "
                + "%.1f ms%n", layout, o.rows,
            fly.buildMs, o.rows / fly.buildMs / 1e3, fly.segmentWaitMs,
            o.rows / (fly.buildMs - fly.segmentWaitMs) / 1e3, fly.buildCpuMs,
            o.rows / fly.buildCpuMs / 1e3, fly.buildProcessCpuMs, fly.gcCount, fly.gcMs,
            fly.bytesPerTrade, fly.heapUsed >> 20, fly.scanMs, kernel.scanMs, kernel2.scanMs);
        report.results.add(fly);
        report.results.addAll(scans);
    }

    /**
     * Repeats the COLUMN build's append ({@link #append}: the same trades, a commit every {@link #COMMIT_ROWS}) {@code
     * --append-runs} times, each into a fresh table deleted before the next. The build is this JVM's first COLUMN
     * append, made while the JIT still compiles the staging copy, and one append swings with the machine's
     * load from one minute to the next; the append throughput is therefore reported as the median of these
     * repetitions, as the queries report theirs, beside the build's single figure.
     */
    private static void appendRuns(final Options o, final Path root, final Report report,
        final PrintStream out) throws IOException {
        final Schema schema = TradesSchema.SCHEMA.with("trades_append", Layout.COLUMN, o.segmentRows,
            Math.min(Schema.DEFAULT_BLOCK_ROWS, o.segmentRows));
        final Path dir = root.resolve(schema.name());
        for (int i = 0; i < o.appendRuns; i++) {
            try (Store store = Store.open(dir)) {
                final AppendRun run = measureAppend(store.createTable(schema), o.rows);
                report.appends.add(run);
                out.printf(Locale.ROOT,
                    "COLUMN append, repetition %d of %d: %,d rows in %.0f ms (%.1f M rows/s; writer CPU %.0f ms,"
                    + " waiting %.0f ms; process CPU %.0f ms; %d GCs)%n", i + 1, o.appendRuns, o.rows, run.ms,
                    o.rows / run.ms / 1e3, run.writerCpuMs, run.waitMs, run.processCpuMs, run.gcCount);
            } finally {
                BenchCommand.deleteTree(dir);
            }
        }
    }

    /**
     * Times one append into an empty table ({@link #append}), after a {@code System.gc()} so that a collection the
     * earlier steps' garbage is due is not counted as the append's: the layouts' build and each repetition.
     */
    private static AppendRun measureAppend(final Table table, final long rows) {
        System.gc();
        final long[] gc0 = gc();
        final long cpu0 = ManagementFactory.getThreadMXBean().getCurrentThreadCpuTime();
        final long processCpu0 = processCpuNs();
        final long t0 = System.nanoTime();
        final long waitNs = append(table, rows);
        final double ms = (System.nanoTime() - t0) / 1e6;
        final double cpuMs = (ManagementFactory.getThreadMXBean().getCurrentThreadCpuTime() - cpu0) / 1e6;
        final double processCpuMs = (processCpuNs() - processCpu0) / 1e6;
        final long[] gc1 = gc();
        return new AppendRun(ms, cpuMs, processCpuMs, waitNs / 1e6, gc1[0] - gc0[0], gc1[1] - gc0[1]);
    }

    /** @return the median of the repetitions' values of one field (NaN without repetitions). */
    static double medianOf(final List<AppendRun> runs, final java.util.function.ToDoubleFunction<AppendRun> field) {
        return runs.isEmpty() ? Double.NaN : QueryBenchmark.median(runs.stream().mapToDouble(field).sorted().toArray());
    }

    /**
     * Appends rows through the generated flyweight, committing every {@link #COMMIT_ROWS}.
     *
     * @param table the table.
     * @param rows  rows to append.
     */
    static long append(final Table table, final long rows) {
        try (TableWriter w = table.writer()) {
            final int[] venueCodes = venueCodes(w);
            final int[] instrumentCodes = instrumentCodes(w);
            final TradeFlyweight f = new TradeFlyweight();
            for (long start = 0; start < rows; start += COMMIT_ROWS) {
                final long end = Math.min(rows, start + COMMIT_ROWS);
                appendRange(w, f, start, end, venueCodes, instrumentCodes);
                w.commit();
            }
            return w.segmentWaitNanos();
        }
    }

    private static void appendRange(final TableWriter w, final TradeFlyweight f, final long start, final long end,
        final int[] venueCodes,
                                    final int[] instrumentCodes) {
        for (long i = start; i < end; i++) {
            final long h = mix(i);
            w.append(f).tradeId(i).ts(ts(i)).clientId(clientId(h)).venue(venueCodes[venue(h)])
                .instrument(instrumentCodes[instrument(h)]).side(side(h)).price(price(h)).quantity(quantity(h));
        }
    }

    static void scanFlyweight(final TableSnapshot snap, final long[] acc) {
        final TradeFlyweight f = new TradeFlyweight().bind(snap);
        long total = 0;
        long sell = 0;
        int inBatch = 0;
        while (f.next()) {
            final long p = f.price() * f.quantity();
            total += p;
            sell += p & -((f.side() >>> 4) & 1);
            if (++inBatch == BATCH) {
                addBatch(acc, total - sell, sell);
                total = 0;
                sell = 0;
                inBatch = 0;
            }
        }
        addBatch(acc, total - sell, sell);
    }

    /**
     * The scan kernel: per segment, three (base, stride) columns, branch-free, exact per batch. The kernel is picked
     * once per layout, outside the row loop, with the strides as constants of its loop (as a query engine would).
     */
    static void scanKernel(final TableSnapshot snap, final int fromSegment, final int toSegment, final long[] acc) {
        scanSegments(snap, fromSegment, toSegment, acc, false);
    }

    /**
     * The kernel over segments {@code [fromSegment, toSegment)}, or with {@code readOnly} (COLUMN) {@link #readBatch}
     * instead.
     */
    private static void scanSegments(final TableSnapshot snap, final int fromSegment, final int toSegment,
        final long[] acc, final boolean readOnly) {
        for (int s = fromSegment; s < toSegment; s++) {
            final Segment seg = snap.segment(s);
            final int rows = snap.segmentRowCount(s);
            final long side = seg.columnBase(TradeFlyweight.SIDE_INDEX);
            final long price = seg.columnBase(TradeFlyweight.PRICE_INDEX);
            final long qty = seg.columnBase(TradeFlyweight.QUANTITY_INDEX);
            final boolean columns = seg.columnStride(TradeFlyweight.PRICE_INDEX) == 8;
            if (readOnly && !columns) {
                throw new IllegalStateException(
                    "the read-only pass reads the COLUMN layout's columns; this table is ROW");
            }
            if (!columns && seg.columnStride(TradeFlyweight.PRICE_INDEX) != TradeFlyweight.ROW_LENGTH) {
                throw new IllegalStateException("unexpected stride " + seg.columnStride(TradeFlyweight.PRICE_INDEX));
            }
            for (int start = 0; start < rows; start += BATCH) {
                final int end = Math.min(rows, start + BATCH);
                if (readOnly && columns) {
                    acc[0] += readBatch(side, price, qty, start, end);
                } else if (columns) {
                    sumColumns(side, price, qty, start, end, acc);
                } else {
                    sumRecords(price - TradeFlyweight.PRICE_ROW_OFFSET, start, end, acc);
                }
            }
        }
    }

    /** The shifts that take row r's and row r+1's side out of a two-byte read at row r. */
    private static final int FIRST_SIDE = java.nio.ByteOrder.nativeOrder() == java.nio.ByteOrder.LITTLE_ENDIAN ? 0 : 8;
    private static final int SECOND_SIDE = 8 - FIRST_SIDE;

    /**
     * COLUMN layout: side bytes, price longs, quantity longs, each its own dense array. Two rows a step, each with its
     * own total and sell sum in registers and one two-byte read of their sides, which beat one row a step on one
     * thread and on two (the figures are in the commit that made the change).
     */
    private static void sumColumns(final long side, final long price, final long qty, final int start, final int end,
        final long[] acc) {
        long total0 = 0;
        long total1 = 0;
        long sell0 = 0;
        long sell1 = 0;
        int r = start;
        for (; r + 1 < end; r += 2) {
            final long a = price + ((long) r << 3);
            final long b = qty + ((long) r << 3);
            final long p0 = NativeMemory.getLong(a) * NativeMemory.getLong(b);
            final long p1 = NativeMemory.getLong(a + 8) * NativeMemory.getLong(b + 8);
            final int sides = NativeMemory.getShort(side + r);
            total0 += p0;
            total1 += p1;
            sell0 += (sides >>> FIRST_SIDE & 0xFF) == 'S' ? p0 : 0;
            sell1 += (sides >>> SECOND_SIDE & 0xFF) == 'S' ? p1 : 0;
        }
        long total = total0 + total1;
        long sell = sell0 + sell1;
        if (r < end) {
            final long p = NativeMemory.getLong(price + ((long) r << 3)) * NativeMemory.getLong(qty + ((long) r << 3));
            total += p;
            sell += NativeMemory.getByte(side + r) == 'S' ? p : 0;
        }
        addBatch(acc, total - sell, sell);
    }

    /** ROW layout: records of {@link TradeFlyweight#ROW_LENGTH} bytes, fields at their static offsets. */
    private static void sumRecords(final long base, final int start, final int end, final long[] acc) {
        long total = 0;
        long sell = 0;
        for (int r = start; r < end; r++) {
            final long rec = base + (long) r * TradeFlyweight.ROW_LENGTH;
            final long p =
                NativeMemory.getLong(rec + TradeFlyweight.PRICE_ROW_OFFSET)
                * NativeMemory.getLong(rec + TradeFlyweight.QUANTITY_ROW_OFFSET);
            total += p;
            sell += p & -((NativeMemory.getByte(rec + TradeFlyweight.SIDE_ROW_OFFSET) >>> 4) & 1);
        }
        addBatch(acc, total - sell, sell);
    }

    /** A scan of segments {@code [from, to)} into an accumulator (two exact sums as in {@link #addBatch}). */
    private interface SegmentScan {
        void scan(TableSnapshot snap, int fromSegment, int toSegment, long[] acc);
    }

    /**
     * COLUMN layout: the kernel's three columns (side, price, quantity) summed, nothing else: what merely reading the
     * bytes the kernel touches costs, three streams at once. The sum goes to {@code acc[0]}.
     */
    static void readColumns(final TableSnapshot snap, final int fromSegment, final int toSegment, final long[] acc) {
        scanSegments(snap, fromSegment, toSegment, acc, true);
    }

    /** @return the sum of rows {@code [start, end)} of the side, price and quantity columns, read row by row. */
    static long readBatch(final long side, final long price, final long qty, final int start, final int end) {
        long p = 0;
        long q = 0;
        long b = 0;
        for (int r = start; r < end; r++) {
            p += NativeMemory.getLong(price + ((long) r << 3));
            q += NativeMemory.getLong(qty + ((long) r << 3));
            b += NativeMemory.getByte(side + r);
        }
        return p + q + b;
    }

    /**
     * Runs {@code scan} over the two halves of the segments, the second half on a new thread; merges as {@link
     * #addBatch}.
     */
    private static long[] twoThreads(final TableSnapshot snap, final SegmentScan scan) {
        final int mid = snap.segmentCount() / 2;
        final long[] other = new long[4];
        final Thread t = new Thread(() -> scan.scan(snap, mid, snap.segmentCount(), other));
        t.start();
        final long[] mine = new long[4];
        scan.scan(snap, 0, mid, mine);
        try {
            t.join();
        } catch (final InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        final long[] acc = new long[4];
        addBatch(acc, mine[0], mine[2]);
        addBatch(acc, other[0], other[2]);
        acc[1] += mine[1] + other[1];
        acc[3] += mine[3] + other[3];
        return acc;
    }

    /** @return the repetitions' wall times: min and max. */
    static DoubleSummaryStatistics msRange(final List<AppendRun> runs) {
        return runs.stream().mapToDouble(a -> a.ms).summaryStatistics();
    }
}
