package io.tradestore.query.sql;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import net.sf.jsqlparser.expression.BinaryExpression;
import net.sf.jsqlparser.expression.DoubleValue;
import net.sf.jsqlparser.expression.Expression;
import net.sf.jsqlparser.expression.LongValue;
import net.sf.jsqlparser.expression.SignedExpression;
import net.sf.jsqlparser.expression.operators.arithmetic.Addition;
import net.sf.jsqlparser.expression.operators.arithmetic.Division;
import net.sf.jsqlparser.expression.operators.arithmetic.Multiplication;
import net.sf.jsqlparser.expression.operators.arithmetic.Subtraction;
import net.sf.jsqlparser.expression.operators.relational.ParenthesedExpressionList;
import net.sf.jsqlparser.schema.Column;
import net.sf.jsqlparser.statement.select.OrderByElement;
import net.sf.jsqlparser.statement.select.SelectItem;

import io.tradestore.core.schema.ColumnType;
import io.tradestore.query.ErrorCode;
import io.tradestore.query.model.Agg;
import io.tradestore.query.model.Filter;
import io.tradestore.query.model.GroupKey;
import io.tradestore.query.model.Options;
import io.tradestore.query.model.OrderKey;
import io.tradestore.query.model.Query;

/**
 * A {@code SELECT} with aggregates: group keys from {@code GROUP BY} (columns, aliases, ordinals, time buckets) or
 * {@code SAMPLE BY}, aggregates and arithmetic over them, {@code HAVING} and {@code ORDER BY}. An aggregate that
 * {@code HAVING}, {@code ORDER BY} or arithmetic needs but the select list does not show is computed under a hidden
 * name and left out of the answer.
 */
final class SqlAggregateQuery {
    private final SqlTranslator t;
    private final List<Key> keys = new ArrayList<>();
    private final List<Agg> aggs = new ArrayList<>();
    private final Map<String, String> aggNames = new HashMap<>();
    private final Set<String> names = new HashSet<>();
    /** SQL output name to its value, for HAVING and ORDER BY. */
    private final Map<String, SqlResult.Arith> outputsByName = new HashMap<>();
    private int hidden;

    /** A group key being built. */
    private static final class Key {
        final String col;
        final String bucket;
        final String text;
        final SqlPos pos;
        final SqlPos colPos;
        final SqlPos bucketPos;
        String as;

        Key(final String col, final String bucket, final SqlPos pos, final SqlPos colPos, final SqlPos bucketPos) {
            this.col = col;
            this.bucket = bucket;
            this.text = bucket == null ? "c:" + col : "b:" + bucket + ":" + col;
            this.pos = pos;
            this.colPos = colPos;
            this.bucketPos = bucketPos;
        }

        String name() {
            return as != null ? as : col;
        }
    }

    SqlAggregateQuery(final SqlTranslator t) {
        this.t = t;
    }

    /** @param items select items. @return whether one of them holds an aggregate call. */
    boolean anyAggregate(final List<SelectItem<?>> items) {
        for (final SelectItem<?> item : items) {
            if (!SqlTranslator.isStar(item) && containsAggregate(item.getExpression())) {
                return true;
            }
        }
        return false;
    }

    /** @param e an expression. @return whether it is an aggregate call. */
    boolean isAggregate(final Expression e) {
        return SqlAggregates.of(e, t, SqlPos.START) != null;
    }

    private boolean containsAggregate(final Expression e) {
        if (e instanceof BinaryExpression b && isArithmetic(e)) {
            return containsAggregate(b.getLeftExpression()) || containsAggregate(b.getRightExpression());
        }
        if (e instanceof ParenthesedExpressionList<?> p && p.size() == 1) {
            return containsAggregate(p.get(0));
        }
        if (e instanceof SignedExpression s) {
            return containsAggregate(s.getExpression());
        }
        return isAggregate(e);
    }

    private static boolean isArithmetic(final Expression e) {
        return e instanceof Addition || e instanceof Subtraction || e instanceof Multiplication
            || e instanceof Division;
    }

    Query query(final Filter where, final List<SqlResult.Output> outputs, final Integer limit) {
        final List<SelectItem<?>> items = t.select.getSelectItems();
        groupKeys(items);
        // keys take the aliases the select list gives them, before any output refers to them by name
        for (final SelectItem<?> item : items) {
            if (SqlTranslator.isStar(item)) {
                throw new SqlException(ErrorCode.INVALID_QUERY, "SELECT * is not supported with GROUP BY or "
                    + "aggregates; name the keys and aggregates (" + SqlPos.of(item, SqlPos.START) + ")",
                    SqlPos.of(item, SqlPos.START));
            }
            if (!containsAggregate(item.getExpression())) {
                final Key k = selectedKey(item);
                if (k.as == null && (item.getAlias() != null || k.bucket != null && t.parsed.sampleBy() == null)) {
                    k.as = t.outputName(item);
                }
            }
        }
        for (int i = 0; i < keys.size(); i++) {
            final Key k = keys.get(i);
            if (k.bucket != null && k.as == null && !k.col.equals(t.timestampColumn())) {
                k.as = k.text;
            }
            names.add(k.name());
        }
        for (final SelectItem<?> item : items) {
            final String name = t.outputName(item);
            final SqlResult.Arith value;
            if (containsAggregate(item.getExpression())) {
                value = arith(item.getExpression(), SqlPos.of(item, SqlPos.START), name);
            } else {
                final SqlBuckets.Bucket b = SqlBuckets.of(item.getExpression(), t, SqlPos.of(item, SqlPos.START));
                final String key = selectedKey(item).name();
                value = b != null && b.secondsScale() >= 0 ? new SqlResult.Seconds(key, b.secondsScale())
                    : new SqlResult.Ref(key);
            }
            outputs.add(new SqlResult.Output(name, value));
            outputsByName.putIfAbsent(name, value);
        }
        final Filter having = t.select.getHaving() == null ? null : having();
        final List<OrderKey> order = orderBy(outputs);
        final List<GroupKey> groupBy = new ArrayList<>();
        for (int i = 0; i < keys.size(); i++) {
            final Key k = keys.get(i);
            final String p = "/groupBy/" + i;
            t.positions.put(p, k.pos);
            t.positions.put(p + "/col", k.colPos);
            t.positions.put(p + "/as", k.pos);
            if (k.bucketPos != null) {
                t.positions.put(p + "/bucket", k.bucketPos);
            }
            groupBy.add(new GroupKey(k.col, k.bucket, k.as));
        }
        return new Query(t.table, null, where, List.of(), groupBy, aggs, having, order, limit, Options.NONE);
    }

    // ------------------------------------------------------------------------------------------------ group keys

    private void groupKeys(final List<SelectItem<?>> items) {
        if (t.parsed.sampleBy() != null) {
            final String ts = t.timestampColumn();
            add(new Key(ts, SqlBuckets.sampleBy(t.parsed.sampleBy(), t.parsed.sampleByPos()), t.parsed.sampleByPos(),
                t.parsed.sampleByPos(), t.parsed.sampleByPos()));
            if (t.select.getGroupBy() == null) {
                // QuestDB groups by the select list's other columns implicitly
                for (final SelectItem<?> item : items) {
                    if (!SqlTranslator.isStar(item) && !containsAggregate(item.getExpression())) {
                        add(keyOf(item.getExpression(), SqlPos.of(item, SqlPos.START), true));
                    }
                }
            }
        }
        if (t.select.getGroupBy() == null) {
            return;
        }
        for (final Object element : t.select.getGroupBy().getGroupByExpressionList()) {
            final Expression g = (Expression) element;
            final SqlPos pos = SqlPos.of(g, SqlPos.START);
            Expression e = g;
            if (g instanceof LongValue n) {
                if (n.getValue() < 1 || n.getValue() > items.size() || SqlTranslator.isStar(items.get((int) n.getValue()
                    - 1))) {
                    throw new SqlException(ErrorCode.INVALID_QUERY, "GROUP BY " + n.getStringValue() + " names no "
                        + "column of the select list, which has " + items.size() + " (" + pos + ")", pos);
                }
                e = items.get((int) n.getValue() - 1).getExpression();
            } else if (g instanceof Column c && c.getTable() == null
                && t.schema.indexOf(SqlTranslator.identifier(c.getColumnName())) < 0) {
                e = aliased(items, SqlTranslator.identifier(c.getColumnName()), g);
            }
            if (containsAggregate(e)) {
                throw new SqlException(ErrorCode.INVALID_QUERY, "GROUP BY cannot name an aggregate (" + pos + ")",
                    pos);
            }
            add(keyOf(e, pos, true));
        }
    }

    private static Expression aliased(final List<SelectItem<?>> items, final String name, final Expression g) {
        for (final SelectItem<?> item : items) {
            if (item.getAlias() != null && SqlTranslator.identifier(item.getAlias().getName()).equals(name)) {
                return item.getExpression();
            }
        }
        return g;
    }

    private void add(final Key k) {
        for (final Key other : keys) {
            if (other.text.equals(k.text)) {
                return;
            }
        }
        keys.add(k);
    }

    /**
     * @param e      an expression.
     * @param pos    where it is.
     * @param refuse whether to refuse an expression that is no key (else null).
     * @return the key it spells: a column or a time bucket.
     */
    private Key keyOf(final Expression e, final SqlPos pos, final boolean refuse) {
        final String c = t.column(e, pos);
        if (c != null) {
            if (t.parsed.sampleBy() != null && c.equals(t.timestampColumn())) {
                return keys.get(0);
            }
            return new Key(c, null, pos, pos, null);
        }
        final SqlBuckets.Bucket b = SqlBuckets.of(e, t, pos);
        if (b != null) {
            if (t.type(b.col()) != ColumnType.TIMESTAMP) {
                throw new SqlException(ErrorCode.INVALID_QUERY, "a time bucket needs a timestamp column; '" + b.col()
                    + "' is " + t.schema.require(b.col()).typeName() + " (" + b.colPos() + ")", b.colPos());
            }
            return new Key(b.col(), b.width(), pos, b.colPos(), b.pos());
        }
        if (!refuse) {
            return null;
        }
        throw new SqlException(ErrorCode.INVALID_QUERY, "GROUP BY takes columns and time buckets "
            + "(time_bucket(INTERVAL '5 minutes', ts), date_trunc('hour', ts)), not '" + SqlFilters.echo(e) + "' ("
            + pos + ")", pos);
    }

    private Key selectedKey(final SelectItem<?> item) {
        final SqlPos pos = SqlPos.of(item, SqlPos.START);
        final Key k = keyOf(item.getExpression(), pos, false);
        if (k != null) {
            for (final Key key : keys) {
                if (key.text.equals(k.text)) {
                    return key;
                }
            }
        }
        throw new SqlException(ErrorCode.INVALID_QUERY, "'" + SqlFilters.echo(item.getExpression()) + "' must "
            + "appear in GROUP BY or be inside an aggregate (" + pos + ")", pos);
    }

    // ------------------------------------------------------------------------------------------------ aggregates

    private SqlResult.Arith arith(final Expression e, final SqlPos fallback, final String name) {
        final SqlPos pos = SqlPos.of(e, fallback);
        final SqlAggregates.Spec spec = SqlAggregates.of(e, t, pos);
        if (spec != null) {
            return new SqlResult.Ref(register(spec, name));
        }
        if (e instanceof ParenthesedExpressionList<?> p && p.size() == 1) {
            return arith(p.get(0), pos, name);
        }
        if (isArithmetic(e)) {
            final BinaryExpression b = (BinaryExpression) e;
            final char op = e instanceof Addition ? '+' : e instanceof Subtraction ? '-'
                : e instanceof Multiplication ? '*' : '/';
            return new SqlResult.Op(op, arith(b.getLeftExpression(), pos, null),
                arith(b.getRightExpression(), pos, null));
        }
        if (e instanceof SignedExpression s) {
            final SqlResult.Arith inner = arith(s.getExpression(), pos, null);
            return s.getSign() == '-' ? new SqlResult.Op('-', new SqlResult.Num(0L), inner) : inner;
        }
        if (e instanceof LongValue || e instanceof DoubleValue) {
            return new SqlResult.Num(SqlValues.value(e, false, pos));
        }
        if (e instanceof net.sf.jsqlparser.expression.Function f) {
            throw new SqlException(ErrorCode.INVALID_QUERY, "unknown function " + SqlFilters.echo(f.getName())
                + "; the aggregates are " + SqlAggregates.NAMES + " (" + pos + ")", pos);
        }
        throw new SqlException(ErrorCode.INVALID_QUERY, "'" + SqlFilters.echo(e) + "' is not supported here: "
            + "expressions over aggregates combine aggregates and numbers with + - * / (" + pos + ")", pos);
    }

    /**
     * @param spec an aggregate.
     * @param name the output name it should have, or null for a hidden one.
     * @return its model name (the one it was first given when it is asked twice).
     */
    private String register(final SqlAggregates.Spec spec, final String name) {
        final String known = aggNames.get(spec.key());
        if (known != null) {
            return known;
        }
        String n = name;
        if (n == null || names.contains(n)) {
            do {
                n = "_" + ++hidden;
            } while (names.contains(n));
        }
        names.add(n);
        aggNames.put(spec.key(), n);
        final String p = "/aggs/" + aggs.size();
        t.positions.put(p, spec.pos());
        t.positions.put(p + "/op", spec.pos());
        t.positions.put(p + "/name", spec.pos());
        t.positions.put(p + "/col", spec.colPos());
        t.positions.put(p + "/p", spec.pPos());
        aggs.add(new Agg(n, spec.op(), spec.col(), spec.p()));
        return n;
    }

    // -------------------------------------------------------------------------------------------- having, order

    private Filter having() {
        final SqlFilters f = new SqlFilters(new HavingOperands(), "HAVING", t.parameters);
        final Filter filter = f.filter(t.select.getHaving(), SqlPos.START);
        f.paths(filter, "/having", t.positions);
        return filter;
    }

    /** HAVING's operands: outputs by name, group key columns and aggregates. */
    private final class HavingOperands implements SqlFilters.Operands {
        @Override
        public SqlFilters.Operand operand(final Expression e, final SqlPos pos) {
            final String name = outputOrKey(e, pos, "HAVING");
            if (name == null) {
                return null;
            }
            return new SqlFilters.Operand(name, timestamp(name));
        }

        @Override
        public Object[] twoValues(final String name, final SqlPos pos) {
            for (final Key k : keys) {
                if (k.name().equals(name)) {
                    return SqlTranslator.twoValues(t.type(k.col));
                }
            }
            return SqlTranslator.twoValues(ColumnType.I64);
        }
    }

    private boolean timestamp(final String name) {
        for (final Key k : keys) {
            if (k.name().equals(name)) {
                return t.type(k.col) == ColumnType.TIMESTAMP;
            }
        }
        for (final Agg a : aggs) {
            if (a.name().equals(name) && a.col() != null && t.schema.indexOf(a.col()) >= 0) {
                final boolean keepsType = a.op().equals("min") || a.op().equals("max") || a.op().equals("first")
                    || a.op().equals("last");
                return keepsType && t.type(a.col()) == ColumnType.TIMESTAMP;
            }
        }
        return false;
    }

    /**
     * @param e      an operand of HAVING or a key of ORDER BY.
     * @param pos    where it is.
     * @param clause for messages.
     * @return its model output name, or null when it is a literal.
     */
    private String outputOrKey(final Expression e, final SqlPos pos, final String clause) {
        if (e instanceof Column c && c.getTable() == null) {
            final SqlResult.Arith a = outputsByName.get(SqlTranslator.identifier(c.getColumnName()));
            if (a != null) {
                return refName(a, pos, clause);
            }
        }
        final Key k = keyOf(e, pos, false);
        if (k != null) {
            for (final Key key : keys) {
                if (key.text.equals(k.text)) {
                    return key.name();
                }
            }
            throw new SqlException(ErrorCode.INVALID_QUERY, "'" + SqlFilters.echo(e) + "' must appear in GROUP BY "
                + "or be inside an aggregate (" + pos + ")", pos);
        }
        final SqlAggregates.Spec spec = SqlAggregates.of(e, t, pos);
        if (spec != null) {
            return register(spec, null);
        }
        if (containsAggregate(e)) {
            throw new SqlException(ErrorCode.INVALID_QUERY, clause + " over arithmetic of aggregates ('"
                + SqlFilters.echo(e) + "') is not supported; " + clause + " takes an aggregate or an output name "
                + "(" + pos + ")", pos);
        }
        return null;
    }

    private static String refName(final SqlResult.Arith a, final SqlPos pos, final String clause) {
        if (a instanceof SqlResult.Ref r) {
            return r.name();
        }
        if (a instanceof SqlResult.Seconds s) {
            return s.name(); // seconds sort as the timestamps they come from
        }
        throw new SqlException(ErrorCode.INVALID_QUERY, clause + " over an output computed from aggregates is not "
            + "supported; " + clause + " takes an aggregate, a group key or an output that is one (" + pos + ")", pos);
    }

    private List<OrderKey> orderBy(final List<SqlResult.Output> outputs) {
        final LinkedHashMap<OrderKey, SqlPos> order = new LinkedHashMap<>();
        if (t.select.getOrderByElements() == null) {
            return List.of();
        }
        for (final OrderByElement o : t.select.getOrderByElements()) {
            final Expression e = o.getExpression();
            final SqlPos pos = SqlPos.of(e, SqlPos.START);
            SqlTranslator.checkNulls(o, pos);
            final String name;
            if (e instanceof LongValue n) {
                if (n.getValue() < 1 || n.getValue() > outputs.size()) {
                    throw new SqlException(ErrorCode.INVALID_QUERY, "ORDER BY " + n.getStringValue() + " names no "
                        + "output; the query has " + outputs.size() + " (" + pos + ")", pos);
                }
                name = refName(outputs.get((int) n.getValue() - 1).value(), pos, "ORDER BY");
            } else {
                name = outputOrKey(e, pos, "ORDER BY");
                if (name == null) {
                    throw new SqlException(ErrorCode.INVALID_QUERY, "ORDER BY takes outputs, group keys, aggregates"
                        + " and ordinals, not '" + SqlFilters.echo(e) + "' (" + pos + ")", pos);
                }
            }
            order.putIfAbsent(new OrderKey(name, !o.isAsc()), pos);
        }
        return t.orderKeys(order);
    }
}
