package io.tradestore.core.segment;

import io.tradestore.core.memory.NativeMemory;
import io.tradestore.core.schema.Column;
import io.tradestore.core.schema.Layout;
import io.tradestore.core.schema.Schema;

/**
 * A writer's staging area: room for a few thousand rows laid out like a segment's data files (one run of values per
 * column in the COLUMN layout, records in the ROW layout), small enough to stay in the L2 cache. A row-by-row writer
 * fills it through its flyweights, then {@link Segment#writeStaged} copies the rows into the segment files with
 * write(2) and widens the zone maps from the values while they are still in cache. Owns one accounted native
 * allocation, freed once by {@link #close()}.
 *
 * <pre>
 *   COLUMN: | col 0: rows x width0 | col 1: rows x width1 | ... |     ROW: | record 0 | record 1 | ... |
 *   staged row k of column c is at columnBase(c) + k * stride(c)
 * </pre>
 */
public final class StagingArea implements AutoCloseable {
    private final Schema schema;
    private final int rows;
    private final long length;
    private final long[] fileBase;
    private final int[] fileRowLength;
    private final long[] columnBase;
    private final int[] columnStride;
    /** ROW layout: the null record, written in one sequential pass (empty for COLUMN). */
    private final long[] nullRecord;
    private long address;

    /**
     * Allocates a zeroed staging area.
     *
     * @param schema the table's schema.
     * @param rows   rows it holds (at least 1).
     */
    public StagingArea(final Schema schema, final int rows) {
        if (rows < 1) {
            throw new IllegalArgumentException("rows=" + rows + " must be at least 1");
        }
        this.schema = schema;
        this.rows = rows;
        final boolean rowLayout = schema.layout() == Layout.ROW;
        final int files = rowLayout ? 1 : schema.columnCount();
        this.fileBase = new long[files];
        this.fileRowLength = new int[files];
        this.columnBase = new long[schema.columnCount()];
        this.columnStride = new int[schema.columnCount()];
        this.nullRecord = Segment.nullRecord(schema);
        long bytes = 0;
        for (int i = 0; i < files; i++) {
            fileRowLength[i] = rowLayout ? schema.rowLength() : schema.column(i).width();
            bytes += (long) rows * fileRowLength[i];
        }
        this.length = bytes;
        this.address = NativeMemory.allocate(bytes);
        long at = address;
        for (int i = 0; i < files; i++) {
            fileBase[i] = at;
            at += (long) rows * fileRowLength[i];
        }
        for (final Column c : schema.columns()) {
            columnBase[c.index()] = fileBase[rowLayout ? 0 : c.index()] + SegmentDescriptor.offset(schema, c);
            columnStride[c.index()] = SegmentDescriptor.stride(schema, c);
        }
    }

    /** @return rows the area holds. */
    public int rows() {
        return rows;
    }

    /** @param column column index (unchecked). @param row staged row (unchecked). @return the address of its value. */
    public long address(final int column, final int row) {
        return columnBase[column] + (long) row * columnStride[column];
    }

    /** @param file data file index (unchecked). @return the address of staged row 0 of that file's bytes. */
    long fileBase(final int file) {
        return fileBase[file];
    }

    /** @param file data file index (unchecked). @return bytes per row in that file. */
    int fileRowLength(final int file) {
        return fileRowLength[file];
    }

    /**
     * Writes null sentinels into staged rows {@code [from, to)} of every column.
     *
     * @param from first staged row.
     * @param to   end row (exclusive), at most {@link #rows()}.
     */
    public void fillNulls(final int from, final int to) {
        if (from < 0 || to > rows || from > to) {
            throw new IndexOutOfBoundsException("from=" + from + " to=" + to + " rows=" + rows);
        }
        Segment.fillNulls(schema, fileBase[0], nullRecord, columnBase, columnStride, from, to);
    }

    /** Frees the memory; idempotent. */
    @Override
    public void close() {
        if (address != 0) {
            NativeMemory.free(address, length);
            address = 0;
        }
    }
}
