package io.tradestore.query;

import java.nio.file.Path;
import java.util.SplittableRandom;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import io.tradestore.core.Store;
import io.tradestore.core.TableWriter;
import io.tradestore.core.TestRows;
import io.tradestore.core.memory.NativeMemory;
import io.tradestore.core.schema.Layout;
import io.tradestore.core.schema.Schema;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Same data, same query, same answer, to the bit, when the query is split between workers: a sum of f64 values rounds
 * at every addition, so it depends on which rows each worker adds and in what order. Workers used to claim the next
 * free morsel, and which worker got which varied from run to run.
 */
@ExtendWith(TestRows.NoLeaks.class)
class ParallelDeterminismTest {
    @TempDir
    Path dir;

    @Test
    void shouldGiveTheSameF64SumsOnEveryRunOfASplitQuery() {
        final Schema schema = Schema.builder("floats").layout(Layout.COLUMN).segmentRows(1 << 12).blockRows(1 << 8)
            .timestamp("ts")
            .column("ts", "timestamp").column("k", "i8").column("x", "f64").column("q", "decimal(2)").build();
        final SplittableRandom random = new SplittableRandom(13);
        try (Store store = Store.open(dir)) {
            try (TableWriter w = store.openOrCreate(schema).writer()) {
                for (int r = 0; r < 40_000; r++) {
                    final long at = w.appendRow();
                    final int seg = (int) (at >>> schema.segmentShift());
                    final long in = at & (schema.segmentRows() - 1);
                    NativeMemory.putLong(w.columnAddress(seg, 0) + in * w.columnStride(0),
                        1_795_000_000_000_000_000L + r);
                    NativeMemory.putByte(w.columnAddress(seg, 1) + in * w.columnStride(1), (byte) random.nextInt(3));
                    // magnitudes from 1e-6 to 1e12, either sign: every addition rounds, and differently in another
                    // order
                    final double x = (random.nextBoolean() ? 1 : -1) * random
                        .nextDouble() * Math.pow(10, random.nextInt(-6, 13));
                    NativeMemory.putDouble(w.columnAddress(seg, 2) + in * w.columnStride(2), x);
                    NativeMemory.putLong(w.columnAddress(seg, 3) + in * w.columnStride(3),
                        random.nextLong(1, 1_000_000));
                }
                w.commit();
            }
            final String[] queries = {
                "{\"table\":\"floats\",\"aggs\":[{\"name\":\"s\",\"op\":\"sum\",\"col\":\"x\"},{\"name\":\"a\",\"op\":"
                    + "\"avg\",\"col\":\"x\"}]}",
                "{\"table\":\"floats\",\"groupBy\":[\"k\"],\"aggs\":[{\"name\":\"s\",\"op\":\"sum\",\"col\":\"x\"},"
                    + "{\"name\":\"xq\",\"op\":\"sum\",\"col\":\"x*q\"}],\"orderBy\":[{\"col\":\"k\"}]}",
            };
            try (QueryEngine engine = new QueryEngine(store, 2)) {
                engine.morselRows(1);
                engine.smallQueryRows(0);
                for (final String q : queries) {
                    final String first = render(engine.execute(q));
                    for (int run = 1; run < 40; run++) {
                        assertThat(render(engine.execute(q))).as("run %d of %s", run, q).isEqualTo(first);
                    }
                }
            }
        }
    }

    /** @return every cell, doubles by their bits. */
    private static String render(final QueryResult r) {
        final StringBuilder b = new StringBuilder();
        for (int i = 0; i < r.rowCount(); i++) {
            for (int c = 0; c < r.columns().size(); c++) {
                final Object v = r.value(i, c);
                b.append(v instanceof Double ? Long.toHexString(Double.doubleToRawLongBits((Double) v))
                    : String.valueOf(v)).append(' ');
            }
            b.append('\n');
        }
        return b.toString();
    }
}
