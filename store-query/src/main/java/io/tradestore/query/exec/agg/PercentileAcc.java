package io.tradestore.query.exec.agg;

import java.util.Arrays;

import org.HdrHistogram.Histogram;
import org.HdrHistogram.PackedHistogram;

import io.tradestore.core.memory.NativeMemory;
import io.tradestore.query.exec.BatchContext;

/**
 * Percentile, nearest-rank definition ({@code ceil(p/100*n)}-th smallest non-null value; 0 and 100, the smallest and
 * largest, are {@link MinMaxAcc} and {@link ProductMinMaxAcc}). A group keeps up to {@link #EXACT_CAP} values exactly,
 * in chunks ({@link ValueChunks}), and its rank is selected when its row is answered, as DuckDB's {@code quantile_disc}
 * does: exact, and an append per value. The chunks of one accumulator (one per worker) grow until they hold about
 * {@link #exactBudgetBytes()}; past that, a group that outgrows {@link #EXACT_LIMIT} values
 * moves, as does a group past the cap, to buckets of {@link #DIGITS} significant digits for integers and decimals
 * (plain {@link IntBuckets} while the accumulator's {@link #DENSE_BUDGET} lasts, then sparse, packed HdrHistograms
 * with the same buckets), and to {@link MagnitudeBuckets} for f64 values and products (relative error at most 10^-3
 * either way; negative values in a second histogram of magnitudes), so that memory stays bounded however many rows a
 * query reads.
 */
public final class PercentileAcc extends Acc {
    /** Significant decimal digits kept by the histograms. */
    public static final int DIGITS = 3;
    /** Values a group may keep exactly after the accumulator's budget for exact values is spent. */
    static final int EXACT_LIMIT = 1024;
    /**
     * Values a group keeps exactly at most. A larger group moves to buckets: recording a value there is an increment
     * in a cache-resident array, where an exact value is a store to memory and a read when its rank is selected
     * (figures in the body of commit 8f98dc3).
     */
    static final int EXACT_CAP = 1 << 16;
    /** The system property that sets {@link #exactBudgetBytes()}, in bytes. */
    public static final String EXACT_BUDGET_PROPERTY = "tradestore.percentileExactBytes";
    /** Bytes of plain bucket arrays one accumulator may hold (per worker): beyond, groups get packed histograms. */
    static final long DENSE_BUDGET = 64L << 20;
    private final int slot;
    private final boolean f64;
    private final double p;
    private final double unit;
    private final Product product;
    /** Bytes of exact values this accumulator may hold before large groups move to buckets. */
    private final long exactBudget;
    /** Bytes of this accumulator's chunks of exact values (those of groups moved to buckets included). */
    private long exactBytes;
    /** Per group: its exact values (f64 bits made order-preserving as longs, see {@link #sortable}). */
    private final ValueChunks values = new ValueChunks();
    /** A group's exact values copied out, to select a rank from or to move to buckets. */
    private long[] scratch = new long[0];
    private int[] counts = new int[1];
    private Histogram[] pos = new Histogram[1];
    private Histogram[] neg = new Histogram[1];
    private MagnitudeBuckets[] dpos = new MagnitudeBuckets[1];
    private IntBuckets[] ipos = new IntBuckets[1];
    private IntBuckets[] ineg = new IntBuckets[1];
    /**
     * Bytes of this accumulator's {@link IntBuckets} and {@link MagnitudeBuckets} rows; past {@link #DENSE_BUDGET}, new
     * integer buckets are packed histograms and new f64 buckets go to hash tables.
     */
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
     * @param exactBudget bytes of exact values it may hold, see {@link #exactBudgetBytes()}.
     */
    public PercentileAcc(final int slot, final boolean f64, final int scale, final double p, final Product product,
        final int owner, final long exactBudget) {
        this.owner = owner;
        this.exactBudget = exactBudget;
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
            values.grow(n);
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

    /**
     * @return the bytes of exact values one accumulator may hold: the system property {@value #EXACT_BUDGET_PROPERTY}
     *     when set, else 1/32 of the maximum heap (192 MiB, 24M values, on a 6 GiB heap). Read per query.
     */
    public static long exactBudgetBytes() {
        return Math.max(0, Long.getLong(EXACT_BUDGET_PROPERTY, Runtime.getRuntime().maxMemory() / 32));
    }

    @Override
    public void update(final BatchContext c, final int[] gid) {
        if (data != this) {
            return;
        }
        final int n = c.n;
        final long a = c.viewAddr[slot];
        final long s = c.viewStride[slot];
        if (product != null) {
            final Product pr = product;
            final long b = c.viewAddr[pr.slotB];
            final long sb = c.viewStride[pr.slotB];
            for (int i = 0; i < n; i++) {
                final long v = NativeMemory.getLong(a + i * s);
                final long w = NativeMemory.getLong(b + i * sb);
                if (!pr.isNull(v, w)) {
                    final double d = pr.asDouble(v, w);
                    if (d == d) {
                        add(gid == null ? 0 : gid[i], sortable(d));
                    }
                }
            }
        } else if (f64) {
            for (int i = 0; i < n; i++) {
                final double d = Double.longBitsToDouble(NativeMemory.getLong(a + i * s));
                if (d == d) {
                    add(gid == null ? 0 : gid[i], sortable(d));
                }
            }
        } else {
            for (int i = 0; i < n; i++) {
                final long v = NativeMemory.getLong(a + i * s);
                if (v != Long.MIN_VALUE) {
                    add(gid == null ? 0 : gid[i], v);
                }
            }
        }
    }

    /**
     * @param d a double, not NaN.
     * @return a long whose signed order is the double's order (-0.0 as 0.0): the bits, with the lower 63 flipped for
     *     negative values. The same flip turns it back.
     */
    public static long sortable(final double d) {
        final long bits = Double.doubleToRawLongBits(d == 0.0 ? 0.0 : d);
        return bits ^ ((bits >> 63) & Long.MAX_VALUE);
    }

    /** @param v a value as {@link #sortable} made it. @return the double. */
    static double unsortable(final long v) {
        return Double.longBitsToDouble(v ^ ((v >> 63) & Long.MAX_VALUE));
    }

    /** @param g group. @param v a long, or a double made {@link #sortable}. */
    private void add(final int g, final long v) {
        final int c = counts[g];
        if (c < 0) {
            record(g, v);
            return;
        }
        if (values.full(g)) {
            if (c >= EXACT_CAP || c >= EXACT_LIMIT && exactBytes >= exactBudget) {
                toHistograms(g);
                record(g, v);
                return;
            }
            exactBytes += values.chunk(g, c);
        }
        values.put(g, v);
        counts[g] = c + 1;
    }

    /** @return group g's n exact values, copied out to {@link #scratch}. */
    private long[] copy(final ValueChunks from, final int g, final int n) {
        if (scratch.length < n) {
            scratch = new long[Math.max(n, scratch.length * 2)];
        }
        return from.copy(g, n, scratch);
    }

    /** Moves group g's exact values to buckets; their chunks' space stays counted against the budget. */
    private void toHistograms(final int g) {
        final int n = counts[g];
        final long[] vs = copy(values, g, n);
        counts[g] = -1;
        values.drop(g);
        for (int i = 0; i < n; i++) {
            record(g, vs[i]);
        }
    }

    /** @param g group. @param raw a long, or a double made {@link #sortable}. */
    private void record(final int g, final long raw) {
        if (f64) {
            final double d = unsortable(raw);
            if (d < 0) {
                denseBytes += mb(dneg, g).record(-d, DENSE_BUDGET - denseBytes);
            } else {
                denseBytes += mb(dpos, g).record(d, DENSE_BUDGET - denseBytes);
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
        final int on = o.counts[srcGid];
        if (on >= 0) {
            if (counts[dst] >= 0 && counts[dst] + on > EXACT_CAP) {
                toHistograms(dst);
            }
            if (counts[dst] >= 0) {
                // kept exact whatever this accumulator's budget: each worker's chunks were within theirs
                values.link(dst, o.values, srcGid);
                counts[dst] += on;
            } else {
                final long[] vs = copy(o.values, srcGid, on);
                for (int i = 0; i < on; i++) {
                    record(dst, vs[i]);
                }
            }
            return;
        }
        if (counts[dst] >= 0) {
            toHistograms(dst);
        }
        merge(ipos, pos, dst, o.ipos[srcGid], o.pos[srcGid]);
        merge(ineg, neg, dst, o.ineg[srcGid], o.neg[srcGid]);
        if (o.dpos[srcGid] != null) {
            denseBytes += mb(dpos, dst).addAll(o.dpos[srcGid], DENSE_BUDGET - denseBytes);
        }
        if (o.dneg[srcGid] != null) {
            denseBytes += mb(dneg, dst).addAll(o.dneg[srcGid], DENSE_BUDGET - denseBytes);
        }
    }

    @Override
    public void release() {
        values.release();
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
            final long v = LongSelect.select(copy(d.values, gid, n), n, (int) rank - 1);
            if (f64) {
                return unsortable(v);
            }
            return unit == 1.0 ? (double) v : v * unit;
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
