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
 * Exact sum of an integral column or of the product of two: 64-bit partial sums per group while the zone maps prove
 * that {@code rows * max|value|} stays below 2^62, flushed into 128-bit accumulators; per-row 128-bit arithmetic only
 * when a single value (or product) can overflow. Also the base of {@code avg}.
 */
public final class SumAcc extends Acc {
    private final int slotA;
    private final int slotB;
    private final int colA;
    private final int colB;
    private final int scale;
    private final boolean avg;
    private long[] fast = new long[1];
    private long[] nulls = new long[1];
    private final Int128 exact = new Int128();
    private long budget;
    private long used;
    private boolean exactMode;
    private int laneShift;

    public SumAcc(final int slotA, final int colA, final int slotB, final int colB, final int scale,
        final boolean avg) {
        this.slotA = slotA;
        this.slotB = slotB;
        this.colA = colA;
        this.colB = colB;
        this.scale = scale;
        this.avg = avg;
    }

    @Override
    public void lanes(final int shift) {
        laneShift = shift;
        fast = new long[nulls.length << shift];
    }

    @Override
    public void grow(final int capacity) {
        if (capacity > nulls.length) {
            final int n = Math.max(capacity, nulls.length * 2);
            fast = Arrays.copyOf(fast, n << laneShift);
            nulls = Arrays.copyOf(nulls, n);
        }
        exact.grow(capacity);
    }

    @Override
    public void beginSegment(final Segment s) {
        flush();
        final long bound =
            slotB < 0 ? Int128.maxAbs(s, colA) : Int128.productBound(Int128.maxAbs(s, colA), Int128.maxAbs(s, colB));
        budget = bound == Long.MAX_VALUE ? 0 : Int128.budget(bound);
        exactMode = budget < BatchContext.BATCH;
    }

    private void flush() {
        if (used == 0) {
            return;
        }
        final long[] f = fast;
        for (int g = 0; g < f.length; g++) {
            if (f[g] != 0) {
                exact.add(g >>> laneShift, f[g]);
                f[g] = 0;
            }
        }
        used = 0;
    }

    /** A batch split into runs of one group ({@link BucketRuns}): each run summed in a register, one add per run. */
    private void updateRuns(final BatchContext c, final long a, final long sa, final long[] f) {
        final int[] start = c.runStart;
        final int ls = laneShift;
        for (int j = 0; j < c.runCount; j++) {
            final int to = start[j + 1];
            long sum = 0;
            long nn = 0;
            for (int i = start[j]; i < to; i++) {
                final long v = NativeMemory.getLong(a + i * sa);
                final boolean isNull = v == Long.MIN_VALUE;
                sum += isNull ? 0 : v;
                nn += isNull ? 1 : 0;
            }
            final int g = c.runGid[j];
            f[g << ls] += sum;
            nulls[g] += nn;
        }
    }

    @Override
    public void update(final BatchContext c, final int[] gid) {
        final int n = c.n;
        final long a = c.viewAddr[slotA];
        final long sa = c.viewStride[slotA];
        if (exactMode) {
            updateExact(c, gid);
            return;
        }
        if (used + n > budget) {
            flush();
        }
        used += n;
        final long[] f = fast;
        if (slotB < 0 && c.runCount > 0) {
            updateRuns(c, a, sa, f);
            return;
        }
        if (slotB < 0) {
            if (gid == null && sa == Long.BYTES) {
                // query 8's shape: a constant stride (0.58 -> 0.43 ns/row on one thread; docs/query-engine.md,
                // Known gaps, query 8)
                f[0] += sumContiguous(a, n);
                return;
            }
            if (gid == null) {
                long sum = 0;
                long nn = 0;
                for (int i = 0; i < n; i++) {
                    final long v = NativeMemory.getLong(a + i * sa);
                    final boolean isNull = v == Long.MIN_VALUE;
                    sum += isNull ? 0 : v;
                    nn += isNull ? 1 : 0;
                }
                f[0] += sum;
                nulls[0] += nn;
            } else {
                final int ls = laneShift;
                final int lm = (1 << ls) - 1;
                for (int i = 0; i < n; i++) {
                    final long v = NativeMemory.getLong(a + i * sa);
                    if (v == Long.MIN_VALUE) {
                        nulls[gid[i]]++;
                    } else {
                        f[(gid[i] << ls) | (i & lm)] += v;
                    }
                }
            }
            return;
        }
        final long b = c.viewAddr[slotB];
        final long sb = c.viewStride[slotB];
        if (gid == null) {
            long sum = 0;
            long nn = 0;
            for (int i = 0; i < n; i++) {
                final long x = NativeMemory.getLong(a + i * sa);
                final long y = NativeMemory.getLong(b + i * sb);
                final boolean isNull = x == Long.MIN_VALUE | y == Long.MIN_VALUE;
                sum += isNull ? 0 : x * y;
                nn += isNull ? 1 : 0;
            }
            f[0] += sum;
            nulls[0] += nn;
        } else {
            final int ls = laneShift;
            final int lm = (1 << ls) - 1;
            for (int i = 0; i < n; i++) {
                final long x = NativeMemory.getLong(a + i * sa);
                final long y = NativeMemory.getLong(b + i * sb);
                if (x == Long.MIN_VALUE | y == Long.MIN_VALUE) {
                    nulls[gid[i]]++;
                } else {
                    f[(gid[i] << ls) | (i & lm)] += x * y;
                }
            }
        }
    }

    /** @return the sum of the non-null values of {@code n} contiguous longs; nulls are counted into group 0. */
    private long sumContiguous(final long a, final int n) {
        long sum = 0;
        long nn = 0;
        for (int i = 0; i < n; i++) {
            final long v = NativeMemory.getLong(a + 8L * i);
            final boolean isNull = v == Long.MIN_VALUE;
            sum += isNull ? 0 : v;
            nn += isNull ? 1 : 0;
        }
        nulls[0] += nn;
        return sum;
    }

    private void updateExact(final BatchContext c, final int[] gid) {
        final int n = c.n;
        final long a = c.viewAddr[slotA];
        final long sa = c.viewStride[slotA];
        final long b = slotB < 0 ? 0 : c.viewAddr[slotB];
        final long sb = slotB < 0 ? 0 : c.viewStride[slotB];
        for (int i = 0; i < n; i++) {
            final int g = gid == null ? 0 : gid[i];
            final long x = NativeMemory.getLong(a + i * sa);
            if (slotB < 0) {
                if (x == Long.MIN_VALUE) {
                    nulls[g]++;
                } else {
                    exact.add(g, x);
                }
            } else {
                final long y = NativeMemory.getLong(b + i * sb);
                if (x == Long.MIN_VALUE | y == Long.MIN_VALUE) {
                    nulls[g]++;
                } else {
                    exact.addProduct(g, x, y);
                }
            }
        }
    }

    @Override
    public int[] summaryMeasure() {
        return new int[] {colA, colB}; // parts and cells fold into the exact sums and null counts, which have no lanes
    }

    @Override
    public void foldSummary(final int g, final SummaryPart p) {
        exact.add128(g, p.sumHi, p.sumLo);
        nulls[g] += p.rows - p.nonNull;
    }

    @Override
    public void finish() {
        flush();
    }

    public int slotA() {
        return slotA;
    }

    public int colA() {
        return colA;
    }

    public int colB() {
        return colB;
    }

    /** Adds a 128-bit partial sum {@code (hi, lo)} of group {@code g} exactly (from {@link DenseSumKernel}). */
    public void addExact(final int g, final long hi, final long lo) {
        exact.add128(g, hi, lo);
    }

    /** @return whether this is an avg (its result needs the exact count of addends). */
    public boolean avg() {
        return avg;
    }

    /**
     * Adds row {@code i} of the batch to group {@code g} exactly, or counts it as null (a fused kernel's rare path).
     */
    public void addRow(final BatchContext c, final int g, final int i) {
        final long x = NativeMemory.getLong(c.viewAddr[slotA] + i * c.viewStride[slotA]);
        if (slotB < 0) {
            if (x == Long.MIN_VALUE) {
                nulls[g]++;
            } else {
                exact.add(g, x);
            }
            return;
        }
        final long y = NativeMemory.getLong(c.viewAddr[slotB] + i * c.viewStride[slotB]);
        if (x == Long.MIN_VALUE | y == Long.MIN_VALUE) {
            nulls[g]++;
        } else {
            exact.addProduct(g, x, y);
        }
    }

    public int slotB() {
        return slotB;
    }

    @Override
    public void merge(final int dst, final Acc src, final int srcGid) {
        final SumAcc o = (SumAcc) src;
        exact.merge(dst, o.exact, srcGid);
        nulls[dst] += o.nulls[srcGid];
    }

    @Override
    public Object result(final int gid, final long rows) {
        final long nn = rows - nulls[gid];
        if (nn <= 0) {
            return null;
        }
        final BigInteger unscaled = exact.value(gid);
        if (!avg) {
            return new BigDecimal(unscaled, scale);
        }
        final double q = ExactQuotient.of(unscaled, BigInteger.valueOf(nn), scale);
        if (q == q) {
            return q;
        }
        return new BigDecimal(unscaled, scale).divide(BigDecimal.valueOf(nn), MathContext.DECIMAL128).doubleValue();
    }
}
