package io.tradestore.core;

import java.util.Arrays;

/**
 * A set of rows as sorted, disjoint, non-adjacent ranges {@code [from, to)}: the rows a writer's flyweights could have
 * written through the mappings since the last commit (see {@link TableWriter#rowAddress}). Adding a range that touches
 * existing ones merges them, so re-adding the same or a growing range (a flyweight re-pointed at every staging window)
 * keeps one entry. Grows by doubling and is reused after {@link #clear()}: no allocation in steady state.
 *
 * <pre>
 *   add [2,9) [2,17) [40,41) [16,25)  ->  [2,25) [40,41)
 * </pre>
 */
final class RowRanges {
    private long[] from = new long[8];
    private long[] to = new long[8];
    private int count;

    /**
     * Adds rows {@code [first, end)}; nothing when empty.
     *
     * @param first first row.
     * @param end   end row (exclusive).
     */
    void add(final long first, final long end) {
        if (first >= end) {
            return;
        }
        // the common cases first: inside or touching the last range, or after it
        final int last = count - 1;
        if (last >= 0 && first >= from[last]) {
            if (first <= to[last]) {
                to[last] = Math.max(to[last], end);
                return;
            }
            append(first, end);
            return;
        }
        // ranges [lo, hi) are those that touch [first, end): merge them into one at lo
        int lo = 0;
        while (lo < count && to[lo] < first) {
            lo++;
        }
        int hi = lo;
        while (hi < count && from[hi] <= end) {
            hi++;
        }
        if (lo == hi) {
            append(first, end);
            System.arraycopy(from, lo, from, lo + 1, count - 1 - lo);
            System.arraycopy(to, lo, to, lo + 1, count - 1 - lo);
            from[lo] = first;
            to[lo] = end;
            return;
        }
        from[lo] = Math.min(from[lo], first);
        to[lo] = Math.max(to[hi - 1], end);
        System.arraycopy(from, hi, from, lo + 1, count - hi);
        System.arraycopy(to, hi, to, lo + 1, count - hi);
        count -= hi - lo - 1;
    }

    private void append(final long first, final long end) {
        if (count == from.length) {
            from = Arrays.copyOf(from, 2 * count);
            to = Arrays.copyOf(to, 2 * count);
        }
        from[count] = first;
        to[count] = end;
        count++;
    }

    /** @return how many ranges. */
    int count() {
        return count;
    }

    /** @param i range index, below {@link #count()}. @return its first row. */
    long from(final int i) {
        return from[i];
    }

    /** @param i range index, below {@link #count()}. @return its end row (exclusive). */
    long to(final int i) {
        return to[i];
    }

    /** Empties the set (keeps its arrays). */
    void clear() {
        count = 0;
    }
}
