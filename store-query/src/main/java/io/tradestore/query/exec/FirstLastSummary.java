package io.tradestore.query.exec;

import io.tradestore.core.TableSnapshot;
import io.tradestore.core.memory.NativeMemory;
import io.tradestore.core.schema.Column;
import io.tradestore.core.schema.ColumnType;
import io.tradestore.core.segment.Segment;
import io.tradestore.query.exec.kernel.SortedBlocks;
import io.tradestore.query.spi.Summary;
import io.tradestore.query.spi.SummaryPart;

/**
 * Each part's first and last row by time where a column is present, over all rows of a segment: what first/last fold
 * for the whole parts a global aggregate takes from summaries (a time range's inner parts), so that a query mixing
 * them with sums and counts still folds instead of reading every row. Nothing is built or kept: in a block whose
 * timestamps never fall ({@link SortedBlocks}, trade data in arrival order) the first present row from either end is
 * the answer, usually the end row itself; any other block is read whole.
 */
final class FirstLastSummary implements Summary {
    private final Segment segment;
    private final int rows;
    private final int partShift;
    private final int parts;
    private final int blockRows;
    private final int tsColumn;
    private final long tsBase;
    private final long tsStride;
    private final long base;
    private final long stride;
    private final int width;
    private final boolean f64;
    private final long nul;

    /**
     * @param snap      the snapshot.
     * @param si        a segment of it.
     * @param column    the column first/last reads.
     * @param partShift log2 of the rows per part (the other summaries' part size: whole blocks, or finer parts that
     *                  never cross a block).
     */
    FirstLastSummary(final TableSnapshot snap, final int si, final Column column, final int partShift) {
        this.segment = snap.segment(si);
        this.rows = snap.segmentRowCount(si);
        this.partShift = partShift;
        // an open segment's complete parts only: committed rows never change, the rows after them still grow
        this.parts = snap.segmentSealed(si) ? (int) (((long) rows + (1L << partShift) - 1) >>> partShift)
            : rows >>> partShift;
        this.blockRows = snap.schema().blockRows();
        this.tsColumn = snap.schema().timestampIndex();
        this.tsBase = segment.columnBase(tsColumn);
        this.tsStride = segment.columnStride(tsColumn);
        this.base = segment.columnBase(column.index());
        this.stride = segment.columnStride(column.index());
        this.width = column.width();
        this.f64 = column.type() == ColumnType.F64;
        this.nul = column.type().nullBits();
    }

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
        return Math.max(partShift, Integer.numberOfTrailingZeros(blockRows));
    }

    @Override
    public void read(final int part, final SummaryPart out) {
        out.clear();
        if (part < parts) {
            rows(part << partShift, (int) Math.min(rows, ((long) part + 1) << partShift), out);
        }
    }

    @Override
    public void readCoarse(final int part, final SummaryPart out) {
        out.clear();
        final int shift = coarseShift();
        rows(part << shift, (int) Math.min(rows, ((long) part + 1) << shift), out);
    }

    /** Sets out to the first and last present rows of {@code [from, to)}, taken block by block. */
    private void rows(final int from, final int to, final SummaryPart out) {
        out.addCounts(to - from, 0);
        long fr = -1;
        long ft = 0;
        long lr = -1;
        long lt = 0;
        for (int bs = from, be; bs < to; bs = be) {
            be = Math.min(to, (bs / blockRows + 1) * blockRows);
            if (SortedBlocks.sorted(segment, tsColumn, bs / blockRows, blockRows, rows)) {
                // timestamps non-decreasing and never null: the first present row is the block's first by time (ties:
                // the lowest row), the last present row its last (ties: the highest)
                final int f = firstPresent(bs, be);
                if (f >= 0) {
                    final long t = ts(f);
                    if (fr < 0 || t < ft) {
                        fr = f;
                        ft = t;
                    }
                    final int l = lastPresent(bs, be);
                    final long u = ts(l);
                    if (lr < 0 || u >= lt) {
                        lr = l;
                        lt = u;
                    }
                }
                continue;
            }
            for (int r = bs; r < be; r++) {
                final long t = ts(r);
                if (t == Long.MIN_VALUE || isNull(raw(r))) {
                    continue;
                }
                // rows ascend: a tie keeps the earlier row for first and takes the later one for last
                if (fr < 0 || t < ft) {
                    fr = r;
                    ft = t;
                }
                if (lr < 0 || t >= lt) {
                    lr = r;
                    lt = t;
                }
            }
        }
        if (fr >= 0) {
            out.firstLast(fr, ft, raw(fr), lr, lt, raw(lr));
        }
    }

    private int firstPresent(final int from, final int to) {
        for (int r = from; r < to; r++) {
            if (!isNull(raw(r))) {
                return r;
            }
        }
        return -1;
    }

    private int lastPresent(final int from, final int to) {
        for (int r = to - 1; r >= from; r--) {
            if (!isNull(raw(r))) {
                return r;
            }
        }
        return -1;
    }

    private long ts(final long r) {
        return NativeMemory.getLong(tsBase + r * tsStride);
    }

    /** @return the value in row r, widened as a batch's view of the column holds a present one. */
    private long raw(final long r) {
        return NativeMemory.getSigned(base + r * stride, width);
    }

    private boolean isNull(final long v) {
        return f64 ? Double.isNaN(Double.longBitsToDouble(v)) : v == nul;
    }
}
