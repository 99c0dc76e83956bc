package io.tradestore.query;

import java.nio.file.Path;
import java.util.SplittableRandom;

import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import io.tradestore.core.Store;
import io.tradestore.core.TableWriter;
import io.tradestore.core.TestRows;
import io.tradestore.core.schema.Layout;
import io.tradestore.core.schema.Schema;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Ranges on columns sorted within a block (the timestamp, rising ids, a narrower column) keep a run of rows found by
 * binary search. Blocks where the column is out of order or holds a null, and the last block still being filled, take
 * the per-row filter. Every answer (count, count of a nullable column, sum, first, last, min, max, alone and grouped)
 * equals the one computed row by row, on one and two workers; a range inside sorted blocks reads only the rows it
 * keeps.
 */
@ExtendWith(TestRows.NoLeaks.class)
class SortedRangesTest {
    private static final long T0 = 1_795_000_000_000_000_000L;
    private static final int BLOCK = 1 << 12;
    /** Not a whole number of blocks: the last block is still being filled. */
    private static final int ROWS = 12 * BLOCK + 1_234;
    private static final int KEYS = 5;

    @TempDir
    Path dir;

    private final long[] ts = new long[ROWS];
    private final long[] id = new long[ROWS];
    private final long[] n = new long[ROWS];
    private final long[] k = new long[ROWS];
    private final long[] v = new long[ROWS];

    @ParameterizedTest
    @ValueSource(ints = {1, 2})
    void shouldAnswerRangesOnSortedColumnsAsRowByRow(final int threads) {
        final Schema schema = Schema.builder("s").layout(Layout.COLUMN).segmentRows(1 << 14).blockRows(BLOCK)
            .timestamp("ts").column("ts", "timestamp").column("id", "i64").column("n", "i32").column("k", "i64")
            .column("v", "i64").build();
        fill(new SplittableRandom(threads));
        try (Store store = Store.open(dir)) {
            try (TableWriter w = store.openOrCreate(schema).writer()) {
                for (int i = 0; i < ROWS; i++) {
                    TestRows.appendAtWidths(w, ts[i], id[i], n[i], k[i], v[i]);
                }
                w.commit();
            }
            try (QueryEngine engine = new QueryEngine(store, threads)) {
                engine.smallQueryRows(0);
                final SplittableRandom r = new SplittableRandom(40 + threads);
                for (int q = 0; q < 300; q++) {
                    check(engine, r, q);
                }
                // inside blocks where ts is sorted (the 9th to the 11th): only the kept rows of the end blocks are read
                // (the zone maps prove the range for the block between them, which is counted without reading a row)
                final long lo = ts[8 * BLOCK + 1_000];
                final long hi = ts[10 * BLOCK + 3_000];
                final QueryResult res = engine.execute("{\"table\":\"s\",\"filter\":{\"op\":\"range\",\"col\":\"ts\","
                    + "\"gte\":" + lo + ",\"lt\":" + hi + "},\"aggs\":[{\"name\":\"c\",\"op\":\"count\"}]}");
                assertThat(res.value(0, 0)).isEqualTo(expectedCount(0, lo, hi - 1, Long.MIN_VALUE));
                assertThat(res.stats().rowsScanned()).isEqualTo(res.stats().rowsMatched() - BLOCK);
                // across the block where ts is out of order, every row of it is tested
                final long lo2 = ts[4 * BLOCK + 10];
                final long hi2 = ts[6 * BLOCK + 10];
                final QueryResult res2 = engine.execute("{\"table\":\"s\",\"filter\":{\"op\":\"range\",\"col\":\"ts\","
                    + "\"gte\":" + lo2 + ",\"lt\":" + hi2 + "},\"aggs\":[{\"name\":\"c\",\"op\":\"count\"}]}");
                assertThat(res2.value(0, 0)).isEqualTo(expectedCount(0, lo2, hi2 - 1, Long.MIN_VALUE));
                assertThat(res2.stats().rowsScanned()).isGreaterThanOrEqualTo(BLOCK);
            }
        }
    }

    /**
     * ts rises, with runs of equal values, except in the 6th block (shuffled) and the 7th (a few nulls); id rises
     * but for a null in the 3rd block; n = id / 7 (4 bytes); k a group key; v random with nulls.
     */
    private void fill(final SplittableRandom r) {
        long t = T0;
        long d = 1_000;
        for (int i = 0; i < ROWS; i++) {
            t += r.nextInt(4) == 0 ? 0 : 1 + r.nextInt(1_000);
            d += r.nextInt(3);
            ts[i] = t;
            id[i] = d;
            n[i] = d / 7;
            k[i] = r.nextInt(KEYS);
            v[i] = r.nextInt(10) == 0 ? Long.MIN_VALUE : r.nextLong(1_000_000);
        }
        for (int i = 5 * BLOCK; i < 6 * BLOCK; i++) { // a shuffle within the block's own time span
            final int j = 5 * BLOCK + r.nextInt(BLOCK);
            final long x = ts[i];
            ts[i] = ts[j];
            ts[j] = x;
        }
        for (int i = 0; i < 5; i++) {
            ts[6 * BLOCK + r.nextInt(BLOCK)] = Long.MIN_VALUE;
        }
        id[2 * BLOCK + 77] = Long.MIN_VALUE;
    }

    /** One random range on ts, id or n, now and then with a range on v too, with every aggregate. */
    private void check(final QueryEngine engine, final SplittableRandom r, final int q) {
        final int col = r.nextInt(3);
        final long[] c = col == 0 ? ts : col == 1 ? id : n;
        final String name = col == 0 ? "ts" : col == 1 ? "id" : "n";
        final long a = c[r.nextInt(ROWS)] + r.nextInt(3) - 1;
        final long b = Math.max(a, c[r.nextInt(ROWS)]) + r.nextInt(3) - 1;
        final boolean withV = r.nextInt(4) == 0;
        final long vMin = withV ? 300_000 : Long.MIN_VALUE;
        final String range = "{\"op\":\"range\",\"col\":\"" + name + "\",\"gte\":" + a + ",\"lte\":" + b + "}";
        final String filter = withV ? "{\"op\":\"and\",\"args\":[" + range
            + ",{\"op\":\"range\",\"col\":\"v\",\"gte\":" + vMin + "}]}" : range;
        final boolean grouped = r.nextBoolean();
        final QueryResult res = engine.execute("{\"table\":\"s\",\"filter\":" + filter + ","
            + (grouped ? "\"groupBy\":[\"k\"]," : "")
            + "\"aggs\":[{\"name\":\"c\",\"op\":\"count\"},{\"name\":\"cv\",\"op\":\"count\",\"col\":\"v\"},"
            + "{\"name\":\"s\",\"op\":\"sum\",\"col\":\"v\"},{\"name\":\"f\",\"op\":\"first\",\"col\":\"v\"},"
            + "{\"name\":\"l\",\"op\":\"last\",\"col\":\"v\"},{\"name\":\"mi\",\"op\":\"min\",\"col\":\"id\"},"
            + "{\"name\":\"mx\",\"op\":\"max\",\"col\":\"n\"}]"
            + (grouped ? ",\"orderBy\":[{\"col\":\"k\"}]" : "") + "}");
        final String what = "query " + q + " " + filter + (grouped ? " by k" : "");
        int row = 0;
        for (int g = grouped ? 0 : -1; g < (grouped ? KEYS : 0); g++) {
            final long count = expectedCount(col, a, b, vMin, g);
            if (grouped && count == 0) {
                continue;
            }
            final int o = grouped ? 1 : 0;
            assertThat(res.value(row, o)).as(what + " count, group " + g).isEqualTo(count);
            final Object[] e = expected(col, a, b, vMin, g);
            for (int x = 0; x < e.length; x++) {
                final Object actual = res.value(row, o + 1 + x);
                assertThat(actual == null ? null : ((Number) actual).longValue()).as(what + " output " + (x + 1)
                    + ", group " + g).isEqualTo(e[x]);
            }
            row++;
        }
        assertThat(res.rowCount()).as(what).isEqualTo(row);
    }

    private boolean passes(final int i, final int col, final long a, final long b, final long vMin, final int g) {
        final long x = col == 0 ? ts[i] : col == 1 ? id[i] : n[i];
        return x != Long.MIN_VALUE && x >= a && x <= b && (vMin == Long.MIN_VALUE || v[i] != Long.MIN_VALUE
            && v[i] >= vMin) && (g < 0 || k[i] == g);
    }

    private long expectedCount(final int col, final long a, final long b, final long vMin) {
        return expectedCount(col, a, b, vMin, -1);
    }

    private long expectedCount(final int col, final long a, final long b, final long vMin, final int g) {
        long count = 0;
        for (int i = 0; i < ROWS; i++) {
            count += passes(i, col, a, b, vMin, g) ? 1 : 0;
        }
        return count;
    }

    /** @return count(v), sum(v), first(v), last(v), min(id), max(n) of the passing rows, by definition. */
    private Object[] expected(final int col, final long a, final long b, final long vMin, final int g) {
        long cv = 0;
        long sum = 0;
        int first = -1;
        int last = -1;
        long minId = Long.MAX_VALUE;
        long maxN = Long.MIN_VALUE;
        for (int i = 0; i < ROWS; i++) {
            if (!passes(i, col, a, b, vMin, g)) {
                continue;
            }
            if (id[i] != Long.MIN_VALUE) {
                minId = Math.min(minId, id[i]);
            }
            maxN = Math.max(maxN, n[i]);
            if (v[i] == Long.MIN_VALUE) {
                continue;
            }
            cv++;
            sum += v[i];
            if (ts[i] != Long.MIN_VALUE && (first < 0 || ts[i] < ts[first])) {
                first = i;
            }
            if (ts[i] != Long.MIN_VALUE && (last < 0 || ts[i] >= ts[last])) {
                last = i;
            }
        }
        return new Object[] {cv, cv == 0 ? null : sum, first < 0 ? null : v[first], last < 0 ? null : v[last],
            minId == Long.MAX_VALUE ? null : minId, maxN == Long.MIN_VALUE ? null : maxN};
    }
}
