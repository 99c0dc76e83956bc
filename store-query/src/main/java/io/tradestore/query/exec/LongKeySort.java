package io.tradestore.query.exec;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.Arrays;
import java.util.Comparator;
import java.util.function.Function;

import io.tradestore.query.exec.agg.PercentileAcc;

/**
 * Sorts many answer rows by their first order column through long keys: a radix sort of the keys, then each run of
 * equal keys by the full order. A comparator sort of 25,000 groups by a decimal takes about 15 compares a row, each
 * three dependent loads into rows spread over the heap; the keys are read once (figures in the body of commit
 * 22650f6).
 */
final class LongKeySort {
    /** Fewer rows than this sort by the comparator alone: the keys would cost more than they save. */
    static final int MIN_ROWS = 1024;

    private LongKeySort() {
    }

    /**
     * Sorts {@code rows} by {@code order}, whose first column is {@code first} of each row, in ascending or
     * descending order as {@code desc} says.
     */
    static <T> void sort(final T[] rows, final Function<T, Object> first, final boolean desc,
                         final Comparator<T> order) {
        final long[] keys = rows.length < MIN_ROWS ? null : keys(rows, first, desc);
        if (keys == null) {
            Arrays.sort(rows, order);
            return;
        }
        final int[] perm = radixOrder(keys);
        final T[] copy = rows.clone();
        final long[] sorted = new long[keys.length];
        for (int i = 0; i < perm.length; i++) {
            rows[i] = copy[perm[i]];
            sorted[i] = keys[perm[i]];
        }
        // ties of the first column go by the rest of the order (more columns, then the keys)
        int from = 0;
        for (int i = 1; i <= rows.length; i++) {
            if (i == rows.length || sorted[i] != sorted[from]) {
                if (i - from > 1) {
                    Arrays.sort(rows, from, i, order);
                }
                from = i;
            }
        }
    }

    /**
     * @return per row, a key whose signed order is the column's order (reversed for desc), or null when the column
     *     holds a null, a NaN, values of two types, or decimals of two scales or beyond 63 bits unscaled.
     */
    static <T> long[] keys(final T[] rows, final Function<T, Object> first, final boolean desc) {
        final long[] keys = new long[rows.length];
        final Object v0 = first.apply(rows[0]);
        final Class<?> type = v0 == null ? null : v0.getClass();
        final int scale = v0 instanceof BigDecimal ? ((BigDecimal) v0).scale() : 0;
        for (int i = 0; i < rows.length; i++) {
            final Object v = first.apply(rows[i]);
            if (v == null || v.getClass() != type) {
                return null;
            }
            final long k;
            if (v instanceof Long) {
                k = (Long) v;
            } else if (v instanceof Double) {
                final double d = (Double) v;
                if (d != d) {
                    return null; // NaN sorts as null, last either way
                }
                k = PercentileAcc.sortable(d);
            } else if (v instanceof BigDecimal && ((BigDecimal) v).scale() == scale) {
                final BigInteger unscaled = ((BigDecimal) v).unscaledValue();
                if (unscaled.bitLength() >= Long.SIZE) {
                    return null;
                }
                k = unscaled.longValue();
            } else {
                return null;
            }
            keys[i] = desc ? ~k : k;
        }
        return keys;
    }

    /** @return the row indexes in ascending signed order of their keys (LSD radix, a byte a pass). */
    static int[] radixOrder(final long[] keys) {
        final int n = keys.length;
        long[] k = new long[n];
        long[] kTmp = new long[n];
        int[] idx = new int[n];
        int[] idxTmp = new int[n];
        for (int i = 0; i < n; i++) {
            k[i] = keys[i] ^ Long.MIN_VALUE; // unsigned order of these is the signed order of the keys
            idx[i] = i;
        }
        final int[] count = new int[257];
        for (int shift = 0; shift < Long.SIZE; shift += Byte.SIZE) {
            Arrays.fill(count, 0);
            for (int i = 0; i < n; i++) {
                count[(int) (k[i] >>> shift & 0xff) + 1]++;
            }
            if (count[(int) (k[0] >>> shift & 0xff) + 1] == n) {
                continue; // every key has this byte: the pass would not move a row
            }
            for (int b = 0; b < 256; b++) {
                count[b + 1] += count[b];
            }
            for (int i = 0; i < n; i++) {
                final int at = count[(int) (k[i] >>> shift & 0xff)]++;
                kTmp[at] = k[i];
                idxTmp[at] = idx[i];
            }
            final long[] tk = k;
            k = kTmp;
            kTmp = tk;
            final int[] ti = idx;
            idx = idxTmp;
            idxTmp = ti;
        }
        return idx;
    }
}
