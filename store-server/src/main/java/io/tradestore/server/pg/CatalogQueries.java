package io.tradestore.server.pg;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

import io.tradestore.core.Store;
import io.tradestore.query.ErrorCode;
import io.tradestore.query.QueryException;
import net.sf.jsqlparser.JSQLParserException;
import net.sf.jsqlparser.parser.CCJSqlParserUtil;
import net.sf.jsqlparser.statement.Statement;
import net.sf.jsqlparser.statement.select.Select;

/**
 * Answers catalog queries by evaluating them, not by recognising their text: a query is parsed with JSqlParser and
 * run by a small relational evaluator ({@link CatalogSelect}, {@link CatalogExpressions}) over in-memory catalog
 * relations built from the store ({@link CatalogTables}). So the many spellings of the same lookup (psql's,
 * pgjdbc's in each of its versions, Grafana's, a user's own) are all answered from the same few relations, and a
 * query that reads something tradestore does not model is refused by name, never answered wrongly.
 *
 * <p>Parses are kept by text (clients send the same catalog queries on every connection).
 */
final class CatalogQueries {
    private static final int CACHED_PARSES = 256;
    /** psql writes {@code relname OPERATOR(pg_catalog.~) '^(trades)$' COLLATE pg_catalog.default}. */
    private static final Pattern OPERATOR = Pattern.compile(
        "(?i)OPERATOR\\s*\\(\\s*(?:pg_catalog\\s*\\.\\s*)?([~!=<>*]+)\\s*\\)");
    private static final Pattern COLLATE = Pattern.compile("(?i)COLLATE\\s+(?:pg_catalog\\s*\\.\\s*)?\"?default\"?");

    private final Store store;
    private final Map<String, Select> parses = new LinkedHashMap<>(16, 0.75f, true) {
        private static final long serialVersionUID = 1L;

        @Override
        protected boolean removeEldestEntry(final Map.Entry<String, Select> eldest) {
            return size() > CACHED_PARSES;
        }
    };

    /**
     * A query of the store's own tables that reached the catalog (it calls a {@code pg_...} function, say): the
     * engine answers or refuses it.
     */
    static final class EngineQuery extends RuntimeException {
        private static final long serialVersionUID = 1L;

        EngineQuery() {
            super(null, null, false, false);
        }
    }

    /**
     * @param store the store described.
     */
    CatalogQueries(final Store store) {
        this.store = store;
    }

    /**
     * @param sql        a query that reads the catalog, or no table at all.
     * @param parameters the bound values of {@code $1..$n}.
     * @param settings   the session's parameters.
     * @return its answer, or {@code null} when it reads the store's tables.
     */
    PgAnswer answer(final String sql, final List<String> parameters, final SessionSettings settings) {
        final Select select = parse(sql);
        final CatalogRelation r;
        try {
            r = new CatalogSelect(new CatalogTables(store, settings), parameters).run(select, null);
        } catch (final EngineQuery e) {
            return null;
        } catch (final StackOverflowError e) {
            throw refuse("the catalog query nests too deeply");
        }
        final List<List<String>> rows = new ArrayList<>(r.rows().size());
        for (final Object[] v : r.rows()) {
            final List<String> row = new ArrayList<>(v.length);
            for (final Object x : v) {
                row.add(text(x));
            }
            rows.add(row);
        }
        return new PgAnswer("SELECT " + rows.size(), r.columns(), rows);
    }

    private static String text(final Object v) {
        if (v instanceof Double d && d == Math.rint(d) && !Double.isInfinite(d)) {
            return Long.toString(d.longValue());
        }
        return CatalogValues.text(v);
    }

    private Select parse(final String sql) {
        synchronized (parses) {
            final Select cached = parses.get(sql);
            if (cached != null) {
                return cached;
            }
        }
        final String text = COLLATE.matcher(OPERATOR.matcher(sql).replaceAll(" $1 ")).replaceAll("");
        final Statement statement;
        try {
            statement = CCJSqlParserUtil.parse(text);
        } catch (final JSQLParserException | RuntimeException | StackOverflowError e) {
            throw new QueryException(ErrorCode.MALFORMED_SQL,
                "tradestore cannot read this catalog query; it answers the catalog queries of psql, JDBC, psycopg"
                + " and Grafana (docs/sql.md)", "");
        }
        if (!(statement instanceof Select select)) {
            throw refuse("only SELECT reads the catalog");
        }
        synchronized (parses) {
            parses.put(sql, select);
        }
        return select;
    }

    /**
     * @param message what is not supported.
     * @return the exception refusing a catalog query.
     */
    static QueryException refuse(final String message) {
        return new QueryException(ErrorCode.INVALID_QUERY, message, "");
    }
}
