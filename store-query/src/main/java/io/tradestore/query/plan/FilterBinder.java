package io.tradestore.query.plan;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import io.tradestore.core.schema.Column;
import io.tradestore.core.schema.ColumnType;
import io.tradestore.query.QueryException;
import io.tradestore.query.model.Agg;
import io.tradestore.query.model.Filter;
import io.tradestore.query.model.GroupKey;
import io.tradestore.query.exec.filter.DoubleFilter;
import io.tradestore.query.exec.filter.FilterNode;
import io.tradestore.query.exec.filter.IntRangeFilter;
import io.tradestore.query.exec.filter.IntSetFilter;
import io.tradestore.query.exec.filter.LogicFilter;
import io.tradestore.query.exec.filter.NoneFilter;

/**
 * Binds a query's time range and filter to a snapshot: resolves columns, types every literal by its column (exactly:
 * decimals never go through a double), pushes NOT into the leaves, and splits the top-level AND into the plan's
 * conjuncts. Every error names its JSON path.
 */
final class FilterBinder {
    /** Symbols of a column up to which a negated symbol filter becomes the positive list of the other values. */
    static final int COMPLEMENT_MAX_SYMBOLS = 64;
    private final Binder binder;

    FilterBinder(final Binder binder) {
        this.binder = binder;
    }

    /** Binds the time range and the filter into the plan's conjuncts and filter. */
    void bind() {
        final List<FilterNode> conj = new ArrayList<>();
        if (binder.q.time() != null) {
            final int ts = binder.schema.timestampIndex();
            if (ts < 0) {
                throw Binder.invalid("/time", "table '" + binder.schema.name()
                    + "' has no designated timestamp; filter a timestamp column with range");
            }
            final long from = binder.q.time().from() == null ? Long.MIN_VALUE + 1
                : Literals.timestamp(binder.q.time().from(), "/time/from");
            final long to = binder.q.time().to() == null ? Long.MAX_VALUE : Literals.timestamp(binder.q.time().to(),
                "/time/to");
            final Column c = binder.schema.column(ts);
            // bounds the keys on the timestamp with the filter's ranges on it, below
            conj.add(new IntRangeFilter(ts, c.width(), c.type().nullBits(), from,
                to == Long.MIN_VALUE ? Long.MIN_VALUE : to - 1, false));
        }
        final List<Map.Entry<String, Filter>> keyTerms = havingKeyTerms();
        boolean keysIn = false;
        if (binder.q.filter() != null) {
            FilterNode f = filter(binder.q.filter(), "/filter", false); // any error at the paths as written
            final Filter folded = folded(binder.q.filter(), keyTerms);
            if (folded != null) {
                try {
                    f = filter(folded, "/filter", false);
                    keysIn = true;
                } catch (final QueryException e) {
                    // a key term that does not bind as a filter: the filter as written, the terms as they bind
                }
            }
            if (f instanceof LogicFilter && ((LogicFilter) f).and) {
                conj.addAll(Arrays.asList(((LogicFilter) f).args));
            } else {
                conj.add(f);
            }
        }
        if (!keysIn) {
            for (final Map.Entry<String, Filter> t : keyTerms) {
                pushDown(conj, t.getValue(), t.getKey());
            }
        }
        mergeRanges(conj);
        // the time range, and any range on the designated timestamp among the conjuncts (SQL's ts >= a AND ts < b),
        // bound the timestamp: keys on it are then sized to the bounds, not to the whole table's span
        final int ts = binder.schema.timestampIndex();
        for (final FilterNode n : conj) {
            if (n instanceof IntRangeFilter r && r.col == ts && !r.negated) {
                binder.timeLo = Math.max(binder.timeLo, r.lo);
                binder.timeHi = Math.min(binder.timeHi, r.hi);
            }
        }
        final int time = binder.q.time() != null ? 1 : 0;
        if (conj.size() == time + 1) {
            conj.set(time, positive(conj.get(time)));
        }
        binder.plan.conjuncts = conj.toArray(new FilterNode[0]);
        binder.plan.filter = conj.isEmpty() ? null : conj.size() == 1 ? conj.get(0) : new LogicFilter(true,
            binder.plan.conjuncts);
    }

    /**
     * A having condition on plain group keys alone (SQL's {@code HAVING side = 'S'} over {@code GROUP BY side}) holds
     * for a group exactly when it holds for each of the group's rows, so it is also applied to the rows, as a
     * conjunct of the filter: the rows of the groups it drops are never aggregated, and its sets and ranges prune
     * blocks and use bitmaps as any filter does. A range or equality on a time bucket key becomes a range on its
     * timestamp column ({@link BucketHaving}). The having itself stays, so the answer is the same either way. Only
     * the parts that bind as a filter are added; the having binder reports anything wrong with the others.
     *
     * @return the having's conjuncts on plain keys alone, as conditions on the keys' columns, by their JSON paths.
     */
    private List<Map.Entry<String, Filter>> havingKeyTerms() {
        final var q = binder.q;
        if (q.aggs().isEmpty() || q.groupBy().isEmpty() || q.having() == null) {
            return List.of();
        }
        final Map<String, String> keys = new HashMap<>();
        final Map<String, GroupKey> buckets = new HashMap<>();
        for (final GroupKey g : q.groupBy()) {
            if (g.col() != null && binder.schema.indexOf(g.col()) >= 0) {
                if (g.bucket() == null) {
                    keys.put(g.outputName(), g.col());
                } else {
                    buckets.put(g.outputName(), g);
                }
            }
        }
        for (final Agg a : q.aggs()) {
            if (a.name() != null && (keys.containsKey(a.name()) || buckets.containsKey(a.name()))) {
                return List.of(); // an output name used twice: the binder refuses the query
            }
        }
        final Filter h = q.having();
        final List<Map.Entry<String, Filter>> terms = new ArrayList<>();
        final List<Filter> args = h instanceof Filter.And a ? a.args() : List.of(h);
        for (int i = 0; i < args.size(); i++) {
            final String path = h instanceof Filter.And ? "/having/args/" + i : "/having";
            if (onKeys(args.get(i), keys, 0)) {
                terms.add(Map.entry(path, onColumns(args.get(i), keys)));
            } else if (args.get(i) instanceof Filter.Range || args.get(i) instanceof Filter.Eq) {
                final GroupKey g = buckets.get(leafColumn(args.get(i)));
                final Filter t = g == null ? null : bucketTerm(args.get(i), g, path);
                if (t != null) {
                    terms.add(Map.entry(path, t));
                }
            }
        }
        return terms;
    }

    /** @return a having range or equality on a time bucket key as a range on its column, or null. */
    private static Filter bucketTerm(final Filter term, final GroupKey g, final String path) {
        final int months;
        final long width;
        try {
            months = Literals.bucketMonths(g.bucket(), path);
            width = months > 0 ? 0 : Literals.bucketNanos(g.bucket(), path);
        } catch (final QueryException e) {
            return null; // the binder reports the key's bucket
        }
        return BucketHaving.onColumn(term, g.col(), width, months, path);
    }

    /**
     * @return the filter and the having's key terms as one AND with what their equalities decide folded away
     *     ({@link FilterFacts}: {@code having side = S} over {@code ... or side = B and ...}), or null when nothing
     *     folds.
     */
    private Filter folded(final Filter filter, final List<Map.Entry<String, Filter>> keyTerms) {
        final List<Filter> all = new ArrayList<>();
        all.add(filter);
        for (final Map.Entry<String, Filter> t : keyTerms) {
            all.add(t.getValue());
        }
        final Filter and = new Filter.And(all);
        final Filter f = FilterFacts.simplify(and, binder.schema);
        return f == and ? null : f;
    }

    private void pushDown(final List<FilterNode> conj, final Filter f, final String path) {
        final FilterNode n;
        try {
            n = filter(f, path, false);
        } catch (final QueryException e) {
            return;
        }
        if (n instanceof LogicFilter l && l.and) {
            conj.addAll(Arrays.asList(l.args));
        } else {
            conj.add(n);
        }
    }

    /** @return whether every leaf of {@code f} names a key of {@code keys} (and the tree is not absurdly deep). */
    private static boolean onKeys(final Filter f, final Map<String, String> keys, final int depth) {
        if (f == null || depth > 64) {
            return false;
        }
        if (f instanceof Filter.And a) {
            return !a.args().isEmpty() && a.args().stream().allMatch(x -> onKeys(x, keys, depth + 1));
        }
        if (f instanceof Filter.Or o) {
            return !o.args().isEmpty() && o.args().stream().allMatch(x -> onKeys(x, keys, depth + 1));
        }
        if (f instanceof Filter.Not n) {
            return onKeys(n.arg(), keys, depth + 1);
        }
        return keys.containsKey(leafColumn(f));
    }

    private static String leafColumn(final Filter f) {
        if (f instanceof Filter.Eq e) {
            return e.col();
        }
        if (f instanceof Filter.Ne e) {
            return e.col();
        }
        if (f instanceof Filter.In e) {
            return e.col();
        }
        return ((Filter.Range) f).col();
    }

    /** @return {@code f} with each key's output name replaced by its column's name. */
    private static Filter onColumns(final Filter f, final Map<String, String> keys) {
        if (f instanceof Filter.And a) {
            return new Filter.And(a.args().stream().map(x -> onColumns(x, keys)).toList());
        }
        if (f instanceof Filter.Or o) {
            return new Filter.Or(o.args().stream().map(x -> onColumns(x, keys)).toList());
        }
        if (f instanceof Filter.Not n) {
            return new Filter.Not(onColumns(n.arg(), keys));
        }
        if (f instanceof Filter.Eq e) {
            return new Filter.Eq(keys.get(e.col()), e.value());
        }
        if (f instanceof Filter.Ne e) {
            return new Filter.Ne(keys.get(e.col()), e.value());
        }
        if (f instanceof Filter.In e) {
            return new Filter.In(keys.get(e.col()), e.values());
        }
        final Filter.Range r = (Filter.Range) f;
        return new Filter.Range(keys.get(r.col()), r.gt(), r.gte(), r.lt(), r.lte());
    }

    /**
     * Replaces positive ranges on one column among the conjuncts by their intersection, in the first one's place:
     * SQL's {@code ts >= a AND ts < b} (two conjuncts) then costs one test a row, as {@code time} does.
     */
    private static void mergeRanges(final List<FilterNode> conj) {
        for (int i = 0; i < conj.size(); i++) {
            if (!(conj.get(i) instanceof IntRangeFilter first)) {
                continue;
            }
            IntRangeFilter merged = first;
            for (int j = conj.size() - 1; j > i; j--) {
                if (conj.get(j) instanceof IntRangeFilter r) {
                    final IntRangeFilter both = merged.intersect(r);
                    if (both != null) {
                        merged = both;
                        conj.remove(j);
                    }
                }
            }
            conj.set(i, merged);
        }
    }

    private FilterNode filter(final Filter f, final String p, final boolean negate) {
        final List<Filter> args = Binder.logicArgs(f, p, (f instanceof Filter.And ? "and" : "or")
            + " needs at least one argument");
        if (args != null) {
            final boolean and = f instanceof Filter.And;
            final boolean merged = and != negate;
            final List<FilterNode> flat = new ArrayList<>();
            for (int i = 0; i < args.size(); i++) {
                final FilterNode n = filter(args.get(i), p + "/args/" + i, negate);
                if (n instanceof LogicFilter && ((LogicFilter) n).and == merged) {
                    flat.addAll(Arrays.asList(((LogicFilter) n).args));
                } else {
                    flat.add(n);
                }
            }
            final List<FilterNode> nodes = new ArrayList<>();
            for (final FilterNode n : ValueSets.fold(flat, merged, binder)) {
                if (!(n instanceof NoneFilter) || merged) {
                    nodes.add(n); // an OR drops an argument no row passes
                }
            }
            // an AND with an argument no row passes, or ranges on one column no value is in at once, keeps no row:
            // the zone maps then prune every segment (an OR of it and a trade_id range reads that range's blocks)
            if (nodes.isEmpty() || merged && (nodes.contains(NoneFilter.INSTANCE) || IntRangeFilter.disjoint(nodes))) {
                return NoneFilter.INSTANCE;
            }
            return nodes.size() == 1 ? nodes.get(0) : new LogicFilter(merged, nodes.toArray(new FilterNode[0]));
        }
        if (f instanceof Filter.Not) {
            if (((Filter.Not) f).arg() == null) {
                throw Binder.invalid(p + "/arg", "not needs an argument");
            }
            return filter(((Filter.Not) f).arg(), p + "/arg", !negate);
        }
        if (f instanceof Filter.Eq) {
            final Filter.Eq e = (Filter.Eq) f;
            return leafIn(binder.column(e.col(), p + "/col"), "eq", List.of(nonNull(e.value(), p + "/value")), p,
                "/value", negate);
        }
        if (f instanceof Filter.Ne) {
            final Filter.Ne e = (Filter.Ne) f;
            return leafIn(binder.column(e.col(), p + "/col"), "ne", List.of(nonNull(e.value(), p + "/value")), p,
                "/value", !negate);
        }
        if (f instanceof Filter.In) {
            final Filter.In e = (Filter.In) f;
            if (e.values().isEmpty()) {
                throw Binder.invalid(p + "/values", "in needs at least one value");
            }
            return leafIn(binder.column(e.col(), p + "/col"), "in", e.values(), p, "/values/", negate);
        }
        final Filter.Range r = (Filter.Range) f;
        return leafRange(binder.column(r.col(), p + "/col"), r, p, negate);
    }

    private static Object nonNull(final Object v, final String p) {
        if (v == null) {
            throw Binder.invalid(p, "value must not be null");
        }
        return v;
    }

    private FilterNode leafIn(final Column c, final String op, final List<Object> values, final String p,
                              final String valuePath,
                              final boolean negated) {
        final boolean many = valuePath.endsWith("/");
        if (c.type() == ColumnType.F64) {
            final double[] set = new double[values.size()];
            for (int i = 0; i < set.length; i++) {
                final double d = Literals.number(values.get(i), c, p + valuePath + (many ? i : "")).doubleValue();
                set[i] = d == 0.0 ? 0.0 : d;
            }
            Arrays.sort(set);
            return new DoubleFilter(c.index(), 0, false, 0, false, set, negated);
        }
        final TreeSet<Long> set = new TreeSet<>();
        for (int i = 0; i < values.size(); i++) {
            final String vp = p + valuePath + (many ? i : "");
            final Object v = nonNull(values.get(i), vp);
            switch (c.type()) {
                case SYMBOL: {
                    if (!(v instanceof String)) {
                        throw Binder.invalid(vp, "column '" + c.name() + "' is a symbol: values are strings");
                    }
                    final int code = binder.snap.findSymbol(c.index(), (String) v);
                    if (code >= 0) {
                        set.add((long) code);
                    }
                    break;
                }
                case CHAR:
                    set.add(charValue(c, v, vp));
                    break;
                case TIMESTAMP:
                    set.add(Literals.timestamp(v, vp));
                    break;
                default: {
                    final BigDecimal m = Literals.number(v, c, vp).movePointRight(c.scale());
                    if (m.signum() == 0 || m.stripTrailingZeros().scale() <= 0) {
                        if (m.compareTo(BigDecimal.valueOf(Long.MAX_VALUE)) <= 0
                            && m.compareTo(BigDecimal.valueOf(Long.MIN_VALUE + 1)) >= 0) {
                            final long x = m.longValueExact();
                            if (fits(c, x)) {
                                set.add(x);
                            }
                        }
                    }
                    break;
                }
            }
        }
        return setFilter(c, set.stream().mapToLong(Long::longValue).toArray(), negated);
    }

    static FilterNode setFilter(final Column c, final long[] arr, final boolean negated) {
        final long nul = c.type().nullBits();
        if (arr.length == 1) {
            return new IntRangeFilter(c.index(), c.width(), nul, arr[0], arr[0], negated);
        }
        if (arr.length == 0) {
            return new IntRangeFilter(c.index(), c.width(), nul, 1, 0, negated);
        }
        return new IntSetFilter(c.index(), c.width(), nul, arr, negated);
    }

    /**
     * A filter that is one ne / not in leaf on a symbol of few values becomes in over the other values (null still
     * fails): an in list is what bitmap indexes and value summaries answer without reading the rows, and the
     * snapshot's rows use no code beyond its dictionary. Beside other leaves the negated form stays, since a bitmap
     * selection of most rows feeding a residual filter is slower than scanning them.
     */
    private FilterNode positive(final FilterNode leaf) {
        final int col;
        final long[] values;
        if (leaf instanceof IntRangeFilter && ((IntRangeFilter) leaf).negated) {
            final IntRangeFilter r = (IntRangeFilter) leaf;
            col = r.col;
            // "not in ()" (any non-null value) stays: zone maps prove it for a block without nulls
            values = r.lo == r.hi ? new long[] {r.lo} : null;
        } else if (leaf instanceof IntSetFilter && ((IntSetFilter) leaf).negated) {
            col = ((IntSetFilter) leaf).col;
            values = ((IntSetFilter) leaf).values;
        } else {
            return leaf;
        }
        final Column c = binder.schema.column(col);
        if (values == null || c.type() != ColumnType.SYMBOL) {
            return leaf;
        }
        final int size = binder.snap.dictionarySize(col);
        return size > COMPLEMENT_MAX_SYMBOLS ? leaf : setFilter(c, complement(values, size), false);
    }

    /** @return the codes in {@code [0, size)} that are not in {@code sorted}, ascending. */
    private static long[] complement(final long[] sorted, final int size) {
        final long[] out = new long[size];
        int k = 0;
        int j = 0;
        for (long code = 0; code < size; code++) {
            while (j < sorted.length && sorted[j] < code) {
                j++;
            }
            if (j == sorted.length || sorted[j] != code) {
                out[k++] = code;
            }
        }
        return Arrays.copyOf(out, k);
    }

    private static boolean fits(final Column c, final long x) {
        switch (c.type()) {
            case I8:
                return x > Byte.MIN_VALUE && x <= Byte.MAX_VALUE;
            case I16:
                return x > Short.MIN_VALUE && x <= Short.MAX_VALUE;
            case I32:
                return x > Integer.MIN_VALUE && x <= Integer.MAX_VALUE;
            default:
                return x != Long.MIN_VALUE;
        }
    }

    private long charValue(final Column c, final Object v, final String p) {
        if (!(v instanceof String) || ((String) v).length() != 1 || ((String) v).charAt(0) == 0
            || ((String) v).charAt(0) > 127) {
            throw Binder.invalid(p, "column '" + c.name()
                + "' is a char: values are one-character ASCII strings such as \"B\"");
        }
        return ((String) v).charAt(0);
    }

    private FilterNode leafRange(final Column c, final Filter.Range r, final String p, final boolean negated) {
        if (r.gt() != null && r.gte() != null || r.lt() != null && r.lte() != null) {
            throw Binder.invalid(p, "a range takes at most one of gt/gte and one of lt/lte");
        }
        if (r.gt() == null && r.gte() == null && r.lt() == null && r.lte() == null) {
            throw Binder.invalid(p, "a range needs at least one of gt gte lt lte");
        }
        final Object lower = r.gt() != null ? r.gt() : r.gte();
        final Object upper = r.lt() != null ? r.lt() : r.lte();
        final String lowerPath = p + (r.gt() != null ? "/gt" : "/gte");
        final String upperPath = p + (r.lt() != null ? "/lt" : "/lte");
        switch (c.type()) {
            case SYMBOL:
                throw Binder.invalid(p + "/op", "range does not apply to symbol column '" + c.name()
                    + "'; use eq, ne or in");
            case F64: {
                final double lo = lower == null ? Double.NEGATIVE_INFINITY : Literals.number(lower, c,
                    lowerPath).doubleValue();
                final double hi = upper == null ? Double.POSITIVE_INFINITY : Literals.number(upper, c,
                    upperPath).doubleValue();
                return new DoubleFilter(c.index(), lo, lower == null || r.gte() != null, hi, upper == null
                    || r.lte() != null, null, negated);
            }
            case CHAR: {
                long lo = lower == null ? 1 : charValue(c, lower, lowerPath);
                long hi = upper == null ? 127 : charValue(c, upper, upperPath);
                lo += r.gt() != null ? 1 : 0;
                hi -= r.lt() != null ? 1 : 0;
                return new IntRangeFilter(c.index(), c.width(), c.type().nullBits(), lo, hi, negated);
            }
            default:
                break;
        }
        long lo = Long.MIN_VALUE + 1;
        long hi = Long.MAX_VALUE;
        if (lower != null) {
            final BigDecimal x = c.type() == ColumnType.TIMESTAMP ? BigDecimal.valueOf(Literals.timestamp(lower,
                lowerPath))
                : Literals.number(lower, c, lowerPath).movePointRight(c.scale());
            lo = Literals.clamp(r.gt() != null ? x.setScale(0, RoundingMode.FLOOR).add(BigDecimal.ONE) : x.setScale(0,
                RoundingMode.CEILING));
        }
        if (upper != null) {
            final BigDecimal x = c.type() == ColumnType.TIMESTAMP ? BigDecimal.valueOf(Literals.timestamp(upper,
                upperPath))
                : Literals.number(upper, c, upperPath).movePointRight(c.scale());
            hi = Literals.clamp(r.lt() != null ? x.setScale(0, RoundingMode.CEILING).subtract(BigDecimal.ONE)
                : x.setScale(0, RoundingMode.FLOOR));
        }
        return new IntRangeFilter(c.index(), c.width(), c.type().nullBits(), lo, hi, negated);
    }
}
