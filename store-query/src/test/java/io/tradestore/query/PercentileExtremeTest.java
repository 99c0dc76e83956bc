package io.tradestore.query;

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
 * Percentiles 0 and 100 (the nearest rank's first and last value) of integers holding Long.MAX_VALUE, decimals, f64
 * values and a product, with nulls, a group with none and one whose integers are all Long.MAX_VALUE, per group and
 * overall, beside a median of the same column: each equals the value a sort of the group's non-null values puts at
 * rank 1 or n.
 */
class PercentileExtremeTest {
    private static final int ROWS = 40_000;
    private static final int GROUPS = 6;
    private static final long NULL = Long.MIN_VALUE;

    @TempDir
    Path dir;

    @Test
    void shouldAnswerRankOneAndRankNOfEachGroup() {
        final SplittableRandom r = new SplittableRandom(20_261_130L);
        final long[] g = new long[ROWS];
        final long[][] v = new long[3][ROWS];
        final Schema schema = Schema.builder("t").layout(Layout.COLUMN).segmentRows(16_384).blockRows(1024)
            .timestamp("ts").column("ts", "timestamp").column("g", "i64").column("i", "i64")
            .column("px", "decimal(2)").column("d", "f64").build();
        try (Store store = Store.open(dir)) {
            try (TableWriter w = store.createTable(schema).writer()) {
                for (int k = 0; k < ROWS; k++) {
                    g[k] = r.nextInt(1000) == 0 ? 5 : r.nextInt(5); // group 5: i only Long.MAX_VALUE
                    final boolean none = g[k] == 4;
                    v[0][k] = none || r.nextInt(30) == 0 ? NULL
                        : g[k] == 5 || r.nextInt(5000) == 0 ? Long.MAX_VALUE : r.nextLong(-1L << 50, 1L << 50);
                    v[1][k] = none || r.nextInt(30) == 0 ? NULL : r.nextLong(-1_000_000, 1_000_000);
                    final double d = r.nextInt(1000) == 0 ? -0.0 : r.nextInt(2000) == 0 ? Double.NEGATIVE_INFINITY
                        : (r.nextDouble() - 0.5) * 1e6;
                    v[2][k] = Double.doubleToRawLongBits(none || r.nextInt(30) == 0 ? Double.NaN : d);
                    TestRows.appendLongs(w, 1_795_000_000_000_000_000L + k, g[k], v[0][k], v[1][k], v[2][k]);
                }
                w.commit();
            }
            try (QueryEngine engine = new QueryEngine(store, 2)) {
                final String[] cols = {"i", "px", "d", "px*i"};
                for (final String by : new String[] {"", "\"groupBy\":[\"g\"],\"orderBy\":[{\"col\":\"g\"}],"}) {
                    final StringBuilder aggs = new StringBuilder();
                    for (final String c : cols) {
                        for (final double p : new double[] {0, 50, 100}) {
                            aggs.append(aggs.length() == 0 ? "" : ",").append("{\"name\":\"").append(c.replace("*", ""))
                                .append((int) p).append("\",\"op\":\"percentile\",\"col\":\"").append(c)
                                .append("\",\"p\":").append(p).append('}');
                        }
                    }
                    final QueryResult res = engine.execute("{\"table\":\"t\"," + by + "\"aggs\":[" + aggs + "]}");
                    final int off = by.isEmpty() ? 0 : 1;
                    assertThat(res.rowCount()).isEqualTo(by.isEmpty() ? 1 : GROUPS);
                    for (int row = 0; row < res.rowCount(); row++) {
                        final long key = by.isEmpty() ? -1 : ((Number) res.value(row, 0)).longValue();
                        for (int c = 0; c < cols.length; c++) {
                            final double[] sorted = values(g, v, key, c);
                            for (int j = 0; j < 3; j++) {
                                final Object got = res.value(row, off + 3 * c + j);
                                final String what = cols[c] + " p" + 50 * j + " group " + key;
                                if (sorted.length == 0) {
                                    assertThat(got).as(what).isNull();
                                    continue;
                                }
                                final double want = sorted[j == 0 ? 0 : j == 2 ? sorted.length - 1
                                    : (int) Math.ceil(0.5 * sorted.length) - 1];
                                if (j == 1) { // the median may come from buckets: within the stated error
                                    assertThat((Double) got).as(what)
                                        .isCloseTo(want, org.assertj.core.data.Offset.offset(Math.abs(want) * 1e-3));
                                } else {
                                    assertThat((Double) got).as(what).isEqualTo(want);
                                }
                            }
                        }
                    }
                }
            }
        }
    }

    /** @return the group's non-null values of operand c (0: i, 1: px, 2: d, 3: px*i), sorted, typed as answered. */
    private static double[] values(final long[] g, final long[][] v, final long key, final int c) {
        return java.util.stream.IntStream.range(0, ROWS).filter(k -> key < 0 || g[k] == key)
            .mapToObj(k -> switch (c) {
                case 0 -> v[0][k] == NULL ? null : (double) v[0][k];
                case 1 -> v[1][k] == NULL ? null : v[1][k] * 0.01; // as the engine scales: times 10^-scale
                case 2 -> Double.isNaN(Double.longBitsToDouble(v[2][k])) ? null
                    : Double.longBitsToDouble(v[2][k]) == 0.0 ? 0.0 : Double.longBitsToDouble(v[2][k]);
                default -> v[0][k] == NULL || v[1][k] == NULL ? null : v[1][k] * 0.01 * v[0][k];
            })
            .filter(x -> x != null).mapToDouble(Double::doubleValue).sorted().toArray();
    }
}
