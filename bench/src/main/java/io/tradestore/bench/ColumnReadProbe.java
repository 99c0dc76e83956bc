package io.tradestore.bench;

import java.util.Locale;
import java.util.concurrent.Callable;

import io.tradestore.core.Store;
import io.tradestore.core.TableReader;
import io.tradestore.core.TableSnapshot;
import io.tradestore.core.flyweight.TradeFlyweight;
import io.tradestore.core.memory.NativeMemory;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * How fast the three columns query 1 and the COLUMN kernel read (side, price, quantity) can merely be read, summed with
 * no product and no grouping, over an existing store's mapped segments: the reading part of their time. Four ways, each
 * on one thread and on two (segment halves), timed in turn per repetition: {@code interleaved} reads the three columns
 * row by row in 4,096-row batches (what the kernels do), {@code phased} reads each column of a batch in turn,
 * {@code copies} is {@code interleaved} over malloc'd copies of the columns instead of the mappings, {@code alternate}
 * (two threads only) gives the threads alternate batches of every segment instead of halves. Prints ns per row.
 *
 * <p>{@code flock /tmp/tradestore-bench.lock java <chronicle flags of DEVELOPERS.md> -cp bench/target/tradestore-bench.jar
 * io.tradestore.bench.ColumnReadProbe --store /tmp/tradestore-bench-50m --reps 10} (the store the HTTP benchmark makes).
 */
@Command(name = "ColumnReadProbe", mixinStandardHelpOptions = true,
    description = {"How fast the three columns query 1 reads (side, price, quantity) can merely be read and summed over an existing store's"
        + " mapped segments, four ways on one thread and on two; prints ns per row."})
public final class ColumnReadProbe implements Callable<Integer> {
    private static final int BATCH = 4096;
    private static volatile long sink;

    @Mixin
    BenchCli.StoreOption storeOption = new BenchCli.StoreOption();

    @Option(names = "--reps", paramLabel = "N", converter = BenchCli.Count.class, description = "repetitions, each timing every way in turn"
        + " (default: ${DEFAULT-VALUE})")
    int reps = 10;

    ColumnReadProbe() {
    }

    /**
     * Runs the probe; exits 1 when it fails, 2 on bad usage.
     *
     * @param args {@code --store DIR --reps N}, or {@code --help}.
     */
    public static void main(final String[] args) {
        BenchCli.exit(new ColumnReadProbe(), args);
    }

    @Override
    public Integer call() throws Exception {
        try (Store s = Store.open(storeOption.dir); TableReader reader = s.table("trades").reader()) {
            final TableSnapshot snap = reader.snapshot();
            final int segs = snap.segmentCount();
            final long[][] mapped = new long[segs][];
            final long[][] copies = new long[segs][];
            final int[] rows = new int[segs];
            final int[] cols = {TradeFlyweight.SIDE_INDEX, TradeFlyweight.PRICE_INDEX, TradeFlyweight.QUANTITY_INDEX};
            final int[] width = {1, 8, 8};
            long total = 0;
            for (int g = 0; g < segs; g++) {
                rows[g] = snap.segmentRowCount(g);
                total += rows[g];
                mapped[g] = new long[3];
                copies[g] = new long[3];
                for (int c = 0; c < 3; c++) {
                    mapped[g][c] = snap.segment(g).columnBase(cols[c]);
                    copies[g][c] = NativeMemory.allocate((long) width[c] * rows[g]);
                    NativeMemory.copy(mapped[g][c], copies[g][c], (long) width[c] * rows[g]);
                }
            }
            try {
                for (int rep = 0; rep < reps; rep++) {
                    final StringBuilder line = new StringBuilder();
                    line.append(time("interleaved", total, () -> read(mapped, rows, 0, segs, 0, 1, false)));
                    line.append(time("phased", total, () -> read(mapped, rows, 0, segs, 0, 1, true)));
                    line.append(time("copies", total, () -> read(copies, rows, 0, segs, 0, 1, false)));
                    line.append(time("interleaved-2t", total, () -> twoThreads(() -> read(mapped, rows, 0, segs / 2, 0, 1, false),
                        () -> read(mapped, rows, segs / 2, segs, 0, 1, false))));
                    line.append(time("phased-2t", total, () -> twoThreads(() -> read(mapped, rows, 0, segs / 2, 0, 1, true),
                        () -> read(mapped, rows, segs / 2, segs, 0, 1, true))));
                    line.append(time("copies-2t", total, () -> twoThreads(() -> read(copies, rows, 0, segs / 2, 0, 1, false),
                        () -> read(copies, rows, segs / 2, segs, 0, 1, false))));
                    line.append(time("alternate-2t", total, () -> twoThreads(() -> read(mapped, rows, 0, segs, 0, 2, false),
                        () -> read(mapped, rows, 0, segs, 1, 2, false))));
                    System.out.println(line);
                }
            } finally {
                for (int g = 0; g < segs; g++) {
                    for (int c = 0; c < 3; c++) {
                        NativeMemory.free(copies[g][c], (long) width[c] * rows[g]);
                    }
                }
            }
        }
        return 0;
    }

    private interface Pass {
        long run() throws InterruptedException;
    }

    private static String time(final String name, final long rows, final Pass pass) throws InterruptedException {
        final long t0 = System.nanoTime();
        sink += pass.run();
        return String.format(Locale.ROOT, "%s %.3f  ", name, (System.nanoTime() - t0) / (double) rows);
    }

    private static long twoThreads(final Pass a, final Pass b) throws InterruptedException {
        final long[] other = new long[1];
        final Thread t = new Thread(() -> {
            try {
                other[0] = b.run();
            } catch (final InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        t.start();
        final long mine = a.run();
        t.join();
        return mine + other[0];
    }

    /** Segments {@code [from, to)}, batches {@code first, first + step, ...} of each; columns {side, price, quantity}. */
    private static long read(final long[][] cols, final int[] rows, final int from, final int to, final int first, final int step,
                             final boolean phased) {
        long acc = 0;
        for (int g = from; g < to; g++) {
            for (int b = first * BATCH; b < rows[g]; b += step * BATCH) {
                final int end = Math.min(rows[g], b + BATCH);
                acc += phased ? phased(cols[g][0], cols[g][1], cols[g][2], b, end) : LayoutsBenchmark.readBatch(cols[g][0], cols[g][1], cols[g][2], b, end);
            }
        }
        return acc;
    }

    private static long phased(final long side, final long price, final long qty, final int start, final int end) {
        long p = 0;
        long q = 0;
        long s = 0;
        for (int r = start; r < end; r++) {
            p += NativeMemory.getLong(price + ((long) r << 3));
        }
        for (int r = start; r < end; r++) {
            q += NativeMemory.getLong(qty + ((long) r << 3));
        }
        for (int r = start; r < end; r++) {
            s += NativeMemory.getByte(side + r);
        }
        return p + q + s;
    }
}
