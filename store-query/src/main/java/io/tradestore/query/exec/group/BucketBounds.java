package io.tradestore.query.exec.group;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.WeakHashMap;
import java.util.concurrent.atomic.AtomicReferenceArray;

import io.tradestore.core.memory.NativeMemory;
import io.tradestore.core.segment.Segment;

/**
 * Where the time bucket of a given width changes inside a block of sorted timestamps
 * ({@link io.tradestore.query.exec.kernel.SortedBlocks}): the
 * rows are the same for every query of that width whatever its filter, so they are found once per (segment, width,
 * block) by one pass over the block's timestamps and kept (committed rows never change; kept weakly per segment object,
 * like {@link NullFreeBlocks}; at most {@link #MAX_WIDTHS} widths per segment). {@link BucketRuns} then splits a batch
 * of selected rows into runs of one bucket with binary searches in the batch's row numbers, reading no timestamp:
 * query 6 (one instrument, 1.35% of the rows) had read ~9 timestamps per boundary, each a cache miss on a page the
 * gathers do not touch.
 *
 * <pre>
 *   bounds of a block: [ key of row 0 | offset 1, key 1 | offset 2, key 2 | ... ]
 *   offsets ascend (rows within the block), keys ascend (floorDiv(ts, width))
 * </pre>
 */
public final class BucketBounds {
    /**
     * Bucket changes kept per block at most: a sixteenth of its rows, and at most {@link #MAX_CHANGES} (more: the
     * caller splits by reading timestamps). 256 changes cover sparse selections, where the bounds save the
     * most (a batch of 4,096 rows at 1% density spans ~6 blocks and takes the runs path with up to 1,024 changes), and
     * bound the memory to 4 KB per block: 256 KB per segment and width, 2 MB per segment.
     */
    static final int MAX_CHANGES_SHIFT = 4;
    /** See {@link #MAX_CHANGES_SHIFT}. */
    static final int MAX_CHANGES = 256;
    /** Widths kept per segment at most (a query of yet another width reads timestamps). */
    static final int MAX_WIDTHS = 8;
    /** A block whose bounds are not kept (too many changes). */
    private static final long[] TOO_FINE = new long[0];
    /** Guarded by itself. */
    private static final Map<Segment, Widths> FACTS = new WeakHashMap<>();

    private BucketBounds() {
    }

    /** One segment's bounds per width. */
    private static final class Widths {
        final long[] width = new long[MAX_WIDTHS];
        final List<AtomicReferenceArray<long[]>> blocks = new ArrayList<>(MAX_WIDTHS);
    }

    /**
     * @param s         a segment.
     * @param column    the designated timestamp column.
     * @param width     the bucket width in nanoseconds.
     * @param block     a block whose timestamps are sorted and whose rows are all committed ({@link
     *                  io.tradestore.query.exec.kernel.SortedBlocks#sorted}).
     * @param blockRows rows per block.
     * @param blocks    blocks per segment (its capacity).
     * @return the block's bounds (see the class comment), or null when they are not kept (too many changes in the
     *             block, or too many widths asked of this segment).
     */
    public static long[] of(final Segment s, final int column, final long width, final int block, final int blockRows,
        final int blocks) {
        final AtomicReferenceArray<long[]> perBlock = perBlock(s, width, blocks);
        if (perBlock == null || block >= perBlock.length()) {
            return null;
        }
        long[] b = perBlock.get(block);
        if (b == null) {
            b = scan(s, column, width, block, blockRows);
            perBlock.set(block, b); // two threads may both scan: the same answer
        }
        return b == TOO_FINE ? null : b;
    }

    private static AtomicReferenceArray<long[]> perBlock(final Segment s, final long width, final int blocks) {
        synchronized (FACTS) {
            Widths w = FACTS.get(s);
            if (w == null) {
                w = new Widths();
                FACTS.put(s, w);
            }
            final int count = w.blocks.size();
            for (int i = 0; i < count; i++) {
                if (w.width[i] == width) {
                    return w.blocks.get(i);
                }
            }
            if (count == MAX_WIDTHS) {
                return null;
            }
            w.width[count] = width;
            w.blocks.add(new AtomicReferenceArray<>(blocks));
            return w.blocks.get(count);
        }
    }

    private static long[] scan(final Segment s, final int column, final long width, final int block,
        final int blockRows) {
        final long stride = s.columnStride(column);
        final long base = s.columnBase(column) + (long) block * blockRows * stride;
        final int max = maxChanges(blockRows);
        long[] out = new long[17];
        long key = Math.floorDiv(NativeMemory.getLong(base), width);
        out[0] = key;
        int k = 1;
        // the next bucket's first timestamp: a row below it is in the current bucket (one compare per row, no division)
        long next = nextStart(key, width);
        for (int r = 1; r < blockRows; r++) {
            final long t = NativeMemory.getLong(base + r * stride);
            if (t >= next) {
                final long nk = Math.floorDiv(t, width);
                if (nk == key) {
                    continue; // the last bucket of the timestamp range (its next start does not fit a long)
                }
                if ((k >>> 1) == max) {
                    return TOO_FINE;
                }
                key = nk;
                next = nextStart(key, width);
                if (k + 2 > out.length) {
                    out = Arrays.copyOf(out, out.length * 2 + 1);
                }
                out[k] = r;
                out[k + 1] = key;
                k += 2;
            }
        }
        return Arrays.copyOf(out, k);
    }

    /** @param blockRows rows per block. @return the most bucket changes kept for a block. */
    public static int maxChanges(final int blockRows) {
        return Math.min(MAX_CHANGES, blockRows >>> MAX_CHANGES_SHIFT);
    }

    /** @return the first timestamp of the bucket after {@code key}, or Long.MAX_VALUE when it does not fit a long. */
    private static long nextStart(final long key, final long width) {
        return key > Long.MAX_VALUE / width - 1 ? Long.MAX_VALUE : (key + 1) * width;
    }
}
