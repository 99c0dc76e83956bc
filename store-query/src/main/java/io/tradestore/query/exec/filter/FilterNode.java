package io.tradestore.query.exec.filter;

import io.tradestore.core.segment.Segment;
import io.tradestore.query.exec.BatchContext;

/**
 * A bound filter in negation normal form (NOT is pushed into the leaves, so nulls never pass, as in SQL). Applied a
 * batch at a time: rows in, passing rows out, with the per-row loop inside one leaf class.
 */
public abstract class FilterNode {
    /**
     * Refines a batch.
     *
     * @param c     the worker context (column addresses of the current segment).
     * @param start first row of a dense batch.
     * @param n     rows in the batch.
     * @param sel   the batch's rows (ascending), or null for the dense range {@code [start, start + n)}.
     * @param out   where passing rows go, ascending; may be {@code sel} itself.
     * @return the number of passing rows.
     */
    public abstract int apply(BatchContext c, int start, int n, int[] sel, int[] out);

    /**
     * @param s     a segment.
     * @param block a block, or -1 for the whole segment.
     * @return false when the zone map proves that no row of the block passes.
     */
    public abstract boolean mayMatch(Segment s, int block);

    /**
     * @param s         a segment.
     * @param block     a block.
     * @param blockRows rows per block.
     * @param rows      committed rows of the segment.
     * @return true when the zone map (and the block being null-free) proves that every row of the block passes, so
     *         the filter need not run there; false when it cannot tell.
     */
    public boolean passesAll(final Segment s, final int block, final int blockRows, final int rows) {
        return false;
    }

    /** @return the column of a leaf, or -1. */
    int column() {
        return -1;
    }
}
