package io.tradestore.query;

import java.io.ByteArrayInputStream;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.function.LongPredicate;

import io.tradestore.core.Store;
import io.tradestore.core.TableWriter;
import io.tradestore.core.flyweight.TradeFlyweight;
import io.tradestore.core.flyweight.TradesSchema;
import io.tradestore.core.ingest.CsvLoader;
import io.tradestore.core.ingest.LoadOptions;
import io.tradestore.core.schema.Layout;
import io.tradestore.core.schema.Schema;

/** Seeded trades with nulls and skewed symbols, written to a store and kept on the heap as the test's reference. */
final class TradeData {
    static final long T0 = 1_795_000_000_000_000_000L;
    static final String[] VENUES = {"XLON", "XPAR", "XETR", "BATS"};

    /** One reference row; nulls as Java null. */
    record Row(long row, Long tradeId, Long ts, Long clientId, String venue, String instrument, Character side,
        Long price, Long quantity) {
        BigDecimal priceValue() {
            return price == null ? null : BigDecimal.valueOf(price, 6);
        }
    }

    final List<Row> rows = new ArrayList<>();

    static Schema schema(final Layout layout, final int segmentRows, final int blockRows) {
        return TradesSchema.SCHEMA.with("trades", layout, segmentRows, blockRows);
    }

    /** Writes {@code count} rows (committing every 1000) and records them. */
    TradeData write(final Store store, final Schema schema, final int count, final long seed, final boolean nulls) {
        return write(store, schema, count, seed, r -> nulls);
    }

    /**
     * Writes {@code count} rows (committing every 1000), nulls only in rows where {@code mayHoldNulls} holds, and
     * records them.
     */
    TradeData write(final Store store, final Schema schema, final int count, final long seed,
        final LongPredicate mayHoldNulls) {
        final SplittableRandom rnd = new SplittableRandom(seed);
        try (TableWriter w = store.openOrCreate(schema).writer()) {
            final TradeFlyweight f = new TradeFlyweight();
            for (int i = 0; i < count; i++) {
                final long r = w.pendingRows();
                w.append(f);
                // the predicate first: rows that may not hold nulls draw nothing, so tables without nulls stay as they
                // were
                final boolean n = mayHoldNulls.test(r) && rnd.nextInt(20) == 0;
                final Long tradeId = r + 1;
                final Long ts = n && rnd.nextBoolean() ? null : T0 + r * 1_000_000_000L + rnd.nextInt(1000);
                final Long client = n && rnd.nextBoolean() ? null : (long) (Math.abs(rnd.nextGaussian()) * 30);
                final String venue = n && rnd.nextBoolean() ? null : VENUES[rnd.nextInt(VENUES.length)];
                final int skew = (int) Math.min(49, Math.abs(rnd.nextGaussian()) * 12);
                final String instrument = n && rnd.nextBoolean() ? null : "SYM" + skew;
                final Character side = n && rnd.nextBoolean() ? null : rnd.nextBoolean() ? 'B' : 'S';
                final Long price = n && rnd.nextBoolean() ? null : 1_000_000L + rnd.nextInt(500_000_000);
                final Long qty = n && rnd.nextBoolean() ? null : (long) rnd.nextInt(1, 10_000);
                f.tradeId(tradeId);
                if (ts != null) {
                    f.ts(ts);
                }
                if (client != null) {
                    f.clientId(client);
                }
                if (venue != null) {
                    f.venue(venue);
                }
                if (instrument != null) {
                    f.instrument(instrument);
                }
                if (side != null) {
                    f.side(side);
                }
                if (price != null) {
                    f.price(price);
                }
                if (qty != null) {
                    f.quantity(qty);
                }
                rows.add(new Row(r, tradeId, ts, client, venue, instrument, side, price, qty));
                if (i % 1000 == 999) {
                    w.commit();
                }
            }
            w.commit();
        }
        return this;
    }

    /** Creates a table of {@code schema} and loads {@code csv} (header first) into it with the CSV loader. */
    static void loadCsv(final Store store, final Schema schema, final CharSequence csv) {
        try (TableWriter w = store.createTable(schema).writer()) {
            CsvLoader.load(w, schema.name() + ".csv",
                new ByteArrayInputStream(csv.toString().getBytes(StandardCharsets.UTF_8)),
                LoadOptions.defaults(), null);
        }
    }

    /**
     * Runs a query on two engines over the same store and asserts equal answers, cell by cell.
     *
     * @param a    the engine under test.
     * @param b    the reference (usually without indexes).
     * @param json the query.
     * @return the first engine's answer.
     */
    static QueryResult assertSameAnswers(final QueryEngine a, final QueryEngine b, final String json) {
        final QueryResult x = a.execute(json);
        assertSameResults(x, b.execute(json), json);
        return x;
    }

    /** Asserts two answers hold the same rows, cell by cell; {@code what} names them in a failure. */
    static void assertSameResults(final QueryResult x, final QueryResult y, final String what) {
        org.assertj.core.api.Assertions.assertThat(x.rowCount()).as(what).isEqualTo(y.rowCount());
        for (int r = 0; r < x.rowCount(); r++) {
            for (int c = 0; c < x.columns().size(); c++) {
                org.assertj.core.api.Assertions.assertThat(x.value(r, c))
                    .as("row %d column %s of %s", r, x.columns().get(c), what).isEqualTo(y.value(r, c));
            }
        }
    }
}
