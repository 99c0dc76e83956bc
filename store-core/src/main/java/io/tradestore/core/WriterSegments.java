package io.tradestore.core;

import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.BooleanSupplier;

import io.tradestore.core.memory.FileAllocator;
import io.tradestore.core.memory.MappedFile;
import io.tradestore.core.schema.Schema;
import io.tradestore.core.segment.Segment;

/**
 * The segments a {@link TableWriter} appends into: the open ones, in order, and for large segments the next ones,
 * created and faulted in ahead by a background thread. On this VM the first touch of fresh memory, not the writer,
 * sets the pace of appends through the mappings, so the background thread and the writer share that work: the writer
 * takes a chunk of rows the background thread has not reached and faults it in itself ({@link Segment#claimChunk}).
 * Owned by the writer's thread; only {@link #prefault} and {@link #rowAppends} are read by the background thread.
 */
final class WriterSegments {
    /** Segments of at least this many rows are created and pre-faulted by a background thread. */
    private static final int PRECREATE_MIN_ROWS = 1 << 16;
    private final Schema schema;
    private final Path dir;
    private final FileAllocator allocator;
    private final int shift;
    private final long segmentRows;
    private final List<Segment> segments = new ArrayList<>();
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
    /**
     * Whether the background thread faults segments in ahead of the writer; off while a bulk writer copies whole column
     * runs with {@link TableWriter#writeColumn} (write(2) allocates the pages itself).
     */
    private volatile boolean prefault = true;
    /**
     * Whether rows arrive through appendRow (the flyweight path): then the background thread null-fills the chunks it
     * prepares, off the writer's thread. Bulk writers (reserve) write whole rows and get chunks that are only faulted
     * in.
     */
    private volatile boolean rowAppends;
    /** The first row of the segment after the last open one. */
    private long endRow;
    /** Segments whose directory entries were synced (SYNC durability): those before this index. */
    private int durableSegments;
    private long waitNs;

    WriterSegments(final Schema schema, final Path dir, final FileAllocator allocator) {
        this.schema = schema;
        this.dir = dir;
        this.allocator = allocator;
        this.shift = schema.segmentShift();
        this.segmentRows = schema.segmentRows();
        this.background = segmentRows >= PRECREATE_MIN_ROWS;
    }

    /**
     * Opens the segments that hold the committed rows, removing any segment directory past them (left by a writer
     * that crashed or failed before its commit), and checks each segment's zone maps as a reader would: a damaged
     * entry is refused before this writer builds on it.
     *
     * @param committedRows the table's committed rows.
     * @param firstRow      the first row retention kept: segments below it are not opened, and deleted if a crash
     *                      left them.
     */
    void openCommitted(final long committedRows, final long firstRow) {
        final int segCount = holding(committedRows);
        SegmentDirectories.clearPastCommit(dir, (int) (committedRows >>> shift), segCount);
        final int first = (int) (firstRow >>> shift);
        SegmentDirectories.deleteBelow(dir, first);
        for (int i = 0; i < first; i++) {
            segments.add(null);
        }
        for (int i = first; i < segCount; i++) {
            final Segment s = Segment.open(schema, dir, i, true);
            segments.add(s);
            final long held = committedRows - ((long) i << shift);
            if (held < segmentRows) {
                s.clearEnd(); // an early end no commit moved past: a crash or rollback left it (see ZoneMapDescriptor)
            }
            s.verifyZones(s.rowsHeld(held));
        }
        if (segCount > 0) {
            endRow = (long) segCount << shift;
            final int committedInSegment = (int) (committedRows - ((long) (segCount - 1) << shift));
            final Segment last = segments.get(segCount - 1);
            if (last != null) { // null: full, and dropped by retention with every segment before it
                resetTail(last, committedInSegment);
                last.claimChunksBelow(committedInSegment);
            }
        }
    }

    /** @return whether segments are created and pre-faulted by a background thread. */
    boolean background() {
        return background;
    }

    /** @return the open segment {@code index}. */
    Segment get(final int index) {
        return segments.get(index);
    }

    /**
     * Checks a segment index a caller gave.
     *
     * @param index the segment index.
     * @throws IndexOutOfBoundsException when no segment has it, or retention dropped it.
     */
    void check(final int index) {
        Bounds.checkIndex("segment", index, segments.size(), "segmentCount");
        if (segments.get(index) == null) {
            throw new IndexOutOfBoundsException("segment " + index + " was dropped by retention");
        }
    }

    /** @return the segment holding table row {@code row}. */
    Segment at(final long row) {
        return segments.get((int) (row >>> shift));
    }

    /**
     * @return bytes faulted in ahead of writes so far, over the open segments and those created ahead (done or not).
     */
    long populatedBytes() {
        long n = 0;
        for (final Segment s : segments) {
            n += s == null ? 0 : s.populatedBytes();
        }
        for (final CompletableFuture<Segment> next : ahead) {
            final Segment s = next.isDone() && !next.isCompletedExceptionally() ? next.getNow(null) : null;
            n += s == null ? 0 : s.populatedBytes();
        }
        return n;
    }

    /** @return how many segments are open. */
    int count() {
        return segments.size();
    }

    /** @return the first row past the last open segment: an append there opens the next segment first. */
    long endRow() {
        return endRow;
    }

    /** @return how many segments rows {@code [0, rows)} occupy. */
    int holding(final long rows) {
        return (int) ((rows + segmentRows - 1) >>> shift);
    }

    /** @return nanoseconds the writer's thread waited for segments, chunks and window copies (see the writer). */
    long waitNanos() {
        return waitNs;
    }

    /** Adds time the writer's thread waited for the files (see {@link TableWriter#segmentWaitNanos()}). */
    void waited(final long ns) {
        waitNs += ns;
    }

    /** @return whether the background thread pre-faults chunks ahead of the writer. */
    boolean prefault() {
        return prefault;
    }

    /** Sets whether the background thread pre-faults chunks ahead of the writer (see the writer's updatePrefault). */
    void prefault(final boolean on) {
        prefault = on;
    }

    /** Tells the background thread that rows are appended one by one, so chunks it prepares are null-filled. */
    void rowAppends() {
        rowAppends = true;
    }

    /**
     * Makes a segment's zone map exact again for its first {@code committedInSegment} rows. The rows after them are
     * left as they are: appendRow nulls rows before handing them out and reserve callers write whole rows, so an
     * uncommitted tail is overwritten before it can be committed. The partial block is recomputed before the segment
     * entry is rebuilt from the blocks, so a concurrent reader never sees a segment entry narrower than the committed
     * rows.
     */
    void resetTail(final Segment s, final int committedInSegment) {
        final int block = committedInSegment / schema.blockRows();
        final boolean partial = committedInSegment % schema.blockRows() != 0;
        if (partial) {
            s.recomputeBlocks(block, block + 1, committedInSegment);
        }
        s.resetZones(partial ? block + 1 : block);
    }

    /** Resets the zone maps of every open segment rows {@code [committedRows, pendingRows)} reach (a rollback). */
    void resetTails(final long committedRows, final long pendingRows) {
        final int firstSeg = (int) (committedRows >>> shift);
        final int lastSeg = (int) ((pendingRows - 1) >>> shift);
        for (int seg = firstSeg; seg <= lastSeg && seg < segments.size(); seg++) {
            final long segStart = (long) seg << shift;
            segments.get(seg).clearEnd(); // ended after the commit (a partitioned table): it goes on where it was
            resetTail(segments.get(seg), (int) Math.max(0, committedRows - segStart));
        }
    }

    /**
     * Takes the segment created ahead, or creates the next segment on this thread; it is not open until
     * {@link #add}.
     *
     * @return the next segment.
     */
    Segment next() {
        final int index = segments.size();
        final CompletableFuture<Segment> next = ahead.pollFirst();
        if (next != null) {
            try {
                return next.get();
            } catch (final InterruptedException e) {
                // kept for the next attempt (or for close() to delete): dropped, it would stay mapped and on disk
                ahead.addFirst(next);
                Thread.currentThread().interrupt();
                throw new StoreException("interrupted while waiting for segment " + index + " of table '"
                    + schema.name() + "' to be created; nothing was appended and the thread is still interrupted: "
                    + "clear the interrupt and append again to continue, or close the writer", e);
            } catch (final ExecutionException e) {
                // the segments after it were created for the wrong indexes now: the next attempt creates this one again
                discardAhead();
                throw e.getCause() instanceof StoreException ? (StoreException) e.getCause()
                    : new StoreException("cannot create segment " + index + ": " + e.getCause(), e.getCause());
            }
        }
        return Segment.create(schema, dir, index, allocator);
    }

    /**
     * Opens the segment {@link #next()} returned and starts creating the ones after it.
     *
     * @param s          the new last segment.
     * @param pendingRows the writer's appended rows (the background thread pre-faults the rest of the current
     *                    segment first).
     * @param staging    whether the writer stages rows (it then wants two segments ahead).
     */
    void add(final Segment s, final long pendingRows, final boolean staging) {
        segments.add(s);
        endRow += segmentRows;
        createAhead(pendingRows, staging);
    }

    /**
     * Starts the background creation of the segments after the open ones until as many are ahead as the writer wants
     * (none without the background thread).
     */
    void createAhead(final long pendingRows, final boolean staging) {
        final int wanted = background ? (staging ? 2 : 1) : 0;
        final int next = segments.size();
        while (ahead.size() < wanted) {
            ahead.addLast(precreate(next + ahead.size(), pendingRows));
        }
    }

    /**
     * Starts creating segment {@code index} in the background (blocks reserved, files mapped), then pre-faults the
     * chunks of the writer's current segment that the writer has not reached, then those of the new segment.
     */
    private CompletableFuture<Segment> precreate(final int index, final long pendingRows) {
        assert background : "segments are created ahead only for large segments";
        if (precreator == null) {
            precreator = Executors.newSingleThreadExecutor(r -> {
                final Thread t = new Thread(r, "tradestore-precreate-" + schema.name());
                t.setDaemon(true);
                return t;
            });
        }
        // the segment the writer appends into, unless it is full (a writer opened at a segment boundary)
        final Segment current = endRow > pendingRows ? segments.get(segments.size() - 1) : null;
        final CompletableFuture<Segment> next = new CompletableFuture<>();
        final BooleanSupplier nullFill = () -> rowAppends;
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

    /** Stops the background thread's pre-faulting of every segment, open or created ahead. */
    void stopPrefaultAll() {
        for (final Segment s : segments) {
            if (s != null) {
                s.stopPrefault();
            }
        }
        for (final CompletableFuture<Segment> next : ahead) {
            if (next.isDone() && !next.isCompletedExceptionally()) {
                next.getNow(null).stopPrefault();
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
    boolean claimChunk(final Segment s, final int inSegment) {
        final long start = System.nanoTime();
        try {
            return s.claimChunk(inSegment);
        } finally {
            waitNs += System.nanoTime() - start;
        }
    }

    /** Takes every chunk that starts inside rows {@code [row, row + count)} of one segment (bulk writes). */
    void claimChunks(final long row, final int count) {
        final Segment s = at(row);
        final int chunkRows = s.prefaultChunkRows();
        final int from = (int) (row & (segmentRows - 1));
        for (int c = (from + chunkRows - 1) / chunkRows * chunkRows; c < from + count; c += chunkRows) {
            claimChunk(s, c);
        }
    }

    /**
     * Null-fills {@code rows} rows from {@code row} (within its segment) in one bulk pass, so that appendRow hands out
     * null rows without a per-row fill; a chunk small enough to be still in cache when the flyweight's setters
     * overwrite it.
     *
     * @return the first row not null-filled.
     */
    long fillNulls(final long row, final int rows) {
        final int seg = (int) (row >>> shift);
        final int from = (int) (row & (segmentRows - 1));
        final int to = (int) Math.min(segmentRows, from + rows);
        segments.get(seg).fillNulls(from, to);
        return ((long) seg << shift) + to;
    }

    /** What to do with rows {@code [from, to)} of one segment. */
    @FunctionalInterface
    interface SegmentRows {
        void apply(Segment segment, int from, int to);
    }

    /**
     * Applies {@code action} to table rows {@code [from, to)}, one call per segment they span, leaving out the rows
     * after the end of a segment ended early (a partitioned table's), which hold nothing.
     */
    void forEach(final long from, final long to, final SegmentRows action) {
        long at = from;
        while (at < to) {
            final int seg = (int) (at >>> shift);
            final long segStart = (long) seg << shift;
            final Segment s = segments.get(seg);
            final long end = Math.min(to, segStart + s.sealedRows());
            if (end > at) {
                action.apply(s, (int) (at - segStart), (int) (end - segStart));
            }
            at = Math.min(to, segStart + segmentRows);
        }
    }

    /**
     * Syncs the directory entries of segments created since the last call, so new segment files are reachable after
     * a power loss (SYNC durability), once per segment.
     *
     * @param pendingRows the rows about to be committed.
     */
    void syncNewDirectories(final long pendingRows) {
        final int lastSeg = (int) ((pendingRows - 1) >> shift);
        if (pendingRows > 0 && durableSegments <= lastSeg) {
            for (int seg = durableSegments; seg <= lastSeg; seg++) {
                MappedFile.syncDirectory(segments.get(seg).directory());
            }
            MappedFile.syncDirectory(dir);
            durableSegments = lastSeg + 1;
        }
    }

    /**
     * Closes and deletes every segment past the first {@code needed}, those created ahead included, so their space
     * goes back to the file system (segment files are created at full size).
     */
    void deletePast(final int needed) {
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
        endRow = (long) needed << shift;
        // a segment whose creation failed (a full disk) is on disk but not in the list
        SegmentDirectories.deleteQuietly(dir, needed);
    }

    /**
     * Stops the background thread, closes every segment and deletes those past the first {@code needed}, which hold
     * no committed row but full-size files.
     */
    void close(final int needed) {
        if (precreator != null) {
            stopBackground();
            discardAhead();
        }
        closeOpen();
        SegmentDirectories.deleteQuietly(dir, needed);
    }

    /** Closes the open segments (a writer that failed to open: none was created ahead yet). */
    void closeOpen() {
        for (final Segment s : segments) {
            if (s != null) {
                s.close();
            }
        }
        segments.clear();
    }

    /**
     * The first segment retention keeps: from {@code from}, segments go as long as they are sealed and their newest
     * designated timestamp is below the cut (a segment with a newer row stops the drop, even if later ones are older).
     *
     * @param from     the first segment kept now.
     * @param sealed   the segments wholly committed.
     * @param cutNanos epoch nanoseconds.
     * @return the first segment to keep.
     * @throws StoreException when the table has no designated timestamp.
     */
    int keptFrom(final int from, final int sealed, final long cutNanos) {
        final int ts = schema.timestampIndex();
        if (ts < 0) {
            throw new StoreException("table '" + schema.name() + "' has no designated timestamp; retention drops by "
                + "time");
        }
        int first = from;
        while (first < sealed && segments.get(first).zoneMax(-1, ts) < cutNanos) {
            first++;
        }
        return first;
    }

    /**
     * Unmaps the segments below {@code first}, which retention dropped (sealed: the background thread no longer touches
     * them), and deletes their directories.
     *
     * @param first    the first segment kept.
     * @param listener told after the deletion (its reader lets go of them), or null.
     * @return how many segment directories were deleted.
     */
    int dropBelow(final int first, final SealListener listener) {
        for (int i = 0; i < first && i < segments.size(); i++) {
            final Segment s = segments.get(i);
            if (s != null) {
                s.close();
                segments.set(i, null);
            }
        }
        final int deleted = SegmentDirectories.deleteBelow(dir, first);
        if (listener != null) {
            listener.dropped(first);
        }
        return deleted;
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
}
