package io.tradestore.core.ingest.line;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import io.tradestore.core.Store;
import io.tradestore.core.TableReader;
import io.tradestore.core.TableSnapshot;
import io.tradestore.core.TableWriter;
import io.tradestore.core.memory.NativeMemory;
import io.tradestore.core.schema.Column;
import io.tradestore.core.schema.Layout;
import io.tradestore.core.schema.Schema;

/** The tables of a store for {@link LineIngest}, with one writer per table kept open, and the rows read back. */
final class StoreTables implements LineIngest.Tables, AutoCloseable {
    private final Store store;
    private final Map<String, TableWriter> writers = new HashMap<>();
    boolean mayCreate = true;
    int segmentRows = 64;

    StoreTables(final Store store) {
        this.store = store;
    }

    @Override
    public Schema schema(final String name) {
        return store.hasTable(name) ? store.table(name).schema() : null;
    }

    @Override
    public TableWriter writer(final String name) {
        if (!store.hasTable(name)) {
            return null;
        }
        return writers.computeIfAbsent(name, n -> store.table(n).writer());
    }

    @Override
    public boolean mayCreate() {
        return mayCreate;
    }

    @Override
    public void create(final Schema schema) {
        store.createTable(schema.with(schema.name(), Layout.COLUMN, segmentRows, Math.min(segmentRows, 16)));
    }

    @Override
    public void checkCancelled() {
    }

    /**
     * @param table a table.
     * @return its committed rows, each as its columns' values in text (null for null): symbols and chars as
     *     themselves, decimals as plain BigDecimal text with the scale, f64 as Double.toString, the rest as integers.
     */
    List<List<String>> rows(final String table) {
        return rows(table, 0);
    }

    /**
     * @param table a table.
     * @param from  the first row wanted.
     * @return its committed rows from {@code from} on, as {@link #rows(String)} gives them.
     */
    List<List<String>> rows(final String table, final long from) {
        final List<List<String>> out = new ArrayList<>();
        try (TableReader r = store.table(table).reader()) {
            final TableSnapshot s = r.snapshot();
            for (long row = from; row < s.rowCount(); row++) {
                final List<String> values = new ArrayList<>();
                for (final Column c : s.schema().columns()) {
                    values.add(value(s, c, NativeMemory.getSigned(s.rowAddress(row, c.index()), c.width())));
                }
                out.add(values);
            }
        }
        return out;
    }

    private static String value(final TableSnapshot s, final Column c, final long raw) {
        if (raw == c.type().nullBits()) {
            return null;
        }
        switch (c.type()) {
            case SYMBOL:
                return s.symbolValue(c.index(), (int) raw);
            case CHAR:
                return String.valueOf((char) raw);
            case DECIMAL:
                return BigDecimal.valueOf(raw, c.scale()).toPlainString();
            case F64:
                return Double.toString(Double.longBitsToDouble(raw));
            default:
                return Long.toString(raw);
        }
    }

    @Override
    public void close() {
        for (final TableWriter w : writers.values()) {
            w.close();
        }
        writers.clear();
    }
}
