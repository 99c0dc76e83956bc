package io.tradestore.query.index;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
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
        // the snapshot of the commit that sealed them (taken on the writer's thread: it is the latest now), lent until
        // the last of its builds ends, so that retention can unmap the segments it spans afterwards
        final TableSnapshot snap;
        try {
            snap = reader.acquire();
        } catch (final RuntimeException e) {
            failure.compareAndSet(null, e); // the commit is done: told at close(), never thrown into it
            return;
        }
        final List<Integer> symbols = new ArrayList<>();
        for (int c = 0; c < snap.schema().columnCount(); c++) {
            if (snap.schema().column(c).type() == ColumnType.SYMBOL) {
                symbols.add(c);
            }
        }
        final int total = (to - from) * symbols.size();
        final AtomicInteger pending = new AtomicInteger(total + 1);
        int queued = 0;
        for (int si = from; si < to; si++) {
            for (final int c : symbols) {
                final int segment = si;
                try {
                    thread.execute(() -> {
                        try {
                            build(snap, segment, c);
                        } finally {
                            done(snap, pending, 1);
                        }
                    });
                    queued++;
                } catch (final RejectedExecutionException e) {
                    // closed meanwhile: the builds not queued will not run
                    done(snap, pending, total - queued + 1);
                    return;
                }
            }
        }
        done(snap, pending, 1);
    }

    /** Takes and gives back a snapshot, so that the reader unmaps what retention dropped once no build spans it. */
    @Override
    public void dropped(final int first) {
        try {
            reader.release(reader.acquire());
        } catch (final RuntimeException e) {
            // closed meanwhile, or the table is unreadable: the next build says so
        }
    }

    private void done(final TableSnapshot snap, final AtomicInteger pending, final int n) {
        if (n > 0 && pending.addAndGet(-n) == 0) {
            try {
                reader.release(snap);
            } catch (final RuntimeException e) {
                failure.compareAndSet(null, e);
            }
        }
    }

    private void build(final TableSnapshot snap, final int segment, final int column) {
        final int rows = snap.segmentRowCount(segment);
        if (failure.get() != null || !snap.segmentSealed(segment) || rows < BitmapIndexes.DEFAULT_MIN_SEGMENT_ROWS) {
            return;
        }
        final Segment s = snap.segment(segment);
        try {
            final Column col = snap.schema().column(column);
            final Path path = BitmapIndexes.file(s, col);
            if (!Files.exists(path)) {
                BitmapIndexes.buildFile(s, col, rows, path, Deadline.NONE);
                built.incrementAndGet();
            }
        } catch (final RuntimeException e) {
            if (Files.isDirectory(s.directory())) {
                failure.compareAndSet(null, e);
            } // else retention dropped the segment meanwhile: nothing to index
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
