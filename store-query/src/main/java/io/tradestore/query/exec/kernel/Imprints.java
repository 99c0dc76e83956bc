package io.tradestore.query.exec.kernel;

import java.lang.ref.Cleaner;
import java.util.Arrays;
import java.util.Map;
import java.util.WeakHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReferenceArray;

import io.tradestore.core.memory.NativeMemory;
import io.tradestore.core.segment.Segment;

/**
 * Column imprints (Sidirourgos and Kersten, SIGMOD 2013) of 8-byte columns: per committed block, 64 value bins cut at
 * quantiles of a sample of the block, and per {@link #GROUP} rows (one cache line of values) the bins those rows'
 * values fall in, stored bin by bin (a bit per group in each bin's slice). A selective range on a column no zone map
 * prunes (price = one value: every block holds prices around it) then reads the slices of the bins it meets, a bit
 * per 8 rows each, and only the cache lines they name, about one in eight for a single bin, instead of every value.
 *
 * <p>Built by the first query that wants a block's imprint, on the worker that reads the block, and kept for the
 * life of the segment object (weakly, like {@link NullFreeBlocks}): committed rows never change. One eighth of the
 * column's bytes, on the heap, for the columns selective ranges are asked of, within a {@link #BUDGET}.
 */
public final class Imprints {
    /** Rows per mask: eight 8-byte values, one cache line. */
    public static final int GROUP = 8;
    /** Smallest block with imprints: smaller ones are cheaper to read whole than to sample. */
    static final int MIN_BLOCK_ROWS = 64;
    private static final int BINS = 64;
    private static final int SAMPLES = 1024;
    /**
     * Heap the imprints of all segments may hold: an eighth of the maximum heap. Past it no block gains an imprint
     * (its ranges read every value), so that clients asking ranges of every column cannot run the server out of heap.
     */
    static final long BUDGET = Runtime.getRuntime().maxMemory() / 8;
    private static final AtomicLong HELD = new AtomicLong();
    /** Gives an imprint's bytes back to the budget once it is unreachable (its segment closed, or a twin kept). */
    private static final Cleaner CLEANER = Cleaner.create();
    /** Guarded by itself. A column's imprints per block, null until built. */
    private static final Map<Segment, AtomicReferenceArray<Imprint>[]> BLOCKS = new WeakHashMap<>();

    private Imprints() {
    }

    /** One block's bins, and per bin the groups of rows with a value in it. */
    public static final class Imprint {
        /** {@code bounds[b]} is the smallest value of bin b: {@code bounds[0]} is {@code Long.MIN_VALUE}. */
        private final long[] bounds;
        /** Words of group bits per bin. */
        private final int words;
        /** Bin b's bit of group g: bit {@code g & 63} of {@code slices[b * words + g / 64]}. */
        private final long[] slices;

        Imprint(final long[] bounds, final int groups) {
            this.bounds = bounds;
            this.words = (groups + 63) >>> 6;
            this.slices = new long[BINS * words];
        }

        /** @param v a value. @return its bin: the last whose lower bound is at most v (a branch-free search). */
        int bin(final long v) {
            int i = 0;
            for (int step = BINS / 2; step > 0; step >>>= 1) {
                i += bounds[i + step] <= v ? step : 0;
            }
            return i;
        }

        /** @param lo lowest value. @param hi highest value, at least lo. @return the bins of values in [lo, hi]. */
        public long bins(final long lo, final long hi) {
            return (-1L >>> (BINS - 1 - bin(hi))) & (-1L << bin(lo));
        }

        /**
         * @param bins what {@link #bins} gave. @param word a word of 64 groups.
         * @return the groups of the word with a value in one of the bins (bit {@code g & 63} for group g).
         */
        public long groups(final long bins, final int word) {
            long m = 0;
            for (long b = bins; b != 0; b &= b - 1) {
                m |= slices[Long.numberOfTrailingZeros(b) * words + word];
            }
            return m;
        }
    }

    /**
     * @param s         a segment.
     * @param column    an 8-byte column.
     * @param blockRows rows per block.
     * @param rows      committed rows of the segment.
     * @return the column's imprints per block, built into as queries ask ({@link #of}); a caller may keep it for one
     *     query (the open segment's array is replaced when it gains blocks; imprints put into the old one are lost).
     */
    public static AtomicReferenceArray<Imprint> column(final Segment s, final int column, final int blockRows,
        final int rows) {
        final int fullBlocks = rows / blockRows;
        synchronized (BLOCKS) {
            AtomicReferenceArray<Imprint>[] cols = BLOCKS.get(s);
            if (cols == null || column >= cols.length) {
                @SuppressWarnings({"unchecked", "rawtypes"})
                final AtomicReferenceArray<Imprint>[] grown = cols == null
                    ? new AtomicReferenceArray[Math.max(16, column + 1)] : Arrays.copyOf(cols, column + 1);
                cols = grown;
                BLOCKS.put(s, cols);
            }
            AtomicReferenceArray<Imprint> a = cols[column];
            if (a == null || a.length() < fullBlocks) {
                final AtomicReferenceArray<Imprint> grown = new AtomicReferenceArray<>(fullBlocks);
                for (int i = 0; a != null && i < a.length(); i++) {
                    grown.set(i, a.get(i));
                }
                cols[column] = grown;
                a = grown;
            }
            return a;
        }
    }

    /**
     * @param blocks    what {@link #column} gave for the segment and column.
     * @param s         the segment.
     * @param column    the column (8 bytes wide).
     * @param block     a block.
     * @param blockRows rows per block.
     * @return the block's imprint, built now if no query built it before; null when the block's rows are not all
     *     committed (not in {@code blocks}), blocks are smaller than {@link #MIN_BLOCK_ROWS} or the budget is spent.
     */
    public static Imprint of(final AtomicReferenceArray<Imprint> blocks, final Segment s, final int column,
        final int block, final int blockRows) {
        if (block >= blocks.length() || blockRows < MIN_BLOCK_ROWS) {
            return null;
        }
        Imprint im = blocks.get(block);
        if (im == null) {
            final long bytes = (long) BINS * ((blockRows / GROUP + 63) >>> 6) * Long.BYTES;
            if (HELD.addAndGet(bytes) > BUDGET) {
                HELD.addAndGet(-bytes);
                return null;
            }
            // two workers may build the same block at once: both get equal imprints, one is kept
            im = build(s.columnBase(column) + (long) block * blockRows * s.columnStride(column), s.columnStride(column),
                blockRows);
            CLEANER.register(im, () -> HELD.addAndGet(-bytes));
            blocks.set(block, im);
        }
        return im;
    }

    /** @param base the block's first value. @param stride bytes between rows. @param n rows, a multiple of 8. */
    static Imprint build(final long base, final long stride, final int n) {
        final int samples = Math.min(SAMPLES, n);
        final long[] sample = new long[samples];
        final int step = n / samples;
        for (int i = 0; i < samples; i++) {
            sample[i] = NativeMemory.getLong(base + (long) i * step * stride);
        }
        Arrays.sort(sample);
        // bin b starts at the sample's b/64 quantile; equal quantiles collapse, so a frequent value gets a bin alone
        final long[] bounds = new long[BINS];
        Arrays.fill(bounds, Long.MAX_VALUE);
        bounds[0] = Long.MIN_VALUE;
        int b = 1;
        for (int q = 1; q < BINS; q++) {
            final long v = sample[q * samples / BINS];
            if (v > bounds[b - 1]) {
                bounds[b++] = v;
            }
        }
        final Imprint im = new Imprint(bounds, n / GROUP);
        for (int g = 0; g < n / GROUP; g++) {
            final long p = base + (long) g * GROUP * stride;
            for (int r = 0; r < GROUP; r++) {
                im.slices[im.bin(NativeMemory.getLong(p + r * stride)) * im.words + (g >>> 6)] |= 1L << g;
            }
        }
        return im;
    }
}
