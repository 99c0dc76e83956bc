package io.tradestore.query;

import java.nio.file.Path;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import io.tradestore.core.Store;
import io.tradestore.core.schema.Layout;
import io.tradestore.core.schema.Schema;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A time-bucket key reuses the bucket of the row before while rows stay inside it: with timestamps in runs, out of
 * order, jumping back and forth across bucket edges, and null, every row must still land in its own bucket, for
 * fixed widths and calendar months, as the only key and packed with a symbol.
 */
class BucketKeyOrderTest {
    private static final int ROWS = 20_000;
    private static final long START = 1_790_000_000_000_000_000L;
    private static final long[] TS2 = new long[ROWS];
    @TempDir
    static Path dir;
    static Store store;
    static QueryEngine engine;

    @BeforeAll
    static void setUp() {
        store = Store.open(dir);
        final Schema schema = Schema.builder("t").layout(Layout.COLUMN).segmentRows(4096).blockRows(512)
            .timestamp("ts").column("ts", "timestamp").column("ts2", "timestamp").column("sym", "symbol").build();
        final SplittableRandom r = new SplittableRandom(7);
        final StringBuilder csv = new StringBuilder("ts,ts2,sym\n");
        long t = START;
        for (int i = 0; i < ROWS; i++) {
            // runs of close timestamps, then a jump anywhere in a year either side, or a null
            final int kind = r.nextInt(20);
            t = kind == 0 ? START + r.nextLong(-366L * 86_400_000_000_000L, 366L * 86_400_000_000_000L)
                : t + r.nextLong(-3_000_000_000L, 60_000_000_000L);
            TS2[i] = kind == 1 ? Long.MIN_VALUE : t;
            csv.append(START + i).append(',').append(kind == 1 ? "" : String.valueOf(t)).append(',')
                .append(i % 3 == 0 ? "A" : "B").append('\n');
        }
        TradeData.loadCsv(store, schema, csv);
        engine = new QueryEngine(store, 2);
        engine.smallQueryRows(0);
    }

    @AfterAll
    static void tearDown() {
        engine.close();
        store.close();
    }

    @ParameterizedTest
    @ValueSource(strings = {"7ns", "1s", "1m", "1h", "1d", "P1M", "P3M", "P1Y"})
    void shouldPutEveryRowInItsOwnBucket(final String bucket) {
        final Map<String, Long> expected = new TreeMap<>();
        for (int i = 0; i < ROWS; i++) {
            final String start = TS2[i] == Long.MIN_VALUE ? "null" : String.valueOf(start(bucket, TS2[i]));
            expected.merge((i % 3 == 0 ? "A" : "B") + "|" + start, 1L, Long::sum);
        }
        final Map<String, Long> bySym = new TreeMap<>();
        final Map<String, Long> alone = new TreeMap<>();
        expected.forEach((k, v) -> alone.merge(k.substring(2), v, Long::sum));
        final QueryResult two = engine.execute("{\"table\":\"t\",\"groupBy\":[\"sym\",{\"bucket\":\"" + bucket
            + "\",\"col\":\"ts2\",\"as\":\"b\"}],\"aggs\":[{\"name\":\"n\",\"op\":\"count\"}]}");
        for (int row = 0; row < two.rowCount(); row++) {
            bySym.put(two.value(row, 0) + "|" + two.value(row, 1), (Long) two.value(row, 2));
        }
        assertThat(bySym).as("by sym and %s", bucket).isEqualTo(expected);
        final QueryResult one = engine.execute("{\"table\":\"t\",\"groupBy\":[{\"bucket\":\"" + bucket
            + "\",\"col\":\"ts2\",\"as\":\"b\"}],\"aggs\":[{\"name\":\"n\",\"op\":\"count\"}]}");
        final Map<String, Long> got = new TreeMap<>();
        for (int row = 0; row < one.rowCount(); row++) {
            got.put(String.valueOf(one.value(row, 0)), (Long) one.value(row, 1));
        }
        assertThat(got).as("by %s", bucket).isEqualTo(alone);
    }

    /** The bucket's start computed independently: java.time for calendar buckets, floorMod for fixed widths. */
    private static long start(final String bucket, final long nanos) {
        if (bucket.startsWith("P")) {
            final int months = bucket.endsWith("Y") ? 12 * Integer.parseInt(bucket.substring(1, bucket.length() - 1))
                : Integer.parseInt(bucket.substring(1, bucket.length() - 1));
            final ZonedDateTime z = Instant.ofEpochSecond(0, nanos).atZone(ZoneOffset.UTC);
            final long index = (z.getYear() - 1970) * 12L + z.getMonthValue() - 1;
            final long first = Math.floorDiv(index, months) * months;
            final ZonedDateTime s = ZonedDateTime.of((int) (1970 + Math.floorDiv(first, 12)),
                Math.floorMod(first, 12) + 1, 1, 0, 0, 0, 0, ZoneOffset.UTC);
            return s.toEpochSecond() * 1_000_000_000L;
        }
        final long width = switch (bucket.replaceAll("[0-9]", "")) {
            case "ns" -> 1;
            case "s" -> 1_000_000_000L;
            case "m" -> 60_000_000_000L;
            case "h" -> 3_600_000_000_000L;
            default -> 86_400_000_000_000L;
        } * Long.parseLong(bucket.replaceAll("[^0-9]", ""));
        return nanos - Math.floorMod(nanos, width);
    }
}
