package io.tradestore.query;

import java.math.BigDecimal;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import io.tradestore.core.Store;
import io.tradestore.core.TableSnapshot;
import io.tradestore.core.TableWriter;
import io.tradestore.core.TestRows;
import io.tradestore.core.schema.Layout;
import io.tradestore.core.schema.Schema;
import io.tradestore.query.plan.Binder;
import io.tradestore.query.plan.Plan;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Two integer keys whose packed space (101 x 1,001 codes) is past the small dense limit but within the large one: the
 * plan is bound as a hash plan that turns dense when the executor estimates at least 8 rows a combination, as it does
 * for a scan of all 880,000 rows, and not for a time range of a few thousand. Both answer every group exactly as the
 * rows say.
 */
@ExtendWith(TestRows.NoLeaks.class)
class LargeDenseKeysTest {
    private static final long T0 = 1_795_000_000_000_000_000L;
    private static final int ROWS = 880_000;

    @TempDir
    Path dir;

    @Test
    void shouldAnswerEveryGroupOfALargeKeySpaceExactly() {
        final Schema schema = Schema.builder("k").layout(Layout.COLUMN).segmentRows(1 << 18).blockRows(1 << 14)
            .timestamp("ts").column("ts", "timestamp").column("a", "i64").column("b", "i64").column("v", "i64").build();
        final SplittableRandom r = new SplittableRandom(7);
        final Map<Long, long[]> want = new HashMap<>(); // count, sum, min, max, first, last (rows in time order)
        final Map<Long, Set<Long>> distinct = new HashMap<>();
        try (Store store = Store.open(dir)) {
            try (TableWriter w = store.openOrCreate(schema).writer()) {
                for (int i = 0; i < ROWS; i++) {
                    // keys span 0..99 and 0..999 exactly (the zone maps' ranges); v is sometimes null
                    final long a = i < 100 ? i : r.nextInt(100);
                    final long b = i < 1000 ? i : r.nextInt(1000);
                    final long v = r.nextInt(20) == 0 ? Long.MIN_VALUE : r.nextLong(-1_000_000, 1_000_000);
                    TestRows.appendLongs(w, T0 + i, a, b, v);
                    add(want, distinct, a * 1000 + b, v);
                }
                w.commit();
            }
            final String aggs = "\"groupBy\":[\"a\",\"b\"],\"aggs\":[{\"name\":\"n\",\"op\":\"count\"},"
                + "{\"name\":\"s\",\"op\":\"sum\",\"col\":\"v\"},{\"name\":\"lo\",\"op\":\"min\",\"col\":\"v\"},"
                + "{\"name\":\"hi\",\"op\":\"max\",\"col\":\"v\"},{\"name\":\"f\",\"op\":\"first\",\"col\":\"v\"},"
                + "{\"name\":\"l\",\"op\":\"last\",\"col\":\"v\"},"
                + "{\"name\":\"d\",\"op\":\"countDistinct\",\"col\":\"v\"}],"
                + "\"limit\":200000}";
            final String all = "{\"table\":\"k\"," + aggs;
            try (QueryEngine engine = new QueryEngine(store, 2)) {
                final TableSnapshot snap = engine.snapshot("k");
                final Plan plan = Binder.bind(QueryEngine.parse(all), snap, System.nanoTime());
                assertThat(plan.keyMode).as("bound as a hash plan").isEqualTo(Plan.HASH);
                assertThat(plan.denseFromRows).as("dense from 8 rows a combination").isEqualTo(101L * 1001 * 8);
                engine.smallQueryRows(0);
                check(engine.execute(all), want, distinct, 0, ROWS);
                // a few thousand rows: stays a hash plan, same answers for the groups they reach
                final int from = 300_000;
                final int to = 304_000;
                final Map<Long, long[]> part = new HashMap<>();
                final Map<Long, Set<Long>> partDistinct = new HashMap<>();
                recount(store, from, to, part, partDistinct);
                check(engine.execute("{\"table\":\"k\",\"time\":{\"from\":" + (T0 + from) + ",\"to\":" + (T0 + to)
                    + "}," + aggs), part, partDistinct, from, to);
            }
        }
    }

    /** Recounts rows {@code [from, to)} from a full scan's answer of the engine, row by row. */
    private static void recount(final Store store, final int from, final int to, final Map<Long, long[]> want,
        final Map<Long, Set<Long>> distinct) {
        try (QueryEngine engine = new QueryEngine(store, 1)) {
            final QueryResult rows = engine.execute("{\"table\":\"k\",\"time\":{\"from\":" + (T0 + from) + ",\"to\":"
                + (T0 + to) + "},\"columns\":[\"a\",\"b\",\"v\"],\"orderBy\":[{\"col\":\"ts\"}],\"limit\":10000}");
            assertThat(rows.rowCount()).isEqualTo(to - from);
            for (int i = 0; i < rows.rowCount(); i++) {
                final Long v = (Long) rows.value(i, 2);
                add(want, distinct, (Long) rows.value(i, 0) * 1000 + (Long) rows.value(i, 1),
                    v == null ? Long.MIN_VALUE : v);
            }
        }
    }

    /** Counts a row of group {@code key} (v: Long.MIN_VALUE for null): count, sum, min, max, first, last; distinct. */
    private static void add(final Map<Long, long[]> want, final Map<Long, Set<Long>> distinct, final long key,
        final long v) {
        final long[] g = want.computeIfAbsent(key,
            k -> new long[] {0, 0, Long.MAX_VALUE, Long.MIN_VALUE, Long.MIN_VALUE, Long.MIN_VALUE});
        g[0]++;
        if (v != Long.MIN_VALUE) {
            g[1] += v;
            g[2] = Math.min(g[2], v);
            g[3] = Math.max(g[3], v);
            g[4] = g[4] == Long.MIN_VALUE ? v : g[4];
            g[5] = v;
            distinct.computeIfAbsent(key, k -> new HashSet<>()).add(v);
        }
    }

    private static void check(final QueryResult res, final Map<Long, long[]> want,
        final Map<Long, Set<Long>> distinct, final int from, final int to) {
        assertThat(res.rowCount()).as("groups of rows [%d, %d)", from, to).isEqualTo(want.size());
        for (int i = 0; i < res.rowCount(); i++) {
            final long key = (Long) res.value(i, 0) * 1000 + (Long) res.value(i, 1);
            final long[] g = want.get(key);
            assertThat(g).as("group %d", key).isNotNull();
            final boolean any = g[2] != Long.MAX_VALUE;
            assertThat(res.value(i, 2)).as("count of %d", key).isEqualTo(g[0]);
            assertThat(res.value(i, 3)).as("sum of %d", key).isEqualTo(any ? BigDecimal.valueOf(g[1]) : null);
            assertThat(res.value(i, 4)).as("min of %d", key).isEqualTo(any ? g[2] : null);
            assertThat(res.value(i, 5)).as("max of %d", key).isEqualTo(any ? g[3] : null);
            assertThat(res.value(i, 6)).as("first of %d", key).isEqualTo(any ? g[4] : null);
            assertThat(res.value(i, 7)).as("last of %d", key).isEqualTo(any ? g[5] : null);
            assertThat(res.value(i, 8)).as("distinct of %d", key)
                .isEqualTo((long) distinct.getOrDefault(key, Set.of()).size());
        }
    }
}
