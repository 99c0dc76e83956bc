package io.tradestore.query.exec.agg;

import java.util.Arrays;

import io.tradestore.core.memory.NativeMemory;
import io.tradestore.query.spi.SummaryPart;
import io.tradestore.query.exec.BatchContext;

/** {@code count(col)}: rows where the column is not null ({@code count} without a column is the group's row count). */
public final class CountAcc extends Acc {
    private final int slot;
    private final boolean f64;
    private final Product product;
    private final int colA;
    private final int colB;
    private long[] nulls = new long[1];

    public CountAcc(final int slot, final boolean f64, final Product product, final int colA, final int colB) {
        this.slot = slot;
        this.f64 = f64;
        this.product = product;
        this.colA = colA;
        this.colB = colB;
    }

    @Override
    public int[] summaryMeasure() {
        return f64 || product != null && product.isDouble() ? null : new int[] {colA, colB};
    }

    @Override
    public void foldSummary(final int g, final SummaryPart p) {
        nulls[g] += p.rows - p.nonNull;
    }

    @Override
    public void grow(final int capacity) {
        if (capacity > nulls.length) {
            nulls = Arrays.copyOf(nulls, Math.max(capacity, nulls.length * 2));
        }
    }

    @Override
    public void update(final BatchContext c, final int[] gid) {
        final int n = c.n;
        final long a = c.viewAddr[slot];
        final long s = c.viewStride[slot];
        final long b = product == null ? 0 : c.viewAddr[product.slotB];
        final long sb = product == null ? 0 : c.viewStride[product.slotB];
        for (int i = 0; i < n; i++) {
            final long v = NativeMemory.getLong(a + i * s);
            final boolean isNull = product != null ? product.isNull(v, NativeMemory.getLong(b + i * sb))
                : f64 ? Double.isNaN(Double.longBitsToDouble(v)) : v == Long.MIN_VALUE;
            if (isNull) {
                nulls[gid == null ? 0 : gid[i]]++;
            }
        }
    }

    @Override
    public void merge(final int dst, final Acc src, final int srcGid) {
        nulls[dst] += ((CountAcc) src).nulls[srcGid];
    }

    @Override
    public Object result(final int gid, final long rows) {
        return rows - nulls[gid];
    }
}
