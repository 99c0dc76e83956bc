package io.tradestore.query.exec.agg;

import io.tradestore.core.segment.Segment;
import io.tradestore.query.spi.Summary;
import io.tradestore.query.spi.SummaryPart;
import io.tradestore.query.exec.BatchContext;

/**
 * One aggregate's partial state for one worker, in arrays indexed by group id. {@link #update} runs one batch through
 * a loop specialised for this aggregate (one virtual call per batch, never per row); {@code gid == null} means a
 * global aggregate, summed in registers.
 */
public abstract class Acc {
    /**
     * Asks for 2^shift interleaved partial accumulators per group (row i goes to lane i mod 2^shift), for dense keys
     * with few groups where consecutive rows of one group would otherwise serialise on one memory location. Called
     * before {@link #grow}; an aggregate may ignore it.
     *
     * @param shift log2 of the lanes.
     */
    public void lanes(final int shift) {
    }

    /**
     * Called once all of a worker's accumulators exist, before any row: an accumulator may take its state from an
     * earlier one that reads the same values (percentiles of one column share their buckets).
     *
     * @param all the worker's accumulators, in the order of the query's aggregates.
     */
    public void bind(final Acc[] all) {
    }

    /** @param capacity groups the arrays must hold. */
    public abstract void grow(int capacity);

    /**
     * @param s the segment whose batches follow (its zone maps bound the values, so 64-bit sums can be proven safe).
     */
    public void beginSegment(final Segment s) {
    }

    /** @param c the batch. @param gid group of each row, or null when there is one group. */
    public abstract void update(BatchContext c, int[] gid);

    /**
     * Folds a whole, fully selected block into group 0 from the zone map, without reading rows.
     *
     * @param s     the segment.
     * @param block the block.
     * @return false when this aggregate cannot do that (then its rows are read).
     */
    public boolean updateFromZone(final Segment s, final int block) {
        return false;
    }

    /** @return whether {@link #updateFromZone} works for this aggregate. */
    public boolean zoneCapable() {
        return false;
    }

    /**
     * The second element of a measure {@code {col, FIRST_LAST}}: each part's first and last present row of col by time,
     * found from the rows of all-rows selections where other measures come from value summaries.
     */
    public static final int FIRST_LAST = -2;

    /**
     * The measure this aggregate folds from a value summary (see {@link Summary}) instead of reading rows.
     *
     * @return {colA, colB} (-1 for none: {@code {-1, -1}} needs the row count only; {@code {col, FIRST_LAST}} for
     *         first/last), or null when the aggregate cannot be folded from a summary (f64 values, percentiles,
     *         distinct counts, product min/max and first/last).
     */
    public int[] summaryMeasure() {
        return null;
    }

    /**
     * @return the measure a bucket summary of it must hold ({@code {colA, colB}}; {@code {-1, -1}} for row counts
     *             only), or null when this aggregate cannot fold bucket cells. By default the value summaries' measure.
     */
    public int[] bucketMeasure() {
        return summaryMeasure();
    }

    /**
     * @param g the group.
     * @param p a part's (or bucket cell's) aggregates of the measure {@link #summaryMeasure()} (or {@link
     *          #bucketMeasure()}) names, folded into group g.
     */
    public void foldSummary(final int g, final SummaryPart p) {
        throw new UnsupportedOperationException(getClass().getSimpleName() + " has no summary measure");
    }

    /** Moves 64-bit partial sums into the exact accumulators; called before merge and results. */
    public void finish() {
    }

    /** @param dst group here. @param src the other worker's state (same class). @param srcGid group there. */
    public abstract void merge(int dst, Acc src, int srcGid);

    /**
     * Merges groups that have the same id here and in {@code src} (dense keys, a global aggregate): as
     * {@link #merge} of each, which an accumulator may do at once.
     *
     * @param src the other worker's state (same class). @param groups the ids of src's groups with rows.
     */
    public void mergeSame(final Acc src, final int[] groups) {
        for (final int g : groups) {
            merge(g, src, g);
        }
    }

    /**
     * Readies the merged state for {@link #result} of every group, with the threads {@code tasks} lends (distinct
     * sets are made distinct there, partitions in parallel); called once, after the last merge.
     *
     * @param tasks runs independent tasks on the query's threads.
     */
    public void beforeResults(final Tasks tasks) {
    }

    /** @param gid group. @param rows rows of the group. @return the output value or null. */
    public abstract Object result(int gid, long rows);

    /** Gives back memory the accumulator took from a pool; called once its results are made (or never). */
    public void release() {
    }
}
