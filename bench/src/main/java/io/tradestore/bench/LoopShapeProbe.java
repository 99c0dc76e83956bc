package io.tradestore.bench;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import io.tradestore.core.Store;
import io.tradestore.core.TableReader;
import io.tradestore.core.TableSnapshot;
import io.tradestore.core.flyweight.TradeFlyweight;
import io.tradestore.core.memory.NativeMemory;
import io.tradestore.core.schema.Layout;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * The shapes of loop {@code DenseSumKernel} could run for query 1 ({@code sum(price*quantity)} by side: a one-byte key)
 * and query 5 (the same by client_id: an eight-byte key), side by side over an existing store's mapped segments, so
 * that a change of loop can be weighed on a new machine without the engine around it (docs/query-engine.md, "Session
 * 11"). Each shape runs over every segment in 4,096-row batches, the segments dealt to the threads in turn, and is
 * timed as the median of its repetitions after warm-ups, 20 ms of quiet before each:
 * <ul>
 * <li>{@code q1-test}: the engine's loop with a null test per row; {@code q1-free}: without it; {@code q1-halves}:
 * without it, the batch's two halves side by side into one partial array (the engine's loop on null-free blocks until
 * session 12, which gave the second half an array of its own); {@code q1-quarters}: four
 * quarters, a partial array each; {@code q1-read}: merely summing the three columns.</li>
 * <li>{@code q5-free}, {@code q5-halves}, {@code q5-read}: the same for client_id, price and quantity.</li>
 * </ul>
 *
 * <p>{@code flock /tmp/tradestore-bench.lock java <chronicle flags of DEVELOPERS.md> -cp bench/target/tradestore-bench.jar
 * io.tradestore.bench.LoopShapeProbe --store /tmp/tradestore-bench-50m --threads 2 --reps 9 --rounds 3} (the store the
 * HTTP benchmark makes). Prints per round and shape the median in ms and ns per row per thread.
 */
@Command(name = "LoopShapeProbe", mixinStandardHelpOptions = true,
    description = {"The shapes of loop the dense kernel could run for query 1 (a one-byte key) and query 5 (an eight-byte key), side by"
        + " side over an existing store's mapped segments; prints per round and shape the median in ms and ns per row per thread."})
public final class LoopShapeProbe implements Callable<Integer> {
    private static final int BATCH = 4096;
    private static final int KEYS = 256;
    private static volatile long sink;
    /** The smallest client id less one (client ids index the partials from 1), and the partials' size for them. */
    private static long clientLo;
    private static int clientSlots;

    @Mixin
    BenchCli.StoreOption storeOption = new BenchCli.StoreOption();

    @Option(names = "--threads", paramLabel = "N", converter = BenchCli.Count.class, description = "threads, the segments dealt to them in"
        + " turn (default: ${DEFAULT-VALUE})")
    int threads = 2;

    @Option(names = "--reps", paramLabel = "N", converter = BenchCli.Count.class, description = "timed runs per shape and round, after 4"
        + " warm-ups; the median is printed (default: ${DEFAULT-VALUE})")
    int reps = 9;

    @Option(names = "--rounds", paramLabel = "N", converter = BenchCli.Count.class, description = "rounds over every shape"
        + " (default: ${DEFAULT-VALUE})")
    int rounds = 3;

    LoopShapeProbe() {
    }

    /** One shape over one batch: the key column, price and quantity at the batch's first row, its rows, the partials. */
    private interface Shape {
        long run(long key, long price, long qty, int n, long[][] partials);
    }

    /**
     * Runs the probe; exits 1 when it fails, 2 on bad usage.
     *
     * @param args {@code --store DIR --threads N --reps N --rounds N}, or {@code --help}.
     */
    public static void main(final String[] args) {
        BenchCli.exit(new LoopShapeProbe(), args);
    }

    @Override
    public Integer call() throws Exception {
        final String[] names = {"q1-test", "q1-free", "q1-halves", "q1-quarters", "q1-read", "q5-free", "q5-halves", "q5-read"};
        final Shape[] shapes = {LoopShapeProbe::q1Test, LoopShapeProbe::q1Free, LoopShapeProbe::q1Halves, LoopShapeProbe::q1Quarters,
            LoopShapeProbe::q1Read, LoopShapeProbe::q5Free, LoopShapeProbe::q5Halves, LoopShapeProbe::q5Read};
        final ExecutorService pool = Executors.newFixedThreadPool(threads);
        try (Store s = Store.open(storeOption.dir); TableReader reader = s.table("trades").reader()) {
            final TableSnapshot snap = reader.snapshot();
            if (snap.schema().layout() != Layout.COLUMN) {
                throw new IllegalArgumentException(storeOption.dir + ": the probe reads COLUMN tables (contiguous columns); this one is "
                    + snap.schema().layout());
            }
            long lo = Long.MAX_VALUE;
            long hi = Long.MIN_VALUE;
            for (int g = 0; g < snap.segmentCount(); g++) {
                lo = Math.min(lo, snap.segment(g).zoneMin(-1, TradeFlyweight.CLIENT_ID_INDEX));
                hi = Math.max(hi, snap.segment(g).zoneMax(-1, TradeFlyweight.CLIENT_ID_INDEX));
            }
            if (hi - lo >= 1 << 24) {
                throw new IllegalArgumentException("client ids span " + lo + ".." + hi + ": too wide for dense partials");
            }
            clientLo = lo - 1;
            clientSlots = (int) (hi - lo + 2);
            for (int round = 0; round < rounds; round++) {
                for (int v = 0; v < shapes.length; v++) {
                    final double ms = time(snap, shapes[v], names[v].startsWith("q5"), pool, threads, reps);
                    System.out.printf(Locale.ROOT, "round %d %-12s %7.1f ms  %.2f ns/row/thread%n", round, names[v], ms,
                        ms * 1e6 * threads / snap.rowCount());
                }
            }
        } finally {
            pool.shutdown();
        }
        return 0;
    }

    private static double time(final TableSnapshot snap, final Shape shape, final boolean byClient, final ExecutorService pool, final int threads,
                               final int reps) throws Exception {
        final int warmups = 4;
        final double[] ms = new double[reps];
        for (int i = 0; i < warmups + reps; i++) {
            Thread.sleep(20);
            final long t0 = System.nanoTime();
            final List<Future<Long>> parts = new ArrayList<>();
            for (int w = 0; w < threads; w++) {
                final int worker = w;
                parts.add(pool.submit(() -> scan(snap, shape, byClient, worker, threads)));
            }
            for (final Future<Long> f : parts) {
                sink += f.get();
            }
            if (i >= warmups) {
                ms[i - warmups] = (System.nanoTime() - t0) / 1e6;
            }
        }
        Arrays.sort(ms);
        return ms[reps / 2];
    }

    private static long scan(final TableSnapshot snap, final Shape shape, final boolean byClient, final int worker, final int threads) {
        final int keyColumn = byClient ? TradeFlyweight.CLIENT_ID_INDEX : TradeFlyweight.SIDE_INDEX;
        final int keyWidth = byClient ? 8 : 1;
        final long[][] partials = new long[4][byClient ? clientSlots : KEYS];
        long acc = 0;
        for (int g = worker; g < snap.segmentCount(); g += threads) {
            final long key = snap.segment(g).columnBase(keyColumn);
            final long price = snap.segment(g).columnBase(TradeFlyweight.PRICE_INDEX);
            final long qty = snap.segment(g).columnBase(TradeFlyweight.QUANTITY_INDEX);
            final int rows = snap.segmentRowCount(g);
            for (int b = 0; b < rows; b += BATCH) {
                acc += shape.run(key + (long) keyWidth * b, price + 8L * b, qty + 8L * b, Math.min(BATCH, rows - b), partials);
            }
        }
        for (final long[] p : partials) {
            for (final long v : p) {
                acc += v;
            }
        }
        return acc;
    }

    private static long q1Test(final long key, final long a0, final long b0, final int n, final long[][] partials) {
        final long[] s0 = partials[0];
        long t0 = 0;
        int nulls = 0;
        for (int i = 0; i < n; i++) {
            final int g = NativeMemory.getByte(key + i) & 0xFF;
            final long x = NativeMemory.getLong(a0 + 8L * i);
            final long y = NativeMemory.getLong(b0 + 8L * i);
            if (x == Long.MIN_VALUE | y == Long.MIN_VALUE) {
                nulls++;
            } else {
                s0[g] += x * y;
                t0 += x * y;
            }
        }
        return t0 + nulls;
    }

    private static long q1Free(final long key, final long a0, final long b0, final int n, final long[][] partials) {
        final long[] s0 = partials[0];
        long t0 = 0;
        for (int i = 0; i < n; i++) {
            final int g = NativeMemory.getByte(key + i) & 0xFF;
            final long p = NativeMemory.getLong(a0 + 8L * i) * NativeMemory.getLong(b0 + 8L * i);
            s0[g] += p;
            t0 += p;
        }
        return t0;
    }

    private static long q1Halves(final long key, final long a0, final long b0, final int n, final long[][] partials) {
        final long[] s0 = partials[0];
        final int h = n >>> 1;
        final long hb = 8L * h;
        long t0 = 0;
        for (int i = 0; i < h; i++) {
            final int g = NativeMemory.getByte(key + i) & 0xFF;
            final long p = NativeMemory.getLong(a0 + 8L * i) * NativeMemory.getLong(b0 + 8L * i);
            final int g2 = NativeMemory.getByte(key + h + i) & 0xFF;
            final long p2 = NativeMemory.getLong(a0 + hb + 8L * i) * NativeMemory.getLong(b0 + hb + 8L * i);
            s0[g] += p;
            s0[g2] += p2;
            t0 += p + p2;
        }
        return t0 + q1Free(key + 2 * h, a0 + 2 * hb, b0 + 2 * hb, n - 2 * h, partials); // the odd last row
    }

    private static long q1Quarters(final long key, final long a0, final long b0, final int n, final long[][] partials) {
        final long[] s0 = partials[0];
        final long[] s1 = partials[1];
        final long[] s2 = partials[2];
        final long[] s3 = partials[3];
        final int q = n >>> 2;
        final long qb = 8L * q;
        long t0 = 0;
        for (int i = 0; i < q; i++) {
            final long o = 8L * i;
            final long p0 = NativeMemory.getLong(a0 + o) * NativeMemory.getLong(b0 + o);
            final long p1 = NativeMemory.getLong(a0 + qb + o) * NativeMemory.getLong(b0 + qb + o);
            final long p2 = NativeMemory.getLong(a0 + 2 * qb + o) * NativeMemory.getLong(b0 + 2 * qb + o);
            final long p3 = NativeMemory.getLong(a0 + 3 * qb + o) * NativeMemory.getLong(b0 + 3 * qb + o);
            s0[NativeMemory.getByte(key + i) & 0xFF] += p0;
            s1[NativeMemory.getByte(key + q + i) & 0xFF] += p1;
            s2[NativeMemory.getByte(key + 2 * q + i) & 0xFF] += p2;
            s3[NativeMemory.getByte(key + 3 * q + i) & 0xFF] += p3;
            t0 += p0 + p1 + p2 + p3;
        }
        return t0 + q1Free(key + 4 * q, a0 + 4 * qb, b0 + 4 * qb, n - 4 * q, partials); // up to three last rows
    }

    private static long q1Read(final long key, final long a0, final long b0, final int n, final long[][] partials) {
        return LayoutsBenchmark.readBatch(key, a0, b0, 0, n);
    }

    private static long q5Free(final long key, final long a0, final long b0, final int n, final long[][] partials) {
        final long[] s0 = partials[0];
        final long lo = clientLo;
        long t0 = 0;
        for (int i = 0; i < n; i++) {
            final long v = NativeMemory.getLong(key + 8L * i);
            final int g = (int) (v == Long.MIN_VALUE ? 0 : v - lo);
            final long p = NativeMemory.getLong(a0 + 8L * i) * NativeMemory.getLong(b0 + 8L * i);
            s0[g] += p;
            t0 += p;
        }
        return t0;
    }

    private static long q5Halves(final long key, final long a0, final long b0, final int n, final long[][] partials) {
        final long[] s0 = partials[0];
        final long lo = clientLo;
        final int h = n >>> 1;
        final long hb = 8L * h;
        long t0 = 0;
        for (int i = 0; i < h; i++) {
            final long o = 8L * i;
            final long v = NativeMemory.getLong(key + o);
            final int g = (int) (v == Long.MIN_VALUE ? 0 : v - lo);
            final long p = NativeMemory.getLong(a0 + o) * NativeMemory.getLong(b0 + o);
            final long v2 = NativeMemory.getLong(key + hb + o);
            final int g2 = (int) (v2 == Long.MIN_VALUE ? 0 : v2 - lo);
            final long p2 = NativeMemory.getLong(a0 + hb + o) * NativeMemory.getLong(b0 + hb + o);
            s0[g] += p;
            s0[g2] += p2;
            t0 += p + p2;
        }
        return t0 + q5Free(key + 2 * hb, a0 + 2 * hb, b0 + 2 * hb, n - 2 * h, partials); // the odd last row
    }

    private static long q5Read(final long key, final long a0, final long b0, final int n, final long[][] partials) {
        long k = 0;
        long p = 0;
        long q = 0;
        for (int i = 0; i < n; i++) {
            k += NativeMemory.getLong(key + 8L * i);
            p += NativeMemory.getLong(a0 + 8L * i);
            q += NativeMemory.getLong(b0 + 8L * i);
        }
        return k + p + q;
    }
}
