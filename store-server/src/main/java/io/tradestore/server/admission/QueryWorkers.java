package io.tradestore.server.admission;

/**
 * The server's query workers as a front end other than HTTP sees them: the same threads, the same bound of running
 * plus waiting queries, the same stop and the same metrics as {@code /v1/query}.
 */
public interface QueryWorkers {
    /**
     * Admits a query: it runs on a worker, counted with every other query against threads plus queue.
     *
     * @param query the query.
     * @return false, at once, when as many queries run and wait as allowed or the server is stopping; the caller
     *     answers its client then.
     */
    boolean submit(AdmittedQuery query);

    /** @return the longest a query may take from its arrival, as HTTP's {@code --timeout-ms}. */
    long timeoutMs();

    /** @return queries admitted and not finished: running plus waiting, over every front end. */
    int admitted();

    /** @return what a refused client is told: how many workers are busy and queries waiting. */
    String overloadedMessage();

    /**
     * Counts a finished PostgreSQL statement in the server's metrics (endpoint {@code pg}), with the HTTP status its
     * outcome would have had (200, 400, 404, 500, 503, 504).
     *
     * @param status    the status.
     * @param latencyNs from its arrival to its answer.
     * @param scanned   rows the kernels looked at (0 when it did not run).
     * @param matched   rows that passed its filters.
     */
    void statementDone(int status, long latencyNs, long scanned, long matched);
}
