package io.tradestore.query;

import java.io.IOException;
import java.io.OutputStream;
import java.util.List;

/**
 * The rows of a query answer, typed, plus statistics. Values come back as {@code Long} (integers, counts, symbol-free
 * integer keys, timestamps as epoch nanos), {@code java.math.BigDecimal} (decimals and exact sums, with their scale),
 * {@code Double} (f64, avg, vwap, percentiles), {@code String} (symbols, chars) or {@code null}.
 *
 * <p>Contract for the server and CLI; the store-query issue fills in the implementation.
 */
public interface QueryResult {
    /** @return the output columns. */
    List<ResultColumn> columns();

    /** @return the number of rows. */
    int rowCount();

    /**
     * @param row    row index.
     * @param column column index.
     * @return the value (see the class comment for types), or null.
     */
    Object value(int row, int column);

    /** @return whether the limit left rows out: a scan's matching rows, or groups (those that pass {@code having}). */
    boolean truncated();

    /** @return what the query did. */
    QueryStats stats();

    /**
     * Streams the response object ({@code columns, rows, truncated, stats}) with Jackson's generator.
     *
     * @param out        where to write; not closed.
     * @param epochNanos timestamps as integer epoch nanos instead of ISO-8601 strings.
     * @throws IOException when writing fails.
     */
    void writeJson(OutputStream out, boolean epochNanos) throws IOException;
}
