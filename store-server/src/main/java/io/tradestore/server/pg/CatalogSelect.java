package io.tradestore.server.pg;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

import net.sf.jsqlparser.expression.Alias;
import net.sf.jsqlparser.expression.AllValue;
import net.sf.jsqlparser.expression.AnalyticExpression;
import net.sf.jsqlparser.expression.Expression;
import net.sf.jsqlparser.expression.LongValue;
import net.sf.jsqlparser.schema.Column;
import net.sf.jsqlparser.schema.Table;
import net.sf.jsqlparser.statement.select.AllColumns;
import net.sf.jsqlparser.statement.select.AllTableColumns;
import net.sf.jsqlparser.statement.select.FromItem;
import net.sf.jsqlparser.statement.select.Join;
import net.sf.jsqlparser.statement.select.Limit;
import net.sf.jsqlparser.statement.select.OrderByElement;
import net.sf.jsqlparser.statement.select.ParenthesedSelect;
import net.sf.jsqlparser.statement.select.PlainSelect;
import net.sf.jsqlparser.statement.select.Select;
import net.sf.jsqlparser.statement.select.SelectItem;
import net.sf.jsqlparser.statement.select.SetOperation;
import net.sf.jsqlparser.statement.select.SetOperationList;
import net.sf.jsqlparser.statement.select.TableFunction;
import net.sf.jsqlparser.statement.select.UnionOp;

/**
 * Evaluates a catalog query over the catalog's relations: {@code FROM} relations and subqueries, inner, left and
 * comma joins (nested loops: the relations have tens of rows), {@code WHERE}, the select list (with {@code *} and
 * {@code row_number() OVER (...)}), {@code DISTINCT}, {@code UNION [ALL]}, {@code ORDER BY} (by name, ordinal or
 * expression), {@code LIMIT} and {@code OFFSET}. Grouping and aggregates are refused.
 */
final class CatalogSelect {
    private final CatalogTables tables;
    private final CatalogExpressions expressions;
    private final Map<AnalyticExpression, IdentityHashMap<CatalogRow, Object>> windows = new IdentityHashMap<>();

    /**
     * @param tables     the catalog's relations.
     * @param parameters the bound values of {@code $1..$n}.
     */
    CatalogSelect(final CatalogTables tables, final List<String> parameters) {
        this.tables = tables;
        this.expressions = new CatalogExpressions(this, parameters);
    }

    /** @return the catalog's relations. */
    CatalogTables tables() {
        return tables;
    }

    /**
     * @param select a query.
     * @param outer  the enclosing query's row, for a correlated subquery; {@code null} at the top.
     * @return its answer.
     */
    CatalogRelation run(final Select select, final CatalogRow outer) {
        if (select.getWithItemsList() != null && !select.getWithItemsList().isEmpty()) {
            throw CatalogQueries.refuse("WITH is not supported in catalog queries");
        }
        final CatalogRelation result;
        if (select instanceof PlainSelect plain) {
            result = plain(plain, outer);
        } else if (select instanceof SetOperationList set) {
            result = union(set, outer);
        } else if (select instanceof ParenthesedSelect p) {
            result = run(p.getSelect(), outer);
        } else {
            throw CatalogQueries.refuse("the statement " + select + " is not supported in catalog queries");
        }
        return select instanceof PlainSelect ? result : orderAndLimit(select, result, null, outer);
    }

    /**
     * @param a   a window function.
     * @param row the row it is read for.
     * @return its value for that row.
     */
    Object window(final AnalyticExpression a, final CatalogRow row) {
        final IdentityHashMap<CatalogRow, Object> values = windows.get(a);
        if (values == null || !values.containsKey(row)) {
            throw CatalogQueries.refuse("the window function " + a + " is supported in a select list only");
        }
        return values.get(row);
    }

    private CatalogRelation plain(final PlainSelect s, final CatalogRow outer) {
        final List<CatalogRow> rows = from(s, outer);
        final List<CatalogRow> kept = new ArrayList<>();
        for (final CatalogRow r : rows) {
            if (s.getWhere() == null || CatalogValues.isTrue(expressions.eval(s.getWhere(), r))) {
                kept.add(r);
            }
        }
        final CatalogRow shape = rows.isEmpty() ? shape(s, outer) : rows.get(0);
        final List<Expression> items = new ArrayList<>();
        final List<PgColumn> columns = new ArrayList<>();
        items(s, shape, items, columns);
        for (final Expression e : items) {
            if (e instanceof AnalyticExpression a) {
                windows.put(a, CatalogWindows.evaluate(a, kept, expressions));
            }
        }
        final List<Object[]> out = new ArrayList<>();
        final List<CatalogRow> inputs;
        if (s.getGroupBy() != null || s.getHaving() != null || CatalogGroups.aggregates(items)) {
            inputs = new ArrayList<>();
            for (final List<CatalogRow> group : CatalogGroups.group(s, kept, shape, expressions)) {
                final CatalogRow first = group.isEmpty() ? shape : group.get(0);
                expressions.group(group);
                try {
                    if (s.getHaving() == null || CatalogValues.isTrue(expressions.eval(s.getHaving(), first))) {
                        out.add(project(items, first));
                        inputs.add(first);
                    }
                } finally {
                    expressions.group(null);
                }
            }
        } else {
            inputs = kept;
            for (final CatalogRow r : kept) {
                out.add(project(items, r));
            }
        }
        CatalogRelation result = new CatalogRelation("select", columns, out);
        if (s.getDistinct() != null) {
            result = distinct(result);
            return orderAndLimit(s, result, null, outer);
        }
        return orderAndLimit(s, result, inputs, outer);
    }

    private Object[] project(final List<Expression> items, final CatalogRow r) {
        final Object[] v = new Object[items.size()];
        for (int i = 0; i < v.length; i++) {
            v[i] = expressions.eval(items.get(i), r);
        }
        return v;
    }

    private List<CatalogRow> from(final PlainSelect s, final CatalogRow outer) {
        if (s.getFromItem() == null) {
            final List<CatalogRow> one = new ArrayList<>();
            one.add(new CatalogRow(outer, new String[0], new CatalogRelation[0]));
            return one;
        }
        final List<FromItem> items = new ArrayList<>();
        items.add(s.getFromItem());
        final List<Join> joins = s.getJoins() == null ? List.of() : s.getJoins();
        for (final Join j : joins) {
            items.add(j.getRightItem());
        }
        final String[] aliases = new String[items.size()];
        final CatalogRelation[] relations = new CatalogRelation[items.size()];
        for (int i = 0; i < items.size(); i++) {
            relations[i] = relation(items.get(i), outer);
            aliases[i] = alias(items.get(i), relations[i]);
        }
        List<CatalogRow> rows = new ArrayList<>();
        for (final Object[] r : relations[0].rows()) {
            final CatalogRow row = new CatalogRow(outer, aliases, relations);
            row.values(0, r);
            rows.add(row);
        }
        for (int k = 1; k < items.size(); k++) {
            rows = join(rows, joins.get(k - 1), k, relations[k]);
        }
        return rows;
    }

    private List<CatalogRow> join(final List<CatalogRow> left, final Join j, final int k, final CatalogRelation right) {
        if (j.isRight() || j.isFull() || j.isNatural() || j.isApply()) {
            throw CatalogQueries.refuse("the join " + j + " is not supported in catalog queries");
        }
        final List<CatalogRow> out = new ArrayList<>();
        for (final CatalogRow l : left) {
            boolean matched = false;
            for (final Object[] r : right.rows()) {
                final CatalogRow row = l.copy();
                row.values(k, r);
                if (on(j, row)) {
                    out.add(row);
                    matched = true;
                }
            }
            if (j.isLeft() && !matched) {
                final CatalogRow row = l.copy();
                row.values(k, null);
                out.add(row);
            }
        }
        return out;
    }

    private boolean on(final Join j, final CatalogRow row) {
        if (j.getUsingColumns() != null) {
            for (final Column c : j.getUsingColumns()) {
                if (!using(c.getUnquotedColumnName().toLowerCase(Locale.ROOT), row)) {
                    return false;
                }
            }
        }
        for (final Expression e : j.getOnExpressions()) {
            if (!CatalogValues.isTrue(expressions.eval(e, row))) {
                return false;
            }
        }
        return true;
    }

    /** {@code JOIN ... USING (c)}: the newest relation's {@code c} equals the first earlier one's. */
    private static boolean using(final String column, final CatalogRow row) {
        Object left = null;
        Object right = null;
        boolean found = false;
        int last = row.width() - 1;
        while (last > 0 && row.values(last) == null) {
            last--;
        }
        for (int i = 0; i < last; i++) {
            final int c = row.relation(i).indexOf(column);
            if (c >= 0 && !found) {
                left = row.values(i) == null ? null : row.values(i)[c];
                found = true;
            }
        }
        final int c = row.relation(last).indexOf(column);
        if (!found || c < 0) {
            throw CatalogQueries.refuse("column \"" + column + "\" in USING is not in both relations");
        }
        right = row.values(last)[c];
        return Boolean.TRUE.equals(CatalogValues.equal(left, right));
    }

    private CatalogRow shape(final PlainSelect s, final CatalogRow outer) {
        if (s.getFromItem() == null) {
            return new CatalogRow(outer, new String[0], new CatalogRelation[0]);
        }
        final List<FromItem> items = new ArrayList<>();
        items.add(s.getFromItem());
        if (s.getJoins() != null) {
            for (final Join j : s.getJoins()) {
                items.add(j.getRightItem());
            }
        }
        final String[] aliases = new String[items.size()];
        final CatalogRelation[] relations = new CatalogRelation[items.size()];
        for (int i = 0; i < items.size(); i++) {
            relations[i] = relation(items.get(i), outer);
            aliases[i] = alias(items.get(i), relations[i]);
        }
        return new CatalogRow(outer, aliases, relations);
    }

    private CatalogRelation relation(final FromItem item, final CatalogRow outer) {
        if (item instanceof Table t) {
            final String schema = t.getSchemaName() == null ? null
                : t.getUnquotedSchemaName().toLowerCase(Locale.ROOT);
            final String name = t.getUnquotedName().toLowerCase(Locale.ROOT);
            if ((schema == null || schema.equals("public")) && tables.isStoreTable(name)) {
                throw new CatalogQueries.EngineQuery();
            }
            final CatalogRelation r = schema == null || schema.equals("pg_catalog")
                || schema.equals("information_schema") ? tables.relation(schema, name) : null;
            if (r == null) {
                throw new io.tradestore.query.QueryException(io.tradestore.query.ErrorCode.UNKNOWN_TABLE,
                    "relation \"" + t.getFullyQualifiedName() + "\" does not exist in tradestore's catalog", "");
            }
            return r;
        }
        if (item instanceof ParenthesedSelect p) {
            return run(p.getSelect(), outer);
        }
        if (item instanceof TableFunction f) {
            return CatalogGroups.tableFunction(f, outer == null ? CatalogRow.NONE : outer, expressions);
        }
        throw CatalogQueries.refuse("the FROM item " + item + " is not supported in catalog queries");
    }

    private static String alias(final FromItem item, final CatalogRelation r) {
        final Alias a = item.getAlias();
        if (a != null) {
            return a.getUnquotedName().toLowerCase(Locale.ROOT);
        }
        if (item instanceof Table t) {
            return t.getUnquotedName().toLowerCase(Locale.ROOT);
        }
        return r.name();
    }

    private void items(final PlainSelect s, final CatalogRow shape, final List<Expression> items,
        final List<PgColumn> columns) {
        for (final SelectItem<?> item : s.getSelectItems()) {
            final Expression e = item.getExpression();
            if (e instanceof AllColumns && !(e instanceof AllTableColumns)) {
                for (int i = 0; i < shape.width(); i++) {
                    all(shape, i, items, columns);
                }
            } else if (e instanceof AllTableColumns t) {
                final String q = t.getTable().getUnquotedName().toLowerCase(Locale.ROOT);
                for (int i = 0; i < shape.width(); i++) {
                    if (shape.alias(i).equals(q)) {
                        all(shape, i, items, columns);
                    }
                }
            } else {
                items.add(e);
                columns.add(new PgColumn(CatalogNames.name(item, this), CatalogNames.type(e, shape)));
            }
        }
    }

    private static void all(final CatalogRow shape, final int i, final List<Expression> items,
        final List<PgColumn> columns) {
        for (final PgColumn c : shape.relation(i).columns()) {
            items.add(new Column(new Table(shape.alias(i)), c.name()));
            columns.add(c);
        }
    }

    /**
     * @param select a subquery used as a value.
     * @return the name PostgreSQL gives its column.
     */
    String subqueryName(final Select select) {
        if (select instanceof PlainSelect p && !p.getSelectItems().isEmpty()) {
            return CatalogNames.name(p.getSelectItems().get(0), this);
        }
        return "?column?";
    }

    private CatalogRelation union(final SetOperationList set, final CatalogRow outer) {
        CatalogRelation result = null;
        boolean distinct = false;
        final List<Object[]> rows = new ArrayList<>();
        for (int i = 0; i < set.getSelects().size(); i++) {
            final CatalogRelation r = run(set.getSelects().get(i), outer);
            if (result == null) {
                result = r;
            } else if (r.columns().size() != result.columns().size()) {
                throw CatalogQueries.refuse("each UNION query must have the same number of columns");
            }
            rows.addAll(r.rows());
            if (i > 0) {
                final SetOperation op = set.getOperations().get(i - 1);
                if (!(op instanceof UnionOp u)) {
                    throw CatalogQueries.refuse("the set operation " + op + " is not supported in catalog queries");
                }
                distinct |= !u.isAll();
            }
        }
        final CatalogRelation all = new CatalogRelation("union", result.columns(), rows);
        return distinct ? distinct(all) : all;
    }

    private static CatalogRelation distinct(final CatalogRelation r) {
        final Set<List<String>> seen = new HashSet<>();
        final List<Object[]> rows = new ArrayList<>();
        for (final Object[] v : r.rows()) {
            final List<String> key = new ArrayList<>();
            for (final Object x : v) {
                key.add(CatalogValues.text(x));
            }
            if (seen.add(key)) {
                rows.add(v);
            }
        }
        return new CatalogRelation(r.name(), r.columns(), rows);
    }

    private CatalogRelation orderAndLimit(final Select s, final CatalogRelation r, final List<CatalogRow> inputs,
        final CatalogRow outer) {
        List<Object[]> rows = r.rows();
        final List<OrderByElement> order = s.getOrderByElements();
        if (order != null && !order.isEmpty()) {
            final List<Object[]> keyed = new ArrayList<>();
            for (int i = 0; i < rows.size(); i++) {
                final Object[] keys = new Object[order.size()];
                for (int k = 0; k < keys.length; k++) {
                    keys[k] = sortKey(order.get(k).getExpression(), r, rows.get(i),
                        inputs == null ? null : inputs.get(i));
                }
                keyed.add(new Object[] {keys, rows.get(i)});
            }
            keyed.sort(comparator(order));
            rows = new ArrayList<>();
            for (final Object[] k : keyed) {
                rows.add((Object[]) k[1]);
            }
        }
        long offset = 0;
        long limit = Long.MAX_VALUE;
        final Limit l = s.getLimit();
        if (l != null && l.getRowCount() != null && !(l.getRowCount() instanceof AllValue)) {
            final Object count = expressions.eval(l.getRowCount(), outer);
            limit = count == null ? Long.MAX_VALUE : CatalogValues.toLong(count);
        }
        if (l != null && l.getOffset() != null) {
            offset = CatalogValues.toLong(expressions.eval(l.getOffset(), outer));
        }
        if (s.getOffset() != null) {
            offset = CatalogValues.toLong(expressions.eval(s.getOffset().getOffset(), outer));
        }
        if (offset > 0 || limit < rows.size()) {
            final int from = (int) Math.min(offset, rows.size());
            rows = rows.subList(from, (int) Math.min(rows.size(), from + Math.min(limit, rows.size())));
        }
        return new CatalogRelation(r.name(), r.columns(), rows);
    }

    private Object sortKey(final Expression e, final CatalogRelation r, final Object[] out, final CatalogRow in) {
        if (e instanceof LongValue ordinal) {
            final long i = ordinal.getValue();
            if (i < 1 || i > out.length) {
                throw CatalogQueries.refuse("ORDER BY position " + i + " is not in select list");
            }
            return out[(int) i - 1];
        }
        if (e instanceof Column c && (c.getTable() == null || c.getTable().getName() == null)) {
            final String name = c.getUnquotedColumnName();
            for (int i = 0; i < r.columns().size(); i++) {
                if (r.columns().get(i).name().equalsIgnoreCase(name)) {
                    return out[i];
                }
            }
        }
        if (in == null) {
            throw CatalogQueries.refuse("ORDER BY " + e + " must name an output column of a UNION");
        }
        return expressions.eval(e, in);
    }

    private static Comparator<Object[]> comparator(final List<OrderByElement> order) {
        return (a, b) -> {
            final Object[] x = (Object[]) a[0];
            final Object[] y = (Object[]) b[0];
            for (int k = 0; k < x.length; k++) {
                final OrderByElement o = order.get(k);
                final boolean nullsFirst = o.getNullOrdering() == null ? !o.isAsc()
                    : o.getNullOrdering() == OrderByElement.NullOrdering.NULLS_FIRST;
                final int c;
                if (x[k] == null || y[k] == null) {
                    c = x[k] == y[k] ? 0 : x[k] == null == nullsFirst ? -1 : 1;
                } else {
                    c = o.isAsc() ? CatalogValues.compare(x[k], y[k]) : -CatalogValues.compare(x[k], y[k]);
                }
                if (c != 0) {
                    return c;
                }
            }
            return 0;
        };
    }
}
