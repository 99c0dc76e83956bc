package io.tradestore.query;

import java.math.BigInteger;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import io.tradestore.core.Store;
import io.tradestore.core.schema.Layout;
import io.tradestore.core.schema.Schema;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Time buckets at the ends of the timestamp range: the bucket of the smallest timestamp (Long.MIN_VALUE + 1;
 * Long.MIN_VALUE is null) starts at or before Long.MIN_VALUE, which no timestamp can hold, so it comes out as the
 * smallest timestamp, never as null and never wrapped around to a far-future one.
 */
class TimeBucketEdgeTest {
    private static final long SMALLEST = Long.MIN_VALUE + 1;
    /** Timestamps near both ends of the range and around zero, sorted. */
    private static final long[] TS =
        {SMALLEST, SMALLEST, SMALLEST + 1, SMALLEST + 2, SMALLEST + 5, SMALLEST + 1_000_000_007L,
        SMALLEST + 86_400_000_000_000L, -1, 0, 1, Long.MAX_VALUE - 3, Long.MAX_VALUE};
    /** The row whose second timestamp column (ts2, not designated) is null. */
    private static final int NULL_ROW = 3;
    @TempDir
    static Path dir;
    static Store store;
    static QueryEngine engine;
    static QueryEngine plain;

    @BeforeAll
    static void setUp() {
        store = Store.open(dir);
        final Schema schema = Schema.builder("edges").layout(Layout.COLUMN).segmentRows(8).blockRows(4).timestamp("ts")
            .column("ts", "timestamp").column("ts2", "timestamp").column("sym", "symbol").build();
        final StringBuilder csv = new StringBuilder("ts,ts2,sym\n");
        for (int i = 0; i < TS.length; i++) {
            csv.append(TS[i]).append(',').append(i == NULL_ROW ? "" : String.valueOf(TS[i])).append(',')
                .append(i % 2 == 0 ? "A" : "B").append('\n');
        }
        TradeData.loadCsv(store, schema, csv);
        engine = new QueryEngine(store, 2);
        engine.indexes().minSegmentRows(1);
        plain = new QueryEngine(store, 1);
        plain.useIndexes(false);
        plain.morselRows(64);
        plain.smallQueryRows(0);
    }

    @AfterAll
    static void tearDown() {
        engine.close();
        plain.close();
        store.close();
    }

    /**
     * @return the count per bucket start of the rows up to {@code to}: floor(ts / width) * width, raised to the
     * smallest timestamp.
     */
    private static Map<Long, Long> expected(final long width, final long to, final boolean withNull) {
        final Map<Long, Long> out = new TreeMap<>();
        for (int i = 0; i < TS.length; i++) {
            final long t = TS[i];
            if (t <= to && !(withNull && i == NULL_ROW)) {
                final BigInteger start = BigInteger.valueOf(t).subtract(BigInteger.valueOf(Math.floorMod(t, width)));
                out.merge(start.max(BigInteger.valueOf(SMALLEST)).longValueExact(), 1L, Long::sum);
            }
        }
        return out;
    }

    @ParameterizedTest
    @CsvSource({"1ns,1", "2ns,2", "3ns,3", "7ns,7", "1s,1000000000", "1m,60000000000", "1d,86400000000000",
        "P36500D,3153600000000000000"})
    void shouldStartTheFirstBucketAtTheSmallestTimestampNeverNullNorWrapped(final String bucket, final long width) {
        // all rows (a wide key) and the small end alone (a dense key); the designated timestamp (bucket runs) and
        // another one with a null; the bucket alone and with a symbol (a packed key of two)
        for (final long to : new long[] {Long.MAX_VALUE, SMALLEST + 99}) {
            final String time = to == Long.MAX_VALUE ? "" : ",\"time\":{\"from\":" + SMALLEST + ",\"to\":" + (to + 1)
                + "}";
            for (final String groupBy : new String[] {"", "\"sym\","}) {
                for (final String col : new String[] {"ts", "ts2"}) {
                    final String json = "{\"table\":\"edges\"" + time + ",\"groupBy\":[" + groupBy + "{\"bucket\":\""
                        + bucket
                        + "\",\"col\":\"" + col + "\",\"as\":\"t\"}],\"aggs\":[{\"name\":\"n\",\"op\":\"count\"}]}";
                    final boolean withNull = "ts2".equals(col);
                    assertCounts(engine.execute(json), groupBy.isEmpty() ? 0 : 1, expected(width, to, withNull),
                        withNull ? 1 : 0, json);
                    assertCounts(plain.execute(json), groupBy.isEmpty() ? 0 : 1, expected(width, to, withNull),
                        withNull ? 1 : 0, json);
                }
            }
        }
    }

    private static void assertCounts(final QueryResult r, final int bucketColumn, final Map<Long, Long> expected,
        final long nullRows, final String json) {
        final Map<Long, Long> counts = new TreeMap<>();
        long nulls = 0;
        for (int row = 0; row < r.rowCount(); row++) {
            final Long start = (Long) r.value(row, bucketColumn);
            if (start == null) {
                nulls += (Long) r.value(row, bucketColumn + 1);
            } else {
                counts.merge(start, (Long) r.value(row, bucketColumn + 1), Long::sum);
            }
        }
        assertThat(nulls).as("rows in the null bucket: %s", json).isEqualTo(nullRows);
        assertThat(counts).as(json).isEqualTo(expected);
    }
}
