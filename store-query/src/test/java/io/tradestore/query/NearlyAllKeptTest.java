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
 * A filter that drops a few rows of a batch ({@code rare <> x}: none to a handful a batch) leaves the kept rows to be
 * read as dense runs; counts, sums, minima and first and last values by time per group equal a plain evaluation.
 */
class NearlyAllKeptTest {
    private static final int ROWS = 60_000;
    private static final int GROUPS = 7;

    @TempDir
    Path dir;

    @Test
    void shouldAggregateTheKeptRowsOfNearlyFullBatches() {
        final SplittableRandom r = new SplittableRandom(20_261_130L);
        final long[] g = new long[ROWS];
        final long[] v = new long[ROWS];
        final long[] rare = new long[ROWS];
        final Schema schema = Schema.builder("t").layout(Layout.COLUMN).segmentRows(16_384).blockRows(1024)
            .timestamp("ts")
            .column("ts", "timestamp").column("g", "i64").column("v", "i64").column("rare", "i64").build();
        try (Store store = Store.open(dir)) {
            try (TableWriter w = store.createTable(schema).writer()) {
                for (int i = 0; i < ROWS; i++) {
                    g[i] = r.nextInt(GROUPS);
                    v[i] = r.nextLong(-1_000_000, 1_000_000);
                    // value 5 in about one row of 1,500, at the ends of batches too; 6 in runs of two
                    rare[i] = r.nextInt(1500) == 0 || i % 4096 == 0 || i % 4096 == 4095 ? 5
                        : i % 9000 < 2 ? 6 : r.nextInt(100, 200);
                    TestRows.appendLongs(w, 1_795_000_000_000_000_000L + i, g[i], v[i], rare[i]);
                }
                w.commit();
            }
            try (QueryEngine engine = new QueryEngine(store, 2)) {
                engine.useIndexes(false);
                for (final String filter : new String[] {"{\"op\":\"ne\",\"col\":\"rare\",\"value\":5}",
                    "{\"op\":\"not\",\"arg\":{\"op\":\"in\",\"col\":\"rare\",\"values\":[5,6]}}"}) {
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
                            final boolean kept = rare[i] != 5 && (rare[i] != 6 || !filter.contains("[5,6]"));
                            if (kept && g[i] == key) {
                                first = n == 0 ? v[i] : first;
                                last = v[i];
                                n++;
                                sum += v[i];
                                min = Math.min(min, v[i]);
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
    }
}
