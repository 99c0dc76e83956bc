package io.tradestore.query.exec.group;

import java.util.Map;
import java.util.WeakHashMap;
import java.util.concurrent.atomic.AtomicIntegerArray;

import io.tradestore.core.memory.NativeMemory;
import io.tradestore.core.segment.Segment;
import io.tradestore.query.exec.kernel.NullFreeBlocks;

/**
 * Which zone-map blocks of a segment hold the designated timestamp never null and non-decreasing row by row. The
 * writer does not enforce that order, but trade data arrives in it; where it holds, the time bucket of a row follows
 * from its position ({@link BucketRuns}) and the first/last row of a bucket in row order is its first/last by time.
 * Learnt by reading a block once; only blocks whose rows are all committed are read, and committed rows never change,
 * so an answer holds for the life of the segment object (kept weakly, like {@link NullFreeBlocks}).
 */
public final class SortedTimestamps {
    /** Guarded by itself (see {@link NullFreeBlocks#holds}). */
    private static final Map<Segment, AtomicIntegerArray[]> FACTS = new WeakHashMap<>();

    private SortedTimestamps() {
    }

    /**
     * @param s         a segment.
     * @param column    the designated timestamp column (8 bytes wide).
     * @param block     a block.
     * @param blockRows rows per block.
     * @param rows      committed rows of the segment.
     * @return whether every row of the block is committed, its timestamp is not null, and no timestamp is smaller than
     *                 the one before it.
     */
    public static boolean sorted(final Segment s, final int column, final int block, final int blockRows,
        final int rows) {
        return NullFreeBlocks.holds(FACTS, s, column, block, blockRows, rows, SortedTimestamps::scan);
    }

    private static boolean scan(final Segment s, final int column, final int block, final int blockRows) {
        final long stride = s.columnStride(column);
        final long base = s.columnBase(column) + (long) block * blockRows * stride;
        long previous = Long.MIN_VALUE; // the null sentinel: a null timestamp fails the strict test below
        for (int r = 0; r < blockRows; r++) {
            final long t = NativeMemory.getLong(base + r * stride);
            if (t < previous || t == Long.MIN_VALUE) {
                return false;
            }
            previous = t;
        }
        return true;
    }
}
