package io.tradestore.query;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import io.tradestore.core.Store;
import io.tradestore.core.TableWriter;
import io.tradestore.core.TestRows;
import io.tradestore.core.schema.Layout;
import io.tradestore.core.schema.Schema;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Percentiles of integers past the exact limit count values in plain bucket arrays, up to a memory budget per
 * accumulator; the groups past it keep packed histograms with the same buckets. Values spanning 2^61 (their arrays
 * ~440 KiB a group) in 200 groups of ~5,000 values (~2,500 a worker) run two workers out of budget at different groups,
 * and their merge mixes both forms: every answer must be the largest value of the bucket holding the exact nearest-rank
 * value, within 2^-10 of it. Some groups are mostly negative, so both signs' buckets are merged.
 */
@ExtendWith(TestRows.NoLeaks.class)
class PercentileBudgetTest {
    private static final int GROUPS = 200;

    @TempDir
    Path dir;

    @Test
    void shouldAnswerWithinPrecisionWhenGroupsOutgrowTheBucketBudget() {
        final Schema schema = Schema.builder("d").layout(Layout.COLUMN).segmentRows(1 << 14).blockRows(1 << 10)
            .timestamp("ts").column("ts", "timestamp").column("g", "i64").column("v", "i64").build();
        final int n = 1_000_000;
        final SplittableRandom r = new SplittableRandom(24);
        final List<List<Long>> expected = new ArrayList<>();
        for (int g = 0; g < GROUPS; g++) {
            expected.add(new ArrayList<>());
        }
        try (Store store = Store.open(dir)) {
            try (TableWriter w = store.openOrCreate(schema).writer()) {
                for (int i = 0; i < n; i++) {
                    final int g = r.nextInt(GROUPS);
                    final long magnitude = r.nextLong(1L << 61 >>> r.nextInt(60));
                    final long v = g % 3 == 0 && r.nextInt(4) > 0 ? -magnitude : magnitude;
                    expected.get(g).add(v);
                    TestRows.appendLongs(w, 1_795_000_000_000_000_000L + i, g, v);
                }
                w.commit();
            }
            try (QueryEngine engine = new QueryEngine(store, 2)) {
                engine.morselRows(1);
                engine.smallQueryRows(0);
                final QueryResult res = engine.execute("{\"table\":\"d\",\"groupBy\":[\"g\"],\"aggs\":[{\"name\":\"p\","
                    + "\"op\":\"percentile\",\"col\":\"v\",\"p\":37}],\"orderBy\":[{\"col\":\"g\"}]}");
                assertThat(res.rowCount()).isEqualTo(GROUPS);
                for (int row = 0; row < GROUPS; row++) {
                    final int g = ((Number) res.value(row, 0)).intValue();
                    final List<Long> vs = expected.get(g);
                    vs.sort(null);
                    final long exact = vs.get((int) Math.ceil(0.37 * vs.size()) - 1);
                    final double got = (Double) res.value(row, 1);
                    assertThat(Math.abs(got - exact)).as("group %d: %s against %d", g, got, exact)
                        .isLessThanOrEqualTo(Math.abs((double) exact) / 1024 + 1);
                }
            }
        }
    }
}
