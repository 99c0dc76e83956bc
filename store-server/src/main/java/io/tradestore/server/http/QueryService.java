package io.tradestore.server.http;

import io.tradestore.query.QueryResult;

/**
 * What the server calls to answer a query: {@code QueryEngine::execute} in production; tests wrap it to make queries
 * slow or faulty.
 */
@FunctionalInterface
public interface QueryService {
    /**
     * Runs a JSON query that the server answers within {@code timeoutMs} (what is left of the request's time when a worker
     * takes it): past that the server has answered 504, so the query should stop too
     * ({@link io.tradestore.query.QueryEngine#execute(String, long)} does).
     *
     * @param json      the query text.
     * @param timeoutMs the longest it may still run.
     * @return the result.
     * @throws io.tradestore.query.QueryException when the query is bad, too big or too slow.
     */
    QueryResult execute(String json, long timeoutMs);
}
