package io.tradestore.core;

import java.nio.file.Path;

import io.tradestore.core.dict.SymbolDictionary;
import io.tradestore.core.schema.Column;
import io.tradestore.core.schema.ColumnType;
import io.tradestore.core.schema.Schema;
import io.tradestore.core.txn.TxnState;

/**
 * A writer's symbol dictionaries, one per symbol column, opened at the last commit's sizes: entries interned since are
 * published by the commit's transaction slot with the rows, or cut back by a rollback.
 */
final class WriterDictionaries {
    private final Schema schema;
    /** Per column: its index among the symbol columns, or -1. */
    private final int[] slot;
    private final SymbolDictionary[] dictionaries;

    private WriterDictionaries(final Schema schema, final int[] slot, final SymbolDictionary[] dictionaries) {
        this.schema = schema;
        this.slot = slot;
        this.dictionaries = dictionaries;
    }

    /**
     * Opens every symbol column's dictionary for writing at its committed size; on failure closes those it opened.
     *
     * @param schema the table's schema.
     * @param dir    the table directory.
     * @param state  the last committed state.
     * @return the dictionaries.
     */
    static WriterDictionaries open(final Schema schema, final Path dir, final TxnState state) {
        final int[] slot = symbolSlots(schema);
        final SymbolDictionary[] dicts = new SymbolDictionary[schema.symbolColumnCount()];
        try {
            for (final Column c : schema.columns()) {
                if (c.type() == ColumnType.SYMBOL) {
                    final int s = slot[c.index()];
                    dicts[s] = SymbolDictionary.open(TableFiles.dictionary(dir, c), state.dictCounts()[s],
                        state.dictBytes()[s], true);
                }
            }
        } catch (final RuntimeException e) {
            closeAll(dicts);
            throw e;
        }
        return new WriterDictionaries(schema, slot, dicts);
    }

    /**
     * Numbers the symbol columns.
     *
     * @param schema a schema.
     * @return per column, its index among the symbol columns, or -1 for a column of another type.
     */
    static int[] symbolSlots(final Schema schema) {
        final int[] slots = new int[schema.columnCount()];
        int n = 0;
        for (final Column c : schema.columns()) {
            slots[c.index()] = c.type() == ColumnType.SYMBOL ? n++ : -1;
        }
        return slots;
    }

    /** @return the dictionary of a symbol column; refuses another column with a message naming its type. */
    SymbolDictionary get(final int column) {
        Bounds.checkIndex("column", column, schema.columnCount(), "columnCount");
        if (slot[column] < 0) {
            throw new StoreException("column '" + schema.column(column).name() + "' is "
                + schema.column(column).typeName() + ", not a symbol");
        }
        return dictionaries[slot[column]];
    }

    /** @return whether any dictionary holds entries the committed state does not. */
    boolean grewSince(final TxnState state) {
        for (int i = 0; i < dictionaries.length; i++) {
            if (dictionaries[i].size() != state.dictCounts()[i]) {
                return true;
            }
        }
        return false;
    }

    /** @return entries per symbol column now, for the commit's transaction slot. */
    long[] counts() {
        final long[] counts = new long[dictionaries.length];
        for (int i = 0; i < dictionaries.length; i++) {
            counts[i] = dictionaries[i].size();
        }
        return counts;
    }

    /** @return file bytes per symbol column now, for the commit's transaction slot. */
    long[] byteLengths() {
        final long[] bytes = new long[dictionaries.length];
        for (int i = 0; i < dictionaries.length; i++) {
            bytes[i] = dictionaries[i].byteLength();
        }
        return bytes;
    }

    /** Forces every dictionary's entries to disk (SYNC durability). */
    void sync() {
        for (final SymbolDictionary d : dictionaries) {
            d.sync();
        }
    }

    /** Cuts every dictionary back to its size in {@code state} (a rollback). */
    void truncate(final TxnState state) {
        for (int i = 0; i < dictionaries.length; i++) {
            dictionaries[i].truncate(state.dictCounts()[i], state.dictBytes()[i]);
        }
    }

    /** Closes every dictionary. */
    void close() {
        closeAll(dictionaries);
    }

    private static void closeAll(final SymbolDictionary[] dicts) {
        for (final SymbolDictionary d : dicts) {
            if (d != null) {
                d.close();
            }
        }
    }
}
