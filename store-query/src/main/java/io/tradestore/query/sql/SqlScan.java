package io.tradestore.query.sql;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;

import net.sf.jsqlparser.expression.Expression;
import net.sf.jsqlparser.expression.LongValue;
import net.sf.jsqlparser.statement.select.AllTableColumns;
import net.sf.jsqlparser.statement.select.OrderByElement;
import net.sf.jsqlparser.statement.select.SelectItem;

import io.tradestore.core.schema.Column;
import io.tradestore.query.ErrorCode;
import io.tradestore.query.model.Filter;
import io.tradestore.query.model.Options;
import io.tradestore.query.model.OrderKey;
import io.tradestore.query.model.Query;

/** A {@code SELECT} without aggregates: a row scan of columns, ordered by columns, with a limit. */
final class SqlScan {
    private final SqlTranslator t;
    /** The model's columns: those selected, then those only ordered by. */
    private final List<String> columns = new ArrayList<>();

    SqlScan(final SqlTranslator t) {
        this.t = t;
    }

    Query query(final Filter where, final List<SqlResult.Output> outputs, final Integer limit) {
        final List<String> sqlNames = new ArrayList<>();
        for (final SelectItem<?> item : t.select.getSelectItems()) {
            final SqlPos pos = SqlPos.of(item, SqlPos.START);
            if (SqlTranslator.isStar(item) || item.getExpression() instanceof AllTableColumns) {
                for (final Column c : t.schema.columns()) {
                    outputs.add(new SqlResult.Output(c.name(), new SqlResult.Ref(c.name())));
                    sqlNames.add(c.name());
                    add(c.name(), pos);
                }
                continue;
            }
            final String c = t.column(item.getExpression(), pos);
            if (c == null && item.getExpression() instanceof net.sf.jsqlparser.expression.Function f) {
                throw new SqlException(ErrorCode.INVALID_QUERY, "unknown function " + SqlFilters.echo(f.getName())
                    + "; the aggregates are " + SqlAggregates.NAMES + " (" + pos + ")", pos);
            }
            if (c == null) {
                throw new SqlException(ErrorCode.INVALID_QUERY, "'" + SqlFilters.echo(item.getExpression())
                    + "' is not supported: a query without aggregates selects columns; expressions are supported "
                    + "over aggregates (sum(price*quantity)/sum(quantity)) (" + pos + ")", pos);
            }
            final String name = t.outputName(item);
            outputs.add(new SqlResult.Output(name, new SqlResult.Ref(c)));
            sqlNames.add(name);
            add(c, pos);
        }
        final LinkedHashMap<OrderKey, SqlPos> order = new LinkedHashMap<>();
        if (t.select.getOrderByElements() != null) {
            for (final OrderByElement o : t.select.getOrderByElements()) {
                final SqlPos pos = SqlPos.of(o.getExpression(), SqlPos.START);
                SqlTranslator.checkNulls(o, pos);
                order.put(new OrderKey(orderColumn(o.getExpression(), outputs, sqlNames, pos), !o.isAsc()), pos);
            }
        }
        return new Query(t.table, null, where, columns, List.of(), List.of(), null, t.orderKeys(order), limit,
            Options.NONE);
    }

    private void add(final String c, final SqlPos pos) {
        if (!columns.contains(c)) {
            t.positions.put("/columns/" + columns.size(), pos);
            columns.add(c);
        }
    }

    private String orderColumn(final Expression e, final List<SqlResult.Output> outputs, final List<String> sqlNames,
        final SqlPos pos) {
        if (e instanceof LongValue v) {
            final long n = v.getValue();
            if (n < 1 || n > outputs.size()) {
                throw new SqlException(ErrorCode.INVALID_QUERY, "ORDER BY " + n + " names no output; the query has "
                    + outputs.size() + " (" + pos + ")", pos);
            }
            return ((SqlResult.Ref) outputs.get((int) n - 1).value()).name();
        }
        if (e instanceof net.sf.jsqlparser.schema.Column c && c.getTable() == null) {
            final int i = sqlNames.indexOf(SqlTranslator.identifier(c.getColumnName()));
            if (i >= 0) {
                return ((SqlResult.Ref) outputs.get(i).value()).name();
            }
        }
        final String c = t.column(e, pos);
        if (c == null) {
            throw new SqlException(ErrorCode.INVALID_QUERY, "ORDER BY takes columns, output names or ordinals in a "
                + "query without aggregates, not '" + SqlFilters.echo(e) + "' (" + pos + ")", pos);
        }
        add(c, pos);
        return c;
    }
}
