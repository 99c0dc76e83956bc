package io.tradestore.query.plan;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

import io.tradestore.query.exec.filter.FilterNode;
import io.tradestore.query.exec.filter.IntRangeFilter;
import io.tradestore.query.exec.filter.IntSetFilter;
import io.tradestore.query.exec.filter.NoneFilter;

/**
 * Folds the arguments of one AND or OR that compare the same column with values ({@code side <> 'B' or side in ('B',
 * 'S')}: eq, ne, in and not-in leaves of any integer-coded column) into one leaf. Each leaf is a set of values or the
 * complement of one (a null passes neither form), and such sets stay such sets under union (OR) and intersection
 * (AND). An empty set becomes {@link NoneFilter}; the complement of an empty set passes any non-null value, which zone
 * maps prove for a block without nulls, so a tautology costs no filter pass. Each column is then read once.
 */
final class ValueSets {
    private ValueSets() {
    }

    /**
     * @param nodes the arguments, flattened.
     * @param and   whether they are ANDed (else ORed).
     * @param b     the binder (the schema).
     * @return the arguments with each column's value leaves, when it has two or more, replaced by one.
     */
    static List<FilterNode> fold(final List<FilterNode> nodes, final boolean and, final Binder b) {
        final Map<Integer, List<FilterNode>> byColumn = new LinkedHashMap<>();
        for (final FilterNode n : nodes) {
            final int col = column(n);
            if (col >= 0) {
                byColumn.computeIfAbsent(col, k -> new ArrayList<>()).add(n);
            }
        }
        if (byColumn.values().stream().allMatch(l -> l.size() < 2)) {
            return nodes;
        }
        final List<FilterNode> out = new ArrayList<>();
        for (final FilterNode n : nodes) {
            final int col = column(n);
            if (col < 0 || byColumn.get(col).size() < 2) {
                out.add(n);
            } else if (byColumn.get(col).get(0) == n) {
                out.add(combine(byColumn.get(col), and, b, col));
            }
        }
        return out;
    }

    /** @return the column a one-value, no-value or value-list leaf tests, or -1. */
    private static int column(final FilterNode n) {
        if (n instanceof IntRangeFilter && ((IntRangeFilter) n).lo >= ((IntRangeFilter) n).hi) {
            return ((IntRangeFilter) n).col;
        }
        return n instanceof IntSetFilter ? ((IntSetFilter) n).col : -1;
    }

    private static FilterNode combine(final List<FilterNode> leaves, final boolean and, final Binder b,
        final int col) {
        TreeSet<Long> acc = null;
        boolean accNegated = false;
        for (final FilterNode n : leaves) {
            final TreeSet<Long> values = new TreeSet<>();
            final boolean negated;
            if (n instanceof IntRangeFilter) {
                final IntRangeFilter r = (IntRangeFilter) n;
                negated = r.negated;
                if (r.lo == r.hi) {
                    values.add(r.lo);
                }
            } else {
                final IntSetFilter s = (IntSetFilter) n;
                negated = s.negated;
                for (final long v : s.values) {
                    values.add(v);
                }
            }
            if (acc == null) {
                acc = values;
                accNegated = negated;
                continue;
            }
            // with A' the complement of A: A' | B' = (A & B)', A' & B' = (A | B)', A | B' = (B - A)', A & B' = A - B
            if (accNegated == negated) {
                if (and == negated) {
                    acc.addAll(values);
                } else {
                    acc.retainAll(values);
                }
            } else {
                final TreeSet<Long> positive = accNegated ? values : acc;
                final TreeSet<Long> complement = accNegated ? acc : values;
                if (and) {
                    positive.removeAll(complement);
                    acc = positive;
                } else {
                    complement.removeAll(positive);
                    acc = complement;
                }
                accNegated = !and;
            }
        }
        if (acc.isEmpty() && !accNegated) {
            return NoneFilter.INSTANCE;
        }
        return FilterBinder.setFilter(b.schema.column(col), acc.stream().mapToLong(Long::longValue).toArray(),
            accNegated);
    }
}
