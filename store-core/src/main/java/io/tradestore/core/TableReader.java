package io.tradestore.core;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;

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
     * Property: at most how often, in milliseconds, {@link #snapshot()} and {@link #acquire()} start asking the file
     * system whether the segment files they map are still whole (default 1000; 0: every segment at every call). A file
     * cut short under a mapping makes reads past its end fault, and on JDK 17 the JVM throws that fault's
     * InternalError, naming no file, only at the reading thread's next safepoint, possibly long after a query built an
     * answer from the bytes the faulting reads returned; checking the lengths first names the file instead
     * (docs/file-format.md, "Detecting damage"). Not every file at every call: a stat costs ~3 us a file on the
     * development VM, ~0.35 ms for the 108 files of 50M trades, more than a small query takes.
     */
    public static final String FILE_CHECK_PROPERTY = "tradestore.reader.fileCheckMs";
    private final long fileCheckNanos =
        java.util.concurrent.TimeUnit.MILLISECONDS.toNanos(Math.max(0, Long.getLong(FILE_CHECK_PROPERTY, 1000)));
    /** When the last round of {@link #checkFiles} over every segment ended. */
    private volatile long filesCheckedAt = System.nanoTime();
    /** The segment the round of {@link #checkFiles} in progress checks next, -1 between rounds. */
    private volatile int nextChecked = -1;
    /**
     * The message of the file {@link #checkFiles} last found cut short, which every snapshot then fails with (not only
     * the one that found it), until the claimed check of that segment finds it whole; null when none is known.
     */
    private volatile String damage;
    /** Held by the one caller of {@link #checkFiles} that checks. */
    private final AtomicBoolean checking = new AtomicBoolean();
    /** Segments of a round {@link #checkFiles} checks per call: a stat per file of each. */
    private static final int SEGMENTS_CHECKED_PER_CALL = 2;
    /** When the transaction file's identity was last compared (under the lock, one stat). */
    private long keyCheckedAt = System.nanoTime();
    private final Table table;
    private final Schema schema;
    private final Path dir;
    private final TxnFile txn;
    /** The transaction file's identity (inode), to tell a drop or a drop and re-create by another process. */
    private final Object txnKey;
    private final SymbolDictionary[] dictionaries;
    private final int[] symbolSlot;
    private final int[] strides;
    /** Mapped segments by index; null below the first segment once retention dropped one and no snapshot spans it. */
    private final List<Segment> segments = new ArrayList<>();
    /** Snapshots acquired and not released: the segments they span stay mapped. */
    private final List<TableSnapshot> handedOut = new ArrayList<>();
    /** The lowest first segment of a snapshot from {@link #snapshot()}, which is never given back. */
    private int pinnedFirst = Integer.MAX_VALUE;
    private volatile TableSnapshot current;
    /** Segments below this are unmapped (dropped by retention and no longer spanned, or never mapped). */
    private volatile int mappedFrom;
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
        this.txnKey = txnKey();
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
     * Reads the latest commit and returns a snapshot of it (the previous one when nothing changed). The snapshot stays
     * valid until this reader is closed: segments that retention drops later stay mapped for it. A reader that lives
     * long beside retention (a server) takes its snapshots with {@link #acquire()} instead.
     *
     * @return the snapshot.
     */
    public TableSnapshot snapshot() {
        final TableSnapshot snap;
        synchronized (this) {
            snap = latest();
            pinnedFirst = Math.min(pinnedFirst, snap.firstSegment());
        }
        checkFiles(snap);
        return snap;
    }

    /**
     * Reads the latest commit and returns a snapshot of it, valid until {@link #release(TableSnapshot)}: the segments
     * that retention dropped are unmapped once no snapshot that spans them is held.
     *
     * @return the snapshot; release it exactly once.
     */
    public TableSnapshot acquire() {
        final TableSnapshot snap;
        synchronized (this) {
            snap = latest();
            if (snap.leases++ == 0) {
                handedOut.add(snap);
            }
        }
        try {
            checkFiles(snap);
        } catch (final RuntimeException e) {
            release(snap);
            throw e;
        }
        return snap;
    }

    /**
     * Gives back a snapshot taken with {@link #acquire()}.
     *
     * @param snap the snapshot.
     * @return how many dropped segments were unmapped because of it.
     */
    public synchronized int release(final TableSnapshot snap) {
        if (snap.leases <= 0) {
            throw new IllegalStateException("snapshot of sequence " + snap.sequence() + " released more often than "
                + "acquired");
        }
        if (--snap.leases == 0) {
            handedOut.remove(snap);
        }
        return closed ? 0 : unmapRetired();
    }

    /** @return segments dropped by retention that this reader still maps for a snapshot in use. */
    public synchronized int retiredSegments() {
        int n = 0;
        for (int i = mappedFrom; i < current.firstSegment() && i < segments.size(); i++) {
            if (segments.get(i) != null) {
                n++;
            }
        }
        return n;
    }

    /**
     * @return whether a release may unmap dropped segments now (a hint, read without the lock: unmapping pages of
     *     files already unlinked frees them, which a caller on a latency path may want to leave to another thread).
     */
    public boolean mayUnmap() {
        final TableSnapshot c = current;
        return c != null && mappedFrom < c.firstSegment();
    }

    private TableSnapshot latest() {
        checkOpen();
        final TxnState s = txn.read();
        if (current == null || s.sequence() != current.sequence()) {
            refresh(s);
        }
        final long now = System.nanoTime();
        if (now - keyCheckedAt >= fileCheckNanos) {
            final Object key = txnKey();
            if (key == null || !key.equals(txnKey)) {
                throw new TableDroppedException("table '" + schema.name() + "' was dropped"
                    + (key == null ? "" : " and created again") + " while this reader had it open");
            }
            keyCheckedAt = now;
        }
        return current;
    }

    /**
     * Asks the file system whether the files of a snapshot's segments are still whole, outside the reader's lock: a
     * round over every segment starts at most once per {@link #FILE_CHECK_PROPERTY} period, and each call takes the
     * next {@link #SEGMENTS_CHECKED_PER_CALL} segments of the round, one caller at a time, so that no snapshot waits
     * for the stats of a whole table (hundreds of files on a table fed all day) nor for another caller's. With a
     * period of 0 every call checks every segment of its snapshot.
     *
     * @throws StoreException naming the first file found cut short; the round stays at its segment, so the next call
     *     finds it again.
     */
    private void checkFiles(final TableSnapshot snap) {
        if (fileCheckNanos == 0) {
            final String cut = cutFile(snap, snap.firstSegment(), snap.segmentCount());
            if (cut != null) {
                throw new StoreException(cut);
            }
            return;
        }
        final String known = damage;
        if (known == null && nextChecked < 0 && System.nanoTime() - filesCheckedAt < fileCheckNanos) {
            return;
        }
        if (!checking.compareAndSet(false, true)) {
            if (known != null) {
                // found cut by an earlier call, being checked again by another: this snapshot fails too
                throw new StoreException(known);
            }
            return;
        }
        try {
            final long now = System.nanoTime();
            if (nextChecked < 0) {
                if (now - filesCheckedAt < fileCheckNanos) {
                    return;
                }
                nextChecked = 0;
            }
            final int from = Math.max(nextChecked, snap.firstSegment());
            final int to = Math.min(from + SEGMENTS_CHECKED_PER_CALL, snap.segmentCount());
            damage = cutFile(snap, from, to);
            if (damage != null) {
                throw new StoreException(damage);
            }
            if (to >= snap.segmentCount()) {
                nextChecked = -1;
                filesCheckedAt = now;
            } else {
                nextChecked = to;
            }
        } finally {
            checking.set(false);
        }
    }

    /** @return the message naming the first file of segments {@code [from, to)} cut short, or null. */
    private String cutFile(final TableSnapshot snap, final int from, final int to) {
        final List<String> cut = new TableCheck(schema.name(), 1).fileLengths(snap, from, to).problems();
        return cut.isEmpty() ? null : "damaged data in " + cut.get(0);
    }

    /**
     * Unmaps the dropped segments no snapshot in use spans: those below the first segment of every snapshot handed
     * out and not given back.
     */
    private int unmapRetired() {
        int keepFrom = Math.min(current.firstSegment(), pinnedFirst);
        for (final TableSnapshot h : handedOut) {
            keepFrom = Math.min(keepFrom, h.firstSegment());
        }
        int n = 0;
        int i = mappedFrom;
        for (; i < keepFrom && i < segments.size(); i++) {
            final Segment seg = segments.get(i);
            if (seg != null) {
                seg.close();
                segments.set(i, null);
                n++;
            }
        }
        mappedFrom = i;
        return n;
    }

    /** @return the transaction file's identity, null when it is gone. */
    private Object txnKey() {
        return TableFiles.identity(txn.path());
    }

    private void refresh(final TxnState s) {
        final int needed = (int) ((s.rowCount() + schema.segmentRows() - 1) >>> schema.segmentShift());
        if (s.firstRow() % schema.segmentRows() != 0) {
            throw new StoreException("corrupted transaction file " + txn.path() + ": firstRow=" + s.firstRow()
                + " is not a segment boundary (segments of " + schema.segmentRows() + " rows)");
        }
        while (segments.size() < needed) {
            final int i = segments.size();
            if (i < (int) (s.firstRow() >>> schema.segmentShift())) {
                segments.add(null); // dropped before this reader needed it
                continue;
            }
            try {
                segments.add(Segment.open(schema, dir, i, false));
            } catch (final StoreException e) {
                // retention may have dropped it after the state was read: start again from the state that says so
                final TxnState again = txn.read();
                if (again.firstRow() <= ((long) i << schema.segmentShift())) {
                    throw e;
                }
                refresh(again);
                return;
            }
        }
        final int first = (int) (s.firstRow() >>> schema.segmentShift());
        final int[] sizes = new int[dictionaries.length];
        for (int i = 0; i < dictionaries.length; i++) {
            dictionaries[i].refresh(s.dictCounts()[i], s.dictBytes()[i]);
            sizes[i] = (int) s.dictCounts()[i];
        }
        final TableSnapshot next = new TableSnapshot(this, schema, s.sequence(), s.rowCount(), first, segments,
            dictionaries, sizes, symbolSlot, strides);
        // the zone maps the snapshot's scans skip with: each block once per reader, when its commit fills it
        for (int i = first; i < needed; i++) {
            segments.get(i).verifyZones(next.segmentRowCount(i));
        }
        current = next;
        unmapRetired();
    }

    /** @return the schema. */
    public Schema schema() {
        return schema;
    }

    /** @return whether the reader is open (not closed). */
    public boolean isOpen() {
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
            if (seg != null) {
                seg.close();
            }
        }
        segments.clear();
        handedOut.clear();
        for (final SymbolDictionary d : dictionaries) {
            if (d != null) {
                d.close();
            }
        }
        txn.close();
    }
}
