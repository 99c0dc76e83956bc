package io.tradestore.query.exec.agg;

import java.util.Arrays;

/**
 * A set of (group, value) pairs for exact {@code countDistinct}: one set for every group of an accumulator, as
 * ClickHouse's and DuckDB's distinct aggregates hash, instead of a bitmap per group (figures in commit a76c165). Owned
 * by one worker.
 *
 * <p>Up to {@link #LOG_AFTER} pairs it is an open-addressing hash table. Past that a probe per add misses the caches
 * (a million mostly unique pairs: a 24 MB table), so adds are appended to a log instead, and the log is made distinct
 * when read, or when it fills: its pairs are split by hash into partitions of {@link #PARTITION_PAIRS}, each made
 * distinct in a table that stays in the L2 cache (the radix-partitioned aggregation of DuckDB and ClickHouse). A
 * compaction that finds most of the log repeated turns the set back into a hash table, with a higher threshold, so that
 * many repeats of few values never grow the log without bound; one that finds nearly every pair distinct lets the
 * log double once without compacting (figures in commit df549b9). Another worker's set joins at once when group ids
 * agree ({@link #absorb}), compacted with this one's.
 */
final class PairSet {
    private static final int INITIAL = 1 << 10;
    /**
     * Pairs the hash table holds before adds go to the log (12 bytes a slot, two slots a pair: ~400 KB, in L2). Lower
     * than the caches allow: a table growing by doublings rehashes every pair it holds, which a log of mostly new
     * pairs never does.
     */
    static final int LOG_AFTER = 1 << 14;
    /** Pairs per partition of a compaction: its table of twice as many slots (~400 KB) stays in the L2 cache. */
    private static final int PARTITION_PAIRS = 1 << 14;
    /** Logs from this many pairs compact on the tasks they are given; shorter ones on the calling thread. */
    static final int PARALLEL_PAIRS = 1 << 17;
    /** Per slot: group + 1, 0 when empty. */
    private int[] groups = new int[INITIAL];
    private long[] values = new long[INITIAL];
    private int mask = INITIAL - 1;
    private int size;
    /** Pairs held in the hash table before the next adds go to the log. */
    private int logAfter = LOG_AFTER;
    /** The log (null: hash mode): group and value of each add since the set turned to it. */
    private int[] logGroups;
    private long[] logValues;
    private int logSize;
    /** Whether the log holds each pair once (after a compaction and no add since). */
    private boolean distinct;
    /** Whether the last compaction on a full log kept at least 7/8 of its pairs. */
    private boolean mostlyDistinct;

    /**
     * @param g a group. @param v a value.
     * @return whether the set may have changed: exactly whether the pair was new while the set is a hash table, always
     *     true once it is a log.
     */
    boolean add(final int g, final long v) {
        if (logGroups != null) {
            if (logSize == logGroups.length) {
                makeRoom();
                if (logGroups == null) {
                    return add(g, v); // many repeats: a hash table again
                }
            }
            logGroups[logSize] = g;
            logValues[logSize++] = v;
            distinct = false;
            return true;
        }
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
                if (size > logAfter) {
                    toLog();
                }
                return true;
            }
            if (t == tag && values[i] == v) {
                return false;
            }
            i = (i + 1) & mask;
        }
    }

    private static long hash(final int g, final long v) {
        final long h = (v ^ (g * 0x9E3779B97F4A7C15L)) * 0xBF58476D1CE4E5B9L;
        return h ^ (h >>> 31);
    }

    private int slot(final int g, final long v) {
        return (int) hash(g, v) & mask;
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

    /** Moves the hash table's pairs into a log twice their number, and drops the table. */
    private void toLog() {
        logGroups = new int[size * 2];
        logValues = new long[size * 2];
        logSize = 0;
        appendTable(groups, values);
        distinct = true;
        groups = null;
        values = null;
    }

    /** Appends the pairs of a hash table's slots (group + 1, 0 when empty) to the log, which has room for them. */
    private void appendTable(final int[] tableGroups, final long[] tableValues) {
        for (int j = 0; j < tableGroups.length; j++) {
            if (tableGroups[j] != 0) {
                logGroups[logSize] = tableGroups[j] - 1;
                logValues[logSize++] = tableValues[j];
            }
        }
    }

    /**
     * The log is full: compacts it, and either doubles it (mostly distinct pairs) or, when compaction dropped most of
     * it, goes back to a hash table of the distinct pairs with a threshold four times their number.
     */
    private void makeRoom() {
        if (mostlyDistinct) {
            // the last compaction kept nearly every pair: compacting again now would mostly copy, so the log doubles
            // and the next fill compacts (every pair is partitioned about half as often; memory at most twice)
            mostlyDistinct = false;
            logGroups = Arrays.copyOf(logGroups, logGroups.length * 2);
            logValues = Arrays.copyOf(logValues, logValues.length * 2);
            return;
        }
        final int before = logSize;
        compact();
        mostlyDistinct = logSize * 8L >= before * 7L;
        if (logSize * 2 < before) {
            final int n = logSize;
            int capacity = INITIAL;
            while (capacity < 4 * n) {
                capacity *= 2;
            }
            groups = new int[capacity];
            values = new long[capacity];
            mask = capacity - 1;
            size = 0;
            logAfter = Math.max(logAfter, 4 * n);
            final int[] lg = logGroups;
            final long[] lv = logValues;
            logGroups = null;
            logValues = null;
            logSize = 0;
            for (int j = 0; j < n; j++) {
                add(lg[j], lv[j]);
            }
            return;
        }
        if (logSize * 2 > logGroups.length) {
            logGroups = Arrays.copyOf(logGroups, logGroups.length * 2);
            logValues = Arrays.copyOf(logValues, logValues.length * 2);
        }
    }

    /** Makes the log hold each pair once, partition by partition (see the class comment), on this thread. */
    private void compact() {
        compact(Tasks.SERIAL);
    }

    /**
     * Makes the log hold each pair once, partition by partition (see the class comment): the counting pass and the
     * scatter by chunks of the log, the deduplication by partition, each a task of {@code tasks} (past
     * {@link #PARALLEL_PAIRS} pairs; fewer run on this thread).
     *
     * @param tasks runs the tasks.
     */
    void compact(final Tasks tasks) {
        if (distinct || logGroups == null) {
            return;
        }
        final int n = logSize;
        final Tasks t = n < PARALLEL_PAIRS ? Tasks.SERIAL : tasks;
        int bits = 0;
        while ((long) PARTITION_PAIRS << bits < n) {
            bits++;
        }
        final int partitions = 1 << bits;
        final int partBits = bits;
        final int chunks = t.workers() == 1 ? 1 : 4 * t.workers();
        // a counting pass and a scatter by the hash's top bits (kept per pair, not hashed again for the scatter)
        final int[] part = new int[n];
        final int[][] at = new int[chunks][partitions];
        final int[] lg = logGroups;
        final long[] lv = logValues;
        t.run(chunks, (w, c) -> {
            final int[] count = at[c];
            for (int j = (int) ((long) n * c / chunks), end = (int) ((long) n * (c + 1) / chunks); j < end; j++) {
                part[j] = partition(hash(lg[j], lv[j]), partBits);
                count[part[j]]++;
            }
        });
        final int[] start = new int[partitions + 1];
        int running = 0;
        for (int p = 0; p < partitions; p++) {
            for (int c = 0; c < chunks; c++) {
                final int k = at[c][p];
                at[c][p] = running;
                running += k;
            }
            start[p + 1] = running;
        }
        final int[] pg = new int[n];
        final long[] pv = new long[n];
        t.run(chunks, (w, c) -> {
            final int[] next = at[c];
            for (int j = (int) ((long) n * c / chunks), end = (int) ((long) n * (c + 1) / chunks); j < end; j++) {
                final int k = next[part[j]]++;
                pg[k] = lg[j];
                pv[k] = lv[j];
            }
        });
        // each partition made distinct in place, in a small table per thread, reused
        int largest = 0;
        for (int p = 0; p < partitions; p++) {
            largest = Math.max(largest, start[p + 1] - start[p]);
        }
        int cap = 16;
        while (cap < 2 * largest) {
            cap *= 2;
        }
        final int capacity = cap;
        final int[][] tgs = new int[t.workers()][];
        final long[][] tvs = new long[t.workers()][];
        final int[] kept = new int[partitions];
        t.run(partitions, (w, p) -> {
            if (tgs[w] == null) {
                tgs[w] = new int[capacity];
                tvs[w] = new long[capacity];
            }
            kept[p] = dedup(pg, pv, start[p], start[p + 1], tgs[w], tvs[w]);
        });
        int out = 0;
        for (int p = 0; p < partitions; p++) {
            System.arraycopy(pg, start[p], logGroups, out, kept[p]);
            System.arraycopy(pv, start[p], logValues, out, kept[p]);
            out += kept[p];
        }
        logSize = out;
        distinct = true;
    }

    /**
     * Makes pairs {@code [from, to)} of {@code pg, pv} distinct, moving each first occurrence to the front of the range
     * in order.
     *
     * @return how many are distinct.
     */
    private static int dedup(final int[] pg, final long[] pv, final int from, final int to, final int[] tg,
        final long[] tv) {
        final int used = Math.min(tg.length, Integer.highestOneBit(Math.max(1, to - from)) * 4);
        final int um = used - 1;
        Arrays.fill(tg, 0, used, 0);
        int out = from;
        for (int j = from; j < to; j++) {
            final int g = pg[j];
            final long v = pv[j];
            int i = (int) hash(g, v) & um;
            while (true) {
                if (tg[i] == 0) {
                    tg[i] = g + 1;
                    tv[i] = v;
                    pg[out] = g;
                    pv[out++] = v;
                    break;
                }
                if (tg[i] == g + 1 && tv[i] == v) {
                    break;
                }
                i = (i + 1) & um;
            }
        }
        return out - from;
    }

    /**
     * Adds every pair of another set, whose group ids mean the same groups as this one's.
     *
     * @param o the other set (left as it is).
     * @return whether this set may have changed.
     */
    boolean absorb(final PairSet o) {
        final int n = o.logGroups != null ? o.logSize : o.size;
        if (n == 0) {
            return false;
        }
        if (logGroups == null && size + n <= logAfter) {
            boolean changed = false;
            // the other's slots or log entries as they are: no compaction of a set read once
            for (int i = 0, slots = o.logGroups != null ? o.logSize : o.groups.length; i < slots; i++) {
                final int g = o.groupAt(i);
                if (g >= 0) {
                    changed |= add(g, o.valueAt(i));
                }
            }
            return changed;
        }
        if (logGroups == null) {
            toLog();
        }
        if (logSize + n > logGroups.length) {
            final int capacity = (int) Math.min(Integer.MAX_VALUE - 8, Long.highestOneBit(logSize + n - 1L) << 1);
            logGroups = Arrays.copyOf(logGroups, capacity);
            logValues = Arrays.copyOf(logValues, capacity);
        }
        if (o.logGroups != null) {
            System.arraycopy(o.logGroups, 0, logGroups, logSize, n);
            System.arraycopy(o.logValues, 0, logValues, logSize, n);
            logSize += n;
        } else {
            appendTable(o.groups, o.values);
        }
        distinct = false;
        return true;
    }

    /** @return the partition of a pair's hash: its top bits. */
    private static int partition(final long hash, final int bits) {
        return bits == 0 ? 0 : (int) (hash >>> (Long.SIZE - bits));
    }

    /** @return the pairs held. */
    int size() {
        if (logGroups != null) {
            compact();
            return logSize;
        }
        return size;
    }

    /**
     * @return slots to walk with {@link #groupAt} and {@link #valueAt} (a log is made distinct first; adds after this
     *     call need another).
     */
    int capacity() {
        if (logGroups != null) {
            compact();
            return logSize;
        }
        return groups.length;
    }

    /** @param i a slot. @return its pair's group, or -1 when the slot is empty. */
    int groupAt(final int i) {
        return logGroups != null ? logGroups[i] : groups[i] - 1;
    }

    /** @param i a slot holding a pair. @return its value. */
    long valueAt(final int i) {
        return logGroups != null ? logValues[i] : values[i];
    }

    /**
     * The values by group, for merging this worker's groups one at a time into another's.
     *
     * @param groupCount groups of the accumulator.
     * @return a counting sort of the pairs by group.
     */
    Grouped byGroup(final int groupCount) {
        final int slots = capacity();
        final int[] start = new int[groupCount + 1];
        for (int i = 0; i < slots; i++) {
            final int g = groupAt(i);
            if (g >= 0) {
                start[g + 1]++;
            }
        }
        for (int g = 0; g < groupCount; g++) {
            start[g + 1] += start[g];
        }
        final int[] at = Arrays.copyOf(start, groupCount);
        final long[] out = new long[size()];
        for (int i = 0; i < slots; i++) {
            final int g = groupAt(i);
            if (g >= 0) {
                out[at[g]++] = valueAt(i);
            }
        }
        return new Grouped(start, out);
    }

    /** The pairs' values sorted by group: group {@code g}'s are {@code values[start[g]..start[g + 1])}. */
    record Grouped(int[] start, long[] values) {
    }
}
