package io.tradestore.query.exec.agg;

import java.math.BigInteger;
import java.util.Arrays;

/**
 * Exact signed accumulators, one per group, as (hi, lo) long pairs: 128 bits, and beyond. A sum of products of two
 * 64-bit values passes 2^127 after three rows of the largest ones; each time a group's pair wraps around, its count of
 * wraps ({@link #wraps}, made on the first one) keeps the lost 2^128, so the value stays exact (it was silently
 * negative before). Two's complement addition wraps the same whatever the order, so a sum that came back into range is
 * exact with no wrap left counted.
 */
public final class Int128 {
    long[] hi = new long[1];
    long[] lo = new long[1];
    /** Per group: how many times 2^128 the pair lost (positive) or gained (negative); null until a pair first wraps. */
    private long[] wraps;

    void grow(final int capacity) {
        if (capacity > hi.length) {
            final int n = Math.max(capacity, hi.length * 2);
            hi = Arrays.copyOf(hi, n);
            lo = Arrays.copyOf(lo, n);
            if (wraps != null) {
                wraps = Arrays.copyOf(wraps, n);
            }
        }
    }

    /** Adds group {@code src} of {@code o} (another worker's partial) into group {@code dst}. */
    void merge(final int dst, final Int128 o, final int src) {
        add128(dst, o.hi[src], o.lo[src]);
        if (o.wraps != null && o.wraps[src] != 0) {
            wrap(dst, o.wraps[src]);
        }
    }

    private void wrap(final int g, final long times) {
        if (wraps == null) {
            wraps = new long[hi.length];
        }
        wraps[g] += times;
    }

    /**
     * Adds a signed 64-bit value (a flushed 64-bit partial: it may carry the pair across 2^127, so it counts wraps
     * too).
     */
    void add(final int g, final long v) {
        add128(g, v >> 63, v);
    }

    /** Adds the exact product a*b. */
    void addProduct(final int g, final long a, final long b) {
        add128(g, Math.multiplyHigh(a, b), a * b);
    }

    void add128(final int g, final long h, final long l) {
        final long s = lo[g] + l;
        final long carry = Long.compareUnsigned(s, l) < 0 ? 1 : 0;
        lo[g] = s;
        final long dh = h + carry;
        if (dh != 0) {
            // rare for non-negative addends: the high words stay out of the cache (a flush of 10,000 groups)
            final long old = hi[g];
            final long sum = old + dh;
            hi[g] = sum;
            // the addends' signs are old's and h's; the pair wrapped when they agree and the sum's differs
            if (((old ^ sum) & (h ^ sum)) < 0) {
                wrap(g, old < 0 ? -1 : 1);
            }
        }
    }

    BigInteger value(final int g) {
        final BigInteger v;
        if (hi[g] == lo[g] >> 63) {
            v = BigInteger.valueOf(lo[g]); // fits in 64 bits: no string round trip
        } else {
            v = BigInteger.valueOf(hi[g]).shiftLeft(64).add(new BigInteger(Long.toUnsignedString(lo[g])));
        }
        return wraps == null || wraps[g] == 0 ? v : v.add(BigInteger.valueOf(wraps[g]).shiftLeft(128));
    }

    /** @param bound largest magnitude of one addend. @return how many may go into a 64-bit partial sum safely. */
    static long budget(final long bound) {
        return bound <= 0 ? Long.MAX_VALUE : (1L << 62) / bound;
    }

    /**
     * @param s segment. @param col column. @return the largest magnitude of a non-null value (zone map), 0 when none.
     */
    public static long maxAbs(final io.tradestore.core.segment.Segment s, final int col) {
        final long min = s.zoneMin(-1, col);
        final long max = s.zoneMax(-1, col);
        if (min > max) {
            return 0;
        }
        return Math.max(min == Long.MIN_VALUE ? Long.MAX_VALUE : Math.abs(min),
            max == Long.MIN_VALUE ? Long.MAX_VALUE : Math.abs(max));
    }

    /** @param a a bound. @param b a bound. @return a*b, or Long.MAX_VALUE when that reaches 2^62. */
    public static long productBound(final long a, final long b) {
        if (Math.multiplyHigh(a, b) != 0) {
            return Long.MAX_VALUE;
        }
        final long p = a * b;
        return p < 0 || p >= (1L << 62) ? Long.MAX_VALUE : p;
    }
}
