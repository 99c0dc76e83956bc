package io.tradestore.query.exec.kernel;

import java.util.ArrayList;
import java.util.List;

import io.tradestore.core.memory.NativeMemory;
import io.tradestore.core.segment.Segment;
import io.tradestore.query.exec.BatchContext;
import io.tradestore.query.exec.agg.Acc;
import io.tradestore.query.exec.agg.Int128;
import io.tradestore.query.exec.agg.RowCountAcc;
import io.tradestore.query.exec.agg.SameAcc;
import io.tradestore.query.exec.agg.SumAcc;
import io.tradestore.query.exec.agg.VwapAcc;
import io.tradestore.query.exec.group.KeySpec;
import io.tradestore.query.plan.Plan;

/**
 * The fused kernel of dense-key queries made of counts, integral sums and vwaps (benchmark queries 1, 2, 4 and 5): one
 * pass per batch computes each row's group inline and adds into per-group partials: {@code count[g]}, the rows of
 * group g, and {@code sum0[g]}, {@code sum1[g]}, the 64-bit partials of at most two terms (a column, or a product a*b)
 * over the rows where every term column is present. A term is shared by every aggregate that needs it: vwap's quantity
 * and sum(quantity) are one term, so query 2 does three read-modify-writes per row, not five.
 *
 * A row with a null in any term column takes a rare exact path (each aggregate adds it by its own null rules into
 * its 128-bit accumulators). The partials of a window of batches are flushed into the aggregates' exact accumulators
 * before they could leave 64 bits: signed while the magnitudes of their addends sum to below 2^63, unsigned below 2^64
 * when the zone maps prove every addend non-negative (then the batch's own sum counts, not rows times the bound: see
 * {@link #reserve}). A segment whose bounds are too wide (a single product may overflow) is left to the aggregates' own
 * exact loops. Key range checks are left out of the loop where the segment's zone map proves the key's values inside
 * the packed range (the array bounds still hold every index).
 *
 * A one-term kernel keeps row counts only when an output needs them (count, avg). Otherwise a segment where the zone
 * maps prove the term's addends all of one sign and non-zero counts no rows: a group's partial is then non-zero exactly
 * when it had rows, and the flush marks such groups (queries 1 and 5; docs/query-engine.md, "The fused dense
 * kernel"). A window holds segments of one way only (a mode change flushes), since partials of other signs could
 * cancel to zero.
 */
public final class DenseSumKernel {
    /** The largest bound of one addend the partials take: a batch of them then adds at most 2^62. */
    private static final long LIMIT = 1L << 62;
    /** The largest magnitude a signed window's partial may reach. */
    private static final long SIGNED_LIMIT = Long.MAX_VALUE;
    /** The largest value (2^64 - 1, unsigned) a window's partial of addends that are all non-negative may reach. */
    private static final long UNSIGNED_LIMIT = -1L;
    /** The batch sum of a loop that keeps none (two terms); a sum of non-negative addends is never negative. */
    static final long UNKNOWN = -1L;
    private final KeySpec[] keys;
    private final int terms;
    private final int[] termSlotA;
    private final int[] termSlotB;
    private final int[] termColA;
    private final int[] termColB;
    private final long[] termBound;
    /** Per term: whether the current segment's zone maps prove every addend non-negative. */
    private final boolean[] termUnsigned;
    /** Per term: the sum of the bounds of the addends in the window so far (unsigned), at most its limit. */
    private final long[] used;
    /** Per term: whether every addend of the window is proven non-negative (its partial is read as unsigned). */
    private final boolean[] windowUnsigned;
    /** Whether the outputs need each group's exact row count (a count or an avg); else only whether it has rows. */
    private final boolean countRows;
    private final SumAcc[] sums;
    private final int[] sumTerm;
    private final VwapAcc[] vwaps;
    private final int[] vwapPq;
    private final int[] vwapQ;
    final long[] count;
    /** A batch's rows with a null in some term column (the rare path). */
    final int[] nullRows = new int[BatchContext.BATCH];
    final long[] sum0;
    final long[] sum1;
    /**
     * The partials of the second half of a batch in the null-free loops, which take a batch's two halves side by side:
     * with their own arrays, the two halves' read-modify-writes of one group (few groups: side, venue x side) do not
     * wait on each other's store. Folded into count, sum0 and sum1 group by group as a flush visits them.
     */
    final long[] count2;
    final long[] sum0b;
    final long[] sum1b;
    /** Whether a loop of the window added into the second-half arrays. */
    boolean split;
    private final int groups;
    /** The terms' shape: {@link #PRODUCT}, {@link #PLAIN}, {@link #PRODUCT_PLAIN} or {@link #OTHER}. */
    private final int shape;
    private static final int PRODUCT = 0;
    private static final int PLAIN = 1;
    private static final int PRODUCT_PLAIN = 2;
    private static final int OTHER = 3;
    private boolean usable;
    private boolean proven;
    /**
     * The sum of the last batch's addends (rows with a null excluded) when its loop kept it (one term), else UNKNOWN.
     */
    private long batchTotal;
    /** Whether the window has partials to flush. */
    private boolean pending;
    /** Whether a row of the window took the rare path (then the counts have rows even when the loops count none). */
    private boolean slowRows;
    /** A bit per group: a window that did not count rows saw a row of it with no null in any term. */
    private final long[] marks;
    /**
     * How the window knows which groups have rows: {@link #COUNTING}, or a term whose addends all have one sign and
     * none is zero ({@code term << 1 | 1} when negative), so that its partial is non-zero exactly for groups with rows.
     */
    private int presence = COUNTING;
    private static final int COUNTING = -1;
    /** Whether the loops count rows ({@code presence == COUNTING}). */
    boolean counting = true;
    /** Rows per zone-map block (the unit of {@link NullFreeBlocks}' facts). */
    private final int blockRows;
    /** The current segment and its committed rows. */
    private Segment segment;
    private int segmentRows;
    /** The last block asked about in this segment (-1: none), and whether its term columns hold no null. */
    private int freeBlock = -1;
    private boolean free;

    private DenseSumKernel(final KeySpec[] keys, final List<int[]> termList, final List<SumAcc> sumList,
                           final List<Integer> sumTerms, final List<VwapAcc> vwapList, final List<int[]> vwapTerms,
                           final int groups, final boolean countRows, final int blockRows) {
        this.keys = keys;
        this.blockRows = blockRows;
        this.countRows = countRows;
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
        termUnsigned = new boolean[terms];
        used = new long[terms];
        windowUnsigned = new boolean[terms];
        java.util.Arrays.fill(windowUnsigned, true);
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
        this.marks = new long[(groups + 63) >>> 6];
        this.sum0 = new long[groups];
        this.sum1 = new long[terms > 1 ? groups : 0];
        if (terms == 1) {
            shape = termSlotB[0] >= 0 ? PRODUCT : PLAIN;
        } else {
            shape = termSlotB[0] >= 0 && termSlotB[1] < 0 ? PRODUCT_PLAIN : OTHER;
        }
        // only the shapes with null-free loops use the second-half arrays (and only query 2's shape a second term's)
        this.count2 = new long[shape == OTHER ? 0 : groups];
        this.sum0b = new long[shape == OTHER ? 0 : groups];
        this.sum1b = new long[shape == PRODUCT_PLAIN ? groups : 0];
    }

    /**
     * @param plan   the plan.
     * @param accs   the aggregates.
     * @param groups the dense array's size.
     * @return the kernel, or null when the query's shape is not one it runs (other aggregates, no sum, more than two
     *     distinct terms, keys that are not direct).
     */
    public static DenseSumKernel create(final Plan plan, final Acc[] accs, final int groups) {
        if (!plan.directKeys || plan.keyMode != Plan.DENSE) {
            return null;
        }
        final List<int[]> termList = new ArrayList<>();
        final List<SumAcc> sumList = new ArrayList<>();
        final List<Integer> sumTerms = new ArrayList<>();
        final List<VwapAcc> vwapList = new ArrayList<>();
        final List<int[]> vwapTerms = new ArrayList<>();
        boolean countRows = false;
        for (final Acc a : accs) {
            if (a instanceof SumAcc) {
                final SumAcc s = (SumAcc) a;
                countRows |= s.avg();
                sumList.add(s);
                sumTerms.add(term(termList, s.slotA(), s.colA(), s.slotB(), s.colB()));
            } else if (a instanceof VwapAcc) {
                final VwapAcc v = (VwapAcc) a;
                vwapList.add(v);
                vwapTerms.add(new int[] {term(termList, v.priceSlot(), v.priceCol(), v.qtySlot(), v.qtyCol()),
                    term(termList, v.qtySlot(), v.qtyCol(), -1, -1)});
            } else if (a instanceof RowCountAcc) {
                countRows = true;
            } else if (!(a instanceof SameAcc)) {
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
        return new DenseSumKernel(plan.keys, termList, sumList, sumTerms, vwapList, vwapTerms, groups, countRows,
            plan.schema.blockRows());
    }

    private static int term(final List<int[]> termList, final int slotA, final int colA, final int slotB,
                            final int colB) {
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

    /**
     * @param s    the segment whose batches follow: its zone maps bound the terms, may prove their signs (which groups
     *             have rows then needs no count) and may prove the key ranges.
     * @param rows the group state's row counts (a flush adds into them).
     * @param segmentRows the segment's committed rows in the snapshot.
     */
    public void beginSegment(final Segment s, final long[] rows, final int segmentRows) {
        segment = s;
        this.segmentRows = segmentRows;
        freeBlock = -1;
        boolean ok = true;
        int p = COUNTING;
        for (int t = 0; t < terms; t++) {
            final long a = Int128.maxAbs(s, termColA[t]);
            final long bound = termColB[t] < 0 ? a : Int128.productBound(a, Int128.maxAbs(s, termColB[t]));
            ok &= bound <= LIMIT / BatchContext.BATCH;
            termBound[t] = bound;
            final int sign = sign(s, termColA[t]) * (termColB[t] < 0 ? 1 : sign(s, termColB[t]));
            termUnsigned[t] = nonNegative(s, termColA[t], termColB[t]);
            if (p == COUNTING && sign != 0) {
                p = t << 1 | (sign < 0 ? 1 : 0);
            }
        }
        usable = ok;
        if (ok) {
            // a window holds one way of knowing the groups: under another sign, partials of rows of the same group
            // could cancel to zero. Two-term loops always count (query 2's loop measured ~2-5% slower with the test)
            final int mode = countRows || terms > 1 ? COUNTING : p;
            if (pending && mode != presence) {
                flush(rows);
            }
            presence = mode;
            counting = mode == COUNTING;
        }
        boolean inRange = true;
        for (final KeySpec k : keys) {
            inRange &= k.provenIn(s);
        }
        proven = inRange;
    }

    /**
     * @return 1 or -1 when the zone map proves every non-null value of the column positive or negative (or it has
     * none), else 0.
     */
    private static int sign(final Segment s, final int col) {
        final long min = s.zoneMin(-1, col);
        final long max = s.zoneMax(-1, col);
        return min > max || min > 0 ? 1 : max < 0 ? -1 : 0;
    }

    /** @return whether the zone maps prove every non-null value of {@code a}, or {@code a*b}, non-negative. */
    private static boolean nonNegative(final Segment s, final int a, final int b) {
        final long minA = s.zoneMin(-1, a);
        final long maxA = s.zoneMax(-1, a);
        if (b < 0 || minA > maxA) {
            return minA >= 0 || minA > maxA;
        }
        final long minB = s.zoneMin(-1, b);
        final long maxB = s.zoneMax(-1, b);
        return minB > maxB || minA >= 0 && minB >= 0 || maxA <= 0 && maxB <= 0;
    }

    /**
     * @param c a batch.
     * @return whether it is a dense batch of an even number of rows inside one committed zone-map block whose term
     *     columns hold no null, so that its loop can leave out the null test of every row (learnt once per block and
     *     column by {@link NullFreeBlocks}) and take the batch's halves side by side. Blocks are a power of two rows,
     *     so only blocks of one row give odd batches; those take the loops with the test.
     */
    private boolean nullFree(final BatchContext c) {
        final int block = c.start / blockRows;
        if (c.rows != null || (c.n & 1) != 0 || (c.start + c.n - 1) / blockRows != block) {
            return false;
        }
        if (block != freeBlock) {
            boolean ok = true;
            for (int t = 0; t < terms && ok; t++) {
                ok = termFree(c, termColA[t], block) && (termColB[t] < 0 || termFree(c, termColB[t], block));
            }
            freeBlock = block;
            free = ok;
        }
        return free;
    }

    private boolean termFree(final BatchContext c, final int col, final int block) {
        return NullFreeBlocks.nullFree(segment, col, c.width[col], c.nul[col], block, blockRows, segmentRows);
    }

    /** @return whether this segment's batches can run here (else the aggregates' own loops run them). */
    public boolean usable() {
        return usable;
    }

    /**
     * @param c a batch.
     * @return whether it runs with its key read inline (a dense batch of one proven key of width 1, 4 or 8 in a
     *     contiguous column, and term columns readable with constant strides); otherwise the caller computes group ids.
     */
    public boolean inline(final BatchContext c) {
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

    /**
     * @return whether every term column of the batch is readable at stride 8 and the terms have a shape with its own
     * loops.
     */
    private boolean contiguous(final BatchContext c) {
        if (shape == OTHER) {
            return false;
        }
        boolean ok = true;
        for (int t = 0; t < terms; t++) {
            ok &= c.viewStride[termSlotA[t]] == Long.BYTES
                && (termSlotB[t] < 0 || c.viewStride[termSlotB[t]] == Long.BYTES);
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
    public void consume(final BatchContext c, final int[] gid, final long[] rows, final boolean inline) {
        final int n = c.n;
        reserve(n, rows);
        run(c, n, gid, inline);
        // a term whose addends are all non-negative adds what they summed to when its loop kept that, else their bound
        for (int t = 0; t < terms; t++) {
            used[t] += !counting && termUnsigned[t] && batchTotal != UNKNOWN ? batchTotal : n * termBound[t];
            windowUnsigned[t] &= termUnsigned[t];
        }
        pending = true;
    }

    private void run(final BatchContext c, final int n, final int[] gid, final boolean inline) {
        final long a0 = c.viewAddr[termSlotA[0]];
        final long b0 = termSlotB[0] < 0 ? c.ones : c.viewAddr[termSlotB[0]];
        final long a1 = terms < 2 ? c.ones : c.viewAddr[termSlotA[1]];
        final long b1 = terms < 2 || termSlotB[1] < 0 ? c.ones : c.viewAddr[termSlotB[1]];
        if (inline) {
            runInline(c, n, a0, b0, a1);
            return;
        }
        if (contiguous(c)) {
            if (shape == PRODUCT) {
                DenseProductLoops.gidProduct(this, c, n, gid, a0, b0);
            } else if (shape == PLAIN) {
                DensePlainLoops.gidPlain(this, c, n, gid, a0);
            } else {
                DenseProductPlainLoops.gidProductPlain(this, c, n, gid, a0, b0, a1);
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

    /** Runs a batch whose keys are read inline: picks the loop for its key shape and term shape. */
    private void runInline(final BatchContext c, final int n, final long a0, final long b0, final long a1) {
        final KeySpec key = keys[0];
        final int col = key.col.index();
        final long ka = c.base[col] + c.start * c.stride[col];
        if (keys.length == 2) {
            final int nul = (int) c.nul[col];
            final int lo = (int) (key.lo - 1);
            final int mult = (int) key.mult;
            final long kb = c.base[keys[1].col.index()] + c.start;
            if (shape == PRODUCT) {
                DenseProductLoops.intByteProduct(this, c, n, ka, nul, lo, mult, kb, a0, b0);
            } else if (shape == PLAIN) {
                if (nullFree(c)) {
                    DensePlainLoops.intBytePlainFree(this, c, n, ka, nul, lo, mult, kb, a0);
                } else {
                    DensePlainLoops.intBytePlain(this, c, n, ka, nul, lo, mult, kb, a0);
                }
            } else {
                DenseProductPlainLoops.intByteProductPlain(this, c, n, ka, nul, lo, mult, kb, a0, b0, a1);
            }
            return;
        }
        switch (c.width[col]) {
            case 1:
                if (shape == PRODUCT && nullFree(c)) {
                    DenseProductLoops.byteProductFree(this, c, n, ka, a0, b0);
                } else if (shape == PRODUCT) {
                    DenseProductLoops.byteProduct(this, c, n, ka, a0, b0);
                } else if (shape == PLAIN) {
                    DensePlainLoops.bytePlain(this, c, n, ka, a0);
                } else {
                    DenseProductPlainLoops.byteProductPlain(this, c, n, ka, a0, b0, a1);
                }
                return;
            case 4: {
                final int nul = (int) c.nul[col];
                final int lo = (int) (key.lo - 1);
                if (shape == PRODUCT) {
                    DenseProductLoops.intProduct(this, c, n, ka, nul, lo, a0, b0);
                } else if (shape == PLAIN) {
                    DensePlainLoops.intPlain(this, c, n, ka, nul, lo, a0);
                } else {
                    if (nullFree(c)) {
                        DenseProductPlainLoops.intProductPlainFree(this, c, n, ka, nul, lo, a0, b0, a1);
                    } else {
                        DenseProductPlainLoops.intProductPlain(this, c, n, ka, nul, lo, a0, b0, a1);
                    }
                }
                return;
            }
            default: {
                final long nul = c.nul[col];
                final long lo = key.lo - 1;
                if (shape == PRODUCT) {
                    if (nullFree(c)) {
                        DenseProductLoops.longProductFree(this, c, n, ka, nul, lo, a0, b0);
                    } else {
                        DenseProductLoops.longProduct(this, c, n, ka, nul, lo, a0, b0);
                    }
                } else if (shape == PLAIN) {
                    DensePlainLoops.longPlain(this, c, n, ka, nul, lo, a0);
                } else {
                    DenseProductPlainLoops.longProductPlain(this, c, n, ka, nul, lo, a0, b0, a1);
                }
                return;
            }
        }
    }

    // One loop per key shape and term shape, with constant strides (variable strides are slower: docs/query-engine.md,
    // Known gaps): DenseProductLoops, DensePlainLoops and DenseProductPlainLoops, and the strided loops below for any
    // layout. A row's terms are read first; a null in any of them sends the row to the exact path (a predictable
    // branch: nulls are rare). One-term loops test a loop-invariant flag (C2 unswitches the loop): counting rows as
    // before, or not counting and keeping the batch sum t0 in a register; two-term loops always count. Separate arrays
    // per partial: array-of-structs partials measured within noise of them (so the simpler layout) and four interleaved
    // lanes slower (docs/query-engine.md, "Decisions measured and not taken"); the null-free loops give a batch's
    // second half arrays of its own (count2, sum0b, sum1b: docs/query-engine.md, "The fused dense kernel").

    private void strided1(final BatchContext c, final int n, final int[] gid, final long a0, final long as0,
                          final long b0, final long bs0) {
        final long[] r = count;
        final boolean counting = this.counting;
        final long[] s0 = sum0;
        final int[] nulls = nullRows;
        int k = 0;
        long t0 = 0;
        for (int i = 0; i < n; i++) {
            final int g = gid[i];
            final long x = NativeMemory.getLong(a0 + i * as0);
            final long y = NativeMemory.getLong(b0 + i * bs0);
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
        endBatch(c, k, gid, t0);
    }

    private void strided2(final BatchContext c, final int n, final int[] gid, final long a0, final long as0,
                          final long b0, final long bs0, final long a1, final long as1, final long b1, final long bs1) {
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
        endBatch(c, k, gid, UNKNOWN);
    }

    /**
     * Ends a batch's loop: keeps the sum of its addends (one-term loops; see {@link #reserve}), then takes the rows
     * with a null in some term column, collected by the loop (which then stays free of calls): their groups are
     * computed again here, then each row is counted and added exactly by each aggregate's own rules.
     */
    void endBatch(final BatchContext c, final int k, final int[] gid, final long total) {
        batchTotal = total;
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
        slowRows = true;
        count[g]++;
        for (final SumAcc s : sums) {
            s.addRow(c, g, i);
        }
        for (final VwapAcc v : vwaps) {
            v.addRow(c, g, i);
        }
    }

    /**
     * Flushes the window first when a batch of {@code n} rows might not fit. A window's partial of a term stays exact
     * in 64 bits while the magnitudes of its addends add up to at most 2^63 - 1, or 2^64 - 1 when all of them are
     * proven non-negative (the partial is then read unsigned). {@link #used} sums those magnitudes: the batch sum of a
     * one-term loop that counts no rows when the term is proven non-negative (a register add per row), else rows times
     * the zone maps' bound. The batch sums keep a query of many groups to one flush per worker instead of one every
     * few thousand rows per group (docs/query-engine.md, "The fused dense kernel").
     */
    private void reserve(final int n, final long[] rows) {
        boolean full = false;
        for (int t = 0; t < terms; t++) {
            final long limit = windowUnsigned[t] && termUnsigned[t] ? UNSIGNED_LIMIT : SIGNED_LIMIT;
            full |= Long.compareUnsigned(used[t], limit - n * termBound[t]) > 0;
        }
        if (full) {
            flush(rows);
        }
    }

    /**
     * Moves the window's partials into the row counts and the aggregates' exact accumulators, visiting every group (the
     * arrays are mostly out of the caches by then, so a window's size matters). A
     * window that counts rows adds each group's count; one that does not adds the rows that had a null (counted by the
     * rare path) and marks the groups whose presence term's partial is non-zero (see {@link #finish}).
     *
     * @param rows the group state's row counts.
     */
    void flush(final long[] rows) {
        if (!pending) {
            return;
        }
        final boolean fold = split;
        split = false;
        final long[] r = count;
        final boolean counted = counting || slowRows;
        final long[] seen = counting ? null : presence >> 1 == 0 ? sum0 : sum1;
        final long[] m = marks;
        for (int g = 0; g < groups; g++) {
            if (fold) {
                foldSecondHalf(g);
            }
            final long c = counted ? r[g] : 0;
            final long fast = seen != null && seen[g] != 0 ? 1 : 0;
            if (c == 0 && fast == 0) {
                continue;
            }
            if (c != 0) {
                rows[g] += c;
                r[g] = 0;
            }
            m[g >>> 6] |= fast << g;
            for (int k = 0; k < sums.length; k++) {
                final int t = sumTerm[k];
                sums[k].addExact(g, high(t, partial(t, g)), partial(t, g));
            }
            for (int k = 0; k < vwaps.length; k++) {
                final long pq = partial(vwapPq[k], g);
                final long q = partial(vwapQ[k], g);
                vwaps[k].addExact(g, high(vwapPq[k], pq), pq, high(vwapQ[k], q), q);
            }
            sum0[g] = 0;
            if (terms > 1) {
                sum1[g] = 0;
            }
        }
        java.util.Arrays.fill(used, 0);
        java.util.Arrays.fill(windowUnsigned, true);
        pending = false;
        slowRows = false;
    }

    /**
     * Adds group g's second-half partials into the first and clears them, in flush's own pass over the groups (exact:
     * the window's bound covers the addends of both; a partial read unsigned wraps the same way).
     */
    private void foldSecondHalf(final int g) {
        count[g] += count2[g];
        count2[g] = 0;
        sum0[g] += sum0b[g];
        sum0b[g] = 0;
        if (sum1b.length != 0) {
            sum1[g] += sum1b[g];
            sum1b[g] = 0;
        }
    }

    /**
     * Flushes the last window and adds 1 to the row count of each group marked by a window that did not count rows:
     * then {@code rows[g]} is positive exactly when group g has rows, and {@code rows[g]} less a sum's null count is
     * positive exactly when that sum has an addend (its rows without a null in the term are counted, or the group is
     * marked, which means a row without a null in any term). Counts are exact when the outputs need them.
     *
     * @param rows the group state's row counts.
     */
    public void finish(final long[] rows) {
        flush(rows);
        final long[] m = marks;
        for (int g = 0; g < groups; g++) {
            rows[g] += m[g >>> 6] >>> g & 1;
        }
        java.util.Arrays.fill(m, 0);
    }

    private long partial(final int term, final int g) {
        return term == 0 ? sum0[g] : sum1[g];
    }

    /**
     * @return the high 64 bits of a window's partial of a term as a 128-bit value: 0 when read unsigned, else its sign.
     */
    private long high(final int term, final long partial) {
        return windowUnsigned[term] ? 0 : partial >> 63;
    }
}
