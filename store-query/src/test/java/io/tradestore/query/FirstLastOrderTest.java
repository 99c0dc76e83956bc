package io.tradestore.query;

import java.math.BigDecimal;
import java.nio.file.Path;
import java.util.SplittableRandom;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import io.tradestore.core.Store;
import io.tradestore.core.TableWriter;
import io.tradestore.core.TestRows;
import io.tradestore.core.schema.Layout;
import io.tradestore.core.schema.Schema;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * first and last over rows mostly in time order, which take a path that compares no row with its group's best: long
 * runs of one timestamp across batch boundaries (ties go to the lowest row for first, the highest for last), null
 * values, and stretches with null timestamps and rows out of order, which the general path takes (and after which
 * the ordered path must again start only after every timestamp seen). Every group's answer equals
 * the definition's, computed row by row, on one and two workers, with and without a filter.
 */
@ExtendWith(TestRows.NoLeaks.class)
class FirstLastOrderTest {
    private static final long T0 = 1_795_000_000_000_000_000L;
    private static final int ROWS = 60_000;
    private static final int GROUPS = 37;
    /** Before every row placed later than the others. */
    private static final long CUT = T0 + 50_000_000;

    @TempDir
    Path dir;

    @ParameterizedTest
    @ValueSource(ints = {1, 2})
    void shouldAnswerFirstAndLastByTheDefinition(final int threads) {
        final Schema schema = Schema.builder("f").layout(Layout.COLUMN).segmentRows(1 << 15).blockRows(1 << 12)
            .timestamp("ts").column("ts", "timestamp").column("g", "i64").column("v", "i64").build();
        final SplittableRandom r = new SplittableRandom(threads);
        final long[] ts = new long[ROWS];
        final long[] g = new long[ROWS];
        final long[] v = new long[ROWS];
        long t = T0;
        for (int i = 0; i < ROWS; i++) {
            // runs of one timestamp up to thousands of rows (across batches); rows out of order and null timestamps
            // only in two stretches, so that most batches are in order
            if (r.nextInt(3_000) == 0) {
                t += 1 + r.nextInt(1_000);
            } else if (r.nextInt(50) == 0) {
                t += 1;
            }
            final boolean disorder = i >= 20_000 && i < 23_000 || i >= 41_000 && i < 41_100;
            // the first 5,000 rows are in order but later than all the others, as are some rows of the stretches:
            // batches in order after them must not be taken for later than them
            ts[i] = i < 5_000 ? t + 100_000_000 + i : disorder && r.nextInt(20) == 0 ? Long.MIN_VALUE
                : disorder && r.nextInt(50) == 0 ? t + 60_000_000 + r.nextInt(40_000_000)
                : disorder && r.nextInt(5) == 0 ? t - 1 - r.nextInt(5_000) : t;
            g[i] = r.nextInt(GROUPS);
            v[i] = r.nextInt(10) == 0 ? Long.MIN_VALUE : r.nextLong(1_000_000);
        }
        try (Store store = Store.open(dir)) {
            try (TableWriter w = store.openOrCreate(schema).writer()) {
                for (int i = 0; i < ROWS; i++) {
                    TestRows.appendLongs(w, ts[i], g[i], v[i]);
                }
                w.commit();
            }
            try (QueryEngine engine = new QueryEngine(store, threads)) {
                engine.smallQueryRows(0);
                for (final boolean filtered : new boolean[] {false, true}) {
                    // the filter leaves out the later rows, so that most batches take the ordered path
                    final String filter = !filtered ? "" : "\"filter\":{\"op\":\"and\",\"args\":["
                        + "{\"op\":\"range\",\"col\":\"v\",\"lt\":700000},"
                        + "{\"op\":\"range\",\"col\":\"ts\",\"lt\":" + CUT + "}]},";
                    final QueryResult res = engine.execute("{\"table\":\"f\"," + filter + "\"groupBy\":[\"g\"],"
                        + "\"aggs\":[{\"name\":\"a\",\"op\":\"first\",\"col\":\"v\"},"
                        + "{\"name\":\"z\",\"op\":\"last\",\"col\":\"v\"}],\"orderBy\":[{\"col\":\"g\"}]}");
                    assertThat(res.rowCount()).isEqualTo(GROUPS);
                    for (int k = 0; k < GROUPS; k++) {
                        assertThat(res.value(k, 0)).isEqualTo((long) k);
                        assertThat(res.value(k, 1)).as("first of %d, filtered %s", k, filtered)
                            .isEqualTo(pick(ts, g, v, k, false, filtered));
                        assertThat(res.value(k, 2)).as("last of %d, filtered %s", k, filtered)
                            .isEqualTo(pick(ts, g, v, k, true, filtered));
                    }
                }
            }
        }
    }

    /**
     * last over rows in time order reads a group's timestamp and values from the segment once, when the segment ends:
     * columns of every width (widened signed, as a batch gathers them) and a product's two factors, over segments a
     * worker visits in turn, with a filter and without.
     */
    @ParameterizedTest
    @ValueSource(ints = {1, 2})
    void shouldTakeLastRowsOfEveryWidthFromTheSegment(final int threads) {
        final Schema schema = Schema.builder("w").layout(Layout.COLUMN).segmentRows(1 << 14).blockRows(1 << 12)
            .timestamp("ts").column("ts", "timestamp").column("g", "i64").column("b", "i8").column("s", "i16")
            .column("i", "i32").column("q", "decimal(2)").build();
        final int rows = 70_000;
        final SplittableRandom r = new SplittableRandom(threads * 31L);
        final long[][] v = new long[schema.columnCount()][rows];
        for (int k = 0; k < rows; k++) {
            v[0][k] = T0 + k / 3; // ties of three rows: last takes the highest
            // some groups end in the first segments: their rows are read from them after later ones were scanned
            v[1][k] = r.nextInt(k < 20_000 ? GROUPS : GROUPS - 7);
            v[2][k] = r.nextInt(9) == 0 ? Byte.MIN_VALUE : r.nextInt(-127, 128);
            v[3][k] = r.nextInt(9) == 0 ? Short.MIN_VALUE : r.nextInt(-32_767, 32_768);
            v[4][k] = r.nextInt(9) == 0 ? Integer.MIN_VALUE : r.nextInt(Integer.MIN_VALUE + 1, Integer.MAX_VALUE);
            v[5][k] = r.nextInt(9) == 0 ? Long.MIN_VALUE : r.nextLong(-1_000_000_000L, 1_000_000_000L);
        }
        final long[] nulls = {0, 0, Byte.MIN_VALUE, Short.MIN_VALUE, Integer.MIN_VALUE, Long.MIN_VALUE};
        try (Store store = Store.open(dir)) {
            try (TableWriter w = store.openOrCreate(schema).writer()) {
                for (int k = 0; k < rows; k++) {
                    TestRows.appendAtWidths(w, v[0][k], v[1][k], v[2][k], v[3][k], v[4][k], v[5][k]);
                }
                w.commit();
            }
            try (QueryEngine engine = new QueryEngine(store, threads)) {
                engine.smallQueryRows(0);
                for (final boolean filtered : new boolean[] {false, true}) {
                    final String filter = filtered ? "\"filter\":{\"op\":\"range\",\"col\":\"s\",\"gte\":0}," : "";
                    final QueryResult res = engine.execute("{\"table\":\"w\"," + filter + "\"groupBy\":[\"g\"],"
                        + "\"aggs\":[{\"name\":\"b\",\"op\":\"last\",\"col\":\"b\"},"
                        + "{\"name\":\"s\",\"op\":\"last\",\"col\":\"s\"},"
                        + "{\"name\":\"i\",\"op\":\"last\",\"col\":\"i\"},"
                        + "{\"name\":\"p\",\"op\":\"last\",\"col\":\"q*i\"}],\"orderBy\":[{\"col\":\"g\"}]}");
                    assertThat(res.rowCount()).isEqualTo(GROUPS);
                    for (int k = 0; k < GROUPS; k++) {
                        for (int c = 2; c <= 4; c++) {
                            int best = -1;
                            for (int row = 0; row < rows; row++) {
                                if (v[1][row] == k && v[c][row] != nulls[c] && (!filtered || v[3][row] >= 0)) {
                                    best = row;
                                }
                            }
                            assertThat(((Number) res.value(k, c - 1)).longValue()).as("last %s of %d, filtered %s",
                                schema.column(c).name(), k, filtered).isEqualTo(v[c][best]);
                        }
                        int best = -1;
                        for (int row = 0; row < rows; row++) {
                            if (v[1][row] == k && v[4][row] != nulls[4] && v[5][row] != nulls[5]
                                && (!filtered || v[3][row] >= 0)) {
                                best = row;
                            }
                        }
                        assertThat((BigDecimal) res.value(k, 4)).as("last product of %d", k).isEqualByComparingTo(
                            BigDecimal.valueOf(v[5][best], 2).multiply(BigDecimal.valueOf(v[4][best])));
                    }
                }
            }
        }
    }

    /** first/last by definition: the smallest/largest timestamp, ties by lowest/highest row, nulls skipped. */
    private static Long pick(final long[] ts, final long[] g, final long[] v, final int group, final boolean last,
        final boolean filtered) {
        int best = -1;
        for (int i = 0; i < ts.length; i++) {
            if (g[i] != group || ts[i] == Long.MIN_VALUE || v[i] == Long.MIN_VALUE
                || filtered && (v[i] >= 700_000 || ts[i] >= CUT)) {
                continue;
            }
            if (best < 0 || (last ? ts[i] >= ts[best] : ts[i] < ts[best])) {
                best = i;
            }
        }
        return best < 0 ? null : v[best];
    }
}
