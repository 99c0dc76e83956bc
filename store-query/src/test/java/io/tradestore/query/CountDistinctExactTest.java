package io.tradestore.query;

import java.nio.file.Path;
import java.util.HashSet;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.function.IntUnaryOperator;

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
 * countDistinct stays exact on two workers whichever form holds a group's values: a bitset per group for values of a
 * narrow range, up to a memory budget per accumulator, and one hash set of (group, value) pairs for the groups past it
 * and for values too wide for bitsets, merged from the other worker at once (dense keys, as here: the same group ids on
 * both sides).
 */
@ExtendWith(TestRows.NoLeaks.class)
class CountDistinctExactTest {
    private static final long SPAN = (1L << 20) - 2;

    @TempDir
    Path dir;

    /**
     * Values spanning just under 2^20 (128 KiB a group) and 400 groups: the two workers each run out of budget at
     * different groups, and their merge mixes bitsets and pairs.
     */
    @Test
    void shouldCountExactlyWhenGroupsOutgrowTheBitsetBudget() {
        final SplittableRandom r = new SplittableRandom(27);
        final int groups = 400;
        // the range's ends appear, so the zone maps span it; values repeat within a group
        check(1 << 12, 1 << 8, 40_000, groups, i -> r.nextInt(groups),
            (i, g) -> i == 0 ? 0 : i == 1 ? SPAN : r.nextInt(4) == 0 ? g : r.nextLong(SPAN + 1));
    }

    /** 300,000 wide values: both workers' pair sets grow through many doublings before one merges the other. */
    @Test
    void shouldCountExactlyThroughGrowthAndMergeOnTwoWorkers() {
        final SplittableRandom r = new SplittableRandom(91);
        final int groups = 97;
        // a fifth from a small pool, so that pairs repeat within and across groups
        final Set<Long> all = check(1 << 14, 1 << 10, 300_000, groups, i -> r.nextInt(groups),
            (i, g) -> r.nextInt(5) == 0 ? r.nextInt(3000) * 1_000_003L : r.nextLong());
        try (Store store = Store.open(dir); QueryEngine engine = engine(store)) {
            final QueryResult total = engine.execute("{\"table\":\"d\",\"aggs\":[{\"name\":\"n\","
                + "\"op\":\"countDistinct\",\"col\":\"v\"}]}");
            assertThat(((Number) total.value(0, 0)).longValue()).isEqualTo(all.size());
        }
    }

    /** A value of row {@code i} in group {@code g}. */
    @FunctionalInterface
    private interface Values {
        long of(int i, long g);
    }

    /**
     * Writes {@code n} rows of (group, value), checks every group's countDistinct against sets of the values.
     *
     * @return every value written.
     */
    private Set<Long> check(final int segmentRows, final int blockRows, final int n, final int groups,
        final IntUnaryOperator group, final Values values) {
        final Schema schema = Schema.builder("d").layout(Layout.COLUMN).segmentRows(segmentRows).blockRows(blockRows)
            .timestamp("ts").column("ts", "timestamp").column("g", "i64").column("v", "i64").build();
        final Set<Long>[] expected = newSets(groups);
        final Set<Long> all = new HashSet<>();
        try (Store store = Store.open(dir)) {
            try (TableWriter w = store.openOrCreate(schema).writer()) {
                for (int i = 0; i < n; i++) {
                    final int g = group.applyAsInt(i);
                    final long v = values.of(i, g);
                    expected[g].add(v);
                    all.add(v);
                    TestRows.appendLongs(w, 1_795_000_000_000_000_000L + i, g, v);
                }
                w.commit();
            }
            try (QueryEngine engine = engine(store)) {
                final QueryResult res = engine.execute("{\"table\":\"d\",\"groupBy\":[\"g\"],\"aggs\":[{\"name\":\"n\","
                    + "\"op\":\"countDistinct\",\"col\":\"v\"}],\"orderBy\":[{\"col\":\"g\"}]}");
                assertThat(res.rowCount()).isEqualTo(groups);
                for (int row = 0; row < groups; row++) {
                    final int g = ((Number) res.value(row, 0)).intValue();
                    assertThat(((Number) res.value(row, 1)).longValue()).as("group %d", g)
                        .isEqualTo(expected[g].size());
                }
            }
        }
        return all;
    }

    /** @return two workers that split every query, a morsel of one block each. */
    private static QueryEngine engine(final Store store) {
        final QueryEngine engine = new QueryEngine(store, 2);
        engine.morselRows(1);
        engine.smallQueryRows(0);
        return engine;
    }

    @SuppressWarnings({"unchecked", "rawtypes"})
    private static Set<Long>[] newSets(final int groups) {
        final Set<Long>[] sets = new Set[groups];
        for (int g = 0; g < groups; g++) {
            sets[g] = new HashSet<>();
        }
        return sets;
    }
}
