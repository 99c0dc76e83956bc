package io.tradestore.query.exec.filter;

import java.nio.file.Path;
import java.util.Arrays;
import java.util.SplittableRandom;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.tradestore.core.Store;
import io.tradestore.core.TableWriter;
import io.tradestore.core.TestRows;
import io.tradestore.core.schema.Layout;
import io.tradestore.core.schema.Schema;
import io.tradestore.query.QueryEngine;
import io.tradestore.query.QueryResult;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Narrow ranges on an 8-byte column read through the blocks' imprints
 * ({@link io.tradestore.query.exec.kernel.Imprints}) find the rows a plain comparison finds: blocks of wide,
 * repeated, sorted and null-sprinkled values, sealed segments and the open one, whose blocks gain imprints as commits
 * fill them (an engine that built some before the commit keeps them), alone and beside another conjunct.
 */
class ImprintedRangeTest {
    private static final int BLOCK_ROWS = 1024;

    @TempDir
    Path dir;

    private long[] x = new long[0];
    private long[] i = new long[0];

    @Test
    void shouldFindTheRowsAComparisonFinds() {
        final SplittableRandom r = new SplittableRandom(20_261_130L);
        final Schema schema = Schema.builder("u").layout(Layout.COLUMN).segmentRows(8192).blockRows(BLOCK_ROWS)
            .column("x", "i64").column("i", "i64").build();
        try (Store store = Store.open(dir)) {
            store.createTable(schema);
            append(store, r, 20_000);
            try (QueryEngine engine = new QueryEngine(store, 2)) {
                engine.useIndexes(false);
                check(engine, r);
                append(store, r, 10_500);
                check(engine, r);
            }
        }
    }

    private void append(final Store store, final SplittableRandom r, final int rows) {
        final int from = x.length;
        x = Arrays.copyOf(x, from + rows);
        i = Arrays.copyOf(i, from + rows);
        for (int row = from; row < from + rows; row++) {
            // the kind of values changes from block to block
            x[row] = switch (row / BLOCK_ROWS % 4) {
                case 0 -> r.nextLong(500, 50_000) * 10_000;
                case 1 -> r.nextInt(6) * 1_000_000L;
                case 2 -> row * 3L + r.nextInt(3);
                default -> r.nextInt(20) == 0 ? Long.MIN_VALUE : r.nextLong(-100_000, 100_000);
            };
            i[row] = r.nextInt(1, 1000);
        }
        try (TableWriter w = store.table("u").writer()) {
            for (int row = from; row < from + rows; row++) {
                TestRows.appendLongs(w, x[row], i[row]);
            }
            w.commit();
        }
    }

    private void check(final QueryEngine engine, final SplittableRandom r) {
        for (int q = 0; q < 300; q++) {
            long v = x[r.nextInt(x.length)];
            v = v == Long.MIN_VALUE ? 7 : v;
            final long lo = v - (r.nextBoolean() ? 0 : r.nextInt(3));
            final long hi = v + (r.nextBoolean() ? 0 : r.nextInt(3));
            final int iMax = r.nextBoolean() ? 1000 : r.nextInt(1, 1000);
            long count = 0;
            long sum = 0;
            for (int row = 0; row < x.length; row++) {
                if (x[row] != Long.MIN_VALUE && x[row] >= lo && x[row] <= hi && i[row] <= iMax) {
                    count++;
                    sum += i[row];
                }
            }
            final String query = "{\"table\":\"u\",\"filter\":{\"op\":\"and\",\"args\":["
                + "{\"op\":\"range\",\"col\":\"x\",\"gte\":" + lo + ",\"lte\":" + hi + "},"
                + "{\"op\":\"range\",\"col\":\"i\",\"lte\":" + iMax + "}]},"
                + "\"aggs\":[{\"name\":\"n\",\"op\":\"count\"},{\"name\":\"s\",\"op\":\"sum\",\"col\":\"i\"}]}";
            final QueryResult res = engine.execute(query);
            assertThat(res.value(0, 0)).as(query).isEqualTo(count);
            // the sum of no row is null
            assertThat(res.value(0, 1) == null ? null : ((Number) res.value(0, 1)).longValue()).as(query)
                .isEqualTo(count == 0 ? null : sum);
        }
    }
}
