package io.tradestore.core.txn;

import java.nio.file.Files;
import java.nio.file.Path;

import io.tradestore.core.SplitMix;
import io.tradestore.core.StoreException;
import io.tradestore.core.memory.FileAllocator;
import io.tradestore.core.memory.MappedFile;
import io.tradestore.core.memory.NativeMemory;

/**
 * The mapped transaction file of one table. The writer fills the free slot, fences and bumps the sequence (as
 * QuestDB's {@code _txn}); readers read sequence, slot, sequence again and retry on change. A slot whose checksum
 * does not match is reported as corruption, never used.
 */
public final class TxnFile implements AutoCloseable {
    private static final int MAX_READ_ATTEMPTS = 1_000_000;
    private final MappedFile file;
    private final int symbolColumns;
    private final long base;

    private TxnFile(final MappedFile file, final int symbolColumns) {
        this.file = file;
        this.symbolColumns = symbolColumns;
        this.base = file.address();
    }

    /**
     * Creates the transaction file of a new, empty table.
     *
     * @param path          the file.
     * @param symbolColumns symbol columns of the schema.
     * @param schemaHash    the schema hash, checked on open.
     * @param allocator     block reservation.
     * @param emptyDictionaryBytes the length of an empty dictionary file (its header).
     * @return the open file.
     */
    public static TxnFile create(final Path path, final int symbolColumns, final long schemaHash,
        final FileAllocator allocator,
                                 final long emptyDictionaryBytes) {
        final MappedFile f = MappedFile.create(path, TxnDescriptor.fileLength(symbolColumns), allocator);
        final long a = f.address();
        NativeMemory.putInt(a + TxnDescriptor.FORMAT_VERSION_OFFSET, TxnDescriptor.FORMAT_VERSION);
        NativeMemory.putInt(a + TxnDescriptor.SYMBOL_COLUMNS_OFFSET, symbolColumns);
        NativeMemory.putLong(a + TxnDescriptor.SCHEMA_HASH_OFFSET, schemaHash);
        final TxnFile txn = new TxnFile(f, symbolColumns);
        final long[] dictBytes = new long[symbolColumns];
        java.util.Arrays.fill(dictBytes, emptyDictionaryBytes);
        txn.writeSlot(0, 0, 0, new long[symbolColumns], dictBytes);
        NativeMemory.putLongOrdered(a + TxnDescriptor.SEQUENCE_OFFSET, 0);
        f.sync(0, f.length());
        return txn;
    }

    /**
     * Opens and validates an existing transaction file.
     *
     * @param path          the file.
     * @param symbolColumns symbol columns the schema declares.
     * @param schemaHash    the schema's hash.
     * @param writable      whether the caller is the writer.
     * @return the open file.
     */
    public static TxnFile open(final Path path, final int symbolColumns, final long schemaHash,
        final boolean writable) {
        if (!Files.exists(path)) {
            throw new StoreException("missing transaction file " + path + "; the table directory is incomplete");
        }
        final MappedFile f = MappedFile.open(path, TxnDescriptor.SLOTS_OFFSET, false);
        final int version;
        final int symbols;
        final long hash;
        try {
            version = NativeMemory.getInt(f.address() + TxnDescriptor.FORMAT_VERSION_OFFSET);
            symbols = NativeMemory.getInt(f.address() + TxnDescriptor.SYMBOL_COLUMNS_OFFSET);
            hash = NativeMemory.getLong(f.address() + TxnDescriptor.SCHEMA_HASH_OFFSET);
        } finally {
            f.close();
        }
        if (version > TxnDescriptor.FORMAT_VERSION) {
            throw new StoreException("transaction file " + path + " has format version " + version
                + ", newer than this tradestore supports (" + TxnDescriptor.FORMAT_VERSION + "); upgrade tradestore");
        }
        if (version < TxnDescriptor.FORMAT_VERSION_1) {
            throw new StoreException("corrupted transaction file " + path + ": formatVersion=" + version);
        }
        if (symbols != symbolColumns || hash != schemaHash) {
            throw new StoreException("transaction file " + path + " does not belong to this schema: symbolColumns="
                + symbols
                + " expected=" + symbolColumns + " schemaHash=" + Long.toHexString(hash) + " expected="
                + Long.toHexString(schemaHash));
        }
        final TxnFile txn =
            new TxnFile(MappedFile.open(path, TxnDescriptor.fileLength(symbolColumns), writable), symbolColumns);
        try {
            txn.read();
        } catch (final StoreException e) {
            txn.close();
            throw e;
        }
        return txn;
    }

    /**
     * Reads the latest published state, retrying while the writer publishes.
     *
     * @return the committed state.
     */
    public TxnState read() {
        final long[] counts = new long[symbolColumns];
        final long[] bytes = new long[symbolColumns];
        for (int attempt = 0; attempt < MAX_READ_ATTEMPTS; attempt++) {
            final long seq = NativeMemory.getLongVolatile(base + TxnDescriptor.SEQUENCE_OFFSET);
            final long slot = base + TxnDescriptor.slotOffset((int) (seq & 1), symbolColumns);
            final long slotSeq = NativeMemory.getLong(slot + TxnDescriptor.SLOT_SEQUENCE_OFFSET);
            final long rows = NativeMemory.getLong(slot + TxnDescriptor.SLOT_ROW_COUNT_OFFSET);
            final long checksum = NativeMemory.getLong(slot + TxnDescriptor.SLOT_CHECKSUM_OFFSET);
            final long firstRow = NativeMemory.getLongVolatile(base + TxnDescriptor.FIRST_ROW_OFFSET);
            for (int i = 0; i < symbolColumns; i++) {
                final long e = slot + TxnDescriptor.SLOT_DICTIONARIES_OFFSET
                    + (long) i * TxnDescriptor.DICTIONARY_ENTRY_LENGTH;
                counts[i] = NativeMemory.getLong(e);
                bytes[i] = NativeMemory.getLong(e + 8);
            }
            NativeMemory.loadFence();
            if (NativeMemory.getLongVolatile(base + TxnDescriptor.SEQUENCE_OFFSET) != seq) {
                Thread.onSpinWait();
                continue;
            }
            if (slotSeq != seq || checksum != checksum(seq, rows, counts, bytes)) {
                throw new StoreException("corrupted transaction file " + file.path() + ": slot " + (seq & 1)
                    + " of sequence " + seq
                    + " fails its checksum; restore the table from a copy or run 'tradestore check'");
            }
            if (rows < 0) {
                throw new StoreException("corrupted transaction file " + file.path() + ": rowCount=" + rows);
            }
            if (firstRow < 0 || firstRow > rows) {
                throw new StoreException("corrupted transaction file " + file.path() + ": firstRow=" + firstRow
                    + " outside [0, rowCount=" + rows + "]");
            }
            return new TxnState(seq, rows, counts.clone(), bytes.clone(), firstRow);
        }
        throw new StoreException("transaction file " + file.path() + " kept changing while being read");
    }

    /**
     * Publishes a new state: fills the free slot, fences, then bumps the sequence. Single writer only.
     *
     * @param previous   the state being replaced.
     * @param rowCount   committed rows.
     * @param dictCounts committed dictionary entries per symbol column.
     * @param dictBytes  committed dictionary bytes per symbol column.
     * @param sync       whether to msync the file after publishing.
     * @return the new state.
     */
    public TxnState publish(final TxnState previous, final long rowCount, final long[] dictCounts,
        final long[] dictBytes,
                            final boolean sync) {
        final long seq = previous.sequence() + 1;
        writeSlot((int) (seq & 1), seq, rowCount, dictCounts, dictBytes);
        NativeMemory.storeFence();
        NativeMemory.putLongOrdered(base + TxnDescriptor.SEQUENCE_OFFSET, seq);
        if (sync) {
            file.sync(0, file.length());
        }
        return new TxnState(seq, rowCount, dictCounts.clone(), dictBytes.clone(), previous.firstRow());
    }

    /**
     * Drops the rows below {@code firstRow} (whole sealed segments) and publishes that as a new transaction with the
     * same rows, synced before it returns whatever the durability mode: the segments' files are deleted after this, and
     * a crash must never find them gone while the transaction file still counts them. Single writer only.
     *
     * @param previous the state being replaced.
     * @param firstRow the new first row, at least the previous one and at most its committed rows.
     * @return the new state.
     */
    public TxnState dropBelow(final TxnState previous, final long firstRow) {
        if (firstRow < previous.firstRow() || firstRow > previous.rowCount()) {
            throw new IllegalArgumentException("firstRow=" + firstRow + " outside [" + previous.firstRow() + ", "
                + previous.rowCount() + "]");
        }
        NativeMemory.putInt(base + TxnDescriptor.FORMAT_VERSION_OFFSET, TxnDescriptor.FORMAT_VERSION);
        NativeMemory.putLongOrdered(base + TxnDescriptor.FIRST_ROW_OFFSET, firstRow);
        final TxnState next = publish(previous, previous.rowCount(), previous.dictCounts(), previous.dictBytes(), true);
        return new TxnState(next.sequence(), next.rowCount(), next.dictCounts(), next.dictBytes(), firstRow);
    }

    private void writeSlot(final int slotIndex, final long seq, final long rows, final long[] counts,
        final long[] bytes) {
        final long slot = base + TxnDescriptor.slotOffset(slotIndex, symbolColumns);
        NativeMemory.putLong(slot + TxnDescriptor.SLOT_SEQUENCE_OFFSET, seq);
        NativeMemory.putLong(slot + TxnDescriptor.SLOT_ROW_COUNT_OFFSET, rows);
        for (int i = 0; i < symbolColumns; i++) {
            final long e = slot + TxnDescriptor.SLOT_DICTIONARIES_OFFSET
                + (long) i * TxnDescriptor.DICTIONARY_ENTRY_LENGTH;
            NativeMemory.putLong(e, counts[i]);
            NativeMemory.putLong(e + 8, bytes[i]);
        }
        NativeMemory.putLong(slot + TxnDescriptor.SLOT_CHECKSUM_OFFSET, checksum(seq, rows, counts, bytes));
    }

    static long checksum(final long seq, final long rows, final long[] counts, final long[] bytes) {
        long h = SplitMix.mix(SplitMix.SEED ^ seq);
        h = SplitMix.mix(h ^ rows);
        for (int i = 0; i < counts.length; i++) {
            h = SplitMix.mix(h ^ counts[i]);
            h = SplitMix.mix(h ^ bytes[i]);
        }
        return h;
    }

    /** @return the file path. */
    public Path path() {
        return file.path();
    }

    @Override
    public void close() {
        file.close();
    }
}
