package io.tradestore.query.exec.filter;

import io.tradestore.core.memory.NativeMemory;
import io.tradestore.query.exec.BatchContext;

/**
 * A filter on a column whose values in the current segment lie within 63 of each other (a venue's or a side's codes):
 * one 64-bit word holds the answer for each value, bit {@code v - base}, and a row costs a load, a shift and an add.
 * Null takes the bit at its shifted position, which must lie past the values' positions (then it stays clear).
 */
final class SpanWord {
    private SpanWord() {
    }

    /**
     * @param c   the worker context (the segment's zone map).
     * @param col a column.
     * @param nul its null sentinel.
     * @return whether the segment's values of the column fit in one word with null's position clear of theirs.
     */
    static boolean fits(final BatchContext c, final int col, final long nul) {
        final long zmin = c.zoneMin[col];
        final long zmax = c.zoneMax[col];
        final long span = zmax - zmin;
        return zmin <= zmax && span >= 0 && span < 63 && ((nul - zmin) & 63) > span;
    }

    /**
     * @param span the values' span ({@code zoneMax - zoneMin}, below 63).
     * @param w    the positions that pass. @return those positions negated within {@code [0, span]}.
     */
    static long negate(final long span, final long w) {
        return ~w & (-1L >>> (63 - span));
    }

    /**
     * Writes the rows whose bit is set.
     *
     * @param c     the worker context.
     * @param col   the column.
     * @param width its width in bytes.
     * @param word  bit {@code v - base} set when value {@code v} passes.
     * @param base  the segment's smallest value.
     * @param start first row of a dense batch.
     * @param n     rows in the batch.
     * @param sel   the batch's rows, or null for the dense range.
     * @param out   passing rows.
     * @return the number of passing rows.
     */
    static int apply(final BatchContext c, final int col, final int width, final long word, final long base,
        final int start, final int n, final int[] sel, final int[] out) {
        final long a = c.base[col];
        final long s = c.stride[col];
        int k = 0;
        if (width == 4) {
            for (int i = 0; i < n; i++) {
                final int r = sel == null ? start + i : sel[i];
                out[k] = r;
                k += (int) ((word >>> (NativeMemory.getInt(a + r * s) - base)) & 1);
            }
        } else if (width == 1) {
            for (int i = 0; i < n; i++) {
                final int r = sel == null ? start + i : sel[i];
                out[k] = r;
                k += (int) ((word >>> (NativeMemory.getByte(a + r * s) - base)) & 1);
            }
        } else {
            for (int i = 0; i < n; i++) {
                final int r = sel == null ? start + i : sel[i];
                out[k] = r;
                k += (int) ((word >>> (NativeMemory.getSigned(a + r * s, width) - base)) & 1);
            }
        }
        return k;
    }
}
