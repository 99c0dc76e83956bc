package io.tradestore.server.http;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.List;

import io.tradestore.query.QueryCancel;
import io.tradestore.query.QueryEngine;
import io.tradestore.query.QueryResult;
import io.tradestore.query.ResultColumn;
import io.tradestore.query.RowStream;
import io.tradestore.query.sql.SqlParameters;

/**
 * What the server calls to answer a query: {@link #of(QueryEngine)} in production; tests wrap a lambda over the text to
 * make queries slow or faulty.
 */
@FunctionalInterface
public interface QueryService {
    /**
     * Runs a JSON query that the server answers within {@code timeoutMs} (what is left of the request's time when a
     * worker takes it): past that the server has answered 504, so the query should stop too ({@link
     * io.tradestore.query.QueryEngine#execute(String, long)} does).
     *
     * @param json      the query text.
     * @param timeoutMs the longest it may still run.
     * @return the result.
     * @throws io.tradestore.query.QueryException when the query is bad, too big or too slow.
     */
    QueryResult execute(String json, long timeoutMs);

    /**
     * Runs a JSON query read from a POST body's bytes, which the server has checked to be UTF-8 with no NUL byte among
     * the first four (so Jackson reads them as UTF-8). This default decodes them into a String for
     * {@link #execute(String, long)}; {@link #of(QueryEngine)} parses the bytes.
     *
     * @param utf8Json  the query text in UTF-8, read to its end.
     * @param timeoutMs the longest it may still run.
     * @return the result.
     * @throws io.tradestore.query.QueryException when the query is bad, too big or too slow.
     */
    default QueryResult execute(final InputStream utf8Json, final long timeoutMs) {
        try {
            return execute(new String(utf8Json.readAllBytes(), StandardCharsets.UTF_8), timeoutMs);
        } catch (final IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * Runs a JSON query read from a POST body's bytes that the server may stop: when it stops (past its grace period)
     * it cancels the query, which should then fail soon. This default ignores the cancel; {@link #of(QueryEngine)}
     * passes it to the engine.
     *
     * @param utf8Json  the query text in UTF-8, read to its end.
     * @param timeoutMs the longest it may still run.
     * @param cancel    cancelled by the server when it stops.
     * @return the result.
     * @throws io.tradestore.query.QueryException when the query is bad, too big, too slow or cancelled.
     */
    default QueryResult execute(final InputStream utf8Json, final long timeoutMs, final QueryCancel cancel) {
        return execute(utf8Json, timeoutMs);
    }

    /**
     * Runs the text of a GET query that the server may stop, as {@link #execute(InputStream, long, QueryCancel)} does.
     *
     * @param json      the query text.
     * @param timeoutMs the longest it may still run.
     * @param cancel    cancelled by the server when it stops.
     * @return the result.
     * @throws io.tradestore.query.QueryException when the query is bad, too big, too slow or cancelled.
     */
    default QueryResult execute(final String json, final long timeoutMs, final QueryCancel cancel) {
        return execute(json, timeoutMs);
    }

    /**
     * Runs SQL text (docs/sql.md) that the server answers within {@code timeoutMs} and may stop, as {@link
     * #execute(String, long, QueryCancel)} runs JSON. This default refuses (a test's service may run JSON only);
     * {@link #of(QueryEngine)} translates and runs it on the engine.
     *
     * @param sql       the SQL text.
     * @param timeoutMs the longest it may still run.
     * @param cancel    cancelled by the server when it stops.
     * @return the result.
     * @throws io.tradestore.query.QueryException when the query is bad, too big, too slow or cancelled.
     */
    default QueryResult executeSql(final String sql, final long timeoutMs, final QueryCancel cancel) {
        throw new io.tradestore.query.QueryException(io.tradestore.query.ErrorCode.INTERNAL,
            "this query service runs no SQL", "");
    }

    /**
     * Runs SQL text with {@code $n} placeholders bound to values, as {@link #executeSql(String, long, QueryCancel)}
     * runs SQL text: the PostgreSQL front end's prepared statements. This default refuses; {@link #of(QueryEngine)}
     * binds the values into the cached parse of the text ({@link QueryEngine#executeSql(String, SqlParameters, long,
     * QueryCancel)}).
     *
     * @param sql        the SQL text.
     * @param parameters the placeholders' values.
     * @param timeoutMs  the longest it may still run.
     * @param cancel     cancelled by the server when it stops or the client asks.
     * @return the result.
     * @throws io.tradestore.query.QueryException when the query is bad, too big, too slow or cancelled.
     */
    default QueryResult executeSql(final String sql, final SqlParameters parameters, final long timeoutMs,
        final QueryCancel cancel) {
        if (parameters == SqlParameters.NONE) {
            return executeSql(sql, timeoutMs, cancel);
        }
        throw new io.tradestore.query.QueryException(io.tradestore.query.ErrorCode.INTERNAL,
            "this query service binds no parameters", "");
    }

    /**
     * Runs a query into a stream of batches ({@link QueryEngine#stream}); by default, the whole answer as one batch.
     *
     * @param text      the JSON or SQL text, or null when {@code body} holds JSON.
     * @param body      the JSON body, or null.
     * @param sql       whether {@code text} is SQL.
     * @param timeoutMs the longest it may run.
     * @param cancel    stops the query when cancelled.
     * @param out       where the batches go.
     * @throws IOException when {@code out} fails.
     */
    default void stream(final String text, final InputStream body, final boolean sql, final long timeoutMs,
        final QueryCancel cancel, final RowStream out) throws IOException {
        out.rows(sql ? executeSql(text, timeoutMs, cancel) : body != null ? execute(body, timeoutMs, cancel)
            : execute(text, timeoutMs, cancel));
    }

    /**
     * Runs SQL text with {@code $n} placeholders bound to values into a stream of batches
     * ({@link QueryEngine#streamSql(String, SqlParameters, long, QueryCancel, RowStream)}): an unsorted scan in
     * batches as it reads, with no row cap; by default, the whole answer as one batch.
     *
     * @param sql        the SQL text.
     * @param parameters the placeholders' values.
     * @param timeoutMs  the longest it may run.
     * @param cancel     stops the query when cancelled.
     * @param out        where the batches go.
     * @throws IOException when {@code out} fails.
     */
    default void streamSql(final String sql, final SqlParameters parameters, final long timeoutMs,
        final QueryCancel cancel, final RowStream out) throws IOException {
        out.rows(executeSql(sql, parameters, timeoutMs, cancel));
    }

    /**
     * The columns a SQL statement answers with, without running it ({@link QueryEngine#describeSql}). This default
     * refuses; {@link #of(QueryEngine)} plans the statement on the engine.
     *
     * @param sql        the SQL text.
     * @param parameters the placeholders' values, or {@link SqlParameters#describing()}.
     * @return the columns.
     * @throws io.tradestore.query.QueryException when the statement is bad.
     */
    default List<ResultColumn> describeSql(final String sql, final SqlParameters parameters) {
        throw new io.tradestore.query.QueryException(io.tradestore.query.ErrorCode.INTERNAL,
            "this query service describes no SQL", "");
    }

    /**
     * The production service: queries run on an engine, a POST body parsed by Jackson from its bytes.
     *
     * @param engine the engine (not closed by the server).
     * @return the service.
     */
    static QueryService of(final QueryEngine engine) {
        return new QueryService() {
            @Override
            public QueryResult execute(final String json, final long timeoutMs) {
                return engine.execute(json, timeoutMs);
            }

            @Override
            public QueryResult execute(final InputStream utf8Json, final long timeoutMs) {
                return engine.execute(utf8Json, timeoutMs);
            }

            @Override
            public QueryResult execute(final InputStream utf8Json, final long timeoutMs, final QueryCancel cancel) {
                return engine.execute(utf8Json, timeoutMs, cancel);
            }

            @Override
            public QueryResult execute(final String json, final long timeoutMs, final QueryCancel cancel) {
                return engine.execute(json, timeoutMs, cancel);
            }

            @Override
            public QueryResult executeSql(final String sql, final long timeoutMs, final QueryCancel cancel) {
                return engine.executeSql(sql, timeoutMs, cancel);
            }

            @Override
            public QueryResult executeSql(final String sql, final SqlParameters parameters, final long timeoutMs,
                final QueryCancel cancel) {
                return engine.executeSql(sql, parameters, timeoutMs, cancel);
            }

            @Override
            public List<ResultColumn> describeSql(final String sql, final SqlParameters parameters) {
                return engine.describeSql(sql, parameters);
            }

            @Override
            public void streamSql(final String sql, final SqlParameters parameters, final long timeoutMs,
                final QueryCancel cancel, final RowStream out) throws IOException {
                try {
                    engine.streamSql(sql, parameters, timeoutMs, cancel, out);
                } catch (final UncheckedIOException e) {
                    throw e.getCause();
                }
            }

            @Override
            public void stream(final String text, final InputStream body, final boolean sql, final long timeoutMs,
                final QueryCancel cancel, final RowStream out) throws IOException {
                try {
                    if (sql) {
                        engine.streamSql(text, timeoutMs, cancel, out);
                    } else if (body != null) {
                        engine.stream(body, timeoutMs, cancel, out);
                    } else {
                        engine.stream(text, timeoutMs, cancel, out);
                    }
                } catch (final UncheckedIOException e) {
                    throw e.getCause();
                }
            }
        };
    }
}
