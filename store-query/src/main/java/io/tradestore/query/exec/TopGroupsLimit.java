package io.tradestore.query.exec;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Function;

import io.tradestore.core.schema.ColumnType;
import io.tradestore.query.QueryResult;
import io.tradestore.query.exec.group.KeySpec;
import io.tradestore.query.model.Agg;
import io.tradestore.query.model.Filter;
import io.tradestore.query.model.OrderKey;
import io.tradestore.query.model.Query;
import io.tradestore.query.plan.Plan;

/**
 * A grouped query cut at {@code offset + limit = k} rows and ordered by outputs that cost little per row (keys,
 * counts, sums, min, max, averages, first, last, vwap) needs its costly aggregates (exact percentiles, distinct counts)
 * for {@code k} groups only: which ones follows from the cheap outputs alone, since ties are broken by the keys. The
 * engine runs the query with only the aggregates the order reads, cut at {@code k} (the same groups in the same order:
 * the same values, the same comparator), then the whole query with its filter narrowed to those groups' key values:
 * an {@code in} list per plain key (the product of the lists may hold other groups, which rank after the first
 * {@code k} as they did before). Both run on the same snapshot. Query shape 22 of benchmarks.md (the 8 clients with
 * most trades in a window, with a percentile of their notional) then collects values for 8 clients, not 10,000.
 * {@link LeadingKeyLimit} is tried first: where the order starts with a key, its first query groups by that key alone.
 */
final class TopGroupsLimit {
    private TopGroupsLimit() {
    }

    /**
     * @param plan the bound query.
     * @param run  runs a query on the plan's snapshot.
     * @return the query with its filter narrowed to the key values of its first groups, or null when that does not
     *     apply (no limit, a {@code having}, an order that reads a costly aggregate, no costly aggregate, no plain key
     *     whose values are all non-null) or would leave no group out.
     */
    static Query narrow(final Plan plan, final Function<Query, QueryResult> run) {
        final Query q = plan.query;
        if (q.groupBy().isEmpty() || q.having() != null || q.orderBy().isEmpty() || q.limit() == null) {
            return null;
        }
        final long k = (long) q.skip() + q.limit();
        if (k == 0 || k > LeadingKeyLimit.MAX_VALUES) {
            return null;
        }
        final Set<String> ordered = new LinkedHashSet<>();
        for (final OrderKey o : q.orderBy()) {
            ordered.add(o.col());
        }
        final List<Agg> read = new ArrayList<>();
        boolean costly = false;
        for (final Agg a : q.aggs()) {
            final boolean c = LeadingKeyLimit.costly(a);
            if (ordered.contains(a.name())) {
                if (c) {
                    return null; // the order needs the costly aggregate of every group
                }
                read.add(a);
            }
            costly |= c;
        }
        if (!costly) {
            return null;
        }
        final QueryResult first = run.apply(new Query(q.table(), q.time(), q.filter(), List.of(), q.groupBy(),
            read.isEmpty() ? List.of(Agg.count(unusedName(q))) : read, null, q.orderBy(), (int) k, null,
            q.options()));
        if (!first.truncated()) {
            return null; // every group is among the first k
        }
        final List<Filter> keep = new ArrayList<>();
        for (int key = 0; key < q.groupBy().size(); key++) {
            final KeySpec spec = plan.keys[key];
            final ColumnType type = spec.col.type();
            if (spec.bucket() || type == ColumnType.F64 || type == ColumnType.TIMESTAMP) {
                continue; // left open: the filter then keeps more groups, never fewer
            }
            final Set<Object> values = new LinkedHashSet<>();
            for (int row = 0; row < first.rowCount(); row++) {
                final Object v = first.value(row, key);
                if (v == null) {
                    values.clear();
                    break; // no list holds null: the key stays open
                }
                values.add(v);
            }
            if (!values.isEmpty()) {
                keep.add(new Filter.In(q.groupBy().get(key).col(), new ArrayList<>(values)));
            }
        }
        if (keep.isEmpty()) {
            return null;
        }
        return q.narrowedBy(keep);
    }

    /** @return an output name the query does not use. */
    static String unusedName(final Query q) {
        String name = "n";
        boolean taken = true;
        while (taken) {
            taken = false;
            for (final Agg a : q.aggs()) {
                taken |= a.name().equals(name);
            }
            for (int i = 0; i < q.groupBy().size(); i++) {
                taken |= q.groupBy().get(i).outputName().equals(name);
            }
            name = taken ? name + "_" : name;
        }
        return name;
    }
}
