package io.tradestore.query;

import java.nio.file.Path;
import java.util.Arrays;
import java.util.SplittableRandom;

import io.tradestore.core.Store;
import io.tradestore.core.TableSnapshot;
import io.tradestore.core.TableWriter;
import io.tradestore.core.flyweight.TradesSchema;
import io.tradestore.core.memory.NativeMemory;
import io.tradestore.core.schema.Schema;

/**
 * The eight reference queries of the store-query issue on generated trades (5 days, ~500 skewed instruments, 8 venues,
 * 10,000 skewed clients), with the memory floor of query 1 measured in the same run. Not a unit test: run with
 * {@code flock /tmp/tradestore-bench.lock java <flags> -cp <test classpath> io.tradestore.query.QueryPerfMain <dir> <rows> <threads> <runs>}.
 */
public final class QueryPerfMain {
    private static final long DAY0 = 1_794_960_000_000_000_000L;
    static final String[] QUERIES = {
        "{\"table\":\"trades\",\"groupBy\":[\"side\"],\"aggs\":[{\"name\":\"notional\",\"op\":\"sum\",\"col\":\"price*quantity\"}]}",
        "{\"table\":\"trades\",\"groupBy\":[\"instrument\"],\"aggs\":[{\"name\":\"vwap\",\"op\":\"vwap\"},{\"name\":\"volume\",\"op\":\"sum\","
            + "\"col\":\"quantity\"},{\"name\":\"n\",\"op\":\"count\"}],\"orderBy\":[{\"col\":\"volume\",\"desc\":true}],\"limit\":10}",
        "{\"table\":\"trades\",\"time\":{\"from\":\"2026-11-18T10:00:00Z\",\"to\":\"2026-11-18T12:00:00Z\"},\"filter\":{\"op\":\"eq\","
            + "\"col\":\"instrument\",\"value\":\"SYM042\"},\"aggs\":[{\"name\":\"n\",\"op\":\"count\"},{\"name\":\"q\",\"op\":\"sum\",\"col\":\"quantity\"},"
            + "{\"name\":\"lo\",\"op\":\"min\",\"col\":\"price\"},{\"name\":\"hi\",\"op\":\"max\",\"col\":\"price\"}]}",
        "{\"table\":\"trades\",\"groupBy\":[\"venue\",\"side\"],\"aggs\":[{\"name\":\"n\",\"op\":\"count\"},{\"name\":\"volume\",\"op\":\"sum\","
            + "\"col\":\"quantity\"}]}",
        "{\"table\":\"trades\",\"groupBy\":[\"client_id\"],\"aggs\":[{\"name\":\"notional\",\"op\":\"sum\",\"col\":\"price*quantity\"}],"
            + "\"orderBy\":[{\"col\":\"notional\",\"desc\":true}],\"limit\":10}",
        "{\"table\":\"trades\",\"time\":{\"from\":\"2026-11-18T00:00:00Z\",\"to\":\"2026-11-19T00:00:00Z\"},\"filter\":{\"op\":\"eq\","
            + "\"col\":\"instrument\",\"value\":\"SYM042\"},\"groupBy\":[{\"bucket\":\"1m\",\"col\":\"ts\",\"as\":\"minute\"}],\"aggs\":["
            + "{\"name\":\"open\",\"op\":\"first\",\"col\":\"price\"},{\"name\":\"high\",\"op\":\"max\",\"col\":\"price\"},{\"name\":\"low\","
            + "\"op\":\"min\",\"col\":\"price\"},{\"name\":\"close\",\"op\":\"last\",\"col\":\"price\"},{\"name\":\"volume\",\"op\":\"sum\","
            + "\"col\":\"quantity\"}]}",
        "{\"table\":\"trades\",\"filter\":{\"op\":\"eq\",\"col\":\"client_id\",\"value\":4242},\"aggs\":[{\"name\":\"n\",\"op\":\"count\"},"
            + "{\"name\":\"volume\",\"op\":\"sum\",\"col\":\"quantity\"}]}",
        "{\"table\":\"trades\",\"aggs\":[{\"name\":\"n\",\"op\":\"count\"},{\"name\":\"q\",\"op\":\"sum\",\"col\":\"quantity\"},{\"name\":\"first\","
            + "\"op\":\"min\",\"col\":\"ts\"},{\"name\":\"last\",\"op\":\"max\",\"col\":\"ts\"}]}",
        // 9-11: parts of query 1, to see where its time goes
        "{\"table\":\"trades\",\"groupBy\":[\"side\"],\"aggs\":[{\"name\":\"n\",\"op\":\"count\"}]}",
        "{\"table\":\"trades\",\"aggs\":[{\"name\":\"notional\",\"op\":\"sum\",\"col\":\"price*quantity\"}]}",
        "{\"table\":\"trades\",\"groupBy\":[\"client_id\"],\"aggs\":[{\"name\":\"n\",\"op\":\"count\"}]}"};

    private QueryPerfMain() {
    }

    /** @param args directory, rows, threads, runs. */
    public static void main(final String[] args) {
        final Path dir = Path.of(args[0]);
        final long rows = Long.parseLong(args[1]);
        final int threads = Integer.parseInt(args[2]);
        final int runs = Integer.parseInt(args[3]);
        try (Store store = Store.open(dir)) {
            if (!store.hasTable("trades")) {
                final long t = System.nanoTime();
                generate(store, TradesSchema.SCHEMA, rows);
                System.out.printf("generated %d rows in %.1f s%n", rows, (System.nanoTime() - t) / 1e9);
            }
            try (QueryEngine engine = new QueryEngine(store, threads)) {
                final TableSnapshot snap = engine.snapshot("trades");
                System.out.printf("rows=%d segments=%d threads=%d%n", snap.rowCount(), snap.segmentCount(), threads);
                final double floor = floorMs(snap, runs);
                System.out.printf("floor: read side+price+quantity (17 B/row, %.0f MB) median %.1f ms = %.1f GB/s%n",
                    snap.rowCount() * 17 / 1e6, floor, snap.rowCount() * 17 / floor / 1e6);
                final double hand = handWrittenQ1Ms(snap, runs);
                System.out.printf("hand-written query 1 (one fused branch-free loop, 2 threads, no nulls handled) median %.1f ms%n", hand);
                final String only = args.length > 4 ? "," + args[4] + "," : null;
                for (int q = 0; q < QUERIES.length; q++) {
                    if (only != null && !only.contains("," + (q + 1) + ",")) {
                        continue;
                    }
                    final double[] t = new double[runs];
                    final double[] cpu = new double[runs];
                    QueryResult r = null;
                    final java.lang.management.ThreadMXBean mx = java.lang.management.ManagementFactory.getThreadMXBean();
                    for (int i = 0; i < runs + 2; i++) {
                        final long c0 = mx.getCurrentThreadCpuTime();
                        final long s = System.nanoTime();
                        r = engine.execute(QUERIES[q]);
                        if (i >= 2) {
                            t[i - 2] = (System.nanoTime() - s) / 1e6;
                            cpu[i - 2] = (mx.getCurrentThreadCpuTime() - c0) / 1e6;
                        }
                    }
                    Arrays.sort(t);
                    Arrays.sort(cpu);
                    System.out.printf("Q%d median %.2f ms (min %.2f max %.2f; caller cpu %.2f ms) rows=%d %s scanned=%d indexed=%d%n", q + 1, t[runs / 2], t[0],
                        t[runs - 1], cpu[runs / 2], r.rowCount(), r.rowCount() > 0 ? Arrays.toString(row(r, 0)) : "-", r.stats().rowsScanned(),
                        r.stats().indexedSegments());
                }
            }
        }
    }

    private static Object[] row(final QueryResult r, final int i) {
        final Object[] o = new Object[r.columns().size()];
        for (int c = 0; c < o.length; c++) {
            o[c] = r.value(i, c);
        }
        return o;
    }

    /** Median time to read the bytes query 1 touches, with the same thread count (plain loops, two threads). */
    static double floorMs(final TableSnapshot snap, final int runs) {
        final double[] t = new double[runs];
        for (int i = 0; i < runs + 2; i++) {
            final long s = System.nanoTime();
            final long[] sums = new long[2];
            final Thread[] ts = new Thread[2];
            for (int w = 0; w < 2; w++) {
                final int wi = w;
                ts[w] = new Thread(() -> {
                    long acc = 0;
                    for (int seg = wi; seg < snap.segmentCount(); seg += 2) {
                        final int n = snap.segmentRowCount(seg);
                        final long side = snap.segment(seg).columnBase(5);
                        final long price = snap.segment(seg).columnBase(6);
                        final long qty = snap.segment(seg).columnBase(7);
                        for (int r = 0; r < n; r++) {
                            acc += NativeMemory.getByte(side + r) + NativeMemory.getLong(price + 8L * r) + NativeMemory.getLong(qty + 8L * r);
                        }
                    }
                    sums[wi] = acc;
                });
                ts[w].start();
            }
            for (final Thread x : ts) {
                try {
                    x.join();
                } catch (final InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            if (i >= 2) {
                t[i - 2] = (System.nanoTime() - s) / 1e6;
            }
            if (sums[0] == 42) {
                System.out.print("");
            }
        }
        Arrays.sort(t);
        return t[runs / 2];
    }

    /** The PLATFORM.md probe of query 1: {@code acc[side] += price * quantity}, one loop, two threads (a same-run baseline). */
    static double handWrittenQ1Ms(final TableSnapshot snap, final int runs) {
        final double[] t = new double[runs];
        for (int i = 0; i < runs + 2; i++) {
            final long s = System.nanoTime();
            final long[][] acc = new long[2][256];
            final Thread[] ts = new Thread[2];
            for (int w = 0; w < 2; w++) {
                final int wi = w;
                ts[w] = new Thread(() -> {
                    final long[] a = acc[wi];
                    for (int seg = wi; seg < snap.segmentCount(); seg += 2) {
                        final int n = snap.segmentRowCount(seg);
                        final long side = snap.segment(seg).columnBase(5);
                        final long price = snap.segment(seg).columnBase(6);
                        final long qty = snap.segment(seg).columnBase(7);
                        for (int r = 0; r < n; r++) {
                            a[NativeMemory.getByte(side + r) & 0xFF] += NativeMemory.getLong(price + 8L * r) * NativeMemory.getLong(qty + 8L * r);
                        }
                    }
                });
                ts[w].start();
            }
            for (final Thread x : ts) {
                try {
                    x.join();
                } catch (final InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            if (i >= 2) {
                t[i - 2] = (System.nanoTime() - s) / 1e6;
            }
        }
        Arrays.sort(t);
        return t[runs / 2];
    }

    /** Writes rows in time order over five days with bulk {@code reserve} and direct column stores. */
    static void generate(final Store store, final Schema schema, final long rows) {
        final SplittableRandom rnd = new SplittableRandom(7);
        try (TableWriter w = store.createTable(schema).writer()) {
            final int venueCol = schema.indexOf("venue");
            final int instrumentCol = schema.indexOf("instrument");
            final int[] venues = new int[8];
            for (int i = 0; i < 8; i++) {
                venues[i] = w.dictionary(venueCol).intern("V" + (char) ('A' + i) + "EX");
            }
            final int[] instruments = new int[500];
            for (int i = 0; i < 500; i++) {
                instruments[i] = w.dictionary(instrumentCol).intern(String.format("SYM%03d", i));
            }
            final long[] basePrice = new long[500];
            for (int i = 0; i < 500; i++) {
                basePrice[i] = 5_000_000L + rnd.nextLong(500_000_000L);
            }
            final long perDay = (rows + 4) / 5;
            long done = 0;
            while (done < rows) {
                final int n = w.reserve((int) Math.min(1 << 20, rows - done));
                final long start = w.pendingRows() - n;
                final int seg = (int) (start >>> schema.segmentShift());
                final int r0 = (int) (start - ((long) seg << schema.segmentShift()));
                final long[] base = new long[schema.columnCount()];
                for (int c = 0; c < base.length; c++) {
                    base[c] = w.columnAddress(seg, c);
                }
                for (int i = 0; i < n; i++) {
                    final long row = start + i;
                    final long day = row / perDay;
                    final long inDay = row % perDay;
                    final long ts = DAY0 + day * 86_400_000_000_000L + 8 * 3_600_000_000_000L + inDay * (9 * 3_600_000_000_000L / perDay);
                    final int ins = (int) Math.min(499, Math.abs(rnd.nextGaussian()) * 120);
                    final long client = Math.min(9999, (long) (Math.abs(rnd.nextGaussian()) * 2500));
                    final int r = r0 + i;
                    NativeMemory.putLong(base[0] + 8L * r, row + 1);
                    NativeMemory.putLong(base[1] + 8L * r, ts);
                    NativeMemory.putLong(base[2] + 8L * r, client);
                    NativeMemory.putInt(base[3] + 4L * r, venues[rnd.nextInt(8)]);
                    NativeMemory.putInt(base[4] + 4L * r, instruments[ins]);
                    NativeMemory.putByte(base[5] + r, (byte) (rnd.nextBoolean() ? 'B' : 'S'));
                    NativeMemory.putLong(base[6] + 8L * r, basePrice[ins] + rnd.nextInt(100_000));
                    NativeMemory.putLong(base[7] + 8L * r, 1 + rnd.nextInt(5000));
                }
                done += n;
                w.commit();
            }
        }
    }
}
