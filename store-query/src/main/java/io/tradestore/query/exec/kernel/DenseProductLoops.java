package io.tradestore.query.exec.kernel;

import io.tradestore.core.memory.NativeMemory;
import io.tradestore.query.exec.BatchContext;

/**
 * {@link DenseSumKernel}'s loops for a sum of a product term (a*b: vwap's price x quantity, or sum(a*b)), one per key
 * shape (groups given, a byte, int, long or int x byte key) and null handling. They are hand-specialised on purpose:
 * the JIT unrolls and vectorises each monomorphic loop with constant strides, which one generic loop over the shapes
 * would not be. Each reads the kernel's partials into final locals first and adds into them; rows with a null go to the
 * kernel's exact path ({@link DenseSumKernel#endBatch}).
 */
final class DenseProductLoops {
    private DenseProductLoops() {
    }

    static void gidProduct(final DenseSumKernel d, final BatchContext c, final int n, final int[] gid, final long a0,
                           final long b0) {
        final long[] r = d.count;
        final boolean counting = d.counting;
        final long[] s0 = d.sum0;
        final int[] nulls = d.nullRows;
        int k = 0;
        long t0 = 0;
        for (int i = 0; i < n; i++) {
            final int g = gid[i];
            final long x = NativeMemory.getLong(a0 + 8L * i);
            final long y = NativeMemory.getLong(b0 + 8L * i);
            if (x == Long.MIN_VALUE | y == Long.MIN_VALUE) {
                nulls[k++] = i;
            } else if (counting) {
                r[g]++;
                s0[g] += x * y;
            } else {
                s0[g] += x * y;
                t0 += x * y;
            }
        }
        d.endBatch(c, k, gid, t0);
    }

    static void byteProduct(final DenseSumKernel d, final BatchContext c, final int n, final long ka, final long a0,
                            final long b0) {
        final long[] r = d.count;
        final boolean counting = d.counting;
        final long[] s0 = d.sum0;
        final int[] nulls = d.nullRows;
        int k = 0;
        long t0 = 0;
        for (int i = 0; i < n; i++) {
            final int g = NativeMemory.getByte(ka + i) & 0xFF;
            final long x = NativeMemory.getLong(a0 + 8L * i);
            final long y = NativeMemory.getLong(b0 + 8L * i);
            if (x == Long.MIN_VALUE | y == Long.MIN_VALUE) {
                nulls[k++] = i;
            } else if (counting) {
                r[g]++;
                s0[g] += x * y;
            } else {
                s0[g] += x * y;
                t0 += x * y;
            }
        }
        d.endBatch(c, k, null, t0);
    }

    /**
     * {@link #byteProduct} for an even batch whose term columns hold no null ({@link DenseSumKernel#nullFree}): no test
     * per row, and the batch's two halves run side by side, row i and row h + i in one step: two independent chains of
     * loads and adds in flight at once (docs/query-engine.md, "The fused dense kernel").
     */
    static void byteProductFree(final DenseSumKernel d, final BatchContext c, final int n, final long ka, final long a0,
                                final long b0) {
        final long[] r = d.count;
        final boolean counting = d.counting;
        final long[] s0 = d.sum0;
        final int h = n >>> 1;
        final long kb = ka + h;
        final long a1 = a0 + 8L * h;
        final long b1 = b0 + 8L * h;
        final long[] r2 = d.count2;
        final long[] s0b = d.sum0b;
        d.split = true;
        long t0 = 0;
        for (int i = 0; i < h; i++) {
            final int g = NativeMemory.getByte(ka + i) & 0xFF;
            final long p = NativeMemory.getLong(a0 + 8L * i) * NativeMemory.getLong(b0 + 8L * i);
            final int g2 = NativeMemory.getByte(kb + i) & 0xFF;
            final long p2 = NativeMemory.getLong(a1 + 8L * i) * NativeMemory.getLong(b1 + 8L * i);
            if (counting) {
                r[g]++;
                s0[g] += p;
                r2[g2]++;
                s0b[g2] += p2;
            } else {
                s0[g] += p;
                s0b[g2] += p2;
                t0 += p + p2;
            }
        }
        d.endBatch(c, 0, null, t0);
    }

    static void intProduct(final DenseSumKernel d, final BatchContext c, final int n, final long ka, final int nul,
                           final int lo, final long a0, final long b0) {
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
            final long y = NativeMemory.getLong(b0 + 8L * i);
            if (x == Long.MIN_VALUE | y == Long.MIN_VALUE) {
                nulls[k++] = i;
            } else if (counting) {
                r[g]++;
                s0[g] += x * y;
            } else {
                s0[g] += x * y;
                t0 += x * y;
            }
        }
        d.endBatch(c, k, null, t0);
    }

    /**
     * {@link #longProduct} for an even batch whose term columns hold no null, its halves side by side as in
     * {@link #byteProductFree} (query 5).
     */
    static void longProductFree(final DenseSumKernel d, final BatchContext c, final int n, final long ka,
                                final long nul, final long lo, final long a0, final long b0) {
        final long[] r = d.count;
        final boolean counting = d.counting;
        final long[] s0 = d.sum0;
        final int h = n >>> 1;
        final long hb = 8L * h;
        final long[] r2 = d.count2;
        final long[] s0b = d.sum0b;
        d.split = true;
        long t0 = 0;
        for (int i = 0; i < h; i++) {
            final long o = 8L * i;
            final long v = NativeMemory.getLong(ka + o);
            final int g = (int) (v == nul ? 0 : v - lo);
            final long p = NativeMemory.getLong(a0 + o) * NativeMemory.getLong(b0 + o);
            final long v2 = NativeMemory.getLong(ka + hb + o);
            final int g2 = (int) (v2 == nul ? 0 : v2 - lo);
            final long p2 = NativeMemory.getLong(a0 + hb + o) * NativeMemory.getLong(b0 + hb + o);
            if (counting) {
                r[g]++;
                s0[g] += p;
                r2[g2]++;
                s0b[g2] += p2;
            } else {
                s0[g] += p;
                s0b[g2] += p2;
                t0 += p + p2;
            }
        }
        d.endBatch(c, 0, null, t0);
    }

    static void longProduct(final DenseSumKernel d, final BatchContext c, final int n, final long ka, final long nul,
                            final long lo, final long a0, final long b0) {
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
            final long y = NativeMemory.getLong(b0 + 8L * i);
            if (x == Long.MIN_VALUE | y == Long.MIN_VALUE) {
                nulls[k++] = i;
            } else if (counting) {
                r[g]++;
                s0[g] += x * y;
            } else {
                s0[g] += x * y;
                t0 += x * y;
            }
        }
        d.endBatch(c, k, null, t0);
    }

    static void intByteProduct(final DenseSumKernel d, final BatchContext c, final int n, final long ka, final int nul,
                               final int lo, final int mult, final long kb, final long a0, final long b0) {
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
            final long y = NativeMemory.getLong(b0 + 8L * i);
            if (x == Long.MIN_VALUE | y == Long.MIN_VALUE) {
                nulls[k++] = i;
            } else if (counting) {
                r[g]++;
                s0[g] += x * y;
            } else {
                s0[g] += x * y;
                t0 += x * y;
            }
        }
        d.endBatch(c, k, null, t0);
    }
}
