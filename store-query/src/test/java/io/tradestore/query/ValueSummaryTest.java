package io.tradestore.query;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.file.Path;
import java.util.List;
import java.util.function.Predicate;
import java.util.stream.Collectors;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.tradestore.core.Store;
import io.tradestore.core.TableWriter;
import io.tradestore.core.TestRows;
import io.tradestore.core.flyweight.TradeFlyweight;
import io.tradestore.core.schema.Layout;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Global aggregates of an eq/in selection folded from value summaries (BitmapIndexes.summary) instead of read row by
 * row: every answer equals an engine without indexes and a plain Java computation, whole parts are folded where the
 * filter is answered or proven, and the row path takes over where it is not (a residual conjunct, ne, group keys, an
 * exhausted memory budget). The DuckDB differential test also draws summary-shaped queries.
 */
class ValueSummaryTest {
    @TempDir
    static Path dir;
    static Store store;
    static QueryEngine summarised;
    static QueryEngine scanning;
    static TradeData data;
    private static final String AGGS =
        "\"aggs\":[{\"name\":\"n\",\"op\":\"count\"},{\"name\":\"priced\",\"op\":\"count\",\"col\":\"price\"},"
        + "{\"name\":\"volume\",\"op\":\"sum\",\"col\":\"quantity\"},{\"name\":\"notional\",\"op\":\"sum\",\"col\":\"p"
        + "rice*quantity\"},"
        + "{\"name\":\"avgq\",\"op\":\"avg\",\"col\":\"quantity\"},{\"name\":\"lo\",\"op\":\"min\",\"col\":\"price\"},"
        + "{\"name\":\"hi\",\"op\":\"max\",\"col\":\"price\"},{\"name\":\"last_ts\",\"op\":\"max\",\"col\":\"ts\"},{\""
        + "name\":\"vwap\",\"op\":\"vwap\"}]";

    @BeforeAll
    static void setUp() {
        store = Store.open(dir);
        // 9 sealed segments of 1,024 rows in blocks of 128, plus an open one
        data = new TradeData().write(store, TradeData.schema(Layout.COLUMN, 1024, 128), 9_500, 7, true);
        summarised = new QueryEngine(store, 2);
        summarised.indexes().minSegmentRows(1);
        // ~100 client slots -> parts of 4 blocks (512 rows), so a time range cuts parts at either end
        summarised.indexes().summaryEntries(200);
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

    private static QueryResult same(final String json) {
        return TradeData.assertSameAnswers(summarised, scanning, json);
    }

    private static List<TradeData.Row> rows(final Predicate<TradeData.Row> p) {
        return data.rows.stream().filter(p).collect(Collectors.toList());
    }

    private static long col(final QueryResult r, final String name) {
        for (int c = 0; c < r.columns().size(); c++) {
            if (r.columns().get(c).name().equals(name)) {
                return ((Number) r.value(0, c)).longValue();
            }
        }
        throw new AssertionError("no column " + name);
    }

    @Test
    void shouldFoldWholeSegmentsOfOneClientFromSummaries() {
        final long client = 3;
        final QueryResult r =
            same("{\"table\":\"trades\",\"filter\":{\"op\":\"eq\",\"col\":\"client_id\",\"value\":" + client + "},"
            + AGGS + "}");
        final List<TradeData.Row> expected = rows(x -> x.clientId() != null && x.clientId() == client);
        assertThat(col(r, "n")).isEqualTo(expected.size());
        assertThat(col(r, "volume"))
            .isEqualTo(expected.stream().filter(x -> x.quantity() != null).mapToLong(TradeData.Row::quantity).sum());
        assertThat(col(r, "priced")).isEqualTo(expected.stream().filter(x -> x.price() != null).count());
        // everything in the 9 sealed segments came from summaries; the open segment's rows were read
        final long sealed = expected.stream().filter(x -> x.row() < 9 * 1024).count();
        assertThat(r.stats().rowsSummarized()).isEqualTo(sealed);
        assertThat(r.stats().rowsMatched()).isEqualTo(expected.size());
    }

    @Test
    void shouldFoldTheWholePartsOfATimeRangeAndReadTheCutOnes(@TempDir final Path other) {
        // no null timestamps, so the zone maps prove the range for its inner blocks
        try (Store s = Store.open(other); QueryEngine e = new QueryEngine(s, 2); QueryEngine scan =
            new QueryEngine(s, 2)) {
            final TradeData clean = new TradeData()
                .write(s, TradeData.schema(Layout.COLUMN, 1024, 128), 7_000, 11, false);
            e.indexes().minSegmentRows(1);
            e.indexes().summaryEntries(200);
            scan.useIndexes(false);
            // [row 700, row 6,300): cuts parts of 512 rows at both ends, inside sealed segments
            final long from = TradeData.T0 + 700 * 1_000_000_000L;
            final long to = TradeData.T0 + 6_300 * 1_000_000_000L;
            final String json = "{\"table\":\"trades\",\"time\":{\"from\":" + from + ",\"to\":" + to + "},"
                + "\"filter\":{\"op\":\"in\",\"col\":\"client_id\",\"values\":[1,2,5,40,1000000]}," + AGGS + "}";
            final QueryResult r = e.execute(json);
            final QueryResult b = scan.execute(json);
            for (int c = 0; c < r.columns().size(); c++) {
                assertThat(r.value(0, c)).as(r.columns().get(c).name()).isEqualTo(b.value(0, c));
            }
            final List<TradeData.Row> expected = clean.rows.stream().filter(x -> x.ts() >= from && x.ts() < to
                && List.of(1L, 2L, 5L, 40L).contains(x.clientId())).collect(Collectors.toList());
            assertThat(col(r, "n")).isEqualTo(expected.size());
            BigInteger notional = BigInteger.ZERO;
            for (final TradeData.Row x : expected) {
                notional = notional.add(BigInteger.valueOf(x.price()).multiply(BigInteger.valueOf(x.quantity())));
            }
            assertThat(r.value(0, 3)).isEqualTo(new BigDecimal(notional, 6));
            assertThat(r.stats().rowsSummarized()).isPositive().isLessThan(r.stats().rowsMatched());
        }
    }

    @Test
    void shouldReadRowsWhereTheFilterIsNotAnsweredByTheIndexAlone() {
        final String eq = "{\"op\":\"eq\",\"col\":\"client_id\",\"value\":2}";
        final String residual = "{\"table\":\"trades\",\"filter\":{\"op\":\"and\",\"args\":[" + eq
            + ",{\"op\":\"range\",\"col\":\"quantity\","
            + "\"gt\":5000}]}," + AGGS + "}";
        assertThat(same(residual).stats().rowsSummarized()).isZero();
        final String ne = "{\"table\":\"trades\",\"filter\":{\"op\":\"ne\",\"col\":\"venue\",\"value\":\"XLON\"},"
            + AGGS + "}";
        // ne on a symbol of few values is in over the other values, which the summaries answer
        assertThat(same(ne).stats().rowsSummarized()).isPositive();
        final String grouped = "{\"table\":\"trades\",\"filter\":" + eq + ",\"groupBy\":[\"side\"]," + AGGS
            + ",\"orderBy\":[{\"col\":\"side\"}]}";
        assertThat(same(grouped).stats().rowsSummarized()).isZero();
        final String firstLast = "{\"table\":\"trades\",\"filter\":" + eq
            + ",\"aggs\":[{\"name\":\"n\",\"op\":\"count\"},"
            + "{\"name\":\"open\",\"op\":\"first\",\"col\":\"price\"}]}";
        assertThat(same(firstLast).stats().rowsSummarized()).isZero();
        // an eq on a second indexed column: both bitmaps intersect, no single value's summary fits
        final String two = "{\"table\":\"trades\",\"filter\":{\"op\":\"and\",\"args\":[" + eq
            + ",{\"op\":\"eq\",\"col\":\"venue\",\"value\":"
            + "\"XPAR\"}]}," + AGGS + "}";
        assertThat(same(two).stats().rowsSummarized()).isZero();
    }

    @Test
    void shouldFoldASymbolFilterAndEmptySelections() {
        final QueryResult r =
            same("{\"table\":\"trades\",\"filter\":{\"op\":\"eq\",\"col\":\"instrument\",\"value\":\"SYM0\"}," + AGGS
            + "}");
        assertThat(col(r, "n")).isEqualTo(rows(x -> "SYM0".equals(x.instrument())).size());
        assertThat(r.stats().rowsSummarized()).isPositive();
        final QueryResult none =
            same("{\"table\":\"trades\",\"filter\":{\"op\":\"eq\",\"col\":\"client_id\",\"value\":987654}," + AGGS
            + "}");
        assertThat(col(none, "n")).isZero();
        assertThat(none.value(0, 2)).isNull();
    }

    @Test
    void shouldFallBackToRowsWhenTheBudgetIsSpent() {
        try (QueryEngine poor = new QueryEngine(store, 1)) {
            poor.indexes().minSegmentRows(1);
            poor.indexes().summaryBudget(0);
            final String json = "{\"table\":\"trades\",\"filter\":{\"op\":\"eq\",\"col\":\"client_id\",\"value\":4},"
                + AGGS + "}";
            final QueryResult r = poor.execute(json);
            assertThat(r.stats().rowsSummarized()).isZero();
            final QueryResult s = summarised.execute(json);
            assertThat(s.stats().rowsSummarized()).isPositive();
            for (int c = 0; c < r.columns().size(); c++) {
                assertThat(r.value(0, c)).isEqualTo(s.value(0, c));
            }
        }
    }

    /**
     * A full budget makes room only from summaries no query used for the idle time: queries that moved on (another
     * column) get summaries again, while a workload larger than the budget is not rebuilt over and over (its queries
     * read rows, as with a spent budget). Answers are the same either way.
     */
    @Test
    void shouldEvictOnlySummariesIdleLongEnoughToMakeRoomForOthers() {
        final String byClient = "{\"table\":\"trades\",\"filter\":{\"op\":\"eq\",\"col\":\"client_id\",\"value\":4},"
            + AGGS + "}";
        final String byInstrument =
            "{\"table\":\"trades\",\"filter\":{\"op\":\"eq\",\"col\":\"instrument\",\"value\":\"SYM0\"}," + AGGS + "}";
        final long clientBytes;
        final long instrumentBytes;
        try (QueryEngine probe = new QueryEngine(store, 1)) {
            probe.indexes().minSegmentRows(1);
            probe.indexes().summaryEntries(200);
            probe.execute(byClient);
            clientBytes = probe.indexes().summaryBytes();
            probe.execute(byInstrument);
            instrumentBytes = probe.indexes().summaryBytes() - clientBytes;
        }
        assertThat(clientBytes).isPositive();
        assertThat(instrumentBytes).isPositive();
        try (QueryEngine e = new QueryEngine(store, 1)) {
            e.indexes().minSegmentRows(1);
            e.indexes().summaryEntries(200);
            e.indexes().summaryBudget(clientBytes);
            e.indexes().summaryIdleMillis(3_600_000);
            assertThat(e.execute(byClient).stats().rowsSummarized()).isPositive();
            final long builds = e.indexes().summaryBuilds();
            // full, and the client summaries are in use: the instrument query reads its rows, nothing is evicted
            final QueryResult rows = e.execute(byInstrument);
            assertThat(rows.stats().rowsSummarized()).isZero();
            assertSame(rows, scanning.execute(byInstrument));
            assertThat(e.indexes().summaryEvictions()).isZero();
            assertThat(e.indexes().summaryBuilds()).isEqualTo(builds);
            assertThat(e.execute(byClient).stats().rowsSummarized()).as("kept").isPositive();
            assertThat(e.indexes().summaryBuilds()).isEqualTo(builds);
            // the client summaries count as idle now: the least recently used make room for the instrument's
            e.indexes().summaryIdleMillis(0);
            final QueryResult folded = e.execute(byInstrument);
            assertThat(folded.stats().rowsSummarized()).isPositive();
            assertSame(folded, scanning.execute(byInstrument));
            assertThat(e.indexes().summaryEvictions()).isPositive();
            assertThat(e.indexes().summaryBuilds()).isGreaterThan(builds);
            // the evicted summaries' bytes went back to the budget
            assertThat(e.indexes().summaryBytes()).isPositive().isLessThan(clientBytes + instrumentBytes);
            e.indexes().clear();
            assertThat(e.indexes().summaryBytes()).isZero();
            assertSame(e.execute(byClient), scanning.execute(byClient));
        }
    }

    @Test
    void shouldFoldTheCompletePartsOfTheOpenSegmentAsItGrows(@TempDir final Path other) throws Exception {
        try (Store s = Store.open(other); QueryEngine e = new QueryEngine(s, 2); QueryEngine scan =
            new QueryEngine(s, 2)) {
            final TradeData grow = new TradeData()
                .write(s, TradeData.schema(Layout.COLUMN, 4096, 128), 3_000, 13, true);
            e.indexes().minSegmentRows(1);
            // ~100 client slots, 1,000 entries: 8 parts of 512 rows per 4,096-row segment; 3,000 rows hold 5 complete
            // ones
            e.indexes().summaryEntries(1_000);
            e.morselRows(300);
            e.smallQueryRows(0);
            scan.useIndexes(false);
            final String json =
                "{\"table\":\"trades\",\"filter\":{\"op\":\"in\",\"col\":\"client_id\",\"values\":[2,3]}," + AGGS + "}";
            final io.tradestore.core.TableSnapshot before = e.snapshot("trades");
            final QueryResult r1 = e.execute(json);
            assertSame(r1, scan.execute(json));
            assertThat(r1.stats().rowsSummarized()).isPositive().isLessThan(r1.stats().rowsMatched());
            assertThat(col(r1, "n"))
                .isEqualTo(grow.rows.stream()
                .filter(x -> x.clientId() != null && (x.clientId() == 2 || x.clientId() == 3)).count());
            // the segment grows by two parts; the summary is rebuilt to cover them
            grow.write(s, TradeData.schema(Layout.COLUMN, 4096, 128), 1_000, 14, true);
            final QueryResult r2 = e.execute(json);
            assertSame(r2, scan.execute(json));
            assertThat(r2.stats().rowsSummarized()).isGreaterThan(r1.stats().rowsSummarized());
            // an older snapshot must not fold the parts a newer query's summary covers beyond its rows
            final java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(1);
            try {
                final QueryResult old =
                    io.tradestore.query.exec.QueryRunner.run(QueryEngine.parse(json), before, pool, 2, e.indexes(),
                    System.nanoTime(), 300, 0, System::nanoTime, null);
                assertSame(old, r1);
                assertThat(old.stats().rowsSummarized()).isEqualTo(r1.stats().rowsSummarized());
            } finally {
                pool.shutdown();
            }
        }
    }

    @Test
    void shouldReadOnlyTheOpenSegmentsChunksAfterTheFoldedParts(@TempDir final Path other) {
        try (Store s = Store.open(other); QueryEngine e = new QueryEngine(s, 2); QueryEngine scan =
            new QueryEngine(s, 2)) {
            // one open segment of 200,000 rows: the in-memory index has three full 65,536-row chunks and a tail
            final TradeData big = new TradeData()
                .write(s, TradeData.schema(Layout.COLUMN, 1 << 18, 4096), 200_000, 17, true);
            e.indexes().minSegmentRows(1);
            // ~100 client slots, 400 entries: 4 parts of 65,536 rows, 3 of them complete; the rest is read from chunk 3
            // on
            e.indexes().summaryEntries(400);
            scan.useIndexes(false);
            for (final String values : new String[] {"[3]", "[1,4,6]", "[987654]"}) {
                final String json = "{\"table\":\"trades\",\"filter\":{\"op\":\"in\",\"col\":\"client_id\",\"values\":"
                    + values + "}," + AGGS + "}";
                final QueryResult r = e.execute(json);
                assertSame(r, scan.execute(json));
                final java.util.Set<Long> chosen =
                    java.util.Arrays.stream(values.substring(1, values.length() - 1).split(","))
                    .map(Long::valueOf).collect(Collectors.toSet());
                final long expected = big.rows.stream()
                    .filter(x -> x.clientId() != null && chosen.contains(x.clientId())).count();
                assertThat(col(r, "n")).as(values).isEqualTo(expected);
                if (expected > 0) {
                    assertThat(r.stats().rowsSummarized()).as(values).isPositive().isLessThan(r.stats().rowsMatched());
                }
            }
            // a query with no summaries (group keys) still reads the whole open segment through the index
            final String grouped = "{\"table\":\"trades\",\"filter\":{\"op\":\"eq\",\"col\":\"client_id\",\"value\":2},"
                + "\"groupBy\":[\"side\"]," + AGGS + ",\"orderBy\":[{\"col\":\"side\"}]}";
            assertSame(e.execute(grouped), scan.execute(grouped));
        }
    }

    @Test
    void shouldFoldAggregatesOfAllRowsFromSummariesOfAllRows() {
        final QueryResult all = same("{\"table\":\"trades\"," + AGGS + "}");
        assertThat(col(all, "n")).isEqualTo(data.rows.size());
        assertThat(col(all, "volume"))
            .isEqualTo(data.rows.stream().filter(x -> x.quantity() != null).mapToLong(TradeData.Row::quantity).sum());
        assertThat(col(all, "priced")).isEqualTo(data.rows.stream().filter(x -> x.price() != null).count());
        // parts of 128 rows (2 slots, 200 entries): the 9 sealed segments and the open segment's 2 complete parts fold,
        // its last 28 rows are read
        assertThat(all.stats().rowsSummarized()).isEqualTo(9 * 1024 + 256);
        assertThat(all.stats().rowsMatched()).isEqualTo(data.rows.size());
        assertThat(all.stats().indexedSegments()).as("no index answered a filter").isZero();
        // not a time range, or group keys: rows are read
        final String ranged = "{\"table\":\"trades\",\"filter\":{\"op\":\"range\",\"col\":\"quantity\",\"gt\":5000},"
            + AGGS + "}";
        assertThat(same(ranged).stats().rowsSummarized()).isZero();
        final String grouped = "{\"table\":\"trades\",\"groupBy\":[\"side\"]," + AGGS
            + ",\"orderBy\":[{\"col\":\"side\"}]}";
        assertThat(same(grouped).stats().rowsSummarized()).isZero();
    }

    @Test
    void shouldFoldTheInnerPartsOfARangeOverAllRows(@TempDir final Path other) {
        try (Store s = Store.open(other); QueryEngine e = new QueryEngine(s, 2); QueryEngine scan =
            new QueryEngine(s, 2)) {
            final TradeData clean = new TradeData()
                .write(s, TradeData.schema(Layout.COLUMN, 1024, 128), 7_000, 19, false);
            e.indexes().summaryEntries(200);
            e.morselRows(300);
            e.smallQueryRows(0);
            scan.useIndexes(false);
            for (final long[] range : new long[][] {{3, 5}, {700, 6_300}, {1_024, 2_048}, {6_900, 9_000}}) {
                final long from = TradeData.T0 + range[0] * 1_000_000_000L;
                final long to = TradeData.T0 + range[1] * 1_000_000_000L;
                // the same rows by time, and by trade id (row + 1: a range the zone maps prove for inner blocks too)
                for (final String json : new String[] {
                    "{\"table\":\"trades\",\"time\":{\"from\":" + from + ",\"to\":" + to + "}," + AGGS + "}",
                    "{\"table\":\"trades\",\"filter\":{\"op\":\"range\",\"col\":\"trade_id\",\"gt\":" + range[0]
                        + ",\"lte\":" + range[1] + "}," + AGGS + "}"}) {
                    final long builds = e.indexes().summaryBuilds();
                    final QueryResult r = e.execute(json);
                    assertSame(r, scan.execute(json));
                    if (range[1] - range[0] < 128) {
                        assertThat(e.indexes().summaryBuilds()).as("a range inside one block builds no summary")
                            .isEqualTo(builds);
                    }
                    final List<TradeData.Row> expected = clean.rows.stream().filter(x -> x.ts() >= from && x.ts() < to)
                        .collect(Collectors.toList());
                    assertThat(col(r, "n")).isEqualTo(expected.size());
                    assertThat(col(r, "volume")).isEqualTo(expected.stream().mapToLong(TradeData.Row::quantity).sum());
                    // the blocks inside the range fold, the ones it cuts are read
                    final long inner = expected.stream()
                        .filter(x -> x.row() / 128 * 128 >= range[0] && (x.row() / 128 + 1) * 128 <= range[1]
                        && x.row() < 6_912).count();
                    assertThat(r.stats().rowsSummarized()).as("%s %s", java.util.Arrays.toString(range), json)
                        .isEqualTo(inner);
                }
            }
        }
    }

    private static void assertSame(final QueryResult a, final QueryResult b) {
        TradeData.assertSameResults(a, b, "the two answers");
    }

    @Test
    void shouldSumPastSixtyFourBitsExactly(@TempDir final Path other) {
        try (Store s = Store.open(other)) {
            final long q = 3_000_000_000_000_000_000L;
            final long price = 7_000_000_000_000L;
            try (TableWriter w = s.openOrCreate(TradeData.schema(Layout.ROW, 512, 64)).writer()) {
                final TradeFlyweight f = new TradeFlyweight();
                for (int i = 0; i < 2_000; i++) {
                    w.append(f).tradeId(i).ts(TradeData.T0 + i).clientId(i % 3).price(price).quantity(q);
                }
                w.commit();
            }
            try (QueryEngine e = new QueryEngine(s, 2)) {
                e.indexes().minSegmentRows(1);
                final QueryResult r = e
                    .execute("{\"table\":\"trades\",\"filter\":{\"op\":\"eq\",\"col\":\"client_id\",\"value\":1},"
                    + "\"aggs\":[{\"name\":\"volume\",\"op\":\"sum\",\"col\":\"quantity\"},{\"name\":\"notional\",\"op"
                    + "\":\"sum\","
                    + "\"col\":\"price*quantity\"},{\"name\":\"n\",\"op\":\"count\"}]}");
                final long n = 2_000 / 3 + (2_000 % 3 > 1 ? 1 : 0);
                assertThat(col(r, "n")).isEqualTo(n);
                assertThat(r.value(0, 0))
                    .isEqualTo(new BigDecimal(BigInteger.valueOf(q).multiply(BigInteger.valueOf(n))));
                assertThat(r.value(0, 1))
                    .isEqualTo(new BigDecimal(BigInteger.valueOf(q).multiply(BigInteger.valueOf(price))
                    .multiply(BigInteger.valueOf(n)), 6));
                assertThat(r.stats().rowsSummarized()).isPositive();
            }
        }
    }
}
