package io.tradestore.query.index;

import org.roaringbitmap.buffer.ImmutableRoaringBitmap;

/**
 * One column's rows by value in one segment: a sealed segment's persisted index or the open segment's in-memory one.
 */
interface ValueRows {
    /** @param value a raw value (symbol code or integer). @return rows holding it (empty when none). */
    ImmutableRoaringBitmap rows(long value);

    /** @return rows where the column is null. */
    ImmutableRoaringBitmap nulls();

    /**
     * @param value   a raw value.
     * @param fromRow the first row the caller will read.
     * @return rows holding the value from at least {@code fromRow} on (rows before it may be included); an open
     *         segment's index leaves out the chunks before it instead of assembling them.
     */
    default ImmutableRoaringBitmap rowsFrom(final long value, final int fromRow) {
        return rows(value);
    }
}
