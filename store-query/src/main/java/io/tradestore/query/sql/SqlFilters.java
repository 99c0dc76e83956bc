package io.tradestore.query.sql;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;

import net.sf.jsqlparser.expression.Expression;
import net.sf.jsqlparser.expression.NotExpression;
import net.sf.jsqlparser.expression.operators.conditional.AndExpression;
import net.sf.jsqlparser.expression.operators.conditional.OrExpression;
import net.sf.jsqlparser.expression.operators.relational.Between;
import net.sf.jsqlparser.expression.operators.relational.ComparisonOperator;
import net.sf.jsqlparser.expression.operators.relational.EqualsTo;
import net.sf.jsqlparser.expression.operators.relational.ExpressionList;
import net.sf.jsqlparser.expression.operators.relational.GreaterThan;
import net.sf.jsqlparser.expression.operators.relational.GreaterThanEquals;
import net.sf.jsqlparser.expression.operators.relational.InExpression;
import net.sf.jsqlparser.expression.operators.relational.IsNullExpression;
import net.sf.jsqlparser.expression.operators.relational.MinorThan;
import net.sf.jsqlparser.expression.operators.relational.MinorThanEquals;
import net.sf.jsqlparser.expression.operators.relational.NotEqualsTo;
import net.sf.jsqlparser.expression.operators.relational.ParenthesedExpressionList;

import io.tradestore.query.ErrorCode;
import io.tradestore.query.model.Filter;

/**
 * A {@code WHERE} or {@code HAVING} condition as a model {@link Filter}: {@code = <> != < <= > >=}, {@code AND OR NOT},
 * {@code IN}, {@code NOT IN}, {@code BETWEEN}, {@code IS NOT NULL}, each between an operand (a column, an output or an
 * aggregate, as the caller resolves it) and literals. Keeps where each part was written, so that a failure of the
 * translated query, reported at a JSON path, is reported at its place in the SQL text.
 */
final class SqlFilters {
    /** Resolves the operand side of a comparison. */
    interface Operands {
        /**
         * @param e   an expression on one side of a comparison.
         * @param pos where it is.
         * @return the model's name for it and whether it is a timestamp, or null when it is not an operand (a literal).
         */
        Operand operand(Expression e, SqlPos pos);

        /**
         * @param name an operand's model name.
         * @param pos  where it is.
         * @return two different values of its type (for IS NOT NULL), or null when the type has none.
         */
        Object[] twoValues(String name, SqlPos pos);
    }

    /**
     * An operand.
     *
     * @param name      the column or output name in the model.
     * @param timestamp whether its values are timestamps.
     * @param epochSeconds whether it is {@code extract(epoch from ts)}: a timestamp compared with epoch seconds.
     */
    record Operand(String name, boolean timestamp, boolean epochSeconds) {
        Operand(final String name, final boolean timestamp) {
            this(name, timestamp, false);
        }
    }

    private final Operands operands;
    private final String clause;
    private final SqlParameters parameters;
    /** Each filter node: where it was written ("") and where its fields were ("col", "value", "values/0", "gt"...). */
    private final Map<Filter, Map<String, SqlPos>> places = new IdentityHashMap<>();

    /**
     * @param operands resolves operands.
     * @param clause     WHERE or HAVING, for messages.
     * @param parameters the values of {@code $n} placeholders.
     */
    SqlFilters(final Operands operands, final String clause, final SqlParameters parameters) {
        this.operands = operands;
        this.clause = clause;
        this.parameters = parameters;
    }

    /**
     * @param e        the condition.
     * @param fallback where to point when the parser kept no place.
     * @return the filter.
     */
    Filter filter(final Expression e, final SqlPos fallback) {
        final SqlPos pos = SqlPos.of(e, fallback);
        if (e instanceof AndExpression || e instanceof OrExpression) {
            final List<Filter> args = new ArrayList<>();
            junction(e, e.getClass(), args, pos);
            return place(e instanceof AndExpression ? new Filter.And(args) : new Filter.Or(args), pos);
        }
        if (e instanceof ParenthesedExpressionList<?> p && p.size() == 1) {
            return filter(p.get(0), pos);
        }
        if (e instanceof NotExpression n) {
            return place(new Filter.Not(filter(n.getExpression(), pos)), pos);
        }
        if (e instanceof ComparisonOperator c && isComparison(c)) {
            return comparison(c, pos);
        }
        if (e instanceof Between b) {
            final Operand o = operand(b.getLeftExpression(), pos);
            final Filter f = place(new Filter.Range(o.name(), null,
                value(b.getBetweenExpressionStart(), o, pos, "gte"), null,
                value(b.getBetweenExpressionEnd(), o, pos, "lte")), pos);
            field(f, "gte", b.getBetweenExpressionStart(), pos);
            field(f, "lte", b.getBetweenExpressionEnd(), pos);
            field(f, "col", b.getLeftExpression(), pos);
            return b.isNot() ? place(new Filter.Not(f), pos) : f;
        }
        if (e instanceof InExpression in) {
            return in(in, pos);
        }
        if (e instanceof IsNullExpression n) {
            return isNull(n, pos);
        }
        throw unsupported(e, pos);
    }

    private void junction(final Expression e, final Class<?> kind, final List<Filter> args, final SqlPos pos) {
        // a AND b AND c parses as ((a AND b) AND c): flattened into one junction of three
        if (e.getClass() == kind) {
            final net.sf.jsqlparser.expression.BinaryExpression b = (net.sf.jsqlparser.expression.BinaryExpression) e;
            junction(b.getLeftExpression(), kind, args, pos);
            junction(b.getRightExpression(), kind, args, pos);
        } else {
            args.add(filter(e, pos));
        }
    }

    private static boolean isComparison(final ComparisonOperator c) {
        return c instanceof EqualsTo || c instanceof NotEqualsTo || c instanceof GreaterThan
            || c instanceof GreaterThanEquals || c instanceof MinorThan || c instanceof MinorThanEquals;
    }

    private Filter comparison(final ComparisonOperator c, final SqlPos pos) {
        Expression left = c.getLeftExpression();
        Expression right = c.getRightExpression();
        Operand o = operands.operand(left, SqlPos.of(left, pos));
        boolean flipped = false;
        if (o == null) {
            o = operands.operand(right, SqlPos.of(right, pos));
            if (o == null) {
                throw new SqlException(ErrorCode.INVALID_QUERY, "'" + echo(c) + "' compares two values; a " + clause
                    + " comparison has a column on one side (" + pos + ")", pos);
            }
            final Expression t = left;
            left = right;
            right = t;
            flipped = true;
        } else if (operands.operand(right, SqlPos.of(right, pos)) != null) {
            throw new SqlException(ErrorCode.INVALID_QUERY, "'" + echo(c) + "' compares two columns; the engine"
                + " compares a column with a value (" + pos + ")", pos);
        }
        final String field;
        final Filter f;
        if (c instanceof EqualsTo) {
            field = "value";
            f = new Filter.Eq(o.name(), value(right, o, pos, field));
        } else if (c instanceof NotEqualsTo) {
            field = "value";
            f = new Filter.Ne(o.name(), value(right, o, pos, field));
        } else {
            final boolean greater = c instanceof GreaterThan || c instanceof GreaterThanEquals;
            final boolean inclusive = c instanceof GreaterThanEquals || c instanceof MinorThanEquals;
            // 5 < x is x > 5
            final boolean lower = greater != flipped;
            field = (lower ? "gt" : "lt") + (inclusive ? "e" : "");
            final Object v = value(right, o, pos, field);
            f = new Filter.Range(o.name(), field.equals("gt") ? v : null, field.equals("gte") ? v : null,
                field.equals("lt") ? v : null, field.equals("lte") ? v : null);
        }
        place(f, pos);
        field(f, "col", left, pos);
        field(f, field, right, pos);
        return f;
    }

    private Filter in(final InExpression in, final SqlPos pos) {
        final Operand o = operand(in.getLeftExpression(), pos);
        if (!(in.getRightExpression() instanceof ExpressionList<?> list)) {
            throw unsupported(in.getRightExpression(), SqlPos.of(in.getRightExpression(), pos));
        }
        final List<Object> values = new ArrayList<>();
        for (int i = 0; i < list.size(); i++) {
            values.add(value(list.get(i), o, pos, "values/" + i));
        }
        final Filter f = place(new Filter.In(o.name(), values), pos);
        field(f, "col", in.getLeftExpression(), pos);
        for (int i = 0; i < list.size(); i++) {
            field(f, "values/" + i, list.get(i), pos);
        }
        return in.isNot() ? place(new Filter.Not(f), pos) : f;
    }

    private Filter isNull(final IsNullExpression n, final SqlPos pos) {
        if (!n.isNot()) {
            throw new SqlException(ErrorCode.INVALID_QUERY, "IS NULL is not supported: the engine's filters never "
                + "select missing values (IS NOT NULL is supported) (" + pos + ")", pos);
        }
        final Operand o = operand(n.getLeftExpression(), pos);
        final Object[] two = operands.twoValues(o.name(), pos);
        // nulls never pass a comparison, also under NOT: NOT (x = a AND x = b) keeps exactly the non-null values
        final Filter a = place(new Filter.Eq(o.name(), two[0]), pos);
        final Filter b = place(new Filter.Eq(o.name(), two[1]), pos);
        field(a, "col", n.getLeftExpression(), pos);
        field(b, "col", n.getLeftExpression(), pos);
        return place(new Filter.Not(place(new Filter.And(List.of(a, b)), pos)), pos);
    }

    private Operand operand(final Expression e, final SqlPos pos) {
        final SqlPos at = SqlPos.of(e, pos);
        final Operand o = operands.operand(e, at);
        if (o == null) {
            throw new SqlException(ErrorCode.INVALID_QUERY, "expected a column here, not '" + echo(e) + "' (" + at
                + ")", at);
        }
        return o;
    }

    private Object value(final Expression e, final Operand o, final SqlPos pos, final String field) {
        final SqlPos at = SqlPos.of(e, pos);
        if (operands.operand(e, at) != null) {
            throw new SqlException(ErrorCode.INVALID_QUERY, "'" + echo(e) + "' is a column; the engine compares a "
                + "column with a value (" + at + ")", at);
        }
        if (o.epochSeconds()) {
            if (!SqlValues.isNumber(e)) {
                throw new SqlException(ErrorCode.INVALID_QUERY, "extract(epoch from ...) is compared with a number "
                    + "of seconds, not '" + echo(e) + "' (" + at + ")", at);
            }
            // x >= N seconds is ts >= N * 10^9 nanoseconds exactly, for every operator
            return SqlValues.epochSeconds(e, at);
        }
        if (SqlParameters.isParameter(e)) {
            return parameters.compared(e, o.timestamp(), operands.twoValues(o.name(), at)[0] instanceof String, at);
        }
        return SqlValues.value(e, o.timestamp(), at);
    }

    private Filter place(final Filter f, final SqlPos pos) {
        places.computeIfAbsent(f, k -> new HashMap<>()).put("", pos);
        return f;
    }

    private void field(final Filter f, final String name, final Expression e, final SqlPos pos) {
        places.computeIfAbsent(f, k -> new HashMap<>()).put(name, SqlPos.of(e, pos));
    }

    /**
     * Records the place of every part of a filter under the JSON path the binder reports it at.
     *
     * @param f    a filter made here.
     * @param path its JSON path ({@code /filter}, {@code /having}).
     * @param out  path to place.
     */
    void paths(final Filter f, final String path, final Map<String, SqlPos> out) {
        final Map<String, SqlPos> p = places.get(f);
        if (p != null) {
            for (final Map.Entry<String, SqlPos> e : p.entrySet()) {
                out.put(e.getKey().isEmpty() ? path : path + "/" + e.getKey(), e.getValue());
            }
        }
        if (f instanceof Filter.And a) {
            for (int i = 0; i < a.args().size(); i++) {
                paths(a.args().get(i), path + "/args/" + i, out);
            }
        } else if (f instanceof Filter.Or o) {
            for (int i = 0; i < o.args().size(); i++) {
                paths(o.args().get(i), path + "/args/" + i, out);
            }
        } else if (f instanceof Filter.Not n) {
            paths(n.arg(), path + "/arg", out);
        }
    }

    /**
     * @param f   a filter made here.
     * @param pos where it was written, or null.
     * @return f, now known by that place (for filters rebuilt from parts made here).
     */
    Filter keep(final Filter f, final SqlPos pos) {
        return pos == null ? f : place(f, pos);
    }

    /** @param f a filter made here. @return where it was written, or null. */
    SqlPos placeOf(final Filter f) {
        final Map<String, SqlPos> p = places.get(f);
        return p == null ? null : p.get("");
    }

    private SqlException unsupported(final Expression e, final SqlPos pos) {
        return new SqlException(ErrorCode.INVALID_QUERY, "'" + echo(e) + "' is not supported in " + clause
            + ": conditions are comparisons (= <> < <= > >=), IN, BETWEEN and IS NOT NULL of a column with values,"
            + " joined by AND, OR and NOT (" + pos + ")", pos);
    }

    static String echo(final Object e) {
        final String s = String.valueOf(e);
        return io.tradestore.core.StoreException.echo(s.length() > 80 ? s.substring(0, 77) + "..." : s);
    }
}
