package io.tradestore.query.exec;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.PriorityQueue;

import io.tradestore.core.TableSnapshot;
import io.tradestore.core.memory.NativeMemory;
import io.tradestore.core.schema.Column;
import io.tradestore.query.ErrorCode;
import io.tradestore.query.QueryException;
import io.tradestore.query.exec.agg.Tasks;
import io.tradestore.query.exec.agg.Values;
import io.tradestore.query.exec.filter.RowPredicate;
import io.tradestore.query.exec.group.GroupState;
import io.tradestore.query.plan.Plan;

/**
 * Turns a query's merged partials into its answer rows: a scan's rows read back by row id; groups after having,
 * ordered and cut at the limit.
 */
final class ResultRows {
    private ResultRows() {
    }

    /** @return the scan's answer rows, each read back by its row id. */
    static List<Object[]> scanRows(final Plan plan, final long[] rowIds) {
        final TableSnapshot snap = plan.snap;
        final List<Object[]> out = new ArrayList<>(rowIds.length);
        final int shift = snap.segmentShift();
        for (final long id : rowIds) {
            final int seg = (int) (id >>> shift);
            final int r = (int) (id - ((long) seg << shift));
            final Object[] row = new Object[plan.scanColumns.length];
            for (int i = 0; i < row.length; i++) {
                final Column col = plan.schema.column(plan.scanColumns[i]);
                row[i] = Values.object(col, Values.normalize(col, read(snap, seg, col, r)), snap);
            }
            out.add(row);
        }
        return out;
    }

    /** @return the raw value of a column at a row of a segment, sign-extended. */
    static long read(final TableSnapshot snap, final int seg, final Column col, final int row) {
        final long a = snap.segment(seg).columnBase(col.index())
            + (long) row * snap.segment(seg).columnStride(col.index());
        return NativeMemory.getSigned(a, col.width());
    }

    /** Merges the workers' group partials and makes the answer rows, then releases the partials' pooled memory. */
    static GroupRows groupAnswer(final Plan plan, final Object[] partials, final GroupState folded,
        final Tasks tasks) {
        final GroupState g = (GroupState) partials[0];
        try {
            for (int w = 1; w < partials.length; w++) {
                g.merge((GroupState) partials[w]);
            }
            if (folded != null) {
                g.merge(folded);
            }
            g.beforeResults(tasks);
            if (g.groupCount() > plan.maxGroups) {
                throw new QueryException(ErrorCode.TOO_MANY_GROUPS, "the query makes " + g.groupCount()
                    + " groups, more than maxGroups=" + plan.maxGroups
                    + "; filter more, group by fewer keys, or raise options.maxGroups", "/groupBy");
            }
            return groupRows(plan, g);
        } finally {
            for (final Object p : partials) {
                if (p != null) {
                    ((GroupState) p).release();
                }
            }
            if (folded != null) {
                folded.release();
            }
        }
    }

    /**
     * Makes the merged groups' answer rows after having, ordered and cut at the limit. Only the keys and the outputs
     * that having or the order read are made for every group; the others (an average's or a vwap's division, a
     * percentile's histogram walk) only for the rows that are returned, so that a top 10 of 40,000 groups makes 10 of
     * them.
     *
     * @param plan the plan.
     * @param g    the merged groups.
     * @return the rows and how many groups passed having.
     */
    static GroupRows groupRows(final Plan plan, final GroupState g) {
        final int[] gids = g.groups();
        final int nk = plan.keys.length;
        final int na = g.accs.length;
        final boolean[] early = earlyOutputs(plan, nk + na);
        final List<Group> groups = new ArrayList<>(gids.length);
        for (final int gid : gids) {
            final Object[] row = new Object[nk + na];
            for (int k = 0; k < nk; k++) {
                row[k] = Values.object(plan.keys[k].col, g.keyRaw(gid, k), plan.snap);
            }
            for (int a = 0; a < na; a++) {
                if (early[nk + a]) {
                    row[nk + a] = g.accs[a].result(gid, g.rows[gid]);
                }
            }
            if (plan.having == null || plan.having.test(row)) {
                groups.add(new Group(row, gid));
            }
        }
        final Comparator<Group> order = order(plan.orderIndex, plan.orderDesc, nk);
        final Group[] arr = (plan.limit < groups.size() / 4 ? smallest(groups, (int) plan.limit, order) : groups)
            .toArray(new Group[0]);
        if (plan.orderIndex.length > 0) {
            final int col = plan.orderIndex[0];
            LongKeySort.sort(arr, x -> x.row[col], plan.orderDesc[0], order);
        } else {
            Arrays.sort(arr, order);
        }
        final int n = (int) Math.min(arr.length, plan.limit);
        final List<Object[]> rows = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            final Object[] row = arr[i].row;
            for (int a = 0; a < na; a++) {
                if (!early[nk + a]) {
                    row[nk + a] = g.accs[a].result(arr[i].gid, g.rows[arr[i].gid]);
                }
            }
            rows.add(row);
        }
        return new GroupRows(rows, groups.size());
    }

    /** A group's answer row, made in part, and its group id (to make the rest once it is known to be returned). */
    private record Group(Object[] row, int gid) {
    }

    /**
     * @return per output column, whether every group needs it before the cut: the keys, and what having and orderBy
     *     read.
     */
    private static boolean[] earlyOutputs(final Plan plan, final int outputs) {
        final boolean[] early = new boolean[outputs];
        Arrays.fill(early, 0, plan.keys.length, true);
        for (final int i : plan.orderIndex) {
            early[i] = true;
        }
        if (plan.having != null) {
            for (int i = 0; i < outputs; i++) {
                early[i] |= plan.havingReads == null || plan.havingReads[i];
            }
        }
        return early;
    }

    /** @return the answer's order: the orderBy outputs, then the keys in order (so that ties are deterministic). */
    private static Comparator<Group> order(final int[] orderIndex, final boolean[] orderDesc, final int keys) {
        return (x, y) -> {
            for (int i = 0; i < orderIndex.length; i++) {
                final int c = compareNullsLast(x.row[orderIndex[i]], y.row[orderIndex[i]], orderDesc[i]);
                if (c != 0) {
                    return c;
                }
            }
            for (int k = 0; k < keys; k++) {
                final int c = compareNullsLast(x.row[k], y.row[k], false);
                if (c != 0) {
                    return c;
                }
            }
            return 0;
        };
    }

    /** The rows of a grouped answer, ordered and cut at the limit, and how many groups there were (after having). */
    record GroupRows(List<Object[]> rows, int groups) {
    }

    /**
     * @return the {@code k} first rows under {@code order}, unordered: a bounded max-heap, so that a top 10 of 10,000
     *     groups compares each row about once with the heap's worst instead of sorting them all (query 5).
     */
    static <T> List<T> smallest(final List<T> rows, final int k, final Comparator<T> order) {
        if (k <= 0) {
            return new ArrayList<>();
        }
        final PriorityQueue<T> worstFirst = new PriorityQueue<>(k, order.reversed());
        for (final T row : rows) {
            if (worstFirst.size() < k) {
                worstFirst.add(row);
            } else if (order.compare(row, worstFirst.peek()) < 0) {
                worstFirst.poll();
                worstFirst.add(row);
            }
        }
        return new ArrayList<>(worstFirst);
    }

    /** @return the order of two values, nulls and NaN last whichever the direction. */
    private static int compareNullsLast(final Object a, final Object b, final boolean desc) {
        final boolean an = a == null || a instanceof Double && ((Double) a).isNaN();
        final boolean bn = b == null || b instanceof Double && ((Double) b).isNaN();
        if (an || bn) {
            return an == bn ? 0 : an ? 1 : -1;
        }
        final int c = compare(a, b);
        return desc ? -c : c;
    }

    /**
     * @return the order of two non-null values, as {@link RowPredicate#compare} orders them, without its BigDecimal
     *     copies for the common cases of two values of one type (a sort of 40,000 groups by an average made two
     *     BigDecimals of each double per comparison).
     */
    static int compare(final Object a, final Object b) {
        if (a instanceof Double && b instanceof Double) {
            // exact and NaN-free here (NaN sorts as null): -0.0 equals 0.0, as their BigDecimals are equal
            final double x = (Double) a;
            final double y = (Double) b;
            return x < y ? -1 : x > y ? 1 : 0;
        }
        if (a instanceof BigDecimal && b instanceof BigDecimal) {
            return ((BigDecimal) a).compareTo((BigDecimal) b);
        }
        return RowPredicate.compare(a, b);
    }
}
