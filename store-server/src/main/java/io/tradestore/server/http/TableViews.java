package io.tradestore.server.http;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import io.tradestore.core.Store;
import io.tradestore.core.StoreException;
import io.tradestore.core.TableDroppedException;
import io.tradestore.core.TableReader;
import io.tradestore.core.TableSnapshot;
import io.tradestore.core.schema.Column;
import io.tradestore.core.schema.ColumnType;
import io.tradestore.core.schema.Schema;

/**
 * What the table listing and description show of each table, read from a reader per table. Each look takes a snapshot
 * and gives it back at once (so retention's dropped segments are unmapped), and copies what it shows to the heap: a
 * reader closed by a drop meanwhile is never read after its close.
 */
final class TableViews {
    private final Store store;
    private final Map<String, TableReader> readers = new ConcurrentHashMap<>();

    /**
     * One look at a table.
     *
     * @param schema   its schema.
     * @param rows     rows held (committed rows less those retention dropped).
     * @param firstRow the first row held.
     * @param segments segments holding them.
     * @param commit   the commit sequence.
     * @param distinct per column, the dictionary size of a symbol column (0 for the others).
     * @param ttlNanos the table's TTL, 0 when it has none.
     */
    record View(Schema schema, long rows, long firstRow, int segments, long commit, int[] distinct, long ttlNanos) {
    }

    TableViews(final Store store) {
        this.store = store;
    }

    /**
     * @param name a table that exists.
     * @return a look at it, or null when it was dropped meanwhile.
     * @throws StoreException when its files cannot be read.
     */
    View view(final String name) {
        for (int attempt = 0; attempt < 2; attempt++) {
            if (!store.hasTable(name)) {
                return null;
            }
            final TableReader r;
            try {
                r = readers.computeIfAbsent(name, n -> store.table(n).reader());
            } catch (final TableDroppedException e) {
                return null;
            }
            try {
                final TableSnapshot s = r.acquire();
                try {
                    final Schema schema = s.schema();
                    final int[] distinct = new int[schema.columnCount()];
                    for (final Column c : schema.columns()) {
                        if (c.type() == ColumnType.SYMBOL) {
                            distinct[c.index()] = s.dictionarySize(c.index());
                        }
                    }
                    return new View(schema, s.liveRows(), s.firstRow(), s.segmentCount() - s.firstSegment(),
                        s.sequence(), distinct, store.hasTable(name) ? store.table(name).ttlNanos() : 0);
                } finally {
                    r.release(s);
                }
            } catch (final TableDroppedException e) {
                forget(name); // dropped by another process, maybe created again: a fresh reader tells
            } catch (final StoreException e) {
                if (!r.isOpen()) {
                    continue; // closed by a drop in this process meanwhile
                }
                throw e;
            }
        }
        return null;
    }

    /** @param name a table dropped: its reader is closed (a look in flight has copied what it needs or fails). */
    void forget(final String name) {
        final TableReader r = readers.remove(name);
        if (r != null) {
            r.close();
        }
    }

    void close() {
        for (final TableReader r : List.copyOf(readers.values())) {
            r.close();
        }
        readers.clear();
    }
}
