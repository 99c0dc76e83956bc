package io.tradestore.query.index;

import java.util.Arrays;

import io.tradestore.core.memory.NativeMemory;
import io.tradestore.core.schema.Column;
import io.tradestore.core.schema.ColumnType;
import io.tradestore.core.segment.Segment;
import io.tradestore.query.spi.Deadline;
import io.tradestore.query.spi.Summary;
import io.tradestore.query.spi.SummaryPart;

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
public final class ValueSummary extends CachedSummary {
    /** Longs per entry of a measured summary: rows, present, sum (hi, lo), min, max or second sum (hi, lo), padding. */
    private static final int STRIDE = 8;
    private static final int ROWS = 0;
    private static final int PRESENT = 1;
    private static final int SUM_HI = 2;
    private static final int SUM_LO = 3;
    /** min, or the high word of a product's second-factor sum. */
    private static final int MIN_OR_HI = 4;
    /** max, or the low word of a product's second-factor sum. */
    private static final int MAX_OR_LO = 5;
    private final long keyMin;
    private final int slots;
    private final int partShift;
    private final int parts;
    private final int coveredRows;
    private final boolean product;
    private final int stride;
    /** Entry (part, slot) at {@code (part * slots + slot) * stride}: one cache line per value and part. */
    private final long[] e;
    /** log2 of the rows per coarse part ({@link #withCoarse}), {@link #partShift} without a coarse level. */
    private int coarseShift;
    /** Entries of the coarse parts, laid out as {@link #e}, or null. */
    private long[] coarse;

    private ValueSummary(final long keyMin, final int slots, final int partShift, final int parts,
                         final int coveredRows, final boolean measured, final boolean product) {
        this.keyMin = keyMin;
        this.coveredRows = coveredRows;
        this.slots = slots;
        this.partShift = partShift;
        this.parts = parts;
        this.product = product;
        this.stride = measured ? STRIDE : 1;
        this.coarseShift = partShift;
        e = emptyEntries(parts);
    }

    /** @return empty entries for {@code parts} parts: no rows, and an empty min/max range where there is one. */
    private long[] emptyEntries(final int partCount) {
        final long[] out = new long[partCount * slots * stride];
        if (stride > 1 && !product) {
            for (int i = 0; i < out.length; i += STRIDE) {
                out[i + MIN_OR_HI] = Long.MAX_VALUE;
                out[i + MAX_OR_LO] = Long.MIN_VALUE;
            }
        }
        return out;
    }

    /** @param type a column type. @return whether a column of it can be a measure (exact integral arithmetic). */
    static boolean measurable(final ColumnType type) {
        return type != ColumnType.F64;
    }

    /** @return parts covered from row 0. */
    int parts() {
        return parts;
    }

    /** @return rows covered from row 0. */
    int coveredRows() {
        return coveredRows;
    }

    /** @return log2 of the rows per part. */
    int partShift() {
        return partShift;
    }

    @Override
    long bytes() {
        return (long) (e.length + (coarse == null ? 0 : coarse.length)) * Long.BYTES;
    }

    /**
     * Adds a coarse level: each run of 2^(shift - partShift) parts rolled up into one entry, so that a query folding
     * many fine parts reads one entry per run instead (parts finer than a block serve a range's ends, coarse ones its
     * middle).
     *
     * @param shift log2 of the rows per coarse part, above {@link #partShift}.
     * @return this.
     */
    ValueSummary withCoarse(final int shift) {
        final int ratio = 1 << (shift - partShift);
        final long[] c = emptyEntries((parts + ratio - 1) / ratio);
        final boolean measured = stride > 1;
        for (int part = 0; part < parts; part++) {
            for (int slot = 0; slot < slots; slot++) {
                final int from = (part * slots + slot) * stride;
                final int to = ((part / ratio) * slots + slot) * stride;
                c[to + ROWS] += e[from + ROWS];
                if (!measured) {
                    continue;
                }
                c[to + PRESENT] += e[from + PRESENT];
                add(c, to + SUM_HI, e[from + SUM_HI], e[from + SUM_LO]);
                if (product) {
                    add(c, to + MIN_OR_HI, e[from + MIN_OR_HI], e[from + MAX_OR_LO]);
                } else {
                    c[to + MIN_OR_HI] = Math.min(c[to + MIN_OR_HI], e[from + MIN_OR_HI]);
                    c[to + MAX_OR_LO] = Math.max(c[to + MAX_OR_LO], e[from + MAX_OR_LO]);
                }
            }
        }
        coarse = c;
        coarseShift = shift;
        return this;
    }

    /**
     * Builds the summary in one pass over the segment.
     *
     * @param s         a sealed segment.
     * @param rowCount  its rows.
     * @param key       the indexed column, or null for one value that every row has (a summary of all rows: slot 1).
     * @param keyMin    the value of slot 1 (slot 0 holds nulls), as in the bitmap index; 0 without a key.
     * @param slots     slots of the bitmap index.
     * @param partShift log2 of rows per part.
     * @param a         the measure (or its first factor), or null for row counts only.
     * @param b         the second factor of a product, or null.
     * @param checkKeys whether to check every key against the slots first (an open segment's range comes from zone maps
     *                  of blocks a writer may still widen; a sealed segment's comes from its bitmap index, built from
     *                  the same rows, so the pass is skipped there).
     * @param deadline  the query's, checked every {@link Deadline#CHECK_ROWS} rows.
     * @return the summary, or null when a key lies outside the slots. Callers ask {@link #productSumsFit} first (before
     *     room is made for the build): the entries are plain 128-bit pairs.
     */
    static ValueSummary build(final Segment s, final int rowCount, final Column key, final long keyMin, final int slots,
                              final int partShift, final Column a, final Column b, final boolean checkKeys,
                              final Deadline deadline) {
        final int parts = (int) (((long) rowCount + (1L << partShift) - 1) >>> partShift);
        final ValueSummary v =
            new ValueSummary(keyMin, slots, partShift, Math.max(1, parts), rowCount, a != null, b != null);
        // without a key every row reads as keyMin (slot 1): the loops below are the same for a summary of all rows
        final boolean keyed = key != null;
        final long kb = keyed ? s.columnBase(key.index()) : 0;
        final long ks = keyed ? s.columnStride(key.index()) : 0;
        final int kw = keyed ? key.width() : 0;
        final long knul = keyed ? key.type().nullBits() : keyMin - 1;
        for (int from = 0; checkKeys && keyed && from < rowCount; from += Deadline.CHECK_ROWS) {
            deadline.check();
            final int to = Math.min(rowCount, from + Deadline.CHECK_ROWS);
            for (int r = from; r < to; r++) { // one cheap pass, so that the loops below need no bounds test
                final long k = NativeMemory.getSigned(kb + r * ks, kw);
                if (k != knul && (k < keyMin || k - keyMin >= slots - 1)) {
                    return null;
                }
            }
        }
        final long[] e = v.e;
        if (a == null) {
            for (int from = 0; from < rowCount; from += Deadline.CHECK_ROWS) {
                deadline.check();
                final int to = Math.min(rowCount, from + Deadline.CHECK_ROWS);
                for (int r = from; r < to; r++) {
                    e[v.index(r, keyed ? NativeMemory.getSigned(kb + r * ks, kw) : keyMin, knul)]++;
                }
            }
            return v;
        }
        final long ab = s.columnBase(a.index());
        final long as = s.columnStride(a.index());
        final int aw = a.width();
        final long anul = a.type().nullBits();
        if (b == null) {
            for (int from = 0; from < rowCount; from += Deadline.CHECK_ROWS) {
                deadline.check();
                final int to = Math.min(rowCount, from + Deadline.CHECK_ROWS);
                for (int r = from; r < to; r++) {
                    final int i = v.index(r, keyed ? NativeMemory.getSigned(kb + r * ks, kw) : keyMin, knul);
                    e[i + ROWS]++;
                    final long x = NativeMemory.getSigned(ab + r * as, aw);
                    if (x != anul) {
                        e[i + PRESENT]++;
                        add(e, i + SUM_HI, x >> 63, x);
                        e[i + MIN_OR_HI] = Math.min(e[i + MIN_OR_HI], x);
                        e[i + MAX_OR_LO] = Math.max(e[i + MAX_OR_LO], x);
                    }
                }
            }
            return v;
        }
        final long bb = s.columnBase(b.index());
        final long bs = s.columnStride(b.index());
        final int bw = b.width();
        final long bnul = b.type().nullBits();
        for (int from = 0; from < rowCount; from += Deadline.CHECK_ROWS) {
            deadline.check();
            final int to = Math.min(rowCount, from + Deadline.CHECK_ROWS);
            for (int r = from; r < to; r++) {
                final int i = v.index(r, keyed ? NativeMemory.getSigned(kb + r * ks, kw) : keyMin, knul);
                e[i + ROWS]++;
                final long x = NativeMemory.getSigned(ab + r * as, aw);
                final long y = NativeMemory.getSigned(bb + r * bs, bw);
                if (x != anul && y != bnul) {
                    e[i + PRESENT]++;
                    add(e, i + SUM_HI, Math.multiplyHigh(x, y), x * y);
                    add(e, i + MIN_OR_HI, y >> 63, y);
                }
            }
        }
        return v;
    }

    /**
     * @param values raw key values (an eq/in leaf's, sorted).
     * @param keyMin the value of slot 1.
     * @param slots  slots of the bitmap index (slot 0 holds nulls).
     * @return the slots of the values inside the index's range, each once.
     */
    static int[] slotsOf(final long[] values, final long keyMin, final int slots) {
        final int[] chosen = new int[values.length];
        int n = 0;
        for (int j = 0; j < values.length; j++) {
            final long k = values[j] - keyMin;
            // sorted: a repeated value counts once
            if (k >= 0 && k < slots - 1 && (j == 0 || values[j] != values[j - 1])) {
                chosen[n++] = (int) k + 1;
            }
        }
        return Arrays.copyOf(chosen, n);
    }

    /** @return the first long of the entry of a row's part and key. */
    private int index(final int row, final long key, final long keyNull) {
        final int slot = key == keyNull ? 0 : (int) (key - keyMin) + 1;
        return ((row >>> partShift) * slots + slot) * stride;
    }

    /**
     * Whether every sum of a product a*b over the segment's rows stays below 2^125 in magnitude by its zone maps: a
     * summary's entries, and the parts a query adds up from them, are plain 128-bit pairs (the query's own accumulators
     * count wraps past 2^128; these do not). Far beyond any trade's notional: a product of two 64-bit values passes
     * 2^127 after three rows of the largest ones, and the query then scans instead.
     *
     * @return true as well without a product, or for an f64 factor (summed in doubles).
     */
    static boolean productSumsFit(final Segment s, final int rowCount, final Column a, final Column b) {
        if (a == null || b == null || a.type() == ColumnType.F64 || b.type() == ColumnType.F64) {
            return true;
        }
        return maxAbs(s, a) * maxAbs(s, b) * rowCount < 0x1p125;
    }

    /** @return the largest magnitude of a present value of a column in a segment (its zone map), 0 when none. */
    private static double maxAbs(final Segment s, final Column c) {
        final long min = s.zoneMin(-1, c.index());
        final long max = s.zoneMax(-1, c.index());
        return min > max ? 0 : Math.max(Math.abs((double) min), Math.abs((double) max));
    }

    /** Adds (h, l) to the 128-bit value at e[hi], e[hi + 1] (no wrap can happen: {@link #productSumsFit}). */
    static void add(final long[] e, final int hi, final long h, final long l) {
        final long s = e[hi + 1] + l;
        e[hi] += h + (Long.compareUnsigned(s, l) < 0 ? 1 : 0);
        e[hi + 1] = s;
    }

    /**
     * @param values raw key values (an eq/in leaf's, sorted), each counted once.
     * @return the summary of the rows holding one of them.
     */
    Summary view(final long[] values) {
        final int[] slotsOf = slotsOf(values, keyMin, slots);
        final boolean measured = stride > 1;
        return new Summary() {
            @Override
            public int partShift() {
                return partShift;
            }

            @Override
            public int parts() {
                return parts;
            }

            @Override
            public int coarseShift() {
                return coarseShift;
            }

            @Override
            public void read(final int part, final SummaryPart out) {
                entries(e, part, part < parts, out);
            }

            @Override
            public void readCoarse(final int part, final SummaryPart out) {
                final long[] level = coarse == null ? e : coarse;
                entries(level, part, part < level.length / (slots * stride), out);
            }

            /** Reads the chosen slots' entries of one part of {@code entries} (fine or coarse) into out. */
            private void entries(final long[] entries, final int part, final boolean covered, final SummaryPart out) {
                out.clear();
                if (!covered) {
                    return;
                }
                final int base = part * slots;
                for (final int slot : slotsOf) {
                    final int i = (base + slot) * stride;
                    if (!measured) {
                        out.addCounts(entries[i], 0);
                        continue;
                    }
                    out.addCounts(entries[i + ROWS], entries[i + PRESENT]);
                    out.addSum(entries[i + SUM_HI], entries[i + SUM_LO]);
                    if (product) {
                        out.addSecondSum(entries[i + MIN_OR_HI], entries[i + MAX_OR_LO]);
                    } else {
                        out.addRange(entries[i + MIN_OR_HI], entries[i + MAX_OR_LO]);
                    }
                }
            }
        };
    }
}
