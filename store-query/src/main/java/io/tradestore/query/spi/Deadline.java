package io.tradestore.query.spi;

import io.tradestore.query.QueryException;

/**
 * A query's deadline, for the work done on its behalf outside its row loops: an index or summary build is one pass
 * over a segment, so it
 * checks once per {@link #CHECK_ROWS} rows, as the scan checks once per batch, and a query past its
 * {@code timeoutMs} stops there with the scan's TIMEOUT.
 */
@FunctionalInterface
public interface Deadline {
    /** Rows a build reads between two checks: a clock read costs nothing beside them. */
    int CHECK_ROWS = 1 << 14;
    /** No deadline (builds outside a query). */
    Deadline NONE = () -> { };

    /** @throws QueryException TIMEOUT once the query's deadline has passed or the query was cancelled. */
    void check();
}
