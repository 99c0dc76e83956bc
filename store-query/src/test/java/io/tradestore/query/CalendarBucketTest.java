package io.tradestore.query;

import java.nio.file.Path;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.tradestore.core.Store;
import io.tradestore.core.schema.Layout;
import io.tradestore.core.schema.Schema;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Buckets of calendar months and years ({@code P1M}, {@code P3M}, {@code P1Y}, {@code P2Y6M}), counted from January
 * 1970 in UTC: each row lands in the bucket java.time puts it in, over timestamps from before 1970 to 2262 with month
 * ends, leap days and the range's ends, with a second key packed and with one too wide to pack.
 */
class CalendarBucketTest {
    private static final long DAY_NS = 86_400_000_000_000L;
    @TempDir
    static Path dir;
    static Store store;
    static QueryEngine engine;
    static QueryEngine plain;
    static final List<long[]> ROWS = new ArrayList<>();

    @BeforeAll
    static void setUp() {
        store = Store.open(dir);
        final Schema schema = Schema.builder("cal").layout(Layout.COLUMN).segmentRows(64).blockRows(16).timestamp("ts")
            .column("ts", "timestamp").column("k", "i64").column("sym", "symbol").build();
        final SplittableRandom r = new SplittableRandom(2026);
        final List<Long> ts = new ArrayList<>(List.of(Long.MIN_VALUE + 1, Long.MAX_VALUE, 0L, -1L, 1L));
        for (final LocalDate d
            : new LocalDate[] {LocalDate.of(2024, 2, 29), LocalDate.of(2024, 3, 1), LocalDate.of(1969, 12, 31),
            LocalDate.of(1900, 3, 1), LocalDate.of(2000, 2, 29), LocalDate.of(2026, 11, 30),
            LocalDate.of(2026, 12, 1)}) {
            ts.add(d.toEpochDay() * DAY_NS);
            ts.add(d.toEpochDay() * DAY_NS - 1);
        }
        for (int i = 0; i < 400; i++) {
            ts.add(r.nextLong(-3_000_000_000_000_000_000L, 3_000_000_000_000_000_000L));
        }
        final StringBuilder csv = new StringBuilder("ts,k,sym\n");
        for (final long t : ts) {
            // k: a key of a few values (packed with the bucket) or, scaled, too wide a range to pack
            final long k = r.nextInt(3);
            ROWS.add(new long[] {t, k});
            csv.append(t).append(',').append(k == 2 ? (1L << 50) : k).append(',').append(k == 0 ? "A" : "B")
                .append('\n');
        }
        TradeData.loadCsv(store, schema, csv);
        engine = new QueryEngine(store, 2);
        engine.indexes().minSegmentRows(1);
        // every query split between two workers, over morsels of one 16-row block
        plain = new QueryEngine(store, 2);
        plain.useIndexes(false);
        plain.morselRows(16);
        plain.smallQueryRows(0);
    }

    @AfterAll
    static void tearDown() {
        engine.close();
        plain.close();
        store.close();
    }

    /** @return the start of the bucket of {@code months} months holding {@code t}, as java.time reckons it. */
    private static long bucketStart(final long t, final int months) {
        final ZonedDateTime z =
            Instant.ofEpochSecond(Math.floorDiv(t, 1_000_000_000L), Math.floorMod(t, 1_000_000_000L))
            .atZone(ZoneOffset.UTC);
        final long index = (z.getYear() - 1970L) * 12 + z.getMonthValue() - 1;
        final long first = Math.floorDiv(index, months) * months;
        final LocalDate d = LocalDate.of((int) (1970 + Math.floorDiv(first, 12)), Math.floorMod(first, 12) + 1, 1);
        return Math.max(Long.MIN_VALUE + 1,
            d.toEpochDay() < -(Long.MAX_VALUE / DAY_NS) ? Long.MIN_VALUE + 1 : d.toEpochDay() * DAY_NS);
    }

    @Test
    void shouldPutEveryRowInItsCalendarBucket() {
        final String[] buckets = {"P1M", "p3m", "P1Y", "P2Y6M", "P12M"};
        final int[] months = {1, 3, 12, 30, 12};
        for (int b = 0; b < buckets.length; b++) {
            for (final String key : new String[] {"", "\"sym\",", "\"k\","}) {
                final Map<String, Long> expected = new TreeMap<>();
                for (final long[] row : ROWS) {
                    final String k = key.isEmpty() ? "" : key
                        .contains("sym") ? (row[1] == 0 ? "A" : "B") : String.valueOf(row[1] == 2 ? 1L << 50 : row[1]);
                    expected.merge(k + "|" + bucketStart(row[0], months[b]), 1L, Long::sum);
                }
                final String json = "{\"table\":\"cal\",\"groupBy\":[" + key + "{\"bucket\":\"" + buckets[b]
                    + "\",\"col\":\"ts\",\"as\":\"t\"}],"
                    + "\"aggs\":[{\"name\":\"n\",\"op\":\"count\"}],\"options\":{\"epochNanos\":true}}";
                for (final QueryEngine e : new QueryEngine[] {engine, plain}) {
                    final QueryResult r = e.execute(json);
                    final int tc = key.isEmpty() ? 0 : 1;
                    final Map<String, Long> actual = new TreeMap<>();
                    for (int i = 0; i < r.rowCount(); i++) {
                        actual.merge((tc == 0 ? "" : String.valueOf(r.value(i, 0))) + "|" + r.value(i, tc),
                            (Long) r.value(i, tc + 1), Long::sum);
                    }
                    assertThat(actual).as(json).isEqualTo(expected);
                    assertThat(r.columns().get(tc).type()).isEqualTo("timestamp");
                }
            }
        }
    }

    @Test
    void shouldRefuseCalendarBucketsMixedWithDaysOrTime() {
        for (final String bucket : new String[] {"P1M1D", "P1Y2W", "P0M", "P1001Y"}) {
            final String json = "{\"table\":\"cal\",\"groupBy\":[{\"bucket\":\"" + bucket
                + "\",\"col\":\"ts\"}],\"aggs\":[{\"name\":\"n\",\"op\":\"count\"}]}";
            assertThatThrownBy(() -> engine.execute(json)).as(bucket)
                .isInstanceOfSatisfying(QueryException.class, e -> {
                assertThat(e.code()).isEqualTo(ErrorCode.INVALID_QUERY);
                assertThat(e.path()).isEqualTo("/groupBy/0/bucket");
            });
        }
    }
}
