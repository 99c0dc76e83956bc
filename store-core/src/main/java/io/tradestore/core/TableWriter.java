package io.tradestore.core;

import java.nio.file.Path;

import io.tradestore.core.memory.FileAllocator;
import io.tradestore.core.memory.MappedFile;
import io.tradestore.core.memory.NativeMemory;
import io.tradestore.core.schema.PartitionBy;
import io.tradestore.core.segment.Segment;
import io.tradestore.core.segment.StagingArea;
import io.tradestore.core.txn.TxnFile;
import io.tradestore.core.txn.TxnState;

/**
 * The single writer of a table. Rows are appended (through a flyweight or, for bulk ingest, straight into the column
 * addresses) and become visible to readers only at {@link #commit()}. Holds an OS file lock, so a second writer in any
 * process is refused. Not thread-safe: one thread appends and commits.
 *
 * <p>Row appends ({@link #append}, {@link #appendRow()}) go through a small <b>staging area</b> where write(2) is
 * available (property {@code tradestore.append.staging}, default true): a window of {@value #DEFAULT_STAGE_ROWS} rows
 * laid out like the segment files, copied into them with write(2); {@link StageWindows} says why and when.
 *
 * <p><b>Zone maps</b> are widened once per row where it is cheap (staged values, block ends, {@link #writeColumn},
 * commit); {@link ZoneWatermark} says how a write that comes after a row's widening is caught.
 *
 * <pre>
 *   appendRow()/reserve()     commit()                               rollback() / close() / crash
 *   pendingRows += n   --->   zone maps, [msync], txn slot, fence,    pendingRows = committedRows, tail nulled,
 *                             sequence++ : committedRows = pending    dictionaries cut back
 * </pre>
 */
public final class TableWriter extends WriterAccess implements AutoCloseable {
    /** Rows null-filled at a time ahead of {@link #appendRow()}: 256 trades are 12.5 KB, well inside L1/L2. */
    private static final int NULL_CHUNK_ROWS = 256;
    /**
     * Rows in the staging area by default: 16,384 trades are 784 KB (COLUMN) or 896 KB (ROW), inside this machine's 1
     * MiB L2 (measured against 4,096, 8,192 and 65,536: the least writer and process CPU, see docs/benchmarks.md).
     */
    static final int DEFAULT_STAGE_ROWS = 16_384;
    /** Property that turns the staging area off ({@code false}: row appends store into the mappings). */
    public static final String STAGING_PROPERTY = "tradestore.append.staging";
    /** Property that turns the staging thread on or off (default: on for segments of at least 65,536 rows). */
    public static final String STAGE_THREAD_PROPERTY = "tradestore.append.stageThread";
    /** Property that sets the staging area's rows (a power of two; for measurements). */
    public static final String STAGE_ROWS_PROPERTY = "tradestore.append.stageRows";
    private final Table table;
    private final Path dir;
    private final Durability durability;
    private final WriterLock lock;
    private final TxnFile txn;
    private final int blockMask;
    private final PartitionBy partitionBy;
    /** The designated timestamp's column, or -1. */
    private final int tsColumn;
    /** The period of the open segment's rows, [partStart, partEnd); empty (MAX, MIN) while it has none. */
    private long partStart = Long.MAX_VALUE;
    private long partEnd = Long.MIN_VALUE;
    private TxnState state;
    private long pendingRows;
    /** Rows below this (from committedRows on) hold nulls or the caller's data; appendRow nulls ahead from here. */
    private long nulledRows;
    /** Whether {@link #columnWrites(boolean)} is on (this thread's view). */
    private boolean columnWritesOn;
    /** Whether rows were appended one by one, so that appendRow reads no volatile field to tell the segments once. */
    private boolean rowAppendsSeen;
    /** Whether row appends go through the staging area now (see the class comment). */
    private boolean staging;
    /** Whether a staging window was ever opened: then the background thread never prepares chunks again. */
    private boolean stagedAny;
    /**
     * Whether {@link #columnWrites(boolean)} was ever on: then the background thread never prepares chunks again (a
     * per-batch user would have it fault in segments it never stores into, holding the mmap lock queries map under).
     */
    private boolean columnWritesSeen;
    /** Whether full windows are copied by a second thread ({@link StageFlusher}). */
    private final boolean stageThread;
    /** Told when a commit makes segments wholly committed, or null. */
    private SealListener sealListener;

    TableWriter(final Table table, final Durability durability, final FileAllocator allocator) {
        super(table.schema(), new WriterSegments(table.schema(), table.directory(), allocator));
        this.table = table;
        this.dir = table.directory();
        this.durability = durability;
        this.blockMask = schema.blockRows() - 1;
        this.partitionBy = schema.partitionBy();
        this.tsColumn = schema.timestampIndex();
        this.staging = Boolean.parseBoolean(System.getProperty(STAGING_PROPERTY, "true"))
            && MappedFile.writeAvailable();
        updatePrefault();
        // by default only for segments large enough for background creation: with tiny segments (tests) every window
        // would be a hand-over to another thread and back
        this.stageThread = Boolean.parseBoolean(
            System.getProperty(STAGE_THREAD_PROPERTY, Boolean.toString(segments.background())));
        this.lock = WriterLock.acquire(dir, schema.name());
        TxnFile t = null;
        WriterDictionaries dicts = null;
        try {
            t = TxnFile.open(dir.resolve(io.tradestore.core.txn.TxnDescriptor.FILE_NAME), schema.symbolColumnCount(),
                schema.hash(), true);
            state = t.read();
            dicts = WriterDictionaries.open(schema, dir, state);
            this.txn = t;
            dictionaries = dicts;
            committedRows = state.rowCount();
            this.pendingRows = committedRows;
            zones = new ZoneWatermark(segments, shift, segmentRows, blockMask + 1L, committedRows);
            this.nulledRows = committedRows;
            segments.openCommitted(committedRows, state.firstRow());
            periodFromCommitted();
            if (staging) {
                // staged rows reach the files by write(2): nothing is faulted in ahead of them
                segments.stopPrefaultAll();
                emptyWindow(committedRows);
            }
            if (committedRows == segments.endRow()) {
                // the next append needs a new segment: have it ready before the first row arrives
                segments.createAhead(pendingRows, staging);
            }
        } catch (final RuntimeException e) {
            segments.closeOpen();
            if (dicts != null) {
                dicts.close();
            }
            if (t != null) {
                t.close();
            }
            lock.release();
            throw e;
        }
    }

    /** @return rows published by the last commit. */
    public long committedRows() {
        return committedRows;
    }

    /** @return rows appended so far, committed or not. */
    public long pendingRows() {
        return pendingRows;
    }

    /**
     * Appends one row of null values and returns its index; write its fields through a flyweight or the column
     * addresses before {@link #commit()}.
     *
     * @return the new row's index.
     */
    public long appendRow() {
        return nextRow(null);
    }

    /**
     * Appends one row of null values with its designated timestamp set (in a new segment when the table is partitioned
     * and the open one holds rows of another period: see {@link #partition}).
     *
     * @param timestamp the designated timestamp, epoch nanoseconds.
     * @return the new row's index.
     */
    public long appendRow(final long timestamp) {
        requireTimestamp();
        partition(timestamp);
        final long row = nextRow(null);
        NativeMemory.putLong(rowAddress(row, tsColumn), timestamp);
        return row;
    }

    /**
     * Says which period the next rows belong to. On a table partitioned by time, when the open segment holds rows of
     * another period, it is ended after them and the next row starts the next segment (the row numbers up to it stay
     * unused, and the disk blocks behind them are given back); on an unpartitioned table, or for a null timestamp, it
     * does nothing. {@link #appendRow(long)} and {@link #append(Flyweight, long)} call it; bulk writers call it before
     * each run of rows of one period they {@link #reserve}. A commit refuses a segment whose rows span two periods.
     *
     * @param timestamp the designated timestamp of the next rows, epoch nanoseconds.
     */
    public void partition(final long timestamp) {
        if (timestamp >= partStart && timestamp < partEnd || partitionBy == PartitionBy.NONE
            || timestamp == Long.MIN_VALUE) {
            return;
        }
        checkOpen();
        endSegment();
        partStart = partitionBy.floor(timestamp);
        partEnd = partitionBy.next(partStart);
    }

    /** Ends the open segment after its rows, if it has any (see {@link #partition}). */
    private void endSegment() {
        final long row = pendingRows;
        final long segStart = row & -segmentRows;
        if (row == segStart) {
            return; // the next row starts a segment anyway
        }
        if (staging) {
            copyStage(false);
        }
        final long next = segStart + segmentRows;
        segments.get((int) (row >>> shift)).endAt((int) (row - segStart), durability == Durability.SYNC);
        if (zones.row() == row) {
            zones.row(next);
        }
        pendingRows = next;
        nulledRows = next;
        if (staging) {
            emptyWindow(next);
        }
        attached.refresh(null);
    }

    /** Takes the open segment's period from its committed rows (when the writer opens, or after a rollback). */
    private void periodFromCommitted() {
        partStart = Long.MAX_VALUE;
        partEnd = Long.MIN_VALUE;
        if (partitionBy != PartitionBy.NONE && (committedRows & (segmentRows - 1)) != 0) {
            final long min = segments.get((int) (committedRows >>> shift)).zoneMin(-1, tsColumn);
            if (min != Long.MAX_VALUE) {
                partStart = partitionBy.floor(min);
                partEnd = partitionBy.next(partStart);
            }
        }
    }

    /**
     * Refuses rows that put two periods in one segment of a partitioned table (a timestamp set after {@link
     * #partition} placed its row), from the segments' zone maps, before anything is published.
     */
    private void checkPeriods() {
        final int last = (int) ((pendingRows - 1) >>> shift);
        for (int seg = (int) (committedRows >>> shift); seg <= last; seg++) {
            final Segment s = segments.get(seg);
            final long min = s.zoneMin(-1, tsColumn);
            final long max = s.zoneMax(-1, tsColumn);
            if (min <= max && partitionBy.floor(min) != partitionBy.floor(max)) {
                throw new StoreException("cannot commit table '" + schema.name() + "' (partitioned by " + partitionBy
                    + "): segment " + seg + " would hold rows of " + partitionBy.label(partitionBy.floor(min)) + " and "
                    + partitionBy.label(partitionBy.floor(max)) + "; append rows with appendRow(timestamp) or "
                    + "append(flyweight, timestamp), or call partition(timestamp) before a row of another period; "
                    + "rollback() and append them again");
            }
        }
    }

    private void requireTimestamp() {
        if (tsColumn < 0) {
            throw new StoreException("table '" + schema.name() + "' has no designated timestamp");
        }
    }

    /**
     * The per-row path of {@link #appendRow()} and {@link #append}: a field read and one compare, unless the row lies
     * outside the open staging window.
     *
     * @param appender the flyweight that {@link #append} wraps at the new row next, or null.
     * @return the new row's index.
     */
    private long nextRow(final Flyweight appender) {
        final long row = pendingRows;
        if (row >= stageEnd) {
            // the staging window is full, or not open, or the writer appends through the mappings
            appendOutsideStage(row, appender);
        }
        pendingRows = row + 1;
        return row;
    }

    /**
     * appendRow's path outside an open staging window.
     *
     * @param appender the flyweight that {@link #append} wraps at {@code row} next (it need not be re-pointed), or
     *                 null.
     */
    private void appendOutsideStage(final long row, final Flyweight appender) {
        checkOpen();
        if (staging) {
            nextStageWindow(row, appender);
            return;
        }
        if (!rowAppendsSeen) {
            rowAppendsSeen = true;
            segments.rowAppends();
        }
        if ((row & blockMask) == 0) {
            blockStart(row, appender);
        }
        if (row >= nulledRows) {
            nulledRows = segments.fillNulls(row, NULL_CHUNK_ROWS);
        }
    }

    /**
     * Copies the staged rows into the segment files and opens the staging window that holds {@code row} (in a new
     * segment at a segment boundary), null-filled from {@code row} on.
     */
    private void nextStageWindow(final long row, final Flyweight appender) {
        // a flyweight other than the appender left in the window is re-pointed below (attached.refresh), which waits
        // for the window's copy (rowAddress), so no store races the flusher
        copyStage(stageThread && pendingRows > stageFrom);
        final StagingArea stage = windows.open();
        stagedAny = true;
        if (row == segments.endRow()) {
            try {
                openNextSegment(appender);
            } catch (final RuntimeException e) {
                // no new window: the staged rows went to the files (or are in flight), so the flyweights left in the
                // old window, the appender too (its append failed), must reach their rows through the mappings again
                attached.refresh(null);
                throw e;
            }
        }
        stageBase = row & -stageRows;
        stageFrom = row;
        stageEnd = stageBase + stageRows;
        stage.fillNulls((int) (row - stageBase), stageRows);
        attached.refresh(appender);
    }

    /**
     * Sets an empty staging window at {@code row}: the next append takes the slow path and opens a window there (with
     * {@code Long.MIN_VALUE}, none is ever open: no staging).
     */
    private void emptyWindow(final long row) {
        stageBase = row;
        stageFrom = row;
        stageEnd = row;
    }

    /**
     * Copies staged rows {@code [stageFrom, pendingRows)} into their segment's files with write(2) and widens the zone
     * maps from the staged values: on this thread, or by the stage flusher while this thread continues in the spare
     * window (the window is then in flight: everything that reads its rows or their zone maps waits for it first).
     * Flyweights still pointing into the staging area must be refreshed by the caller.
     *
     * @param byFlusher whether the stage flusher copies the window (there are staged rows and it may: see the caller).
     */
    private void copyStage(final boolean byFlusher) {
        windows.awaitFlight();
        // staging keeps the watermark at the first staged row (rows in the files before it had their zone maps widened)
        assert zones.row() >= stageFrom : "zone row=" + zones.row() + " stageFrom=" + stageFrom;
        final long to = pendingRows;
        if (to == stageFrom) {
            return;
        }
        final int seg = (int) (stageFrom >>> shift);
        final long segStart = (long) seg << shift;
        final int areaRow0 = (int) (stageBase - segStart);
        final int from = (int) (stageFrom - segStart);
        final int end = (int) (to - segStart);
        windows.copy(segments.get(seg), areaRow0, from, end, stageFrom, byFlusher);
        stageFrom = to;
        zones.row(to);
    }

    /**
     * Leaves the staging path for good (the caller wants mapped addresses): staged rows go to the files, and appends
     * null-fill and write the mappings from here on.
     */
    private void stopStaging() {
        checkOpen();
        copyStage(false);
        // the caller may now store into rows it appended before (appendRow, then columnAddress, then stores): their
        // blocks, widened from the staged values, are recomputed at commit (an overwritten value must not stay), and
        // widened again from the mappings at the next block or commit
        zones.unwiden(committedRows);
        staging = false;
        emptyWindow(Long.MIN_VALUE);
        nulledRows = pendingRows;
        updatePrefault();
        windows.free();
        attached.refresh(null);
    }

    /**
     * At the first row of a zone-map block (segments and pre-fault chunks start on block boundaries): opens the next
     * segment or widens the zone maps with the block just finished, then takes the chunk of rows it enters from the
     * background preparation.
     *
     * @param appender the flyweight that {@link #append} wraps at {@code row} next (it writes no earlier row), or null.
     */
    private void blockStart(final long row, final Flyweight appender) {
        if (row == segments.endRow()) {
            openNextSegment(appender);
        } else {
            flushMappedZones(row, appender);
        }
        if (segments.background()) {
            final Segment s = segments.at(row);
            final int inSegment = (int) (row & (segmentRows - 1));
            if (inSegment % s.prefaultChunkRows() == 0 && segments.claimChunk(s, inSegment)) {
                final long chunkEnd = row + s.prefaultChunkRows();
                if (nulledRows < chunkEnd) {
                    nulledRows = chunkEnd;
                }
            }
        }
    }

    /**
     * Appends one row and points a flyweight at it.
     *
     * @param flyweight a flyweight of this table's columns (bound here if it is not yet).
     * @param <F>       its type.
     * @return the flyweight, at the new row.
     */
    @SuppressWarnings("unchecked")
    public <F extends Flyweight> F append(final F flyweight) {
        if (flyweight.access() != this) {
            flyweight.bind(this);
        }
        return (F) flyweight.wrap(nextRow(flyweight));
    }

    /**
     * Appends one row with its designated timestamp set, as {@link #appendRow(long)} does, and points a flyweight at
     * it.
     *
     * @param flyweight a flyweight of this table's columns (bound here if it is not yet).
     * @param timestamp the designated timestamp, epoch nanoseconds.
     * @param <F>       its type.
     * @return the flyweight, at the new row.
     */
    public <F extends Flyweight> F append(final F flyweight, final long timestamp) {
        requireTimestamp();
        partition(timestamp);
        final F f = append(flyweight);
        NativeMemory.putLong(rowAddress(f.row(), tsColumn), timestamp);
        return f;
    }

    /**
     * Reserves up to {@code count} rows within the current segment for bulk writes at
     * {@code columnAddress(segment, column) + rowInSegment * stride}. Reserved rows hold unspecified bytes (segments
     * are not null-filled in advance): write every column of every reserved row, null sentinels included, before
     * {@link #commit()}.
     *
     * @param count rows wanted (at least 1).
     * @return rows reserved, at least 1, fewer when the segment ends first; they start at the old {@link
     *              #pendingRows()}.
     */
    public int reserve(final int count) {
        if (count < 1) {
            throw new IllegalArgumentException("count=" + count + " must be at least 1");
        }
        checkOpen();
        if (staging) {
            stopStaging();
        }
        if (pendingRows == segments.endRow()) {
            openNextSegment(null);
        }
        final int n = (int) Math.min(count, segments.endRow() - pendingRows);
        if (segments.background() && (segments.prefault() || rowAppendsSeen)) {
            // after row appends the background thread may be null-filling a chunk ahead: wait for it before writing
            segments.claimChunks(pendingRows, n);
        }
        final boolean columnZones = columnWritesOn && zones.row() == pendingRows
            && !zones.rawOut((int) (pendingRows >>> shift));
        if (columnZones) {
            // column writes: writeColumn widens the zone maps of the rows it writes, and every column of every reserved
            // row is written with it, so no later pass over these rows is needed (unless raw addresses of the segment
            // are out: stores through them may follow, so these rows are widened at commit, see ZoneWatermark)
            zones.row(pendingRows + n);
        }
        pendingRows += n;
        if (nulledRows < pendingRows) {
            nulledRows = pendingRows;
        }
        if (columnZones) {
            // a flyweight left on an earlier uncommitted row may step (next()) into these rows and write them after
            // writeColumn did: re-pointed, it records them (addressRunEnd), widened again at commit (none bound:
            // nothing)
            attached.refresh(null);
        }
        return n;
    }

    /**
     * Switches bulk appends to {@link #writeColumn} (write(2) into the segment files) or back to stores into
     * {@link #columnAddress}. While on, segments are no longer faulted in ahead of the writer: write(2) allocates the
     * page cache itself, without zero-filling the pages it covers whole and without mapping them into this process, so
     * the kernel's later writeback of those pages needs no write-protect and TLB shootdown, which for stores into the
     * mapping interrupt every CPU running this process once per page written back (measured: most of the writeback
     * threads' time while a 50M-row load outgrew the kernel's dirty-page threshold). Rows written either way are the
     * same rows: one page cache, the same commit protocol and crash behaviour. While on, every column of every row
     * reserved must be written with {@link #writeColumn}, which also widens the zone maps from the values it writes
     * (no second pass over the segment). Available for the COLUMN layout on Linux with net.openhft:posix loaded;
     * elsewhere nothing changes.
     *
     * @param on whether bulk appends use {@link #writeColumn}.
     * @return whether {@link #writeColumn} is now in use (false when asked off or not available).
     */
    public boolean columnWrites(final boolean on) {
        checkOpen();
        final boolean use = on && schema.layout() == io.tradestore.core.schema.Layout.COLUMN
            && MappedFile.writeAvailable();
        columnWritesOn = use;
        columnWritesSeen |= use;
        updatePrefault();
        if (use) {
            segments.stopPrefaultAll();
        }
        return use;
    }

    /** @return bytes of this writer's segments faulted in ahead of its writes so far (tests, diagnostics). */
    long populatedBytes() {
        return segments.populatedBytes();
    }

    /**
     * Lets the background thread fault segments in only for a writer that stores into the mappings: staging and column
     * writes use write(2) (a writer storing after them faults each chunk in itself), and after staging a prepared chunk
     * could null-fill rows the staged rows were written into.
     */
    private void updatePrefault() {
        segments.prefault(!staging && !stagedAny && !columnWritesSeen);
    }

    /**
     * Copies one column's values of reserved rows from native memory into the segment with write(2) (see
     * {@link #columnWrites(boolean)}), instead of stores at {@code columnAddress(segment, column) + row * stride}.
     *
     * @param segment      the segment index, as for {@link #columnAddress}.
     * @param column       the column index.
     * @param rowInSegment first row within the segment; rows up to {@code rowInSegment + rows} must be reserved.
     * @param src          native address of {@code rows} values at the column's width, back to back.
     * @param rows         how many rows.
     */
    public void writeColumn(final int segment, final int column, final int rowInSegment, final long src,
        final int rows) {
        checkOpen();
        segments.check(segment);
        Bounds.checkIndex("column", column, schema.columnCount(), "columnCount");
        final long first = ((long) segment << shift) + rowInSegment;
        if (rowInSegment < 0 || rows < 0 || first < committedRows || first + rows > pendingRows) {
            throw new IndexOutOfBoundsException("rowInSegment=" + rowInSegment + " rows=" + rows + " segment=" + segment
                + " committedRows=" + committedRows + " pendingRows=" + pendingRows);
        }
        segments.get(segment).writeColumn(column, rowInSegment, src, rows);
    }

    /** @param appender as for {@link #blockStart}: the flyweight append() wraps at the segment's first row, or null. */
    private void openNextSegment(final Flyweight appender) {
        checkOpen();
        final long start = System.nanoTime();
        try {
            // before the zone maps are widened: a failure here (full disk) must leave the watermark where it was, since
            // the appender, left out of the re-pointing below, stays on the ended block's last row and may write it
            final Segment s = segments.next();
            flushMappedZones(pendingRows, appender);
            segments.add(s, pendingRows, staging);
        } finally {
            segments.waited(System.nanoTime() - start);
        }
    }

    /**
     * @return nanoseconds this writer's thread waited for segments since it opened: their creation, chunks of fresh
     *     pages, the staging thread's copies (with fast appends the first touch of fresh pages sets the pace).
     */
    public long segmentWaitNanos() {
        return segments.waitNanos();
    }

    /** @return rows whose zone maps this writer widened from the mappings (re-reading rows it already wrote). */
    long zoneRowsRead() {
        return zones.rowsRead();
    }

    /**
     * Widens zone maps with rows from the watermark to {@code to} from the files at a block end (nothing when {@code
     * to} is not beyond the watermark), then re-points the flyweights left on earlier rows, which may still write rows
     * whose zone maps this just widened: each records what it can reach ({@link #addressRunEnd}), widened again once,
     * at commit. The appender is left out: append() wraps it at the next row at once. On the staging path nothing is
     * flushed here (the watermark follows the copied windows).
     *
     * @param to       the first row not to widen.
     * @param appender the flyweight append() wraps at {@code to} next, or null.
     */
    private void flushMappedZones(final long to, final Flyweight appender) {
        if (zones.flushMapped(to)) {
            attached.refresh(appender);
        }
    }

    /**
     * Publishes every appended row: zone maps, then (SYNC) msync of data, zone maps and dictionaries, then the
     * transaction slot and the sequence bump. Readers see all of these rows or none of them. When the stage thread
     * failed to copy staged rows into the files (write(2) failed, e.g. a full disk), the failure is thrown by the call
     * that waits for that copy, and every commit refuses afterwards until {@link #rollback()} discards the rows.
     */
    public void commit() {
        checkOpen();
        if (pendingRows == committedRows && !dictionaries.grewSince(state)) {
            return;
        }
        final StoreException copyFailure = windows.copyFailure();
        if (copyFailure != null) {
            throw new StoreException("cannot commit table '" + schema.name() + "': rows appended since the last commit"
                + " could not be copied into the segment files (" + copyFailure.getMessage()
                + "); rollback() and append them again", copyFailure);
        }
        if (staging) {
            // every appended row is in the files before the row count is published; the window stays open
            copyStage(false);
        }
        // after the window in flight is in (when staging: the stage flusher widens the same zone-map entries)
        zones.recomputeMappedRuns(committedRows, pendingRows);
        if (staging) {
            attached.refresh(null);
        }
        zones.flushTo(pendingRows);
        if (partitionBy != PartitionBy.NONE) {
            checkPeriods();
        }
        // the blocks these rows fill never change again: their checksums, which readers verify, are written once here
        segments.forEach(committedRows, pendingRows, Segment::checksumZones);
        final long[] counts = dictionaries.counts();
        final long[] bytes = dictionaries.byteLengths();
        final boolean sync = durability == Durability.SYNC;
        if (sync) {
            segments.forEach(committedRows, pendingRows, Segment::sync);
            dictionaries.sync();
            segments.syncNewDirectories(pendingRows);
        }
        state = txn.publish(state, pendingRows, counts, bytes, sync);
        final long before = committedRows;
        committedRows = pendingRows;
        zones.clearRuns();
        final int firstSealed = (int) (before >>> shift);
        final int endSealed = (int) (committedRows >>> shift);
        if (sealListener != null && endSealed > firstSealed) {
            try {
                sealListener.sealed(firstSealed, endSealed);
            } catch (final RuntimeException e) {
                // the commit is published: a listener's failure is its own to report (SealIndexer does at close), not
                // the commit's
            }
        }
    }

    /**
     * Drops the oldest sealed segments whose newest row is before {@code cutNanos} ({@link WriterSegments#keptFrom}),
     * committed and synced before any file is deleted: a crash leaves the old or the new set of segments. Files go when
     * no reader maps them. Uncommitted rows stay pending. A partitioned table loses whole periods only: those that end
     * at or before the cut.
     *
     * @param cutNanos epoch nanoseconds on the designated timestamp.
     * @return what was dropped.
     */
    public Retention dropOlderThan(final long cutNanos) {
        checkOpen();
        final int from = (int) (state.firstRow() >>> shift);
        final int first = segments.keptFrom(from, (int) (state.rowCount() >>> shift),
            partitionBy.wholePeriodsBefore(cutNanos));
        long rows = 0;
        for (int i = from; i < first; i++) {
            rows += segments.get(i).sealedRows(); // fewer than segmentRows where a segment was ended early
        }
        if (first > from) {
            state = txn.dropBelow(state, (long) first << shift);
            attached.refresh(null);
            segments.dropBelow(first, sealListener);
        }
        return new Retention(first - from, rows, state.firstRow());
    }

    @Override
    public long firstRow() {
        return state.firstRow();
    }

    /**
     * Sets the listener told when commits seal segments (the query module's {@code SealIndexer} builds the segments'
     * bitmap indexes then, as {@code tradestore load} does).
     *
     * @param listener the listener, or null for none.
     */
    public void onSeal(final SealListener listener) {
        checkOpen();
        this.sealListener = listener;
    }

    /**
     * Discards rows and dictionary entries appended since the last commit; the table stays at that commit. A failed
     * copy of staged rows (see {@link #commit()}) is not thrown here: those rows are discarded.
     */
    public void rollback() {
        checkOpen();
        try {
            windows.awaitFlight();
        } catch (final StoreException e) {
            // a failed copy of rows that are discarded here: nothing of it is left to report
        }
        windows.clearCopyFailure();
        dictionaries.truncate(state);
        if (pendingRows == committedRows) {
            return;
        }
        segments.resetTails(committedRows, pendingRows);
        pendingRows = committedRows;
        periodFromCommitted();
        zones.row(committedRows);
        nulledRows = committedRows;
        if (staging) {
            // an empty window: the next append opens one, null-filled from the committed row
            emptyWindow(committedRows);
        }
        attached.refresh(null);
        zones.clearRuns();
    }

    /**
     * Rolls back, then closes and deletes every segment holding no committed row (those created ahead too): segment
     * files are created at full size, and a failed bulk load would otherwise leave a small disk full. Addresses from
     * {@link #columnAddress} of a deleted segment are invalid afterwards; a flyweight left on one of its rows points at
     * a scratch row of this writer until it moves.
     */
    public void rollbackAndDeleteSegments() {
        rollback();
        final int needed = segments.holding(committedRows);
        segments.deletePast(needed);
        zones.rawAddressesDeletedFrom(needed);
        attached.refresh(null);
    }

    @Override
    public long rowLimit() {
        checkOpen();
        return pendingRows;
    }

    /**
     * Returns the mapped address of a column's value in row 0 of a segment, for writes at {@code + rowInSegment *
     * columnStride(column)} (bulk appends, or rows from {@link #appendRow()}). The first call copies staged rows into
     * the files and switches this writer's appends to the mappings for good. The address stays valid until the writer
     * closes, or until {@link #rollbackAndDeleteSegments} deletes the segment: stores through it into any uncommitted
     * row of the segment, at any time before {@link #commit()}, reach the zone maps, because from the first call on the
     * zone maps of the segment's uncommitted rows are widened at commit, not when appends pass their block's end (until
     * {@link #releaseColumnAddresses} says the caller is done).
     */
    @Override
    public long columnAddress(final int segment, final int column) {
        checkOpen();
        segments.check(segment);
        Bounds.checkIndex("column", column, schema.columnCount(), "columnCount");
        if (staging) {
            stopStaging();
        }
        if (!zones.rawOut(segment)) {
            zones.rawAddressesOut(segment, committedRows);
        }
        return segments.get(segment).columnBase(column);
    }

    /**
     * Tells the writer that every store meant for the uncommitted rows of a segment through its {@link #columnAddress}
     * addresses has been made, so that their zone maps may be widened before commit again (as appends pass their
     * blocks, or when the next segment opens) instead of at commit. A bulk loader calls it when it moves on to the next
     * segment: the pass over the full segment then runs while later input is parsed, not after it. A store through
     * those addresses after this call may be missed by the zone maps, until {@link #columnAddress} is asked for the
     * segment again.
     *
     * @param segment the segment index, as for {@link #columnAddress}.
     */
    public void releaseColumnAddresses(final int segment) {
        checkOpen();
        segments.check(segment);
        zones.rawAddressesReleased(segment);
    }

    /**
     * Discards uncommitted rows, unmaps everything, deletes the segments that hold no committed row and releases the
     * lock; idempotent.
     */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        try {
            if (sealListener != null) {
                sealListener.writerClosing();
            }
            rollback();
        } finally {
            closed = true;
            emptyWindow(Long.MIN_VALUE);
            windows.close();
            attached.close();
            // the segments no committed row needs hold full-size files: give their space back (see
            // rollbackAndDeleteSegments)
            segments.close(segments.holding(committedRows));
            dictionaries.close();
            txn.close();
            lock.release();
            table.writerClosed(this);
        }
    }
}
