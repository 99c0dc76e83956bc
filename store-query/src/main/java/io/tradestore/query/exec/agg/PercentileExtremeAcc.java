package io.tradestore.query.exec.agg;

import java.util.Arrays;

import io.tradestore.core.memory.NativeMemory;
import io.tradestore.query.exec.BatchContext;

/**
 * Percentile 0 or 100 by the nearest-rank definition: rank {@code max(1, ceil(p/100*n))} is 1 or n, the smallest or
 * largest non-null value, so a group keeps one value where {@link PercentileAcc} keeps them all (or buckets them).
 * The answer is exact and typed as a percentile's (f64).
 */
public final class PercentileExtremeAcc extends Acc {
    private final int slot;
    private final boolean f64;
    private final double unit;
    private final Product product;
    private final boolean max;
    /** Long.MAX_VALUE for the smallest value, Long.MIN_VALUE for the largest: where a group starts. */
    private final long identity;
    /** Per group: the extreme so far, a long or a double made {@link PercentileAcc#sortable}. */
    private long[] best = new long[1];
    /** Per group: holds a value equal to {@link #identity} (only an integer Long.MAX_VALUE can be one). */
    private boolean[] atIdentity = new boolean[1];

    /**
     * @param slot    the values' slot.
     * @param f64     whether they are f64.
     * @param scale   their decimal scale.
     * @param max     p = 100, else p = 0.
     * @param product the product operand, or null.
     */
    public PercentileExtremeAcc(final int slot, final boolean f64, final int scale, final boolean max,
        final Product product) {
        this.slot = slot;
        this.product = product;
        this.f64 = f64 || product != null;
        this.unit = Math.pow(10, -scale);
        this.max = max;
        this.identity = max ? Long.MIN_VALUE : Long.MAX_VALUE;
        best[0] = identity;
    }

    @Override
    public void grow(final int capacity) {
        if (capacity > best.length) {
            final int n = Math.max(capacity, best.length * 2);
            final int from = best.length;
            best = Arrays.copyOf(best, n);
            Arrays.fill(best, from, n, identity);
            atIdentity = Arrays.copyOf(atIdentity, n);
        }
    }

    @Override
    public void update(final BatchContext c, final int[] gid) {
        final int n = c.n;
        final long a = c.viewAddr[slot];
        final long s = c.viewStride[slot];
        if (f64) {
            PercentileAcc.sortables(c, gid, slot, product, this::fold);
        } else if (gid == null) {
            updateGlobal(a, s, n);
        } else {
            updateGroups(a, s, n, gid);
        }
    }

    /** Integers and decimals, one group: the extreme in a register. */
    private void updateGlobal(final long a, final long s, final int n) {
        final long id = identity;
        long b = id;
        boolean hit = false;
        for (int i = 0; i < n; i++) {
            final long raw = NativeMemory.getLong(a + i * s);
            final long v = raw == Long.MIN_VALUE ? id : raw; // null never wins
            hit |= raw == id && raw != Long.MIN_VALUE;
            b = max ? Math.max(b, v) : Math.min(b, v);
        }
        best[0] = max ? Math.max(best[0], b) : Math.min(best[0], b);
        atIdentity[0] |= hit;
    }

    /** Integers and decimals by group: a store only when a row beats its group's extreme. */
    private void updateGroups(final long a, final long s, final int n, final int[] gid) {
        final long id = identity;
        final long[] bs = best;
        boolean hit = false;
        for (int i = 0; i < n; i++) {
            final long raw = NativeMemory.getLong(a + i * s);
            final long v = raw == Long.MIN_VALUE ? id : raw;
            hit |= raw == id && raw != Long.MIN_VALUE;
            final int g = gid[i];
            if (max ? v > bs[g] : v < bs[g]) {
                bs[g] = v;
            }
        }
        if (hit) { // a min that met Long.MAX_VALUE: its group has a value though its extreme looks untouched
            for (int i = 0; i < n; i++) {
                if (NativeMemory.getLong(a + i * s) == id) {
                    atIdentity[gid[i]] = true;
                }
            }
        }
    }

    /** @param g group. @param v a value, or another group's extreme (the identity when it has none). */
    private void fold(final int g, final long v) {
        if (max ? v > best[g] : v < best[g]) {
            best[g] = v;
        }
    }

    @Override
    public void merge(final int dst, final Acc src, final int srcGid) {
        final PercentileExtremeAcc o = (PercentileExtremeAcc) src;
        fold(dst, o.best[srcGid]);
        atIdentity[dst] |= o.atIdentity[srcGid];
    }

    @Override
    public Object result(final int gid, final long rows) {
        final long v = best[gid];
        if (v == identity && !atIdentity[gid]) {
            return null;
        }
        if (f64) {
            return PercentileAcc.unsortable(v);
        }
        return unit == 1.0 ? (double) v : v * unit;
    }
}
