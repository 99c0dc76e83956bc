package io.tradestore.query;

import io.tradestore.core.Store;

/**
 * Runs queries against the tables of a store on a pool of worker threads sized to the cores. Each query reads the
 * latest commit at the moment it starts. Thread-safe: many queries may run at once.
 *
 * <p>Contract for the server and CLI; the store-query issue fills in the implementation.
 */
public final class QueryEngine implements AutoCloseable {
    private final Store store;
    private final int threads;

    /**
     * Creates an engine with one worker per available core.
     *
     * @param store the store whose tables are queried.
     */
    public QueryEngine(final Store store) {
        this(store, Runtime.getRuntime().availableProcessors());
    }

    /**
     * Creates an engine.
     *
     * @param store   the store whose tables are queried.
     * @param threads worker threads for segment tasks.
     */
    public QueryEngine(final Store store, final int threads) {
        this.store = store;
        this.threads = threads;
    }

    /**
     * Parses and runs a JSON query.
     *
     * @param json the query text (DESIGN.md "Queries").
     * @return the result.
     * @throws QueryException with a code, a message and a JSON path when the query is bad, too big or too slow.
     */
    public QueryResult execute(final String json) {
        throw new QueryException(ErrorCode.INTERNAL, "query engine not built yet: store=" + store.directory() + " threads=" + threads,
            "");
    }

    /** Stops the workers; idempotent. */
    @Override
    public void close() {
        // nothing yet
    }
}
