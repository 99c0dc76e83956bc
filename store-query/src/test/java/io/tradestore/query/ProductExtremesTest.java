package io.tradestore.query;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.file.Path;
import java.util.SplittableRandom;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.tradestore.core.Store;
import io.tradestore.core.TableWriter;
import io.tradestore.core.TestRows;
import io.tradestore.core.schema.Layout;
import io.tradestore.core.schema.Schema;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * min and max of a product {@code a*b} per group and overall, over segments whose zone maps bound every product
 * below 2^62 (compared as longs) and one whose products reach 2^80 in two groups (compared in 128 bits), with null
 * factors and a group whose products are all null: each equals the extreme of the exact products.
 */
class ProductExtremesTest {
    private static final int ROWS = 60_000;
    private static final int SEGMENT = 16_384;
    private static final int GROUPS = 6;
    private static final long NULL = Long.MIN_VALUE;

    @TempDir
    Path dir;

    @Test
    void shouldFindTheExtremeProductsExactlyWhetherOrNotTheyFitInALong() {
        final SplittableRandom r = new SplittableRandom(20_261_130L);
        final long[] g = new long[ROWS];
        final long[] a = new long[ROWS];
        final long[] b = new long[ROWS];
        final Schema schema = Schema.builder("t").layout(Layout.COLUMN).segmentRows(SEGMENT).blockRows(1024)
            .timestamp("ts")
            .column("ts", "timestamp").column("g", "i64").column("a", "i64").column("b", "i64").build();
        try (Store store = Store.open(dir)) {
            try (TableWriter w = store.createTable(schema).writer()) {
                for (int i = 0; i < ROWS; i++) {
                    final int seg = i / SEGMENT;
                    // segment 1 reaches products near 2^61 (still longs), segment 2 products near 2^80 in groups
                    // 0 and 1 only, so that the other groups' extremes come from segments compared as longs
                    g[i] = r.nextInt(GROUPS);
                    final long bound =
                        seg == 1 && g[i] == 2 ? 1L << 30 : seg == 2 && g[i] < 2 ? 1L << 40 : 1_000_000;
                    a[i] = g[i] == 5 || r.nextInt(40) == 0 ? NULL : r.nextLong(-bound, bound + 1);
                    b[i] = r.nextInt(40) == 0 ? NULL : r.nextLong(-bound, bound + 1);
                    TestRows.appendLongs(w, 1_795_000_000_000_000_000L + i, g[i], a[i], b[i]);
                    if (i == 2 * SEGMENT + 100) {
                        w.commit();
                    }
                }
                w.commit();
            }
            try (QueryEngine engine = new QueryEngine(store, 2)) {
                for (final String where : new String[] {"", "\"filter\":{\"op\":\"ne\",\"col\":\"g\",\"value\":1},"}) {
                    for (final String by : new String[] {"", "\"groupBy\":[\"g\"],\"orderBy\":[{\"col\":\"g\"}],"}) {
                        final QueryResult res = engine.execute("{\"table\":\"t\"," + where + by
                            + "\"aggs\":[{\"name\":\"lo\",\"op\":\"min\",\"col\":\"a*b\"},"
                            + "{\"name\":\"hi\",\"op\":\"max\",\"col\":\"a*b\"}]}");
                        final int off = by.isEmpty() ? 0 : 1;
                        assertThat(res.rowCount()).isEqualTo(by.isEmpty() ? 1 : where.isEmpty() ? GROUPS : GROUPS - 1);
                        for (int row = 0; row < res.rowCount(); row++) {
                            final long key = by.isEmpty() ? -1 : ((Number) res.value(row, 0)).longValue();
                            BigInteger min = null;
                            BigInteger max = null;
                            for (int i = 0; i < ROWS; i++) {
                                final boolean kept = where.isEmpty() || g[i] != 1;
                                if (kept && (key < 0 || g[i] == key) && a[i] != NULL && b[i] != NULL) {
                                    final BigInteger p = BigInteger.valueOf(a[i]).multiply(BigInteger.valueOf(b[i]));
                                    min = min == null || p.compareTo(min) < 0 ? p : min;
                                    max = max == null || p.compareTo(max) > 0 ? p : max;
                                }
                            }
                            final String what = where + by + " group " + key;
                            assertThat(res.value(row, off)).as(what)
                                .isEqualTo(min == null ? null : new BigDecimal(min));
                            assertThat(res.value(row, off + 1)).as(what)
                                .isEqualTo(max == null ? null : new BigDecimal(max));
                        }
                    }
                }
            }
        }
    }
}
