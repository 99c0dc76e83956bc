package io.tradestore.query.exec.agg;

import java.util.Arrays;

import org.HdrHistogram.Histogram;
import org.HdrHistogram.PackedHistogram;

import io.tradestore.core.memory.NativeMemory;
import io.tradestore.query.exec.BatchContext;

/**
 * Percentile, nearest-rank definition ({@code ceil(p/100*n)}-th smallest non-null value). A group keeps its values
 * exactly until it holds {@link #EXACT_LIMIT} of them, then moves to buckets of {@link #DIGITS} significant digits for
 * integers and decimals (plain {@link IntBuckets} while the accumulator's {@link #DENSE_BUDGET} lasts, then sparse,
 * packed HdrHistograms with the same buckets), and to {@link MagnitudeBuckets} for f64 values and products (relative
 * error at most 10^-3 either way; negative values in a second histogram of magnitudes). Small groups thus cost a few
 * bytes, not a histogram each.
 */
public final class PercentileAcc extends Acc {
    /** Significant decimal digits kept by the histograms. */
    public static final int DIGITS = 3;
    /** Values a group keeps exactly before it switches to histograms. */
    static final int EXACT_LIMIT = 1024;
    /** Bytes of plain bucket arrays one accumulator may hold (per worker): beyond, groups get packed histograms. */
    static final long DENSE_BUDGET = 64L << 20;
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
    private IntBuckets[] ipos = new IntBuckets[1];
    private IntBuckets[] ineg = new IntBuckets[1];
    /** Bytes of this accumulator's {@link IntBuckets}; past {@link #DENSE_BUDGET}, new ones are packed histograms. */
    private long denseBytes;
    private MagnitudeBuckets[] dneg = new MagnitudeBuckets[1];

    /** The index of the accumulator whose buckets this one reads (a percentile of the same values), or -1. */
    private final int owner;
    /** Whose values and buckets this accumulator answers from: itself, or its owner once bound. */
    private PercentileAcc data = this;

    /**
     * @param slot    the values' slot.
     * @param f64     whether they are f64.
     * @param scale   their decimal scale.
     * @param p       the percentile, 0 to 100.
     * @param product the product operand, or null.
     * @param owner   the index of an earlier percentile of the same values to share buckets with, or -1.
     */
    public PercentileAcc(final int slot, final boolean f64, final int scale, final double p, final Product product,
        final int owner) {
        this.owner = owner;
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
            ipos = Arrays.copyOf(ipos, n);
            ineg = Arrays.copyOf(ineg, n);
        }
    }

    @Override
    public void bind(final Acc[] all) {
        if (owner >= 0) {
            data = (PercentileAcc) all[owner];
        }
    }

    @Override
    public void update(final BatchContext c, final int[] gid) {
        if (data != this) {
            return;
        }
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
            record(ineg, neg, g, raw == Long.MIN_VALUE + 1 ? Long.MAX_VALUE : -raw);
        } else {
            record(ipos, pos, g, raw);
        }
    }

    /** Records a magnitude in the group's plain buckets, or its packed histogram once the budget is spent. */
    private void record(final IntBuckets[] dense, final Histogram[] packed, final int g, final long magnitude) {
        final IntBuckets d = dense[g];
        if (d != null) {
            denseBytes += d.record(magnitude);
            return;
        }
        if (packed[g] == null && denseBytes < DENSE_BUDGET) {
            final IntBuckets fresh = new IntBuckets(magnitude);
            dense[g] = fresh;
            denseBytes += fresh.bytes();
            fresh.record(magnitude);
            return;
        }
        h(packed, g).recordValue(magnitude);
    }

    /** Adds one sign's counts of a source group to a destination group. */
    private void merge(final IntBuckets[] dense, final Histogram[] packed, final int dst, final IntBuckets srcDense,
        final Histogram srcPacked) {
        if (srcDense == null && srcPacked == null) {
            return;
        }
        if (dense[dst] == null && packed[dst] == null && srcDense != null && denseBytes < DENSE_BUDGET) {
            dense[dst] = new IntBuckets(0);
            denseBytes += dense[dst].bytes();
        }
        if (dense[dst] != null && srcPacked == null) {
            final long before = dense[dst].bytes();
            dense[dst].addAll(srcDense);
            denseBytes += dense[dst].bytes() - before;
            return;
        }
        final Histogram h = h(packed, dst);
        if (dense[dst] != null) { // a packed source: the destination moves to a packed histogram too
            dense[dst].addTo(h);
            denseBytes -= dense[dst].bytes();
            dense[dst] = null;
        }
        if (srcDense != null) {
            srcDense.addTo(h);
        } else {
            h.add(srcPacked);
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
        if (data != this) {
            return; // the owner merges the buckets this one reads
        }
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
        merge(ipos, pos, dst, o.ipos[srcGid], o.pos[srcGid]);
        merge(ineg, neg, dst, o.ineg[srcGid], o.neg[srcGid]);
        if (o.dpos[srcGid] != null) {
            mb(dpos, dst).addAll(o.dpos[srcGid]);
        }
        if (o.dneg[srcGid] != null) {
            mb(dneg, dst).addAll(o.dneg[srcGid]);
        }
    }

    @Override
    public Object result(final int gid, final long rows) {
        final PercentileAcc d = data;
        if (d.counts[gid] >= 0) {
            final int n = d.counts[gid];
            if (n == 0) {
                return null;
            }
            final long rank = Math.max(1, (long) Math.ceil(p / 100.0 * n));
            if (f64) {
                final double[] sorted = new double[n];
                for (int i = 0; i < n; i++) {
                    sorted[i] = Double.longBitsToDouble(d.values[gid][i]);
                }
                Arrays.sort(sorted);
                return sorted[(int) rank - 1];
            }
            final long[] v = Arrays.copyOf(d.values[gid], n);
            Arrays.sort(v);
            return unit == 1.0 ? (double) v[(int) rank - 1] : v[(int) rank - 1] * unit;
        }
        final long nNeg = f64 ? count(d.dneg[gid]) : count(d.neg[gid]) + count(d.ineg[gid]);
        final long nPos = f64 ? count(d.dpos[gid]) : count(d.pos[gid]) + count(d.ipos[gid]);
        final long total = nNeg + nPos;
        final long rank = Math.max(1, (long) Math.ceil(p / 100.0 * total));
        if (rank <= nNeg) {
            // the rank-th smallest value is the negative with the k-th smallest magnitude, counted from the largest
            final long k = nNeg - rank + 1;
            if (f64) {
                return -d.dneg[gid].valueAtRank(k);
            }
            if (d.ineg[gid] != null) {
                return -(d.ineg[gid].valueAtRank(k) * unit);
            }
            final double q = 100.0 * (k - 0.5) / nNeg;
            return -(d.neg[gid].getValueAtPercentile(q) * unit);
        }
        final long k = rank - nNeg;
        if (f64) {
            return d.dpos[gid].valueAtRank(k);
        }
        if (d.ipos[gid] != null) {
            return d.ipos[gid].valueAtRank(k) * unit;
        }
        final double q = 100.0 * (k - 0.5) / nPos;
        return d.pos[gid].getValueAtPercentile(q) * unit;
    }

    private static long count(final Histogram h) {
        return h == null ? 0 : h.getTotalCount();
    }

    private static long count(final IntBuckets h) {
        return h == null ? 0 : h.total;
    }

    private static long count(final MagnitudeBuckets h) {
        return h == null ? 0 : h.total();
    }
}
