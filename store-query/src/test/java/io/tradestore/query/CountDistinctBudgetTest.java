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
 * countDistinct counts values of a narrow range in a bitset per group, up to a memory budget per accumulator; the
 * groups past it keep Roaring bitmaps. With values spanning just under 2^20 (128 KiB a group) and 400 groups, two
 * workers each run out of budget at different groups, and their merge mixes both forms: every count must still be
 * exact.
 */
@ExtendWith(TestRows.NoLeaks.class)
class CountDistinctBudgetTest {
    private static final int GROUPS = 400;
    private static final long SPAN = (1L << 20) - 2;

    @TempDir
    Path dir;

    @Test
    void shouldCountExactlyWhenGroupsOutgrowTheBitsetBudget() {
        final Schema schema = Schema.builder("d").layout(Layout.COLUMN).segmentRows(1 << 12).blockRows(1 << 8)
            .timestamp("ts").column("ts", "timestamp").column("g", "i64").column("v", "i64").build();
        final int n = 40_000;
        final SplittableRandom r = new SplittableRandom(27);
        final Set<Long>[] expected = newSets();
        try (Store store = Store.open(dir)) {
            try (TableWriter w = store.openOrCreate(schema).writer()) {
                for (int i = 0; i < n; i++) {
                    final int g = r.nextInt(GROUPS);
                    // the range's ends appear, so the zone maps span it; values repeat within a group
                    final long v = i == 0 ? 0 : i == 1 ? SPAN : r.nextInt(4) == 0 ? g : r.nextLong(SPAN + 1);
                    expected[g].add(v);
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
