package io.tradestore.server;

import java.nio.file.Path;
import java.util.Random;

import io.tradestore.core.Store;
import io.tradestore.core.TableWriter;
import io.tradestore.core.flyweight.TradeFlyweight;
import io.tradestore.core.flyweight.TradesSchema;
import io.tradestore.core.schema.Layout;
import io.tradestore.core.schema.Schema;

/** Small, seeded trade stores for the server and CLI tests. */
public final class TestStores {
    /** Start of the generated trades: 2026-11-23T08:00:00Z in epoch nanos. */
    public static final long START_NS = 1_795_420_800_000_000_000L;
    /** Venues used. */
    public static final String[] VENUES = {"XLON", "XPAR", "XETR", "BATE"};
    /** Trades per second of generated time. */
    private static final long STEP_NS = 100_000_000L;

    private TestStores() {
    }

    /** @return the trades schema with small segments and blocks, so a few thousand rows cross every boundary. */
    public static Schema smallTrades() {
        return TradesSchema.SCHEMA.with("trades", Layout.COLUMN, 1024, 128);
    }

    /**
     * Appends seeded trades (10 per second of market time, 50 instruments, 100 clients) and commits.
     *
     * @param dir  store directory (created when missing).
     * @param rows rows to append.
     * @param seed random seed.
     */
    public static void writeTrades(final Path dir, final int rows, final long seed) {
        writeTrades(dir, smallTrades(), rows, seed);
    }

    /**
     * Appends seeded trades to a table of the given schema and commits.
     *
     * @param dir    store directory (created when missing).
     * @param schema the table's schema.
     * @param rows   rows to append.
     * @param seed   random seed.
     */
    public static void writeTrades(final Path dir, final Schema schema, final int rows, final long seed) {
        try (Store store = Store.open(dir); TableWriter w = store.openOrCreate(schema).writer()) {
            final Random rnd = new Random(seed);
            final TradeFlyweight f = new TradeFlyweight();
            final long first = w.pendingRows();
            for (long r = first; r < first + rows; r++) {
                w.append(f).tradeId(r + 1).ts(START_NS + r * STEP_NS).clientId(1 + rnd.nextInt(100))
                    .venue(VENUES[rnd.nextInt(VENUES.length)]).instrument(String.format("SYM%03d", rnd.nextInt(50)))
                    .side(rnd.nextBoolean() ? 'B' : 'S').price(50_000_000L + rnd.nextInt(100_000_000))
                    .quantity(1 + rnd.nextInt(5000));
            }
            w.commit();
        }
    }
}
