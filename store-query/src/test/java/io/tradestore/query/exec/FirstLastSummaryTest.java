package io.tradestore.query.exec;

import java.math.BigDecimal;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.tradestore.core.Store;
import io.tradestore.core.TableSnapshot;
import io.tradestore.core.TableWriter;
import io.tradestore.core.TestRows;
import io.tradestore.core.flyweight.TradeFlyweight;
import io.tradestore.core.flyweight.TradesSchema;
import io.tradestore.core.schema.Layout;
import io.tradestore.query.QueryEngine;
import io.tradestore.query.QueryResult;
import io.tradestore.query.spi.SummaryPart;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * first/last beside sums and counts of a global aggregate fold the whole parts of all rows from each part's first and
 * last present rows by time (FirstLastSummary) instead of reading them: answers equal an engine without indexes and a
 * plain Java computation on data with ties, null values at block ends, blocks out of time order and null timestamps.
 */
class FirstLastSummaryTest {
    private static final long T0 = 1_795_000_000_000_000_000L;
    private static final String[] SYMBOLS = {"AAA", "BBB", "CCC", "DDD"};
    @TempDir
    static Path dir;
    static Store store;
    static QueryEngine summarised;
    static QueryEngine scanning;
    static final List<long[]> ROWS = new ArrayList<>();
    /** Per row: ts, price, quantity, symbol code (-1 null) with Long.MIN_VALUE for null. */
    private static final int TS = 0;
    private static final int PRICE = 1;
    private static final int QTY = 2;
    private static final int SYM = 3;

    @BeforeAll
    static void setUp() {
        store = Store.open(dir);
        final SplittableRandom rnd = new SplittableRandom(5);
        // 4 sealed segments of 1,024 rows in blocks of 128, and an open one
        try (TableWriter w = store.openOrCreate(TradesSchema.SCHEMA.with("trades", Layout.COLUMN, 1024, 128))
            .writer()) {
            final TradeFlyweight f = new TradeFlyweight();
            for (int r = 0; r < 4_700; r++) {
                final int block = r / 128;
                final int in = r % 128;
                // three rows a tick (ties), one burst; every fifth block shuffled within its span, every seventh with
                // null timestamps
                long ts = T0 + (r / 3) * 1_000L;
                if (r >= 3_000 && r < 3_400) {
                    ts = T0 + 1_000 * 1_000L; // one timestamp over whole blocks: ties between blocks
                }
                if (block % 5 == 2) {
                    ts = T0 + (block * 128 / 3) * 1_000L + rnd.nextInt(128 / 3) * 1_000L;
                }
                if (block % 7 == 3 && rnd.nextInt(10) == 0) {
                    ts = Long.MIN_VALUE;
                }
                // null prices at some blocks' ends, where a sorted block's first/last present row is not its end row
                final boolean nullPrice = (block % 3 == 1 && (in < 2 || in > 125)) || rnd.nextInt(15) == 0;
                final long price = nullPrice ? Long.MIN_VALUE : 1_000_000L + rnd.nextInt(1_000_000);
                final long qty = rnd.nextInt(1, 500);
                final int sym = rnd.nextInt(12) == 0 ? -1 : rnd.nextInt(SYMBOLS.length);
                w.append(f);
                f.tradeId(r + 1);
                if (ts != Long.MIN_VALUE) {
                    f.ts(ts);
                }
                if (price != Long.MIN_VALUE) {
                    f.price(price);
                }
                f.quantity(qty);
                if (sym >= 0) {
                    f.instrument(SYMBOLS[sym]);
                }
                ROWS.add(new long[] {ts, price, qty, sym});
                if (r % 500 == 499) {
                    w.commit();
                }
            }
            w.commit();
        }
        summarised = new QueryEngine(store, 2);
        summarised.indexes().minSegmentRows(1);
        // parts of 2 blocks (256 rows): a time range cuts parts at either end
        summarised.indexes().summaryEntries(8);
        summarised.morselRows(300);
        summarised.smallQueryRows(0);
        scanning = new QueryEngine(store, 2);
        scanning.useIndexes(false);
    }

    @AfterAll
    static void tearDown() {
        summarised.close();
        scanning.close();
        store.close();
        TestRows.assertNoNativeLeaks();
    }

    private static String query(final String time) {
        return "{\"table\":\"trades\"" + time + ",\"aggs\":[{\"name\":\"n\",\"op\":\"count\"},"
            + "{\"name\":\"fp\",\"op\":\"first\",\"col\":\"price\"},"
            + "{\"name\":\"lp\",\"op\":\"last\",\"col\":\"price\"},"
            + "{\"name\":\"q\",\"op\":\"sum\",\"col\":\"quantity\"},"
            + "{\"name\":\"fi\",\"op\":\"first\",\"col\":\"instrument\"},"
            + "{\"name\":\"li\",\"op\":\"last\",\"col\":\"instrument\"},"
            + "{\"name\":\"lt\",\"op\":\"last\",\"col\":\"ts\"}]}";
    }

    /** @return the answer of both engines, asserted equal cell by cell. */
    private static QueryResult same(final String json) {
        final QueryResult a = summarised.execute(json);
        final QueryResult b = scanning.execute(json);
        assertThat(a.rowCount()).as(json).isEqualTo(b.rowCount());
        for (int r = 0; r < a.rowCount(); r++) {
            for (int c = 0; c < a.columns().size(); c++) {
                assertThat(a.value(r, c)).as(a.columns().get(c).name() + " of " + json).isEqualTo(b.value(r, c));
            }
        }
        return a;
    }

    /** @return the row of first (or last) present value of column c by time in [from, to), ties by row. */
    private static int expected(final int c, final boolean last, final long from, final long to) {
        return expectedIn(c, last, from, to, 0, ROWS.size());
    }

    /** @return as {@link #expected}, over all timestamps, among rows [fromRow, toRow). */
    private static int expectedIn(final int c, final boolean last, final long fromRow, final long toRow) {
        return expectedIn(c, last, Long.MIN_VALUE + 1, Long.MAX_VALUE, (int) fromRow, (int) toRow);
    }

    private static int expectedIn(final int c, final boolean last, final long from, final long to, final int fromRow,
        final int toRow) {
        int best = -1;
        for (int r = fromRow; r < toRow; r++) {
            final long[] x = ROWS.get(r);
            final boolean absent = c == SYM ? x[c] < 0 : x[c] == Long.MIN_VALUE;
            if (x[TS] == Long.MIN_VALUE || x[TS] < from || x[TS] >= to || absent) {
                continue;
            }
            final long bt = best < 0 ? 0 : ROWS.get(best)[TS];
            if (best < 0 || (last ? x[TS] >= bt : x[TS] < bt)) {
                best = r;
            }
        }
        return best;
    }

    private static void check(final long from, final long to, final String time) {
        final QueryResult r = same(query(time));
        final int fp = expected(PRICE, false, from, to);
        final int lp = expected(PRICE, true, from, to);
        final int fi = expected(SYM, false, from, to);
        final int li = expected(SYM, true, from, to);
        assertThat(r.value(0, 1)).as("first price " + time).isEqualTo(fp < 0 ? null
            : BigDecimal.valueOf(ROWS.get(fp)[PRICE], 6));
        assertThat(r.value(0, 2)).as("last price " + time).isEqualTo(lp < 0 ? null
            : BigDecimal.valueOf(ROWS.get(lp)[PRICE], 6));
        assertThat(r.value(0, 4)).as("first instrument " + time).isEqualTo(fi < 0 ? null
            : SYMBOLS[(int) ROWS.get(fi)[SYM]]);
        assertThat(r.value(0, 5)).as("last instrument " + time).isEqualTo(li < 0 ? null
            : SYMBOLS[(int) ROWS.get(li)[SYM]]);
    }

    @Test
    void shouldGiveEachPartsFirstAndLastPresentRowByTime() {
        final TableSnapshot snap = store.table("trades").reader().snapshot();
        final int[] columns = {snap.schema().indexOf("price"), snap.schema().indexOf("instrument")};
        final int[] fields = {PRICE, SYM};
        final SummaryPart p = new SummaryPart();
        int checked = 0;
        for (int si = 0; si < snap.segmentCount(); si++) {
            final long rowBase = (long) si << snap.segmentShift();
            for (final int shift : new int[] {7, 8, 10}) {
                for (int c = 0; c < columns.length; c++) {
                    final FirstLastSummary s = new FirstLastSummary(snap, si, snap.schema().column(columns[c]), shift);
                    final int rows = snap.segmentRowCount(si);
                    // sealed: every part, the last one short; open: complete parts only
                    assertThat(s.parts()).isEqualTo(snap.segmentSealed(si) ? (rows + (1 << shift) - 1) >> shift
                        : rows >> shift);
                    for (int part = 0; part < s.parts(); part++) {
                        s.read(part, p);
                        final long from = rowBase + ((long) part << shift);
                        final long to = Math.min(rowBase + rows, from + (1L << shift));
                        assertThat(p.rows).isEqualTo(to - from);
                        final int first = expectedIn(fields[c], false, from, to);
                        final int last = expectedIn(fields[c], true, from, to);
                        final String what = "segment " + si + " part " + part + " of 2^" + shift + " column " + c;
                        assertThat(p.firstRow < 0 ? -1 : p.firstRow + rowBase).as(what).isEqualTo(first);
                        assertThat(p.lastRow < 0 ? -1 : p.lastRow + rowBase).as(what).isEqualTo(last);
                        if (first >= 0) {
                            assertThat(p.firstTs).isEqualTo(ROWS.get(first)[TS]);
                            assertThat(p.lastTs).isEqualTo(ROWS.get(last)[TS]);
                            if (fields[c] == PRICE) {
                                assertThat(p.firstValue).isEqualTo(ROWS.get(first)[PRICE]);
                                assertThat(p.lastValue).isEqualTo(ROWS.get(last)[PRICE]);
                            }
                            checked++;
                        }
                    }
                }
            }
        }
        assertThat(checked).isGreaterThan(100);
    }

    @Test
    void shouldFoldFirstAndLastOfWholePartsOverEveryRow() {
        final QueryResult r = summarised.execute(query(""));
        check(Long.MIN_VALUE, Long.MAX_VALUE, "");
        // the sealed segments' parts folded; the open segment's rows and its incomplete part read
        assertThat(r.stats().rowsSummarized()).isGreaterThanOrEqualTo(4 * 1024);
    }

    @Test
    void shouldFoldTheInnerPartsOfTimeRangesAndReadTheirEnds() {
        final SplittableRandom rnd = new SplittableRandom(9);
        long summarisedRows = 0;
        final long span = ROWS.size() / 3 * 1_000L;
        for (int i = 0; i < 60; i++) {
            final long from = T0 + rnd.nextLong(span);
            final long to = from + rnd.nextLong(span);
            check(from, to, ",\"time\":{\"from\":" + from + ",\"to\":" + to + "}");
            summarisedRows += summarised.execute(query(",\"time\":{\"from\":" + from + ",\"to\":" + to + "}"))
                .stats().rowsSummarized();
        }
        assertThat(summarisedRows).isPositive();
    }

    @Test
    void shouldFoldPartsFinerThanABlockBetweenTheEndsOfATimeRange(@TempDir final Path other) {
        // blocks of 16,384 rows hold four parts of 4,096 in a sealed segment's summary of all rows; a block inside
        // a range folds as one coarse part
        try (Store s = Store.open(other); QueryEngine folding = new QueryEngine(s, 2);
             QueryEngine reading = new QueryEngine(s, 2)) {
            final int rows = 3 * 32_768 + 5_000;
            try (TableWriter w = s.openOrCreate(TradesSchema.SCHEMA.with("trades", Layout.COLUMN, 32_768, 16_384))
                .writer()) {
                final TradeFlyweight f = new TradeFlyweight();
                for (int r = 0; r < rows; r++) {
                    w.append(f);
                    f.tradeId(r + 1).ts(T0 + r * 1_000L).quantity(1 + r % 13).instrument(SYMBOLS[r % 4]);
                    if (r % 17 != 0) {
                        f.price(1_000_000L + r * 7_919L % 100_003); // extremes anywhere in a range
                    }
                }
                w.commit();
            }
            folding.indexes().minSegmentRows(1);
            folding.smallQueryRows(0);
            reading.useIndexes(false);
            final SplittableRandom rnd = new SplittableRandom(3);
            for (int i = 0; i < 40; i++) {
                final int from = rnd.nextInt(3 * 32_768 - 40_000);
                final int to = from + 20_000 + rnd.nextInt(20_000);
                final String json = "{\"table\":\"trades\",\"time\":{\"from\":" + (T0 + from * 1_000L)
                    + ",\"to\":" + (T0 + to * 1_000L) + "},\"aggs\":[{\"name\":\"n\",\"op\":\"count\"},"
                    + "{\"name\":\"q\",\"op\":\"sum\",\"col\":\"quantity\"},"
                    + "{\"name\":\"fp\",\"op\":\"first\",\"col\":\"price\"},"
                    + "{\"name\":\"li\",\"op\":\"last\",\"col\":\"instrument\"},"
                    + "{\"name\":\"lo\",\"op\":\"min\",\"col\":\"price\"},"
                    + "{\"name\":\"hi\",\"op\":\"max\",\"col\":\"price\"},{\"name\":\"v\",\"op\":\"vwap\"}]}";
                final QueryResult a = folding.execute(json);
                final QueryResult b = reading.execute(json);
                for (int c = 0; c < a.columns().size(); c++) {
                    assertThat(a.value(0, c)).as(a.columns().get(c).name() + " of " + json).isEqualTo(b.value(0, c));
                }
                assertThat(((Number) a.value(0, 0)).longValue()).isEqualTo(to - from);
                // inside sealed segments only the rows before the first whole part and after the last are read (a
                // run under two parts at an end is read whole: it may hold no whole part)
                assertThat(a.stats().rowsScanned()).as(json).isLessThan(2 * 8_192);
                assertThat(a.stats().rowsSummarized()).as(json).isEqualTo(to - from - a.stats().rowsScanned());
            }
        }
    }

    @Test
    void shouldReadRowsWhenAnAggregateHasNoSummary() {
        // a product has no first/last summary: every row is read, and the answers still agree
        final String json = "{\"table\":\"trades\",\"aggs\":[{\"name\":\"f\",\"op\":\"first\",\"col\":"
            + "\"price*quantity\"},{\"name\":\"q\",\"op\":\"sum\",\"col\":\"quantity\"}]}";
        assertThat(same(json).stats().rowsSummarized()).isZero();
    }
}
