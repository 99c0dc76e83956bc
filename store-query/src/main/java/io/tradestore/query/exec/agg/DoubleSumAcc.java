package io.tradestore.query.exec.agg;

import java.util.Arrays;

import io.tradestore.core.memory.NativeMemory;
import io.tradestore.query.exec.BatchContext;

/** Sum or average in double arithmetic, for aggregates that involve an f64 column (alone or in a product). */
public final class DoubleSumAcc extends Acc {
    private final int slotA;
    private final int slotB;
    private final double mulA;
    private final double mulB;
    private final boolean f64A;
    private final boolean f64B;
    private final boolean avg;
    private double[] sum = new double[1];
    private long[] nulls = new long[1];

    /**
     * @param slotA first value slot. @param f64A whether it is f64 (else integral with divisor {@code 10^scaleA}).
     * @param scaleA decimal scale. @param slotB second slot or -1. @param f64B its kind. @param scaleB its scale.
     *               @param avg average.
     */
    public DoubleSumAcc(final int slotA, final boolean f64A, final int scaleA, final int slotB, final boolean f64B,
        final int scaleB,
                 final boolean avg) {
        this.slotA = slotA;
        this.slotB = slotB;
        this.f64A = f64A;
        this.f64B = f64B;
        this.mulA = Math.pow(10, -scaleA);
        this.mulB = Math.pow(10, -scaleB);
        this.avg = avg;
    }

    @Override
    public void grow(final int capacity) {
        if (capacity > sum.length) {
            final int n = Math.max(capacity, sum.length * 2);
            sum = Arrays.copyOf(sum, n);
            nulls = Arrays.copyOf(nulls, n);
        }
    }

    static double read(final long raw, final boolean f64, final double mul) {
        if (f64) {
            return Double.longBitsToDouble(raw);
        }
        return raw == Long.MIN_VALUE ? Double.NaN : mul == 1.0 ? (double) raw : raw * mul;
    }

    @Override
    public void update(final BatchContext c, final int[] gid) {
        final int n = c.n;
        final long a = c.viewAddr[slotA];
        final long sa = c.viewStride[slotA];
        final long b = slotB < 0 ? 0 : c.viewAddr[slotB];
        final long sb = slotB < 0 ? 0 : c.viewStride[slotB];
        for (int i = 0; i < n; i++) {
            final int g = gid == null ? 0 : gid[i];
            double v = read(NativeMemory.getLong(a + i * sa), f64A, mulA);
            if (slotB >= 0) {
                v *= read(NativeMemory.getLong(b + i * sb), f64B, mulB);
            }
            if (v != v) {
                nulls[g]++;
            } else {
                sum[g] += v;
            }
        }
    }

    @Override
    public void merge(final int dst, final Acc src, final int srcGid) {
        final DoubleSumAcc o = (DoubleSumAcc) src;
        sum[dst] += o.sum[srcGid];
        nulls[dst] += o.nulls[srcGid];
    }

    @Override
    public Object result(final int gid, final long rows) {
        final long nn = rows - nulls[gid];
        if (nn <= 0) {
            return null;
        }
        return avg ? sum[gid] / nn : sum[gid];
    }
}
