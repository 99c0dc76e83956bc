package io.tradestore.query.exec;

import java.util.Arrays;
import java.util.List;

import io.tradestore.query.plan.ConjunctProofs;
import io.tradestore.query.plan.Plan;
import io.tradestore.query.spi.Deadline;
import io.tradestore.query.spi.IndexLeaf;
import io.tradestore.query.spi.SegmentSelector;

/**
 * Per sealed segment, the few rows that negated eq/in conjuncts drop ({@code client_id <> x}: the rows of x and the
 * nulls), read from the bitmap index. The scan then reads no column for those conjuncts: it consumes the runs of rows
 * between the dropped ones as dense batches, where the filter would read the column and find the same runs in a
 * selection vector.
 */
final class DroppedRows {
    /**
     * A segment drops at most one row in this many this way, so that the runs between them average hundreds of rows,
     * each read in place as one batch. A chosen bound, not a measured crossover with the filter's pass.
     */
    private static final int MIN_RUN = 256;

    /** Drops no row: a plan with no negated eq/in conjunct, or no selector. */
    static final DroppedRows NONE = new DroppedRows(null, null, List.of());

    private final Plan plan;
    private final SegmentSelector selector;
    private final List<IndexLeaf> negated;
    private final int[][] rows;
    private final long[] masks;

    private DroppedRows(final Plan plan, final SegmentSelector selector, final List<IndexLeaf> negated) {
        this.plan = plan;
        this.selector = selector;
        this.negated = negated;
        rows = plan == null ? null : new int[plan.snap.segmentCount()][];
        masks = plan == null ? null : new long[plan.snap.segmentCount()];
    }

    /** @return an empty record, or {@link #NONE} when the filter has no negated eq/in conjunct (or no selector). */
    static DroppedRows of(final Plan plan, final SegmentSelector selector) {
        if (selector == null || plan.filter == null) {
            return NONE;
        }
        final List<IndexLeaf> negated = ConjunctProofs.indexLeaves(plan);
        negated.removeIf(l -> !l.negated());
        return negated.isEmpty() ? NONE : new DroppedRows(plan, selector, negated);
    }

    /** Notes the rows segment si drops, when it is sealed and they are few; a segment scanned with the filter. */
    void note(final int si, final Deadline deadline) {
        if (this == NONE || !plan.snap.segmentSealed(si)) {
            return;
        }
        final int max = plan.snap.segmentRowCount(si) / MIN_RUN;
        int[] all = null;
        long mask = 0;
        for (final IndexLeaf leaf : negated) {
            final int bit = conjunct(leaf.node());
            final int[] r = bit < 0 ? null : selector.dropped(plan.snap, si, leaf, max, deadline);
            if (r == null || all != null && all.length + r.length > max) {
                continue;
            }
            all = all == null ? r : union(all, r);
            mask |= 1L << bit;
        }
        rows[si] = all;
        masks[si] = mask;
    }

    private int conjunct(final Object node) {
        for (int i = 0; i < plan.conjuncts.length && i < Long.SIZE; i++) {
            if (plan.conjuncts[i] == node) {
                return i;
            }
        }
        return -1;
    }

    private static int[] union(final int[] a, final int[] b) {
        final int[] out = Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        Arrays.sort(out);
        int n = 0;
        for (int i = 0; i < out.length; i++) {
            if (n == 0 || out[i] != out[n - 1]) {
                out[n++] = out[i];
            }
        }
        return Arrays.copyOf(out, n);
    }

    /** @return the conjuncts segment si's dropped rows answer (bits of {@link Plan#conjuncts}), 0 when none. */
    long mask(final int si) {
        return masks == null ? 0 : masks[si];
    }

    /** @return the first of {@code rows} (ascending, or null for none) at or after {@code row}, else MAX_VALUE. */
    static int next(final int[] rows, final int row) {
        if (rows == null) {
            return Integer.MAX_VALUE;
        }
        final int i = Arrays.binarySearch(rows, row);
        final int at = i >= 0 ? i : -i - 1;
        return at < rows.length ? rows[at] : Integer.MAX_VALUE;
    }

    /** @return segment si's dropped rows, ascending, or null. */
    int[] rows(final int si) {
        return rows == null ? null : rows[si];
    }
}
