package io.tradestore.query.plan;

import java.util.ArrayList;
import java.util.List;

import io.tradestore.core.segment.Segment;
import io.tradestore.query.spi.IndexLeaf;
import io.tradestore.query.spi.Selection;
import io.tradestore.query.exec.filter.FilterNode;
import io.tradestore.query.exec.filter.IntRangeFilter;
import io.tradestore.query.exec.filter.IntSetFilter;
import io.tradestore.query.exec.filter.LogicFilter;

/**
 * What zone maps and index selections settle of a plan's top-level conjuncts: which an index may answer, which a
 * selection left, which a block's zone maps prove for every row, and the filter of the rest.
 */
public final class ConjunctProofs {
    private ConjunctProofs() {
    }

    /** @return whether every conjunct (if any) is the query's time range, which zone maps prove for inner blocks. */
    public static boolean timeOnly(final Plan plan) {
        for (final FilterNode f : plan.conjuncts) {
            if (!isTimeRange(plan, f)) {
                return false;
            }
        }
        return true;
    }

    /** @return whether a conjunct is a range on the designated timestamp (the query's time range or a filter's). */
    public static boolean isTimeRange(final Plan plan, final FilterNode f) {
        return f instanceof IntRangeFilter && !((IntRangeFilter) f).negated
            && ((IntRangeFilter) f).col == plan.schema.timestampIndex();
    }

    /** @return the plan's conjuncts an index may answer: (negated) eq/in leaves and one-value ranges. */
    public static List<IndexLeaf> indexLeaves(final Plan plan) {
        final List<IndexLeaf> out = new ArrayList<>();
        for (final FilterNode f : plan.conjuncts) {
            if (f instanceof IntSetFilter) {
                final IntSetFilter s = (IntSetFilter) f;
                out.add(new IndexLeaf(s.col, s.values, s.negated, s));
            } else if (f instanceof IntRangeFilter) {
                final IntRangeFilter r = (IntRangeFilter) f;
                if (r.lo == r.hi) {
                    out.add(new IndexLeaf(r.col, new long[] {r.lo}, r.negated, r));
                } else if (r.lo > r.hi) {
                    out.add(new IndexLeaf(r.col, new long[0], r.negated, r));
                }
            }
        }
        return out;
    }

    /** @return the conjuncts an index selection did not answer. */
    public static List<FilterNode> residual(final Plan plan, final Selection sel) {
        final List<FilterNode> rest = new ArrayList<>();
        for (final FilterNode f : plan.conjuncts) {
            if (!sel.answered(f)) {
                rest.add(f);
            }
        }
        return rest;
    }

    /**
     * @param plan       the plan.
     * @param s          a segment.
     * @param b          a block the zone maps keep.
     * @param end        the block to stop at.
     * @param conjuncts  conjuncts whose proof must stay {@code proven} along the run, or null.
     * @param proven     their proof mask at {@code b}.
     * @param rows       committed rows of the segment.
     * @return the block after the run of kept blocks from {@code b} (with the same proof mask).
     */
    public static int runEnd(final Plan plan, final Segment s, final int b, final int end,
        final List<FilterNode> conjuncts,
                      final long proven, final int rows) {
        int e = b + 1;
        while (e < end && (plan.filter == null || plan.filter.mayMatch(s, e)) && (conjuncts == null || proven(plan,
            conjuncts, s, e, rows) == proven)) {
            e++;
        }
        return e;
    }

    /** @return a bit per conjunct (the first 64) that the zone maps prove for every row of the block. */
    public static long proven(final Plan plan, final List<FilterNode> conjuncts, final Segment s, final int block,
                       final int rows) {
        long mask = 0;
        for (int i = 0; i < conjuncts.size() && i < Long.SIZE; i++) {
            if (conjuncts.get(i).passesAll(s, block, plan.schema.blockRows(), rows)) {
                mask |= 1L << i;
            }
        }
        return mask;
    }

    /** @return the conjuncts not in {@code proven} as one filter, or null when none is left. */
    public static FilterNode unproven(final List<FilterNode> conjuncts, final long proven) {
        final List<FilterNode> rest = new ArrayList<>();
        for (int i = 0; i < conjuncts.size(); i++) {
            if (i >= Long.SIZE || (proven & 1L << i) == 0) {
                rest.add(conjuncts.get(i));
            }
        }
        if (rest.isEmpty()) {
            return null;
        }
        return rest.size() == 1 ? rest.get(0) : new LogicFilter(true, rest.toArray(new FilterNode[0]));
    }

    /**
     * @param plan a plan with a filter.
     * @param s    a segment.
     * @param rows its committed rows.
     * @return the rows from the first block to the last one the filter's zone maps keep, as {@code from << 32 | to},
     *     or -1 when they keep none.
     */
    public static long keptSpan(final Plan plan, final Segment s, final int rows) {
        final int blockRows = plan.schema.blockRows();
        final int blocks = (rows + blockRows - 1) / blockRows;
        int first = 0;
        while (first < blocks && !plan.filter.mayMatch(s, first)) {
            first++;
        }
        int last = blocks - 1;
        while (last > first && !plan.filter.mayMatch(s, last)) {
            last--;
        }
        return first == blocks ? -1 : (long) first * blockRows << 32 | Math.min(rows, (long) (last + 1) * blockRows);
    }
}
