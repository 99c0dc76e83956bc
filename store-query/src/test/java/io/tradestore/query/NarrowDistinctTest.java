package io.tradestore.query;

import java.nio.file.Path;
import java.util.HashSet;
import java.util.Set;
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
 * countDistinct over all rows of columns whose values span at most 64 (one word of bits, a batch skipped once the word
 * holds every value of the range): values just below Long.MAX_VALUE (where null's offset wraps into the range), five
 * values met in the first rows, 64 values, nulls, with and without a filter, on two workers.
 */
class NarrowDistinctTest {
    private static final int ROWS = 50_000;

    @TempDir
    Path dir;

    @Test
    void shouldCountTheValuesOfNarrowRangesExactly() {
        final SplittableRandom r = new SplittableRandom(20_261_130L);
        final long[][] v = new long[4][ROWS];
        final Schema schema = Schema.builder("t").layout(Layout.COLUMN).segmentRows(16_384).blockRows(1024)
            .column("g", "i64").column("top", "i64").column("five", "i64").column("word", "i64").build();
        try (Store store = Store.open(dir)) {
            try (TableWriter w = store.createTable(schema).writer()) {
                for (int i = 0; i < ROWS; i++) {
                    v[0][i] = r.nextInt(3);
                    // value MAX - 37 only in group 2, so that a filter dropping group 2 changes the count
                    v[1][i] = r.nextInt(20) == 0 ? Long.MIN_VALUE
                        : Long.MAX_VALUE - (v[0][i] == 2 && r.nextInt(500) == 0 ? 37 : r.nextInt(30));
                    v[2][i] = r.nextInt(20) == 0 ? Long.MIN_VALUE : 100 + r.nextInt(5);
                    v[3][i] = i > ROWS / 2 && r.nextInt(3) == 0 ? Long.MIN_VALUE
                        : -7 + r.nextInt(i < ROWS / 2 ? 40 : 64);
                    TestRows.appendLongs(w, v[0][i], v[1][i], v[2][i], v[3][i]);
                }
                w.commit();
            }
            try (QueryEngine engine = new QueryEngine(store, 2)) {
                for (final long drop : new long[] {-1, 2}) {
                    final String filter = drop < 0 ? "" : "\"filter\":{\"op\":\"ne\",\"col\":\"g\",\"value\":2},";
                    final QueryResult res = engine.execute("{\"table\":\"t\"," + filter + "\"aggs\":["
                        + "{\"name\":\"a\",\"op\":\"countDistinct\",\"col\":\"top\"},"
                        + "{\"name\":\"b\",\"op\":\"countDistinct\",\"col\":\"five\"},"
                        + "{\"name\":\"c\",\"op\":\"countDistinct\",\"col\":\"word\"}]}");
                    for (int c = 1; c <= 3; c++) {
                        final Set<Long> seen = new HashSet<>();
                        for (int i = 0; i < ROWS; i++) {
                            if (v[0][i] != drop && v[c][i] != Long.MIN_VALUE) {
                                seen.add(v[c][i]);
                            }
                        }
                        assertThat(res.value(0, c - 1)).as("column %d without group %d", c, drop)
                            .isEqualTo((long) seen.size());
                    }
                }
            }
        }
    }
}
