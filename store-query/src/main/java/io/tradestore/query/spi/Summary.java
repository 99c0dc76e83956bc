package io.tradestore.query.spi;

/** Aggregates of a selection per part (2^{@link #partShift()} rows, block-aligned) of a sealed segment. */
public interface Summary {
    /** @return log2 of the rows per part (at least the zone-map block's). */
    int partShift();

    /** @return parts covered from row 0 (an open segment's summary covers its complete parts when it was built). */
    int parts();

    /** @param part a part. @param out receives the part's aggregates of the selected rows. */
    void read(int part, SummaryPart out);
}
