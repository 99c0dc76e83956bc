package io.tradestore.query.exec.kernel;

import io.tradestore.core.memory.NativeMemory;
import io.tradestore.query.exec.BatchContext;

/**
 * {@link DenseSumKernel}'s loops for a product term and a plain term together (vwap: price x quantity and quantity),
 * one per key shape (groups given, a byte, int, long or int x byte key) and null handling. They are hand-specialised on
 * purpose: the JIT unrolls and vectorises each monomorphic loop with constant strides, which one generic loop over the
 * shapes would not be. Each reads the kernel's partials into final locals first and adds into them; rows with a null go
 * to the kernel's exact path ({@link DenseSumKernel#endBatch}).
 */
final class DenseProductPlainLoops {
    private DenseProductPlainLoops() {
    }

    static void gidProductPlain(final DenseSumKernel d, final BatchContext c, final int n, final int[] gid,
                                final long a0, final long b0, final long a1) {
        final long[] r = d.count;
        final long[] s0 = d.sum0;
        final long[] s1 = d.sum1;
        final int[] nulls = d.nullRows;
        int k = 0;
        for (int i = 0; i < n; i++) {
            final int g = gid[i];
            final long x = NativeMemory.getLong(a0 + 8L * i);
            final long y = NativeMemory.getLong(b0 + 8L * i);
            final long u = NativeMemory.getLong(a1 + 8L * i);
            if (x == Long.MIN_VALUE | y == Long.MIN_VALUE | u == Long.MIN_VALUE) {
                nulls[k++] = i;
            } else {
                r[g]++;
                s0[g] += x * y;
                s1[g] += u;
            }
        }
        d.endBatch(c, k, gid, DenseSumKernel.UNKNOWN);
    }

    static void byteProductPlain(final DenseSumKernel d, final BatchContext c, final int n, final long ka,
                                 final long a0, final long b0, final long a1) {
        final long[] r = d.count;
        final long[] s0 = d.sum0;
        final long[] s1 = d.sum1;
        final int[] nulls = d.nullRows;
        int k = 0;
        for (int i = 0; i < n; i++) {
            final int g = NativeMemory.getByte(ka + i) & 0xFF;
            final long x = NativeMemory.getLong(a0 + 8L * i);
            final long y = NativeMemory.getLong(b0 + 8L * i);
            final long u = NativeMemory.getLong(a1 + 8L * i);
            if (x == Long.MIN_VALUE | y == Long.MIN_VALUE | u == Long.MIN_VALUE) {
                nulls[k++] = i;
            } else {
                r[g]++;
                s0[g] += x * y;
                s1[g] += u;
            }
        }
        d.endBatch(c, k, null, DenseSumKernel.UNKNOWN);
    }

    /**
     * {@link #intProductPlain} for an even batch whose term columns hold no null, its halves side by side as in
     * {@link DenseProductLoops#byteProductFree} (query 2).
     */
    static void intProductPlainFree(final DenseSumKernel d, final BatchContext c, final int n, final long ka,
                                    final int nul, final int lo, final long a0, final long b0, final long a1) {
        final long[] r = d.count;
        final long[] s0 = d.sum0;
        final long[] s1 = d.sum1;
        final int h = n >>> 1;
        final long hb = 8L * h;
        final long hk = 4L * h;
        final long[] r2 = d.count2;
        final long[] s0b = d.sum0b;
        final long[] s1b = d.sum1b;
        d.split = true;
        for (int i = 0; i < h; i++) {
            final long o = 8L * i;
            final int v = NativeMemory.getInt(ka + 4L * i);
            final int g = v == nul ? 0 : v - lo;
            final int v2 = NativeMemory.getInt(ka + hk + 4L * i);
            final int g2 = v2 == nul ? 0 : v2 - lo;
            r[g]++;
            s0[g] += NativeMemory.getLong(a0 + o) * NativeMemory.getLong(b0 + o);
            s1[g] += NativeMemory.getLong(a1 + o);
            r2[g2]++;
            s0b[g2] += NativeMemory.getLong(a0 + hb + o) * NativeMemory.getLong(b0 + hb + o);
            s1b[g2] += NativeMemory.getLong(a1 + hb + o);
        }
        d.endBatch(c, 0, null, DenseSumKernel.UNKNOWN);
    }

    static void intProductPlain(final DenseSumKernel d, final BatchContext c, final int n, final long ka, final int nul,
                                final int lo, final long a0, final long b0, final long a1) {
        final long[] r = d.count;
        final long[] s0 = d.sum0;
        final long[] s1 = d.sum1;
        final int[] nulls = d.nullRows;
        int k = 0;
        for (int i = 0; i < n; i++) {
            final int v = NativeMemory.getInt(ka + 4L * i);
            final int g = v == nul ? 0 : v - lo;
            final long x = NativeMemory.getLong(a0 + 8L * i);
            final long y = NativeMemory.getLong(b0 + 8L * i);
            final long u = NativeMemory.getLong(a1 + 8L * i);
            if (x == Long.MIN_VALUE | y == Long.MIN_VALUE | u == Long.MIN_VALUE) {
                nulls[k++] = i;
            } else {
                r[g]++;
                s0[g] += x * y;
                s1[g] += u;
            }
        }
        d.endBatch(c, k, null, DenseSumKernel.UNKNOWN);
    }

    static void longProductPlain(final DenseSumKernel d, final BatchContext c, final int n, final long ka,
                                 final long nul, final long lo, final long a0, final long b0, final long a1) {
        final long[] r = d.count;
        final long[] s0 = d.sum0;
        final long[] s1 = d.sum1;
        final int[] nulls = d.nullRows;
        int k = 0;
        for (int i = 0; i < n; i++) {
            final long v = NativeMemory.getLong(ka + 8L * i);
            final int g = (int) (v == nul ? 0 : v - lo);
            final long x = NativeMemory.getLong(a0 + 8L * i);
            final long y = NativeMemory.getLong(b0 + 8L * i);
            final long u = NativeMemory.getLong(a1 + 8L * i);
            if (x == Long.MIN_VALUE | y == Long.MIN_VALUE | u == Long.MIN_VALUE) {
                nulls[k++] = i;
            } else {
                r[g]++;
                s0[g] += x * y;
                s1[g] += u;
            }
        }
        d.endBatch(c, k, null, DenseSumKernel.UNKNOWN);
    }

    static void intByteProductPlain(final DenseSumKernel d, final BatchContext c, final int n, final long ka,
                                    final int nul, final int lo, final int mult, final long kb, final long a0,
                                    final long b0, final long a1) {
        final long[] r = d.count;
        final long[] s0 = d.sum0;
        final long[] s1 = d.sum1;
        final int[] nulls = d.nullRows;
        int k = 0;
        for (int i = 0; i < n; i++) {
            final int v = NativeMemory.getInt(ka + 4L * i);
            final int g = (v == nul ? 0 : v - lo) * mult + (NativeMemory.getByte(kb + i) & 0xFF);
            final long x = NativeMemory.getLong(a0 + 8L * i);
            final long y = NativeMemory.getLong(b0 + 8L * i);
            final long u = NativeMemory.getLong(a1 + 8L * i);
            if (x == Long.MIN_VALUE | y == Long.MIN_VALUE | u == Long.MIN_VALUE) {
                nulls[k++] = i;
            } else {
                r[g]++;
                s0[g] += x * y;
                s1[g] += u;
            }
        }
        d.endBatch(c, k, null, DenseSumKernel.UNKNOWN);
    }
}
