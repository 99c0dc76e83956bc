package io.tradestore.query.exec.agg;

import java.lang.ref.SoftReference;
import java.util.Arrays;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Per-group lists of longs, appended in chunks carved from slabs of 512 KiB that queries hand back to a shared pool
 * when they end ({@link #release}). An array per group, doubled as it grows, allocates a query's values twice over,
 * and the young collector copies the arrays still growing (pauses, and figures, in the body of commit ddaa328).
 * Pooled slabs are promoted once and reused; a slab never handed back (a failed query) is left to the collector, and
 * the pool holds its slabs softly.
 *
 * Merging another worker's group takes over that worker's slabs and links its chunks behind the group's, copying no
 * value.
 *
 * <pre>
 *   chunk: [ previous chunk's ref | values in it (once it is not the last) | values ... ]
 *   ref = slab << 32 | offset, -1 for none
 * </pre>
 */
final class ValueChunks {
    /** Longs per slab. */
    static final int SLAB = 1 << 16;
    /** Values per chunk at most: a group's chunks double from 8 to this. */
    static final int MAX_CHUNK = 4096;
    private static final int HEADER = 2;
    /** Slabs handed back and not yet taken again. */
    private static final ConcurrentLinkedDeque<SoftReference<long[]>> POOL = new ConcurrentLinkedDeque<>();
    private static final AtomicInteger POOLED = new AtomicInteger();
    /** Slabs the pool keeps at most: 1/32 of the maximum heap. */
    private static final int POOL_MAX = (int) Math.max(1, Runtime.getRuntime().maxMemory() / 32 / (8L * SLAB));

    private long[][] slabs = new long[4][];
    private int slabCount;
    /** The slab chunks are carved from (slabs taken over from another worker come after it). */
    private int current = -1;
    /** The next free long of the current slab ({@link #SLAB}: none). */
    private int free = SLAB;
    /** Once another instance took this one's slabs over: where they start in its slabs (else -1). */
    private int movedTo = -1;
    /** Per group: the ref of its last chunk, or -1. */
    private long[] tail = {-1};
    /** Per group: values in its last chunk. */
    private int[] used = new int[1];
    /** Per group: its last chunk's capacity (0: none). */
    private int[] cap = new int[1];

    /** @param capacity groups to hold. */
    void grow(final int capacity) {
        if (capacity > tail.length) {
            final int n = Math.max(capacity, tail.length * 2);
            final int from = tail.length;
            tail = Arrays.copyOf(tail, n);
            Arrays.fill(tail, from, n, -1);
            used = Arrays.copyOf(used, n);
            cap = Arrays.copyOf(cap, n);
        }
    }

    /** @return whether group g's last chunk is full (or it has none): {@link #chunk} before the next {@link #put}. */
    boolean full(final int g) {
        return used[g] == cap[g];
    }

    /**
     * Starts a new chunk for group g.
     *
     * @param held the values the group holds already (the chunk takes as many, from 8 to {@link #MAX_CHUNK}).
     * @return the bytes taken.
     */
    long chunk(final int g, final int held) {
        final int c = Math.min(MAX_CHUNK, Math.max(8, held));
        if (free + HEADER + c > SLAB) {
            current = add(take());
            free = 0;
        }
        seal(g);
        final long[] slab = slabs[current];
        slab[free] = tail[g];
        slab[free + 1] = c;
        tail[g] = (long) (slabCount - 1) << 32 | free;
        used[g] = 0;
        cap[g] = c;
        free += HEADER + c;
        return 8L * (HEADER + c);
    }

    /** @return the index the slab now has. */
    private int add(final long[] slab) {
        if (slabCount == slabs.length) {
            slabs = Arrays.copyOf(slabs, slabCount * 2);
        }
        slabs[slabCount] = slab;
        return slabCount++;
    }

    /** Writes group g's last chunk's count into its header, before another chunk follows it. */
    private void seal(final int g) {
        final long ref = tail[g];
        if (ref >= 0) {
            slabs[(int) (ref >>> 32)][(int) ref + 1] = used[g];
        }
    }

    /**
     * Moves another instance's group behind group g's values, taking over that instance's slabs the first time.
     *
     * @param g   a group of this instance.
     * @param src another instance, not used for anything but further links after.
     * @param sg  its group, linked at most once.
     */
    void link(final int g, final ValueChunks src, final int sg) {
        if (src.tail[sg] < 0) {
            return;
        }
        if (src.movedTo < 0) {
            src.movedTo = slabCount;
            for (int i = 0; i < src.slabCount; i++) {
                add(src.slabs[i]);
            }
        }
        final long shift = (long) src.movedTo << 32;
        // the source's refs, read through its own slabs, become this instance's as the walk passes them
        long ref = src.tail[sg];
        while (true) {
            final long[] slab = src.slabs[(int) (ref >>> 32)];
            final long prev = slab[(int) ref];
            if (prev < 0) {
                seal(g);
                slab[(int) ref] = tail[g];
                break;
            }
            slab[(int) ref] = prev + shift;
            ref = prev;
        }
        tail[g] = src.tail[sg] + shift;
        used[g] = src.used[sg];
        cap[g] = src.cap[sg];
    }

    /** Appends a value to group g's last chunk, which must not be {@link #full}. */
    void put(final int g, final long v) {
        final long ref = tail[g];
        slabs[(int) (ref >>> 32)][(int) ref + HEADER + used[g]++] = v;
    }

    /**
     * @param g   a group.
     * @param n   the values it holds.
     * @param dst where they go, at least n long.
     * @return dst, holding the group's values at {@code [0, n)}, in the order they were put.
     */
    long[] copy(final int g, final int n, final long[] dst) {
        int at = n;
        int count = used[g];
        for (long ref = tail[g]; ref >= 0 && at > 0;) {
            final long[] slab = slabs[(int) (ref >>> 32)];
            final int off = (int) ref;
            at -= count;
            System.arraycopy(slab, off + HEADER, dst, at, count);
            ref = slab[off];
            count = ref >= 0 ? (int) slabs[(int) (ref >>> 32)][(int) ref + 1] : 0;
        }
        return dst;
    }

    /** Forgets group g's values (their space stays taken until {@link #release}). */
    void drop(final int g) {
        tail[g] = -1;
        used[g] = 0;
        cap[g] = 0;
    }

    /** Hands the slabs back to the pool; nothing may be read or put after. */
    void release() {
        for (int i = 0; i < slabCount && movedTo < 0; i++) {
            if (POOLED.incrementAndGet() <= POOL_MAX) {
                POOL.push(new SoftReference<>(slabs[i]));
            } else {
                POOLED.decrementAndGet();
            }
            slabs[i] = null;
        }
        slabCount = 0;
        current = -1;
        free = SLAB;
    }

    private static long[] take() {
        for (SoftReference<long[]> r = POOL.poll(); r != null; r = POOL.poll()) {
            POOLED.decrementAndGet();
            final long[] slab = r.get();
            if (slab != null) {
                return slab;
            }
        }
        return new long[SLAB];
    }
}
