package io.tradestore.query.exec.group;

import java.util.Arrays;

/**
 * Open-addressing hash table with linear probing from keys of {@code width} longs to dense group ids (0, 1, 2, ... in
 * insertion order). Keys are also kept by group id, for output and merging.
 */
public final class KeyTable {
    private final int width;
    private long[] slotKeys;
    private int[] slotGid;
    private int mask;
    private int size;
    public long[] keys;
    /** Keys below {@code 2^FRONT_BITS} to group id + 1 (0: not seen yet), for {@link #putAll}; grows by need. */
    private int[] front = new int[64];
    static final int FRONT_BITS = 16;

    public KeyTable(final int width) {
        this(width, 1024);
    }

    /** @param width longs per key. @param capacity initial slots, a power of two (the table doubles past half full). */
    public KeyTable(final int width, final int capacity) {
        this.width = width;
        slotKeys = new long[capacity * width];
        slotGid = new int[capacity];
        mask = capacity - 1;
        keys = new long[Math.min(64, capacity) * width];
    }

    public int size() {
        return size;
    }

    static int hash(final long k) {
        long h = k * 0x9E3779B97F4A7C15L;
        h ^= h >>> 32;
        h *= 0xBF58476D1CE4E5B9L;
        return (int) (h ^ (h >>> 29));
    }

    /**
     * Group ids of a batch's one-long keys, inserted when new. Keys below {@code 2^FRONT_BITS} are looked up in a
     * direct array first ({@link #front}): the packed keys of a key space too large for a dense plan are mostly small
     * where one key's values are (quantities of 1 to 1,000,000 by venue, most under a thousand), and a load and a
     * compare are cheaper than a hash and a probe.
     *
     * @param packed the keys (non-negative). @param n how many. @param gid their group ids, written.
     */
    public void putAll(final long[] packed, final int n, final int[] gid) {
        int[] f = front;
        for (int i = 0; i < n; i++) {
            final long p = packed[i];
            final int known = p < f.length ? f[(int) p] : 0;
            if (known != 0) {
                gid[i] = known - 1;
            } else {
                final int g = put(p);
                if (p >>> FRONT_BITS == 0) {
                    if (p >= f.length) {
                        // grown as keys need it: a small query does not clear 256 KiB
                        f = Arrays.copyOf(f, Integer.highestOneBit((int) p) << 1);
                        front = f;
                    }
                    f[(int) p] = g + 1;
                }
                gid[i] = g;
            }
        }
    }

    /** @param key a one-long key. @return its group id, inserted when new. */
    public int put(final long key) {
        int i = hash(key) & mask;
        while (true) {
            final int g = slotGid[i];
            if (g == 0) {
                return insert(i, key);
            }
            if (slotKeys[i] == key) {
                return g - 1;
            }
            i = (i + 1) & mask;
        }
    }

    private int insert(final int slot, final long key) {
        final int gid = size++;
        slotKeys[slot] = key;
        slotGid[slot] = gid + 1;
        if (gid >= keys.length) {
            keys = Arrays.copyOf(keys, keys.length * 2);
        }
        keys[gid] = key;
        if (size * 2 > slotGid.length) {
            rehash();
        }
        return gid;
    }

    /**
     * @param cols the key columns of a batch. @param row index in the batch. @return the group id, inserted when new.
     */
    int putWide(final long[][] cols, final int row) {
        long h = 0;
        for (int k = 0; k < width; k++) {
            h = h * 31 + cols[k][row];
        }
        int i = hash(h) & mask;
        while (true) {
            final int g = slotGid[i];
            if (g == 0) {
                final int gid = size++;
                slotGid[i] = gid + 1;
                if ((gid + 1) * width > keys.length) {
                    keys = Arrays.copyOf(keys, Math.max(keys.length * 2, (gid + 1) * width));
                }
                for (int k = 0; k < width; k++) {
                    slotKeys[i * width + k] = cols[k][row];
                    keys[gid * width + k] = cols[k][row];
                }
                if (size * 2 > slotGid.length) {
                    rehash();
                }
                return gid;
            }
            boolean same = true;
            for (int k = 0; k < width && same; k++) {
                same = slotKeys[i * width + k] == cols[k][row];
            }
            if (same) {
                return g - 1;
            }
            i = (i + 1) & mask;
        }
    }

    /** @param key a key of width longs starting at {@code keyArray[offset]}. @return its gid, inserted when new. */
    int putWide(final long[] keyArray, final int offset) {
        final long[][] cols = new long[width][1];
        for (int k = 0; k < width; k++) {
            cols[k][0] = keyArray[offset + k];
        }
        return putWide(cols, 0);
    }

    private void rehash() {
        final int cap = slotGid.length * 2;
        final long[] nk = new long[cap * width];
        final int[] ng = new int[cap];
        final int m = cap - 1;
        for (int gid = 0; gid < size; gid++) {
            long h;
            if (width == 1) {
                h = keys[gid];
            } else {
                h = 0;
                for (int k = 0; k < width; k++) {
                    h = h * 31 + keys[gid * width + k];
                }
            }
            int i = hash(h) & m;
            while (ng[i] != 0) {
                i = (i + 1) & m;
            }
            ng[i] = gid + 1;
            System.arraycopy(keys, gid * width, nk, i * width, width);
        }
        slotKeys = nk;
        slotGid = ng;
        mask = m;
    }
}
