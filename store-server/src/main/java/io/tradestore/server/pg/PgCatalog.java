package io.tradestore.server.pg;

import java.util.List;

/**
 * Answers the session and catalog statements clients send when they connect or browse ({@code SET}, {@code SHOW},
 * {@code SELECT version()}, the {@code pg_catalog} and {@code information_schema} lookups of psql, the JDBC driver
 * and Grafana) from the store's tables and columns; every other statement goes to the SQL engine.
 */
public interface PgCatalog {
    /**
     * Answers {@code sql} when it is a session or catalog statement.
     *
     * @param sql        the statement's text, as the client sent it (with {@code $n} placeholders in extended query).
     * @param parameters the bound values of {@code $1..$n} in text form ({@code null} for NULL); empty in simple query.
     * @param settings   the session's parameters: {@code SHOW} reads them, {@code SET} and {@code RESET} change them.
     * @return the answer, or {@code null} when the statement is for the engine.
     * @throws io.tradestore.query.QueryException when it is a catalog statement tradestore cannot answer; its message
     *                                            names the construct.
     */
    PgAnswer answer(String sql, List<String> parameters, SessionSettings settings);
}
