package io.tradestore.query.exec.group;

import io.tradestore.core.memory.NativeMemory;
import io.tradestore.core.segment.Segment;
import io.tradestore.query.exec.BatchContext;
import io.tradestore.query.exec.kernel.SortedBlocks;

/**
 * One worker's split of a batch into runs of one time bucket, for a plan whose only key is a bucket of the designated
 * timestamp, when the batch's rows lie in blocks whose timestamps are non-decreasing ({@link SortedBlocks}) and
 * whose zone maps do not overlap. The buckets of such rows ascend with the row, so a batch is a few runs
 * ({@code [runStart[j], runStart[j + 1])} in bucket {@code runKey[j]}). Where the blocks' bucket changes are kept
 * ({@link BucketBounds}: rows found once per segment, width and block), the split is a binary search of the batch's
 * rows per change and reads no timestamp. Otherwise it reads the first and last row's
 * timestamps, then looks for each bucket boundary between them where the zone maps predict it (inside a block the
 * timestamps grow about linearly with the row): it reads the four rows on each side of the guess
 * (independent reads on one or two pages), and only when the boundary lies outside them binary-searches the rows on
 * that side. Query 6 (135k rows of one instrument in a day, 1-minute bars, ~44 boundaries per batch of 4,096 rows)
 * read ~1 timestamp in 10 that way, each a cache miss at a density of 1.35%, and none with the kept changes.
 *
 * <pre>
 *   block b:  zoneMin ........... t = k * width ........... zoneMax
 *             guess row ~ b * blockRows + (t - min) / (max - min) * blockRows
 *   batch:    ... g-4 g-3 g-2 g-1 [g] g+1 g+2 g+3 g+4 ...
 *             read these: the first with ts >= t starts bucket k
 * </pre>
 */
public final class BucketRuns {
    /**
     * A batch takes the runs path only with at least this many rows per possible bucket change (fewer: reading every
     * timestamp is as cheap).
     */
    static final int MIN_ROWS_PER_CHANGE = 4;
    /** Most runs of one batch. */
    static final int MAX_RUNS = BatchContext.BATCH / MIN_ROWS_PER_CHANGE + 1;
    /** Timestamps read on each side of a predicted bucket boundary. */
    private static final int HALF_WINDOW = 4;

    private final int tsColumn;
    private final long width;
    private final int blockRows;
    /** Start of each run in the batch, then the batch size after the last run. */
    public final int[] runStart = new int[MAX_RUNS + 1];
    /** Bucket number ({@code floorDiv(ts, width)}) of each run; they ascend. */
    public final long[] runKey = new long[MAX_RUNS];
    public int runs;
    private final long[] window = new long[2 * HALF_WINDOW + 1];
    private Segment segment;
    private int segmentRows;
    /** Blocks per segment (its capacity). */
    private final int segmentBlocks;
    /**
     * Whether batches are split from {@link BucketBounds} (false: by reading timestamps around predicted boundaries
     * only).
     */
    private final boolean cachedBounds;
    private long[][] bounds = new long[4][];

    /**
     * @param tsColumn  the designated timestamp column (its key's column).
     * @param width     bucket width in nanoseconds.
     * @param blockRows rows per block.
     * @param segmentRows rows per segment (capacity).
     * @param cachedBounds whether to split from {@link BucketBounds} where they are kept.
     */
    public BucketRuns(final int tsColumn, final long width, final int blockRows, final int segmentRows,
        final boolean cachedBounds) {
        this.tsColumn = tsColumn;
        this.width = width;
        this.blockRows = blockRows;
        this.segmentBlocks = Math.max(1, segmentRows / blockRows);
        this.cachedBounds = cachedBounds;
    }

    /** @param s the segment whose batches follow. @param rows its committed rows in the snapshot. */
    public void beginSegment(final Segment s, final int rows) {
        segment = s;
        segmentRows = rows;
    }

    /**
     * Splits the rows {@code [start, start + n)} or {@code sel[0..n)} (ascending) of the current segment into runs.
     *
     * @param c     the worker's context, positioned on the segment (column addresses).
     * @param start first row of a dense batch.
     * @param n     rows in the batch (at least one).
     * @param sel   the batch's rows, or null for the dense range.
     * @return false (and no runs) when the rows are not known to be in time order or hold too many bucket changes.
     */
    public boolean split(final BatchContext c, final int start, final int n, final int[] sel) {
        final int r0 = sel == null ? start : sel[0];
        final int r1 = sel == null ? start + n - 1 : sel[n - 1];
        final int b0 = r0 / blockRows;
        final int b1 = r1 / blockRows;
        final Segment s = segment;
        for (int b = b0; b <= b1; b++) {
            if (!SortedBlocks.sorted(s, tsColumn, b, blockRows, segmentRows)
                || b > b0 && s.zoneMax(b - 1, tsColumn) > s.zoneMin(b, tsColumn)) {
                return false;
            }
        }
        final long firstKey = Math.floorDiv(s.zoneMin(b0, tsColumn), width);
        final long changes = Math.floorDiv(s.zoneMax(b1, tsColumn), width) - firstKey;
        if (changes == 0) {
            runs = 1;
            runStart[0] = 0;
            runStart[1] = n;
            runKey[0] = firstKey;
            return true;
        }
        if (changes > n / MIN_ROWS_PER_CHANGE) {
            return false;
        }
        if (!cachedBounds || !splitByBounds(start, n, sel, b0, b1)) {
            split(c.base[tsColumn], c.stride[tsColumn], start, n, sel, b0, b1);
        }
        return true;
    }

    /**
     * Splits the batch at the kept bucket changes of its blocks ({@link BucketBounds}): a binary search in the batch's
     * rows per change, no timestamp read.
     *
     * @return false (nothing written) when a block's bounds are not kept.
     */
    private boolean splitByBounds(final int start, final int n, final int[] sel, final int b0, final int b1) {
        if (bounds.length < b1 - b0 + 1) {
            bounds = new long[b1 - b0 + 1][];
        }
        for (int b = b0; b <= b1; b++) {
            bounds[b - b0] = BucketBounds.of(segment, tsColumn, width, b, blockRows, segmentBlocks);
            if (bounds[b - b0] == null) {
                return false;
            }
        }
        final int r0 = sel == null ? start : sel[0];
        final int r1 = sel == null ? start + n - 1 : sel[n - 1];
        // the first row's bucket: the last change at or before it in its block
        final long[] f = bounds[0];
        final int off0 = r0 - b0 * blockRows;
        int j = 1;
        long key = f[0];
        while (j < f.length && f[j] <= off0) {
            key = f[j + 1];
            j += 2;
        }
        runs = 1;
        runStart[0] = 0;
        runKey[0] = key;
        int lo = 0;
        for (int b = b0; b <= b1; b++) {
            final long[] g = bounds[b - b0];
            final int blockStart = b * blockRows;
            if (b > b0) {
                lo = boundary(start, n, sel, lo, blockStart, g[0]);
            }
            for (int i = b == b0 ? j : 1; i < g.length; i += 2) {
                final int row = blockStart + (int) g[i];
                if (row > r1) {
                    runStart[runs] = n;
                    return true;
                }
                lo = boundary(start, n, sel, lo, row, g[i + 1]);
            }
        }
        runStart[runs] = n;
        return true;
    }

    /**
     * Starts bucket {@code key} at the first batch row at or after {@code row} (at most the batch's last row).
     *
     * @return that row's index in the batch.
     */
    private int boundary(final int start, final int n, final int[] sel, final int lo, final int row, final long key) {
        if (key == runKey[runs - 1]) {
            return lo; // a block starting in the bucket the one before ended in
        }
        final int p = sel == null ? row - start : lowerBound(sel, lo, n - 1, row);
        if (runStart[runs - 1] == p) {
            runKey[runs - 1] = key; // the bucket before has no row in this batch
        } else {
            start(p, key);
        }
        return p;
    }

    private long ts(final long a, final long stride, final int start, final int[] sel, final int i) {
        return NativeMemory.getLong(a + (long) (sel == null ? start + i : sel[i]) * stride);
    }

    /**
     * Finds each bucket boundary of the batch where the zone maps predict it (inside a block the timestamps grow about
     * linearly with the row), checked by reading a few timestamps around the guess (independent reads, on one or two
     * pages); a wrong guess falls back to a binary search of the rows on its side.
     */
    private void split(final long a, final long stride, final int start, final int n, final int[] sel, final int b0,
        final int b1) {
        final Segment s = segment;
        final long firstKey = Math.floorDiv(ts(a, stride, start, sel, 0), width);
        final long lastKey = Math.floorDiv(ts(a, stride, start, sel, n - 1), width);
        runs = 1;
        runStart[0] = 0;
        runKey[0] = firstKey;
        int lo = 1; // rows before lo are in earlier buckets than the next boundary's
        int b = b0;
        for (long k = firstKey + 1; k <= lastKey; k++) {
            final long t = k * width;
            while (b < b1 && s.zoneMax(b, tsColumn) < t) {
                b++;
            }
            final long min = s.zoneMin(b, tsColumn);
            final long max = s.zoneMax(b, tsColumn);
            final long guessRow = (long) b * blockRows
                + (t <= min ? 0 : (long) (((double) t - min) / ((double) max - min) * (blockRows - 1)));
            final int guess =
                sel == null ? (int) Math.max(lo, Math.min(n - 1, guessRow - start))
                : lowerBound(sel, lo, n - 1, guessRow);
            final int p = locate(a, stride, start, sel, t, lo, n - 1, guess);
            if (runStart[runs - 1] == p) {
                runKey[runs - 1] = k; // the bucket before has no row in this batch
            } else {
                start(p, k);
            }
            lo = p;
        }
        runStart[runs] = n;
    }

    /** @return the first index in {@code [lo, hi]} whose row is at least {@code row}, or hi. */
    private static int lowerBound(final int[] sel, final int lo, final int hi, final long row) {
        int l = lo;
        int h = hi;
        while (l < h) {
            final int m = (l + h) >>> 1;
            if (sel[m] >= row) {
                h = m;
            } else {
                l = m + 1;
            }
        }
        return l;
    }

    /**
     * @return the first index in {@code [lo, hi]} whose timestamp is at least {@code t}, given that the row at {@code
     *             hi} has one and the rows before {@code lo} do not; {@code guess} is where to look first.
     */
    private int locate(final long a, final long stride, final int start, final int[] sel, final long t, final int lo,
        final int hi, final int guess) {
        final int from = Math.max(lo, guess - HALF_WINDOW);
        final int to = Math.min(hi, guess + HALF_WINDOW);
        for (int i = from; i <= to; i++) {
            window[i - from] = ts(a, stride, start, sel, i);
        }
        int l;
        int h;
        if (window[0] >= t) {
            l = lo;
            h = from;
        } else if (window[to - from] < t) {
            l = to + 1;
            h = hi;
        } else {
            int i = 1;
            while (window[i] < t) {
                i++;
            }
            return from + i;
        }
        while (l < h) {
            final int m = (l + h) >>> 1;
            if (ts(a, stride, start, sel, m) >= t) {
                h = m;
            } else {
                l = m + 1;
            }
        }
        return l;
    }

    private void start(final int at, final long key) {
        assert key > runKey[runs - 1] : "timestamps out of order in a block known to be sorted";
        runStart[runs] = at;
        runKey[runs] = key;
        runs++;
    }
}
