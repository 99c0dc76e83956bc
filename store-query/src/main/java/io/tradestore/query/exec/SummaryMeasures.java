package io.tradestore.query.exec;

import io.tradestore.core.TableSnapshot;
import io.tradestore.query.exec.agg.Acc;
import io.tradestore.query.plan.Plan;
import io.tradestore.query.spi.Selection;
import io.tradestore.query.spi.Summary;

/**
 * Which measure each aggregate of a plan folds from value or bucket summaries, and which aggregates share one: each
 * distinct measure is asked of the index once per segment.
 */
final class SummaryMeasures {
    private SummaryMeasures() {
    }

    /**
     * @param plan a plan run with an index selector.
     * @return per aggregate its summary measure, or null when a global aggregate cannot fold all of them from
     *         summaries.
     */
    static int[][] of(final Plan plan) {
        if (plan.scan || plan.keyMode != Plan.GLOBAL) {
            return null;
        }
        final int[][] out = new int[plan.accs.size()][];
        for (int i = 0; i < out.length; i++) {
            out[i] = plan.accs.get(i).get().summaryMeasure();
            if (out[i] == null) {
                return null;
            }
        }
        return withRowCounts(out);
    }

    /**
     * @param measures per aggregate its measure ({@code {-1, -1}}: row counts only).
     * @return them with each row count taking the first measured aggregate's measure: any measured summary has the rows
     *     (one build instead of two).
     */
    static int[][] withRowCounts(final int[][] measures) {
        int measured = -1;
        for (int i = 0; i < measures.length && measured < 0; i++) {
            measured = measures[i][0] >= 0 && measures[i][1] != Acc.FIRST_LAST ? i : -1;
        }
        final int[][] out = new int[measures.length][];
        for (int i = 0; i < out.length; i++) {
            out[i] = measures[i][0] < 0 && measured >= 0 ? measures[measured] : measures[i];
        }
        return out;
    }

    /**
     * @param measures per aggregate its measure ({@link #of}).
     * @param first    per aggregate the first one of its measure ({@link #firstOfMeasure}).
     * @param sel      a segment's selection.
     * @param snap     the snapshot.
     * @param si       the segment.
     * @return each aggregate's summary of the selection, all of one part size, or null when any is missing: first/last
     *     only over all rows (an index selection's parts would need its rows), at the value summaries' part size (a
     *     block's when there are none).
     */
    static Summary[] views(final int[][] measures, final int[] first, final Selection sel, final TableSnapshot snap,
        final int si) {
        if (measures == null || measures.length == 0) {
            return null;
        }
        final Summary[] out = new Summary[measures.length];
        int shift = -1;
        for (int i = 0; i < out.length; i++) {
            if (measures[i][1] == Acc.FIRST_LAST) {
                continue;
            }
            out[i] = first[i] < i ? out[first[i]] : sel.summary(measures[i][0], measures[i][1]);
            if (out[i] == null || shift >= 0 && out[i].partShift() != shift) {
                return null;
            }
            shift = out[i].partShift();
        }
        for (int i = 0; i < out.length; i++) {
            if (measures[i][1] == Acc.FIRST_LAST) {
                if (!sel.all() || snap.schema().timestampIndex() < 0) {
                    return null;
                }
                final int partShift = shift >= 0 ? shift : Integer.numberOfTrailingZeros(snap.schema().blockRows());
                out[i] = first[i] < i ? out[first[i]]
                    : new FirstLastSummary(snap, si, snap.schema().column(measures[i][0]), partShift);
            }
        }
        return out;
    }

    /** @return per aggregate the first aggregate with the same measure (itself when none comes before it). */
    static int[] firstOfMeasure(final int[][] m) {
        final int[] first = new int[m.length];
        for (int i = 0; i < m.length; i++) {
            int j = 0;
            while (j < i && !(m[j][0] == m[i][0] && m[j][1] == m[i][1])) {
                j++;
            }
            first[i] = j;
        }
        return first;
    }
}
