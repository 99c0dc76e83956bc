package io.tradestore.query.index;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import io.tradestore.core.SealListener;
import io.tradestore.core.Shutdown;
import io.tradestore.core.StoreException;
import io.tradestore.core.Table;
import io.tradestore.core.TableReader;
import io.tradestore.core.TableSnapshot;
import io.tradestore.core.TableWriter;
import io.tradestore.core.schema.Column;
import io.tradestore.core.schema.ColumnType;
import io.tradestore.core.segment.Segment;
import io.tradestore.query.spi.Deadline;

/**
 * Builds the bitmap index of every symbol column of a segment when a writer's commit seals it (its last rows
 * committed: it never changes again), on threads of its own (one per core, one index per task; docs/cli.md, "load"),
 * so that the first query after a load reads index files instead of building them. Other indexable columns (integer
 * ids, chars) are built by the first query that filters on them ({@link BitmapIndexes#index}), as is any index this one
 * did not write (a table written without it, a damaged file). Segments smaller than
 * {@link BitmapIndexes#DEFAULT_MIN_SEGMENT_ROWS} are scanned, so not indexed.
 *
 * <pre>{@code
 * try (TableWriter w = table.writer(); SealIndexer ix = SealIndexer.attach(table, w)) {
 *     ... append and commit ...
 * } // close() waits for the builds the commits started
 * }</pre>
 */
public final class SealIndexer implements SealListener, AutoCloseable {
    private final TableReader reader;
    private final ExecutorService thread;
    private final AtomicLong built = new AtomicLong();
    private long waitNanos;
    private final AtomicReference<RuntimeException> failure = new AtomicReference<>();
    private volatile boolean closed;

    private SealIndexer(final Table table) {
        this.reader = table.reader();
        final AtomicInteger n = new AtomicInteger();
        this.thread = Executors.newFixedThreadPool(Runtime.getRuntime().availableProcessors(), r -> {
            final Thread t = new Thread(r, "tradestore-index-" + table.name() + "-" + n.incrementAndGet());
            t.setDaemon(true);
            return t;
        });
    }

    /**
     * Creates an indexer for a table and sets it as its writer's seal listener.
     *
     * @param table  the table.
     * @param writer its writer.
     * @return the indexer; close it after the writer's last commit (before or after closing the writer).
     */
    public static SealIndexer attach(final Table table, final TableWriter writer) {
        final SealIndexer ix = new SealIndexer(table);
        writer.onSeal(ix);
        return ix;
    }

    @Override
    public void sealed(final int from, final int to) {
        if (closed) {
            return; // commits after close() (or the writer's close): not indexed here; queries build what they need
        }
        // the snapshot of the commit that sealed them (taken on the writer's thread: it is the latest now)
        final TableSnapshot snap;
        try {
            snap = reader.snapshot();
        } catch (final RuntimeException e) {
            failure.compareAndSet(null, e); // the commit is done: told at close(), never thrown into it
            return;
        }
        for (int si = from; si < to; si++) {
            for (int c = 0; c < snap.schema().columnCount(); c++) {
                if (snap.schema().column(c).type() == ColumnType.SYMBOL) {
                    final int segment = si;
                    final int column = c;
                    try {
                        thread.execute(() -> build(snap, segment, column));
                    } catch (final RejectedExecutionException e) {
                        return; // closed meanwhile
                    }
                }
            }
        }
    }

    private void build(final TableSnapshot snap, final int segment, final int column) {
        final int rows = snap.segmentRowCount(segment);
        if (failure.get() != null || !snap.segmentSealed(segment) || rows < BitmapIndexes.DEFAULT_MIN_SEGMENT_ROWS) {
            return;
        }
        try {
            final Segment s = snap.segment(segment);
            final Column col = snap.schema().column(column);
            final Path path = BitmapIndexes.file(s, col);
            if (!Files.exists(path)) {
                BitmapIndexes.buildFile(s, col, rows, path, Deadline.NONE);
                built.incrementAndGet();
            }
        } catch (final RuntimeException e) {
            failure.compareAndSet(null, e);
        }
    }

    /** @return index files written so far. */
    public long built() {
        return built.get();
    }

    /** @return how long {@link #close()} waited for the builds still running or queued, in nanoseconds. */
    public long waitNanos() {
        return waitNanos;
    }

    /**
     * The writer is closing: its commits are over, so the builds they started are waited for now (see
     * {@link #close()}).
     */
    @Override
    public void writerClosing() {
        finish();
    }

    /**
     * Waits for the builds the commits started, then releases the reader; a second call does nothing. (Closing the
     * writer, or the table or store, waits for them too.)
     *
     * @throws StoreException when a build failed (the table is fine: queries build what is missing).
     */
    @Override
    public void close() {
        if (finish()) {
            final RuntimeException e = failure.get();
            if (e != null) {
                throw new StoreException("bitmap indexes of sealed segments could not be built (queries will build "
                    + "them): " + e.getMessage(), e);
            }
        }
    }

    /** @return whether this call finished the indexer (false: an earlier one did). */
    private synchronized boolean finish() {
        if (closed) {
            return false;
        }
        closed = true;
        final long t0 = System.nanoTime();
        // the reader's segments stay mapped until the build reading them has ended, interrupted or not
        Shutdown.awaitTasks(thread);
        waitNanos = System.nanoTime() - t0;
        reader.close();
        return true;
    }
}
