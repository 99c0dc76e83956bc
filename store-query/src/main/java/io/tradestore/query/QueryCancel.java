package io.tradestore.query;

/**
 * A handle that stops one running query from another thread: the query's workers see it at their next batch (a few
 * thousand rows) or build step and the query fails with the code and message given here. A server cancels with it when
 * it stops, a client cancels its own query; {@link QueryEngine#close()} cancels every running query with its own.
 *
 * <p>Thread-safe; cancelling twice keeps the first reason.
 */
public final class QueryCancel {
    private volatile QueryException reason;

    /**
     * Asks the query to stop.
     *
     * @param code    the code the query fails with (OVERLOADED for a stopping server, TIMEOUT for a client's cancel).
     * @param message what the caller of the query is told.
     */
    public void cancel(final ErrorCode code, final String message) {
        synchronized (this) {
            if (reason == null) {
                reason = new QueryException(code, message, "");
            }
        }
    }

    /** @return whether {@link #cancel} has been called. */
    public boolean isCancelled() {
        return reason != null;
    }

    /**
     * @return the failure the cancelled query reports (a new exception each call, thrown from the query's thread), or
     * null.
     */
    public QueryException failure() {
        final QueryException r = reason;
        return r == null ? null : new QueryException(r.code(), r.getMessage(), "");
    }
}
