package io.tradestore.query.spi;

/**
 * One part's aggregates of the selected rows, read from a summary ({@link Summary#read}): rows, and over the
 * rows where the measure is present their count, exact sum (128 bits), min and max, and for a product the exact sum of
 * its second factor. Reused by a worker from part to part; its fields are public because the
 * executor folds them where the index package fills them.
 */
public final class SummaryPart {
    public long rows;
    public long nonNull;
    public long sumHi;
    public long sumLo;
    public long secondHi;
    public long secondLo;
    public long min;
    public long max;
    /** The first present row by time (ties: the lowest row) of a bucket cell, in its segment; -1 when not known. */
    public long firstRow;
    public long firstTs;
    public long firstValue;
    /** The last present row by time (ties: the highest row) of a bucket cell, in its segment; -1 when not known. */
    public long lastRow;
    public long lastTs;
    public long lastValue;
    /** A product's second factor in the first and last rows (a bucket cell's), beside their first factors' values. */
    public long firstValueB;
    public long lastValueB;

    /** Resets to no rows. */
    public void clear() {
        rows = 0;
        nonNull = 0;
        sumHi = 0;
        sumLo = 0;
        secondHi = 0;
        secondLo = 0;
        min = Long.MAX_VALUE;
        max = Long.MIN_VALUE;
        firstRow = -1;
        lastRow = -1;
    }

    /**
     * Sets a bucket cell's first and last present rows (in its segment), their timestamps and values.
     *
     * @param fr first row. @param ft its timestamp. @param fv its value.
     * @param lr last row. @param lt its timestamp. @param lv its value.
     */
    public void firstLast(final long fr, final long ft, final long fv, final long lr, final long lt, final long lv) {
        firstRow = fr;
        firstTs = ft;
        firstValue = fv;
        lastRow = lr;
        lastTs = lt;
        lastValue = lv;
        firstValueB = 0;
        lastValueB = 0;
    }

    /** @param r rows to add. @param nn rows with the measure present to add. */
    public void addCounts(final long r, final long nn) {
        rows += r;
        nonNull += nn;
    }

    /** @param h high word. @param l low word of a 128-bit sum to add. */
    public void addSum(final long h, final long l) {
        final long s = sumLo + l;
        sumHi += h + (Long.compareUnsigned(s, l) < 0 ? 1 : 0);
        sumLo = s;
    }

    /** @param h high word. @param l low word of a 128-bit sum of a product's second factor to add. */
    public void addSecondSum(final long h, final long l) {
        final long s = secondLo + l;
        secondHi += h + (Long.compareUnsigned(s, l) < 0 ? 1 : 0);
        secondLo = s;
    }

    /** @param lo a minimum and @param hi a maximum of present values to fold in. */
    public void addRange(final long lo, final long hi) {
        min = Math.min(min, lo);
        max = Math.max(max, hi);
    }
}
