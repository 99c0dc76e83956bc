package io.tradestore.query.exec;

import java.util.Arrays;

import io.tradestore.core.memory.NativeMemory;
import io.tradestore.core.schema.ColumnType;
import io.tradestore.query.plan.Plan;

/**
 * One worker's rows of a scan: the best {@code limit} rows by the sort keys (then by row number), in a bounded binary
 * max-heap whose top is the worst row kept. Sort keys are encoded as longs whose signed order is the output order,
 * nulls last in both directions.
 */
final class ScanState {
    private final Plan plan;
    private final int width;
    private final long limit;
    private long[] keys;
    private long[] rowIds;
    private int size;
    private final long[] probe;
    long matched;
    /** A streamed scan's sink, or null: rows then go out in row order instead of into the heap. */
    private final ScanSink sink;
    private long[] out;
    private int outSize;
    /** Matched rows still to skip (the query's offset), then rows still to send. */
    private long skip;
    private long left;

    /** Receives a streamed scan's row ids, in row order. */
    interface ScanSink {
        /** @param rowIds row ids. @param n how many of them. */
        void rows(long[] rowIds, int n);
    }

    /**
     * A streamed scan: rows in row order to {@code sink}, in batches of up to {@code batch}, after skipping
     * {@code skip}, at most {@code limit}.
     */
    ScanState(final Plan plan, final ScanSink sink, final int batch, final long skip, final long limit) {
        this.plan = plan;
        this.width = 0;
        this.limit = limit;
        this.sink = sink;
        this.out = new long[batch];
        this.skip = skip;
        this.left = limit;
        this.probe = new long[1];
    }

    ScanState(final Plan plan) {
        this.plan = plan;
        this.sink = null;
        this.width = plan.scanOrderColumns.length;
        this.limit = plan.limit;
        final int cap = (int) Math.min(Math.max(limit, 1), 1024);
        keys = new long[cap * Math.max(1, width)];
        rowIds = new long[cap];
        probe = new long[Math.max(1, width)];
    }

    void consume(final BatchContext c) {
        final int n = c.n;
        matched += n;
        if (sink != null) {
            stream(c);
            return;
        }
        if (limit == 0) {
            return;
        }
        for (int i = 0; i < n; i++) {
            final int r = c.row(i);
            for (int k = 0; k < width; k++) {
                probe[k] = sortKey(c, k, r);
            }
            offer(probe, c.segmentRowBase + r);
        }
    }

    private void stream(final BatchContext c) {
        for (int i = 0; i < c.n && left > 0; i++) {
            if (skip > 0) {
                skip--;
                continue;
            }
            out[outSize++] = c.segmentRowBase + c.row(i);
            left--;
            if (outSize == out.length) {
                flush();
            }
        }
    }

    /** Sends a streamed scan's buffered rows. */
    void flush() {
        if (outSize > 0) {
            sink.rows(out, outSize);
            outSize = 0;
        }
    }

    /** @return whether a streamed scan has sent its limit. */
    boolean done() {
        return sink != null && left == 0;
    }

    private long sortKey(final BatchContext c, final int k, final int r) {
        final int col = plan.scanOrderColumns[k];
        final long a = c.base[col] + r * c.stride[col];
        long v = NativeMemory.getSigned(a, c.width[col]);
        final boolean isNull;
        if (c.f64[col]) {
            final double d = Double.longBitsToDouble(v);
            isNull = d != d;
            v = d == 0.0 ? 0 : v ^ ((v >> 63) & Long.MAX_VALUE);
        } else {
            isNull = v == c.nul[col];
            if (!isNull && plan.schema.column(col).type() == ColumnType.SYMBOL) {
                v = plan.symbolRank[col][(int) v];
            }
        }
        if (isNull) {
            return Long.MAX_VALUE;
        }
        return plan.orderDesc[k] ? ~v : v;
    }

    /** Keeps the row when it is among the best {@code limit} seen so far. */
    void offer(final long[] key, final long rowId) {
        if (size < limit) {
            if (size == rowIds.length) {
                final int cap = (int) Math.min(limit, (long) size * 2);
                rowIds = Arrays.copyOf(rowIds, cap);
                keys = Arrays.copyOf(keys, cap * Math.max(1, width));
            }
            System.arraycopy(key, 0, keys, size * width, width);
            rowIds[size] = rowId;
            siftUp(size++);
            return;
        }
        if (compare(key, 0, rowId, keys, 0, rowIds[0]) >= 0) {
            return;
        }
        System.arraycopy(key, 0, keys, 0, width);
        rowIds[0] = rowId;
        siftDown(0);
    }

    private int compare(final long[] ka, final int ia, final long ra, final long[] kb, final int ib, final long rb) {
        for (int k = 0; k < width; k++) {
            final int c = Long.compare(ka[ia + k], kb[ib + k]);
            if (c != 0) {
                return c;
            }
        }
        return Long.compare(ra, rb);
    }

    private int compareAt(final int i, final int j) {
        return compare(keys, i * width, rowIds[i], keys, j * width, rowIds[j]);
    }

    private void swap(final int i, final int j) {
        final long r = rowIds[i];
        rowIds[i] = rowIds[j];
        rowIds[j] = r;
        for (int k = 0; k < width; k++) {
            final long t = keys[i * width + k];
            keys[i * width + k] = keys[j * width + k];
            keys[j * width + k] = t;
        }
    }

    private void siftUp(final int at) {
        int i = at;
        while (i > 0) {
            final int p = (i - 1) >>> 1;
            if (compareAt(i, p) <= 0) {
                return;
            }
            swap(i, p);
            i = p;
        }
    }

    private void siftDown(final int at) {
        int i = at;
        while (true) {
            final int l = 2 * i + 1;
            if (l >= size) {
                return;
            }
            final int r = l + 1;
            final int m = r < size && compareAt(r, l) > 0 ? r : l;
            if (compareAt(m, i) <= 0) {
                return;
            }
            swap(m, i);
            i = m;
        }
    }

    /**
     * @return whether the heap is full and its worst row comes before {@code rowId} (unsorted scans can skip later
     * rows).
     */
    boolean fullBefore(final long rowId) {
        if (sink != null) {
            return done();
        }
        return width == 0 && size >= limit && rowIds[0] < rowId;
    }

    /** Merges another worker's rows. */
    void merge(final ScanState o) {
        matched += o.matched;
        final long[] key = new long[Math.max(1, width)];
        for (int i = 0; i < o.size; i++) {
            System.arraycopy(o.keys, i * width, key, 0, width);
            offer(key, o.rowIds[i]);
        }
    }

    /** @return the kept row ids in output order. */
    long[] sortedRows() {
        final Integer[] idx = new Integer[size];
        for (int i = 0; i < size; i++) {
            idx[i] = i;
        }
        Arrays.sort(idx, (x, y) -> compareAt(x, y));
        final long[] out = new long[size];
        for (int i = 0; i < size; i++) {
            out[i] = rowIds[idx[i]];
        }
        return out;
    }
}
