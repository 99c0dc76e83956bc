package io.tradestore.query;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;

import io.tradestore.core.Store;
import io.tradestore.core.StoreException;
import io.tradestore.core.TableDroppedException;
import io.tradestore.core.TableReader;
import io.tradestore.core.TableSnapshot;
import io.tradestore.query.index.BitmapIndexes;

/**
 * The engine's readers, one per table, and the snapshots lent from them to queries. A snapshot is lent for one query
 * and given back when it ends, so the reader unmaps the segments retention dropped once no query spans them, and a
 * dropped table's reader is closed once its last query ends (its files' blocks are freed then). Thread-safe.
 */
final class TableReaders {
    private final Store store;
    private final BitmapIndexes indexes;
    private final Map<String, Entry> entries = new HashMap<>();
    private boolean closed;
    /** Releases snapshots whose release unmaps dropped segments, off the query threads. */
    private final ExecutorService unmapper = Executors.newSingleThreadExecutor(r -> {
        final Thread t = new Thread(r, "tradestore-unmap");
        t.setDaemon(true);
        return t;
    });

    /** A table's reader and the snapshots lent from it. */
    private static final class Entry {
        final TableReader reader;
        int lent;
        /** Whether the table was dropped: the reader closes when the last lease ends. */
        boolean forgotten;

        Entry(final TableReader reader) {
            this.reader = reader;
        }
    }

    /** A snapshot on loan to one query; closing it gives it back. */
    static final class Lease implements AutoCloseable {
        private final TableReaders owner;
        private final Entry entry;
        private final TableSnapshot snapshot;
        private boolean returned;

        private Lease(final TableReaders owner, final Entry entry, final TableSnapshot snapshot) {
            this.owner = owner;
            this.entry = entry;
            this.snapshot = snapshot;
        }

        TableSnapshot snapshot() {
            return snapshot;
        }

        /** @return the latest snapshot, kept mapped until the reader closes (see {@link TableReader#snapshot()}). */
        TableSnapshot pin() {
            synchronized (owner) {
                return entry.reader.snapshot();
            }
        }

        @Override
        public void close() {
            if (!returned) {
                returned = true;
                owner.giveBack(this);
            }
        }
    }

    TableReaders(final Store store, final BitmapIndexes indexes) {
        this.store = store;
        this.indexes = indexes;
    }

    /**
     * Lends the latest snapshot of a table.
     *
     * @param table the table name.
     * @return the lease; close it when the query ends.
     * @throws QueryException UNKNOWN_TABLE (also for a table another process dropped), or INTERNAL when its files do
     *                        not open.
     */
    Lease lend(final String table) {
        final Entry e = entry(table);
        final TableSnapshot snap;
        try {
            // outside this object's monitor: a snapshot that maps new segments holds up no other table's queries
            snap = e.reader.acquire();
        } catch (final TableDroppedException dropped) {
            done(e, 0);
            // another process dropped it (and maybe created it again): forget this reader, ask again
            forget(table);
            if (store.hasTable(table)) {
                return lend(table);
            }
            throw unknown(table);
        } catch (final StoreException damaged) {
            done(e, 0);
            throw damaged(table, damaged);
        }
        return new Lease(this, e, snap);
    }

    /** @return the table's entry, opened when new, with one more lease counted (so that it stays open). */
    private synchronized Entry entry(final String table) {
        if (closed) {
            throw new QueryException(ErrorCode.INTERNAL, "the query engine is closed", "");
        }
        Entry e = entries.get(table);
        if (e == null) {
            if (table == null || !store.hasTable(table)) {
                throw unknown(table);
            }
            try {
                e = new Entry(store.table(table).reader());
            } catch (final TableDroppedException dropped) {
                throw unknown(table);
            } catch (final StoreException damaged) {
                // the table exists but its files do not open: the store's fault (500), not the query's (404)
                throw damaged(table, damaged);
            }
            entries.put(table, e);
        }
        e.lent++;
        return e;
    }

    private void giveBack(final Lease lease) {
        // the reader cannot close meanwhile: this lease is still counted
        if (lease.entry.reader.mayUnmap()) {
            // the last unmapping of an unlinked file frees its pages, which shows in a query's latency
            // (docs/benchmarks.md, Retention): not on the thread that answers the query
            try {
                unmapper.execute(() -> done(lease.entry, lease.entry.reader.release(lease.snapshot)));
                return;
            } catch (final RejectedExecutionException closing) {
                // the engine is closing: release here
            }
        }
        done(lease.entry, lease.entry.reader.release(lease.snapshot));
    }

    /** Counts a lease given back; closes a forgotten table's reader after its last one. */
    private void done(final Entry e, final int unmapped) {
        final boolean close;
        synchronized (this) {
            e.lent--;
            close = e.forgotten && e.lent == 0;
        }
        if (close) {
            e.reader.close();
        }
        if (unmapped > 0 || close) {
            indexes.evictClosed();
        }
    }

    /**
     * Forgets a table (it was dropped): new queries open it afresh (and find it unknown); its reader closes when the
     * queries lent a snapshot of it end.
     *
     * @param table the table name.
     */
    synchronized void forget(final String table) {
        final Entry e = entries.remove(table);
        if (e != null) {
            e.forgotten = true;
            if (e.lent == 0) {
                e.reader.close();
                indexes.evictClosed();
            }
        }
    }

    /** @param table a table whose reader, if open, reads its latest commit now (see {@link Lease}). */
    void refresh(final String table) {
        final boolean open;
        synchronized (this) {
            open = entries.containsKey(table);
        }
        if (open) {
            try {
                lend(table).close();
            } catch (final QueryException gone) {
                // dropped or unreadable: the next query says so
            }
        }
    }

    /** @return segments retention dropped that readers still map for a query in flight. */
    synchronized int retiredSegments() {
        int n = 0;
        for (final Entry e : entries.values()) {
            n += e.reader.retiredSegments();
        }
        return n;
    }

    /** Closes every reader; the engine calls it once no query runs. */
    void close() {
        unmapper.shutdown();
        try {
            // the releases handed over finish first: no reader is closed under one
            unmapper.awaitTermination(1, TimeUnit.MINUTES);
        } catch (final InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        closeReaders();
    }

    private synchronized void closeReaders() {
        closed = true;
        final List<Entry> all = new ArrayList<>(entries.values());
        entries.clear();
        for (final Entry e : all) {
            e.reader.close();
        }
    }

    private QueryException unknown(final String table) {
        return new QueryException(ErrorCode.UNKNOWN_TABLE,
            "unknown table '" + StoreException.echo(table) + "'; tables are " + store.tableNames(), "/table");
    }

    static QueryException damaged(final String table, final StoreException e) {
        return QueryException.storeProblem("cannot read table '" + table + "': " + e.getMessage(), e);
    }
}
