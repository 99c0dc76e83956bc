package io.tradestore.query;

import io.tradestore.core.Table;
import io.tradestore.core.TableWriter;
import io.tradestore.query.index.SealIndexer;

/**
 * Builds the bitmap indexes of the segments a writer seals, on background threads while it goes on loading, so that
 * the first query does not build them. A loader's door to the index package.
 *
 * <pre>{@code
 * try (TableWriter w = table.writer(); BackgroundIndexer ix = BackgroundIndexer.attach(table, w)) {
 *     ... append and commit ...
 * } // close() waits for the builds the commits started
 * }</pre>
 */
public final class BackgroundIndexer implements AutoCloseable {
    private final SealIndexer indexer;

    private BackgroundIndexer(final SealIndexer indexer) {
        this.indexer = indexer;
    }

    /**
     * Creates an indexer for a table and sets it as its writer's seal listener.
     *
     * @param table  the table.
     * @param writer its writer.
     * @return the indexer; close it after the writer's last commit (before or after closing the writer).
     */
    public static BackgroundIndexer attach(final Table table, final TableWriter writer) {
        return new BackgroundIndexer(SealIndexer.attach(table, writer));
    }

    /** @return index files written so far. */
    public long built() {
        return indexer.built();
    }

    /** @return how long {@link #close()} waited for the builds still running or queued, in nanoseconds. */
    public long waitNanos() {
        return indexer.waitNanos();
    }

    /**
     * Waits for the builds the commits started, then releases the reader; a second call does nothing.
     *
     * @throws io.tradestore.core.StoreException when a build failed (the table is fine: queries build what is missing).
     */
    @Override
    public void close() {
        indexer.close();
    }
}
