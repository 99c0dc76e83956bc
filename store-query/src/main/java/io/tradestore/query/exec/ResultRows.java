package io.tradestore.query.exec;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.PriorityQueue;

import io.tradestore.core.TableSnapshot;
import io.tradestore.core.memory.NativeMemory;
import io.tradestore.core.schema.Column;
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

    /** @return the merged groups' answer rows after having, ordered and cut at the limit. */
    static GroupRows groupRows(final Plan plan, final GroupState g) {
        final int[] gids = g.groups();
        final int nk = plan.keys.length;
        final int na = g.accs.length;
        final List<Object[]> rows = new ArrayList<>(gids.length);
        for (final int gid : gids) {
            final Object[] row = new Object[nk + na];
            for (int k = 0; k < nk; k++) {
                row[k] = Values.object(plan.keys[k].col, g.keyRaw(gid, k), plan.snap);
            }
            for (int a = 0; a < na; a++) {
                row[nk + a] = g.accs[a].result(gid, g.rows[gid]);
            }
            if (plan.having == null || plan.having.test(row)) {
                rows.add(row);
            }
        }
        final Comparator<Object[]> order = (x, y) -> {
            for (int i = 0; i < plan.orderIndex.length; i++) {
                final int c = compareNullsLast(x[plan.orderIndex[i]], y[plan.orderIndex[i]], plan.orderDesc[i]);
                if (c != 0) {
                    return c;
                }
            }
            for (int k = 0; k < nk; k++) {
                final int c = compareNullsLast(x[k], y[k], false);
                if (c != 0) {
                    return c;
                }
            }
            return 0;
        };
        final Object[][] arr = plan.limit < rows.size() / 4 ? smallest(rows, (int) plan.limit, order)
            : rows.toArray(new Object[0][]);
        Arrays.sort(arr, order);
        final int n = (int) Math.min(arr.length, plan.limit);
        return new GroupRows(new ArrayList<>(Arrays.asList(arr).subList(0, n)), rows.size());
    }

    /** The rows of a grouped answer, ordered and cut at the limit, and how many groups there were (after having). */
    record GroupRows(List<Object[]> rows, int groups) {
    }

    /**
     * @return the {@code k} first rows under {@code order}, unordered: a bounded max-heap, so that a top 10 of 10,000
     *     groups compares each row about once with the heap's worst instead of sorting them all (query 5).
     */
    static Object[][] smallest(final List<Object[]> rows, final int k, final Comparator<Object[]> order) {
        if (k <= 0) {
            return new Object[0][];
        }
        final PriorityQueue<Object[]> worstFirst = new PriorityQueue<>(k, order.reversed());
        for (final Object[] row : rows) {
            if (worstFirst.size() < k) {
                worstFirst.add(row);
            } else if (order.compare(row, worstFirst.peek()) < 0) {
                worstFirst.poll();
                worstFirst.add(row);
            }
        }
        return worstFirst.toArray(new Object[0][]);
    }

    /** @return the order of two values, nulls and NaN last whichever the direction. */
    private static int compareNullsLast(final Object a, final Object b, final boolean desc) {
        final boolean an = a == null || a instanceof Double && ((Double) a).isNaN();
        final boolean bn = b == null || b instanceof Double && ((Double) b).isNaN();
        if (an || bn) {
            return an == bn ? 0 : an ? 1 : -1;
        }
        final int c = RowPredicate.compare(a, b);
        return desc ? -c : c;
    }
}
