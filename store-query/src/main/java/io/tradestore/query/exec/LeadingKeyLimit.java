package io.tradestore.query.exec;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

import io.tradestore.core.schema.ColumnType;
import io.tradestore.query.QueryResult;
import io.tradestore.query.exec.group.KeySpec;
import io.tradestore.query.model.Agg;
import io.tradestore.query.model.AggOp;
import io.tradestore.query.model.Filter;
import io.tradestore.query.model.GroupKey;
import io.tradestore.query.model.OrderKey;
import io.tradestore.query.model.Query;
import io.tradestore.query.plan.Plan;

/**
 * A grouped query ordered first by a plain group key and cut at {@code offset + limit = k} rows answers only groups
 * whose key is among the first {@code k} values of that key, in that order, that the filter keeps: each value makes at
 * least one group, and a group of a later value comes after all of theirs. So the rows of other values need no
 * aggregating, which matters where an aggregate costs memory or a cache miss per row (exact percentiles and distinct
 * counts): the key's first values are found by a query grouped by that key alone (a count per value, cheap), and the
 * query then runs with its filter narrowed to them, a range for a numeric key (the values kept are all the filter
 * leaves between the first and the k-th) and an {@code in} list for a symbol or a char (ordered by text, not by code).
 * Both run on the same snapshot. ORDER BY client LIMIT 10 over the 10,000 clients of shape 13 of benchmarks.md then
 * collects the prices of 10 clients, not of all of them.
 */
final class LeadingKeyLimit {
    /** The most key values the narrowed filter lists. */
    static final int MAX_VALUES = 1024;

    private LeadingKeyLimit() {
    }

    /**
     * @param plan the bound query.
     * @param run  runs a query on the plan's snapshot.
     * @return the query with its filter narrowed to the rows of the leading key's first values, or null when that does
     *     not apply (no limit, a {@code having}, which could drop groups, an order led by an aggregate, a time bucket,
     *     a timestamp or f64 key, no aggregate costly per row, a null among the values) or would leave no row out.
     */
    static Query narrow(final Plan plan, final Function<Query, QueryResult> run) {
        final Query q = plan.query;
        if (q.groupBy().isEmpty() || q.having() != null || q.orderBy().isEmpty() || q.limit() == null || !costly(q)) {
            return null;
        }
        final long k = (long) q.skip() + q.limit();
        final OrderKey lead = q.orderBy().get(0);
        int key = -1;
        for (int i = 0; i < q.groupBy().size(); i++) {
            if (q.groupBy().get(i).outputName().equals(lead.col())) {
                key = i;
            }
        }
        if (k == 0 || k > MAX_VALUES || key < 0) {
            return null;
        }
        final KeySpec spec = plan.keys[key];
        final ColumnType type = spec.col.type();
        if (spec.bucket() || type == ColumnType.F64 || type == ColumnType.TIMESTAMP) {
            return null;
        }
        final GroupKey g = q.groupBy().get(key);
        final QueryResult first = run.apply(new Query(q.table(), q.time(), q.filter(), List.of(), List.of(g),
            List.of(Agg.count(TopGroupsLimit.unusedName(q))), null, List.of(lead), (int) k, null, q.options()));
        if (!first.truncated()) {
            return null; // every value the filter keeps is among the first k: nothing to leave out
        }
        final List<Object> values = new ArrayList<>();
        for (int row = 0; row < first.rowCount(); row++) {
            final Object v = first.value(row, 0);
            if (v == null) {
                return null; // null sorts among the first values: no range or list holds it
            }
            values.add(v);
        }
        final Object low = values.get(lead.desc() ? values.size() - 1 : 0);
        final Object high = values.get(lead.desc() ? 0 : values.size() - 1);
        final Filter keep = type == ColumnType.SYMBOL || type == ColumnType.CHAR ? new Filter.In(g.col(), values)
            : new Filter.Range(g.col(), null, low, null, high);
        return q.narrowedBy(List.of(keep));
    }

    /** @return whether an aggregate keeps per-row state (an exact percentile, a distinct count). */
    private static boolean costly(final Query q) {
        for (final Agg a : q.aggs()) {
            if (costly(a)) {
                return true;
            }
        }
        return false;
    }

    /** @param a an aggregate. @return whether it keeps per-row state (an exact percentile, a distinct count). */
    static boolean costly(final Agg a) {
        final AggOp op = AggOp.of(a.op());
        return op == AggOp.PERCENTILE || op == AggOp.COUNT_DISTINCT;
    }
}
