package io.tradestore.query;

import java.nio.file.Path;
import java.util.HashSet;
import java.util.Set;
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
 * countDistinct of values too wide for bitsets goes to a set of (group, value) pairs per worker; the sets grow by
 * doubling while the workers scan, and one worker's pairs merge into the other's group by group. With 300,000 rows
 * on two workers, every group's count, and the count over all rows, must be exact.
 */
@ExtendWith(TestRows.NoLeaks.class)
class CountDistinctPairsTest {
    private static final int GROUPS = 97;

    @TempDir
    Path dir;

    @Test
    void shouldCountExactlyThroughGrowthAndMergeOnTwoWorkers() {
        final Schema schema = Schema.builder("d").layout(Layout.COLUMN).segmentRows(1 << 14).blockRows(1 << 10)
            .timestamp("ts").column("ts", "timestamp").column("g", "i64").column("v", "i64").build();
        final int n = 300_000;
        final SplittableRandom r = new SplittableRandom(91);
        final Set<Long>[] expected = newSets();
        final Set<Long> all = new HashSet<>();
        try (Store store = Store.open(dir)) {
            try (TableWriter w = store.openOrCreate(schema).writer()) {
                for (int i = 0; i < n; i++) {
                    final int g = r.nextInt(GROUPS);
                    // wide values, a fifth of them from a small pool so that pairs repeat within and across groups
                    final long v = r.nextInt(5) == 0 ? r.nextInt(3000) * 1_000_003L : r.nextLong();
                    expected[g].add(v);
                    all.add(v);
                    TestRows.appendLongs(w, 1_795_000_000_000_000_000L + i, g, v);
                }
                w.commit();
            }
            try (QueryEngine engine = new QueryEngine(store, 2)) {
                engine.morselRows(1);
                engine.smallQueryRows(0);
                final QueryResult res = engine.execute("{\"table\":\"d\",\"groupBy\":[\"g\"],\"aggs\":[{\"name\":\"n\","
                    + "\"op\":\"countDistinct\",\"col\":\"v\"}],\"orderBy\":[{\"col\":\"g\"}]}");
                assertThat(res.rowCount()).isEqualTo(GROUPS);
                for (int row = 0; row < GROUPS; row++) {
                    final int g = ((Number) res.value(row, 0)).intValue();
                    assertThat(((Number) res.value(row, 1)).longValue()).as("group %d", g)
                        .isEqualTo(expected[g].size());
                }
                final QueryResult total = engine.execute("{\"table\":\"d\",\"aggs\":[{\"name\":\"n\","
                    + "\"op\":\"countDistinct\",\"col\":\"v\"}]}");
                assertThat(((Number) total.value(0, 0)).longValue()).isEqualTo(all.size());
            }
        }
    }

    @SuppressWarnings({"unchecked", "rawtypes"})
    private static Set<Long>[] newSets() {
        final Set<Long>[] sets = new Set[GROUPS];
        for (int g = 0; g < GROUPS; g++) {
            sets[g] = new HashSet<>();
        }
        return sets;
    }
}
