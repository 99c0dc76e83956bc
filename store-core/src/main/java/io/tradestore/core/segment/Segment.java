package io.tradestore.core.segment;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BooleanSupplier;

import io.tradestore.core.Bounds;
import io.tradestore.core.StoreException;
import io.tradestore.core.memory.FileAllocator;
import io.tradestore.core.memory.MappedFile;
import io.tradestore.core.memory.NativeMemory;
import io.tradestore.core.schema.Column;
import io.tradestore.core.schema.ColumnType;
import io.tradestore.core.schema.Layout;
import io.tradestore.core.schema.Schema;

/**
 * One mapped segment: each column as (base address, stride), plus the zone map. Created at full size (blocks
 * reserved), mapped once, unmapped once on {@link #close()}. A writer's segment is prepared in chunks of
 * {@link #PREFAULT_CHUNK_ROWS} rows ({@link SegmentChunks}).
 */
public final class Segment implements AutoCloseable {
    /**
     * Rows per pre-fault chunk (at least a zone-map block, at most a segment): 65,536 trades are 3.2 MB of pages in
     * eight files, few enough madvise calls to be free and small enough that the writer, when it catches up with its
     * background thread, takes the next chunk itself instead of writing into pages that are not faulted in yet.
     */
    public static final int PREFAULT_CHUNK_ROWS = 1 << 16;

    private final Schema schema;
    private final int index;
    private final Path directory;
    private final MappedFile[] files;
    private final MappedFile zone;
    private final long[] columnBase;
    private final int[] columnStride;
    private final int columnCount;
    private final long zoneBase;
    private final boolean writable;
    private final long[] nullRecord;
    private final SegmentChunks chunks;
    private boolean closed;
    /** Whether the zone map carries checksums (format 2 on; format 1 files are read without). */
    private final boolean checksummed;
    /** What this segment's zone map has been verified against so far; null for a format 1 zone map. */
    private final ZoneMapVerifier verifier;

    private Segment(final Schema schema, final int index, final Path directory, final MappedFile[] files,
        final MappedFile zone,
                    final int zoneVersion) {
        this.schema = schema;
        this.index = index;
        this.directory = directory;
        this.files = files;
        this.zone = zone;
        this.columnCount = schema.columnCount();
        this.columnBase = new long[columnCount];
        this.columnStride = new int[columnCount];
        for (final Column c : schema.columns()) {
            final MappedFile f = schema.layout() == Layout.ROW ? files[0] : files[c.index()];
            columnBase[c.index()] = f.address() + SegmentDescriptor.offset(schema, c);
            columnStride[c.index()] = SegmentDescriptor.stride(schema, c);
        }
        this.zoneBase = zone.address();
        this.writable = zone.writable();
        this.nullRecord = nullRecord(schema);
        this.chunks = new SegmentChunks(Math.min(schema.segmentRows(), Math.max(schema.blockRows(),
            PREFAULT_CHUNK_ROWS)), schema.segmentRows(), writable);
        this.checksummed = zoneVersion >= ZoneMapDescriptor.CHECKSUM_VERSION;
        this.verifier = checksummed ? new ZoneMapVerifier(schema, index, zone) : null;
    }

    /**
     * Creates a segment's files at full size and maps them read-write. Rows are not null-filled here: a row's bytes
     * are defined when the writer appends it ({@code appendRow} nulls it, bulk writers write every column), so a
     * bulk load does not write every byte twice. Pages are not faulted in here either ({@link #prepareChunks} and
     * {@link #claimChunk} do that in chunks, overlapped with the writer). An existing segment directory (left by a
     * crash before its first commit) is reused; its uncommitted bytes are never visible.
     *
     * @param schema    the schema.
     * @param tableDir  the table directory.
     * @param index     the segment index.
     * @param allocator block reservation.
     * @return the mapped segment.
     */
    public static Segment create(final Schema schema, final Path tableDir, final int index,
        final FileAllocator allocator) {
        final Path dir = SegmentDescriptor.directory(tableDir, index);
        try {
            Files.createDirectories(dir);
        } catch (final IOException e) {
            throw new StoreException("cannot create segment directory " + dir + ": " + StoreException.reason(e), e);
        }
        final List<MappedFile> opened = new ArrayList<>();
        try {
            final MappedFile[] files = new MappedFile[dataFileCount(schema)];
            for (int i = 0; i < files.length; i++) {
                files[i] = MappedFile.create(dir.resolve(SegmentDescriptor.fileName(schema, schema.column(i))),
                    dataFileLength(schema, i), allocator);
                opened.add(files[i]);
            }
            final MappedFile zone = MappedFile.create(dir.resolve(ZoneMapDescriptor.FILE_NAME),
                ZoneMapDescriptor.fileLength(schema.columnCount(), schema.blocksPerSegment()), allocator);
            opened.add(zone);
            final Segment s = new Segment(schema, index, dir, files, zone, ZoneMapDescriptor.FORMAT_VERSION);
            NativeMemory.putInt(zone.address() + ZoneMapDescriptor.FORMAT_VERSION_OFFSET,
                ZoneMapDescriptor.FORMAT_VERSION);
            NativeMemory.putInt(zone.address() + ZoneMapDescriptor.COLUMN_COUNT_OFFSET, schema.columnCount());
            NativeMemory.putInt(zone.address() + ZoneMapDescriptor.BLOCK_COUNT_OFFSET, schema.blocksPerSegment());
            s.resetZones(0);
            return s;
        } catch (final RuntimeException e) {
            for (final MappedFile f : opened) {
                f.close();
            }
            throw e;
        }
    }

    /**
     * Maps an existing segment.
     *
     * @param schema   the schema.
     * @param tableDir the table directory.
     * @param index    the segment index.
     * @param writable whether to map read-write.
     * @return the mapped segment.
     */
    public static Segment open(final Schema schema, final Path tableDir, final int index, final boolean writable) {
        final Path dir = SegmentDescriptor.directory(tableDir, index);
        if (!Files.isDirectory(dir)) {
            throw new StoreException("missing segment directory " + dir + "; the table is damaged");
        }
        final List<MappedFile> opened = new ArrayList<>();
        try {
            final MappedFile[] files = new MappedFile[dataFileCount(schema)];
            for (int i = 0; i < files.length; i++) {
                files[i] = MappedFile.open(dir.resolve(SegmentDescriptor.fileName(schema, schema.column(i))),
                    dataFileLength(schema, i), writable);
                opened.add(files[i]);
            }
            final Path zonePath = dir.resolve(ZoneMapDescriptor.FILE_NAME);
            final int version = zoneVersion(zonePath, schema);
            final MappedFile zone = MappedFile.open(zonePath,
                ZoneMapDescriptor.fileLength(version, schema.columnCount(), schema.blocksPerSegment()), writable);
            opened.add(zone);
            return new Segment(schema, index, dir, files, zone, version);
        } catch (final RuntimeException e) {
            for (final MappedFile f : opened) {
                f.close();
            }
            throw e;
        }
    }

    /**
     * Reads a zone map's header (the file's length depends on its version) and checks it against the schema.
     *
     * @return the format version.
     */
    private static int zoneVersion(final Path zonePath, final Schema schema) {
        final int version;
        final int cols;
        final int blocks;
        try (MappedFile header = MappedFile.open(zonePath, ZoneMapDescriptor.ENTRIES_OFFSET, false)) {
            version = NativeMemory.getInt(header.address() + ZoneMapDescriptor.FORMAT_VERSION_OFFSET);
            cols = NativeMemory.getInt(header.address() + ZoneMapDescriptor.COLUMN_COUNT_OFFSET);
            blocks = NativeMemory.getInt(header.address() + ZoneMapDescriptor.BLOCK_COUNT_OFFSET);
        }
        if (version > ZoneMapDescriptor.FORMAT_VERSION) {
            throw new StoreException("zone map " + zonePath + " has format version " + version
                + ", newer than this tradestore supports; upgrade tradestore");
        }
        if (version < 1 || cols != schema.columnCount() || blocks != schema.blocksPerSegment()) {
            throw new StoreException("corrupted zone map " + zonePath + ": formatVersion=" + version + " columnCount="
                + cols
                + " blockCount=" + blocks);
        }
        return version;
    }

    /** @return data files per segment: one in the ROW layout, one per column in the COLUMN layout. */
    private static int dataFileCount(final Schema schema) {
        return schema.layout() == Layout.ROW ? 1 : schema.columnCount();
    }

    /** @return the full, preallocated length of data file {@code i}. */
    private static long dataFileLength(final Schema schema, final int i) {
        return rowBytes(schema, i) * schema.segmentRows();
    }

    /** @return bytes a row takes in data file {@code i}: the record in the ROW layout, column i's value in COLUMN. */
    private static long rowBytes(final Schema schema, final int i) {
        return schema.layout() == Layout.ROW ? schema.rowLength() : schema.column(i).width();
    }

    /** @return the segment index. */
    public int index() {
        return index;
    }

    /** @return the segment directory (bitmap indexes live beside the data). */
    public Path directory() {
        return directory;
    }

    /**
     * @return the rows this segment holds once commits have moved past it: all of them unless its writer ended it early
     *     ({@link #endAt}); meaningless for the last segment a table has committed rows in (see {@link
     *     ZoneMapDescriptor}).
     */
    public int sealedRows() {
        if (closed) {
            throw new StoreException("segment " + directory + " is closed (its reader or writer was closed)");
        }
        final int n = NativeMemory.getInt(zoneBase + ZoneMapDescriptor.ENDED_ROWS_OFFSET);
        return n > 0 && n < schema.segmentRows() ? n : schema.segmentRows();
    }

    /**
     * @param committed the table's committed rows counted from this segment's first row.
     * @return the rows of them this segment holds: {@link #sealedRows()} once commits have moved past it, else all.
     */
    public int rowsHeld(final long committed) {
        return committed >= schema.segmentRows() ? sealedRows() : (int) committed;
    }

    /**
     * Writer side: ends this segment after its first {@code rows} rows (a partitioned table's next row belongs to
     * another period) and gives back the disk blocks of the rows after them, which are never written or read.
     *
     * @param rows rows the segment keeps, 1 to segmentRows - 1.
     * @param sync whether to force the record to disk now (SYNC durability).
     */
    public void endAt(final int rows, final boolean sync) {
        checkWritableRange(rows, rows);
        if (rows < 1 || rows >= schema.segmentRows()) {
            throw new IndexOutOfBoundsException("rows=" + rows + " segmentRows=" + schema.segmentRows());
        }
        chunks.takeFrom(rows); // the background thread must not fault in or null-fill pages about to be given back
        NativeMemory.putInt(zoneBase + ZoneMapDescriptor.ENDED_ROWS_OFFSET, rows);
        if (sync) {
            zone.sync(0, ZoneMapDescriptor.ENTRIES_OFFSET);
        }
        for (int i = 0; i < files.length; i++) {
            files[i].punchFrom(rows * rowBytes(schema, i));
        }
    }

    /** Writer side: forgets an early end no commit moved past (a rollback, or a crash left it); see {@link #endAt}. */
    public void clearEnd() {
        checkWritableRange(0, 0);
        final int rows = NativeMemory.getInt(zoneBase + ZoneMapDescriptor.ENDED_ROWS_OFFSET);
        if (rows == 0) {
            return;
        }
        NativeMemory.putInt(zoneBase + ZoneMapDescriptor.ENDED_ROWS_OFFSET, 0);
        if (rows < 0 || rows >= schema.segmentRows()) {
            return;
        }
        // the rows after the end will be written after all: their blocks, given back by endAt, are reserved again
        for (int i = 0; i < files.length; i++) {
            files[i].reserveFrom(rows * rowBytes(schema, i));
        }
    }

    /** @param column column index (unchecked). @return address of the column's value in row 0 of this segment. */
    public long columnBase(final int column) {
        return columnBase[column];
    }

    /** @param column column index (unchecked). @return bytes between consecutive values of the column. */
    public int columnStride(final int column) {
        return columnStride[column];
    }

    /**
     * Background side: see {@link SegmentChunks#prepare}; does nothing on a read-only (reader's) segment.
     *
     * @param nullFill whether the writer hands out null rows (appendRow), asked per chunk.
     */
    public void prepareChunks(final BooleanSupplier nullFill) {
        if (writable) {
            chunks.prepare(nullFill, this::populateChunk, this::fillNulls);
        }
    }

    /**
     * Writer side, at the first row of a chunk it is about to write: takes the chunk ({@link SegmentChunks#claim}).
     *
     * @param rowInSegment the chunk's first row in this segment (a multiple of {@link #prefaultChunkRows()}).
     * @return whether every row of the chunk holds null sentinels.
     */
    public boolean claimChunk(final int rowInSegment) {
        return writable && chunks.claim(rowInSegment, this::populateChunk);
    }

    /**
     * Hands the chunks below {@code row} (and the one holding it) to the writer without faulting them: a reopened
     * segment's committed rows are already on disk or in the page cache, and its uncommitted tail is nulled by the
     * writer. Call it before the segment is shared with the background thread.
     *
     * @param row rows below this are the writer's.
     */
    public void claimChunksBelow(final int row) {
        chunks.claimBelow(row);
    }

    private void populateChunk(final int c) {
        final long from = (long) c * chunks.chunkRows();
        for (int i = 0; i < files.length; i++) {
            final long width = rowBytes(schema, i);
            files[i].populate(from * width, chunks.chunkRows() * width);
        }
    }

    /**
     * Copies one column's values of rows {@code [rowInSegment, rowInSegment + rows)} from native memory into the
     * column's file with write(2) (see {@link MappedFile#write}) and widens the column's zone maps (its blocks' and the
     * segment's) with them; COLUMN layout only, where the values lie back to back.
     *
     * @param column       column index.
     * @param rowInSegment first row.
     * @param src          native address of {@code rows} values at the column's width.
     * @param rows         how many rows.
     */
    public void writeColumn(final int column, final int rowInSegment, final long src, final int rows) {
        checkWritableRange(rowInSegment, rowInSegment + rows);
        if (schema.layout() != Layout.COLUMN) {
            throw new StoreException("writeColumn needs the COLUMN layout; table '" + schema.name() + "' is " + schema
                .layout());
        }
        final long width = columnStride[column];
        files[column].write(rowInSegment * width, src, rows * width);
        // widen the zone maps from the values just written, while they are in cache (a later pass over the segment
        // would fault its pages into this process only to read them)
        widenZones(schema.column(column), rowInSegment, rowInSegment + rows, src, width);
    }

    /**
     * Widens one column's zone maps (its blocks' and the segment's) with the values of rows {@code [from, to)}, read at
     * {@code address + (row - from) * stride}.
     */
    private void widenZones(final Column c, final int from, final int to, final long address, final long stride) {
        final int blockRows = schema.blockRows();
        int start = from;
        while (start < to) {
            final int block = start / blockRows;
            final int end = Math.min(to, (block + 1) * blockRows);
            final long[] mm = MinMaxScan.minMax(c, address + (start - from) * stride, end - start, stride);
            mergeEntry(block, c, mm[0], mm[1]);
            mergeEntry(-1, c, mm[0], mm[1]);
            start = end;
        }
    }

    /**
     * Copies rows {@code [from, to)} of this segment from a writer's staging area into the data files with write(2)
     * (see {@link MappedFile#write}), one call per file, and widens the zone maps (blocks and segment) with their
     * values, read from the staging area while they are still in cache. Staged row {@code k} is row
     * {@code areaRow0 + k} of this segment.
     *
     * @param area     the staging area (laid out for this segment's schema).
     * @param areaRow0 the segment row of staged row 0.
     * @param from     first row in the segment, at least {@code areaRow0}.
     * @param to       end row (exclusive), at most {@code areaRow0 + area.rows()}.
     */
    public void writeStaged(final StagingArea area, final int areaRow0, final int from, final int to) {
        for (int i = 0; i < files.length; i++) {
            writeStaged(area, areaRow0, from, to, i);
        }
    }

    /**
     * As {@link #writeStaged(StagingArea, int, int, int)} for one data file only (and the zone maps of its columns), so
     * that two threads can share a window's files.
     *
     * @param area     the staging area.
     * @param areaRow0 the segment row of staged row 0.
     * @param from     first row in the segment.
     * @param to       end row (exclusive).
     * @param file     data file index, below {@link #dataFileCount()}.
     */
    public void writeStaged(final StagingArea area, final int areaRow0, final int from, final int to, final int file) {
        checkWritableRange(from, to);
        if (from < areaRow0 || to > areaRow0 + area.rows()) {
            throw new IndexOutOfBoundsException("from=" + from + " to=" + to + " areaRow0=" + areaRow0 + " areaRows="
                + area.rows());
        }
        Bounds.checkIndex("file", file, files.length, "dataFileCount");
        if (to == from) {
            return;
        }
        if (schema.layout() == Layout.COLUMN) {
            writeColumn(file, from, area.address(file, from - areaRow0), to - from); // a file is a column
            return;
        }
        final long len = area.fileRowLength(file);
        files[file].write(from * len, area.fileBase(file) + (from - areaRow0) * len, (to - from) * len);
        for (final Column c : schema.columns()) {
            widenZones(c, from, to, area.address(c.index(), from - areaRow0), columnStride[c.index()]);
        }
    }

    /** @return bytes of this segment's data files faulted in ahead of writes ({@link MappedFile#populate}). */
    public long populatedBytes() {
        return java.util.Arrays.stream(files).mapToLong(MappedFile::populatedBytes).sum();
    }

    /**
     * Finds a file of this segment that is now shorter than its mapping (cut short while mapped, e.g. by {@code
     * truncate}): reading the mapping past the file's end faults, which the JVM reports as an {@link InternalError}
     * naming no file. Asks the file system for the lengths only, so it is safe to call right after such a fault.
     *
     * @return the first such file with its length and its mapping's ({@code .../price.d is 0 bytes, shorter than the
     *     32768 bytes mapped}), or null when every file is still whole.
     */
    public String truncatedFile() {
        for (int i = 0; i <= files.length; i++) {
            final MappedFile f = i < files.length ? files[i] : zone;
            long size;
            try {
                size = Files.size(f.path());
            } catch (final IOException e) {
                size = -1;
            }
            if (size < f.length()) {
                return f.path() + (size < 0 ? " is missing or unreadable" : " is " + size + " bytes")
                    + ", shorter than the " + f.length()
                    + " bytes mapped";
            }
        }
        return null;
    }

    /** @return data files of this segment: one in the ROW layout, one per column in the COLUMN layout. */
    public int dataFileCount() {
        return files.length;
    }

    /** Stops pre-faulting: a {@link #prepareChunks} running in another thread returns after its current chunk. */
    public void stopPrefault() {
        chunks.stop();
    }

    /** @return rows per pre-fault chunk in this segment. */
    public int prefaultChunkRows() {
        return chunks.chunkRows();
    }

    /**
     * Writes null sentinels into rows {@code [from, to)} of every column.
     *
     * @param from first row in the segment.
     * @param to   end row (exclusive).
     */
    public void fillNulls(final int from, final int to) {
        checkWritableRange(from, to);
        if (to <= from) {
            return;
        }
        fillNulls(schema, files[0].address(), nullRecord, columnBase, columnStride, from, to);
    }

    /**
     * Writes null sentinels into rows {@code [from, to)} of rows laid out like a segment's data files, here and in a
     * writer's {@link StagingArea}: in the ROW layout one sequential pass writing the prepared null record (instead of
     * one strided pass per column), in the COLUMN layout one pass per column.
     *
     * @param schema       the schema.
     * @param recordBase   ROW layout: the address of record 0 (unused for COLUMN).
     * @param nullRecord   ROW layout: {@link #nullRecord(Schema)}.
     * @param columnBase   per column, the address of its value in row 0.
     * @param columnStride per column, bytes between rows.
     * @param from         first row.
     * @param to           end row (exclusive).
     */
    static void fillNulls(final Schema schema, final long recordBase, final long[] nullRecord, final long[] columnBase,
                          final int[] columnStride, final int from, final int to) {
        if (schema.layout() == Layout.ROW) {
            fillRecords(recordBase, schema.rowLength(), nullRecord, from, to);
            return;
        }
        for (final Column c : schema.columns()) {
            NativeMemory.fillPattern(columnBase[c.index()] + (long) from * columnStride[c.index()], to - from,
                columnStride[c.index()], c.width(), c.type().nullBits());
        }
    }

    /**
     * Writes {@code record} (whole 8-byte words) into records {@code [from, to)} of {@code rowLength} bytes at {@code
     * base}.
     */
    private static void fillRecords(final long base, final long rowLength, final long[] record, final int from,
        final int to) {
        final int words = record.length;
        for (long a = base + from * rowLength, end = base + to * rowLength; a < end; a += rowLength) {
            for (int w = 0; w < words; w++) {
                NativeMemory.putLong(a + 8L * w, record[w]);
            }
        }
    }

    /** @return a ROW layout's record of null sentinels as 8-byte words (empty for COLUMN). */
    static long[] nullRecord(final Schema schema) {
        if (schema.layout() != Layout.ROW) {
            return new long[0];
        }
        final byte[] record = new byte[schema.rowLength()];
        for (final Column c : schema.columns()) {
            for (int b = 0; b < c.width(); b++) {
                record[c.rowOffset() + b] = (byte) (c.type().nullBits() >>> (8 * b));
            }
        }
        final long[] words = new long[record.length / 8];
        for (int w = 0; w < words.length; w++) {
            for (int b = 7; b >= 0; b--) {
                words[w] = words[w] << 8 | (record[8 * w + b] & 0xFF);
            }
        }
        return words;
    }

    /**
     * Empties the zone map of every block from {@code fromBlock} on and recomputes the segment entry from the blocks
     * before it.
     *
     * @param fromBlock first block to empty.
     */
    public void resetZones(final int fromBlock) {
        checkWritable();
        final int blocks = schema.blocksPerSegment();
        if (fromBlock < 0 || fromBlock > blocks) {
            throw new IndexOutOfBoundsException("fromBlock=" + fromBlock + " blocksPerSegment=" + blocks);
        }
        for (int b = fromBlock; b < blocks; b++) {
            for (final Column c : schema.columns()) {
                setEmpty(b, c);
            }
            seal(b);
        }
        segmentEntryFromBlocks(Math.min(fromBlock, blocks));
    }

    /**
     * Sets the segment entry of every column to the union of blocks {@code [0, blocks)}. Computed in locals and written
     * once, so a concurrent reader never sees it narrower than the committed blocks it covers.
     */
    private void segmentEntryFromBlocks(final int blocks) {
        for (final Column c : schema.columns()) {
            final boolean f64 = c.type() == ColumnType.F64;
            long min = f64 ? Double.doubleToRawLongBits(Double.POSITIVE_INFINITY) : Long.MAX_VALUE;
            long max = f64 ? Double.doubleToRawLongBits(Double.NEGATIVE_INFINITY) : Long.MIN_VALUE;
            for (int b = 0; b < blocks; b++) {
                final long bmin = zoneMin(b, c.index());
                final long bmax = zoneMax(b, c.index());
                if (f64) {
                    min = Double.doubleToRawLongBits(
                        Math.min(Double.longBitsToDouble(min), Double.longBitsToDouble(bmin)));
                    max = Double.doubleToRawLongBits(
                        Math.max(Double.longBitsToDouble(max), Double.longBitsToDouble(bmax)));
                } else {
                    min = Math.min(min, bmin);
                    max = Math.max(max, bmax);
                }
            }
            final long e = zoneBase + ZoneMapDescriptor.entryOffset(columnCount, -1, c.index());
            NativeMemory.putLong(e, min);
            NativeMemory.putLong(e + 8, max);
        }
        seal(-1);
    }

    private void setEmpty(final int block, final Column c) {
        final long e = zoneBase + ZoneMapDescriptor.entryOffset(columnCount, block, c.index());
        if (c.type() == ColumnType.F64) {
            NativeMemory.putLong(e, Double.doubleToRawLongBits(Double.POSITIVE_INFINITY));
            NativeMemory.putLong(e + 8, Double.doubleToRawLongBits(Double.NEGATIVE_INFINITY));
        } else {
            NativeMemory.putLong(e, Long.MAX_VALUE);
            NativeMemory.putLong(e + 8, Long.MIN_VALUE);
        }
    }

    /** Sets a block's entry of one column to the min/max of rows {@code [from, to)}. */
    private void setBlockEntry(final int block, final Column c, final int from, final int to) {
        final long[] mm = minMax(c, from, to);
        final long e = zoneBase + ZoneMapDescriptor.entryOffset(columnCount, block, c.index());
        NativeMemory.putLong(e, mm[0]);
        NativeMemory.putLong(e + 8, mm[1]);
    }

    /**
     * Sets the zone maps of blocks {@code [fromBlock, toBlock)} exactly from their rows before {@code to} (a block's
     * entry is empty when {@code to} is at or before its start), dropping values overwritten since they were widened in
     * (commit), or rows past a reopened commit (reopen), then the segment entry from the blocks, once. Each entry is
     * computed in locals and written once; both stay at least as wide as every committed row they cover (the segment
     * entry keeps its old width until the blocks are done), so a concurrent reader may skip with them at any moment.
     *
     * @param fromBlock the first block.
     * @param toBlock   the end block (exclusive).
     * @param to        end row in the segment (exclusive): the rows whose values count so far.
     */
    public void recomputeBlocks(final int fromBlock, final int toBlock, final int to) {
        final int blockRows = schema.blockRows();
        if (fromBlock < 0 || toBlock > schema.blocksPerSegment() || fromBlock > toBlock) {
            throw new IndexOutOfBoundsException("fromBlock=" + fromBlock + " toBlock=" + toBlock + " blocksPerSegment="
                + schema.blocksPerSegment());
        }
        for (int block = fromBlock; block < toBlock; block++) {
            final int start = block * blockRows;
            final int end = Math.max(start, Math.min(to, start + blockRows));
            checkWritableRange(start, end);
            for (final Column c : schema.columns()) {
                setBlockEntry(block, c, start, end);
            }
            seal(block);
        }
        segmentEntryFromBlocks(schema.blocksPerSegment());
    }

    /**
     * Writes the checksums of the zone-map entries rows {@code [from, to)} fall in: their blocks' and the segment's.
     * The writer calls it at commit, before publishing the rows, for the rows the commit publishes: from then on the
     * entries of every block those rows fill never change (format 1 files get none).
     *
     * @param from first row in the segment.
     * @param to   end row (exclusive).
     */
    public void checksumZones(final int from, final int to) {
        checkWritableRange(from, to);
        if (!checksummed || to <= from) {
            return;
        }
        final int blockRows = schema.blockRows();
        for (int b = from / blockRows, last = (to - 1) / blockRows; b <= last; b++) {
            seal(b);
        }
        seal(-1);
    }

    /** Writes the checksum of one block's entries (-1: the segment's), as they are now. */
    private void seal(final int block) {
        if (checksummed) {
            NativeMemory.putLong(zoneBase
                + ZoneMapDescriptor.checksumOffset(columnCount, schema.blocksPerSegment(), block),
                ZoneMapDescriptor.checksum(zoneBase, columnCount, block));
        }
    }

    /**
     * Verifies the zone-map entries a snapshot holding rows {@code [0, rows)} of this segment relies on (see
     * {@link ZoneMapVerifier}): each block once, when the rows first fill it. Readers call it for every snapshot, a
     * writer once when it opens.
     *
     * @param rows committed rows in this segment.
     * @throws StoreException naming the file and the block when an entry is damaged.
     */
    public void verifyZones(final int rows) {
        if (verifier != null) {
            verifier.verify(rows);
        }
    }

    /**
     * Widens the zone maps of the blocks covering rows {@code [from, to)} to include their values.
     *
     * @param from first row in the segment.
     * @param to   end row (exclusive).
     */
    public void updateZones(final int from, final int to) {
        checkWritableRange(from, to);
        for (final Column c : schema.columns()) {
            widenZones(c, from, to, columnBase[c.index()] + (long) from * columnStride[c.index()],
                columnStride[c.index()]);
        }
    }

    private void mergeEntry(final int block, final Column c, final long min, final long max) {
        final long e = zoneBase + ZoneMapDescriptor.entryOffset(columnCount, block, c.index());
        if (c.type() == ColumnType.F64) {
            final double oldMin = Double.longBitsToDouble(NativeMemory.getLong(e));
            final double oldMax = Double.longBitsToDouble(NativeMemory.getLong(e + 8));
            NativeMemory.putLong(e, Double.doubleToRawLongBits(Math.min(oldMin, Double.longBitsToDouble(min))));
            NativeMemory.putLong(e + 8, Double.doubleToRawLongBits(Math.max(oldMax, Double.longBitsToDouble(max))));
        } else {
            NativeMemory.putLong(e, Math.min(NativeMemory.getLong(e), min));
            NativeMemory.putLong(e + 8, Math.max(NativeMemory.getLong(e + 8), max));
        }
    }

    /**
     * Computes min and max of one column over rows {@code [from, to)}, skipping nulls.
     *
     * @param c    the column.
     * @param from first row.
     * @param to   end row.
     * @return {min, max}; f64 as raw bits; an empty range when all are null.
     */
    public long[] minMax(final Column c, final int from, final int to) {
        checkRange(from, to);
        if (c.index() < 0 || c.index() >= columnCount || !schema.column(c.index()).equals(c)) {
            throw new StoreException("column '" + c.name() + "' is not a column of table '" + schema.name() + "'");
        }
        final long stride = columnStride[c.index()];
        return MinMaxScan.minMax(c, columnBase[c.index()] + from * stride, to - from, stride);
    }

    /**
     * Zone-map minimum of a column in a block, or the segment with block -1 (f64: raw double bits).
     *
     * @param block  block index or -1.
     * @param column column index.
     * @return the minimum (empty: Long.MAX_VALUE, or +Inf bits for f64).
     */
    public long zoneMin(final int block, final int column) {
        if (Bounds.SHOULD_BOUNDS_CHECK) {
            checkZone(block, column);
        }
        return NativeMemory.getLong(zoneBase + ZoneMapDescriptor.entryOffset(columnCount, block, column));
    }

    /**
     * Zone-map maximum of a column in a block, or the segment with block -1.
     *
     * @param block  block index or -1.
     * @param column column index.
     * @return the maximum.
     */
    public long zoneMax(final int block, final int column) {
        if (Bounds.SHOULD_BOUNDS_CHECK) {
            checkZone(block, column);
        }
        return NativeMemory.getLong(zoneBase + ZoneMapDescriptor.entryOffset(columnCount, block, column) + 8);
    }

    /**
     * Forces rows {@code [from, to)} and the zone map to disk.
     *
     * @param from first row.
     * @param to   end row.
     */
    public void sync(final int from, final int to) {
        checkWritableRange(from, to);
        for (int i = 0; i < files.length; i++) {
            files[i].sync(from * rowBytes(schema, i), (to - from) * rowBytes(schema, i));
        }
        zone.sync(0, zone.length());
    }

    private void checkZone(final int block, final int column) {
        if (closed) {
            throw new StoreException("segment " + directory + " is closed (its reader or writer was closed)");
        }
        if (block < -1 || block >= schema.blocksPerSegment()) {
            throw new IndexOutOfBoundsException("block=" + block + " blocksPerSegment=" + schema.blocksPerSegment());
        }
        Bounds.checkIndex("column", column, columnCount, "columnCount");
    }

    private void checkRange(final int from, final int to) {
        if (from < 0 || to > schema.segmentRows() || from > to) {
            throw new IndexOutOfBoundsException("from=" + from + " to=" + to + " segmentRows=" + schema.segmentRows());
        }
    }

    private void checkWritable() {
        if (closed) {
            throw new StoreException("segment " + directory + " is closed (its reader or writer was closed)");
        }
        if (!writable) {
            throw new StoreException("segment " + directory
                + " is mapped read-only; only the table's writer changes it");
        }
    }

    private void checkWritableRange(final int from, final int to) {
        checkWritable();
        checkRange(from, to);
    }

    /** @return whether the segment was closed (unmapped): what caches keyed by it may forget. */
    public boolean isClosed() {
        return closed;
    }

    @Override
    public void close() {
        closed = true;
        for (final MappedFile f : files) {
            f.close();
        }
        zone.close();
    }
}
