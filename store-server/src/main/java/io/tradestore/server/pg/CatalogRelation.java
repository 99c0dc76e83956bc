package io.tradestore.server.pg;

import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * A small in-memory relation the catalog reads or answers: {@code pg_class} built from the store, or the result of a
 * catalog query. Values are {@code Long}, {@code Double}, {@code Boolean}, {@code String}, {@code List} (an array) or
 * {@code null}.
 */
final class CatalogRelation {
    private final String name;
    private final List<PgColumn> columns;
    private final List<Object[]> rows;
    private final Map<String, Integer> indexByName = new HashMap<>();

    /**
     * @param name    the relation's name ({@code pg_class}), for messages.
     * @param columns its columns.
     * @param rows    its rows, each as long as {@code columns}.
     */
    CatalogRelation(final String name, final List<PgColumn> columns, final List<Object[]> rows) {
        this.name = name;
        this.columns = columns;
        this.rows = rows;
        for (int i = columns.size() - 1; i >= 0; i--) {
            indexByName.put(columns.get(i).name().toLowerCase(Locale.ROOT), i);
        }
    }

    /** @return the relation's name. */
    String name() {
        return name;
    }

    /** @return its columns. */
    List<PgColumn> columns() {
        return columns;
    }

    /** @return its rows. */
    List<Object[]> rows() {
        return rows;
    }

    /**
     * @param column a column name, in lower case.
     * @return its index, or -1 when the relation has no such column.
     */
    int indexOf(final String column) {
        final Integer i = indexByName.get(column);
        return i == null ? -1 : i;
    }
}
