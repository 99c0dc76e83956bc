package io.tradestore.core;

import io.tradestore.core.schema.Schema;
import io.tradestore.core.segment.Segment;
import io.tradestore.core.segment.StagingArea;

/**
 * The staging buffers of a {@link TableWriter}: the open window, the spare one, and the window in flight, which the
 * {@link StageFlusher} copies into the segment files while the writer fills the other (double buffering). The writer
 * keeps the window's row bounds itself, in fields its per-row path reads; this class owns the memory and the hand-off.
 *
 * <p>Row appends ({@link TableWriter#append}, {@link TableWriter#appendRow()}) go through a small <b>staging area</b>
 * where write(2) is available (Linux with net.openhft:posix; property {@code tradestore.append.staging}, default true):
 * the flyweight's setters write into a window of {@value TableWriter#DEFAULT_STAGE_ROWS} rows laid out like the segment
 * files, which stays in the L2 cache, and the window is copied into the segment files with write(2) when it is full, at
 * {@link TableWriter#commit()} (before the row count is published), and before the mapped addresses are handed out
 * ({@link TableWriter#columnAddress}, {@link TableWriter#reserve}). The zone maps are widened from the staged values
 * while they are in cache. write(2) lands in the same page cache as the mappings, so readers in any process see the
 * rows through their mappings, and a crash leaves the files as stores would have. What it saves: page faults,
 * zero-filling of fresh pages that are then overwritten, cache misses on 8 column streams, and a second pass over
 * mapped memory for the zone maps. Flyweights bound to the writer are re-pointed ({@link Flyweight#refresh()}) whenever
 * staged rows move into the files. A writer whose mapped column addresses are asked for ({@link
 * TableWriter#columnAddress}, {@link TableWriter#reserve}) copies its staged rows out and appends through the mappings
 * from then on.
 *
 * <p>The flusher runs for segments of 65,536 rows or more (property {@code tradestore.append.stageThread}); the writer
 * copies the files that thread has not reached when it needs the window back, and waits for it before a commit, a
 * rollback, mapped addresses or close. Only the appending flyweight may point into a window in flight: another
 * flyweight left in it is re-pointed at once, which waits for the copy, so no store races it.
 */
final class StageWindows {
    private final Schema schema;
    private final int rows;
    private final WriterSegments segments;
    /** The open window, or null until the first one is needed. */
    private StagingArea stage;
    /** The second staging window (double buffering with the stage flusher); null until first needed. */
    private StagingArea spare;
    private StageFlusher flusher;
    /** The window the flusher is copying, or null; its rows start at {@link #flightFrom}. */
    private StagingArea flight;
    /** The first row of the window in flight, or MAX_VALUE without one. */
    private long flightFrom = Long.MAX_VALUE;
    /**
     * The failure of the stage flusher's copy of a window, once reported: its rows are not (all) in the files, so no
     * commit may publish them; only a rollback (or close) clears it.
     */
    private StoreException copyFailure;

    StageWindows(final Schema schema, final int rows, final WriterSegments segments) {
        this.schema = schema;
        this.rows = rows;
        this.segments = segments;
    }

    /**
     * Reads the window size from {@link TableWriter#STAGE_ROWS_PROPERTY}.
     *
     * @return rows per window, {@link TableWriter#DEFAULT_STAGE_ROWS} by default.
     */
    static int rowsProperty() {
        final int rows = Integer.getInteger(TableWriter.STAGE_ROWS_PROPERTY, TableWriter.DEFAULT_STAGE_ROWS);
        if (rows < 1 || Integer.bitCount(rows) != 1) {
            throw new StoreException(TableWriter.STAGE_ROWS_PROPERTY + "=" + rows + " must be a power of two");
        }
        return rows;
    }

    /** @return rows per window (a power of two). */
    int rows() {
        return rows;
    }

    /** @return the open window, created the first time. */
    StagingArea open() {
        if (stage == null) {
            stage = new StagingArea(schema, rows);
        }
        return stage;
    }

    /** @return the open window (the writer only asks while one is open). */
    StagingArea stage() {
        return stage;
    }

    /** @return the first row of the window in flight, or {@code Long.MAX_VALUE} without one. */
    long flightFrom() {
        return flightFrom;
    }

    /** @return the failure of a window's copy reported since the last rollback, or null. */
    StoreException copyFailure() {
        return copyFailure;
    }

    /** Forgets a reported copy failure: its rows were discarded (a rollback). */
    void clearCopyFailure() {
        copyFailure = null;
    }

    /**
     * Waits until the window in flight (if any) is in the segment files, copying the files the stage flusher has not
     * started yet on this thread, and keeps it as the spare window.
     */
    void awaitFlight() {
        if (flight == null) {
            return;
        }
        final long start = System.nanoTime();
        try {
            flusher.await();
        } catch (final StoreException e) {
            // the window's rows already count as copied (the writer's window and zone watermark moved past them at the
            // hand-off)
            if (copyFailure == null) {
                copyFailure = e;
            }
            throw e;
        } finally {
            segments.waited(System.nanoTime() - start);
            spare = flight;
            flight = null;
            flightFrom = Long.MAX_VALUE;
        }
    }

    /**
     * Copies rows {@code [from, end)} of the open window into a segment's files with write(2), widening their zone
     * maps from the staged values: on this thread, or by the stage flusher while the writer continues in the spare
     * window (the window is then in flight; call {@link #awaitFlight()} first).
     *
     * @param segment   the segment the rows belong to.
     * @param areaRow0  the segment row of the window's first row.
     * @param from      the first segment row to copy.
     * @param end       the end (exclusive).
     * @param fromRow   the table row of {@code from}.
     * @param byFlusher whether the stage flusher copies the window.
     */
    void copy(final Segment segment, final int areaRow0, final int from, final int end, final long fromRow,
        final boolean byFlusher) {
        if (byFlusher) {
            if (flusher == null) {
                flusher = new StageFlusher("tradestore-stage-" + schema.name(), segment.dataFileCount());
            }
            flight = stage;
            flightFrom = fromRow;
            stage = spare; // null at first: open() creates it
            spare = null;
            flusher.submit(segment, flight, areaRow0, from, end);
        } else {
            segment.writeStaged(stage, areaRow0, from, end);
        }
    }

    /** Frees the open and spare windows (the writer stops staging; nothing is in flight). */
    void free() {
        if (stage != null) {
            stage.close();
            stage = null;
        }
        if (spare != null) {
            spare.close();
            spare = null;
        }
    }

    /** Stops the flusher and frees every window. */
    void close() {
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
    }
}
