package io.tradestore.query.index;

import java.util.Arrays;

import io.tradestore.core.memory.NativeMemory;
import io.tradestore.core.schema.Column;
import io.tradestore.core.segment.Segment;
import io.tradestore.query.spi.Buckets;
import io.tradestore.query.spi.Deadline;
import io.tradestore.query.spi.SummaryPart;

/**
 * Aggregates of one measure per indexed value and per minute of a sealed segment whose designated timestamps are in
 * order (the roll-up behind time bars, in the spirit of QuestDB's materialized OHLC views or Druid's roll-ups, but
 * built from the data on first use and never stale: sealed segments never change). For each (value, minute) that has
 * rows: the row count and, over the rows where the measure is present, their count, exact 128-bit sum, min/max (or, for
 * a product, the exact sum of its second factor), and the first and last such row. A query grouped by a time bucket of
 * whole minutes, filtered by an eq/in leaf and a time range, folds a segment's cells instead of gathering its rows
 * (benchmark query 6: ~134,000 rows of one instrument in a day become ~510 cells). Cells of one value are in minute
 * order, laid out by value (CSR): a value's cells are one contiguous run.
 */
public final class BucketSummary extends CachedSummary {
    private static final long MINUTE_NS = Buckets.MINUTE_NS;
    /**
     * Longs per cell: minute, rows, present, sum (hi, lo), min or second sum hi, max or second sum lo, first/last row,
     * the first and last rows' timestamps and values, and a product's second factors in them (kept here: reading them
     * from the columns at fold time would be ~4 cache misses per cell).
     */
    private static final int STRIDE = 14;
    /** Heap bytes per cell. */
    static final long CELL_BYTES = STRIDE * Long.BYTES;
    private static final int MINUTE = 0;
    private static final int ROWS = 1;
    private static final int PRESENT = 2;
    private static final int SUM_HI = 3;
    private static final int SUM_LO = 4;
    private static final int MIN_OR_HI = 5;
    private static final int MAX_OR_LO = 6;
    /** The first present row in the high 32 bits, the last in the low 32 ({@code -1}: none yet). */
    private static final int FIRST_LAST = 7;
    private static final int FIRST_TS = 8;
    private static final int FIRST_VALUE = 9;
    private static final int LAST_TS = 10;
    private static final int LAST_VALUE = 11;
    private static final int FIRST_VALUE_B = 12;
    private static final int LAST_VALUE_B = 13;
    /**
     * What {@link #build} returns when a timestamp is null or out of order: remembered per segment, which never has
     * cells.
     */
    static final BucketSummary OUT_OF_ORDER = new BucketSummary(null, false, 0, 0, new int[1], new long[0], 0);
    private final Column measure;
    private final boolean product;
    private final long keyMin;
    private final int slots;
    /** Cells of slot s: {@code [start[s], start[s + 1])}. */
    private final int[] start;
    private final long[] e;
    /** Cells the segment has where {@link #build} had room for fewer (then this holds none), else 0. */
    private final long cellsNeeded;

    private BucketSummary(final Column measure, final boolean product, final long keyMin, final int slots,
                          final int[] start, final long[] e, final long cellsNeeded) {
        this.measure = measure;
        this.product = product;
        this.keyMin = keyMin;
        this.slots = slots;
        this.start = start;
        this.e = e;
        this.cellsNeeded = cellsNeeded;
    }

    /**
     * @return the cells the segment has when {@link #build} had room for fewer (this summary then holds none), else 0.
     */
    long cellsNeeded() {
        return cellsNeeded;
    }

    @Override
    long bytes() {
        return (long) e.length * Long.BYTES + (long) start.length * Integer.BYTES;
    }

    /**
     * Builds the summary in one pass over the segment.
     *
     * @param s        a sealed segment.
     * @param rowCount its rows (fewer than 2^31).
     * @param ts       the designated timestamp column.
     * @param key      the indexed column; every non-null key lies in the slots (they come from the segment's bitmap
     *                 index).
     * @param keyMin   the value of slot 1 (slot 0 holds nulls), as in the bitmap index.
     * @param slots    slots of the bitmap index.
     * @param a        the measure (or its first factor), or null for row counts only.
     * @param b        the second factor of a product, or null.
     * @param maxCells the most cells to build before giving up (the memory budget).
     * @param deadline the query's, checked every {@link Deadline#CHECK_ROWS} rows.
     * @return the summary, {@link #OUT_OF_ORDER} when a timestamp is null or smaller than the one before it, or, when
     *         the segment has more than {@code maxCells} cells, an empty summary saying how many ({@link #cellsNeeded}:
     *         the pass goes on to its end counting them, so the room it needs can be made).
     */
    static BucketSummary build(final Segment s, final int rowCount, final Column ts, final Column key,
                               final long keyMin, final int slots, final Column a, final Column b, final long maxCells,
                               final Deadline deadline) {
        final long tb = s.columnBase(ts.index());
        final long tst = s.columnStride(ts.index());
        final long kb = s.columnBase(key.index());
        final long ks = s.columnStride(key.index());
        final int kw = key.width();
        final long knul = key.type().nullBits();
        final long ab = a == null ? 0 : s.columnBase(a.index());
        final long as = a == null ? 0 : s.columnStride(a.index());
        final int aw = a == null ? 0 : a.width();
        final long anul = a == null ? 0 : a.type().nullBits();
        final long bb = b == null ? 0 : s.columnBase(b.index());
        final long bs = b == null ? 0 : s.columnStride(b.index());
        final int bw = b == null ? 0 : b.width();
        final long bnul = b == null ? 0 : b.type().nullBits();
        final int[] current = new int[slots];
        Arrays.fill(current, -1);
        final long[] currentMinute = new long[slots];
        long[] e = new long[STRIDE * 1024];
        int[] slotOf = new int[1024];
        int n = 0;
        long previous = Long.MIN_VALUE; // the null sentinel: a null timestamp fails the strict test below
        long over = 0; // cells past maxCells (see below)
        for (int from = 0; from < rowCount; from += Deadline.CHECK_ROWS) {
            deadline.check();
            final int to = Math.min(rowCount, from + Deadline.CHECK_ROWS);
            for (int r = from; r < to; r++) {
                final long t = NativeMemory.getLong(tb + r * tst);
                if (t < previous || t == Long.MIN_VALUE) {
                    return OUT_OF_ORDER;
                }
                previous = t;
                final long minute = Math.floorDiv(t, MINUTE_NS);
                final long k = NativeMemory.getSigned(kb + r * ks, kw);
                final int slot = k == knul ? 0 : (int) (k - keyMin) + 1;
                int c = current[slot];
                if (c < 0 || currentMinute[slot] != minute) {
                    if (n == slotOf.length) {
                        slotOf = Arrays.copyOf(slotOf, n * 2);
                        e = Arrays.copyOf(e, n * 2 * STRIDE);
                    }
                    currentMinute[slot] = minute;
                    if (n == maxCells) {
                        // out of room: the pass goes on counting the cells (so that the room they need can be made next
                        // time), and the rows of the cells it cannot keep go to cell n, never kept
                        over++;
                        current[slot] = n;
                        c = n;
                    } else {
                        c = n++;
                        final int i = c * STRIDE;
                        e[i + MINUTE] = minute;
                        e[i + MIN_OR_HI] = b == null ? Long.MAX_VALUE : 0;
                        e[i + MAX_OR_LO] = b == null ? Long.MIN_VALUE : 0;
                        e[i + FIRST_LAST] = -1;
                        slotOf[c] = slot;
                        current[slot] = c;
                    }
                }
                final int i = c * STRIDE;
                e[i + ROWS]++;
                if (a == null) {
                    continue;
                }
                final long x = NativeMemory.getSigned(ab + r * as, aw);
                if (x == anul) {
                    continue;
                }
                long y = 0;
                if (b != null) {
                    // a product: its sum and its second factor's sum
                    y = NativeMemory.getSigned(bb + r * bs, bw);
                    if (y == bnul) {
                        continue;
                    }
                    e[i + PRESENT]++;
                    ValueSummary.add(e, i + SUM_HI, Math.multiplyHigh(x, y), x * y);
                    ValueSummary.add(e, i + MIN_OR_HI, y >> 63, y);
                } else {
                    e[i + PRESENT]++;
                    ValueSummary.add(e, i + SUM_HI, x >> 63, x);
                    e[i + MIN_OR_HI] = Math.min(e[i + MIN_OR_HI], x);
                    e[i + MAX_OR_LO] = Math.max(e[i + MAX_OR_LO], x);
                }
                present(e, i, r, t, x, y);
            }
        }
        if (over > 0) {
            return new BucketSummary(null, false, 0, 0, new int[1], new long[0], n + over);
        }
        return bySlot(a, b != null, keyMin, slots, e, slotOf, n);
    }

    /** Records row r (timestamp t, values x and y) as cell i's last present row, and as its first if it has none. */
    private static void present(final long[] e, final int i, final int r, final long t, final long x, final long y) {
        final long fl = e[i + FIRST_LAST];
        if (fl == -1) {
            e[i + FIRST_TS] = t;
            e[i + FIRST_VALUE] = x;
            e[i + FIRST_VALUE_B] = y;
        }
        e[i + FIRST_LAST] = (fl == -1 ? (long) r << 32 : fl & 0xFFFF_FFFF_0000_0000L) | r;
        e[i + LAST_TS] = t;
        e[i + LAST_VALUE] = x;
        e[i + LAST_VALUE_B] = y;
    }

    /**
     * Lays the cells out by slot, each slot's cells in the order they were made (minute order): a stable counting
     * sort, done once after the pass over the rows.
     *
     * @param e      the cells, in the order they were made.
     * @param slotOf per cell, its slot.
     * @param n      the cells.
     * @return the summary.
     */
    private static BucketSummary bySlot(final Column a, final boolean product, final long keyMin, final int slots,
                                        final long[] e, final int[] slotOf, final int n) {
        final int[] start = new int[slots + 1];
        for (int c = 0; c < n; c++) {
            start[slotOf[c] + 1]++;
        }
        for (int sl = 0; sl < slots; sl++) {
            start[sl + 1] += start[sl];
        }
        final int[] next = Arrays.copyOf(start, slots);
        final long[] out = new long[n * STRIDE];
        for (int c = 0; c < n; c++) {
            System.arraycopy(e, c * STRIDE, out, next[slotOf[c]]++ * STRIDE, STRIDE);
        }
        return new BucketSummary(a, product, keyMin, slots, start, out, 0);
    }

    /**
     * @param values raw key values (an eq/in leaf's, sorted), each counted once.
     * @return the cells of the rows holding one of them.
     */
    Buckets view(final long[] values) {
        final int[] chosen = ValueSummary.slotsOf(values, keyMin, slots);
        int total = 0;
        for (final int slot : chosen) {
            total += start[slot + 1] - start[slot];
        }
        final int[] cells = new int[total];
        int n = 0;
        for (final int slot : chosen) {
            for (int c = start[slot]; c < start[slot + 1]; c++) {
                cells[n++] = c;
            }
        }
        return new Buckets() {
            @Override
            public int cells() {
                return cells.length;
            }

            @Override
            public long minute(final int cell) {
                return e[cells[cell] * STRIDE + MINUTE];
            }

            @Override
            public void read(final int cell, final SummaryPart out) {
                final int i = cells[cell] * STRIDE;
                out.clear();
                if (measure == null) {
                    out.addCounts(e[i + ROWS], e[i + ROWS]);
                    return;
                }
                out.addCounts(e[i + ROWS], e[i + PRESENT]);
                out.addSum(e[i + SUM_HI], e[i + SUM_LO]);
                if (product) {
                    out.addSecondSum(e[i + MIN_OR_HI], e[i + MAX_OR_LO]);
                } else {
                    out.addRange(e[i + MIN_OR_HI], e[i + MAX_OR_LO]);
                }
                final long fl = e[i + FIRST_LAST];
                if (fl != -1) {
                    out.firstLast(fl >>> 32, e[i + FIRST_TS], e[i + FIRST_VALUE], (int) fl, e[i + LAST_TS],
                        e[i + LAST_VALUE]);
                    out.firstValueB = e[i + FIRST_VALUE_B];
                    out.lastValueB = e[i + LAST_VALUE_B];
                }
            }
        };
    }
}
