package io.tradestore.query;

import java.io.IOException;

/**
 * Where a streamed answer goes ({@link QueryEngine#stream}): its rows in batches, in answer order, as the engine
 * produces them. An unsorted scan arrives in many batches and is never held whole; any other answer in one.
 */
public interface RowStream {
    /**
     * A batch of rows; the first call also gives the columns (every batch has the same).
     *
     * @param batch the rows.
     * @throws IOException when the rows cannot be passed on (a client gone): the query stops.
     */
    void rows(QueryResult batch) throws IOException;
}
