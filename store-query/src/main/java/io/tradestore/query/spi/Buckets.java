package io.tradestore.query.spi;

/**
 * Aggregates of a selection per minute of a sealed segment ({@code BucketSummary} in the index package): cells
 * of the same rows whatever the measure, in the same order for every measure of the segment.
 */
public interface Buckets {
    /** Nanoseconds per minute: the cell width. */
    long MINUTE_NS = 60_000_000_000L;

    /** @return the number of cells. */
    int cells();

    /** @param cell a cell. @return its minute (epoch nanoseconds / 60e9, floored). */
    long minute(int cell);

    /** @param cell a cell. @param out receives its aggregates of the selected rows (first/last rows in the segment). */
    void read(int cell, SummaryPart out);
}
