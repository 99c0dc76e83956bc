package io.tradestore.query;

import java.nio.file.Path;
import java.util.SplittableRandom;
import java.util.function.LongPredicate;

import org.junit.jupiter.api.BeforeAll;
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
 * A filter that drops a few rows of a batch ({@code rare <> x}: none to a handful a batch) leaves the kept rows to be
 * read as dense runs: found by the filter in a selection vector, or, with indexes, read from a sealed segment's index
 * of the rare values (and nulls), so the scan reads the runs between the dropped rows. Counts, sums, minima, maxima
 * and first and last values by time, per group and overall, equal a plain evaluation, with the dropped rows at batch
 * and block ends, in runs, and beside other conjuncts.
 */
class NearlyAllKeptTest {
    private static final int ROWS = 70_000;
    private static final int GROUPS = 5;
    private static final long NULL = Long.MIN_VALUE;

    @TempDir
    static Path dir;

    private static final long[] G = new long[ROWS];
    private static final long[] V = new long[ROWS];
    private static final long[] RARE = new long[ROWS];

    @BeforeAll
    static void write() {
        final SplittableRandom r = new SplittableRandom(20_261_130L);
        final Schema schema = Schema.builder("t").layout(Layout.COLUMN).segmentRows(16_384).blockRows(1024)
            .timestamp("ts")
            .column("ts", "timestamp").column("g", "i64").column("v", "i64").column("rare", "i64").build();
        try (Store store = Store.open(dir); TableWriter w = store.createTable(schema).writer()) {
            for (int i = 0; i < ROWS; i++) {
                G[i] = r.nextInt(GROUPS);
                V[i] = r.nextLong(-1_000_000, 1_000_000);
                // 5 in about one row of 1,500 and at every batch's and block's ends; 6 in runs of three; nulls
                RARE[i] = r.nextInt(1500) == 0 || i % 1024 == 0 || i % 4096 == 4095 ? 5
                    : i % 9000 < 3 ? 6 : r.nextInt(2000) == 0 ? NULL : r.nextInt(100, 200);
                // the rows 5 drops hold the extremes, which a zone map of a block holding one of them would give
                V[i] = RARE[i] == 5 ? (r.nextBoolean() ? 5_000_000 + i : -5_000_000 - i) : V[i];
                TestRows.appendLongs(w, 1_795_000_000_000_000_000L + i, G[i], V[i], RARE[i]);
            }
            w.commit();
        }
    }

    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void shouldAggregateTheKeptRowsOfNearlyFullBatches(final boolean indexes) {
        check(indexes, "{\"op\":\"ne\",\"col\":\"rare\",\"value\":5}", x -> x != 5, false);
        check(indexes, "{\"op\":\"not\",\"arg\":{\"op\":\"in\",\"col\":\"rare\",\"values\":[5,6]}}",
            x -> x != 5 && x != 6, false);
        check(indexes, "{\"op\":\"ne\",\"col\":\"rare\",\"value\":7}", x -> true, false);
        // two conjuncts on two columns: one answered by dropped rows, the other filtered per row
        check(indexes, "{\"op\":\"and\",\"args\":[{\"op\":\"ne\",\"col\":\"rare\",\"value\":6},"
            + "{\"op\":\"range\",\"col\":\"v\",\"gte\":-500000}]}", x -> x != 6, true);
    }

    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void shouldAggregateOverallWhereBlocksHoldDroppedRows(final boolean indexes) {
        try (Store store = Store.open(dir); QueryEngine engine = new QueryEngine(store, 2)) {
            engine.useIndexes(indexes);
            engine.indexes().minSegmentRows(1);
            final QueryResult res = engine.execute("{\"table\":\"t\",\"filter\":{\"op\":\"ne\",\"col\":\"rare\","
                + "\"value\":5},\"aggs\":[{\"name\":\"n\",\"op\":\"count\"},{\"name\":\"lo\",\"op\":\"min\","
                + "\"col\":\"v\"},{\"name\":\"hi\",\"op\":\"max\",\"col\":\"v\"},"
                + "{\"name\":\"s\",\"op\":\"sum\",\"col\":\"v\"}]}");
            long n = 0;
            long lo = Long.MAX_VALUE;
            long hi = Long.MIN_VALUE;
            long sum = 0;
            for (int i = 0; i < ROWS; i++) {
                if (RARE[i] != NULL && RARE[i] != 5) {
                    n++;
                    lo = Math.min(lo, V[i]);
                    hi = Math.max(hi, V[i]);
                    sum += V[i];
                }
            }
            assertThat(res.value(0, 0)).isEqualTo(n);
            assertThat(((Number) res.value(0, 1)).longValue()).isEqualTo(lo);
            assertThat(((Number) res.value(0, 2)).longValue()).isEqualTo(hi);
            assertThat(((Number) res.value(0, 3)).longValue()).isEqualTo(sum);
        }
    }

    private static void check(final boolean indexes, final String filter, final LongPredicate keep,
                              final boolean halfV) {
        try (Store store = Store.open(dir); QueryEngine engine = new QueryEngine(store, 2)) {
            engine.useIndexes(indexes);
            engine.indexes().minSegmentRows(1);
            final QueryResult res = engine.execute("{\"table\":\"t\",\"filter\":" + filter
                + ",\"groupBy\":[\"g\"],\"aggs\":[{\"name\":\"n\",\"op\":\"count\"},"
                + "{\"name\":\"s\",\"op\":\"sum\",\"col\":\"v\"},{\"name\":\"m\",\"op\":\"min\",\"col\":\"v\"},"
                + "{\"name\":\"f\",\"op\":\"first\",\"col\":\"v\"},"
                + "{\"name\":\"l\",\"op\":\"last\",\"col\":\"v\"}],"
                + "\"orderBy\":[{\"col\":\"g\"}]}");
            assertThat(res.rowCount()).isEqualTo(GROUPS);
            for (int row = 0; row < GROUPS; row++) {
                final long key = ((Number) res.value(row, 0)).longValue();
                long n = 0;
                long sum = 0;
                long min = Long.MAX_VALUE;
                long first = 0;
                long last = 0;
                for (int i = 0; i < ROWS; i++) {
                    if (RARE[i] != NULL && keep.test(RARE[i]) && (!halfV || V[i] >= -500_000) && G[i] == key) {
                        first = n == 0 ? V[i] : first;
                        last = V[i];
                        n++;
                        sum += V[i];
                        min = Math.min(min, V[i]);
                    }
                }
                assertThat(res.value(row, 1)).as("%s group %d", filter, key).isEqualTo(n);
                assertThat(((Number) res.value(row, 2)).longValue()).isEqualTo(sum);
                assertThat(((Number) res.value(row, 3)).longValue()).isEqualTo(min);
                assertThat(((Number) res.value(row, 4)).longValue()).isEqualTo(first);
                assertThat(((Number) res.value(row, 5)).longValue()).isEqualTo(last);
            }
        }
    }
}
