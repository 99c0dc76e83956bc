package io.tradestore.server.pg;

import java.util.List;
import java.util.Locale;
import java.util.Objects;

import io.tradestore.core.Store;

/**
 * Answers the session and catalog statements of psql, the JDBC driver, psycopg and Grafana from a store's tables and
 * columns, and hands every other statement to the engine.
 *
 * <p>Which is which is decided by one pass over the text, without parsing it: a statement is the catalog's when its
 * first word starts a session statement ({@code SET}, {@code SHOW}, {@code BEGIN}...), or it is a {@code SELECT} that
 * names a {@code pg_...} or {@code information_schema} relation or reads no table at all ({@code SELECT version()}).
 * A query of the store's tables is given back ({@code null}) after that pass alone.
 */
public final class StoreCatalog implements PgCatalog {
    /** The answer to an empty statement: the wire layer sends {@code EmptyQueryResponse} for its empty tag. */
    public static final PgAnswer EMPTY = new PgAnswer("", List.of(), List.of());
    /** The PostgreSQL version tradestore reports ({@code server_version}), by which clients pick catalog queries. */
    public static final String SERVER_VERSION = SessionSettings.SERVER_VERSION;

    private final CatalogQueries queries;

    /**
     * Creates the catalog of a store.
     *
     * @param store the store whose tables the catalog describes; read at each catalog query, so new tables show.
     */
    public StoreCatalog(final Store store) {
        this.queries = new CatalogQueries(Objects.requireNonNull(store, "store"));
    }

    @Override
    public PgAnswer answer(final String sql, final List<String> parameters, final SessionSettings settings) {
        final int start = CatalogText.skipBlanks(sql, 0);
        if (start >= sql.length() || CatalogText.statement(sql, start).isEmpty()) {
            return EMPTY;
        }
        final String first = CatalogText.word(sql, start).toLowerCase(Locale.ROOT);
        if (first.equals("select") || first.equals("with") || first.equals("values") || first.equals("(")) {
            return CatalogText.readsCatalog(sql, start)
                ? queries.answer(CatalogText.statement(sql, start), parameters, settings) : null;
        }
        return SessionStatements.answer(CatalogText.statement(sql, start), first, settings);
    }
}
