package io.tradestore.server.http;

import io.tradestore.query.QueryResult;

/**
 * What the server calls to answer a query: {@code QueryEngine::execute} in production; tests wrap it to make queries
 * slow or faulty.
 */
@FunctionalInterface
public interface QueryService {
    /**
     * Runs a JSON query.
     *
     * @param json the query text.
     * @return the result.
     * @throws io.tradestore.query.QueryException when the query is bad, too big or too slow.
     */
    QueryResult execute(String json);
}
