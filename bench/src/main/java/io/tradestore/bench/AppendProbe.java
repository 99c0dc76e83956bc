package io.tradestore.bench;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;

import io.tradestore.core.Store;
import io.tradestore.core.Table;
import io.tradestore.core.TableWriter;
import io.tradestore.core.flyweight.TradeFlyweight;
import io.tradestore.core.flyweight.TradesSchema;
import io.tradestore.core.schema.Layout;
import io.tradestore.core.schema.Schema;
import picocli.CommandLine.Command;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.Option;
import picocli.CommandLine.TypeConversionException;

/**
 * Where the single-writer append's time goes: the storage layouts step's append ({@link LayoutsBenchmark#append}, 50M
 * trades through {@link TradeFlyweight}, a commit every 1M rows) run several times in one JVM, each into a fresh COLUMN
 * table, with the writer thread's user and kernel CPU and every thread group's ({@link ThreadTimes}: the stage
 * thread's copies, the JIT, GC), beside two cut-down loops: {@code gen}
 * computes the same values without a table (the benchmark's own data generation), {@code bare} appends rows without
 * setting any column (the writer's per-row path, null fill and copies alone), {@code pooled} appends the same kind of
 * rows with their values read from arrays of 65,536 rows generated before the clock starts (is the generator the
 * bound?).
 *
 * <p>{@code java -cp bench/target/tradestore-bench.jar io.tradestore.bench.AppendProbe --mode append|bare|gen|pooled --rows N
 * --runs N --dir D [--between none|sync|sync+MS]} (plus the chronicle flags of DEVELOPERS.md; staging switches such as
 * {@code -Dtradestore.append.stageThread=false} apply). Read the later runs: the first ones include the JIT's work.
 * {@code --between sync} runs sync(1) before each run deletes the previous run's files, {@code sync+MS} also pauses
 * MS ms after the delete.
 */
@Command(name = "AppendProbe", mixinStandardHelpOptions = true,
    description = {"Where the single-writer append's time goes: the layouts step's append run several times into fresh COLUMN tables, with"
        + " the writer thread's user and kernel CPU and every thread group's; read the later runs (the first include the JIT's work)."})
public final class AppendProbe implements Callable<Integer> {
    /** Rows of generated values {@code pooled} cycles through: 2.2 MB of arrays. */
    private static final int POOL_ROWS = 1 << 16;

    @Option(names = "--mode", paramLabel = "M", converter = Mode.class, description = "append: the layouts step's append; bare: rows without"
        + " values; gen: the values without a table; pooled: values read from pre-generated arrays (default: ${DEFAULT-VALUE})")
    String mode = "append";

    @Option(names = "--rows", paramLabel = "N", converter = BenchCli.Rows.class, description = "rows per run (default: ${DEFAULT-VALUE})")
    long rows = 50_000_000L;

    @Option(names = "--runs", paramLabel = "N", converter = BenchCli.Count.class, description = "runs, each into a fresh table"
        + " (default: ${DEFAULT-VALUE})")
    int runs = 5;

    @Option(names = "--dir", paramLabel = "D", description = "the store directory, deleted before each run and at the end"
        + " (default: ${DEFAULT-VALUE})")
    Path dir = Paths.get(System.getProperty("java.io.tmpdir"), "tradestore-append-probe");

    @Option(names = "--between", paramLabel = "none|sync|sync+MS", converter = Between.class, description = "between runs, untimed: nothing,"
        + " sync(1) before the delete, or also a pause of MS ms after it (default: ${DEFAULT-VALUE})")
    String between = "none";

    AppendProbe() {
    }

    /** A mode of the probe. */
    static final class Mode extends BenchCli.OneOf {
        Mode() {
            super(List.of("append", "bare", "gen", "pooled"), "modes");
        }
    }

    /** none, sync or sync+MS. */
    static final class Between implements ITypeConverter<String> {
        @Override
        public String convert(final String value) {
            if (!value.equals("none") && !value.equals("sync") && !value.matches("sync\\+\\d{1,6}")) {
                throw new TypeConversionException("'" + value + "': use none, sync or sync+MS");
            }
            return value;
        }
    }

    /**
     * Runs the probe; exits 1 when it fails, 2 on bad usage.
     *
     * @param args {@code --mode append|bare|gen|pooled --rows N --runs N --dir D --between none|sync|sync+MS}, or {@code --help}.
     */
    public static void main(final String[] args) {
        BenchCli.exit(new AppendProbe(), args);
    }

    @Override
    public Integer call() throws IOException {
        final ThreadMXBean mx = ManagementFactory.getThreadMXBean();
        final Pool pool = mode.equals("pooled") ? new Pool() : null;
        for (int r = 0; r < runs; r++) {
            if (r > 0 && !between.equals("none")) {
                sync();
            }
            BenchCommand.deleteTree(dir);
            if (r > 0 && between.startsWith("sync+")) {
                pause(Integer.parseInt(between.substring("sync+".length())));
            }
            Files.createDirectories(dir);
            try (Store store = Store.open(dir)) {
                final Table table = store.createTable(TradesSchema.SCHEMA.with("trades", Layout.COLUMN, Schema.DEFAULT_SEGMENT_ROWS,
                    Schema.DEFAULT_BLOCK_ROWS));
                final ThreadTimes times = ThreadTimes.start();
                final long user0 = mx.getCurrentThreadUserTime();
                final long cpu0 = mx.getCurrentThreadCpuTime();
                final long t0 = System.nanoTime();
                long sink = 0;
                long waitNs = 0;
                if (mode.equals("gen")) {
                    sink = generate(rows);
                } else if (mode.equals("bare")) {
                    waitNs = bare(table, rows);
                } else if (mode.equals("pooled")) {
                    waitNs = pooled(table, rows, pool);
                } else {
                    waitNs = LayoutsBenchmark.append(table, rows);
                }
                final long ms = (System.nanoTime() - t0) / 1_000_000;
                final long user = (mx.getCurrentThreadUserTime() - user0) / 1_000_000;
                final long cpu = (mx.getCurrentThreadCpuTime() - cpu0) / 1_000_000;
                System.out.printf(Locale.ROOT, "%s run %d: %,d rows in %d ms (%.1f M rows/s); writer user %d ms, kernel %d ms, waited %d ms%s%n%s",
                    mode, r + 1, rows, ms, rows / 1e3 / Math.max(1, ms), user, cpu - user, waitNs / 1_000_000,
                    mode.equals("gen") ? "; checksum " + sink : "", times.stop());
            }
        }
        BenchCommand.deleteTree(dir);
        return 0;
    }

    /**
     * Between runs (untimed): sync(1) writes back every dirty page of the machine before the previous run's files are
     * deleted, so that no writeback overlaps the next run; with {@code sync+MS} a pause after the delete lets the file
     * system's work on the freed blocks finish too.
     */
    private static void sync() throws IOException {
        try {
            final int exit = new ProcessBuilder("sync").inheritIO().start().waitFor();
            if (exit != 0) {
                throw new IOException("sync exited with " + exit);
            }
        } catch (final InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static void pause(final int ms) {
        try {
            Thread.sleep(ms);
        } catch (final InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** @return a sum of the values {@link LayoutsBenchmark#append} writes, computed without a table. */
    private static long generate(final long rows) {
        long sink = 0;
        for (long i = 0; i < rows; i++) {
            final long h = LayoutsBenchmark.mix(i);
            sink += i + LayoutsBenchmark.ts(i) + LayoutsBenchmark.clientId(h) + LayoutsBenchmark.venue(h) + LayoutsBenchmark.instrument(h)
                + LayoutsBenchmark.side(h) + LayoutsBenchmark.price(h) + LayoutsBenchmark.quantity(h);
        }
        return sink;
    }

    /** Values of {@link #POOL_ROWS} generated rows, as {@link LayoutsBenchmark#append} computes them (venue and instrument as indexes). */
    private static final class Pool {
        final long[] client = new long[POOL_ROWS];
        final int[] venue = new int[POOL_ROWS];
        final int[] instrument = new int[POOL_ROWS];
        final char[] side = new char[POOL_ROWS];
        final long[] price = new long[POOL_ROWS];
        final long[] qty = new long[POOL_ROWS];

        Pool() {
            for (int i = 0; i < POOL_ROWS; i++) {
                final long h = LayoutsBenchmark.mix(i);
                client[i] = LayoutsBenchmark.clientId(h);
                venue[i] = LayoutsBenchmark.venue(h);
                instrument[i] = LayoutsBenchmark.instrument(h);
                side[i] = LayoutsBenchmark.side(h);
                price[i] = LayoutsBenchmark.price(h);
                qty[i] = LayoutsBenchmark.quantity(h);
            }
        }
    }

    /** Appends rows whose values come from the pool, committing every 1M rows; @return the writer's waits. */
    private static long pooled(final Table table, final long rows, final Pool p) {
        try (TableWriter w = table.writer()) {
            final int[] venueCodes = LayoutsBenchmark.venueCodes(w);
            final int[] instrumentCodes = LayoutsBenchmark.instrumentCodes(w);
            final TradeFlyweight f = new TradeFlyweight();
            for (long start = 0; start < rows; start += LayoutsBenchmark.COMMIT_ROWS) {
                final long end = Math.min(rows, start + LayoutsBenchmark.COMMIT_ROWS);
                for (long i = start; i < end; i++) {
                    final int k = (int) i & (POOL_ROWS - 1);
                    w.append(f).tradeId(i).ts(LayoutsBenchmark.ts(i)).clientId(p.client[k]).venue(venueCodes[p.venue[k]])
                        .instrument(instrumentCodes[p.instrument[k]]).side(p.side[k]).price(p.price[k]).quantity(p.qty[k]);
                }
                w.commit();
            }
            return w.segmentWaitNanos();
        }
    }

    /** Appends null rows only, committing every {@link LayoutsBenchmark#COMMIT_ROWS}; @return the writer's waits. */
    private static long bare(final Table table, final long rows) {
        try (TableWriter w = table.writer()) {
            final TradeFlyweight f = new TradeFlyweight();
            for (long start = 0; start < rows; start += LayoutsBenchmark.COMMIT_ROWS) {
                final long end = Math.min(rows, start + LayoutsBenchmark.COMMIT_ROWS);
                for (long i = start; i < end; i++) {
                    w.append(f);
                }
                w.commit();
            }
            return w.segmentWaitNanos();
        }
    }
}
