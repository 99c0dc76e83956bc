package io.tradestore.query.exec.agg;

import java.util.Arrays;

import io.tradestore.core.TableSnapshot;
import io.tradestore.core.memory.NativeMemory;
import io.tradestore.core.schema.Column;
import io.tradestore.core.schema.ColumnType;
import io.tradestore.core.segment.Segment;
import io.tradestore.query.spi.SummaryPart;
import io.tradestore.query.exec.BatchContext;

/**
 * min or max of an integral, decimal, timestamp or f64 column; a whole unfiltered block is folded from its zone map.
 * Also percentile 0 or 100 of a column: by the nearest-rank definition the smallest or largest value, answered as a
 * percentile is (an f64).
 */
public final class MinMaxAcc extends Acc {
    private final int slot;
    private final Column col;
    private final boolean max;
    private final boolean f64;
    private final TableSnapshot snap;
    private final boolean percentile;
    /** 10^-scale: a percentile's decimal is its raw value times this. */
    private final double unit;
    private long[] best = new long[] {0};
    private boolean[] has = new boolean[1];
    /**
     * With few dense groups: 2^laneShift partial results per group (row i in lane i mod 2^laneShift), starting at
     * {@link #identity}, folded into {@link #best} by {@link #finish}; null when the groups have no lanes.
     */
    private long[] lane;
    private int laneShift;
    /** A lane's start: Long.MIN_VALUE (null, never a max) or Long.MAX_VALUE. */
    private final long identity;

    public MinMaxAcc(final int slot, final Column col, final boolean max, final TableSnapshot snap) {
        this(slot, col, max, snap, false);
    }

    /**
     * @param percentile answer as percentile 0 (min) or 100 (max) does: an f64, a decimal as its raw value times
     *                   10^-scale like any percentile's.
     */
    public MinMaxAcc(final int slot, final Column col, final boolean max, final TableSnapshot snap,
        final boolean percentile) {
        this.percentile = percentile;
        this.unit = Math.pow(10, -col.scale());
        this.slot = slot;
        this.col = col;
        this.max = max;
        this.f64 = col.type() == ColumnType.F64;
        this.snap = snap;
        this.identity = max ? Long.MIN_VALUE : Long.MAX_VALUE;
    }

    @Override
    public void lanes(final int shift) {
        if (!f64) {
            laneShift = shift;
            lane = new long[0];
        }
    }

    @Override
    public void grow(final int capacity) {
        if (capacity > best.length) {
            final int n = Math.max(capacity, best.length * 2);
            best = Arrays.copyOf(best, n);
            has = Arrays.copyOf(has, n);
        }
        if (lane != null && capacity << laneShift > lane.length) {
            final int from = lane.length;
            lane = Arrays.copyOf(lane, Math.max(capacity << laneShift, lane.length * 2));
            Arrays.fill(lane, from, lane.length, identity);
        }
    }

    @Override
    public void update(final BatchContext c, final int[] gid) {
        if (f64) {
            updateDouble(c, gid);
            return;
        }
        if (c.runCount > 0) {
            updateRuns(c);
            return;
        }
        final int n = c.n;
        final long a = c.viewAddr[slot];
        final long s = c.viewStride[slot];
        if (gid == null) {
            long b = max ? Long.MIN_VALUE : Long.MAX_VALUE;
            boolean any = false;
            for (int i = 0; i < n; i++) {
                final long v = NativeMemory.getLong(a + i * s);
                if (v != Long.MIN_VALUE) {
                    any = true;
                    b = max ? Math.max(b, v) : Math.min(b, v);
                }
            }
            if (any) {
                fold(0, b);
            }
            return;
        }
        if (lane != null && updateLanes(a, s, n, gid)) {
            return;
        }
        for (int i = 0; i < n; i++) {
            final long v = NativeMemory.getLong(a + i * s);
            if (v != Long.MIN_VALUE) {
                fold(gid[i], v);
            }
        }
    }

    /**
     * Folds a batch into the lanes: consecutive rows of one group land in different lanes, so that a column rising
     * with time (every row a new max) does not wait on the store of the row before.
     *
     * @return false when a min met Long.MAX_VALUE, the lanes' start: then the batch must go through {@link #fold}
     *         as well (min is idempotent), so that a group whose values are all Long.MAX_VALUE has one.
     */
    private boolean updateLanes(final long a, final long s, final int n, final int[] gid) {
        final long[] l = lane;
        final int ls = laneShift;
        final int lm = (1 << ls) - 1;
        if (max) {
            for (int i = 0; i < n; i++) {
                final long v = NativeMemory.getLong(a + i * s); // null is Long.MIN_VALUE: never above a lane
                final int j = (gid[i] << ls) | (i & lm);
                if (v > l[j]) {
                    l[j] = v;
                }
            }
            return true;
        }
        boolean start = false;
        for (int i = 0; i < n; i++) {
            final long raw = NativeMemory.getLong(a + i * s);
            final long v = raw == Long.MIN_VALUE ? Long.MAX_VALUE : raw;
            start |= raw == Long.MAX_VALUE;
            final int j = (gid[i] << ls) | (i & lm);
            if (v < l[j]) {
                l[j] = v;
            }
        }
        return !start;
    }

    @Override
    public void finish() {
        if (lane == null) {
            return;
        }
        for (int j = 0; j < lane.length; j++) {
            if (lane[j] != identity) {
                fold(j >>> laneShift, lane[j]);
                lane[j] = identity;
            }
        }
    }

    /** A batch split into runs of one group ({@link BucketRuns}): each run reduced in a register, one fold per run. */
    private void updateRuns(final BatchContext c) {
        final long a = c.viewAddr[slot];
        final long s = c.viewStride[slot];
        final int[] start = c.runStart;
        for (int j = 0; j < c.runCount; j++) {
            final int to = start[j + 1];
            long b = max ? Long.MIN_VALUE : Long.MAX_VALUE;
            boolean any = false;
            for (int i = start[j]; i < to; i++) {
                final long v = NativeMemory.getLong(a + i * s);
                final boolean isNull = v == Long.MIN_VALUE;
                any |= !isNull;
                // null is Long.MIN_VALUE: never a max
                b = max ? Math.max(b, v) : Math.min(b, isNull ? Long.MAX_VALUE : v);
            }
            if (any) {
                fold(c.runGid[j], b);
            }
        }
    }

    private void fold(final int g, final long v) {
        if (!has[g]) {
            has[g] = true;
            best[g] = v;
        } else if (max ? v > best[g] : v < best[g]) {
            best[g] = v;
        }
    }

    private void foldDouble(final int g, final double v) {
        if (!has[g]) {
            has[g] = true;
            best[g] = Double.doubleToRawLongBits(v);
            return;
        }
        final double b = Double.longBitsToDouble(best[g]);
        if (max ? v > b : v < b) {
            best[g] = Double.doubleToRawLongBits(v);
        }
    }

    private void updateDouble(final BatchContext c, final int[] gid) {
        final int n = c.n;
        final long a = c.viewAddr[slot];
        final long s = c.viewStride[slot];
        for (int i = 0; i < n; i++) {
            final double v = Double.longBitsToDouble(NativeMemory.getLong(a + i * s));
            if (v == v) {
                foldDouble(gid == null ? 0 : gid[i], v == 0.0 ? 0.0 : v);
            }
        }
    }

    @Override
    public int[] summaryMeasure() {
        return f64 ? null : new int[] {col.index(), -1};
    }

    @Override
    public void foldSummary(final int g, final SummaryPart p) {
        if (p.nonNull > 0) {
            fold(g, max ? p.max : p.min);
        }
    }

    @Override
    public boolean zoneCapable() {
        return true;
    }

    @Override
    public boolean updateFromZone(final Segment s, final int block) {
        final long lo = s.zoneMin(block, col.index());
        final long hi = s.zoneMax(block, col.index());
        if (f64) {
            final double dlo = Double.longBitsToDouble(lo);
            final double dhi = Double.longBitsToDouble(hi);
            if (dlo <= dhi) {
                foldDouble(0, max ? dhi : dlo);
            }
        } else if (lo <= hi) {
            fold(0, max ? hi : lo);
        }
        return true;
    }

    @Override
    public void merge(final int dst, final Acc src, final int srcGid) {
        final MinMaxAcc o = (MinMaxAcc) src;
        if (o.has[srcGid]) {
            if (f64) {
                foldDouble(dst, Double.longBitsToDouble(o.best[srcGid]));
            } else {
                fold(dst, o.best[srcGid]);
            }
        }
    }

    @Override
    public Object result(final int gid, final long rows) {
        if (!has[gid]) {
            return null;
        }
        if (!percentile) {
            return Values.object(col, best[gid], snap);
        }
        if (f64) {
            final double d = Double.longBitsToDouble(best[gid]);
            return d == 0.0 ? 0.0 : d; // -0.0 from a zone map answers as 0.0, as percentiles order them
        }
        return unit == 1.0 ? (double) best[gid] : best[gid] * unit;
    }
}
