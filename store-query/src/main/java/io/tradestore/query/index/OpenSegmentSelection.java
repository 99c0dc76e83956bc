package io.tradestore.query.index;

import org.roaringbitmap.BatchIterator;
import org.roaringbitmap.buffer.ImmutableRoaringBitmap;

import io.tradestore.core.TableSnapshot;
import io.tradestore.query.spi.Deadline;
import io.tradestore.query.spi.IndexLeaf;
import io.tradestore.query.spi.Selection;
import io.tradestore.query.spi.Summary;

/**
 * An open segment's selection by its one indexed eq/in leaf, assembled only when and as far as it is read: value
 * summaries fold the complete parts first, so a query usually reads only the rows after them.
 */
final class OpenSegmentSelection implements Selection {
    private final BitmapIndexes owner;
    private final TableSnapshot snap;
    private final int segment;
    private final IndexLeaf leaf;
    private final ValueRows index;
    private final int rows;
    private final Deadline deadline;
    /** From row 0 (index 0) and from the last row asked for (1), with that row in {@link #fromRow}. */
    private final ImmutableRoaringBitmap[] built = new ImmutableRoaringBitmap[2];
    private int fromRow = -1;

    /**
     * @param owner    the indexes whose summaries answer.
     * @param snap     the snapshot.
     * @param segment  the open segment.
     * @param leaf     the one indexed eq/in leaf.
     * @param index    its index.
     * @param deadline the query's.
     */
    OpenSegmentSelection(final BitmapIndexes owner, final TableSnapshot snap, final int segment,
                         final IndexLeaf leaf, final ValueRows index, final Deadline deadline) {
        this.owner = owner;
        this.snap = snap;
        this.segment = segment;
        this.leaf = leaf;
        this.index = index;
        this.rows = snap.segmentRowCount(segment);
        this.deadline = deadline;
    }

    private synchronized ImmutableRoaringBitmap from(final int row) {
        if (built[0] != null) {
            return built[0];
        }
        if (row <= 0) {
            built[0] = union(0);
            return built[0];
        }
        if (row != fromRow) {
            built[1] = union(row);
            fromRow = row;
        }
        return built[1];
    }

    private ImmutableRoaringBitmap union(final int row) {
        return BitmapIndexes.rowsOf(index, leaf.values(), row);
    }

    @Override
    public BatchIterator iterator() {
        return MappedBitmap.iterator(from(0));
    }

    @Override
    public BatchIterator iterator(final int from) {
        final BatchIterator it = MappedBitmap.iterator(from(from));
        if (from > 0) {
            it.advanceIfNeeded(from);
        }
        return it;
    }

    @Override
    public long cardinality() {
        return from(0).getLongCardinality();
    }

    @Override
    public long cardinality(final int from, final int to) {
        return from(from).rangeCardinality(from, to);
    }

    @Override
    public boolean dense() {
        return cardinality() > rows / 4;
    }

    @Override
    public boolean answered(final Object node) {
        return node == leaf.node();
    }

    @Override
    public Summary summary(final int colA, final int colB) {
        final ValueSummary v = owner.openSummary(snap, segment, leaf.column(), colA, colB, deadline);
        return v == null ? null : v.view(leaf.values());
    }
}
