package io.tradestore.query.index;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Locale;
import java.util.SplittableRandom;

import io.tradestore.core.FileDamage;
import io.tradestore.core.Store;
import io.tradestore.core.TableSnapshot;
import io.tradestore.core.TableWriter;
import io.tradestore.core.flyweight.TradeFlyweight;
import io.tradestore.core.flyweight.TradesSchema;
import io.tradestore.core.schema.Column;
import io.tradestore.core.schema.Layout;
import io.tradestore.core.schema.Schema;
import io.tradestore.query.spi.Deadline;

/**
 * How long the summary builds take on one sealed segment of generated trades (~500 skewed instruments, ~5 ms apart):
 * a bucket summary of price per instrument, a value summary of price*quantity per instrument, one of quantity over all
 * rows; medians of the given repetitions, in one JVM. Not a unit test: for A/Bs of the build loops (session 8: the
 * deadline checks), run with {@code flock /tmp/tradestore-bench.lock java <tradestore.jvmFlags> -cp <store-query test
 * classpath> io.tradestore.query.index.SummaryBuildProbe [rows] [reps]} (default 4,194,304 rows, 9 repetitions).
 */
public final class SummaryBuildProbe {
    private static final Deadline NONE = Deadline.NONE;

    private SummaryBuildProbe() {
    }

    /** @param args rows of the segment, repetitions. @throws Exception when the temporary store cannot be made. */
    public static void main(final String[] args) throws Exception {
        final int rows = args.length > 0 ? Integer.parseInt(args[0]) : 1 << 22;
        final int reps = args.length > 1 ? Integer.parseInt(args[1]) : 9;
        final Path dir = Files.createTempDirectory("tradestore-summary-probe");
        final Schema schema = TradesSchema.SCHEMA.with("trades", Layout.COLUMN, rows, 4096);
        try (Store store = Store.open(dir)) {
            final SplittableRandom rnd = new SplittableRandom(8);
            try (TableWriter w = store.openOrCreate(schema).writer()) {
                final TradeFlyweight f = new TradeFlyweight();
                long ts = 1_795_392_000_000_000_000L;
                for (int r = 0; r <= rows; r++) { // one row more: the first segment is sealed
                    ts += rnd.nextLong(10_000_000L);
                    w.append(f).tradeId(r + 1).ts(ts).clientId(rnd.nextInt(10_000)).venue("XLON")
                        .instrument("SYM" + (int) Math.min(499, Math.abs(rnd.nextGaussian()) * 120)).side(rnd.nextBoolean() ? 'B' : 'S')
                        .price(1_000_000L + rnd.nextInt(100_000_000)).quantity(1 + rnd.nextInt(10_000));
                }
                w.commit();
            }
            final TableSnapshot snap = store.table("trades").reader().snapshot();
            final Column ts = schema.column(schema.timestampIndex());
            final Column instrument = schema.column(schema.indexOf("instrument"));
            final Column price = schema.column(schema.indexOf("price"));
            final Column quantity = schema.column(schema.indexOf("quantity"));
            final SegmentIndex idx = new BitmapIndexes().index(snap, 0, instrument.index(), NONE);
            final long[][] ns = new long[3][reps];
            long sink = 0;
            for (int rep = 0; rep < reps; rep++) {
                long t0 = System.nanoTime();
                sink += BucketSummary.build(snap.segment(0), rows, ts, instrument, idx.min(), idx.slotCount(), price, null, Long.MAX_VALUE, NONE).bytes();
                ns[0][rep] = System.nanoTime() - t0;
                t0 = System.nanoTime();
                sink += ValueSummary.build(snap.segment(0), rows, instrument, idx.min(), idx.slotCount(), 16, price, quantity, false, NONE).bytes();
                ns[1][rep] = System.nanoTime() - t0;
                t0 = System.nanoTime();
                sink += ValueSummary.build(snap.segment(0), rows, null, 0, 2, 12, quantity, null, false, NONE).bytes();
                ns[2][rep] = System.nanoTime() - t0;
            }
            final String[] names = {"bucket summary, price by instrument", "value summary, price*quantity by instrument",
                "value summary, quantity over all rows"};
            for (int i = 0; i < names.length; i++) {
                Arrays.sort(ns[i]);
                System.out.printf(Locale.ROOT, "%-45s median %6.1f ms (min %.1f, max %.1f) over %d rows%n", names[i], ns[i][reps / 2] / 1e6,
                    ns[i][0] / 1e6, ns[i][reps - 1] / 1e6, rows);
            }
            System.out.println("(checksum " + sink + ")");
        } finally {
            FileDamage.deleteTree(dir);
        }
    }
}
