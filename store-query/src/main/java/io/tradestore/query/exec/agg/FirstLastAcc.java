package io.tradestore.query.exec.agg;

import java.util.Arrays;

import io.tradestore.core.TableSnapshot;
import io.tradestore.core.memory.NativeMemory;
import io.tradestore.core.schema.Column;
import io.tradestore.core.schema.ColumnType;
import io.tradestore.core.segment.Segment;
import io.tradestore.query.spi.SummaryPart;
import io.tradestore.query.exec.BatchContext;
import io.tradestore.query.exec.kernel.Gather;

/**
 * first/last: the value at the smallest/largest designated timestamp, ties broken by row number (first: lowest row,
 * last: highest), skipping rows whose value or timestamp is null.
 */
public final class FirstLastAcc extends Acc {
    private final int tsSlot;
    private final int slot;
    private final Column col;
    private final boolean last;
    private final boolean f64;
    private final TableSnapshot snap;
    private final Product product;
    private final int colB;
    private long[] valueB = new long[1];
    private long[] ts = new long[1];
    private long[] row = new long[] {-1};
    private long[] value = new long[1];
    /** A bit per group that has a value: first over rows in time order tests it, an L1 load where row[] may miss. */
    private long[] has = new long[1];
    /**
     * last over rows in time order: per group, the row (in {@link #segment}) of its latest non-null row, not yet taken
     * (-1: none). Each such row beats every row offered before it, so a group's row is overwritten row by row and its
     * timestamp and values are read from the segment once, when the segment ends or another path needs the group's
     * best ({@link #flush}), where taking each batch's last row would store four values per group a batch (figures in
     * the body of commit 0cfd8fc).
     */
    private int[] pending = new int[] {-1};
    /** The groups with a pending row, {@link #pendingCount} of them. */
    private int[] pendingGroups = new int[16];
    private int pendingCount;
    /** The segment the pending rows are in, and its first row in the table. */
    private Segment segment;
    private long segmentRowBase;
    private final int tsColumn;
    /**
     * The largest (timestamp, row) offered so far (update, summaries, merges): every group's best is at or before it,
     * so a row after it is worse than every best for first and better for last.
     */
    private long watermark = Long.MIN_VALUE;
    private long watermarkRow = Long.MIN_VALUE;

    /**
     * @param tsSlot  the designated timestamp's slot.
     * @param slot    the column's slot (a product's first factor).
     * @param col     the column (a product's first factor).
     * @param colB    a product's second factor's column index, or -1.
     * @param last    last rather than first.
     * @param snap    the snapshot (symbol values).
     * @param product the product, or null.
     */
    public FirstLastAcc(final int tsSlot, final int slot, final Column col, final int colB, final boolean last,
        final TableSnapshot snap, final Product product) {
        this.product = product;
        this.colB = colB;
        this.tsSlot = tsSlot;
        this.slot = slot;
        this.col = col;
        this.last = last;
        this.f64 = col.type() == ColumnType.F64;
        this.snap = snap;
        this.tsColumn = snap.schema().timestampIndex();
    }

    @Override
    public void grow(final int capacity) {
        if (capacity > ts.length) {
            final int n = Math.max(capacity, ts.length * 2);
            final int old = row.length;
            ts = Arrays.copyOf(ts, n);
            row = Arrays.copyOf(row, n);
            Arrays.fill(row, old, n, -1);
            value = Arrays.copyOf(value, n);
            valueB = Arrays.copyOf(valueB, n);
            has = Arrays.copyOf(has, (n + 63) >>> 6);
            pending = Arrays.copyOf(pending, n);
            Arrays.fill(pending, old, n, -1);
        }
    }

    @Override
    public void beginSegment(final Segment s) {
        flush();
        segment = s;
    }

    @Override
    public void update(final BatchContext c, final int[] gid) {
        if (c.runCount > 0) {
            flush();
            updateRuns(c);
            return;
        }
        final int n = c.n;
        final long ta = c.viewAddr[tsSlot];
        final long tst = c.viewStride[tsSlot];
        final long a = c.viewAddr[slot];
        final long s = c.viewStride[slot];
        final long rowBase = c.segmentRowBase;
        final long b = product == null ? 0 : c.viewAddr[product.slotB];
        final long sb = product == null ? 0 : c.viewStride[product.slotB];
        if (n > 0 && after(c, ta, tst, n)) {
            if (last) {
                lastInOrder(c, gid, ta, tst, a, s, b, sb);
            } else {
                firstInOrder(c, gid, ta, tst, a, s, b, sb);
            }
            return;
        }
        flush();
        long seen = watermark;
        long seenRow = watermarkRow;
        // last walks the batch backwards: on rows in time order a group's best row then comes first and every later
        // row only loads and compares, where walking forwards would store each row over the one before
        final boolean back = last;
        for (int k = 0; k < n; k++) {
            final int i = back ? n - 1 - k : k;
            final long t = NativeMemory.getLong(ta + i * tst);
            final long v = NativeMemory.getLong(a + i * s);
            final long w = product == null ? 0 : NativeMemory.getLong(b + i * sb);
            if (t == Long.MIN_VALUE || isNull(v, w)) {
                continue;
            }
            final long r = rowBase + c.row(i);
            if (t > seen || t == seen && r > seenRow) {
                seen = t;
                seenRow = r;
            }
            offer(gid == null ? 0 : gid[i], t, r, v, w);
        }
        watermark = seen;
        watermarkRow = seenRow;
    }

    /** @return whether (t, r) comes after the watermark. */
    private boolean afterMark(final long t, final long r) {
        return t > watermark || t == watermark && r > watermarkRow;
    }

    /** Moves the watermark to (t, r) if that is after it. */
    private void saw(final long t, final long r) {
        if (afterMark(t, r)) {
            watermark = t;
            watermarkRow = r;
        }
    }

    /**
     * @return whether the batch's timestamps are non-decreasing (its rows ascend) and its first row is after the
     *     {@link #watermark} (so no timestamp is null); if so the watermark moves to its last row. Trade data arrives
     *     in time order, so this is the common case, and the pass reads one column in order where the general loop
     *     compares each row with its group's best.
     */
    private boolean after(final BatchContext c, final long ta, final long tst, final int n) {
        final long t0 = NativeMemory.getLong(ta);
        if (!afterMark(t0, c.segmentRowBase + c.row(0))) {
            return false; // no pass over the batch once a later row has been seen (an outlier, data out of order)
        }
        boolean ordered = true;
        long previous = t0;
        if (c.sortedRun(c.slotColumn[tsSlot])) { // known in order for the block: no pass
            previous = NativeMemory.getLong(ta + (n - 1) * tst);
        } else {
            for (int i = 1; i < n; i++) {
                final long t = NativeMemory.getLong(ta + i * tst);
                ordered &= t >= previous;
                previous = t;
            }
        }
        if (ordered) {
            watermark = previous;
            watermarkRow = c.segmentRowBase + c.row(n - 1);
        }
        return ordered;
    }

    /**
     * first over a batch after every row offered before: a group's best so far is earlier than all of it, so only
     * groups with no value yet take a row, their first non-null one in row order (the earliest, ties by row).
     */
    private void firstInOrder(final BatchContext c, final int[] gid, final long ta, final long tst, final long a,
        final long s, final long b, final long sb) {
        final long[] h = has;
        for (int i = 0; i < c.n; i++) {
            final int g = gid == null ? 0 : gid[i];
            if ((h[g >>> 6] & 1L << g) != 0) {
                if (gid == null) {
                    return; // the one group has its first row
                }
                continue;
            }
            final long v = NativeMemory.getLong(a + i * s);
            final long w = product == null ? 0 : NativeMemory.getLong(b + i * sb);
            if (!isNull(v, w)) {
                take(g, NativeMemory.getLong(ta + i * tst), c.segmentRowBase + c.row(i), v, w);
            }
        }
    }

    /**
     * last over a batch after every row offered before: each non-null row beats its group's best so far and every
     * earlier row, so it becomes the group's pending row ({@link #pending}).
     */
    private void lastInOrder(final BatchContext c, final int[] gid, final long ta, final long tst, final long a,
        final long s, final long b, final long sb) {
        if (gid == null) { // one group: its last non-null row is the batch's, found from the end
            for (int i = c.n - 1; i >= 0; i--) {
                final long v = NativeMemory.getLong(a + i * s);
                final long w = product == null ? 0 : NativeMemory.getLong(b + i * sb);
                if (!isNull(v, w)) {
                    take(0, NativeMemory.getLong(ta + i * tst), c.segmentRowBase + c.row(i), v, w);
                    return;
                }
            }
            return;
        }
        segmentRowBase = c.segmentRowBase;
        final int[] p = pending;
        int[] groups = pendingGroups;
        int np = pendingCount;
        for (int i = 0; i < c.n; i++) {
            final long v = NativeMemory.getLong(a + i * s);
            final long w = product == null ? 0 : NativeMemory.getLong(b + i * sb);
            if (isNull(v, w)) {
                continue;
            }
            final int g = gid[i];
            if (p[g] < 0) {
                if (np == groups.length) {
                    groups = Arrays.copyOf(groups, np * 2);
                }
                groups[np++] = g;
            }
            p[g] = c.row(i);
        }
        pendingGroups = groups;
        pendingCount = np;
    }

    /** Takes each group's pending row, reading its timestamp and values from the segment. */
    private void flush() {
        final int np = pendingCount;
        if (np == 0) {
            return;
        }
        final Segment sg = segment;
        final int[] p = pending;
        final int[] groups = pendingGroups;
        final int colA = col.index();
        for (int j = 0; j < np; j++) {
            final int g = groups[j];
            final int r = p[g];
            p[g] = -1;
            final long t = NativeMemory.getLong(sg.columnBase(tsColumn) + (long) r * sg.columnStride(tsColumn));
            take(g, t, segmentRowBase + r, raw(sg, colA, r), colB < 0 ? 0 : raw(sg, colB, r));
        }
        pendingCount = 0;
    }

    /** @return a non-null value of a column at a segment row, widened as {@link Gather} widens it (signed). */
    private long raw(final Segment sg, final int column, final int r) {
        final long at = sg.columnBase(column) + (long) r * sg.columnStride(column);
        switch (snap.schema().column(column).width()) {
            case 8:
                return NativeMemory.getLong(at);
            case 4:
                return NativeMemory.getInt(at);
            case 2:
                return NativeMemory.getShort(at);
            default:
                return NativeMemory.getByte(at);
        }
    }

    private boolean isNull(final long v, final long w) {
        return product != null ? product
            .isNull(v, w) : f64 ? Double.isNaN(Double.longBitsToDouble(v)) : v == Long.MIN_VALUE;
    }

    /**
     * A batch split into runs of one group whose rows are in time order (timestamps non-decreasing, never null): the
     * first (last) non-null row of a run in row order is its first (last) by time, ties included (the lowest row among
     * equal first timestamps, the highest among equal last ones), so only that row's timestamp is read, to compare with
     * other batches.
     */
    private void updateRuns(final BatchContext c) {
        final long a = c.viewAddr[slot];
        final long s = c.viewStride[slot];
        final long b = product == null ? 0 : c.viewAddr[product.slotB];
        final long sb = product == null ? 0 : c.viewStride[product.slotB];
        final int tsColumn = c.slotColumn[tsSlot];
        final long ta = c.base[tsColumn];
        final long tst = c.stride[tsColumn];
        final long rowBase = c.segmentRowBase;
        final int[] start = c.runStart;
        for (int j = 0; j < c.runCount; j++) {
            final int from = start[j];
            final int to = start[j + 1];
            for (int k = 0; k < to - from; k++) {
                final int i = last ? to - 1 - k : from + k;
                final long v = NativeMemory.getLong(a + i * s);
                final long w = product == null ? 0 : NativeMemory.getLong(b + i * sb);
                if (!isNull(v, w)) {
                    final int r = c.row(i);
                    final long t = NativeMemory.getLong(ta + r * tst);
                    saw(t, rowBase + r);
                    offer(c.runGid[j], t, rowBase + r, v, w);
                    break;
                }
            }
        }
    }

    private void offer(final int g, final long t, final long r, final long v, final long w) {
        final long br = row[g];
        final boolean better;
        if (br < 0) {
            better = true;
        } else if (last) {
            better = t > ts[g] || t == ts[g] && r > br;
        } else {
            better = t < ts[g] || t == ts[g] && r < br;
        }
        if (better) {
            take(g, t, r, v, w);
        }
    }

    /** Makes row {@code r} (timestamp t, value v, second factor w) group {@code g}'s best. */
    private void take(final int g, final long t, final long r, final long v, final long w) {
        ts[g] = t;
        row[g] = r;
        value[g] = v;
        valueB[g] = w;
        if (!last) { // only first tests it
            has[g >>> 6] |= 1L << g;
        }
    }

    /** @return its column's first and last rows per part, unless it is a product. */
    @Override
    public int[] summaryMeasure() {
        return product == null ? new int[] {col.index(), FIRST_LAST} : null;
    }

    /**
     * @return its column, or a product's two, when a bucket cell's first/last row stands for it: 8 bytes wide and not
     *     f64, or a product of factors that are not f64.
     */
    @Override
    public int[] bucketMeasure() {
        if (product != null) {
            return product.f64A || product.f64B ? null : new int[] {col.index(), colB};
        }
        return !f64 && col.width() == Long.BYTES ? new int[] {col.index(), -1} : null;
    }

    @Override
    public void foldSummary(final int g, final SummaryPart p) {
        flush();
        if (p.firstRow >= 0) {
            saw(last ? p.lastTs : p.firstTs, last ? p.lastRow : p.firstRow);
            if (last) {
                offer(g, p.lastTs, p.lastRow, p.lastValue, p.lastValueB);
            } else {
                offer(g, p.firstTs, p.firstRow, p.firstValue, p.firstValueB);
            }
        }
    }

    @Override
    public void merge(final int dst, final Acc src, final int srcGid) {
        final FirstLastAcc o = (FirstLastAcc) src;
        flush();
        o.flush();
        if (o.row[srcGid] >= 0) {
            saw(o.ts[srcGid], o.row[srcGid]);
            offer(dst, o.ts[srcGid], o.row[srcGid], o.value[srcGid], o.valueB[srcGid]);
        }
    }

    @Override
    public void finish() {
        flush();
    }

    @Override
    public Object result(final int gid, final long rows) {
        flush();
        if (row[gid] < 0) {
            return null;
        }
        return product != null ? product.value(value[gid], valueB[gid]) : Values.object(col, value[gid], snap);
    }
}
