package io.tradestore.query.exec.agg;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.Arrays;

import io.tradestore.core.memory.NativeMemory;
import io.tradestore.core.segment.Segment;
import io.tradestore.query.exec.BatchContext;

/**
 * min or max of a product {@code a*b}: exact signed 128-bit comparison (or doubles when an f64 is involved, and for
 * percentile 0 or 100 of a product, which percentiles answer as doubles). Where a
 * segment's zone maps bound every product below 2^62, its rows are compared as plain longs in {@link #fast} and
 * folded into the 128-bit results by {@link #finish}: a multiply and a compare per row instead of a 128-bit product
 * and compare.
 */
public final class ProductMinMaxAcc extends Acc {
    private final Product p;
    private final boolean max;
    private final int colA;
    private final int colB;
    private long[] hi = new long[1];
    private long[] lo = new long[1];
    private boolean[] has = new boolean[1];
    /** Per group: the best 64-bit product since the last {@link #finish}, or {@link #identity}. */
    private long[] fast = new long[] {0};
    /** Long.MAX_VALUE for min, Long.MIN_VALUE for max: never a product under 2^62 in magnitude. */
    private final long identity;
    /** Whether the current segment's products all fit in 63 bits. */
    private boolean fits;
    /** Whether products are compared and answered as doubles: an f64 factor, or a percentile 0 or 100. */
    private final boolean dbl;

    /**
     * @param p    the product.
     * @param max  max, else min.
     * @param colA the column of the first factor.
     * @param colB the column of the second factor.
     */
    public ProductMinMaxAcc(final Product p, final boolean max, final int colA, final int colB) {
        this(p, max, colA, colB, false);
    }

    /**
     * @param percentile compare and answer the products as doubles, as percentile 0 (min) or 100 (max) of a product
     *                   does.
     */
    public ProductMinMaxAcc(final Product p, final boolean max, final int colA, final int colB,
        final boolean percentile) {
        this.dbl = p.isDouble() || percentile;
        this.p = p;
        this.max = max;
        this.colA = colA;
        this.colB = colB;
        this.identity = max ? Long.MIN_VALUE : Long.MAX_VALUE;
        fast[0] = identity;
    }

    @Override
    public void grow(final int capacity) {
        if (capacity > hi.length) {
            final int n = Math.max(capacity, hi.length * 2);
            hi = Arrays.copyOf(hi, n);
            lo = Arrays.copyOf(lo, n);
            has = Arrays.copyOf(has, n);
            final int from = fast.length;
            fast = Arrays.copyOf(fast, n);
            Arrays.fill(fast, from, n, identity);
        }
    }

    @Override
    public void beginSegment(final Segment s) {
        fits = !dbl
            && Int128.productBound(Int128.maxAbs(s, colA), Int128.maxAbs(s, colB)) != Long.MAX_VALUE;
    }

    @Override
    public void update(final BatchContext c, final int[] gid) {
        if (fits) {
            updateFast(c, gid);
            return;
        }
        final int n = c.n;
        final long a = c.viewAddr[p.slotA];
        final long sa = c.viewStride[p.slotA];
        final long b = c.viewAddr[p.slotB];
        final long sb = c.viewStride[p.slotB];
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

    /** Rows whose products fit in 63 bits: a null factor yields the identity, which never wins. */
    private void updateFast(final BatchContext c, final int[] gid) {
        final int n = c.n;
        final long a = c.viewAddr[p.slotA];
        final long sa = c.viewStride[p.slotA];
        final long b = c.viewAddr[p.slotB];
        final long sb = c.viewStride[p.slotB];
        final long id = identity;
        if (gid == null) {
            long best = id;
            for (int i = 0; i < n; i++) {
                final long x = NativeMemory.getLong(a + i * sa);
                final long y = NativeMemory.getLong(b + i * sb);
                final long v = x == Long.MIN_VALUE | y == Long.MIN_VALUE ? id : x * y;
                best = max ? Math.max(best, v) : Math.min(best, v);
            }
            fast[0] = max ? Math.max(fast[0], best) : Math.min(fast[0], best);
            return;
        }
        final long[] f = fast;
        for (int i = 0; i < n; i++) {
            final long x = NativeMemory.getLong(a + i * sa);
            final long y = NativeMemory.getLong(b + i * sb);
            final long v = x == Long.MIN_VALUE | y == Long.MIN_VALUE ? id : x * y;
            final int g = gid[i];
            if (max ? v > f[g] : v < f[g]) {
                f[g] = v;
            }
        }
    }

    @Override
    public void finish() {
        final long[] f = fast;
        for (int g = 0; g < f.length; g++) {
            if (f[g] != identity) {
                fold(g, f[g] >> 63, f[g]);
                f[g] = identity;
            }
        }
    }

    private boolean better(final long h, final long l, final int g) {
        if (dbl) {
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
        if (dbl) {
            return Double.longBitsToDouble(lo[gid]);
        }
        final BigInteger v = BigInteger.valueOf(hi[gid]).shiftLeft(64)
            .add(new BigInteger(Long.toUnsignedString(lo[gid])));
        return new BigDecimal(v, p.scaleA + p.scaleB);
    }
}
