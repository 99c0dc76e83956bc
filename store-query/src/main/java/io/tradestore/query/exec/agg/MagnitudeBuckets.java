package io.tradestore.query.exec.agg;

import java.util.Arrays;
import io.tradestore.query.exec.group.KeyTable;

/**
 * Counts of non-negative f64 values in log-linear buckets, for percentiles of f64 columns and products past the exact
 * limit: a value's bucket is its IEEE-754 bits without the low 42 mantissa bits (its exponent and the top 10 bits of
 * its mantissa), so buckets are ordered as the values are, each normal double's spans a relative width of at most
 * 2^-10, and every double from zero to infinity has one. A bucket answers with its midpoint: relative error at most
 * 2^-11 (about 0.05%) for normal values, within the 10^-3 the response states (subnormals, below 2.2e-308, share
 * wider buckets and values under ~2.2e-311 answer 0). HdrHistogram's {@code DoubleHistogram} covered at most a
 * 2^53 ratio between a group's largest and smallest values and failed beyond it (price*price from 10^-12 to
 * 10^6).
 */
public final class MagnitudeBuckets {
    /** Mantissa bits dropped from a value's bits to make its bucket. */
    static final int SHIFT = 42;
    /** Small at first and doubled as buckets appear: a query may hold one of these per group and sign. */
    private final KeyTable table = new KeyTable(1, 16);
    private long[] counts = new long[16];
    private long total;

    /** @param magnitude a non-negative, non-NaN value. */
    public void record(final double magnitude) {
        add(Double.doubleToRawLongBits(magnitude) >>> SHIFT, 1);
    }

    private void add(final long bucket, final long n) {
        final int id = table.put(bucket);
        if (id >= counts.length) {
            counts = Arrays.copyOf(counts, Math.max(id + 1, counts.length * 2));
        }
        counts[id] += n;
        total += n;
    }

    /** @param other buckets to add to these. */
    public void addAll(final MagnitudeBuckets other) {
        for (int i = 0; i < other.table.size(); i++) {
            add(other.table.keys[i], other.counts[i]);
        }
    }

    /** @return values recorded. */
    public long total() {
        return total;
    }

    /**
     * @param rank a rank, 1 to {@link #total()}.
     * @return the rank-th smallest value, as its bucket's midpoint (0 for the bucket of zero, infinity for infinity's).
     */
    public double valueAtRank(final long rank) {
        final int n = table.size();
        // buckets are 22-bit numbers and ids below 2^22: one sort of (bucket, id) pairs packed in a long
        final long[] order = new long[n];
        for (int i = 0; i < n; i++) {
            order[i] = table.keys[i] << 32 | i;
        }
        Arrays.sort(order);
        long seen = 0;
        for (final long o : order) {
            seen += counts[(int) o];
            if (seen >= rank) {
                return value(o >>> 32);
            }
        }
        throw new IllegalArgumentException("rank=" + rank + " total=" + total);
    }

    /** @param bucket a bucket. @return the value that stands for it. */
    static double value(final long bucket) {
        if (bucket == 0) {
            return 0.0;
        }
        if (bucket >>> (52 - SHIFT) == 0x7FF) {
            return Double.POSITIVE_INFINITY;
        }
        return Double.longBitsToDouble(bucket << SHIFT | 1L << (SHIFT - 1));
    }
}
