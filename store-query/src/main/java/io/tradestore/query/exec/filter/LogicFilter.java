package io.tradestore.query.exec.filter;

import io.tradestore.core.segment.Segment;
import io.tradestore.query.exec.BatchContext;

/**
 * AND (successive refinement of the selection, in the order each worker learns to be cheapest: {@link AdaptiveOrder})
 * or OR (union of each child's rows) of filters.
 */
public final class LogicFilter extends FilterNode {
    public final boolean and;
    public final FilterNode[] args;

    public LogicFilter(final boolean and, final FilterNode[] args) {
        this.and = and;
        this.args = args;
    }

    @Override
    public int apply(final BatchContext c, final int start, final int n, final int[] sel, final int[] out) {
        if (and) {
            AdaptiveOrder ord = (AdaptiveOrder) c.filterState(this);
            if (ord == null) {
                ord = new AdaptiveOrder(args.length);
                c.filterState(this, ord);
            }
            final int[] order = ord.order;
            int k = args[order[0]].apply(c, start, n, sel, out);
            ord.observed(order[0], n, k);
            for (int i = 1; i < args.length && k > 0; i++) {
                final int m = k;
                k = args[order[i]].apply(c, 0, m, out, out);
                ord.observed(order[i], m, k);
            }
            ord.batchDone();
            return k;
        }
        int[] acc = c.borrow();
        final int[] tmp = c.borrow();
        int[] merged = c.borrow();
        int k = args[0].apply(c, start, n, sel, acc);
        for (int i = 1; i < args.length; i++) {
            if (k == n) {
                break;
            }
            final int m = args[i].apply(c, start, n, sel, tmp);
            int x = 0;
            int y = 0;
            int z = 0;
            while (x < k && y < m) {
                final int a = acc[x];
                final int b = tmp[y];
                if (a == b) {
                    merged[z++] = a;
                    x++;
                    y++;
                } else if (a < b) {
                    merged[z++] = a;
                    x++;
                } else {
                    merged[z++] = b;
                    y++;
                }
            }
            while (x < k) {
                merged[z++] = acc[x++];
            }
            while (y < m) {
                merged[z++] = tmp[y++];
            }
            final int[] t = acc;
            acc = merged;
            merged = t;
            k = z;
        }
        System.arraycopy(acc, 0, out, 0, k);
        c.release(acc);
        c.release(tmp);
        c.release(merged);
        return k;
    }

    @Override
    public boolean passesAll(final Segment s, final int block, final int blockRows, final int rows) {
        for (final FilterNode a : args) {
            if (a.passesAll(s, block, blockRows, rows) != and) {
                return !and; // and: one not proven; or: one proven
            }
        }
        return and;
    }

    @Override
    public boolean mayMatch(final Segment s, final int block) {
        for (final FilterNode a : args) {
            final boolean m = a.mayMatch(s, block);
            if (and && !m) {
                return false;
            }
            if (!and && m) {
                return true;
            }
        }
        return and;
    }
}
