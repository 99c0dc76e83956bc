package io.tradestore.query;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.function.Function;
import java.util.function.LongPredicate;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.EnumSource;

import io.tradestore.core.Store;
import io.tradestore.core.TableWriter;
import io.tradestore.core.TestRows;
import io.tradestore.core.flyweight.TradeFlyweight;
import io.tradestore.core.memory.NativeMemory;
import io.tradestore.core.schema.Layout;
import io.tradestore.core.schema.Schema;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

/**
 * The fused dense kernel (counts, integral sums and vwaps over dense keys) on every loop it has: a raw byte key, a
 * symbol key, an i64 key, a symbol x byte pair, other key pairs through group ids, two distinct terms, one term shared
 * by vwap and sum, selected batches, the ROW layout's strided reads; on null-free tables and tables with nulls in keys
 * and values; and with values at the edge of its 64-bit partials (flushed every batch) and past it (left to exact
 * loops).
 */
class DenseSumKernelTest {
    private static final String[][] GROUPINGS = {
        {"side"}, {"instrument"}, {"client_id"}, {"venue", "side"}, {"side", "venue"}, {"instrument", "side"},
            {"venue", "instrument"}};
    private static final String[] AGGS = {
        "{\"name\":\"n\",\"op\":\"count\"},{\"name\":\"notional\",\"op\":\"sum\",\"col\":\"price*quantity\"}",
        "{\"name\":\"vwap\",\"op\":\"vwap\"},{\"name\":\"volume\",\"op\":\"sum\",\"col\":\"quantity\"},{\"name\":\"n\""
        + ",\"op\":\"count\"}",
        "{\"name\":\"volume\",\"op\":\"sum\",\"col\":\"quantity\"},{\"name\":\"vwap\",\"op\":\"vwap\"}",
        "{\"name\":\"n\",\"op\":\"count\"},{\"name\":\"volume\",\"op\":\"sum\",\"col\":\"quantity\"}",
        "{\"name\":\"notional\",\"op\":\"sum\",\"col\":\"quantity*price\"},{\"name\":\"p\",\"op\":\"sum\",\"col\":\"pr"
        + "ice\"}",
        "{\"name\":\"avgq\",\"op\":\"avg\",\"col\":\"quantity\"},{\"name\":\"volume\",\"op\":\"sum\",\"col\":\"quantit"
        + "y\"}",
        "{\"name\":\"notional\",\"op\":\"sum\",\"col\":\"price*quantity\"}",
        // one plain term and no count: the symbol x byte loop without row counts
        "{\"name\":\"volume\",\"op\":\"sum\",\"col\":\"quantity\"}"};
    private static final String[] FILTERS = {null, "{\"op\":\"range\",\"col\":\"quantity\",\"gte\":3000}"};

    @TempDir
    Path dir;

    @AfterEach
    void noLeaks() {
        TestRows.assertNoNativeLeaks();
    }

    /**
     * Nulls nowhere, anywhere, or only in some blocks of 1,024 rows (every third): the loops without a null test run on
     * the blocks proven free of nulls, the others beside them in the same segments and batches of the same query.
     * Blocks of one and two rows give batches of one row (which take the loops with the test) and of two.
     */
    @ParameterizedTest
    @CsvSource({"COLUMN,none,8192,1024", "COLUMN,all,8192,1024", "COLUMN,someBlocks,8192,1024",
        "COLUMN,someBlocks,64,1", "COLUMN,someBlocks,512,2",
        "ROW,none,8192,1024", "ROW,all,8192,1024", "ROW,someBlocks,8192,1024"})
    void shouldMatchAPlainComputationForEveryKeyAndTermShape(final Layout layout, final String nulls,
    final int segmentRows, final int blockRows) {
        final LongPredicate mayHoldNulls =
            "none".equals(nulls) ? r -> false : "all".equals(nulls) ? r -> true : r -> r / 1024 % 3 == 1;
        try (Store store = Store.open(dir)) {
            final TradeData data = new TradeData()
                .write(store, TradeData.schema(layout, segmentRows, blockRows), 20_000, 11, mayHoldNulls);
            try (QueryEngine engine = new QueryEngine(store, 2)) {
                engine.morselRows(3000);
                engine.smallQueryRows(0);
                for (final String[] keys : GROUPINGS) {
                    for (final String aggs : AGGS) {
                        for (final String filter : FILTERS) {
                            check(engine, data.rows, keys, aggs, filter);
                        }
                    }
                }
            }
        }
    }

    /**
     * A block asked about while it is only partly committed and null-free so far, then completed with rows holding
     * nulls: the second query must not trust an answer about the block from the first (queries of one engine, one
     * segment).
     */
    @ParameterizedTest
    @CsvSource({"1", "2"})
    void shouldNotCarryANullFreeAnswerOverToABlockCompletedLater(final int threads) {
        try (Store store = Store.open(dir)) {
            final Schema schema = TradeData.schema(Layout.COLUMN, 8192, 1024);
            final TradeData data = new TradeData().write(store, schema, 1500, 11, r -> false);
            try (QueryEngine engine = new QueryEngine(store, threads)) {
                for (final String[] keys : GROUPINGS) {
                    check(engine, data.rows, keys, AGGS[0], null);
                }
                data.write(store, schema, 2600, 12, r -> true);
                for (final String[] keys : GROUPINGS) {
                    for (final String aggs : AGGS) {
                        check(engine, data.rows, keys, aggs, null);
                    }
                }
            }
        }
    }

    @ParameterizedTest
    @CsvSource({"COLUMN", "ROW"})
    void shouldStayExactAtAndPastTheBoundOfItsSixtyFourBitPartials(final Layout layout) {
        try (Store store = Store.open(dir)) {
            final List<TradeData.Row> rows = new ArrayList<>();
            final SplittableRandom rnd = new SplittableRandom(5);
            try (TableWriter w = store.openOrCreate(TradeData.schema(layout, 16384, 1024)).writer()) {
                final TradeFlyweight f = new TradeFlyweight();
                for (int i = 0; i < 40_000; i++) {
                    final long r = w.pendingRows();
                    // first segment: |price * quantity| < 2^50, the largest bound the 64-bit partials take (a flush per
                    // batch); the next: single products beyond 64 bits, left to the aggregates' exact loops
                    final boolean huge = r >= 16384 && r < 32768;
                    final long price =
                        (rnd.nextBoolean() ? 1 : -1)
                        * (huge ? (1L << 40) - rnd.nextInt(1000) : (1L << 25) - 1 - rnd.nextInt(1000));
                    final long qty = huge ? (1L << 40) - rnd.nextInt(1000) : (1L << 25) - 1 - rnd.nextInt(1000);
                    final char side = rnd.nextInt(4) == 0 ? 'S' : 'B';
                    final String instrument = "SYM" + rnd.nextInt(3);
                    w.append(f).tradeId(r + 1).ts(TradeData.T0 + r).clientId(r % 7).venue("XLON").instrument(instrument)
                        .side(side)
                        .price(price).quantity(qty);
                    rows.add(new TradeData.Row(r, r + 1, TradeData.T0 + r, r % 7, "XLON", instrument, side, price,
                        qty));
                }
                w.commit();
            }
            try (QueryEngine engine = new QueryEngine(store, 2)) {
                for (final String[] keys : GROUPINGS) {
                    for (final String aggs : AGGS) {
                        check(engine, rows, keys, aggs, null);
                    }
                }
            }
        }
    }

    @ParameterizedTest
    @CsvSource({"COLUMN,1", "COLUMN,2"})
    void shouldStayExactWhenAnUnsignedWindowsPartialsPassTwoToTheSixtyThree(final Layout layout, final int threads) {
        // every product positive and just below 2^50, no null: the null-free loops run (two halves, an array each) and
        // a window proven non-negative holds its partials up to 2^64 - 1, so a busy group's partial passes 2^63 (each
        // half's array about half of it) and is exact only if the halves are folded as unsigned 64-bit values
        try (Store store = Store.open(dir)) {
            final List<TradeData.Row> rows = new ArrayList<>();
            final SplittableRandom rnd = new SplittableRandom(12);
            try (TableWriter w = store.openOrCreate(TradeData.schema(layout, 65536, 4096)).writer()) {
                final TradeFlyweight f = new TradeFlyweight();
                for (int i = 0; i < 150_000; i++) {
                    final long r = w.pendingRows();
                    final long price = (1L << 25) - 1 - rnd.nextInt(1000);
                    final long qty = (1L << 25) - 1 - rnd.nextInt(1000);
                    final char side = rnd.nextInt(8) == 0 ? 'S' : 'B';
                    final String instrument = "SYM" + rnd.nextInt(2);
                    final String venue = rnd.nextBoolean() ? "XLON" : "XPAR";
                    w.append(f).tradeId(r + 1).ts(TradeData.T0 + r).clientId(r % 3).venue(venue).instrument(instrument)
                        .side(side)
                        .price(price).quantity(qty);
                    rows.add(new TradeData.Row(r, r + 1, TradeData.T0 + r, r % 3, venue, instrument, side, price, qty));
                }
                w.commit();
            }
            try (QueryEngine engine = new QueryEngine(store, threads)) {
                for (final String[] keys : GROUPINGS) {
                    for (final String aggs : AGGS) {
                        check(engine, rows, keys, aggs, null);
                    }
                }
            }
        }
    }

    @ParameterizedTest
    @CsvSource({"COLUMN,1", "COLUMN,2", "ROW,1"})
    void shouldFindEveryGroupWithoutCountingRowsWhenTheSignsAreProven(final Layout layout, final int threads) {
        // without a count among the outputs, a segment whose zone maps prove one term's sign (and no zero) knows its
        // groups from that term's partials; segments of each kind follow one another in a worker's window:
        //   0: price > 0 (presence by a positive term)   1: price < 0 (negative), client 3 cancels segment 0 to zero
        //   2: prices of both signs (rows counted)        3: quantities with zeros (rows counted)
        //   4-13: products near 2^50, client 7 passing 2^63 inside one window (an unsigned partial) and 2^64 in all
        //   14: the same of both signs (a signed window: an unsigned one must be flushed before it)
        // client 5 has only null prices (a group with a null sum), client 6 only zero products in segment 3, a null
        // client_id is a group, and a block has nulls
        final int segmentRows = 2048;
        final List<TradeData.Row> rows = new ArrayList<>();
        final SplittableRandom rnd = new SplittableRandom(17);
        try (Store store = Store.open(dir)) {
            try (TableWriter w = store.openOrCreate(TradeData.schema(layout, segmentRows, 512)).writer()) {
                final TradeFlyweight f = new TradeFlyweight();
                for (int i = 0; i < 15 * segmentRows; i++) {
                    final long r = w.pendingRows();
                    final int seg = i / segmentRows;
                    final int inSeg = i % segmentRows;
                    Long client = (long) rnd.nextInt(20);
                    Long price = 1_000_000L + rnd.nextInt(500_000_000);
                    Long qty = (long) rnd.nextInt(1, 10_000);
                    if (seg == 1) {
                        price = -price;
                    } else if (seg == 2 && rnd.nextBoolean()) {
                        price = -price;
                    } else if (seg == 3 && rnd.nextInt(10) == 0) {
                        qty = 0L;
                    } else if (seg >= 4) {
                        // products just below 2^50, the largest bound the partials take
                        price = (seg == 14 && rnd.nextInt(3) == 0 ? -1 : 1) * ((1L << 25) - 1 - rnd.nextInt(1000));
                        qty = (1L << 25) - 1 - rnd.nextInt(1000);
                        client = rnd.nextInt(10) == 0 ? client : 7L;
                    }
                    if (inSeg == 100 && seg < 2) {
                        client = 3L;
                        price = seg == 0 ? 123_000_000L : -123_000_000L;
                        qty = 77L;
                    } else if (client == 3) {
                        client = 4L;
                    }
                    if (client == 5) {
                        price = null;
                    } else if (client == 6) {
                        client = seg == 3 ? client : 8L;
                        qty = 0L;
                    }
                    if (seg == 2 && inSeg >= 512 && inSeg < 1024 && rnd.nextInt(5) == 0) {
                        client = rnd.nextBoolean() ? null : client;
                        qty = rnd.nextBoolean() ? null : qty;
                    }
                    // Long.MIN_VALUE is the i64 and decimal null
                    w.append(f).tradeId(r + 1).ts(TradeData.T0 + r).venue("XLON").instrument("SYM1").side('B')
                        .clientId(orNull(client))
                        .price(orNull(price)).quantity(orNull(qty));
                    rows.add(new TradeData.Row(r, r + 1, TradeData.T0 + r, client, "XLON", "SYM1", 'B', price, qty));
                }
                w.commit();
            }
            try (QueryEngine engine = new QueryEngine(store, threads)) {
                engine.morselRows(3 * segmentRows);
                engine.smallQueryRows(0);
                final String[] aggs = {
                    "{\"name\":\"notional\",\"op\":\"sum\",\"col\":\"price*quantity\"}",
                    "{\"name\":\"notional\",\"op\":\"sum\",\"col\":\"quantity*price\"},{\"name\":\"p\",\"op\":\"sum\","
                    + "\"col\":\"price\"}",
                    "{\"name\":\"volume\",\"op\":\"sum\",\"col\":\"quantity\"},{\"name\":\"vwap\",\"op\":\"vwap\"}",
                    "{\"name\":\"n\",\"op\":\"count\"},"
                        + "{\"name\":\"notional\",\"op\":\"sum\",\"col\":\"price*quantity\"}"};
                for (final String a : aggs) {
                    check(engine, rows, new String[] {"client_id"}, a, null);
                    check(engine, rows, new String[] {"client_id"}, a,
                        "{\"op\":\"range\",\"col\":\"quantity\",\"gte\":3000}");
                }
                final QueryResult r = engine.execute("{\"table\":\"trades\",\"groupBy\":[\"client_id\"],"
                    + "\"aggs\":[{\"name\":\"notional\",\"op\":\"sum\",\"col\":\"price*quantity\"}],\"orderBy\":[{\"co"
                    + "l\":\"client_id\"}]}");
                assertThat(r.value(3, 1)).as("client 3, cancelled to zero")
                    .isEqualTo(new BigDecimal(BigInteger.ZERO, 6));
                assertThat(r.value(5, 1)).as("client 5, null prices only").isNull();
                assertThat(r.value(6, 1)).as("client 6, zero products only")
                    .isEqualTo(new BigDecimal(BigInteger.ZERO, 6));
                assertThat(((BigDecimal) r.value(7, 1)).unscaledValue().bitLength()).as("client 7").isGreaterThan(64);
            }
        }
    }

    @ParameterizedTest
    @EnumSource(Layout.class)
    void shouldGroupByAOneByteKeyThatFillsItsWholeRange(final Layout layout) {
        // i8 values -127..127 plus null: the key's range already needs 256 codes, so the Binder keeps range codes
        // (v - lo + 1, null 0) rather than raw bytes, and a kernel must not read the raw byte as the group
        final Schema schema = Schema.builder("bytes").layout(layout).segmentRows(1 << 12).blockRows(1 << 10)
            .timestamp("ts")
            .column("ts", "timestamp").column("k", "i8").column("q", "i64").build();
        final long[] count = new long[256];
        final long[] sum = new long[256];
        try (Store store = Store.open(dir.resolve(layout.name()))) {
            try (TableWriter w = store.openOrCreate(schema).writer()) {
                for (int r = 0; r < 10_000; r++) {
                    final long at = w.appendRow();
                    final int seg = (int) (at >>> schema.segmentShift());
                    final long in = at & (schema.segmentRows() - 1);
                    final byte k = (byte) (r % 256 - 128); // -128 is the null sentinel
                    NativeMemory.putLong(w.columnAddress(seg, 0) + in * w.columnStride(0),
                    1_795_000_000_000_000_000L + r);
                    NativeMemory.putByte(w.columnAddress(seg, 1) + in * w.columnStride(1), k);
                    NativeMemory.putLong(w.columnAddress(seg, 2) + in * w.columnStride(2), r);
                    count[k + 128]++;
                    sum[k + 128] += r;
                }
                w.commit();
            }
            try (QueryEngine engine = new QueryEngine(store, 2)) {
                final QueryResult res = engine
                    .execute("{\"table\":\"bytes\",\"groupBy\":[\"k\"],\"aggs\":[{\"name\":\"n\",\"op\":\"count\"},"
                    + "{\"name\":\"s\",\"op\":\"sum\",\"col\":\"q\"}],\"orderBy\":[{\"col\":\"k\"}]}");
                assertThat(res.rowCount()).isEqualTo(256);
                for (int i = 0; i < 256; i++) {
                    final int code = i == 255 ? 0 : i + 1; // ordered by k with the null last
                    final Object key = res.value(i, 0);
                    assertThat(key).as("row %d", i).isEqualTo(code == 0 ? null : (long) (code - 128));
                    assertThat(((Number) res.value(i, 1)).longValue()).as("count of k=%s", key).isEqualTo(count[code]);
                    assertThat(new BigDecimal(res.value(i, 2).toString()).longValueExact()).as("sum of k=%s", key)
                        .isEqualTo(sum[code]);
                }
            }
        }
    }

    private static long orNull(final Long v) {
        return v == null ? Long.MIN_VALUE : v;
    }

    private static void check(final QueryEngine engine, final List<TradeData.Row> rows, final String[] keys,
        final String aggs, final String filter) {
        final StringBuilder q = new StringBuilder("{\"table\":\"trades\",\"groupBy\":[");
        for (int k = 0; k < keys.length; k++) {
            q.append(k > 0 ? "," : "").append('"').append(keys[k]).append('"');
        }
        q.append("],\"aggs\":[").append(aggs).append(']');
        if (filter != null) {
            q.append(",\"filter\":").append(filter);
        }
        final String json = q.append('}').toString();
        final QueryResult r = engine.execute(json);
        final Map<List<Object>, List<TradeData.Row>> groups = new TreeMap<>(DenseSumKernelTest::compareKeys);
        for (final TradeData.Row row : rows) {
            if (filter != null && (row.quantity() == null || row.quantity() < 3000)) {
                continue;
            }
            final List<Object> key = new ArrayList<>();
            for (final String k : keys) {
                key.add(key(row, k));
            }
            groups.computeIfAbsent(key, x -> new ArrayList<>()).add(row);
        }
        assertThat(r.rowCount()).as(json).isEqualTo(groups.size());
        final Map<List<Object>, Integer> byKey = new TreeMap<>(DenseSumKernelTest::compareKeys);
        for (int i = 0; i < r.rowCount(); i++) {
            final List<Object> key = new ArrayList<>();
            for (int k = 0; k < keys.length; k++) {
                key.add(r.value(i, k));
            }
            byKey.put(key, i);
        }
        for (final Map.Entry<List<Object>, List<TradeData.Row>> e : groups.entrySet()) {
            final Integer i = byKey.get(e.getKey());
            assertThat(i).as(json + " group " + e.getKey()).isNotNull();
            for (int c = keys.length; c < r.columns().size(); c++) {
                final String name = r.columns().get(c).name();
                final Object want = expected(name, e.getValue());
                final Object got = r.value(i, c);
                final String what = json + " group " + e.getKey() + " " + name;
                if (want instanceof Double) {
                    assertThat((Double) got).as(what).isCloseTo((Double) want, within(Math.abs((Double) want) * 1e-12));
                } else {
                    assertThat(got).as(what).isEqualTo(want);
                }
            }
        }
    }

    private static Object key(final TradeData.Row row, final String k) {
        switch (k) {
            case "side":
                return row.side() == null ? null : String.valueOf(row.side());
            case "instrument":
                return row.instrument();
            case "venue":
                return row.venue();
            default:
                return row.clientId();
        }
    }

    @SuppressWarnings({"unchecked", "rawtypes"})
    private static int compareKeys(final List<Object> a, final List<Object> b) {
        for (int i = 0; i < a.size(); i++) {
            final int c =
                Objects.compare((Comparable) a.get(i), (Comparable) b.get(i),
                Comparator.nullsLast(Comparator.naturalOrder()));
            if (c != 0) {
                return c;
            }
        }
        return 0;
    }

    private static Object expected(final String name, final List<TradeData.Row> rows) {
        switch (name) {
            case "n":
                return (long) rows.size();
            case "notional":
                return sum(rows,
                    r -> r.price() == null || r.quantity() == null ? null : BigInteger.valueOf(r.price()).multiply(
                    BigInteger.valueOf(r.quantity())), 6);
            case "volume":
                return sum(rows, r -> r.quantity() == null ? null : BigInteger.valueOf(r.quantity()), 0);
            case "p":
                return sum(rows, r -> r.price() == null ? null : BigInteger.valueOf(r.price()), 6);
            case "avgq": {
                final BigDecimal s =
                    (BigDecimal) sum(rows, r -> r.quantity() == null ? null : BigInteger.valueOf(r.quantity()), 0);
                final long n = rows.stream().filter(r -> r.quantity() != null).count();
                return s == null ? null : s.divide(BigDecimal.valueOf(n), java.math.MathContext.DECIMAL128)
                    .doubleValue();
            }
            case "vwap": {
                BigInteger pq = BigInteger.ZERO;
                BigInteger q = BigInteger.ZERO;
                for (final TradeData.Row r : rows) {
                    if (r.price() != null && r.quantity() != null) {
                        pq = pq.add(BigInteger.valueOf(r.price()).multiply(BigInteger.valueOf(r.quantity())));
                        q = q.add(BigInteger.valueOf(r.quantity()));
                    }
                }
                return q.signum() == 0 ? null : new BigDecimal(pq, 6)
                    .divide(new BigDecimal(q), java.math.MathContext.DECIMAL128).doubleValue();
            }
            default:
                throw new AssertionError(name + " in " + Arrays.toString(AGGS));
        }
    }

    private static Object sum(final List<TradeData.Row> rows, final Function<TradeData.Row, BigInteger> value,
        final int scale) {
        BigInteger s = BigInteger.ZERO;
        boolean any = false;
        for (final TradeData.Row r : rows) {
            final BigInteger v = value.apply(r);
            if (v != null) {
                s = s.add(v);
                any = true;
            }
        }
        return any ? new BigDecimal(s, scale) : null;
    }
}
