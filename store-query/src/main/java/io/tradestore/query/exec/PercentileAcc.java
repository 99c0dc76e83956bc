package io.tradestore.query.exec;

import java.util.Arrays;

import org.HdrHistogram.DoubleHistogram;
import org.HdrHistogram.Histogram;

import io.tradestore.core.memory.NativeMemory;

/**
 * Approximate percentile with HdrHistogram at {@link #DIGITS} significant digits (relative error at most 10^-3),
 * nearest-rank definition. Negative values go to a second histogram of magnitudes.
 */
final class PercentileAcc extends Acc {
    /** Significant decimal digits kept by the histograms. */
    static final int DIGITS = 3;
    private final int slot;
    private final boolean f64;
    private final double p;
    private final double unit;
    private Histogram[] pos = new Histogram[1];
    private Histogram[] neg = new Histogram[1];
    private DoubleHistogram[] dpos = new DoubleHistogram[1];
    private DoubleHistogram[] dneg = new DoubleHistogram[1];

    private final Product product;

    PercentileAcc(final int slot, final boolean f64, final int scale, final double p, final Product product) {
        this.slot = slot;
        this.product = product;
        this.f64 = f64 || product != null;
        this.p = p;
        this.unit = Math.pow(10, -scale);
    }

    @Override
    void grow(final int capacity) {
        if (capacity > pos.length) {
            final int n = Math.max(capacity, pos.length * 2);
            pos = Arrays.copyOf(pos, n);
            neg = Arrays.copyOf(neg, n);
            dpos = Arrays.copyOf(dpos, n);
            dneg = Arrays.copyOf(dneg, n);
        }
    }

    @Override
    void update(final BatchContext c, final int[] gid) {
        final int n = c.n;
        final long a = c.viewAddr[slot];
        final long s = c.viewStride[slot];
        final long b = product == null ? 0 : c.viewAddr[product.slotB];
        final long sb = product == null ? 0 : c.viewStride[product.slotB];
        for (int i = 0; i < n; i++) {
            final long v = NativeMemory.getLong(a + i * s);
            final int g = gid == null ? 0 : gid[i];
            if (f64) {
                final double d;
                if (product != null) {
                    final long w = NativeMemory.getLong(b + i * sb);
                    d = product.isNull(v, w) ? Double.NaN : product.asDouble(v, w);
                } else {
                    d = Double.longBitsToDouble(v);
                }
                if (d == d) {
                    if (d < 0) {
                        dh(dneg, g).recordValue(-d);
                    } else {
                        dh(dpos, g).recordValue(d);
                    }
                }
            } else if (v != Long.MIN_VALUE) {
                if (v < 0) {
                    h(neg, g).recordValue(v == Long.MIN_VALUE + 1 ? Long.MAX_VALUE : -v);
                } else {
                    h(pos, g).recordValue(v);
                }
            }
        }
    }

    private static Histogram h(final Histogram[] hs, final int g) {
        Histogram x = hs[g];
        if (x == null) {
            x = new Histogram(DIGITS);
            hs[g] = x;
        }
        return x;
    }

    private static DoubleHistogram dh(final DoubleHistogram[] hs, final int g) {
        DoubleHistogram x = hs[g];
        if (x == null) {
            x = new DoubleHistogram(DIGITS);
            hs[g] = x;
        }
        return x;
    }

    @Override
    void merge(final int dst, final Acc src, final int srcGid) {
        final PercentileAcc o = (PercentileAcc) src;
        if (o.pos[srcGid] != null) {
            h(pos, dst).add(o.pos[srcGid]);
        }
        if (o.neg[srcGid] != null) {
            h(neg, dst).add(o.neg[srcGid]);
        }
        if (o.dpos[srcGid] != null) {
            dh(dpos, dst).add(o.dpos[srcGid]);
        }
        if (o.dneg[srcGid] != null) {
            dh(dneg, dst).add(o.dneg[srcGid]);
        }
    }

    @Override
    Object result(final int gid, final long rows) {
        final long nNeg = f64 ? count(dneg[gid]) : count(neg[gid]);
        final long nPos = f64 ? count(dpos[gid]) : count(pos[gid]);
        final long total = nNeg + nPos;
        if (total == 0) {
            return null;
        }
        final long rank = Math.max(1, (long) Math.ceil(p / 100.0 * total));
        if (rank <= nNeg) {
            final long k = nNeg - rank + 1;
            final double q = 100.0 * (k - 0.5) / nNeg;
            return -(f64 ? dneg[gid].getValueAtPercentile(q) : neg[gid].getValueAtPercentile(q) * unit);
        }
        final long k = rank - nNeg;
        final double q = 100.0 * (k - 0.5) / nPos;
        return f64 ? dpos[gid].getValueAtPercentile(q) : pos[gid].getValueAtPercentile(q) * unit;
    }

    private static long count(final Histogram h) {
        return h == null ? 0 : h.getTotalCount();
    }

    private static long count(final DoubleHistogram h) {
        return h == null ? 0 : h.getTotalCount();
    }
}
