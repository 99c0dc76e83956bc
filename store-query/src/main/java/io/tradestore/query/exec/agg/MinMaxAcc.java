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
 */
public final class MinMaxAcc extends Acc {
    private final int slot;
    private final Column col;
    private final boolean max;
    private final boolean f64;
    private final TableSnapshot snap;
    private long[] best = new long[] {0};
    private boolean[] has = new boolean[1];

    public MinMaxAcc(final int slot, final Column col, final boolean max, final TableSnapshot snap) {
        this.slot = slot;
        this.col = col;
        this.max = max;
        this.f64 = col.type() == ColumnType.F64;
        this.snap = snap;
    }

    @Override
    public void grow(final int capacity) {
        if (capacity > best.length) {
            final int n = Math.max(capacity, best.length * 2);
            best = Arrays.copyOf(best, n);
            has = Arrays.copyOf(has, n);
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
        for (int i = 0; i < n; i++) {
            final long v = NativeMemory.getLong(a + i * s);
            if (v != Long.MIN_VALUE) {
                fold(gid[i], v);
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
        return has[gid] ? Values.object(col, best[gid], snap) : null;
    }
}
