package io.tradestore.query.exec.kernel;

import java.util.Arrays;
import java.util.Map;
import java.util.WeakHashMap;
import java.util.concurrent.atomic.AtomicIntegerArray;

import io.tradestore.core.memory.NativeMemory;
import io.tradestore.core.segment.Segment;

/**
 * Which zone-map blocks of a segment hold no null in a column. Zone maps skip nulls, so a block whose min and max lie
 * inside a range still needs every row checked unless the block is known to be null-free; this learns that by reading
 * the block once. Only blocks whose rows are all committed are read, and committed rows never change, so an answer
 * holds for the life of the segment object (kept weakly: closed segments drop out with their objects).
 */
public final class NullFreeBlocks {
    private static final int UNKNOWN = 0;
    private static final int HOLDS = 1;
    private static final int FAILS = 2;
    /** Guarded by itself: every access is inside {@code synchronized (FACTS)}. */
    private static final Map<Segment, AtomicIntegerArray[]> FACTS = new WeakHashMap<>();

    private NullFreeBlocks() {
    }

    /**
     * @param s         a segment.
     * @param column    a column.
     * @param width     its width in bytes.
     * @param nul       its null sentinel.
     * @param block     a block.
     * @param blockRows rows per block.
     * @param rows      committed rows of the segment.
     * @return whether every row of the block is committed and not null in the column.
     */
    public static boolean nullFree(final Segment s, final int column, final int width, final long nul, final int block,
        final int blockRows, final int rows) {
        // a capturing lambda per call: this runs once per block of a query, not per row
        return holds(FACTS, s, column, block, blockRows, rows, (seg, col, b, n) -> scan(seg, col, width, nul, b, n));
    }

    /** A yes/no property of one column in one block, read from its rows. */
    public interface BlockTest {
        /**
         * @param s a segment. @param column a column. @param block a block. @param blockRows rows per block. @return
         * whether it holds.
         */
        boolean holds(Segment s, int column, int block, int blockRows);
    }

    /**
     * A fact about a committed block, learnt once by {@code test} and remembered in {@code facts} (committed rows never
     * change).
     *
     * @param facts     the map of this kind of fact (guarded by itself).
     * @param s         a segment.
     * @param column    a column.
     * @param block     a block.
     * @param blockRows rows per block.
     * @param rows      committed rows of the segment.
     * @param test      reads the block.
     * @return whether every row of the block is committed and the fact holds.
     */
    public static boolean holds(final Map<Segment, AtomicIntegerArray[]> facts, final Segment s, final int column,
        final int block, final int blockRows,
                         final int rows, final BlockTest test) {
        if ((long) (block + 1) * blockRows > rows) {
            return false; // rows of this block are still to come
        }
        final AtomicIntegerArray states = states(facts, s, column, rows / blockRows);
        int state = states.get(block);
        if (state == UNKNOWN) {
            state = test.holds(s, column, block, blockRows) ? HOLDS : FAILS;
            states.set(block, state);
        }
        return state == HOLDS;
    }

    private static AtomicIntegerArray states(final Map<Segment, AtomicIntegerArray[]> facts, final Segment s,
        final int column, final int fullBlocks) {
        synchronized (facts) {
            AtomicIntegerArray[] cols = facts.get(s);
            if (cols == null || column >= cols.length) {
                cols = cols == null ? new AtomicIntegerArray[Math.max(16, column + 1)]
                    : Arrays.copyOf(cols, column + 1);
                facts.put(s, cols);
            }
            AtomicIntegerArray a = cols[column];
            if (a == null || a.length() < fullBlocks) {
                // the open segment gains blocks: grow, keeping what is known
                final AtomicIntegerArray grown = new AtomicIntegerArray(fullBlocks);
                for (int i = 0; a != null && i < a.length(); i++) {
                    grown.set(i, a.get(i));
                }
                cols[column] = grown;
                a = grown;
            }
            return a;
        }
    }

    private static boolean scan(final Segment s, final int column, final int width, final long nul, final int block,
        final int blockRows) {
        final long stride = s.columnStride(column);
        final long base = s.columnBase(column) + (long) block * blockRows * stride;
        for (int r = 0; r < blockRows; r++) {
            if (NativeMemory.getSigned(base + r * stride, width) == nul) {
                return false;
            }
        }
        return true;
    }
}
