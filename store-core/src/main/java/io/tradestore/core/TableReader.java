package io.tradestore.core;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import io.tradestore.core.dict.SymbolDictionary;
import io.tradestore.core.schema.Column;
import io.tradestore.core.schema.ColumnType;
import io.tradestore.core.schema.Schema;
import io.tradestore.core.segment.Segment;
import io.tradestore.core.segment.SegmentDescriptor;
import io.tradestore.core.txn.TxnDescriptor;
import io.tradestore.core.txn.TxnFile;
import io.tradestore.core.txn.TxnState;

/**
 * Reads a table, in this process or beside a writer in another one. {@link #snapshot()} reads the latest commit and
 * returns an immutable {@link TableSnapshot}; mappings only grow, and are released by {@link #close()}. Thread-safe.
 */
public final class TableReader implements AutoCloseable {
    /**
     * Property: at most how often, in milliseconds, {@link #snapshot()} asks the file system whether the segment files
     * it maps are still whole (default 1000; 0: at every call). A file cut short under a mapping makes reads past its
     * end fault, and on JDK 17 the JVM throws that fault's InternalError, naming no file, only at the reading thread's
     * next safepoint, possibly long after a query built an answer from the bytes the faulting reads returned; checking
     * the lengths first names the file instead (docs/file-format.md, "Detecting damage"). Not at every call: a stat
     * costs ~3 us a file on the development VM, ~0.35 ms for the 108 files of 50M trades, more than a small query
     * takes.
     */
    public static final String FILE_CHECK_PROPERTY = "tradestore.reader.fileCheckMs";
    private final long fileCheckNanos =
        java.util.concurrent.TimeUnit.MILLISECONDS.toNanos(Math.max(0, Long.getLong(FILE_CHECK_PROPERTY, 1000)));
    private long filesCheckedAt = System.nanoTime();
    private final Table table;
    private final Schema schema;
    private final Path dir;
    private final TxnFile txn;
    private final SymbolDictionary[] dictionaries;
    private final int[] symbolSlot;
    private final int[] strides;
    private final List<Segment> segments = new ArrayList<>();
    private TableSnapshot current;
    private volatile boolean closed;

    TableReader(final Table table) {
        this.table = table;
        this.schema = table.schema();
        this.dir = table.directory();
        this.symbolSlot = WriterDictionaries.symbolSlots(schema);
        this.strides = new int[schema.columnCount()];
        for (final Column c : schema.columns()) {
            strides[c.index()] = SegmentDescriptor.stride(schema, c);
        }
        this.txn = TxnFile.open(dir.resolve(TxnDescriptor.FILE_NAME), schema.symbolColumnCount(), schema.hash(), false);
        this.dictionaries = new SymbolDictionary[schema.symbolColumnCount()];
        try {
            final TxnState s = txn.read();
            for (final Column c : schema.columns()) {
                if (c.type() == ColumnType.SYMBOL) {
                    final int slot = symbolSlot[c.index()];
                    dictionaries[slot] = SymbolDictionary.open(TableFiles.dictionary(dir, c), s.dictCounts()[slot],
                        s.dictBytes()[slot], false);
                }
            }
            refresh(s);
        } catch (final RuntimeException e) {
            closeResources();
            throw e;
        }
    }

    /**
     * Reads the latest commit and returns a snapshot of it (the previous one when nothing changed).
     *
     * @return the snapshot.
     */
    public synchronized TableSnapshot snapshot() {
        checkOpen();
        final TxnState s = txn.read();
        if (current == null || s.sequence() != current.sequence()) {
            refresh(s);
        }
        final long now = System.nanoTime();
        if (now - filesCheckedAt >= fileCheckNanos) {
            final List<String> cut = new TableCheck(schema.name(), 1).fileLengths(current).problems();
            if (!cut.isEmpty()) {
                throw new StoreException("damaged data in " + cut.get(0));
            }
            filesCheckedAt = now;
        }
        return current;
    }

    private void refresh(final TxnState s) {
        final int needed = (int) ((s.rowCount() + schema.segmentRows() - 1) >>> schema.segmentShift());
        while (segments.size() < needed) {
            segments.add(Segment.open(schema, dir, segments.size(), false));
        }
        // the zone maps the snapshot's scans skip with: each block once per reader, when its commit fills it
        for (int i = 0; i < needed; i++) {
            final long start = (long) i << schema.segmentShift();
            segments.get(i).verifyZones((int) Math.min(schema.segmentRows(), s.rowCount() - start));
        }
        final int[] sizes = new int[dictionaries.length];
        for (int i = 0; i < dictionaries.length; i++) {
            dictionaries[i].refresh(s.dictCounts()[i], s.dictBytes()[i]);
            sizes[i] = (int) s.dictCounts()[i];
        }
        current = new TableSnapshot(this, schema, s.sequence(), s.rowCount(), segments, dictionaries, sizes, symbolSlot,
            strides);
    }

    /** @return the schema. */
    public Schema schema() {
        return schema;
    }

    boolean isOpen() {
        return !closed;
    }

    void checkOpen() {
        if (closed) {
            throw new StoreException("reader of table '" + schema.name() + "' is closed");
        }
    }

    /** Unmaps everything; snapshots taken from this reader must not be used afterwards. Idempotent. */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        closeResources();
        table.readerClosed(this);
    }

    private void closeResources() {
        for (final Segment seg : segments) {
            seg.close();
        }
        segments.clear();
        for (final SymbolDictionary d : dictionaries) {
            if (d != null) {
                d.close();
            }
        }
        txn.close();
    }
}
