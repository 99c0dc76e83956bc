package io.tradestore.query;

import java.nio.file.Path;
import java.util.Arrays;
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
import static org.assertj.core.api.Assertions.within;

/**
 * Percentiles of f64 values and products spanning far more than 2^53 between a group's smallest and largest value
 * (HdrHistogram's DoubleHistogram refused those with an internal error: price*price from 10^-12 to 10^6):
 * past the exact limit each answer is within the stated relative error of the exact nearest-rank value.
 */
@ExtendWith(TestRows.NoLeaks.class)
class WideRangePercentileTest {
    @TempDir
    Path dir;

    @Test
    void shouldAnswerPercentilesOfValuesSpanningThirtyDecades() {
        final Schema schema = Schema.builder("wide").layout(Layout.ROW).segmentRows(1 << 10).blockRows(1 << 8)
            .timestamp("ts")
            .column("ts", "timestamp").column("x", "f64").column("p", "decimal(6)").build();
        final int n = 5_000;
        final double[] x = new double[n];
        final double[] pp = new double[n];
        final SplittableRandom r = new SplittableRandom(30);
        try (Store store = Store.open(dir)) {
            try (TableWriter w = store.openOrCreate(schema).writer()) {
                for (int i = 0; i < n; i++) {
                    final long at = w.appendRow();
                    final int seg = (int) (at >>> schema.segmentShift());
                    final long in = at & (schema.segmentRows() - 1);
                    x[i] = (r.nextInt(4) == 0 ? -1 : 1) * r.nextDouble(1, 10) * Math.pow(10, r.nextInt(-15, 15));
                    // 10^-6 or ~10^3
                    final long p = r.nextInt(2) == 0 ? 1 + r.nextInt(9) : 1_000_000_000L + r.nextInt(1_000_000);
                    pp[i] = (p / 1e6) * (p / 1e6);
                    NativeMemory.putLong(w.columnAddress(seg, 0) + in * w.columnStride(0),
                        1_795_000_000_000_000_000L + i);
                    NativeMemory.putDouble(w.columnAddress(seg, 1) + in * w.columnStride(1), x[i]);
                    NativeMemory.putLong(w.columnAddress(seg, 2) + in * w.columnStride(2), p);
                }
                w.commit();
            }
            Arrays.sort(x);
            Arrays.sort(pp);
            try (QueryEngine engine = new QueryEngine(store, 2)) {
                engine.morselRows(1);
                engine.smallQueryRows(0);
                for (final double q : new double[] {0, 1, 50, 90, 99.9, 100}) {
                    final QueryResult res = engine
                        .execute("{\"table\":\"wide\",\"aggs\":[{\"name\":\"x\",\"op\":\"percentile\",\"col\":\"x\",\""
                        + "p\":" + q
                        + "},{\"name\":\"pp\",\"op\":\"percentile\",\"col\":\"p*p\",\"p\":" + q + "}]}");
                    final int rank = Math.max(1, (int) Math.ceil(q / 100 * n));
                    assertThat((Double) res.value(0, 0) / x[rank - 1]).as("p%s of x", q).isCloseTo(1.0, within(1e-3));
                    assertThat((Double) res.value(0, 1) / pp[rank - 1]).as("p%s of p*p", q)
                        .isCloseTo(1.0, within(1e-3));
                }
            }
        }
    }
}
