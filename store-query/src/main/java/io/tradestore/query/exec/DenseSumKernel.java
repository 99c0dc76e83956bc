package io.tradestore.query.exec;

import java.util.ArrayList;
import java.util.List;

import io.tradestore.core.memory.NativeMemory;
import io.tradestore.core.segment.Segment;

/**
 * The fused kernel of dense-key queries made of counts, integral sums and vwaps (benchmark queries 1, 2, 4 and 5): one
 * pass per batch computes each row's group inline and adds into per-group partials: {@code count[g]}, the rows of
 * group g, and {@code sum0[g]}, {@code sum1[g]}, the 64-bit partials of at most two terms (a column, or a product a*b)
 * over the rows where every term column is present. A term is shared by every aggregate that needs it: vwap's quantity
 * and sum(quantity) are one term, so query 2 does three read-modify-writes per row, not five.
 *
 * A row with a null in any term column takes a rare exact path (each aggregate adds it by its own null rules into
 * its 128-bit accumulators). The zone maps bound every term per segment, so a 64-bit partial is flushed into the
 * aggregates' exact accumulators before it could reach 2^62; a segment whose bounds are too wide for that (a single
 * product may overflow) is left to the aggregates' own exact loops. Key range checks are left out of the loop where the
 * segment's zone map proves the key's values inside the packed range (the array bounds still hold every index).
 */
final class DenseSumKernel {
    private static final long LIMIT = 1L << 62;
    private final KeySpec[] keys;
    private final int terms;
    private final int[] termSlotA;
    private final int[] termSlotB;
    private final int[] termColA;
    private final int[] termColB;
    private final long[] termBound;
    private final long[] headroom;
    private final SumAcc[] sums;
    private final int[] sumTerm;
    private final VwapAcc[] vwaps;
    private final int[] vwapPq;
    private final int[] vwapQ;
    private final long[] count;
    /** A batch's rows with a null in some term column (the rare path). */
    private final int[] nullRows = new int[BatchContext.BATCH];
    private final long[] sum0;
    private final long[] sum1;
    private final int groups;
    /** The terms' shape: {@link #PRODUCT}, {@link #PLAIN}, {@link #PRODUCT_PLAIN} or {@link #OTHER}. */
    private final int shape;
    private static final int PRODUCT = 0;
    private static final int PLAIN = 1;
    private static final int PRODUCT_PLAIN = 2;
    private static final int OTHER = 3;
    private boolean usable;
    private boolean proven;

    private DenseSumKernel(final KeySpec[] keys, final List<int[]> termList, final List<SumAcc> sumList, final List<Integer> sumTerms,
                           final List<VwapAcc> vwapList, final List<int[]> vwapTerms, final int groups) {
        this.keys = keys;
        this.terms = termList.size();
        termSlotA = new int[terms];
        termSlotB = new int[terms];
        termColA = new int[terms];
        termColB = new int[terms];
        for (int t = 0; t < terms; t++) {
            termSlotA[t] = termList.get(t)[0];
            termColA[t] = termList.get(t)[1];
            termSlotB[t] = termList.get(t)[2];
            termColB[t] = termList.get(t)[3];
        }
        termBound = new long[terms];
        headroom = new long[terms];
        java.util.Arrays.fill(headroom, LIMIT);
        sums = sumList.toArray(new SumAcc[0]);
        sumTerm = sumTerms.stream().mapToInt(Integer::intValue).toArray();
        vwaps = vwapList.toArray(new VwapAcc[0]);
        vwapPq = new int[vwaps.length];
        vwapQ = new int[vwaps.length];
        for (int i = 0; i < vwaps.length; i++) {
            vwapPq[i] = vwapTerms.get(i)[0];
            vwapQ[i] = vwapTerms.get(i)[1];
        }
        this.groups = groups;
        this.count = new long[groups];
        this.sum0 = new long[groups];
        this.sum1 = new long[terms > 1 ? groups : 0];
        if (terms == 1) {
            shape = termSlotB[0] >= 0 ? PRODUCT : PLAIN;
        } else {
            shape = termSlotB[0] >= 0 && termSlotB[1] < 0 ? PRODUCT_PLAIN : OTHER;
        }
    }

    /**
     * @param plan   the plan.
     * @param accs   the aggregates.
     * @param groups the dense array's size.
     * @return the kernel, or null when the query's shape is not one it runs (other aggregates, no sum, more than two
     *     distinct terms, keys that are not direct).
     */
    static DenseSumKernel create(final Plan plan, final Acc[] accs, final int groups) {
        if (!plan.directKeys || plan.keyMode != Plan.DENSE) {
            return null;
        }
        final List<int[]> termList = new ArrayList<>();
        final List<SumAcc> sumList = new ArrayList<>();
        final List<Integer> sumTerms = new ArrayList<>();
        final List<VwapAcc> vwapList = new ArrayList<>();
        final List<int[]> vwapTerms = new ArrayList<>();
        for (final Acc a : accs) {
            if (a instanceof SumAcc) {
                final SumAcc s = (SumAcc) a;
                sumList.add(s);
                sumTerms.add(term(termList, s.slotA(), s.colA(), s.slotB(), s.colB()));
            } else if (a instanceof VwapAcc) {
                final VwapAcc v = (VwapAcc) a;
                vwapList.add(v);
                vwapTerms.add(new int[] {term(termList, v.priceSlot(), v.priceCol(), v.qtySlot(), v.qtyCol()),
                    term(termList, v.qtySlot(), v.qtyCol(), -1, -1)});
            } else if (!(a instanceof RowCountAcc)) {
                return null;
            }
        }
        if (termList.isEmpty() || termList.size() > 2) {
            return null;
        }
        if (termList.size() == 2 && termList.get(0)[2] < 0 && termList.get(1)[2] >= 0) {
            // product first, so that sum(quantity) before vwap runs the same loop as vwap before sum(quantity)
            termList.add(termList.remove(0));
            sumTerms.replaceAll(t -> 1 - t);
            for (final int[] vt : vwapTerms) {
                vt[0] = 1 - vt[0];
                vt[1] = 1 - vt[1];
            }
        }
        return new DenseSumKernel(plan.keys, termList, sumList, sumTerms, vwapList, vwapTerms, groups);
    }

    private static int term(final List<int[]> termList, final int slotA, final int colA, final int slotB, final int colB) {
        // a*b and b*a are one term
        final boolean swap = colB >= 0 && colB < colA;
        final int[] t = swap ? new int[] {slotB, colB, slotA, colA} : new int[] {slotA, colA, slotB, colB};
        for (int i = 0; i < termList.size(); i++) {
            final int[] o = termList.get(i);
            if (o[1] == t[1] && o[3] == t[3]) {
                return i;
            }
        }
        termList.add(t);
        return termList.size() - 1;
    }

    /** @param s the segment whose batches follow: its zone maps bound the terms and may prove the key ranges. */
    void beginSegment(final Segment s) {
        usable = true;
        for (int t = 0; t < terms; t++) {
            final long a = Int128.maxAbs(s, termColA[t]);
            final long bound = termColB[t] < 0 ? a : Int128.productBound(a, Int128.maxAbs(s, termColB[t]));
            usable &= bound <= LIMIT / BatchContext.BATCH;
            termBound[t] = bound;
        }
        boolean p = true;
        for (final KeySpec k : keys) {
            p &= k.provenIn(s);
        }
        proven = p;
    }

    /** @return whether this segment's batches can run here (else the aggregates' own loops run them). */
    boolean usable() {
        return usable;
    }

    /**
     * @param c a batch.
     * @return whether it runs with its key read inline (a dense batch of one proven key of width 1, 4 or 8 in a
     *     contiguous column, and term columns readable with constant strides); otherwise the caller computes group ids.
     */
    boolean inline(final BatchContext c) {
        if (!proven || c.rows != null || keys.length > 2) {
            return false;
        }
        final int col = keys[0].col.index();
        final int w = c.width[col];
        if (keys.length == 2) {
            // symbol or i32 times a raw byte (venue x side, instrument x side)
            final int col1 = keys[1].col.index();
            return w == 4 && c.stride[col] == 4 && keys[1].rawByte && c.stride[col1] == 1 && contiguous(c);
        }
        // a one-byte key's loops index by the raw byte: only valid when the Binder gave it raw-byte codes
        return (w == 1 ? keys[0].rawByte : w != 2) && c.stride[col] == w && contiguous(c);
    }

    /** @return whether every term column of the batch is readable at stride 8 and the terms have a shape with its own loops. */
    private boolean contiguous(final BatchContext c) {
        if (shape == OTHER) {
            return false;
        }
        boolean ok = true;
        for (int t = 0; t < terms; t++) {
            ok &= c.viewStride[termSlotA[t]] == Long.BYTES && (termSlotB[t] < 0 || c.viewStride[termSlotB[t]] == Long.BYTES);
        }
        return ok;
    }

    /**
     * Runs one batch.
     *
     * @param c   the batch.
     * @param gid each row's group, filled by the caller when {@link #inline} is false; else ignored.
     * @param rows the group state's row counts (flushes add into them).
     * @param inline what {@link #inline} answered for this batch (asked once, by the caller).
     */
    void consume(final BatchContext c, final int[] gid, final long[] rows, final boolean inline) {
        final int n = c.n;
        reserve(n, rows);
        final long a0 = c.viewAddr[termSlotA[0]];
        final long b0 = termSlotB[0] < 0 ? c.ones : c.viewAddr[termSlotB[0]];
        final long a1 = terms < 2 ? c.ones : c.viewAddr[termSlotA[1]];
        final long b1 = terms < 2 || termSlotB[1] < 0 ? c.ones : c.viewAddr[termSlotB[1]];
        if (inline) {
            final KeySpec key = keys[0];
            final int col = key.col.index();
            final long ka = c.base[col] + c.start * c.stride[col];
            if (keys.length == 2) {
                final int nul = (int) c.nul[col];
                final int lo = (int) (key.lo - 1);
                final int mult = (int) key.mult;
                final long kb = c.base[keys[1].col.index()] + c.start;
                if (shape == PRODUCT) {
                    intByteProduct(c, n, ka, nul, lo, mult, kb, a0, b0);
                } else if (shape == PLAIN) {
                    intBytePlain(c, n, ka, nul, lo, mult, kb, a0);
                } else {
                    intByteProductPlain(c, n, ka, nul, lo, mult, kb, a0, b0, a1);
                }
                return;
            }
            switch (c.width[col]) {
                case 1:
                    if (shape == PRODUCT) {
                        byteProduct(c, n, ka, a0, b0);
                    } else if (shape == PLAIN) {
                        bytePlain(c, n, ka, a0);
                    } else {
                        byteProductPlain(c, n, ka, a0, b0, a1);
                    }
                    return;
                case 4: {
                    final int nul = (int) c.nul[col];
                    final int lo = (int) (key.lo - 1);
                    if (shape == PRODUCT) {
                        intProduct(c, n, ka, nul, lo, a0, b0);
                    } else if (shape == PLAIN) {
                        intPlain(c, n, ka, nul, lo, a0);
                    } else {
                        intProductPlain(c, n, ka, nul, lo, a0, b0, a1);
                    }
                    return;
                }
                default: {
                    final long nul = c.nul[col];
                    final long lo = key.lo - 1;
                    if (shape == PRODUCT) {
                        longProduct(c, n, ka, nul, lo, a0, b0);
                    } else if (shape == PLAIN) {
                        longPlain(c, n, ka, nul, lo, a0);
                    } else {
                        longProductPlain(c, n, ka, nul, lo, a0, b0, a1);
                    }
                    return;
                }
            }
        }
        if (contiguous(c)) {
            if (shape == PRODUCT) {
                gidProduct(c, n, gid, a0, b0);
            } else if (shape == PLAIN) {
                gidPlain(c, n, gid, a0);
            } else {
                gidProductPlain(c, n, gid, a0, b0, a1);
            }
            return;
        }
        // any layout and term shape: (address, stride) reads, a plain column times a constant 1 read with stride 0
        final long as0 = c.viewStride[termSlotA[0]];
        final long bs0 = termSlotB[0] < 0 ? 0 : c.viewStride[termSlotB[0]];
        if (terms == 1) {
            strided1(c, n, gid, a0, as0, b0, bs0);
        } else {
            final long as1 = c.viewStride[termSlotA[1]];
            final long bs1 = termSlotB[1] < 0 ? 0 : c.viewStride[termSlotB[1]];
            strided2(c, n, gid, a0, as0, b0, bs0, a1, as1, b1, bs1);
        }
    }

    // One loop per key shape and term shape, with constant strides (variable strides cost ~0.4 ns/row in query 1: the
    // probe figures are in docs/query-engine.md, Known gaps).
    // A row's terms are read first; a null in any of them sends the row to the exact path (a predictable branch: nulls
    // are rare). Separate arrays per partial, no lanes: array-of-structs partials measured
    // within noise of them (so the simpler layout) and four interleaved lanes slower (docs/query-engine.md, Known gaps).

    private void gidProduct(final BatchContext c, final int n, final int[] gid, final long a0, final long b0) {
        final long[] r = count;
        final long[] s0 = sum0;
        final int[] nulls = nullRows;
        int k = 0;
        for (int i = 0; i < n; i++) {
            final int g = gid[i];
            final long x = NativeMemory.getLong(a0 + 8L * i);
            final long y = NativeMemory.getLong(b0 + 8L * i);
            if (x == Long.MIN_VALUE | y == Long.MIN_VALUE) {
                nulls[k++] = i;
            } else {
                r[g]++;
                s0[g] += x * y;
            }
        }
        slowRows(c, k, gid);
    }

    private void gidPlain(final BatchContext c, final int n, final int[] gid, final long a0) {
        final long[] r = count;
        final long[] s0 = sum0;
        final int[] nulls = nullRows;
        int k = 0;
        for (int i = 0; i < n; i++) {
            final int g = gid[i];
            final long x = NativeMemory.getLong(a0 + 8L * i);
            if (x == Long.MIN_VALUE) {
                nulls[k++] = i;
            } else {
                r[g]++;
                s0[g] += x;
            }
        }
        slowRows(c, k, gid);
    }

    private void gidProductPlain(final BatchContext c, final int n, final int[] gid, final long a0, final long b0, final long a1) {
        final long[] r = count;
        final long[] s0 = sum0;
        final long[] s1 = sum1;
        final int[] nulls = nullRows;
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
        slowRows(c, k, gid);
    }

    private void byteProduct(final BatchContext c, final int n, final long ka, final long a0, final long b0) {
        final long[] r = count;
        final long[] s0 = sum0;
        final int[] nulls = nullRows;
        int k = 0;
        for (int i = 0; i < n; i++) {
            final int g = NativeMemory.getByte(ka + i) & 0xFF;
            final long x = NativeMemory.getLong(a0 + 8L * i);
            final long y = NativeMemory.getLong(b0 + 8L * i);
            if (x == Long.MIN_VALUE | y == Long.MIN_VALUE) {
                nulls[k++] = i;
            } else {
                r[g]++;
                s0[g] += x * y;
            }
        }
        slowRows(c, k, null);
    }

    private void bytePlain(final BatchContext c, final int n, final long ka, final long a0) {
        final long[] r = count;
        final long[] s0 = sum0;
        final int[] nulls = nullRows;
        int k = 0;
        for (int i = 0; i < n; i++) {
            final int g = NativeMemory.getByte(ka + i) & 0xFF;
            final long x = NativeMemory.getLong(a0 + 8L * i);
            if (x == Long.MIN_VALUE) {
                nulls[k++] = i;
            } else {
                r[g]++;
                s0[g] += x;
            }
        }
        slowRows(c, k, null);
    }

    private void byteProductPlain(final BatchContext c, final int n, final long ka, final long a0, final long b0, final long a1) {
        final long[] r = count;
        final long[] s0 = sum0;
        final long[] s1 = sum1;
        final int[] nulls = nullRows;
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
        slowRows(c, k, null);
    }

    private void intProduct(final BatchContext c, final int n, final long ka, final int nul, final int lo, final long a0, final long b0) {
        final long[] r = count;
        final long[] s0 = sum0;
        final int[] nulls = nullRows;
        int k = 0;
        for (int i = 0; i < n; i++) {
            final int v = NativeMemory.getInt(ka + 4L * i);
            final int g = v == nul ? 0 : v - lo;
            final long x = NativeMemory.getLong(a0 + 8L * i);
            final long y = NativeMemory.getLong(b0 + 8L * i);
            if (x == Long.MIN_VALUE | y == Long.MIN_VALUE) {
                nulls[k++] = i;
            } else {
                r[g]++;
                s0[g] += x * y;
            }
        }
        slowRows(c, k, null);
    }

    private void intPlain(final BatchContext c, final int n, final long ka, final int nul, final int lo, final long a0) {
        final long[] r = count;
        final long[] s0 = sum0;
        final int[] nulls = nullRows;
        int k = 0;
        for (int i = 0; i < n; i++) {
            final int v = NativeMemory.getInt(ka + 4L * i);
            final int g = v == nul ? 0 : v - lo;
            final long x = NativeMemory.getLong(a0 + 8L * i);
            if (x == Long.MIN_VALUE) {
                nulls[k++] = i;
            } else {
                r[g]++;
                s0[g] += x;
            }
        }
        slowRows(c, k, null);
    }

    private void intProductPlain(final BatchContext c, final int n, final long ka, final int nul, final int lo, final long a0, final long b0, final long a1) {
        final long[] r = count;
        final long[] s0 = sum0;
        final long[] s1 = sum1;
        final int[] nulls = nullRows;
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
        slowRows(c, k, null);
    }

    private void longProduct(final BatchContext c, final int n, final long ka, final long nul, final long lo, final long a0, final long b0) {
        final long[] r = count;
        final long[] s0 = sum0;
        final int[] nulls = nullRows;
        int k = 0;
        for (int i = 0; i < n; i++) {
            final long v = NativeMemory.getLong(ka + 8L * i);
            final int g = (int) (v == nul ? 0 : v - lo);
            final long x = NativeMemory.getLong(a0 + 8L * i);
            final long y = NativeMemory.getLong(b0 + 8L * i);
            if (x == Long.MIN_VALUE | y == Long.MIN_VALUE) {
                nulls[k++] = i;
            } else {
                r[g]++;
                s0[g] += x * y;
            }
        }
        slowRows(c, k, null);
    }

    private void longPlain(final BatchContext c, final int n, final long ka, final long nul, final long lo, final long a0) {
        final long[] r = count;
        final long[] s0 = sum0;
        final int[] nulls = nullRows;
        int k = 0;
        for (int i = 0; i < n; i++) {
            final long v = NativeMemory.getLong(ka + 8L * i);
            final int g = (int) (v == nul ? 0 : v - lo);
            final long x = NativeMemory.getLong(a0 + 8L * i);
            if (x == Long.MIN_VALUE) {
                nulls[k++] = i;
            } else {
                r[g]++;
                s0[g] += x;
            }
        }
        slowRows(c, k, null);
    }

    private void longProductPlain(final BatchContext c, final int n, final long ka, final long nul, final long lo, final long a0, final long b0,
                                  final long a1) {
        final long[] r = count;
        final long[] s0 = sum0;
        final long[] s1 = sum1;
        final int[] nulls = nullRows;
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
        slowRows(c, k, null);
    }


    private void intByteProduct(final BatchContext c, final int n, final long ka, final int nul, final int lo, final int mult, final long kb,
                                final long a0, final long b0) {
        final long[] r = count;
        final long[] s0 = sum0;
        final int[] nulls = nullRows;
        int k = 0;
        for (int i = 0; i < n; i++) {
            final int v = NativeMemory.getInt(ka + 4L * i);
            final int g = (v == nul ? 0 : v - lo) * mult + (NativeMemory.getByte(kb + i) & 0xFF);
            final long x = NativeMemory.getLong(a0 + 8L * i);
            final long y = NativeMemory.getLong(b0 + 8L * i);
            if (x == Long.MIN_VALUE | y == Long.MIN_VALUE) {
                nulls[k++] = i;
            } else {
                r[g]++;
                s0[g] += x * y;
            }
        }
        slowRows(c, k, null);
    }

    private void intBytePlain(final BatchContext c, final int n, final long ka, final int nul, final int lo, final int mult, final long kb,
                              final long a0) {
        final long[] r = count;
        final long[] s0 = sum0;
        final int[] nulls = nullRows;
        int k = 0;
        for (int i = 0; i < n; i++) {
            final int v = NativeMemory.getInt(ka + 4L * i);
            final int g = (v == nul ? 0 : v - lo) * mult + (NativeMemory.getByte(kb + i) & 0xFF);
            final long x = NativeMemory.getLong(a0 + 8L * i);
            if (x == Long.MIN_VALUE) {
                nulls[k++] = i;
            } else {
                r[g]++;
                s0[g] += x;
            }
        }
        slowRows(c, k, null);
    }

    private void intByteProductPlain(final BatchContext c, final int n, final long ka, final int nul, final int lo, final int mult, final long kb,
                                     final long a0, final long b0, final long a1) {
        final long[] r = count;
        final long[] s0 = sum0;
        final long[] s1 = sum1;
        final int[] nulls = nullRows;
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
        slowRows(c, k, null);
    }

    private void strided1(final BatchContext c, final int n, final int[] gid, final long a0, final long as0, final long b0, final long bs0) {
        final long[] r = count;
        final long[] s0 = sum0;
        final int[] nulls = nullRows;
        int k = 0;
        for (int i = 0; i < n; i++) {
            final int g = gid[i];
            final long x = NativeMemory.getLong(a0 + i * as0);
            final long y = NativeMemory.getLong(b0 + i * bs0);
            if (x == Long.MIN_VALUE | y == Long.MIN_VALUE) {
                nulls[k++] = i;
            } else {
                r[g]++;
                s0[g] += x * y;
            }
        }
        slowRows(c, k, gid);
    }

    private void strided2(final BatchContext c, final int n, final int[] gid, final long a0, final long as0, final long b0, final long bs0,
                          final long a1, final long as1, final long b1, final long bs1) {
        final long[] r = count;
        final long[] s0 = sum0;
        final long[] s1 = sum1;
        final int[] nulls = nullRows;
        int k = 0;
        for (int i = 0; i < n; i++) {
            final int g = gid[i];
            final long x = NativeMemory.getLong(a0 + i * as0);
            final long y = NativeMemory.getLong(b0 + i * bs0);
            final long u = NativeMemory.getLong(a1 + i * as1);
            final long w = NativeMemory.getLong(b1 + i * bs1);
            if (x == Long.MIN_VALUE | y == Long.MIN_VALUE | u == Long.MIN_VALUE | w == Long.MIN_VALUE) {
                nulls[k++] = i;
            } else {
                r[g]++;
                s0[g] += x * y;
                s1[g] += u * w;
            }
        }
        slowRows(c, k, gid);
    }

    /**
     * The rows of a batch with a null in some term column, collected by the loop (which then stays free of calls):
     * their groups are computed again here, then each row is counted and added exactly by each aggregate's own rules.
     */
    private void slowRows(final BatchContext c, final int k, final int[] gid) {
        for (int j = 0; j < k; j++) {
            final int i = nullRows[j];
            slow(c, gid != null ? gid[i] : inlineGroup(c, i), i);
        }
    }

    /** @return the group of row {@code i} of a batch whose keys are read inline. */
    private int inlineGroup(final BatchContext c, final int i) {
        if (keys.length == 2) {
            final KeySpec key = keys[0];
            final int col = key.col.index();
            final int v = NativeMemory.getInt(c.base[col] + (c.start + (long) i) * 4);
            final int code = v == (int) c.nul[col] ? 0 : (int) (v - (key.lo - 1));
            return code * (int) key.mult + (NativeMemory.getByte(c.base[keys[1].col.index()] + c.start + i) & 0xFF);
        }
        final KeySpec key = keys[0];
        final int col = key.col.index();
        final long a = c.base[col] + (c.start + (long) i) * c.stride[col];
        switch (c.width[col]) {
            case 1:
                return NativeMemory.getByte(a) & 0xFF;
            case 4: {
                final int v = NativeMemory.getInt(a);
                return v == (int) c.nul[col] ? 0 : (int) (v - (key.lo - 1));
            }
            default: {
                final long v = NativeMemory.getLong(a);
                return (int) (v == c.nul[col] ? 0 : v - (key.lo - 1));
            }
        }
    }

    /** A row with a null in some term column: counted here, then added exactly by each aggregate's own null rules. */
    private void slow(final BatchContext c, final int g, final int i) {
        count[g]++;
        for (final SumAcc s : sums) {
            s.addRow(c, g, i);
        }
        for (final VwapAcc v : vwaps) {
            v.addRow(c, g, i);
        }
    }

    private void reserve(final int n, final long[] rows) {
        boolean full = false;
        for (int t = 0; t < terms; t++) {
            full |= n * termBound[t] > headroom[t];
        }
        if (full) {
            flush(rows);
        }
        for (int t = 0; t < terms; t++) {
            headroom[t] -= n * termBound[t];
        }
    }

    /**
     * Moves the partials into the row counts and the aggregates' exact accumulators.
     *
     * @param rows the group state's row counts.
     */
    void flush(final long[] rows) {
        final long[] r = count;
        for (int g = 0; g < groups; g++) {
            if (r[g] == 0) {
                continue;
            }
            rows[g] += r[g];
            r[g] = 0;
            for (int k = 0; k < sums.length; k++) {
                sums[k].addExact(g, partial(sumTerm[k], g));
            }
            for (int k = 0; k < vwaps.length; k++) {
                vwaps[k].addExact(g, partial(vwapPq[k], g), partial(vwapQ[k], g));
            }
            sum0[g] = 0;
            if (terms > 1) {
                sum1[g] = 0;
            }
        }
        java.util.Arrays.fill(headroom, LIMIT);
    }

    private long partial(final int term, final int g) {
        return term == 0 ? sum0[g] : sum1[g];
    }
}
