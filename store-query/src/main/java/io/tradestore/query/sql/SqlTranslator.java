package io.tradestore.query.sql;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import net.sf.jsqlparser.expression.Alias;
import net.sf.jsqlparser.expression.AllValue;
import net.sf.jsqlparser.expression.NullValue;
import net.sf.jsqlparser.expression.Expression;
import net.sf.jsqlparser.expression.LongValue;
import net.sf.jsqlparser.schema.Column;
import net.sf.jsqlparser.schema.Table;
import net.sf.jsqlparser.statement.select.AllColumns;
import net.sf.jsqlparser.statement.select.GroupByElement;
import net.sf.jsqlparser.statement.select.Join;
import net.sf.jsqlparser.statement.select.OrderByElement;
import net.sf.jsqlparser.statement.select.PlainSelect;
import net.sf.jsqlparser.statement.select.SelectItem;

import io.tradestore.core.StoreException;
import io.tradestore.core.schema.ColumnType;
import io.tradestore.core.schema.Schema;
import io.tradestore.query.ErrorCode;
import io.tradestore.query.QueryException;
import io.tradestore.query.model.Filter;
import io.tradestore.query.model.OrderKey;
import io.tradestore.query.model.Query;

/**
 * Translates one SQL {@code SELECT} into the query model ({@link Query}) that JSON queries use, so that both are
 * planned and run by the same code; docs/sql.md lists what it accepts and what it refuses. A refusal names the
 * construct and its line and column; so does a failure of the translated query, through {@link SqlQuery#locate}.
 */
public final class SqlTranslator implements SqlAggregates.Columns, SqlFilters.Operands {
    /** Looks up a table. */
    @FunctionalInterface
    public interface Schemas {
        /**
         * @param table a table name.
         * @return its schema.
         * @throws QueryException UNKNOWN_TABLE when there is no such table.
         */
        Schema schema(String table);
    }

    final PlainSelect select;
    final Schema schema;
    final String table;
    final String alias;
    final Map<String, SqlPos> positions = new HashMap<>();
    final SqlText.Parsed parsed;
    final SqlParameters parameters;
    private final SqlAggregateQuery aggregates;

    private SqlTranslator(final SqlText.Parsed parsed, final Schemas schemas, final SqlParameters parameters) {
        this.parsed = parsed;
        this.parameters = parameters;
        this.select = parsed.select();
        refuseUnsupportedClauses();
        if (!(select.getFromItem() instanceof Table t)) {
            final SqlPos pos = SqlPos.of(select.getFromItem(), SqlPos.START);
            throw new SqlException(ErrorCode.INVALID_QUERY, select.getFromItem() == null
                ? "the query has no FROM; name a table, as in SELECT count(*) FROM trades"
                : "FROM takes one table; subqueries and table functions are not supported (" + pos + ")", pos);
        }
        final SqlPos tablePos = SqlPos.of(t, SqlPos.START);
        if (t.getSchemaName() != null) {
            throw new SqlException(ErrorCode.INVALID_QUERY, "tables have no schema or database prefix; write FROM "
                + t.getName() + " (" + tablePos + ")", tablePos);
        }
        this.table = identifier(t.getName());
        this.alias = t.getAlias() == null ? null : identifier(t.getAlias().getName());
        positions.put("/table", tablePos);
        try {
            this.schema = schemas.schema(table);
        } catch (final QueryException e) {
            throw e.code() == ErrorCode.UNKNOWN_TABLE ? SqlException.of(e, tablePos) : e;
        }
        this.aggregates = new SqlAggregateQuery(this);
    }

    /**
     * @param sql     the SQL text.
     * @param schemas looks up the table it names.
     * @return the translated query.
     * @throws SqlException what cannot be translated, at its place in the text.
     */
    public static SqlQuery translate(final String sql, final Schemas schemas) {
        return translate(sql, schemas, SqlParameters.NONE);
    }

    /**
     * Translates a statement with {@code $n} placeholders: the text is parsed once (its parse is cached by the text),
     * each call binds its own values where the placeholders stand ({@link SqlParameters}).
     *
     * @param sql        the SQL text.
     * @param schemas    looks up the table it names.
     * @param parameters the placeholders' values.
     * @return the translated query.
     * @throws SqlException what cannot be translated, at its place in the text.
     */
    public static SqlQuery translate(final String sql, final Schemas schemas, final SqlParameters parameters) {
        return new SqlTranslator(SqlText.parse(sql), schemas, parameters).translate();
    }

    private SqlQuery translate() {
        final Filter where = select.getWhere() == null ? null : where(select.getWhere());
        final boolean aggregate = parsed.sampleBy() != null || select.getGroupBy() != null
            || select.getHaving() != null || aggregates.anyAggregate(select.getSelectItems());
        final List<SqlResult.Output> outputs = new ArrayList<>();
        final int[] limitOffset = limitOffset();
        final Integer limit = limitOffset[0] < 0 ? null : limitOffset[0];
        final Query q;
        try {
            if (aggregate) {
                q = aggregates.query(where, outputs, limit);
            } else {
                q = new SqlScan(this).query(where, outputs, limit);
            }
        } catch (final QueryException e) {
            throw new SqlQuery(null, List.of(), positions).locate(e);
        }
        // the model skips the offset's rows where it orders them, so a scan with OFFSET and no LIMIT still reads
        // past the offset (its default limit counts after it, as DuckDB's whole answer does)
        return new SqlQuery(limitOffset[1] == 0 ? q : q.withPage(q.limit(), limitOffset[1]), outputs, positions);
    }

    private Filter where(final Expression e) {
        final SqlFilters f = new SqlFilters(this, "WHERE", parameters);
        final Filter filter = f.filter(e, SqlPos.START);
        f.paths(filter, "/filter", positions);
        return filter;
    }

    private void refuseUnsupportedClauses() {
        if (select.getWithItemsList() != null && !select.getWithItemsList().isEmpty()) {
            throw refuse("WITH (common table expressions)", select.getWithItemsList().get(0));
        }
        if (select.getDistinct() != null) {
            throw refuse("SELECT DISTINCT (write GROUP BY)", select.getSelectItems().get(0));
        }
        final List<Join> joins = select.getJoins();
        if (joins != null && !joins.isEmpty()) {
            throw refuse("joins", joins.get(0).getRightItem());
        }
        if (select.getFetch() != null || select.getTop() != null) {
            throw refuse("FETCH and TOP (write LIMIT)", select.getSelectItems().get(0));
        }
        if (select.getIntoTables() != null) {
            throw refuse("SELECT INTO", select.getSelectItems().get(0));
        }
        if (select.getGroupBy() != null) {
            final GroupByElement g = select.getGroupBy();
            if (g.getGroupingSets() != null && !g.getGroupingSets().isEmpty()) {
                throw refuse("GROUPING SETS, ROLLUP and CUBE", select.getSelectItems().get(0));
            }
        }
    }

    private SqlException refuse(final String construct, final Object near) {
        final SqlPos pos = SqlPos.of(near, SqlPos.START);
        return new SqlException(ErrorCode.INVALID_QUERY, construct + " " + (construct.endsWith("s") ? "are" : "is")
            + " not supported: a query reads one table (" + pos + ")", pos);
    }

    /** @return {limit or -1, offset}. */
    private int[] limitOffset() {
        int limit = -1;
        int offset = 0;
        if (select.getLimit() != null) {
            final var l = select.getLimit();
            if (l.getRowCount() != null && !(l.getRowCount() instanceof AllValue)
                && !(l.getRowCount() instanceof NullValue)) {
                limit = count(l.getRowCount(), "LIMIT");
                positions.put("/limit", SqlPos.of(l.getRowCount(), SqlPos.START));
            }
            if (l.getOffset() != null) {
                offset = count(l.getOffset(), "OFFSET");
            }
        }
        if (select.getOffset() != null) {
            offset = count(select.getOffset().getOffset(), "OFFSET");
        }
        if (limit >= 0 && (long) limit + offset > Integer.MAX_VALUE) {
            throw new SqlException(ErrorCode.INVALID_QUERY, "LIMIT plus OFFSET is above " + Integer.MAX_VALUE,
                SqlPos.of(select.getLimit().getRowCount(), SqlPos.START));
        }
        return new int[] {limit, offset};
    }

    private int count(final Expression e, final String clause) {
        final SqlPos pos = SqlPos.of(e, SqlPos.START);
        if (e instanceof LongValue v) {
            final java.math.BigInteger b = new java.math.BigInteger(v.getStringValue());
            if (b.signum() >= 0 && b.bitLength() < 32) {
                return b.intValue();
            }
        }
        final Object v = SqlParameters.isParameter(e) ? parameters.count(e, pos)
            : e instanceof LongValue ? null : literal(e, pos);
        if (v instanceof Long l && l >= 0 && l <= Integer.MAX_VALUE) {
            return (int) (long) l;
        }
        throw new SqlException(ErrorCode.INVALID_QUERY, clause + " takes a whole number from 0 to "
            + Integer.MAX_VALUE + ", not " + SqlFilters.echo(e) + " (" + pos + ")", pos);
    }

    /** @return a literal count written otherwise ({@code ('3'::int4)}, as clients bind it), or null. */
    private static Object literal(final Expression e, final SqlPos pos) {
        try {
            return SqlValues.value(e, false, pos);
        } catch (final SqlException ex) {
            return null;
        }
    }

    // ------------------------------------------------------------------------------------- columns and operands

    /**
     * @param name an identifier as written ({@code Venue}, {@code "venue"}).
     * @return its name: unquoted and lower case (names are case-insensitive, quoted or not, as in DuckDB).
     */
    static String identifier(final String name) {
        String n = name;
        if (n.length() >= 2 && (n.startsWith("\"") && n.endsWith("\"") || n.startsWith("`") && n.endsWith("`"))) {
            n = n.substring(1, n.length() - 1).replace("\"\"", "\"");
        }
        return n.toLowerCase(Locale.ROOT);
    }

    /**
     * @param e   an expression.
     * @param pos where it is.
     * @return the table's column it names, or null when it is not a column reference.
     * @throws SqlException UNKNOWN_COLUMN for a column the table lacks.
     */
    String column(final Expression e, final SqlPos pos) {
        if (!(e instanceof Column c)) {
            return null;
        }
        if (c.getTable() != null && c.getTable().getName() != null) {
            final String q = identifier(c.getTable().getName());
            if (!q.equals(table) && !q.equals(alias)) {
                throw new SqlException(ErrorCode.UNKNOWN_COLUMN, "'" + StoreException.echo(c.toString())
                    + "' names another table than " + table + " (" + pos + ")", pos);
            }
        }
        final String name = identifier(c.getColumnName());
        if (schema.indexOf(name) < 0) {
            throw new SqlException(ErrorCode.UNKNOWN_COLUMN, "unknown column '" + StoreException.echo(name)
                + "' in table '" + table + "'; columns are " + schema.columnNames() + " (" + pos + ")", pos);
        }
        return name;
    }

    /** @param name a column. @return its type. */
    ColumnType type(final String name) {
        return schema.require(name).type();
    }

    @Override
    public String argument(final Expression e, final SqlPos pos) {
        final String c = column(e, pos);
        if (c != null) {
            return c;
        }
        if (SqlAggregates.isProduct(e)) {
            final var m = (net.sf.jsqlparser.expression.BinaryExpression) e;
            final String a = column(m.getLeftExpression(), SqlPos.of(m.getLeftExpression(), pos));
            final String b = column(m.getRightExpression(), SqlPos.of(m.getRightExpression(), pos));
            if (a != null && b != null) {
                return a + "*" + b;
            }
        }
        throw new SqlException(ErrorCode.INVALID_QUERY, "an aggregate's argument is a column or the product of two "
            + "columns (price*quantity), not '" + SqlFilters.echo(e) + "' (" + pos + ")", pos);
    }

    @Override
    public String timestampColumn() {
        return schema.column(schema.timestampIndex()).name();
    }

    /** WHERE operands: the table's columns; aggregates are refused (they belong in HAVING). */
    @Override
    public SqlFilters.Operand operand(final Expression e, final SqlPos pos) {
        final String c = column(e, pos);
        if (c != null) {
            return new SqlFilters.Operand(c, type(c) == ColumnType.TIMESTAMP);
        }
        if (e instanceof net.sf.jsqlparser.expression.ExtractExpression x && x.getName().equalsIgnoreCase("epoch")) {
            final SqlPos at = SqlPos.of(x.getExpression(), pos);
            final String ts = column(x.getExpression(), at);
            if (ts == null || type(ts) != ColumnType.TIMESTAMP) {
                throw new SqlException(ErrorCode.INVALID_QUERY, "extract(epoch from ...) takes a timestamp column ("
                    + at + ")", at);
            }
            return new SqlFilters.Operand(ts, true, true);
        }
        if (aggregates.isAggregate(e)) {
            throw new SqlException(ErrorCode.INVALID_QUERY, "aggregates are not allowed in WHERE; filter groups "
                + "with HAVING (" + pos + ")", pos);
        }
        return null;
    }

    @Override
    public Object[] twoValues(final String name, final SqlPos pos) {
        return twoValues(type(name));
    }

    /** @param type a column type. @return two different values of it. */
    static Object[] twoValues(final ColumnType type) {
        switch (type) {
            case SYMBOL:
            case CHAR:
                return new Object[] {"A", "B"};
            default:
                return new Object[] {0L, 1L};
        }
    }

    /**
     * @param item a select item.
     * @return its SQL output name: the alias, the column's name, or the expression as written.
     */
    String outputName(final SelectItem<?> item) {
        final Alias a = item.getAlias();
        if (a != null) {
            return identifier(a.getName());
        }
        if (item.getExpression() instanceof Column c) {
            return identifier(c.getColumnName());
        }
        return item.getExpression().toString();
    }

    /** @param item a select item. @return whether it is {@code *} or {@code t.*}. */
    static boolean isStar(final SelectItem<?> item) {
        return item.getExpression() instanceof AllColumns;
    }

    /**
     * @param o   an ORDER BY element.
     * @param pos where it is.
     * @throws SqlException for NULLS FIRST (the engine sorts nulls last, as DuckDB does by default).
     */
    static void checkNulls(final OrderByElement o, final SqlPos pos) {
        if (o.getNullOrdering() == OrderByElement.NullOrdering.NULLS_FIRST) {
            throw new SqlException(ErrorCode.INVALID_QUERY, "NULLS FIRST is not supported: the engine sorts nulls "
                + "last in both directions, as DuckDB does by default (" + pos + ")", pos);
        }
    }

    /**
     * @param keys the order keys with their places.
     * @return the keys, their places recorded under {@code /orderBy/i}.
     */
    List<OrderKey> orderKeys(final LinkedHashMap<OrderKey, SqlPos> keys) {
        final List<OrderKey> out = new ArrayList<>();
        for (final Map.Entry<OrderKey, SqlPos> e : keys.entrySet()) {
            positions.put("/orderBy/" + out.size(), e.getValue());
            out.add(e.getKey());
        }
        return out;
    }
}
