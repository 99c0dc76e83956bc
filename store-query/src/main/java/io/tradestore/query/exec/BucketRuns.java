package io.tradestore.query.exec;

import io.tradestore.core.memory.NativeMemory;
import io.tradestore.core.segment.Segment;

/**
 * One worker's split of a batch into runs of one time bucket, for a plan whose only key is a bucket of the designated
 * timestamp, when the batch's rows lie in blocks whose timestamps are non-decreasing ({@link SortedTimestamps}) and
 * whose zone maps do not overlap. The buckets of such rows ascend with the row, so a batch is a few runs
 * ({@code [runStart[j], runStart[j + 1])} in bucket {@code runKey[j]}); the split reads the timestamp of every
 * {@code step}-th row only, and of the rows between two samples whose buckets differ. Query 6 (135k rows of one
 * instrument in a day, 1-minute bars) reads ~1 in 5 timestamps instead of all, each a cache miss at a density of 1.35%.
 *
 * <pre>
 *   rows of a batch:  0    s    2s   3s   4s  ... n-1     (samples every s = sqrt(n / changes) rows)
 *   bucket:           k    k    k    k+1  k+1     k+2
 *                               |____| read every row in here: the change lies inside
 * </pre>
 */
final class BucketRuns {
    /** A batch takes the runs path only with at least this many rows per possible bucket change (fewer: reading every timestamp is as cheap). */
    static final int MIN_ROWS_PER_CHANGE = 4;
    /** Most runs of one batch. */
    static final int MAX_RUNS = BatchContext.BATCH / MIN_ROWS_PER_CHANGE + 1;

    private final int tsColumn;
    private final long width;
    private final int blockRows;
    /** Start of each run in the batch, then the batch size after the last run. */
    final int[] runStart = new int[MAX_RUNS + 1];
    /** Bucket number ({@code floorDiv(ts, width)}) of each run; they ascend. */
    final long[] runKey = new long[MAX_RUNS];
    int runs;
    private final long[] sample = new long[BatchContext.BATCH / 2 + 2];
    private Segment segment;
    private int segmentRows;

    /**
     * @param tsColumn  the designated timestamp column (its key's column).
     * @param width     bucket width in nanoseconds.
     * @param blockRows rows per block.
     */
    BucketRuns(final int tsColumn, final long width, final int blockRows) {
        this.tsColumn = tsColumn;
        this.width = width;
        this.blockRows = blockRows;
    }

    /** @param s the segment whose batches follow. @param rows its committed rows in the snapshot. */
    void beginSegment(final Segment s, final int rows) {
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
    boolean split(final BatchContext c, final int start, final int n, final int[] sel) {
        final int r0 = sel == null ? start : sel[0];
        final int r1 = sel == null ? start + n - 1 : sel[n - 1];
        final int b0 = r0 / blockRows;
        final int b1 = r1 / blockRows;
        final Segment s = segment;
        for (int b = b0; b <= b1; b++) {
            if (!SortedTimestamps.sorted(s, tsColumn, b, blockRows, segmentRows)
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
        // about n / step samples plus step rows around each change: least reads at step = sqrt(n / changes) (>= 2 here)
        final int step = (int) Math.sqrt((double) n / changes);
        final long a = c.base[tsColumn];
        final long stride = c.stride[tsColumn];
        int m = 0;
        for (int i = 0; i < n - 1; i += step) {
            sample[m++] = Math.floorDiv(NativeMemory.getLong(a + (long) (sel == null ? start + i : sel[i]) * stride), width);
        }
        sample[m++] = Math.floorDiv(NativeMemory.getLong(a + (long) r1 * stride), width);
        runs = 1;
        runStart[0] = 0;
        runKey[0] = sample[0];
        for (int j = 1; j < m; j++) {
            if (sample[j] == sample[j - 1]) {
                continue;
            }
            final int from = (j - 1) * step;
            final int to = Math.min(j * step, n - 1);
            for (int i = from + 1; i < to; i++) {
                final long k = Math.floorDiv(NativeMemory.getLong(a + (long) (sel == null ? start + i : sel[i]) * stride), width);
                if (k != runKey[runs - 1]) {
                    start(i, k);
                }
            }
            if (sample[j] != runKey[runs - 1]) {
                start(to, sample[j]);
            }
        }
        runStart[runs] = n;
        return true;
    }

    private void start(final int at, final long key) {
        assert key > runKey[runs - 1] : "timestamps out of order in a block known to be sorted";
        runStart[runs] = at;
        runKey[runs] = key;
        runs++;
    }
}
