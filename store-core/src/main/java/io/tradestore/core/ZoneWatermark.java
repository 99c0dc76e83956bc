package io.tradestore.core;

import java.util.BitSet;

import io.tradestore.core.segment.Segment;

/**
 * How far a {@link TableWriter}'s uncommitted rows have their zone maps widened, and which of those rows may still be
 * written after their widening. Owned by the writer's thread.
 *
 * <p>Zone maps are widened once per row where it is cheap: from the staged values when a window is copied, from the
 * mappings when appends pass a block's end (mapped path), by {@link TableWriter#writeColumn} from the values it writes,
 * and at commit for the rest. A write allowed before commit may still come after that, and is caught one of two ways.
 * A flyweight records at each positioning the already-widened rows it can reach ({@link TableWriter#addressRunEnd};
 * the writer re-points its flyweights whenever it widens rows), and those rows are widened again, once, at commit.
 * Stores through a {@link TableWriter#columnAddress} are invisible to the writer, so the uncommitted rows of a segment
 * whose addresses were handed out are not widened before commit at all (no second pass: the commit's is their only
 * one).
 */
final class ZoneWatermark {
    private final WriterSegments segments;
    private final int shift;
    private final long segmentRows;
    private final long blockRows;
    /** Rows from here on have not had their zone maps widened. */
    private long row;
    /** Rows whose zone maps were widened from the mappings (not from staged values): for tests of the work per row. */
    private long rowsRead;
    /**
     * Uncommitted rows a flyweight could write through the mappings after their zone maps were widened (from the staged
     * values when their window was copied, or from the mappings at a block end on the mapped path): the part below the
     * zone watermark of each mapped run a flyweight positioned at ({@link TableWriter#addressRunEnd}; it may step on
     * with next()). Their zone maps are widened from the files once, at commit. On the mapped path the flyweights left
     * on earlier rows are re-pointed after each block's zone maps were widened, so that they record the rows they can
     * still reach.
     */
    private final RowRanges mappedRuns = new RowRanges();
    /**
     * Segments whose mapped column addresses {@link TableWriter#columnAddress} handed out. Such an address reaches
     * every row of its segment for as long as the writer is open, and the writer cannot see the stores made through
     * it, so the zone maps of a raw-addressed segment's uncommitted rows are widened at commit only, when every store
     * the caller meant for them has been made: the watermark never passes the first uncommitted row of such a segment
     * before commit (see {@link #rawLimit()}). One pass over those rows, as at a block end, only later. {@link
     * TableWriter#releaseColumnAddresses} takes a segment out again (a loader done with it).
     */
    private final BitSet rawSegments = new BitSet();

    ZoneWatermark(final WriterSegments segments, final int shift, final long segmentRows, final long blockRows,
        final long row) {
        this.segments = segments;
        this.shift = shift;
        this.segmentRows = segmentRows;
        this.blockRows = blockRows;
        this.row = row;
    }

    /** @return the first row whose zone maps are not widened yet. */
    long row() {
        return row;
    }

    /**
     * Moves the watermark without widening: the rows up to {@code to} had their zone maps widened another way (from
     * staged values or column writes), or a rollback discarded them.
     */
    void row(final long to) {
        row = to;
    }

    /** @return rows whose zone maps were widened from the mappings (re-reading rows the writer already wrote). */
    long rowsRead() {
        return rowsRead;
    }

    /** @return whether a segment's raw column addresses are out (see {@link #rawSegments}). */
    boolean rawOut(final int segment) {
        return rawSegments.get(segment);
    }

    /**
     * Marks a segment's column addresses as handed out (see {@link #rawSegments}). Its uncommitted rows whose zone maps
     * were already widened (appendRow past a block end before the address was asked for) may now be stored into too:
     * the watermark goes back to the first of them, and their blocks are recomputed at commit (so an overwritten value
     * does not stay in an entry) before the commit widens them again, once.
     */
    void rawAddressesOut(final int segment, final long committedRows) {
        rawSegments.set(segment);
        final long first = Math.max(committedRows, (long) segment << shift);
        if (first < (long) (segment + 1) << shift) {
            unwiden(first);
        }
    }

    /** Takes a segment's raw addresses back (see {@link TableWriter#releaseColumnAddresses}). */
    void rawAddressesReleased(final int segment) {
        rawSegments.clear(segment);
    }

    /** Forgets the raw addresses of segments from {@code segment} on (they were deleted). */
    void rawAddressesDeletedFrom(final int segment) {
        rawSegments.clear(segment, Math.max(segment, rawSegments.length()));
    }

    /**
     * Takes the watermark back to {@code from} when it is past it: rows {@code [from, row)} were widened in, and stores
     * that may now come could overwrite their values, so their blocks are recomputed at commit (an overwritten value
     * must not stay in an entry) and the rows are widened again from the watermark, once.
     */
    void unwiden(final long from) {
        if (from < row) {
            mappedRuns.add(from, row);
            row = from;
        }
    }

    /**
     * Records that uncommitted rows {@code [from, to)}, below the watermark, may be written through the mappings (a
     * flyweight positioned there): their blocks are recomputed at commit.
     */
    void mayWrite(final long from, final long to) {
        mappedRuns.add(from, to);
    }

    /** Forgets the recorded rows (a commit published them, or a rollback discarded them). */
    void clearRuns() {
        mappedRuns.clear();
    }

    /**
     * Returns how far the watermark may move before commit: up to the first row of the first segment from the
     * watermark's on whose raw column addresses were handed out (see {@link #rawSegments}), or without limit.
     *
     * @return the first row whose zone maps must wait for the commit.
     */
    long rawLimit() {
        final int raw = rawSegments.nextSetBit((int) (row >>> shift));
        return raw < 0 ? Long.MAX_VALUE : Math.max(row, (long) raw << shift);
    }

    /**
     * Widens zone maps with rows {@code [row, to)} from the files, as far as raw addresses allow (see
     * {@link #rawLimit()}).
     *
     * @return whether the watermark moved (flyweights left on earlier rows must then be re-pointed to record what they
     *         can still reach).
     */
    boolean flushMapped(final long to) {
        final long end = Math.min(to, rawLimit());
        if (end > row) {
            flushTo(end);
            return true;
        }
        return false;
    }

    /** Widens zone maps with rows {@code [row, to)} as they are in the files and moves the watermark to {@code to}. */
    void flushTo(final long to) {
        if (to > row) {
            rowsRead += to - row;
            segments.forEach(row, to, Segment::updateZones);
        }
        row = to;
    }

    /**
     * Recomputes, from the files, the zone maps of the blocks holding rows flyweights could have written through the
     * mappings after their first widening (see {@link #mappedRuns}), once per commit: the zone maps of copied rows were
     * widened from the staged values, and a write through the mapping after that would be missed. Recomputed, not
     * widened: a value overwritten since must not stay in its block's entry (whole unfiltered blocks answer min/max
     * from their entries). Rows of those blocks from the watermark on (which may have gone back: rawAddressesOut) are
     * left to the commit's widening that follows. Recording runs instead of recomputing from the lowest such row at
     * every window keeps the work linear: a flyweight left on an early row is re-pointed at every window, which only
     * grows its one run; each block is read once however many runs touch it. Call it with no window in flight.
     */
    void recomputeMappedRuns(final long committedRows, final long pendingRows) {
        long next = 0; // the first block start not yet recomputed (the runs are sorted and disjoint)
        long first = -1; // the blocks [first, next) of one segment wait to be recomputed together (one segment entry)
        for (int i = 0; i < mappedRuns.count(); i++) {
            // runs of rows committed since they were recorded are left alone (rollback clears, commit clears)
            final long from = Math.max(committedRows, mappedRuns.from(i));
            final long to = Math.min(pendingRows, mappedRuns.to(i));
            for (long block = Math.max(next, from & -blockRows); block < to; block += blockRows) {
                if (first >= 0 && (block != next || (block & -segmentRows) != (first & -segmentRows))) {
                    recomputeBlocks(first, next);
                    first = -1;
                }
                if (first < 0) {
                    first = block;
                }
                rowsRead += Math.max(block, Math.min(block + blockRows, row)) - block;
                next = block + blockRows;
            }
        }
        if (first >= 0) {
            recomputeBlocks(first, next);
        }
        mappedRuns.clear();
    }

    /** Recomputes the blocks starting at table rows {@code [from, to)}, all in one segment, counting rows below it. */
    private void recomputeBlocks(final long from, final long to) {
        final long segStart = from & -segmentRows;
        final Segment s = segments.at(from);
        // rows past the end of a segment ended early hold nothing and count for nothing
        s.recomputeBlocks((int) ((from - segStart) / blockRows), (int) ((to - segStart) / blockRows),
            (int) (Math.min(Math.max(row, segStart), segStart + s.sealedRows()) - segStart));
    }
}
