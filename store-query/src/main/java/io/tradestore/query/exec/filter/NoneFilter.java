package io.tradestore.query.exec.filter;

import io.tradestore.core.segment.Segment;
import io.tradestore.query.exec.BatchContext;

/**
 * A filter no row passes: a conjunction of ranges on one column that no value is in at once, or an empty set of
 * values ({@code side = 'B' and side = 'S'}).
 */
public final class NoneFilter extends FilterNode {
    public static final NoneFilter INSTANCE = new NoneFilter();

    private NoneFilter() {
    }

    @Override
    public int apply(final BatchContext c, final int start, final int n, final int[] sel, final int[] out) {
        return 0;
    }

    @Override
    public boolean mayMatch(final Segment s, final int block) {
        return false;
    }
}
