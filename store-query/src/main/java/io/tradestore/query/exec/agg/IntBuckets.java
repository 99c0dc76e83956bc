package io.tradestore.query.exec.agg;

import java.util.Arrays;
import org.HdrHistogram.Histogram;

/**
 * Counts of non-negative longs in HdrHistogram's bucket layout at 3 significant digits (values below 2,048 exactly,
 * larger ones in 1,024 sub-buckets per power of two, so within 2^-10 of their value), held in a plain array grown to
 * the largest index seen. Recording a value is a leading-zero count, a shift and an increment, with no search for a
 * packed slot as in HdrHistogram's packed form (which holds groups past the budget, see {@link PercentileAcc}).
 */
final class IntBuckets {
    /** Counts past this index (values of 2^21 and above) wait for a value that needs them before they are allocated. */
    private static final int FIRST_LENGTH = 12 * 1024;
    long[] counts;
    long total;

    IntBuckets(final long firstValue) {
        counts = new long[Math.max(FIRST_LENGTH, index(firstValue) + 1)];
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

    /** @param v a non-negative value. @return the bytes the counts grew by to hold it (0 but for a new largest). */
    long record(final long v) {
        final int i = index(v);
        long grown = 0;
        if (i >= counts.length) {
            final int before = counts.length;
            counts = Arrays.copyOf(counts, Math.max(i + 1, counts.length * 2));
            grown = 8L * (counts.length - before);
        }
        counts[i]++;
        total++;
        return grown;
    }

    void addAll(final IntBuckets o) {
        if (o.counts.length > counts.length) {
            counts = Arrays.copyOf(counts, o.counts.length);
        }
        for (int i = 0; i < o.counts.length; i++) {
            counts[i] += o.counts[i];
        }
        total += o.total;
    }

    /** Adds these counts to a histogram of the same precision: each bucket lands in the same bucket there. */
    void addTo(final Histogram h) {
        for (int i = 0; i < counts.length; i++) {
            if (counts[i] != 0) {
                h.recordValueWithCount(lowest(i), counts[i]);
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
                return highest(i);
            }
        }
        throw new IllegalArgumentException("rank " + rank + " of " + total);
    }
}
