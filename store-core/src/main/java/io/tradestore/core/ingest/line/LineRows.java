package io.tradestore.core.ingest.line;

import io.tradestore.core.TableWriter;
import io.tradestore.core.ingest.NativeColumns;
import io.tradestore.core.memory.NativeMemory;
import io.tradestore.core.schema.Column;
import io.tradestore.core.schema.ColumnType;
import io.tradestore.core.schema.PartitionBy;
import io.tradestore.core.schema.Schema;

/**
 * One table's rows of a request, parsed without the table's writer: column by column in native memory at the
 * columns' widths, symbols as request-local codes. Requests for one table are parsed on as many threads as there are,
 * and only {@link #appendTo} (interning the symbols, copying whole columns into the segments) runs under the table's
 * writer. Freed by {@link #close()}.
 */
final class LineRows implements AutoCloseable {
    private static final int INITIAL_ROWS = 256;
    private final Schema schema;
    private final int[] widths;
    private final long[] nulls;
    private final NativeColumns memory;
    /** The columns' native addresses (the same array as {@link #memory}'s). */
    private final long[] columns;
    /** Per symbol column, its local codes; null for other columns. */
    private final RequestSymbols[] symbols;
    private int rows;

    LineRows(final Schema schema) {
        this.schema = schema;
        final int n = schema.columnCount();
        final int[] w = new int[n];
        this.nulls = new long[n];
        this.symbols = new RequestSymbols[n];
        for (final Column c : schema.columns()) {
            w[c.index()] = c.width();
            nulls[c.index()] = c.type().nullBits();
            if (c.type() == ColumnType.SYMBOL) {
                symbols[c.index()] = new RequestSymbols();
            }
        }
        this.memory = new NativeColumns(w, INITIAL_ROWS);
        this.widths = memory.widths;
        this.columns = memory.columns;
    }

    /** @return rows parsed. */
    int rows() {
        return rows;
    }

    /** @return a new row of null values. */
    long append() {
        if (rows == memory.capacity()) {
            memory.grow(rows);
        }
        final long row = rows++;
        for (int c = 0; c < columns.length; c++) {
            final long a = columns[c] + row * widths[c];
            switch (widths[c]) {
                case 8:
                    NativeMemory.putLong(a, nulls[c]);
                    break;
                case 4:
                    NativeMemory.putInt(a, (int) nulls[c]);
                    break;
                case 2:
                    NativeMemory.putShort(a, (short) nulls[c]);
                    break;
                default:
                    NativeMemory.putByte(a, (byte) nulls[c]);
            }
        }
        return row;
    }

    /** @param row a row. @param column a column. @return where its value is. */
    long address(final long row, final int column) {
        return columns[column] + row * widths[column];
    }

    /** @param column a symbol column. @return its request-local codes. */
    RequestSymbols symbols(final int column) {
        return symbols[column];
    }

    /**
     * Appends the rows to the table: interns the request's symbols into the table's dictionaries in their order of
     * first appearance, then copies runs of rows of one period (see {@link TableWriter#partition}) column by column
     * into reserved rows. The caller commits or rolls back.
     *
     * @param w the table's writer, of a table with this schema's columns.
     */
    void appendTo(final TableWriter w) {
        final int[][] codes = new int[columns.length][];
        for (int c = 0; c < columns.length; c++) {
            final RequestSymbols s = symbols[c];
            if (s != null) {
                codes[c] = new int[s.size()];
                for (int local = 0; local < s.size(); local++) {
                    codes[c][local] = w.dictionary(c).intern(s.arena(), s.offset(local), s.length(local));
                }
            }
        }
        final int shift = schema.segmentShift();
        final long mask = schema.segmentRows() - 1L;
        final boolean partitioned = w.schema().partitionBy() != PartitionBy.NONE;
        // write(2) into the segment files where the OS has it, as the CSV loader does: stores into the mappings would
        // cost every core a TLB shootdown per page at writeback, which queries running meanwhile feel
        final boolean columnWrites = w.columnWrites(true);
        try {
            remapSymbols(codes);
            if (partitioned) {
                groupByPeriod(w.schema().partitionBy());
            }
            int done = 0;
            while (done < rows) {
                int want = rows - done;
                if (partitioned) {
                    final long timestamps = columns[schema.timestampIndex()] + 8L * done;
                    w.partition(NativeMemory.getLong(timestamps));
                    want = w.schema().partitionBy().run(timestamps, want);
                }
                final long first = w.pendingRows();
                final int n = w.reserve(want);
                final int segment = (int) (first >>> shift);
                final int inSegment = (int) (first & mask);
                for (int c = 0; c < columns.length; c++) {
                    final long src = columns[c] + (long) done * widths[c];
                    if (columnWrites) {
                        w.writeColumn(segment, c, inSegment, src, n);
                    } else {
                        copy(src, w.columnAddress(segment, c) + (long) inSegment * w.columnStride(c), widths[c],
                            w.columnStride(c), n);
                    }
                }
                done += n;
                if (!columnWrites && ((first + n) & mask) == 0) {
                    w.releaseColumnAddresses(segment); // every store into the full segment is made
                }
            }
        } finally {
            if (columnWrites) {
                w.columnWrites(false);
            }
        }
    }

    /**
     * Puts each period's rows together, in their order, periods in order of first appearance: a request that
     * interleaves periods then ends the writer's segment once per period, not at every switch (a row's period sets its
     * segment; the order of rows of different periods within one request means nothing more). A null timestamp stays
     * with the row before it.
     */
    private void groupByPeriod(final PartitionBy by) {
        final long ts = columns[schema.timestampIndex()];
        if (rows == 0 || by.run(ts, rows) == rows) {
            return; // one period: the common case, nothing to move
        }
        long[] periods = new long[4];
        int periodCount = 0;
        final int[] group = new int[rows];
        int last = -1;
        for (int r = 0; r < rows; r++) {
            final long t = NativeMemory.getLong(ts + 8L * r);
            if (t == Long.MIN_VALUE && last >= 0) {
                group[r] = last;
                continue;
            }
            final long floor = by.floor(t);
            int g = last >= 0 && periods[last] == floor ? last : -1;
            for (int k = 0; g < 0 && k < periodCount; k++) {
                if (periods[k] == floor) {
                    g = k;
                }
            }
            if (g < 0) {
                if (periodCount == periods.length) {
                    periods = java.util.Arrays.copyOf(periods, periodCount * 2);
                }
                periods[periodCount] = floor;
                g = periodCount++;
            }
            group[r] = g;
            last = g;
        }
        // a stable counting sort by group: start[g] is where group g's rows go
        final int[] start = new int[periodCount + 1];
        for (int r = 0; r < rows; r++) {
            start[group[r] + 1]++;
        }
        for (int g = 0; g < periodCount; g++) {
            start[g + 1] += start[g];
        }
        final int[] to = new int[rows];
        for (int r = 0; r < rows; r++) {
            to[r] = start[group[r]]++;
        }
        for (int c = 0; c < columns.length; c++) {
            final int width = widths[c];
            final long bytes = (long) width * rows;
            final long moved = NativeMemory.allocate(bytes);
            try {
                for (int r = 0; r < rows; r++) {
                    NativeMemory.copy(columns[c] + (long) r * width, moved + (long) to[r] * width, width);
                }
                NativeMemory.copy(moved, columns[c], bytes);
            } finally {
                NativeMemory.free(moved, bytes);
            }
        }
    }

    /** Replaces each symbol column's local codes by the table's codes, in place. */
    private void remapSymbols(final int[][] codes) {
        for (int c = 0; c < columns.length; c++) {
            final int[] map = codes[c];
            if (map != null) {
                for (long a = columns[c], end = a + 4L * rows; a < end; a += 4) {
                    final int local = NativeMemory.getInt(a);
                    if (local >= 0) {
                        NativeMemory.putInt(a, map[local]);
                    }
                }
            }
        }
    }

    private static void copy(final long src, final long dst, final int width, final int stride, final int n) {
        if (stride == width) {
            NativeMemory.copy(src, dst, (long) n * width);
        } else {
            for (int r = 0; r < n; r++) {
                NativeMemory.copy(src + (long) r * width, dst + (long) r * stride, width);
            }
        }
    }

    @Override
    public void close() {
        memory.close();
    }
}
