package io.tradestore.query.exec.filter;

import java.util.List;

import io.tradestore.core.memory.NativeMemory;
import io.tradestore.core.segment.Segment;
import io.tradestore.query.exec.kernel.SortedBlocks;

/**
 * What the range conjuncts on columns sorted within a block keep of it: one run of rows, found by two binary searches
 * instead of a test per row. A time range keeps a run of the blocks at its ends, and so does a range of trade ids;
 * reading that run contiguously also spares every aggregate the gather through a selection vector. A conjunct narrowed
 * this way holds for every row of the run, so it joins the block's proof mask and is not applied per row.
 *
 * <p>One per worker and scan: {@link #narrow} leaves its answer in {@link #from} and {@link #to}.
 */
public final class SortedRanges {
    /** The conjuncts, in the order of the proof masks. */
    private final List<FilterNode> conjuncts;
    /** Bits of the conjuncts that are positive, non-empty ranges on an integral column (the first 64 only). */
    private final long candidates;
    /** First row of the run {@link #narrow} kept. */
    public int from;
    /** Row after the run {@link #narrow} kept ({@code from == to}: none). */
    public int to;

    /** @param conjuncts a plan's top-level conjuncts. */
    public SortedRanges(final List<FilterNode> conjuncts) {
        this.conjuncts = conjuncts;
        long bits = 0;
        for (int i = 0; i < conjuncts.size() && i < Long.SIZE; i++) {
            if (conjuncts.get(i) instanceof IntRangeFilter) {
                final IntRangeFilter r = (IntRangeFilter) conjuncts.get(i);
                if (!r.negated && r.lo <= r.hi) {
                    bits |= 1L << i;
                }
            }
        }
        this.candidates = bits;
    }

    /**
     * Narrows the rows {@code [blockStart, blockEnd)} of a block by every range conjunct not yet proven there whose
     * column is sorted in the block, leaving the run in {@link #from} and {@link #to}.
     *
     * @param s          a segment.
     * @param block      a block of it.
     * @param blockStart first row of the block.
     * @param blockEnd   row after the block's last committed row.
     * @param blockRows  rows per block.
     * @param rows       committed rows of the segment.
     * @param proven     the conjuncts the zone maps prove for the whole block.
     * @return {@code proven} with the conjuncts narrowed here added (they hold for every row of the run).
     */
    public long narrow(final Segment s, final int block, final int blockStart, final int blockEnd,
        final int blockRows, final int rows, final long proven) {
        from = blockStart;
        to = blockEnd;
        long open = candidates & ~proven;
        long mask = proven;
        while (open != 0 && from < to) {
            final int i = Long.numberOfTrailingZeros(open);
            open &= open - 1;
            final IntRangeFilter r = (IntRangeFilter) conjuncts.get(i);
            if (!SortedBlocks.sorted(s, r.col, r.width, r.nul, block, blockRows, rows)) {
                continue;
            }
            final long base = s.columnBase(r.col);
            final long stride = s.columnStride(r.col);
            from = firstAtLeast(base, stride, r.width, from, to, r.lo);
            // the first row above hi: the first at least hi + 1 (hi = Long.MAX_VALUE keeps every row from here)
            to = r.hi == Long.MAX_VALUE ? to : firstAtLeast(base, stride, r.width, from, to, r.hi + 1);
            mask |= 1L << i;
        }
        if (from >= to) {
            to = from;
        }
        return mask;
    }

    /** @return the first row in {@code [lo, hi)} whose value is at least {@code v} (rows sorted), or {@code hi}. */
    public static int firstAtLeast(final long base, final long stride, final int width, final int lo, final int hi,
        final long v) {
        int a = lo;
        int b = hi;
        while (a < b) {
            final int m = (a + b) >>> 1;
            if (NativeMemory.getSigned(base + m * stride, width) < v) {
                a = m + 1;
            } else {
                b = m;
            }
        }
        return a;
    }
}
