package io.tradestore.server.pg;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

import net.sf.jsqlparser.expression.Alias;
import net.sf.jsqlparser.expression.BinaryExpression;
import net.sf.jsqlparser.expression.CaseExpression;
import net.sf.jsqlparser.expression.CastExpression;
import net.sf.jsqlparser.expression.Expression;
import net.sf.jsqlparser.expression.Function;
import net.sf.jsqlparser.expression.LongValue;
import net.sf.jsqlparser.expression.NotExpression;
import net.sf.jsqlparser.expression.WhenClause;
import net.sf.jsqlparser.expression.operators.relational.ExpressionList;
import net.sf.jsqlparser.statement.select.AllColumns;
import net.sf.jsqlparser.statement.select.OrderByElement;
import net.sf.jsqlparser.statement.select.PlainSelect;
import net.sf.jsqlparser.statement.select.TableFunction;

/**
 * Grouping, aggregates and set-returning functions in {@code FROM} for catalog queries: SQLAlchemy's inspector groups
 * its constraint and index lookups, Grafana reads {@code generate_series} and {@code string_to_array} as relations.
 */
final class CatalogGroups {
    /** The aggregate functions catalog queries call. */
    static final Set<String> AGGREGATES = Set.of("count", "min", "max", "sum", "array_agg", "bool_and", "bool_or",
        "string_agg");

    private CatalogGroups() {
    }

    /**
     * @param items a select list.
     * @return whether it calls an aggregate outside a subquery.
     */
    static boolean aggregates(final List<Expression> items) {
        for (final Expression e : items) {
            if (aggregates(e)) {
                return true;
            }
        }
        return false;
    }

    private static boolean aggregates(final Expression e) {
        if (e instanceof Function f) {
            if (AGGREGATES.contains(CatalogExpressions.functionName(f))) {
                return true;
            }
            return f.getParameters() != null && aggregates(f.getParameters());
        }
        if (e instanceof ExpressionList<?> list) {
            for (final Expression x : list) {
                if (aggregates(x)) {
                    return true;
                }
            }
            return false;
        }
        if (e instanceof BinaryExpression b) {
            return aggregates(b.getLeftExpression()) || aggregates(b.getRightExpression());
        }
        if (e instanceof CastExpression c) {
            return aggregates(c.getLeftExpression());
        }
        if (e instanceof NotExpression n) {
            return aggregates(n.getExpression());
        }
        if (e instanceof CaseExpression c) {
            boolean any = c.getSwitchExpression() != null && aggregates(c.getSwitchExpression())
                || c.getElseExpression() != null && aggregates(c.getElseExpression());
            for (final WhenClause w : c.getWhenClauses()) {
                any |= aggregates(w.getWhenExpression()) || aggregates(w.getThenExpression());
            }
            return any;
        }
        return false;
    }

    /**
     * @param s           a grouped query.
     * @param rows        its rows after {@code WHERE}.
     * @param shape       a row of its relations, for a query without rows.
     * @param expressions the evaluator.
     * @return its groups, in first-seen order; one empty group when it has no {@code GROUP BY} and no rows.
     */
    static List<List<CatalogRow>> group(final PlainSelect s, final List<CatalogRow> rows, final CatalogRow shape,
        final CatalogExpressions expressions) {
        final List<Expression> by = new ArrayList<>();
        if (s.getGroupBy() != null) {
            for (final Object e : s.getGroupBy().getGroupByExpressionList()) {
                if (e instanceof LongValue) {
                    throw CatalogQueries.refuse("GROUP BY by position is not supported in catalog queries");
                }
                by.add((Expression) e);
            }
        }
        final Map<List<String>, List<CatalogRow>> groups = new LinkedHashMap<>();
        for (final CatalogRow r : rows) {
            final List<String> key = new ArrayList<>();
            for (final Expression e : by) {
                key.add(CatalogValues.text(expressions.eval(e, r)));
            }
            groups.computeIfAbsent(key, k -> new ArrayList<>()).add(r);
        }
        final List<List<CatalogRow>> out = new ArrayList<>(groups.values());
        if (out.isEmpty() && by.isEmpty()) {
            out.add(new ArrayList<>());
        }
        return out;
    }

    /**
     * @param name        an aggregate's name.
     * @param f           its call.
     * @param group       the rows of the group.
     * @param expressions the evaluator (not in a group while the arguments are read).
     * @return the aggregate's value over the group.
     */
    static Object aggregate(final String name, final Function f, final List<CatalogRow> group,
        final CatalogExpressions expressions) {
        final List<Expression> params = new ArrayList<>();
        if (f.getParameters() != null) {
            for (final Expression e : f.getParameters()) {
                params.add(e);
            }
        }
        final boolean star = f.isAllColumns() || params.size() == 1 && params.get(0) instanceof AllColumns;
        final List<CatalogRow> rows = new ArrayList<>(group);
        if (f.getOrderByElements() != null) {
            for (int k = f.getOrderByElements().size() - 1; k >= 0; k--) {
                final OrderByElement o = f.getOrderByElements().get(k);
                rows.sort((x, y) -> {
                    final Object u = expressions.eval(o.getExpression(), x);
                    final Object v = expressions.eval(o.getExpression(), y);
                    final int c = u == null || v == null ? Boolean.compare(u == null, v == null)
                        : CatalogValues.compare(u, v);
                    return o.isAsc() ? c : -c;
                });
            }
        }
        final List<Object> values = new ArrayList<>();
        for (final CatalogRow r : rows) {
            values.add(star ? Boolean.TRUE : expressions.eval(params.get(0), r));
        }
        return reduce(name, values, params.size() > 1 && !rows.isEmpty()
            ? CatalogValues.text(expressions.eval(params.get(1), rows.get(0))) : ",");
    }

    private static Object reduce(final String name, final List<Object> values, final String separator) {
        if (name.equals("array_agg")) {
            return values.isEmpty() ? null : values;
        }
        final List<Object> present = new ArrayList<>();
        for (final Object v : values) {
            if (v != null) {
                present.add(v);
            }
        }
        if (name.equals("count")) {
            return (long) present.size();
        }
        if (present.isEmpty()) {
            return null;
        }
        switch (name) {
            case "min":
            case "max":
                Object best = present.get(0);
                for (final Object v : present) {
                    final int c = CatalogValues.compare(v, best);
                    best = name.equals("min") ? (c < 0 ? v : best) : (c > 0 ? v : best);
                }
                return best;
            case "sum":
                long sum = 0;
                for (final Object v : present) {
                    sum += CatalogValues.toLong(v);
                }
                return sum;
            case "bool_and":
            case "bool_or":
                final boolean and = name.equals("bool_and");
                for (final Object v : present) {
                    if (CatalogValues.truth(v) != and) {
                        return !and;
                    }
                }
                return and;
            default:
                final List<String> parts = new ArrayList<>();
                for (final Object v : present) {
                    parts.add(CatalogValues.text(v));
                }
                return String.join(separator, parts);
        }
    }

    /**
     * A function in {@code FROM}: {@code generate_series(lo, hi)} gives a row per integer, any other function one
     * row holding its value, as PostgreSQL reads them; the alias names the relation and its column.
     *
     * @param f           the function.
     * @param outer       the enclosing query's row.
     * @param expressions the evaluator.
     * @return the relation.
     */
    static CatalogRelation tableFunction(final TableFunction f, final CatalogRow outer,
        final CatalogExpressions expressions) {
        final Function call = f.getFunction();
        final String name = CatalogExpressions.functionName(call);
        final Alias alias = f.getAlias();
        final String column = alias == null ? name : alias.getAliasColumns() != null
            && !alias.getAliasColumns().isEmpty() ? alias.getAliasColumns().get(0).name.toLowerCase(Locale.ROOT)
            : alias.getUnquotedName().toLowerCase(Locale.ROOT);
        final List<Object[]> rows = new ArrayList<>();
        if (name.equals("generate_series")) {
            final List<Object> args = new ArrayList<>();
            for (final Expression e : call.getParameters()) {
                args.add(expressions.eval(e, outer));
            }
            if (args.size() != 2 || args.get(0) == null || args.get(1) == null) {
                throw CatalogQueries.refuse("generate_series takes two integers in catalog queries");
            }
            for (long i = CatalogValues.toLong(args.get(0)); i <= CatalogValues.toLong(args.get(1)); i++) {
                rows.add(new Object[] {i});
            }
            return CatalogRelationSpecs.relation(name, column + ":int4", rows);
        }
        rows.add(new Object[] {expressions.eval(call, outer)});
        return CatalogRelationSpecs.relation(name, column + ":text", rows);
    }
}
