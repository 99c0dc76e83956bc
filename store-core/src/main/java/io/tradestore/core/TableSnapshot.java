package io.tradestore.core;

import java.util.List;

import io.tradestore.core.dict.SymbolDictionary;
import io.tradestore.core.schema.Column;
import io.tradestore.core.schema.Schema;
import io.tradestore.core.segment.Segment;

/**
 * An immutable view of a table at one commit: rows below {@link #rowCount()} never change, so it can be scanned by
 * many threads without locks. Columns are (base address, stride) per segment; the mappings stay valid until the
 * reader that made the snapshot is closed.
 */
public final class TableSnapshot implements RecordAccess {
    private final Schema schema;
    private final long sequence;
    private final long rowCount;
    private final int firstSegment;
    /** Holders from {@link TableReader#acquire()} not yet released; guarded by the reader. */
    int leases;
    private final Segment[] segments;
    /** Committed rows per segment (fewer than segmentRows in a segment ended early, or the last one). */
    private final int[] segmentRows;
    /** Rows held: rows from {@link #firstRow()} less the unused tails of segments ended early. */
    private final long liveRows;
    private final SymbolDictionary[] dictionaries;
    private final int[] dictionarySizes;
    private final int[] symbolSlot;
    private final int[] strides;
    private final TableReader reader;

    TableSnapshot(final TableReader reader, final Schema schema, final long sequence, final long rowCount,
        final int firstSegment, final List<Segment> segs,
                  final SymbolDictionary[] dictionaries, final int[] dictionarySizes, final int[] symbolSlot,
                  final int[] strides) {
        this.reader = reader;
        this.schema = schema;
        this.sequence = sequence;
        this.rowCount = rowCount;
        this.firstSegment = firstSegment;
        final int n = (int) ((rowCount + schema.segmentRows() - 1) >>> schema.segmentShift());
        this.segments = segs.subList(0, n).toArray(new Segment[0]);
        this.segmentRows = new int[n];
        long live = 0;
        for (int i = firstSegment; i < n; i++) {
            segmentRows[i] = segments[i].rowsHeld(rowCount - ((long) i << schema.segmentShift()));
            live += segmentRows[i];
        }
        this.liveRows = live;
        this.dictionaries = dictionaries;
        this.dictionarySizes = dictionarySizes;
        this.symbolSlot = symbolSlot;
        this.strides = strides;
    }

    /** @return the schema. */
    public Schema schema() {
        return schema;
    }

    /** @return the commit sequence this snapshot shows. */
    public long sequence() {
        return sequence;
    }

    /** @return committed rows. */
    public long rowCount() {
        return rowCount;
    }

    /**
     * @return segments holding committed rows, including those retention dropped: valid segment indexes run from
     *     {@link #firstSegment()} to this, exclusive.
     */
    public int segmentCount() {
        return segments.length;
    }

    /** @return the first segment not dropped by retention (0 when none was). */
    public int firstSegment() {
        return firstSegment;
    }

    /** @return the first row not dropped by retention: rows run from it to {@link #rowCount()}, exclusive. */
    public long firstRow() {
        return (long) firstSegment << schema.segmentShift();
    }

    /** @return rows held: committed rows less those retention dropped and the unused tails of segments ended early. */
    public long liveRows() {
        return liveRows;
    }

    /**
     * Returns a segment (its column addresses, zone maps and directory).
     *
     * @param index segment index.
     * @return the segment.
     */
    public Segment segment(final int index) {
        reader.checkOpen();
        if (Bounds.SHOULD_BOUNDS_CHECK) {
            Bounds.checkIndex("segment", index, segments.length, "segmentCount");
        }
        if (index < firstSegment) {
            throw new IndexOutOfBoundsException("segment " + index + " was dropped by retention; segments of this "
                + "snapshot run from " + firstSegment + " to " + segments.length);
        }
        return segments[index];
    }

    /** @param index segment index. @return committed rows in that segment. */
    public int segmentRowCount(final int index) {
        if (Bounds.SHOULD_BOUNDS_CHECK) {
            Bounds.checkIndex("segment", index, segments.length, "segmentCount");
        }
        return segmentRows[index];
    }

    /**
     * @param index segment index.
     * @return whether the segment is sealed: commits have moved past it (it is full, or its writer ended it early), so
     *     its rows can never change or grow.
     */
    public boolean segmentSealed(final int index) {
        return rowCount - ((long) index << schema.segmentShift()) >= schema.segmentRows();
    }

    /** @param column a symbol column. @return committed dictionary entries. */
    public int dictionarySize(final int column) {
        checkSymbol(column);
        return dictionarySizes[symbolSlot[column]];
    }

    /**
     * Looks up a symbol's code in this snapshot.
     *
     * @param column a symbol column.
     * @param value  the string.
     * @return its code, or -1 when the snapshot does not know it.
     */
    public int findSymbol(final int column, final CharSequence value) {
        checkSymbol(column);
        final int code = dictionaries[symbolSlot[column]].find(value);
        return code < dictionarySizes[symbolSlot[column]] ? code : -1;
    }

    private void checkSymbol(final int column) {
        Bounds.checkIndex("column", column, schema.columnCount(), "columnCount");
        if (symbolSlot[column] < 0) {
            final Column c = schema.column(column);
            throw new StoreException("column '" + c.name() + "' is " + c.typeName() + ", not a symbol");
        }
    }

    @Override
    public long columnsHash() {
        return schema.columnsHash();
    }

    @Override
    public int segmentShift() {
        return schema.segmentShift();
    }

    @Override
    public long rowLimit() {
        reader.checkOpen();
        return rowCount;
    }

    @Override
    public long columnAddress(final int segment, final int column) {
        return segments[segment].columnBase(column);
    }

    @Override
    public long rowAddress(final long row, final int column) {
        final int segment = (int) (row >>> schema.segmentShift());
        return segments[segment].columnBase(column)
            + (row - ((long) segment << schema.segmentShift())) * strides[column];
    }

    @Override
    public long addressRunEnd(final long row) {
        final int segment = (int) (row >>> schema.segmentShift());
        return ((long) segment << schema.segmentShift()) + segmentRows[segment];
    }

    @Override
    public long liveRow(final long row) {
        final int segment = (int) (row >>> schema.segmentShift());
        final long start = (long) segment << schema.segmentShift();
        return segment < segmentRows.length && row - start >= segmentRows[segment] && segmentSealed(segment)
            ? start + schema.segmentRows() : row;
    }

    @Override
    public void attach(final Flyweight flyweight) {
        // a snapshot's rows never move
    }

    @Override
    public int columnStride(final int column) {
        return strides[column];
    }

    @Override
    public boolean isOpen() {
        return reader.isOpen();
    }

    @Override
    public boolean writable() {
        return false;
    }

    @Override
    public String symbolValue(final int column, final int code) {
        if (code == -1) {
            return null;
        }
        checkSymbol(column);
        final int slot = symbolSlot[column];
        if (code < 0 || code >= dictionarySizes[slot]) {
            throw new IndexOutOfBoundsException("code=" + code + " dictionarySize=" + dictionarySizes[slot] + " column="
                + schema.column(column).name());
        }
        return dictionaries[slot].value(code);
    }

    @Override
    public int symbolCode(final int column, final CharSequence value) {
        return value == null ? -1 : findSymbol(column, value);
    }
}
