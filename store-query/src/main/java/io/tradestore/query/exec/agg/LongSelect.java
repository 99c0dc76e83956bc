package io.tradestore.query.exec.agg;

import java.util.Arrays;

/**
 * The k-th smallest of a range of longs in linear time. Large ranges go by radix: one pass finds the smallest and
 * largest value, one counts the values in equal slices of that span (about as many slices as values, 2^16 at most),
 * one copies out the slice holding the rank, and the slice (a few values for spread data) is searched the same way
 * until it is small. Every pass reads the values in order with no data-dependent branch, where a quickselect's
 * partitions take one per value, mispredicted on spread data. Small ranges go by quickselect in place, with a
 * median-of-three pivot and a three-way partition so that runs of equal values and sorted input stay linear.
 */
final class LongSelect {
    /** Partition rounds before the rest of the range is sorted instead: bounds the worst case at n log n. */
    private static final int MAX_ROUNDS = 64;
    /** Bits of the span one radix pass splits on at most: 2^16 counts (256 KiB) stay in the L2 cache. */
    private static final int BITS = 16;
    /** Below this many values, quickselect. */
    private static final int RADIX_MIN = 1 << 12;

    private LongSelect() {
    }

    /**
     * Finds the k-th smallest of {@code a[0, n)}, which it may reorder.
     *
     * @param a the values.
     * @param n how many of them.
     * @param k the rank wanted, 0 to {@code n - 1}.
     * @return the k-th smallest value (0-based).
     */
    static long select(final long[] a, final int n, final int k) {
        if (k < 0 || k >= n || n > a.length) {
            throw new IllegalArgumentException("k=" + k + " n=" + n + " length=" + a.length);
        }
        return n < RADIX_MIN ? quickselect(a, n, k) : radix(a, n, k);
    }

    private static long radix(final long[] a, final int n, final int k) {
        long min = a[0];
        long max = a[0];
        for (int i = 1; i < n; i++) {
            min = Math.min(min, a[i]);
            max = Math.max(max, a[i]);
        }
        // about one slice per value: a group of 5,000 values counts into 4,096 slices (16 KiB, in the L1 cache), where
        // 2^16 slices cost it an allocation and a fill of 256 KiB and a cache miss a value
        final int bits = Math.min(BITS, 31 - Integer.numberOfLeadingZeros(n));
        final int[] counts = new int[1 << bits];
        long[] src = a;
        int len = n;
        int rank = k;
        while (true) {
            final long span = max - min; // unsigned: max - min may exceed Long.MAX_VALUE
            if (span == 0) {
                return min;
            }
            if (len < RADIX_MIN) {
                return quickselect(src, len, rank); // src is a slice copied out: a holds at least RADIX_MIN values
            }
            final int shift = Math.max(0, 64 - Long.numberOfLeadingZeros(span) - bits);
            final int slices = (int) (span >>> shift) + 1;
            Arrays.fill(counts, 0, slices, 0);
            for (int i = 0; i < len; i++) {
                counts[(int) ((src[i] - min) >>> shift)]++;
            }
            int slice = 0;
            while (rank >= counts[slice]) {
                rank -= counts[slice++];
            }
            if (shift == 0) {
                return min + slice;
            }
            final long[] next = new long[counts[slice]];
            long lo = Long.MAX_VALUE;
            long hi = Long.MIN_VALUE;
            int j = 0;
            for (int i = 0; i < len; i++) {
                final long v = src[i];
                if ((int) ((v - min) >>> shift) == slice) {
                    next[j++] = v;
                    lo = Math.min(lo, v);
                    hi = Math.max(hi, v);
                }
            }
            src = next;
            len = next.length;
            min = lo;
            max = hi;
        }
    }

    private static long quickselect(final long[] a, final int n, final int k) {
        int lo = 0;
        int hi = n - 1;
        for (int round = 0; hi - lo > 16; round++) {
            if (round == MAX_ROUNDS) {
                Arrays.sort(a, lo, hi + 1);
                return a[k];
            }
            final long pivot = median(a[lo], a[(lo + hi) >>> 1], a[hi]);
            // Dijkstra's three-way partition: [lo, lt) < pivot, [lt, i) == pivot, (gt, hi] > pivot
            int lt = lo;
            int gt = hi;
            int i = lo;
            while (i <= gt) {
                final long v = a[i];
                if (v < pivot) {
                    a[i++] = a[lt];
                    a[lt++] = v;
                } else if (v > pivot) {
                    a[i] = a[gt];
                    a[gt--] = v;
                } else {
                    i++;
                }
            }
            if (k < lt) {
                hi = lt - 1;
            } else if (k > gt) {
                lo = gt + 1;
            } else {
                return pivot;
            }
        }
        Arrays.sort(a, lo, hi + 1);
        return a[k];
    }

    private static long median(final long x, final long y, final long z) {
        return x < y ? (y < z ? y : Math.max(x, z)) : (x < z ? x : Math.max(y, z));
    }
}
