package io.tradestore.query.index;

import org.roaringbitmap.BatchIterator;

import io.tradestore.core.TableSnapshot;
import io.tradestore.query.spi.Deadline;
import io.tradestore.query.spi.Selection;
import io.tradestore.query.spi.Summary;

/**
 * All rows of a segment, for a global aggregate whose filter the zone maps prove for whole blocks (none, a time range,
 * ranges on columns that grow with the rows): whole parts fold from a summary of all rows, so only parts the ranges
 * cut, and an open segment's incomplete last part, are read.
 */
final class AllRowsSelection implements Selection {
    /** The one value of a summary of all rows. */
    private static final long[] ALL = {0};
    private final BitmapIndexes owner;
    private final TableSnapshot snap;
    private final int segment;
    private final int rows;
    private final Deadline deadline;

    /** @param owner the indexes whose summaries answer. @param snap the snapshot. @param segment the segment. */
    AllRowsSelection(final BitmapIndexes owner, final TableSnapshot snap, final int segment,
                     final Deadline deadline) {
        this.owner = owner;
        this.snap = snap;
        this.segment = segment;
        this.rows = snap.segmentRowCount(segment);
        this.deadline = deadline;
    }

    @Override
    public BatchIterator iterator() {
        // the executor scans the blocks of an all-rows selection that summaries leave (Executor.read)
        throw new UnsupportedOperationException("all rows are scanned, not iterated");
    }

    @Override
    public long cardinality() {
        return rows;
    }

    @Override
    public long cardinality(final int from, final int to) {
        return Math.max(0, Math.min(to, rows) - Math.max(0, from));
    }

    @Override
    public boolean answered(final Object node) {
        return false;
    }

    @Override
    public boolean dense() {
        return true;
    }

    @Override
    public boolean all() {
        return true;
    }

    @Override
    public Summary summary(final int colA, final int colB) {
        final ValueSummary v = owner.allSummary(snap, segment, colA, colB, deadline);
        return v == null ? null : v.view(ALL);
    }
}
