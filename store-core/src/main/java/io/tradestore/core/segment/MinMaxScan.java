package io.tradestore.core.segment;

import io.tradestore.core.memory.NativeMemory;
import io.tradestore.core.schema.Column;

/**
 * The min/max scans that build a segment's zone maps, one loop per stored width, kept apart from the segment's file
 * and zone-map bookkeeping because they are tuned for the append path on their own.
 */
final class MinMaxScan {
    private MinMaxScan() {
    }

    /**
     * Min and max of {@code n} values of column {@code c} at {@code a}, {@code stride} bytes apart (see {@link
     * Segment#minMax(Column, int, int)}).
     */
    static long[] minMax(final Column c, final long a, final int n, final long stride) {
        switch (c.type()) {
            case I8:
            case CHAR:
                return minMaxNarrow(a, n, stride, 1, c.type().nullBits());
            case I16:
                return minMaxShorts(a, n, stride);
            case I32:
            case SYMBOL:
                return minMaxNarrow(a, n, stride, 4, c.type().nullBits());
            case F64:
                return minMaxDoubles(a, n, stride);
            default:
                return minMaxLongs(a, n, stride);
        }
    }

    // The min/max loops run once per block of appended rows for every column, so they are a visible part of the
    // append cost: branch-free selects (nulls become the identity of min and max) and two independent accumulator
    // pairs, so that the loop-carried dependency chains do not set the pace.

    private static long[] minMaxLongs(final long address, final int n, final long stride) {
        // the null sentinel Long.MIN_VALUE becomes Long.MAX_VALUE in v - 1 (every other value keeps its order), so the
        // min needs no select; it never raises a max. The two halves of the range run side by side.
        long min0 = Long.MAX_VALUE;
        long max0 = Long.MIN_VALUE;
        long min1 = Long.MAX_VALUE;
        long max1 = Long.MIN_VALUE;
        final int h = n >>> 1;
        final long half = h * stride;
        long a = address;
        for (int i = 0; i < h; i++, a += stride) {
            final long v0 = NativeMemory.getLong(a);
            final long v1 = NativeMemory.getLong(a + half);
            min0 = Math.min(min0, v0 - 1);
            max0 = Math.max(max0, v0);
            min1 = Math.min(min1, v1 - 1);
            max1 = Math.max(max1, v1);
        }
        if ((n & 1) != 0) {
            final long v = NativeMemory.getLong(address + (n - 1) * stride);
            min0 = Math.min(min0, v - 1);
            max0 = Math.max(max0, v);
        }
        // an all-null range keeps (MAX, MIN): a min of MAX - 1 + 1 is a real value MAX
        final long min = Math.min(min0, min1);
        return new long[] {min == Long.MAX_VALUE ? Long.MAX_VALUE : min + 1, Math.max(max0, max1)};
    }

    /**
     * One-byte (width 1) or four-byte (width 4) values, two min/max pairs, as the wider widths have, so every width
     * has the same loop shape.
     */
    private static long[] minMaxNarrow(final long address, final int n, final long stride, final int width,
        final long nul) {
        long min0 = Long.MAX_VALUE;
        long max0 = Long.MIN_VALUE;
        long min1 = Long.MAX_VALUE;
        long max1 = Long.MIN_VALUE;
        long a = address;
        int i = 0;
        for (; i + 1 < n; i += 2, a += 2 * stride) {
            final long v0 = width == 1 ? NativeMemory.getByte(a) : NativeMemory.getInt(a);
            final long v1 = width == 1 ? NativeMemory.getByte(a + stride) : NativeMemory.getInt(a + stride);
            min0 = Math.min(min0, v0 == nul ? Long.MAX_VALUE : v0);
            max0 = Math.max(max0, v0 == nul ? Long.MIN_VALUE : v0);
            min1 = Math.min(min1, v1 == nul ? Long.MAX_VALUE : v1);
            max1 = Math.max(max1, v1 == nul ? Long.MIN_VALUE : v1);
        }
        if (i < n) {
            final long v = width == 1 ? NativeMemory.getByte(a) : NativeMemory.getInt(a);
            min0 = Math.min(min0, v == nul ? Long.MAX_VALUE : v);
            max0 = Math.max(max0, v == nul ? Long.MIN_VALUE : v);
        }
        return new long[] {Math.min(min0, min1), Math.max(max0, max1)};
    }

    private static long[] minMaxShorts(final long address, final int n, final long stride) {
        long min = Long.MAX_VALUE;
        long max = Long.MIN_VALUE;
        long a = address;
        for (int i = 0; i < n; i++, a += stride) {
            final long v = NativeMemory.getShort(a);
            min = Math.min(min, v == Short.MIN_VALUE ? Long.MAX_VALUE : v);
            max = Math.max(max, v == Short.MIN_VALUE ? Long.MIN_VALUE : v);
        }
        return new long[] {min, max};
    }

    private static long[] minMaxDoubles(final long address, final int n, final long stride) {
        double min = Double.POSITIVE_INFINITY;
        double max = Double.NEGATIVE_INFINITY;
        long a = address;
        for (int i = 0; i < n; i++, a += stride) {
            final double v = NativeMemory.getDouble(a);
            if (v == v) {
                min = Math.min(min, v);
                max = Math.max(max, v);
            }
        }
        return new long[] {Double.doubleToRawLongBits(min), Double.doubleToRawLongBits(max)};
    }
}
