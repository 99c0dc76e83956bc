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
 *
 * <p>The 1,024 buckets of one exponent are counted in a plain array (8 KiB) while the caller's memory budget allows,
 * an index where the hash table costs a probe per value; buckets of exponents without such a row go to the table.
 */
public final class MagnitudeBuckets {
    /** Mantissa bits dropped from a value's bits to make its bucket. */
    static final int SHIFT = 42;
    /** Bucket bits below the exponent: a row holds the buckets of one exponent. */
    private static final int ROW_BITS = 52 - SHIFT;
    private static final int ROW = 1 << ROW_BITS;
    /** Bytes of one row of counts. */
    static final long ROW_BYTES = 8L * ROW;
    /** Buckets of exponents without a row, or null before the first; small at first and doubled as buckets appear. */
    private KeyTable table;
    private long[] counts;
    /** Per exponent from {@link #rowLo}: the counts of its buckets, or null. */
    private long[][] rows;
    private int rowLo;
    private long total;

    /** @param magnitude a non-negative, non-NaN value, counted with no memory budget. */
    public void record(final double magnitude) {
        record(magnitude, Long.MAX_VALUE);
    }

    /**
     * @param magnitude a non-negative, non-NaN value.
     * @param budget    bytes of new rows this may allocate.
     * @return the bytes allocated.
     */
    public long record(final double magnitude, final long budget) {
        return add(Double.doubleToRawLongBits(magnitude) >>> SHIFT, 1, budget);
    }

    private long add(final long bucket, final long n, final long budget) {
        total += n;
        final int e = (int) (bucket >>> ROW_BITS);
        final int at = e - rowLo;
        final int low = (int) bucket & (ROW - 1);
        if (rows != null && at >= 0 && at < rows.length && rows[at] != null) {
            rows[at][low] += n;
            return 0;
        }
        if (budget >= ROW_BYTES) {
            row(e)[low] += n;
            return ROW_BYTES;
        }
        if (table == null) {
            table = new KeyTable(1, 16);
            counts = new long[16];
        }
        final int id = table.put(bucket);
        if (id >= counts.length) {
            counts = Arrays.copyOf(counts, Math.max(id + 1, counts.length * 2));
        }
        counts[id] += n;
        return 0;
    }

    /** @return exponent {@code e}'s row, allocated now. */
    private long[] row(final int e) {
        if (rows == null) {
            rows = new long[1][];
            rowLo = e;
        } else if (e < rowLo) {
            final long[][] grown = new long[rows.length + rowLo - e][];
            System.arraycopy(rows, 0, grown, rowLo - e, rows.length);
            rows = grown;
            rowLo = e;
        } else if (e - rowLo >= rows.length) {
            rows = Arrays.copyOf(rows, e - rowLo + 1);
        }
        final long[] r = new long[ROW];
        rows[e - rowLo] = r;
        return r;
    }

    /** @param other buckets to add to these. */
    public void addAll(final MagnitudeBuckets other) {
        addAll(other, Long.MAX_VALUE);
    }

    /**
     * @param other  buckets to add to these.
     * @param budget bytes of new rows this may allocate.
     * @return the bytes allocated.
     */
    public long addAll(final MagnitudeBuckets other, final long budget) {
        final long[] used = {0};
        other.forEach((bucket, n) -> used[0] += add(bucket, n, budget - used[0]));
        return used[0];
    }

    /** A bucket and its count. */
    @FunctionalInterface
    private interface BucketCount {
        void accept(long bucket, long n);
    }

    /** Calls {@code to} with every bucket counted, those of the rows, then those of the table. */
    private void forEach(final BucketCount to) {
        for (int at = 0; rows != null && at < rows.length; at++) {
            final long[] r = rows[at];
            final long high = (long) (rowLo + at) << ROW_BITS;
            for (int low = 0; r != null && low < ROW; low++) {
                if (r[low] != 0) {
                    to.accept(high | low, r[low]);
                }
            }
        }
        for (int i = 0; table != null && i < table.size(); i++) {
            to.accept(table.keys[i], counts[i]);
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
        final Listed all = new Listed();
        forEach(all);
        // a bucket in both a row and the table comes twice, next to itself
        Arrays.sort(all.order, 0, all.size);
        long seen = 0;
        for (int i = 0; i < all.size; i++) {
            seen += all.counts[(int) all.order[i]];
            if (seen >= rank) {
                return value(all.order[i] >>> 32);
            }
        }
        throw new IllegalArgumentException("rank=" + rank + " total=" + total);
    }

    /**
     * Buckets listed for a sort: buckets are 22-bit numbers and there are fewer than 2^22 of them, so each is one
     * long, the bucket above its index into the counts.
     */
    private static final class Listed implements BucketCount {
        long[] order = new long[16];
        long[] counts = new long[16];
        int size;

        @Override
        public void accept(final long bucket, final long n) {
            if (size == order.length) {
                order = Arrays.copyOf(order, size * 2);
                counts = Arrays.copyOf(counts, size * 2);
            }
            counts[size] = n;
            order[size] = bucket << 32 | size;
            size++;
        }
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
