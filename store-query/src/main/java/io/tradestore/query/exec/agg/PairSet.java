package io.tradestore.query.exec.agg;

import java.util.Arrays;

/**
 * A set of (group, value) pairs in open addressing, for exact {@code countDistinct}: one table for every group of an
 * accumulator, as ClickHouse's and DuckDB's distinct aggregates hash, instead of a bitmap per group (figures in commit
 * a76c165). Owned by one worker.
 */
final class PairSet {
    private static final int INITIAL = 1 << 10;
    /** Per slot: group + 1, 0 when empty. */
    private int[] groups = new int[INITIAL];
    private long[] values = new long[INITIAL];
    private int mask = INITIAL - 1;
    private int size;

    /**
     * @param g a group. @param v a value. @return whether the pair was new.
     */
    boolean add(final int g, final long v) {
        final int tag = g + 1;
        int i = slot(g, v);
        while (true) {
            final int t = groups[i];
            if (t == 0) {
                groups[i] = tag;
                values[i] = v;
                if (++size > (mask + 1) >>> 1) {
                    grow();
                }
                return true;
            }
            if (t == tag && values[i] == v) {
                return false;
            }
            i = (i + 1) & mask;
        }
    }

    private int slot(final int g, final long v) {
        long h = (v ^ (g * 0x9E3779B97F4A7C15L)) * 0xBF58476D1CE4E5B9L;
        h ^= h >>> 31;
        return (int) h & mask;
    }

    private void grow() {
        final int[] og = groups;
        final long[] ov = values;
        final int capacity = og.length * 2;
        groups = new int[capacity];
        values = new long[capacity];
        mask = capacity - 1;
        for (int j = 0; j < og.length; j++) {
            if (og[j] != 0) {
                int i = slot(og[j] - 1, ov[j]);
                while (groups[i] != 0) {
                    i = (i + 1) & mask;
                }
                groups[i] = og[j];
                values[i] = ov[j];
            }
        }
    }

    /** @return the pairs held. */
    int size() {
        return size;
    }

    /** @return slots to walk with {@link #groupAt} and {@link #valueAt}. */
    int capacity() {
        return groups.length;
    }

    /** @param i a slot. @return its pair's group, or -1 when the slot is empty. */
    int groupAt(final int i) {
        return groups[i] - 1;
    }

    /** @param i a slot holding a pair. @return its value. */
    long valueAt(final int i) {
        return values[i];
    }

    /**
     * The values by group, for merging this worker's groups one at a time into another's.
     *
     * @param groupCount groups of the accumulator.
     * @return a counting sort of the pairs by group.
     */
    Grouped byGroup(final int groupCount) {
        final int[] start = new int[groupCount + 1];
        for (final int t : groups) {
            if (t != 0) {
                start[t]++;
            }
        }
        for (int g = 0; g < groupCount; g++) {
            start[g + 1] += start[g];
        }
        final int[] at = Arrays.copyOf(start, groupCount);
        final long[] out = new long[size];
        for (int i = 0; i < groups.length; i++) {
            if (groups[i] != 0) {
                out[at[groups[i] - 1]++] = values[i];
            }
        }
        return new Grouped(start, out);
    }

    /** The pairs' values sorted by group: group {@code g}'s are {@code values[start[g]..start[g + 1])}. */
    record Grouped(int[] start, long[] values) {
    }
}
