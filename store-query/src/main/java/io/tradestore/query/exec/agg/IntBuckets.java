package io.tradestore.query.exec.agg;

import org.HdrHistogram.Histogram;

/**
 * Counts of non-negative longs in HdrHistogram's bucket layout at 3 significant digits (values below 2,048 exactly,
 * larger ones in 1,024 sub-buckets per power of two, so within 2^-10 of their value), held in a plain array over the
 * buckets between the smallest and largest seen, widened a power of two at a time. Recording a value is a
 * leading-zero count, a shift and an increment, with no search for a packed slot as in HdrHistogram's packed form
 * (which holds groups past the budget, see {@link PercentileAcc}). Counts from bucket 0 up would hold about 20,000
 * longs for a group of prices (decimal(6): 10^8 to 10^9 units), most of them below its smallest price; over its own
 * range the group holds a few powers of two, so the accumulator's budget holds several times as many groups.
 */
final class IntBuckets {
    /** Buckets per power of two (and per widening). */
    private static final int SPAN = 1024;
    long[] counts;
    /** The bucket that {@code counts[0]} counts: a multiple of {@link #SPAN}. */
    private int base;
    long total;

    IntBuckets(final long firstValue) {
        base = Math.max(0, (index(firstValue) & -SPAN) - SPAN);
        counts = new long[3 * SPAN];
    }

    /** @param v a non-negative value. @return its bucket, as HdrHistogram numbers them. */
    static int index(final long v) {
        final int bucket = 53 - Long.numberOfLeadingZeros(v | 2047L);
        return (bucket << 10) + (int) (v >>> bucket);
    }

    /** @param i a bucket. @return the smallest value in it. */
    static long lowest(final int i) {
        if (i < 2048) {
            return i;
        }
        final int bucket = (i >>> 10) - 1;
        return (long) (i - (bucket << 10)) << bucket;
    }

    /** @param i a bucket. @return the largest value in it. */
    static long highest(final int i) {
        return i < 2048 ? i : lowest(i) + (1L << ((i >>> 10) - 1)) - 1;
    }

    /** @return the bytes these counts hold. */
    long bytes() {
        return 8L * counts.length;
    }

    /**
     * Widens the counts to buckets {@code [from, to)}, at least doubling them.
     *
     * @return the bytes they grew by.
     */
    private long cover(final int from, final int to) {
        final int end = base + counts.length;
        if (from >= base && to <= end) {
            return 0;
        }
        int lo = Math.min(base, from & -SPAN);
        int hi = Math.max(end, (to + SPAN - 1) & -SPAN);
        if (hi - lo < 2 * counts.length) { // grow on the side that asked, so that a run of new highs copies rarely
            if (to > end) {
                hi = lo + 2 * counts.length;
            } else {
                lo = Math.max(0, hi - 2 * counts.length);
            }
        }
        final long[] wider = new long[hi - lo];
        System.arraycopy(counts, 0, wider, base - lo, counts.length);
        final long grown = 8L * (wider.length - counts.length);
        counts = wider;
        base = lo;
        return grown;
    }

    /** @param v a non-negative value. @return the bytes the counts grew by to hold it (0 but for a new extreme). */
    long record(final long v) {
        final int i = index(v) - base;
        if (i >= 0 && i < counts.length) {
            counts[i]++;
            total++;
            return 0;
        }
        final long grown = cover(i + base, i + base + 1);
        counts[index(v) - base]++;
        total++;
        return grown;
    }

    void addAll(final IntBuckets o) {
        cover(o.base, o.base + o.counts.length);
        for (int i = 0; i < o.counts.length; i++) {
            counts[o.base - base + i] += o.counts[i];
        }
        total += o.total;
    }

    /** Adds these counts to a histogram of the same precision: each bucket lands in the same bucket there. */
    void addTo(final Histogram h) {
        for (int i = 0; i < counts.length; i++) {
            if (counts[i] != 0) {
                h.recordValueWithCount(lowest(base + i), counts[i]);
            }
        }
    }

    /**
     * @param rank 1 to {@link #total}.
     * @return the largest value of the bucket holding the rank-th smallest value, as HdrHistogram answers.
     */
    long valueAtRank(final long rank) {
        long seen = 0;
        for (int i = 0; i < counts.length; i++) {
            seen += counts[i];
            if (seen >= rank) {
                return highest(base + i);
            }
        }
        throw new IllegalArgumentException("rank " + rank + " of " + total);
    }
}
