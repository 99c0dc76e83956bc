package io.tradestore.query;

import java.nio.file.Path;

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
 * min and max over few dense groups keep interleaved lanes that start at Long.MAX_VALUE (min) and Long.MIN_VALUE
 * (null, for max). A group whose only values are Long.MAX_VALUE still has that min, a group of nulls has none, and a
 * column rising row by row (every row a new max) gives its last value.
 */
@ExtendWith(TestRows.NoLeaks.class)
class MinMaxLanesTest {
    @TempDir
    Path dir;

    @Test
    void shouldKeepExtremesNullsAndRisingValuesExact() {
        final Schema schema = Schema.builder("m").layout(Layout.COLUMN).segmentRows(1 << 14).blockRows(1 << 10)
            .timestamp("ts").column("ts", "timestamp").column("g", "i64").column("v", "i64").build();
        final int n = 30_000;
        try (Store store = Store.open(dir)) {
            try (TableWriter w = store.openOrCreate(schema).writer()) {
                for (int i = 0; i < n; i++) {
                    final int g = i % 4;
                    // group 0 rises, group 1 holds only Long.MAX_VALUE, group 2 only nulls, group 3 alternates sign
                    final long v = g == 0 ? 1_000L + i : g == 1 ? Long.MAX_VALUE : g == 2 ? Long.MIN_VALUE
                        : (i % 8 == 3 ? -i : i);
                    TestRows.appendLongs(w, 1_795_000_000_000_000_000L + i, g, v);
                }
                w.commit();
            }
            try (QueryEngine engine = new QueryEngine(store, 2)) {
                engine.smallQueryRows(0);
                final QueryResult res = engine.execute("{\"table\":\"m\",\"groupBy\":[\"g\"],\"aggs\":["
                    + "{\"name\":\"lo\",\"op\":\"min\",\"col\":\"v\"},{\"name\":\"hi\",\"op\":\"max\",\"col\":\"v\"}],"
                    + "\"orderBy\":[{\"col\":\"g\"}]}");
                assertThat(res.rowCount()).isEqualTo(4);
                assertThat(res.value(0, 1)).isEqualTo(1_000L);
                assertThat(res.value(0, 2)).isEqualTo(1_000L + n - 4);
                assertThat(res.value(1, 1)).isEqualTo(Long.MAX_VALUE);
                assertThat(res.value(1, 2)).isEqualTo(Long.MAX_VALUE);
                assertThat(res.value(2, 1)).isNull();
                assertThat(res.value(2, 2)).isNull();
                assertThat(res.value(3, 1)).isEqualTo(-(long) (n - 5));
                assertThat(res.value(3, 2)).isEqualTo((long) (n - 1));
            }
        }
    }
}
