package io.tradestore.query.exec.filter;

import io.tradestore.core.segment.Segment;
import io.tradestore.query.exec.BatchContext;

/** A filter no row passes (for example, eq on a symbol the dictionary does not hold). */
final class NoneFilter extends FilterNode {
    @Override
    public int apply(final BatchContext c, final int start, final int n, final int[] sel, final int[] out) {
        return 0;
    }

    @Override
    public boolean mayMatch(final Segment s, final int block) {
        return false;
    }
}
