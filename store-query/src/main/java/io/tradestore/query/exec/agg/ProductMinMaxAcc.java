package io.tradestore.query.exec.agg;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.Arrays;

import io.tradestore.core.memory.NativeMemory;
import io.tradestore.query.exec.BatchContext;

/** min or max of a product {@code a*b}: exact signed 128-bit comparison (or doubles when an f64 is involved). */
public final class ProductMinMaxAcc extends Acc {
    private final Product p;
    private final boolean max;
    private long[] hi = new long[1];
    private long[] lo = new long[1];
    private boolean[] has = new boolean[1];

    public ProductMinMaxAcc(final Product p, final boolean max) {
        this.p = p;
        this.max = max;
    }

    @Override
    public void grow(final int capacity) {
        if (capacity > hi.length) {
            final int n = Math.max(capacity, hi.length * 2);
            hi = Arrays.copyOf(hi, n);
            lo = Arrays.copyOf(lo, n);
            has = Arrays.copyOf(has, n);
        }
    }

    @Override
    public void update(final BatchContext c, final int[] gid) {
        final int n = c.n;
        final long a = c.viewAddr[p.slotA];
        final long sa = c.viewStride[p.slotA];
        final long b = c.viewAddr[p.slotB];
        final long sb = c.viewStride[p.slotB];
        final boolean dbl = p.isDouble();
        for (int i = 0; i < n; i++) {
            final long x = NativeMemory.getLong(a + i * sa);
            final long y = NativeMemory.getLong(b + i * sb);
            if (p.isNull(x, y)) {
                continue;
            }
            final int g = gid == null ? 0 : gid[i];
            if (dbl) {
                final double d = p.asDouble(x, y);
                if (d != d) {
                    continue;
                }
                fold(g, 0, Double.doubleToRawLongBits(d == 0.0 ? 0.0 : d));
            } else {
                fold(g, Math.multiplyHigh(x, y), x * y);
            }
        }
    }

    private boolean better(final long h, final long l, final int g) {
        if (p.isDouble()) {
            final double d = Double.longBitsToDouble(l);
            final double b = Double.longBitsToDouble(lo[g]);
            return max ? d > b : d < b;
        }
        final int c = h != hi[g] ? Long.compare(h, hi[g]) : Long.compareUnsigned(l, lo[g]);
        return max ? c > 0 : c < 0;
    }

    private void fold(final int g, final long h, final long l) {
        if (!has[g] || better(h, l, g)) {
            has[g] = true;
            hi[g] = h;
            lo[g] = l;
        }
    }

    @Override
    public void merge(final int dst, final Acc src, final int srcGid) {
        final ProductMinMaxAcc o = (ProductMinMaxAcc) src;
        if (o.has[srcGid]) {
            fold(dst, o.hi[srcGid], o.lo[srcGid]);
        }
    }

    @Override
    public Object result(final int gid, final long rows) {
        if (!has[gid]) {
            return null;
        }
        if (p.isDouble()) {
            return Double.longBitsToDouble(lo[gid]);
        }
        final BigInteger v = BigInteger.valueOf(hi[gid]).shiftLeft(64)
            .add(new BigInteger(Long.toUnsignedString(lo[gid])));
        return new BigDecimal(v, p.scaleA + p.scaleB);
    }
}
