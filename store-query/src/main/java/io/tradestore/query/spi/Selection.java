package io.tradestore.query.spi;

import org.roaringbitmap.BatchIterator;

/** Rows chosen by indexes, and which leaves they answered exactly. */
public interface Selection {
    /** @return a batch iterator over the chosen rows. */
    BatchIterator iterator();

    /** @param from the first row to read. @return a batch iterator over the chosen rows from {@code from} on. */
    default BatchIterator iterator(final int from) {
        final BatchIterator it = iterator();
        if (from > 0) {
            it.advanceIfNeeded(from);
        }
        return it;
    }

    /** @return the number of rows. */
    long cardinality();

    /** @param from first row. @param to row after the last. @return the number of chosen rows in {@code [from, to)}. */
    long cardinality(int from, int to);

    /** @param node a leaf. @return whether the selection already applied it. */
    boolean answered(Object node);

    /**
     * @return whether the selection keeps so many rows that reading them one by one is slower than a scan: the
     *         executor uses it only to fold value summaries, and scans otherwise.
     */
    default boolean dense() {
        return false;
    }

    /** @return whether it holds every row (then rows it leaves to read are scanned, not gathered by row id). */
    default boolean all() {
        return false;
    }

    /**
     * @param colA the measure column, or -1 for row counts only.
     * @param colB the second factor of a product measure, or -1.
     * @return the selected rows' aggregates per part of the segment, or null when no summary applies (the selection
     *         is not one eq/in leaf of a sealed segment's index, the measure is f64, or the summaries' memory budget
     *         is spent).
     */
    default Summary summary(final int colA, final int colB) {
        return null;
    }
}
