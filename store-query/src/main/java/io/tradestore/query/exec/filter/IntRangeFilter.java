package io.tradestore.query.exec.filter;

import io.tradestore.core.memory.NativeMemory;
import io.tradestore.core.segment.Segment;
import io.tradestore.query.exec.BatchContext;
import io.tradestore.query.exec.kernel.NullFreeBlocks;

/** {@code lo <= v <= hi} (or its negation) on an integral column of any width; null never passes. Branch-free loops. */
public final class IntRangeFilter extends FilterNode {
    public final int col;
    final int width;
    final long nul;
    public final long lo;
    public final long hi;
    public final boolean negated;

    public IntRangeFilter(final int col, final int width, final long nul, final long lo, final long hi,
        final boolean negated) {
        this.col = col;
        this.width = width;
        this.nul = nul;
        this.lo = lo;
        this.hi = hi;
        this.negated = negated;
    }

    @Override
    int column() {
        return col;
    }

    @Override
    public int apply(final BatchContext c, final int start, final int n, final int[] sel, final int[] out) {
        final long a = c.base[col];
        final long s = c.stride[col];
        final long l = lo;
        final long h = hi;
        final long z = nul;
        final boolean neg = negated;
        int k = 0;
        switch (width) {
            case 8:
                if (sel == null) {
                    for (int i = 0; i < n; i++) {
                        final int r = start + i;
                        final long v = NativeMemory.getLong(a + r * s);
                        out[k] = r;
                        k += (v != z & (v >= l & v <= h) != neg) ? 1 : 0;
                    }
                } else {
                    for (int i = 0; i < n; i++) {
                        final int r = sel[i];
                        final long v = NativeMemory.getLong(a + r * s);
                        out[k] = r;
                        k += (v != z & (v >= l & v <= h) != neg) ? 1 : 0;
                    }
                }
                break;
            case 4:
                for (int i = 0; i < n; i++) {
                    final int r = sel == null ? start + i : sel[i];
                    final long v = NativeMemory.getInt(a + r * s);
                    out[k] = r;
                    k += (v != z & (v >= l & v <= h) != neg) ? 1 : 0;
                }
                break;
            case 2:
                for (int i = 0; i < n; i++) {
                    final int r = sel == null ? start + i : sel[i];
                    final long v = NativeMemory.getShort(a + r * s);
                    out[k] = r;
                    k += (v != z & (v >= l & v <= h) != neg) ? 1 : 0;
                }
                break;
            default:
                for (int i = 0; i < n; i++) {
                    final int r = sel == null ? start + i : sel[i];
                    final long v = NativeMemory.getByte(a + r * s);
                    out[k] = r;
                    k += (v != z & (v >= l & v <= h) != neg) ? 1 : 0;
                }
                break;
        }
        return k;
    }

    @Override
    public boolean passesAll(final Segment s, final int block, final int blockRows, final int rows) {
        if (negated || lo > hi) {
            return false;
        }
        final long zmin = s.zoneMin(block, col);
        final long zmax = s.zoneMax(block, col);
        return zmin <= zmax && zmin >= lo && zmax <= hi
            && NullFreeBlocks.nullFree(s, col, width, nul, block, blockRows, rows);
    }

    @Override
    public boolean mayMatch(final Segment s, final int block) {
        final long zmin = s.zoneMin(block, col);
        final long zmax = s.zoneMax(block, col);
        if (zmin > zmax) {
            return false;
        }
        if (negated) {
            return !(zmin >= lo && zmax <= hi);
        }
        return lo <= hi && zmax >= lo && zmin <= hi;
    }
}
