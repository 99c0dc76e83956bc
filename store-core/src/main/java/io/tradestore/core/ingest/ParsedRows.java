package io.tradestore.core.ingest;

import io.tradestore.core.TableWriter;
import io.tradestore.core.dict.SymbolDictionaryDescriptor;
import io.tradestore.core.memory.NativeMemory;
import io.tradestore.core.schema.Column;
import io.tradestore.core.schema.PartitionBy;
import io.tradestore.core.schema.Schema;

/**
 * One table's rows of a line protocol request, parsed without the table's writer: column by column in native memory
 * at the columns' widths, symbols as request-local codes ({@link LocalSymbols}, as the CSV loader's chunks keep them).
 * Requests for one table are parsed on as many threads as there are, and only {@link #appendTo} (interning the
 * symbols, copying whole columns into the segments) runs under the table's writer. Freed by {@link #close()}.
 */
public final class ParsedRows implements AutoCloseable {
    private static final int INITIAL_ROWS = 256;
    private final Schema schema;
    private final NativeColumns memory;
    /** The columns' native addresses (the same array as {@link #memory}'s). */
    private final long[] columns;
    private final int[] widths;
    /** Per symbol column, its local codes; null for other columns. */
    private final LocalSymbols[] symbols;
    /** Native room for one symbol's bytes, which {@link LocalSymbols} reads in words of 8. */
    private final long symbolScratch;
    private int rows;

    /** @param schema the table's schema (or the one inferred for a table the request creates). */
    public ParsedRows(final Schema schema) {
        this.schema = schema;
        this.symbols = LocalSymbols.perColumn(schema);
        this.memory = new NativeColumns(schema, INITIAL_ROWS);
        this.columns = memory.columns;
        this.widths = memory.widths;
        fillNulls(0, INITIAL_ROWS);
        this.symbolScratch = NativeMemory.allocate(SymbolDictionaryDescriptor.MAX_SYMBOL_LENGTH + 8);
    }

    /** @return a new row of null values (rows are null-filled when their room is made, not one by one). */
    public long append() {
        if (rows == memory.capacity()) {
            memory.grow(rows);
            fillNulls(rows, memory.capacity());
        }
        return rows++;
    }

    private void fillNulls(final int from, final int to) {
        for (final Column c : schema.columns()) {
            final int w = widths[c.index()];
            NativeMemory.fillPattern(columns[c.index()] + (long) from * w, to - from, w, w, c.type().nullBits());
        }
    }

    /** @param row a row. @param column a column. @return where its value is. */
    public long address(final long row, final int column) {
        return columns[column] + row * widths[column];
    }

    /**
     * Returns the request-local code of a symbol, adding it if new.
     *
     * @param column a symbol column.
     * @param b      the bytes.
     * @param start  the first byte.
     * @param length byte count, at most {@link SymbolDictionaryDescriptor#MAX_SYMBOL_LENGTH}.
     * @return the local code.
     */
    public int symbol(final int column, final byte[] b, final int start, final int length) {
        NativeMemory.copy(b, start, symbolScratch, length);
        return symbols[column].intern(symbolScratch, length, SymbolDictionaryDescriptor.MAX_SYMBOL_LENGTH + 8);
    }

    /** @param column a symbol column. @return distinct symbols of the column so far. */
    public int symbolCount(final int column) {
        return symbols[column].size();
    }

    /**
     * Appends the rows to the table: interns the request's symbols into the table's dictionaries in their order of
     * first appearance, then copies runs of rows of one period (see {@link TableWriter#partition}) column by column
     * into reserved rows. The caller commits or rolls back.
     *
     * @param w the table's writer, of a table with this schema's columns.
     */
    public void appendTo(final TableWriter w) {
        final int shift = schema.segmentShift();
        final long mask = schema.segmentRows() - 1L;
        final PartitionBy by = w.schema().partitionBy();
        // write(2) into the segment files where the OS has it, as the CSV loader does (TableWriter#columnWrites: why)
        final boolean columnWrites = w.columnWrites(true);
        try {
            remapSymbols(w);
            if (by != PartitionBy.NONE) {
                groupByPeriod(by);
            }
            int done = 0;
            while (done < rows) {
                final int want = by == PartitionBy.NONE ? rows - done
                    : NativeColumns.periodRun(w, columns[schema.timestampIndex()] + 8L * done, rows - done);
                final long first = w.pendingRows();
                final int n = w.reserve(want);
                final int segment = (int) (first >>> shift);
                final int inSegment = (int) (first & mask);
                for (int c = 0; c < columns.length; c++) {
                    final long src = columns[c] + (long) done * widths[c];
                    if (columnWrites) {
                        w.writeColumn(segment, c, inSegment, src, n);
                    } else {
                        NativeColumns.copy(src, w.columnAddress(segment, c) + (long) inSegment * w.columnStride(c),
                            widths[c], w.columnStride(c), n);
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
     * Interns each symbol column's local codes into the table's dictionary, in order of first appearance, and replaces
     * them in place by the table's codes.
     */
    private void remapSymbols(final TableWriter w) {
        for (int c = 0; c < columns.length; c++) {
            final LocalSymbols s = symbols[c];
            if (s == null) {
                continue;
            }
            final int[] map = new int[s.size()];
            for (int local = 0; local < map.length; local++) {
                map[local] = w.dictionary(c).intern(s.arena(), s.offset(local), s.length(local));
            }
            for (long a = columns[c], end = a + 4L * rows; a < end; a += 4) {
                final int local = NativeMemory.getInt(a);
                if (local >= 0) {
                    NativeMemory.putInt(a, map[local]);
                }
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

    @Override
    public void close() {
        if (memory.capacity() > 0) {
            memory.close();
            NativeMemory.free(symbolScratch, SymbolDictionaryDescriptor.MAX_SYMBOL_LENGTH + 8);
        }
    }
}
