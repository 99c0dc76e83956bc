package io.tradestore.query.exec.filter;

import io.tradestore.core.memory.NativeMemory;
import io.tradestore.core.segment.Segment;
import io.tradestore.query.exec.BatchContext;
import io.tradestore.query.exec.kernel.NullFreeBlocks;

/**
 * {@code lo <= v <= hi} (or its negation) on an integral column of any width; null never passes. Branch-free loops
 * unless rows all go one way.
 */
public final class IntRangeFilter extends FilterNode {
    /** Rows of a batch tried first, to tell whether a branch per row would be predicted. */
    static final int SAMPLE = 64;
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
        // an empty range becomes [null, null], which no non-null value is in: one loop serves both
        final long l = lo <= hi ? lo : nul;
        final long h = lo <= hi ? hi : nul;
        final int head = Math.min(n, SAMPLE);
        final int k = branchless(a, s, start, 0, head, sel, out, 0, l, h);
        if (head == n) {
            return k;
        }
        // a branch is cheaper only when it is predicted: when (nearly) every row of the sample went the same way
        return k <= 1 || k >= head - 1 ? branchy(a, s, start, head, n, sel, out, k, l, h)
            : branchless(a, s, start, head, n, sel, out, k, l, h);
    }

    /** Rows {@code [from, to)} of the batch, without a branch per row (rows pass at random). */
    private int branchless(final long a, final long s, final int start, final int from, final int to,
        final int[] sel, final int[] out, final int passed, final long l, final long h) {
        final long span = h - l;
        final long z = nul;
        final long neg = negated ? 1 : 0;
        int k = passed;
        switch (width) {
            case 8:
                for (int i = from; i < to; i++) {
                    final int r = sel == null ? start + i : sel[i];
                    final long v = NativeMemory.getLong(a + r * s);
                    out[k] = r;
                    k += (int) ((Branchless.inSpan(v, l, span) ^ neg) & Branchless.nonZero(v ^ z));
                }
                break;
            case 4:
                for (int i = from; i < to; i++) {
                    final int r = sel == null ? start + i : sel[i];
                    final long v = NativeMemory.getInt(a + r * s);
                    out[k] = r;
                    k += (int) ((Branchless.inSpan(v, l, span) ^ neg) & Branchless.nonZero(v ^ z));
                }
                break;
            case 2:
                for (int i = from; i < to; i++) {
                    final int r = sel == null ? start + i : sel[i];
                    final long v = NativeMemory.getShort(a + r * s);
                    out[k] = r;
                    k += (int) ((Branchless.inSpan(v, l, span) ^ neg) & Branchless.nonZero(v ^ z));
                }
                break;
            default:
                for (int i = from; i < to; i++) {
                    final int r = sel == null ? start + i : sel[i];
                    final long v = NativeMemory.getByte(a + r * s);
                    out[k] = r;
                    k += (int) ((Branchless.inSpan(v, l, span) ^ neg) & Branchless.nonZero(v ^ z));
                }
                break;
        }
        return k;
    }

    /** Rows {@code [from, to)} of the batch with a compare and branch per row (rows nearly all pass or all fail). */
    private int branchy(final long a, final long s, final int start, final int from, final int to,
        final int[] sel, final int[] out, final int passed, final long l, final long h) {
        final long z = nul;
        final boolean neg = negated;
        int k = passed;
        switch (width) {
            case 8:
                for (int i = from; i < to; i++) {
                    final int r = sel == null ? start + i : sel[i];
                    final long v = NativeMemory.getLong(a + r * s);
                    out[k] = r;
                    k += (v != z & (v >= l & v <= h) != neg) ? 1 : 0;
                }
                break;
            case 4:
                for (int i = from; i < to; i++) {
                    final int r = sel == null ? start + i : sel[i];
                    final long v = NativeMemory.getInt(a + r * s);
                    out[k] = r;
                    k += (v != z & (v >= l & v <= h) != neg) ? 1 : 0;
                }
                break;
            default:
                for (int i = from; i < to; i++) {
                    final int r = sel == null ? start + i : sel[i];
                    final long v = NativeMemory.getSigned(a + r * s, width);
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
