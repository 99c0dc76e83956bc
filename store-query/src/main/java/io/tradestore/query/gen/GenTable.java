package io.tradestore.query.gen;

import java.util.List;

/**
 * A table the {@link QueryGenerator} draws queries over: its columns, rows to sample literals from, and the {@link
 * GenProfile} that fits the grammar to it. The differential test's random tables hold every row; a benchmark table
 * can offer a sample of its rows (a random row's value is a value at a uniformly drawn quantile, so filters drawn from
 * it select a spread of fractions of the whole table).
 */
public interface GenTable {
    /** @return the table's name, in tradestore and in DuckDB alike. */
    String name();

    /** @return the columns, in schema order. */
    List<GenColumn> columns();

    /** @return rows {@link #value} can read (the literals' sample). */
    int sampleRows();

    /** @return rows of the table the queries run on (for group-count estimates). */
    long rows();

    /**
     * Returns a sampled row's value as the engine would report it.
     *
     * @param column a column index.
     * @param row    a row below {@link #sampleRows()}.
     * @return null, a Long (integers, timestamps in epoch nanos), a BigDecimal, a Double or a String.
     */
    Object value(int column, int row);

    /** @return symbol strings in the dictionary that no row uses (absent literals); may be empty. */
    List<String> unusedSymbols();

    /** @return how the grammar fits this table. */
    GenProfile profile();

    /**
     * @param column a column name.
     * @return its index.
     * @throws IllegalArgumentException when there is no such column.
     */
    default int columnIndex(final String column) {
        final List<GenColumn> cols = columns();
        for (int i = 0; i < cols.size(); i++) {
            if (cols.get(i).name().equals(column)) {
                return i;
            }
        }
        throw new IllegalArgumentException("no column " + column);
    }

    /** @param column a column name. @return the column. */
    default GenColumn column(final String column) {
        return columns().get(columnIndex(column));
    }
}
