package io.tradestore.query.spi;

/** Aggregates of a selection per part (2^{@link #partShift()} rows, block-aligned) of a sealed segment. */
public interface Summary {
    /** @return log2 of the rows per part (at least the zone-map block's). */
    int partShift();

    /** @return parts covered from row 0 (an open segment's summary covers its complete parts when it was built). */
    int parts();

    /** @param part a part. @param out receives the part's aggregates of the selected rows. */
    void read(int part, SummaryPart out);

    /**
     * @return log2 of the rows per coarse part, a run of whole parts rolled up into one (parts finer than a block serve
     *     a range's ends, coarse ones its middle); {@link #partShift()} when there is no coarse level.
     */
    default int coarseShift() {
        return partShift();
    }

    /**
     * @param part a coarse part (of 2^{@link #coarseShift()} rows), every part of which is covered.
     * @param out  receives its aggregates of the selected rows.
     */
    default void readCoarse(final int part, final SummaryPart out) {
        read(part, out);
    }
}
