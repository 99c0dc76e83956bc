package io.tradestore.query.exec.kernel;

import io.tradestore.core.memory.NativeMemory;
import io.tradestore.query.exec.BatchContext;

/**
 * {@link DenseSumKernel}'s loops for a sum of one plain column term (sum(quantity)), one per key shape (groups given, a
 * byte, int, long or int x byte key) and null handling. They are hand-specialised on purpose: the JIT unrolls and
 * vectorises each monomorphic loop with constant strides, which one generic loop over the shapes would not be. Each
 * reads the kernel's partials into final locals first and adds into them; rows with a null go to the kernel's exact
 * path ({@link DenseSumKernel#endBatch}).
 */
final class DensePlainLoops {
    private DensePlainLoops() {
    }

    static void gidPlain(final DenseSumKernel d, final BatchContext c, final int n, final int[] gid, final long a0) {
        final long[] r = d.count;
        final boolean counting = d.counting;
        final long[] s0 = d.sum0;
        final int[] nulls = d.nullRows;
        int k = 0;
        long t0 = 0;
        for (int i = 0; i < n; i++) {
            final int g = gid[i];
            final long x = NativeMemory.getLong(a0 + 8L * i);
            if (x == Long.MIN_VALUE) {
                nulls[k++] = i;
            } else if (counting) {
                r[g]++;
                s0[g] += x;
            } else {
                s0[g] += x;
                t0 += x;
            }
        }
        d.endBatch(c, k, gid, t0);
    }

    static void bytePlain(final DenseSumKernel d, final BatchContext c, final int n, final long ka, final long a0) {
        final long[] r = d.count;
        final boolean counting = d.counting;
        final long[] s0 = d.sum0;
        final int[] nulls = d.nullRows;
        int k = 0;
        long t0 = 0;
        for (int i = 0; i < n; i++) {
            final int g = NativeMemory.getByte(ka + i) & 0xFF;
            final long x = NativeMemory.getLong(a0 + 8L * i);
            if (x == Long.MIN_VALUE) {
                nulls[k++] = i;
            } else if (counting) {
                r[g]++;
                s0[g] += x;
            } else {
                s0[g] += x;
                t0 += x;
            }
        }
        d.endBatch(c, k, null, t0);
    }

    static void intPlain(final DenseSumKernel d, final BatchContext c, final int n, final long ka, final int nul,
                         final int lo, final long a0) {
        final long[] r = d.count;
        final boolean counting = d.counting;
        final long[] s0 = d.sum0;
        final int[] nulls = d.nullRows;
        int k = 0;
        long t0 = 0;
        for (int i = 0; i < n; i++) {
            final int v = NativeMemory.getInt(ka + 4L * i);
            final int g = v == nul ? 0 : v - lo;
            final long x = NativeMemory.getLong(a0 + 8L * i);
            if (x == Long.MIN_VALUE) {
                nulls[k++] = i;
            } else if (counting) {
                r[g]++;
                s0[g] += x;
            } else {
                s0[g] += x;
                t0 += x;
            }
        }
        d.endBatch(c, k, null, t0);
    }

    static void longPlain(final DenseSumKernel d, final BatchContext c, final int n, final long ka, final long nul,
                          final long lo, final long a0) {
        final long[] r = d.count;
        final boolean counting = d.counting;
        final long[] s0 = d.sum0;
        final int[] nulls = d.nullRows;
        int k = 0;
        long t0 = 0;
        for (int i = 0; i < n; i++) {
            final long v = NativeMemory.getLong(ka + 8L * i);
            final int g = (int) (v == nul ? 0 : v - lo);
            final long x = NativeMemory.getLong(a0 + 8L * i);
            if (x == Long.MIN_VALUE) {
                nulls[k++] = i;
            } else if (counting) {
                r[g]++;
                s0[g] += x;
            } else {
                s0[g] += x;
                t0 += x;
            }
        }
        d.endBatch(c, k, null, t0);
    }

    /**
     * {@link #intBytePlain} for an even batch whose term column holds no null, its halves side by side as in
     * {@link DenseProductLoops#byteProductFree} (query 4).
     */
    static void intBytePlainFree(final DenseSumKernel d, final BatchContext c, final int n, final long ka,
                                 final int nul, final int lo, final int mult, final long kb, final long a0) {
        final long[] r = d.count;
        final boolean counting = d.counting;
        final long[] s0 = d.sum0;
        final int h = n >>> 1;
        final long[] r2 = d.count2;
        final long[] s0b = d.sum0b;
        d.split = true;
        long t0 = 0;
        for (int i = 0; i < h; i++) {
            final int v = NativeMemory.getInt(ka + 4L * i);
            final int g = (v == nul ? 0 : v - lo) * mult + (NativeMemory.getByte(kb + i) & 0xFF);
            final long x = NativeMemory.getLong(a0 + 8L * i);
            final int v2 = NativeMemory.getInt(ka + 4L * (h + i));
            final int g2 = (v2 == nul ? 0 : v2 - lo) * mult + (NativeMemory.getByte(kb + h + i) & 0xFF);
            final long x2 = NativeMemory.getLong(a0 + 8L * (h + i));
            if (counting) {
                r[g]++;
                s0[g] += x;
                r2[g2]++;
                s0b[g2] += x2;
            } else {
                s0[g] += x;
                s0b[g2] += x2;
                t0 += x + x2;
            }
        }
        d.endBatch(c, 0, null, t0);
    }

    static void intBytePlain(final DenseSumKernel d, final BatchContext c, final int n, final long ka, final int nul,
                             final int lo, final int mult, final long kb, final long a0) {
        final long[] r = d.count;
        final boolean counting = d.counting;
        final long[] s0 = d.sum0;
        final int[] nulls = d.nullRows;
        int k = 0;
        long t0 = 0;
        for (int i = 0; i < n; i++) {
            final int v = NativeMemory.getInt(ka + 4L * i);
            final int g = (v == nul ? 0 : v - lo) * mult + (NativeMemory.getByte(kb + i) & 0xFF);
            final long x = NativeMemory.getLong(a0 + 8L * i);
            if (x == Long.MIN_VALUE) {
                nulls[k++] = i;
            } else if (counting) {
                r[g]++;
                s0[g] += x;
            } else {
                s0[g] += x;
                t0 += x;
            }
        }
        d.endBatch(c, k, null, t0);
    }
}
