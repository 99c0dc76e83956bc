package io.tradestore.core;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import io.tradestore.core.memory.FileAllocator;
import io.tradestore.core.schema.Schema;
import io.tradestore.core.txn.TxnDescriptor;

/**
 * One table of a store: its schema and directory, and the writer and readers opened on it. Closing the table closes
 * them all.
 */
public final class Table implements AutoCloseable {
    private final Store store;
    private final Schema schema;
    private final Path directory;
    private final FileAllocator allocator;
    private final List<TableReader> readers = new ArrayList<>();
    private TableWriter writer;
    private boolean closed;
    private boolean dropped;
    /** The transaction file's identity when the table was opened. */
    private final Object txnKey;

    Table(final Store store, final Schema schema, final Path directory, final FileAllocator allocator) {
        this.store = store;
        this.schema = schema;
        this.directory = directory;
        this.allocator = allocator;
        this.txnKey = TableFiles.identity(directory.resolve(TxnDescriptor.FILE_NAME));
    }

    /** @return whether the files at the table's path are still this table's (not dropped, or dropped and re-made). */
    boolean sameFiles() {
        return txnKey != null && txnKey.equals(TableFiles.identity(directory.resolve(TxnDescriptor.FILE_NAME)));
    }

    /** Refuses new readers and writers: another process dropped the table (see {@link Store#table}). */
    synchronized void detach() {
        dropped = true;
    }

    /** @return the table name. */
    public String name() {
        return schema.name();
    }

    /** @return the schema. */
    public Schema schema() {
        return schema;
    }

    /** @return the table directory. */
    public Path directory() {
        return directory;
    }

    /** @return the table's TTL in nanoseconds (see {@link RetentionRule}), 0 when it has none. */
    public long ttlNanos() {
        return RetentionRule.read(directory);
    }

    /**
     * Sets or clears the table's TTL, which {@code tradestore serve} applies on a schedule.
     *
     * @param nanos the TTL in nanoseconds, 0 for none.
     */
    public synchronized void ttlNanos(final long nanos) {
        checkOpen();
        if (nanos < 0) {
            throw new IllegalArgumentException("ttl=" + nanos + " must be 0 (none) or above");
        }
        if (nanos > 0 && schema.timestampIndex() < 0) {
            throw new StoreException("table '" + name() + "' has no designated timestamp; a TTL drops by time");
        }
        RetentionRule.write(directory, nanos);
    }

    /** @return a writer with {@link Durability#NONE}. */
    public TableWriter writer() {
        return writer(Durability.NONE);
    }

    /**
     * Opens the table's single writer; fails when another writer, in any process, holds the table.
     *
     * @param durability what commits wait for.
     * @return the writer.
     */
    public synchronized TableWriter writer(final Durability durability) {
        checkOpen();
        if (writer != null) {
            throw new StoreException("table '" + name() + "' already has a writer in this process; close it first");
        }
        writer = new TableWriter(this, durability, allocator);
        return writer;
    }

    /** @return a new reader; close it, or the table, when done. */
    public synchronized TableReader reader() {
        checkOpen();
        final TableReader r = new TableReader(this);
        readers.add(r);
        return r;
    }

    /** Refuses new readers and writers from the start of a drop; fails when this process's writer is open. */
    synchronized void markDropped() {
        if (writer != null) {
            throw new StoreException("cannot drop table '" + name() + "': this process has its writer open; close it "
                + "first");
        }
        dropped = true;
    }

    synchronized void unmarkDropped() {
        dropped = false;
    }

    synchronized void writerClosed(final TableWriter w) {
        if (writer == w) {
            writer = null;
        }
    }

    synchronized void readerClosed(final TableReader r) {
        readers.remove(r);
    }

    private void checkOpen() {
        if (closed) {
            throw new StoreException("table '" + name() + "' is closed");
        }
        if (dropped) {
            throw new TableDroppedException("table '" + name() + "' was dropped");
        }
    }

    /** Closes the writer and every reader of this table; idempotent. */
    @Override
    public void close() {
        final List<AutoCloseable> toClose;
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
            // the writer first: its seal listener may be building from segments a reader of this table has mapped
            toClose = new ArrayList<>();
            if (writer != null) {
                toClose.add(writer);
            }
            toClose.addAll(readers);
        }
        RuntimeException failure = null;
        for (final AutoCloseable c : toClose) {
            try {
                c.close();
            } catch (final Exception e) {
                if (failure == null) {
                    failure = e instanceof RuntimeException ? (RuntimeException) e
                        : new StoreException(e.getMessage(), e);
                }
            }
        }
        store.tableClosed(this);
        if (failure != null) {
            throw failure;
        }
    }
}
