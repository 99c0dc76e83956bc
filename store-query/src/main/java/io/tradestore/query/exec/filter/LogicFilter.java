package io.tradestore.query.exec.filter;

import java.util.Arrays;

import io.tradestore.core.segment.Segment;
import io.tradestore.query.exec.BatchContext;

/**
 * AND (successive refinement of the selection, in the order each worker learns to be cheapest: {@link AdaptiveOrder})
 * or OR (union of each child's rows) of filters.
 */
public final class LogicFilter extends FilterNode {
    /** Widest span of rows (from the batch's first to its last) an OR unites in a bit mask: 32 KiB of bits. */
    static final int MASK_ROWS = 1 << 18;
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
        if (n == 0) {
            return 0;
        }
        final int base = sel == null ? start : sel[0];
        final int span = sel == null ? n : sel[n - 1] - base + 1;
        if (span <= MASK_ROWS) {
            return unionByMask(c, start, n, sel, out, base, span);
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

    /** An OR's scratch on one worker: the bit mask of its rows and the order of its arguments. */
    private static final class OrState {
        long[] mask = new long[BatchContext.BATCH / 64];
        /** Learns from the rows each argument leaves unpassed: the one leaving fewest goes first. */
        final AdaptiveOrder order;

        OrState(final int args) {
            order = new AdaptiveOrder(args);
        }
    }

    /**
     * OR as a bit per row of the batch's span: each argument's rows set their bits, and the set bits are read back in
     * row order. Merging sorted row lists instead took a data-dependent branch per row, mispredicted on random data.
     * The argument that passes most rows goes first (learnt per worker); where it passes half of the batch or
     * more, the others test only the rows still unpassed, so an OR one of whose arguments passes nearly every row
     * costs about that argument alone.
     */
    private int unionByMask(final BatchContext c, final int start, final int n, final int[] sel, final int[] out,
        final int base, final int span) {
        final int words = (span + 63) >>> 6;
        // this node's own scratch on this worker: an OR nested under another one's argument must not share it
        OrState st = (OrState) c.filterState(this);
        if (st == null) {
            st = new OrState(args.length);
            c.filterState(this, st);
        }
        if (st.mask.length < words) {
            st.mask = new long[words];
        } else {
            Arrays.fill(st.mask, 0, words, 0L);
        }
        final long[] mask = st.mask;
        final AdaptiveOrder ord = st.order;
        final int[] tmp = c.borrow();
        int m = args[ord.order[0]].apply(c, start, n, sel, tmp);
        ord.observed(ord.order[0], n, n - m);
        if (m == n) { // every row passes: no other argument can add one
            ord.batchDone();
            System.arraycopy(tmp, 0, out, 0, n);
            c.release(tmp);
            return n;
        }
        setBits(mask, tmp, m, base);
        if (m * 2L >= n) {
            final int[] rest = c.borrow();
            int left = unpassed(mask, start, n, sel, base, rest);
            for (int i = 1; i < args.length && left > 0; i++) {
                m = args[ord.order[i]].apply(c, 0, left, rest, tmp);
                ord.observed(ord.order[i], left, left - m);
                if (m > 0) {
                    setBits(mask, tmp, m, base);
                    left = unpassed(mask, 0, left, rest, base, rest);
                }
            }
            c.release(rest);
        } else {
            for (int i = 1; i < args.length; i++) {
                m = args[ord.order[i]].apply(c, start, n, sel, tmp);
                ord.observed(ord.order[i], n, n - m);
                setBits(mask, tmp, m, base);
            }
        }
        ord.batchDone();
        c.release(tmp);
        int k = 0;
        for (int w = 0; w < words; w++) {
            final int at = base + (w << 6);
            for (long bits = mask[w]; bits != 0; bits &= bits - 1) {
                out[k++] = at + Long.numberOfTrailingZeros(bits);
            }
        }
        return k;
    }

    private static void setBits(final long[] mask, final int[] rows, final int m, final int base) {
        for (int j = 0; j < m; j++) {
            final int d = rows[j] - base;
            mask[d >>> 6] |= 1L << d;
        }
    }

    /**
     * @return how many of the rows {@code [start, start + n)} or {@code sel[0..n)} have no bit set, written in order to
     *     {@code out} (which may be {@code sel}).
     */
    private static int unpassed(final long[] mask, final int start, final int n, final int[] sel, final int base,
        final int[] out) {
        int k = 0;
        for (int i = 0; i < n; i++) {
            final int r = sel == null ? start + i : sel[i];
            final int d = r - base;
            out[k] = r;
            k += (int) (~mask[d >>> 6] >>> d) & 1;
        }
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
