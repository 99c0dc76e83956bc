package io.tradestore.server.pg;

import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import net.sf.jsqlparser.expression.AnalyticExpression;
import net.sf.jsqlparser.expression.Expression;
import net.sf.jsqlparser.statement.select.OrderByElement;

/** {@code row_number() OVER (PARTITION BY ... ORDER BY ...)}, the one window function catalog queries use (pgjdbc). */
final class CatalogWindows {
    private CatalogWindows() {
    }

    /**
     * @param a           the window function.
     * @param rows        the rows of its query, after {@code WHERE}.
     * @param expressions the evaluator.
     * @return its value for each row.
     */
    static IdentityHashMap<CatalogRow, Object> evaluate(final AnalyticExpression a, final List<CatalogRow> rows,
        final CatalogExpressions expressions) {
        if (!a.getName().equalsIgnoreCase("row_number") || a.getWindowElement() != null) {
            throw CatalogQueries.refuse("the window function " + a + " is not supported in catalog queries");
        }
        final Map<List<String>, List<CatalogRow>> partitions = new LinkedHashMap<>();
        for (final CatalogRow r : rows) {
            final List<String> key = new ArrayList<>();
            if (a.getPartitionExpressionList() != null) {
                for (final Expression e : a.getPartitionExpressionList()) {
                    key.add(CatalogValues.text(expressions.eval(e, r)));
                }
            }
            partitions.computeIfAbsent(key, k -> new ArrayList<>()).add(r);
        }
        final IdentityHashMap<CatalogRow, Object> values = new IdentityHashMap<>();
        for (final List<CatalogRow> p : partitions.values()) {
            final List<OrderByElement> order = a.getOrderByElements();
            if (order != null) {
                p.sort((x, y) -> {
                    for (final OrderByElement o : order) {
                        final Object u = expressions.eval(o.getExpression(), x);
                        final Object v = expressions.eval(o.getExpression(), y);
                        final int c = u == null || v == null ? Boolean.compare(u == null, v == null)
                            : CatalogValues.compare(u, v);
                        if (c != 0) {
                            return o.isAsc() ? c : -c;
                        }
                    }
                    return 0;
                });
            }
            for (int i = 0; i < p.size(); i++) {
                values.put(p.get(i), (long) i + 1);
            }
        }
        return values;
    }
}
