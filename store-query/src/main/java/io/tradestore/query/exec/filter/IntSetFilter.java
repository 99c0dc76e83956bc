package io.tradestore.query.exec.filter;

import java.util.Arrays;

import io.tradestore.core.memory.NativeMemory;
import io.tradestore.core.segment.Segment;
import io.tradestore.query.exec.BatchContext;

/**
 * {@code v IN (set)} (or NOT IN) on an integral column: a bitset over the set's range when it is small (symbol codes,
 * chars), else a compare with each of a few values, or a binary search of the sorted values. Null never passes.
 */
public final class IntSetFilter extends FilterNode {
    private static final long BITSET_MAX_RANGE = 1L << 20;
    /** Values up to which a set too wide for a bitset is compared one by one rather than searched. */
    private static final int SMALL_SET = 8;
    public final int col;
    final int width;
    final long nul;
    public final long[] values;
    public final boolean negated;
    private final long min;
    private final long max;
    private final long[] bits;

    public IntSetFilter(final int col, final int width, final long nul, final long[] sortedDistinct,
        final boolean negated) {
        this.col = col;
        this.width = width;
        this.nul = nul;
        this.values = sortedDistinct;
        this.negated = negated;
        this.min = values.length == 0 ? 0 : values[0];
        this.max = values.length == 0 ? -1 : values[values.length - 1];
        if (values.length > 0 && max - min >= 0 && max - min < BITSET_MAX_RANGE) {
            bits = new long[(int) ((max - min) >>> 6) + 1];
            for (final long v : values) {
                bits[(int) ((v - min) >>> 6)] |= 1L << (v - min);
            }
        } else {
            bits = null;
        }
    }

    @Override
    int column() {
        return col;
    }

    private boolean contains(final long v) {
        if (bits != null) {
            final long d = v - min;
            return d >= 0 && d <= max - min && (bits[(int) (d >>> 6)] & (1L << d)) != 0;
        }
        return Arrays.binarySearch(values, v) >= 0;
    }

    @Override
    public int apply(final BatchContext c, final int start, final int n, final int[] sel, final int[] out) {
        if (SpanWord.fits(c, col, nul)) {
            final long base = c.zoneMin[col];
            final long span = c.zoneMax[col] - base;
            long w = 0;
            for (final long v : values) {
                if (v >= base && v - base <= span) {
                    w |= 1L << (v - base);
                }
            }
            return SpanWord.apply(c, col, width, negated ? SpanWord.negate(span, w) : w, base, start, n, sel, out);
        }
        if (bits == null) {
            return applySearched(c, start, n, sel, out);
        }
        final long a = c.base[col];
        final long s = c.stride[col];
        final long z = nul;
        final long neg = negated ? 1 : 0;
        final long m = min;
        final long span = max - min;
        final long[] b = bits;
        int k = 0;
        for (int i = 0; i < n; i++) {
            final int r = sel == null ? start + i : sel[i];
            // symbols (4 bytes) are read directly, without going through the width switch per row
            final long v = width == 4 ? NativeMemory.getInt(a + r * s) : NativeMemory.getSigned(a + r * s, width);
            // outside the set's range reads word 0 and masks the bit away, so no row takes a branch
            final long d = v - m;
            final long inRange = Branchless.atMostUnsigned(d, span);
            final long at = d & -inRange;
            final long bit = (b[(int) (at >>> 6)] >>> at) & inRange;
            out[k] = r;
            k += (int) ((bit ^ neg) & Branchless.nonZero(v ^ z));
        }
        return k;
    }

    private int applySearched(final BatchContext c, final int start, final int n, final int[] sel, final int[] out) {
        final long a = c.base[col];
        final long s = c.stride[col];
        final long z = nul;
        final boolean neg = negated;
        int k = 0;
        if (values.length <= SMALL_SET && width == 8) {
            // a few timestamps or ids: compares with no branch per row, where a binary search mispredicts each
            // row's path
            final long[] vs = values;
            for (int i = 0; i < n; i++) {
                final int r = sel == null ? start + i : sel[i];
                final long v = NativeMemory.getLong(a + r * s);
                boolean in = false;
                for (final long x : vs) {
                    in |= v == x;
                }
                out[k] = r;
                k += (v != z & in != neg) ? 1 : 0;
            }
            return k;
        }
        for (int i = 0; i < n; i++) {
            final int r = sel == null ? start + i : sel[i];
            final long v = NativeMemory.getSigned(a + r * s, width);
            out[k] = r;
            k += (v != z & contains(v) != neg) ? 1 : 0;
        }
        return k;
    }

    @Override
    public boolean mayMatch(final Segment s, final int block) {
        final long zmin = s.zoneMin(block, col);
        final long zmax = s.zoneMax(block, col);
        if (zmin > zmax) {
            return false;
        }
        if (negated) {
            return !(zmin == zmax && contains(zmin));
        }
        int i = Arrays.binarySearch(values, zmin);
        if (i < 0) {
            i = -i - 1;
        }
        return i < values.length && values[i] <= zmax;
    }
}
