package io.tradestore.query.exec;

/**
 * One part's aggregates of the selected rows, read from a summary ({@link Executor.Summary#read}): rows, and over the
 * rows where the measure is present their count, exact sum (128 bits), min and max, and for a product the exact sum of
 * its second factor. Reused by a worker from part to part.
 */
public final class SummaryPart {
    long rows;
    long nonNull;
    long sumHi;
    long sumLo;
    long secondHi;
    long secondLo;
    long min;
    long max;

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
