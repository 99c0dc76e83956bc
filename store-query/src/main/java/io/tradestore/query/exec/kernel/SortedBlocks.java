package io.tradestore.query.exec.kernel;

import java.util.Map;
import java.util.WeakHashMap;
import java.util.concurrent.atomic.AtomicIntegerArray;

import io.tradestore.core.memory.NativeMemory;
import io.tradestore.core.segment.Segment;

/**
 * Which zone-map blocks of a segment hold a column never null and non-decreasing row by row. The writer enforces no
 * order, but trade data arrives in time order and with rising trade ids; where it holds, the time bucket of a row
 * follows from its position ({@link io.tradestore.query.exec.group.BucketRuns}), the first/last row of a bucket in row
 * order is its first/last by time, and a range on the column keeps one run of rows found by binary search
 * ({@link io.tradestore.query.exec.filter.SortedRanges}). Learnt by reading a block once; only blocks whose rows are
 * all committed are read, and committed rows never change, so an answer holds for the life of the segment object
 * (kept weakly, like {@link NullFreeBlocks}).
 */
public final class SortedBlocks {
    /** Guarded by itself (see {@link NullFreeBlocks#holds}). A column's width and sentinel never change. */
    private static final Map<Segment, AtomicIntegerArray[]> FACTS = new WeakHashMap<>();

    private SortedBlocks() {
    }

    /**
     * @param s         a segment.
     * @param column    the designated timestamp column (8 bytes wide, null {@code Long.MIN_VALUE}).
     * @param block     a block.
     * @param blockRows rows per block.
     * @param rows      committed rows of the segment.
     * @return whether every row of the block is committed, its timestamp is not null, and no timestamp is smaller than
     *     the one before it.
     */
    public static boolean sorted(final Segment s, final int column, final int block, final int blockRows,
        final int rows) {
        return sorted(s, column, Long.BYTES, Long.MIN_VALUE, block, blockRows, rows);
    }

    /**
     * @param s         a segment.
     * @param column    an integral column.
     * @param width     its width in bytes.
     * @param nul       its null sentinel.
     * @param block     a block.
     * @param blockRows rows per block.
     * @param rows      committed rows of the segment.
     * @return whether every row of the block is committed, not null in the column, and no value is smaller than the
     *     one before it.
     */
    public static boolean sorted(final Segment s, final int column, final int width, final long nul, final int block,
        final int blockRows, final int rows) {
        // a capturing lambda per call: this runs once per block of a query, not per row
        return NullFreeBlocks.holds(FACTS, s, column, block, blockRows, rows,
            (seg, col, b, n) -> scan(seg, col, width, nul, b, n));
    }

    private static boolean scan(final Segment s, final int column, final int width, final long nul, final int block,
        final int blockRows) {
        final long stride = s.columnStride(column);
        final long base = s.columnBase(column) + (long) block * blockRows * stride;
        long previous = Long.MIN_VALUE;
        for (int r = 0; r < blockRows; r++) {
            final long v = NativeMemory.getSigned(base + r * stride, width);
            if (v < previous || v == nul) {
                return false;
            }
            previous = v;
        }
        return true;
    }
}
