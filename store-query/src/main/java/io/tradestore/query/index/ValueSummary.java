package io.tradestore.query.index;

import java.util.Arrays;

import io.tradestore.core.memory.NativeMemory;
import io.tradestore.core.schema.Column;
import io.tradestore.core.schema.ColumnType;
import io.tradestore.core.segment.Segment;
import io.tradestore.query.exec.Executor;
import io.tradestore.query.exec.SummaryPart;

/**
 * Aggregates of one measure per indexed value and per part of a sealed segment (an aggregate index, in the spirit of
 * Apache Pinot's star-tree or Druid's roll-ups): for each slot of the key column's bitmap index and each part of
 * 2^{@code partShift} rows, the row count and, over the rows where the measure is present, their count, exact 128-bit
 * sum and min/max. The measure is one integral, decimal or timestamp column, the product of two such columns (then
 * also the exact sum of the second factor, for VWAP), or nothing (row counts only). A global aggregate of an eq/in
 * selection folds whole parts from here instead of reading their rows; only parts cut by the time range or by a
 * residual filter read rows. Sealed segments never change, so a summary is built once (one pass over the key and
 * measure columns) and kept in memory by {@link BitmapIndexes}.
 */
public final class ValueSummary {
    private final long keyMin;
    private final int slots;
    private final int partShift;
    private final int parts;
    private final boolean product;
    private final boolean measured;
    private final long[] rows;
    private final long[] nonNull;
    private final long[] sumHi;
    private final long[] sumLo;
    private final long[] min;
    private final long[] max;
    private final long[] bSumHi;
    private final long[] bSumLo;

    private ValueSummary(final long keyMin, final int slots, final int partShift, final int parts, final boolean measured, final boolean product) {
        this.keyMin = keyMin;
        this.slots = slots;
        this.partShift = partShift;
        this.parts = parts;
        this.measured = measured;
        this.product = product;
        final int n = parts * slots;
        rows = new long[n];
        nonNull = measured ? new long[n] : null;
        sumHi = measured ? new long[n] : null;
        sumLo = measured ? new long[n] : null;
        min = measured && !product ? filled(n, Long.MAX_VALUE) : null;
        max = measured && !product ? filled(n, Long.MIN_VALUE) : null;
        bSumHi = product ? new long[n] : null;
        bSumLo = product ? new long[n] : null;
    }

    private static long[] filled(final int n, final long v) {
        final long[] a = new long[n];
        Arrays.fill(a, v);
        return a;
    }

    /** @param type a column type. @return whether a column of it can be a measure (exact integral arithmetic). */
    static boolean measurable(final ColumnType type) {
        return type != ColumnType.F64;
    }

    /** @return heap bytes held by the arrays. */
    long bytes() {
        final int arrays = 1 + (measured ? 3 : 0) + (measured && !product ? 2 : 0) + (product ? 2 : 0);
        return (long) arrays * parts * slots * Long.BYTES;
    }

    /**
     * Builds the summary in one pass over the segment.
     *
     * @param s         a sealed segment.
     * @param rowCount  its rows.
     * @param key       the indexed column.
     * @param keyMin    the value of slot 1 (slot 0 holds nulls), as in the bitmap index.
     * @param slots     slots of the bitmap index.
     * @param partShift log2 of rows per part.
     * @param a         the measure (or its first factor), or null for row counts only.
     * @param b         the second factor of a product, or null.
     * @return the summary.
     */
    static ValueSummary build(final Segment s, final int rowCount, final Column key, final long keyMin, final int slots, final int partShift,
                              final Column a, final Column b) {
        final int parts = (int) (((long) rowCount + (1L << partShift) - 1) >>> partShift);
        final ValueSummary v = new ValueSummary(keyMin, slots, partShift, Math.max(1, parts), a != null, b != null);
        final long kb = s.columnBase(key.index());
        final long ks = s.columnStride(key.index());
        final int kw = key.width();
        final long knul = key.type().nullBits();
        final long[] rows = v.rows;
        if (a == null) {
            for (int r = 0; r < rowCount; r++) {
                rows[v.index(r, NativeMemory.getSigned(kb + r * ks, kw), knul)]++;
            }
            return v;
        }
        final long ab = s.columnBase(a.index());
        final long as = s.columnStride(a.index());
        final int aw = a.width();
        final long anul = a.type().nullBits();
        if (b == null) {
            for (int r = 0; r < rowCount; r++) {
                final int i = v.index(r, NativeMemory.getSigned(kb + r * ks, kw), knul);
                rows[i]++;
                final long x = NativeMemory.getSigned(ab + r * as, aw);
                if (x != anul) {
                    v.nonNull[i]++;
                    add(v.sumHi, v.sumLo, i, x >> 63, x);
                    v.min[i] = Math.min(v.min[i], x);
                    v.max[i] = Math.max(v.max[i], x);
                }
            }
            return v;
        }
        final long bb = s.columnBase(b.index());
        final long bs = s.columnStride(b.index());
        final int bw = b.width();
        final long bnul = b.type().nullBits();
        for (int r = 0; r < rowCount; r++) {
            final int i = v.index(r, NativeMemory.getSigned(kb + r * ks, kw), knul);
            rows[i]++;
            final long x = NativeMemory.getSigned(ab + r * as, aw);
            final long y = NativeMemory.getSigned(bb + r * bs, bw);
            if (x != anul && y != bnul) {
                v.nonNull[i]++;
                add(v.sumHi, v.sumLo, i, Math.multiplyHigh(x, y), x * y);
                add(v.bSumHi, v.bSumLo, i, y >> 63, y);
            }
        }
        return v;
    }

    private int index(final int row, final long key, final long keyNull) {
        final int slot = key == keyNull ? 0 : (int) (key - keyMin) + 1;
        return (row >>> partShift) * slots + slot;
    }

    private static void add(final long[] hi, final long[] lo, final int i, final long h, final long l) {
        final long s = lo[i] + l;
        hi[i] += h + (Long.compareUnsigned(s, l) < 0 ? 1 : 0);
        lo[i] = s;
    }

    /**
     * @param values raw key values (an eq/in leaf's), each counted once.
     * @return the summary of the rows holding one of them.
     */
    Executor.Summary view(final long[] values) {
        final int[] chosen = new int[values.length];
        int n = 0;
        for (int j = 0; j < values.length; j++) {
            final long k = values[j] - keyMin;
            if (k >= 0 && k < slots - 1 && (j == 0 || values[j] != values[j - 1])) { // sorted: a repeated value counts once
                chosen[n++] = (int) k + 1;
            }
        }
        final int[] slotsOf = Arrays.copyOf(chosen, n);
        return new Executor.Summary() {
            @Override
            public int partShift() {
                return partShift;
            }

            @Override
            public void read(final int part, final SummaryPart out) {
                out.clear();
                if (part >= parts) {
                    return;
                }
                final int base = part * slots;
                for (final int slot : slotsOf) {
                    final int i = base + slot;
                    if (!measured) {
                        out.addCounts(rows[i], 0);
                        continue;
                    }
                    out.addCounts(rows[i], nonNull[i]);
                    out.addSum(sumHi[i], sumLo[i]);
                    if (product) {
                        out.addSecondSum(bSumHi[i], bSumLo[i]);
                    } else {
                        out.addRange(min[i], max[i]);
                    }
                }
            }
        };
    }
}
