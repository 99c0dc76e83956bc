package io.tradestore.query.index;

import java.util.List;

import org.roaringbitmap.BatchIterator;
import org.roaringbitmap.buffer.ImmutableRoaringBitmap;

import io.tradestore.core.TableSnapshot;
import io.tradestore.query.spi.Deadline;
import io.tradestore.query.spi.IndexLeaf;
import io.tradestore.query.spi.Selection;
import io.tradestore.query.spi.Summary;

/**
 * The rows of a segment that its indexes select for a query's eq/in/ne leaves (their bitmaps intersected), with the
 * value summaries of its one plain eq/in leaf when there is just one.
 */
final class IndexSelection implements Selection {
    private final BitmapIndexes owner;
    private final TableSnapshot snap;
    private final int segment;
    private final boolean sealed;
    /** The rows the query may read, {@code [from, to)}: the selection may leave out the others. */
    private final int from;
    private final int to;
    private final ImmutableRoaringBitmap chosen;
    /** Memoised without synchronisation: asked on the query's calling thread only (Executor.selectAndEstimate). */
    private long chosenCardinality;
    private final List<Object> answered;
    /** The one plain eq/in leaf whose rows per value are summarised per part (an open segment's complete parts). */
    private final IndexLeaf summarised;
    private final Deadline deadline;

    /**
     * @param owner       the indexes whose summaries answer.
     * @param snap        the snapshot.
     * @param segment     the segment.
     * @param sealed      whether the segment is sealed.
     * @param from        the first row the query may read.
     * @param to          the row after the last it may read.
     * @param chosen      the rows selected.
     * @param cardinality their count, or -1 until asked.
     * @param answered    the leaves (nodes) the indexes answered.
     * @param summarised  the one leaf, or null.
     * @param deadline    the query's.
     */
    IndexSelection(final BitmapIndexes owner, final TableSnapshot snap, final int segment, final boolean sealed,
                   final int from, final int to, final ImmutableRoaringBitmap chosen, final long cardinality,
                   final List<Object> answered, final IndexLeaf summarised,
                   final Deadline deadline) {
        this.owner = owner;
        this.snap = snap;
        this.segment = segment;
        this.sealed = sealed;
        this.from = from;
        this.to = to;
        this.chosen = chosen;
        this.chosenCardinality = cardinality;
        this.answered = answered;
        this.summarised = summarised;
        this.deadline = deadline;
    }

    @Override
    public BatchIterator iterator() {
        return MappedBitmap.iterator(chosen);
    }

    /**
     * @return the rows of {@code b} in {@code [from, to)}: a mapped bitmap's whole count walks its container headers
     *     only, so a range covering the segment's {@code rows} asks for that.
     */
    static long cardinality(final ImmutableRoaringBitmap b, final int from, final int to, final int rows) {
        return from == 0 && to >= rows ? b.getLongCardinality() : b.rangeCardinality(from, to);
    }

    @Override
    public long cardinality() {
        if (chosenCardinality < 0) {
            chosenCardinality = cardinality(chosen, from, to, snap.segmentRowCount(segment));
        }
        return chosenCardinality;
    }

    @Override
    public long cardinality(final int from, final int to) {
        return chosen.rangeCardinality(from, to);
    }

    @Override
    public boolean answered(final Object node) {
        for (final Object a : answered) {
            if (a == node) {
                return true;
            }
        }
        return false;
    }

    @Override
    public boolean dense() {
        return cardinality() > (to - from) / 4;
    }

    @Override
    public Summary summary(final int colA, final int colB) {
        if (summarised == null || summarised.negated()) {
            return null;
        }
        final ValueSummary v = sealed ? owner.summary(snap, segment, summarised.column(), colA, colB, deadline)
            : owner.openSummary(snap, segment, summarised.column(), colA, colB, deadline);
        return v == null ? null : v.view(summarised.values());
    }
}
