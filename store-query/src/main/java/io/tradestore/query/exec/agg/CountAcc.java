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

    /**
     * @param slot    the values' slot, or -1 to read column {@code colA} where it is stored (an integral column
     *                without a product: no batch copy of its values is needed to tell its nulls).
     * @param f64     whether the column is f64.
     * @param product the product operand, or null.
     * @param colA    the column.
     * @param colB    the product's second column, or -1.
     */
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
        if (slot < 0) {
            updateStored(c, gid);
            return;
        }
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

    /** Tells nulls in the column's own bytes: a byte per row for side, four for a symbol, instead of a long. */
    private void updateStored(final BatchContext c, final int[] gid) {
        final int n = c.n;
        final long a = c.base[colA];
        final long s = c.stride[colA];
        final long z = c.nul[colA];
        final int w = c.width[colA];
        final int[] rows = c.rows;
        final int start = c.start;
        if (c.nullFreeRun(colA)) {
            return; // no null to count in this block
        }
        if (gid == null) {
            long nn = 0;
            if (rows == null && w == 1) { // side and other chars over whole blocks: a byte a row, nothing else
                final long from = a + (long) start * s;
                for (int i = 0; i < n; i++) {
                    nn += NativeMemory.getByte(from + i * s) == z ? 1 : 0;
                }
            } else {
                for (int i = 0; i < n; i++) {
                    final long at = a + (long) (rows == null ? start + i : rows[i]) * s;
                    nn += NativeMemory.getSigned(at, w) == z ? 1 : 0;
                }
            }
            nulls[0] += nn;
            return;
        }
        for (int i = 0; i < n; i++) {
            final long at = a + (long) (rows == null ? start + i : rows[i]) * s;
            if (NativeMemory.getSigned(at, w) == z) {
                nulls[gid[i]]++;
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
