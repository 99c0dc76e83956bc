package io.tradestore.query.exec.filter;

import java.util.Arrays;

import io.tradestore.core.memory.NativeMemory;
import io.tradestore.core.segment.Segment;
import io.tradestore.query.exec.BatchContext;

/** A range or a set on an f64 column (or their negation); NaN (null) never passes. */
public final class DoubleFilter extends FilterNode {
    final int col;
    final double lo;
    final boolean loInclusive;
    final double hi;
    final boolean hiInclusive;
    final double[] set;
    final boolean negated;

    public DoubleFilter(final int col, final double lo, final boolean loInclusive, final double hi,
        final boolean hiInclusive,
        final double[] set,
                 final boolean negated) {
        this.col = col;
        this.lo = lo;
        this.loInclusive = loInclusive;
        this.hi = hi;
        this.hiInclusive = hiInclusive;
        this.set = set;
        this.negated = negated;
    }

    @Override
    int column() {
        return col;
    }

    private boolean test(final double v) {
        if (set != null) {
            return Arrays.binarySearch(set, v == 0.0 ? 0.0 : v) >= 0;
        }
        return (v > lo || loInclusive && v == lo) && (v < hi || hiInclusive && v == hi);
    }

    @Override
    public int apply(final BatchContext c, final int start, final int n, final int[] sel, final int[] out) {
        final long a = c.base[col];
        final long s = c.stride[col];
        int k = 0;
        for (int i = 0; i < n; i++) {
            final int r = sel == null ? start + i : sel[i];
            final double v = NativeMemory.getDouble(a + r * s);
            out[k] = r;
            k += (v == v & test(v) != negated) ? 1 : 0;
        }
        return k;
    }

    @Override
    public boolean mayMatch(final Segment s, final int block) {
        final double zmin = Double.longBitsToDouble(s.zoneMin(block, col));
        final double zmax = Double.longBitsToDouble(s.zoneMax(block, col));
        if (!(zmin <= zmax)) {
            return false;
        }
        if (negated || set != null) {
            return true;
        }
        return !(zmax < lo || !loInclusive && zmax == lo || zmin > hi || !hiInclusive && zmin == hi);
    }
}
