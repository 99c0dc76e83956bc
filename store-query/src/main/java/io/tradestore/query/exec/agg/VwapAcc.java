package io.tradestore.query.exec.agg;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.MathContext;
import java.util.Arrays;

import io.tradestore.core.memory.NativeMemory;
import io.tradestore.core.segment.Segment;
import io.tradestore.query.spi.SummaryPart;
import io.tradestore.query.exec.BatchContext;

/**
 * Volume-weighted average price {@code sum(price*quantity) / sum(quantity)} over rows where both are present, both sums
 * exact (64-bit partials proven safe by the zone maps, flushed into 128 bits), divided once at the end.
 */
public final class VwapAcc extends Acc {
    private final int priceSlot;
    private final int qtySlot;
    private final int priceCol;
    private final int qtyCol;
    private final int priceScale;
    private final int qtyScale;
    private long[] fastPq = new long[1];
    private long[] fastQ = new long[1];
    private final Int128 pq = new Int128();
    private final Int128 q = new Int128();
    private long budget;
    private long used;
    private boolean exactMode;

    public VwapAcc(final int priceSlot, final int priceCol, final int priceScale, final int qtySlot, final int qtyCol,
        final int qtyScale) {
        this.priceSlot = priceSlot;
        this.qtySlot = qtySlot;
        this.priceCol = priceCol;
        this.qtyCol = qtyCol;
        this.priceScale = priceScale;
        this.qtyScale = qtyScale;
    }

    @Override
    public void grow(final int capacity) {
        if (capacity > fastPq.length) {
            final int n = Math.max(capacity, fastPq.length * 2);
            fastPq = Arrays.copyOf(fastPq, n);
            fastQ = Arrays.copyOf(fastQ, n);
        }
        pq.grow(capacity);
        q.grow(capacity);
    }

    @Override
    public void beginSegment(final Segment s) {
        flush();
        final long qb = Int128.maxAbs(s, qtyCol);
        final long pqb = Int128.productBound(Int128.maxAbs(s, priceCol), qb);
        budget = pqb == Long.MAX_VALUE ? 0 : Math.min(Int128.budget(pqb), Int128.budget(qb));
        exactMode = budget < BatchContext.BATCH;
    }

    private void flush() {
        if (used == 0) {
            return;
        }
        for (int g = 0; g < fastPq.length; g++) {
            if (fastPq[g] != 0 || fastQ[g] != 0) {
                pq.add(g, fastPq[g]);
                q.add(g, fastQ[g]);
                fastPq[g] = 0;
                fastQ[g] = 0;
            }
        }
        used = 0;
    }

    @Override
    public void update(final BatchContext c, final int[] gid) {
        final int n = c.n;
        final long a = c.viewAddr[priceSlot];
        final long sa = c.viewStride[priceSlot];
        final long b = c.viewAddr[qtySlot];
        final long sb = c.viewStride[qtySlot];
        if (exactMode) {
            for (int i = 0; i < n; i++) {
                final long p = NativeMemory.getLong(a + i * sa);
                final long v = NativeMemory.getLong(b + i * sb);
                if (p != Long.MIN_VALUE && v != Long.MIN_VALUE) {
                    final int g = gid == null ? 0 : gid[i];
                    pq.addProduct(g, p, v);
                    q.add(g, v);
                }
            }
            return;
        }
        if (used + n > budget) {
            flush();
        }
        used += n;
        if (gid == null) {
            long spq = 0;
            long sq = 0;
            for (int i = 0; i < n; i++) {
                final long p = NativeMemory.getLong(a + i * sa);
                final long v = NativeMemory.getLong(b + i * sb);
                final boolean ok = p != Long.MIN_VALUE & v != Long.MIN_VALUE;
                spq += ok ? p * v : 0;
                sq += ok ? v : 0;
            }
            fastPq[0] += spq;
            fastQ[0] += sq;
            return;
        }
        final long[] fpq = fastPq;
        final long[] fq = fastQ;
        for (int i = 0; i < n; i++) {
            final long p = NativeMemory.getLong(a + i * sa);
            final long v = NativeMemory.getLong(b + i * sb);
            if (p != Long.MIN_VALUE & v != Long.MIN_VALUE) {
                final int g = gid[i];
                fpq[g] += p * v;
                fq[g] += v;
            }
        }
    }

    @Override
    public int[] summaryMeasure() {
        return new int[] {priceCol, qtyCol};
    }

    @Override
    public void foldSummary(final int g, final SummaryPart p) {
        pq.add128(g, p.sumHi, p.sumLo);
        q.add128(g, p.secondHi, p.secondLo);
    }

    @Override
    public void finish() {
        flush();
    }

    public int priceSlot() {
        return priceSlot;
    }

    public int priceCol() {
        return priceCol;
    }

    public int qtyCol() {
        return qtyCol;
    }

    /**
     * Adds 128-bit partials {@code (hi, lo)} of {@code sum(p*q)} and {@code sum(q)} of group {@code g} exactly (from
     * {@link DenseSumKernel}).
     */
    public void addExact(final int g, final long pqHi, final long pqLo, final long qHi, final long qLo) {
        pq.add128(g, pqHi, pqLo);
        q.add128(g, qHi, qLo);
    }

    /**
     * Adds row {@code i} of the batch to group {@code g} exactly when price and quantity are both present (a rare
     * path).
     */
    public void addRow(final BatchContext c, final int g, final int i) {
        final long p = NativeMemory.getLong(c.viewAddr[priceSlot] + i * c.viewStride[priceSlot]);
        final long v = NativeMemory.getLong(c.viewAddr[qtySlot] + i * c.viewStride[qtySlot]);
        if (p != Long.MIN_VALUE && v != Long.MIN_VALUE) {
            pq.addProduct(g, p, v);
            q.add(g, v);
        }
    }

    public int qtySlot() {
        return qtySlot;
    }

    @Override
    public void merge(final int dst, final Acc src, final int srcGid) {
        final VwapAcc o = (VwapAcc) src;
        pq.merge(dst, o.pq, srcGid);
        q.merge(dst, o.q, srcGid);
    }

    @Override
    public Object result(final int gid, final long rows) {
        final BigInteger den = q.value(gid);
        if (den.signum() == 0) {
            return null;
        }
        final BigInteger unscaled = pq.value(gid);
        final double v = ExactQuotient.of(unscaled, den, priceScale);
        if (v == v) {
            return v;
        }
        final BigDecimal num = new BigDecimal(unscaled, priceScale + qtyScale);
        return num.divide(new BigDecimal(den, qtyScale), MathContext.DECIMAL128).doubleValue();
    }
}
