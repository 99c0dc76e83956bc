package io.tradestore.query.exec.kernel;

import io.tradestore.core.memory.NativeMemory;

/**
 * Copies a batch of one column into off-heap scratch as longs, widening narrow types and mapping their null to
 * Long.MIN_VALUE.
 */
public final class Gather {
    private Gather() {
    }

    public static void gather(final int width, final long nul, final long base, final long stride, final int start,
        final int[] sel,
                       final int n, final long dst) {
        switch (width) {
            case 8:
                if (sel == null) {
                    for (int i = 0; i < n; i++) {
                        NativeMemory.putLong(dst + ((long) i << 3), NativeMemory.getLong(base + (start + i) * stride));
                    }
                } else {
                    for (int i = 0; i < n; i++) {
                        NativeMemory.putLong(dst + ((long) i << 3), NativeMemory.getLong(base + sel[i] * stride));
                    }
                }
                break;
            case 4:
                for (int i = 0; i < n; i++) {
                    final long v = NativeMemory.getInt(base + (sel == null ? start + i : sel[i]) * stride);
                    NativeMemory.putLong(dst + ((long) i << 3), v == nul ? Long.MIN_VALUE : v);
                }
                break;
            case 2:
                for (int i = 0; i < n; i++) {
                    final long v = NativeMemory.getShort(base + (sel == null ? start + i : sel[i]) * stride);
                    NativeMemory.putLong(dst + ((long) i << 3), v == nul ? Long.MIN_VALUE : v);
                }
                break;
            case 1:
                for (int i = 0; i < n; i++) {
                    final long v = NativeMemory.getByte(base + (sel == null ? start + i : sel[i]) * stride);
                    NativeMemory.putLong(dst + ((long) i << 3), v == nul ? Long.MIN_VALUE : v);
                }
                break;
            default:
                throw new IllegalStateException("width=" + width);
        }
    }

    /**
     * Gathers the selected rows of two 8-byte columns in one loop: both columns' cache misses of a row are in flight
     * together (one pass per column left fewer misses overlapping; query 6 reads price and quantity of rows ~600 bytes
     * apart, a miss apiece).
     */
    public static void gather2(final long baseA, final long strideA, final long dstA, final long baseB,
        final long strideB,
        final long dstB, final int[] sel,
                        final int n) {
        for (int i = 0; i < n; i++) {
            final long r = sel[i];
            final long a = NativeMemory.getLong(baseA + r * strideA);
            final long b = NativeMemory.getLong(baseB + r * strideB);
            NativeMemory.putLong(dstA + ((long) i << 3), a);
            NativeMemory.putLong(dstB + ((long) i << 3), b);
        }
    }
}
