package io.tradestore.examples;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import io.tradestore.core.RetentionRule;
import io.tradestore.core.Store;
import io.tradestore.core.Table;
import io.tradestore.core.TableReader;
import io.tradestore.core.TableSnapshot;
import io.tradestore.core.TableWriter;
import io.tradestore.core.flyweight.TradeFlyweight;
import io.tradestore.core.flyweight.TradesSchema;
import io.tradestore.core.schema.Layout;

/**
 * The embedded API end to end: create a store and the trades table, append trades through the generated flyweight,
 * commit, then scan a snapshot and sum buy and sell notional. Run with the JVM flags of DEVELOPERS.md.
 */
public final class EmbeddedTradesExample {
    private static final String[] VENUES = {"XLON", "XPAR", "XETR", "XAMS"};
    private static final long T0 = 1_795_420_800_000_000_000L; // 2026-11-23T08:00:00Z in epoch nanos

    private EmbeddedTradesExample() {
    }

    /**
     * Writes {@code rows} trades into {@code dir} and returns buy and sell notional (price*quantity, scale 6).
     *
     * @param dir  the store directory.
     * @param rows how many trades.
     * @return {buy notional mantissa, sell notional mantissa}.
     */
    public static long[] run(final Path dir, final int rows) {
        try (Store store = Store.open(dir)) {
            final Table trades = store.openOrCreate(TradesSchema.SCHEMA);
            // [writer]
            try (TableWriter writer = trades.writer()) {
                final TradeFlyweight t = new TradeFlyweight();
                for (int i = 0; i < rows; i++) {
                    writer.append(t)
                        .tradeId(i)
                        .ts(T0 + i * 1_000_000L)
                        .clientId(i % 100)
                        .venue(VENUES[i % VENUES.length])
                        .instrument("SYM" + (i % 50))
                        .side(i % 3 == 0 ? 'S' : 'B')
                        .price(100_000_000L + i % 1000)   // 100.000000 + i%1000 micros
                        .quantity(1 + i % 500);
                    if ((i + 1) % 100_000 == 0) {
                        writer.commit();                  // readers see rows in whole commits only
                    }
                }
                writer.commit();
            }
            // [writer]
            // [reader]
            try (TableReader reader = trades.reader()) {
                final TableSnapshot snapshot = reader.snapshot();
                final TradeFlyweight t = new TradeFlyweight().bind(snapshot);
                final long[] notional = new long[2];
                while (t.next()) {
                    notional[t.side() == 'B' ? 0 : 1] += t.price() * t.quantity();
                }
                return notional;
            }
            // [reader]
        }
    }

    /**
     * Trims the trades table {@link #run} wrote: drops the segments older than a cut, applies a 30-day TTL once and
     * keeps it for {@code tradestore serve}, and drops a scratch table.
     *
     * @param dir           the store directory.
     * @param cutEpochNanos segments whose newest row is before this go.
     * @param nowEpochNanos the wall clock.
     * @return the rows the trades table holds afterwards.
     */
    public static long retain(final Path dir, final long cutEpochNanos, final long nowEpochNanos) {
        try (Store store = Store.open(dir)) {
            final Table trades = store.table("trades");
            store.createTable(TradesSchema.SCHEMA.with("scratch", Layout.COLUMN, 1024, 128));
            // [retention]
            try (TableWriter w = trades.writer()) {
                // whole sealed segments whose newest row is before the cut; one synced commit, then the files go
                w.dropOlderThan(cutEpochNanos);
                // or by age, as QuestDB's TTL: older than 30 days before min(newest row, now)
                RetentionRule.apply(trades, w, RetentionRule.parse("30d"), nowEpochNanos);
            }
            trades.ttlNanos(RetentionRule.parse("30d"));   // a TTL that tradestore serve applies on its schedule
            store.dropTable("scratch");                      // refused while a writer, in any process, holds it
            // [retention]
            try (TableReader reader = trades.reader()) {
                return reader.snapshot().liveRows();
            }
        }
    }

    /**
     * Runs the example in a temporary directory.
     *
     * @param args optional row count.
     * @throws IOException when the temporary directory cannot be made.
     */
    public static void main(final String[] args) throws IOException {
        final int rows = args.length > 0 ? Integer.parseInt(args[0]) : 1_000_000;
        final Path dir = Files.createTempDirectory("tradestore-example");
        final long start = System.nanoTime();
        final long[] notional = run(dir, rows);
        System.out.printf("%,d trades in %s (%d ms)%n", rows, dir, (System.nanoTime() - start) / 1_000_000);
        System.out.printf("buy notional  %s%nsell notional %s%n", java.math.BigDecimal.valueOf(notional[0], 6),
            java.math.BigDecimal.valueOf(notional[1], 6));
    }
}
