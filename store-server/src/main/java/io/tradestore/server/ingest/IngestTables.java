package io.tradestore.server.ingest;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.BooleanSupplier;

import io.tradestore.core.Retention;
import io.tradestore.core.RetentionRule;
import io.tradestore.core.Store;
import io.tradestore.core.StoreException;
import io.tradestore.core.Table;
import io.tradestore.core.TableReader;
import io.tradestore.core.TableSnapshot;
import io.tradestore.core.TableWriter;
import io.tradestore.core.ingest.line.LineIngest;
import io.tradestore.core.schema.Layout;
import io.tradestore.core.schema.Schema;
import io.tradestore.query.BackgroundIndexer;

/**
 * The writers the server ingests through: one per table, opened on the first request for the table and kept until the
 * server stops (the table's one-writer rule then keeps other processes from writing it), each with a background
 * indexer that builds the bitmap indexes of the segments it seals, as {@code tradestore load} does. Requests take a
 * table's writer one at a time, in the order their lines name tables; a request that waits longer than the configured
 * bound is refused with 503, which also ends any wait-for cycle between two requests naming the same tables in opposite
 * order.
 */
public final class IngestTables implements AutoCloseable {
    private final Store store;
    private final IngestConfig config;
    private final ConcurrentHashMap<String, Slot> slots = new ConcurrentHashMap<>();
    private volatile boolean closed;

    /** One table's writer and the lock a request holds while it writes. */
    private static final class Slot {
        final ReentrantLock lock = new ReentrantLock(true);
        /** Guarded by {@link #lock}. */
        TableWriter writer;
        /** Builds the bitmap indexes of the segments the writer seals, so that no query waits for them. */
        BackgroundIndexer indexer;
        /**
         * The TTL runs' reader, kept between runs (opening one maps every segment and checks its zone maps); closed
         * with the table's drop or the server. Guarded by {@link #lock}.
         */
        TableReader ttlReader;
        /** When a request last gave the writer back ({@link System#nanoTime()}). */
        volatile long lastUsedNs = System.nanoTime();
        /** Set under {@link #lock} when the table was dropped: a request that waited for this slot takes a new one. */
        boolean dropped;

        void closeReader() {
            if (ttlReader != null) {
                ttlReader.close();
                ttlReader = null;
            }
        }

        void close() {
            try {
                if (indexer != null) {
                    indexer.close();
                }
            } finally {
                indexer = null;
                if (writer != null) {
                    writer.close();
                    writer = null;
                }
            }
        }
    }

    /**
     * @param store  the store.
     * @param config limits and policies.
     */
    public IngestTables(final Store store, final IngestConfig config) {
        this.store = store;
        this.config = config;
    }

    /** @return the store. */
    public Store store() {
        return store;
    }

    /**
     * Creates a table, one creation at a time, unless it exists.
     *
     * @param schema its schema.
     * @return false when the table exists already.
     */
    public synchronized boolean createTable(final Schema schema) {
        if (store.hasTable(schema.name())) {
            return false;
        }
        store.createTable(schema);
        return true;
    }

    /**
     * Starts a request: its tables are taken as it names them and given back by {@link Request#close()}.
     *
     * @param startNs   when the request arrived ({@link System#nanoTime()}); the wait for writers counts from here.
     * @param cancelled whether the request is to stop (the server stops).
     * @return the request's view of the tables.
     */
    public Request request(final long startNs, final BooleanSupplier cancelled) {
        return new Request(startNs + TimeUnit.MILLISECONDS.toNanos(config.waitMs()), cancelled);
    }

    /** One request's tables; not thread-safe (one request runs on one thread). */
    public final class Request implements LineIngest.Tables, AutoCloseable {
        private final long deadlineNs;
        private final BooleanSupplier cancelled;
        private final List<Slot> held = new ArrayList<>(2);

        private Request(final long deadlineNs, final BooleanSupplier cancelled) {
            this.deadlineNs = deadlineNs;
            this.cancelled = cancelled;
        }

        @Override
        public Schema schema(final String name) {
            return store.hasTable(name) ? store.table(name).schema() : null;
        }

        @Override
        public TableWriter writer(final String name) {
            if (closed) {
                throw new IngestRefusedException("the server is stopping; send the request again after it restarts");
            }
            if (!store.hasTable(name)) {
                return null;
            }
            Slot slot = slots.computeIfAbsent(name, n -> new Slot());
            while (!slot.lock.isHeldByCurrentThread()) {
                take(slot, name, deadlineNs);
                if (slot.dropped) {
                    // dropped while this request waited: the table is gone, or another request created it again
                    slot.lock.unlock();
                    if (!store.hasTable(name)) {
                        return null;
                    }
                    slot = slots.computeIfAbsent(name, n -> new Slot());
                } else {
                    held.add(slot);
                }
            }
            if (slot.writer == null || !slot.writer.isOpen()) {
                final Table table = store.table(name);
                slot.writer = table.writer(config.durability());
                slot.indexer = BackgroundIndexer.attach(table, slot.writer);
            }
            return slot.writer;
        }

        @Override
        public boolean mayCreate() {
            return config.create();
        }

        /**
         * Creates a table inferred from lines, with the configured segment size and partitioning, unless it exists
         * meanwhile.
         */
        @Override
        public void create(final Schema schema) {
            final int rows = config.segmentRows();
            createTable(schema.with(schema.name(), Layout.COLUMN, rows, Math.min(rows, Schema.DEFAULT_BLOCK_ROWS))
                .with(config.partitionBy()));
        }

        @Override
        public void checkCancelled() {
            if (cancelled.getAsBoolean()) {
                throw new IngestRefusedException("the server is stopping: nothing of this request was kept; send it "
                    + "again after the server restarts");
            }
        }

        /** Gives back the writers this request took. */
        @Override
        public void close() {
            final long now = System.nanoTime();
            for (final Slot s : held) {
                s.lastUsedNs = now;
                s.lock.unlock();
            }
            held.clear();
        }
    }

    private void take(final Slot slot, final String name, final long deadlineNs) {
        final boolean got;
        try {
            got = slot.lock.tryLock(Math.max(0, deadlineNs - System.nanoTime()), TimeUnit.NANOSECONDS);
        } catch (final InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IngestRefusedException("interrupted while waiting for the writer of table '" + name + "'");
        }
        if (!got) {
            throw new IngestRefusedException("the writer of table '" + name + "' has been busy with other requests for "
                + config.waitMs() + " ms (--ingest-wait-ms); retry later");
        }
    }

    /**
     * Drops a table: waits for the request writing it (as a request waits), closes the server's writer of it, then
     * has the store drop it (see {@link Store#dropTable}).
     *
     * @param name    the table.
     * @param startNs when the drop was asked for; the wait for the writer counts from here.
     * @throws StoreException         when the table does not exist.
     * @throws io.tradestore.core.TableLockedException when another process writes it.
     * @throws IngestRefusedException when requests kept its writer busy past the wait bound.
     */
    public void dropTable(final String name, final long startNs) {
        if (!store.hasTable(name)) {
            throw new StoreException("unknown table '" + StoreException.echo(name) + "'; tables are "
                + store.tableNames());
        }
        final Slot slot = slots.computeIfAbsent(name, n -> new Slot());
        take(slot, name, startNs + TimeUnit.MILLISECONDS.toNanos(config.waitMs()));
        try {
            slot.close();
            slot.closeReader();
            synchronized (this) { // not while a request creates a table of the same name
                store.dropTable(name);
            }
            slot.dropped = true;
            slots.remove(name, slot);
        } finally {
            slot.lock.unlock();
        }
    }

    /**
     * Applies retention to a table with its writer, taken as a request takes it: the server's own if it has one open,
     * otherwise one opened for this and closed after it (another process may want the table between feeds).
     *
     * @param name      the table.
     * @param olderThan the duration kept, in nanoseconds (see {@link RetentionRule}).
     * @param nowNanos  the wall clock, epoch nanoseconds.
     * @param startNs   when it was asked for; the wait for the writer counts from here.
     * @return what was dropped.
     * @throws io.tradestore.core.TableLockedException when another process writes the table.
     */
    public Retention retain(final String name, final long olderThan, final long nowNanos, final long startNs) {
        final Slot slot = slots.computeIfAbsent(name, n -> new Slot());
        take(slot, name, startNs + TimeUnit.MILLISECONDS.toNanos(config.waitMs()));
        try {
            if (slot.dropped || !store.hasTable(name)) {
                return new Retention(0, 0, 0);
            }
            final Table table = store.table(name);
            if (slot.ttlReader == null) {
                slot.ttlReader = table.reader();
            }
            final TableSnapshot snap = slot.ttlReader.acquire();
            final long cut;
            final boolean due;
            try {
                cut = RetentionRule.cut(snap, olderThan, nowNanos);
                due = RetentionRule.due(snap, cut);
            } finally {
                slot.ttlReader.release(snap);
            }
            if (!due) {
                return new Retention(0, 0, snap.firstRow());
            }
            final Retention r;
            if (slot.writer != null && slot.writer.isOpen()) {
                r = slot.writer.dropOlderThan(cut);
            } else {
                try (TableWriter w = table.writer(config.durability())) {
                    r = w.dropOlderThan(cut);
                }
            }
            slot.ttlReader.release(slot.ttlReader.acquire()); // lets go of the segments just dropped
            return r;
        } finally {
            slot.lock.unlock();
        }
    }

    /**
     * Closes the writers no request has used for {@link IngestConfig#idleMs()}, so that another process (a
     * {@code tradestore load}) may write those tables while the feed is quiet; the next request opens the writer
     * again. A writer a request holds or waits for is left alone.
     *
     * @return writers closed.
     */
    public int closeIdle() {
        if (config.idleMs() == 0 || closed) {
            return 0;
        }
        final long idleNs = TimeUnit.MILLISECONDS.toNanos(config.idleMs());
        int n = 0;
        for (final Slot s : slots.values()) {
            if (s.writer != null && System.nanoTime() - s.lastUsedNs >= idleNs && !s.lock.hasQueuedThreads()
                && s.lock.tryLock()) {
                try {
                    if (s.writer != null && System.nanoTime() - s.lastUsedNs >= idleNs) {
                        s.close();
                        n++;
                    }
                } finally {
                    s.lock.unlock();
                }
            }
        }
        return n;
    }

    /** Closes every writer once the requests using them are done (the caller has stopped taking requests). */
    @Override
    public void close() {
        closed = true;
        RuntimeException failure = null;
        for (final Slot s : slots.values()) {
            s.lock.lock();
            try {
                s.close();
                s.closeReader();
            } catch (final StoreException e) {
                failure = failure == null ? e : failure;
            } finally {
                s.lock.unlock();
            }
        }
        if (failure != null) {
            throw failure;
        }
    }
}
