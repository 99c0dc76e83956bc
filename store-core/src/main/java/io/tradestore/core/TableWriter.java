package io.tradestore.core;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.WeakHashMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

import io.tradestore.core.dict.SymbolDictionary;
import io.tradestore.core.memory.FileAllocator;
import io.tradestore.core.memory.MappedFile;
import io.tradestore.core.memory.NativeMemory;
import io.tradestore.core.schema.Column;
import io.tradestore.core.schema.ColumnType;
import io.tradestore.core.schema.Schema;
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
 * available (Linux with net.openhft:posix; property {@code tradestore.append.staging}, default true): the flyweight's
 * setters write into a window of {@value #DEFAULT_STAGE_ROWS} rows laid out like the segment files, which stays in
 * the L2 cache, and the window is copied into the segment files with write(2) when it is full, at {@link #commit()}
 * (before the row count is published), and before the mapped addresses are handed out ({@link #columnAddress},
 * {@link #reserve}). The zone maps are widened from the staged values while they are in cache. write(2) lands in the
 * same page cache as the mappings, so readers in any process see the rows through their mappings, and a crash
 * leaves the files as stores would have. What it saves: page faults, zero-filling of fresh pages that are then
 * overwritten, cache misses on 8 column streams, and a second pass over mapped memory for the zone maps. Flyweights
 * bound to the writer are re-pointed ({@link Flyweight#refresh()}) whenever staged rows move into the files. A writer
 * whose mapped column addresses are asked for ({@link #columnAddress}, {@link #reserve}) copies its staged rows out
 * and appends through the mappings from then on. For segments of 65,536 rows or more a full window is copied by a
 * second thread ({@link StageFlusher}, property {@code tradestore.append.stageThread}) while the writer fills a second
 * window; the writer copies the files that thread has not reached when it needs the window back, and waits for it
 * before a commit, a rollback, mapped addresses or close. Only the appending flyweight may point into a window in
 * flight: another flyweight left in it is re-pointed at once, which waits for the copy, so no store races it.
 *
 * <p><b>Zone maps</b> are widened once per row where it is cheap: from the staged values when a window is copied, from
 * the mappings when appends pass a block's end (mapped path), by {@link #writeColumn} from the values it writes, and
 * at {@link #commit()} for the rest. A write allowed before commit may still come after that, and is caught one of two
 * ways. A flyweight records at each positioning the already-widened rows it can reach ({@link #addressRunEnd}; the
 * writer re-points its flyweights whenever it widens rows), and those rows are widened again, once, at commit. Stores
 * through a {@link #columnAddress} are invisible to the writer, so the uncommitted rows of a segment whose addresses
 * were handed out are not widened before commit at all (no second pass: the commit's is their only one).
 *
 * <pre>
 *   appendRow()/reserve()     commit()                               rollback() / close() / crash
 *   pendingRows += n   --->   zone maps, [msync], txn slot, fence,    pendingRows = committedRows, tail nulled,
 *                             sequence++ : committedRows = pending    dictionaries cut back
 * </pre>
 */
public final class TableWriter implements RecordAccess, AutoCloseable {
    private static final int PRECREATE_MIN_ROWS = 1 << 16;
    /** Rows null-filled at a time ahead of {@link #appendRow()}: 256 trades are 12.5 KB, well inside L1/L2. */
    private static final int NULL_CHUNK_ROWS = 256;
    /**
     * Rows in the staging area by default: 16,384 trades are 784 KB (COLUMN) or 896 KB (ROW), inside this machine's 1
     * MiB L2 (measured against 4,096, 8,192 and 65,536: the least writer and process CPU, see docs/benchmarks.md).
     */
    static final int DEFAULT_STAGE_ROWS = 16_384;
    /** Property that turns the staging area off ({@code false}: row appends store into the mappings, as before). */
    public static final String STAGING_PROPERTY = "tradestore.append.staging";
    /**
     * Property that turns the staging thread on or off (default: on for segments of at least 65,536 rows). Off, full
     * windows are copied into the files on the writer's thread instead of by a second thread while the writer fills its
     * other window.
     */
    public static final String STAGE_THREAD_PROPERTY = "tradestore.append.stageThread";
    /** Property that sets the staging area's rows (a power of two; for measurements). */
    public static final String STAGE_ROWS_PROPERTY = "tradestore.append.stageRows";
    /**
     * Lock files held by writers of this process. POSIX record locks belong to the process, and closing any descriptor
     * of the file drops them all: a refused second writer must therefore never open (and close) the lock file while
     * this process holds it, or it would silently release the first writer's lock.
     */
    private static final Set<Path> HELD_LOCKS = ConcurrentHashMap.newKeySet();

    private final Table table;
    private final Schema schema;
    private final Path dir;
    private final Durability durability;
    private final FileAllocator allocator;
    private final Path lockPath;
    private final FileChannel lockChannel;
    private final FileLock lock;
    private final TxnFile txn;
    private final SymbolDictionary[] dictionaries;
    private final int[] symbolSlot;
    private final List<Segment> segments = new ArrayList<>();
    private final int shift;
    private final long segmentRows;
    private final int blockMask;
    private final int[] strides;
    /** Whether segments are large enough to be created and pre-faulted by a background thread. */
    private final boolean background;
    private ExecutorService precreator;
    /**
     * Segments the background thread creates ahead of the writer, for the next indexes in order (see
     * {@link #createAhead}): one, or two for a staging writer, which fills a segment in ~0.1 s, less than creating one
     * takes while the file system is busy with its writes (measured: 0.27-0.32 s of waits per 50M rows with one ahead).
     */
    private final ArrayDeque<CompletableFuture<Segment>> ahead = new ArrayDeque<>(2);
    /** Set by close(): the background thread stops pre-faulting a segment it creates after this. */
    private volatile boolean closing;
    private TxnState state;
    private long committedRows;
    private long pendingRows;
    private long zoneRow;
    private long segmentEndRow;
    private int durableSegments;
    private long segmentWaitNs;
    /** Rows whose zone maps were widened from the mappings (not from staged values): for tests of the work per row. */
    private long zoneRowsRead;
    /** Rows below this (from committedRows on) hold nulls or the caller's data; appendRow nulls ahead from here. */
    private long nulledRows;
    /**
     * Whether rows arrive through appendRow (the flyweight path): then the background thread null-fills the chunks it
     * prepares, off this thread. Bulk writers (reserve) write whole rows and get chunks that are only faulted in.
     */
    private volatile boolean rowAppends;
    /**
     * Whether the background thread faults segments in ahead of the writer; off while a bulk writer copies whole column
     * runs with {@link #writeColumn} (write(2) allocates the pages itself, see {@link #columnWrites(boolean)}).
     */
    private volatile boolean prefault = true;
    /** Whether {@link #columnWrites(boolean)} is on (this thread's view; prefault is the background thread's). */
    private boolean columnWritesOn;
    /** This thread's copy of rowAppends, so that appendRow reads no volatile field. */
    private boolean rowAppendsSeen;
    private boolean closed;
    /** Whether row appends go through the staging area now (see the class comment). */
    private boolean staging;
    /** Whether a staging window was ever opened: then the background thread never prepares chunks again. */
    private boolean stagedAny;
    private StagingArea stage;
    /** The second staging window (double buffering with the stage flusher); null until first needed. */
    private StagingArea spare;
    /** Whether full windows are copied by a second thread ({@link StageFlusher}). */
    private final boolean stageThread;
    private StageFlusher flusher;
    /**
     * The window the flusher is copying, or null; its rows are [flightFrom, stageFrom) (flightFrom is MAX_VALUE without
     * one).
     */
    private StagingArea flight;
    private long flightFrom = Long.MAX_VALUE;
    /**
     * The failure of the stage flusher's copy of a window, once reported: its rows are not (all) in the files, so no
     * commit may publish them; only a rollback (or close) clears it.
     */
    private StoreException copyFailure;
    /** Told when a commit makes segments wholly committed, or null. */
    private SealListener sealListener;
    /**
     * Uncommitted rows a flyweight could write through the mappings after their zone maps were widened (from the staged
     * values when their window was copied, or from the mappings at a block end on the mapped path): the part below the
     * zone watermark of each mapped run a flyweight positioned at ({@link #addressRunEnd}; it may step on with next()).
     * Their zone maps are widened from the files once, at commit. On the mapped path the flyweights left on earlier
     * rows are re-pointed after each block's zone maps were widened, so that they record the rows they can still reach.
     */
    private final RowRanges mappedRuns = new RowRanges();
    /**
     * Segments whose mapped column addresses {@link #columnAddress} handed out. Such an address reaches every row of
     * its segment for as long as the writer is open, and the writer cannot see the stores made through it, so the zone
     * maps of a raw-addressed segment's uncommitted rows are widened at commit only, when every store the caller meant
     * for them has been made: the zone watermark never passes the first uncommitted row of such a segment before commit
     * (see {@link #rawLimit()}). One pass over those rows, as at a block end, only later. {@link
     * #releaseColumnAddresses} takes a segment out again (a loader done with it).
     */
    private final BitSet rawSegments = new BitSet();
    private final int stageRows;
    /** The row of staged row 0 (a multiple of stageRows). */
    private long stageBase;
    /** Rows from here to pendingRows are held in the staging area only (not yet in the segment files). */
    private long stageFrom = Long.MIN_VALUE;
    /** End of the staging window; appendRow takes its slow path from here (always, when not staging). */
    private long stageEnd = Long.MIN_VALUE;
    /** Where flyweights left on rows of deleted segments point (see {@link #rowAddress}), or 0 before the first. */
    private long detachedRow;
    /** Flyweights bound to this writer, re-pointed when staged rows move (weak: a dropped flyweight is forgotten). */
    private final Map<Flyweight, Boolean> attached = new WeakHashMap<>();

    TableWriter(final Table table, final Durability durability, final FileAllocator allocator) {
        this.table = table;
        this.schema = table.schema();
        this.dir = table.directory();
        this.durability = durability;
        this.allocator = allocator;
        this.shift = schema.segmentShift();
        this.segmentRows = schema.segmentRows();
        this.blockMask = schema.blockRows() - 1;
        this.background = segmentRows >= PRECREATE_MIN_ROWS;
        this.symbolSlot = symbolSlots(schema);
        this.stageRows = (int) Math.min(segmentRows, stageRowsProperty());
        this.staging = Boolean.parseBoolean(System.getProperty(STAGING_PROPERTY, "true"))
            && MappedFile.writeAvailable();
        updatePrefault();
        // by default only for segments large enough for background creation: with tiny segments (tests) every window
        // would be a hand-over to another thread and back
        this.stageThread =
            Boolean.parseBoolean(System.getProperty(STAGE_THREAD_PROPERTY, Boolean.toString(background)));
        this.strides = new int[schema.columnCount()];
        for (final Column c : schema.columns()) {
            strides[c.index()] = io.tradestore.core.segment.SegmentDescriptor.stride(schema, c);
        }
        final Path lockPath = lockKey(dir.resolve(TableFiles.LOCK));
        if (!HELD_LOCKS.add(lockPath)) {
            throw new StoreException("table '" + schema.name() + "' already has a writer in this process (lock "
                + lockPath
                + " is held); only one writer per table, in any process");
        }
        FileChannel ch = null;
        FileLock l = null;
        try {
            ch = FileChannel.open(lockPath, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
            l = ch.tryLock();
        } catch (final OverlappingFileLockException e) {
            l = null;
        } catch (final IOException e) {
            closeQuietly(ch);
            HELD_LOCKS.remove(lockPath);
            throw new StoreException("cannot open writer lock " + lockPath + ": " + StoreException.reason(e), e);
        }
        if (l == null) {
            closeQuietly(ch);
            HELD_LOCKS.remove(lockPath);
            throw new StoreException("table '" + schema.name() + "' already has a writer (lock " + lockPath
                + " is held by another process); only one writer per table, in any process");
        }
        this.lockPath = lockPath;
        this.lockChannel = ch;
        this.lock = l;
        TxnFile t = null;
        final SymbolDictionary[] dicts = new SymbolDictionary[schema.symbolColumnCount()];
        try {
            t = TxnFile.open(dir.resolve(io.tradestore.core.txn.TxnDescriptor.FILE_NAME), dicts.length, schema.hash(),
                true);
            state = t.read();
            for (final Column c : schema.columns()) {
                if (c.type() == ColumnType.SYMBOL) {
                    final int s = symbolSlot[c.index()];
                    dicts[s] = SymbolDictionary.open(TableFiles.dictionary(dir, c), state.dictCounts()[s],
                        state.dictBytes()[s], true);
                }
            }
            this.txn = t;
            this.dictionaries = dicts;
            this.committedRows = state.rowCount();
            this.pendingRows = committedRows;
            this.zoneRow = committedRows;
            this.nulledRows = committedRows;
            final int segCount = segmentsHolding(committedRows);
            SegmentDirectories.clearPastCommit(dir, (int) (committedRows >>> shift), segCount);
            for (int i = 0; i < segCount; i++) {
                segments.add(Segment.open(schema, dir, i, true));
                // as a reader would: a damaged entry is refused before this writer builds on it
                segments.get(i).verifyZones((int) Math.min(segmentRows, committedRows - ((long) i << shift)));
            }
            if (segCount > 0) {
                segmentEndRow = (long) segCount << shift;
                final int committedInSegment = (int) (committedRows - ((long) (segCount - 1) << shift));
                resetTail(segments.get(segCount - 1), committedInSegment);
                segments.get(segCount - 1).claimChunksBelow(committedInSegment);
            }
            if (staging) {
                // staged rows reach the files by write(2): nothing is faulted in ahead of them
                stopPrefaultAll();
                emptyWindow(committedRows);
            }
            if (committedRows == segmentEndRow) {
                // the next append needs a new segment: have it ready before the first row arrives
                createAhead(segCount);
            }
        } catch (final RuntimeException e) {
            for (final Segment s : segments) {
                s.close();
            }
            for (final SymbolDictionary d : dicts) {
                if (d != null) {
                    d.close();
                }
            }
            if (t != null) {
                t.close();
            }
            releaseLock();
            throw e;
        }
    }

    private static int stageRowsProperty() {
        final int rows = Integer.getInteger(STAGE_ROWS_PROPERTY, DEFAULT_STAGE_ROWS);
        if (rows < 1 || Integer.bitCount(rows) != 1) {
            throw new StoreException(STAGE_ROWS_PROPERTY + "=" + rows + " must be a power of two");
        }
        return rows;
    }

    static int[] symbolSlots(final Schema schema) {
        final int[] slots = new int[schema.columnCount()];
        int n = 0;
        for (final Column c : schema.columns()) {
            slots[c.index()] = c.type() == ColumnType.SYMBOL ? n++ : -1;
        }
        return slots;
    }

    /**
     * Makes a segment's zone map exact again for its first {@code committedInSegment} rows. The rows after them are
     * left as they are: {@link #appendRow()} nulls rows before handing them out and {@link #reserve(int)} callers
     * write whole rows, so an uncommitted tail is overwritten before it can be committed. The partial block is
     * recomputed before the segment entry is rebuilt from the blocks, so a concurrent reader never sees a segment entry
     * narrower than the committed rows.
     */
    private void resetTail(final Segment s, final int committedInSegment) {
        final int block = committedInSegment / schema.blockRows();
        final boolean partial = committedInSegment % schema.blockRows() != 0;
        if (partial) {
            s.recomputeBlocks(block, block + 1, committedInSegment);
        }
        s.resetZones(partial ? block + 1 : block);
    }

    /** @return the schema. */
    public Schema schema() {
        return schema;
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
            rowAppends = true;
        }
        if ((row & blockMask) == 0) {
            blockStart(row, appender);
        }
        if (row >= nulledRows) {
            nullAhead(row);
        }
    }

    /**
     * Copies the staged rows into the segment files and opens the staging window that holds {@code row} (in a new
     * segment at a segment boundary), null-filled from {@code row} on.
     */
    private void nextStageWindow(final long row, final Flyweight appender) {
        // a flyweight other than the appender left in the window is re-pointed below (refreshAttached), which waits for
        // the window's copy (rowAddress), so no store races the flusher
        copyStage(stageThread && pendingRows > stageFrom);
        if (stage == null) {
            stage = new StagingArea(schema, stageRows);
            stagedAny = true;
        }
        if (row == segmentEndRow) {
            try {
                openNextSegment(appender);
            } catch (final RuntimeException e) {
                // no new window: the staged rows went to the files (or are in flight), so the flyweights left in the
                // old window, the appender too (its append failed), must reach their rows through the mappings again
                refreshAttached();
                throw e;
            }
        }
        stageBase = row & -stageRows;
        stageFrom = row;
        stageEnd = stageBase + stageRows;
        stage.fillNulls((int) (row - stageBase), stageRows);
        refreshAttached(appender);
    }

    /**
     * Recomputes, from the files, the zone maps of the blocks holding rows flyweights could have written through the
     * mappings after their first widening (see {@link #mappedRuns}), once per commit: the zone maps of copied rows were
     * widened from the staged values, and a write through the mapping after that would be missed. Recomputed, not
     * widened: a value overwritten since must not stay in its block's entry (whole unfiltered blocks answer min/max
     * from their entries). Rows of those blocks from the watermark on (which may have gone back: rawAddressesOut) are
     * left to the commit's widening that follows. Recording runs instead of recomputing from the lowest such row at
     * every window keeps the work linear: a flyweight left on an early row is re-pointed at every window, which only
     * grows its one run; each block is read once however many runs touch it. Call it with no window in flight.
     */
    private void recomputeMappedRuns() {
        final long blockRows = blockMask + 1L;
        long next = 0; // the first block start not yet recomputed (the runs are sorted and disjoint)
        long first = -1; // the blocks [first, next) of one segment wait to be recomputed together (one segment entry)
        for (int i = 0; i < mappedRuns.count(); i++) {
            // runs of rows committed since they were recorded are left alone (rollback clears, commit clears)
            final long from = Math.max(committedRows, mappedRuns.from(i));
            final long to = Math.min(pendingRows, mappedRuns.to(i));
            for (long block = Math.max(next, from & -blockRows); block < to; block += blockRows) {
                if (first >= 0 && (block != next || (block & -segmentRows) != (first & -segmentRows))) {
                    recomputeBlocks(first, next);
                    first = -1;
                }
                if (first < 0) {
                    first = block;
                }
                zoneRowsRead += Math.max(block, Math.min(block + blockRows, zoneRow)) - block;
                next = block + blockRows;
            }
        }
        if (first >= 0) {
            recomputeBlocks(first, next);
        }
        mappedRuns.clear();
    }

    /**
     * Recomputes the blocks starting at table rows {@code [from, to)}, all in one segment, counting rows before {@link
     * #zoneRow}.
     */
    private void recomputeBlocks(final long from, final long to) {
        final long segStart = from & -segmentRows;
        final long blockRows = blockMask + 1L;
        segments.get((int) (from >>> shift))
            .recomputeBlocks((int) ((from - segStart) / blockRows), (int) ((to - segStart) / blockRows),
            (int) (Math.min(Math.max(zoneRow, segStart), segStart + segmentRows) - segStart));
    }

    /**
     * Waits until the window in flight (if any) is in the segment files, copying the files the stage flusher has not
     * started yet on this thread, and keeps it as the spare window.
     */
    private void awaitFlight() {
        if (flight == null) {
            return;
        }
        final long start = System.nanoTime();
        try {
            flusher.await();
        } catch (final StoreException e) {
            // the window's rows already count as copied (stageFrom and zoneRow moved past them at the hand-off)
            if (copyFailure == null) {
                copyFailure = e;
            }
            throw e;
        } finally {
            segmentWaitNs += System.nanoTime() - start;
            spare = flight;
            flight = null;
            flightFrom = Long.MAX_VALUE;
        }
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

    /** Copies the staged rows into the files on this thread (see {@link #copyStage}). */
    private void flushStage() {
        copyStage(false);
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
        awaitFlight();
        // staging keeps the watermark at the first staged row (rows in the files before it had their zone maps widened)
        assert zoneRow >= stageFrom : "zoneRow=" + zoneRow + " stageFrom=" + stageFrom;
        final long to = pendingRows;
        if (to == stageFrom) {
            return;
        }
        final int seg = (int) (stageFrom >>> shift);
        final long segStart = (long) seg << shift;
        final int areaRow0 = (int) (stageBase - segStart);
        final int from = (int) (stageFrom - segStart);
        final int end = (int) (to - segStart);
        if (byFlusher) {
            if (flusher == null) {
                flusher = new StageFlusher("tradestore-stage-" + schema.name(), segments.get(seg).dataFileCount());
            }
            flight = stage;
            flightFrom = stageFrom;
            stage = spare; // null at first: nextStageWindow creates it
            spare = null;
            flusher.submit(segments.get(seg), flight, areaRow0, from, end);
        } else {
            segments.get(seg).writeStaged(stage, areaRow0, from, end);
        }
        stageFrom = to;
        zoneRow = to;
    }

    /**
     * Leaves the staging path for good (the caller wants mapped addresses): staged rows go to the files, and appends
     * null-fill and write the mappings from here on.
     */
    private void stopStaging() {
        checkOpen();
        flushStage();
        // the caller may now store into rows it appended before (appendRow, then columnAddress, then stores): their
        // blocks, widened from the staged values, are recomputed at commit (an overwritten value must not stay), and
        // widened again from the mappings at the next block or commit
        unwiden(committedRows);
        staging = false;
        emptyWindow(Long.MIN_VALUE);
        nulledRows = pendingRows;
        updatePrefault();
        if (stage != null) {
            stage.close();
            stage = null;
        }
        if (spare != null) {
            spare.close();
            spare = null;
        }
        refreshAttached();
    }

    /** Re-points the flyweights bound to this writer after staged rows moved into the files or the window moved. */
    private void refreshAttached() {
        refreshAttached(null);
    }

    private void refreshAttached(final Flyweight except) {
        if (attached.isEmpty()) {
            return;
        }
        for (final Flyweight f : attached.keySet()) {
            if (f != except && f.access() == this) {
                f.refresh();
            }
        }
    }

    /**
     * At the first row of a zone-map block (segments and pre-fault chunks start on block boundaries): opens the next
     * segment or widens the zone maps with the block just finished, then takes the chunk of rows it enters from the
     * background preparation.
     *
     * @param appender the flyweight that {@link #append} wraps at {@code row} next (it writes no earlier row), or null.
     */
    private void blockStart(final long row, final Flyweight appender) {
        if (row == segmentEndRow) {
            openNextSegment(appender);
        } else {
            flushMappedZones(row, appender);
        }
        if (background) {
            final Segment s = segments.get((int) (row >>> shift));
            final int inSegment = (int) (row & (segmentRows - 1));
            if (inSegment % s.prefaultChunkRows() == 0 && claimChunk(s, inSegment)) {
                final long chunkEnd = row + s.prefaultChunkRows();
                if (nulledRows < chunkEnd) {
                    nulledRows = chunkEnd;
                }
            }
        }
    }

    /**
     * Takes the chunk of rows starting at {@code inSegment} from the background preparation (see
     * {@link Segment#claimChunk}): when the writer catches up with the background thread it faults the chunk in itself,
     * so both cores work on fresh pages; time spent waiting for a chunk in preparation counts as segment wait.
     *
     * @return whether the chunk holds null rows.
     */
    private boolean claimChunk(final Segment s, final int inSegment) {
        final long start = System.nanoTime();
        try {
            return s.claimChunk(inSegment);
        } finally {
            segmentWaitNs += System.nanoTime() - start;
        }
    }

    /** Takes every chunk that starts inside rows {@code [row, row + count)} of one segment (bulk writes). */
    private void claimChunks(final long row, final int count) {
        final Segment s = segments.get((int) (row >>> shift));
        final int chunkRows = s.prefaultChunkRows();
        final int from = (int) (row & (segmentRows - 1));
        for (int c = (from + chunkRows - 1) / chunkRows * chunkRows; c < from + count; c += chunkRows) {
            claimChunk(s, c);
        }
    }

    /**
     * Null-fills the next {@link #NULL_CHUNK_ROWS} rows from {@code row} (within its segment) in one bulk pass, so that
     * appendRow hands out null rows without a per-row fill; the chunk is small enough to be still in cache when the
     * flyweight's setters overwrite it.
     */
    private void nullAhead(final long row) {
        final int seg = (int) (row >>> shift);
        final int from = (int) (row & (segmentRows - 1));
        final int to = (int) Math.min(segmentRows, from + NULL_CHUNK_ROWS);
        segments.get(seg).fillNulls(from, to);
        nulledRows = ((long) seg << shift) + to;
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
        if (pendingRows == segmentEndRow) {
            openNextSegment(null);
        }
        final int n = (int) Math.min(count, segmentEndRow - pendingRows);
        if (background && (prefault || rowAppendsSeen)) {
            // after row appends the background thread may be null-filling a chunk ahead: wait for it before writing
            claimChunks(pendingRows, n);
        }
        final boolean columnZones = columnWritesOn && zoneRow == pendingRows && !rawSegments
            .get((int) (pendingRows >>> shift));
        if (columnZones) {
            // column writes: writeColumn widens the zone maps of the rows it writes, and every column of every reserved
            // row is written with it, so no later pass over these rows is needed (unless raw addresses of the segment
            // are out: stores through them may follow, so these rows are widened at commit, see rawSegments)
            zoneRow = pendingRows + n;
        }
        pendingRows += n;
        if (nulledRows < pendingRows) {
            nulledRows = pendingRows;
        }
        if (columnZones) {
            // a flyweight left on an earlier uncommitted row may step (next()) into these rows and write them after
            // writeColumn did: re-pointed, it records them (addressRunEnd), widened again at commit (none bound:
            // nothing)
            refreshAttached();
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
        updatePrefault();
        if (use) {
            stopPrefaultAll();
        }
        return use;
    }

    /**
     * Sets whether the background thread faults segments in ahead of the writer: only for a writer that stores into the
     * mappings. A staging writer and column writes copy with write(2), which allocates the pages itself; and a writer
     * that ever staged rows never lets the background thread prepare chunks again: it could null-fill a chunk the
     * staged rows were written into (the writer claimed none of them).
     */
    private void updatePrefault() {
        prefault = !staging && !columnWritesOn && !stagedAny;
    }

    /** Stops the background thread's pre-faulting of every segment, open or created ahead. */
    private void stopPrefaultAll() {
        for (final Segment s : segments) {
            s.stopPrefault();
        }
        for (final CompletableFuture<Segment> next : ahead) {
            stopPrefault(next);
        }
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
        Bounds.checkIndex("segment", segment, segments.size(), "segmentCount");
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
            openSegment(appender);
        } finally {
            segmentWaitNs += System.nanoTime() - start;
        }
    }

    /**
     * Returns the time this writer's thread spent creating segments, waiting for the background creation of the next
     * one, faulting in chunks of rows the background thread had not reached yet, or waiting for a chunk it was
     * null-filling, or waiting for the staging thread to finish copying a window into the files: with fast appends the
     * first touch of fresh pages, not the writer, sets the pace.
     *
     * @return nanoseconds since the writer opened.
     */
    public long segmentWaitNanos() {
        return segmentWaitNs;
    }

    /** @return rows whose zone maps this writer widened from the mappings (re-reading rows it already wrote). */
    long zoneRowsRead() {
        return zoneRowsRead;
    }

    private void openSegment(final Flyweight appender) {
        final int index = segments.size();
        Segment s = null;
        final CompletableFuture<Segment> next = ahead.pollFirst();
        if (next != null) {
            try {
                s = next.get();
            } catch (final InterruptedException e) {
                // kept for the next attempt (or for close() to delete): dropped, it would stay mapped and on disk
                ahead.addFirst(next);
                Thread.currentThread().interrupt();
                throw new StoreException("interrupted while waiting for segment " + index + " of table '" + schema
                    .name()
                    + "' to be created; nothing was appended and the thread is still interrupted: clear the interrupt "
                    + "and"
                    + " append again to continue, or close the writer", e);
            } catch (final ExecutionException e) {
                // the segments after it were created for the wrong indexes now: the next attempt creates this one again
                discardAhead();
                throw e.getCause() instanceof StoreException ? (StoreException) e.getCause()
                    : new StoreException("cannot create segment " + index + ": " + e.getCause(), e.getCause());
            }
        }
        if (s == null) {
            // before the zone maps are widened: a failure here (full disk) must leave the watermark where it was, since
            // the appender, left out of the re-pointing below, stays on the ended block's last row and may still write
            // it
            s = Segment.create(schema, dir, index, allocator);
        }
        flushMappedZones(pendingRows, appender);
        segments.add(s);
        segmentEndRow += segmentRows;
        createAhead(index + 1);
    }

    /**
     * Starts the background creation of segments from index {@code next} on until as many are ahead as this writer
     * wants (none without the background thread).
     */
    private void createAhead(final int next) {
        final int wanted = background ? (staging ? 2 : 1) : 0;
        while (ahead.size() < wanted) {
            ahead.addLast(precreate(next + ahead.size()));
        }
    }

    private static void stopPrefault(final CompletableFuture<Segment> created) {
        if (created.isDone() && !created.isCompletedExceptionally()) {
            created.getNow(null).stopPrefault();
        }
    }

    /**
     * For large segments only: starts creating segment {@code index} in the background (blocks reserved, files mapped),
     * then pre-faults the chunks of the writer's current segment that the writer has not reached, then those of the new
     * segment. The writer takes the new segment as soon as it is created and faults the chunks it reaches first itself:
     * on this VM the first touch of fresh memory, not the writer, sets the pace, so both cores work on it.
     */
    private CompletableFuture<Segment> precreate(final int index) {
        assert background : "segments are created ahead only for large segments";
        if (precreator == null) {
            precreator = Executors.newSingleThreadExecutor(r -> {
                final Thread t = new Thread(r, "tradestore-precreate-" + schema.name());
                t.setDaemon(true);
                return t;
            });
        }
        // the segment the writer appends into, unless it is full (a writer opened at a segment boundary)
        final Segment current = segmentEndRow > pendingRows ? segments.get(segments.size() - 1) : null;
        final CompletableFuture<Segment> next = new CompletableFuture<>();
        final java.util.function.BooleanSupplier nullFill = () -> rowAppends;
        precreator.execute(() -> {
            final Segment s;
            try {
                s = Segment.create(schema, dir, index, allocator);
            } catch (final Throwable t) {
                next.completeExceptionally(t);
                return;
            }
            next.complete(s);
            if (closing || !prefault) {
                s.stopPrefault();
            }
            try {
                if (current != null && prefault) {
                    current.prepareChunks(nullFill);
                }
                s.prepareChunks(nullFill);
            } catch (final RuntimeException e) {
                // pre-faulting is only a hint: the writer's own writes fault the pages in
            }
        });
        return next;
    }

    /**
     * Widens zone maps with rows {@code [zoneRow, to)} from the files at a block end (nothing when {@code to} is not
     * beyond the watermark), then re-points the flyweights left on earlier rows, which may still write rows whose zone
     * maps this just widened: each records what it can reach (see {@link #mappedRuns}), widened again once, at commit.
     * The appender is left out: append() wraps it at the next row at once. On the staging path nothing is flushed here
     * (the watermark follows the copied windows).
     *
     * @param to       the first row not to widen.
     * @param appender the flyweight append() wraps at {@code to} next, or null.
     */
    private void flushMappedZones(final long to, final Flyweight appender) {
        final long end = Math.min(to, rawLimit());
        if (end > zoneRow) {
            flushZones(end);
            refreshAttached(appender);
        }
    }

    /**
     * Returns how far the zone watermark may move before commit: up to the first row of the first segment from the
     * watermark's on whose raw column addresses were handed out (see {@link #rawSegments}), or without limit.
     *
     * @return the first row whose zone maps must wait for the commit.
     */
    private long rawLimit() {
        final int raw = rawSegments.nextSetBit((int) (zoneRow >>> shift));
        return raw < 0 ? Long.MAX_VALUE : Math.max(zoneRow, (long) raw << shift);
    }

    /**
     * Marks a segment's column addresses as handed out (see {@link #rawSegments}). Its uncommitted rows whose zone maps
     * were already widened (appendRow past a block end before the address was asked for) may now be stored into too:
     * the watermark goes back to the first of them, and their blocks are recomputed at commit (so an overwritten value
     * does not stay in an entry) before the commit widens them again, once.
     */
    private void rawAddressesOut(final int segment) {
        rawSegments.set(segment);
        final long first = Math.max(committedRows, (long) segment << shift);
        if (first < (long) (segment + 1) << shift) {
            unwiden(first);
        }
    }

    /**
     * Takes the zone watermark back to {@code from} when it is past it: rows {@code [from, zoneRow)} were widened in,
     * and stores that may now come could overwrite their values, so their blocks are recomputed at commit (an
     * overwritten value must not stay in an entry) and the rows are widened again from the watermark, once.
     */
    private void unwiden(final long from) {
        if (from < zoneRow) {
            mappedRuns.add(from, zoneRow);
            zoneRow = from;
        }
    }

    /** Widens zone maps with rows {@code [zoneRow, to)} and moves the watermark to {@code to}. */
    private void flushZones(final long to) {
        widenFromFiles(zoneRow, to);
        zoneRow = to;
    }

    /** Widens zone maps with rows {@code [from, to)} as they are in the segment files (nothing when empty). */
    private void widenFromFiles(final long from, final long to) {
        if (to > from) {
            zoneRowsRead += to - from;
            forEachSegment(from, to, Segment::updateZones);
        }
    }

    /** What to do with rows {@code [from, to)} of one segment. */
    @FunctionalInterface
    private interface SegmentRows {
        void apply(Segment segment, int from, int to);
    }

    /** Applies {@code action} to rows {@code [from, to)}, one call per segment they span. */
    private void forEachSegment(final long from, final long to, final SegmentRows action) {
        long at = from;
        while (at < to) {
            final int seg = (int) (at >>> shift);
            final long segStart = (long) seg << shift;
            final long end = Math.min(to, segStart + segmentRows);
            action.apply(segments.get(seg), (int) (at - segStart), (int) (end - segStart));
            at = end;
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
        if (pendingRows == committedRows && !dictionariesGrew()) {
            return;
        }
        if (copyFailure != null) {
            throw new StoreException("cannot commit table '" + schema.name()
                + "': rows appended since the last commit could not"
                + " be copied into the segment files (" + copyFailure.getMessage()
                + "); rollback() and append them again",
                copyFailure);
        }
        if (staging) {
            // every appended row is in the files before the row count is published; the window stays open
            flushStage();
        }
        // after the window in flight is in (when staging: the stage flusher widens the same zone-map entries)
        recomputeMappedRuns();
        if (staging) {
            refreshAttached();
        }
        flushZones(pendingRows);
        // the blocks these rows fill never change again: their checksums, which readers verify, are written once here
        forEachSegment(committedRows, pendingRows, Segment::checksumZones);
        final long[] counts = new long[dictionaries.length];
        final long[] bytes = new long[dictionaries.length];
        for (int i = 0; i < dictionaries.length; i++) {
            counts[i] = dictionaries[i].size();
            bytes[i] = dictionaries[i].byteLength();
        }
        final boolean sync = durability == Durability.SYNC;
        if (sync) {
            forEachSegment(committedRows, pendingRows, Segment::sync);
            for (final SymbolDictionary d : dictionaries) {
                d.sync();
            }
            // New segment files must be reachable after a power loss: sync their directory entries once.
            final int lastSeg = (int) ((pendingRows - 1) >> shift);
            if (pendingRows > 0 && durableSegments <= lastSeg) {
                for (int seg = durableSegments; seg <= lastSeg; seg++) {
                    MappedFile.syncDirectory(segments.get(seg).directory());
                }
                MappedFile.syncDirectory(dir);
                durableSegments = lastSeg + 1;
            }
        }
        state = txn.publish(state, pendingRows, counts, bytes, sync);
        final long before = committedRows;
        committedRows = pendingRows;
        mappedRuns.clear();
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
     * Told when a commit makes segments wholly committed: their rows never change again, so derived files may be built.
     */
    @FunctionalInterface
    public interface SealListener {
        /**
         * Called on the writer's thread right after the commit that published the last rows of segments
         * {@code [from, to)}; a reader's snapshot taken now holds them. Must return quickly and must not throw (the
         * commit is done): long work belongs on another thread.
         *
         * @param from the first segment now wholly committed.
         * @param to   the end (exclusive).
         */
        void sealed(int from, int to);

        /**
         * Called when the writer closes, first, while every segment file is still mapped (a store or table closing
         * closes its writer before its readers): work on the segments must end here.
         */
        default void writerClosing() {
        }
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

    private boolean dictionariesGrew() {
        for (int i = 0; i < dictionaries.length; i++) {
            if (dictionaries[i].size() != state.dictCounts()[i]) {
                return true;
            }
        }
        return false;
    }

    /**
     * Discards rows and dictionary entries appended since the last commit; the table stays at that commit. A failed
     * copy of staged rows (see {@link #commit()}) is not thrown here: those rows are discarded.
     */
    public void rollback() {
        checkOpen();
        try {
            awaitFlight();
        } catch (final StoreException e) {
            // a failed copy of rows that are discarded here: nothing of it is left to report
        }
        copyFailure = null;
        for (int i = 0; i < dictionaries.length; i++) {
            dictionaries[i].truncate(state.dictCounts()[i], state.dictBytes()[i]);
        }
        if (pendingRows == committedRows) {
            return;
        }
        final int firstSeg = (int) (committedRows >>> shift);
        final int lastSeg = (int) ((pendingRows - 1) >>> shift);
        for (int seg = firstSeg; seg <= lastSeg && seg < segments.size(); seg++) {
            final long segStart = (long) seg << shift;
            resetTail(segments.get(seg), (int) Math.max(0, committedRows - segStart));
        }
        pendingRows = committedRows;
        zoneRow = committedRows;
        nulledRows = committedRows;
        if (staging) {
            // an empty window: the next append opens one, null-filled from the committed row
            emptyWindow(committedRows);
        }
        refreshAttached();
        mappedRuns.clear();
    }

    /**
     * Rolls back as {@link #rollback()} does, then closes and deletes every segment that holds no committed row, those
     * created ahead included, so that the space reserved for them goes back to the file system: segment files are
     * created at full size, and a failed bulk load (the CSV loader calls this) would otherwise leave a small disk full.
     * The next append creates the segment again. Addresses from {@link #columnAddress} of a deleted segment are invalid
     * afterwards; a flyweight left on one of its rows points at a scratch row of this writer until it moves.
     */
    public void rollbackAndDeleteSegments() {
        rollback();
        final int needed = segmentsHolding(committedRows);
        if (precreator != null) {
            // as at close: no segment is unmapped while the background thread faults it in; the next segment created
            // ahead starts a new thread
            stopBackground();
            precreator = null;
            closing = false;
        }
        discardAhead();
        while (segments.size() > needed) {
            segments.remove(segments.size() - 1).close();
        }
        segmentEndRow = (long) needed << shift;
        rawSegments.clear(needed, Math.max(needed, rawSegments.length()));
        // a segment whose creation failed (a full disk) is on disk but not in the list
        SegmentDirectories.deleteQuietly(dir, needed);
        refreshAttached();
    }

    /** @return how many segments rows {@code [0, rows)} occupy. */
    private int segmentsHolding(final long rows) {
        return (int) ((rows + segmentRows - 1) >>> shift);
    }

    /**
     * Returns the writer's dictionary of a symbol column.
     *
     * @param column a symbol column index.
     * @return its dictionary.
     */
    public SymbolDictionary dictionary(final int column) {
        checkSymbolColumn(column);
        return dictionaries[symbolSlot[column]];
    }

    private void checkSymbolColumn(final int column) {
        Bounds.checkIndex("column", column, schema.columnCount(), "columnCount");
        if (symbolSlot[column] < 0) {
            throw new StoreException("column '" + schema.column(column).name() + "' is " + schema.column(column)
                .typeName()
                + ", not a symbol");
        }
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
        Bounds.checkIndex("segment", segment, segments.size(), "segmentCount");
        Bounds.checkIndex("column", column, schema.columnCount(), "columnCount");
        if (staging) {
            stopStaging();
        }
        if (!rawSegments.get(segment)) {
            rawAddressesOut(segment);
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
        Bounds.checkIndex("segment", segment, segments.size(), "segmentCount");
        rawSegments.clear(segment);
    }

    @Override
    public long rowAddress(final long row, final int column) {
        if (row >= stageFrom && row < stageEnd) {
            return stage.address(column, (int) (row - stageBase));
        }
        if (row >= flightFrom && row < stageFrom) {
            // a row the stage flusher is copying: once it is in the files, its place is the mapping
            awaitFlight();
        }
        if (row >= segmentEndRow) {
            // a flyweight left on a row of a segment deleted since (rollbackAndDeleteSegments): its writes go nowhere
            return detachedRow() + (long) column * Long.BYTES;
        }
        final int seg = (int) (row >>> shift);
        return segments.get(seg).columnBase(column) + (row - ((long) seg << shift)) * strides[column];
    }

    /** @return this writer's scratch row (a long per column), allocated the first time a flyweight needs it. */
    private long detachedRow() {
        if (detachedRow == 0) {
            detachedRow = NativeMemory.allocate((long) schema.columnCount() * Long.BYTES);
        }
        return detachedRow;
    }

    /**
     * {@inheritDoc} For a mapped row, also records that the run's uncommitted rows whose zone maps were already widened
     * (below the zone watermark) may be written through the mappings from now on: their zone maps are widened from the
     * files again at commit (see {@link #mappedRuns}). Once per positioning, not once per column address.
     */
    @Override
    public long addressRunEnd(final long row) {
        if (row >= stageFrom && row < stageEnd) {
            return stageEnd;
        }
        if (row >= flightFrom && row < stageFrom) {
            awaitFlight();
        }
        final long end = mappedRunEnd(row);
        // a committed row's run may reach into uncommitted rows; rows from the watermark on are widened at their block
        // end (mapped path) or are not in the files yet (staging)
        if (row < zoneRow) { // an append positions at or past the watermark: nothing to record, no call per row
            final long widenedEnd = Math.min(end, zoneRow);
            if (widenedEnd > committedRows) {
                mappedRuns.add(Math.max(row, committedRows), widenedEnd);
            }
        }
        return end;
    }

    /** @return the end of the run of mapped rows from {@code row}: a row neither staged nor in flight. */
    private long mappedRunEnd(final long row) {
        if (row >= segmentEndRow) {
            return row + 1; // the scratch row of a deleted segment's row: a run of one, so that no next() steps past it
        }
        // rows from the window in flight (or the open window) on are not read from the mappings
        final long fileEnd = Math.min(flightFrom, stageFrom);
        final long segEnd = ((row >>> shift) + 1) << shift;
        return row < fileEnd ? Math.min(segEnd, fileEnd) : segEnd;
    }

    @Override
    public void attach(final Flyweight flyweight) {
        attached.put(flyweight, Boolean.TRUE);
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

    private void checkOpen() {
        if (closed) {
            throw new StoreException("writer of table '" + schema.name() + "' is closed");
        }
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
            if (flusher != null) {
                flusher.stop();
            }
            for (final StagingArea a : new StagingArea[] {stage, spare, flight}) {
                if (a != null) {
                    a.close();
                }
            }
            stage = null;
            spare = null;
            flight = null;
            try {
                refreshAttached();
            } finally {
                attached.clear();
            }
            if (precreator != null) {
                stopBackground();
                discardAhead();
            }
            for (final Segment s : segments) {
                s.close();
            }
            segments.clear();
            // the segments no committed row needs hold full-size files: give their space back (see
            // rollbackAndDeleteSegments)
            SegmentDirectories.deleteQuietly(dir, segmentsHolding(committedRows));
            if (detachedRow != 0) {
                NativeMemory.free(detachedRow, (long) schema.columnCount() * Long.BYTES);
                detachedRow = 0;
            }
            for (final SymbolDictionary d : dictionaries) {
                d.close();
            }
            txn.close();
            releaseLock();
            table.writerClosed(this);
        }
    }

    /**
     * Stops the background thread's pre-faulting (it returns after its current chunk) and waits for it to finish, so
     * that no segment is unmapped while it is being faulted in.
     */
    private void stopBackground() {
        closing = true;
        stopPrefaultAll();
        Shutdown.awaitTasks(precreator);
    }

    /** Discards every segment created ahead. */
    private void discardAhead() {
        while (!ahead.isEmpty()) {
            discard(ahead.pollFirst());
        }
    }

    /**
     * Closes a segment created ahead that holds no rows, and deletes it (it is created again when needed). Waits for
     * its creation even on an interrupted thread (it takes a bounded time): otherwise the segment would stay mapped and
     * on disk.
     */
    private static void discard(final CompletableFuture<Segment> created) {
        final Segment unused;
        try {
            unused = created.join();
        } catch (final CompletionException e) {
            return; // nothing was mapped
        }
        unused.close();
        SegmentDirectories.deleteQuietly(unused.directory());
    }

    private void releaseLock() {
        try {
            if (lock != null) {
                lock.release();
            }
        } catch (final IOException e) {
            // closing the channel releases it too
        }
        closeQuietly(lockChannel);
        HELD_LOCKS.remove(lockPath);
    }

    private static Path lockKey(final Path lockFile) {
        try {
            return lockFile.getParent().toRealPath().resolve(lockFile.getFileName());
        } catch (final IOException e) {
            return lockFile.toAbsolutePath().normalize();
        }
    }

    private static void closeQuietly(final FileChannel ch) {
        if (ch != null) {
            try {
                ch.close();
            } catch (final IOException e) {
                // nothing more to release
            }
        }
    }
}
