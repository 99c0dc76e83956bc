package io.tradestore.core.ingest;

import io.tradestore.core.TableWriter;
import io.tradestore.core.memory.NativeMemory;
import io.tradestore.core.schema.Column;
import io.tradestore.core.schema.Schema;

/**
 * Rows parsed ahead of a table's writer (a CSV chunk, a line protocol request), column by column in native memory at
 * the columns' widths, so that they reach the segments by whole-column copies. Grows by doubling; freed exactly once by
 * {@link #close()}. The arrays are the buffer's own: {@link #columns} keeps its identity when it grows (its elements
 * move).
 */
final class NativeColumns implements AutoCloseable {
    /** Bytes per value of each column. */
    final int[] widths;
    /** Native address of each column's row 0. */
    final long[] columns;
    private int capacity;

    /**
     * @param schema      the table's schema: a column per column, at its width.
     * @param initialRows rows room is made for now.
     */
    NativeColumns(final Schema schema, final int initialRows) {
        this.widths = new int[schema.columnCount()];
        for (final Column c : schema.columns()) {
            widths[c.index()] = c.width();
        }
        this.columns = new long[widths.length];
        for (int i = 0; i < columns.length; i++) {
            columns[i] = NativeMemory.allocate((long) this.widths[i] * initialRows);
        }
        this.capacity = initialRows;
    }

    /** @return rows there is room for. */
    int capacity() {
        return capacity;
    }

    /**
     * Doubles the room, keeping the first rows.
     *
     * @param keep rows whose values move along.
     */
    void grow(final int keep) {
        final int bigger = capacity * 2;
        for (int i = 0; i < columns.length; i++) {
            final long a = NativeMemory.allocate((long) widths[i] * bigger);
            NativeMemory.copy(columns[i], a, (long) widths[i] * keep);
            NativeMemory.free(columns[i], (long) widths[i] * capacity);
            columns[i] = a;
        }
        capacity = bigger;
    }

    /**
     * Starts a run of rows of one period on a partitioned table: tells the writer the period of the first row (it ends
     * its open segment when that period is another, see {@link TableWriter#partition}) and measures the run.
     *
     * @param w          the table's writer.
     * @param timestamps native address of the rows' designated timestamps, 8 bytes each.
     * @param count      rows left (at least 1).
     * @return how many of them to reserve next: the rows from the first on in its period.
     */
    static int periodRun(final TableWriter w, final long timestamps, final int count) {
        w.partition(NativeMemory.getLong(timestamps));
        return w.schema().partitionBy().run(timestamps, count);
    }

    /**
     * Copies {@code n} values of {@code width} bytes, back to back at {@code src}, to {@code stride} bytes apart at
     * {@code dst} (a COLUMN segment's column, or a ROW segment's records).
     */
    static void copy(final long src, final long dst, final int width, final int stride, final int n) {
        if (stride == width) {
            NativeMemory.copy(src, dst, (long) n * width);
            return;
        }
        for (int r = 0; r < n; r++) {
            final long s = src + (long) r * width;
            final long d = dst + (long) r * stride;
            switch (width) {
                case 1:
                    NativeMemory.putByte(d, NativeMemory.getByte(s));
                    break;
                case 2:
                    NativeMemory.putShort(d, NativeMemory.getShort(s));
                    break;
                case 4:
                    NativeMemory.putInt(d, NativeMemory.getInt(s));
                    break;
                default:
                    NativeMemory.putLong(d, NativeMemory.getLong(s));
                    break;
            }
        }
    }

    @Override
    public void close() {
        if (capacity == 0) {
            return;
        }
        for (int i = 0; i < columns.length; i++) {
            NativeMemory.free(columns[i], (long) widths[i] * capacity);
            columns[i] = 0;
        }
        capacity = 0;
    }
}
