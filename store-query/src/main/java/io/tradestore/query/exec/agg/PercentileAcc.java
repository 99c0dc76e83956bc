package io.tradestore.query.exec.agg;

import java.util.Arrays;

import org.HdrHistogram.Histogram;
import org.HdrHistogram.PackedHistogram;

import io.tradestore.core.memory.NativeMemory;
import io.tradestore.query.exec.BatchContext;

/**
 * Percentile, nearest-rank definition ({@code ceil(p/100*n)}-th smallest non-null value). A group keeps its values
 * exactly until it holds {@link #EXACT_LIMIT} of them, then moves to (sparse, packed) HdrHistograms at {@link #DIGITS}
 * significant digits for integers and decimals, and to {@link MagnitudeBuckets} for f64 values and products (relative
 * error at most 10^-3 either way; negative values in a second histogram of magnitudes). Small groups thus cost a few
 * bytes, not a histogram each.
 */
public final class PercentileAcc extends Acc {
    /** Significant decimal digits kept by the histograms. */
    public static final int DIGITS = 3;
    /** Values a group keeps exactly before it switches to histograms. */
    static final int EXACT_LIMIT = 1024;
    private final int slot;
    private final boolean f64;
    private final double p;
    private final double unit;
    private final Product product;
    private long[][] values = new long[1][];
    private int[] counts = new int[1];
    private Histogram[] pos = new Histogram[1];
    private Histogram[] neg = new Histogram[1];
    private MagnitudeBuckets[] dpos = new MagnitudeBuckets[1];
    private MagnitudeBuckets[] dneg = new MagnitudeBuckets[1];

    public PercentileAcc(final int slot, final boolean f64, final int scale, final double p, final Product product) {
        this.slot = slot;
        this.product = product;
        this.f64 = f64 || product != null;
        this.p = p;
        this.unit = Math.pow(10, -scale);
    }

    @Override
    public void grow(final int capacity) {
        if (capacity > counts.length) {
            final int n = Math.max(capacity, counts.length * 2);
            values = Arrays.copyOf(values, n);
            counts = Arrays.copyOf(counts, n);
            pos = Arrays.copyOf(pos, n);
            neg = Arrays.copyOf(neg, n);
            dpos = Arrays.copyOf(dpos, n);
            dneg = Arrays.copyOf(dneg, n);
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
                    add(g, Double.doubleToRawLongBits(d == 0.0 ? 0.0 : d));
                }
            } else if (v != Long.MIN_VALUE) {
                add(g, v);
            }
        }
    }

    /** @param g group. @param raw a long, or f64 bits. */
    private void add(final int g, final long raw) {
        if (counts[g] >= 0) {
            long[] vs = values[g];
            if (vs == null) {
                vs = new long[4];
                values[g] = vs;
            } else if (counts[g] == vs.length) {
                if (counts[g] >= EXACT_LIMIT) {
                    toHistograms(g);
                    record(g, raw);
                    return;
                }
                vs = Arrays.copyOf(vs, vs.length * 2);
                values[g] = vs;
            }
            vs[counts[g]++] = raw;
            return;
        }
        record(g, raw);
    }

    private void toHistograms(final int g) {
        final long[] vs = values[g];
        final int n = counts[g];
        counts[g] = -1;
        values[g] = null;
        for (int i = 0; i < n; i++) {
            record(g, vs[i]);
        }
    }

    private void record(final int g, final long raw) {
        if (f64) {
            final double d = Double.longBitsToDouble(raw);
            if (d < 0) {
                mb(dneg, g).record(-d);
            } else {
                mb(dpos, g).record(d);
            }
        } else if (raw < 0) {
            h(neg, g).recordValue(raw == Long.MIN_VALUE + 1 ? Long.MAX_VALUE : -raw);
        } else {
            h(pos, g).recordValue(raw);
        }
    }

    private static Histogram h(final Histogram[] hs, final int g) {
        Histogram x = hs[g];
        if (x == null) {
            x = new PackedHistogram(DIGITS);
            hs[g] = x;
        }
        return x;
    }

    private static MagnitudeBuckets mb(final MagnitudeBuckets[] hs, final int g) {
        MagnitudeBuckets x = hs[g];
        if (x == null) {
            x = new MagnitudeBuckets();
            hs[g] = x;
        }
        return x;
    }

    @Override
    public void merge(final int dst, final Acc src, final int srcGid) {
        final PercentileAcc o = (PercentileAcc) src;
        if (o.counts[srcGid] >= 0) {
            for (int i = 0; i < o.counts[srcGid]; i++) {
                add(dst, o.values[srcGid][i]);
            }
            return;
        }
        if (counts[dst] >= 0) {
            toHistograms(dst);
        }
        if (o.pos[srcGid] != null) {
            h(pos, dst).add(o.pos[srcGid]);
        }
        if (o.neg[srcGid] != null) {
            h(neg, dst).add(o.neg[srcGid]);
        }
        if (o.dpos[srcGid] != null) {
            mb(dpos, dst).addAll(o.dpos[srcGid]);
        }
        if (o.dneg[srcGid] != null) {
            mb(dneg, dst).addAll(o.dneg[srcGid]);
        }
    }

    @Override
    public Object result(final int gid, final long rows) {
        if (counts[gid] >= 0) {
            final int n = counts[gid];
            if (n == 0) {
                return null;
            }
            final long rank = Math.max(1, (long) Math.ceil(p / 100.0 * n));
            if (f64) {
                final double[] d = new double[n];
                for (int i = 0; i < n; i++) {
                    d[i] = Double.longBitsToDouble(values[gid][i]);
                }
                Arrays.sort(d);
                return d[(int) rank - 1];
            }
            final long[] v = Arrays.copyOf(values[gid], n);
            Arrays.sort(v);
            return unit == 1.0 ? (double) v[(int) rank - 1] : v[(int) rank - 1] * unit;
        }
        final long nNeg = f64 ? count(dneg[gid]) : count(neg[gid]);
        final long nPos = f64 ? count(dpos[gid]) : count(pos[gid]);
        final long total = nNeg + nPos;
        final long rank = Math.max(1, (long) Math.ceil(p / 100.0 * total));
        if (rank <= nNeg) {
            // the rank-th smallest value is the negative with the k-th smallest magnitude, counted from the largest
            final long k = nNeg - rank + 1;
            if (f64) {
                return -dneg[gid].valueAtRank(k);
            }
            final double q = 100.0 * (k - 0.5) / nNeg;
            return -(neg[gid].getValueAtPercentile(q) * unit);
        }
        final long k = rank - nNeg;
        if (f64) {
            return dpos[gid].valueAtRank(k);
        }
        final double q = 100.0 * (k - 0.5) / nPos;
        return pos[gid].getValueAtPercentile(q) * unit;
    }

    private static long count(final Histogram h) {
        return h == null ? 0 : h.getTotalCount();
    }

    private static long count(final MagnitudeBuckets h) {
        return h == null ? 0 : h.total();
    }
}
