package io.tradestore.query.spi;

import java.util.List;

import io.tradestore.core.TableSnapshot;

/**
 * Chooses the rows of a sealed segment from bitmap indexes.
 */
public interface SegmentSelector {
    /**
     * @param snap     the snapshot.
     * @param segment  a sealed segment.
     * @param leaves   top-level conjuncts that are (negated) eq/in leaves on a column, as (column, values, negated).
     * @param fromRow  the first row the query may read (its zone maps rule out the blocks before).
     * @param toRow    the row after the last it may read: the selection may leave out rows outside the two, so that
     *                 a time range over a few blocks does not pay for unions of bitmaps over the whole segment.
     * @param deadline the query's, checked by the index and summary builds the selection makes (now or later).
     * @return a selection, or null when no index applies.
     */
    Selection select(TableSnapshot snap, int segment, List<IndexLeaf> leaves, int fromRow, int toRow,
                     Deadline deadline);

    /**
     * @param snap     the snapshot.
     * @param segment  a sealed segment.
     * @param leaf     a negated eq/in leaf on an indexed column.
     * @param maxRows  the most rows worth returning.
     * @param deadline the query's, checked by an index build.
     * @return the rows the leaf drops (those holding one of its values, and nulls), ascending, or null when there are
     *         more than {@code maxRows} or no index applies.
     */
    default int[] dropped(final TableSnapshot snap, final int segment, final IndexLeaf leaf, final int maxRows,
                          final Deadline deadline) {
        return null;
    }

    /**
     * @param snap     the snapshot.
     * @param segment  a segment.
     * @param deadline the query's, checked by the summary builds the selection makes.
     * @return all its rows, as a selection whose summaries a global aggregate folds where the zone maps prove its
     *         filter (no filter, a time range, ranges on columns that grow with the rows), or null when there are none.
     */
    default Selection selectAll(final TableSnapshot snap, final int segment, final Deadline deadline) {
        return null;
    }

    /**
     * @param snap     the snapshot.
     * @param segment  a sealed segment.
     * @param leaf     an eq/in leaf on an indexed column.
     * @param colA     the measure column, or -1 for row counts only.
     * @param colB     the second factor of a product measure, or -1.
     * @param deadline the query's, checked by an index or summary build.
     * @return the leaf's rows' aggregates per minute, or null when none applies (a negated leaf, no index, the
     *         timestamps are not in order, a measure is f64, or the memory budget is spent). No row selection is built.
     */
    default Buckets buckets(final TableSnapshot snap, final int segment, final IndexLeaf leaf, final int colA,
                            final int colB, final Deadline deadline) {
        return null;
    }
}
