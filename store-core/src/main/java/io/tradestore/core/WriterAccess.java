package io.tradestore.core;

import io.tradestore.core.dict.SymbolDictionary;
import io.tradestore.core.schema.Column;
import io.tradestore.core.schema.Schema;
import io.tradestore.core.segment.SegmentDescriptor;

/**
 * A {@link TableWriter}'s rows as a {@link RecordAccess}: where each row's bytes are (the open staging window, the
 * window the stage flusher is copying, or the segment mappings) and what a flyweight positioned there records. The
 * writer's append and commit paths move the state kept here; only the writer's thread reads or writes it.
 */
abstract class WriterAccess implements RecordAccess {
    final Schema schema;
    final int shift;
    final long segmentRows;
    final int[] strides;
    final WriterSegments segments;
    /** Rows in the staging area. */
    final int stageRows;
    final StageWindows windows;
    /** Flyweights bound to this writer, re-pointed when staged rows move, and their scratch row. */
    final AttachedFlyweights attached;
    /** Set once the writer has read its transaction file. */
    WriterDictionaries dictionaries;
    /** Set once the writer knows its committed rows. */
    ZoneWatermark zones;
    long committedRows;
    boolean closed;
    /** The row of staged row 0 (a multiple of stageRows). */
    long stageBase;
    /** Rows from here to pendingRows are held in the staging area only (not yet in the segment files). */
    long stageFrom = Long.MIN_VALUE;
    /** End of the staging window; appendRow takes its slow path from here (always, when not staging). */
    long stageEnd = Long.MIN_VALUE;

    WriterAccess(final Schema schema, final WriterSegments segments) {
        this.schema = schema;
        this.shift = schema.segmentShift();
        this.segmentRows = schema.segmentRows();
        this.strides = new int[schema.columnCount()];
        for (final Column c : schema.columns()) {
            strides[c.index()] = SegmentDescriptor.stride(schema, c);
        }
        this.segments = segments;
        this.stageRows = (int) Math.min(segmentRows, StageWindows.rowsProperty());
        this.windows = new StageWindows(schema, stageRows, segments);
        this.attached = new AttachedFlyweights(this, schema.columnCount());
    }

    /** @return the schema. */
    public Schema schema() {
        return schema;
    }

    /**
     * Returns the writer's dictionary of a symbol column.
     *
     * @param column a symbol column index.
     * @return its dictionary.
     */
    public SymbolDictionary dictionary(final int column) {
        return dictionaries.get(column);
    }

    @Override
    public long columnsHash() {
        return schema.columnsHash();
    }

    @Override
    public int segmentShift() {
        return shift;
    }

    @Override
    public long rowAddress(final long row, final int column) {
        if (row >= stageFrom && row < stageEnd) {
            return windows.stage().address(column, (int) (row - stageBase));
        }
        if (row >= windows.flightFrom() && row < stageFrom) {
            // a row the stage flusher is copying: once it is in the files, its place is the mapping
            windows.awaitFlight();
        }
        if (row >= segments.endRow()) {
            // a flyweight left on a row of a segment deleted since (rollbackAndDeleteSegments): its writes go nowhere
            return attached.detachedAddress(column);
        }
        final int seg = (int) (row >>> shift);
        return segments.get(seg).columnBase(column) + (row - ((long) seg << shift)) * strides[column];
    }

    /**
     * {@inheritDoc} For a mapped row, also records that the run's uncommitted rows whose zone maps were already widened
     * (below the zone watermark) may be written through the mappings from now on: their zone maps are widened from the
     * files again at commit (see {@link ZoneWatermark}). Once per positioning, not once per column address.
     */
    @Override
    public long addressRunEnd(final long row) {
        if (row >= stageFrom && row < stageEnd) {
            return stageEnd;
        }
        if (row >= windows.flightFrom() && row < stageFrom) {
            windows.awaitFlight();
        }
        final long end = mappedRunEnd(row);
        // a committed row's run may reach into uncommitted rows; rows from the watermark on are widened at their block
        // end (mapped path) or are not in the files yet (staging)
        final long zoneRow = zones.row();
        if (row < zoneRow) { // an append positions at or past the watermark: nothing to record, no call per row
            final long widenedEnd = Math.min(end, zoneRow);
            if (widenedEnd > committedRows) {
                zones.mayWrite(Math.max(row, committedRows), widenedEnd);
            }
        }
        return end;
    }

    /** @return the end of the run of mapped rows from {@code row}: a row neither staged nor in flight. */
    private long mappedRunEnd(final long row) {
        if (row >= segments.endRow()) {
            return row + 1; // the scratch row of a deleted segment's row: a run of one, so that no next() steps past it
        }
        // rows from the window in flight (or the open window) on are not read from the mappings
        final long fileEnd = Math.min(windows.flightFrom(), stageFrom);
        final int seg = (int) (row >>> shift);
        final long segEnd = ((long) seg << shift) + segments.get(seg).sealedRows(); // short when ended early
        return row < fileEnd ? Math.min(segEnd, fileEnd) : segEnd;
    }

    @Override
    public long liveRow(final long row) {
        final int seg = (int) (row >>> shift);
        if (row >= segments.endRow() || segments.get(seg) == null) {
            return row;
        }
        final long start = (long) seg << shift;
        return row - start >= segments.get(seg).sealedRows() ? start + segmentRows : row;
    }

    @Override
    public void attach(final Flyweight flyweight) {
        attached.add(flyweight);
    }

    @Override
    public int columnStride(final int column) {
        return strides[column];
    }

    @Override
    public boolean isOpen() {
        return !closed;
    }

    @Override
    public boolean writable() {
        return !closed;
    }

    @Override
    public String symbolValue(final int column, final int code) {
        return code == -1 ? null : dictionary(column).value(code);
    }

    @Override
    public int symbolCode(final int column, final CharSequence value) {
        return value == null ? -1 : dictionary(column).intern(value);
    }

    final void checkOpen() {
        if (closed) {
            throw new StoreException("writer of table '" + schema.name() + "' is closed");
        }
    }
}
